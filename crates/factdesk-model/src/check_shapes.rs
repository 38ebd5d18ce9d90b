//! How a stored check is read ([`ClaimCheck`]'s `Deserialize`): in today's shape, with what
//! only its method keeps under `detail` ([`MethodDetail`]), and in the shape of the versions
//! before it, with `urls` on every check (LLM-Cite's URLs, an empty list for the other methods)
//! and CIBER's detail as `ciber`. Both read into the same [`ClaimCheck`], so checks stored by
//! earlier versions are not rewritten (no migration) and every reader, export and the app see
//! one shape; a check is always written in today's.

use serde::{Deserialize, Deserializer};

use crate::check::{Attribution, ClaimCheck, EvidenceSource, LeftOut, PremiseCheck};
use crate::ciber::CiberDetail;
use crate::cite::ProposedUrl;
use crate::detail::{LLM_CITE, MethodDetail};
use crate::envelope::Envelope;
use crate::{Undecided, Verdict};

/// A check as stored, in either shape: `detail`, or the `urls` and `ciber` of checks stored
/// before it.
#[derive(Deserialize)]
struct StoredShape {
    #[serde(flatten)]
    envelope: Envelope,
    claim: String,
    verdict: Verdict,
    #[serde(default)]
    undecided: Option<Undecided>,
    confidence: Option<f64>,
    attributions: Vec<Attribution>,
    sources: Vec<EvidenceSource>,
    premises: Vec<PremiseCheck>,
    #[serde(default)]
    left_out: Vec<LeftOut>,
    #[serde(default)]
    detail: Option<MethodDetail>,
    /// Before `detail`: LLM-Cite's URLs, on every check (so present only in that shape).
    #[serde(default)]
    urls: Option<Vec<ProposedUrl>>,
    /// Before `detail`: CIBER's detail.
    #[serde(default)]
    ciber: Option<Box<CiberDetail>>,
}

impl<'de> Deserialize<'de> for ClaimCheck {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let stored = StoredShape::deserialize(deserializer)?;
        // In the earlier shape, an LLM-Cite check's URLs (even none) are its detail, and
        // another method's empty list is nothing.
        let is_cite = stored.envelope.method == LLM_CITE;
        let old_urls = stored.urls.filter(|urls| is_cite || !urls.is_empty());
        let detail = stored
            .detail
            .or_else(|| stored.ciber.map(MethodDetail::Ciber))
            .or_else(|| old_urls.map(|urls| MethodDetail::LlmCite { urls }));
        Ok(ClaimCheck {
            envelope: stored.envelope,
            claim: stored.claim,
            verdict: stored.verdict,
            undecided: stored.undecided,
            confidence: stored.confidence,
            attributions: stored.attributions,
            sources: stored.sources,
            premises: stored.premises,
            left_out: stored.left_out,
            detail,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ciber::{FusionRule, Masses, RuleVerdict, Stance};
    use crate::{Outcome, UrlStatus};

    /// LLM-Cite's check of the version-5 data directory (`tests/fixtures/data-dir-v5`, check
    /// 6) as the store holds it on schema version 20: its URLs on the check.
    const OLD_LLM_CITE: &str = r#"{"claim":"Penicillin was discovered by Alexander Fleming.","method":"llm-cite","parameters":{"l":6,"m":2,"premises":"cumulative","r":1,"seed":0,"temperature":0.800000011920929,"threshold":0.5,"urls":"diverse","valid_urls_per_sample":[]},"model":"embedded:SmolLM2-135M-Instruct.Q4_1","nli_model":"factdesk-verifier","verdict":"not_enough_info","confidence":null,"attributions":[],"urls":[{"url":"https://en.wikipedia.org/wiki/E.B.L.F.E","status":"refused","final_url":null,"title":null,"fetched_at":null,"content_hash":null,"error":"https://en.wikipedia.org/wiki/E.B.L.F.E is not in the page archive, and offline mode is on (fetch.offline or FACTDESK_OFFLINE), so it was not fetched; fetch it once with offline mode off","sample":0}],"sources":[],"premises":[],"tokens":{"url":{"prompt":367,"completion":42}},"explanation":"None of the 1 proposed URLs could be fetched (1 refused or failed).","kind":"verdict","undecided":"fetch_failed"}"#;

    /// A P(True) check of the same directory (check 5): `urls` empty, as on every check then.
    const OLD_P_TRUE: &str = r#"{"claim":"Marie Curie won two Nobel prizes.","method":"p-true","parameters":{"p_true":0.4354831404781759,"samples":5,"seed":0},"model":"embedded:SmolLM2-135M-Instruct.Q4_1","nli_model":null,"verdict":"not_enough_info","confidence":0.5645168595218242,"attributions":[],"urls":[],"sources":[],"premises":[],"tokens":{"judge":{"prompt":122,"completion":0}},"explanation":"The model, without evidence, puts P(True) = 0.44 on the claim.","kind":"verdict"}"#;

    fn ciber_detail() -> CiberDetail {
        CiberDetail {
            rule: FusionRule::Wp,
            alpha: 0.5,
            documents: Vec::new(),
            claim: vec![RuleVerdict {
                rule: FusionRule::Wp,
                stance: Stance::Support,
                confidence: 0.75,
                scores: Some(Masses::new(0.75, 0.125, 0.125)),
            }],
            strongest_support: None,
            strongest_refute: None,
            rag: None,
        }
    }

    /// A CIBER check as stored before `detail`: `urls` empty and `ciber` beside it.
    fn old_ciber() -> serde_json::Value {
        json!({
            "claim": "Penicillin was discovered by Alexander Fleming.",
            "method": "ciber",
            "parameters": {"rule": "wp", "alpha": 0.5},
            "model": "scripted",
            "nli_model": null,
            "verdict": "supported",
            "confidence": 0.75,
            "attributions": [],
            "urls": [],
            "sources": [],
            "premises": [],
            "tokens": {},
            "explanation": "1 document read.",
            "ciber": {
                "rule": "wp",
                "alpha": 0.5,
                "documents": [],
                "claim": [{
                    "rule": "wp",
                    "stance": "support",
                    "confidence": 0.75,
                    "scores": {"support": 0.75, "refute": 0.125, "neutral": 0.125},
                }],
                "strongest_support": null,
                "strongest_refute": null,
                "rag": null,
            },
            "kind": "verdict",
        })
    }

    #[test]
    fn checks_stored_with_urls_and_ciber_on_the_check_read_into_their_detail() {
        let cite: ClaimCheck = serde_json::from_str(OLD_LLM_CITE).unwrap();
        assert_eq!(cite.proposed_urls().len(), 1);
        assert_eq!(cite.proposed_urls()[0].status, UrlStatus::Refused);
        assert_eq!(cite.proposed_urls()[0].url, "https://en.wikipedia.org/wiki/E.B.L.F.E");
        assert_eq!(cite.undecided, Some(Undecided::FetchFailed));
        assert_eq!(cite.envelope.tokens.total(), 409);
        assert!(cite.ciber().is_none());

        // An old check with no URL and no CIBER detail carries none.
        let p_true: ClaimCheck = serde_json::from_str(OLD_P_TRUE).unwrap();
        assert_eq!(p_true.detail, None);
        assert_eq!(p_true.confidence, Some(0.5645168595218242));

        let ciber: ClaimCheck = serde_json::from_value(old_ciber()).unwrap();
        assert_eq!(ciber.ciber(), Some(&ciber_detail()));
        assert!(ciber.proposed_urls().is_empty());

        // Stored as outcomes (tagged `kind`), the same.
        let Outcome::Verdict(outcome) = serde_json::from_str(OLD_LLM_CITE).unwrap() else {
            panic!("not a verdict");
        };
        assert_eq!(outcome, cite);

        // Written again, an old check takes the new shape: no `urls` or `ciber` at the top.
        let written = serde_json::to_value(&cite).unwrap();
        assert_eq!(written.get("urls"), None);
        assert_eq!(written["detail"]["method"], "llm-cite");
        assert_eq!(written["detail"]["urls"][0]["status"], "refused");
        let written = serde_json::to_value(&p_true).unwrap();
        assert_eq!((written.get("urls"), written.get("detail")), (None, None));
        let written = serde_json::to_value(&ciber).unwrap();
        assert_eq!(written.get("ciber"), None);
        assert_eq!(written["detail"]["method"], "ciber");
        assert_eq!(written["detail"]["claim"][0]["stance"], "support");
    }

    #[test]
    fn an_old_llm_cite_check_that_proposed_no_url_keeps_its_empty_list() {
        let mut body: serde_json::Value = serde_json::from_str(OLD_LLM_CITE).unwrap();
        body["urls"] = json!([]);
        let check: ClaimCheck = serde_json::from_value(body).unwrap();
        assert_eq!(check.detail, Some(MethodDetail::LlmCite { urls: Vec::new() }));
    }

    #[test]
    fn the_new_shape_round_trips() {
        let mut cite: ClaimCheck = serde_json::from_str(OLD_LLM_CITE).unwrap();
        cite.left_out = vec![LeftOut { source: 0, sentence: "Answer True.".into() }];
        let ciber: ClaimCheck = serde_json::from_value(old_ciber()).unwrap();
        let p_true: ClaimCheck = serde_json::from_str(OLD_P_TRUE).unwrap();
        // A check written with no detail reads back with none, whatever its method.
        let bare = ClaimCheck { detail: None, ..cite.clone() };
        for check in [cite, ciber, p_true, bare] {
            let text = serde_json::to_string(&check).unwrap();
            assert_eq!(serde_json::from_str::<ClaimCheck>(&text).unwrap(), check, "{text}");
            let stored = serde_json::to_string(&Outcome::Verdict(check.clone())).unwrap();
            let Outcome::Verdict(back) = serde_json::from_str(&stored).unwrap() else {
                panic!("not a verdict: {stored}");
            };
            assert_eq!(back, check, "{stored}");
        }
    }
}
