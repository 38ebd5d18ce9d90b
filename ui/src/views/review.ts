// Review mode: the checked claims of a collection one at a time, reviewed by keyboard. Each
// claim shows its machine verdict with confidence and explanation, the evidence that decided it
// (the deciding premise's sentences and their source, as the claim view picks it), the review
// already stored, and a review bar: `a` accepts, `o` then `s`/`r`/`n` and a reason overrides
// (the claim view's rule: an override says why), `j`/`k` or the arrows move, `x` skips to the
// next claim not reviewed, `e`/Enter opens the source document or the claim view, `?` lists the
// keys, Esc leaves. Claims without a check are left out, with a note. The claim shown is kept
// per data directory and collection in localStorage, so leaving and coming back resumes there.
// Route: `#/review?collection=<name>&filter=unreviewed|supported|refuted|not_enough_info`.

import { VERDICTS, appInfo, collectionChecks, reviewCheck, type ClaimWithCheck, type EvidenceSource, type StoredCheck, type Verdict } from '../api';
import { count, el, replace } from '../dom';
import { href, navigate, type RouteContext } from '../router';
import { VERDICT_NAMES, claimHash, percent, probability, verdictBadge, verdictName, verdictPhrase } from './checks';
import { decidingPremise, sourceName } from './claim';
import { describeError, linkButton, showError, statusLine } from './common';
import { REVIEWER_KEY, kbd, keyButton, onEscape, readStored, reviewTakes, writeStored } from './review-kit';

/** Which checked claims a review goes through: all, those not reviewed yet, or one machine verdict. */
type ReviewFilter = 'all' | 'unreviewed' | Verdict;

/** A checked claim of the queue (claims without a check are left out). */
type Reviewable = ClaimWithCheck & { check: StoredCheck };

/** The verdict keys while overriding. */
const VERDICT_KEYS: Record<string, Verdict> = { s: 'supported', r: 'refuted', n: 'not_enough_info' };
const KEY_OF_VERDICT: Record<Verdict, string> = { supported: 's', refuted: 'r', not_enough_info: 'n' };

/** The key list of the `?` dialog: keys, what they do. */
const KEY_LIST: Array<[string[], string]> = [
  [['a'], 'Accept the machine verdict'],
  [['o'], 'Override it: then a verdict key and the reason, Enter to save'],
  [['s', 'r', 'n'], 'While overriding: Supported, Refuted, Not enough info'],
  [['j', '→'], 'Next claim'],
  [['k', '←'], 'Previous claim'],
  [['x'], 'Skip: the next claim not reviewed yet'],
  [['e', 'Enter'], 'Open the source document (or the claim’s full view)'],
  [['?'], 'This list of keys'],
  [['Esc'], 'Cancel an override; otherwise leave review mode'],
];

/** Where the claim shown is kept: per data directory (the window may open another) and collection. */
function positionKey(dataDir: string, collection: string): string {
  return `factdesk.review.position.${JSON.stringify([dataDir, collection])}`;
}

function parseFilter(value: string | null): ReviewFilter {
  if (value === 'unreviewed') return 'unreviewed';
  return VERDICTS.find((verdict) => verdict === value) ?? 'all';
}

function matches(entry: Reviewable, filter: ReviewFilter): boolean {
  if (filter === 'all') return true;
  if (filter === 'unreviewed') return entry.check.review === null;
  return entry.check.check.verdict === filter;
}

/** The evidence a verdict rests on: the deciding premise, else the best attribution. */
function decidingEvidence(stored: StoredCheck): { source: EvidenceSource | null; sentences: string[]; figures: string } | null {
  const check = stored.check;
  const premise = decidingPremise(check);
  if (premise) {
    return {
      source: check.sources[premise.source] ?? null,
      sentences: premise.sentences,
      figures: `P(entailment) ${probability(premise.entailment)} · P(contradiction) ${probability(premise.contradiction)}`,
    };
  }
  const attribution = check.attributions[0];
  if (attribution) return { source: attribution.source, sentences: attribution.sentences, figures: `P(entailment) ${probability(attribution.entailment)}` };
  return null;
}

export async function renderReview({ outlet, query, signal }: RouteContext): Promise<void> {
  const collection = query.get('collection') ?? '';
  const filter = parseFilter(query.get('filter'));
  const collectionHash = href(`/collections/${encodeURIComponent(collection)}`);
  const status = statusLine('review-status');
  replace(
    outlet,
    el('nav', { class: 'crumbs', 'aria-label': 'Back' }, linkButton(`← ${collection || 'Collections'}`, collection ? collectionHash : '#/collections', { id: 'review-back' })),
    el('h1', {}, 'Review', collection ? ` · ${collection}` : ''),
    status,
  );
  if (!collection) {
    showError(status, { code: 'invalid_input', message: 'Open review mode from a collection' });
    return;
  }
  status.textContent = 'Loading…';
  let entries: ClaimWithCheck[];
  let dataDir: string;
  try {
    [entries, dataDir] = await Promise.all([collectionChecks(collection), appInfo().then((info) => info.data_dir, () => '')]);
  } catch (error) {
    if (!signal.aborted) showError(status, error);
    return;
  }
  if (signal.aborted) return;
  const checked = entries.filter((entry): entry is Reviewable => entry.check !== null);
  const unchecked = entries.length - checked.length;
  const queue = checked.filter((entry) => matches(entry, filter));

  // The header: progress, which claims, the reviewer's name.
  const progress = el('p', { class: 'review-progress', id: 'review-progress' });
  const filterSelect = el(
    'select',
    { id: 'review-filter', name: 'filter' },
    el('option', { value: 'all', selected: filter === 'all' }, 'Every checked claim'),
    el('option', { value: 'unreviewed', selected: filter === 'unreviewed' }, 'Not reviewed yet'),
    ...VERDICTS.map((verdict) => el('option', { value: verdict, selected: filter === verdict }, `Machine verdict: ${VERDICT_NAMES[verdict]}`)),
  );
  filterSelect.addEventListener('change', () => navigate(href('/review', { collection, filter: filterSelect.value === 'all' ? undefined : filterSelect.value })));
  const reviewerInput = el('input', { type: 'text', id: 'review-reviewer-name', name: 'reviewer', autocomplete: 'name', value: readStored(REVIEWER_KEY) ?? '' });
  reviewerInput.addEventListener('change', () => writeStored(REVIEWER_KEY, reviewerInput.value.trim()));
  const header = el(
    'div',
    { class: 'review-header' },
    progress,
    el('label', { for: 'review-filter' }, 'Claims'),
    filterSelect,
    el('label', { for: 'review-reviewer-name' }, 'Reviewer'),
    reviewerInput,
  );
  const skippedNote =
    unchecked > 0 ? el('p', { class: 'hint', id: 'review-skipped' }, `${count(unchecked, 'claim')} without a check ${unchecked === 1 ? 'is' : 'are'} left out; run checks from the collection first.`) : null;

  // The claim, its verdict and evidence; drawn again for each claim.
  const card = el('section', { class: 'review-card', id: 'review-card', tabindex: -1, 'aria-labelledby': 'review-position' });

  // The review bar.
  const acceptButton = keyButton('review-accept-key', 'Accept', 'a', 'a', true);
  const overrideButton = keyButton('review-override-key', 'Override', 'o', 'o');
  const previousButton = keyButton('review-previous', 'Previous', 'k', 'k ArrowLeft');
  const nextButton = keyButton('review-next', 'Next', 'j', 'j ArrowRight');
  const skipButton = keyButton('review-skip', 'Skip', 'x', 'x');
  const openButton = keyButton('review-open', 'Open', 'e', 'e Enter');
  const keysButton = keyButton('review-keys-button', 'Keys', '?', 'Shift+?');
  const leaveButton = keyButton('review-leave', 'Leave', 'Esc', 'Escape');
  const verdictButtons = VERDICTS.map((verdict) => {
    const button = keyButton(`review-override-${verdict}`, VERDICT_NAMES[verdict], KEY_OF_VERDICT[verdict], KEY_OF_VERDICT[verdict]);
    button.dataset.verdict = verdict;
    return button;
  });
  const overridePrompt = el('span', { class: 'row-label', id: 'review-override-prompt' });
  const chooseRow = el('div', { class: 'review-choose', id: 'review-choose', role: 'group', 'aria-labelledby': 'review-override-prompt', hidden: true }, overridePrompt, ...verdictButtons);
  const commentField = el('input', { type: 'text', id: 'review-reason', name: 'comment', autocomplete: 'off', placeholder: 'Why the machine verdict is wrong' });
  const commentLabel = el('label', { for: 'review-reason', id: 'review-reason-label' }, 'Reason');
  const commentForm = el(
    'form',
    { class: 'review-reason-form', id: 'review-reason-form', hidden: true },
    commentLabel,
    commentField,
    el('button', { type: 'submit', id: 'review-reason-save', class: 'primary' }, 'Save override ', kbd('Enter')),
    el('button', { type: 'button', id: 'review-reason-cancel' }, 'Cancel ', kbd('Esc')),
  );
  const bar = el(
    'section',
    { class: 'review-bar', id: 'review-bar', 'aria-label': 'Review bar' },
    el('div', { class: 'review-keys-row' }, acceptButton, overrideButton, previousButton, nextButton, skipButton, openButton, keysButton, leaveButton),
    chooseRow,
    commentForm,
  );

  // The key list.
  const closeKeys = el('button', { type: 'button', id: 'review-keys-close' }, 'Close');
  const dialog = el(
    'dialog',
    { class: 'review-keys', id: 'review-keys', 'aria-labelledby': 'review-keys-heading' },
    el('h2', { id: 'review-keys-heading' }, 'Review keys'),
    el('dl', { class: 'key-list' }, ...KEY_LIST.flatMap(([keys, what]) => [el('dt', {}, ...keys.flatMap((key, at) => [at > 0 ? ' ' : null, kbd(key)])), el('dd', {}, what)])),
    el('p', { class: 'hint' }, 'Keys do nothing while you type in a field; Esc leaves the field.'),
    closeKeys,
  );
  closeKeys.addEventListener('click', () => dialog.close());

  status.textContent = '';
  replace(
    outlet,
    el('nav', { class: 'crumbs', 'aria-label': 'Back' }, linkButton(`← ${collection}`, collectionHash, { id: 'review-back' })),
    el('h1', {}, `Review · ${collection}`),
    el('div', { class: 'review-mode' }, header, skippedNote, card, bar, status, dialog),
  );

  let index = 0;
  let mode: 'idle' | 'choose' | 'reason' = 'idle';
  let overrideVerdict: Verdict | null = null;
  let saving = false;

  const current = (): Reviewable | undefined => queue[index];
  const reviewedCount = () => queue.filter((entry) => entry.check.review !== null).length;
  const progressText = () => `${reviewedCount().toLocaleString()} of ${queue.length.toLocaleString()} reviewed`;
  const announce = (message: string, error = false) => {
    status.classList.toggle('error', error);
    status.textContent = message;
  };

  const setMode = (next: typeof mode) => {
    mode = next;
    chooseRow.hidden = mode !== 'choose';
    commentForm.hidden = mode !== 'reason';
    const entry = current();
    for (const button of verdictButtons) button.disabled = mode !== 'choose' || button.dataset.verdict === entry?.check.check.verdict;
    if (entry) overridePrompt.textContent = `Override “${verdictName(entry.check.check.verdict)}” with`;
    if (mode === 'reason' && overrideVerdict) {
      commentLabel.textContent = `Why “${verdictName(overrideVerdict)}”`;
      commentField.value = '';
      commentField.focus();
    }
    if (mode === 'idle') {
      overrideVerdict = null;
      if (!document.activeElement || document.activeElement === document.body || bar.contains(document.activeElement)) card.focus();
    }
  };

  const draw = () => {
    progress.textContent = progressText();
    const entry = current();
    for (const button of [acceptButton, overrideButton, openButton, skipButton]) button.disabled = !entry;
    previousButton.disabled = index <= 0;
    nextButton.disabled = index >= queue.length - 1;
    if (!entry) {
      replace(
        card,
        el('h2', { id: 'review-position' }, 'No claims to review'),
        el('p', { class: 'hint' }, checked.length === 0 ? 'No claim of this collection has a check yet: run checks from the collection.' : 'No checked claim matches; choose other claims above.'),
      );
      return;
    }
    writeStored(positionKey(dataDir, collection), String(entry.claim.id));
    const stored = entry.check;
    const check = stored.check;
    const evidence = decidingEvidence(stored);
    const source = evidence?.source ?? null;
    const openLabel = openButton.querySelector('.label');
    if (openLabel) openLabel.textContent = source?.document_id != null ? 'Open source' : 'Open claim';
    const review = stored.review;
    replace(
      card,
      el('h2', { id: 'review-position' }, `Claim ${(index + 1).toLocaleString()} of ${queue.length.toLocaleString()}`),
      el('p', { class: 'review-claim', id: 'review-claim' }, entry.claim.text),
      el(
        'p',
        { class: 'verdict-line', id: 'review-machine', 'data-verdict': check.verdict },
        el('span', { class: 'row-label' }, 'Machine'),
        verdictBadge(check.verdict, 'large', check.undecided),
        check.confidence !== null ? el('span', { class: 'confidence', id: 'review-confidence' }, `confidence ${percent(check.confidence)}`) : null,
        el('span', { class: 'hint' }, check.method),
      ),
      check.explanation ? el('p', { class: 'explanation', id: 'review-explanation' }, check.explanation) : null,
      el(
        'div',
        { class: `review-current ${review ? review.decision : 'none'}`, id: 'review-current' },
        review
          ? el('p', { class: 'verdict-line' }, el('span', { class: 'row-label' }, 'Review'), verdictBadge(review.verdict), el('span', { class: 'decision' }, `${review.decision === 'accept' ? 'Accepted' : 'Overridden'}${review.reviewer ? ` by ${review.reviewer}` : ''}`))
          : el('p', { class: 'hint' }, 'Not reviewed yet.'),
        review && review.comment ? el('blockquote', { class: 'comment', id: 'review-current-comment' }, review.comment) : null,
      ),
      el(
        'section',
        { class: 'review-evidence', id: 'review-evidence', 'aria-labelledby': 'review-evidence-heading' },
        el('h3', { id: 'review-evidence-heading', class: 'source-name' }, 'Evidence that decided'),
        ...(evidence
          ? [
              el('p', { class: 'source-line', id: 'review-source' }, source ? sourceName(source) : 'Unknown source', source?.url && source.url !== source.title ? el('span', { class: 'url hint' }, ` · ${source.url}`) : null),
              el('blockquote', { class: 'backing' }, evidence.sentences.join(' ')),
              el('p', { class: 'hint' }, evidence.figures),
            ]
          : [el('p', { class: 'hint' }, check.sources.length === 0 ? 'No evidence was read for this check.' : 'No single premise decided; open the claim to see every source.')]),
      ),
    );
  };

  const moveTo = (next: number, message?: string) => {
    if (queue.length === 0) return;
    index = Math.max(0, Math.min(queue.length - 1, next));
    setMode('idle');
    draw();
    card.focus();
    window.scrollTo(0, 0);
    const entry = current();
    if (entry) announce(message ?? `Claim ${index + 1} of ${queue.length}${entry.check.review ? ', reviewed' : ''}.`);
  };

  const save = async (decision: 'accept' | 'override', verdict: Verdict | null, comment: string) => {
    const entry = current();
    if (!entry || saving) return;
    saving = true;
    announce('Saving…');
    const reviewer = reviewerInput.value.trim();
    writeStored(REVIEWER_KEY, reviewer);
    try {
      const review = await reviewCheck(entry.check.id, {
        decision,
        verdict: verdict ?? undefined,
        comment,
        reviewer: reviewer || undefined,
      });
      if (signal.aborted) return;
      entry.check.review = review;
      entry.claim.status = 'reviewed';
      const what = decision === 'accept' ? `Accepted “${verdictName(review.verdict)}”` : `Overridden with “${verdictName(review.verdict)}”`;
      const last = index >= queue.length - 1;
      moveTo(last ? index : index + 1, `${what}. ${progressText()}.${last ? ' That was the last claim.' : ''}`);
    } catch (error) {
      if (signal.aborted) return;
      announce(describeError(error), true);
    } finally {
      saving = false;
    }
  };

  const accept = () => {
    if (current()) void save('accept', null, '');
  };
  const startOverride = () => {
    const entry = current();
    if (!entry) return;
    setMode('choose');
    const others = VERDICTS.filter((verdict) => verdict !== entry.check.check.verdict).map((verdict) => `${KEY_OF_VERDICT[verdict]} ${verdictPhrase(verdict)}`);
    announce(`Override: press ${others.join(' or ')}; Esc cancels.`);
  };
  const chooseVerdict = (verdict: Verdict) => {
    const entry = current();
    if (!entry || mode !== 'choose') return;
    if (verdict === entry.check.check.verdict) {
      announce(`“${verdictName(verdict)}” is the machine verdict: press a to accept it, or choose another.`, true);
      return;
    }
    overrideVerdict = verdict;
    announce(`Overriding with “${verdictName(verdict)}”: type the reason, Enter saves.`);
    setMode('reason');
  };
  const skip = () => {
    for (let at = index + 1; at < queue.length; at += 1) {
      if (queue[at]?.check.review === null) {
        moveTo(at);
        return;
      }
    }
    announce('No claim after this one is left to review.');
  };
  const open = () => {
    const entry = current();
    if (!entry) return;
    const source = decidingEvidence(entry.check)?.source;
    navigate(source?.document_id != null ? `#/documents/${source.document_id}` : claimHash(entry.claim));
  };
  const leave = () => navigate(collectionHash);
  const showKeys = () => {
    if (!dialog.open) dialog.showModal();
    closeKeys.focus();
  };

  acceptButton.addEventListener('click', accept);
  overrideButton.addEventListener('click', startOverride);
  previousButton.addEventListener('click', () => moveTo(index - 1));
  nextButton.addEventListener('click', () => moveTo(index + 1));
  skipButton.addEventListener('click', skip);
  openButton.addEventListener('click', open);
  keysButton.addEventListener('click', showKeys);
  leaveButton.addEventListener('click', leave);
  for (const button of verdictButtons) button.addEventListener('click', () => chooseVerdict(button.dataset.verdict as Verdict));
  commentForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const reason = commentField.value.trim();
    if (reason === '') {
      showError(status, { code: 'invalid_input', message: 'Say why the machine verdict is wrong' });
      commentField.focus();
      return;
    }
    if (overrideVerdict) void save('override', overrideVerdict, reason);
  });
  const cancelOverride = () => {
    setMode('idle');
    card.focus();
    announce('Override cancelled.');
  };
  (commentForm.querySelector('#review-reason-cancel') as HTMLButtonElement).addEventListener('click', cancelOverride);
  onEscape(commentField, cancelOverride);
  // Esc in another field gives the keys back rather than leaving.
  for (const field of [reviewerInput, filterSelect] as HTMLElement[]) onEscape(field, () => card.focus());

  const onKey = (event: KeyboardEvent) => {
    if (!reviewTakes(event, dialog)) return;
    const key = event.key;
    let handled = true;
    if (key === '?') showKeys();
    else if (saving) handled = false;
    else if (mode === 'choose') {
      if (key === 'Escape') cancelOverride();
      else if (VERDICT_KEYS[key.toLowerCase()]) chooseVerdict(VERDICT_KEYS[key.toLowerCase()] as Verdict);
      else handled = false;
    } else if (mode === 'reason') {
      if (key === 'Escape') cancelOverride();
      else handled = false;
    } else if (event.shiftKey && key !== '?') handled = false;
    else if (key === 'a') accept();
    else if (key === 'o') startOverride();
    else if (key === 'j' || key === 'ArrowRight') moveTo(index + 1);
    else if (key === 'k' || key === 'ArrowLeft') moveTo(index - 1);
    else if (key === 'x') skip();
    else if (key === 'e' || key === 'Enter') open();
    else if (key === 'Escape') leave();
    else handled = false;
    if (handled) event.preventDefault();
  };
  document.addEventListener('keydown', onKey);
  signal.addEventListener('abort', () => document.removeEventListener('keydown', onKey), { once: true });

  // Where the last review of this collection stopped, else the first claim not reviewed yet.
  const kept = Number(readStored(positionKey(dataDir, collection)));
  const keptAt = queue.findIndex((entry) => entry.claim.id === kept);
  const firstOpen = queue.findIndex((entry) => entry.check.review === null);
  index = keptAt >= 0 ? keptAt : Math.max(0, firstOpen);
  setMode('idle');
  draw();
  card.focus();
  announce(queue.length === 0 ? 'No claims to review.' : `Claim ${index + 1} of ${queue.length}. Press ? for the keys.`);
}
