// One document: where it came from and its sentences, numbered as the index knows them; a PDF's
// under a heading per page. A search hit opens it at its sentence
// (`#/documents/<id>?sentence=<sentence id>`), which is marked and scrolled into view. Every
// piece of it is set as text.

import { getDocument, type Document, type Sentence } from '../api';
import { count, el, replace, shortTime } from '../dom';
import { href, type RouteContext } from '../router';
import { facts, linkButton, showError, statusLine } from './common';

function sentenceItems(sentences: Sentence[], focused: number | null): HTMLLIElement[] {
  return sentences.map((sentence) =>
    el(
      'li',
      {
        class: sentence.id === focused ? 'sentence focused' : 'sentence',
        id: `sentence-${sentence.id}`,
        'data-sentence-id': sentence.id,
        value: sentence.ordinal + 1,
      },
      sentence.text,
    ),
  );
}

function sentenceList(document: Document, focused: number | null): HTMLElement {
  if (!document.sentences.some((sentence) => sentence.page !== null)) {
    return el('ol', { class: 'sentences', id: 'sentence-list' }, ...sentenceItems(document.sentences, focused));
  }
  // A paged document (a PDF): the sentences of each page under its number.
  const pages: { page: number; sentences: Sentence[] }[] = [];
  for (const sentence of document.sentences) {
    const page = sentence.page ?? 1;
    const last = pages[pages.length - 1];
    if (last !== undefined && last.page === page) last.sentences.push(sentence);
    else pages.push({ page, sentences: [sentence] });
  }
  return el(
    'div',
    { class: 'pages', id: 'sentence-list' },
    ...pages.map(({ page, sentences }) =>
      el(
        'section',
        { class: 'page', id: `page-${page}`, 'data-page': page, 'aria-labelledby': `page-${page}-heading` },
        el('h2', { class: 'page-number', id: `page-${page}-heading` }, `Page ${page}`),
        el('ol', { class: 'sentences' }, ...sentenceItems(sentences, focused)),
      ),
    ),
  );
}

/** "3 of 12" for the focused sentence of a paged document; null otherwise. */
function pageOf(document: Document, focused: number | null): string | null {
  const page = document.sentences.find((sentence) => sentence.id === focused)?.page;
  if (page === undefined || page === null) return null;
  const last = document.sentences.reduce((most, sentence) => Math.max(most, sentence.page ?? 0), 0);
  return `${page} of ${last}`;
}

export async function renderDocument({ outlet, params, query, signal }: RouteContext): Promise<void> {
  const id = Number(params[0]);
  const focused = query.has('sentence') ? Number(query.get('sentence')) : null;
  const status = statusLine('document-status');
  replace(outlet, status);
  status.textContent = 'Loading…';

  let document: Document;
  try {
    document = await getDocument(id);
  } catch (error) {
    if (!signal.aborted) showError(status, error);
    return;
  }
  if (signal.aborted) return;
  const summary = document.summary;
  const back = query.get('back');

  replace(
    outlet,
    el(
      'nav',
      { class: 'crumbs', 'aria-label': 'Back' },
      back ? linkButton('← Search results', `#${back}`, { id: 'back-to-search' }) : null,
      linkButton(`← ${summary.corpus}`, href(`/library/${encodeURIComponent(summary.corpus)}`), { id: 'back-to-corpus' }),
    ),
    el('h1', { id: 'document-title' }, summary.title ?? summary.origin),
    facts([
      ['Corpus', summary.corpus],
      ['Origin', summary.origin],
      // An address from the data is shown, never followed: a link would take the window away.
      ['Address', summary.url !== summary.origin ? summary.url : null],
      ['Published', shortTime(summary.published_at)],
      ['Imported', shortTime(summary.acquired_at)],
      ['Format', summary.format],
      ['Language', summary.language],
      ['Charset', document.charset],
      ['Size', `${count(summary.sentence_count, 'sentence')}, ${count(summary.text_chars, 'character')}`],
      ['Page', pageOf(document, focused)],
    ]),
    document.sentences.length === 0 ? el('p', { class: 'status' }, 'This document has no sentences.') : sentenceList(document, focused),
  );

  if (focused !== null) {
    outlet.querySelector<HTMLElement>(`#sentence-${focused}`)?.scrollIntoView({ block: 'center' });
  }
}
