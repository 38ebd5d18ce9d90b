// Summaries: one question answered from several sources with Truthful Text Summarization (or
// one of its baselines). Choose the sources (a corpus, or the documents a search finds), ask the
// question and run it with progress and Cancel (a cancelled run resumes where it stopped when
// run again); then read the answer beside a bar chart of the sources' scores (kept or dropped
// at τ) and, for each source, the claims drafted without it with every source's stance on each.
// Uncheck or check sources and write the answer again from that choice; review the sources one
// at a time by keyboard (outcome-review.ts; each source's review shows in the table); export the
// summary as Markdown, HTML or JSON. Routes: `#/summaries`, `#/summaries/<id>` (a stored summary).

import {
  PAGE_REPORT_FORMATS,
  SUMMARY_CHOICES,
  appInfo,
  chooseReportPath,
  exportSummaryReport,
  getSourcedSummary,
  listCorpora,
  listSourcedSummaries,
  reportExtension,
  resummarize,
  summarizeSources,
  summarySourceReviews,
  type PageReportFormat,
  type RunningTask,
  type SourceReview,
  type SourcedSummary,
  type StoredOutcome,
  type SummaryRun,
} from '../api';
import { count, el, replace } from '../dom';
import { navigate, type RouteContext } from '../router';
import { describeError, facts, showError, statusLine } from './common';
import { TaskProgressView } from './task-progress';

const SVG = 'http://www.w3.org/2000/svg';
const STANCE_MARKS = { support: ['+', 'supports'], refute: ['−', 'contradicts'], neutral: ['·', 'abstains'] } as const;

let view: HTMLElement | null = null;
let running: RunningTask<SummaryRun> | null = null;
let shown: { id: number; summary: SourcedSummary } | null = null;
let exportDir: string | null = null;

const questionBox = el('input', { id: 'summaries-question', type: 'text', placeholder: 'What should the summary answer?' });
const corpusSelect = el('select', { id: 'summaries-corpus' });
const searchBox = el('input', { id: 'summaries-search', type: 'text', placeholder: 'or: the documents matching these words' });
const documentsBox = el('input', { id: 'summaries-documents', type: 'text', placeholder: 'or: document numbers, e.g. 3, 7, 12' });
const urlsBox = el('textarea', { id: 'summaries-urls', rows: 3, placeholder: 'or: web pages, one URL per line (fetched and kept in the corpus “web”)' });
// The methods, the stance judges and τ's default are the core's (`SUMMARY_CHOICES`).
const methodSelect = el('select', { id: 'summaries-method' }, ...SUMMARY_CHOICES.methods.map(({ value, label }) => el('option', { value }, label)));
const stancesSelect = el('select', { id: 'summaries-stances' }, ...SUMMARY_CHOICES.stance_judges.map(({ value, label }) => el('option', { value }, label)));
const tauBox = el('input', { id: 'summaries-tau', type: 'number', step: '0.01', value: String(SUMMARY_CHOICES.tau) });
const runButton = el('button', { type: 'submit', id: 'summaries-run', class: 'primary' }, 'Summarise');
const cancelButton = el('button', { type: 'button', id: 'summaries-cancel', hidden: true }, 'Cancel');
const progress = new TaskProgressView({
  barId: 'summaries-progress',
  itemId: 'summaries-item',
  failuresId: 'summaries-failures',
  amount: (done, total) => (total === null ? '' : `${done} of ${count(total, 'source')}`),
  phaseName: (name) => name.charAt(0).toUpperCase() + name.slice(1),
});
const progressBox = progress.panel(el('div', { class: 'buttons' }, cancelButton));
const runStatus = statusLine('summaries-run-status');
const storedSelect = el('select', { id: 'summaries-stored' });

const heading = el('h2', { id: 'summaries-result-heading' }, 'Summary');
const about = el('div', { id: 'summaries-about' });
const answer = el('div', { id: 'summaries-answer', class: 'answer' });
const chart = el('div', { id: 'summaries-chart' });
const sourcesTable = el('div', { id: 'summaries-sources' });
const againButton = el('button', { type: 'button', id: 'summaries-again' }, 'Summarise again from the checked sources');
/** Review mode over the shown summary's sources, one at a time by keyboard (outcome-review.ts). */
const reviewButton = el('button', { type: 'button', id: 'summaries-review' }, 'Review the sources by keyboard');
const againStatus = statusLine('summaries-again-status');
const exportButtons = PAGE_REPORT_FORMATS.map((format) => {
  const button = el('button', { type: 'button', id: `summaries-export-${format}` }, `Export ${format.toUpperCase()}`);
  button.addEventListener('click', () => void exportAs(format));
  return button;
});
const exportStatus = statusLine('summaries-export-status');
const matrices = el('div', { id: 'summaries-matrix' });
const resultPanel = el(
  'section',
  { class: 'panel', id: 'summaries-result', 'aria-labelledby': 'summaries-result-heading', hidden: true },
  heading,
  about,
  answer,
  el('h3', {}, 'Sources'),
  chart,
  sourcesTable,
  el('div', { class: 'actions' }, againButton, reviewButton, ...exportButtons),
  againStatus,
  exportStatus,
  el('h3', {}, 'Stances'),
  el('p', { class: 'hint' }, 'Each source was scored on claims drafted from the other sources: + supports, − contradicts, · abstains.'),
  matrices,
);

/** An SVG element with attributes (numbers and class names only, never text from the data). */
function svg(tag: string, attributes: Record<string, string | number>, ...children: Array<Node | string>): SVGElement {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  for (const child of children) node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  return node;
}

function sourceName(summary: SourcedSummary, index: number): string {
  const source = summary.sources[index]?.source;
  return source?.title ?? source?.url ?? (source?.document_id != null ? `document ${source.document_id}` : `source ${index + 1}`);
}

/** Settings a summary records (`SummaryParameters`), and one written again by hand. */
type RecordedSettings = Partial<Extract<SourcedSummary['parameters'], { tau: number }>>;
type WrittenAgain = Partial<Extract<SourcedSummary['parameters'], { from_summary: number }>>;

/** τ of the settings the summary was made with (the first one's when written again by hand). */
function tauOf(summary: SourcedSummary): number | null {
  const parameters = summary.parameters as (RecordedSettings & WrittenAgain) | null;
  const tau = parameters?.config?.tau ?? parameters?.tau;
  return typeof tau === 'number' && (summary.claims?.length ?? 0) > 0 ? tau : null;
}

function drawChart(summary: SourcedSummary): void {
  const tau = tauOf(summary);
  const scores = summary.sources.map((source) => source.score);
  const lo = Math.min(-0.1, 0, tau ?? 0, ...scores);
  const hi = Math.max(0.1, tau ?? 0, ...scores);
  const [left, plotW, barH, gap] = [200, 340, 18, 6];
  const xOf = (v: number): number => left + (plotW * (v - lo)) / (hi - lo);
  const height = 20 + scores.length * (barH + gap);
  const parts: SVGElement[] = [];
  summary.sources.forEach((source, i) => {
    const y = 10 + i * (barH + gap);
    const [a, b] = [xOf(Math.min(source.score, 0)), xOf(Math.max(source.score, 0))];
    const name = `${i + 1}. ${sourceName(summary, i)}`;
    parts.push(svg('text', { x: 4, y: y + 13, class: 'chart-label muted' }, name.length > 28 ? `${name.slice(0, 27)}…` : name));
    parts.push(
      svg(
        'rect',
        { class: `bar ${source.used ? 'kept' : 'dropped'}`, 'data-source': i, x: a.toFixed(1), y, width: Math.max(1, b - a).toFixed(1), height: barH },
        svg('title', {}, `${sourceName(summary, i)}: ${source.score.toFixed(3)} (${source.used ? 'kept' : 'dropped'})`),
      ),
    );
    parts.push(svg('text', { x: (Math.max(a, b) + 4).toFixed(1), y: y + 13, class: 'chart-label muted' }, source.score.toFixed(2)));
  });
  parts.push(svg('line', { x1: xOf(0), x2: xOf(0), y1: 4, y2: height - 4, class: 'zero-line' }));
  if (tau !== null) {
    parts.push(svg('line', { class: 'tau', x1: xOf(tau), x2: xOf(tau), y1: 4, y2: height - 4, stroke: '#c28a00', 'stroke-dasharray': '4 3' }));
    parts.push(svg('text', { x: xOf(tau) + 4, y: 10, class: 'chart-label tau-label' }, `τ = ${tau}`));
  }
  const width = left + plotW + 60;
  replace(chart, svg('svg', { role: 'img', 'aria-label': 'Score of each source', width, height, viewBox: `0 0 ${width} ${height}` }, ...parts));
}

/** A source's review as the sources table shows it: agreed, disagreed (with why), or nothing. */
function reviewCell(review: SourceReview | undefined): HTMLElement {
  if (!review) return el('td', { class: 'review hint' }, '');
  const who = review.reviewer ? ` (${review.reviewer})` : '';
  return el('td', { class: `review ${review.accepted ? 'accept' : 'override'}`, title: review.comment ?? '' }, `${review.accepted ? 'agreed' : 'disagreed'}${who}`);
}

function drawSources(summary: SourcedSummary, reviews: SourceReview[] = []): void {
  const majority = (i: number): string => {
    const entry = summary.claims?.find((claims) => claims.source === i);
    return entry ? entry.majority.toFixed(3) : 'n/a';
  };
  const rows = summary.sources.map((source, i) =>
    el(
      'tr',
      { class: source.used ? 'kept' : 'dropped', 'data-source': i },
      el('td', {}, el('input', { type: 'checkbox', class: 'use', 'data-source': i, checked: source.used, 'aria-label': `Use ${sourceName(summary, i)}` })),
      el('td', { class: 'number' }, String(i + 1)),
      el('td', {}, sourceName(summary, i)),
      el('td', { class: 'number score' }, source.score.toFixed(3)),
      el('td', { class: 'number' }, majority(i)),
      el('td', { class: 'state' }, source.used ? 'kept' : 'dropped'),
      el('td', { class: 'hint' }, source.note ?? ''),
      reviewCell(reviews.find((review) => review.source === i)),
    ),
  );
  replace(
    sourcesTable,
    el(
      'table',
      { class: 'figures' },
      el('thead', {}, el('tr', {}, ...['Use', '#', 'Source', 'Score', 'Majority', 'Used', 'Note', 'Review'].map((h) => el('th', {}, h)))),
      el('tbody', {}, ...rows),
    ),
  );
}

function drawMatrices(summary: SourcedSummary): void {
  const entries = summary.claims ?? [];
  if (entries.length === 0) {
    replace(matrices, el('p', { class: 'hint' }, 'This method scores no claims per source.'));
    return;
  }
  replace(
    matrices,
    ...entries.map((entry) =>
      el(
        'details',
        { class: 'stance-matrix', 'data-source': entry.source },
        el('summary', {}, `Claims drafted without ${entry.source + 1}. ${sourceName(summary, entry.source)} (${count(entry.claims.length, 'claim')})`),
        entry.draft ? el('p', { class: 'hint draft' }, entry.draft) : null,
        el(
          'table',
          { class: 'figures' },
          el('thead', {}, el('tr', {}, el('th', {}, 'Claim'), ...summary.sources.map((_, j) => el('th', { title: sourceName(summary, j) }, String(j + 1))))),
          el(
            'tbody',
            {},
            ...entry.claims.map((claim, k) =>
              el(
                'tr',
                {},
                el('td', {}, claim),
                ...summary.sources.map((_, j) => {
                  const stance = entry.stances[j]?.[k] ?? 'neutral';
                  const [mark, word] = STANCE_MARKS[stance];
                  return el('td', { class: `stance stance-${stance}`, title: `${sourceName(summary, j)} ${word}` }, mark);
                }),
              ),
            ),
          ),
        ),
      ),
    ),
  );
}

function show(stored: StoredOutcome): void {
  if (stored.outcome.kind !== 'summary') return;
  const summary: SourcedSummary = stored.outcome;
  shown = { id: stored.id, summary };
  heading.textContent = summary.question ?? 'Summary';
  const kept = summary.sources.filter((source) => source.used).length;
  replace(
    about,
    facts([
      ['Method', summary.method],
      ['Sources used', `${kept} of ${summary.sources.length}`],
      ['Stances by', (summary.claims?.length ?? 0) > 0 ? summary.nli_model ?? summary.model : ''],
      ['How', summary.explanation],
      ['Summary', `#${stored.id}, run ${stored.run_id}`],
    ]),
  );
  replace(answer, summary.text ? el('p', {}, summary.text) : el('p', { class: 'hint' }, 'No summary: no source was kept.'));
  drawChart(summary);
  drawSources(summary);
  drawMatrices(summary);
  drawReviews();
  resultPanel.hidden = false;
  againStatus.textContent = '';
  exportStatus.textContent = '';
}

/** People's reviews of the shown summary's sources (review mode) join its table when they arrive. */
function drawReviews(): void {
  if (!shown) return;
  const { id, summary } = shown;
  summarySourceReviews(id).then(
    (reviews) => {
      if (shown?.id === id && reviews.length > 0) drawSources(summary, reviews);
    },
    (error: unknown) => showError(againStatus, error),
  );
}

async function loadStored(select?: number): Promise<void> {
  const stored = await listSourcedSummaries();
  replace(
    storedSelect,
    el('option', { value: '' }, stored.length === 0 ? 'No summaries yet' : 'Open a stored summary'),
    ...stored.map((entry) => {
      const question = entry.outcome.kind === 'summary' ? entry.outcome.question ?? '' : '';
      const method = entry.outcome.kind === 'summary' ? entry.outcome.method : '';
      return el('option', { value: entry.id, selected: entry.id === select }, `#${entry.id} ${method}: ${question}`);
    }),
  );
}

function setRunning(active: boolean): void {
  progressBox.hidden = !active;
  cancelButton.hidden = !active;
  cancelButton.disabled = false;
  runButton.disabled = active;
}

async function run(): Promise<void> {
  if (running) return;
  runStatus.classList.remove('error');
  runStatus.textContent = '';
  const search = searchBox.value.trim();
  const urls = urlsBox.value.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  const documents = documentsBox.value.split(/[\s,]+/).filter((part) => part !== '').map(Number);
  if (documents.some((id) => !Number.isInteger(id) || id < 1)) {
    showError(runStatus, { code: 'invalid_input', message: 'Document numbers are whole numbers, as the Library lists them' });
    return;
  }
  const kinds = [search !== '', urls.length > 0, documents.length > 0].filter(Boolean).length;
  if (kinds > 1) {
    showError(runStatus, { code: 'invalid_input', message: 'Fill in one kind of source: a search, pages or document numbers (or none, for the corpus)' });
    return;
  }
  const tau = Number.parseFloat(tauBox.value);
  // One kind of source: the one filled in of search, pages, documents, else the corpus.
  const corpus = search || urls.length > 0 || documents.length > 0 ? null : corpusSelect.value || null;
  progress.start();
  setRunning(true);
  running = summarizeSources(
    {
      question: questionBox.value,
      corpus,
      documents: search || urls.length > 0 ? [] : documents,
      search: search || null,
      urls: search ? [] : urls,
      method: SUMMARY_CHOICES.methods.find((method) => method.value === methodSelect.value)?.value ?? 'tts',
      tau: Number.isFinite(tau) ? tau : null,
      stances: SUMMARY_CHOICES.stance_judges.find((judge) => judge.value === stancesSelect.value)?.value ?? null,
    },
    progress.onProgress,
  );
  try {
    const result = await running.done;
    runStatus.textContent = result.resumed ? `Done: resumed run ${result.run_id} where it stopped.` : 'Done.';
    await loadStored(result.id);
    navigate(`#/summaries/${result.id}`);
    show(result);
  } catch (error) {
    showError(runStatus, error);
  } finally {
    running = null;
    setRunning(false);
  }
}

async function again(): Promise<void> {
  if (!shown) return;
  const used = [...sourcesTable.querySelectorAll<HTMLInputElement>('input.use')].filter((box) => box.checked).map((box) => Number(box.dataset.source));
  againStatus.classList.remove('error');
  againButton.disabled = true;
  againStatus.textContent = 'Writing the answer again…';
  try {
    const stored = await resummarize(shown.id, used);
    await loadStored(stored.id);
    navigate(`#/summaries/${stored.id}`);
    show(stored);
    againStatus.textContent = `Written again from ${count(used.length, 'source')} as summary #${stored.id}.`;
  } catch (error) {
    showError(againStatus, error);
  } finally {
    againButton.disabled = false;
  }
}

async function exportAs(format: PageReportFormat): Promise<void> {
  if (!shown) return;
  exportStatus.classList.remove('error');
  const extension = reportExtension(format);
  const name = `summary-${shown.id}.${extension}`;
  try {
    const path = exportDir ? `${exportDir}/${name}` : await chooseReportPath(name, extension);
    if (!path) return;
    await exportSummaryReport(shown.id, format, path);
    exportStatus.textContent = `Saved to ${path}.`;
  } catch (error) {
    showError(exportStatus, error);
  }
}

function build(): HTMLElement {
  const form = el(
    'form',
    { id: 'summaries-form', class: 'panel' },
    el('h2', {}, 'Summarise several sources'),
    el('div', { class: 'row' }, el('label', { for: 'summaries-question' }, 'Question'), questionBox),
    el('div', { class: 'row' }, el('label', { for: 'summaries-corpus' }, 'Sources: every document of'), corpusSelect),
    el('div', { class: 'row' }, el('label', { for: 'summaries-search' }, 'Search'), searchBox),
    el('div', { class: 'row' }, el('label', { for: 'summaries-urls' }, 'Pages'), urlsBox),
    el('div', { class: 'row' }, el('label', { for: 'summaries-documents' }, 'Documents'), documentsBox),
    el('div', { class: 'row' }, el('label', { for: 'summaries-method' }, 'Method'), methodSelect),
    el('div', { class: 'row' }, el('label', { for: 'summaries-stances' }, 'Stances judged by'), stancesSelect),
    el('div', { class: 'row' }, el('label', { for: 'summaries-tau' }, 'Keep sources scoring at least τ'), tauBox),
    el('div', { class: 'actions' }, runButton),
    progressBox,
    runStatus,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run();
  });
  cancelButton.addEventListener('click', () => {
    cancelButton.disabled = true;
    progress.stopping('Stopping after the current call…');
    void running?.cancel();
  });
  againButton.addEventListener('click', () => void again());
  reviewButton.addEventListener('click', () => {
    if (shown) navigate(`#/review/summary/${shown.id}`);
  });
  storedSelect.addEventListener('change', () => {
    if (storedSelect.value) navigate(`#/summaries/${storedSelect.value}`);
  });
  setRunning(false);
  const chooser = el('section', { class: 'panel' }, el('div', { class: 'row' }, el('label', { for: 'summaries-stored' }, 'Stored summaries'), storedSelect));
  return el('div', { id: 'summaries-view' }, el('h1', {}, 'Summaries'), form, chooser, resultPanel);
}

export async function renderSummaries({ outlet, params, signal }: RouteContext): Promise<void> {
  view ??= build();
  replace(outlet, view);
  try {
    const [corpora, info] = await Promise.all([listCorpora(), appInfo()]);
    exportDir = info.e2e_export_dir;
    const chosen = corpusSelect.value;
    replace(
      corpusSelect,
      el('option', { value: '' }, corpora.length === 0 ? 'No corpus yet: import documents' : 'Choose a corpus'),
      ...corpora.map((corpus) => el('option', { value: corpus.name, selected: corpus.name === chosen }, `${corpus.name} (${count(corpus.document_count, 'document')})`)),
    );
    const id = params[0] ? Number(params[0]) : undefined;
    await loadStored(id);
    if (signal.aborted) return;
    // The summary shown again (back from review mode, say) keeps its messages; its reviews
    // are read again.
    if (id !== undefined && shown?.id !== id) show(await getSourcedSummary(id));
    else if (id !== undefined) drawReviews();
  } catch (error) {
    if (!signal.aborted) runStatus.textContent = describeError(error);
  }
}
