// Sentence search: a query, optional corpora to search in, the language its words are analysed
// in and a number of hits. The form writes them into the location
// (`#/search?q=...&corpus=...&lang=...&limit=...`), so the back button and a document's "Search
// results" link return to the same hits. The language is "Automatic" unless a person picks one:
// the core then takes the one detected in the query, else the one most documents of the corpora
// searched are in (a one-word German query in a German corpus is stemmed as German). Snippets
// come from imported pages: `appendHighlighted` sets them as text, with the matched words in
// `<mark>`.

import { listCorpora, searchSentences, type Corpus, type SearchHit } from '../api';
import { count, el, replace, shortTime } from '../dom';
import { appendHighlighted } from '../highlight';
import { href, navigate, type RouteContext } from '../router';
import { LANGUAGES, languageLabel } from './claim-language';
import { linkButton, showError, statusLine } from './common';

function hitItem(hit: SearchHit, back: string): HTMLLIElement {
  const snippet = el('p', { class: 'snippet' });
  appendHighlighted(snippet, hit.snippet, hit.highlights);
  const open = href(`/documents/${hit.document_id}`, { sentence: hit.sentence_id, back });
  return el(
    'li',
    { class: 'hit', 'data-document-id': hit.document_id, 'data-sentence-id': hit.sentence_id },
    snippet,
    el(
      'p',
      { class: 'source' },
      linkButton(hit.document_title ?? hit.document_origin, open, { class: 'link title' }),
      hit.page !== null ? el('span', { class: 'page' }, `p. ${hit.page}`) : null,
      el('span', { class: 'corpus' }, hit.corpus),
      hit.published_at ? el('span', { class: 'date' }, shortTime(hit.published_at)) : null,
      // Shown as text, not a link: following it would take the app window away.
      hit.document_url ? el('span', { class: 'url' }, hit.document_url) : null,
    ),
  );
}

function corpusFilter(corpora: Corpus[], chosen: Set<string>): HTMLFieldSetElement {
  return el(
    'fieldset',
    { class: 'corpus-filter', id: 'search-corpora' },
    el('legend', {}, 'Corpora'),
    corpora.length === 0 ? el('p', { class: 'hint' }, 'No corpora yet.') : null,
    ...corpora.map((corpus) =>
      el(
        'label',
        { title: corpus.description ?? undefined },
        el('input', { type: 'checkbox', name: 'corpus', value: corpus.name, checked: chosen.has(corpus.name) }),
        ` ${corpus.name} `,
        el('span', { class: 'count' }, `(${corpus.document_count.toLocaleString()})`),
      ),
    ),
    corpora.length > 0 ? el('p', { class: 'hint' }, 'None ticked: search them all.') : null,
  );
}

/** The value of the "Automatic" option: the core chooses the query's language. */
const AUTOMATIC = '';

/** The select of the language a query is analysed in, set to `chosen` (a code, or automatic). */
function languageSelect(chosen: string): HTMLSelectElement {
  const codes = LANGUAGES.map(([code]) => code);
  if (chosen !== AUTOMATIC && !codes.includes(chosen)) codes.unshift(chosen);
  const select = el(
    'select',
    { id: 'search-language', name: 'lang', 'aria-describedby': 'search-language-hint' },
    el('option', { value: AUTOMATIC }, 'Automatic'),
    ...codes.map((code) => el('option', { value: code }, languageLabel(code))),
  );
  select.value = chosen;
  return select;
}

export async function renderSearch({ outlet, query, signal }: RouteContext): Promise<void> {
  const text = query.get('q') ?? '';
  const chosen = new Set(query.getAll('corpus'));
  const limitParam = query.get('limit') ?? '';
  const languageParam = (query.get('lang') ?? AUTOMATIC).trim().toLowerCase();

  const queryInput = el('input', {
    id: 'search-query',
    type: 'search',
    name: 'q',
    value: text,
    placeholder: 'Words or a sentence to look for',
    'aria-label': 'Search sentences',
    autocomplete: 'off',
  });
  // A chosen language also tells the browser how to shape the query's script.
  if (languageParam !== AUTOMATIC) queryInput.lang = languageParam;
  const limitInput = el('input', { id: 'search-limit', type: 'number', name: 'limit', min: 1, max: 1000, value: limitParam });
  const language = languageSelect(languageParam);
  const languageField = el(
    'div',
    { class: 'query-language' },
    el('label', {}, 'Query language ', language),
    el(
      'p',
      { class: 'hint', id: 'search-language-hint' },
      'Automatic: the language detected in the query, else the one most documents of the corpora searched are in.',
    ),
  );
  const filterSlot = el('div', { class: 'filter-slot' });
  const status = statusLine('search-status');
  const hits = el('ol', { class: 'hits', id: 'hit-list' });
  const form = el(
    'form',
    { class: 'search-form', role: 'search', id: 'search-form' },
    el('div', { class: 'search-row' }, queryInput, el('button', { type: 'submit', class: 'primary', id: 'search-submit' }, 'Search')),
    el('div', { class: 'filters' }, filterSlot, languageField, el('label', { class: 'limit' }, 'Hits ', limitInput)),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const corpora = Array.from(form.querySelectorAll<HTMLInputElement>('input[name=corpus]:checked')).map((box) => box.value);
    navigate(
      href('/search', { q: queryInput.value.trim(), corpus: corpora, lang: language.value, limit: limitInput.value.trim() }),
    );
  });
  replace(outlet, el('h1', {}, 'Search'), el('section', { class: 'panel' }, form), status, hits);
  queryInput.focus();

  try {
    const corpora = await listCorpora();
    if (signal.aborted) return;
    replace(filterSlot, corpusFilter(corpora, chosen));
  } catch (error) {
    if (!signal.aborted) showError(status, error);
    return;
  }

  if (text === '') return;
  const limit = Number.parseInt(limitParam, 10);
  status.textContent = 'Searching…';
  try {
    const found = await searchSentences(text, {
      corpora: [...chosen],
      limit: Number.isFinite(limit) && limit > 0 ? limit : undefined,
      language: languageParam === AUTOMATIC ? undefined : languageParam,
    });
    if (signal.aborted) return;
    const back = location.hash.replace(/^#/, '');
    replace(hits, ...found.map((hit) => hitItem(hit, back)));
    status.textContent = found.length === 0 ? 'No matching sentences.' : count(found.length, 'sentence');
  } catch (error) {
    if (!signal.aborted) showError(status, error);
  }
}
