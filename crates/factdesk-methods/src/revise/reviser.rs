//! The [`Reviser`] at work: the checks before a method runs, its chat calls and what they
//! cost (the [`Ledger`]), evidence for a query with the sentences that address the model left
//! out, and the [`Revision`] a method's edits, steps and refusals make.

use std::collections::BTreeMap;
use std::sync::Mutex;

use factdesk_llm::TokenUsage;
use factdesk_model::parameters::{MethodParameters, RevisionParameters};
use factdesk_model::{
    Edit, Envelope, EvidenceSentences, RejectedChange, Revision, TokenUse, VerificationStep,
};

use super::evidence::EvidenceUnit;
use super::{Gate, Reviser, apply, capped_lines};
use crate::MethodError;

/// Token use and model calls by step, shared by the concurrent steps of one revision.
#[derive(Debug, Default)]
pub(crate) struct Ledger(Mutex<(TokenUse, BTreeMap<String, u32>)>);

impl Ledger {
    fn record(&self, purpose: &str, usage: TokenUsage) {
        if let Ok(mut ledger) = self.0.lock() {
            ledger.0.add(
                purpose,
                u64::from(usage.prompt_tokens),
                u64::from(usage.completion_tokens),
            );
            *ledger.1.entry(purpose.to_owned()).or_default() += 1;
        }
    }

    /// Adds tokens spent outside the reviser's own calls (an evidence finder's).
    fn merge(&self, tokens: &TokenUse) {
        if let Ok(mut ledger) = self.0.lock() {
            ledger.0.merge(tokens);
        }
    }

    fn take(&self) -> (TokenUse, BTreeMap<String, u32>) {
        self.0.lock().map(|ledger| ledger.clone()).unwrap_or_default()
    }
}

impl Reviser {
    /// The checks every method makes before it asks anything: the passage is not empty nor
    /// longer than [`ReviseConfig::max_chars`](super::ReviseConfig::max_chars), and the NLI
    /// gate has its judge.
    pub fn check(&self, passage: &str) -> Result<(), MethodError> {
        let chars = passage.chars().count();
        if chars > self.config.max_chars {
            return Err(MethodError::Input(format!(
                "the passage has {chars} characters, more than the {} a revision takes; split \
                 it, or raise max_chars",
                self.config.max_chars
            )));
        }
        if passage.trim().is_empty() {
            return Err(MethodError::Input(
                "the passage is empty: there is nothing to revise".into(),
            ));
        }
        if self.config.gate == Gate::Nli && self.nli.is_none() {
            return Err(MethodError::Input("the NLI gate needs an NLI model".into()));
        }
        Ok(())
    }

    /// One chat call of `template`, its cost recorded under `purpose`; the answer's text.
    pub(crate) async fn ask(
        &self,
        ledger: &Ledger,
        template: &str,
        context: serde_json::Value,
        purpose: &str,
    ) -> Result<String, MethodError> {
        let completion = self.complete(ledger, template, context, purpose, None).await?;
        Ok(completion.text().trim().to_owned())
    }

    /// As [`Self::ask`], asking for an answer of `schema`'s shape where the model may take
    /// one ([`crate::shape`]); the caller still reads an answer of any shape.
    pub(crate) async fn ask_shaped(
        &self,
        ledger: &Ledger,
        template: &str,
        context: serde_json::Value,
        purpose: &str,
        schema: serde_json::Value,
    ) -> Result<String, MethodError> {
        let (text, _) = self.ask_shaped_cut(ledger, template, context, purpose, schema).await?;
        Ok(text)
    }

    /// As [`Self::ask_shaped`], also telling whether the answer was cut at the template's
    /// `max_tokens`.
    pub(crate) async fn ask_shaped_cut(
        &self,
        ledger: &Ledger,
        template: &str,
        context: serde_json::Value,
        purpose: &str,
        schema: serde_json::Value,
    ) -> Result<(String, bool), MethodError> {
        let completion = self.complete(ledger, template, context, purpose, Some(schema)).await?;
        let cut = completion
            .choices
            .first()
            .is_some_and(|choice| choice.finish_reason == factdesk_llm::FinishReason::Length);
        Ok((completion.text().trim().to_owned(), cut))
    }

    /// As [`Self::ask`], but `None` when the answer was cut at the template's `max_tokens`: a
    /// cut edit or rewrite would drop the rest of the text.
    /// With `schema`, it asks for an answer of that shape as [`Self::ask_shaped`] does.
    pub(crate) async fn ask_whole(
        &self,
        ledger: &Ledger,
        template: &str,
        context: serde_json::Value,
        purpose: &str,
        schema: Option<serde_json::Value>,
    ) -> Result<Option<String>, MethodError> {
        let completion = self.complete(ledger, template, context, purpose, schema).await?;
        let cut = completion
            .choices
            .first()
            .is_some_and(|choice| choice.finish_reason == factdesk_llm::FinishReason::Length);
        Ok((!cut).then(|| completion.text().trim().to_owned()))
    }

    async fn complete(
        &self,
        ledger: &Ledger,
        template: &str,
        context: serde_json::Value,
        purpose: &str,
        schema: Option<serde_json::Value>,
    ) -> Result<factdesk_llm::Completion, MethodError> {
        let mut request = self.prompts.render_request(template, &context)?;
        request.params.seed = Some(self.config.seed);
        if let Some(schema) = schema {
            crate::shape::constrain(&*self.model, &mut request, schema, None);
        }
        let completion = self.model.complete(&request).await?;
        ledger.record(purpose, completion.usage);
        Ok(completion)
    }

    /// Evidence for a query, or the note saying why there is none.
    /// Sentences that address the model ([`crate::injection`]) are left out of every unit,
    /// and the note says how many.
    pub(crate) async fn find(
        &self,
        ledger: &Ledger,
        query: &str,
    ) -> (Vec<EvidenceUnit>, Option<String>) {
        let found = match self.evidence.find(query).await {
            Ok(found) => found,
            Err(message) => {
                return (Vec::new(), Some(format!("evidence could not be read: {message}")));
            }
        };
        ledger.merge(&found.tokens);
        let units = found.units;
        let mut left_out = 0;
        let units: Vec<EvidenceUnit> = units
            .into_iter()
            .filter_map(|unit| {
                let before = unit.sentences.len();
                let kept: Vec<String> = unit
                    .sentences
                    .into_iter()
                    .filter(|sentence| !crate::injection::addresses_model(sentence))
                    .collect();
                left_out += before - kept.len();
                (!kept.is_empty()).then(|| EvidenceUnit::new(unit.source, kept))
            })
            .collect();
        let mut notes: Vec<String> = found.note.into_iter().collect();
        if left_out > 0 {
            notes.push(format!(
                "{left_out} evidence sentence(s) that address the model were left out"
            ));
        }
        if units.is_empty() && !self.evidence.closed_book() {
            notes.push("no evidence found".into());
        }
        (units, (!notes.is_empty()).then(|| notes.join("; ")))
    }

    /// The evidence text quoted to the chat model: the units in order, cut at
    /// `evidence_words`.
    pub(crate) fn quoted(&self, units: &[EvidenceUnit]) -> String {
        let texts: Vec<&str> = units.iter().map(|unit| unit.text.as_str()).collect();
        capped_lines(&texts, self.config.evidence_words)
    }

    /// The envelope's parameters: the configuration, the evidence and the calls by step.
    pub(crate) fn parameters(&self, calls: BTreeMap<String, u32>) -> MethodParameters {
        MethodParameters::Revision(RevisionParameters {
            evidence: self.evidence.name().to_owned(),
            granularity: self.evidence.granularity(),
            gate: Some(self.config.gate),
            questions: Some(self.config.questions),
            max_growth: Some(self.config.max_growth),
            threshold: Some(self.config.threshold),
            seed: Some(self.config.seed),
            calls: Some(calls),
            other: Default::default(),
        })
    }

    /// The revision of `passage` these edits, steps and refusals make, with the tokens and
    /// calls of `ledger`.
    pub(crate) fn finish(
        &self,
        method: &str,
        passage: &str,
        ledger: Ledger,
        (edits, steps, rejected): (Vec<Edit>, Vec<VerificationStep>, Vec<RejectedChange>),
        explanation: String,
    ) -> Revision {
        let (tokens, calls) = ledger.take();
        Revision {
            envelope: Envelope {
                method: method.into(),
                parameters: self.parameters(calls),
                model: crate::llm_cite::model_name(&*self.model),
                nli_model: self.nli_name(),
                tokens,
                explanation,
            },
            original: passage.to_owned(),
            revised: apply(passage, &edits),
            edits,
            steps,
            rejected,
            metrics: None,
        }
    }

    pub(crate) fn nli_name(&self) -> Option<String> {
        match self.config.gate {
            Gate::Nli => self.nli.as_ref().map(|nli| nli.name()),
            Gate::Chat => None,
        }
    }
}

/// Evidence units as the model records them.
pub(crate) fn recorded(units: &[EvidenceUnit]) -> Vec<EvidenceSentences> {
    units
        .iter()
        .map(|unit| EvidenceSentences {
            source: unit.source.clone(),
            sentences: unit.sentences.clone(),
        })
        .collect()
}
