// A collection's dashboard: its claims' verdicts (the machine's and after review), the
// machine's verdicts against the people's as a table whose every cell opens the claims behind
// it in the collection view, the confidence histogram split by whether a gold label (else a
// review) agrees with the verdict (a calibration view), and the checks and reviews per day.
// One command gives the figures (`collection_dashboard`, computed in the core); the charts are
// small SVGs (charts.ts), with the same numbers as text. By default each claim counts with its
// newest check of any method; "Checks by" picks one method's newest checks instead, and "Run"
// one run's, and the cells then open the collection showing those checks. Route:
// `#/collections/<name>/dashboard?method=<method>&run=<id>`.

import { METHODS, REVIEW_FILTERS, collectionDashboard, collectionRuns, type Dashboard, type Method, type ReviewFilter, type Run, type Verdict } from '../api';
import { count, el, replace, shortTime } from '../dom';
import { href, navigate, type RouteContext } from '../router';
import { METHOD_NAMES, VERDICT_NAMES } from './checks';
import { horizontalBars, stackedColumns, type StackedColumn } from './charts';
import { linkButton, showError, statusLine } from './common';

/** The method and run whose checks the dashboard counts (the newest of any when undefined). */
let shownMethod: Method | undefined;
let shownRun: number | undefined;

/** The collection view filtered by `query`, showing the checks the dashboard counts. */
function collectionHash(collection: string, query: Record<string, string>): string {
  return href(`/collections/${encodeURIComponent(collection)}`, { ...query, method: shownMethod, run: shownRun });
}

function runName(run: Run): string {
  return `Run ${run.id} · ${run.method} · ${shortTime(run.created_at)} · ${run.status}`;
}

/** The collection view of the claims whose newest check gave `machine` and whose review gave `review` ('none': not reviewed). */
function cellHash(collection: string, machine: Verdict, review: ReviewFilter): string {
  return collectionHash(collection, { machine, review });
}

function verdictsSection(dashboard: Dashboard): HTMLElement {
  const collection = dashboard.collection;
  return el(
    'section',
    { class: 'panel', id: 'dashboard-verdicts', 'aria-labelledby': 'dashboard-verdicts-heading' },
    el('h2', { id: 'dashboard-verdicts-heading' }, 'Verdicts'),
    horizontalBars(
      'Claims per verdict: the machine’s, and after review',
      dashboard.verdicts.flatMap((entry) => [
        { label: `${VERDICT_NAMES[entry.verdict]} · machine`, count: entry.machine, className: `verdict-${entry.verdict}` },
        { label: `${VERDICT_NAMES[entry.verdict]} · after review`, count: entry.after_review, className: `verdict-${entry.verdict} after-review` },
      ]),
      'verdict-bars',
    ),
    el(
      'table',
      { class: 'dashboard-counts', id: 'dashboard-verdict-table' },
      el('thead', {}, el('tr', {}, ...['Verdict', 'Machine', 'After review'].map((name) => el('th', { scope: 'col' }, name)))),
      el(
        'tbody',
        {},
        ...dashboard.verdicts.map((entry) =>
          el(
            'tr',
            { 'data-verdict': entry.verdict },
            el('th', { scope: 'row' }, VERDICT_NAMES[entry.verdict]),
            el('td', { class: 'number machine' }, linkButton(entry.machine.toLocaleString(), collectionHash(collection, { machine: entry.verdict }))),
            el('td', { class: 'number after-review' }, linkButton(entry.after_review.toLocaleString(), collectionHash(collection, { verdict: entry.verdict }))),
          ),
        ),
      ),
    ),
  );
}

function confusionSection(dashboard: Dashboard): HTMLElement {
  const most = Math.max(1, ...dashboard.machine_vs_review.flatMap((row) => row.cells.map((cell) => cell.claims)));
  const columns = REVIEW_FILTERS;
  const columnName = (review: ReviewFilter) => (review === 'none' ? 'Not reviewed' : VERDICT_NAMES[review]);
  return el(
    'section',
    { class: 'panel', id: 'dashboard-confusion', 'aria-labelledby': 'dashboard-confusion-heading' },
    el('h2', { id: 'dashboard-confusion-heading' }, 'Machine and people'),
    el('p', { class: 'hint' }, 'Each claim’s newest verdict (rows) against its review (columns); a cell opens its claims.'),
    // Scrolls inside its panel rather than widening the window when the column is narrow.
    el(
      'div',
      { class: 'table-scroll' },
      el(
      'table',
      { class: 'confusion dashboard-confusion', id: 'dashboard-confusion-table' },
      el(
        'thead',
        {},
        el('tr', {}, el('th', { scope: 'col' }, 'Machine ↓ · review →'), ...columns.map((review) => el('th', { scope: 'col' }, columnName(review)))),
      ),
      el(
        'tbody',
        {},
        ...dashboard.machine_vs_review.map((row) =>
          el(
            'tr',
            { 'data-machine': row.machine },
            el('th', { scope: 'row' }, VERDICT_NAMES[row.machine]),
            ...row.cells.map((cell) => {
              const review = cell.review ?? 'none';
              const kind = review === 'none' ? 'unjudged' : review === row.machine ? 'agree' : 'disagree';
              // Five shades by share of the largest cell, as classes (no inline styles).
              const shade = cell.claims === 0 ? 0 : 1 + Math.min(3, Math.floor((cell.claims / most) * 4));
              return el(
                'td',
                { class: `number cell ${kind} shade-${shade}`, 'data-review': review, 'data-count': cell.claims },
                cell.claims === 0
                  ? '0'
                  : linkButton(cell.claims.toLocaleString(), cellHash(dashboard.collection, row.machine, review), {
                      'aria-label': `${count(cell.claims, 'claim')}: machine ${VERDICT_NAMES[row.machine]}, ${review === 'none' ? 'not reviewed' : `review ${VERDICT_NAMES[review]}`}`,
                    }),
              );
            }),
          ),
        ),
      ),
      ),
    ),
  );
}

function calibrationSection(dashboard: Dashboard): HTMLElement {
  const columns: StackedColumn[] = dashboard.confidence.map((bin, index) => ({
    label: `${Math.round(bin.from * 100)}–${Math.round(bin.to * 100)}%`,
    showLabel: index % 2 === 0,
    parts: [
      { count: bin.agree, className: 'agree', name: 'agree' },
      { count: bin.disagree, className: 'disagree', name: 'disagree' },
      { count: bin.unjudged, className: 'unjudged', name: 'neither judged' },
    ],
  }));
  const judged = dashboard.judged_by_gold + dashboard.judged_by_review;
  return el(
    'section',
    { class: 'panel', id: 'dashboard-calibration', 'aria-labelledby': 'dashboard-calibration-heading' },
    el('h2', { id: 'dashboard-calibration-heading' }, 'Confidence and agreement'),
    el(
      'p',
      { class: 'hint', id: 'dashboard-calibration-note' },
      judged === 0
        ? 'No claim has a gold label or a review yet: every check is “neither judged”.'
        : `Judged by ${count(dashboard.judged_by_gold, 'gold label')} and ${count(dashboard.judged_by_review, 'review')}. If confidence means something, the high bins agree more often.`,
      dashboard.without_confidence > 0 ? ` ${count(dashboard.without_confidence, 'check')} without a confidence left out.` : '',
    ),
    stackedColumns('Confidence of the newest checks, split by whether a gold label or a review agrees', columns, 'green: agrees · red: disagrees · grey: neither judged', 'confidence-histogram'),
    el(
      'details',
      { class: 'chart-numbers' },
      el('summary', {}, 'Numbers'),
      el(
        'table',
        { class: 'dashboard-counts', id: 'dashboard-calibration-table' },
        el('thead', {}, el('tr', {}, ...['Confidence', 'Agree', 'Disagree', 'Neither', 'Agreeing'].map((name) => el('th', { scope: 'col' }, name)))),
        el(
          'tbody',
          {},
          ...dashboard.confidence.map((bin, index) => {
            const judgedHere = bin.agree + bin.disagree;
            return el(
              'tr',
              {},
              el('th', { scope: 'row' }, columns[index]?.label ?? ''),
              el('td', { class: 'number' }, String(bin.agree)),
              el('td', { class: 'number' }, String(bin.disagree)),
              el('td', { class: 'number' }, String(bin.unjudged)),
              el('td', { class: 'number' }, judgedHere === 0 ? '—' : `${Math.round((bin.agree / judgedHere) * 100)}%`),
            );
          }),
        ),
      ),
    ),
  );
}

function daysSection(dashboard: Dashboard): HTMLElement {
  const days = dashboard.per_day;
  const every = Math.max(1, Math.ceil(days.length / 6));
  return el(
    'section',
    { class: 'panel', id: 'dashboard-days', 'aria-labelledby': 'dashboard-days-heading' },
    el('h2', { id: 'dashboard-days-heading' }, 'Checks over time'),
    days.length === 0
      ? el('p', { class: 'hint' }, 'No checks yet.')
      : stackedColumns(
          'Checks and reviews per day',
          days.map((day, index) => ({
            label: day.day,
            showLabel: index % every === 0,
            parts: [
              { count: day.checks, className: 'checks', name: 'checks' },
              { count: day.reviews, className: 'reviews', name: 'reviews' },
            ],
          })),
          'dark: checks · light: reviews (UTC days)',
          'per-day',
        ),
    days.length > 0
      ? el('p', { class: 'hint', id: 'dashboard-days-total' }, `${count(days.reduce((sum, day) => sum + day.checks, 0), 'check')} and ${count(days.reduce((sum, day) => sum + day.reviews, 0), 'review')} from ${days[0]?.day ?? ''} to ${days[days.length - 1]?.day ?? ''}.`)
      : null,
  );
}

export async function renderDashboard({ outlet, params, query, signal }: RouteContext): Promise<void> {
  const collection = params[0] ?? '';
  const status = statusLine('dashboard-status');
  const asked = query.get('method');
  const method = METHODS.find((name) => name === asked);
  const askedRun = query.get('run') ?? '';
  const run = askedRun === '' ? undefined : Number(askedRun);
  shownMethod = method;
  shownRun = run;
  const methodSelect = el(
    'select',
    { id: 'dashboard-method', name: 'method' },
    el('option', { value: '', selected: method === undefined }, 'The newest check of any method'),
    ...METHODS.map((name) => el('option', { value: name, selected: name === method }, METHOD_NAMES[name])),
  );
  const runSelect = el('select', { id: 'dashboard-run', name: 'run' }, el('option', { value: '' }, 'Every run'));
  const choose = () =>
    navigate(href(`/collections/${encodeURIComponent(collection)}/dashboard`, { method: methodSelect.value || undefined, run: runSelect.value || undefined }));
  methodSelect.addEventListener('change', choose);
  runSelect.addEventListener('change', choose);
  replace(
    outlet,
    el('nav', { class: 'crumbs', 'aria-label': 'Back' }, linkButton(`← ${collection}`, href(`/collections/${encodeURIComponent(collection)}`), { id: 'back-to-collection' })),
    el('h1', {}, `Dashboard · ${collection}`),
    el('div', { class: 'row', id: 'dashboard-selection' }, el('label', { for: 'dashboard-method' }, 'Checks by'), methodSelect, el('label', { for: 'dashboard-run' }, 'Run'), runSelect),
    status,
  );
  if (asked !== null && asked !== '' && method === undefined) {
    showError(status, { code: 'invalid_input', message: `No method is called “${asked}”; choose one of ${METHODS.join(', ')}` });
    return;
  }
  if (run !== undefined && !(Number.isInteger(run) && run > 0)) {
    showError(status, { code: 'invalid_input', message: `“${askedRun}” is not a run number; choose a run from the list` });
    return;
  }
  status.textContent = 'Loading…';
  let dashboard: Dashboard;
  try {
    const selection = { ...(method === undefined ? {} : { method }), ...(run === undefined ? {} : { run }) };
    let runs: Run[];
    [runs, dashboard] = await Promise.all([collectionRuns(collection), collectionDashboard(collection, selection)]);
    if (signal.aborted) return;
    runSelect.append(...runs.map((entry) => el('option', { value: entry.id, selected: entry.id === run }, runName(entry))));
  } catch (error) {
    if (!signal.aborted) showError(status, error);
    return;
  }
  if (signal.aborted) return;
  status.textContent = `${count(dashboard.claims, 'claim')} · ${dashboard.checked.toLocaleString()} checked · ${dashboard.reviewed.toLocaleString()} reviewed · ${dashboard.labelled.toLocaleString()} with a gold label`;
  // The machine against the people first, across the view; the days across the view last.
  outlet.append(el('div', { class: 'dashboard-grid' }, confusionSection(dashboard), verdictsSection(dashboard), calibrationSection(dashboard), daysSection(dashboard)));
}
