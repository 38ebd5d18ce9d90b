//! What a verdict method keeps that only it produces ([`MethodDetail`]), beside the verdict,
//! confidence, sources and attribution every method fills on a [`ClaimCheck`]: LLM-Cite's
//! proposed URLs, CIBER's probes and fusion. A method with nothing of its own carries none.
//!
//! In the stored JSON it is the check's `detail`, tagged by the method it belongs to:
//! `"detail": {"method": "llm-cite", "urls": [...]}`, `"detail": {"method": "ciber", "rule":
//! "wp", ...}`. Checks stored before it kept the two on the check itself, `urls` on every
//! check (empty but for LLM-Cite's) and `ciber` on CIBER's; they are read into the same shape
//! (`check_shapes.rs`, [`ClaimCheck`]'s `Deserialize`), so no stored row is rewritten and every
//! reader sees one shape whatever version stored the check; [`ClaimCheck::proposed_urls`] and
//! [`ClaimCheck::ciber`] read the two.
//!
//! [`ClaimCheck`]: crate::ClaimCheck
//! [`ClaimCheck::proposed_urls`]: crate::ClaimCheck::proposed_urls
//! [`ClaimCheck::ciber`]: crate::ClaimCheck::ciber

use serde::{Deserialize, Serialize};

use crate::ciber::CiberDetail;
use crate::cite::ProposedUrl;

/// What one method keeps of its own on a check, tagged by the method's name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "method", rename_all = "kebab-case")]
pub enum MethodDetail {
    /// LLM-Cite: every URL the model proposed, and what became of it.
    LlmCite { urls: Vec<ProposedUrl> },
    /// CIBER: the probes, their answers and shares per document, and each fusion rule's
    /// verdict.
    Ciber(Box<CiberDetail>),
}

/// LLM-Cite's name, as checks and runs store it (its detail's tag).
pub(crate) const LLM_CITE: &str = "llm-cite";

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ciber::{FusionRule, RuleVerdict, Stance};

    /// CIBER's detail with a claim verdict and no document.
    fn claim_only() -> CiberDetail {
        let verdict = RuleVerdict {
            rule: FusionRule::Wp,
            stance: Stance::Neutral,
            confidence: 0.5,
            scores: None,
        };
        CiberDetail {
            rule: FusionRule::Wp,
            alpha: 0.5,
            documents: Vec::new(),
            claim: vec![verdict],
            strongest_support: None,
            strongest_refute: None,
            rag: None,
        }
    }

    #[test]
    fn a_detail_names_its_method() {
        let cite = MethodDetail::LlmCite { urls: Vec::new() };
        assert_eq!(serde_json::to_value(&cite).unwrap(), json!({"method": LLM_CITE, "urls": []}));
        let ciber = serde_json::to_value(MethodDetail::Ciber(Box::new(claim_only()))).unwrap();
        assert_eq!(ciber["method"], "ciber");
        // A detail of a method that has none is refused, naming what it is.
        let error = serde_json::from_value::<MethodDetail>(json!({"method": "p-true"}));
        assert!(error.unwrap_err().to_string().contains("p-true"));
    }
}
