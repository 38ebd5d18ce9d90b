// Small pieces every view uses: error text, status lines, in-app links and key/value lists.

import { asCommandError } from '../api';
import { el, type Child } from '../dom';
import { navigate } from '../router';

/** A failed call as one line for the user: its message and, in brackets, its code. */
export function describeError(error: unknown): string {
  const { code, message } = asCommandError(error);
  return `${message} (${code})`;
}

/** A status line; `role="status"` so screen readers announce changes. */
export function statusLine(id?: string): HTMLParagraphElement {
  return el('p', { class: 'status', id, role: 'status' });
}

/** Shows an error in a status line. */
export function showError(line: HTMLElement, error: unknown): void {
  line.classList.add('error');
  line.textContent = describeError(error);
}

/** A button that goes to a place in the app (never to an address from the data). */
export function linkButton(label: Child | Child[], hash: string, attributes: Record<string, string> = {}): HTMLButtonElement {
  const button = el('button', { type: 'button', class: 'link', ...attributes }, ...(Array.isArray(label) ? label : [label]));
  button.addEventListener('click', () => navigate(hash));
  return button;
}

/** A definition list of label/value rows; rows with an empty value are left out. */
export function facts(rows: Array<[string, Child]>, className = 'facts'): HTMLDListElement {
  const list = el('dl', { class: className });
  for (const [label, value] of rows) {
    if (value === null || value === undefined || value === false || value === '') continue;
    list.append(el('dt', {}, label), el('dd', {}, value));
  }
  return list;
}
