// The Factdesk window: the data directory, the corpora and a sentence search. Text from the
// data (titles, snippets, URLs) is always set with `textContent`, never as HTML.

import { appInfo, listCorpora, searchSentences, type CommandError, type Corpus, type SearchHit } from './api';
import { appendHighlighted } from './highlight';

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found as T;
}

const dataDir = element<HTMLElement>('data-dir');
const corpusList = element<HTMLUListElement>('corpus-list');
const corpusStatus = element<HTMLParagraphElement>('corpus-status');
const searchForm = element<HTMLFormElement>('search-form');
const searchQuery = element<HTMLInputElement>('search-query');
const searchStatus = element<HTMLParagraphElement>('search-status');
const hitList = element<HTMLOListElement>('hit-list');

function describe(error: CommandError): string {
  return `${error.message} (${error.code})`;
}

function selectedCorpora(): string[] {
  return Array.from(corpusList.querySelectorAll<HTMLInputElement>('input[type=checkbox]:checked'))
    .map((box) => box.value);
}

function renderCorpora(corpora: Corpus[]): void {
  corpusList.replaceChildren();
  corpusStatus.textContent = corpora.length === 0
    ? 'No corpora yet. Import one with the factdesk command line.'
    : 'Search all corpora, or tick some to search only those.';
  for (const corpus of corpora) {
    const item = document.createElement('li');
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.value = corpus.name;
    const name = document.createElement('span');
    name.className = 'corpus-name';
    name.textContent = corpus.name;
    const count = document.createElement('span');
    count.className = 'corpus-count';
    count.textContent = `${corpus.document_count} ${corpus.document_count === 1 ? 'document' : 'documents'}`;
    label.append(box, name, count);
    if (corpus.description) label.title = corpus.description;
    item.append(label);
    corpusList.append(item);
  }
}

function renderHit(hit: SearchHit): HTMLLIElement {
  const item = document.createElement('li');
  item.className = 'hit';

  const snippet = document.createElement('p');
  snippet.className = 'snippet';
  appendHighlighted(snippet, hit.snippet, hit.highlights);

  const source = document.createElement('p');
  source.className = 'source';
  const title = document.createElement('span');
  title.className = 'title';
  title.textContent = hit.document_title ?? hit.document_origin;
  const corpus = document.createElement('span');
  corpus.className = 'corpus';
  corpus.textContent = hit.corpus;
  source.append(title, corpus);
  // Shown as text, not a link: following it would navigate the app window away.
  if (hit.document_url) {
    const url = document.createElement('span');
    url.className = 'url';
    url.textContent = hit.document_url;
    source.append(url);
  }

  item.append(snippet, source);
  return item;
}

let latestSearch = 0;

async function search(query: string): Promise<void> {
  const ticket = ++latestSearch;
  if (query.trim() === '') {
    hitList.replaceChildren();
    searchStatus.textContent = '';
    return;
  }
  searchStatus.textContent = 'Searching…';
  try {
    const hits = await searchSentences(query, { corpora: selectedCorpora() });
    if (ticket !== latestSearch) return; // a newer search has started
    hitList.replaceChildren(...hits.map(renderHit));
    searchStatus.textContent = hits.length === 0
      ? 'No matching sentences.'
      : `${hits.length} ${hits.length === 1 ? 'sentence' : 'sentences'}`;
  } catch (error) {
    if (ticket !== latestSearch) return;
    hitList.replaceChildren();
    searchStatus.textContent = describe(error as CommandError);
  }
}

async function start(): Promise<void> {
  searchForm.addEventListener('submit', (event) => {
    event.preventDefault();
    void search(searchQuery.value);
  });

  try {
    const info = await appInfo();
    dataDir.textContent = info.data_dir;
    document.title = 'Factdesk';
  } catch (error) {
    dataDir.textContent = describe(error as CommandError);
  }

  try {
    renderCorpora(await listCorpora());
  } catch (error) {
    corpusStatus.textContent = describe(error as CommandError);
  }
}

void start();
