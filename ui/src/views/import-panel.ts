// The import form of the Library: a corpus name, a list of sources (paths of files or folders,
// http(s) URLs; typed or pasted, chosen in the file dialog, or dropped on the window), and the
// progress of the running import with a Cancel button. The panel is built once and kept while
// the user visits other views, so an import goes on showing its progress when they come back.

import {
  chooseImportSources,
  importSources,
  type ImportSummary,
  type RunningTask,
} from '../api';
import { bytes, count, el, replace } from '../dom';
import { describeError, linkButton } from './common';
import { TaskProgressView } from './task-progress';

let panel: HTMLElement | null = null;
let running: RunningTask<ImportSummary> | null = null;
let finishedListener: (summary: ImportSummary | null) => void = () => {};
/** Sources added (dropped or chosen) while an import runs: they wait for the next one. */
let waiting: string[] = [];

const corpusInput = el('input', {
  id: 'import-corpus',
  type: 'text',
  list: 'import-corpus-names',
  required: true,
  autocomplete: 'off',
  placeholder: 'e.g. news',
});
const corpusNames = el('datalist', { id: 'import-corpus-names' });
const sourcesBox = el('textarea', {
  id: 'import-sources',
  rows: 4,
  spellcheck: 'false',
  placeholder: 'One per line: a file, a folder, or an http(s) URL',
});
const addFilesButton = el('button', { type: 'button', id: 'import-add-files' }, 'Add files…');
const addFoldersButton = el('button', { type: 'button', id: 'import-add-folders' }, 'Add folders…');
const startButton = el('button', { type: 'submit', id: 'import-start', class: 'primary' }, 'Import');
const cancelButton = el('button', { type: 'button', id: 'import-cancel', hidden: true }, 'Cancel');
const formStatus = el('p', { class: 'status', id: 'import-status', role: 'status' });
const waitingNote = el('p', { class: 'hint', id: 'import-waiting', hidden: true });

const progress = new TaskProgressView({
  barId: 'import-progress',
  failuresId: 'import-failures',
  amount: (done, total, unit) => {
    const show = (n: number) => (unit === 'bytes' ? bytes(n) : n.toLocaleString());
    return total === null ? show(done) : `${show(done)} of ${show(total)}`;
  },
});
const progressBox = progress.panel();
const summaryBox = el('div', { class: 'import-summary', id: 'import-summary', role: 'status' });

function sources(): string[] {
  return sourcesBox.value
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** Adds paths to the list of sources (skipping ones already there). While an import runs,
 * they wait and join the list when it ends. */
export function addImportSources(paths: string[]): void {
  if (running) {
    const present = new Set(waiting);
    waiting.push(...paths.filter((path) => !present.has(path)));
    waitingNote.textContent = `${count(waiting.length, 'more source')} will be listed here for the next import when this one ends.`;
    waitingNote.hidden = false;
    return;
  }
  const added = appendSources(paths);
  if (added.length === 0) return;
  formStatus.classList.remove('error');
  formStatus.textContent = `${count(added.length, 'source')} added. Name the corpus and press Import.`;
  (corpusInput.value.trim() ? startButton : corpusInput).focus();
}

/** Appends the paths not listed yet to the sources box; answers those. */
function appendSources(paths: string[]): string[] {
  const present = new Set(sources());
  const added = paths.filter((path) => !present.has(path));
  if (added.length > 0) {
    const current = sourcesBox.value.replace(/\s+$/, '');
    sourcesBox.value = (current ? `${current}\n` : '') + added.join('\n');
  }
  return added;
}

/** After an import: the sources that waited for it join the list, and the note says so. */
function takeWaiting(): void {
  const added = appendSources(waiting);
  waiting = [];
  waitingNote.textContent = `${count(added.length, 'source')} added while the import ran: press Import to import them.`;
  waitingNote.hidden = added.length === 0;
}

/** Offers the existing corpus names in the corpus field. */
export function setImportCorpora(names: string[]): void {
  replace(corpusNames, ...names.map((name) => el('option', { value: name })));
}

/** Fills the corpus field with `name` if it is empty. */
export function suggestImportCorpus(name: string): void {
  if (!corpusInput.value.trim() && !running) corpusInput.value = name;
}

/** Calls `listener` after each import: with its summary when it ran to its end (finished or
 * cancelled), with `null` when it stopped on an error (part of it may be stored). */
export function onImportFinished(listener: (summary: ImportSummary | null) => void): void {
  finishedListener = listener;
}

function showSummary(summary: ImportSummary): void {
  const parts = [
    `${count(summary.imported, 'document')} imported into “${summary.corpus}” (${count(summary.sentences, 'sentence')})`,
  ];
  if (summary.duplicates > 0) parts.push(`${count(summary.duplicates, 'document')} already there`);
  if (summary.failed > 0) parts.push(`${summary.failed.toLocaleString()} failed`);
  if (summary.archived > 0) parts.push(`${count(summary.archived, 'page')} of web archives added to the page archive (offline checks are served them)`);
  if (summary.skipped.length > 0) parts.push(`${count(summary.skipped.length, 'item')} skipped (not a format Factdesk reads, not a regular file, or an archived record that is no readable page)`);
  const opened = summary.documents.slice(0, 10).map((document) =>
    el(
      'li',
      {},
      linkButton(document.title ?? document.origin, `#/documents/${document.id}`),
      document.duplicate ? ' (already there)' : '',
    ),
  );
  replace(
    summaryBox,
    el('p', { class: summary.cancelled ? 'cancelled' : 'done' }, summary.cancelled ? 'Cancelled. ' : 'Done. ', `${parts.join('; ')}.`),
    summary.cancelled
      ? el('p', { class: 'hint' }, 'What was imported before the stop is kept; import the same sources again to resume.')
      : null,
    opened.length > 0 ? el('ul', { class: 'imported' }, ...opened) : null,
    summary.documents.length > opened.length
      ? el('p', { class: 'hint' }, `and ${count(summary.documents.length - opened.length, 'more document')}`)
      : null,
  );
}

function setRunning(active: boolean): void {
  startButton.disabled = active;
  addFilesButton.disabled = active;
  addFoldersButton.disabled = active;
  corpusInput.disabled = active;
  sourcesBox.disabled = active;
  cancelButton.hidden = !active;
  cancelButton.disabled = false;
  progressBox.hidden = !active;
}

async function startImport(): Promise<void> {
  if (running) return;
  const corpus = corpusInput.value.trim();
  const list = sources();
  formStatus.classList.remove('error');
  if (!corpus) {
    formStatus.classList.add('error');
    formStatus.textContent = 'Name the corpus to import into (a new name creates it).';
    corpusInput.focus();
    return;
  }
  if (list.length === 0) {
    formStatus.classList.add('error');
    formStatus.textContent = 'Add files, folders or URLs to import.';
    sourcesBox.focus();
    return;
  }
  summaryBox.replaceChildren();
  waitingNote.hidden = true;
  progress.start();
  formStatus.textContent = `Importing ${count(list.length, 'source')} into “${corpus}”…`;
  setRunning(true);
  const current = importSources(corpus, list, progress.onProgress);
  running = current;
  try {
    const summary = await current.done;
    formStatus.textContent = '';
    if (!summary.cancelled) sourcesBox.value = '';
    showSummary(summary);
    finishedListener(summary);
  } catch (error) {
    formStatus.classList.add('error');
    formStatus.textContent = `The import stopped: ${describeError(error)}`;
    finishedListener(null);
  } finally {
    running = null;
    setRunning(false);
    takeWaiting();
  }
}

async function cancelImport(): Promise<void> {
  if (!running) return;
  cancelButton.disabled = true;
  progress.stopping('Stopping after the current document');
  try {
    await running.cancel();
  } catch (error) {
    formStatus.classList.add('error');
    formStatus.textContent = describeError(error);
  }
}

async function choose(folders: boolean): Promise<void> {
  try {
    addImportSources(await chooseImportSources(folders));
  } catch (error) {
    formStatus.classList.add('error');
    formStatus.textContent = describeError(error);
  }
}

/** The import panel (the same element every time). */
export function importPanel(): HTMLElement {
  if (panel) return panel;
  const form = el(
    'form',
    { class: 'import-form', id: 'import-form' },
    el('label', { for: 'import-corpus' }, 'Corpus'),
    corpusInput,
    corpusNames,
    el('label', { for: 'import-sources' }, 'Sources'),
    sourcesBox,
    el('div', { class: 'buttons' }, addFilesButton, addFoldersButton, el('span', { class: 'spacer' }), startButton, cancelButton),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void startImport();
  });
  addFilesButton.addEventListener('click', () => void choose(false));
  addFoldersButton.addEventListener('click', () => void choose(true));
  cancelButton.addEventListener('click', () => void cancelImport());

  panel = el(
    'section',
    { class: 'panel import-panel', 'aria-labelledby': 'import-heading' },
    el('h2', { id: 'import-heading' }, 'Import'),
    el(
      'p',
      { class: 'hint' },
      'Text, Markdown, HTML, JSONL, CSV and PDF files, web archives (WARC, WACZ), whole folders, or web pages. ',
      'Drop files on the window to add them here.',
    ),
    form,
    formStatus,
    waitingNote,
    progressBox,
    progress.failures,
    summaryBox,
  );
  return panel;
}
