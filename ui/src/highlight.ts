// Builds a snippet with its highlighted words as DOM nodes. Snippets come from fetched web
// pages, so they are only ever set as text (`textContent`), never parsed as HTML.

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

/**
 * Appends `snippet` to `parent`, wrapping each `[start, end)` range in a `<mark>`. The ranges
 * are UTF-8 byte offsets (as the Rust side reports them), so the snippet is sliced as bytes
 * and each piece decoded back to a string. Ranges that overlap, run backwards or fall outside
 * the snippet are skipped or clamped rather than trusted.
 */
export function appendHighlighted(
  parent: Node,
  snippet: string,
  highlights: ReadonlyArray<readonly [number, number]>,
): void {
  const bytes = encoder.encode(snippet);
  const text = (from: number, to: number): string => decoder.decode(bytes.subarray(from, to));
  const ranges = [...highlights].sort((a, b) => a[0] - b[0]);

  let cursor = 0;
  for (const [rawStart, rawEnd] of ranges) {
    const start = Math.max(cursor, Math.min(rawStart, bytes.length));
    const end = Math.min(rawEnd, bytes.length);
    if (end <= start) continue;
    if (start > cursor) parent.appendChild(document.createTextNode(text(cursor, start)));
    const mark = document.createElement('mark');
    mark.textContent = text(start, end);
    parent.appendChild(mark);
    cursor = end;
  }
  if (cursor < bytes.length) parent.appendChild(document.createTextNode(text(cursor, bytes.length)));
}
