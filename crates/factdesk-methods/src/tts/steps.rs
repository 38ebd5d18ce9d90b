//! The pipeline's steps, each a chat call (or NLI judgements) with its cost counted: a draft
//! from some sources, the draft's atomic claims, and every source's stances on those claims,
//! by the chat model several claims per call or by the NLI model premise by premise.

use factdesk_llm::NliPair;
use factdesk_model::TokenUse;
use factdesk_model::ciber::Stance;
use futures_util::{StreamExt, TryStreamExt};

use super::answers::Draft;
use super::{
    CLAIMS_TEMPLATE, DRAFT_TEMPLATE, STANCES_TEMPLATE, StanceJudge, Tts, claims_schema,
    parse_claims, parse_stance_answer, stances_schema,
};
use crate::MethodError;

impl Tts {
    pub(crate) async fn ask(
        &self,
        template: &str,
        context: serde_json::Value,
        purpose: &str,
        tokens: &mut TokenUse,
        calls: &mut usize,
    ) -> Result<String, MethodError> {
        self.ask_shaped(template, context, purpose, None, tokens, calls).await
    }

    /// As [`Self::ask`], asking for an answer of `schema`'s shape where the model may take one
    /// ([`crate::shape`]); the caller still reads an answer of any shape.
    pub(crate) async fn ask_shaped(
        &self,
        template: &str,
        context: serde_json::Value,
        purpose: &str,
        schema: Option<serde_json::Value>,
        tokens: &mut TokenUse,
        calls: &mut usize,
    ) -> Result<String, MethodError> {
        let (text, _) = self.ask_cut(template, context, purpose, schema, tokens, calls).await?;
        Ok(text)
    }

    /// As [`Self::ask_shaped`], also telling whether the answer was cut at the template's
    /// token limit.
    pub(crate) async fn ask_cut(
        &self,
        template: &str,
        context: serde_json::Value,
        purpose: &str,
        schema: Option<serde_json::Value>,
        tokens: &mut TokenUse,
        calls: &mut usize,
    ) -> Result<(String, bool), MethodError> {
        if self.progress.cancelled() {
            return Err(MethodError::Cancelled);
        }
        let mut request = self.prompts.render_request(template, &context)?;
        request.params.seed = Some(self.config.seed);
        if let Some(schema) = schema {
            crate::shape::constrain(&*self.model, &mut request, schema, None);
        }
        let completion = self.model.complete(&request).await?;
        tokens.add(
            purpose,
            u64::from(completion.usage.prompt_tokens),
            u64::from(completion.usage.completion_tokens),
        );
        *calls += 1;
        let cut = completion
            .choices
            .first()
            .is_some_and(|choice| choice.finish_reason == factdesk_llm::FinishReason::Length);
        Ok((completion.text().trim().to_owned(), cut))
    }

    pub(crate) fn quoted(&self, texts: &[&str]) -> Vec<String> {
        texts
            .iter()
            .map(|text| crate::grounding::first_words(text, self.config.document_words))
            .collect()
    }

    /// A draft answering `question` from `documents`, asked for as a few bounded sentences
    /// where the model may take a schema ([`super::answers::draft_schema`]) and read by
    /// [`super::answers::parse_draft`].
    pub(crate) async fn draft(
        &self,
        question: &str,
        documents: &[&str],
        purpose: &str,
        tokens: &mut TokenUse,
        calls: &mut usize,
    ) -> Result<Draft, MethodError> {
        let documents = self.quoted(documents);
        let boundary = factdesk_llm::nli::boundary(&documents.join("\n"), question);
        let (answer, cut) = self
            .ask_cut(
                DRAFT_TEMPLATE,
                serde_json::json!({"question": question, "documents": documents, "boundary": boundary}),
                purpose,
                Some(super::answers::draft_schema()),
                tokens,
                calls,
            )
            .await?;
        Ok(super::answers::parse_draft(&answer, &boundary, cut))
    }

    /// The atomic claims of `draft` (`tts/claims`), at most `max_claims`, and whether the
    /// answer was cut at the template's token limit (the claims written whole before the cut
    /// are kept, [`crate::shape`]).
    pub(crate) async fn claims(
        &self,
        draft: &str,
        question: &str,
        tokens: &mut TokenUse,
        calls: &mut usize,
    ) -> Result<(Vec<String>, bool), MethodError> {
        let (answer, cut) = self
            .ask_cut(
                CLAIMS_TEMPLATE,
                serde_json::json!({
                    "summary": draft,
                    "max": self.config.max_claims,
                    "boundary": factdesk_llm::nli::boundary(draft, question),
                }),
                "claims",
                Some(claims_schema(self.config.max_claims)),
                tokens,
                calls,
            )
            .await?;
        Ok((parse_claims(&answer, self.config.max_claims), cut))
    }

    /// Every source's stances on `claims` (`[source][claim]`), several claims per call; a
    /// stance not given abstains, and a note (naming `whose` claims) says so.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn stances(
        &self,
        claims: &[String],
        quoted: &[String],
        names: &[&str],
        whose: &str,
        tokens: &mut TokenUse,
        calls: &mut usize,
        notes: &mut Vec<String>,
    ) -> Result<Vec<Vec<Stance>>, MethodError> {
        if self.config.stance_judge == StanceJudge::Verifier {
            return self.verifier_stances(claims, quoted, notes).await;
        }
        // One source's row, with what it cost and noted; rows are merged in source order.
        let row = |j: usize| async move {
            let document = &quoted[j];
            let (mut row, mut tokens, mut calls, mut notes) =
                (Vec::new(), TokenUse::default(), 0, Vec::new());
            for batch in claims.chunks(self.config.stance_batch.max(1)) {
                let boundary = factdesk_llm::nli::boundary(document, &batch.join("\n"));
                let (answer, cut) = match self
                    .ask_cut(
                        STANCES_TEMPLATE,
                        serde_json::json!({"document": document, "claims": batch, "boundary": boundary}),
                        "stance",
                        Some(stances_schema(batch.len())),
                        &mut tokens,
                        &mut calls,
                    )
                    .await
                {
                    Ok(answered) => answered,
                    // A call failing on its own: its stances abstain, noted; the rest go on.
                    Err(error) if error.is_one_calls() => {
                        notes.push(format!(
                            "{} on {whose}: the call for {} stance(s) failed ({error}); counted \
                             as abstained",
                            names[j],
                            batch.len()
                        ));
                        row.extend(std::iter::repeat_n(Stance::Neutral, batch.len()));
                        continue;
                    }
                    Err(error) => return Err(error),
                };
                let (given, read) = parse_stance_answer(&answer, batch.len());
                if read < batch.len() {
                    notes.push(format!(
                        "{} on {whose}: {} of {} stance(s) not given{}, counted as abstained",
                        names[j],
                        batch.len() - read,
                        batch.len(),
                        if cut { " (the answer was cut at the model's answer length)" } else { "" }
                    ));
                }
                row.extend(given);
            }
            Ok::<_, MethodError>((row, tokens, calls, notes))
        };
        // The first error stops the rows still in flight.
        let rows: Vec<_> = futures_util::stream::iter(0..quoted.len())
            .map(row)
            .buffered(self.concurrency.max(1))
            .try_collect()
            .await?;
        let mut stances = Vec::new();
        for (row, used, made, noted) in rows {
            tokens.merge(&used);
            *calls += made;
            notes.extend(noted);
            stances.push(row);
        }
        Ok(stances)
    }

    /// Every source's stances on `claims` by the NLI model: each claim against its best
    /// premises in the source (BM25-ranked sentences, as grounding cuts them), one batch per
    /// source; the pairs judged are noted.
    async fn verifier_stances(
        &self,
        claims: &[String],
        quoted: &[String],
        notes: &mut Vec<String>,
    ) -> Result<Vec<Vec<Stance>>, MethodError> {
        let nli = self.nli.as_ref().ok_or_else(|| {
            MethodError::Input("stances by the verifier need an NLI model; none is loaded".into())
        })?;
        let config = crate::grounding::GroundingConfig::default();
        let threshold = self.config.stance_threshold;
        let mut rows = Vec::new();
        let mut judged = 0;
        for document in quoted {
            if self.progress.cancelled() {
                return Err(MethodError::Cancelled);
            }
            let spans = factdesk_text::segment_sentences(document, &config.language);
            let sentences: Vec<&str> = spans
                .iter()
                .map(|span| span.slice(document).trim())
                .filter(|text| !text.is_empty())
                .collect();
            let mut slots = Vec::new();
            let mut pairs = Vec::new();
            for (k, claim) in claims.iter().enumerate() {
                for premise in crate::grounding::premises(claim, &sentences, &config) {
                    slots.push(k);
                    pairs.push(NliPair { premise: premise.join(" "), hypothesis: claim.clone() });
                }
            }
            let judgements =
                crate::judge::classify_all(nli.as_ref(), &pairs, &[document.as_str()]).await?;
            judged += pairs.len();
            let (mut entail, mut contradict) =
                (vec![0.0_f64; claims.len()], vec![0.0_f64; claims.len()]);
            for (k, judgement) in slots.into_iter().zip(judgements) {
                entail[k] = entail[k].max(judgement.scores.entailment);
                contradict[k] = contradict[k].max(judgement.scores.contradiction);
            }
            rows.push(
                (0..claims.len())
                    .map(|k| {
                        if entail[k] >= threshold && entail[k] >= contradict[k] {
                            Stance::Support
                        } else if contradict[k] >= threshold {
                            Stance::Refute
                        } else {
                            Stance::Neutral
                        }
                    })
                    .collect(),
            );
        }
        if !claims.is_empty() {
            notes.push(format!(
                "stances on {} claim(s) by {}: {judged} premise pair(s) judged",
                claims.len(),
                nli.name()
            ));
        }
        Ok(rows)
    }
}
