//! LLM-Cite and its baselines end to end through the core API: a loopback server plays the
//! chat model (OpenAI-compatible), another plays Wikipedia's MediaWiki API and the web (an
//! alias that redirects, a missing page, a slow page, an 80 MB page, a binary body, a redirect
//! to an internal address), and the results go through the store to reports and evaluation.

use std::sync::Arc;
use std::time::Duration;

use factdesk_core::model::{MethodParameters, ReviewDecision, Undecided, UrlStatus, Verdict};
use factdesk_core::report::Format;
use factdesk_core::verify::{CheckSelection, Method, NliChoice, VerifyOptions};
use factdesk_core::{CancelToken, NoProgress, Settings};
use factdesk_testkit::scripted::{P_TRUE_TEMPLATE, ScriptedModel};
use factdesk_testkit::{RecordedRequest, TestResponse, TestServer};
use factdesk_tests::Harness;

const OKRA: &str = "Okra is a flowering plant in the mallow family. It is valued for its edible green seed pods. \
    The plant is grown in tropical and warm temperate regions.";
const EIFFEL: &str = "The Eiffel Tower is a wrought-iron lattice tower in Paris, France. \
    It was completed in 1889 for the World's Fair.";

/// The chat model: URL lists for URL prompts, NLI by the claim's content words being in the
/// document, True for P(True) prompts about Paris.
fn model_server(web: &str, delay: Duration) -> TestServer {
    let web = web.to_owned();
    ScriptedModel::new()
        .on_urls(move |asked| {
            let claim = &asked.claim;
            if claim.contains("Okra") {
                "1. https://en.wikipedia.org/wiki/Abelmoschus_esculentus\n2. https://en.wikipedia.org/wiki/Nonexistent_vegetable".to_owned()
            } else if claim.contains("Eiffel") {
                "https://en.wikipedia.org/wiki/Eiffel_Tower".to_owned()
            } else if claim.contains("harbour") {
                format!("{web}/harbour-2015")
            } else if claim.contains("local files") {
                "1. file:///etc/passwd\n2. http://[::1]:9/secret".to_owned()
            } else if claim.contains("internal") {
                format!("{web}/to-internal\n{web}/slow\n{web}/huge\n{web}/binary")
            } else {
                "I do not know which page would help.".to_owned()
            }
        })
        .on(P_TRUE_TEMPLATE, |asked| {
            if asked.claim.ends_with("Paris.") { "True" } else { "False" }.to_owned()
        })
        .otherwise(|_| "?".to_owned())
        .delay(move |_| delay)
        .serve()
}

/// The MediaWiki API and a few web pages.
fn web_server(internal: &str) -> TestServer {
    let internal = internal.to_owned();
    TestServer::start(move |request: &RecordedRequest| {
        let path = request.path.as_str();
        if path.starts_with("/w/api.php") {
            let title = path
                .split('&')
                .find_map(|pair| pair.strip_prefix("titles="))
                .unwrap_or_default()
                .replace('+', " ");
            let page = match title.as_str() {
                "Abelmoschus esculentus" | "Okra" => Some(("Okra", OKRA)),
                "Eiffel Tower" => Some(("Eiffel Tower", EIFFEL)),
                _ => None,
            };
            let body = match page {
                Some((title, text)) => serde_json::json!({"query": {"pages": [{
                    "pageid": 1, "ns": 0, "title": title, "extract": text,
                    "fullurl": format!("https://en.wikipedia.org/wiki/{}", title.replace(' ', "_")),
                    "canonicalurl": format!("https://en.wikipedia.org/wiki/{}", title.replace(' ', "_")),
                }]}}),
                None => {
                    serde_json::json!({"query": {"pages": [{"ns": 0, "title": title, "missing": true}]}})
                }
            };
            return TestResponse::json(200, &body.to_string());
        }
        match path {
            "/harbour-2015" => TestResponse::html(
                "<html><head><title>Harbour figures</title>\
                 <meta property=\"article:published_time\" content=\"2015-06-01T09:00:00Z\"></head>\
                 <body><article><p>The harbour handled two million containers.</p></article></body></html>",
            ),
            "/to-internal" => TestResponse::redirect(302, &format!("{internal}/secret")),
            "/slow" => TestResponse::html("<p>late</p>").with_delay(Duration::from_secs(5)),
            "/huge" => TestResponse::html("x").with_repeat(80 << 20),
            "/binary" => {
                TestResponse::new(200, "application/octet-stream", vec![0u8, 159, 146, 150])
            }
            _ => TestResponse::text(404, "no such page"),
        }
    })
}

struct World {
    _model: TestServer,
    web: TestServer,
    internal: TestServer,
    harness: Harness,
}

fn world(allow_internal: bool, model_delay: Duration) -> World {
    let internal =
        TestServer::with_routes(vec![("/secret", TestResponse::html("<p>internal secret</p>"))]);
    let internal_url = internal.url("");
    let web = web_server(&internal_url);
    // The web is reached as "localhost" (allow-listed); the internal server as 127.0.0.1.
    let web_url = format!("http://localhost:{}", web.address().port());
    let model = model_server(&web_url, model_delay);
    let mut settings = Settings::default();
    settings.llm.provider = "openai-compatible".into();
    settings.llm.base_url = model.url("/v1");
    settings.llm.model = "mock".into();
    settings.llm.max_retries = 0;
    settings.publish.newsroom = "The Daily Check".into();
    settings.fetch.allow_hosts = vec!["localhost".into()];
    if allow_internal {
        settings.fetch.allow_hosts.push("127.0.0.1".into());
    }
    settings.fetch.wikipedia_api = format!("{web_url}/w/api.php");
    settings.fetch.total_timeout_secs = 2;
    settings.fetch.read_timeout_secs = 1;
    settings.verify.nli_samples = 3;
    World { _model: model, web, internal, harness: Harness::with_settings(settings) }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// Checks the claims of `collection`, to the end, without progress reports.
fn run_batch(
    runtime: &tokio::runtime::Runtime,
    app: &factdesk_core::Factdesk,
    collection: &str,
    options: &VerifyOptions,
) -> factdesk_core::Result<factdesk_core::verify::BatchSummary> {
    runtime.block_on(app.verify_collection(
        collection,
        options,
        Arc::new(NoProgress),
        CancelToken::new(),
    ))
}

#[test]
fn a_claim_is_verified_through_a_wikipedia_alias_with_attribution() {
    let world = world(false, Duration::ZERO);
    let check = runtime()
        .block_on(
            world
                .harness
                .app
                .verify_claim("Okra has edible green seed pods.", &VerifyOptions::default()),
        )
        .unwrap();
    let result = &check.check;
    assert_eq!(result.verdict, Verdict::Supported, "{result:#?}");
    let statuses: Vec<UrlStatus> = result.proposed_urls().iter().map(|url| url.status).collect();
    assert_eq!(statuses, [UrlStatus::Fetched, UrlStatus::NotFound]);
    assert_eq!(
        result.proposed_urls()[0].final_url.as_deref(),
        Some("https://en.wikipedia.org/wiki/Okra")
    );
    let attribution = &result.attributions[0];
    assert_eq!(attribution.source.url.as_deref(), Some("https://en.wikipedia.org/wiki/Okra"));
    assert!(attribution.source.fetched_at.is_some());
    assert_eq!(attribution.source.content_hash.as_ref().unwrap().len(), 64);
    assert!(attribution.sentences[0].contains("edible green seed pods"));
    assert!(
        result.envelope.tokens.of("url").prompt > 0
            && result.envelope.tokens.of("judge").prompt > 0
    );
    assert!(!check.model_calls.is_empty(), "the model calls behind the verdict are named");

    // A second check of the same claim re-uses the archive and the model-call record.
    let requests_before = world.web.requests().len();
    let again = runtime()
        .block_on(
            world
                .harness
                .app
                .verify_claim("Okra has edible green seed pods.", &VerifyOptions::default()),
        )
        .unwrap();
    assert_eq!(again.check.verdict, Verdict::Supported);
    assert_eq!(
        world.web.requests().len(),
        requests_before + 1,
        "only the missing page is asked again"
    );
}

#[test]
fn hostile_and_broken_urls_give_fetch_failed_and_internal_addresses_stay_closed() {
    let world = world(false, Duration::ZERO);
    let check = runtime()
        .block_on(
            world
                .harness
                .app
                .verify_claim("The internal report is public.", &VerifyOptions::default()),
        )
        .unwrap();
    let result = &check.check;
    assert_eq!(result.undecided, Some(Undecided::FetchFailed), "{result:#?}");
    assert_eq!(result.verdict, Verdict::NotEnoughInfo);
    let statuses: Vec<UrlStatus> = result.proposed_urls().iter().map(|url| url.status).collect();
    assert_eq!(
        statuses,
        [UrlStatus::Refused, UrlStatus::Failed, UrlStatus::Failed, UrlStatus::Failed]
    );
    assert!(
        result.proposed_urls()[0].error.as_deref().unwrap().contains("127.0.0.1"),
        "{:?}",
        result.proposed_urls()[0]
    );
    assert!(world.internal.requests().is_empty(), "the internal server was never contacted");

    // A file: URL and an IPv6 loopback literal are proposed URLs like any other, refused as
    // what they are (they were "no URL proposed" before).
    let check = runtime()
        .block_on(
            world
                .harness
                .app
                .verify_claim("The local files are public.", &VerifyOptions::default()),
        )
        .unwrap();
    let urls = &check.check.proposed_urls();
    assert_eq!(urls.len(), 2, "{urls:#?}");
    assert_eq!((urls[0].status, urls[1].status), (UrlStatus::Invalid, UrlStatus::Refused));
    assert!(urls[0].error.as_deref().unwrap_or_default().contains("file"), "{:?}", urls[0]);
    assert!(urls[1].error.as_deref().unwrap_or_default().contains("::1"), "{:?}", urls[1]);

    // Allow-listed, the redirect is followed.
    let open = world_allowing_internal();
    let check = runtime()
        .block_on(
            open.harness
                .app
                .verify_claim("The internal report is public.", &VerifyOptions::default()),
        )
        .unwrap();
    assert_eq!(check.check.proposed_urls()[0].status, UrlStatus::Fetched);
    assert_eq!(open.internal.requests().len(), 1);
}

fn world_allowing_internal() -> World {
    world(true, Duration::ZERO)
}

#[test]
fn claims_without_urls_and_false_claims_are_told_apart() {
    let world = world(false, Duration::ZERO);
    let runtime = runtime();
    let unknown = runtime
        .block_on(
            world
                .harness
                .app
                .verify_claim("Zorblax won the 1850 election.", &VerifyOptions::default()),
        )
        .unwrap();
    assert_eq!(unknown.check.undecided, Some(Undecided::NoValidUrl));
    let false_claim = runtime
        .block_on(
            world
                .harness
                .app
                .verify_claim("The Eiffel Tower stands in Rome.", &VerifyOptions::default()),
        )
        .unwrap();
    // The judge puts its weight on "false" for a premise about Paris: refuted, not merely
    // unsupported, and said so.
    assert_eq!(false_claim.check.verdict, Verdict::Refuted, "{:#?}", false_claim.check);
    assert_eq!(false_claim.check.undecided, None);
    assert!(false_claim.check.premises.iter().all(|premise| premise.entailment < 0.5));
    assert!(false_claim.check.premises.iter().any(|premise| premise.contradiction >= 0.5));
    assert!(
        false_claim.check.envelope.explanation.contains("contradicts"),
        "{}",
        false_claim.check.envelope.explanation
    );
}

const CLAIMS: &str = "claim,label\n\
    Okra has edible green seed pods.,supported\n\
    The Eiffel Tower stands in Rome.,refuted\n\
    The Eiffel Tower was completed in 1889.,supported\n\
    Zorblax won the 1850 election.,refuted\n";

#[test]
fn a_collection_is_checked_reported_reviewed_and_evaluated() {
    let world = world(false, Duration::ZERO);
    let app = &world.harness.app;
    let file = world.harness.write("claims.csv", CLAIMS.as_bytes());
    app.import_claims(std::path::Path::new(&file), "demo").unwrap();
    let summary = run_batch(&runtime(), app, "demo", &VerifyOptions::default()).unwrap();
    assert_eq!(
        (summary.claims, summary.checked, summary.failed, summary.resumed),
        (4, 4, 0, false)
    );

    let evaluation = app.evaluate("demo", &CheckSelection::default()).unwrap();
    assert_eq!(evaluation.evaluated, 4);
    assert_eq!(evaluation.accuracy, Some(1.0));
    assert_eq!(evaluation.balanced_accuracy, Some(1.0));
    // Three-way: Rome is refuted; Zorblax (labelled refuted) could not be decided, so it is
    // not enough info with its reason. Supported F1 1, refuted 2/3, not enough info 0.
    assert_eq!(summary.undecided, [(Undecided::NoValidUrl, 1)]);
    assert!(summary.verdicts.contains(&(Verdict::Refuted, 1)), "{:?}", summary.verdicts);
    let refuted_row = evaluation.confusion.iter().find(|row| row.gold == Verdict::Refuted).unwrap();
    assert_eq!(
        refuted_row.verdicts,
        [(Verdict::Supported, 0), (Verdict::Refuted, 1), (Verdict::NotEnoughInfo, 1)]
    );
    assert_eq!(evaluation.undecided, [(Undecided::NoValidUrl, 1)]);
    let macro_f1 = evaluation.macro_f1.unwrap();
    assert!((macro_f1 - 5.0 / 9.0).abs() < 1e-9, "{macro_f1}");
    let figure = |evaluation: &factdesk_core::eval::Evaluation, key: &str| {
        let figures = evaluation.figures.iter().flat_map(|own| &own.figures);
        figures.clone().find(|figure| figure.key == key).map(|figure| figure.value)
    };
    assert_eq!(figure(&evaluation, "no_valid_url_rate"), Some(Some(0.25)));
    assert_eq!(figure(&evaluation, "urls_proposed"), Some(Some(4.0)));
    assert_eq!(figure(&evaluation, "invalid_url_rate"), Some(Some(0.25)));
    assert_eq!(evaluation.figures[0].method, "llm-cite");
    let url = evaluation.tokens_per_claim.purposes.iter().find(|p| p.purpose == "url").unwrap();
    assert!(url.prompt > 0.0);

    // A reviewer overrides one verdict; the machine verdict stays, and reports show both.
    let entries = app.collection_checks("demo", &CheckSelection::default()).unwrap();
    let okra = entries.iter().find(|e| e.claim.text.starts_with("Okra")).unwrap();
    let check = okra.check.as_ref().unwrap();
    let review = app
        .review_check(
            check.id,
            ReviewDecision::Override,
            Some(Verdict::NotEnoughInfo),
            "the page is about another plant",
            Some("ana"),
        )
        .unwrap();
    assert_eq!(review.verdict, Verdict::NotEnoughInfo);
    assert!(
        app.review_check(
            check.id,
            ReviewDecision::Override,
            Some(Verdict::NotEnoughInfo),
            " ",
            None
        )
        .is_err()
    );
    let stored = app.check(check.id).unwrap();
    assert_eq!(stored.check.verdict, Verdict::Supported, "the machine verdict is kept");

    for format in Format::ALL {
        let path = world.harness.path(&format!("report.{}", format.file_extension()));
        app.write_report_file(
            "demo",
            &CheckSelection::default(),
            format,
            false,
            std::path::Path::new(&path),
        )
        .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("Okra has edible green seed pods."), "{format:?}");
        if format != Format::ClaimReview {
            assert!(
                text.contains("the page is about another plant"),
                "{format:?} keeps the review"
            );
        }
    }

    // A P(True) run over the same claims: lists, reports and eval read each claim's newest
    // check, unless they are asked for one method's or one run's.
    let options = VerifyOptions { method: Some(Method::PTrue), ..VerifyOptions::default() };
    let p_true = run_batch(&runtime(), app, "demo", &options).unwrap();
    let methods_listed = |selection: &CheckSelection| -> Vec<String> {
        let entries = app.collection_checks("demo", selection).unwrap();
        entries.into_iter().map(|entry| entry.check.unwrap().check.envelope.method).collect()
    };
    assert_eq!(methods_listed(&CheckSelection::default()), ["p-true"; 4]);
    let llm_cite = CheckSelection { method: Some(Method::LlmCite), run: None };
    assert_eq!(methods_listed(&llm_cite), ["llm-cite"; 4]);
    let evaluation = app.evaluate("demo", &llm_cite).unwrap();
    assert_eq!((evaluation.methods, evaluation.accuracy), (vec!["llm-cite".to_owned()], Some(1.0)));
    let of_run = CheckSelection { method: None, run: Some(summary.run_id) };
    assert_eq!(methods_listed(&of_run), ["llm-cite"; 4]);
    let evaluation = app.evaluate("demo", &CheckSelection::default()).unwrap();
    assert_eq!(evaluation.methods, ["p-true"]);
    assert!(evaluation.figures.is_empty(), "P(True) has no figures of its own");
    // The method's own review is on its own check: the LLM-Cite report keeps it.
    let report = app.report("demo", &llm_cite).unwrap();
    assert!(report.title.contains("llm-cite"), "{}", report.title);
    assert!(
        report.items.iter().any(|item| item.check.as_ref().is_some_and(|c| c.review.is_some()))
    );
    // Nothing matches: a run of P(True) read as LLM-Cite.
    let mismatch = CheckSelection { method: Some(Method::LlmCite), run: Some(p_true.run_id) };
    assert!(app.collection_checks("demo", &mismatch).unwrap().iter().all(|e| e.check.is_none()));
    // A run over another collection is refused.
    app.add_claims("other", &["The Moon is made of cheese.".to_owned()], None).unwrap();
    let error = app.evaluate("other", &of_run).unwrap_err();
    assert!(error.to_string().contains("not a run over the collection 'other'"), "{error}");
}

#[test]
fn a_cross_encoder_that_cannot_load_stops_the_batch_before_it_starts() {
    let folder = tempfile::tempdir().unwrap();
    let missing = folder.path().join("no-such-model");
    let mut world = world(false, Duration::ZERO);
    let mut settings = world.harness.app.settings().clone();
    settings.verify.nli = format!("cross-encoder:{}", missing.display());
    world.harness = Harness::with_settings(settings);
    let app = &world.harness.app;
    app.add_claims("desk", &["Okra has edible green seed pods.".to_owned()], None).unwrap();
    let error = run_batch(&runtime(), app, "desk", &VerifyOptions::default()).unwrap_err();
    assert!(error.to_string().contains("no-such-model"), "{error}");
    // No run was started, so nothing is left to resume and the claim is still unchecked.
    let checks = app.collection_checks("desk", &CheckSelection::default()).unwrap();
    assert!(checks.iter().all(|entry| entry.check.is_none()), "{checks:?}");
    let store =
        factdesk_store::Store::open(&world.harness.dir.path().join(factdesk_core::DATABASE_FILE))
            .unwrap();
    assert_eq!(store.runs(None).unwrap().len(), 0);
}

#[test]
fn skip_checked_leaves_out_claims_checked_the_same_way_before() {
    let world = world(false, Duration::ZERO);
    let app = &world.harness.app;
    let runtime = runtime();
    let batch = |options: &VerifyOptions| run_batch(&runtime, app, "desk", options).unwrap();
    let texts = |claims: &[&str]| claims.iter().map(|claim| claim.to_string()).collect::<Vec<_>>();
    app.add_claims("desk", &texts(&["Okra has edible green seed pods.", "Zorblax won."]), None)
        .unwrap();
    let skip = VerifyOptions { skip_checked: true, ..VerifyOptions::default() };
    let first = batch(&skip);
    assert_eq!((first.claims, first.already_checked, first.checked), (2, 0, 2));

    // A pasted summary adds one new claim: only that one is checked, in a new run.
    app.add_claims("desk", &texts(&["The Eiffel Tower was completed in 1889."]), None).unwrap();
    let second = batch(&skip);
    assert_ne!(second.run_id, first.run_id);
    assert_eq!((second.claims, second.already_checked, second.checked), (3, 2, 1));
    let checked: Vec<String> = app
        .collection_checks("desk", &CheckSelection::default())
        .unwrap()
        .into_iter()
        .filter(|entry| entry.check.as_ref().is_some_and(|check| check.run_id == second.run_id))
        .map(|entry| entry.claim.text)
        .collect();
    assert_eq!(checked, ["The Eiffel Tower was completed in 1889."]);

    // Other parameters are another way of checking: every claim again.
    let other = VerifyOptions { m: Some(2), skip_checked: true, ..VerifyOptions::default() };
    assert_eq!(batch(&other).checked, 3);
    // Without skip_checked, a finished run is not resumed: every claim again.
    let again = batch(&VerifyOptions::default());
    assert_eq!((again.already_checked, again.checked), (0, 3));
}

#[test]
fn p_true_and_corpus_nli_run_without_urls() {
    let world = world(false, Duration::ZERO);
    let app = &world.harness.app;
    let runtime = runtime();
    let options = VerifyOptions { method: Some(Method::PTrue), ..VerifyOptions::default() };
    let check =
        runtime.block_on(app.verify_claim("The Eiffel Tower is in Paris.", &options)).unwrap();
    assert_eq!(check.check.envelope.method, "p-true");
    assert_eq!(check.check.verdict, Verdict::Supported);
    assert!(check.check.proposed_urls().is_empty() && check.check.attributions.is_empty());
    // An option of another method is refused, naming what this one takes.
    let foreign =
        VerifyOptions { method: Some(Method::PTrue), m: Some(2), ..VerifyOptions::default() };
    let error = runtime.block_on(app.verify_claim("The sky is blue.", &foreign)).unwrap_err();
    assert!(error.to_string().contains("p-true does not take the option(s) m"), "{error}");
    let foreign = VerifyOptions {
        method: Some(Method::CorpusNli),
        urls: Some(factdesk_core::methods::llm_cite::UrlStrategy::Rs),
        ..VerifyOptions::default()
    };
    let error = runtime.block_on(app.verify_claim("The sky is blue.", &foreign)).unwrap_err();
    let message = error.to_string();
    assert!(message.contains("urls") && message.contains("corpora"), "{message}");

    world.harness.import(&[factdesk_tests::demo_corpus().to_str().unwrap()], "demo");
    let options = VerifyOptions { method: Some(Method::CorpusNli), ..VerifyOptions::default() };
    let check = runtime
        .block_on(app.verify_claim("Alexander Fleming discovered penicillin in 1928.", &options))
        .unwrap();
    assert_eq!(check.check.envelope.method, "corpus-nli");
    // corpus-NLI's own defaults ([methods.corpus-nli] documents and l), not LLM-Cite's m, l.
    let MethodParameters::CorpusNli(parameters) = &check.check.envelope.parameters else {
        panic!("{:?}", check.check.envelope.parameters)
    };
    assert_eq!((parameters.documents, parameters.l), (1, 4));
    assert_eq!(check.check.sources.len(), 1, "one document for a one-sentence claim");
    assert!(check.check.sources.iter().all(|source| source.document_id.is_some()));
    assert!(world.web.requests().is_empty(), "corpus-NLI fetches nothing");
    // Options still choose.
    let wider = VerifyOptions { m: Some(3), l: Some(2), ..options };
    let check = runtime
        .block_on(app.verify_claim("Alexander Fleming discovered penicillin in 1928.", &wider))
        .unwrap();
    let MethodParameters::CorpusNli(parameters) = &check.check.envelope.parameters else {
        panic!("{:?}", check.check.envelope.parameters)
    };
    assert_eq!((parameters.documents, parameters.l), (3, 2));

    // A claim in English is searched as English, even where most documents searched are in
    // another language (the Search view's default for a bare query).
    let fleming = world.harness.write(
        "fleming.txt",
        b"Penicillin was discovered by Alexander Fleming in London in 1928. He shared a Nobel \
          Prize for it in 1945.",
    );
    world.harness.import(&[fleming.as_str()], "chemistry");
    let german = [
        "Die Zugspitze ist mit 2962 Metern der h\u{f6}chste Berg Deutschlands. Sie liegt an der \
         Grenze zu \u{d6}sterreich.",
        "Der Rhein ist einer der l\u{e4}ngsten Fl\u{fc}sse Europas. Er flie\u{df}t durch sechs \
         L\u{e4}nder und m\u{fc}ndet in die Nordsee.",
    ];
    for (index, text) in german.iter().enumerate() {
        let file = world.harness.write(&format!("de-{index}.txt"), text.as_bytes());
        world.harness.import(&[file.as_str()], "zeitung");
    }
    let mixed = VerifyOptions {
        method: Some(Method::CorpusNli),
        corpora: vec!["chemistry".into(), "zeitung".into()],
        ..VerifyOptions::default()
    };
    assert_eq!(app.query_language("Fleming", &mixed.corpora).unwrap(), "de");
    assert_eq!(app.claim_search_language("Fleming discovered penicillin in 1928."), "en");
    assert_eq!(
        app.claim_search_language("Fleming entdeckte 1928 das Penicillin f\u{fc}r uns."),
        "de"
    );
    let check = runtime
        .block_on(app.verify_claim("Fleming discovered penicillin in 1928.", &mixed))
        .unwrap();
    assert_eq!(check.check.sources.len(), 1, "{:?}", check.check.sources);
    assert_eq!(check.check.verdict, Verdict::Supported, "{:?}", check.check.premises);
}

#[test]
fn evidence_from_a_pdf_keeps_its_pages_in_the_check() {
    let world = world(false, Duration::ZERO);
    let app = &world.harness.app;
    let report = factdesk_tests::repo_root().join("tests/fixtures/pdf/report.pdf");
    world.harness.import(&[report.to_str().unwrap()], "filings");
    world.harness.import(&[factdesk_tests::demo_corpus().to_str().unwrap()], "demo");
    let options = VerifyOptions {
        method: Some(Method::CorpusNli),
        corpora: vec!["filings".into()],
        ..VerifyOptions::default()
    };
    let claim = "The new north quay cost 12 million euros.";
    let check = runtime().block_on(app.verify_claim(claim, &options)).unwrap().check;
    assert!(!check.premises.is_empty());
    for premise in &check.premises {
        assert_eq!(premise.pages.len(), premise.sentences.len(), "{premise:#?}");
        for (sentence, page) in premise.sentences.iter().zip(&premise.pages) {
            let expected = if sentence.contains("Revenue") || sentence.contains("north quay") {
                Some(2)
            } else if sentence.contains("harbour handled") || sentence.contains("Container") {
                Some(1)
            } else {
                *page
            };
            assert_eq!(*page, expected, "{sentence}");
            assert!(page.is_some(), "{sentence}: every sentence of the PDF has a page");
        }
    }
    let quay = check.premises.iter().flat_map(|p| p.sentences.iter().zip(&p.pages));
    let quay: Vec<_> = quay.filter(|(sentence, _)| sentence.contains("north quay")).collect();
    assert!(quay.iter().all(|(_, page)| **page == Some(2)) && !quay.is_empty());

    // The same claim against a corpus without pages has none.
    let demo = VerifyOptions { corpora: vec!["demo".into()], ..options.clone() };
    let check = runtime().block_on(app.verify_claim("Okra belongs to the mallow family.", &demo));
    assert!(check.unwrap().check.premises.iter().all(|premise| premise.pages.is_empty()));

    assert_eq!(factdesk_core::model::page_label(&[Some(2)]).as_deref(), Some("p. 2"));
    assert_eq!(
        factdesk_core::model::page_label(&[Some(3), None, Some(2)]).as_deref(),
        Some("pp. 2–3")
    );
    assert_eq!(factdesk_core::model::page_label(&[Some(7), Some(2)]).as_deref(), Some("pp. 2, 7"));
    assert_eq!(factdesk_core::model::page_label(&[None]), None);
}

#[test]
fn a_pasted_summary_splits_into_claims_that_can_be_added() {
    let harness = Harness::new();
    let claims = harness.app.split_into_claims(
        "The Eiffel Tower opened in 1889. It is in Paris.\n\nDr. Smith said  the tower is 330 m tall.  ",
    );
    assert_eq!(
        claims,
        [
            "The Eiffel Tower opened in 1889.",
            "It is in Paris.",
            "Dr. Smith said the tower is 330 m tall."
        ]
    );
    let summary = harness.app.add_claims("pasted", &claims, None).unwrap();
    assert_eq!(summary.imported, 3);
    assert_eq!(harness.app.add_claims("pasted", &claims[..1], None).unwrap().duplicates, 1);
    assert!(harness.app.add_claims("pasted", &["  ".to_owned()], None).is_err());
    let error = harness.app.add_claims("pasted", &claims, Some("next Tuesday")).unwrap_err();
    assert!(error.to_string().contains("\"next Tuesday\" is not a date"), "{error}");
}

/// Evidence published long before a claim's date is flagged when the claim's checks are read
/// (the claim view's and the reports' path): a corpus document's stored date and a fetched
/// page's own date are noted on the check's sources; a claim without a date, or evidence
/// within the window, is not flagged; the window is a setting.
#[test]
fn evidence_older_than_the_window_before_a_claims_date_is_flagged() {
    let world = world(false, Duration::ZERO);
    let app = &world.harness.app;
    let corpus = world.harness.path("dated.jsonl");
    std::fs::write(
        &corpus,
        "{\"title\": \"Quay report\", \"date\": \"2016-02-01\", \"text\": \"The new north quay cost 12 million euros. It opened in 2016.\"}\n\
         {\"title\": \"Rail note\", \"date\": \"2023-09-01\", \"text\": \"The rail link to the port opened in 2023. Trains run hourly.\"}\n",
    )
    .unwrap();
    world.harness.import(&[corpus.as_str()], "dated");
    let dated = [
        "The north quay cost 12 million euros.".to_owned(),
        "The rail link to the port opened in 2023.".to_owned(),
    ];
    app.add_claims("news", &dated, Some("2024-03-01")).unwrap();
    app.add_claims("news", &["The north quay opened in 2016.".to_owned()], None).unwrap();
    let options = VerifyOptions {
        method: Some(Method::CorpusNli),
        corpora: vec!["dated".into()],
        ..VerifyOptions::default()
    };
    let runtime = runtime();
    run_batch(&runtime, app, "news", &options).unwrap();
    let checks = app.collection_checks("news", &CheckSelection::default()).unwrap();
    let by_text = |text: &str| checks.iter().find(|entry| entry.claim.text == text).unwrap();
    let quay = by_text("The north quay cost 12 million euros.");
    assert_eq!(quay.claim.claimed_on.as_deref(), Some("2024-03-01"));
    let stored = quay.check.as_ref().unwrap();
    let source = &stored.check.sources[0];
    assert_eq!(source.published_at.as_deref(), Some("2016-02-01"), "the document's date is noted");
    assert_eq!(stored.stale.len(), 1, "{:#?}", stored.stale);
    assert_eq!(stored.stale[0].title.as_deref(), Some("Quay report"));
    assert_eq!((stored.stale[0].days_before, stored.stale[0].window_days), (2951, 365));
    assert!(stored.stale[0].is_of(source));
    // Recent evidence, or a claim without a date: nothing flagged.
    let rail = by_text("The rail link to the port opened in 2023.").check.as_ref().unwrap();
    assert_eq!(rail.check.sources[0].published_at.as_deref(), Some("2023-09-01"));
    assert!(rail.stale.is_empty());
    let undated = by_text("The north quay opened in 2016.");
    assert!(undated.check.as_ref().unwrap().stale.is_empty());
    // The claim's own check list and one check read the same way.
    let of_claim = app.checks_of_claim(quay.claim.id).unwrap();
    assert_eq!(of_claim[0].stale, stored.stale);
    assert_eq!(app.check(stored.id).unwrap().stale, stored.stale);
    // The report says so.
    let mut markdown = Vec::new();
    app.write_report("news", &CheckSelection::default(), Format::Markdown, false, &mut markdown)
        .unwrap();
    let markdown = String::from_utf8(markdown).unwrap();
    assert!(
        markdown.contains("**Old evidence**") && markdown.contains("8 years before"),
        "{markdown}"
    );

    // A fetched page's date comes from its own metadata.
    app.add_claims(
        "web",
        &["The harbour handled two million containers.".to_owned()],
        Some("2024-03-01"),
    )
    .unwrap();
    run_batch(
        &runtime,
        app,
        "web",
        &VerifyOptions { method: Some(Method::LlmCite), ..VerifyOptions::default() },
    )
    .unwrap();
    let web = app.collection_checks("web", &CheckSelection::default()).unwrap();
    let stored = web[0].check.as_ref().unwrap();
    assert_eq!(
        stored.check.sources[0].published_at.as_deref(),
        Some("2015-06-01"),
        "{:#?}",
        stored.check.sources
    );
    assert_eq!(stored.stale.len(), 1);
    assert!(stored.stale[0].url.as_deref().unwrap().ends_with("/harbour-2015"));

    // A window of 0 flags nothing.
    let mut settings = app.settings().clone();
    settings.verify.stale_after_days = 0;
    let other =
        factdesk_core::Factdesk::open_with_settings(world.harness.dir.path(), settings).unwrap();
    let checks = other.collection_checks("news", &CheckSelection::default()).unwrap();
    assert!(checks.iter().all(|entry| entry.check.as_ref().unwrap().stale.is_empty()));
}

/// The page archive leaves as a WACZ package and comes back into another library: its pages
/// become a corpus and, offline, LLM-Cite is served them, also under the alias a model
/// proposed; a record whose digest does not match fails alone, and importing twice adds
/// nothing.
#[test]
fn the_page_archive_goes_out_as_wacz_and_serves_another_library_offline() {
    let world = world(false, Duration::ZERO);
    let app = &world.harness.app;
    let runtime = runtime();
    let empty = world.harness.path("empty.wacz");
    let error = app.export_archive(std::path::Path::new(&empty), None).unwrap_err();
    assert!(error.to_string().contains("the page archive is empty"), "{error}");

    let claims = [
        "Okra has edible green seed pods.".to_owned(),
        "The harbour handled two million containers.".to_owned(),
    ];
    app.add_claims("web", &claims, None).unwrap();
    run_batch(&runtime, app, "web", &VerifyOptions::default()).unwrap();
    app.add_claims("other", &["The Moon is made of cheese.".to_owned()], None).unwrap();
    let all = world.harness.path("all.wacz");
    let export = app.export_archive(std::path::Path::new(&all), None).unwrap();
    assert_eq!(export.pages, 2, "the Okra article and the harbour page");
    let of_web = app
        .export_archive(std::path::Path::new(&world.harness.path("web.wacz")), Some("web"))
        .unwrap();
    assert_eq!(of_web.pages, 2);
    let error = app
        .export_archive(std::path::Path::new(&world.harness.path("o.wacz")), Some("other"))
        .unwrap_err();
    assert!(error.to_string().contains("read no archived web page"), "{error}");

    // Another library, offline, with the same model.
    let mut settings = app.settings().clone();
    settings.fetch.offline = true;
    let other = Harness::with_settings(settings);
    let summary = other.import(&[all.as_str()], "archived");
    assert!(summary.failures.is_empty(), "{:#?}", summary.failures);
    assert_eq!((summary.imported, summary.archived), (2, 2));
    let documents = other.app.documents(Some("archived"), None, 0).unwrap();
    let urls: Vec<&str> = documents.iter().filter_map(|d| d.url.as_deref()).collect();
    assert!(urls.contains(&"https://en.wikipedia.org/wiki/Okra"), "{urls:?}");
    assert!(documents.iter().all(|d| d.origin.contains("all.wacz!archive/data.warc.gz#record=")));
    let again = other.import(&[all.as_str()], "archived");
    assert_eq!((again.imported, again.duplicates, again.archived), (0, 2, 0));

    let requests = world.web.requests().len();
    let check = runtime
        .block_on(
            other.app.verify_claim("Okra has edible green seed pods.", &VerifyOptions::default()),
        )
        .unwrap();
    assert_eq!(check.check.verdict, Verdict::Supported, "{:#?}", check.check.proposed_urls());
    assert_eq!(
        check.check.proposed_urls()[0].url,
        "https://en.wikipedia.org/wiki/Abelmoschus_esculentus"
    );
    assert_eq!(
        check.check.proposed_urls()[0].status,
        UrlStatus::Fetched,
        "the alias is served the article"
    );
    assert_eq!(
        check.check.proposed_urls()[0].final_url.as_deref(),
        Some("https://en.wikipedia.org/wiki/Okra")
    );
    let harbour =
        runtime
            .block_on(other.app.verify_claim(
                "The harbour handled two million containers.",
                &VerifyOptions::default(),
            ))
            .unwrap();
    assert_eq!(
        harbour.check.proposed_urls()[0].status,
        UrlStatus::Fetched,
        "{:#?}",
        harbour.check.proposed_urls()
    );
    assert_eq!(world.web.requests().len(), requests, "nothing was fetched: the library is offline");

    // A WARC with one altered record: it fails alone, the good one is imported.
    let good = b"The port opened a second quay in 2019.";
    let bad = b"The port closed in 2020.";
    let record = |url: &str, body: &[u8], digest_of: &[u8]| {
        // Stating the digest of other bytes: a record altered after it was written.
        let block_digest = factdesk_archive::block_digest(digest_of);
        let mut out = format!(
            "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:{}>\r\nWARC-Date: 2021-01-01T00:00:00Z\r\nWARC-Target-URI: {url}\r\nContent-Type: text/plain\r\nWARC-Block-Digest: {block_digest}\r\nContent-Length: {}\r\n\r\n",
            url.len(),
            body.len()
        )
        .into_bytes();
        out.extend_from_slice(body);
        out.extend_from_slice(b"\r\n\r\n");
        out
    };
    let mut warc = record("https://port.example/quay", good, good);
    warc.extend(record("https://port.example/closed", bad, b"something else"));
    let path = other.write("port.warc", &warc);
    let summary = other.import(&[path.as_str()], "port");
    assert_eq!((summary.imported, summary.archived), (1, 1));
    assert_eq!(summary.failures.len(), 1, "{:#?}", summary.failures);
    assert!(summary.failures[0].item.ends_with("port.warc#record=2"));
    assert!(
        summary.failures[0].message.contains("WARC-Block-Digest"),
        "{}",
        summary.failures[0].message
    );
    // A file that is no archive at all fails by name.
    let junk = other.write("junk.warc", b"just text");
    let summary = other.import(&[junk.as_str()], "port");
    assert!(
        summary.failures[0].message.contains("is not a web archive"),
        "{:#?}",
        summary.failures
    );
}

/// `llm.max_concurrency` bounds the calls in flight to the server for the whole application,
/// not per check: four claims checked at once with a bound of one take at least as long as
/// their calls one after another.
#[test]
fn the_server_concurrency_bound_holds_across_claims_checked_at_once() {
    let delay = Duration::from_millis(150);
    let model = model_server("http://localhost:9", delay);
    let mut settings = Settings::default();
    settings.llm.provider = "openai-compatible".into();
    settings.llm.base_url = model.url("/v1");
    settings.llm.model = "mock".into();
    settings.llm.max_concurrency = 1;
    settings.verify.concurrency = 4;
    let harness = Harness::with_settings(settings);
    let app = &harness.app;
    let claims: Vec<String> = (1..=4).map(|n| format!("Claim number {n} is in Paris.")).collect();
    app.add_claims("desk", &claims, None).unwrap();
    let runtime = runtime();
    let options = VerifyOptions { method: Some(Method::PTrue), ..VerifyOptions::default() };
    let started = std::time::Instant::now();
    let summary = run_batch(&runtime, app, "desk", &options).unwrap();
    let elapsed = started.elapsed();
    assert_eq!(summary.checked, 4);
    let calls = model
        .requests()
        .iter()
        .filter(|request| request.path.ends_with("/chat/completions"))
        .count() as u32;
    assert!(calls >= 4, "{calls}");
    // A lower bound only: with the bound it cannot be faster than the calls in sequence.
    assert!(elapsed >= delay * calls, "{calls} calls in {elapsed:?}");
}

/// The demo as `scripts/demo.sh` runs it: corpus-NLI over the demo corpus, judged by the
/// verifier Factdesk ships (calibrated, moved by fact alignment).
#[test]
fn the_shipped_verifier_gets_every_demo_claim_right_and_names_each_conflict() {
    let world = world(false, Duration::ZERO);
    let app = &world.harness.app;
    world.harness.import(&[factdesk_tests::demo_corpus().to_str().unwrap()], "demo");
    let verifier = factdesk_tests::repo_root().join("assets/models/factdesk-verifier");
    let options = VerifyOptions {
        method: Some(Method::CorpusNli),
        nli: Some(NliChoice::CrossEncoder(verifier.display().to_string())),
        ..VerifyOptions::default()
    };
    let claims =
        std::fs::read_to_string(factdesk_tests::repo_root().join("assets/demo/claims.csv"))
            .unwrap();
    let runtime = runtime();
    let mut refuted = Vec::new();
    for line in claims.lines().skip(1) {
        let (claim, rest) = line.split_once(",").unwrap();
        let check = runtime.block_on(app.verify_claim(claim, &options)).unwrap().check;
        let why = &check.envelope.explanation;
        if rest.starts_with("true") {
            assert_eq!(check.verdict, Verdict::Supported, "{claim}: {why}");
            continue;
        }
        assert_ne!(check.verdict, Verdict::Supported, "{claim}: {why}");
        if check.verdict == Verdict::Refuted {
            // The contradicting sentence is quoted and what it states differently named.
            let deciding = check.deciding_premise().expect("a refuted check has its premise");
            let conflict = deciding.facts.conflicts.first().expect("the conflict is kept");
            assert!(why.contains(&format!("claim: {}", conflict.claim)), "{why}");
            refuted.push((claim.to_owned(), conflict.evidence.clone()));
        }
    }
    let expected = [
        ("The Eiffel Tower is built of reinforced concrete.", "wrought-iron"),
        ("Penicillin was discovered by Louis Pasteur.", "Alexander Fleming"),
        ("The Great Barrier Reef lies off the coast of Western Australia.", "north-eastern"),
        ("Buzz Aldrin was the first person to walk on the Moon.", "Armstrong became the first"),
        ("The Great Wall of China is visible from the Moon with the naked eye.", "It cannot"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(claim, evidence)| (claim.to_string(), evidence.to_string()))
        .collect();
    assert_eq!(refuted, expected);
}
