//! Labels by a model for the elements a person has not labelled. SGSS's plan has people and
//! LLMs give the same 3-point labels; here:
//!
//! - [`faithfulness_by_verifier`]: the NLI verifier judges the overview and each statement
//!   against the documents it cites, by the grounding rule (`crate::grounding`): every sentence
//!   supported (P ≥ 0.5) is "perfectly", some of them "partially", none "not"; an element
//!   citing no document that is given is "not" (nothing it cites backs it).
//! - [`ChatLabeller`]: the chat model answers one criterion per call with the template
//!   `sgss/label` (2 perfectly, 1 partially, 0 not; the most probable digit is the label):
//!   overview sufficiency (does it answer the question?), overview representativeness (of the
//!   sections), heading representativeness (of each of its statements), statement relevance
//!   (to the question), faithfulness to the cited documents when they are given, and a
//!   summary's relevance to each section of the other summaries (Comp's pool).
//!
//! A label given by a person is never replaced; each model label says which model gave it and
//! why.

use factdesk_llm::prompts::PromptLibrary;
use factdesk_llm::{LanguageModel, Nli};
use factdesk_model::TokenUse;
use serde::{Deserialize, Serialize};

use super::{Labels, NOT, PARTIALLY, PERFECTLY, SectionLabels, StructuredSummary};
use crate::MethodError;
use crate::grounding::{self, GroundingConfig};

/// The digit the chat labeller asks the model for, per grade, best first (the Scores view's
/// keys are the same digits).
pub const GRADE_DIGITS: [(&str, f64); 3] = [("2", PERFECTLY), ("1", PARTIALLY), ("0", NOT)];

/// A label a model gave, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ModelLabel {
    /// The element, named as missing labels are (e.g. "section 1 statement 2 faithfulness").
    pub element: String,
    pub grade: f64,
    /// The model that gave it.
    pub by: String,
    pub why: String,
}

/// What a labeller gave: its labels, the elements it could not label (the model answered no
/// digit), and the tokens it spent (purpose `label`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Labelled {
    pub labels: Vec<ModelLabel>,
    pub unanswered: Vec<String>,
    pub tokens: TokenUse,
}

/// The template the chat model labels with.
pub const LABEL_TEMPLATE: &str = "sgss/label";

/// The purpose of the chat model's labelling calls in token counts.
pub const LABEL_PURPOSE: &str = "label";

/// Words of the cited documents quoted to the chat model.
pub const LABEL_DOCUMENT_WORDS: usize = 600;

/// The documents of `cited` that `documents` has (numbered from 1).
fn given(cited: &[usize], documents: &[String]) -> Vec<usize> {
    cited.iter().copied().filter(|&d| d >= 1 && d <= documents.len()).collect()
}

fn numbers(list: &[usize]) -> String {
    list.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
}

/// Why an element with no usable citation is "not" faithful.
fn uncited(cited: &[usize]) -> String {
    if cited.is_empty() {
        "cites no document".to_owned()
    } else {
        format!("cites only documents not given ({})", numbers(cited))
    }
}

/// Every faithfulness element of `summary`: (name, text, citations, where its label lives).
fn faithfulness_elements(summary: &StructuredSummary) -> Vec<(String, String, Vec<usize>)> {
    let mut out = vec![(
        "overview faithfulness".to_owned(),
        summary.overview.clone(),
        summary.overview_citations.clone(),
    )];
    for (i, section) in summary.sections.iter().enumerate() {
        for (j, statement) in section.statements.iter().enumerate() {
            out.push((
                format!("section {} statement {} faithfulness", i + 1, j + 1),
                statement.text.clone(),
                statement.citations.clone(),
            ));
        }
    }
    out
}

/// The faithfulness label slot of element `index` of [`faithfulness_elements`].
fn faithfulness_slot<'a>(
    summary: &StructuredSummary,
    labels: &'a mut Labels,
    index: usize,
) -> &'a mut Option<f64> {
    fit_labels(summary, labels);
    if index == 0 {
        return &mut labels.overview_faithfulness;
    }
    let mut rest = index - 1;
    for (i, section) in summary.sections.iter().enumerate() {
        if rest < section.statements.len() {
            return &mut labels.sections[i].faithfulness[rest];
        }
        rest -= section.statements.len();
    }
    unreachable!("faithfulness element {index} is past the summary's statements")
}

/// Gives `labels` a slot for every section and statement of `summary`.
fn fit_labels(summary: &StructuredSummary, labels: &mut Labels) {
    labels.sections.resize_with(summary.sections.len(), SectionLabels::default);
    for (section, own) in summary.sections.iter().zip(&mut labels.sections) {
        let n = section.statements.len();
        for list in [&mut own.heading, &mut own.relevance, &mut own.faithfulness] {
            list.resize(n, None);
        }
    }
}

/// Labels, with the verifier `nli`, the faithfulness of the overview and each statement that
/// `labels` leaves out, against the `documents` they cite (numbered from 1).
pub async fn faithfulness_by_verifier(
    nli: &dyn Nli,
    summary: &StructuredSummary,
    labels: &mut Labels,
    documents: &[String],
    config: &GroundingConfig,
) -> Result<Labelled, MethodError> {
    let mut out = Labelled::default();
    for (index, (element, text, cited)) in faithfulness_elements(summary).into_iter().enumerate() {
        if faithfulness_slot(summary, labels, index).is_some() {
            continue;
        }
        let usable = given(&cited, documents);
        let (grade, why) = if usable.is_empty() {
            (NOT, uncited(&cited))
        } else {
            let evidence: Vec<&str> = usable.iter().map(|&d| documents[d - 1].as_str()).collect();
            let grounding = grounding::ground(nli, &evidence.join("\n\n"), &text, config).await?;
            let passed = grounding.sentences.iter().filter(|s| s.support >= 0.5).count();
            let grade = if passed == 0 {
                NOT
            } else if passed == grounding.sentences.len() {
                PERFECTLY
            } else {
                PARTIALLY
            };
            let mut why = format!(
                "{passed} of {} sentence(s) supported by document(s) {}; support {:.2}",
                grounding.sentences.len(),
                numbers(&usable),
                grounding.support
            );
            // What the documents state differently (fact alignment), for the person reading.
            for sentence in grounding.sentences.iter().filter(|s| s.refuted(0.5)) {
                let conflicts: Vec<String> = sentence
                    .conflicts
                    .iter()
                    .map(|pair| format!("claim: {} · evidence: {}", pair.claim, pair.evidence))
                    .collect();
                why.push_str(&format!(
                    "; contradicted (P = {:.2}){}{}",
                    sentence.contradiction,
                    if conflicts.is_empty() { "" } else { ": " },
                    conflicts.join("; ")
                ));
            }
            (grade, why)
        };
        *faithfulness_slot(summary, labels, index) = Some(grade);
        out.labels.push(ModelLabel { element, grade, by: nli.name(), why });
    }
    Ok(out)
}

/// The chat model as a labeller of one question's summaries.
pub struct ChatLabeller<'a> {
    pub model: &'a dyn LanguageModel,
    pub prompts: &'a PromptLibrary,
    pub question: &'a str,
    /// Samples per answer where the model gives no probabilities.
    pub samples: u32,
}

/// One question to the chat model about one element.
struct Ask<'a> {
    criterion: &'a str,
    context_label: &'a str,
    context: &'a str,
    element_label: &'a str,
    element: &'a str,
}

/// The summary as lines: headings and their statements.
fn sections_text(summary: &StructuredSummary) -> String {
    let mut lines = Vec::new();
    for section in &summary.sections {
        lines.push(format!("Section: {}", section.heading));
        lines.extend(section.statements.iter().map(|s| format!("- {}", s.text)));
    }
    lines.join("\n")
}

impl ChatLabeller<'_> {
    /// The model's label for `ask`: the most probable of 2, 1 and 0, or `None` when it gave
    /// none of them; with the answer's probabilities as the reason.
    async fn ask(
        &self,
        ask: Ask<'_>,
        tokens: &mut TokenUse,
    ) -> Result<Option<(f64, String)>, MethodError> {
        let boundary = factdesk_llm::nli::boundary(ask.context, ask.element);
        let request = self.prompts.render_request(
            LABEL_TEMPLATE,
            &serde_json::json!({
                "question": self.question,
                "criterion": ask.criterion,
                "context_label": ask.context_label,
                "context": ask.context,
                "element_label": ask.element_label,
                "element": ask.element,
                "boundary": boundary,
            }),
        )?;
        let answer = match self
            .model
            .answer_probabilities(
                &request,
                &GRADE_DIGITS.map(|(digit, _)| digit),
                self.samples.max(1),
            )
            .await
        {
            Ok(answer) => answer,
            // The model answered, but with none of the digits: no label.
            Err(factdesk_llm::LlmError::InvalidResponse { .. }) => return Ok(None),
            Err(error) => return Err(error.into()),
        };
        tokens.add(
            LABEL_PURPOSE,
            u64::from(answer.usage.prompt_tokens),
            u64::from(answer.usage.completion_tokens),
        );
        let best = GRADE_DIGITS
            .iter()
            .map(|(digit, grade)| (answer.get(digit), *grade))
            .filter(|(p, _)| *p > 0.0)
            .max_by(|a, b| a.0.total_cmp(&b.0));
        Ok(best.map(|(_, grade)| {
            let why = format!(
                "P(2) {:.2}, P(1) {:.2}, P(0) {:.2}",
                answer.get("2"),
                answer.get("1"),
                answer.get("0")
            );
            (grade, why)
        }))
    }

    /// Fills what `labels` leaves out of `summary`'s labels: every criterion but faithfulness,
    /// and faithfulness too when `documents` (the cited list) is given.
    pub async fn label(
        &self,
        summary: &StructuredSummary,
        labels: &mut Labels,
        documents: Option<&[String]>,
    ) -> Result<Labelled, MethodError> {
        let mut out = Labelled::default();
        let by = self.model.info().model;
        fit_labels(summary, labels);
        let sections = sections_text(summary);
        let record = |out: &mut Labelled,
                      slot: &mut Option<f64>,
                      element: String,
                      answer: Option<(f64, String)>| match answer {
            Some((grade, why)) => {
                *slot = Some(grade);
                out.labels.push(ModelLabel { element, grade, by: by.clone(), why });
            }
            None => out.unanswered.push(element),
        };
        if labels.overview_sufficiency.is_none() {
            let ask = Ask {
                criterion: "Does the overview alone answer the question, so that a reader could \
                            stop after it?",
                context_label: "the summary's sections",
                context: &sections,
                element_label: "the overview",
                element: &summary.overview,
            };
            let answer = self.ask(ask, &mut out.tokens).await?;
            let mut slot = None;
            record(&mut out, &mut slot, "overview sufficiency".into(), answer);
            labels.overview_sufficiency = slot;
        }
        if labels.overview_representativeness.is_none() {
            let ask = Ask {
                criterion: "Does the overview represent what the summary's sections say?",
                context_label: "the summary's sections",
                context: &sections,
                element_label: "the overview",
                element: &summary.overview,
            };
            let answer = self.ask(ask, &mut out.tokens).await?;
            let mut slot = None;
            record(&mut out, &mut slot, "overview representativeness".into(), answer);
            labels.overview_representativeness = slot;
        }
        for (i, section) in summary.sections.iter().enumerate() {
            for (j, statement) in section.statements.iter().enumerate() {
                if labels.sections[i].heading[j].is_none() {
                    let ask = Ask {
                        criterion: "Does the section heading represent this statement of its \
                                    section?",
                        context_label: "the section heading",
                        context: &section.heading,
                        element_label: "a statement",
                        element: &statement.text,
                    };
                    let answer = self.ask(ask, &mut out.tokens).await?;
                    let element = format!("section {} heading for statement {}", i + 1, j + 1);
                    record(&mut out, &mut labels.sections[i].heading[j], element, answer);
                }
                if labels.sections[i].relevance[j].is_none() {
                    let ask = Ask {
                        criterion: "Is the statement relevant to the question?",
                        context_label: "the statement's section heading",
                        context: &section.heading,
                        element_label: "a statement",
                        element: &statement.text,
                    };
                    let answer = self.ask(ask, &mut out.tokens).await?;
                    let element = format!("section {} statement {} relevance", i + 1, j + 1);
                    record(&mut out, &mut labels.sections[i].relevance[j], element, answer);
                }
            }
        }
        let Some(documents) = documents else { return Ok(out) };
        for (index, (element, text, cited)) in
            faithfulness_elements(summary).into_iter().enumerate()
        {
            if faithfulness_slot(summary, labels, index).is_some() {
                continue;
            }
            let usable = given(&cited, documents);
            if usable.is_empty() {
                *faithfulness_slot(summary, labels, index) = Some(NOT);
                out.labels.push(ModelLabel {
                    element,
                    grade: NOT,
                    by: by.clone(),
                    why: uncited(&cited),
                });
                continue;
            }
            let joined: Vec<&str> = usable.iter().map(|&d| documents[d - 1].as_str()).collect();
            let context = grounding::first_words(&joined.join("\n\n"), LABEL_DOCUMENT_WORDS);
            let ask = Ask {
                criterion: "Do the cited documents support everything the text says?",
                context_label: "the cited documents",
                context: &context,
                element_label: "the overview or a statement",
                element: &text,
            };
            let answer = self.ask(ask, &mut out.tokens).await?;
            record(&mut out, faithfulness_slot(summary, labels, index), element, answer);
        }
        Ok(out)
    }

    /// Comp's pool row of summary `n` of `summaries`: how relevant it is to each section of
    /// the other summaries, in their order (the row [`super::comp`] takes, with 1 for its own
    /// sections). A section the model gave no digit for counts 0 and is named unanswered.
    pub async fn pool(
        &self,
        n: usize,
        summaries: &[StructuredSummary],
    ) -> Result<(Vec<f64>, Labelled), MethodError> {
        let mut out = Labelled::default();
        let by = self.model.info().model;
        let own = summaries[n].overview.clone() + "\n" + &sections_text(&summaries[n]);
        let mut row = Vec::new();
        for (m, other) in summaries.iter().enumerate() {
            for (k, section) in other.sections.iter().enumerate() {
                if m == n {
                    row.push(PERFECTLY);
                    continue;
                }
                let element = format!(
                    "{}: {}",
                    section.heading,
                    section
                        .statements
                        .iter()
                        .map(|s| s.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                );
                let ask = Ask {
                    criterion: "Does the summary cover what this section of another summary \
                                says?",
                    context_label: "the summary",
                    context: &own,
                    element_label: "a section of another summary",
                    element: &element,
                };
                let name = format!("relevance to summary {} section {}", m + 1, k + 1);
                match self.ask(ask, &mut out.tokens).await? {
                    Some((grade, why)) => {
                        row.push(grade);
                        out.labels.push(ModelLabel { element: name, grade, by: by.clone(), why });
                    }
                    None => {
                        row.push(NOT);
                        out.unanswered.push(name);
                    }
                }
            }
        }
        Ok((row, out))
    }
}

#[cfg(test)]
mod tests {
    use factdesk_llm::{NliJudgement, NliPair, NliScores, TokenUsage};
    use factdesk_testkit::scripted::{Asked, SGSS_LABEL_TEMPLATE, ScriptedModel};

    use crate::scripted::{asked_of, served};

    use super::*;
    use crate::sgss::{Section, Statement, Weights, experience};

    fn summary() -> StructuredSummary {
        StructuredSummary {
            overview: "The bridge closed after cracks were found.".into(),
            overview_citations: vec![1],
            sections: vec![Section {
                heading: "The inspection".into(),
                statements: vec![
                    Statement {
                        text: "Cracks were found in two piers.".into(),
                        citations: vec![1],
                    },
                    Statement { text: "The mayor likes jazz.".into(), citations: vec![] },
                ],
            }],
        }
    }

    const DOCUMENT: &str = "Inspectors found cracks in two piers of the bridge.";

    /// A careful scripted labeller: statements about jazz are neither relevant nor represented
    /// by their heading; everything else is labelled perfectly, but faithfulness (the label
    /// whose quoted context is the cited document) is partial.
    fn careful(asked: &Asked) -> String {
        let digit = if asked.document == DOCUMENT {
            "1"
        } else if asked.claim.starts_with("The mayor likes jazz") {
            "0"
        } else {
            "2"
        };
        digit.to_owned()
    }

    #[tokio::test]
    async fn the_chat_model_labels_what_people_left_out_and_keeps_what_they_gave() {
        let (server, model) = served(ScriptedModel::new().on(SGSS_LABEL_TEMPLATE, careful));
        let prompts = crate::prompts::builtin_library().unwrap();
        let labeller = ChatLabeller {
            model: &*model,
            prompts: &prompts,
            question: "Why did the bridge close?",
            samples: 1,
        };
        let mut labels = Labels { overview_sufficiency: Some(0.5), ..Labels::default() };
        let documents = vec![DOCUMENT.to_owned()];
        let labelled = labeller.label(&summary(), &mut labels, Some(&documents)).await.unwrap();
        // The person's label stays; the model labels the rest.
        assert_eq!(labels.overview_sufficiency, Some(0.5));
        assert!(labelled.labels.iter().all(|l| l.element != "overview sufficiency"));
        assert_eq!(labels.overview_representativeness, Some(PERFECTLY));
        assert_eq!(labels.sections[0].relevance, [Some(PERFECTLY), Some(NOT)]);
        assert_eq!(labels.sections[0].heading, [Some(PERFECTLY), Some(NOT)]);
        // Faithfulness: asked against the cited document; the uncited statement is "not".
        assert_eq!(labels.overview_faithfulness, Some(PARTIALLY));
        assert_eq!(labels.sections[0].faithfulness, [Some(PARTIALLY), Some(NOT)]);
        let uncited =
            labelled.labels.iter().find(|l| l.element == "section 1 statement 2 faithfulness");
        assert_eq!(uncited.unwrap().why, "cites no document");
        assert!(experience(&summary(), &labels, &Weights::default()).missing.is_empty());
        assert!(labelled.unanswered.is_empty());
        assert!(labelled.tokens.0.contains_key(LABEL_PURPOSE));
        // The prompts carry the question and quote the document.
        let mut prompts_seen: Vec<String> =
            asked_of(&server).into_iter().map(|asked| asked.prompt).collect();
        // A scripted model is asked for log-probabilities first, then sampled: one prompt twice.
        prompts_seen.dedup();
        assert_eq!(prompts_seen.len(), 7, "{prompts_seen:#?}");
        assert!(prompts_seen.iter().all(|p| p.contains("Question: Why did the bridge close?")));
        assert!(prompts_seen.iter().any(|p| p.contains("Inspectors found cracks")));
        // Without documents, faithfulness is left to others.
        let mut fresh = Labels::default();
        labeller.label(&summary(), &mut fresh, None).await.unwrap();
        assert_eq!(fresh.overview_faithfulness, None);
        assert_eq!(fresh.sections[0].faithfulness, [None, None]);
    }

    #[tokio::test]
    async fn a_model_that_gives_no_digit_leaves_the_label_missing_and_says_so() {
        let (_server, model) =
            served(ScriptedModel::new().on(SGSS_LABEL_TEMPLATE, |_| "maybe".to_owned()));
        let prompts = crate::prompts::builtin_library().unwrap();
        let labeller =
            ChatLabeller { model: &*model, prompts: &prompts, question: "Q?", samples: 1 };
        let mut labels = Labels::default();
        let labelled = labeller.label(&summary(), &mut labels, None).await.unwrap();
        assert!(labelled.labels.is_empty());
        assert_eq!(labelled.unanswered.len(), 6, "{:?}", labelled.unanswered);
        assert_eq!(labels.overview_sufficiency, None);
        // The pool: the model's own sections count 1, the unanswered one 0.
        let (row, pooled) = labeller.pool(0, &[summary(), summary()]).await.unwrap();
        assert_eq!(row, [PERFECTLY, NOT]);
        assert_eq!(pooled.unanswered, ["relevance to summary 2 section 1"]);
    }

    /// Supports a pair when every word of the hypothesis is in the premise.
    struct Words;

    #[async_trait::async_trait]
    impl Nli for Words {
        fn name(&self) -> String {
            "words".into()
        }

        async fn classify(
            &self,
            pairs: &[NliPair],
        ) -> Result<Vec<NliJudgement>, factdesk_llm::LlmError> {
            Ok(pairs
                .iter()
                .map(|pair| {
                    let premise = pair.premise.to_lowercase();
                    let all = pair
                        .hypothesis
                        .to_lowercase()
                        .split(|c: char| !c.is_alphanumeric())
                        .filter(|w| !w.is_empty())
                        .all(|w| premise.contains(w));
                    let e = if all { 0.9 } else { 0.1 };
                    NliJudgement {
                        scores: NliScores::normalised(e, 1.0 - e, 0.0),
                        usage: TokenUsage::default(),
                    }
                })
                .collect())
        }
    }

    #[tokio::test]
    async fn the_verifier_labels_faithfulness_by_the_grounding_rule() {
        let mut shape = summary();
        shape.sections[0].statements.push(Statement {
            text: "Cracks were found in two piers. The bridge is purple.".into(),
            citations: vec![1, 4],
        });
        let documents = vec!["Cracks were found in two piers, so the bridge closed.".to_owned()];
        let mut labels = Labels::default();
        let labelled = faithfulness_by_verifier(
            &Words,
            &shape,
            &mut labels,
            &documents,
            &GroundingConfig::default(),
        )
        .await
        .unwrap();
        assert_eq!(labels.sections[0].faithfulness, [Some(PERFECTLY), Some(NOT), Some(PARTIALLY)]);
        assert!(labelled.labels.iter().all(|l| l.by == "words"));
        let partial = &labelled.labels.last().unwrap().why;
        assert!(partial.starts_with("1 of 2 sentence(s) supported by document(s) 1;"), "{partial}");
    }
}
