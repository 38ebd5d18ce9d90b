// Reports: export a collection's checks (Markdown, HTML, JSON, CSV or ClaimReview JSON-LD) to a
// file chosen in the save dialog, and evaluate a labelled collection (accuracy, balanced
// accuracy, true positive and negative rates, the confusion matrix, each method's own figures
// and the tokens per claim). Route: `#/reports?collection=<name>`.

import {
  METHODS,
  REPORT_FORMATS,
  VERDICTS,
  appInfo,
  chooseReportPath,
  evaluate,
  exportReport,
  listCollections,
  type CheckSelection,
  type ClaimCollection,
  type Evaluation,
  type ReportFormat,
} from '../api';
import { count, el, replace } from '../dom';
import { href, type RouteContext } from '../router';
import { METHOD_NAMES, VERDICT_NAMES, percent, undecidedName } from './checks';
import { showError, statusLine } from './common';

// Each format `export_report` takes (the generated `REPORT_FORMATS`, in its order, with each
// file's extension), with its name for people: a format Rust adds fails to compile until it is
// named here.
const FORMAT_LABELS: Record<ReportFormat, string> = {
  md: 'Markdown',
  html: 'HTML page',
  json: 'JSON (checks as stored)',
  csv: 'CSV (one row per claim)',
  claimreview: 'ClaimReview JSON-LD',
};
const FORMATS = REPORT_FORMATS.map((format) => ({ ...format, label: FORMAT_LABELS[format.value] }));


/** A file name from a collection name: letters, digits, `-` and `_` kept. */
function fileStem(collection: string): string {
  const stem = collection.replace(/[^\p{L}\p{N}_-]+/gu, '-').replace(/^-+|-+$/g, '');
  return stem || 'report';
}

/** Joins a folder and a file name with the folder's own separator. */
function joinPath(folder: string, name: string): string {
  const separator = folder.includes('\\') && !folder.includes('/') ? '\\' : '/';
  return folder.endsWith(separator) ? `${folder}${name}` : `${folder}${separator}${name}`;
}

function figureRow(label: string, key: string, value: string, hint?: string): HTMLTableRowElement {
  return el(
    'tr',
    {},
    el('th', { scope: 'row' }, label),
    el('td', { class: 'number', 'data-figure': key }, value),
    el('td', { class: 'hint' }, hint ?? ''),
  );
}

/** A method's name for people, or its id if this window does not know it. */
function methodName(method: string): string {
  const known = METHODS.find((candidate) => candidate === method);
  return known === undefined ? method : METHOD_NAMES[known];
}

function evaluationView(evaluation: Evaluation): HTMLElement {
  const tokens = evaluation.tokens_per_claim;
  const round = (n: number) => n.toLocaleString(undefined, { maximumFractionDigits: 1 });
  const figures = el(
    'table',
    { class: 'figures', id: 'evaluation-figures' },
    el(
      'tbody',
      {},
      figureRow('Claims', 'claims', evaluation.claims.toLocaleString()),
      figureRow('Labelled', 'labelled', evaluation.labelled.toLocaleString()),
      figureRow('Scored', 'evaluated', evaluation.evaluated.toLocaleString(), 'labelled claims with a check'),
      figureRow('Accuracy', 'accuracy', percent(evaluation.accuracy, 1)),
      figureRow('Balanced accuracy', 'balanced_accuracy', percent(evaluation.balanced_accuracy, 1), 'the mean of the two rates below'),
      figureRow('True positive rate', 'true_positive_rate', percent(evaluation.true_positive_rate, 1), 'found supported among claims labelled supported'),
      figureRow('True negative rate', 'true_negative_rate', percent(evaluation.true_negative_rate, 1), 'not found supported among the others'),
      figureRow(
        'Not supported: precision / recall',
        'not_supported',
        `${percent(evaluation.not_supported_precision, 1)} / ${percent(evaluation.not_supported_recall, 1)}`,
        'of claims not found supported, the share not labelled supported / of those, the share not found supported',
      ),
      figureRow('ROC AUC', 'roc_auc', evaluation.roc_auc === null ? 'n/a' : evaluation.roc_auc.toFixed(3), 'how well the confidence ranks supported claims first'),
      figureRow(
        'Calibration error',
        'expected_calibration_error',
        evaluation.expected_calibration_error === null ? 'n/a' : evaluation.expected_calibration_error.toFixed(3),
        'expected gap between confidence and accuracy (10 bins)',
      ),
      figureRow(
        'Macro F1 (3-way)',
        'macro_f1',
        evaluation.macro_f1 === null ? 'n/a' : evaluation.macro_f1.toFixed(3),
        'mean F1 over supported, refuted and not enough info (those that occur)',
      ),
      figureRow(
        'Could not decide',
        'undecided',
        evaluation.undecided.length === 0 ? 'none' : evaluation.undecided.map(([reason, n]) => `${n.toLocaleString()} ${undecidedName(reason)}`).join(', '),
        'counted as not enough info',
      ),
      figureRow('NLI', 'nli_models', evaluation.nli_models.join(', ') || 'n/a'),
      // Each method's own figures, as the method reports them.
      ...evaluation.figures.flatMap((own) =>
        own.figures.map((figure) =>
          figureRow(
            figure.label,
            figure.key,
            figure.rate ? percent(figure.value, 1) : figure.value === null ? 'n/a' : figure.value.toLocaleString(),
            `${methodName(own.method)}: ${figure.note}`,
          ),
        ),
      ),
      figureRow('Tokens per claim', 'tokens_total', round(tokens.total), tokens.purposes.map((purpose) => `${purpose.purpose} ${round(purpose.prompt)} in, ${round(purpose.completion)} out`).join('; ')),
    ),
  );
  const confusion = el(
    'table',
    { class: 'confusion', id: 'confusion-matrix' },
    el('caption', {}, 'Gold labels (rows) against machine verdicts (columns)'),
    el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'Gold'), ...VERDICTS.map((verdict) => el('th', { scope: 'col' }, VERDICT_NAMES[verdict])))),
    el(
      'tbody',
      {},
      ...evaluation.confusion.map((row) =>
        el(
          'tr',
          { 'data-gold': row.gold },
          el('th', { scope: 'row' }, VERDICT_NAMES[row.gold] ?? row.gold),
          ...VERDICTS.map((verdict) => {
            const cell = row.verdicts.find(([value]) => value === verdict);
            const n = cell ? cell[1] : 0;
            return el('td', { class: n > 0 ? 'number filled' : 'number', 'data-verdict': verdict }, n.toLocaleString());
          }),
        ),
      ),
    ),
  );
  return el(
    'div',
    { class: 'evaluation', id: 'evaluation' },
    evaluation.labelled === 0
      ? el('p', { class: 'status', id: 'evaluation-note' }, 'No claim of this collection has a gold label, so there is no accuracy to show. Import claims with a label column to evaluate.')
      : evaluation.evaluated === 0
        ? el('p', { class: 'status', id: 'evaluation-note' }, 'No labelled claim has been checked yet: run checks first.')
        : null,
    evaluation.methods.length > 0 ? el('p', { class: 'hint' }, `Methods: ${evaluation.methods.join(', ')}`) : null,
    el('div', { class: 'evaluation-tables' }, figures, confusion),
  );
}

export async function renderReports({ outlet, query, signal }: RouteContext): Promise<void> {
  const status = statusLine('reports-status');
  replace(outlet, el('h1', {}, 'Reports'), status);
  status.textContent = 'Loading…';
  let collections: ClaimCollection[];
  let exportDir: string | null;
  try {
    const [list, info] = await Promise.all([listCollections(), appInfo()]);
    collections = list;
    exportDir = info.e2e_export_dir;
  } catch (error) {
    if (!signal.aborted) showError(status, error);
    return;
  }
  if (signal.aborted) return;
  if (collections.length === 0) {
    status.textContent = 'No collections yet: check a text in Check, or import claims in Collections.';
    return;
  }
  status.textContent = '';
  const wanted = query.get('collection');
  const chosen = collections.find((collection) => collection.name === wanted) ?? collections[0];
  const collectionSelect = el(
    'select',
    { id: 'report-collection', name: 'collection' },
    ...collections.map((collection) =>
      el('option', { value: collection.name, selected: collection === chosen }, `${collection.name} (${count(collection.claim_count, 'claim')})`),
    ),
  );
  // Each claim's newest check of any method, or of the method chosen here.
  const methodSelect = el(
    'select',
    { id: 'report-method', name: 'method' },
    el('option', { value: '' }, 'Any method (each claim’s newest check)'),
    ...METHODS.map((method) => el('option', { value: method }, METHOD_NAMES[method])),
  );
  const selection = (): CheckSelection => {
    const method = METHODS.find((candidate) => candidate === methodSelect.value);
    return method === undefined ? {} : { method };
  };
  const selectionText = (): string => {
    const method = METHODS.find((candidate) => candidate === methodSelect.value);
    return method === undefined ? 'Newest check' : `Newest ${METHOD_NAMES[method]} check`;
  };
  const formatSelect = el('select', { id: 'report-format', name: 'format' }, ...FORMATS.map((format) => el('option', { value: format.value }, format.label)));
  // ClaimReview publishes the claims a person reviewed; machine verdicts only when asked for.
  const machineVerdicts = el('input', { id: 'report-machine-verdicts', type: 'checkbox', name: 'machine_verdicts' });
  const machineRow = el('label', { class: 'checkbox', id: 'report-machine-verdicts-row', hidden: true }, machineVerdicts, ' Also publish verdicts no person reviewed (marked as the machine’s)');
  formatSelect.addEventListener('change', () => {
    machineRow.hidden = formatSelect.value !== 'claimreview';
  });
  const exportButton = el('button', { type: 'submit', id: 'report-export', class: 'primary' }, 'Export…');
  const exportStatus = statusLine('report-export-status');
  const exportForm = el(
    'form',
    { class: 'report-form', id: 'report-form' },
    el('label', { for: 'report-format' }, 'Format'),
    formatSelect,
    machineRow,
    exportButton,
  );
  exportForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    exportStatus.classList.remove('error', 'ok');
    const format = FORMATS.find((candidate) => candidate.value === formatSelect.value) ?? FORMATS[0]!;
    const collection = collectionSelect.value;
    const fileName = `${fileStem(collection)}.${format.extension}`;
    exportButton.disabled = true;
    try {
      // The end-to-end tests cannot drive the native save dialog; they name a folder instead.
      const path = exportDir ? joinPath(exportDir, fileName) : await chooseReportPath(fileName, format.extension);
      if (path === null) {
        exportStatus.textContent = 'Not exported: no file was chosen.';
        return;
      }
      exportStatus.textContent = 'Writing the report…';
      await exportReport(collection, format.value, path, selection(), format.value === 'claimreview' && machineVerdicts.checked);
      exportStatus.classList.add('ok');
      replace(exportStatus, `${format.label} report of “${collection}” saved to `, el('code', { id: 'report-path' }, path));
    } catch (error) {
      showError(exportStatus, error);
    } finally {
      exportButton.disabled = false;
    }
  });

  const evaluateButton = el('button', { type: 'button', id: 'report-evaluate', class: 'primary' }, 'Evaluate');
  const evaluateStatus = statusLine('report-evaluate-status');
  const evaluationSlot = el('div', { class: 'evaluation-slot' });
  evaluateButton.addEventListener('click', async () => {
    evaluateButton.disabled = true;
    evaluateStatus.classList.remove('error');
    evaluateStatus.textContent = 'Scoring…';
    evaluationSlot.replaceChildren();
    const collection = collectionSelect.value;
    try {
      const evaluation = await evaluate(collection, selection());
      // Dropped if the user left the view or chose another collection meanwhile.
      if (signal.aborted || collectionSelect.value !== collection) return;
      evaluateStatus.textContent = `${selectionText()} of each claim of “${evaluation.collection}”.`;
      replace(evaluationSlot, evaluationView(evaluation));
    } catch (error) {
      if (!signal.aborted && collectionSelect.value === collection) showError(evaluateStatus, error);
    } finally {
      evaluateButton.disabled = false;
    }
  });

  // Another collection or method: the figures and messages shown are of the old one. The
  // collection goes into the address (for the back button) without drawing the view again.
  const clearResults = () => {
    exportStatus.classList.remove('error', 'ok');
    exportStatus.textContent = '';
    evaluateStatus.classList.remove('error');
    evaluateStatus.textContent = '';
    evaluationSlot.replaceChildren();
  };
  collectionSelect.addEventListener('change', () => {
    history.replaceState(null, '', href('/reports', { collection: collectionSelect.value }));
    clearResults();
  });
  methodSelect.addEventListener('change', clearResults);

  outlet.append(
    el(
      'section',
      { class: 'panel' },
      el(
        'div',
        { class: 'report-collection' },
        el('label', { for: 'report-collection' }, 'Collection'),
        collectionSelect,
        el('label', { for: 'report-method' }, 'Method'),
        methodSelect,
      ),
    ),
    el(
      'section',
      { class: 'panel', 'aria-labelledby': 'export-heading' },
      el('h2', { id: 'export-heading' }, 'Export'),
      el('p', { class: 'hint' }, 'Every claim with its newest check (of the method chosen above) and review. The HTML page has no scripts and links only to http(s) addresses.'),
      exportForm,
      exportStatus,
    ),
    el(
      'section',
      { class: 'panel', 'aria-labelledby': 'evaluate-heading' },
      el('h2', { id: 'evaluate-heading' }, 'Evaluate'),
      el('p', { class: 'hint' }, 'Compares the newest verdict of each claim (of the method chosen above) with its gold label: two-way (supported or not) and three-way (supported, refuted, not enough info).'),
      el('div', { class: 'buttons' }, evaluateButton),
      evaluateStatus,
      evaluationSlot,
    ),
  );
}
