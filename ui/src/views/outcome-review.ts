// Review mode for the outcomes that are not verdicts: a revision's edits (RARR, CoVe) and a
// summary's sources (TTS and its baselines), one item at a time, with review mode's keys
// (review.ts reviews verdicts): `a` accepts (the edit; what the summary did with the source,
// used or dropped), `r` (or `o`, as overriding a verdict) rejects or disagrees, then a reason
// and Enter saves; `j`/`k` or the arrows move, `x` skips to the next item not reviewed, `e`/Enter
// opens the source document, `?` lists the keys, Esc leaves. The decisions are stored beside the
// outcome (edit_decisions; source_reviews), which they never change. The item shown is kept per
// data directory and outcome in localStorage, so leaving and coming back resumes there.
// Routes: `#/review/revision/<id>` and `#/review/summary/<id>`.

import {
  appInfo,
  decideEdit,
  getRevision,
  getSourcedSummary,
  reviewSummarySource,
  summarySourceReviews,
  type Edit,
  type EvidenceSentences,
  type ReviewedRevision,
  type SourceReview,
  type SourcedSummary,
} from '../api';
import { count, el, replace, type Child } from '../dom';
import { navigate, type RouteContext } from '../router';
import { describeError, linkButton, showError, statusLine } from './common';
import { REVIEWER_KEY, kbd, keyButton, onEscape, readStored, reviewTakes, writeStored } from './review-kit';

/** A person's decision on one item, as the store keeps it. */
interface ItemDecision {
  accepted: boolean;
  comment: string | null;
  reviewer: string | null;
}

/** What review mode needs of one kind of outcome. */
interface ReviewSubject {
  /** `edit` or `source`: the item's name in headings and messages. */
  noun: string;
  title: string;
  /** Where Leave goes, and its label. */
  backHash: string;
  backLabel: string;
  items: number;
  acceptLabel: string;
  rejectLabel: string;
  acceptHelp: string;
  rejectHelp: string;
  /** The reason field's label while rejecting item `index`. */
  reasonLabel(index: number): string;
  /** The item's content (its heading is drawn around it). */
  draw(index: number): Child[];
  decision(index: number): ItemDecision | null;
  save(index: number, accepted: boolean, comment: string | null, reviewer: string | null): Promise<void>;
  /** The hash that opens the item's source, or null when it has none in the library. */
  sourceHash(index: number): string | null;
}

function positionKey(dataDir: string, kind: string, id: number): string {
  return `factdesk.review.position.${JSON.stringify([dataDir, kind, id])}`;
}

function evidenceSourceName(evidence: EvidenceSentences): string {
  const source = evidence.source;
  return source.title ?? source.url ?? (source.document_id != null ? `document ${source.document_id}` : 'unnamed source');
}

/** Edit offsets are UTF-8 bytes; the UI slices UTF-16 strings. */
function charOffset(text: string, byte: number): number {
  return new TextDecoder().decode(new TextEncoder().encode(text).slice(0, byte)).length;
}

/** The sentence-sized stretch of `original` around an edit, with the edit marked. */
function editInContext(original: string, edit: Edit): Node[] {
  const start = charOffset(original, edit.start);
  const end = start + edit.before.length;
  const before = original.slice(0, start);
  const after = original.slice(end);
  const from = Math.max(before.lastIndexOf('. ') + 2, before.length - 160, 0);
  const stop = after.search(/[.!?](\s|$)/);
  const tail = stop < 0 ? after.slice(0, 160) : after.slice(0, stop + 1);
  return [
    document.createTextNode(`${from > 0 ? '…' : ''}${before.slice(from)}`),
    el('del', {}, edit.before || '(nothing)'),
    el('ins', {}, edit.after || '(nothing)'),
    document.createTextNode(`${tail}${tail.length < after.length ? '…' : ''}`),
  ];
}

async function revisionSubject(id: number): Promise<ReviewSubject> {
  let reviewed: ReviewedRevision = await getRevision(id);
  const outcome = reviewed.stored.outcome;
  if (outcome.kind !== 'revision') throw { code: 'invalid_input', message: `Outcome ${id} is not a revision; open review mode from the Correct view` };
  const revision = outcome;
  const decisionOf = (index: number): ItemDecision | null => reviewed.decisions.find((decision) => decision.edit === index) ?? null;
  return {
    noun: 'edit',
    title: `Review · revision ${id}`,
    backHash: '#/correct',
    backLabel: '← Correct',
    items: revision.edits.length,
    acceptLabel: 'Accept',
    rejectLabel: 'Reject',
    acceptHelp: 'Accept the edit',
    rejectHelp: 'Reject it: then the reason, Enter to save',
    reasonLabel: () => 'Why reject this edit',
    draw: (index) => {
      const edit = revision.edits[index];
      if (!edit) return [];
      const decision = decisionOf(index);
      return [
        el('p', { class: 'review-claim revision-diff', id: 'review-item-text' }, ...editInContext(revision.original, edit)),
        el(
          'p',
          { class: 'verdict-line', id: 'review-machine' },
          el('span', { class: 'row-label' }, revision.method),
          el('span', {}, 'replaces ', el('del', {}, edit.before || '(nothing)'), ' with ', el('ins', {}, edit.after || '(nothing)')),
          edit.agreement !== null ? el('span', { class: 'confidence' }, `agreement ${edit.agreement.toFixed(2)}`) : null,
        ),
        edit.question ? el('p', { class: 'explanation', id: 'review-question' }, `Asked: ${edit.question}`) : null,
        currentDecision(decision, 'Accepted', 'Rejected'),
        el(
          'section',
          { class: 'review-evidence', id: 'review-evidence', 'aria-labelledby': 'review-evidence-heading' },
          el('h3', { id: 'review-evidence-heading', class: 'source-name' }, 'Evidence the edit follows'),
          ...(edit.evidence.length === 0
            ? [el('p', { class: 'hint' }, 'No evidence: the model answered from what it knows.')]
            : edit.evidence.flatMap((evidence) => [
                el('p', { class: 'source-line' }, evidenceSourceName(evidence)),
                el('blockquote', { class: 'backing' }, evidence.sentences.join(' ')),
              ])),
        ),
      ];
    },
    decision: decisionOf,
    save: async (index, accepted, comment, reviewer) => {
      reviewed = await decideEdit(id, index, accepted, reviewer ?? undefined, comment ?? undefined);
    },
    sourceHash: (index) => {
      const document = revision.edits[index]?.evidence.find((evidence) => evidence.source.document_id != null)?.source.document_id;
      return document != null ? `#/documents/${document}` : null;
    },
  };
}

async function summarySubject(id: number): Promise<ReviewSubject> {
  const [stored, initial] = await Promise.all([getSourcedSummary(id), summarySourceReviews(id)]);
  if (stored.outcome.kind !== 'summary') throw { code: 'invalid_input', message: `Outcome ${id} is not a summary; open review mode from the Summaries view` };
  const summary: SourcedSummary = stored.outcome;
  let reviews: SourceReview[] = initial;
  const name = (index: number): string => {
    const source = summary.sources[index]?.source;
    return source?.title ?? source?.url ?? (source?.document_id != null ? `document ${source.document_id}` : `source ${index + 1}`);
  };
  const choice = (index: number): string => (summary.sources[index]?.used ? 'used' : 'dropped');
  return {
    noun: 'source',
    title: `Review · summary ${id}`,
    backHash: `#/summaries/${id}`,
    backLabel: '← Summary',
    items: summary.sources.length,
    acceptLabel: 'Agree',
    rejectLabel: 'Disagree',
    acceptHelp: 'Agree with what the summary did with the source (used or dropped)',
    rejectHelp: 'Disagree: then the reason, Enter to save',
    reasonLabel: (index) => `Why it should not be ${choice(index)}`,
    draw: (index) => {
      const scored = summary.sources[index];
      if (!scored) return [];
      const review = reviews.find((entry) => entry.source === index) ?? null;
      const drafted = summary.claims?.find((entry) => entry.source === index);
      const stances = drafted?.stances[index] ?? [];
      return [
        el('p', { class: 'review-claim', id: 'review-item-text' }, name(index)),
        el(
          'p',
          { class: 'verdict-line', id: 'review-machine', 'data-used': String(scored.used) },
          el('span', { class: 'row-label' }, summary.method),
          el('strong', { class: 'source-choice' }, scored.used ? 'Used' : 'Dropped'),
          el('span', { class: 'confidence' }, `score ${scored.score.toFixed(3)}`),
        ),
        el('p', { class: 'explanation' }, `Question: ${summary.question ?? ''}`),
        scored.note ? el('p', { class: 'hint' }, scored.note) : null,
        currentDecision(review, 'Agreed', 'Disagreed'),
        el(
          'section',
          { class: 'review-evidence', id: 'review-evidence', 'aria-labelledby': 'review-evidence-heading' },
          el('h3', { id: 'review-evidence-heading', class: 'source-name' }, 'What the score rests on'),
          ...(drafted && drafted.claims.length > 0
            ? [
                el('p', { class: 'hint' }, `Claims drafted from the other sources, and this source’s stance on each (${count(drafted.claims.length, 'claim')}):`),
                el(
                  'ul',
                  { class: 'source-stances' },
                  ...drafted.claims.map((claim, k) => {
                    const stance = stances[k] ?? 'neutral';
                    const word = stance === 'support' ? 'supports' : stance === 'refute' ? 'contradicts' : 'abstains';
                    return el('li', { class: `stance-${stance}` }, el('strong', {}, word), `: ${claim}`);
                  }),
                ),
              ]
            : [el('p', { class: 'hint' }, 'This method scores no claims per source.')]),
        ),
      ];
    },
    decision: (index) => reviews.find((entry) => entry.source === index) ?? null,
    save: async (index, accepted, comment, reviewer) => {
      reviews = await reviewSummarySource(id, index, accepted, comment ?? undefined, reviewer ?? undefined);
    },
    sourceHash: (index) => {
      const document = summary.sources[index]?.source.document_id;
      return document != null ? `#/documents/${document}` : null;
    },
  };
}

function currentDecision(decision: ItemDecision | null, accepted: string, rejected: string): HTMLElement {
  return el(
    'div',
    { class: `review-current ${decision ? (decision.accepted ? 'accept' : 'override') : 'none'}`, id: 'review-current' },
    decision
      ? el('p', { class: 'verdict-line' }, el('span', { class: 'row-label' }, 'Review'), el('span', { class: 'decision' }, `${decision.accepted ? accepted : rejected}${decision.reviewer ? ` by ${decision.reviewer}` : ''}`))
      : el('p', { class: 'hint' }, 'Not reviewed yet.'),
    decision?.comment ? el('blockquote', { class: 'comment', id: 'review-current-comment' }, decision.comment) : null,
  );
}

/** Review mode over one revision's edits (`kind` revision) or one summary's sources (summary). */
export async function renderOutcomeReview(kind: 'revision' | 'summary', { outlet, params, signal }: RouteContext): Promise<void> {
  const id = Number(params[0]);
  const status = statusLine('review-status');
  replace(outlet, el('h1', {}, 'Review'), status);
  status.textContent = 'Loading…';
  let subject: ReviewSubject;
  let dataDir: string;
  try {
    [subject, dataDir] = await Promise.all([kind === 'revision' ? revisionSubject(id) : summarySubject(id), appInfo().then((info) => info.data_dir, () => '')]);
  } catch (error) {
    if (!signal.aborted) showError(status, error);
    return;
  }
  if (signal.aborted) return;
  const { noun } = subject;
  const Noun = noun.charAt(0).toUpperCase() + noun.slice(1);

  const progress = el('p', { class: 'review-progress', id: 'review-progress' });
  const reviewerInput = el('input', { type: 'text', id: 'review-reviewer-name', name: 'reviewer', autocomplete: 'name', value: readStored(REVIEWER_KEY) ?? '' });
  reviewerInput.addEventListener('change', () => writeStored(REVIEWER_KEY, reviewerInput.value.trim()));
  const header = el('div', { class: 'review-header' }, progress, el('label', { for: 'review-reviewer-name' }, 'Reviewer'), reviewerInput);
  const card = el('section', { class: 'review-card', id: 'review-card', tabindex: -1, 'aria-labelledby': 'review-position' });

  const acceptButton = keyButton('review-accept-key', subject.acceptLabel, 'a', 'a', true);
  const rejectButton = keyButton('review-reject-key', subject.rejectLabel, 'r', 'r o');
  const previousButton = keyButton('review-previous', 'Previous', 'k', 'k ArrowLeft');
  const nextButton = keyButton('review-next', 'Next', 'j', 'j ArrowRight');
  const skipButton = keyButton('review-skip', 'Skip', 'x', 'x');
  const openButton = keyButton('review-open', 'Open source', 'e', 'e Enter');
  const keysButton = keyButton('review-keys-button', 'Keys', '?', 'Shift+?');
  const leaveButton = keyButton('review-leave', 'Leave', 'Esc', 'Escape');
  const reasonField = el('input', { type: 'text', id: 'review-reason', name: 'comment', autocomplete: 'off' });
  const reasonLabel = el('label', { for: 'review-reason', id: 'review-reason-label' }, 'Reason');
  const reasonForm = el(
    'form',
    { class: 'review-reason-form', id: 'review-reason-form', hidden: true },
    reasonLabel,
    reasonField,
    el('button', { type: 'submit', id: 'review-reason-save', class: 'primary' }, 'Save ', kbd('Enter')),
    el('button', { type: 'button', id: 'review-reason-cancel' }, 'Cancel ', kbd('Esc')),
  );
  const bar = el(
    'section',
    { class: 'review-bar', id: 'review-bar', 'aria-label': 'Review bar' },
    el('div', { class: 'review-keys-row' }, acceptButton, rejectButton, previousButton, nextButton, skipButton, openButton, keysButton, leaveButton),
    reasonForm,
  );
  const keyList: Array<[string[], string]> = [
    [['a'], subject.acceptHelp],
    [['r', 'o'], subject.rejectHelp],
    [['j', '→'], `Next ${noun}`],
    [['k', '←'], `Previous ${noun}`],
    [['x'], `Skip: the next ${noun} not reviewed yet`],
    [['e', 'Enter'], 'Open the source document'],
    [['?'], 'This list of keys'],
    [['Esc'], 'Cancel a reason; otherwise leave review mode'],
  ];
  const closeKeys = el('button', { type: 'button', id: 'review-keys-close' }, 'Close');
  const dialog = el(
    'dialog',
    { class: 'review-keys', id: 'review-keys', 'aria-labelledby': 'review-keys-heading' },
    el('h2', { id: 'review-keys-heading' }, 'Review keys'),
    el('dl', { class: 'key-list' }, ...keyList.flatMap(([keys, what]) => [el('dt', {}, ...keys.flatMap((key, at) => [at > 0 ? ' ' : null, kbd(key)])), el('dd', {}, what)])),
    el('p', { class: 'hint' }, 'Keys do nothing while you type in a field; Esc leaves the field.'),
    closeKeys,
  );
  closeKeys.addEventListener('click', () => dialog.close());
  status.textContent = '';
  replace(
    outlet,
    el('nav', { class: 'crumbs', 'aria-label': 'Back' }, linkButton(subject.backLabel, subject.backHash, { id: 'review-back' })),
    el('h1', {}, subject.title),
    el('div', { class: 'review-mode', 'data-kind': kind }, header, card, bar, status, dialog),
  );

  const total = subject.items;
  let index = 0;
  let rejecting = false;
  let saving = false;
  const reviewedCount = () => Array.from({ length: total }, (_, at) => subject.decision(at)).filter((decision) => decision !== null).length;
  const progressText = () => `${reviewedCount()} of ${total} reviewed`;
  const announce = (message: string, error = false) => {
    status.classList.toggle('error', error);
    status.textContent = message;
  };
  const setRejecting = (on: boolean) => {
    rejecting = on;
    reasonForm.hidden = !on;
    if (on) {
      reasonLabel.textContent = subject.reasonLabel(index);
      reasonField.value = '';
      reasonField.focus();
    } else if (!document.activeElement || document.activeElement === document.body || bar.contains(document.activeElement)) {
      card.focus();
    }
  };
  const draw = () => {
    progress.textContent = progressText();
    const empty = total === 0;
    for (const button of [acceptButton, rejectButton, skipButton, openButton]) button.disabled = empty;
    previousButton.disabled = index <= 0;
    nextButton.disabled = index >= total - 1;
    if (empty) {
      replace(card, el('h2', { id: 'review-position' }, `No ${noun}s to review`), el('p', { class: 'hint' }, kind === 'revision' ? 'The method proposed no edit.' : 'The summary has no sources.'));
      return;
    }
    writeStored(positionKey(dataDir, kind, id), String(index));
    openButton.disabled = subject.sourceHash(index) === null;
    replace(card, el('h2', { id: 'review-position' }, `${Noun} ${index + 1} of ${total}`), ...subject.draw(index));
  };
  const moveTo = (next: number, message?: string) => {
    if (total === 0) return;
    index = Math.max(0, Math.min(total - 1, next));
    setRejecting(false);
    draw();
    card.focus();
    window.scrollTo(0, 0);
    announce(message ?? `${Noun} ${index + 1} of ${total}${subject.decision(index) ? ', reviewed' : ''}.`);
  };
  const save = async (accepted: boolean, comment: string | null) => {
    if (total === 0 || saving) return;
    saving = true;
    announce('Saving…');
    const reviewer = reviewerInput.value.trim();
    writeStored(REVIEWER_KEY, reviewer);
    try {
      await subject.save(index, accepted, comment, reviewer || null);
      if (signal.aborted) return;
      const last = index >= total - 1;
      const what = `${accepted ? subject.acceptLabel.replace(/e?$/, 'ed') : subject.rejectLabel.replace(/e?$/, 'ed')} ${noun} ${index + 1}`;
      moveTo(last ? index : index + 1, `${what}. ${progressText()}.${last ? ` That was the last ${noun}.` : ''}`);
    } catch (error) {
      if (!signal.aborted) announce(describeError(error), true);
    } finally {
      saving = false;
    }
  };
  const startReject = () => {
    if (total === 0) return;
    setRejecting(true);
    announce(`${subject.rejectLabel}: type the reason, Enter saves; Esc cancels.`);
  };
  const cancelReject = () => {
    setRejecting(false);
    card.focus();
    announce('Cancelled.');
  };
  const skip = () => {
    for (let at = index + 1; at < total; at += 1) {
      if (subject.decision(at) === null) {
        moveTo(at);
        return;
      }
    }
    announce(`No ${noun} after this one is left to review.`);
  };
  const open = () => {
    const target = total > 0 ? subject.sourceHash(index) : null;
    if (target) navigate(target);
    else announce(`This ${noun}’s source is not a document of the library.`, true);
  };
  const leave = () => navigate(subject.backHash);
  const showKeys = () => {
    if (!dialog.open) dialog.showModal();
    closeKeys.focus();
  };

  acceptButton.addEventListener('click', () => void save(true, null));
  rejectButton.addEventListener('click', startReject);
  previousButton.addEventListener('click', () => moveTo(index - 1));
  nextButton.addEventListener('click', () => moveTo(index + 1));
  skipButton.addEventListener('click', skip);
  openButton.addEventListener('click', open);
  keysButton.addEventListener('click', showKeys);
  leaveButton.addEventListener('click', leave);
  reasonForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const reason = reasonField.value.trim();
    if (reason === '') {
      showError(status, { code: 'invalid_input', message: `Say why (${subject.reasonLabel(index).toLowerCase()})` });
      reasonField.focus();
      return;
    }
    void save(false, reason);
  });
  (reasonForm.querySelector('#review-reason-cancel') as HTMLButtonElement).addEventListener('click', cancelReject);
  onEscape(reasonField, cancelReject);
  onEscape(reviewerInput, () => card.focus());

  const onKey = (event: KeyboardEvent) => {
    if (!reviewTakes(event, dialog)) return;
    const key = event.key;
    let handled = true;
    if (key === '?') showKeys();
    else if (saving) handled = false;
    else if (rejecting) {
      if (key === 'Escape') cancelReject();
      else handled = false;
    } else if (event.shiftKey) handled = false;
    else if (key === 'a') void save(true, null);
    else if (key === 'r' || key === 'o') startReject();
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

  // Where the last review of this outcome stopped, else its first item not reviewed yet.
  const kept = Number(readStored(positionKey(dataDir, kind, id)) ?? 'NaN');
  const firstOpen = Array.from({ length: total }, (_, at) => at).find((at) => subject.decision(at) === null);
  index = Number.isInteger(kept) && kept >= 0 && kept < total ? kept : firstOpen ?? 0;
  setRejecting(false);
  draw();
  card.focus();
  announce(total === 0 ? `No ${noun}s to review.` : `${Noun} ${index + 1} of ${total}. Press ? for the keys.`);
}
