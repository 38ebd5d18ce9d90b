//! TTS with a scripted chat model that drafts by listing the documents' sentences, decomposes
//! a draft into its sentences, and gives stances by reading the document: a claim it holds is
//! supported, one it holds negated ("It is false that …") contradicted, anything else abstained.

use std::sync::Arc;

use factdesk_llm::{LanguageModel, NliPair};
use factdesk_testkit::scripted::{Asked, ScriptedModel, context_exceeded};

use crate::scripted::{asked_of, down, served};

use super::baselines::Baseline;
use super::score::DEFAULT_TAU;
use super::*;

const NEGATION: &str = "It is false that ";

fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_lowercase().collect::<String>() + chars.as_str()).unwrap_or_default()
}

fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().collect::<String>() + chars.as_str()).unwrap_or_default()
}

// The documents quoted in a prompt (between its marker lines, in pairs).
use factdesk_testkit::scripted::quoted_documents as quoted;

fn sentences(text: &str) -> Vec<String> {
    text.split_inclusive('.').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect()
}

fn stance(document: &str, claim: &str) -> &'static str {
    if document.contains(claim) {
        return "supports";
    }
    let opposite = match claim.strip_prefix(NEGATION) {
        Some(inner) => upper_first(inner),
        None => format!("{NEGATION}{}", lower_first(claim)),
    };
    if document.contains(&opposite) { "contradicts" } else { "abstains" }
}

/// The source's stances (the source quoted first, the claims last) as [`stance`] reads them.
fn stances(asked: &Asked) -> String {
    let mut parts = quoted(&asked.prompt);
    let claims = parts.pop().unwrap();
    let document = parts.remove(0);
    claims
        .lines()
        .filter_map(|line| line.split_once(". "))
        .map(|(number, claim)| format!("{number}. {}", stance(&document, claim)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The testkit's model drafting from every quoted document's sentences and listing a draft's
/// sentences as its claims (its own TTS scripts), with stances read by [`stance`].
fn careful() -> ScriptedModel {
    ScriptedModel::new().on(STANCES_TEMPLATE, stances)
}

fn sources() -> Vec<Source> {
    let texts = [
        "The bridge closed on Monday. Cracks were found in two piers.",
        "Cracks were found in two piers. The bridge closed on Monday. Repairs take six months.",
        "The bridge closed on Monday. Repairs take six months.",
        "Repairs take six months. Traffic uses the old road. Cracks were found in two piers.",
        "It is false that the bridge closed on Monday. It is false that cracks were found in two piers. It is false that repairs take six months.",
    ];
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| Source { name: format!("source {}", i + 1), text: (*t).to_owned() })
        .collect()
}

fn tts(model: Arc<dyn LanguageModel>) -> Tts {
    Tts {
        model,
        prompts: Arc::new(crate::prompts::builtin_library().unwrap()),
        config: TtsConfig::default(),
        concurrency: 1,
        nli: None,
        progress: Arc::new(Quiet),
    }
}

#[tokio::test]
async fn leave_one_out_drafts_exclude_their_source_and_the_liar_is_dropped() {
    let (server, model) = served(careful());
    let given = sources();
    let result = tts(model).run("Why did the bridge close?", &given).await.unwrap();
    let drafts: Vec<String> = asked_of(&server)
        .into_iter()
        .filter(|asked| asked.template == DRAFT_TEMPLATE)
        .map(|asked| asked.prompt)
        .collect();
    // One leave-one-out draft per source, then the final one.
    assert_eq!(drafts.len(), 6);
    for (i, draft) in drafts[..5].iter().enumerate() {
        let documents = quoted(draft);
        assert_eq!(documents.len(), 4, "draft {i}");
        assert!(!documents.contains(&given[i].text), "draft {i} read its own source");
    }
    let scores: Vec<f64> = result.sources.iter().map(|s| s.score).collect();
    let liar = &result.sources[4];
    assert!(liar.score < DEFAULT_TAU && !liar.kept, "{scores:?}");
    assert!(result.sources[..4].iter().all(|s| s.score > liar.score), "{scores:?}");
    // The final answer reads only the kept sources: never the liar.
    let last = quoted(drafts.last().unwrap());
    assert!(!last.contains(&given[4].text));
    let kept = result.sources.iter().filter(|s| s.kept).count();
    assert_eq!(last.len(), kept, "{scores:?}");
    assert!(kept >= 1 && result.summary.is_some());
    // Stances: every distinct source on every claim, the draft's claims from the others.
    for scored in &result.sources {
        assert_eq!(scored.stances.len(), 5);
        assert!(scored.stances.iter().all(|row| row.len() == scored.claims.len()));
        assert!(!scored.claims.is_empty());
    }
    // The majority rule is reported beside it; calls: 5 drafts, 5 claims, 25 stances, 1 final.
    assert!(result.sources.iter().all(|s| s.majority.is_finite()));
    assert_eq!(result.calls, 36);
    // Reproducible: the same seed gives the same permutations and scores.
    let (_again_server, again_model) = served(careful());
    let again = tts(again_model).run("Why did the bridge close?", &given).await.unwrap();
    assert_eq!(again.sources, result.sources);
}

#[tokio::test]
async fn a_call_too_long_for_the_servers_context_fails_alone_and_the_run_goes_on() {
    let given = sources();
    let (second, fourth) = (given[1].text.clone(), given[3].text.clone());
    // The draft without source 2 and every stance call over source 4 exceed the context.
    let (server, model) = served(
        careful()
            .replying(DRAFT_TEMPLATE, move |asked| {
                let documents = quoted(&asked.prompt);
                (documents.len() == 4 && !documents.contains(&second))
                    .then(|| context_exceeded(3000, 2048))
            })
            .replying(STANCES_TEMPLATE, move |asked| {
                let documents = quoted(&asked.prompt);
                (documents.first() == Some(&fourth)).then(|| context_exceeded(3000, 2048))
            }),
    );
    let result = tts(model).run("Why did the bridge close?", &given).await.unwrap();
    let noted = |start: &str| result.notes.iter().any(|note| note.starts_with(start));
    let refused = format!(
        "source 2: its leave-one-out draft failed (the model server at {} refused a prompt of 3000 tokens",
        server.url("/v1")
    );
    assert!(noted(&refused), "{:?}", result.notes);
    assert!(result.sources[1].claims.is_empty() && result.sources[1].score == 0.0);
    assert!(
        noted("source 4 on source 1's claims: the call for 7 stance(s) failed (the model"),
        "{:?}",
        result.notes
    );
    // The other sources were scored from their claims, source 4's stances abstaining.
    for i in [0, 2, 3, 4] {
        assert!(!result.sources[i].claims.is_empty(), "source {}", i + 1);
        assert!(result.sources[i].stances[3].iter().all(|stance| *stance == Stance::Neutral));
    }
    assert!(result.summary.is_some(), "{:?}", result.notes);

    // A server that is down still stops the run.
    assert!(tts(down()).run("Why did the bridge close?", &given).await.is_err());
}

#[tokio::test]
async fn too_few_distinct_sources_empty_ones_and_unread_stances_are_named() {
    let (_server, model) = served(careful());
    let given = sources();
    // Two copies of one source and one other: two distinct sources.
    let copies = vec![
        given[0].clone(),
        Source { name: "copy".into(), text: given[0].text.to_uppercase() },
        given[2].clone(),
    ];
    let error = tts(model.clone()).run("Q?", &copies).await.unwrap_err().to_string();
    assert!(error.contains("at least 3 distinct sources (3 given, 2 after collapsing"), "{error}");
    let mut blank = given.clone();
    blank[1].text = "  ".into();
    let error = tts(model.clone()).run("Q?", &blank).await.unwrap_err().to_string();
    assert!(error.contains("source 2"), "{error}");
    assert!(tts(model).run(" ", &given).await.is_err());
    // A stance answer that names only some claims: the rest abstain, and a note says so.
    let (stances, read) = parse_stances("1. supports\n3: contradicts\nnonsense\n9. supports", 4);
    assert_eq!(stances, [Stance::Support, Stance::Neutral, Stance::Refute, Stance::Neutral]);
    assert_eq!(read, 2);
    let (stances, read) = parse_stances(
        "1. does not support it\n**2.** abstains: neither supports nor contradicts\nClaim 3: contradicts",
        3,
    );
    assert_eq!(stances, [Stance::Neutral, Stance::Neutral, Stance::Refute]);
    assert_eq!(read, 3);
    // A JSON list of stances is read in order; a stance missing or unreadable abstains.
    let listed = r#"{"stances": ["supports", "does not support", "contradicts", "maybe"]}"#;
    let (stances, read) = parse_stance_answer(listed, 5);
    assert_eq!(
        stances,
        [Stance::Support, Stance::Neutral, Stance::Refute, Stance::Neutral, Stance::Neutral]
    );
    assert_eq!(read, 3);
    assert_eq!(parse_stance_answer(listed, 1), (vec![Stance::Support], 1));
    assert_eq!(parse_stance_answer("1. supports", 1), (vec![Stance::Support], 1));
    let schema = stances_schema(3);
    assert_eq!(schema["properties"][STANCES_FIELD]["minItems"], 3);
    assert_eq!(schema["properties"][STANCES_FIELD]["maxItems"], 3);
    // Settings that would score nothing are refused before any call.
    let nan = TtsConfig { tau: f64::NAN, ..TtsConfig::default() };
    assert!(check(&nan, "Q?", &given).is_err());
    let none = TtsConfig { max_claims: 0, ..TtsConfig::default() };
    assert!(check(&none, "Q?", &given).unwrap_err().to_string().contains("at least 1"));
}

#[tokio::test]
async fn the_baselines_answer_from_every_source_or_from_the_majority() {
    let given = sources();
    let (_server, model) = served(
        careful()
            .on(super::baselines::MAJORITY_TEMPLATE, |asked| {
                format!("{} documents", quoted(&asked.prompt).len())
            })
            .on(super::baselines::FROM_CLAIMS_TEMPLATE, |asked| quoted(&asked.prompt).remove(0)),
    );
    let method = tts(model);
    let question = "Why did the bridge close?";
    let all = method.baseline(Baseline::AllSources, question, &given).await.unwrap();
    // The all-sources answer reads every source, the liar's included.
    assert!(all.summary.as_deref().unwrap().contains(NEGATION), "{all:?}");
    assert_eq!(all.calls, 1);
    let prompt = method.baseline(Baseline::MajorityPrompt, question, &given).await.unwrap();
    assert_eq!(prompt.summary.as_deref(), Some("5 documents"));
    let claims = method.baseline(Baseline::MajorityClaims, question, &given).await.unwrap();
    // The liar's negated claims have one supporter of five; the true ones two or more, and
    // those three or more are kept.
    let kept: Vec<&String> = claims
        .claims
        .iter()
        .zip(&claims.kept_claims)
        .filter(|(_, k)| **k)
        .map(|(c, _)| c)
        .collect();
    assert!(!kept.is_empty() && kept.iter().all(|c| !c.starts_with(NEGATION)), "{claims:?}");
    let answer = claims.summary.as_deref().unwrap();
    assert!(
        !answer.contains(NEGATION) && answer.contains("Cracks were found in two piers."),
        "{answer}"
    );
    assert_eq!(claims.stances.len(), 5);
    // 1 draft, 1 claims call, 5 stance calls, 1 answer.
    assert_eq!(claims.calls, 8);
}

/// A three-way NLI model reading the premise as the scripted stances do: entailment when the
/// premise holds the hypothesis, contradiction when it holds it negated, else neutral.
struct ReadingNli;

#[async_trait::async_trait]
impl factdesk_llm::Nli for ReadingNli {
    fn name(&self) -> String {
        "reading".into()
    }

    async fn classify(
        &self,
        pairs: &[NliPair],
    ) -> Result<Vec<factdesk_llm::NliJudgement>, factdesk_llm::LlmError> {
        Ok(pairs
            .iter()
            .map(|pair| {
                let scores = match stance(&pair.premise, &pair.hypothesis) {
                    "supports" => factdesk_llm::NliScores::normalised(0.9, 0.1, 0.0),
                    "contradicts" => factdesk_llm::NliScores::normalised(0.0, 0.1, 0.9),
                    _ => factdesk_llm::NliScores::normalised(0.1, 0.8, 0.1),
                };
                factdesk_llm::NliJudgement { scores, usage: Default::default() }
            })
            .collect())
    }
}

#[tokio::test]
async fn stances_by_the_verifier_drop_the_liar_without_a_stance_call() {
    let (server, model) = served(careful());
    let mut method = tts(model.clone());
    method.config.stance_judge = StanceJudge::Verifier;
    method.nli = Some(Arc::new(ReadingNli));
    let result = method.run("Why did the bridge close?", &sources()).await.unwrap();
    let stance_calls =
        asked_of(&server).iter().filter(|asked| asked.template == STANCES_TEMPLATE).count();
    assert_eq!(stance_calls, 0);
    let liar = &result.sources[4];
    assert!(!liar.kept && liar.score < DEFAULT_TAU, "{:?}", result.sources);
    // The liar contradicts the others' claims it negates, by the NLI model's contradiction.
    let truthful = &result.sources[0];
    assert!(truthful.stances[4].contains(&Stance::Refute), "{truthful:?}");
    assert!(result.sources.iter().filter(|s| s.kept).count() >= 3, "{:?}", result.sources);
    assert!(result.notes.iter().any(|n| n.contains("by reading")), "{:?}", result.notes);
    // Without a model loaded it says so.
    let mut unloaded = tts(model);
    unloaded.config.stance_judge = StanceJudge::Verifier;
    let error = unloaded.run("Why?", &sources()).await.unwrap_err();
    assert!(error.to_string().contains("need an NLI model"), "{error}");
}

#[tokio::test]
async fn sources_in_different_languages_run_without_a_panic() {
    let (_server, model) = served(careful());
    let texts = [
        "The bridge closed on Monday. Cracks were found in two piers.",
        "桥梁于周一关闭。两个桥墩发现了裂缝。",
        "أُغلق الجسر يوم الاثنين. وُجدت شقوق في دعامتين.",
        "Le pont a fermé lundi. Des fissures ont été trouvées.",
    ];
    let given: Vec<Source> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| Source { name: format!("source {}", i + 1), text: (*t).to_owned() })
        .collect();
    let result = tts(model).run("Why did the bridge close?", &given).await.unwrap();
    assert_eq!(result.sources.len(), 4);
    for source in &result.sources {
        assert!(source.score.is_finite(), "{source:?}");
        assert_eq!(source.stances.len(), 4);
    }
}

#[test]
fn claims_are_read_from_a_json_list_first_and_a_numbered_list_otherwise() {
    let listed = r#"{"claims": ["1. Okra is a plant.", "- It grows in\nwarm places.", "okra is a plant.", " ", "Pods are green."]}"#;
    assert_eq!(
        parse_claims(listed, 5),
        ["Okra is a plant.", "It grows in warm places.", "Pods are green."]
    );
    assert_eq!(parse_claims(listed, 2), ["Okra is a plant.", "It grows in warm places."]);
    let free = "1. Okra is a plant.\n2. It grows in warm places.";
    assert_eq!(parse_claims(free, 5), ["Okra is a plant.", "It grows in warm places."]);
    // A sentence that is no list gives no claims, as before.
    assert!(parse_claims("Okra is a plant.", 5).is_empty());
    assert_eq!(claims_schema(4)["properties"][CLAIMS_FIELD]["maxItems"], 4);
}

/// A draft's claims from a loopback server that answers a schema with a JSON list (one line,
/// which the free-text reader would find no claims in), refuses it, or ignores it.
#[tokio::test]
async fn a_drafts_claims_are_asked_for_in_shape_and_read_in_every_case() {
    use factdesk_llm::openai::{OpenAiCompatible, OpenAiSettings};
    use factdesk_testkit::scripted::{
        ConstraintMode, ScriptedModel as Served, TTS_CLAIMS_TEMPLATE,
    };

    let draft = "The bridge closed in May. Repairs take a year.";
    let want = ["The bridge closed in May.", "Repairs take a year."];
    assert!(parse_claims(r#"{"claims": ["a"]}"#, 5) == ["a"]);
    assert!(crate::revise::cove::parse_questions(r#"{"claims": ["a"]}"#, 5).is_empty());
    for mode in [ConstraintMode::JsonSchema, ConstraintMode::Strict, ConstraintMode::Ignore] {
        let server = Served::new()
            .on_shaped(TTS_CLAIMS_TEMPLATE, |asked| {
                let claims: Vec<String> = sentences(&asked.document);
                serde_json::json!({ "claims": claims }).to_string()
            })
            .constraints(mode)
            .serve();
        let mut settings = OpenAiSettings::new(&server.url("/v1"), "small-model");
        settings.max_retries = 0;
        let model = Arc::new(OpenAiCompatible::new(settings).unwrap());
        let method = tts(model.clone());
        let (mut tokens, mut calls) = (TokenUse::default(), 0);
        for _ in 0..2 {
            let (claims, cut) =
                method.claims(draft, "Why?", &mut tokens, &mut calls).await.unwrap();
            assert!(!cut);
            assert_eq!(claims, want, "{mode:?}");
        }
        let schemas: Vec<bool> = server
            .requests()
            .iter()
            .map(|request| {
                let body: serde_json::Value = serde_json::from_slice(&request.body).unwrap();
                // OpenAI's form, or llama-cpp-python's after OpenAI's was refused.
                let format = &body["response_format"];
                let schema = format.get("json_schema").map_or(&format["schema"], |s| &s["schema"]);
                schema["properties"]["claims"]["maxItems"] == TtsConfig::default().max_claims
            })
            .collect();
        let expected: &[bool] = match mode {
            // Refused in both forms, asked again without, and not sent with the next draft's.
            ConstraintMode::Strict => &[true, true, false, false],
            _ => &[true, true],
        };
        assert_eq!(schemas, expected, "{mode:?}");
    }
}

/// A whole run against a loopback server: answered in shape (claims and stances as JSON
/// lists), with the schemas refused, or with them ignored, it scores every source alike.
#[tokio::test]
async fn a_run_scores_alike_whether_the_server_answers_in_shape_refuses_or_ignores() {
    use factdesk_llm::openai::{OpenAiCompatible, OpenAiSettings};
    use factdesk_testkit::scripted::{
        ConstraintMode, ScriptedModel as Served, TTS_CLAIMS_TEMPLATE, TTS_STANCES_TEMPLATE,
        tts_stances,
    };

    let given = sources();
    let mut runs = Vec::new();
    for mode in [ConstraintMode::JsonSchema, ConstraintMode::Strict, ConstraintMode::Ignore] {
        let server = Served::new()
            .on_shaped(TTS_CLAIMS_TEMPLATE, |asked| {
                serde_json::json!({ "claims": sentences(&asked.document) }).to_string()
            })
            .on_shaped(TTS_STANCES_TEMPLATE, |asked| {
                let words: Vec<String> = tts_stances(asked)
                    .lines()
                    .filter_map(|line| line.split_once(". ").map(|(_, word)| word.to_owned()))
                    .collect();
                serde_json::json!({ "stances": words }).to_string()
            })
            .constraints(mode)
            .serve();
        let mut settings = OpenAiSettings::new(&server.url("/v1"), "small-model");
        settings.max_retries = 0;
        let model = Arc::new(OpenAiCompatible::new(settings).unwrap());
        let method = tts(model);
        let result = method.run("Why did the bridge close?", &given).await.unwrap();
        let shaped = server
            .requests()
            .iter()
            .filter(|request| {
                let body: serde_json::Value = serde_json::from_slice(&request.body).unwrap();
                body.get("response_format").is_some()
            })
            .count();
        match mode {
            ConstraintMode::Strict => {
                assert_eq!(shaped, 2, "refused in both forms once, then withheld")
            }
            _ => assert!(shaped > given.len(), "{mode:?}: {shaped}"),
        }
        runs.push((serde_json::to_value(&result.sources).unwrap(), result.summary, result.notes));
    }
    assert_eq!(runs[0], runs[1]);
    assert_eq!(runs[0], runs[2]);
}

#[test]
fn a_draft_is_read_from_its_sentences_or_its_free_text_up_to_a_cut() {
    let marker = factdesk_llm::nli::boundary("documents", "Why?");
    let hex = marker.trim_start_matches("DATA-");
    // The JSON list's sentences, one after another, without an echoed (garbled) marker.
    let listed = format!(
        r#"{{"sentences": ["<<<Data-{}>>*", "The bridge closed.", "Repairs take a year."]}}"#,
        &hex[..20]
    );
    let draft = super::answers::parse_draft(&listed, &marker, false);
    assert_eq!(draft.text, "The bridge closed. Repairs take a year.");
    // Free text cut at the token limit ends at its last whole sentence; not cut, it is whole.
    let free =
        format!("<<<{marker}>>>\nThe bridge closed (in May). It reopens \"soon.\" Repairs take");
    let cut = super::answers::parse_draft(&free, &marker, true);
    assert_eq!(cut.text, "The bridge closed (in May). It reopens \"soon.\"");
    assert!(cut.cut);
    assert_eq!(
        super::answers::parse_draft(&free, &marker, false).text,
        "The bridge closed (in May). It reopens \"soon.\" Repairs take"
    );
    // A cut draft with no whole sentence is kept as it is, and a cut JSON list keeps the
    // sentences written whole.
    assert_eq!(
        super::answers::parse_draft("Repairs take 2.5", &marker, true).text,
        "Repairs take 2.5"
    );
    let cut = r#"{"sentences": ["The bridge closed.", "Repairs ta"#;
    assert_eq!(super::answers::parse_draft(cut, &marker, true).text, "The bridge closed.");
    let schema = super::answers::draft_schema();
    assert_eq!(
        schema["properties"][super::answers::DRAFT_FIELD]["maxItems"],
        super::answers::DRAFT_SENTENCES
    );
    let items = &schema["properties"][super::answers::DRAFT_FIELD]["items"]["pattern"];
    assert!(
        items
            .as_str()
            .unwrap()
            .ends_with(&format!("{{1,{}}}$", super::answers::DRAFT_SENTENCE_CHARS))
    );
}

/// Against a loopback server: drafts are asked for as a few bounded sentences and read from
/// them; where the server answers in free text cut at the token limit, or cuts the claims'
/// JSON list, the run goes on with what was written whole, each cut named for its source.
#[tokio::test]
async fn drafts_are_asked_for_in_bounded_sentences_and_cut_answers_are_named() {
    use factdesk_testkit::scripted::{
        ConstraintMode, ScriptedModel as Served, TTS_CLAIMS_TEMPLATE, TTS_DRAFT_TEMPLATE, cut,
        tts_draft,
    };

    let given = sources();
    let question = "Why did the bridge close?";
    // A server that takes the schema: the draft's sentences come as a JSON list.
    let server = Served::new()
        .on(STANCES_TEMPLATE, stances)
        .on_shaped(TTS_DRAFT_TEMPLATE, |asked| {
            let listed: Vec<String> = sentences(&tts_draft(asked)).into_iter().take(5).collect();
            serde_json::json!({ "sentences": listed }).to_string()
        })
        .constraints(ConstraintMode::JsonSchema)
        .serve();
    let mut settings = factdesk_llm::openai::OpenAiSettings::new(&server.url("/v1"), "small-model");
    settings.max_retries = 0;
    let model = Arc::new(factdesk_llm::openai::OpenAiCompatible::new(settings).unwrap());
    let result = tts(model).run(question, &given).await.unwrap();
    let drafts: Vec<serde_json::Value> = server
        .requests()
        .iter()
        .filter(|request| {
            request
                .header(factdesk_testkit::scripted::TEMPLATE_HEADER)
                .is_some_and(|name| name.starts_with(DRAFT_TEMPLATE))
        })
        .map(|request| serde_json::from_slice(&request.body).unwrap())
        .collect();
    assert_eq!(drafts.len(), 6);
    for body in &drafts {
        let schema = &body["response_format"]["json_schema"]["schema"];
        assert_eq!(schema, &super::answers::draft_schema(), "{body}");
    }
    // Source 1's draft: the others' first five sentences, one after another.
    assert_eq!(
        result.sources[0].draft,
        "Cracks were found in two piers. The bridge closed on Monday. Repairs take six months. \
         Traffic uses the old road. It is false that the bridge closed on Monday."
    );
    assert!(result.notes.iter().all(|note| !note.contains("cut")), "{:?}", result.notes);

    // A server without schemas cutting every draft mid-sentence and every claims list mid-JSON.
    let (_server, model) = served(
        careful()
            .replying(TTS_DRAFT_TEMPLATE, |asked| {
                Some(cut(&format!("{} Inspectors sa", tts_draft(asked))))
            })
            .replying(TTS_CLAIMS_TEMPLATE, |asked| {
                let claims = sentences(&asked.document);
                Some(cut(&format!(r#"{{"claims": ["{}", "{}"#, claims[0], &claims[1][..5])))
            }),
    );
    let result = tts(model.clone()).run(question, &given).await.unwrap();
    for (i, scored) in result.sources.iter().enumerate() {
        assert!(!scored.draft.contains("Inspectors"), "{}", scored.draft);
        assert_eq!(scored.claims, [sentences(&scored.draft)[0].clone()], "source {i}");
        let name = &given[i].name;
        for whose in [
            format!("{name}: its leave-one-out draft was cut"),
            format!("{name}: the claims of its leave-one-out draft were cut"),
        ] {
            assert!(
                result.notes.iter().any(|note| note.starts_with(&whose)),
                "{whose}: {:?}",
                result.notes
            );
        }
    }
    // The paper's all-sources baseline names its cut answer too.
    let baseline = tts(model).baseline(Baseline::AllSources, question, &given).await.unwrap();
    assert!(!baseline.summary.unwrap().contains("Inspectors"));
    assert!(baseline.notes.iter().any(|note| note.starts_with("the answer was cut")));
}

/// A server whose answers are in shape but say nothing: drafts of blank sentences are named
/// empty (no claims asked of them), claims lists of blank items give no claims; each is named
/// for its source, and the run goes on to score every source.
#[tokio::test]
async fn answers_in_shape_with_empty_fields_are_named_per_source() {
    use factdesk_testkit::scripted::{
        ConstraintMode, ScriptedModel as Served, TTS_CLAIMS_TEMPLATE, TTS_DRAFT_TEMPLATE, tts_draft,
    };

    let given = sources();
    for (blank_draft, said) in [
        (true, "its leave-one-out draft was empty"),
        (false, "its leave-one-out draft gave no claims"),
    ] {
        let server = Served::new()
            .on(STANCES_TEMPLATE, stances)
            .on_shaped(TTS_DRAFT_TEMPLATE, move |asked| {
                let listed = if blank_draft {
                    vec![" ".to_owned(), "-".into()]
                } else {
                    sentences(&tts_draft(asked))
                };
                serde_json::json!({ "sentences": listed }).to_string()
            })
            .on_shaped(TTS_CLAIMS_TEMPLATE, |_| r#"{"claims": [" ", "2."]}"#.to_owned())
            .constraints(ConstraintMode::JsonSchema)
            .serve();
        let mut settings =
            factdesk_llm::openai::OpenAiSettings::new(&server.url("/v1"), "small-model");
        settings.max_retries = 0;
        let model = Arc::new(factdesk_llm::openai::OpenAiCompatible::new(settings).unwrap());
        let result = tts(model).run("Why did the bridge close?", &given).await.unwrap();
        assert_eq!(result.sources.len(), given.len());
        for (i, scored) in result.sources.iter().enumerate() {
            assert!(scored.claims.is_empty() && scored.score == 0.0, "source {i}");
            let named = format!("{}: {said}", given[i].name);
            assert!(
                result.notes.iter().any(|note| note.starts_with(&named)),
                "{named}: {:?}",
                result.notes
            );
        }
        let claims_asked =
            asked_of(&server).iter().filter(|asked| asked.template == CLAIMS_TEMPLATE).count();
        assert_eq!(claims_asked, if blank_draft { 0 } else { given.len() });
    }
}
