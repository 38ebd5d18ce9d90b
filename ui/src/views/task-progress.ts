// The progress of a long task as the user sees it: the phase and how far it got, a progress bar
// (indeterminate while the total is unknown), the item being worked on, and the items that
// failed. The import panel and the batch of checks each keep one.

import type { TaskProgress } from '../api';
import { el, type Child } from '../dom';

type Unit = 'items' | 'bytes';

export interface TaskProgressOptions {
  /** Element ids, for the window tests. */
  barId: string;
  failuresId: string;
  itemId?: string;
  /** How far the phase got: `done` of `total` (null while unknown), counted in `unit`. */
  amount: (done: number, total: number | null, unit: Unit) => string;
  /** The phase's name as shown. */
  phaseName?: (name: string) => string;
}

export class TaskProgressView {
  readonly phase = el('span', { class: 'phase' });
  readonly amount = el('span', { class: 'amount' });
  readonly bar: HTMLProgressElement;
  readonly item: HTMLParagraphElement;
  readonly failures: HTMLUListElement;
  private total: number | null = null;
  private unit: Unit = 'items';

  constructor(private readonly options: TaskProgressOptions) {
    // The bar is named by the phase and the amount next to it ("Importing 3 MB of 40 MB").
    this.phase.id = `${options.barId}-phase`;
    this.amount.id = `${options.barId}-amount`;
    this.bar = el('progress', { id: options.barId, 'aria-labelledby': `${this.phase.id} ${this.amount.id}` });
    this.item = el('p', { class: 'current-item', id: options.itemId });
    this.failures = el('ul', { class: 'failures', id: options.failuresId });
  }

  /**
   * The box that shows the task while it runs (hidden until then): phase and amount, the bar,
   * the current item, then `extra` (a Cancel button). The failures list is placed by the caller.
   */
  panel(...extra: Child[]): HTMLDivElement {
    return el('div', { class: 'import-progress', hidden: true }, el('p', {}, this.phase, ' ', this.amount), this.bar, this.item, ...extra);
  }

  /** Empties the view for a task about to start. */
  start(): void {
    this.failures.replaceChildren();
    this.total = null;
    this.phase.textContent = 'Starting';
    this.amount.textContent = '';
    this.item.textContent = '';
    this.bar.removeAttribute('value');
  }

  /** Shows what happens after Cancel. */
  stopping(text: string): void {
    this.phase.textContent = text;
  }

  /** Takes one message of the task's progress channel. */
  readonly onProgress = (message: TaskProgress): void => {
    switch (message.event) {
      case 'phase':
        this.total = message.total;
        this.unit = message.unit;
        this.phase.textContent = this.options.phaseName?.(message.name) ?? message.name;
        this.amount.textContent = this.options.amount(0, this.total, this.unit);
        if (message.total === null || message.total === 0) {
          this.bar.removeAttribute('value'); // indeterminate
        } else {
          this.bar.max = message.total;
          this.bar.value = 0;
        }
        break;
      case 'progress':
        if (this.total) this.bar.value = Math.min(message.done, this.total);
        this.amount.textContent = this.options.amount(message.done, this.total, this.unit);
        if (message.item !== null) this.item.textContent = message.item;
        break;
      case 'item_failed':
        this.failures.append(el('li', {}, el('span', { class: 'item' }, message.item), ': ', message.message));
        break;
      case 'finished':
        this.item.textContent = '';
        break;
    }
  };
}
