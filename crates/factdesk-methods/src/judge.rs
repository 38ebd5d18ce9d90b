//! Steps 3–5 of LLM-Cite, shared with the corpus baseline: from each source's ranked sentences
//! build the cumulative premises s1, s1 s2, …, s1…sl, ask the NLI model about every premise in
//! one batch, and decide. A claim is supported when any premise entails it with probability at
//! least the threshold (the entailing premises are the attribution); otherwise refuted when a
//! premise contradicts it with that probability, and not enough info when none does.

use factdesk_llm::{Nli, NliPair};
pub use factdesk_model::parameters::PremiseForm;
use factdesk_model::{Attribution, EvidenceSource, PremiseCheck, TokenUse, Verdict};

use crate::MethodError;

/// One source and the sentences picked from it, best first.
#[derive(Debug, Clone)]
pub struct RankedSource {
    pub source: EvidenceSource,
    pub sentences: Vec<String>,
}

/// What the judging step concluded.
#[derive(Debug, Clone)]
pub struct Judged {
    pub premises: Vec<PremiseCheck>,
    pub attributions: Vec<Attribution>,
    /// The best entailment probability seen (0 when nothing was judged).
    pub best_entailment: f64,
    /// Whether some premise contradicts the claim: its contradiction probability reaches the
    /// threshold and exceeds its entailment. A judge that cannot tell contradiction from
    /// neutral (a two-way verifier) never contradicts.
    pub contradicted: bool,
    pub tokens: TokenUse,
    /// Evidence sentences left out of the premises because they address the model
    /// ([`crate::injection`]), with the index of their source.
    pub left_out: Vec<(usize, String)>,
    /// Evidence sentences left out because they are in a language the NLI model does not read
    /// ([`Nli::reads`]): the index of their source, and the language's name.
    pub unread: Vec<(usize, &'static str)>,
}

impl Judged {
    pub fn verified(&self) -> bool {
        !self.attributions.is_empty()
    }

    /// Supported when a premise entails the claim; otherwise refuted when a premise
    /// contradicts it, and not enough info when none does.
    pub fn verdict(&self) -> Verdict {
        if self.verified() {
            Verdict::Supported
        } else if self.contradicted {
            Verdict::Refuted
        } else {
            Verdict::NotEnoughInfo
        }
    }

    /// A sentence for the explanation when evidence was left out ([`left_out_note`]).
    pub fn left_out_note(&self) -> Option<String> {
        left_out_note(self.left_out.len())
    }

    /// A sentence for the explanation when evidence in a language the NLI model does not read
    /// was left out ([`unread_note`]).
    pub fn unread_note(&self, nli: &dyn Nli) -> Option<String> {
        unread_note(nli, &self.unread, !self.premises.is_empty())
    }

    pub fn confidence(&self) -> Option<f64> {
        if self.premises.is_empty() {
            None
        } else if self.verified() {
            Some(self.best_entailment)
        } else {
            Some(1.0 - self.best_entailment)
        }
    }
}

/// A sentence for a check's explanation when `count` evidence sentences were left out of the
/// premises because they address the model.
pub fn left_out_note(count: usize) -> Option<String> {
    (count > 0).then(|| {
        format!(
            " {count} evidence sentence{} addressed to AI models (e.g. \"ignore previous \
             instructions\") {} left out of the premises.",
            if count == 1 { "" } else { "s" },
            if count == 1 { "was" } else { "were" }
        )
    })
}

/// Why `nli` may not judge `claim`, when it may not: the claim is in a language the model does
/// not read (the offline verifier reads English only). The method then gives no verdict
/// ([`factdesk_model::Undecided::UnreadLanguage`]) with this explanation, rather than let the
/// model guess; a claim too short or too full of names to tell is judged.
pub fn unread_language(nli: &dyn Nli, claim: &str) -> Option<String> {
    if nli.reads(ANY_LANGUAGE) {
        return None;
    }
    let language = factdesk_text::other_than_english(claim)?;
    if nli.reads(language.code) {
        return None;
    }
    let name = language.name;
    Some(format!(
        "The claim is written in {name}, which the NLI model ({}) does not read, so it was not \
         judged. To check claims in {name}, let the chat model judge (`verify.nli = \"llm\"`) \
         with a model server that reads it.",
        nli.name()
    ))
}

/// Whether `nli` reads the language `text` is in; the language's name when it does not.
/// The code no detector gives ("undetermined"): a model that reads it reads every language,
/// and nothing need be detected for it (the chat model).
const ANY_LANGUAGE: &str = "und";

fn unread_in(nli: &dyn Nli, text: &str) -> Option<&'static str> {
    if nli.reads(ANY_LANGUAGE) {
        return None;
    }
    factdesk_text::other_than_english(text)
        .filter(|language| !nli.reads(language.code))
        .map(|language| language.name)
}

/// A sentence for a check's explanation when evidence sentences in languages `nli` does not
/// read were left out of the premises (`unread`: source index and language name, one per
/// sentence); `judged_some` says whether any premise was judged all the same.
pub fn unread_note(nli: &dyn Nli, unread: &[(usize, &str)], judged_some: bool) -> Option<String> {
    if unread.is_empty() {
        return None;
    }
    let mut languages: Vec<&str> = unread.iter().map(|(_, language)| *language).collect();
    languages.sort_unstable();
    languages.dedup();
    let languages = match languages.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => languages.concat(),
    };
    let count = unread.len();
    let sentences = format!("{count} evidence sentence{}", if count == 1 { "" } else { "s" });
    Some(if judged_some {
        format!(" {sentences} in {languages} went unjudged: the NLI model does not read it.")
    } else {
        format!(
            " The evidence found ({sentences}) is in {languages}, which the NLI model ({}) \
             does not read, so nothing was judged. To judge evidence in {languages}, let the \
             chat model judge (`verify.nli = \"llm\"`).",
            nli.name()
        )
    })
}

/// The premises of one source.
pub fn premises(
    source: &RankedSource,
    form: PremiseForm,
    full_text: Option<&str>,
) -> Vec<Vec<String>> {
    match form {
        // A premise of headings only states nothing: never judged alone (fragment.rs).
        PremiseForm::Cumulative => (1..=source.sentences.len())
            .map(|count| source.sentences[..count].to_vec())
            .filter(|premise| crate::fragment::judgeable(premise))
            .collect(),
        PremiseForm::WholeDocument { max_chars } => {
            let text = full_text.map_or_else(|| source.sentences.join(" "), str::to_owned);
            let cut: String = text.chars().take(max_chars).collect();
            if cut.trim().is_empty() { Vec::new() } else { vec![vec![cut]] }
        }
    }
}

/// Classifies every pair (none asked when there are none), refusing an answer that leaves
/// pairs out. `sources` are the whole texts the premises were cut from (`Nli::classify_from`;
/// empty when the premises are all there is).
pub async fn classify_all(
    nli: &dyn Nli,
    pairs: &[NliPair],
    sources: &[&str],
) -> Result<Vec<factdesk_llm::NliJudgement>, MethodError> {
    let judgements =
        if pairs.is_empty() { Vec::new() } else { nli.classify_from(pairs, sources).await? };
    if judgements.len() != pairs.len() {
        return Err(MethodError::Model(factdesk_llm::LlmError::Backend(format!(
            "the NLI model answered {} of {} premises",
            judgements.len(),
            pairs.len()
        ))));
    }
    Ok(judgements)
}

/// Judges `claim` against every premise of every source (sources are indexed as given).
/// `texts[i]` is source i's full text, used by [`PremiseForm::WholeDocument`] and read for
/// the figures the premises leave out (`Nli::classify_from`).
pub async fn judge(
    nli: &dyn Nli,
    claim: &str,
    sources: &[RankedSource],
    texts: &[Option<&str>],
    form: PremiseForm,
    threshold: f64,
) -> Result<Judged, MethodError> {
    let mut slots: Vec<(usize, Vec<String>)> = Vec::new();
    let mut left_out = Vec::new();
    let mut unread = Vec::new();
    for (index, source) in sources.iter().enumerate() {
        // What addresses the model never reaches it.
        let (sentences, removed): (Vec<String>, Vec<String>) = source
            .sentences
            .iter()
            .cloned()
            .partition(|sentence| !crate::injection::addresses_model(sentence));
        // Nor does what it cannot read.
        let sentences: Vec<String> = sentences
            .into_iter()
            .filter(|sentence| match unread_in(nli, sentence) {
                Some(language) => {
                    unread.push((index, language));
                    false
                }
                None => true,
            })
            .collect();
        let mut full = texts.get(index).copied().flatten().map(crate::injection::strip);
        if let (PremiseForm::WholeDocument { max_chars }, Some((text, _))) = (form, &full) {
            let start: String = text.chars().take(max_chars).collect();
            if let Some(language) = unread_in(nli, &start) {
                if !unread.iter().any(|(source, _)| *source == index) {
                    unread.push((index, language));
                }
                full = None;
            }
        }
        let mut removed = removed;
        if let (PremiseForm::WholeDocument { .. }, Some((_, from_text))) = (form, &full) {
            removed = from_text.clone();
        }
        left_out.extend(removed.into_iter().map(|sentence| (index, sentence)));
        let cleaned = RankedSource { source: source.source.clone(), sentences };
        for sentences in premises(&cleaned, form, full.as_ref().map(|(text, _)| text.as_str())) {
            slots.push((index, sentences));
        }
    }
    let pairs: Vec<NliPair> = slots
        .iter()
        .map(|(_, sentences)| NliPair {
            premise: sentences.join(" "),
            hypothesis: claim.to_owned(),
        })
        .collect();
    // The sources' whole texts, read for figures and names only (never sent to a model).
    let whole: Vec<&str> = texts.iter().filter_map(|text| *text).collect();
    let judgements = classify_all(nli, &pairs, &whole).await?;
    // Each premise's facts with every premise as the evidence, as the shipped verifier
    // weighs them (`facts::FactChecked`).
    let premise_texts: Vec<&str> = pairs.iter().map(|pair| pair.premise.as_str()).collect();
    let alignments = crate::facts::align_all_from(&premise_texts, &whole, claim);
    let mut judged = Judged {
        premises: Vec::with_capacity(pairs.len()),
        attributions: Vec::new(),
        best_entailment: 0.0,
        contradicted: false,
        tokens: TokenUse::default(),
        left_out,
        unread,
    };
    for ((((source, sentences), pair), judgement), facts) in
        slots.into_iter().zip(pairs.iter()).zip(judgements).zip(alignments)
    {
        let scores = judgement.scores;
        judged.tokens.add(
            TokenUse::JUDGE,
            u64::from(judgement.usage.prompt_tokens),
            u64::from(judgement.usage.completion_tokens),
        );
        judged.best_entailment = judged.best_entailment.max(scores.entailment);
        let entails = scores.entailment >= threshold;
        judged.contradicted |=
            scores.contradiction >= threshold && scores.contradiction > scores.entailment;
        if entails {
            // Per source, the shortest entailing premise is the attribution.
            let already = judged
                .attributions
                .iter()
                .any(|attribution| attribution.source == sources[source].source);
            if !already {
                judged.attributions.push(Attribution {
                    source: sources[source].source.clone(),
                    sentences: sentences.clone(),
                    entailment: scores.entailment,
                    claim_part: None,
                    pages: Vec::new(),
                });
            }
        }
        judged.premises.push(PremiseCheck {
            source,
            sentences,
            premise: pair.premise.clone(),
            entailment: scores.entailment,
            neutral: scores.neutral,
            contradiction: scores.contradiction,
            entails,
            claim_part: None,
            pages: Vec::new(),
            facts,
        });
    }
    judged.attributions.sort_by(|a, b| b.entailment.total_cmp(&a.entailment));
    Ok(judged)
}
