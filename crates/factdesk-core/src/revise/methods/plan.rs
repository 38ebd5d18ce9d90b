//! A revision run's plan, the same for RARR and CoVe: from the method's section and the run's
//! options, the evidence, its granularity, the gate (and, for the NLI gate, its judge), the
//! URL settings for web evidence and the method's `ReviseConfig`.

use factdesk_methods::revise::{Gate, ReviseConfig};

use super::super::{EvidenceChoice, ReviseOptions, RevisePlan, ReviseSettings, parse_evidence};
use crate::models::ModelChoice;
use crate::{CoreError, Factdesk, Result};

/// The plan of the method named `method` from its section `own` and `options`.
pub(super) fn plan(
    app: &Factdesk,
    method: &'static str,
    own: &ReviseSettings,
    options: &ReviseOptions,
) -> Result<RevisePlan> {
    let settings = app.settings();
    let evidence = match options.evidence {
        Some(evidence) => evidence,
        None => parse_evidence(&own.evidence).map_err(CoreError::InvalidInput)?,
    };
    let granularity = match options.granularity {
        Some(granularity) => granularity,
        None => own.granularity.parse().map_err(CoreError::InvalidInput)?,
    };
    let chat = app.model_choice();
    let gate = match options.gate {
        Some(gate) => gate,
        None if own.gate.trim() == "auto" => match chat {
            ModelChoice::Embedded { .. } => Gate::Nli,
            ModelChoice::OpenaiCompatible { .. } => Gate::Chat,
        },
        None => own.gate.parse().map_err(CoreError::InvalidInput)?,
    };
    let nli = match gate {
        Gate::Nli => Some(app.resolve_nli(None, &chat)?),
        Gate::Chat => None,
    };
    if matches!(evidence, EvidenceChoice::None | EvidenceChoice::Web | EvidenceChoice::Source)
        && !options.corpora.is_empty()
    {
        return Err(CoreError::InvalidInput(
            "corpora choose where corpus evidence comes from; with evidence none, web or \
             source, leave them out"
                .into(),
        ));
    }
    let web = (evidence == EvidenceChoice::Web)
        .then(|| {
            let cite = &settings.methods.llm_cite;
            let strategy = cite.urls.parse().map_err(CoreError::InvalidInput)?;
            Ok::<_, CoreError>(factdesk_methods::llm_cite::LlmCiteConfig {
                strategy,
                m: cite.m.max(1),
                r: cite.r.max(1),
                temperature: cite.temperature,
                language: settings.import.language.clone(),
                seed: settings.verify.seed,
                ..factdesk_methods::llm_cite::LlmCiteConfig::default()
            })
        })
        .transpose()?;
    let method = super::ReviseMethod::registered(method).ok_or_else(|| {
        CoreError::Internal(format!("the revision method {method} is not registered"))
    })?;
    Ok(RevisePlan {
        method,
        config: ReviseConfig {
            questions: own.questions.max(1),
            max_growth: own.max_growth,
            max_chars: own.max_chars,
            gate,
            threshold: own.threshold,
            evidence_words: own.evidence_words.max(1),
            language: settings.import.language.clone(),
            seed: settings.verify.seed,
        },
        evidence,
        granularity,
        corpora: options.corpora.clone(),
        chat: chat.model_name(),
        nli,
        web,
        // The judge is a metric: without metrics there is none.
        judge: options.judge && !options.skip_metrics,
    })
}
