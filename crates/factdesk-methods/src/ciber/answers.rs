//! Asking the probes about one document, each sampled K times or read from the first answer
//! token's probabilities, and fusing their answers into the document's verdict; and the
//! plain-RAG baseline.

use factdesk_llm::{CompletionRequest, ConstraintKind, LlmError, OutputConstraint, TokenUsage};
use factdesk_model::ciber::{
    CiberDocument, Masses, ProbeMode, ProbeResult, ProbeSet, RagAnswer, ResolvedAnswer, Stance,
};
use futures_util::future::try_join_all;

use super::{
    ANSWER_GRAMMAR, ANSWERS, Ciber, Evidence, PROBE_TEMPLATE, RAG_TEMPLATE, fusion, resolve,
};
use crate::MethodError;

/// One probe's answer distribution.
struct Answered {
    mode: ProbeMode,
    answers: Vec<ResolvedAnswer>,
    shares: Masses,
    usage: TokenUsage,
}

impl Ciber {
    /// Every probe about one document, and the fusion of their answers; with the tokens
    /// (prompt, completion) they cost.
    pub(super) async fn judge(
        &self,
        claim: &str,
        document: &Evidence,
    ) -> Result<(CiberDocument, (u64, u64)), MethodError> {
        let asked: Vec<(ProbeSet, &String)> = self
            .probes
            .agree
            .iter()
            .take(self.config.agree)
            .map(|question| (ProbeSet::Agree, question))
            .chain(
                self.probes
                    .conflict
                    .iter()
                    .take(self.config.conflict)
                    .map(|question| (ProbeSet::Conflict, question)),
            )
            .collect();
        let boundary = factdesk_llm::nli::boundary(&document.text, claim);
        let answered = try_join_all(asked.iter().map(|(set, question)| {
            let context = serde_json::json!({
                "document": document.text,
                "claim": claim,
                "question": question,
                "boundary": boundary,
            });
            async move {
                let request = self.prompts.render_request(PROBE_TEMPLATE, &context)?;
                self.ask(request, *set, claim).await
            }
        }))
        .await?;
        let mut probes = Vec::with_capacity(answered.len());
        let mut usage = (0u64, 0u64);
        for ((set, question), answer) in asked.into_iter().zip(answered) {
            usage.0 += u64::from(answer.usage.prompt_tokens);
            usage.1 += u64::from(answer.usage.completion_tokens);
            probes.push(ProbeResult {
                set,
                question: question.clone(),
                mode: answer.mode,
                answers: answer.answers,
                shares: answer.shares,
            });
        }
        let agree = mean_shares(probes.iter().filter(|p| p.set == ProbeSet::Agree));
        let conflict = mean_shares(probes.iter().filter(|p| p.set == ProbeSet::Conflict));
        let fusion = fusion::fuse(&agree, &conflict, self.config.alpha);
        Ok((
            CiberDocument {
                source: 0,
                words: document.words,
                truncated: document.truncated,
                probes,
                agree,
                conflict,
                fusion,
            },
            usage,
        ))
    }

    /// The plain-RAG baseline: every document in one prompt.
    pub(super) async fn rag(
        &self,
        claim: &str,
        evidence: &[Evidence],
    ) -> Result<(RagAnswer, TokenUsage), MethodError> {
        let texts: Vec<&str> = evidence.iter().map(|document| document.text.as_str()).collect();
        let boundary = factdesk_llm::nli::boundary(&texts.join("\n"), claim);
        let context = serde_json::json!({"documents": texts, "claim": claim, "boundary": boundary});
        let request = self.prompts.render_request(RAG_TEMPLATE, &context)?;
        // One answer, as plain RAG gives: the most probable (exact mode) or the greedy one.
        let answer = match self.config.mode {
            ProbeMode::Exact => self.ask(request, ProbeSet::Agree, claim).await?,
            ProbeMode::Sampling => self.sample(request, ProbeSet::Agree, claim, 1, 0.0).await?,
        };
        let (stance, _) = fusion::decide(&answer.shares);
        Ok((RagAnswer { stance, mode: answer.mode, shares: answer.shares }, answer.usage))
    }

    /// One probe's answer distribution towards the claim, in the configured mode.
    async fn ask(
        &self,
        mut request: CompletionRequest,
        set: ProbeSet,
        claim: &str,
    ) -> Result<Answered, MethodError> {
        request.params.seed = Some(probe_seed(self.config.seed, &request));
        if self.config.mode == ProbeMode::Exact {
            // One sample at most if the backend has no probabilities: those answers are only
            // first words counted, so they are set aside and sampled again for the parser.
            match self.model.answer_probabilities(&request, &ANSWERS, 1).await {
                Ok(read) if read.method != "samples" => {
                    let (yes, no, unsure) = (read.get("yes"), read.get("no"), read.get("not"));
                    let towards_probe = Masses::new(yes, no, unsure);
                    let shares = match set {
                        ProbeSet::Agree => towards_probe,
                        ProbeSet::Conflict => towards_probe.inverted(),
                    };
                    return Ok(Answered {
                        mode: ProbeMode::Exact,
                        answers: Vec::new(),
                        shares,
                        usage: read.usage,
                    });
                }
                // No probabilities (the sample was counted, or began with none of the words).
                Ok(_) | Err(LlmError::InvalidResponse { .. }) => {}
                Err(error) => return Err(error.into()),
            }
        }
        self.sample(request, set, claim, self.config.samples, self.config.temperature).await
    }

    /// Sampling mode: `n` answers from one request, each resolved.
    async fn sample(
        &self,
        mut request: CompletionRequest,
        set: ProbeSet,
        claim: &str,
        n: u32,
        temperature: f32,
    ) -> Result<Answered, MethodError> {
        request.params.n = n.max(1);
        request.params.temperature = temperature;
        if self.model.may_accept(ConstraintKind::Grammar) {
            request.constraint = Some(OutputConstraint::Grammar(ANSWER_GRAMMAR.to_owned()));
        }
        let completion = self.model.complete(&request).await?;
        let answers: Vec<ResolvedAnswer> = completion
            .choices
            .iter()
            .map(|choice| ResolvedAnswer {
                text: choice.text.trim().to_owned(),
                stance: resolve::resolve(&choice.text, set, claim),
            })
            .collect();
        let mut shares = Masses::default();
        for answer in &answers {
            *shares.get_mut(answer.stance) += 1.0;
        }
        let total = shares.total();
        let shares = if total > 0.0 {
            Masses::new(shares.support / total, shares.refute / total, shares.neutral / total)
        } else {
            Masses::only(Stance::Neutral)
        };
        Ok(Answered { mode: ProbeMode::Sampling, answers, shares, usage: completion.usage })
    }
}

/// The sampling seed of one probe: the run's seed mixed with the prompt (FNV-1a), so that
/// every probe draws its own answers (one seed for all would draw the same sequence for each,
/// and their answers would agree by construction) and a re-run draws the same ones.
fn probe_seed(seed: u64, request: &CompletionRequest) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in request.messages.iter().flat_map(|message| message.content.bytes()) {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    seed ^ hash
}

/// The mean of the probes' shares (all neutral for no probe).
fn mean_shares<'a>(probes: impl Iterator<Item = &'a ProbeResult>) -> Masses {
    let mut sum = Masses::default();
    let mut count = 0usize;
    for probe in probes {
        sum.support += probe.shares.support;
        sum.refute += probe.shares.refute;
        sum.neutral += probe.shares.neutral;
        count += 1;
    }
    if count == 0 {
        return Masses::only(Stance::Neutral);
    }
    let n = count as f64;
    Masses::new(sum.support / n, sum.refute / n, sum.neutral / n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_probe_samples_with_its_own_reproducible_seed() {
        let request =
            |text: &str| CompletionRequest::new(vec![factdesk_llm::ChatMessage::user(text)]);
        let (a, b) = (request("Is the claim true?"), request("Is the claim false?"));
        assert_ne!(probe_seed(7, &a), probe_seed(7, &b));
        assert_eq!(probe_seed(7, &a), probe_seed(7, &request("Is the claim true?")));
        assert_ne!(probe_seed(7, &a), probe_seed(8, &a));
    }
}
