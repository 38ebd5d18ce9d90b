// The Library: the corpora with their document counts, the documents of the chosen corpus a
// page at a time, and the import panel. Routes: `#/library` and `#/library/<corpus>?page=N`.

import { listCorpora, listDocuments, type Corpus, type DocumentSummary } from '../api';
import { count, el, replace, shortTimeCell } from '../dom';
import { href, type RouteContext } from '../router';
import { importPanel, setImportCorpora, suggestImportCorpus } from './import-panel';
import { indexRebuildPanel } from './index-rebuild';
import { linkButton, showError, statusLine } from './common';

/** Documents per page. */
const PAGE_SIZE = 50;

function corpusItem(corpus: Corpus, selected: boolean): HTMLLIElement {
  const button = linkButton(
    [el('span', { class: 'name' }, corpus.name), el('span', { class: 'count' }, count(corpus.document_count, 'document'))],
    href(`/library/${encodeURIComponent(corpus.name)}`),
    { 'data-corpus': corpus.name },
  );
  if (selected) button.setAttribute('aria-current', 'true');
  if (corpus.description) button.title = corpus.description;
  return el('li', { class: selected ? 'selected' : undefined }, button);
}

function documentRow(document: DocumentSummary): HTMLTableRowElement {
  const title = document.title ?? document.origin;
  return el(
    'tr',
    { 'data-document-id': document.id },
    el('td', { class: 'title' }, linkButton(title, `#/documents/${document.id}`, { class: 'link document-link' })),
    el('td', { class: 'origin' }, document.url ?? document.origin),
    el('td', { class: 'number' }, document.sentence_count.toLocaleString()),
    el('td', {}, document.format),
    el('td', {}, ...shortTimeCell(document.published_at)),
    el('td', {}, ...shortTimeCell(document.acquired_at)),
    // The language detected on import (or given), an ISO 639-1 code; a dash when unknown.
    el('td', { class: 'language' }, document.language ?? '—'),
  );
}

async function renderDocuments(pane: HTMLElement, corpus: Corpus, page: number, signal: AbortSignal): Promise<void> {
  const status = statusLine('documents-status');
  const heading = el('h2', { id: 'documents-heading' }, corpus.name);
  replace(pane, heading, corpus.description ? el('p', { class: 'hint' }, corpus.description) : null, status);
  if (corpus.document_count === 0) {
    status.textContent = 'No documents yet.';
    return;
  }
  const offset = (page - 1) * PAGE_SIZE;
  status.textContent = 'Loading…';
  let documents: DocumentSummary[];
  try {
    documents = await listDocuments(corpus.name, PAGE_SIZE, offset);
  } catch (error) {
    if (!signal.aborted) showError(status, error);
    return;
  }
  if (signal.aborted) return;
  const last = offset + documents.length;
  status.textContent =
    documents.length === 0
      ? 'No documents on this page.'
      : `Documents ${(offset + 1).toLocaleString()}–${last.toLocaleString()} of ${corpus.document_count.toLocaleString()}, newest first`;
  const table = el(
    'table',
    { class: 'documents', id: 'document-table' },
    el(
      'thead',
      {},
      el('tr', {}, ...['Title', 'Origin', 'Sentences', 'Format', 'Published', 'Imported', 'Language'].map((name) => el('th', { scope: 'col' }, name))),
    ),
    el('tbody', {}, ...documents.map(documentRow)),
  );
  const pageHash = (n: number) => href(`/library/${encodeURIComponent(corpus.name)}`, { page: n > 1 ? n : undefined });
  const pager = el(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    page > 1 ? linkButton('← Newer', pageHash(page - 1), { id: 'page-previous' }) : null,
    last < corpus.document_count ? linkButton('Older →', pageHash(page + 1), { id: 'page-next' }) : null,
  );
  // A table wider than the panel (long unbroken words in a title) scrolls inside the panel
  // rather than widening the whole window.
  pane.append(el('div', { class: 'table-scroll' }, table), pager);
}

export async function renderLibrary({ outlet, params, query, signal }: RouteContext): Promise<void> {
  const selectedName = params[0] ?? null;
  const page = Math.max(1, Number.parseInt(query.get('page') ?? '1', 10) || 1);

  const corpusList = el('ul', { class: 'corpus-list', id: 'corpus-list' });
  const corpusStatus = statusLine('corpus-status');
  const documentsPane = el('div', { class: 'documents-pane' });
  replace(
    outlet,
    el('h1', {}, 'Library'),
    el(
      'div',
      { class: 'library' },
      el('section', { class: 'panel corpora', 'aria-labelledby': 'corpora-heading' }, el('h2', { id: 'corpora-heading' }, 'Corpora'), corpusList, corpusStatus),
      el('div', { class: 'library-main' }, indexRebuildPanel(), importPanel(), el('section', { class: 'panel' }, documentsPane)),
    ),
  );

  corpusStatus.textContent = 'Loading…';
  let corpora: Corpus[];
  try {
    corpora = await listCorpora();
  } catch (error) {
    if (!signal.aborted) showError(corpusStatus, error);
    return;
  }
  if (signal.aborted) return;
  setImportCorpora(corpora.map((corpus) => corpus.name));
  corpusStatus.textContent = corpora.length === 0 ? 'No corpora yet: import files, folders or web pages to start one.' : '';
  replace(corpusList, ...corpora.map((corpus) => corpusItem(corpus, corpus.name === selectedName)));

  const selected = corpora.find((corpus) => corpus.name === selectedName);
  if (selectedName !== null && !selected) {
    replace(documentsPane, el('p', { class: 'status error' }, `There is no corpus named “${selectedName}”.`));
    return;
  }
  if (!selected) {
    replace(documentsPane, el('p', { class: 'hint' }, corpora.length > 0 ? 'Choose a corpus to see its documents.' : ''));
    return;
  }
  suggestImportCorpus(selected.name);
  await renderDocuments(documentsPane, selected, page, signal);
}
