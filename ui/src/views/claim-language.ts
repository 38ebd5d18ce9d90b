// The claim view's control for a claim's language: a select of languages, set to the one the
// claim was detected in (or given), through which a person corrects it, as `factdesk claims
// language ID CODE` does. The language decides how the claim's evidence is searched (its
// stemmer) and whether the offline verifier judges it (English only). Saving sets the heading's
// `lang` too, so its script is shaped for the language chosen; a refusal is shown beside it
// and the select goes back to the stored language.

import { setClaimLanguage, type Claim } from '../api';
import { el } from '../dom';
import { showError } from './common';

/**
 * The languages offered, by English name: those the language detector knows and those the
 * search index has a stemmer for. A claim stored with another code keeps it as an option.
 * The Search view offers the same for a query.
 */
export const LANGUAGES: ReadonlyArray<[string, string]> = [
  ['ar', 'Arabic'],
  ['zh', 'Chinese'],
  ['da', 'Danish'],
  ['nl', 'Dutch'],
  ['en', 'English'],
  ['fi', 'Finnish'],
  ['fr', 'French'],
  ['de', 'German'],
  ['el', 'Greek'],
  ['hu', 'Hungarian'],
  ['it', 'Italian'],
  ['ja', 'Japanese'],
  ['ko', 'Korean'],
  ['no', 'Norwegian'],
  ['pt', 'Portuguese'],
  ['ro', 'Romanian'],
  ['ru', 'Russian'],
  ['es', 'Spanish'],
  ['sv', 'Swedish'],
  ['ta', 'Tamil'],
  ['tr', 'Turkish'],
];

/** The value of the "unknown" option (the claim has no language). */
const UNKNOWN = '';

/** A language's name and code as the select shows it: "German (de)". */
export function languageLabel(code: string | null): string {
  if (code === null) return 'Unknown';
  const known = LANGUAGES.find(([candidate]) => candidate === code);
  return known ? `${known[1]} (${code})` : code;
}

/**
 * The select of the claim's language with its status line. `heading` is the claim's heading,
 * whose `lang` follows the language saved.
 */
export function claimLanguageControl(claim: Claim, heading: HTMLElement): HTMLElement {
  const codes = LANGUAGES.map(([code]) => code);
  if (claim.language !== null && !codes.includes(claim.language)) codes.unshift(claim.language);
  const select = el(
    'select',
    { id: 'claim-language', name: 'language', 'aria-label': 'Claim language', 'aria-describedby': 'claim-language-status' },
    el('option', { value: UNKNOWN }, 'Unknown'),
    ...codes.map((code) => el('option', { value: code }, languageLabel(code))),
  );
  select.value = claim.language ?? UNKNOWN;
  // A span, as the control sits in the line of the claim's facts.
  const status = el('span', { class: 'status', id: 'claim-language-status', role: 'status' });
  let stored = claim.language;

  select.addEventListener('change', async () => {
    const wanted = select.value === UNKNOWN ? null : select.value;
    status.classList.remove('error');
    status.textContent = 'Saving…';
    select.disabled = true;
    try {
      const saved = await setClaimLanguage(claim.id, wanted);
      stored = saved.language;
      if (stored === null) heading.removeAttribute('lang');
      else heading.lang = stored;
      status.textContent = `Language set to ${languageLabel(stored)}.`;
    } catch (error) {
      showError(status, error);
      select.value = stored ?? UNKNOWN;
    } finally {
      select.disabled = false;
      select.focus();
    }
  });
  return el('span', { class: 'claim-language' }, select, status);
}
