// Building DOM nodes without HTML. Everything the UI shows from the data (document text,
// titles, URLs, claims, error messages) reaches the page through `el()` and `text()`, which
// only ever create text nodes; nothing in the UI parses a string as HTML (no `innerHTML`,
// `insertAdjacentHTML` or `outerHTML`). Attributes that could run code or load something
// (`on*`, `href`, `src`, `style`, ...) are refused outright, so a URL taken from a page can
// never become a link or an image by mistake.

/** A child of `el()`: a node, or a string shown as text. `null`/`false` are skipped. */
export type Child = Node | string | null | undefined | false;

const REFUSED_ATTRIBUTES = /^(on|href$|src|srcset$|style$|action$|formaction$|xlink:|srcdoc$)/i;

/**
 * The blocks that hold text from the data (sentences, claims, snippets, cells). Documents and
 * claims come in any language, so each such block takes its direction from its first letter
 * (`dir="auto"`): Arabic or Hebrew reads right to left and is aligned right, English is
 * unchanged. A block given a `dir` keeps it.
 */
const TEXT_BLOCKS = new Set(['p', 'li', 'td', 'th', 'blockquote', 'h1', 'h2', 'h3', 'dd']);

/**
 * Creates `<tag>` with the given attributes and children. Attribute values are set with
 * `setAttribute` (never parsed); `class` takes a space-separated list.
 */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (TEXT_BLOCKS.has(tag) && !('dir' in attributes)) node.dir = 'auto';
  for (const [name, value] of Object.entries(attributes)) {
    if (REFUSED_ATTRIBUTES.test(name)) throw new Error(`el(): the attribute ${name} is not allowed`);
    if (value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  append(node, ...children);
  return node;
}

/** Appends children to `parent`, strings as text nodes. */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

/** Replaces the children of `parent`. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** A text node (for places where a `Node` is needed). */
export function text(value: string): Text {
  return document.createTextNode(value);
}

/** "1 document", "3 documents". */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? singular : plural}`;
}

/**
 * A timestamp (RFC 3339) as "YYYY-MM-DD HH:MM" in this computer's time zone (the store keeps
 * UTC); a timestamp without a zone as it is written; anything else (a date) unchanged.
 */
export function shortTime(value: string | null | undefined): string {
  if (!value) return '';
  const match = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/i.exec(value);
  if (!match) return value;
  // Seconds kept, fractions dropped: engines differ on more than three fraction digits.
  const instant = match[5] ? new Date(`${match[1]}T${match[2]}${(match[3] ?? ':00').slice(0, 3)}${match[5]}`) : null;
  if (!instant || Number.isNaN(instant.getTime())) return `${match[1]} ${match[2]}`;
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${instant.getFullYear()}-${two(instant.getMonth() + 1)}-${two(instant.getDate())} ` +
    `${two(instant.getHours())}:${two(instant.getMinutes())}`
  );
}

/**
 * `shortTime` for a table cell: the line may break between the date and the time, never inside
 * the date.
 */
export function shortTimeCell(value: string | null | undefined): Child[] {
  const shown = shortTime(value);
  if (!shown) return [];
  const space = shown.indexOf(' ');
  if (space < 0) return [el('span', { class: 'nowrap' }, shown)];
  return [el('span', { class: 'nowrap' }, shown.slice(0, space)), shown.slice(space)];
}

/** A byte count in B, KB, MB or GB. */
export function bytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
