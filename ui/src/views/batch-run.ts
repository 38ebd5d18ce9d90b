// The running batch of checks (one at a time in the window): its progress bar, the claim being
// checked, the claims that failed, a Cancel button and the summary once it ends. Like the
// import panel, the box is built once and kept, so a batch started in Check or in Collections
// goes on showing its progress when the user comes back; a view shows it only when it is
// about the collection being checked.

import { verifyCollection, type BatchSummary, type RunningTask, type VerifyOptions } from '../api';
import { count, el, replace } from '../dom';
import { describeError } from './common';
import { undecidedName, verdictPhrase } from './checks';
import { TaskProgressView } from './task-progress';

let running: RunningTask<BatchSummary> | null = null;
/** The collection of the running batch, or of the last one. */
let shownCollection: string | null = null;
const finishedListeners = new Set<(collection: string, summary: BatchSummary | null) => void>();

const progress = new TaskProgressView({
  barId: 'batch-progress',
  itemId: 'batch-item',
  failuresId: 'batch-failures',
  amount: (done, total) => (total === null ? count(done, 'claim') : `${done.toLocaleString()} of ${count(total, 'claim')}`),
  phaseName: (name) => name.charAt(0).toUpperCase() + name.slice(1),
});
const cancelButton = el('button', { type: 'button', id: 'batch-cancel' }, 'Cancel');
const progressBox = progress.panel(el('div', { class: 'buttons' }, cancelButton));
const summaryBox = el('div', { class: 'import-summary', id: 'batch-summary', role: 'status' });
const box = el('div', { class: 'batch-run', id: 'batch-run' }, progressBox, progress.failures, summaryBox);

/** The summary of a finished batch in words. */
export function describeBatch(summary: BatchSummary): string {
  const parts: string[] = [];
  if (summary.resumed) {
    parts.push(`Resumed run ${summary.run_id}: ${count(summary.already_checked, 'claim')} checked before, ${summary.checked.toLocaleString()} now`);
  } else {
    parts.push(`${count(summary.checked, 'claim')} of ${summary.claims.toLocaleString()} checked (run ${summary.run_id}, ${summary.method})`);
    // Only with skip_checked: claims earlier runs checked the same way.
    if (summary.already_checked > 0) parts.push(`${count(summary.already_checked, 'claim')} already checked with these options`);
  }
  if (summary.verdicts.length > 0) {
    parts.push(summary.verdicts.map(([verdict, n]) => `${n.toLocaleString()} ${verdictPhrase(verdict)}`).join(', '));
  }
  if (summary.undecided.length > 0) {
    parts.push(`of which undecided: ${summary.undecided.map(([reason, n]) => `${n.toLocaleString()} ${undecidedName(reason)}`).join(', ')}`);
  }
  if (summary.elsewhere > 0) parts.push(`${count(summary.elsewhere, 'claim')} being checked by another process (the CLI or another window)`);
  if (summary.failed > 0) parts.push(`${summary.failed.toLocaleString()} failed`);
  return `${parts.join('; ')}.`;
}

function showSummary(summary: BatchSummary): void {
  replace(
    summaryBox,
    el('p', { class: summary.cancelled ? 'cancelled' : summary.failed > 0 ? 'failed' : 'done' }, summary.cancelled ? 'Cancelled. ' : 'Done. ', describeBatch(summary)),
    summary.cancelled || summary.failed > 0
      ? el('p', { class: 'hint' }, 'Run the checks again with the same options to resume: claims already checked are skipped.')
      : null,
  );
}

function setRunning(active: boolean): void {
  progressBox.hidden = !active;
  cancelButton.hidden = !active;
  cancelButton.disabled = false;
}

/** The collection a batch is running for, or null. */
export function runningBatch(): string | null {
  return running ? shownCollection : null;
}

/** The progress box, when the running (or last) batch is of `collection`; else null. */
export function batchBox(collection: string): HTMLElement | null {
  return shownCollection === collection ? box : null;
}

/** Calls `listener` after each batch: with its summary when it ran to its end (finished or
 * cancelled), with `null` when it stopped on an error (some claims may be checked). */
export function onBatchFinished(listener: (collection: string, summary: BatchSummary | null) => void): () => void {
  finishedListeners.add(listener);
  return () => finishedListeners.delete(listener);
}

/**
 * Checks the claims of `collection`, showing progress in the box. Answers the summary, or
 * null if a batch is already running; rejects if the batch could not run at all (the box
 * shows why as well).
 */
export async function runBatch(collection: string, options: VerifyOptions): Promise<BatchSummary | null> {
  if (running) return null;
  shownCollection = collection;
  summaryBox.replaceChildren();
  progress.start();
  setRunning(true);
  const current = verifyCollection(collection, options, progress.onProgress);
  running = current;
  let outcome: { summary: BatchSummary } | { error: unknown };
  try {
    outcome = { summary: await current.done };
  } catch (error) {
    outcome = { error };
  } finally {
    running = null;
    setRunning(false);
  }
  if ('error' in outcome) {
    replace(summaryBox, el('p', { class: 'status error' }, `The checks stopped: ${describeError(outcome.error)}`));
  } else {
    showSummary(outcome.summary);
  }
  // After `running` is cleared, so that views drawn again offer to run checks.
  const summary = 'summary' in outcome ? outcome.summary : null;
  for (const listener of finishedListeners) listener(collection, summary);
  if ('error' in outcome) throw outcome.error;
  return outcome.summary;
}

cancelButton.addEventListener('click', async () => {
  if (!running) return;
  cancelButton.disabled = true;
  progress.stopping('Stopping: claims being checked finish, no new one starts');
  try {
    await running.cancel();
  } catch (error) {
    replace(summaryBox, el('p', { class: 'status error' }, describeError(error)));
  }
});
