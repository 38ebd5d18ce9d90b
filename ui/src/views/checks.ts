// Pieces the claim-checking views share: verdict and URL status names and badges, number
// formats, and the form of a check's method and evidence options (the Check view and a
// collection's "Run checks" both use it).

import {
  METHODS,
  URL_STRATEGIES,
  VERDICT_METHODS,
  type Claim,
  type Corpus,
  type Method,
  type MethodInfo,
  type Review,
  type StoredCheck,
  type UrlStatus,
  type UrlStrategy,
  type Undecided,
  type Verdict,
  type VerifyOptions,
  type CheckDefaults,
} from '../api';
import { el, replace } from '../dom';
import { href } from '../router';

export const VERDICT_NAMES: Record<Verdict, string> = {
  supported: 'Supported',
  refuted: 'Refuted',
  not_enough_info: 'Not enough info',
};

/** Why a method could not decide, for people. */
export const UNDECIDED_NAMES: Record<Undecided, string> = {
  no_valid_url: 'no valid URL',
  fetch_failed: 'fetch failed',
  no_evidence: 'no evidence',
  unread_language: 'language not read',
};

export const URL_STATUS_NAMES: Record<UrlStatus, string> = {
  fetched: 'fetched',
  not_found: 'not found',
  invalid: 'not a URL',
  refused: 'refused',
  failed: 'fetch failed',
  skipped: 'not tried',
};

/** One name per verdict method, from the core's list of them (the generated VerdictMethods.ts). */
function methodTable(name: (info: MethodInfo) => string): Record<Method, string> {
  return Object.fromEntries(VERDICT_METHODS.map((info) => [info.method, name(info)])) as Record<Method, string>;
}

/** A method's name alone, for narrow places (filters). */
export const METHOD_SHORT_NAMES = methodTable((info) => info.short_name);

export const METHOD_NAMES = methodTable((info) => info.name);

/** The chosen method's entry in the core's list, if `value` names one. */
function methodInfo(value: string): MethodInfo | undefined {
  return VERDICT_METHODS.find((info) => info.method === value);
}

const URL_STRATEGY_NAMES: Record<UrlStrategy, string> = {
  diverse: 'Diverse',
  controlled: 'Controlled',
  rs: 'Rejection sampling',
};

const URL_STRATEGY_HINTS: Record<UrlStrategy, string> = {
  diverse: 'One prompt asks for up to m different URLs.',
  controlled: 'One URL per sample, m samples.',
  rs: 'The diverse prompt sampled several times; the answer whose URLs lead to most pages is kept.',
};

/** Verdicts inside a sentence: "2 supported, 1 not enough info". */
const VERDICT_PHRASES: Record<Verdict, string> = {
  supported: 'supported',
  refuted: 'refuted',
  not_enough_info: 'not enough info',
};

export function verdictPhrase(verdict: Verdict): string {
  return VERDICT_PHRASES[verdict] ?? verdict;
}

export function verdictName(verdict: string): string {
  return VERDICT_NAMES[verdict as Verdict] ?? verdict;
}

/** Why a method could not decide, for people ("no valid URL"). */
export function undecidedName(reason: string): string {
  return UNDECIDED_NAMES[reason as Undecided] ?? reason;
}

/**
 * A verdict as a badge, with the reason when the method could not decide ("Not enough info ·
 * no valid URL"); `data-verdict` and `data-undecided` carry the raw values.
 */
export function verdictBadge(verdict: Verdict, extraClass = '', undecided?: Undecided | null): HTMLSpanElement {
  const text = undecided ? `${verdictName(verdict)} · ${undecidedName(undecided)}` : verdictName(verdict);
  const classes = `badge verdict verdict-${verdict}${undecided ? ' undecided' : ''} ${extraClass}`.trim();
  return el('span', { class: classes, 'data-verdict': verdict, 'data-undecided': undecided ?? undefined }, text);
}

/** A fraction in [0, 1] as a percentage ("87%"), or a dash when there is none. */
export function percent(value: number | null | undefined, digits = 0): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return `${(value * 100).toFixed(digits)}%`;
}

/** A probability with two decimals. */
export function probability(value: number): string {
  return Number.isFinite(value) ? value.toFixed(2) : '—';
}

/** The verdict that stands: the reviewer's when there is a review, else the machine's. */
export function standingVerdict(check: StoredCheck): Verdict {
  return check.review?.verdict ?? check.check.verdict;
}

/** "Accepted by ana" / "Overridden: Not verified (ana)". */
export function reviewSummary(review: Review): string {
  const who = review.reviewer ? ` by ${review.reviewer}` : '';
  return review.decision === 'accept' ? `Accepted${who}` : `Overridden${who}: ${verdictName(review.verdict)}`;
}

/** The hash of a claim's detail view. */
export function claimHash(claim: Pick<Claim, 'id' | 'collection'>, check?: number): string {
  return href(`/claims/${claim.id}`, { collection: claim.collection, check });
}

/** The method and evidence options of a check, as a group of form fields. */
export interface VerifyOptionsForm {
  element: HTMLElement;
  /** The options chosen, or a message saying which field is wrong. */
  read(): { options: VerifyOptions } | { error: string; field: HTMLElement };
  /** Fills the fields from the settings (`[verify]`, `[methods.<name>]`): the values a check uses by default. */
  setDefaults(settings: CheckDefaults): void;
  /** The corpora corpus-NLI may take evidence from. */
  setCorpora(corpora: Corpus[]): void;
}

function isMethod(value: string): value is Method {
  return (METHODS as string[]).includes(value);
}

function isUrlStrategy(value: string): value is UrlStrategy {
  return (URL_STRATEGIES as string[]).includes(value);
}

/** A labelled row of the options grid. */
function row(label: string, id: string, control: HTMLElement, hint?: string): HTMLDivElement {
  return el(
    'div',
    { class: 'option-row' },
    el('label', { for: id }, label),
    el('div', { class: 'option-control' }, control, hint ? el('p', { class: 'hint' }, hint) : null),
  );
}

/** The options form; `prefix` keeps the element ids of two forms apart. */
export function verifyOptionsForm(prefix: string): VerifyOptionsForm {
  const id = (name: string) => `${prefix}-${name}`;
  const method = el('select', { id: id('method'), name: 'method' }, ...METHODS.map((value) => el('option', { value }, METHOD_NAMES[value])));
  const urls = el('select', { id: id('urls'), name: 'urls' }, ...URL_STRATEGIES.map((value) => el('option', { value }, URL_STRATEGY_NAMES[value])));
  const m = el('input', { id: id('m'), name: 'm', type: 'number', min: 1, max: 50, step: 1, required: true });
  const l = el('input', { id: id('l'), name: 'l', type: 'number', min: 1, max: 100, step: 1, required: true });
  // `step: 'any'`: a configured threshold such as 0.33 is as valid as one on a 0.05 grid.
  const threshold = el('input', { id: id('threshold'), name: 'threshold', type: 'number', min: 0, max: 1, step: 'any', required: true });
  const wholeDocument = el('input', { id: id('whole-document'), name: 'whole_document', type: 'checkbox' });
  const fromLlmCite = el('input', { id: id('from-llm-cite'), name: 'from_llm_cite', type: 'checkbox' });
  const corpusBoxes = el('div', { class: 'corpus-choices' });
  const corpora = el('fieldset', { class: 'corpus-filter', id: id('corpora') }, el('legend', {}, 'Corpora to search'), corpusBoxes);

  const methodHint = el('p', { class: 'hint' });
  const urlsHint = el('p', { class: 'hint' });
  const urlsRow = el('div', { class: 'option-row' }, el('label', { for: id('urls') }, 'URL strategy'), el('div', { class: 'option-control' }, urls, urlsHint));
  const mLabel = el('label', { for: id('m') }, 'Pages per claim (m)');
  const mRow = el('div', { class: 'option-row' }, mLabel, el('div', { class: 'option-control' }, m));
  const wholeRow = el(
    'div',
    { class: 'option-row' },
    el('span', {}, ''),
    el('label', { class: 'checkbox' }, wholeDocument, ' Judge each page’s beginning as a whole (LLM-instructed NLI) instead of sentence premises'),
  );
  const fromLlmCiteRow = el(
    'div',
    { class: 'option-row' },
    el('span', {}, ''),
    el('label', { class: 'checkbox' }, fromLlmCite, ' Judge the pages LLM-Cite read for each claim (from the page archive) instead of your corpora'),
  );
  const corporaRow = el('div', { class: 'option-row' }, el('span', {}, ''), el('div', { class: 'option-control' }, corpora));
  const lRow = row('Sentences per page (l)', id('l'), l, 'The best sentences by BM25 against the claim.');
  const thresholdRow = row('Entailment threshold', id('threshold'), threshold, 'A premise backs the claim when P(entailment) reaches this.');
  const evidence = el(
    'details',
    { class: 'evidence-options', id: id('evidence') },
    el('summary', {}, 'Evidence options'),
    el(
      'div',
      { class: 'options-grid' },
      mRow,
      lRow,
      thresholdRow,
      wholeRow,
      fromLlmCiteRow,
      corporaRow,
    ),
  );

  // Each method has its own m, l and threshold (`[methods.llm-cite]`, `[methods.corpus-nli]`):
  // switching the method puts in the new method's defaults, unless the fields were changed by hand.
  let defaults: CheckDefaults | null = null;
  const evidenceDefaults = (chosen: string): [number, number, number] | null => {
    if (defaults === null) return null;
    if (chosen === 'corpus-nli') {
      const own = defaults.methods['corpus-nli'];
      return [own.documents, own.l, own.threshold];
    }
    if (chosen === 'ciber') {
      // CIBER takes m only; l and the threshold keep corpus-NLI's (their fields are hidden).
      const own = defaults.methods['corpus-nli'];
      return [defaults.methods.ciber.documents, own.l, own.threshold];
    }
    const own = defaults.methods['llm-cite'];
    return [own.m, own.l, own.threshold];
  };
  let shownFor = method.value;
  const switchDefaults = () => {
    const before = evidenceDefaults(shownFor);
    const after = evidenceDefaults(method.value);
    const untouched = before !== null && m.value === String(before[0]) && l.value === String(before[1]) && threshold.value === String(before[2]);
    if (untouched && after !== null) {
      m.value = String(after[0]);
      l.value = String(after[1]);
      threshold.value = String(after[2]);
    }
    shownFor = method.value;
  };

  // A row shows when the chosen method takes its option (the core's list, VerdictMethods.ts).
  const showFor = () => {
    const chosen = method.value;
    const info = methodInfo(chosen);
    const takes = (option: string) => info?.options.includes(option) ?? false;
    urlsRow.hidden = !takes('urls');
    wholeRow.hidden = !takes('whole_document');
    fromLlmCiteRow.hidden = !takes('from_llm_cite');
    // LLM-Cite's pages replace retrieval: neither m nor the corpora choose them.
    const cited = takes('from_llm_cite') && fromLlmCite.checked;
    mRow.hidden = cited || !takes('m');
    corporaRow.hidden = cited || !takes('corpora');
    lRow.hidden = !takes('l');
    thresholdRow.hidden = !takes('threshold');
    evidence.hidden = !['m', 'l', 'threshold', 'whole_document', 'from_llm_cite', 'corpora'].some(takes);
    mLabel.textContent = info?.evidence === 'corpus' ? 'Documents per claim (m)' : 'Pages per claim (m)';
    methodHint.textContent = info?.hint ?? '';
    urlsHint.textContent = isUrlStrategy(urls.value) ? URL_STRATEGY_HINTS[urls.value] : '';
  };
  method.addEventListener('change', () => {
    switchDefaults();
    showFor();
  });
  urls.addEventListener('change', showFor);
  fromLlmCite.addEventListener('change', showFor);
  showFor();

  const element = el(
    'div',
    { class: 'verify-options' },
    el(
      'div',
      { class: 'options-grid' },
      el('div', { class: 'option-row' }, el('label', { for: id('method') }, 'Method'), el('div', { class: 'option-control' }, method, methodHint)),
      urlsRow,
    ),
    evidence,
  );

  /** The field's whole number within its `min`..`max`, or a message naming the range. */
  const wholeNumber = (input: HTMLInputElement, name: string): number | string => {
    const value = Number(input.value);
    const max = Number(input.max);
    if (input.value.trim() === '' || !Number.isInteger(value) || value < 1 || value > max) {
      return `${name} must be a whole number from 1 to ${max}.`;
    }
    return value;
  };

  /** An error in a field of the evidence options: they open, so that the field shows. */
  const evidenceError = (error: string, field: HTMLInputElement) => {
    evidence.open = true;
    return { error, field };
  };

  return {
    element,
    read() {
      const chosen = method.value;
      const info = methodInfo(chosen);
      if (!isMethod(chosen) || info === undefined) return { error: 'Choose a method.', field: method };
      // Each option the method takes (the core's list) from its field; no other.
      const takes = (option: string) => info.options.includes(option);
      const options: VerifyOptions = { method: chosen };
      if (takes('from_llm_cite') && fromLlmCite.checked) {
        options.from_llm_cite = true;
        return { options };
      }
      if (takes('m')) {
        const mValue = wholeNumber(m, mLabel.textContent ?? 'm');
        if (typeof mValue === 'string') return evidenceError(mValue, m);
        options.m = mValue;
      }
      if (takes('l')) {
        const lValue = wholeNumber(l, 'Sentences per page');
        if (typeof lValue === 'string') return evidenceError(lValue, l);
        options.l = lValue;
      }
      if (takes('threshold')) {
        const thresholdValue = Number(threshold.value);
        if (threshold.value.trim() === '' || !(thresholdValue >= 0 && thresholdValue <= 1)) {
          return evidenceError('The entailment threshold must be between 0 and 1.', threshold);
        }
        options.threshold = thresholdValue;
      }
      if (takes('urls') && isUrlStrategy(urls.value)) options.urls = urls.value;
      if (takes('whole_document') && wholeDocument.checked) options.whole_document = true;
      if (takes('corpora')) {
        options.corpora = Array.from(corpusBoxes.querySelectorAll<HTMLInputElement>('input:checked')).map((box) => box.value);
      }
      return { options };
    },
    setDefaults(settings) {
      const chosen = settings.verify.method.trim().toLowerCase().replace(/_/g, '-');
      if (isMethod(chosen)) method.value = chosen;
      const llmCite = settings.methods['llm-cite'];
      if (isUrlStrategy(llmCite.urls)) urls.value = llmCite.urls;
      defaults = settings;
      shownFor = method.value;
      const [mDefault, lDefault, thresholdDefault] = evidenceDefaults(method.value) ?? [llmCite.m, llmCite.l, llmCite.threshold];
      m.value = String(mDefault);
      l.value = String(lDefault);
      threshold.value = String(thresholdDefault);
      wholeDocument.checked = llmCite.premises === 'whole-document';
      showFor();
    },
    setCorpora(list) {
      const ticked = new Set(Array.from(corpusBoxes.querySelectorAll<HTMLInputElement>('input:checked')).map((box) => box.value));
      replace(
        corpusBoxes,
        list.length === 0 ? el('p', { class: 'hint' }, 'No corpora yet: import documents in the Library first.') : null,
        ...list.map((corpus) =>
          el('label', {}, el('input', { type: 'checkbox', name: 'corpus', value: corpus.name, checked: ticked.has(corpus.name) }), ` ${corpus.name}`),
        ),
        list.length > 0 ? el('p', { class: 'hint' }, 'None ticked: all of them.') : null,
      );
    },
  };
}
