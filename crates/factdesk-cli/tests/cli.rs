//! The `factdesk` binary, run as a user runs it: exit codes, --json output, errors on stderr.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn demo_corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/demo")
}

struct Cli {
    data: tempfile::TempDir,
}

impl Cli {
    fn new() -> Cli {
        Cli { data: tempfile::tempdir().unwrap() }
    }

    fn command(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_factdesk"));
        command.arg("--data-dir").arg(self.data.path());
        command
            .env_remove("FACTDESK_DATA_DIR")
            .env_remove("FACTDESK_CONFIG")
            .env_remove("FACTDESK_LOG");
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command().args(args).output().expect("run factdesk")
    }

    /// Points the chat model at `model` (an OpenAI-compatible test server), followed by the
    /// settings `more` in TOML.
    fn use_model(&self, model: &factdesk_testkit::TestServer, more: &str) {
        let settings = format!(
            "[llm]\nprovider = \"openai-compatible\"\nbase_url = \"{}\"\nmodel = \"mock\"\n{more}",
            model.url("/v1")
        );
        std::fs::write(self.data.path().join("config.toml"), settings).unwrap();
    }

    fn json(&self, args: &[&str]) -> serde_json::Value {
        let output = self.run(&[args, &["--json"]].concat());
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        serde_json::from_slice(&output.stdout).expect("valid JSON on stdout")
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn init_import_search_docs_and_check() {
    let cli = Cli::new();
    let init = cli.json(&["init"]);
    assert_eq!(init["schema_version"], 22);
    assert!(cli.data.path().join("config.toml").exists());

    let corpus = demo_corpus().join("corpus");
    let summary = cli.json(&["import", corpus.to_str().unwrap(), "--corpus", "demo"]);
    assert_eq!(summary["imported"], 12);
    assert_eq!(summary["failed"], 0);

    let hits =
        cli.json(&["search", "Fleming discovered penicillin", "--limit", "3", "--corpus", "demo"]);
    let top = &hits[0];
    assert!(
        top["sentence"]
            .as_str()
            .unwrap()
            .contains("Alexander Fleming discovered penicillin in 1928")
    );
    let snippet = top["snippet"].as_str().unwrap();
    let marked: Vec<&str> = top["highlights"]
        .as_array()
        .unwrap()
        .iter()
        .map(|range| {
            &snippet[range[0].as_u64().unwrap() as usize..range[1].as_u64().unwrap() as usize]
        })
        .collect();
    assert_eq!(marked, ["Fleming", "discovered", "penicillin"]);

    let plain = cli.run(&["search", "Fleming penicillin", "-n", "1"]);
    assert_eq!(plain.status.code(), Some(0));
    assert!(text(&plain.stdout).contains("[Fleming]"), "{}", text(&plain.stdout));

    let docs = cli.json(&["docs", "--corpus", "demo"]);
    assert_eq!(docs.as_array().unwrap().len(), 12);
    let id = docs[0]["id"].as_i64().unwrap();
    let document = cli.json(&["doc", &id.to_string()]);
    assert!(!document["sentences"].as_array().unwrap().is_empty());

    let corpora = cli.json(&["corpora"]);
    assert_eq!(corpora[0]["name"], "demo");
    assert_eq!(corpora[0]["document_count"], 12);

    let check = cli.json(&["reindex", "--check"]);
    assert_eq!(check["consistent"], true);
    let rebuilt = cli.json(&["reindex"]);
    assert_eq!(rebuilt["documents"], 12);
}

#[test]
fn failed_items_give_exit_code_1_and_name_the_file() {
    let cli = Cli::new();
    let input = tempfile::tempdir().unwrap();
    let good = input.path().join("good.txt");
    let bad = input.path().join("bad.txt");
    std::fs::write(&good, "A good file. It imports.").unwrap();
    std::fs::write(&bad, b"\x00\x01\x02").unwrap();
    let output = cli.run(&["import", good.to_str().unwrap(), bad.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("bad.txt") && stderr.contains("binary"), "{stderr}");
    assert!(text(&output.stdout).contains("Imported 1 document"), "{}", text(&output.stdout));

    let output = cli.run(&["import", bad.to_str().unwrap(), "--json"]);
    assert_eq!(output.status.code(), Some(1));
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(summary["failures"][0]["item"].as_str().unwrap().ends_with("bad.txt"));
}

#[test]
fn usage_and_fatal_errors_give_exit_code_2() {
    let cli = Cli::new();
    assert_eq!(cli.run(&["search"]).status.code(), Some(2));
    assert_eq!(cli.run(&["import"]).status.code(), Some(2));
    assert_eq!(cli.run(&["no-such-command"]).status.code(), Some(2));
    assert_eq!(cli.run(&["--help"]).status.code(), Some(0));
    // --skip-checked is about collections: with a single claim it is a usage error.
    let output = cli.run(&["verify", "Okra is a plant.", "--skip-checked"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("--skip-checked"), "{}", text(&output.stderr));

    std::fs::create_dir_all(cli.data.path()).unwrap();
    std::fs::write(cli.data.path().join("config.toml"), "[search]\nlimt = 3\n").unwrap();
    let output = cli.run(&["corpora"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("config.toml") && stderr.contains("search.limt"), "{stderr}");

    let other = Cli::new();
    let output = other.run(&["search", "anything", "--corpus", "missing"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("corpus 'missing' not found"),
        "{}",
        text(&output.stderr)
    );
    // With --json, the error is also a JSON object on stdout.
    let output = other.run(&["verify", "--collection", "missing", "--method", "p-true", "--json"]);
    assert_eq!(output.status.code(), Some(2));
    let answer: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(answer["error"]["code"], "not_found", "{answer}");
    assert!(answer["error"]["message"].as_str().unwrap().contains("missing"), "{answer}");
}

#[test]
fn reports_go_only_where_they_belong_and_errors_say_their_cause_once() {
    let cli = Cli::new();
    let claims = demo_corpus().join("claims.csv");
    cli.json(&["claims", "import", claims.to_str().unwrap(), "--collection", "demo"]);
    let report = |args: &[&str]| cli.run(&[&["report", "--collection", "demo"], args].concat());

    // --json alone prints the JSON report; with another format and no file it is refused.
    let json = report(&["--json"]);
    assert_eq!(json.status.code(), Some(0), "{}", text(&json.stderr));
    let parsed: serde_json::Value = serde_json::from_slice(&json.stdout).expect("a JSON report");
    assert_eq!(parsed["title"], "demo", "{parsed}");
    let refused = report(&["--json", "--format", "html"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(text(&refused.stderr).contains("-o FILE"), "{}", text(&refused.stderr));

    // With -o and --json: where it went, as JSON.
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("demo.html");
    let written = cli.json(&[
        "report",
        "--collection",
        "demo",
        "--format",
        "html",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert_eq!(
        (written["path"].as_str(), written["format"].as_str()),
        (file.to_str(), Some("html"))
    );
    assert!(std::fs::read_to_string(&file).unwrap().contains("<html"));

    // The database, a folder, a missing folder: refused, saying what to do; nothing written.
    let database = cli.data.path().join("factdesk.sqlite3");
    let before = std::fs::read(&database).unwrap();
    let output = report(&["-o", database.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("Factdesk's own files"), "{}", text(&output.stderr));
    assert_eq!(std::fs::read(&database).unwrap(), before);
    let output = report(&["-o", out.path().to_str().unwrap()]);
    assert!(text(&output.stderr).contains("is a folder"), "{}", text(&output.stderr));
    let link = cli.data.path().join("link-to-a-folder");
    std::os::unix::fs::symlink(out.path(), &link).unwrap();
    let output = report(&["-o", link.to_str().unwrap()]);
    assert!(text(&output.stderr).contains("is a folder"), "{}", text(&output.stderr));
    let missing = out.path().join("no-such-folder").join("r.md");
    let output = report(&["-o", missing.to_str().unwrap()]);
    assert!(text(&output.stderr).contains("does not exist; create it"), "{}", text(&output.stderr));
    assert!(!out.path().join("no-such-folder").exists());

    // An error whose message quotes its cause prints the cause once.
    let output = cli.run(&["claims", "import", "/no/such/claims.csv", "--collection", "demo"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert_eq!(stderr.matches("No such file or directory").count(), 1, "{stderr}");

    // Scoring a run that is not over the collection is refused.
    let output = cli.run(&["eval", "--collection", "demo", "--run", "99"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("run 99"), "{}", text(&output.stderr));
}

#[test]
fn claims_import_and_list() {
    let cli = Cli::new();
    let claims = demo_corpus().join("claims.csv");
    let summary = cli.json(&["claims", "import", claims.to_str().unwrap(), "--collection", "demo"]);
    assert_eq!(summary["imported"], 10);
    let again = cli.json(&["claims", "import", claims.to_str().unwrap(), "--collection", "demo"]);
    assert_eq!(again["duplicates"], 10);

    let listed = cli.json(&["claims", "list", "--collection", "demo"]);
    assert_eq!(listed.as_array().unwrap().len(), 10);
    assert_eq!(listed[0]["gold_label"], "supported");
    assert_eq!(listed[0]["status"], "unchecked");
    let tagged = cli.json(&["claims", "list", "--tag", "space"]);
    assert_eq!(tagged.as_array().unwrap().len(), 2);
    let collections = cli.json(&["claims", "collections"]);
    assert_eq!(collections[0]["claim_count"], 10);

    // Claims typed on the command line, with the date they were made.
    let added = cli.json(&[
        "claims",
        "add",
        "Rates rose in May.",
        "Rates fell in June.",
        "--collection",
        "typed",
        "--date",
        "2024-06-30",
    ]);
    assert_eq!(added["imported"], 2);
    let typed = cli.json(&["claims", "list", "--collection", "typed"]);
    assert_eq!(typed[1]["claimed_on"], "2024-06-30");
    let shown = text(&cli.run(&["claims", "list", "--collection", "typed"]).stdout);
    assert!(shown.contains("Rates fell in June.  (2024-06-30)"), "{shown}");
    let refused =
        cli.run(&["claims", "add", "Rates held.", "--collection", "typed", "--date", "soon"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(text(&refused.stderr).contains("\"soon\" is not a date"), "{}", text(&refused.stderr));

    // Each claim gets a language: detected, the default for one too short to tell, or set.
    let german = "Die Zugspitze ist mit 2962 Metern der höchste Berg Deutschlands.";
    cli.json(&["claims", "add", german, "--collection", "typed"]);
    let typed = cli.json(&["claims", "list", "--collection", "typed"]);
    assert_eq!(typed[1]["language"], "en", "too short to tell: {typed}");
    assert_eq!(typed[2]["language"], "de", "{typed}");
    let id = typed[1]["id"].as_i64().unwrap().to_string();
    let set = cli.json(&["claims", "language", &id, "fr"]);
    assert_eq!(set[0]["language"], "fr", "{set}");
    let shown = text(&cli.run(&["claims", "list", "--collection", "typed"]).stdout);
    assert!(shown.contains("[fr]") && shown.contains("[de]"), "{shown}");
    let refused = cli.run(&["claims", "language", &id, "French"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(text(&refused.stderr).contains("'French' is not a language code"));
    let missing = cli.run(&["claims", "language", "999999", "fr"]);
    assert_ne!(missing.status.code(), Some(0));
}

#[test]
fn data_dir_comes_from_the_environment_and_config_overrides_apply() {
    let data = tempfile::tempdir().unwrap();
    std::fs::write(data.path().join("config.toml"), "[search]\nlimit = 2\n").unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_factdesk"))
            .args(args)
            .env("FACTDESK_DATA_DIR", data.path())
            .env_remove("FACTDESK_CONFIG")
            .output()
            .unwrap()
    };
    let corpus = demo_corpus().join("corpus");
    assert_eq!(run(&["import", corpus.to_str().unwrap()]).status.code(), Some(0));
    let output = run(&["search", "the", "--json"]);
    let hits: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(hits.as_array().unwrap().len(), 2);
    let config = run(&["config", "--json"]);
    let settings: serde_json::Value = serde_json::from_slice(&config.stdout).unwrap();
    assert_eq!(settings["search"]["limit"], 2);
    let defaults = run(&["config", "--defaults"]);
    assert!(text(&defaults.stdout).contains("max_file_bytes"));
}

/// A chat model on loopback that calls every claim true after `delay` (the testkit's scripted
/// model), recording what it was asked.
fn slow_true_model(delay: std::time::Duration) -> factdesk_testkit::TestServer {
    use factdesk_testkit::scripted::{NLI_TEMPLATE, P_TRUE_TEMPLATE, ScriptedModel};
    ScriptedModel::new()
        .on(P_TRUE_TEMPLATE, |_| "True".to_owned())
        .on(NLI_TEMPLATE, |_| "True".to_owned())
        .delay(move |_| delay)
        .serve()
}

/// The claims a model server was asked about, one per request.
fn claims_asked(server: &factdesk_testkit::TestServer) -> Vec<String> {
    server
        .requests()
        .iter()
        .filter_map(factdesk_testkit::scripted::asked)
        .filter_map(|asked| asked.ok().map(|asked| asked.claim))
        .collect()
}

/// The texts of the checked claims of `collection`.
fn checked_claims(cli: &Cli, collection: &str) -> Vec<String> {
    cli.json(&["claims", "list", "--collection", collection, "--status", "checked"])
        .as_array()
        .unwrap()
        .iter()
        .map(|claim| claim["text"].as_str().unwrap().to_owned())
        .collect()
}

/// Starts `verify --collection` and kills it (SIGKILL) once `at_least` claims are checked,
/// within `patience_secs`; the claims checked by then.
fn kill_run_once_checked(
    cli: &Cli,
    collection: &str,
    at_least: usize,
    patience_secs: u64,
) -> Vec<String> {
    let mut child = cli
        .command()
        .args(["verify", "--collection", collection, "--json"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while checked_claims(cli, collection).len() < at_least {
        assert!(started.elapsed().as_secs() < patience_secs, "the run made no progress");
        assert!(child.try_wait().unwrap().is_none(), "the run ended before it was killed");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    checked_claims(cli, collection)
}

#[test]
fn a_killed_batch_run_resumes_without_checking_a_claim_twice() {
    let cli = Cli::new();
    let model = slow_true_model(std::time::Duration::from_millis(250));
    cli.use_model(&model, "[verify]\nmethod = \"p-true\"\nconcurrency = 1\n");
    let claims = demo_corpus().join("claims.csv");
    cli.json(&["claims", "import", claims.to_str().unwrap(), "--collection", "demo"]);

    // Start a batch run and kill it once a few claims are stored.
    let done_before = kill_run_once_checked(&cli, "demo", 3, 60);
    assert!(done_before.len() < 10, "the run was killed before the end");
    let asked_before = claims_asked(&model).len();

    // The same command continues the run.
    let summary = cli.json(&["verify", "--collection", "demo"]);
    assert_eq!(summary["resumed"], true);
    assert_eq!(summary["already_checked"], done_before.len());
    assert_eq!(summary["checked"], 10 - done_before.len());
    assert_eq!(summary["failed"], 0);
    let asked_after: Vec<String> = claims_asked(&model)[asked_before..].to_vec();
    for claim in &done_before {
        assert!(!asked_after.contains(claim), "{claim} was checked twice");
    }
    // Every claim has exactly one check in the run.
    let report = cli.json(&["report", "--collection", "demo", "--format", "json"]);
    let items = report["items"].as_array().unwrap();
    assert_eq!(items.len(), 10);
    let run = summary["run_id"].as_i64().unwrap();
    assert!(items.iter().all(|item| item["check"]["run_id"].as_i64() == Some(run)));
    assert_eq!(checked_claims(&cli, "demo").len(), 10);

    // Finished: the next call starts a new run whose model calls all come from the record.
    let asked = claims_asked(&model).len();
    let again = cli.json(&["verify", "--collection", "demo"]);
    assert_eq!(again["resumed"], false);
    assert_eq!(again["checked"], 10);
    assert_eq!(claims_asked(&model).len(), asked, "a re-run is served from the model-call record");
}

#[test]
fn offline_checks_without_the_verifier_stop_before_they_start_and_say_how_to_restore_it() {
    let cli = Cli::new();
    cli.json(&["init"]);
    let claims = demo_corpus().join("claims.csv");
    cli.json(&["claims", "import", claims.to_str().unwrap(), "--collection", "demo"]);
    let models = tempfile::tempdir().unwrap();
    let verify = || {
        cli.command()
            .env("FACTDESK_MODELS_DIR", models.path())
            .env_remove("FACTDESK_LLM_BASE_URL")
            .env_remove("FACTDESK_LLM_MODEL")
            .args(["verify", "--collection", "demo", "--method", "corpus-nli"])
            .output()
            .unwrap()
    };
    // With the embedded model, NLI is the verifier by default; it is not installed here.
    let output = verify();
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("factdesk-verifier"), "{stderr}");
    assert!(stderr.contains("scripts/fetch-models.sh"), "{stderr}");
    // A broken copy: the error names the broken file.
    let folder = models.path().join("factdesk-verifier");
    std::fs::create_dir_all(&folder).unwrap();
    for file in ["config.json", "tokenizer.json", "model.safetensors"] {
        std::fs::write(folder.join(file), b"{ broken").unwrap();
    }
    let output = verify();
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("config.json"), "{stderr}");
    // Nothing was checked: no run was left behind to resume.
    let listed = cli.json(&["claims", "list", "--collection", "demo"]);
    assert!(listed.to_string().contains("Okra"));
    let evaluation = cli.json(&["eval", "--collection", "demo"]);
    assert_eq!(evaluation["evaluated"], 0);
}

/// A command of `cli` that finds the shipped verifier (linked into a models directory of its
/// own, which lives as long as the returned directory) and no chat model.
fn verifier_only(cli: &Cli, root: &Path) -> (tempfile::TempDir, Command) {
    let models = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        root.join("assets/models/factdesk-verifier").canonicalize().unwrap(),
        models.path().join("factdesk-verifier"),
    )
    .unwrap();
    let mut command = cli.command();
    command
        .env("FACTDESK_MODELS_DIR", models.path())
        .env_remove("FACTDESK_LLM_BASE_URL")
        .env_remove("FACTDESK_LLM_MODEL");
    (models, command)
}

/// Runs `command` (a `verify --json`) and checks that it resumed `run`, leaving out `already`
/// claims and checking `checked`.
fn assert_resumed(command: &mut Command, run: i64, already: u64, checked: u64) {
    let output = command.arg("--json").output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let got = (
        summary["resumed"].as_bool(),
        summary["run_id"].as_i64(),
        summary["already_checked"].as_u64(),
        summary["checked"].as_u64(),
    );
    assert_eq!(got, (Some(true), Some(run), Some(already), Some(checked)), "{summary}");
}

/// A data directory of schema version 5 (`tests/fixtures/data-dir-v5`, left by the CLI of that
/// version: a corpus-NLI batch and a P(True) batch killed midway, reviews, single checks, an
/// `ask`) opens on this version with its checks, reviews and runs intact, and both killed
/// batches resume where they stopped, checking no claim twice.
#[test]
fn a_data_directory_of_version_5_upgrades_and_its_killed_runs_resume() {
    let cli = Cli::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    factdesk_testkit::copy_dir(&root.join("tests/fixtures/data-dir-v5"), cli.data.path());
    let init = cli.json(&["init"]);
    assert_eq!(init["schema_version"], 22);

    // What version 5 stored is there (the store's migration test checks every row).
    let report = cli.json(&["report", "--collection", "demo", "--format", "json"]);
    let checked = |report: &serde_json::Value| {
        report["items"].as_array().unwrap().iter().filter(|item| !item["check"].is_null()).count()
    };
    assert_eq!(checked(&report), 4);
    // Stored with `urls` on every check, they are exported in today's shape: corpus-NLI keeps
    // nothing of its own, so its checks have no `detail` and no `urls`.
    let items = report["items"].as_array().unwrap();
    for check in items.iter().map(|item| &item["check"]["check"]).filter(|c| !c.is_null()) {
        assert_eq!((check.get("urls"), check.get("detail")), (None, None), "{check}");
    }
    let claims = cli.json(&["claims", "list", "--collection", "demo"]);
    let text_of = |id: i64| -> String {
        claims
            .as_array()
            .unwrap()
            .iter()
            .find(|claim| claim["id"].as_i64() == Some(id))
            .map(|claim| claim["text"].as_str().unwrap().to_owned())
            .unwrap()
    };

    // The killed P(True) batch (run 5, claims 1 and 2 done) resumes with the same model.
    let model = slow_true_model(std::time::Duration::ZERO);
    let base_url = model.url("/v1");
    assert_resumed(
        cli.command()
            .env("FACTDESK_LLM_BASE_URL", &base_url)
            .env("FACTDESK_LLM_MODEL", "SmolLM2-135M-Instruct.Q4_1")
            .args(["verify", "--collection", "demo", "--method", "p-true"]),
        5,
        2,
        8,
    );
    let asked = claims_asked(&model);
    let distinct: std::collections::HashSet<&String> = asked.iter().collect();
    assert_eq!(distinct.len(), 8, "{asked:?}");
    for done in [text_of(1), text_of(2)] {
        assert!(!asked.contains(&done), "'{done}' was checked twice");
    }

    // The killed corpus-NLI batch (run 1, claims 1 to 4 done) resumes with the verifier, and
    // without loading the chat model it never asks.
    let (_models, mut verifier) = verifier_only(&cli, &root);
    let args = ["verify", "--collection", "demo", "--method", "corpus-nli", "--corpus", "demo"];
    assert_resumed(verifier.args(args), 1, 4, 6);
    // The newest check of each claim: P(True)'s for the claims corpus-NLI had done before it
    // was killed, corpus-NLI's for the others; none twice.
    let report = cli.json(&["report", "--collection", "demo", "--format", "json"]);
    let items = report["items"].as_array().unwrap();
    assert_eq!(checked(&report), 10);
    for item in items {
        let claim = item["claim_id"].as_i64().unwrap();
        let check = &item["check"];
        let expected_run = if claim <= 4 { 5 } else { 1 };
        assert_eq!(check["run_id"].as_i64(), Some(expected_run), "claim {claim}: {check}");
        if expected_run == 1 {
            // A check judged by the verifier names it, not the chat model it never asked.
            assert_eq!(check["check"]["model"], "factdesk-verifier", "{check}");
        }
    }
    // One method's checks: every claim's corpus-NLI check is in run 1.
    let args = ["report", "--collection", "demo", "--format", "json", "--method", "corpus-nli"];
    let report = cli.json(&args);
    assert_eq!(checked(&report), 10);
    let items = report["items"].as_array().unwrap();
    assert!(items.iter().all(|item| item["check"]["run_id"] == 1), "{report}");
    let evaluation = cli.json(&["eval", "--collection", "demo", "--method", "p-true"]);
    assert_eq!(evaluation["methods"], serde_json::json!(["p-true"]), "{evaluation}");
    assert_eq!(evaluation["run_id"], serde_json::Value::Null);
}

/// A data directory of schema version 20 (`tests/fixtures/data-dir-v20`, see its README: an
/// article stored before sentences had languages, a corpus-NLI run cancelled after claims 1 and
/// 2 of six) opens on this version with its sentences read before the first command, each
/// found in its language, and the cancelled run resumes where it stopped.
#[test]
fn a_data_directory_of_version_20_upgrades_and_its_cancelled_run_resumes() {
    let cli = Cli::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    factdesk_testkit::copy_dir(&root.join("tests/fixtures/data-dir-v20"), cli.data.path());
    let init = cli.json(&["init"]);
    assert_eq!(init["schema_version"], 22);
    let sentences = |args: &[&str]| -> Vec<String> {
        let hits = cli.json(&[&["search"], args].concat());
        let hits = hits.as_array().unwrap().iter();
        hits.map(|hit| hit["sentence"].as_str().unwrap().to_owned()).collect()
    };
    assert_eq!(
        sentences(&["march\u{e9}s", "--language", "fr"]),
        ["Le march\u{e9} couvert restera ferm\u{e9} pendant trois semaines de travaux."]
    );
    assert_eq!(
        sentences(&["Br\u{fc}cke", "--language", "de"]),
        ["Die alten Br\u{fc}cken sollen bis zum Ende des Jahres abgerissen werden."]
    );
    let berg = sentences(&["Bergen", "--corpus", "zeitung"]);
    assert!(berg[0].contains("h\u{f6}chste Berg"), "{berg:?}");
    let check = cli.run(&["reindex", "--check"]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));

    // The cancelled corpus-NLI run (run 1) resumes with the verifier: claims 1 and 2 left out.
    let (_models, mut verifier) = verifier_only(&cli, &root);
    assert_resumed(
        verifier.args(["verify", "--collection", "desk", "--method", "corpus-nli"]),
        1,
        2,
        4,
    );
    let report = cli.json(&["report", "--collection", "desk", "--format", "json"]);
    let runs: Vec<i64> = report["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["check"]["run_id"].as_i64().unwrap())
        .collect();
    assert_eq!(runs, [1; 6], "{report}");
}

#[test]
fn passages_are_added_and_listed_and_bad_ones_named() {
    let cli = Cli::new();
    cli.json(&["init"]);
    let added = cli.json(&[
        "passages",
        "add",
        "The tower opened in 1889.",
        "--collection",
        "summaries",
        "--kind",
        "answer",
        "--question",
        "When did the tower open?",
    ]);
    assert_eq!((added["added"].as_u64(), added["duplicates"].as_u64()), (Some(1), Some(0)));
    let listed = cli.json(&["passages", "list", "--collection", "summaries"]);
    assert_eq!(listed[0]["kind"], "answer");
    assert_eq!(listed[0]["question"], "When did the tower open?");
    let plain = cli.run(&["passages", "list", "--collection", "summaries"]);
    assert!(text(&plain.stdout).contains("answer"), "{}", text(&plain.stdout));

    let kind = cli.run(&["passages", "add", "x", "--collection", "s", "--kind", "poem"]);
    assert_eq!(kind.status.code(), Some(2));
    assert!(text(&kind.stderr).contains("passage kind"), "{}", text(&kind.stderr));
    let source = cli.run(&["passages", "add", "x", "--collection", "s", "--source", "42"]);
    assert_ne!(source.status.code(), Some(0));
    assert!(text(&source.stderr).contains("document 42"), "{}", text(&source.stderr));
}

/// The kill campaign (issue of hostile faults): a batch run and a folder import are each killed
/// (SIGKILL) again and again at varying moments and run again until they finish. Nothing is
/// lost or stored twice: every claim has exactly one check in the run, a claim is asked about
/// again only if it was in flight when killed, every file is imported once, and the search
/// index agrees with the database. `FACTDESK_CAMPAIGN_CYCLES` kills per part (3 in CI;
/// `scripts/campaign.sh` runs many), and the test prints `campaign: N kills; invariants held …`.
#[test]
#[allow(clippy::print_stdout, reason = "the campaign's summary line, read by scripts/campaign.sh")]
fn the_kill_campaign_loses_nothing_and_repeats_nothing() {
    let cycles: usize = std::env::var("FACTDESK_CAMPAIGN_CYCLES")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(3);
    let (mut tries, mut held) = (0usize, 0usize);
    let cli = Cli::new();
    let model = slow_true_model(std::time::Duration::from_millis(60));
    cli.use_model(&model, "[verify]\nmethod = \"p-true\"\nconcurrency = 2\n");
    let claims: String = (0..40).map(|i| format!("Claim number {i} is checked.\n")).collect();
    let claims_file = cli.data.path().join("claims.txt");
    std::fs::write(&claims_file, claims).unwrap();
    cli.json(&["claims", "import", claims_file.to_str().unwrap(), "--collection", "kills"]);

    // Batch: kill at a varying moment, again and again, then let it finish.
    for cycle in 0..cycles {
        let mut child = cli
            .command()
            .args(["verify", "--collection", "kills", "--json"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(150 + 97 * (cycle as u64 % 7)));
        child.kill().unwrap();
        child.wait().unwrap();
        tries += 1;
    }
    let summary = cli.json(&["verify", "--collection", "kills"]);
    assert_eq!(summary["resumed"], true, "the kills left the run unfinished: {summary}");
    let run = summary["run_id"].as_i64().unwrap();
    let report = cli.json(&["report", "--collection", "kills", "--format", "json"]);
    let items = report["items"].as_array().unwrap();
    let one_check_each =
        items.len() == 40 && items.iter().all(|item| item["check"]["run_id"].as_i64() == Some(run));
    assert!(one_check_each, "{summary}");
    assert_eq!(summary["failed"], 0);
    // Each claim is asked about as often as any other (a P(True) check may take more than one
    // request), except the claims in flight at a kill (at most 2 a kill: concurrency 2).
    let mut per_claim: std::collections::HashMap<String, usize> = Default::default();
    for claim in claims_asked(&model) {
        *per_claim.entry(claim).or_default() += 1;
    }
    let mut counts: Vec<usize> = per_claim.values().copied().collect();
    counts.sort_unstable();
    let usual = counts[counts.len() / 2];
    let repeated = counts.iter().filter(|count| **count != usual).count();
    assert_eq!(per_claim.len(), 40);
    assert!(repeated <= 2 * cycles, "{repeated} claims asked about again: {per_claim:?}");
    held += usize::from(one_check_each);

    // Import: a folder of files, killed again and again, then finished.
    let folder = cli.data.path().join("pages");
    std::fs::create_dir(&folder).unwrap();
    for i in 0..300 {
        let text = format!("Page {i} says that the river {i} is {} km long.\n", i * 3);
        std::fs::write(folder.join(format!("page-{i:03}.txt")), text.repeat(40)).unwrap();
    }
    for cycle in 0..cycles {
        let mut child = cli
            .command()
            .args(["import", folder.to_str().unwrap(), "--corpus", "pages", "--json"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(120 + 61 * (cycle as u64 % 9)));
        child.kill().unwrap();
        child.wait().unwrap();
        tries += 1;
    }
    let imported = cli.json(&["import", folder.to_str().unwrap(), "--corpus", "pages"]);
    assert_eq!(imported["failed"], 0, "{imported}");
    let (new, known) = (imported["imported"].as_u64(), imported["duplicates"].as_u64());
    assert_eq!(new.unwrap() + known.unwrap(), 300, "{imported}");
    let corpora = cli.json(&["corpora"]);
    let pages = corpora.as_array().unwrap().iter().find(|c| c["name"] == "pages").unwrap();
    assert_eq!(pages["document_count"], 300, "{corpora}");
    let check = cli.json(&["reindex", "--check"]);
    assert_eq!(check["consistent"], true, "{check}");
    held += 1;
    println!("campaign: {tries} kills; invariants held in {held} of 2 parts (batch, import)");
}

#[test]
fn ciber_checks_claims_against_corpus_documents_resumes_and_compares_its_rules() {
    use factdesk_testkit::scripted::ScriptedModel;
    let cli = Cli::new();
    let model = ScriptedModel::new().delay(|_| std::time::Duration::from_millis(20)).serve();
    cli.use_model(
        &model,
        "[verify]\nmethod = \"ciber\"\nconcurrency = 1\n[methods.ciber]\nsamples = 3\n",
    );
    let corpus = demo_corpus().join("corpus");
    cli.json(&["import", corpus.to_str().unwrap(), "--corpus", "demo"]);

    // One claim: documents from the corpus, each probed by two agreeing and two contradicting
    // questions; the server gives no log-probabilities, so the probes were sampled.
    let check = cli.json(&["verify", "Okra is a flowering plant in the mallow family."]);
    let detail = &check["check"]["detail"];
    assert_eq!(detail["method"], "ciber", "{check}");
    let documents = detail["documents"].as_array().unwrap();
    assert!(!documents.is_empty() && documents.len() <= 3, "{detail}");
    for document in documents {
        let probes = document["probes"].as_array().unwrap();
        assert_eq!(probes.len(), 4);
        assert!(probes.iter().all(|probe| probe["mode"] == "sampling"), "{probes:?}");
    }
    assert_eq!(check["check"]["verdict"], "supported", "{check}");
    assert_eq!(detail["claim"].as_array().unwrap().len(), 4);
    let plain = cli.run(&["verify", "Okra is a flowering plant in the mallow family."]);
    let shown = text(&plain.stdout);
    assert!(
        shown.contains("Fusion:")
            && shown.contains("CF Based on the document, is the claim false?"),
        "{shown}"
    );
    // A named document replaces retrieval; an option CIBER does not take is refused.
    let id = check["check"]["sources"][0]["document_id"].as_i64().unwrap();
    let named = cli.json(&[
        "verify",
        "Okra is a flowering plant in the mallow family.",
        "--document",
        &id.to_string(),
    ]);
    assert_eq!(named["check"]["sources"].as_array().unwrap().len(), 1);
    // A named web page that cannot be read fails the check, naming the page.
    let page = model.url("/no-such-page");
    let unread = cli.run(&["verify", "Okra grows.", "--page", &page]);
    assert_eq!(unread.status.code(), Some(2), "{}", text(&unread.stdout));
    assert!(text(&unread.stderr).contains(&page), "{}", text(&unread.stderr));
    let both = cli.run(&["verify", "Okra grows.", "--m", "2", "--document", &id.to_string()]);
    assert_eq!(both.status.code(), Some(2));
    assert!(text(&both.stderr).contains("leave out m"), "{}", text(&both.stderr));
    let refused = cli.run(&["verify", "Okra grows.", "--threshold", "0.7"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(text(&refused.stderr).contains("ciber does not take the option(s) threshold"));

    // A collection run killed part-way resumes without asking about a claim twice.
    let claims = demo_corpus().join("claims.csv");
    cli.json(&["claims", "import", claims.to_str().unwrap(), "--collection", "demo"]);
    let done_before = kill_run_once_checked(&cli, "demo", 2, 120);
    assert!(done_before.len() < 10, "the run was killed before the end");
    let asked_before = claims_asked(&model).len();
    let summary = cli.json(&["verify", "--collection", "demo"]);
    assert_eq!(summary["resumed"], true);
    assert_eq!(summary["already_checked"], done_before.len());
    assert_eq!(summary["checked"], 10 - done_before.len());
    for claim in &claims_asked(&model)[asked_before..] {
        assert!(!done_before.contains(claim), "{claim} was asked about again");
    }

    // Eval puts each fusion rule and RAG side by side.
    let evaluation = cli.json(&["eval", "--collection", "demo", "--method", "ciber"]);
    assert_eq!(evaluation["evaluated"], 10);
    let figures = evaluation["figures"][0]["figures"].as_array().unwrap();
    let keys: Vec<&str> = figures.iter().map(|f| f["key"].as_str().unwrap()).collect();
    for key in ["wp_accuracy", "wig_macro_f1", "wbu_accuracy", "meta_accuracy", "rag_accuracy"] {
        assert!(keys.contains(&key), "{key} missing from {keys:?}");
    }
    let meta = figures.iter().find(|f| f["key"] == "meta_accuracy").unwrap();
    assert!(meta["value"].as_f64().is_some(), "{meta}");

    // α is grid-searched from the stored shares, every rule at 11 values.
    // Each claim's newest CIBER check, without --method.
    let tuning = cli.json(&["eval", "--collection", "demo", "--tune", "alpha"]);
    assert_eq!(tuning["claims"], 10);
    assert_eq!(tuning["scores"].as_array().unwrap().len(), 11 * 4);
    assert_eq!(tuning["best"].as_array().unwrap().len(), 4);
    let refused =
        cli.run(&["eval", "--collection", "demo", "--method", "p-true", "--tune", "alpha"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(text(&refused.stderr).contains("no labelled claim checked with CIBER"));
}

#[test]
fn ciber_judges_the_pages_llm_cite_read_for_the_claim_from_the_archive() {
    use factdesk_testkit::scripted::ScriptedModel;
    use factdesk_testkit::{TestResponse, TestServer};
    let cli = Cli::new();
    let web = TestServer::with_routes(vec![(
        "/okra",
        TestResponse::html(
            "<html><head><title>Okra</title></head><body><p>Okra is a flowering plant in the \
             mallow family. It is valued for its edible green seed pods.</p></body></html>",
        ),
    )]);
    let page = web.url("/okra");
    let proposed = page.clone();
    let model = ScriptedModel::new().on_urls(move |_| proposed.clone()).serve();
    std::fs::write(
        cli.data.path().join("config.toml"),
        format!(
            "[llm]\nprovider = \"openai-compatible\"\nbase_url = \"{}\"\nmodel = \"mock\"\n\
             [verify]\nnli = \"llm\"\n[methods.ciber]\nsamples = 3\nrag = false\n\
             [fetch]\nallow_hosts = [\"{}\"]\n",
            model.url("/v1"),
            web.address()
        ),
    )
    .unwrap();
    let claim = "Okra is a flowering plant in the mallow family.";
    let cited = cli.json(&["verify", claim, "--method", "llm-cite"]);
    let read = &cited["check"]["sources"][0];
    assert_eq!(read["url"], page.as_str(), "{cited}");
    let fetched = web.requests().len();

    // CIBER probes the very page LLM-Cite read, from the archive: nothing is fetched again
    // and no corpus is needed.
    let check = cli.json(&["verify", claim, "--method", "ciber", "--from-llm-cite"]);
    let sources = check["check"]["sources"].as_array().unwrap();
    assert_eq!(sources.len(), 1, "{check}");
    assert_eq!(sources[0]["url"], page.as_str());
    assert_eq!(sources[0]["content_hash"], read["content_hash"]);
    assert_eq!(check["check"]["verdict"], "supported", "{check}");
    assert_eq!(check["check"]["detail"]["documents"][0]["probes"].as_array().unwrap().len(), 4);
    assert_eq!(web.requests().len(), fetched, "the page was fetched again");

    // A claim LLM-Cite never checked has no evidence, and the check says what to do.
    let unread =
        cli.json(&["verify", "Okra grows in Ghana.", "--method", "ciber", "--from-llm-cite"]);
    assert_eq!(unread["check"]["verdict"], "not_enough_info");
    assert_eq!(unread["check"]["undecided"], "no_evidence");
    let explanation = unread["check"]["explanation"].as_str().unwrap();
    assert!(explanation.contains("check it with LLM-Cite first"), "{explanation}");
    // Other choices of evidence do not mix with it.
    let both = cli.run(&["verify", claim, "--method", "ciber", "--from-llm-cite", "--m", "2"]);
    assert_eq!(both.status.code(), Some(2));
    assert!(
        text(&both.stderr).contains("from_llm_cite judges the pages"),
        "{}",
        text(&both.stderr)
    );
    let foreign = cli.run(&["verify", claim, "--method", "llm-cite", "--from-llm-cite"]);
    assert_eq!(foreign.status.code(), Some(2));
    assert!(text(&foreign.stderr).contains("from_llm_cite"), "{}", text(&foreign.stderr));
}

/// One fault of the campaign: the claim that meets it, and what its outcome must say.
struct Fault {
    name: &'static str,
    /// A fetched page's recorded error, or the claim's failure message, contains this.
    says: &'static str,
}

/// The fault campaign: a model server and a web server that misbehave in each way a hostile
/// or broken peer can (rate limits, server errors, silence, dripping, huge and cut-off answers,
/// garbage, redirect loops), one claim per fault, all in one collection run beside healthy
/// claims. Every faulty claim must end with an outcome that names its fault, the healthy ones
/// must be judged as usual, and the run must end. CI runs one round; `scripts/campaign.sh`
/// runs FACTDESK_CAMPAIGN_ROUNDS of them and prints the summary line.
#[test]
#[allow(clippy::print_stdout, reason = "the campaign's summary line, read by scripts/campaign.sh")]
fn the_fault_campaign_names_every_fault_and_the_batch_goes_on() {
    use factdesk_testkit::scripted::{ScriptedModel, asked};
    use factdesk_testkit::{TestResponse, TestServer};
    use std::time::Duration;
    let rounds: usize =
        std::env::var("FACTDESK_CAMPAIGN_ROUNDS").ok().and_then(|n| n.parse().ok()).unwrap_or(1);
    let page = "<html><head><title>Okra</title></head><body><p>Okra is a flowering plant in \
                the mallow family.</p></body></html>";
    let web = TestServer::with_routes(vec![
        ("/okra", TestResponse::html(page)),
        ("/429", TestResponse::text(429, "slow down")),
        ("/503", TestResponse::text(503, "down for maintenance")),
        ("/hang", TestResponse::html(page).with_delay(Duration::from_secs(30))),
        ("/drip", TestResponse::html("<p>Okra. </p>").with_drip(100, Duration::from_millis(1000))),
        ("/huge", TestResponse::html(&"<p>Okra is a plant.</p>".repeat(50_000)).with_repeat(8)),
        ("/garbage", TestResponse::new(200, "text/html", b"\x7FELF\x02\x01\x01\0\0\0".repeat(50))),
        ("/truncated", TestResponse::html(page).with_cut_after(40)),
        ("/loop-a", TestResponse::redirect(302, "/loop-b")),
        ("/loop-b", TestResponse::redirect(302, "/loop-a")),
    ]);
    let web_faults = [
        Fault { name: "429", says: "HTTP 429" },
        Fault { name: "503", says: "HTTP 503" },
        Fault { name: "hang", says: "stopped sending" },
        Fault { name: "drip", says: "did not finish answering within 10 s" },
        Fault { name: "huge", says: "fetch limit" },
        Fault { name: "garbage", says: "not a text page" },
        Fault { name: "truncated", says: "was cut off: the connection ended" },
        Fault { name: "loop-a", says: "redirected more than" },
    ];
    let model_faults = [
        Fault { name: "429", says: "kept answering HTTP 429" },
        Fault { name: "500", says: "kept answering HTTP 500" },
        Fault { name: "hang", says: "no answer within 8 s, retries included" },
        Fault { name: "drip", says: "still arriving when the request timed out" },
        Fault { name: "huge", says: "larger than 32 MiB" },
        Fault { name: "garbage", says: "it begins \"Not JSON <html>\"" },
        Fault { name: "truncated", says: "cut off" },
    ];
    let base = web.url("");
    let scripted = ScriptedModel::new().on_urls(move |asked| {
        let fault = asked.claim.split("web fault ").nth(1).and_then(|rest| rest.split(' ').next());
        format!("{base}/{}", fault.unwrap_or("okra"))
    });
    let reply = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"x"},"finish_reason":"stop"}]}"#;
    let model = TestServer::start(move |request| {
        let claim =
            asked(request).and_then(Result::ok).map(|asked| asked.claim).unwrap_or_default();
        let fault = claim.split("model fault ").nth(1).and_then(|rest| rest.split(' ').next());
        match fault {
            Some("429") => TestResponse::text(429, "rate limited"),
            Some("500") => TestResponse::text(500, "internal error"),
            Some("hang") => TestResponse::json(200, reply).with_delay(Duration::from_secs(30)),
            Some("drip") => {
                TestResponse::json(200, " ").with_drip(100, Duration::from_millis(1000))
            }
            Some("huge") => TestResponse::json(200, &" ".repeat(1 << 20)).with_repeat(40),
            Some("garbage") => TestResponse::new(200, "application/json", "Not JSON <html>"),
            Some("truncated") => TestResponse::json(200, reply).with_cut_after(30),
            _ => scripted.respond(request).unwrap_or_else(|| TestResponse::text(404, "no")),
        }
    });
    let cli = Cli::new();
    std::fs::write(
        cli.data.path().join("config.toml"),
        format!(
            "[llm]\nprovider = \"openai-compatible\"\nbase_url = \"{}\"\nmodel = \"mock\"\n\
             request_timeout_secs = 5\nmax_retries = 1\ncall_deadline_secs = 8\ncache = \"off\"\n\
             [verify]\nnli = \"llm\"\nconcurrency = 16\n[methods.llm-cite]\nm = 1\nr = 1\n\
             [fetch]\nallow_hosts = [\"{}\"]\nread_timeout_secs = 5\ntotal_timeout_secs = 10\n\
             max_body_bytes = 5000000\n",
            model.url("/v1"),
            web.address()
        ),
    )
    .unwrap();
    let (mut tries, mut held, mut failed) = (0usize, 0usize, Vec::new());
    for round in 0..rounds {
        let mut claims = vec![format!("Okra is a flowering plant in the mallow family ({round}).")];
        claims
            .extend(web_faults.iter().map(|f| format!("Okra web fault {} round {round}.", f.name)));
        claims.extend(
            model_faults.iter().map(|f| format!("Okra model fault {} round {round}.", f.name)),
        );
        let file = cli.data.path().join(format!("faults-{round}.txt"));
        std::fs::write(&file, claims.join("\n")).unwrap();
        let collection = format!("faults-{round}");
        cli.json(&["claims", "import", file.to_str().unwrap(), "--collection", &collection]);
        let started = std::time::Instant::now();
        let run = cli.run(&["verify", "--collection", &collection, "--json"]);
        let summary: serde_json::Value = serde_json::from_slice(&run.stdout)
            .unwrap_or_else(|_| panic!("no JSON summary: {}", text(&run.stderr)));
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the run took {:?}",
            started.elapsed()
        );
        assert_eq!(summary["claims"], claims.len(), "{summary}");
        assert_eq!(summary["checked"], 1 + web_faults.len(), "{summary}");
        let failures = summary["failures"].as_array().unwrap();
        let report = cli.json(&["report", "--collection", &collection, "--format", "json"]);
        let items = report["items"].as_array().unwrap();
        let check_of = |needle: &str| {
            items.iter().find(|item| item["claim"].as_str().unwrap().contains(needle))
        };
        let healthy = check_of("mallow family").unwrap();
        assert_eq!(healthy["check"]["check"]["verdict"], "supported", "{healthy}");
        for fault in &web_faults {
            tries += 1;
            let item = check_of(&format!("web fault {} ", fault.name)).unwrap();
            let check = &item["check"]["check"];
            let error = check["detail"]["urls"][0]["error"].as_str().unwrap_or_default();
            if check["verdict"] == "not_enough_info" && error.contains(fault.says) {
                held += 1;
            } else {
                failed.push(format!("web {}: {} / {error}", fault.name, check["verdict"]));
            }
        }
        for fault in &model_faults {
            tries += 1;
            let needle = format!("model fault {} ", fault.name);
            let failure = failures.iter().find(|f| f["text"].as_str().unwrap().contains(&needle));
            let message = failure.and_then(|f| f["message"].as_str()).unwrap_or_default();
            if message.contains(fault.says) {
                held += 1;
            } else {
                failed.push(format!("model {}: {message:?}", fault.name));
            }
        }
    }
    println!("faults: {tries} tries; held {held}; failed {}", failed.len());
    assert!(failed.is_empty(), "{failed:#?}");
}

/// The scripted chat model on loopback, set as `cli`'s model, whose RARR edit puts the
/// evidence's year (1889) in place of the statement's (1899).
fn serve_year_correcting_model(cli: &Cli) -> factdesk_testkit::TestServer {
    use factdesk_testkit::scripted::{RARR_EDIT_TEMPLATE, ScriptedModel};
    let model = ScriptedModel::new()
        .on(RARR_EDIT_TEMPLATE, |asked| {
            let year = if asked.document.contains("1889") { "1889" } else { "1899" };
            asked.claim.replace("1899", year)
        })
        .serve();
    cli.use_model(&model, "");
    model
}

#[test]
fn revise_corrects_a_summary_against_its_source_and_names_bad_input() {
    let cli = Cli::new();
    let _model = serve_year_correcting_model(&cli);
    let article = cli.data.path().join("tower.txt");
    std::fs::write(&article, "The Eiffel Tower opened in 1889. The tower stands in Paris.")
        .unwrap();
    cli.json(&["import", article.to_str().unwrap(), "--corpus", "news"]);
    let summary = "The Eiffel Tower opened in 1899. The tower stands in Paris.";
    cli.json(&["passages", "add", summary, "--collection", "sums", "--source", "1"]);

    let stored = cli.json(&["revise", "--passage", "1", "--method", "rarr", "--judge"]);
    let revision = &stored["outcome"];
    assert_eq!(revision["kind"], "revision");
    assert_eq!(revision["original"], summary);
    assert_eq!(revision["revised"], "The Eiffel Tower opened in 1889. The tower stands in Paris.");
    let edits = revision["edits"].as_array().unwrap();
    assert_eq!(edits.len(), 1, "{revision:#}");
    assert_eq!(
        (edits[0]["before"].as_str(), edits[0]["after"].as_str()),
        (Some("1899"), Some("1889"))
    );
    assert_eq!(edits[0]["evidence"][0]["source"]["document_id"], 1);
    assert_eq!(revision["parameters"]["evidence"], "source");
    assert_eq!(revision["parameters"]["gate"], "chat");
    // The settings and calls RARR has always recorded, no more and no fewer.
    let recorded: Vec<&str> =
        revision["parameters"].as_object().unwrap().keys().map(String::as_str).collect();
    let written = ["calls", "evidence", "gate", "granularity", "max_growth", "questions"];
    assert_eq!(recorded, [&written[..], &["seed", "threshold"]].concat(), "{revision:#}");
    assert!(revision["metrics"]["edit_distance"].as_f64().unwrap() > 0.0);
    // The judge (scripted: 5 when the article holds every word of the summary, else 2).
    let judged = &revision["metrics"]["judge"];
    assert_eq!(judged.as_array().unwrap().len(), 3, "{judged:#}");
    assert_eq!(
        (
            judged[1]["criterion"].as_str(),
            judged[1]["before"].as_f64(),
            judged[1]["after"].as_f64()
        ),
        (Some("factuality"), Some(2.0), Some(5.0))
    );
    assert_eq!(stored["subject"]["passage"], 1);

    // A person rejects the edit: the revision stays, the decision is kept beside it.
    let id = stored["id"].as_i64().unwrap().to_string();
    let reviewed = cli.json(&["revision", &id, "--reject", "1", "--reviewer", "ana"]);
    assert_eq!(reviewed["decisions"][0]["accepted"], false);
    assert_eq!(reviewed["accepted_text"], summary);
    assert_eq!(
        reviewed["stored"]["outcome"]["revised"],
        "The Eiffel Tower opened in 1889. The tower stands in Paris."
    );
    let kept = cli.run(&["revision", &id, "--accept", "1", "--text"]);
    assert_eq!(
        text(&kept.stdout).trim(),
        "The Eiffel Tower opened in 1889. The tower stands in Paris."
    );
    let missing = cli.run(&["revision", &id, "--accept", "7"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("edit 7 of revision"), "{}", text(&missing.stderr));

    // Its figures: one revision of the passage so far; the newest decision on its edit counts.
    let figures = cli.json(&["eval", "--collection", "sums", "--revisions"]);
    assert_eq!((figures["revisions"].as_u64(), figures["changed"].as_u64()), (Some(1), Some(1)));
    assert_eq!((figures["accepted"].as_u64(), figures["rejected"].as_u64()), (Some(1), Some(0)));
    assert!(figures["calls_per_revision"]["gate"].as_f64().unwrap() >= 1.0, "{figures:#}");

    // The whole collection, CoVe, as people read it.
    let batch = cli.json(&["revise", "--collection", "sums", "--method", "cove"]);
    assert_eq!((batch["passages"].as_u64(), batch["revised"].as_u64()), (Some(1), Some(1)));
    let plain = cli.run(&["revise", summary, "--source", "1", "--method", "rarr"]);
    assert_eq!(plain.status.code(), Some(0), "{}", text(&plain.stderr));
    let shown = text(&plain.stdout);
    assert!(shown.contains("“1899” → “1889”") && shown.contains("Backed:"), "{shown}");

    // The collection's revisions as a report, original and revision side by side.
    let page = cli.data.path().join("revisions.html");
    cli.json(&[
        "report",
        "--collection",
        "sums",
        "--revisions",
        "--format",
        "html",
        "-o",
        page.to_str().unwrap(),
    ]);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<del>1899</del><ins>1889</ins>"), "{html}");
    let markdown = cli.run(&["report", "--collection", "sums", "--revisions"]);
    assert!(text(&markdown.stdout).contains("~~1899~~ → **1889**"), "{}", text(&markdown.stdout));
    let csv = cli.run(&["report", "--collection", "sums", "--revisions", "--format", "csv"]);
    assert_eq!(csv.status.code(), Some(2));
    assert!(text(&csv.stderr).contains("md, html or json"), "{}", text(&csv.stderr));

    // Bad input is named, and nothing is stored for it.
    for (args, expected) in [
        (vec!["revise", "  "], "empty"),
        (vec!["revise", summary, "--evidence", "source"], "source documents"),
        (vec!["revise", summary, "--evidence", "pages"], "no evidence source"),
        (vec!["revise", summary, "--granularity", "pages"], "snippets or chunks"),
        (vec!["revise", "--passage", "99"], "passage 99"),
        (vec!["revise", "--passage", "1", "--source", "1"], "brings its own source documents"),
    ] {
        let output = cli.run(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", text(&output.stdout));
        assert!(text(&output.stderr).contains(expected), "{args:?}: {}", text(&output.stderr));
    }
}

#[test]
fn passages_are_imported_with_their_source_articles_and_corrected_against_them() {
    let cli = Cli::new();
    let _model = serve_year_correcting_model(&cli);
    let file = cli.data.path().join("summaries.jsonl");
    std::fs::write(
        &file,
        [
            // A byte-order mark and Windows line ends, as some editors write.
            "\u{feff}{\"document\": \"The Eiffel Tower opened in 1889. It stands in Paris.\", \"summary\": \"The Eiffel Tower opened in 1899.\"}",
            "",
            r#"{"document": "Okra is a flowering plant of the mallow family.", "summary": "Okra is a flowering plant."}"#,
            r#"{"document": "A text without its summary."}"#,
            r#"{"summary": "A summary without its article."}"#,
            "not json",
        ]
        .join("\r\n"),
    )
    .unwrap();
    let output = cli.run(&[
        "passages",
        "import",
        file.to_str().unwrap(),
        "--collection",
        "sums",
        "--source-field",
        "document",
        "--corpus",
        "news",
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!((summary["added"].as_u64(), summary["failed"].as_u64()), (Some(2), Some(3)));
    let failures: Vec<String> = summary["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("{} {}", f["item"].as_str().unwrap(), f["message"].as_str().unwrap()))
        .collect();
    assert!(
        failures[0].contains("summaries.jsonl:4") && failures[0].contains("no passage"),
        "{failures:?}"
    );
    assert!(failures[1].contains(":5") && failures[1].contains("source article"), "{failures:?}");
    assert!(failures[2].contains(":6") && failures[2].contains("not valid JSON"), "{failures:?}");
    let passages = cli.json(&["passages", "list", "--collection", "sums"]);
    let sources: Vec<i64> =
        passages.as_array().unwrap().iter().map(|p| p["sources"][0].as_i64().unwrap()).collect();
    assert_eq!(sources.len(), 2);
    assert_ne!(sources[0], sources[1]);

    // Each is corrected against its own article.
    let batch = cli.json(&["revise", "--collection", "sums", "--method", "rarr", "--no-metrics"]);
    assert_eq!((batch["revised"].as_u64(), batch["changed"].as_u64()), (Some(2), Some(1)));
    let report = cli.run(&["report", "--collection", "sums", "--revisions"]);
    assert!(text(&report.stdout).contains("~~1899~~ → **1889**"), "{}", text(&report.stdout));

    // Importing again adds nothing new; a file that is not JSONL is refused by name.
    let again = cli.run(&[
        "passages",
        "import",
        file.to_str().unwrap(),
        "--collection",
        "sums",
        "--source-field",
        "document",
        "--corpus",
        "news",
        "--json",
    ]);
    let again: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!((again["added"].as_u64(), again["duplicates"].as_u64()), (Some(0), Some(2)));
    let csv = cli.data.path().join("summaries.csv");
    std::fs::write(&csv, "summary\nA.\n").unwrap();
    let refused = cli.run(&["passages", "import", csv.to_str().unwrap(), "--collection", "sums"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("summaries.csv: passages are imported from JSONL"),
        "{}",
        text(&refused.stderr)
    );
}

#[test]
fn structured_summaries_are_scored_from_labels() {
    let cli = Cli::new();
    let dir = cli.data.path();
    let a = dir.join("a.md");
    let b = dir.join("b.md");
    std::fs::write(&a, "The bridge closed [1].\n## Why\n- Cracks were found [1].\n## Next\n- Repairs take months.\n").unwrap();
    std::fs::write(&b, "The bridge closed.\n## Traffic\n- Buses take another road.\n").unwrap();
    let labels = dir.join("labels.json");
    std::fs::write(
        &labels,
        r#"{"summaries": [
            {"overview": {"sufficiency": "perfectly", "faithfulness": "perfectly", "representativeness": "perfectly"},
             "sections": [{"heading": ["perfectly"], "relevance": ["perfectly"], "faithfulness": ["perfectly"]},
                          {"heading": ["perfectly"], "relevance": ["perfectly"], "faithfulness": ["perfectly"]}],
             "pool": ["partially"]},
            {"overview": {"sufficiency": "partially", "faithfulness": "perfectly", "representativeness": "not"},
             "sections": [{"heading": ["partially"], "relevance": [1], "faithfulness": [0.5]}],
             "pool": ["not", "partially"]}
        ]}"#,
    )
    .unwrap();
    let scores = cli.json(&[
        "score",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--labels",
        labels.to_str().unwrap(),
    ]);
    // a: every line perfect, so X(l) = 1 and XUX = 1; the pool is Figure 4's, so Comp 0.983.
    assert_eq!(scores[0]["lines"], 5);
    assert!((scores[0]["xux"].as_f64().unwrap() - 1.0).abs() < 1e-9, "{scores:#}");
    assert!((scores[0]["comp"].as_f64().unwrap() - 0.983).abs() < 5e-4, "{scores:#}");
    assert!((scores[1]["comp"].as_f64().unwrap() - 0.792).abs() < 5e-4, "{scores:#}");
    assert!(
        (scores[0]["sgss"].as_f64().unwrap() - (1.0 + scores[0]["comp"].as_f64().unwrap())).abs()
            < 1e-9
    );
    assert!(scores[1]["xux"].as_f64().unwrap() < 1.0);
    // The report draws each summary's X(l) curve; its format follows the file's extension.
    let page = dir.join("scores.html");
    cli.json(&[
        "score",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--labels",
        labels.to_str().unwrap(),
        "--report",
        page.to_str().unwrap(),
    ]);
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(html.matches("<polyline").count(), 2, "{html}");
    assert!(
        html.contains("Heading: Why") && html.contains("Statement: Cracks were found"),
        "{html}"
    );
    let odd = dir.join("scores.txt");
    let refused = cli.run(&["score", a.to_str().unwrap(), "--report", odd.to_str().unwrap()]);
    assert!(
        text(&refused.stderr).contains("name the report's format"),
        "{}",
        text(&refused.stderr)
    );
    assert!(!odd.exists());
    // Without labels every element is named missing; bad input is named.
    let plain = cli.run(&["score", a.to_str().unwrap()]);
    assert!(
        text(&plain.stdout).contains("not labelled (counted 0): overview sufficiency"),
        "{}",
        text(&plain.stdout)
    );
    // Two summaries without sections have nothing to pool: no Comp, no failure.
    let (one, two) = (dir.join("one.md"), dir.join("two.md"));
    std::fs::write(&one, "An overview.\n").unwrap();
    std::fs::write(&two, "Another overview.\n").unwrap();
    let empty_pools = dir.join("empty-pools.json");
    std::fs::write(&empty_pools, r#"{"summaries": [{"pool": []}, {"pool": []}]}"#).unwrap();
    let both = cli.json(&[
        "score",
        one.to_str().unwrap(),
        two.to_str().unwrap(),
        "--labels",
        empty_pools.to_str().unwrap(),
    ]);
    assert!(both[0]["comp"].is_null(), "{both:#}");
    // A summary with no statements is scored for its overview, and says so.
    let bare = dir.join("bare.md");
    std::fs::write(&bare, "Only an overview.\n## A heading alone\n").unwrap();
    let scored = cli.json(&["score", bare.to_str().unwrap()]);
    assert_eq!(scored[0]["lines"], 2);
    assert!(scored[0]["notes"][0].as_str().unwrap().contains("no statements"), "{scored:#}");
    let broken = dir.join("broken.md");
    std::fs::write(&broken, "Overview.\n- a statement before any section\n").unwrap();
    let refused = cli.run(&["score", broken.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("broken.md: line 2: a statement before any section"),
        "{}",
        text(&refused.stderr)
    );
    let wrong = cli.run(&["score", a.to_str().unwrap(), "--labels", labels.to_str().unwrap()]);
    assert!(
        text(&wrong.stderr).contains("labels for 2 summaries, but 1 summary files given"),
        "{}",
        text(&wrong.stderr)
    );
}

#[test]
fn summary_weights_are_fitted_to_preferences_and_scored_with() {
    let cli = Cli::new();
    let dir = cli.data.path();
    std::fs::write(dir.join("a.md"), "Overview.\n## One\n- First.\n- Second.\n## Two\n- Third.\n")
        .unwrap();
    std::fs::write(dir.join("b.md"), "Overview.\n## One\n- First.\n## Two\n- Second.\n- Third.\n")
        .unwrap();
    // Summary 1 is relevant but unfaithful, summary 2 the other way round; people prefer the
    // relevant one in every question, which the default weights (SRel = SF) cannot tell apart.
    let labels = |relevance: &str, faithfulness: &str| {
        serde_json::json!({
            "overview": {"sufficiency": "partially", "faithfulness": "partially", "representativeness": "partially"},
            "sections": [
                {"heading": ["perfectly"], "relevance": [relevance], "faithfulness": [faithfulness]},
                {"heading": ["partially", "partially"], "relevance": [relevance, relevance], "faithfulness": [faithfulness, faithfulness]}
            ]
        })
    };
    let question = |q: usize| {
        serde_json::json!({
            "question": format!("question {q}"),
            "summaries": [
                {"file": "a.md", "labels": {"overview": labels("perfectly", "not")["overview"], "sections": [
                    {"heading": ["perfectly", "perfectly"], "relevance": ["perfectly", "perfectly"], "faithfulness": ["not", "not"]},
                    {"heading": ["partially"], "relevance": ["perfectly"], "faithfulness": ["not"]}]}},
                {"file": "b.md", "labels": labels("not", "perfectly")}
            ],
            "preferences": [{"left": 1, "right": 2, "votes": ["left", "left", "right"]}, {"left": 2, "right": 1, "votes": ["right"]}]
        })
    };
    let dataset = dir.join("preferences.json");
    let questions: Vec<serde_json::Value> = (1..=6).map(question).collect();
    std::fs::write(&dataset, serde_json::json!({ "questions": questions }).to_string()).unwrap();
    let weights = dir.join("weights.json");
    let report = cli.json(&[
        "score",
        "--fit",
        dataset.to_str().unwrap(),
        "--out",
        weights.to_str().unwrap(),
    ]);
    assert_eq!(report["test"]["questions"].as_array().unwrap().len(), 2, "{report:#}");
    assert_eq!(report["train"]["pairs"], 8, "{report:#}");
    assert_eq!(report["train"]["labels"], 16, "{report:#}");
    // Each summary beats its NoHeadings variant, and summary 1 its NoSection1 variant (summary
    // 2's first section has no relevant statement): 3 per question.
    assert_eq!(report["train"]["degraded_pairs"], 12, "{report:#}");
    let w = &report["weights"];
    assert!(
        w["statement_relevance"].as_f64().unwrap() > w["statement_faithfulness"].as_f64().unwrap(),
        "{report:#}"
    );
    let fitted = &report["agreement"][0];
    assert_eq!(fitted["weights"], "fitted");
    // Held out: pair 1 has 2 of 3 labels for summary 1, pair 2 its only label: MAR (2/3 + 1) / 2.
    assert!((fitted["test"].as_f64().unwrap() - 5.0 / 6.0).abs() < 1e-9, "{report:#}");
    assert_eq!(fitted["test_degraded"].as_f64(), Some(1.0), "{report:#}");
    assert!(report["agreement"][1]["test"].as_f64().unwrap() < 0.5, "{report:#}");
    // The weights file scores summaries; the relevant one now scores higher.
    let labels_file = dir.join("labels.json");
    let entries =
        &serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&dataset).unwrap())
            .unwrap()["questions"][0]["summaries"];
    let both: Vec<&serde_json::Value> =
        entries.as_array().unwrap().iter().map(|s| &s["labels"]).collect();
    std::fs::write(&labels_file, serde_json::json!({ "summaries": both }).to_string()).unwrap();
    let (a, b) = (dir.join("a.md"), dir.join("b.md"));
    let scores = cli.json(&[
        "score",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--labels",
        labels_file.to_str().unwrap(),
        "--weights",
        weights.to_str().unwrap(),
    ]);
    assert!(scores[0]["xux"].as_f64().unwrap() > scores[1]["xux"].as_f64().unwrap(), "{scores:#}");
    // One question cannot be split; a vote that is neither side is named.
    std::fs::write(&dataset, serde_json::json!({ "questions": [question(1)] }).to_string())
        .unwrap();
    let refused = cli.run(&["score", "--fit", dataset.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(text(&refused.stderr).contains("needs two or more"), "{}", text(&refused.stderr));
    let mut odd = question(1);
    odd["preferences"][0]["votes"][0] = "both".into();
    std::fs::write(&dataset, serde_json::json!({ "questions": [odd, question(2)] }).to_string())
        .unwrap();
    let refused = cli.run(&["score", "--fit", dataset.to_str().unwrap()]);
    assert!(
        text(&refused.stderr).contains("question 1 (question 1) preference 1: 'both' is no vote"),
        "{}",
        text(&refused.stderr)
    );
}

#[test]
fn the_verifier_labels_faithfulness_against_the_cited_documents() {
    let cli = Cli::new();
    let dir = cli.data.path();
    // The shipped verifier, found where the models folder says.
    let models = tempfile::tempdir().unwrap();
    let shipped =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/models/factdesk-verifier");
    std::os::unix::fs::symlink(
        shipped.canonicalize().unwrap(),
        models.path().join("factdesk-verifier"),
    )
    .unwrap();
    let corpus = demo_corpus().join("corpus");
    let summary = dir.join("summary.md");
    std::fs::write(
        &summary,
        "Okra is a flowering plant [1].\n## Facts\n- Okra belongs to the mallow family [1].\n\
         - Mount Everest was first climbed in 1953 [2].\n- Penicillin was discovered by Louis Pasteur [1].\n\
         - Nobody cites anything here.\n- Cracks were found [3].\n",
    )
    .unwrap();
    let labels = dir.join("labels.json");
    // A person's label is kept: statement 1's faithfulness is given as "partially".
    std::fs::write(&labels, r#"{"summaries": [{"sections": [{"faithfulness": ["partially"]}]}]}"#)
        .unwrap();
    let score = |extra: &[&str]| {
        let output = cli
            .command()
            .env("FACTDESK_MODELS_DIR", models.path())
            .args(["score", summary.to_str().unwrap(), "--labels", labels.to_str().unwrap()])
            .args(extra)
            .arg("--json")
            .output()
            .unwrap();
        (output.status.code(), text(&output.stdout), text(&output.stderr))
    };
    let okra = corpus.join("okra.md");
    let everest = corpus.join("mount-everest.txt");
    let (code, stdout, stderr) = score(&[
        "--documents",
        okra.to_str().unwrap(),
        everest.to_str().unwrap(),
        "--label-with",
        "verifier",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    let scores: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let given: Vec<(String, f64, String)> = scores[0]["machine_labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            assert_eq!(l["by"], "factdesk-verifier");
            (
                l["element"].as_str().unwrap().to_owned(),
                l["grade"].as_f64().unwrap(),
                l["why"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let grade = |element: &str| {
        given.iter().find(|(e, _, _)| e == element).map(|(_, g, why)| (*g, why.clone()))
    };
    assert!(grade("section 1 statement 1 faithfulness").is_none(), "{given:?}");
    assert_eq!(grade("section 1 statement 2 faithfulness").unwrap().0, 1.0, "{given:?}");
    assert_eq!(grade("section 1 statement 3 faithfulness").unwrap().0, 0.0, "{given:?}");
    let uncited = grade("section 1 statement 4 faithfulness").unwrap();
    assert_eq!(uncited, (0.0, "cites no document".to_owned()));
    assert!(grade("section 1 statement 5 faithfulness").unwrap().1.contains("not given"));
    assert!(grade("overview faithfulness").is_some(), "{given:?}");
    let notes = scores[0]["notes"].to_string();
    assert!(notes.contains("section 1 statement 5 cites document 3; 2 given"), "{notes}");
    // Faithfulness is no longer missing; relevance still is.
    let missing = scores[0]["missing"].to_string();
    assert!(!missing.contains("faithfulness") && missing.contains("relevance"), "{missing}");
    // The verifier needs the documents.
    let (code, _, stderr) = score(&["--label-with", "verifier"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("name them with --documents"), "{stderr}");
}

#[test]
fn the_chat_model_labels_summaries_for_the_question_and_its_calls_are_recorded() {
    use factdesk_testkit::scripted::{SGSS_LABEL_TEMPLATE, ScriptedModel};
    let cli = Cli::new();
    // Statements about jazz are off the question; everything else is labelled perfectly.
    let model =
        ScriptedModel::new()
            .on(SGSS_LABEL_TEMPLATE, |asked| {
                if asked.claim.contains("jazz") { "0".into() } else { "2".into() }
            })
            .serve();
    cli.use_model(&model, "");
    let dir = cli.data.path();
    let a = dir.join("a.md");
    let b = dir.join("b.md");
    std::fs::write(
        &a,
        "The bridge closed.\n## Why\n- Cracks were found.\n- The mayor likes jazz.\n",
    )
    .unwrap();
    std::fs::write(&b, "The bridge closed.\n## Next\n- Repairs take months.\n").unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let scores = cli.json(&[
        "score",
        a,
        b,
        "--label-with",
        "llm",
        "--question",
        "Why did the bridge close?",
    ]);
    let first = &scores[0];
    // Faithfulness needs the documents; everything else is labelled, and the pool gives Comp.
    let missing: Vec<&str> =
        first["missing"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    assert_eq!(
        missing,
        [
            "overview faithfulness",
            "section 1 statement 1 faithfulness",
            "section 1 statement 2 faithfulness"
        ]
    );
    let jazz = first["machine_labels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["element"] == "section 1 statement 2 relevance")
        .unwrap();
    assert_eq!((jazz["grade"].as_f64(), jazz["by"].as_str()), (Some(0.0), Some("mock")));
    assert!(first["comp"].as_f64().is_some() && first["sgss"].as_f64().is_some(), "{first:#}");
    assert!(first["tokens"]["label"].is_object(), "{first:#}");
    // Each part was asked about with the question; the calls are recorded, so the same
    // scoring again is answered from the record.
    let asked = claims_asked(&model);
    assert!(asked.iter().any(|claim| claim == "The mayor likes jazz."), "{asked:?}");
    let again = cli.json(&[
        "score",
        a,
        b,
        "--label-with",
        "llm",
        "--question",
        "Why did the bridge close?",
    ]);
    assert_eq!(again, scores);
    assert_eq!(claims_asked(&model).len(), asked.len());
    // The chat model needs the question.
    let refused = cli.run(&["score", a, "--label-with", "llm"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(text(&refused.stderr).contains("--question"), "{}", text(&refused.stderr));
}

#[test]
fn stored_summaries_are_added_labelled_and_scored_by_question() {
    let cli = Cli::new();
    let dir = cli.data.path();
    let file = dir.join("bridge.md");
    std::fs::write(&file, "The bridge closed [1].\n## Why\n- Cracks were found [1].\n").unwrap();
    let kept = cli.json(&["summaries", "add", file.to_str().unwrap(), "--question", "Why?"]);
    assert_eq!(kept["name"], "bridge");
    let id = kept["id"].as_i64().unwrap().to_string();
    for element in ["overview.sufficiency", "s1.1.relevance"] {
        cli.json(&["summaries", "label", &id, element, "perfectly", "--by", "ana"]);
    }
    let listed = cli.json(&["summaries", "list", "--question", "Why?"]);
    let overview = &listed[0]["lines"][0]["labels"][0];
    assert_eq!(
        (overview["grade"].as_f64(), overview["labeller"].as_str()),
        (Some(1.0), Some("person:ana"))
    );
    let report = dir.join("why.html");
    let scores =
        cli.json(&["summaries", "score", "--question", "Why?", "-o", report.to_str().unwrap()]);
    assert!(scores[0]["xux"].as_f64().unwrap() > 0.0, "{scores:#}");
    assert!(std::fs::read_to_string(&report).unwrap().contains("<polyline"));
    assert_eq!(cli.json(&["summaries", "list"])[0]["summaries"], 1);
    // The verifier labels the faithfulness nobody labelled, stored as its own.
    let models = tempfile::tempdir().unwrap();
    let shipped =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/models/factdesk-verifier");
    std::os::unix::fs::symlink(
        shipped.canonicalize().unwrap(),
        models.path().join("factdesk-verifier"),
    )
    .unwrap();
    let source = dir.join("source.txt");
    std::fs::write(&source, "The bridge closed on Monday. Cracks were found in two piers.")
        .unwrap();
    let output = cli
        .command()
        .env("FACTDESK_MODELS_DIR", models.path())
        .args(["summaries", "label-with", "verifier", "--question", "Why?", "--documents"])
        .arg(&source)
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let done: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(done["stored"], 2, "{done:#}");
    let listed = cli.json(&["summaries", "list", "--question", "Why?"]);
    let faithful = &listed[0]["lines"][2]["labels"][2];
    assert_eq!(faithful["element"], "s1.1.faithfulness");
    assert_eq!(faithful["labeller"], "model:factdesk-verifier", "{faithful:#}");
    assert!(faithful["why"].as_str().unwrap().contains("supported by document(s) 1"));
    // The person's labels stay.
    assert_eq!(listed[0]["lines"][0]["labels"][0]["labeller"], "person:ana");
    // Unknown elements and words are refused with what to use.
    let refused = cli.run(&["summaries", "label", &id, "s9.9.relevance", "not"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("has no element 's9.9.relevance'"),
        "{}",
        text(&refused.stderr)
    );
    let refused = cli.run(&["summaries", "label", &id, "s1.1.relevance", "somewhat"]);
    assert!(text(&refused.stderr).contains("'somewhat' is no grade"), "{}", text(&refused.stderr));
}

#[test]
fn summarize_scores_sources_and_keeps_the_truthful_ones() {
    use factdesk_testkit::scripted::ScriptedModel;
    // Drafts list the documents' sentences; claims are a draft's sentences; a document
    // supports a claim it holds, contradicts one it holds with "never" in it, else abstains.
    let model = ScriptedModel::new().serve();
    let cli = Cli::new();
    cli.use_model(&model, "");
    let dir = tempfile::tempdir().unwrap();
    let texts = [
        "The bridge closed on Monday. Cracks were found in two piers.",
        "Cracks were found in two piers. The bridge closed on Monday. Repairs take six months.",
        "The bridge closed on Monday. Repairs take six months.",
        "Repairs take six months. Traffic uses the old road. Cracks were found in two piers.",
        "The bridge never closed on Monday. Cracks never were found in two piers. Repairs never take six months.",
    ];
    for (i, text) in texts.iter().enumerate() {
        std::fs::write(dir.path().join(format!("source-{}.txt", i + 1)), text).unwrap();
    }
    cli.json(&["import", dir.path().to_str().unwrap(), "--corpus", "bridge"]);
    let stored =
        cli.json(&["summarize", "--question", "Why did the bridge close?", "--corpus", "bridge"]);
    let outcome = &stored["outcome"];
    assert_eq!(outcome["kind"], "summary", "{stored:#}");
    let sources = outcome["sources"].as_array().unwrap();
    assert_eq!(sources.len(), 5);
    let liar = sources.iter().find(|s| s["source"]["title"] == "source-5").unwrap();
    assert_eq!(liar["used"], false, "{stored:#}");
    assert!(sources.iter().any(|s| s["used"] == true), "{stored:#}");
    // The answer never repeats the liar's sentences; each source's claims and stances are kept.
    let answer = outcome["text"].as_str().unwrap();
    assert!(!answer.is_empty() && !answer.contains("never"), "{answer}");
    assert_eq!(outcome["claims"].as_array().unwrap().len(), 5);
    assert!(!stored["model_calls"].as_array().unwrap().is_empty(), "{stored:#}");
    // The liar contradicts the claims it addresses (drafted from the others' documents).
    let liar_index = sources.iter().position(|s| s["source"]["title"] == "source-5").unwrap();
    let claims = outcome["claims"].as_array().unwrap();
    let truthful = claims.iter().find(|c| c["source"] != liar_index).unwrap();
    let liar_row = truthful["stances"][liar_index].as_array().unwrap();
    let claim_texts = truthful["claims"].as_array().unwrap();
    for (claim, stance) in claim_texts.iter().zip(liar_row) {
        let own = claim.as_str().unwrap().contains("never");
        assert!(own == (stance == "support"), "{truthful:#}");
    }
    assert!(liar_row.iter().any(|s| s == "refute"), "{truthful:#}");
    // The baselines on the same sources: every source (the liar included), or the claims
    // most sources support (the liar's left out).
    let ask = |method: &str| {
        let stored = cli.json(&[
            "summarize",
            "--question",
            "Why did the bridge close?",
            "--corpus",
            "bridge",
            "--method",
            method,
        ]);
        assert_eq!(stored["outcome"]["method"], method, "{stored:#}");
        stored["outcome"]["text"].as_str().unwrap().to_owned()
    };
    assert!(ask("all-sources").contains("never"));
    let majority = ask("majority-claims");
    assert!(!majority.is_empty() && !majority.contains("never"), "{majority}");
    // Too few sources is refused before any call, and before a run is recorded.
    let calls = model.requests().len();
    let refused = cli.run(&["summarize", "--question", "Q?", "--documents", "1,2"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("at least 3 distinct sources"),
        "{}",
        text(&refused.stderr)
    );
    assert_eq!(model.requests().len(), calls);
    // The same summary again is served from the record: no model call.
    let again =
        cli.json(&["summarize", "--question", "Why did the bridge close?", "--corpus", "bridge"]);
    assert_eq!(again["outcome"]["text"], outcome["text"]);
    assert_eq!(model.requests().len(), calls);
    // A report of the stored summary: the scores, the dropped liar and its contradictions.
    let id = stored["id"].as_i64().unwrap().to_string();
    let html = dir.path().join("summary.html");
    cli.json(&["summarize", "--outcome", &id, "-o", html.to_str().unwrap()]);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("Why did the bridge close?") && page.contains("class=\"bar dropped\""));
    assert!(page.contains("title=\"contradicts\""), "{page}");
    let refused = cli.run(&["summarize", "--outcome", &id, "-o", "summary.pdf"]);
    assert!(text(&refused.stderr).contains("--format"), "{}", text(&refused.stderr));
    // Restoring the liar by hand writes the answer again from every source.
    let all: Vec<String> = (1..=5).map(|n| n.to_string()).collect();
    let by_hand = cli.json(&["summarize", "--outcome", &id, "--use", &all.join(",")]);
    let text_by_hand = by_hand["outcome"]["text"].as_str().unwrap();
    assert!(text_by_hand.contains("never"), "{by_hand:#}");
    assert!(
        by_hand["outcome"]["explanation"].as_str().unwrap().contains("restored: source-5"),
        "{by_hand:#}"
    );
    assert!(by_hand["outcome"]["sources"].as_array().unwrap().iter().all(|s| s["used"] == true));
    let refused = cli.run(&["summarize", "--outcome", &id, "--use", "9"]);
    assert!(text(&refused.stderr).contains("no source 9"), "{}", text(&refused.stderr));
    // Both are listed, newest first.
    let listed = cli.json(&["summarize", "--list"]);
    let listed = listed.as_array().unwrap();
    assert_eq!(listed[0]["id"], by_hand["id"]);
    assert!(listed.iter().any(|s| s["id"] == stored["id"]));
    // Sources found by a search of the index: the documents mentioning repairs.
    let searched =
        cli.json(&["summarize", "--question", "How long do repairs take?", "--search", "repairs"]);
    let titles: Vec<&str> = searched["outcome"]["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["source"]["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles.len(), 4, "{titles:?}");
    assert!(!titles.contains(&"source-1"), "{titles:?}");
}

#[test]
fn summarize_fetches_pages_given_by_url_and_names_one_that_fails() {
    use factdesk_testkit::scripted::ScriptedModel;
    use factdesk_testkit::{TestResponse, TestServer};
    let page = |title: &str, text: &str| {
        TestResponse::html(&format!(
            "<html><head><title>{title}</title></head><body><p>{text}</p></body></html>"
        ))
    };
    let web = TestServer::with_routes(vec![
        ("/a", page("Gazette", "The dam held. Water rose by a metre.")),
        ("/b", page("Herald", "Water rose by a metre. The dam held. Roads were shut.")),
        ("/c", page("Courier", "Roads were shut. The dam held.")),
        ("/d", page("Rumour", "The dam never held. Water never rose by a metre.")),
    ]);
    let model = ScriptedModel::new().serve();
    let cli = Cli::new();
    std::fs::write(
        cli.data.path().join("config.toml"),
        format!(
            "[llm]\nprovider = \"openai-compatible\"\nbase_url = \"{}\"\nmodel = \"mock\"\n\
             [fetch]\nallow_hosts = [\"{}\"]\n",
            model.url("/v1"),
            web.address()
        ),
    )
    .unwrap();
    let urls: Vec<String> = ["/a", "/b", "/c", "/d"].iter().map(|p| web.url(p)).collect();
    let mut args = vec!["summarize", "--question", "Did the dam hold?"];
    for url in &urls {
        args.extend(["--url", url.as_str()]);
    }
    let stored = cli.json(&args);
    let sources = stored["outcome"]["sources"].as_array().unwrap();
    assert_eq!(sources.len(), 4, "{stored:#}");
    let rumour = sources.iter().find(|s| s["source"]["title"] == "Rumour").unwrap();
    assert_eq!(rumour["used"], false, "{stored:#}");
    assert_eq!(rumour["source"]["url"], urls[3].as_str());
    // The pages are in the corpus "web" now; a missing page stops the summary, named.
    let docs = cli.json(&["docs", "--corpus", "web"]);
    assert_eq!(docs.as_array().unwrap().len(), 4);
    let missing = web.url("/gone");
    let failed = cli.run(&[
        "summarize",
        "--question",
        "Did the dam hold?",
        "--url",
        &urls[0],
        "--url",
        &urls[1],
        "--url",
        &missing,
    ]);
    assert_eq!(failed.status.code(), Some(2), "{}", text(&failed.stderr));
    assert!(text(&failed.stderr).contains("/gone"), "{}", text(&failed.stderr));
}

#[test]
fn claims_similar_finds_a_claim_checked_before_with_its_verdict() {
    use factdesk_testkit::scripted::ScriptedModel;
    let model = ScriptedModel::new().serve();
    let cli = Cli::new();
    cli.use_model(&model, "[verify]\nmethod = \"p-true\"\n");
    let claims = demo_corpus().join("claims.csv");
    cli.json(&["claims", "import", claims.to_str().unwrap(), "--collection", "demo"]);
    cli.json(&["verify", "--collection", "demo"]);
    // A paraphrase finds the claim, with the verdict of its newest check, before any call.
    let calls = model.requests().len();
    let similar =
        cli.json(&["claims", "similar", "The construction of the Eiffel Tower ended in 1889."]);
    let found = similar.as_array().unwrap();
    assert!(!found.is_empty(), "{similar:#}");
    assert_eq!(found[0]["claim"]["text"], "The Eiffel Tower was completed in 1889.");
    let similarity = found[0]["similarity"].as_f64().unwrap();
    assert!(similarity > 0.75 && similarity <= 1.0, "{similarity}");
    // Its newest check, the one the batch made, comes with it.
    assert_eq!(found[0]["check"]["claim_id"], found[0]["claim"]["id"], "{similar:#}");
    assert!(found[0]["check"]["check"]["verdict"].is_string(), "{similar:#}");
    assert_eq!(model.requests().len(), calls, "a search makes no model call");
    // Something unrelated finds nothing; the threshold decides.
    let unrelated = cli.json(&["claims", "similar", "Interest rates rose in March."]);
    assert!(unrelated.as_array().unwrap().is_empty(), "{unrelated:#}");
    let loose =
        cli.json(&["claims", "similar", "Interest rates rose in March.", "--threshold", "0.01"]);
    let loose = loose.as_array().unwrap();
    assert!(!loose.is_empty() && loose.len() <= 5, "{loose:#?}");
    let scores: Vec<f64> = loose.iter().map(|s| s["similarity"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "most alike first: {scores:?}");
    // A claim added later is found too (embedded on the next search).
    let added = dir_with_file("more.txt", "Bananas are berries in botany.\n");
    cli.json(&[
        "claims",
        "import",
        added.path().join("more.txt").to_str().unwrap(),
        "--collection",
        "more",
    ]);
    let berry = cli.json(&["claims", "similar", "In botany, a banana is a berry."]);
    assert_eq!(berry[0]["claim"]["collection"], "more", "{berry:#}");
    assert!(berry[0]["check"].is_null());
    // Bad input is named.
    let empty = cli.run(&["claims", "similar", "  "]);
    assert_eq!(empty.status.code(), Some(2));
    assert!(text(&empty.stderr).contains("the text is empty"), "{}", text(&empty.stderr));
    let bad = cli.run(&["claims", "similar", "x", "--threshold", "1.5"]);
    assert!(text(&bad.stderr).contains("at most 1"), "{}", text(&bad.stderr));
}

fn dir_with_file(name: &str, text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), text).unwrap();
    dir
}
