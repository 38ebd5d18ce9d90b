// One document: where it came from and its sentences, numbered as the index knows them. A
// search hit opens it at its sentence (`#/documents/<id>?sentence=<sentence id>`), which is
// marked and scrolled into view. Every piece of it is set as text.

import { getDocument, type Document } from '../api';
import { count, el, replace, shortTime } from '../dom';
import { href, type RouteContext } from '../router';
import { facts, linkButton, showError, statusLine } from './common';

function sentenceList(document: Document, focused: number | null): HTMLOListElement {
  return el(
    'ol',
    { class: 'sentences', id: 'sentence-list' },
    ...document.sentences.map((sentence) =>
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
    ),
  );
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
      ['Charset', document.charset],
      ['Size', `${count(summary.sentence_count, 'sentence')}, ${count(summary.text_chars, 'character')}`],
    ]),
    document.sentences.length === 0 ? el('p', { class: 'status' }, 'This document has no sentences.') : sentenceList(document, focused),
  );

  if (focused !== null) {
    outlet.querySelector<HTMLElement>(`#sentence-${focused}`)?.scrollIntoView({ block: 'center' });
  }
}
