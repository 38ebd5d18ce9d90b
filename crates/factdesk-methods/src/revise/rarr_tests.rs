//! RARR's research stage against a loopback OpenAI-compatible server that takes JSON Schemas:
//! the searches' schema names each sentence's own words, a model whose searches are all
//! copies of the prompt's examples has its sentence searched for instead (and the step says
//! so), and an edit's schema is one line of bounded length.

use std::sync::Arc;

use factdesk_llm::openai::{OpenAiCompatible, OpenAiSettings};
use factdesk_model::{DocumentId, Revision};
use factdesk_testkit::TestServer;
use factdesk_testkit::scripted::{
    ConstraintMode, RARR_AGREEMENT_TEMPLATE, RARR_EDIT_TEMPLATE, RARR_QUERIES_TEMPLATE,
    ScriptedModel, TEMPLATE_HEADER,
};

use super::{QUERIES_FIELD, SENTENCE_SEARCHED};
use crate::evidence::CorpusDocument;
use crate::revise::evidence::{Granularity, SourceEvidence};
use crate::revise::{ReviseConfig, Reviser};

const PASSAGE: &str = "The Eiffel Tower opened in 1899. It stands in Paris.";

/// A server answering every schema in shape: `searches` for each sentence, a gate that
/// disagrees with 1899, and an edit to 1889.
fn serving(searches: fn(&str) -> Vec<String>) -> TestServer {
    ScriptedModel::new()
        .on_shaped(RARR_QUERIES_TEMPLATE, move |asked| {
            serde_json::json!({ QUERIES_FIELD: searches(&asked.claim) }).to_string()
        })
        .on_shaped(RARR_AGREEMENT_TEMPLATE, |asked| {
            let wrong = asked.claim.contains("1899") && asked.document.contains("1889");
            let verdict = if wrong { "disagrees" } else { "agrees" };
            serde_json::json!({"reasoning": "The years are compared.", "verdict": verdict})
                .to_string()
        })
        .on_shaped(RARR_EDIT_TEMPLATE, |asked| {
            serde_json::json!({"fixed": asked.claim.replace("1899", "1889")}).to_string()
        })
        .constraints(ConstraintMode::JsonSchema)
        .serve()
}

async fn revise(server: &TestServer) -> Revision {
    let mut settings = OpenAiSettings::new(&server.url("/v1"), "small-model");
    settings.max_retries = 0;
    let sentences: Vec<String> = [
        "The Eiffel Tower opened in 1889 for the World's Fair.",
        "The tower stands in Paris, on the Champ de Mars.",
    ]
    .map(String::from)
    .into();
    let article = CorpusDocument {
        id: DocumentId(7),
        title: Some("Eiffel Tower".into()),
        url: None,
        text: sentences.join(" "),
        sentences,
    };
    let reviser = Reviser {
        model: Arc::new(OpenAiCompatible::new(settings).unwrap()),
        nli: None,
        prompts: Arc::new(crate::prompts::builtin_library().unwrap()),
        evidence: Arc::new(
            SourceEvidence::new(vec![article], Granularity::Snippets, None).unwrap(),
        ),
        config: ReviseConfig::default(),
    };
    let revision = super::revise(&reviser, PASSAGE).await.unwrap();
    let outcome = factdesk_model::Outcome::Revision(revision.clone());
    assert_eq!(outcome.inconsistency(), None, "{revision:#?}");
    revision
}

/// The JSON Schemas `server` was sent for `template`, in order.
fn schemas(server: &TestServer, template: &str) -> Vec<serde_json::Value> {
    server
        .requests()
        .iter()
        .filter(|request| {
            request.header(TEMPLATE_HEADER).is_some_and(|name| name.starts_with(template))
        })
        .map(|request| {
            let body: serde_json::Value = serde_json::from_slice(&request.body).unwrap();
            let format = &body["response_format"];
            let schema = if format["type"] == "json_schema" {
                &format["json_schema"]["schema"]
            } else {
                &format["schema"]
            };
            assert!(schema.is_object(), "{template} asked for no schema: {body}");
            schema.clone()
        })
        .collect()
}

#[tokio::test]
async fn each_sentences_searches_must_name_its_own_words() {
    let server = serving(|sentence| vec![format!("What does {sentence} say?")]);
    let revision = revise(&server).await;
    assert_eq!(revision.revised, "The Eiffel Tower opened in 1889. It stands in Paris.");
    let mut patterns: Vec<String> = schemas(&server, RARR_QUERIES_TEMPLATE)
        .iter()
        .map(|schema| {
            let items = &schema["properties"][QUERIES_FIELD]["items"];
            items["pattern"].as_str().unwrap().to_owned()
        })
        .collect();
    patterns.sort();
    // "It stands in Paris." names stands and Paris; "It" and "in" are no search's subject.
    assert_eq!(patterns.len(), 2, "{patterns:?}");
    assert!(patterns[0].contains(")?([Ee]iffel|[Tt]ower|[Oo]pened|1899)"), "{}", patterns[0]);
    assert!(patterns[1].contains(")?([Ss]tands|[Pp]aris)"), "{}", patterns[1]);
    // No step needed the fallback: every search was the model's.
    assert!(revision.steps.iter().all(|step| step.note.as_deref() != Some(SENTENCE_SEARCHED)));
    // The edit's answer is one line of at most 1.5 times the statement and 40 characters.
    let edits = schemas(&server, RARR_EDIT_TEMPLATE);
    assert_eq!(edits.len(), 1);
    let bound = "The Eiffel Tower opened in 1899.".len() * 3 / 2 + 40;
    let fixed = edits[0]["properties"]["fixed"]["pattern"].as_str().unwrap();
    assert!(fixed.ends_with(&format!("{{1,{bound}}}$")), "{fixed}");
}

#[tokio::test]
async fn searches_all_about_something_else_give_way_to_the_sentence_itself() {
    // A server that ignores the pattern and a model that copies the prompt's examples.
    let server =
        serving(|_| vec!["How many Nobel Prizes did Marie Curie win?".into(), "context".into()]);
    let revision = revise(&server).await;
    // Each sentence was still checked, searched for as it is; the copies are kept, unused.
    let fallbacks: Vec<&str> = revision
        .steps
        .iter()
        .filter(|step| step.note.as_deref().is_some_and(|note| note.starts_with(SENTENCE_SEARCHED)))
        .map(|step| step.question.as_str())
        .collect();
    assert_eq!(fallbacks, ["The Eiffel Tower opened in 1899.", "It stands in Paris."]);
    let copies = revision
        .steps
        .iter()
        .filter(|step| step.note.as_deref().is_some_and(|note| note.contains("shares no word")))
        .count();
    assert_eq!(copies, 4, "{:#?}", revision.steps);
    // The searched-for sentence found its evidence, disagreed, and was fixed.
    assert_eq!(revision.revised, "The Eiffel Tower opened in 1889. It stands in Paris.");
    assert_eq!(revision.edits[0].question.as_deref(), Some("The Eiffel Tower opened in 1899."));
    assert!(revision.rejected.is_empty(), "{:?}", revision.rejected);

    // A model that gives no search at all leaves its sentence unchecked, and says so.
    let server = serving(|_| Vec::new());
    let revision = revise(&server).await;
    assert_eq!(revision.revised, PASSAGE);
    assert!(revision.steps.is_empty(), "{:#?}", revision.steps);
    assert_eq!(revision.rejected.len(), 2);
    assert!(revision.rejected.iter().all(|r| r.reason.contains("gave no searches")));
}

/// Answers cut at the token limit mid-JSON: the searches written whole before the cut are
/// searched for; a gate cut before its verdict changes nothing and its step says it was cut.
#[tokio::test]
async fn answers_cut_mid_json_keep_whole_searches_and_name_a_cut_gate() {
    use factdesk_testkit::scripted::cut;

    let server = ScriptedModel::new()
        .replying(RARR_QUERIES_TEMPLATE, |asked| {
            let whole = format!("When did the {} happen?", asked.claim.trim_end_matches('.'));
            let json = serde_json::json!({ QUERIES_FIELD: [whole] }).to_string();
            // The list cut inside its second search.
            Some(cut(&format!("{}, \"Where is th", json.trim_end_matches("]}"))))
        })
        .replying(RARR_AGREEMENT_TEMPLATE, |_| {
            Some(cut(r#"{"reasoning": "The evidence gives 1889 and the statement gives 18"#))
        })
        .constraints(ConstraintMode::JsonSchema)
        .serve();
    let revision = revise(&server).await;
    assert_eq!(revision.revised, PASSAGE, "no verdict, no change");
    let questions: Vec<&str> = revision.steps.iter().map(|step| step.question.as_str()).collect();
    assert_eq!(
        questions,
        [
            "When did the The Eiffel Tower opened in 1899 happen?",
            "When did the It stands in Paris happen?"
        ]
    );
    for step in &revision.steps {
        let note = step.note.as_deref().unwrap_or_default();
        assert!(
            note.starts_with("the gate's answer was cut at the model's answer length"),
            "{note}"
        );
    }
}
