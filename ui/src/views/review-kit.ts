/**
 * What the two review modes share: review mode over a collection's verdicts (`review.ts`)
 * and over one outcome's items, a revision's edits or a summary's sources
 * (`outcome-review.ts`). The reviewer's name and the position kept in local storage, the
 * key hints on the bar's buttons, and when a key press is the review's to take.
 */
import { el } from '../dom';

/** The reviewer's name, kept for the next review (also across restarts), in both modes. */
export const REVIEWER_KEY = 'factdesk.review.reviewer';

export function readStored(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function writeStored(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Storage refused (full, or disabled): the position is simply not kept.
  }
}

/** A key as shown in hints. */
export function kbd(key: string): HTMLElement {
  return el('kbd', {}, key);
}

/** A bar button with its key as a hint; `shortcut` is its `aria-keyshortcuts` value. */
export function keyButton(id: string, label: string, key: string, shortcut: string, primary = false): HTMLButtonElement {
  return el('button', { type: 'button', id, class: primary ? 'primary' : undefined, 'aria-keyshortcuts': shortcut }, el('span', { class: 'label' }, label), ' ', kbd(key));
}

/** Whether a key press is the review's: not with a modifier, not while the key list is
 * open, not typed into a field (its keys are its own), not Enter or Space on a focused
 * button (which takes them itself). */
export function reviewTakes(event: KeyboardEvent, keyList: HTMLDialogElement): boolean {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return false;
  if (keyList.open) return false;
  const target = event.target instanceof Element ? event.target : null;
  if (target?.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]')) return false;
  return !(target?.closest('button') && (event.key === 'Enter' || event.key === ' '));
}

/** Esc in `field` runs `then` rather than leaving the review. */
export function onEscape(field: HTMLElement, then: () => void): void {
  field.addEventListener('keydown', (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      then();
    }
  });
}
