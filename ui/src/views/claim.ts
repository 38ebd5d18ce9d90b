// One claim: its latest verdict (or the check chosen with `?check=<id>`) and the human review
// beside it, where the verdict comes from (the facts of the claim the deciding premise states
// otherwise or lacks, marked in the claim and in the evidence; attribution, the evidence
// sentences with the backing ones marked, every premise with its NLI probabilities, for CIBER
// each document's probes and fused masses, the URLs the model proposed and what became of
// them, the model calls), a review form, and the claim's earlier checks. Route:
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
  type RuleVerdict,
  type Stance,
  type Review,
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

/** How a fact span is marked: stated otherwise in the evidence, or not in it at all. */
type FactMark = 'conflict' | 'unsupported';

const FACT_MARK_NAMES: Record<FactMark, string> = { conflict: 'conflicts with the evidence', unsupported: 'not in the evidence' };

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

/** The deciding premise, when the claim states facts it contradicts or lacks, or the premise is about something else. */
function factsToShow(check: ClaimCheck): PremiseCheck | null {
  const premise = decidingPremise(check);
  const facts = premise?.facts;
  return premise && facts && ((facts.conflicts ?? []).length > 0 || (facts.unsupported ?? []).length > 0 || facts.unrelated === true) ? premise : null;
}

/** The spans of the claim to mark for `premise`: its conflicting facts, then those not in the evidence. */
function claimSpans(premise: PremiseCheck | null): Array<[string, FactMark]> {
  if (!premise?.facts) return [];
  return [
    ...(premise.facts.conflicts ?? []).map((pair): [string, FactMark] => [pair.claim, 'conflict']),
    ...(premise.facts.unsupported ?? []).filter((pair) => pair.kind !== 'polarity').map((pair): [string, FactMark] => [pair.claim, 'unsupported']),
  ];
}

/**
 * `text` as children with each span wrapped in `<mark class="conflict|unsupported">` at its first
 * occurrence (case-sensitive); spans not found, empty, or overlapping one that starts earlier
 * are left unmarked. Everything stays text.
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
    out.push(el('mark', { class: hit.mark, title: FACT_MARK_NAMES[hit.mark] }, text.slice(hit.start, hit.end)));
    at = hit.end;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

/** What the deciding premise states differently from the claim, or not at all, with a legend. */
function factsNote(premise: PremiseCheck | null, evidenceShown: boolean): HTMLElement | null {
  if (!premise?.facts) return null;
  const conflicts = (premise.facts.conflicts ?? []).map((pair) => `claim: ${pair.claim} · evidence: ${pair.evidence}`);
  // An unsupported polarity is a belief frame of the evidence ("popular belief"), not a claim span.
  const missing = (premise.facts.unsupported ?? []).map((pair) =>
    pair.kind === 'polarity' ? `(the evidence reports it only as a ${pair.claim})` : pair.claim);
  return el(
    'div',
    { class: 'fact-alignment', id: 'fact-alignment' },
    conflicts.length > 0 ? el('p', { class: 'fact-line' }, el('mark', { class: 'conflict' }, 'conflicts'), ` ${conflicts.join('; ')}`) : null,
    missing.length > 0 ? el('p', { class: 'fact-line' }, el('mark', { class: 'unsupported' }, 'not in the evidence'), ` ${missing.join(', ')}`) : null,
    premise.facts.unrelated === true ? el('p', { class: 'fact-line', id: 'fact-unrelated' }, el('mark', { class: 'unsupported' }, 'about something else'), ' the evidence holds few of the claim\'s words, whatever the model made of it') : null,
    el('p', { class: 'hint' }, `From the premise the verdict rests on; marked in the claim${conflicts.length > 0 && evidenceShown ? ' and in its evidence sentence' : ''}.`),
  );
}

function machineVerdict(stored: StoredCheck): HTMLElement {
  const check = stored.check;
  const deciding = factsToShow(check);
  return el(
    'section',
    { class: 'verdict-card machine', id: 'machine-verdict', 'aria-labelledby': 'machine-heading' },
    el('h2', { id: 'machine-heading' }, 'Machine verdict'),
    el('p', { class: 'verdict-line' }, verdictBadge(check.verdict, 'large', check.undecided), check.confidence !== null ? el('span', { class: 'confidence', id: 'verdict-confidence' }, `confidence ${percent(check.confidence)}`) : null),
    check.explanation ? el('p', { class: 'explanation' }, check.explanation) : null,
    factsNote(deciding, !check.ciber),
    facts([
      ['Method', check.method],
      ['Model', check.model],
      ['NLI model', check.nli_model],
      ['Checked', shortTime(stored.checked_at)],
      ['Run', String(stored.run_id)],
    ]),
  );
}

function humanReview(review: Review | null): HTMLElement {
  return el(
    'section',
    { class: `verdict-card human ${review ? review.decision : 'none'}`, id: 'review-shown', 'aria-labelledby': 'review-heading' },
    el('h2', { id: 'review-heading' }, 'Human review'),
    review
      ? el(
          'p',
          { class: 'verdict-line' },
          verdictBadge(review.verdict, 'large'),
          el('span', { class: 'decision' }, `${review.decision === 'accept' ? 'Accepted' : 'Overridden'}${review.reviewer ? ` by ${review.reviewer}` : ''}`),
        )
      : el('p', { class: 'hint' }, 'Not reviewed yet. Accept the verdict or override it below.'),
    review && review.comment ? el('blockquote', { class: 'comment', id: 'review-comment' }, review.comment) : null,
    review ? facts([['Reviewed', shortTime(review.created_at)]]) : null,
  );
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
  return el(
    'section',
    { class: 'panel', id: 'attribution', 'aria-labelledby': 'attribution-heading' },
    el('h2', { id: 'attribution-heading' }, 'Attribution'),
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
  // The deciding premise's conflicting spans, each marked in the first of its sentences that
  // holds it.
  const deciding = factsToShow(check);
  const evidenceSpans = new Map<string, Array<[string, FactMark]>>();
  for (const pair of deciding?.facts?.conflicts ?? []) {
    const sentence = deciding?.sentences.find((candidate) => pair.evidence !== '' && candidate.includes(pair.evidence));
    if (sentence !== undefined) evidenceSpans.set(sentence, [...(evidenceSpans.get(sentence) ?? []), [pair.evidence, 'conflict']]);
  }
  const sentenceText = (sentence: string, index: number): Child[] =>
    deciding !== null && deciding.source === index ? markedText(sentence, evidenceSpans.get(sentence) ?? []) : [sentence];
  return el(
    'section',
    { class: 'panel', id: 'evidence', 'aria-labelledby': 'evidence-heading' },
    el('h2', { id: 'evidence-heading' }, 'Evidence'),
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
  return el(
    'section',
    { class: 'panel', id: 'premises', 'aria-labelledby': 'premises-heading' },
    el('h2', { id: 'premises-heading' }, 'Premises and NLI'),
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

function ruleText(verdict: RuleVerdict): string {
  return `${verdict.rule.toUpperCase()}: ${STANCE_NAMES[verdict.stance]} (${probability(verdict.confidence)})`;
}

/** CIBER: the claim's verdict under each rule, and for each document its probes (answers or
 * probabilities and how they were read) and the masses each rule fused them into. */
function ciberPanel(check: ClaimCheck, detail: CiberDetail, stale: StaleEvidence[]): HTMLElement {
  const strongest = (index: number) =>
    detail.strongest_support === index ? ' · strongest support' : detail.strongest_refute === index ? ' · strongest refutation' : '';
  return el(
    'section',
    { class: 'panel', id: 'ciber', 'aria-labelledby': 'ciber-heading' },
    el('h2', { id: 'ciber-heading' }, 'Probes and fusion (CIBER)'),
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
          ...document.fusion.filter((verdict) => verdict.scores !== null).map((verdict) => massBar(verdict.rule.toUpperCase(), verdict.scores as Masses)),
        ),
        el('p', { class: 'fused' }, document.fusion.map(ruleText).join(' · ')),
      );
    }),
  );
}

function urlTable(check: ClaimCheck): HTMLElement | null {
  if (check.urls.length === 0) return null;
  return el(
    'section',
    { class: 'panel', id: 'proposed-urls', 'aria-labelledby': 'urls-heading' },
    el('h2', { id: 'urls-heading' }, 'URLs the model proposed'),
    el(
      'table',
      { class: 'urls', id: 'url-table' },
      el('thead', {}, el('tr', {}, ...['URL', 'Status', 'Page', 'Sample'].map((name) => el('th', { scope: 'col' }, name)))),
      el(
        'tbody',
        {},
        ...check.urls.map((url) =>
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
  return el(
    'section',
    { class: 'panel', id: 'model-calls', 'aria-labelledby': 'calls-heading' },
    el('h2', { id: 'calls-heading' }, 'Model calls'),
    facts([
      ['Call ids', stored.model_calls.length > 0 ? el('span', { id: 'model-call-ids' }, stored.model_calls.join(', ')) : 'none recorded'],
      ...Object.entries(tokens).map(([purpose, count]): [string, string] => [
        `Tokens: ${TOKEN_PURPOSES[purpose] ?? purpose}`,
        `${(count?.prompt ?? 0).toLocaleString()} in, ${(count?.completion ?? 0).toLocaleString()} out`,
      ]),
    ]),
  );
}

/** Accept the machine verdict, or override it with a verdict and a comment. */
function reviewForm(stored: StoredCheck): HTMLElement {
  const machine = stored.check.verdict;
  const accept = el('input', { type: 'radio', name: 'decision', value: 'accept', id: 'review-accept', checked: true });
  const override = el('input', { type: 'radio', name: 'decision', value: 'override', id: 'review-override' });
  const verdict = el(
    'select',
    { id: 'review-verdict', name: 'verdict', disabled: true, 'aria-label': 'The reviewer’s verdict' },
    ...VERDICTS.filter((value) => value !== machine).map((value) => el('option', { value }, VERDICT_NAMES[value])),
  );
  const comment = el('textarea', { id: 'review-comment-input', name: 'comment', rows: 3, placeholder: 'Why (required to override)' });
  const reviewer = el('input', { id: 'review-reviewer', name: 'reviewer', type: 'text', value: lastReviewer, autocomplete: 'name' });
  const submit = el('button', { type: 'submit', id: 'review-submit', class: 'primary' }, 'Save review');
  const status = statusLine('review-status');
  const sync = () => {
    verdict.disabled = !override.checked;
    submit.textContent = override.checked ? 'Override' : 'Accept';
  };
  accept.addEventListener('change', sync);
  override.addEventListener('change', sync);
  sync();

  const form = el(
    'form',
    { class: 'review-form', id: 'review-form' },
    el('span', { class: 'row-label', id: 'review-decision-label' }, 'Decision'),
    el(
      'div',
      { class: 'decision', role: 'radiogroup', 'aria-labelledby': 'review-decision-label' },
      el('label', {}, accept, ` Accept “${verdictName(machine)}”`),
      el('label', {}, override, ' Override with'),
      verdict,
    ),
    el('label', { for: 'review-comment-input' }, 'Comment'),
    comment,
    el('label', { for: 'review-reviewer' }, 'Reviewer'),
    reviewer,
    el('div', { class: 'buttons' }, submit),
    status,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    status.classList.remove('error');
    const overriding = override.checked;
    if (overriding && comment.value.trim() === '') {
      showError(status, { code: 'invalid_input', message: 'Say why the machine verdict is wrong' });
      comment.focus();
      return;
    }
    submit.disabled = true;
    status.textContent = 'Saving…';
    lastReviewer = reviewer.value.trim();
    const shownAt = location.hash;
    try {
      await reviewCheck(stored.id, {
        decision: overriding ? 'override' : 'accept',
        verdict: overriding ? (verdict.value as Verdict) : undefined,
        comment: comment.value.trim(),
        reviewer: lastReviewer || undefined,
      });
      // Drawn again with the review, unless the user has moved on to another view.
      if (location.hash === shownAt) refresh();
    } catch (error) {
      showError(status, error);
      submit.disabled = false;
    }
  });
  return el(
    'section',
    { class: 'panel', 'aria-labelledby': 'review-form-heading' },
    el('h2', { id: 'review-form-heading' }, stored.review ? 'Review again' : 'Review'),
    el('p', { class: 'hint' }, 'The machine verdict is kept either way; the review is shown beside it and in reports.'),
    form,
  );
}

function historyPanel(claim: Pick<Claim, 'id' | 'collection'>, checks: StoredCheck[], shown: StoredCheck): HTMLElement {
  return el(
    'section',
    { class: 'panel', id: 'check-history', 'aria-labelledby': 'history-heading' },
    el('h2', { id: 'history-heading' }, checks.length > 1 ? `All ${checks.length} checks of this claim` : 'Checks of this claim'),
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

  replace(
    outlet,
    el(
      'nav',
      { class: 'crumbs', 'aria-label': 'Back' },
      collection ? linkButton(`← ${collection}`, href(`/collections/${encodeURIComponent(collection)}`), { id: 'back-to-collection' }) : null,
    ),
    el('h1', { id: 'claim-text', class: 'claim-heading' }, ...markedText(text, claimSpans(shown ? factsToShow(shown.check) : null))),
    claim
      ? facts([
          ['Collection', claim.collection],
          ['Status', el('span', { class: `badge status-${claim.status}`, id: 'claim-status-badge' }, claim.status)],
          ['Claimed on', claim.claimed_on],
          ['Gold label', claim.gold_label ? el('span', { class: `badge label-${claim.gold_label}` }, VERDICT_NAMES[claim.gold_label] ?? claim.gold_label) : null],
          ['Tags', claim.tags.length > 0 ? el('span', {}, ...claim.tags.map((tag) => el('span', { class: 'tag' }, tag))) : null],
          ['Notes', claim.notes],
          ['Origin', claim.origin],
        ])
      : null,
  );
  if (!shown) {
    outlet.append(el('p', { class: 'status', id: 'claim-unchecked' }, 'This claim has not been checked yet. Run checks from its collection.'));
    return;
  }
  const latest = checks[checks.length - 1];
  append(
    outlet,
    shown !== latest
      ? el('p', { class: 'status', id: 'older-check-note' }, `An earlier check (${shortTime(shown.checked_at)}) is shown. `, linkButton('Show the latest', claimHash({ id, collection })))
      : null,
    el('div', { class: 'verdict-pair' }, machineVerdict(shown), humanReview(shown.review)),
    reviewForm(shown),
    attributionPanel(shown.check, shown.stale ?? []),
    shown.check.ciber ? ciberPanel(shown.check, shown.check.ciber, shown.stale ?? []) : evidencePanel(shown.check, shown.stale ?? []),
    premiseTable(shown.check),
    urlTable(shown.check),
    costPanel(shown),
    historyPanel({ id, collection }, checks, shown),
  );
  if (shown.check.sources.length === 0 && shown.check.urls.length === 0 && shown.check.premises.length === 0) {
    outlet.append(el('p', { class: 'hint' }, 'No evidence was read for this check.'));
  }
}
