// One claim, evidence first: the verdict (the latest check, or the one chosen with
// `?check=<id>`) with its confidence and one-line reason and the human review stored; then the
// evidence that decided it (the deciding premise's sentences with their source, page and date,
// the claim's numbers, dates and names that the evidence matches, contradicts or lacks marked
// in the claim and in the sentences); then the details folded (`<details>`): every source's
// sentences, attribution, premises with their NLI probabilities, CIBER's probes and fused
// masses, the URLs the model proposed, how and with which model calls it was checked, and the
// claim's earlier checks. The review is a compact bar kept in view at the window's bottom:
// accept (`a`), or override (`o`, then `s`/`r`/`n` and the reason, Enter). Route:
// `#/claims/<id>?collection=<name>&check=<id>`. Everything from the web (URLs, titles,
// sentences) is set as text; URLs are never links.

import {
  VERDICTS,
  checksOfClaim,
  listClaims,
  reviewCheck,
  type Claim,
  type CiberDetail,
  type ClaimCheck,
  type EvidenceSource,
  type Masses,
  type PremiseCheck,
  type ProposedUrl,
  type RuleVerdict,
  type Stance,
  type StaleEvidence,
  type StoredCheck,
  type Verdict,
} from '../api';
import { append, el, replace, shortTime, shortTimeCell, type Child } from '../dom';
import { href, refresh, type RouteContext } from '../router';
import {
  URL_STATUS_NAMES,
  VERDICT_NAMES,
  claimHash,
  percent,
  probability,
  reviewSummary,
  verdictBadge,
  verdictName,
} from './checks';
import { claimLanguageControl } from './claim-language';
import { facts, linkButton, showError, statusLine } from './common';

/** The reviewer name typed last, offered again in the next review. */
let lastReviewer = '';

/** A source's title, else its address, else its document number. */
export function sourceName(source: EvidenceSource): string {
  return source.title ?? source.url ?? (source.document_id !== null ? `Document ${source.document_id}` : 'Unknown source');
}

/** Where a source's text came from: its address (as text), fetch time and content hash. */
function sourceFacts(source: EvidenceSource): HTMLDListElement {
  return facts([
    ['Title', source.title],
    // Shown, never followed: a link would take the app window away.
    ['URL', source.url ? el('span', { class: 'url' }, source.url) : null],
    ['Document', source.document_id !== null ? linkButton(`Document ${source.document_id}`, `#/documents/${source.document_id}`) : null],
    ['Published', source.published_at ?? null],
    ['Fetched', shortTime(source.fetched_at)],
    ['Content hash', source.content_hash ? el('code', { class: 'hash' }, source.content_hash) : null],
  ]);
}

/** How a fact span is marked: held by the evidence too, stated otherwise there, or not in it at all. */
type FactMark = 'match' | 'conflict' | 'unsupported';

const FACT_MARK_NAMES: Record<FactMark, string> = {
  match: 'the evidence states it too',
  conflict: 'conflicts with the evidence',
  unsupported: 'not in the evidence',
};

/**
 * The premise the verdict rests on, as reports pick it: for a refuted claim the one that
 * contradicts it most among those that contradict it more than they entail it; otherwise the
 * best attribution's premise, else the most entailing one (the review mode shows it too).
 */
export function decidingPremise(check: ClaimCheck): PremiseCheck | null {
  const most = (score: (premise: PremiseCheck) => number) => (best: PremiseCheck | null, premise: PremiseCheck) =>
    best === null || score(premise) > score(best) ? premise : best;
  if (check.verdict === 'refuted') {
    return check.premises.filter((premise) => premise.contradiction > premise.entailment).reduce(most((premise) => premise.contradiction), null);
  }
  const best = check.attributions[0];
  const same = (a: string[], b: string[]) => a.length === b.length && a.every((sentence, at) => sentence === b[at]);
  const attributed = best ? check.premises.filter((premise) => same(premise.sentences, best.sentences)).reduce(most((premise) => premise.entailment), null) : null;
  return attributed ?? check.premises.reduce(most((premise) => premise.entailment), null);
}

/** The spans of the claim to mark for `premise`: its conflicting facts, those not in the evidence, then those it matches. */
function claimSpans(premise: PremiseCheck | null): Array<[string, FactMark]> {
  if (!premise?.facts) return [];
  return [
    ...(premise.facts.conflicts ?? []).map((pair): [string, FactMark] => [pair.claim, 'conflict']),
    ...(premise.facts.unsupported ?? []).filter((pair) => pair.kind !== 'polarity').map((pair): [string, FactMark] => [pair.claim, 'unsupported']),
    ...(premise.facts.matched ?? []).filter((pair) => pair.kind !== 'polarity').map((pair): [string, FactMark] => [pair.claim, 'match']),
  ];
}

/**
 * The spans of `premise`'s sentences to mark, per sentence: each conflicting or matched fact's
 * evidence span in the first of the sentences that holds it.
 */
function evidenceSpans(premise: PremiseCheck | null): Map<string, Array<[string, FactMark]>> {
  const spans = new Map<string, Array<[string, FactMark]>>();
  if (!premise?.facts) return spans;
  const pairs: Array<[string, FactMark]> = [
    ...(premise.facts.conflicts ?? []).map((pair): [string, FactMark] => [pair.evidence, 'conflict']),
    ...(premise.facts.matched ?? []).filter((pair) => pair.kind !== 'polarity').map((pair): [string, FactMark] => [pair.evidence, 'match']),
  ];
  for (const [span, mark] of pairs) {
    const sentence = premise.sentences.find((candidate) => span !== '' && candidate.includes(span));
    if (sentence !== undefined) spans.set(sentence, [...(spans.get(sentence) ?? []), [span, mark]]);
  }
  return spans;
}

/**
 * `text` as children with each span wrapped in `<mark class="match|conflict|unsupported">` at
 * its first occurrence (case-sensitive); spans not found, empty, or overlapping one that starts
 * earlier are left unmarked. Everything stays text.
 */
function markedText(text: string, spans: Array<[string, FactMark]>): Child[] {
  const found = spans
    .filter(([span]) => span !== '')
    .map(([span, mark]) => {
      const start = text.indexOf(span);
      return { start, end: start + span.length, mark };
    })
    .filter((hit) => hit.start >= 0)
    .sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Child[] = [];
  let at = 0;
  for (const hit of found) {
    if (hit.start < at) continue;
    if (hit.start > at) out.push(text.slice(at, hit.start));
    out.push(el('mark', { class: `fact ${hit.mark}`, title: FACT_MARK_NAMES[hit.mark] }, text.slice(hit.start, hit.end)));
    at = hit.end;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

/** What the deciding premise states as the claim does, differently, or not at all: the legend of the marks. */
function factsNote(premise: PremiseCheck | null): HTMLElement | null {
  if (!premise?.facts) return null;
  const conflicts = (premise.facts.conflicts ?? []).map((pair) => `claim: ${pair.claim} · evidence: ${pair.evidence}`);
  // An unsupported polarity is a belief frame of the evidence ("popular belief"), not a claim span.
  const missing = (premise.facts.unsupported ?? []).map((pair) =>
    pair.kind === 'polarity' ? `(the evidence reports it only as a ${pair.claim})` : pair.claim);
  const matched = (premise.facts.matched ?? []).filter((pair) => pair.kind !== 'polarity').map((pair) => pair.claim);
  if (conflicts.length === 0 && missing.length === 0 && matched.length === 0 && premise.facts.unrelated !== true) return null;
  return el(
    'div',
    { class: 'fact-alignment', id: 'fact-alignment' },
    conflicts.length > 0 ? el('p', { class: 'fact-line' }, el('mark', { class: 'fact conflict' }, 'conflicts'), ` ${conflicts.join('; ')}`) : null,
    missing.length > 0 ? el('p', { class: 'fact-line' }, el('mark', { class: 'fact unsupported' }, 'not in the evidence'), ` ${missing.join(', ')}`) : null,
    matched.length > 0 ? el('p', { class: 'fact-line', id: 'fact-matched' }, el('mark', { class: 'fact match' }, 'matches'), ` ${matched.join(', ')}`) : null,
    premise.facts.unrelated === true ? el('p', { class: 'fact-line', id: 'fact-unrelated' }, el('mark', { class: 'fact unsupported' }, 'about something else'), ' the evidence holds few of the claim\'s words, whatever the model made of it') : null,
  );
}

/** The verdict with its confidence and one-line reason, and the review stored beside it. */
function verdictSummary(stored: StoredCheck): HTMLElement {
  const check = stored.check;
  const review = stored.review;
  return el(
    'section',
    { class: 'verdict-summary', 'aria-label': 'Verdict' },
    el(
      'div',
      { class: 'verdict-card machine', id: 'machine-verdict' },
      el('h2', { class: 'card-label' }, 'Machine verdict'),
      el(
        'p',
        { class: 'verdict-line' },
        verdictBadge(check.verdict, 'large', check.undecided),
        check.confidence !== null ? el('span', { class: 'confidence', id: 'verdict-confidence' }, `confidence ${percent(check.confidence)}`) : null,
        el('span', { class: 'hint' }, `${check.method} · ${shortTime(stored.checked_at)}`),
      ),
      check.explanation ? el('p', { class: 'explanation', id: 'verdict-reason' }, check.explanation) : null,
    ),
    el(
      'div',
      { class: `verdict-card human ${review ? review.decision : 'none'}`, id: 'review-shown' },
      el('h2', { class: 'card-label' }, 'Human review'),
      review
        ? el(
            'p',
            { class: 'verdict-line' },
            verdictBadge(review.verdict, 'large'),
            el('span', { class: 'decision' }, `${review.decision === 'accept' ? 'Accepted' : 'Overridden'}${review.reviewer ? ` by ${review.reviewer}` : ''}`),
            el('span', { class: 'hint' }, shortTime(review.created_at)),
          )
        : el('p', { class: 'hint' }, 'Not reviewed yet: accept or override in the bar below.'),
      review && review.comment ? el('blockquote', { class: 'comment', id: 'review-comment' }, review.comment) : null,
    ),
  );
}

/**
 * A folded part of the claim view: `<details id=…>` whose summary is the part's heading; the
 * reader opens what they want to see (all of it by keyboard: Tab to the summary, Enter).
 */
function fold(id: string, title: string, ...body: Child[]): HTMLDetailsElement {
  return el('details', { class: 'panel fold', id }, el('summary', {}, el('h2', { id: `${id}-heading` }, title)), ...body);
}

/** The pages a set of sentences is on: "p. 4", "pp. 4–5", "pp. 2, 7" (as reports write it). */
function pageLabel(pages: (number | null)[]): string | null {
  const known = [...new Set(pages.filter((page): page is number => page !== null))].sort((a, b) => a - b);
  const first = known[0];
  const last = known[known.length - 1];
  if (first === undefined || last === undefined) return null;
  if (known.length === 1) return `p. ${first}`;
  return last - first === known.length - 1 ? `pp. ${first}–${last}` : `pp. ${known.join(', ')}`;
}

/** Whether `stale` is the entry of `source` (the same document, or the same page). */
function isStaleEntryOf(stale: StaleEvidence, source: EvidenceSource): boolean {
  if (stale.document_id !== null || source.document_id !== null) return stale.document_id === source.document_id;
  return stale.url !== null && stale.url === source.url;
}

/** A note on a source published long before the claim's date, if it was. */
function oldEvidenceFlag(stale: StaleEvidence[], source: EvidenceSource): HTMLElement | null {
  const entry = stale.find((candidate) => isStaleEntryOf(candidate, source));
  if (entry === undefined) return null;
  return el(
    'div',
    { class: 'flag old-evidence', role: 'note' },
    el('p', {}, `Possibly out of date: ${entry.note}; the window is ${entry.window_days.toLocaleString()} days (Settings: Old evidence).`),
  );
}

function attributionPanel(check: ClaimCheck, stale: StaleEvidence[]): HTMLElement | null {
  if (check.attributions.length === 0) return null;
  return fold(
    'attribution',
    'Attribution',
    ...check.attributions.map((attribution) =>
      el(
        'div',
        { class: 'attribution' },
        sourceFacts(attribution.source),
        oldEvidenceFlag(stale, attribution.source),
        el(
          'p',
          { class: 'hint' },
          `P(entailment) ${probability(attribution.entailment)}`,
          ...[pageLabel(attribution.pages ?? [])].filter((label) => label !== null).map((label) => ` · ${label}`),
        ),
        el('blockquote', { class: 'backing' }, ...attribution.sentences.map((sentence) => el('mark', {}, sentence, ' '))),
      ),
    ),
  );
}

/** The sentences judged for each source, the ones backing the verdict marked. */
function evidencePanel(check: ClaimCheck, stale: StaleEvidence[]): HTMLElement | null {
  if (check.sources.length === 0) return null;
  const backing = new Set(check.attributions.flatMap((attribution) => attribution.sentences));
  // The deciding premise's conflicting and matched spans, each marked in the first of its
  // sentences that holds it.
  const deciding = decidingPremise(check);
  const spans = evidenceSpans(deciding);
  const sentenceText = (sentence: string, index: number): Child[] =>
    deciding !== null && deciding.source === index ? markedText(sentence, spans.get(sentence) ?? []) : [sentence];
  return fold(
    'evidence',
    'All evidence read',
    el('p', { class: 'hint' }, backing.size > 0 ? 'Sentences read from each source, best first; marked sentences back the verdict.' : 'Sentences read from each source, best first; none backs the claim.'),
    ...check.sources.map((source, index) => {
      const seen = new Set<string>();
      const pageOf = new Map<string, number>();
      const premises = check.premises.filter((premise) => premise.source === index);
      for (const premise of premises) {
        premise.sentences.forEach((sentence, at) => {
          const page = (premise.pages ?? [])[at];
          if (page !== undefined && page !== null) pageOf.set(sentence, page);
        });
      }
      const sentences = premises
        .flatMap((premise) => premise.sentences)
        .filter((sentence) => (seen.has(sentence) ? false : (seen.add(sentence), true)));
      const page = (sentence: string) => {
        const number = pageOf.get(sentence);
        return number === undefined ? null : el('span', { class: 'page' }, ` p. ${number}`);
      };
      const leftOut = (check.left_out ?? []).filter((left) => left.source === index).map((left) => left.sentence);
      return el(
        'div',
        { class: 'evidence-source', 'data-source': index },
        el('h3', { class: 'source-name' }, `${index + 1}. ${sourceName(source)}`),
        sourceFacts(source),
        oldEvidenceFlag(stale, source),
        leftOut.length > 0
          ? el(
              'div',
              { class: 'flag addresses-model', role: 'note' },
              el('p', {}, `This source contains text addressed to AI systems; ${leftOut.length === 1 ? 'this sentence was' : `these ${leftOut.length} sentences were`} kept out of the premises:`),
              el('ul', {}, ...leftOut.map((sentence) => el('li', {}, sentence))),
            )
          : null,
        sentences.length === 0
          ? el('p', { class: 'hint' }, leftOut.length > 0 ? 'No sentence of this source was judged.' : 'The whole page was judged; no single sentences.')
          : el(
              'ol',
              { class: 'evidence-sentences' },
              ...sentences.map((sentence) =>
                backing.has(sentence)
                  ? el('li', { class: 'backing' }, el('mark', {}, ...sentenceText(sentence, index)), page(sentence))
                  : el('li', {}, ...sentenceText(sentence, index), page(sentence)),
              ),
            ),
      );
    }),
  );
}

function premiseTable(check: ClaimCheck): HTMLElement | null {
  if (check.premises.length === 0) return null;
  return fold(
    'premises',
    'Premises and NLI',
    el(
      'table',
      { class: 'premises', id: 'premise-table' },
      el(
        'thead',
        {},
        el('tr', {}, ...['#', 'Source', 'Premise', 'Entailment', 'Neutral', 'Contradiction', 'Entails'].map((name) => el('th', { scope: 'col' }, name))),
      ),
      el(
        'tbody',
        {},
        ...check.premises.map((premise, index) => {
          const source = check.sources[premise.source];
          return el(
            'tr',
            { class: premise.entails ? 'entails' : undefined },
            el('td', { class: 'number' }, String(index + 1)),
            el('td', { class: 'origin' }, source ? sourceName(source) : String(premise.source)),
            el('td', { class: 'premise' }, premise.premise),
            el('td', { class: 'number' }, probability(premise.entailment)),
            el('td', { class: 'number' }, probability(premise.neutral)),
            el('td', { class: 'number' }, probability(premise.contradiction)),
            el('td', {}, premise.entails ? 'yes' : 'no'),
          );
        }),
      ),
    ),
  );
}

const STANCE_NAMES: Record<Stance, string> = { support: 'supports', refute: 'refutes', neutral: 'neutral' };
const STANCE_LETTERS: Record<Stance, string> = { support: 'S', refute: 'R', neutral: 'N' };

/** Support / refute / neutral shares as a stacked bar, with the numbers as its text. */
function massBar(label: string, masses: Masses): HTMLElement {
  const total = masses.support + masses.refute + masses.neutral || 1;
  // Set through the style object: the window's content security policy refuses style attributes.
  const part = (stance: Stance, value: number) => {
    const span = el('span', { class: `mass ${stance}` });
    span.style.width = `${((value / total) * 100).toFixed(1)}%`;
    return span;
  };
  const text = `S ${probability(masses.support)} · R ${probability(masses.refute)} · N ${probability(masses.neutral)}`;
  return el(
    'div',
    { class: 'mass-row' },
    el('span', { class: 'mass-label' }, label),
    el('span', { class: 'mass-bar', role: 'img', 'aria-label': `${label}: ${text}` }, part('support', masses.support), part('refute', masses.refute), part('neutral', masses.neutral)),
    el('span', { class: 'mass-numbers' }, text),
  );
}

const LN_3 = Math.log(3);

/** A fusion rule's scores with their label. WIG weighs each set's shares by its information
 * gain, at most ln 3, so its scores run up to ln 3 (about 1.10): they are shown divided by
 * ln 3, as its confidence is, to read on the 0–1 scale of the others. */
function ruleScores(verdict: RuleVerdict): [string, Masses] {
  const scores = verdict.scores as Masses;
  if (verdict.rule !== 'wig') return [verdict.rule.toUpperCase(), scores];
  const scaled = { support: scores.support / LN_3, refute: scores.refute / LN_3, neutral: scores.neutral / LN_3 };
  return ['WIG ÷ ln 3', scaled];
}

function ruleText(verdict: RuleVerdict): string {
  return `${verdict.rule.toUpperCase()}: ${STANCE_NAMES[verdict.stance]} (${probability(verdict.confidence)})`;
}

/** CIBER: the claim's verdict under each rule, and for each document its probes (answers or
 * probabilities and how they were read) and the masses each rule fused them into. */
function ciberPanel(check: ClaimCheck, detail: CiberDetail, stale: StaleEvidence[]): HTMLElement {
  const strongest = (index: number) =>
    detail.strongest_support === index ? ' · strongest support' : detail.strongest_refute === index ? ' · strongest refutation' : '';
  return fold(
    'ciber',
    'Probes and fusion (CIBER)',
    el(
      'p',
      { class: 'hint', id: 'ciber-rules' },
      `α = ${detail.alpha}; the verdict follows ${detail.rule.toUpperCase()}. Claim: `,
      detail.claim.map(ruleText).join(' · '),
      detail.rag ? ` · plain RAG: ${STANCE_NAMES[detail.rag.stance]}` : '',
    ),
    ...detail.documents.map((document, index) => {
      const source = check.sources[document.source];
      return el(
        'div',
        { class: 'ciber-document', 'data-document': index },
        el('h3', { class: 'source-name' }, `${index + 1}. ${source ? sourceName(source) : 'Document'}${strongest(index)}`),
        source ? sourceFacts(source) : null,
        source ? oldEvidenceFlag(stale, source) : null,
        el('p', { class: 'hint' }, `${document.words} words quoted${document.truncated ? ' (cut around the sentence that best matches the claim)' : ''}.`),
        el(
          'table',
          { class: 'probes' },
          el('thead', {}, el('tr', {}, ...['Set', 'Question', 'Answers', 'Read as', 'S', 'R', 'N'].map((name) => el('th', { scope: 'col' }, name)))),
          el(
            'tbody',
            {},
            ...document.probes.map((probe) =>
              el(
                'tr',
                { class: `probe ${probe.set}` },
                el('td', {}, probe.set === 'agree' ? 'agree' : 'contradict'),
                el('td', { class: 'question' }, probe.question),
                el(
                  'td',
                  { class: 'answers' },
                  probe.answers.length === 0
                    ? probe.mode === 'exact'
                      ? 'first-token probabilities'
                      : 'sampled; first words counted'
                    : probe.answers.map((answer) => `${answer.text} → ${STANCE_LETTERS[answer.stance]}`).join('; '),
                ),
                el('td', {}, probe.mode),
                el('td', { class: 'number' }, probability(probe.shares.support)),
                el('td', { class: 'number' }, probability(probe.shares.refute)),
                el('td', { class: 'number' }, probability(probe.shares.neutral)),
              ),
            ),
          ),
        ),
        el(
          'div',
          { class: 'masses' },
          massBar('P_AG', document.agree),
          massBar('P_CF', document.conflict),
          ...document.fusion.filter((verdict) => verdict.scores !== null).map((verdict) => massBar(...ruleScores(verdict))),
        ),
        el('p', { class: 'fused' }, document.fusion.map(ruleText).join(' · ')),
      );
    }),
  );
}

/** The URLs LLM-Cite proposed (its detail); none for other methods. */
function proposedUrls(check: ClaimCheck): ProposedUrl[] {
  return check.detail?.method === 'llm-cite' ? check.detail.urls : [];
}

/** CIBER's probes and fusion (its detail); null for other methods. */
function ciberDetail(check: ClaimCheck): CiberDetail | null {
  return check.detail?.method === 'ciber' ? check.detail : null;
}

function urlTable(check: ClaimCheck): HTMLElement | null {
  const urls = proposedUrls(check);
  if (urls.length === 0) return null;
  return fold(
    'proposed-urls',
    'URLs the model proposed',
    el(
      'table',
      { class: 'urls', id: 'url-table' },
      el('thead', {}, el('tr', {}, ...['URL', 'Status', 'Page', 'Sample'].map((name) => el('th', { scope: 'col' }, name)))),
      el(
        'tbody',
        {},
        ...urls.map((url) =>
          el(
            'tr',
            { 'data-status': url.status },
            el('td', { class: 'url' }, url.url),
            el('td', {}, el('span', { class: `badge url-${url.status}` }, URL_STATUS_NAMES[url.status] ?? url.status), url.error ? el('p', { class: 'hint' }, url.error) : null),
            el(
              'td',
              { class: 'origin' },
              url.title ?? '',
              url.final_url && url.final_url !== url.url ? el('p', { class: 'url' }, url.final_url) : null,
              url.fetched_at ? el('p', { class: 'hint' }, `fetched ${shortTime(url.fetched_at)}`) : null,
            ),
            el('td', { class: 'number' }, String(url.sample)),
          ),
        ),
      ),
    ),
  );
}

/** The purposes model calls are made for, for people; a method's own purposes show as named. */
const TOKEN_PURPOSES: Record<string, string> = {
  url: 'asking for URLs',
  judge: 'judging',
};

function costPanel(stored: StoredCheck): HTMLElement {
  const tokens = stored.check.tokens;
  return fold(
    'model-calls',
    'How it was checked',
    facts([
      ['Method', stored.check.method],
      ['Model', stored.check.model],
      ['NLI model', stored.check.nli_model],
      ['Checked', shortTime(stored.checked_at)],
      ['Run', String(stored.run_id)],
      ['Call ids', stored.model_calls.length > 0 ? el('span', { id: 'model-call-ids' }, stored.model_calls.join(', ')) : 'none recorded'],
      ...Object.entries(tokens).map(([purpose, count]): [string, string] => [
        `Tokens: ${TOKEN_PURPOSES[purpose] ?? purpose}`,
        `${(count?.prompt ?? 0).toLocaleString()} in, ${(count?.completion ?? 0).toLocaleString()} out`,
      ]),
    ]),
  );
}

/** The verdict keys while overriding (as in review mode). */
const VERDICT_KEYS: Record<string, Verdict> = { s: 'supported', r: 'refuted', n: 'not_enough_info' };

/** Whether a key press is meant for a field (typing), not for the view's keys. */
function typingInField(event: KeyboardEvent): boolean {
  const target = event.target;
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

/**
 * The review as a compact bar kept in view at the window's bottom: accept the machine verdict,
 * or override it with another verdict and the reason (required). Keys while no field has the
 * focus: `a` accepts, `o` moves to the verdict; there `s`/`r`/`n` choose one and move to the
 * reason, Enter saves. The keys stop when the view is left (`signal`).
 */
function reviewBar(stored: StoredCheck, signal: AbortSignal): HTMLElement {
  const machine = stored.check.verdict;
  const others = VERDICTS.filter((value) => value !== machine);
  const acceptButton = el('button', { type: 'button', id: 'review-accept', class: 'primary', 'aria-keyshortcuts': 'a' }, `Accept “${verdictName(machine)}” `, el('kbd', {}, 'a'));
  const verdict = el(
    'select',
    { id: 'review-verdict', name: 'verdict', 'aria-label': 'Override with the verdict', 'aria-keyshortcuts': 'o' },
    ...others.map((value) => el('option', { value }, VERDICT_NAMES[value])),
  );
  const comment = el('input', { id: 'review-comment-input', name: 'comment', type: 'text', placeholder: 'Reason (required)', 'aria-label': 'Reason for the override (required)' });
  const reviewer = el('input', { id: 'review-reviewer', name: 'reviewer', type: 'text', value: lastReviewer, autocomplete: 'name', placeholder: 'Reviewer', 'aria-label': 'Reviewer' });
  const submit = el('button', { type: 'submit', id: 'review-submit' }, 'Override');
  const status = statusLine('review-status');

  const save = async (decision: 'accept' | 'override') => {
    status.classList.remove('error');
    if (decision === 'override' && comment.value.trim() === '') {
      showError(status, { code: 'invalid_input', message: 'Say why the machine verdict is wrong' });
      comment.focus();
      return;
    }
    acceptButton.disabled = true;
    submit.disabled = true;
    status.textContent = 'Saving…';
    lastReviewer = reviewer.value.trim();
    const shownAt = location.hash;
    try {
      await reviewCheck(stored.id, {
        decision,
        verdict: decision === 'override' ? (verdict.value as Verdict) : undefined,
        comment: comment.value.trim(),
        reviewer: lastReviewer || undefined,
      });
      // Drawn again with the review, unless the user has moved on to another view.
      if (location.hash === shownAt) refresh();
    } catch (error) {
      showError(status, error);
      acceptButton.disabled = false;
      submit.disabled = false;
    }
  };
  acceptButton.addEventListener('click', () => void save('accept'));
  // The form's submit (the Override button, or Enter in a field) overrides; accepting is its own button.
  const form = el(
    'form',
    { class: 'claim-review-bar', id: 'review-form', 'aria-label': stored.review ? 'Review again' : 'Review' },
    el('span', { class: 'bar-label' }, stored.review ? 'Review again' : 'Review'),
    acceptButton,
    el('span', { class: 'bar-or', id: 'review-override-label' }, 'or override with'),
    verdict,
    comment,
    reviewer,
    submit,
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void save('override');
  });
  verdict.addEventListener('keydown', (event) => {
    const chosen = VERDICT_KEYS[event.key];
    if (chosen === undefined || event.ctrlKey || event.metaKey || event.altKey) return;
    event.preventDefault();
    if (chosen !== machine) verdict.value = chosen;
    comment.focus();
  });
  const onKey = (event: KeyboardEvent) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || typingInField(event)) return;
    if (document.querySelector('dialog[open]')) return;
    if (event.key === 'a') {
      event.preventDefault();
      acceptButton.focus();
      void save('accept');
    } else if (event.key === 'o') {
      event.preventDefault();
      verdict.focus();
    }
  };
  document.addEventListener('keydown', onKey);
  signal.addEventListener('abort', () => document.removeEventListener('keydown', onKey), { once: true });
  return form;
}

/** Where a source's sentences were read, for one line: its name, pages and date. */
function sourceLine(source: EvidenceSource, pages: (number | null)[]): HTMLElement {
  const date = source.published_at ? `published ${source.published_at}` : source.fetched_at ? `fetched ${shortTime(source.fetched_at)}` : null;
  return el(
    'p',
    { class: 'source-line' },
    el('strong', { class: 'source-title' }, sourceName(source)),
    ...[pageLabel(pages), date].filter((part): part is string => part !== null).map((part) => ` · ${part}`),
    source.document_id !== null ? ' · ' : null,
    source.document_id !== null ? linkButton('open the document', `#/documents/${source.document_id}`, { id: 'deciding-document' }) : null,
    source.url && source.title ? el('span', { class: 'url' }, ` · ${source.url}`) : null,
  );
}

/**
 * The evidence the verdict rests on: the deciding premise's sentences with their source, page
 * and date, the facts it matches, contradicts or lacks marked (the claim above is marked the
 * same way) with a legend; without a premise, the best attribution, or CIBER's strongest
 * document, or a line saying why no evidence decided.
 */
function decidingEvidence(stored: StoredCheck): HTMLElement {
  const check = stored.check;
  const stale = stored.stale ?? [];
  const premise = decidingPremise(check);
  const section = (...body: Child[]) =>
    el('section', { class: 'panel deciding', id: 'deciding-evidence', 'aria-labelledby': 'deciding-heading' }, el('h2', { id: 'deciding-heading' }, 'Evidence that decided'), ...body);
  const source = premise ? check.sources[premise.source] : check.attributions[0]?.source;
  if (premise && source) {
    const spans = evidenceSpans(premise);
    const stance = premise.contradiction > premise.entailment ? 'contradicts' : premise.entails ? 'entails' : 'is neutral on';
    return section(
      sourceLine(source, premise.pages ?? []),
      oldEvidenceFlag(stale, source),
      el('blockquote', { class: 'deciding-sentences' }, ...premise.sentences.flatMap((sentence, at) => [at > 0 ? ' ' : null, ...markedText(sentence, spans.get(sentence) ?? [])])),
      el(
        'p',
        { class: 'hint', id: 'deciding-probabilities' },
        `The evidence ${stance} the claim: P(entailment) ${probability(premise.entailment)} · P(contradiction) ${probability(premise.contradiction)}${premise.claim_part ? ` (judged against “${premise.claim_part}”)` : ''}.`,
      ),
      factsNote(premise),
    );
  }
  const attribution = check.attributions[0];
  if (attribution) {
    return section(
      sourceLine(attribution.source, attribution.pages ?? []),
      oldEvidenceFlag(stale, attribution.source),
      el('blockquote', { class: 'deciding-sentences' }, attribution.sentences.join(' ')),
      el('p', { class: 'hint', id: 'deciding-probabilities' }, `P(entailment) ${probability(attribution.entailment)}.`),
    );
  }
  const ciber = ciberDetail(check);
  const strongestIndex = ciber ? (check.verdict === 'refuted' ? ciber.strongest_refute : ciber.strongest_support) ?? ciber.strongest_support ?? ciber.strongest_refute : null;
  const strongest = ciber && strongestIndex !== null && strongestIndex !== undefined ? ciber.documents[strongestIndex] : undefined;
  const strongestSource = strongest ? check.sources[strongest.source] : undefined;
  if (ciber && strongest && strongestSource) {
    return section(
      sourceLine(strongestSource, []),
      oldEvidenceFlag(stale, strongestSource),
      el('p', { class: 'fused', id: 'deciding-probabilities' }, `The ${strongestIndex === ciber.strongest_refute ? 'strongest refutation' : 'strongest support'}: ${strongest.fusion.map(ruleText).join(' · ')}`),
      el('p', { class: 'hint' }, 'Its probes and every document’s masses are under “Probes and fusion” below.'),
    );
  }
  return section(
    el('p', { class: 'hint', id: 'deciding-none' }, check.sources.length > 0 ? 'No premise backs or contradicts the claim; what was read is under “All evidence read” below.' : 'No evidence was read for this check.'),
  );
}

function historyPanel(claim: Pick<Claim, 'id' | 'collection'>, checks: StoredCheck[], shown: StoredCheck): HTMLElement {
  return fold(
    'check-history',
    checks.length > 1 ? `All ${checks.length} checks of this claim` : 'Checks of this claim',
    el(
      'table',
      { class: 'history' },
      el('thead', {}, el('tr', {}, ...['Checked', 'Method', 'Verdict', 'Confidence', 'Review', ''].map((name) => el('th', { scope: 'col' }, name)))),
      el(
        'tbody',
        {},
        ...[...checks].reverse().map((check) =>
          el(
            'tr',
            { class: check.id === shown.id ? 'current' : undefined, 'data-check-id': check.id },
            el('td', {}, ...shortTimeCell(check.checked_at)),
            el('td', {}, check.check.method),
            el('td', {}, verdictBadge(check.check.verdict)),
            el('td', { class: 'number' }, percent(check.check.confidence)),
            el('td', {}, check.review ? reviewSummary(check.review) : ''),
            el('td', {}, check.id === shown.id ? el('span', { class: 'hint' }, 'shown') : linkButton('Show', claimHash(claim, check.id))),
          ),
        ),
      ),
    ),
  );
}

export async function renderClaim({ outlet, params, query, signal }: RouteContext): Promise<void> {
  const id = Number(params[0]);
  const collectionName = query.get('collection') ?? '';
  const wantedCheck = query.has('check') ? Number(query.get('check')) : null;
  const status = statusLine('claim-status');
  replace(outlet, status);
  status.textContent = 'Loading…';

  let checks: StoredCheck[];
  let claim: Claim | undefined;
  try {
    const [found, claims] = await Promise.all([checksOfClaim(id), listClaims(collectionName ? { collection: collectionName } : {})]);
    checks = found;
    claim = claims.find((candidate) => candidate.id === id);
  } catch (error) {
    if (!signal.aborted) showError(status, error);
    return;
  }
  if (signal.aborted) return;
  if (!claim && checks.length === 0) {
    showError(status, { code: 'not_found', message: `There is no claim ${id}` });
    return;
  }
  const collection = claim?.collection ?? collectionName;
  const shown = (wantedCheck !== null ? checks.find((check) => check.id === wantedCheck) : undefined) ?? checks[checks.length - 1];
  const text = claim?.text ?? shown?.check.claim ?? '';

  const marks = claimSpans(shown ? decidingPremise(shown.check) : null);
  // The claim's own language and direction, so that its script is shaped and read right.
  const heading = el('h1', { id: 'claim-text', class: 'claim-heading', lang: claim?.language ?? undefined, dir: 'auto' }, ...markedText(text, marks));
  replace(
    outlet,
    el(
      'nav',
      { class: 'crumbs', 'aria-label': 'Back' },
      collection ? linkButton(`← ${collection}`, href(`/collections/${encodeURIComponent(collection)}`), { id: 'back-to-collection' }) : null,
    ),
    heading,
    claim
      ? facts(
          [
            ['Collection', claim.collection],
            ['Status', el('span', { class: `badge status-${claim.status}`, id: 'claim-status-badge' }, claim.status)],
            ['Claimed on', claim.claimed_on],
            // Corrected here when the detector got it wrong.
            ['Language', claimLanguageControl(claim, heading)],
            ['Gold label', claim.gold_label ? el('span', { class: `badge label-${claim.gold_label}` }, VERDICT_NAMES[claim.gold_label] ?? claim.gold_label) : null],
            ['Tags', claim.tags.length > 0 ? el('span', {}, ...claim.tags.map((tag) => el('span', { class: 'tag' }, tag))) : null],
            ['Notes', claim.notes],
            ['Origin', claim.origin],
          ],
          'facts claim-facts',
        )
      : null,
  );
  if (!shown) {
    outlet.append(el('p', { class: 'status', id: 'claim-unchecked' }, 'This claim has not been checked yet. Run checks from its collection.'));
    return;
  }
  const latest = checks[checks.length - 1];
  const check = shown.check;
  const stale = shown.stale ?? [];
  const ciber = ciberDetail(check);
  append(
    outlet,
    shown !== latest
      ? el('p', { class: 'status', id: 'older-check-note' }, `An earlier check (${shortTime(shown.checked_at)}) is shown. `, linkButton('Show the latest', claimHash({ id, collection })))
      : null,
    verdictSummary(shown),
    decidingEvidence(shown),
    el(
      'div',
      { class: 'claim-details', id: 'claim-details' },
      ciber ? ciberPanel(check, ciber, stale) : evidencePanel(check, stale),
      attributionPanel(check, stale),
      premiseTable(check),
      urlTable(check),
      costPanel(shown),
      historyPanel({ id, collection }, checks, shown),
    ),
    // Last, so that it sticks to the window's bottom over the whole view.
    reviewBar(shown, signal),
  );
}
