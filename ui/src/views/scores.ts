// Scores: structured summaries of one question scored with SGSS. Paste a summary (Markdown:
// overview, `## ` headings, `- ` statements, `[n]` citations) with its question to keep it;
// pick a question to compare its summaries: each summary's lines with their labels, each label
// a button that cycles unlabelled → perfectly → partially → not (or, focused, keys 2 / 1 / 0,
// Delete to clear), and beside them the scores (XUX, XUX_F, XUX_G, Comp, SGSS), every
// summary's X(l) curve on one line chart and, with two or more summaries, each summary's share
// of the pooled sections as a pie. Every label is stored with who gave it and the scores are
// computed again. Route: `#/scores`.

import {
  SCORE_CHOICES,
  addSummary,
  labelSummary,
  listSummaryQuestions,
  scoreQuestion,
  type ElementLabel,
  type QuestionScores,
  type SummaryScore,
  type SummaryView,
} from '../api';
import { el, replace } from '../dom';
import type { RouteContext } from '../router';
import { describeError, facts, showError, statusLine } from './common';

const COLOURS = ['#1f5fa8', '#b4451f', '#2e7d32', '#7b3fa0', '#8a6d00', '#00707a'];
const colour = (index: number): string => COLOURS[index % COLOURS.length] ?? '#1f5fa8';
const SVG = 'http://www.w3.org/2000/svg';

/**
 * The grades a label cycles through, in order; `null` is "not labelled". SGSS's grades, their
 * words and their keys are the core's (`SCORE_CHOICES`).
 */
const CYCLE: Array<number | null> = [null, ...SCORE_CHOICES.grades.map((grade) => grade.value)];
const WORDS = new Map<number | null, string>([[null, 'unlabelled'], ...SCORE_CHOICES.grades.map((grade) => [grade.value, grade.word] as const)]);
const KEYS = new Map<string, number | null>([
  ...SCORE_CHOICES.grades.map((grade) => [grade.key, grade.value] as const),
  ['Delete', null],
  ['Backspace', null],
]);

let view: HTMLElement | null = null;
let shown: QuestionScores | null = null;

const questionBox = el('input', { id: 'scores-question', type: 'text', placeholder: 'The question the summaries answer' });
const nameBox = el('input', { id: 'scores-name', type: 'text', placeholder: 'Name (optional)' });
const textBox = el('textarea', {
  id: 'scores-text',
  rows: 7,
  placeholder: 'Overview first, then "## Heading" lines and "- statement" lines; [1] cites document 1.',
});
const addButton = el('button', { type: 'submit', id: 'scores-add', class: 'primary' }, 'Keep the summary');
const addStatus = statusLine('scores-add-status');
const questionSelect = el('select', { id: 'scores-questions' });
const status = statusLine('scores-status');
const table = el('div', { id: 'scores-table' });
const chart = el('div', { id: 'scores-chart' });
const pies = el('div', { id: 'scores-pies', class: 'pies' });
const cards = el('div', { id: 'scores-summaries', class: 'summary-cards' });
const resultPanel = el(
  'section',
  { class: 'panel', id: 'scores-result', 'aria-labelledby': 'scores-result-heading', hidden: true },
  el('h2', { id: 'scores-result-heading' }, 'Scores'),
  table,
  el('h3', {}, 'X(l): the experience of a reader who stops after line l'),
  chart,
  pies,
  el('h3', {}, 'Labels'),
  el('p', { class: 'hint' }, 'Click a label to cycle it (unlabelled, perfectly, partially, not), or focus it and press 2, 1 or 0; Delete clears it.'),
  cards,
);

/** An SVG element with attributes (numbers and colours only, never text from the data). */
function svg(tag: string, attributes: Record<string, string | number>, ...children: Array<Node | string>): SVGElement {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  for (const child of children) node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  return node;
}

function figure(value: number | null): string {
  return value === null ? 'n/a' : value.toFixed(3);
}

function drawTable(scores: SummaryScore[]): void {
  const rows = scores.map((score, index) =>
    el(
      'tr',
      { 'data-summary': index },
      el('td', {}, el('span', { class: `key key-${index % COLOURS.length}` }), score.file),
      el('td', { class: 'number' }, String(score.lines)),
      el('td', { class: 'number xux' }, figure(score.xux)),
      el('td', { class: 'number' }, figure(score.xux_f)),
      el('td', { class: 'number' }, figure(score.xux_g)),
      el('td', { class: 'number comp' }, figure(score.comp)),
      el('td', { class: 'number sgss' }, figure(score.sgss)),
    ),
  );
  replace(
    table,
    el(
      'table',
      { class: 'figures' },
      el('thead', {}, el('tr', {}, ...['Summary', 'Lines', 'XUX', 'XUX_F', 'XUX_G', 'Comp', 'SGSS'].map((h) => el('th', {}, h)))),
      el('tbody', {}, ...rows),
    ),
  );
}

function drawChart(scores: SummaryScore[]): void {
  const width = 560;
  const height = 220;
  const [left, top, plotW, plotH] = [40, 10, 500, 180];
  const lines = Math.max(2, ...scores.map((score) => score.x.length));
  const highest = Math.max(1, ...scores.flatMap((score) => score.x));
  const xOf = (l: number): number => left + (plotW * (l - 1)) / (lines - 1);
  const yOf = (v: number): number => top + plotH * (1 - Math.min(Math.max(v, 0), highest) / highest);
  const parts: SVGElement[] = [];
  for (let k = 0; k <= 4; k += 1) {
    const value = (highest * k) / 4;
    parts.push(svg('line', { x1: left, x2: left + plotW, y1: yOf(value), y2: yOf(value), class: 'grid-line' }));
    parts.push(svg('text', { x: 4, y: yOf(value) + 4, class: 'chart-label muted' }, value.toFixed(2)));
  }
  const step = Math.max(1, Math.ceil(lines / 10));
  for (let l = 1; l <= lines; l += step) {
    parts.push(svg('text', { x: xOf(l) - 3, y: height - 10, class: 'chart-label muted' }, String(l)));
  }
  scores.forEach((score, index) => {
    const points = score.x.map((value, l) => `${xOf(l + 1).toFixed(1)},${yOf(value).toFixed(1)}`).join(' ');
    parts.push(
      svg('polyline', {
        class: 'curve',
        'data-summary': index,
        fill: 'none',
        stroke: colour(index),
        'stroke-width': 2,
        points,
      }),
    );
  });
  replace(chart, svg('svg', { role: 'img', 'aria-label': 'X(l) of each summary', width, height, viewBox: `0 0 ${width} ${height}` }, ...parts));
}

/** Each summary's distribution over the pooled sections (Comp's F), as a pie. */
function drawPies(scores: SummaryScore[], summaries: SummaryView[]): void {
  const pooled: string[] = summaries.flatMap((summary) =>
    summary.lines.filter((line) => line.kind === 'heading').map((line) => `${line.text} (${summary.name})`),
  );
  const drawn = scores
    .map((score, index) => {
      if (!score.pool) return null;
      const r = 50;
      const slices: SVGElement[] = [];
      let angle = -Math.PI / 2;
      score.pool.forEach((share, k) => {
        if (share <= 0) return;
        if (share >= 0.9999) {
          slices.push(svg('circle', { cx: r, cy: r, r, fill: colour(k) }));
          return;
        }
        const end = angle + share * 2 * Math.PI;
        const large = share > 0.5 ? 1 : 0;
        const [x1, y1] = [r + r * Math.cos(angle), r + r * Math.sin(angle)];
        const [x2, y2] = [r + r * Math.cos(end), r + r * Math.sin(end)];
        slices.push(svg('path', { d: `M${r},${r} L${x1.toFixed(2)},${y1.toFixed(2)} A${r},${r} 0 ${large} 1 ${x2.toFixed(2)},${y2.toFixed(2)} Z`, fill: colour(k) }));
        angle = end;
      });
      return el(
        'figure',
        { class: 'pie', 'data-summary': index },
        svg('svg', { role: 'img', 'aria-label': `Pooled sections of ${score.file}`, width: 2 * r, height: 2 * r, viewBox: `0 0 ${2 * r} ${2 * r}` }, ...slices),
        el('figcaption', {}, `${score.file}: Comp ${figure(score.comp)}`),
      );
    })
    .filter((node): node is HTMLElement => node !== null);
  if (drawn.length === 0) {
    replace(pies, el('p', { class: 'hint' }, 'Comp compares two or more summaries of the question.'));
    return;
  }
  const legend = el(
    'ul',
    { class: 'legend' },
    ...pooled.map((name, k) => el('li', {}, el('span', { class: `key key-${k % COLOURS.length}` }), name)),
  );
  replace(pies, el('h3', {}, 'Share of the pooled sections (Comp)'), ...drawn, legend);
}

function labelButton(summary: SummaryView, label: ElementLabel): HTMLButtonElement {
  const word = WORDS.get(label.grade) ?? String(label.grade);
  const button = el(
    'button',
    {
      type: 'button',
      class: 'label',
      'data-element': label.element,
      'data-grade': word,
      title: label.labeller ? `${word}, by ${label.labeller}${label.why ? `: ${label.why}` : ''}` : 'not labelled yet',
    },
    `${label.criterion}: ${word}`,
  );
  const set = (grade: number | null): void => {
    button.disabled = true;
    labelSummary(summary.id, label.element, grade)
      .then(() => refresh(summary.id, label.element))
      .catch((error) => {
        showError(status, error);
        button.disabled = false;
      });
  };
  button.addEventListener('click', () => {
    const next = CYCLE[(CYCLE.indexOf(label.grade) + 1) % CYCLE.length] ?? null;
    set(next);
  });
  button.addEventListener('keydown', (event) => {
    const grade = KEYS.get(event.key);
    if (grade === undefined) return;
    event.preventDefault();
    set(grade);
  });
  return button;
}

function drawCards(summaries: SummaryView[], scores: SummaryScore[]): void {
  replace(
    cards,
    ...summaries.map((summary, index) => {
      const score = scores[index];
      const lines = summary.lines.map((line, l) =>
        el(
          'li',
          { class: `line line-${line.kind}` },
          el('span', { class: 'line-text' }, line.kind === 'heading' ? `## ${line.text}` : line.text),
          line.citations.length > 0 ? el('span', { class: 'citations' }, ` [${line.citations.join(', ')}]`) : null,
          el('span', { class: 'x' }, score ? ` X = ${figure(score.x[l] ?? null)}` : ''),
          line.labels.length > 0 ? el('div', { class: 'labels' }, ...line.labels.map((label) => labelButton(summary, label))) : null,
        ),
      );
      return el(
        'article',
        { class: 'summary-card', 'data-summary': summary.id },
        el('h4', {}, el('span', { class: `key key-${index % COLOURS.length}` }), summary.name),
        el('ol', { class: 'summary-lines' }, ...lines),
        summary.pool.length > 0
          ? el('div', { class: 'pool' }, el('h5', {}, 'Covers the other summaries’ sections (Comp)'), el('div', { class: 'labels' }, ...summary.pool.map((label) => labelButton(summary, label))))
          : null,
        score && score.missing.length > 0 ? el('p', { class: 'hint missing' }, `Not labelled (counted 0): ${score.missing.length}`) : null,
      );
    }),
  );
}

function draw(scored: QuestionScores): void {
  shown = scored;
  drawTable(scored.scores);
  drawChart(scored.scores);
  drawPies(scored.scores, scored.summaries);
  drawCards(scored.summaries, scored.scores);
  resultPanel.hidden = false;
}

/** Scores the chosen question again; keeps focus on the label just changed. */
async function refresh(id?: number, element?: string): Promise<void> {
  const question = questionSelect.value;
  if (!question) {
    resultPanel.hidden = true;
    return;
  }
  status.classList.remove('error');
  try {
    draw(await scoreQuestion(question));
    status.textContent = `${shown?.summaries.length ?? 0} summary(ies) of this question.`;
    if (id !== undefined && element !== undefined) {
      const again = cards.querySelector<HTMLButtonElement>(`article[data-summary="${id}"] button[data-element="${CSS.escape(element)}"]`);
      again?.focus();
    }
  } catch (error) {
    showError(status, error);
  }
}

async function loadQuestions(chosen?: string): Promise<void> {
  const questions = await listSummaryQuestions();
  const keep = chosen ?? questionSelect.value;
  replace(
    questionSelect,
    el('option', { value: '' }, questions.length === 0 ? 'No summaries yet' : 'Choose a question'),
    ...questions.map((entry) => el('option', { value: entry.question, selected: entry.question === keep }, `${entry.question} (${entry.summaries})`)),
  );
}

async function add(): Promise<void> {
  addStatus.classList.remove('error');
  addButton.disabled = true;
  try {
    const kept = await addSummary(questionBox.value, nameBox.value, textBox.value);
    addStatus.textContent = `Kept “${kept.name}” (${kept.lines.length} lines).`;
    textBox.value = '';
    nameBox.value = '';
    await loadQuestions(kept.question);
    await refresh();
  } catch (error) {
    showError(addStatus, error);
  } finally {
    addButton.disabled = false;
  }
}

function build(): HTMLElement {
  const form = el(
    'form',
    { id: 'scores-form', class: 'panel' },
    el('h2', {}, 'Add a structured summary'),
    el('div', { class: 'row' }, el('label', { for: 'scores-question' }, 'Question'), questionBox),
    el('div', { class: 'row' }, el('label', { for: 'scores-name' }, 'Name'), nameBox),
    el('label', { for: 'scores-text' }, 'Summary (Markdown or JSON)'),
    textBox,
    el('div', { class: 'actions' }, addButton),
    addStatus,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void add();
  });
  questionSelect.addEventListener('change', () => void refresh());
  const chooser = el(
    'section',
    { class: 'panel' },
    el('div', { class: 'row' }, el('label', { for: 'scores-questions' }, 'Compare the summaries of'), questionSelect),
    status,
    facts([['Weights', `SGSS defaults (overview 1/3 each, heading 1, statement relevance and faithfulness 1/2, Comp 1); L_max ${SCORE_CHOICES.config.l_max}`]]),
  );
  return el('div', { id: 'scores-view' }, el('h1', {}, 'Scores'), form, chooser, resultPanel);
}

export async function renderScores({ outlet, signal }: RouteContext): Promise<void> {
  view ??= build();
  replace(outlet, view);
  try {
    await loadQuestions();
    if (signal.aborted) return;
    await refresh();
  } catch (error) {
    if (!signal.aborted) status.textContent = describeError(error);
  }
}
