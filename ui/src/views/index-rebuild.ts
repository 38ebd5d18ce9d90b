// The rebuild of the search index when the app starts on a data directory whose index is of an
// older layout (or whose last rebuild was interrupted): started once as the window opens, it
// runs as a long task and shows its progress at the top of the Library, as an import does:
// detecting the languages of documents stored before languages were, then indexing them. Until
// it ends, searches find only what it has indexed so far. Nothing is shown when no rebuild is
// pending. Cancel stops it between steps; the next start goes on from there.

import { finishIndexRebuild, type IndexRebuild, type RunningTask } from '../api';
import { el } from '../dom';
import { describeError } from './common';
import { TaskProgressView } from './task-progress';

let running: RunningTask<IndexRebuild | null> | null = null;

const progress = new TaskProgressView({
  barId: 'index-rebuild-progress',
  failuresId: 'index-rebuild-failures',
  amount: (done, total) => (total === null ? `${done.toLocaleString()} documents` : `${done.toLocaleString()} of ${total.toLocaleString()} documents`),
});
const cancelButton = el('button', { type: 'button', id: 'index-rebuild-cancel' }, 'Cancel');
const status = el('p', { class: 'status', id: 'index-rebuild-status', role: 'status' });
const panel = el(
  'section',
  { class: 'panel index-rebuild', id: 'index-rebuild', 'aria-labelledby': 'index-rebuild-heading', hidden: true },
  el('h2', { id: 'index-rebuild-heading' }, 'Rebuilding the search index'),
  el('p', { class: 'hint' }, 'This version of Factdesk indexes text by its language. Until the rebuild ends, searches find only what it has indexed so far.'),
  progress.panel(cancelButton),
  status,
);

/** What a finished rebuild did, in words. */
function describe(done: IndexRebuild): string {
  const detected = done.languages_detected > 0 ? `, ${done.languages_detected.toLocaleString()} of them given their language` : '';
  const indexed = `${done.documents.toLocaleString()} documents (${done.sentences.toLocaleString()} sentences) indexed${detected}`;
  return done.complete ? `The search index is rebuilt: ${indexed}.` : `Stopped: ${indexed}; the rest is done the next time Factdesk starts.`;
}

/** Starts the rebuild if one is pending (once; later calls do nothing). */
export function startIndexRebuild(): void {
  if (running) return;
  progress.start();
  const progressBox = panel.querySelector<HTMLElement>('.import-progress');
  running = finishIndexRebuild((message) => {
    // The first message says a rebuild is under way: show it.
    show();
    if (progressBox) progressBox.hidden = false;
    progress.onProgress(message);
  });
  cancelButton.addEventListener('click', () => {
    cancelButton.disabled = true;
    progress.stopping('Stopping after this step…');
    running?.cancel().catch((error: unknown) => {
      status.classList.add('error');
      status.textContent = describeError(error);
    });
  });
  running.done.then(
    (done) => {
      if (done === null) return;
      show();
      if (progressBox) progressBox.hidden = true;
      status.textContent = describe(done);
    },
    (error: unknown) => {
      show();
      if (progressBox) progressBox.hidden = true;
      status.classList.add('error');
      status.textContent = `The search index could not be rebuilt: ${describeError(error)}`;
    },
  );
}

/**
 * Shows the panel, at the top of the Library if the Library is open (else it is placed there
 * when the Library is drawn next).
 */
function show(): void {
  panel.hidden = false;
  if (!panel.isConnected) document.querySelector('.library-main')?.prepend(panel);
}

/**
 * The rebuild's panel for the Library (the same element every time), or null when no rebuild
 * ran: kept out of the page until then, so that the import's progress is the only one there.
 */
export function indexRebuildPanel(): HTMLElement | null {
  return panel.hidden ? null : panel;
}
