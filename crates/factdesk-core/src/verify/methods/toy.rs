//! A test-only verdict method that shows what adding one takes (issue 45, item 1): this file
//! and its lines in the registry, in [`Method`] and in `[methods]`. Its rule is trivial but
//! real: a claim is supported when one of the corpus sentences retrieved for it holds every
//! word of the claim (letters and digits, any case); not enough info otherwise, and undecided
//! (no evidence) when nothing is retrieved. It reads the corpus through the same adapter as
//! corpus-NLI and asks no model.

use async_trait::async_trait;
use factdesk_methods::evidence::CorpusRetriever;
use factdesk_model::{
    Attribution, ClaimCheck, Envelope, EvidenceSource, TokenUse, Undecided, Verdict,
};
use serde::{Deserialize, Serialize};

use super::{CheckContext, Method, Planned, PlannedMethod, VerdictMethod, at_least_one, nonzero};
use crate::verify::VerifyOptions;
use crate::verify::config::{MethodsSettings, RunModels};
use crate::verify::evidence::Evidence;
use crate::{CoreError, Factdesk, Result};

const NAME: &str = "toy";

/// `[methods.toy]` (left out of the shipped settings: every field has its default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default, deny_unknown_fields)]
pub struct ToySettings {
    /// Corpus sentences read per claim.
    pub sentences: usize,
}

impl Default for ToySettings {
    fn default() -> Self {
        ToySettings { sentences: 5 }
    }
}

/// The toy method as a run runs it.
#[derive(Debug, Clone, PartialEq, Serialize)]
struct ToyConfig {
    sentences: usize,
    corpora: Vec<String>,
}

pub(super) struct Toy;

impl VerdictMethod for Toy {
    fn method(&self) -> Method {
        Method::Toy
    }

    fn name(&self) -> &'static str {
        NAME
    }

    fn short_name(&self) -> &'static str {
        "Toy"
    }

    fn title(&self) -> &'static str {
        "Toy (every word in a corpus sentence)"
    }

    fn hint(&self) -> &'static str {
        "A claim is supported when one sentence found in your corpora holds every word of it."
    }

    fn options(&self) -> &'static [&'static str] {
        &["corpora"]
    }

    fn evidence(&self) -> Evidence {
        Evidence::Corpus
    }

    fn validate(&self, settings: &MethodsSettings) -> std::result::Result<(), String> {
        nonzero(&[("methods.toy.sentences", settings.toy.sentences as u64)])
    }

    fn plan(&self, app: &Factdesk, options: &VerifyOptions) -> Result<Planned> {
        let config = ToyConfig {
            sentences: at_least_one("sentences", app.settings().methods.toy.sentences)?,
            corpora: options.corpora.clone(),
        };
        Planned::new(NAME, config, RunModels::default())
    }
}

/// The claim's words, lower-cased.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

#[async_trait]
impl PlannedMethod for ToyConfig {
    async fn check(&self, context: &CheckContext<'_>, claim: &str) -> Result<ClaimCheck> {
        let found = context
            .corpus(&self.corpora)
            .retrieve(claim, self.sentences)
            .await
            .map_err(CoreError::Internal)?;
        let wanted = words(claim);
        let holding = found.iter().find(|sentence| {
            let have = words(&sentence.text);
            wanted.iter().all(|word| have.contains(word))
        });
        let source = |sentence: &factdesk_methods::evidence::CorpusSentence| EvidenceSource {
            url: sentence.url.clone(),
            title: sentence.title.clone(),
            document_id: Some(sentence.document_id),
            fetched_at: None,
            content_hash: None,
            published_at: None,
        };
        let (verdict, undecided, explanation) = match (found.is_empty(), holding) {
            (true, _) => {
                (Verdict::NotEnoughInfo, Some(Undecided::NoEvidence), "No sentence was found.")
            }
            (false, Some(_)) => (Verdict::Supported, None, "A sentence holds every word."),
            (false, None) => (Verdict::NotEnoughInfo, None, "No sentence holds every word."),
        };
        Ok(ClaimCheck {
            envelope: Envelope {
                method: NAME.into(),
                parameters: serde_json::json!({"sentences": self.sentences}).into(),
                model: String::new(),
                nli_model: None,
                tokens: TokenUse::default(),
                explanation: explanation.into(),
            },
            claim: claim.to_owned(),
            verdict,
            undecided,
            confidence: (!found.is_empty()).then_some(1.0),
            attributions: holding
                .map(|sentence| Attribution {
                    source: source(sentence),
                    sentences: vec![sentence.text.clone()],
                    entailment: 1.0,
                    claim_part: None,
                    pages: Vec::new(),
                })
                .into_iter()
                .collect(),
            sources: found.iter().map(source).collect(),
            premises: Vec::new(),
            left_out: Vec::new(),
            detail: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use factdesk_model::Verdict;

    use crate::verify::{CheckSelection, Method, VerifyOptions};
    use crate::{CancelToken, Factdesk, NoProgress, Settings};

    /// The toy method, chosen by name like any other, checks a collection end to end through
    /// Factdesk: retrieval from an imported corpus, a run with its identity, stored checks.
    #[tokio::test]
    async fn the_toy_method_checks_a_collection_through_factdesk() {
        let dir = tempfile::tempdir().unwrap();
        let app =
            Factdesk::open_with_settings(&dir.path().join("data"), Settings::default()).unwrap();
        let river = "The old bridge crosses the river at Lyon. The ferry stopped running in 1950.";
        crate::testing::import_texts(
            &app,
            &dir.path().join("sources"),
            "towns",
            &[("river.txt", river)],
        )
        .await;
        let claims = [
            "The bridge crosses the river at Lyon.",
            "The bridge crosses the sea at Lyon.",
            "Zebras graze quietly.",
        ];
        let texts: Vec<String> = claims.iter().map(|claim| (*claim).to_owned()).collect();
        app.add_claims("toy claims", &texts, None).unwrap();
        let method: Method = "toy".parse().unwrap();
        let options = VerifyOptions {
            method: Some(method),
            corpora: vec!["towns".into()],
            ..VerifyOptions::default()
        };
        let summary = app
            .verify_collection("toy claims", &options, Arc::new(NoProgress), CancelToken::new())
            .await
            .unwrap();
        assert_eq!((summary.method.as_str(), summary.checked, summary.failed), ("toy", 3, 0));
        let selection = CheckSelection { method: Some(method), run: Some(summary.run_id) };
        let checks = app.collection_checks("toy claims", &selection).unwrap();
        let verdicts: Vec<(&str, Verdict, Option<&str>)> = checks
            .iter()
            .map(|with| {
                let check = &with.check.as_ref().unwrap().check;
                (with.claim.text.as_str(), check.verdict, check.undecided.map(|u| u.as_str()))
            })
            .collect();
        assert_eq!(
            verdicts,
            [
                (claims[0], Verdict::Supported, None),
                (claims[1], Verdict::NotEnoughInfo, None),
                (claims[2], Verdict::NotEnoughInfo, Some("no_evidence")),
            ]
        );
        let supported = &checks[0].check.as_ref().unwrap().check;
        assert_eq!(
            supported.attributions[0].sentences,
            ["The old bridge crosses the river at Lyon."]
        );
        // The run's identity is the method's: with skip_checked, a second run finds every
        // claim checked the same way and checks none.
        let again = VerifyOptions { skip_checked: true, ..options.clone() };
        let again = app
            .verify_collection("toy claims", &again, Arc::new(NoProgress), CancelToken::new())
            .await
            .unwrap();
        assert_eq!((again.checked, again.already_checked), (0, 3), "{again:?}");
        // An option the toy method does not take is refused by name.
        let foreign =
            VerifyOptions { method: Some(method), m: Some(2), ..VerifyOptions::default() };
        let error = app.verify_claim("The bridge crosses the river.", &foreign).await.unwrap_err();
        assert!(error.to_string().contains("toy does not take the option(s) m"), "{error}");
    }
}
