// Correct: paste a passage (or pick one of a collection), choose RARR or CoVe and the evidence,
// and read the revision as the original with each edit marked. Clicking an edit shows the
// question, the evidence and the agreement behind it, with Accept and Reject; the decisions are
// stored beside the machine revision (never replacing it), and the text kept — every edit not
// rejected — can be exported. "Review the edits by keyboard" opens review mode over them
// (outcome-review.ts), one edit at a time. Route: `#/correct`.

import {
  REVISION_CHOICES,
  appInfo,
  chooseReportPath,
  decideEdit,
  exportKeptText,
  getRevision,
  listCollections,
  listPassages,
  revisePassage,
  reviseText,
  type EvidenceSentences,
  type Passage,
  type ReviewedRevision,
  type ReviseInput,
  type Revision,
} from '../api';
import { count, el, replace } from '../dom';
import { navigate, type RouteContext } from '../router';
import { describeError, facts, showError, statusLine } from './common';

/** One option of each of the core's choices (`REVISION_CHOICES`), labelled as the core names it. */
function options(choices: ReadonlyArray<{ value: string; label: string }>): HTMLOptionElement[] {
  return choices.map(({ value, label }) => el('option', { value }, label));
}

let view: HTMLElement | null = null;
/** The revision shown, and the edit whose detail is open. */
let shown: ReviewedRevision | null = null;
let openEdit: number | null = null;
let exportDir: string | null = null;

const textBox = el('textarea', { id: 'correct-text', rows: 5, placeholder: 'Paste a summary or a paragraph to correct.' });
const collectionSelect = el('select', { id: 'correct-collection' });
const passageSelect = el('select', { id: 'correct-passage', 'aria-label': 'Stored passage' });
const methodSelect = el(
  'select',
  { id: 'correct-method' },
  ...options(REVISION_CHOICES.methods),
);
const evidenceSelect = el(
  'select',
  { id: 'correct-evidence' },
  el('option', { value: '' }, 'As set for the method'),
  ...options(REVISION_CHOICES.evidence),
);
const granularitySelect = el(
  'select',
  { id: 'correct-granularity', 'aria-label': 'Evidence granularity' },
  el('option', { value: '' }, 'As set for the method'),
  ...options(REVISION_CHOICES.granularities),
);
const gateSelect = el(
  'select',
  { id: 'correct-gate' },
  el('option', { value: '' }, 'As set (verifier offline, chat model with a server)'),
  ...options(REVISION_CHOICES.gates),
);
const startButton = el('button', { type: 'submit', id: 'correct-start', class: 'primary' }, 'Correct');
const status = statusLine('correct-status');

const explanation = el('p', { id: 'correct-explanation' });
const diff = el('p', { id: 'correct-diff', class: 'revision-diff' });
const detail = el('section', { id: 'correct-edit', class: 'edit-detail', hidden: true });
const refused = el('ul', { id: 'correct-refused' });
const metrics = el('div', { id: 'correct-metrics' });
const keptBox = el('textarea', { id: 'correct-kept', rows: 4, readonly: true, 'aria-labelledby': 'correct-kept-heading' });
const exportButton = el('button', { type: 'button', id: 'correct-export' }, 'Export the kept text…');
/** Review mode over the shown revision's edits, one at a time by keyboard (outcome-review.ts). */
const reviewButton = el('button', { type: 'button', id: 'correct-review' }, 'Review the edits by keyboard');
const exportStatus = statusLine('correct-export-status');
const resultPanel = el(
  'section',
  { class: 'panel', id: 'correct-result', 'aria-labelledby': 'correct-result-heading', hidden: true },
  el('h2', { id: 'correct-result-heading' }, 'Revision'),
  explanation,
  el('p', { class: 'hint' }, 'Deleted text is struck through, inserted text underlined. Click an edit to see why it was made.'),
  diff,
  detail,
  el('h3', {}, 'Changes refused'),
  refused,
  metrics,
  el('h3', { id: 'correct-kept-heading' }, 'Text kept (every edit not rejected)'),
  keptBox,
  el('div', { class: 'actions' }, reviewButton, exportButton),
  exportStatus,
);

function input(): ReviseInput {
  // What is left "as set" comes from the method's settings ([methods.rarr], [methods.cove]).
  const request: ReviseInput = { method: methodSelect.value as ReviseInput['method'] };
  if (evidenceSelect.value !== '') request.evidence = evidenceSelect.value as ReviseInput['evidence'];
  if (granularitySelect.value !== '') request.granularity = granularitySelect.value as ReviseInput['granularity'];
  if (gateSelect.value !== '') request.gate = gateSelect.value as ReviseInput['gate'];
  return request;
}

function revisionOf(reviewed: ReviewedRevision): Revision {
  const outcome = reviewed.stored.outcome;
  if (outcome.kind !== 'revision') throw new Error(`outcome ${reviewed.stored.id} is not a revision`);
  return outcome;
}

/** `accepted`, `rejected` or `open` (nobody decided yet) for edit `index`. */
function decisionOf(reviewed: ReviewedRevision, index: number): string {
  const decision = reviewed.decisions.find((entry) => entry.edit === index);
  if (!decision) return 'open';
  return decision.accepted ? 'accepted' : 'rejected';
}

function sourceName(evidence: EvidenceSentences): string {
  const source = evidence.source;
  return source.title ?? source.url ?? (source.document_id !== null ? `document ${source.document_id}` : 'evidence');
}

function evidenceList(list: EvidenceSentences[]): HTMLElement {
  if (list.length === 0) return el('p', { class: 'hint' }, 'No evidence: the model answered from what it knows.');
  return el(
    'ul',
    { class: 'edit-evidence' },
    ...list.map((evidence) => el('li', {}, el('blockquote', {}, evidence.sentences.join(' ')), el('span', { class: 'source' }, sourceName(evidence)))),
  );
}

function drawDetail(): void {
  if (!shown || openEdit === null) {
    detail.hidden = true;
    return;
  }
  const revision = revisionOf(shown);
  const edit = revision.edits[openEdit];
  if (edit === undefined) {
    detail.hidden = true;
    return;
  }
  const index = openEdit;
  const accept = el('button', { type: 'button', id: 'correct-accept', class: 'primary' }, 'Accept');
  const reject = el('button', { type: 'button', id: 'correct-reject' }, 'Reject');
  const decide = async (accepted: boolean): Promise<void> => {
    if (!shown) return;
    accept.disabled = reject.disabled = true;
    try {
      draw(toCharOffsets(await decideEdit(shown.stored.id, index, accepted)));
    } catch (error) {
      showError(status, error);
      accept.disabled = reject.disabled = false;
    }
  };
  accept.addEventListener('click', () => void decide(true));
  reject.addEventListener('click', () => void decide(false));
  replace(
    detail,
    el('h3', {}, `Edit ${index + 1}`),
    facts([
      ['Replaces', el('del', {}, edit.before || '(nothing)')],
      ['With', el('ins', {}, edit.after || '(nothing)')],
      ['Asked', edit.question ?? ''],
      ['Agreement', edit.agreement === null ? '' : edit.agreement.toFixed(2)],
      ['Decision', decisionOf(shown, index)],
    ]),
    el('h4', {}, 'Evidence'),
    evidenceList(edit.evidence),
    el('div', { class: 'actions' }, accept, reject),
  );
  detail.dataset.edit = String(index);
  detail.hidden = false;
}

function draw(reviewed: ReviewedRevision): void {
  shown = reviewed;
  const revision = revisionOf(reviewed);
  explanation.textContent = `${revision.explanation} (${revision.method}, outcome ${reviewed.stored.id})`;
  const parts: Array<Node | string> = [];
  let at = 0;
  revision.edits.forEach((edit, index) => {
    parts.push(revision.original.slice(at, edit.start));
    const button = el(
      'button',
      { type: 'button', class: 'edit', 'data-edit': index, 'data-decision': decisionOf(reviewed, index), title: `Edit ${index + 1}` },
      el('del', {}, edit.before),
      el('ins', {}, edit.after),
    );
    button.addEventListener('click', () => {
      openEdit = index;
      drawDetail();
    });
    parts.push(button);
    at = edit.start + edit.before.length;
  });
  parts.push(revision.original.slice(at));
  replace(diff, ...parts);
  replace(
    refused,
    ...(revision.rejected.length === 0
      ? [el('li', { class: 'hint' }, 'None.')]
      : revision.rejected.map((change) => el('li', {}, el('del', {}, change.before), ' → ', el('ins', {}, change.after), `: ${change.reason}`))),
  );
  const measured = revision.metrics;
  replace(
    metrics,
    measured
      ? facts([
          ['Edit distance', measured.edit_distance.toFixed(3)],
          ['Similarity', measured.similarity === null ? '' : measured.similarity.toFixed(3)],
          [
            'Entailment by the sources',
            measured.entailment_before === null || measured.entailment_after === null
              ? ''
              : `${measured.entailment_before.toFixed(2)} → ${measured.entailment_after.toFixed(2)}`,
          ],
        ])
      : '',
  );
  keptBox.value = reviewed.accepted_text;
  resultPanel.hidden = false;
  drawDetail();
}

/** Edit offsets are UTF-8 bytes; the UI slices UTF-16 strings, so convert once per revision. */
function toCharOffsets(reviewed: ReviewedRevision): ReviewedRevision {
  const revision = revisionOf(reviewed);
  const bytes = new TextEncoder().encode(revision.original);
  const decoder = new TextDecoder();
  const at = (byte: number): number => decoder.decode(bytes.slice(0, byte)).length;
  for (const edit of revision.edits) {
    edit.start = at(edit.start);
  }
  return reviewed;
}

async function correct(): Promise<void> {
  status.classList.remove('error');
  const passageId = Number(passageSelect.value);
  const text = textBox.value.trim();
  if (!passageId && text === '') {
    showError(status, { code: 'invalid_input', message: 'Paste a passage, or pick one of a collection' });
    textBox.focus();
    return;
  }
  startButton.disabled = true;
  status.textContent = 'Correcting… (with the embedded model this takes a minute or two)';
  try {
    const reviewed = passageId ? await revisePassage(passageId, input()) : await reviseText(text, input());
    openEdit = null;
    draw(toCharOffsets(reviewed));
    const edits = revisionOf(reviewed).edits.length;
    status.textContent = edits === 0 ? 'Nothing to correct: the passage is left as it was.' : `${count(edits, 'edit')} proposed.`;
  } catch (error) {
    showError(status, error);
  } finally {
    startButton.disabled = false;
  }
}

async function exportKept(): Promise<void> {
  if (!shown) return;
  exportStatus.classList.remove('error');
  const name = `revision-${shown.stored.id}.txt`;
  try {
    const path = exportDir ? `${exportDir}/${name}` : await chooseReportPath(name, 'txt');
    if (!path) return;
    await exportKeptText(shown.stored.id, path);
    exportStatus.textContent = `Saved to ${path}.`;
  } catch (error) {
    showError(exportStatus, error);
  }
}

async function loadPassages(): Promise<void> {
  const collection = collectionSelect.value;
  const passages: Passage[] = collection ? await listPassages(collection) : [];
  replace(
    passageSelect,
    el('option', { value: '' }, passages.length === 0 ? 'No passage (paste one above)' : 'None: the pasted text'),
    ...passages.map((passage) => el('option', { value: passage.id }, passage.text.length > 90 ? `${passage.text.slice(0, 90)}…` : passage.text)),
  );
}

function build(): HTMLElement {
  const form = el(
    'form',
    { id: 'correct-form', class: 'panel' },
    el('h2', {}, 'Passage'),
    el('label', { for: 'correct-text' }, 'Text'),
    textBox,
    el('div', { class: 'row' }, el('label', { for: 'correct-collection' }, 'Or a stored passage of'), collectionSelect, passageSelect),
    el('div', { class: 'row' }, el('label', { for: 'correct-method' }, 'Method'), methodSelect),
    el('div', { class: 'row' }, el('label', { for: 'correct-evidence' }, 'Evidence'), evidenceSelect, granularitySelect),
    el('div', { class: 'row' }, el('label', { for: 'correct-gate' }, 'Agreement decided by'), gateSelect),
    el('div', { class: 'actions' }, startButton),
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void correct();
  });
  collectionSelect.addEventListener('change', () => {
    loadPassages().catch((error) => showError(status, error));
  });
  exportButton.addEventListener('click', () => void exportKept());
  reviewButton.addEventListener('click', () => {
    if (shown) navigate(`#/review/revision/${shown.stored.id}`);
  });
  return el('div', { id: 'correct-view' }, el('h1', {}, 'Correct'), form, resultPanel);
}

export async function renderCorrect({ outlet, signal }: RouteContext): Promise<void> {
  view ??= build();
  replace(outlet, view);
  try {
    // Decisions taken in review mode since: the shown revision read again.
    if (shown) {
      const again = await getRevision(shown.stored.id);
      if (signal.aborted) return;
      draw(toCharOffsets(again));
    }
    const [collections, info] = await Promise.all([listCollections(), appInfo()]);
    if (signal.aborted) return;
    exportDir = info.e2e_export_dir;
    const chosen = collectionSelect.value;
    replace(
      collectionSelect,
      el('option', { value: '' }, 'no collection'),
      ...collections.map((collection) => el('option', { value: collection.name, selected: collection.name === chosen }, collection.name)),
    );
    await loadPassages();
  } catch (error) {
    if (!signal.aborted) status.textContent = describeError(error);
  }
}
