// Claim collections: the list, an "Import claims" form (a CSV, JSONL or text file, typed or
// chosen in the file dialog), and for the chosen collection its claims first: their newest
// verdict, review, confidence, method and date, filtered by status, verdict, tag and method,
// sorted by a column's header, 200 at a time: the core filters and sorts the whole collection
// and sends one page (collection_page, asked for beside the list of collections), "Show more"
// asks for the next. The "Run checks" form (progress, Cancel; running again resumes an
// unfinished run) is folded into a bar above them, open while the collection has no check yet
// or its checks are running. A claim opens its detail view;
// "Review by keyboard" opens review mode (review.ts) over the collection, "Dashboard" its charts
// (dashboard.ts), whose cells come back here filtered by machine verdict and review.
// Routes: `#/collections` and
// `#/collections/<name>?status=&verdict=&machine=&review=&tag=&method=&run=&sort=&order=`.

import {
  METHODS,
  REVIEW_FILTERS,
  UNDECIDED,
  VERDICTS,
  VERDICT_FILTERS,
  chooseClaimsFile,
  collectionPage,
  getSettings,
  importClaims,
  listCollections,
  listCorpora,
  type ClaimCollection,
  type ClaimPage,
  type ClaimPageRequest,
  type ClaimStatus,
  type ClaimWithCheck,
  type Method,
  type ReviewFilter,
  type Verdict,
  type VerdictFilter,
} from '../api';
import { count, el, replace, shortTimeCell } from '../dom';
import { href, navigate, type RouteContext } from '../router';
import { batchBox, onBatchFinished, runBatch, runningBatch } from './batch-run';
import { METHOD_SHORT_NAMES, UNDECIDED_NAMES, VERDICT_NAMES, claimHash, percent, reviewSummary, verdictBadge, verifyOptionsForm } from './checks';
import { describeError, linkButton, showError, statusLine } from './common';

/** Claims shown at once; "Show more" adds as many again. */
const SHOWN_CLAIMS = 200;

/** The columns claims can be sorted by, and their headers. */
const SORTS = ['text', 'status', 'verdict', 'confidence', 'method', 'checked'] as const;
type SortKey = (typeof SORTS)[number];
type SortOrder = 'ascending' | 'descending';
const SORT_HEADERS: Record<SortKey, string> = {
  text: 'Claim',
  status: 'Status',
  verdict: 'Verdict',
  confidence: 'Confidence',
  method: 'Method',
  checked: 'Date',
};

const STATUSES: ClaimStatus[] = ['unchecked', 'checked', 'reviewed'];

/** A verdict filter's name in the menu. */
function verdictFilterName(filter: VerdictFilter): string {
  if (filter === 'none') return 'Not checked';
  const verdict = VERDICTS.find((candidate) => candidate === filter);
  if (verdict !== undefined) return VERDICT_NAMES[verdict];
  const reason = UNDECIDED.find((candidate) => candidate === filter);
  return `Not enough info · ${reason === undefined ? filter : UNDECIDED_NAMES[reason]}`;
}
interface ClaimFilter {
  status: ClaimStatus | undefined;
  /** One verdict (the reviewer's when reviewed), the checks that could not decide for one reason, or ('none') claims with no check. */
  verdict: VerdictFilter | undefined;
  /** Only claims whose newest check gave this verdict (whatever the review says). */
  machine: Verdict | undefined;
  /** Only claims whose review gave this verdict, or ('none') checked claims not reviewed. */
  review: ReviewFilter | undefined;
  tag: string;
  /** Show each claim's newest check of this method (of any method when undefined). */
  method: Method | undefined;
  /** Show each claim's newest check of this run (from the dashboard; any run when undefined). */
  run: number | undefined;
  /** The column claims are sorted by (the collection's order when undefined), and how. */
  sort: SortKey | undefined;
  order: SortOrder;
}

/** A message to show once after the view is drawn again (the outcome of a claims import). */
let flash: { collection: string; message: string } | null = null;

// A batch that ended changed verdicts and frees the Run checks button of every collection:
// draw the open collection again, whichever it is.
onBatchFinished(() => {
  if (location.hash.startsWith('#/collections')) navigate(location.hash);
});

function collectionItem(collection: ClaimCollection, selected: boolean): HTMLLIElement {
  const button = linkButton(
    [el('span', { class: 'name' }, collection.name), el('span', { class: 'count' }, count(collection.claim_count, 'claim'))],
    href(`/collections/${encodeURIComponent(collection.name)}`),
    { 'data-collection': collection.name },
  );
  if (selected) button.setAttribute('aria-current', 'true');
  if (collection.description) button.title = collection.description;
  return el('li', { class: selected ? 'selected' : undefined }, button);
}

function verdictCell(entry: ClaimWithCheck): HTMLTableCellElement {
  const check = entry.check;
  if (!check) return el('td', { class: 'verdict-cell' }, el('span', { class: 'hint' }, 'not checked'));
  return el(
    'td',
    { class: 'verdict-cell' },
    verdictBadge(check.check.verdict, '', check.check.undecided),
    check.review ? el('p', { class: `review-note ${check.review.decision}` }, reviewSummary(check.review)) : null,
  );
}

function claimRow(entry: ClaimWithCheck): HTMLTableRowElement {
  const { claim, check } = entry;
  return el(
    'tr',
    { 'data-claim-id': claim.id },
    el(
      'td',
      { class: 'claim-text' },
      linkButton(claim.text, claimHash(claim), { class: 'link claim-link' }),
      claim.notes ? el('p', { class: 'notes' }, claim.notes) : null,
      claim.tags.length > 0 ? el('p', { class: 'tags' }, ...claim.tags.map((tag) => el('span', { class: 'tag' }, tag))) : null,
    ),
    el('td', {}, el('span', { class: `badge status-${claim.status}` }, claim.status)),
    verdictCell(entry),
    el('td', { class: 'number' }, check ? percent(check.check.confidence) : ''),
    // The method that made the check shown, and when.
    el(
      'td',
      { class: 'checked' },
      check ? (METHOD_SHORT_NAMES[check.check.method as Method] ?? check.check.method) : '',
      check ? el('time', { datetime: check.checked_at }, ...shortTimeCell(check.checked_at)) : null,
    ),
    el('td', {}, claim.gold_label ? el('span', { class: `badge label-${claim.gold_label}` }, VERDICT_NAMES[claim.gold_label] ?? claim.gold_label) : ''),
  );
}

/** The "Run checks" panel: method and evidence options, the button, and the batch's progress. */
/**
 * The "Run checks" bar: the form folded under its summary, with the progress of a run beside
 * it (always in view).
 */
async function runPanel(name: string, signal: AbortSignal): Promise<{ bar: HTMLDetailsElement; progress: HTMLElement }> {
  const options = verifyOptionsForm('run');
  const button = el('button', { type: 'submit', id: 'run-checks', class: 'primary' }, 'Run checks');
  const restart = el('input', { type: 'checkbox', id: 'run-restart', name: 'restart' });
  const skipChecked = el('input', { type: 'checkbox', id: 'run-skip-checked', name: 'skip_checked' });
  // "Every claim again" and "only claims not checked yet" exclude each other.
  restart.addEventListener('change', () => {
    if (restart.checked) skipChecked.checked = false;
  });
  skipChecked.addEventListener('change', () => {
    if (skipChecked.checked) restart.checked = false;
  });
  const status = statusLine('run-status');
  const slot = el('div', { class: 'batch-slot' }, batchBox(name));
  const form = el(
    'form',
    // Checked by options.read() with messages (see the Check view's form).
    { class: 'check-form', id: 'run-form', novalidate: true },
    options.element,
    el('label', { class: 'checkbox' }, restart, ' Start over (check every claim again, even if an unfinished run could resume)'),
    el('label', { class: 'checkbox' }, skipChecked, ' Only claims without a check made the same way (method settings and models)'),
    el('div', { class: 'buttons' }, button),
  );
  const busy = runningBatch();
  if (busy !== null) {
    button.disabled = true;
    status.textContent = busy === name ? 'Checks of this collection are running.' : `Checks of “${busy}” are running.`;
  }
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    status.classList.remove('error');
    const chosen = options.read();
    if ('error' in chosen) {
      showError(status, { code: 'invalid_input', message: chosen.error });
      chosen.field.focus();
      return;
    }
    if (restart.checked) chosen.options.restart = true;
    if (skipChecked.checked) chosen.options.skip_checked = true;
    button.disabled = true;
    status.textContent = '';
    const run = runBatch(name, chosen.options);
    replace(slot, batchBox(name));
    try {
      const summary = await run;
      if (summary === null) showError(status, { code: 'invalid_input', message: `Checks of “${runningBatch() ?? ''}” are running; wait for them or cancel them` });
    } catch (error) {
      showError(status, error);
    } finally {
      button.disabled = false;
    }
  });
  try {
    const [settings, corpora] = await Promise.all([getSettings(), listCorpora()]);
    if (!signal.aborted) {
      options.setDefaults(settings.settings);
      options.setCorpora(corpora);
    }
  } catch (error) {
    if (!signal.aborted) status.textContent = `The default options could not be read: ${describeError(error)}`;
  }
  const bar = el(
    'details',
    { class: 'run-checks', id: 'run-bar' },
    el('summary', { id: 'run-bar-summary' }, el('span', { id: 'run-heading' }, 'Run checks'), el('span', { class: 'hint' }, ' · method, evidence and options')),
    el('p', { class: 'hint' }, 'Checks every claim of the collection. If an earlier run with the same options stopped before the end, it resumes and skips the claims it checked.'),
    form,
    status,
  );
  return { bar, progress: slot };
}

/** The dashboard's filter (machine verdict, review, run), which the filter form does not show, with a way to drop it. */
function machineReviewNote(collection: string, filter: ClaimFilter): HTMLElement | null {
  if (filter.machine === undefined && filter.review === undefined && filter.run === undefined) return null;
  const parts = [
    filter.run !== undefined ? `a check of run ${filter.run}` : null,
    filter.machine ? `machine verdict ${VERDICT_NAMES[filter.machine]}` : null,
    filter.review === 'none' ? 'not reviewed' : filter.review ? `review ${VERDICT_NAMES[filter.review]}` : null,
  ].filter((part): part is string => part !== null);
  return el(
    'p',
    { class: 'hint', id: 'claims-machine-review' },
    `Only claims with ${parts.join(' and ')} (from the dashboard). `,
    linkButton('Show all', href(`/collections/${encodeURIComponent(collection)}`), { id: 'claims-machine-review-clear' }),
  );
}

/** The first page a filter asks for: the core filters and sorts the whole collection and sends one page of it at a time. */
function pageRequest(filter: ClaimFilter): ClaimPageRequest {
  return {
    selection: { ...(filter.method === undefined ? {} : { method: filter.method }), ...(filter.run === undefined ? {} : { run: filter.run }) },
    status: filter.status,
    verdict: filter.verdict,
    machine: filter.machine,
    review: filter.review,
    tag: filter.tag === '' ? undefined : filter.tag,
    sort: filter.sort,
    descending: filter.order === 'descending',
    offset: 0,
    limit: SHOWN_CLAIMS,
  };
}

/** What a collection's claims wait for, asked for before the list of collections arrives. */
interface EarlyRequests {
  page: Promise<{ page: ClaimPage } | { error: unknown }>;
  panel: Promise<{ bar: HTMLDetailsElement; progress: HTMLElement }>;
}

function askEarly(collection: string, filter: ClaimFilter, signal: AbortSignal): EarlyRequests {
  return {
    page: collectionPage(collection, pageRequest(filter)).then(
      (page) => ({ page }),
      (error: unknown) => ({ error }),
    ),
    panel: runPanel(collection, signal),
  };
}

async function renderClaims(pane: HTMLElement, collection: ClaimCollection, filter: ClaimFilter, early: EarlyRequests, signal: AbortSignal): Promise<void> {
  const statusSelect = el(
    'select',
    { name: 'status', id: 'claim-status', 'aria-label': 'Status' },
    el('option', { value: '' }, 'Any status'),
    ...STATUSES.map((status) => el('option', { value: status, selected: status === filter.status }, status)),
  );
  const verdictSelect = el(
    'select',
    { name: 'verdict', id: 'claim-verdict', 'aria-label': 'Verdict' },
    el('option', { value: '' }, 'Any verdict'),
    ...VERDICT_FILTERS.map((value) => el('option', { value, selected: value === filter.verdict }, verdictFilterName(value))),
  );
  const tagInput = el('input', { type: 'text', name: 'tag', id: 'claim-tag', value: filter.tag, placeholder: 'Tag', 'aria-label': 'Tag' });
  const methodSelect = el(
    'select',
    { name: 'method', id: 'claim-method', 'aria-label': 'Method' },
    el('option', { value: '' }, 'Any method'),
    ...METHODS.map((method) => el('option', { value: method, selected: method === filter.method }, METHOD_SHORT_NAMES[method])),
  );
  const form = el('form', { class: 'claim-filter', id: 'claim-filter' }, statusSelect, verdictSelect, tagInput, methodSelect, el('button', { type: 'submit' }, 'Filter'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    navigate(
      href(`/collections/${encodeURIComponent(collection.name)}`, {
        status: statusSelect.value,
        verdict: verdictSelect.value,
        tag: tagInput.value.trim(),
        method: methodSelect.value,
        sort: filter.sort,
        order: filter.sort === undefined ? undefined : filter.order,
      }),
    );
  });
  const status = statusLine('claims-status');
  const tableSlot = el('div', { class: 'table-slot' });
  replace(
    pane,
    el('h2', { id: 'claims-heading' }, collection.name),
    collection.description ? el('p', { class: 'hint' }, collection.description) : null,
    el(
      'nav',
      { class: 'crumbs', 'aria-label': 'Collection actions' },
      linkButton('Review by keyboard', href('/review', { collection: collection.name }), { id: 'collection-review' }),
      linkButton('Dashboard', href(`/collections/${encodeURIComponent(collection.name)}/dashboard`), { id: 'collection-dashboard' }),
      linkButton('Export or evaluate in Reports', href('/reports', { collection: collection.name }), { id: 'collection-reports' }),
    ),
    el('div', { class: 'run-slot' }),
    el('h3', {}, 'Claims'),
    form,
    machineReviewNote(collection.name, filter),
    status,
    tableSlot,
  );
  status.textContent = 'Loading…';
  const runSlot = pane.querySelector<HTMLElement>('.run-slot');
  const request = pageRequest(filter);
  const [outcome, panel] = await Promise.all([early.page, early.panel]);
  if (signal.aborted) return;
  // Open while there is nothing to look at but what a run would give, or a run is going on.
  panel.bar.open = runningBatch() === collection.name || ('page' in outcome && outcome.page.checked === 0);
  if (runSlot) replace(runSlot, panel.bar, panel.progress);
  if ('error' in outcome) {
    showError(status, outcome.error);
    return;
  }
  const { total, matching } = outcome.page;
  const filtered =
    filter.status !== undefined || filter.verdict !== undefined || filter.machine !== undefined || filter.review !== undefined || filter.tag !== '' || filter.method !== undefined || filter.run !== undefined;
  const tally = (shown: number): string =>
    total === 0
      ? 'No claims in this collection yet.'
      : matching === 0
        ? 'No claims match the filter.'
        : shown < matching
          ? `${shown.toLocaleString()} of ${count(matching, 'claim')} shown${filtered ? ` (${total.toLocaleString()} in the collection)` : ''}`
          : filtered
            ? `${count(matching, 'claim')} of ${total.toLocaleString()}`
            : count(matching, 'claim');
  const first = outcome.page.claims;
  status.textContent = tally(first.length);
  if (first.length === 0) return;
  // A header sorts by its column; the same header again turns the order round.
  const sortLink = (key: SortKey): HTMLButtonElement => {
    const current = filter.sort === key;
    const order: SortOrder = current && filter.order === 'ascending' ? 'descending' : current ? 'ascending' : key === 'confidence' || key === 'checked' ? 'descending' : 'ascending';
    const target = href(`/collections/${encodeURIComponent(collection.name)}`, {
      status: filter.status ?? '',
      verdict: filter.verdict ?? '',
      machine: filter.machine ?? '',
      review: filter.review ?? '',
      tag: filter.tag,
      method: filter.method ?? '',
      run: filter.run ?? '',
      sort: key,
      order,
    });
    return linkButton([SORT_HEADERS[key], current ? (filter.order === 'ascending' ? ' ▲' : ' ▼') : ''], target, { class: 'link sort', id: `sort-${key}`, title: `Sort by ${SORT_HEADERS[key].toLowerCase()}` });
  };
  // A column's header sorts by it; the method-and-date column has one for each.
  const header = (...keys: SortKey[]): HTMLTableCellElement => {
    const current = keys.find((key) => key === filter.sort);
    const links = keys.flatMap((key, at) => (at === 0 ? [sortLink(key)] : [' · ', sortLink(key)]));
    return el('th', { scope: 'col', 'aria-sort': current === undefined ? undefined : filter.order }, ...links);
  };
  const body = el('tbody', {}, ...first.map(claimRow));
  const more = el('button', { type: 'button', id: 'claims-more' }, `Show ${SHOWN_CLAIMS.toLocaleString()} more`);
  more.hidden = first.length >= matching;
  more.addEventListener('click', async () => {
    more.disabled = true;
    try {
      const next = await collectionPage(collection.name, { ...request, offset: body.rows.length });
      if (signal.aborted) return;
      body.append(...next.claims.map(claimRow));
      status.textContent = tally(body.rows.length);
      more.hidden = next.claims.length === 0 || body.rows.length >= next.matching;
    } catch (error) {
      if (!signal.aborted) showError(status, error);
    } finally {
      more.disabled = false;
    }
  });
  replace(
    tableSlot,
    el(
      'table',
      { class: 'claims', id: 'claim-table' },
      el('thead', {}, el('tr', {}, header('text'), header('status'), header('verdict'), header('confidence'), header('method', 'checked'), el('th', { scope: 'col' }, 'Gold label'))),
      body,
    ),
    more,
  );
}

/** The "Import claims" form: a file (typed, or chosen in the dialog) and a collection name. */
function importForm(selected: string | null): HTMLElement {
  const collectionInput = el('input', {
    id: 'claims-import-collection',
    type: 'text',
    value: selected ?? '',
    required: true,
    autocomplete: 'off',
    placeholder: 'Collection',
  });
  const pathInput = el('input', { id: 'claims-import-path', type: 'text', spellcheck: 'false', placeholder: 'Path of a .csv, .jsonl or .txt file' });
  const choose = el('button', { type: 'button', id: 'claims-import-choose' }, 'Choose file…');
  const submit = el('button', { type: 'submit', id: 'claims-import-start', class: 'primary' }, 'Import');
  const status = statusLine('claims-import-status');
  choose.addEventListener('click', async () => {
    try {
      const picked = await chooseClaimsFile();
      if (picked) {
        pathInput.value = picked;
        (collectionInput.value.trim() ? submit : collectionInput).focus();
      }
    } catch (error) {
      showError(status, error);
    }
  });
  const form = el(
    'form',
    { class: 'claims-import', id: 'claims-import-form' },
    el('label', { for: 'claims-import-path' }, 'File'),
    pathInput,
    choose,
    el('label', { for: 'claims-import-collection' }, 'Into collection'),
    collectionInput,
    submit,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    status.classList.remove('error');
    const path = pathInput.value.trim();
    const collection = collectionInput.value.trim();
    if (!path) {
      showError(status, { code: 'invalid_input', message: 'Choose or type the claims file to import' });
      pathInput.focus();
      return;
    }
    if (!collection) {
      showError(status, { code: 'invalid_input', message: 'Name the collection (a new name creates it)' });
      collectionInput.focus();
      return;
    }
    submit.disabled = true;
    status.textContent = 'Importing…';
    const startedAt = location.hash;
    try {
      const summary = await importClaims(path, collection);
      const parts = [`${count(summary.imported, 'claim')} imported into “${summary.collection}”`];
      if (summary.duplicates > 0) parts.push(`${summary.duplicates.toLocaleString()} already there`);
      if (summary.failed > 0) parts.push(`${summary.failed.toLocaleString()} failed (${summary.failures.slice(0, 3).map((failure) => `${failure.item}: ${failure.message}`).join('; ')})`);
      const message = `${parts.join('; ')}.`;
      flash = { collection: summary.collection, message };
      // Shown when that collection is next open; opened now unless the user has moved on.
      if (location.hash === startedAt) navigate(href(`/collections/${encodeURIComponent(summary.collection)}`));
    } catch (error) {
      showError(status, error);
      submit.disabled = false;
    }
  });
  return el(
    'section',
    { class: 'import-claims', 'aria-labelledby': 'claims-import-heading' },
    el('h2', { id: 'claims-import-heading' }, 'Import claims'),
    el('p', { class: 'hint' }, 'CSV or JSONL (a claim column, optional label, tags and notes) or one claim per line.'),
    form,
    status,
  );
}

export async function renderCollections({ outlet, params, query, signal }: RouteContext): Promise<void> {
  const selectedName = params[0] ?? null;
  const list = el('ul', { class: 'corpus-list', id: 'collection-list' });
  const listStatus = statusLine('collections-status');
  const pane = el('div', { class: 'claims-pane' });
  const message = flash;
  flash = null;
  replace(
    outlet,
    el('h1', {}, 'Collections'),
    el(
      'div',
      { class: 'library' },
      el(
        'div',
        { class: 'collections-side' },
        el('section', { class: 'panel corpora' }, el('h2', {}, 'Claim collections'), list, listStatus),
        el('div', { class: 'panel' }, importForm(selectedName)),
      ),
      el('section', { class: 'panel library-main' }, pane),
    ),
  );
  if (message) {
    const line = outlet.querySelector<HTMLElement>('#claims-import-status');
    if (line) {
      line.classList.add('ok');
      line.textContent = message.message;
    }
  }
  const statusParam = query.get('status');
  const verdictParam = query.get('verdict');
  const methodParam = query.get('method');
  const runParam = Number(query.get('run') ?? '');
  const filter: ClaimFilter = {
    status: STATUSES.find((status) => status === statusParam),
    verdict: VERDICT_FILTERS.find((verdict) => verdict === verdictParam),
    machine: VERDICTS.find((verdict) => verdict === query.get('machine')),
    review: REVIEW_FILTERS.find((review) => review === query.get('review')),
    tag: query.get('tag') ?? '',
    method: METHODS.find((method) => method === methodParam),
    run: Number.isInteger(runParam) && runParam > 0 ? runParam : undefined,
    sort: SORTS.find((key) => key === query.get('sort')),
    order: query.get('order') === 'descending' ? 'descending' : 'ascending',
  };
  // The claims are asked for at once, beside the list of collections.
  const early = selectedName === null ? null : askEarly(selectedName, filter, signal);
  listStatus.textContent = 'Loading…';
  let collections: ClaimCollection[];
  try {
    collections = await listCollections();
  } catch (error) {
    if (!signal.aborted) showError(listStatus, error);
    return;
  }
  if (signal.aborted) return;
  listStatus.textContent = collections.length === 0 ? 'No collections yet: check a text in Check, or import a claims file.' : '';
  replace(list, ...collections.map((collection) => collectionItem(collection, collection.name === selectedName)));

  const selected = collections.find((collection) => collection.name === selectedName);
  if (!selected) {
    replace(
      pane,
      selectedName === null
        ? el('p', { class: 'hint' }, collections.length > 0 ? 'Choose a collection to see its claims.' : '')
        : el('p', { class: 'status error' }, `There is no collection named “${selectedName}”.`),
    );
    return;
  }
  if (early) await renderClaims(pane, selected, filter, early, signal);
}
