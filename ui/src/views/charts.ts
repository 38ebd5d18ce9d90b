// Small SVG charts for the collection dashboard, drawn by hand (a few rectangles and labels
// each) rather than with a charting library: three chart shapes do not pay for a dependency,
// the window's content security policy refuses inline styles (which most libraries set), and
// the HTML report draws the same shapes in Rust (crates/factdesk-report/src/charts.rs). Nodes
// are made with createElementNS and text set as text; colours come from classes (style.css),
// so the charts follow the light and dark themes. Every shape carries its count in
// `data-count` and a <title> shown on hover; each chart has a title for screen readers and the
// view gives the same numbers as text beside it.

const SVG = 'http://www.w3.org/2000/svg';

type Attributes = Record<string, string | number>;

/** An SVG element with attributes (never `style` or event handlers) and children. */
function svgElement<K extends keyof SVGElementTagNameMap>(tag: K, attributes: Attributes, ...children: (Node | string)[]): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (/^on|^style$|href$/i.test(name)) throw new Error(`svgElement(): the attribute ${name} is not allowed`);
    node.setAttribute(name, String(value));
  }
  for (const child of children) node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  return node;
}

/** The chart's frame: a sized, scalable <svg role="img"> with a title. */
function frame(className: string, width: number, height: number, title: string): SVGSVGElement {
  return svgElement('svg', { class: `chart ${className}`, viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': title }, svgElement('title', {}, title));
}

function rect(className: string, x: number, y: number, width: number, height: number, count: number, title: string): SVGRectElement {
  return svgElement(
    'rect',
    { class: className, x: x.toFixed(1), y: y.toFixed(1), width: Math.max(0, width).toFixed(1), height: Math.max(0, height).toFixed(1), 'data-count': count },
    svgElement('title', {}, title),
  );
}

function label(x: number, y: number, anchor: 'start' | 'middle' | 'end', text: string, className = 'chart-label'): SVGTextElement {
  return svgElement('text', { class: className, x: x.toFixed(1), y: y.toFixed(1), 'text-anchor': anchor }, text);
}

/** One bar of a horizontal bar chart. */
export interface HorizontalBar {
  label: string;
  count: number;
  /** Classes of the bar (its colour). */
  className: string;
}

/** A horizontal bar chart: a label, a bar and its count per row. */
export function horizontalBars(title: string, bars: HorizontalBar[], className = 'bars'): SVGSVGElement {
  const width = 520;
  const labels = 180;
  const row = 20;
  const most = Math.max(1, ...bars.map((bar) => bar.count));
  const scale = (width - labels - 44) / most;
  const svg = frame(className, width, bars.length * row + 8, title);
  bars.forEach((bar, index) => {
    const y = index * row + 4;
    svg.append(
      label(labels - 6, y + 14, 'end', bar.label),
      rect(`bar ${bar.className}`, labels, y + 3, bar.count * scale, row - 6, bar.count, `${bar.label}: ${bar.count.toLocaleString()}`),
      label(labels + bar.count * scale + 4, y + 14, 'start', bar.count.toLocaleString(), 'chart-label muted'),
    );
  });
  return svg;
}

/** One column of a stacked column chart: its label and its parts, bottom first. */
export interface StackedColumn {
  label: string;
  /** Whether to write the label under the column (to keep labels apart). */
  showLabel: boolean;
  parts: Array<{ count: number; className: string; name: string }>;
}

/** A stacked column chart, its scale's top written at the left, a legend under it. */
export function stackedColumns(title: string, columns: StackedColumn[], legend: string, className = 'columns'): SVGSVGElement {
  const width = 520;
  const height = 200;
  const left = 34;
  const bottom = 38;
  const plot = height - bottom - 8;
  const most = Math.max(1, ...columns.map((column) => column.parts.reduce((sum, part) => sum + part.count, 0)));
  // Columns at most 48 units wide, so that a few days do not make a wall.
  const step = Math.min(48, (width - left - 4) / Math.max(1, columns.length));
  const svg = frame(className, width, height, title);
  svg.append(label(left - 4, 16, 'end', most.toLocaleString(), 'chart-label muted'), label(left - 4, 8 + plot, 'end', '0', 'chart-label muted'));
  svg.append(svgElement('line', { class: 'axis', x1: left, y1: 8 + plot + 0.5, x2: width - 4, y2: 8 + plot + 0.5 }));
  columns.forEach((column, index) => {
    const x = left + index * step;
    let top = 8 + plot;
    for (const part of column.parts) {
      const size = (part.count / most) * plot;
      top -= size;
      svg.append(rect(`bar ${part.className}`, x + 1.5, top, step - 3, size, part.count, `${column.label}: ${part.count.toLocaleString()} ${part.name}`));
    }
    if (column.showLabel) svg.append(label(x + step / 2, 8 + plot + 14, 'middle', column.label, 'chart-label muted'));
  });
  svg.append(label(left, height - 6, 'start', legend, 'chart-label muted'));
  return svg;
}
