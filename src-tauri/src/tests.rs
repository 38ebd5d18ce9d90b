use super::*;
use std::time::Duration;

use factdesk_testkit::scripted::ScriptedModel;
use factdesk_testkit::{RecordedRequest, TestResponse, TestServer};
use serde_json::{Value, json};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder, mock_context};
use tauri::webview::InvokeRequest;
use tauri::{Manager, WebviewWindow, WebviewWindowBuilder};

use crate::command_names::COMMANDS;

/// A mock app over `data_dir`, with no access control (as `mock_context` has none).
fn mock_window(
    data_dir: &std::path::Path,
) -> (tauri::App<MockRuntime>, WebviewWindow<MockRuntime>) {
    let factdesk = Factdesk::open(data_dir).expect("open the data directory");
    let app = build_app(mock_builder(), factdesk)
        .build(mock_context(tauri::test::noop_assets()))
        .expect("build the mock app");
    let window =
        WebviewWindowBuilder::new(&app, "main", Default::default()).build().expect("open a window");
    (app, window)
}

fn invoke(window: &WebviewWindow<MockRuntime>, cmd: &str, args: Value) -> Result<Value, Value> {
    let request = InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().expect("a valid url"),
        body: InvokeBody::Json(args),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    };
    get_ipc_response(window, request)
        .map(|body| body.deserialize::<Value>().expect("a JSON response"))
}

/// A channel argument as the JavaScript side sends it; what is sent on it goes nowhere.
const CHANNEL: &str = "__CHANNEL__:1";

/// Writes a small article and imports it into `corpus` over IPC.
fn import_article(
    window: &WebviewWindow<MockRuntime>,
    dir: &std::path::Path,
    corpus: &str,
) -> Value {
    let article = dir.join("moon.txt");
    std::fs::write(
        &article,
        "The Moon orbits the Earth once every 27 days. Its surface is covered in dust. \
         Twelve astronauts have walked on it.",
    )
    .expect("write the article");
    invoke(
        window,
        "import_sources",
        json!({"taskId": 1, "corpus": corpus, "sources": [article], "onProgress": CHANNEL}),
    )
    .expect("import_sources answers")
}

#[test]
fn an_empty_data_directory_answers_every_read() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let (_app, window) = mock_window(dir.path());

    let info = invoke(&window, "app_info", json!({})).expect("app_info answers");
    assert_eq!(info["data_dir"], json!(dir.path()));
    assert_eq!(info["log_dir"], json!(dir.path().join("logs")));
    assert_eq!(info["config_file"], json!(dir.path().join("config.toml")));
    assert_eq!(info["version"], json!(env!("CARGO_PKG_VERSION")));

    for (command, args) in [
        ("list_corpora", json!({})),
        ("list_documents", json!({"limit": 50, "offset": 0})),
        ("search_sentences", json!({"query": "moon", "corpora": []})),
        ("list_collections", json!({})),
        ("list_claims", json!({})),
    ] {
        assert_eq!(invoke(&window, command, args), Ok(json!([])), "{command}");
    }
}

#[test]
fn an_import_is_listed_searched_and_shown() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let files = tempfile::tempdir().expect("a temp dir");
    let (_app, window) = mock_window(dir.path());

    let summary = import_article(&window, files.path(), "space");
    assert_eq!(summary["corpus"], "space");
    assert_eq!(summary["imported"], 1, "{summary}");
    assert_eq!(summary["sentences"], 3, "{summary}");
    assert_eq!(summary["cancelled"], false);

    let corpora = invoke(&window, "list_corpora", json!({})).expect("list_corpora answers");
    assert_eq!(corpora[0]["name"], "space");
    assert_eq!(corpora[0]["document_count"], 1);

    let page =
        invoke(&window, "list_documents", json!({"corpus": "space", "limit": 10, "offset": 0}))
            .expect("list_documents answers");
    assert_eq!(page.as_array().map(Vec::len), Some(1), "{page}");
    let next_page =
        invoke(&window, "list_documents", json!({"corpus": "space", "limit": 10, "offset": 1}))
            .expect("list_documents answers");
    assert_eq!(next_page, json!([]));

    let id = page[0]["id"].clone();
    let document =
        invoke(&window, "get_document", json!({"id": id})).expect("get_document answers");
    assert_eq!(document["summary"]["corpus"], "space");
    let sentences = document["sentences"].as_array().expect("sentences");
    assert_eq!(sentences.len(), 3);
    assert_eq!(sentences[1]["text"], "Its surface is covered in dust.");

    let hits = invoke(
        &window,
        "search_sentences",
        json!({"query": "astronauts", "limit": 5, "corpora": ["space"]}),
    )
    .expect("search_sentences answers");
    assert_eq!(hits[0]["document_id"], id);
    assert_eq!(hits[0]["sentence_id"], sentences[2]["id"]);
    assert!(!hits[0]["highlights"].as_array().expect("highlights").is_empty(), "{hits}");

    let again = import_article(&window, files.path(), "space");
    assert_eq!((again["imported"].clone(), again["duplicates"].clone()), (json!(0), json!(1)));
}

#[test]
fn an_index_of_an_older_layout_is_rebuilt_from_the_window() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let files = tempfile::tempdir().expect("a temp dir");
    {
        let (_app, window) = mock_window(dir.path());
        import_article(&window, files.path(), "space");
    }
    // The index as an older version left it: another analyzer's name.
    let meta = dir.path().join(factdesk_core::INDEX_DIR).join("meta.json");
    let layout = std::fs::read_to_string(&meta).expect("read the index layout");
    std::fs::write(&meta, layout.replace("\"factdesk_languages\"", "\"factdesk_words\""))
        .expect("write the index layout");

    let factdesk = Factdesk::open_deferring_index_rebuild(dir.path()).expect("open");
    assert!(factdesk.index_rebuild_pending());
    let app = build_app(mock_builder(), factdesk)
        .build(mock_context(tauri::test::noop_assets()))
        .expect("build the mock app");
    let window =
        WebviewWindowBuilder::new(&app, "main", Default::default()).build().expect("a window");
    let search = json!({"query": "astronauts", "corpora": []});
    assert_eq!(invoke(&window, "search_sentences", search.clone()), Ok(json!([])));

    let rebuilt =
        invoke(&window, "finish_index_rebuild", json!({"taskId": 5, "onProgress": CHANNEL}))
            .expect("finish_index_rebuild answers");
    assert_eq!(rebuilt["documents"], 1, "{rebuilt}");
    assert_eq!(rebuilt["sentences"], 3, "{rebuilt}");
    assert_eq!(rebuilt["complete"], true, "{rebuilt}");
    let hits = invoke(&window, "search_sentences", search).expect("search_sentences answers");
    assert_eq!(hits[0]["sentence"], "Twelve astronauts have walked on it.", "{hits}");
    // Nothing is left to do.
    let again =
        invoke(&window, "finish_index_rebuild", json!({"taskId": 6, "onProgress": CHANNEL}));
    assert_eq!(again, Ok(Value::Null));
}

#[test]
fn cancelling_an_unknown_task_says_so() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let (_app, window) = mock_window(dir.path());
    assert_eq!(invoke(&window, "cancel_task", json!({"taskId": 42})), Ok(json!(false)));
}

#[test]
fn settings_are_shown_without_the_api_key() {
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::write(
        dir.path().join("config.toml"),
        "[llm]\nprovider = \"openai-compatible\"\nbase_url = \"http://127.0.0.1:9/v1\"\n\
         model = \"tiny\"\napi_key = \"sk-secret\"\n[search]\nlimit = 7\n",
    )
    .expect("write the config");
    let (_app, window) = mock_window(dir.path());
    let view = invoke(&window, "get_settings", json!({})).expect("get_settings answers");
    assert_eq!(view["settings"]["search"]["limit"], 7);
    assert_eq!(view["settings"]["llm"]["api_key"], "");
    assert!(!view.to_string().contains("sk-secret"), "{view}");
    assert_eq!(view["model"]["provider"], "openai-compatible");
    assert_eq!(view["model"]["model"], "tiny");
    assert_eq!(view["model"]["has_api_key"], true);
}

#[test]
fn claims_are_listed_by_collection_and_status() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let claims = dir.path().join("claims.csv");
    std::fs::write(
        &claims,
        "claim,label,tags\nThe Moon is made of rock.,true,space\nThe Sun is cold.,false,\n",
    )
    .expect("write the claims");
    Factdesk::open(dir.path())
        .expect("open the data directory")
        .import_claims(&claims, "astronomy")
        .expect("import the claims");
    let (_app, window) = mock_window(dir.path());

    let collections =
        invoke(&window, "list_collections", json!({})).expect("list_collections answers");
    assert_eq!(collections[0]["name"], "astronomy");
    assert_eq!(collections[0]["claim_count"], 2);

    let listed =
        invoke(&window, "list_claims", json!({"collection": "astronomy", "status": "unchecked"}))
            .expect("list_claims answers");
    let texts: Vec<&str> =
        listed.as_array().expect("claims").iter().filter_map(|c| c["text"].as_str()).collect();
    assert_eq!(texts.len(), 2, "{listed}");
    assert!(texts.contains(&"The Sun is cold."), "{listed}");

    let tagged = invoke(&window, "list_claims", json!({"tag": "space", "limit": 10}))
        .expect("list_claims answers");
    assert_eq!(tagged[0]["gold_label"], "supported", "{tagged}");
    assert_eq!(tagged.as_array().map(Vec::len), Some(1));
}

#[test]
fn a_claims_language_is_corrected_and_a_bad_code_refused() {
    let dir = tempfile::tempdir().expect("a temp dir");
    Factdesk::open(dir.path())
        .expect("open the data directory")
        .add_claims(
            "alps",
            &["Die Zugspitze ist mit 2962 Metern der höchste Berg Deutschlands.".to_owned()],
            None,
        )
        .expect("add a claim");
    let (_app, window) = mock_window(dir.path());
    let listed = invoke(&window, "list_claims", json!({"collection": "alps"})).expect("list");
    let id = listed[0]["id"].as_i64().expect("a claim id");
    assert_eq!(listed[0]["language"], "de", "{listed}");

    let corrected = invoke(&window, "set_claim_language", json!({"id": id, "language": "fr"}))
        .expect("set_claim_language answers");
    assert_eq!(corrected["id"], id);
    assert_eq!(corrected["language"], "fr");
    let listed = invoke(&window, "list_claims", json!({"collection": "alps"})).expect("list");
    assert_eq!(listed[0]["language"], "fr", "stored: {listed}");

    let unknown = invoke(&window, "set_claim_language", json!({"id": id, "language": null}))
        .expect("set_claim_language answers");
    assert_eq!(unknown["language"], Value::Null);

    let refused = invoke(&window, "set_claim_language", json!({"id": id, "language": "German"}))
        .expect_err("a name is not a code");
    assert_eq!(refused["code"], "invalid_input", "{refused}");
    assert!(refused["message"].as_str().is_some_and(|m| m.contains("'German'")), "{refused}");
    let missing = invoke(&window, "set_claim_language", json!({"id": 999, "language": "de"}))
        .expect_err("no claim 999");
    assert_eq!(missing["code"], "not_found", "{missing}");
}

#[test]
fn core_errors_reach_the_ui_with_their_code() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let (_app, window) = mock_window(dir.path());

    let cases = [
        ("search_sentences", json!({"query": "moon", "corpora": ["no-such-corpus"]}), "not_found"),
        (
            "list_documents",
            json!({"corpus": "no-such-corpus", "limit": 5, "offset": 0}),
            "not_found",
        ),
        ("get_document", json!({"id": 999}), "not_found"),
        ("list_claims", json!({"collection": "no-such-collection"}), "not_found"),
        (
            "import_sources",
            json!({"taskId": 1, "corpus": " ", "sources": ["x.txt"], "onProgress": CHANNEL}),
            "invalid_input",
        ),
    ];
    for (command, args, code) in cases {
        let error = invoke(&window, command, args).expect_err(command);
        assert_eq!(error["code"], json!(code), "{command}: {error}");
        assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()), "{command}: {error}");
    }
}

/// Arguments a command does not take are refused before it runs, as invalid input that names
/// the command and what is wrong with them.
#[test]
fn arguments_of_the_wrong_shape_are_refused_naming_the_command() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let (_app, window) = mock_window(dir.path());

    let cases = [
        ("list_documents", json!({"limit": "ten", "offset": 0}), "invalid type"),
        ("get_document", json!({}), "missing field `id`"),
        ("review_check", json!({"checkId": 1, "decision": "maybe", "comment": ""}), "maybe"),
        (
            "export_report",
            json!({"collection": "c", "format": "pdf", "path": "c.pdf"}),
            "unknown variant `pdf`",
        ),
        ("revise_text", json!({"text": "x", "request": {"method": "redo"}}), "`redo`"),
        (
            "summarize_sources",
            json!({
                "taskId": 7,
                "input": {"question": "q", "method": "tts", "stances": "oracle"},
                "onProgress": CHANNEL,
            }),
            "`oracle`",
        ),
        (
            "summarize_sources",
            json!({
                "taskId": 8,
                "input": {"question": "q", "method": "median", "corpus": "c"},
                "onProgress": CHANNEL,
            }),
            "'median' is no summary method: tts, all-sources",
        ),
        (
            "collection_page",
            json!({"collection": "c", "request": {"verdict": "maybe", "limit": 5}}),
            "no verdict is called 'maybe'",
        ),
    ];
    for (command, args, detail) in cases {
        let error = invoke(&window, command, args).expect_err(command);
        assert_eq!(error["code"], "invalid_input", "{command}: {error}");
        let message = error["message"].as_str().unwrap_or_default();
        assert!(message.contains(&format!("`{command}`")), "{command}: {error}");
        assert!(message.contains(detail), "{command}: {error}");
    }
}

/// The commands are the ones the UI calls (in `api.ts` and its parts under `api/`), no more
/// and no fewer: the capability grants every command, so a command the UI does not call would
/// be reachable for no reason.
#[test]
fn the_commands_are_the_ones_the_ui_calls() {
    let ui = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src");
    let parts = std::fs::read_dir(ui.join("api")).expect("read ui/src/api/");
    let mut paths: Vec<_> =
        parts.map(|entry| entry.expect("an entry of ui/src/api/").path()).collect();
    paths.push(ui.join("api.ts"));
    let read = |path: &std::path::PathBuf| {
        std::fs::read_to_string(path).unwrap_or_else(|error| panic!("read {path:?}: {error}"))
    };
    let api: String = paths.iter().map(read).collect();
    // Every call goes through `call('name', …)` or `startTask('name', …)`.
    let mut called: Vec<&str> = ["call('", "startTask('"]
        .into_iter()
        .flat_map(|opening| api.split(opening).skip(1))
        .filter_map(|rest| rest.split_once('\'').map(|(name, _)| name))
        .collect();
    called.sort_unstable();
    called.dedup();
    let mut commands = COMMANDS.to_vec();
    commands.sort_unstable();
    assert_eq!(called, commands, "commands the UI calls (left) and the app's (right)");
}

/// The capability file grants the commands declared in `command_names.rs`, each by its
/// `allow-<name>` permission, in the order declared, and no permission of an undeclared
/// command; the other entries are Tauri's and its plugins' (`<plugin>:<permission>`).
#[test]
fn the_capability_grants_exactly_the_declared_commands() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/capabilities/default.json");
    let capability: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("read the capability"))
            .expect("the capability is JSON");
    let granted: Vec<&str> = capability["permissions"]
        .as_array()
        .expect("a list of permissions")
        .iter()
        .filter_map(Value::as_str)
        .filter(|permission| !permission.contains(':'))
        .collect();
    let declared: Vec<String> =
        COMMANDS.iter().map(|name| format!("allow-{}", name.replace('_', "-"))).collect();
    assert_eq!(
        granted, declared,
        "capabilities/default.json (left) must grant the commands of command_names.rs (right)"
    );
}

/// Builds the app with the real `tauri.conf.json` and `capabilities/`, as the window runs
/// it, and checks that the capability grants every command and nothing of the dialog
/// plugin but `open` and `save`.
#[test]
fn the_capability_grants_every_command_and_little_else() {
    let dir = tempfile::tempdir().expect("a temp dir");
    // A model file that does not exist, so that `check_model` fails at once.
    std::fs::write(
        dir.path().join("config.toml"),
        format!(
            "[llm]\nprovider = \"embedded\"\nembedded_model = {:?}\n",
            dir.path().join("missing.gguf").display().to_string()
        ),
    )
    .expect("write the config");
    let factdesk = Factdesk::open(dir.path()).expect("open the data directory");
    let app = build_app(mock_builder(), factdesk)
        .build(tauri::generate_context!(test = true))
        .expect("build the app with its real configuration");
    let window = match app.get_webview_window("main") {
        Some(window) => window,
        None => WebviewWindowBuilder::new(&app, "main", Default::default())
            .build()
            .expect("open the main window"),
    };

    let refused = |answer: &Result<Value, Value>| matches!(answer, Err(Value::String(message)) if message.contains("not allowed"));
    for command in COMMANDS {
        // Empty arguments: most commands refuse them, but not for want of permission.
        let answer = invoke(&window, command, json!({}));
        assert!(!refused(&answer), "{command} is not granted: {answer:?}");
    }
    let check = invoke(&window, "check_model", json!({})).expect_err("no model file");
    assert_eq!(check["code"], "model", "{check}");
    // The file dialogs are granted (empty options are refused, but not for want of
    // permission); the dialog plugin's other calls and the window's are not.
    for command in ["plugin:dialog|open", "plugin:dialog|save"] {
        let answer = invoke(&window, command, json!({}));
        assert!(!refused(&answer), "{command} is not granted: {answer:?}");
    }
    for command in
        ["plugin:dialog|message", "plugin:dialog|ask", "plugin:window|close", "plugin:fs|read"]
    {
        let answer = invoke(&window, command, json!({}));
        assert!(refused(&answer), "{command} should be refused: {answer:?}");
    }
}

const PENICILLIN: &str = "Penicillin is a group of antibiotics. Penicillin was discovered in 1928 \
    by Alexander Fleming, a Scottish physician. It came into wide use during the Second World War.";

/// A loopback server playing both the chat model (OpenAI-compatible) and Wikipedia's
/// MediaWiki API. URL prompts about penicillin get its article, other claims an article
/// that does not exist; NLI prompts are answered True when the document holds every long
/// word of the claim (the testkit's scripted model); anything else gets "OK". Chat answers
/// wait `delay`.
fn scripted_server(delay: Duration) -> TestServer {
    let model = ScriptedModel::new()
        .on_urls(|asked| {
            if asked.claim.contains("Penicillin") {
                "https://en.wikipedia.org/wiki/Penicillin"
            } else {
                "https://en.wikipedia.org/wiki/No_such_article"
            }
            .to_owned()
        })
        .delay(move |_| delay);
    TestServer::start(move |request: &RecordedRequest| {
        if request.path.starts_with("/w/api.php") {
            let title = request
                .path
                .split(['?', '&'])
                .find_map(|pair| pair.strip_prefix("titles="))
                .unwrap_or_default()
                .replace('+', " ");
            let body = if title == "Penicillin" {
                json!({"query": {"pages": [{"title": "Penicillin", "extract": PENICILLIN,
                    "canonicalurl": "https://en.wikipedia.org/wiki/Penicillin"}]}})
            } else {
                json!({"query": {"pages": [{"title": title, "missing": true}]}})
            };
            return TestResponse::json(200, &body.to_string());
        }
        model.respond(request).unwrap_or_else(|| TestResponse::text(404, "not a chat request"))
    })
}

/// A data directory whose settings send the chat model and Wikipedia to `server`.
fn scripted_data_dir(server: &TestServer) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::write(
        dir.path().join("config.toml"),
        format!(
            "[llm]\nprovider = \"openai-compatible\"\nbase_url = \"{}\"\nmodel = \"mock\"\n\
             max_retries = 0\n[fetch]\nallow_hosts = [\"127.0.0.1\"]\nwikipedia_api = \"{}\"\n\
             [verify]\nnli_samples = 3\n",
            server.url("/v1"),
            server.url("/w/api.php"),
        ),
    )
    .expect("write the config");
    dir
}

fn claim_texts(checks: &Value) -> Vec<String> {
    checks
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|entry| entry["claim"]["text"].as_str().map(str::to_owned))
        .collect()
}

fn entry_for<'a>(checks: &'a Value, text_part: &str) -> &'a Value {
    checks
        .as_array()
        .expect("a list")
        .iter()
        .find(|entry| entry["claim"]["text"].as_str().is_some_and(|t| t.contains(text_part)))
        .unwrap_or_else(|| panic!("no claim with {text_part}: {checks}"))
}

#[test]
fn claims_are_split_checked_reviewed_reported_and_evaluated() {
    let server = scripted_server(Duration::ZERO);
    let dir = scripted_data_dir(&server);
    let (_app, window) = mock_window(dir.path());

    let claims = invoke(
        &window,
        "split_claims",
        json!({"text": "Penicillin was discovered by Alexander Fleming in 1928.  The Moon is made of \n green cheese."}),
    )
    .expect("split_claims answers");
    assert_eq!(
        claims,
        json!([
            "Penicillin was discovered by Alexander Fleming in 1928.",
            "The Moon is made of green cheese."
        ])
    );
    let added = invoke(&window, "add_claims", json!({"collection": "desk", "claims": claims}))
        .expect("add_claims answers");
    assert_eq!((added["imported"].clone(), added["duplicates"].clone()), (json!(2), json!(0)));

    let summary = invoke(
        &window,
        "verify_collection",
        json!({"taskId": 5, "collection": "desk", "options": {"method": "llm-cite", "urls": "diverse"}, "onProgress": CHANNEL}),
    )
    .expect("verify_collection answers");
    assert_eq!(summary["checked"], 2, "{summary}");
    assert_eq!(
        (summary["resumed"].clone(), summary["cancelled"].clone()),
        (json!(false), json!(false))
    );
    assert_eq!(
        invoke(&window, "cancel_task", json!({"taskId": 5})),
        Ok(json!(false)),
        "the run is over"
    );

    let checks = invoke(&window, "collection_checks", json!({"collection": "desk"}))
        .expect("collection_checks answers");
    assert_eq!(claim_texts(&checks).len(), 2, "{checks}");
    let verified = entry_for(&checks, "Penicillin");
    assert_eq!(verified["claim"]["status"], "checked");
    let check = &verified["check"];
    assert_eq!(check["check"]["verdict"], "supported", "{check}");
    assert_eq!(
        check["check"]["attributions"][0]["source"]["url"],
        "https://en.wikipedia.org/wiki/Penicillin"
    );
    assert!(!check["model_calls"].as_array().expect("model calls").is_empty());
    let moon = &entry_for(&checks, "Moon")["check"]["check"];
    assert_eq!(
        (&moon["verdict"], &moon["undecided"]),
        (&json!("not_enough_info"), &json!("no_valid_url"))
    );

    let check_id = check["id"].clone();
    let claim_id = verified["claim"]["id"].clone();
    let history =
        invoke(&window, "checks_of_claim", json!({"id": claim_id})).expect("checks_of_claim");
    assert_eq!(history.as_array().map(Vec::len), Some(1), "{history}");
    assert_eq!(history[0]["id"], check_id);
    assert_eq!(
        history[0]["check"]["claim"],
        "Penicillin was discovered by Alexander Fleming in 1928."
    );

    // An override needs a comment; with one, the machine verdict is kept beside it.
    let refused = invoke(
        &window,
        "review_check",
        json!({"checkId": check_id, "decision": "override", "verdict": "refuted", "comment": " "}),
    )
    .expect_err("an override without a comment");
    assert_eq!(refused["code"], "invalid_input", "{refused}");
    let review = invoke(
        &window,
        "review_check",
        json!({"checkId": check_id, "decision": "override", "verdict": "refuted",
               "comment": "The 1928 date is for the discovery, not the claim's wording.", "reviewer": "ana"}),
    )
    .expect("review_check answers");
    assert_eq!(
        (review["decision"].clone(), review["verdict"].clone()),
        (json!("override"), json!("refuted"))
    );
    let history =
        invoke(&window, "checks_of_claim", json!({"id": claim_id})).expect("checks_of_claim");
    let reviewed = &history[0];
    assert_eq!(reviewed["check"]["verdict"], "supported", "the machine verdict is kept");
    assert_eq!(reviewed["review"]["verdict"], "refuted", "{reviewed}");
    let checks = invoke(&window, "collection_checks", json!({"collection": "desk"}))
        .expect("collection_checks answers");
    assert_eq!(entry_for(&checks, "Penicillin")["claim"]["status"], "reviewed");
    // The dashboard: the overridden claim sits in the supported row's refuted column.
    let dashboard = invoke(&window, "collection_dashboard", json!({"collection": "desk"}))
        .expect("collection_dashboard answers");
    assert_eq!((dashboard["claims"].clone(), dashboard["reviewed"].clone()), (json!(2), json!(1)));
    let supported_row = &dashboard["machine_vs_review"][0];
    assert_eq!(supported_row["machine"], "supported", "{dashboard}");
    assert_eq!(supported_row["cells"][2], json!({"review": "refuted", "claims": 1}), "{dashboard}");

    let reports = tempfile::tempdir().expect("a temp dir");
    let report = reports.path().join("desk.md");
    let exported = invoke(
        &window,
        "export_report",
        json!({"collection": "desk", "format": "md", "path": report}),
    );
    assert_eq!(exported, Ok(Value::Null));
    let text = std::fs::read_to_string(&report).expect("the report is written");
    assert!(text.contains("not the claim's wording"), "{text}");
    let bad = invoke(
        &window,
        "export_report",
        json!({"collection": "desk", "format": "pdf", "path": reports.path().join("x.pdf")}),
    )
    .expect_err("an unknown format");
    assert_eq!(bad["code"], "invalid_input", "{bad}");

    let unlabelled =
        invoke(&window, "evaluate", json!({"collection": "desk"})).expect("evaluate answers");
    assert_eq!(
        (unlabelled["claims"].clone(), unlabelled["labelled"].clone()),
        (json!(2), json!(0))
    );
    // LLM-Cite's own figures come with its method's name.
    assert_eq!(unlabelled["figures"][0]["method"], "llm-cite", "{unlabelled}");
    let urls = &unlabelled["figures"][0]["figures"][0];
    assert_eq!((urls["key"].clone(), urls["value"].clone()), (json!("urls_proposed"), json!(2.0)));

    // A claims file with gold labels, checked and scored.
    let file = reports.path().join("claims.csv");
    std::fs::write(
        &file,
        "claim,label\nPenicillin was discovered by Alexander Fleming in 1928.,true\n\
         The Moon is made of green cheese.,false\n",
    )
    .expect("write the claims");
    let imported =
        invoke(&window, "import_claims", json!({"path": file, "collection": "labelled"}))
            .expect("import_claims answers");
    assert_eq!(imported["imported"], 2, "{imported}");
    invoke(
        &window,
        "verify_collection",
        json!({"taskId": 6, "collection": "labelled", "onProgress": CHANNEL}),
    )
    .expect("verify_collection answers");
    let evaluation =
        invoke(&window, "evaluate", json!({"collection": "labelled"})).expect("evaluate answers");
    assert_eq!(evaluation["evaluated"], 2, "{evaluation}");
    assert_eq!(evaluation["accuracy"], 1.0, "{evaluation}");
    assert_eq!(evaluation["balanced_accuracy"], 1.0, "{evaluation}");
}

#[test]
fn a_batch_of_checks_is_cancelled_and_then_resumed() {
    let server = scripted_server(Duration::from_millis(400));
    let dir = scripted_data_dir(&server);
    let (_app, window) = mock_window(dir.path());
    let claims: Vec<String> =
        (1..=4).map(|n| format!("Claim number {n} is about nothing known.")).collect();
    invoke(&window, "add_claims", json!({"collection": "slow", "claims": claims}))
        .expect("add_claims answers");

    let run = |window: &WebviewWindow<MockRuntime>| {
        invoke(
            window,
            "verify_collection",
            json!({"taskId": 9, "collection": "slow", "options": {"method": "llm-cite"}, "onProgress": CHANNEL}),
        )
    };
    let background = window.clone();
    let first = std::thread::spawn(move || run(&background));
    // The first claims are waiting for the model: cancel, so that no other claim starts.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while invoke(&window, "cancel_task", json!({"taskId": 9})) != Ok(json!(true)) {
        assert!(std::time::Instant::now() < deadline, "the batch never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let first = first.join().expect("the first run").expect("verify_collection answers");
    assert_eq!(first["cancelled"], true, "{first}");
    let done = first["checked"].as_u64().expect("checked");
    assert!(done < 4, "{first}");

    let second = run(&window).expect("verify_collection answers");
    assert_eq!(second["resumed"], true, "{second}");
    assert_eq!(second["run_id"], first["run_id"]);
    assert_eq!(second["already_checked"], done);
    assert_eq!(second["checked"].as_u64(), Some(4 - done), "{second}");
    assert_eq!(second["cancelled"], false);
}

#[test]
fn saved_settings_take_effect_and_invalid_ones_change_nothing() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "[search]\nsnippet_chars = 200\n").expect("write the config");
    let (_app, window) = mock_window(dir.path());

    let view = invoke(
        &window,
        "save_settings",
        json!({"changes": [
            {"key": "llm.provider", "value": "openai-compatible"},
            {"key": "llm.base_url", "value": "http://127.0.0.1:9/v1"},
            {"key": "llm.model", "value": "tiny"},
            {"key": "llm.api_key", "value": "sk-secret"},
            {"key": "fetch.offline", "value": true},
            {"key": "fetch.allow_hosts", "value": ["127.0.0.1", "localhost:8080"]},
            {"key": "search.limit", "value": 3},
        ]}),
    )
    .expect("save_settings answers");
    assert_eq!(view["model"]["model"], "tiny");
    assert_eq!(view["model"]["has_api_key"], true);
    assert!(!view.to_string().contains("sk-secret"), "{view}");
    // The commands that follow see the new settings.
    let shown = invoke(&window, "get_settings", json!({})).expect("get_settings answers");
    assert_eq!(shown["settings"]["search"]["limit"], 3);
    assert_eq!(shown["settings"]["search"]["snippet_chars"], 200, "kept from the file");
    assert_eq!(shown["settings"]["fetch"]["offline"], true);
    assert_eq!(shown["settings"]["fetch"]["allow_hosts"], json!(["127.0.0.1", "localhost:8080"]));
    assert_eq!(invoke(&window, "list_corpora", json!({})), Ok(json!([])));
    let written = std::fs::read_to_string(&config).expect("the config file");
    assert!(written.contains("snippet_chars = 200") && written.contains("sk-secret"), "{written}");

    // Taking a key out restores its default.
    invoke(&window, "save_settings", json!({"changes": [{"key": "search.limit", "value": null}]}))
        .expect("save_settings answers");
    let shown = invoke(&window, "get_settings", json!({})).expect("get_settings answers");
    assert_eq!(shown["settings"]["search"]["limit"], 10);

    let before = std::fs::read(&config).expect("the config file");
    for (changes, key) in [
        (json!([{"key": "llm.provider", "value": "magic"}]), "llm.provider"),
        (json!([{"key": "fetch.allow_hosts", "value": ["http://x/"]}]), "fetch.allow_hosts"),
        (json!([{"key": "search.limt", "value": 4}]), "search.limt"),
    ] {
        let error = invoke(&window, "save_settings", json!({"changes": changes}))
            .expect_err("an invalid setting");
        assert_eq!(error["code"], "config", "{error}");
        assert!(error["message"].as_str().is_some_and(|m| m.contains(key)), "{error}");
        assert_eq!(std::fs::read(&config).expect("the config file"), before, "{key}");
    }
    let shown = invoke(&window, "get_settings", json!({})).expect("get_settings answers");
    assert_eq!(shown["settings"]["llm"]["provider"], "openai-compatible");
}
