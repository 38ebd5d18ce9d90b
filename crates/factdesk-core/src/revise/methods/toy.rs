//! A test-only revision method that shows what adding one takes (issue 45, item 1): this file
//! and its line in the registry. Its rule is trivial but real: each sentence of the passage is
//! looked up in the run's evidence; a sentence that some evidence found for it holds every word
//! of (letters and digits, any case) is kept, one that the evidence found does not hold is cut,
//! and one no evidence was found for is kept with a note. It asks no model. It has no
//! `[methods.toy-cut]` section: it plans with fixed settings (the evidence the options name,
//! else the passage's sources or the corpus; snippets; the chat gate, which it never asks).

use std::sync::LazyLock;

use async_trait::async_trait;
use factdesk_methods::MethodError;
use factdesk_methods::revise::Reviser;
use factdesk_model::parameters::{MethodParameters, RevisionParameters};
use factdesk_model::{Edit, Envelope, EvidenceSentences, Revision, TokenUse, VerificationStep};

use super::{ReviseSettings, RevisionMethod};
use crate::verify::config::MethodsSettings;

const NAME: &str = "toy-cut";

/// What the toy plans with, in place of a section of its own.
static SECTION: LazyLock<ReviseSettings> = LazyLock::new(|| ReviseSettings {
    evidence: "auto".into(),
    granularity: "snippets".into(),
    gate: "chat".into(),
    questions: 1,
    max_growth: 1.0,
    threshold: 0.5,
    evidence_words: 200,
    max_chars: 20_000,
});

pub(super) struct ToyCut;

#[async_trait]
impl RevisionMethod for ToyCut {
    fn name(&self) -> &'static str {
        NAME
    }

    fn label(&self) -> &'static str {
        "Toy (cuts the sentences the evidence does not hold)"
    }

    fn section<'a>(&self, _settings: &'a MethodsSettings) -> &'a ReviseSettings {
        &SECTION
    }

    async fn revise(&self, reviser: &Reviser, text: &str) -> Result<Revision, MethodError> {
        reviser.check(text)?;
        let spans = sentence_spans(text);
        let mut steps = Vec::with_capacity(spans.len());
        let mut cuts: Vec<(usize, usize, Vec<EvidenceSentences>)> = Vec::new();
        for (index, &(start, end)) in spans.iter().enumerate() {
            let sentence = &text[start..end];
            let (evidence, note) = match reviser.evidence.find(sentence).await {
                Ok(found) => {
                    let evidence: Vec<EvidenceSentences> = found
                        .units
                        .into_iter()
                        .map(|unit| EvidenceSentences {
                            source: unit.source,
                            sentences: unit.sentences,
                        })
                        .collect();
                    (evidence, found.note)
                }
                Err(message) => {
                    (Vec::new(), Some(format!("evidence could not be read: {message}")))
                }
            };
            let wanted = words(sentence);
            let holds = |evidence: &EvidenceSentences| {
                evidence.sentences.iter().any(|held| {
                    let have = words(held);
                    wanted.iter().all(|word| have.contains(word))
                })
            };
            let agrees = (!evidence.is_empty()).then(|| evidence.iter().any(holds));
            if agrees == Some(false) {
                // The sentence goes with the spaces after it; the last one with those before.
                let (from, to) = match spans.get(index + 1) {
                    Some(&(next, _)) => (start, next),
                    None if index > 0 => (spans[index - 1].1, end),
                    None => (start, end),
                };
                cuts.push((from, to, evidence.clone()));
            }
            steps.push(VerificationStep {
                start,
                end,
                question: sentence.to_owned(),
                answer: None,
                evidence,
                agrees,
                agreement: agrees.map(|agrees| if agrees { 1.0 } else { 0.0 }),
                note: note.or_else(|| agrees.is_none().then(|| "no evidence found".to_owned())),
            });
        }
        let edits = merged(text, cuts);
        let mut revised = String::with_capacity(text.len());
        let mut at = 0;
        for edit in &edits {
            revised.push_str(&text[at..edit.start]);
            at = edit.start + edit.before.len();
        }
        revised.push_str(&text[at..]);
        let cut = steps.iter().filter(|step| step.agrees == Some(false)).count();
        Ok(Revision {
            envelope: Envelope {
                method: NAME.into(),
                parameters: MethodParameters::Revision(RevisionParameters {
                    evidence: reviser.evidence.name().to_owned(),
                    granularity: reviser.evidence.granularity(),
                    gate: None,
                    questions: None,
                    max_growth: None,
                    threshold: None,
                    seed: None,
                    calls: None,
                    other: Default::default(),
                }),
                model: String::new(),
                nli_model: None,
                tokens: TokenUse::default(),
                explanation: format!("{cut} sentence(s) the evidence does not hold cut"),
            },
            original: text.to_owned(),
            revised,
            edits,
            steps,
            rejected: Vec::new(),
            metrics: None,
        })
    }
}

/// The sentences of `text`, as byte spans without the spaces around them: each ends at `.`,
/// `!` or `?` followed by a space or the end.
fn sentence_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if start.is_none() && !c.is_whitespace() {
            start = Some(at);
        }
        let ends = matches!(c, '.' | '!' | '?')
            && chars.peek().is_none_or(|(_, next)| next.is_whitespace());
        if let (true, Some(from)) = (ends, start) {
            spans.push((from, at + c.len_utf8()));
            start = None;
        }
    }
    if let Some(from) = start {
        spans.push((from, text.trim_end().len()));
    }
    spans
}

/// The words of `text`, lower-cased.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The cuts as edits, in order, those that touch made one.
fn merged(text: &str, mut cuts: Vec<(usize, usize, Vec<EvidenceSentences>)>) -> Vec<Edit> {
    cuts.sort_by_key(|(from, _, _)| *from);
    let mut edits: Vec<Edit> = Vec::new();
    for (from, to, evidence) in cuts {
        match edits.last_mut() {
            Some(last) if from <= last.start + last.before.len() => {
                let end = to.max(last.start + last.before.len());
                last.before = text[last.start..end].to_owned();
                last.evidence.extend(evidence);
            }
            _ => edits.push(Edit {
                start: from,
                before: text[from..to].to_owned(),
                after: String::new(),
                question: None,
                evidence,
                agreement: None,
            }),
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use factdesk_model::{Outcome, PassageId, PassageKind, SubjectId};
    use factdesk_testkit::scripted::ScriptedModel;

    use crate::revise::{ReviseMethod, ReviseOptions};
    use crate::testing::{import_texts, open_scripted};
    use crate::verify::CheckSelection;
    use crate::{CancelToken, NoProgress, Reporter};

    /// Cancels the run when the second passage starts.
    struct CancelAtSecond {
        started: Mutex<usize>,
        cancel: CancelToken,
    }

    impl Reporter for CancelAtSecond {
        fn working_on(&self, _item: &str) {
            let mut started = self.started.lock().unwrap();
            *started += 1;
            if *started == 2 {
                self.cancel.cancel();
            }
        }
    }

    #[test]
    fn sentences_are_cut_at_their_ends_and_words_read_in_any_case() {
        let text = "The bridge is old.  Is it? It is 1.5 km long";
        let spans: Vec<&str> =
            super::sentence_spans(text).iter().map(|&(from, to)| &text[from..to]).collect();
        assert_eq!(spans, ["The bridge is old.", "Is it?", "It is 1.5 km long"]);
        assert_eq!(super::words("Lyon's BRIDGE"), ["lyon", "s", "bridge"]);
    }

    /// The toy method, named like any other, revises a stored passage as a run of its own and
    /// every passage of a collection through the resumable batch runner.
    #[tokio::test]
    async fn the_toy_method_revises_passages_through_factdesk_and_resumes() {
        let model = ScriptedModel::new().serve();
        let dir = tempfile::tempdir().unwrap();
        let app = open_scripted(&dir.path().join("data"), model.url("/v1"));
        let river = "The old bridge crosses the river at Lyon. The ferry stopped running in 1950.";
        import_texts(&app, &dir.path().join("sources"), "towns", &[("river.txt", river)]).await;
        let river = app.documents(Some("towns"), None, 0).unwrap()[0].id;
        let texts = [
            "The old bridge crosses the river at Lyon. Dragons guard the bridge over the river.",
            "The ferry stopped running in 1950.",
            "Zebras graze by the river at Lyon. The ferry stopped running in 1950.",
        ];
        for text in texts {
            app.add_passage("toy passages", PassageKind::Summary, text, None, &[river]).unwrap();
        }
        let passages = app.passages("toy passages").unwrap();
        let method: ReviseMethod = "toy-cut".parse().unwrap();
        let options = ReviseOptions { skip_metrics: true, ..ReviseOptions::default() };

        // One stored passage: the sentence its source does not hold is cut.
        let stored = app.revise_passage(passages[0].id, method, &options).await.unwrap();
        assert_eq!(stored.subject, Some(SubjectId::Passage(passages[0].id)));
        let Outcome::Revision(revision) = &stored.outcome else { panic!("{stored:?}") };
        assert_eq!(stored.outcome.inconsistency(), None, "{revision:#?}");
        assert_eq!(revision.envelope.method, "toy-cut");
        assert_eq!(revision.revised, "The old bridge crosses the river at Lyon.");
        let agrees: Vec<Option<bool>> = revision.steps.iter().map(|step| step.agrees).collect();
        assert_eq!(agrees, [Some(true), Some(false)]);
        assert_eq!(revision.edits.len(), 1);
        assert_eq!(revision.edits[0].before, " Dragons guard the bridge over the river.");
        assert!(!revision.edits[0].evidence.is_empty());

        // The collection, cancelled as its second passage starts, then resumed: the same run
        // goes on with the passages it had not revised.
        let cancel = CancelToken::new();
        let reporter = CancelAtSecond { started: Mutex::new(0), cancel: cancel.clone() };
        let options = ReviseOptions { concurrency: Some(1), ..options };
        let first = app
            .revise_collection("toy passages", method, &options, Arc::new(reporter), cancel)
            .await
            .unwrap();
        assert!(first.cancelled && !first.resumed, "{first:?}");
        assert!((1..3).contains(&first.revised), "{first:?}");
        let second = app
            .revise_collection(
                "toy passages",
                method,
                &options,
                Arc::new(NoProgress),
                CancelToken::new(),
            )
            .await
            .unwrap();
        assert!(second.resumed && !second.cancelled, "{second:?}");
        assert_eq!(second.run_id, first.run_id);
        assert_eq!(second.method, "toy-cut");
        assert_eq!(second.already_revised, first.revised);
        assert_eq!(first.revised + second.revised, 3);
        assert_eq!(first.changed + second.changed, 2);
        let selection = CheckSelection { method: None, run: Some(first.run_id) };
        let mut revised: Vec<(PassageId, String)> = app
            .outcomes("toy passages", &selection)
            .unwrap()
            .into_iter()
            .map(|stored| match (stored.subject, stored.outcome) {
                (Some(SubjectId::Passage(id)), Outcome::Revision(revision)) => {
                    (id, revision.revised)
                }
                other => panic!("{other:?}"),
            })
            .collect();
        revised.sort_by_key(|(id, _)| id.0);
        let expected: Vec<(PassageId, String)> = passages
            .iter()
            .zip([
                "The old bridge crosses the river at Lyon.",
                "The ferry stopped running in 1950.",
                "The ferry stopped running in 1950.",
            ])
            .map(|(passage, text)| (passage.id, text.to_owned()))
            .collect();
        assert_eq!(revised, expected);
        // It asked no model.
        assert!(model.requests().is_empty());
    }
}
