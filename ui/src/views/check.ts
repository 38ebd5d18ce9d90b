// Check: paste a text (a summary, a paragraph), split it into claims, edit them, then check
// them as a collection — the claims are added to it (created if new) and every claim of it
// without a check made with the chosen method and options is checked, with progress and
// Cancel. The results link to each claim's detail. Under each claim, earlier claims of the
// library that say the same thing are shown with their verdicts ("checked before"), before any
// model call is spent on it. Route: `#/check`. The view is built once
// and kept, so the text, the claims and a running check are still there when the user comes
// back.

import {
  addClaims,
  collectionChecks,
  getSettings,
  listCollections,
  listCorpora,
  similarClaims,
  splitClaims,
  type ClaimCollection,
  type ClaimWithCheck,
} from '../api';
import { count, el, replace } from '../dom';
import { href, type RouteContext } from '../router';
import { batchBox, runBatch, runningBatch } from './batch-run';
import { claimHash, percent, reviewSummary, verdictBadge, verifyOptionsForm } from './checks';
import { describeError, linkButton, showError, statusLine } from './common';

let view: HTMLElement | null = null;
let collections: ClaimCollection[] = [];
let defaultsLoaded = false;
/** The claims of the last check run from this view, whose results it shows. */
let lastRun: { collection: string; texts: string[] } | null = null;

const textBox = el('textarea', {
  id: 'check-text',
  rows: 6,
  placeholder: 'Paste a summary or a paragraph; each sentence becomes a claim you can edit.',
});
const splitButton = el('button', { type: 'button', id: 'check-split', class: 'primary' }, 'Split into claims');
const splitStatus = statusLine('check-split-status');

const claimList = el('ol', { class: 'claim-editor', id: 'check-claims' });
const addClaimButton = el('button', { type: 'button', id: 'check-add-claim' }, 'Add a claim');
const claimsHint = el('p', { class: 'hint', id: 'check-claims-hint' });

const collectionInput = el('input', {
  id: 'check-collection',
  type: 'text',
  list: 'check-collection-names',
  required: true,
  autocomplete: 'off',
  placeholder: 'e.g. morning-briefing',
});
const collectionNames = el('datalist', { id: 'check-collection-names' });
/** When the claims were made: evidence published long before it is flagged as old. */
const claimDateInput = el('input', { id: 'check-claim-date', type: 'date', autocomplete: 'off' });
const collectionHint = el('p', { class: 'hint', id: 'check-collection-hint' });
const options = verifyOptionsForm('check');
const checkButton = el('button', { type: 'submit', id: 'check-start', class: 'primary' }, 'Check');
const checkStatus = statusLine('check-status');
const batchSlot = el('div', { class: 'batch-slot' });

const resultList = el('ol', { class: 'results', id: 'check-results' });
const resultsStatus = statusLine('check-results-status');
const resultsPanel = el(
  'section',
  { class: 'panel', 'aria-labelledby': 'check-results-heading', hidden: true },
  el('h2', { id: 'check-results-heading' }, 'Results'),
  resultsStatus,
  resultList,
);

/** The texts of the claims in the editor, trimmed, empty ones left out. */
function claimTexts(): string[] {
  return Array.from(claimList.querySelectorAll<HTMLTextAreaElement>('textarea.claim-input'))
    .map((box) => box.value.replace(/\s+/g, ' ').trim())
    .filter((text) => text !== '');
}

/** Renumbers the claim editors' labels after one is added or removed. */
function renumber(): void {
  const items = Array.from(claimList.children);
  items.forEach((item, index) => {
    const number = String(index + 1);
    item.querySelector('textarea')?.setAttribute('aria-label', `Claim ${number}`);
    item.querySelector('button')?.setAttribute('aria-label', `Remove claim ${number}`);
  });
  claimsHint.textContent =
    items.length === 0
      ? 'No claims yet: paste a text and split it, or add claims one by one.'
      : `${count(items.length, 'claim')}. Edit them as you like; empty ones are left out.`;
}

/** Why checked before is off (no embedding model, say): shown once, and no more look-ups. */
let checkedBeforeOff: string | null = null;
const checkedBeforeStatus = statusLine('check-before-status');

/** Shows under a claim the earlier claims like it, with their verdicts (nothing when none). */
async function showCheckedBefore(box: HTMLTextAreaElement, slot: HTMLElement): Promise<void> {
  const text = box.value.trim();
  if (checkedBeforeOff !== null) return;
  if (text === '') {
    replace(slot);
    return;
  }
  try {
    const found = await similarClaims(text, 3);
    if (box.value.trim() !== text) return; // edited meanwhile: a newer look-up follows
    replace(
      slot,
      found.length === 0 ? null : el('span', { class: 'hint' }, 'Checked before:'),
      ...found.map((entry) => {
        const check = entry.check;
        return el(
          'div',
          { class: 'similar', 'data-claim-id': entry.claim.id, 'data-verdict': check?.check.verdict ?? 'unchecked' },
          check ? verdictBadge(check.check.verdict, '', check.check.undecided) : el('span', { class: 'badge status-unchecked' }, 'not checked'),
          check?.review ? el('span', { class: 'badge review' }, reviewSummary(check.review)) : null,
          linkButton(entry.claim.text, claimHash(entry.claim), { class: 'link claim-link' }),
          el('span', { class: 'hint' }, `in “${entry.claim.collection}”, ${Math.round(entry.similarity * 100)}% alike`),
        );
      }),
    );
  } catch (error) {
    if (box.value.trim() !== text || checkedBeforeOff !== null) return;
    checkedBeforeOff = describeError(error);
    checkedBeforeStatus.classList.add('error');
    checkedBeforeStatus.textContent = `Earlier claims like these cannot be shown: ${checkedBeforeOff}`;
  }
}

function claimEditor(text: string): HTMLLIElement {
  const box = el('textarea', { class: 'claim-input', rows: 2, spellcheck: 'true' });
  box.value = text;
  const remove = el('button', { type: 'button', class: 'remove-claim' }, 'Remove');
  const before = el('div', { class: 'checked-before', 'aria-live': 'polite' });
  const item = el('li', {}, box, remove, before);
  let timer: number | undefined;
  box.addEventListener('input', () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void showCheckedBefore(box, before), 600);
  });
  if (text.trim() !== '') void showCheckedBefore(box, before);
  remove.addEventListener('click', () => {
    const next = (item.nextElementSibling ?? item.previousElementSibling)?.querySelector('textarea');
    item.remove();
    renumber();
    (next ?? addClaimButton).focus();
  });
  return item;
}

function setClaims(texts: string[]): void {
  replace(claimList, ...texts.map(claimEditor));
  renumber();
}

async function split(): Promise<void> {
  const text = textBox.value;
  splitStatus.classList.remove('error');
  if (text.trim() === '') {
    showError(splitStatus, { code: 'invalid_input', message: 'Paste a text to split first' });
    textBox.focus();
    return;
  }
  splitButton.disabled = true;
  splitStatus.textContent = 'Splitting…';
  try {
    const claims = await splitClaims(text);
    setClaims(claims);
    splitStatus.textContent =
      claims.length === 0 ? 'No sentence with words was found in the text.' : `Split into ${count(claims.length, 'claim')}.`;
    claimList.querySelector('textarea')?.focus();
  } catch (error) {
    showError(splitStatus, error);
  } finally {
    splitButton.disabled = false;
  }
}

function updateCollectionHint(): void {
  const name = collectionInput.value.trim();
  const existing = collections.find((collection) => collection.name === name);
  collectionHint.textContent =
    name === ''
      ? 'A new name starts a new collection; an existing one adds these claims to it.'
      : existing
        ? `“${name}” holds ${count(existing.claim_count, 'claim')}: the new claims are added, and every claim of it without a check made with these options is checked.`
        : `A new collection “${name}” will hold just these claims.`;
}

function resultItem(entry: ClaimWithCheck): HTMLLIElement {
  const check = entry.check;
  return el(
    'li',
    { class: 'result', 'data-claim-id': entry.claim.id, 'data-verdict': check?.check.verdict ?? 'unchecked', 'data-undecided': check?.check.undecided ?? undefined },
    el(
      'div',
      { class: 'result-verdict' },
      check ? verdictBadge(check.check.verdict, '', check.check.undecided) : el('span', { class: 'badge status-unchecked' }, 'not checked'),
      check && check.check.confidence !== null ? el('span', { class: 'confidence' }, `confidence ${percent(check.check.confidence)}`) : null,
      check?.review ? el('span', { class: 'badge review' }, reviewSummary(check.review)) : null,
    ),
    linkButton(entry.claim.text, claimHash(entry.claim), { class: 'link claim-link' }),
    check?.check.explanation ? el('p', { class: 'hint' }, check.check.explanation) : null,
  );
}

/** Shows the checks of the claims `texts` in `collection`. */
async function showResults(collection: string, texts: string[]): Promise<void> {
  resultsPanel.hidden = false;
  resultsStatus.classList.remove('error');
  resultsStatus.textContent = 'Loading the results…';
  resultList.replaceChildren();
  try {
    const wanted = new Set(texts);
    const entries = (await collectionChecks(collection)).filter((entry) => wanted.has(entry.claim.text));
    replace(resultList, ...entries.map(resultItem));
    const checked = entries.filter((entry) => entry.check !== null).length;
    replace(
      resultsStatus,
      `${count(checked, 'claim')} of ${entries.length.toLocaleString()} checked in “${collection}”. `,
      linkButton('Open the collection', href(`/collections/${encodeURIComponent(collection)}`), { id: 'check-open-collection' }),
    );
  } catch (error) {
    showError(resultsStatus, error);
  }
}

async function startCheck(): Promise<void> {
  checkStatus.classList.remove('error');
  const claims = claimTexts();
  const collection = collectionInput.value.trim();
  if (claims.length === 0) {
    showError(checkStatus, { code: 'invalid_input', message: 'There is no claim to check: split a text or add a claim' });
    (claimList.querySelector('textarea') ?? textBox).focus();
    return;
  }
  if (collection === '') {
    showError(checkStatus, { code: 'invalid_input', message: 'Name the collection to keep the claims in' });
    collectionInput.focus();
    return;
  }
  const chosen = options.read();
  if ('error' in chosen) {
    showError(checkStatus, { code: 'invalid_input', message: chosen.error });
    chosen.field.focus();
    return;
  }
  const busy = runningBatch();
  if (busy !== null) {
    showError(checkStatus, { code: 'invalid_input', message: `Checks of “${busy}” are running; wait for them or cancel them` });
    return;
  }
  checkButton.disabled = true;
  try {
    checkStatus.textContent = `Adding ${count(claims.length, 'claim')} to “${collection}”…`;
    const added = await addClaims(collection, claims, claimDateInput.value === '' ? null : claimDateInput.value);
    checkStatus.textContent =
      `${count(added.imported, 'claim')} added to “${collection}”` +
      (added.duplicates > 0 ? ` (${added.duplicates.toLocaleString()} already there)` : '') +
      '. Checking…';
    void refreshCollections();
    lastRun = { collection, texts: claims };
    // Claims of the collection that were already checked this way keep their check.
    const run = runBatch(collection, { ...chosen.options, skip_checked: true });
    replace(batchSlot, batchBox(collection));
    const summary = await run;
    checkStatus.textContent = summary?.cancelled ? 'The check was cancelled.' : '';
    await showResults(collection, claims);
  } catch (error) {
    showError(checkStatus, error);
  } finally {
    checkButton.disabled = false;
  }
}

async function refreshCollections(): Promise<void> {
  try {
    collections = await listCollections();
    replace(collectionNames, ...collections.map((collection) => el('option', { value: collection.name })));
    updateCollectionHint();
  } catch {
    // The names are only suggestions; the form works without them.
  }
}

function build(): HTMLElement {
  splitButton.addEventListener('click', () => void split());
  addClaimButton.addEventListener('click', () => {
    const item = claimEditor('');
    claimList.append(item);
    renumber();
    item.querySelector('textarea')?.focus();
  });
  collectionInput.addEventListener('input', updateCollectionHint);
  const form = el(
    'form',
    // The fields are checked by startCheck with messages; the browser's own check would stop
    // the form silently on a field inside the closed evidence options.
    { class: 'check-form', id: 'check-form', novalidate: true },
    el(
      'div',
      { class: 'options-grid' },
      el('div', { class: 'option-row' }, el('label', { for: 'check-collection' }, 'Collection'), el('div', { class: 'option-control' }, collectionInput, collectionNames, collectionHint)),
      el(
        'div',
        { class: 'option-row' },
        el('label', { for: 'check-claim-date' }, 'Claimed on'),
        el(
          'div',
          { class: 'option-control' },
          claimDateInput,
          el('p', { class: 'hint' }, 'When the claims were made, if known: evidence published long before it is flagged as old (Settings: Old evidence). A claim already in the collection keeps its date.'),
        ),
      ),
    ),
    options.element,
    el('div', { class: 'buttons' }, checkButton),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void startCheck();
  });
  renumber();
  updateCollectionHint();
  return el(
    'div',
    { class: 'check-view' },
    el('h1', {}, 'Check'),
    el(
      'section',
      { class: 'panel', 'aria-labelledby': 'check-text-heading' },
      el('h2', { id: 'check-text-heading' }, el('label', { for: 'check-text' }, '1. Text')),
      textBox,
      el('div', { class: 'buttons' }, splitButton),
      splitStatus,
    ),
    el(
      'section',
      { class: 'panel', 'aria-labelledby': 'check-claims-heading' },
      el('h2', { id: 'check-claims-heading' }, '2. Claims'),
      claimsHint,
      claimList,
      checkedBeforeStatus,
      el('div', { class: 'buttons' }, addClaimButton),
    ),
    el(
      'section',
      { class: 'panel', 'aria-labelledby': 'check-run-heading' },
      el('h2', { id: 'check-run-heading' }, '3. Check'),
      form,
      checkStatus,
      batchSlot,
    ),
    resultsPanel,
  );
}

export async function renderCheck({ outlet, signal }: RouteContext): Promise<void> {
  view ??= build();
  replace(outlet, view);
  // The progress box of this view's last run, even if the collection field changed since.
  const collection = lastRun?.collection ?? collectionInput.value.trim();
  replace(batchSlot, collection ? batchBox(collection) : null);
  if (!runningBatch() && !defaultsLoaded) textBox.focus();
  // Verdicts and reviews may have changed elsewhere since the results were drawn.
  if (lastRun && runningBatch() === null) void showResults(lastRun.collection, lastRun.texts);
  await refreshCollections();
  try {
    const [settings, corpora] = await Promise.all([defaultsLoaded ? null : getSettings(), listCorpora()]);
    if (signal.aborted) return;
    if (settings) {
      options.setDefaults(settings.settings);
      defaultsLoaded = true;
    }
    options.setCorpora(corpora);
  } catch (error) {
    if (!signal.aborted) checkStatus.textContent = `The default options could not be read: ${describeError(error)}`;
  }
}
