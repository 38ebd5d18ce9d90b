//! The migrations applied to fresh, older and broken databases (real version-5 data among
//! them), and `LANDED`: the checksum of every landed migration, which fails the tests when one
//! is edited.

use factdesk_model::{DocumentId, SentenceId};
use rusqlite::Connection;

use super::{MIGRATIONS, Migration, apply_migrations, latest_version};
use crate::{Store, StoreError};

fn table_names(conn: &Connection) -> Vec<String> {
    let mut statement =
        conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").unwrap();
    statement.query_map([], |row| row.get(0)).unwrap().map(|name| name.unwrap()).collect()
}

#[test]
fn fresh_database_gets_every_table_and_the_latest_version() {
    let store = Store::open_in_memory().unwrap();
    assert_eq!(store.schema_version().unwrap(), latest_version(MIGRATIONS));
    let tables = table_names(&store.conn);
    for expected in [
        "claim_collections",
        "claim_tags",
        "claims",
        "corpora",
        "documents",
        "fetches",
        "model_calls",
        "pages",
        "passages",
        "runs",
        "sentences",
        "source_reviews",
        "subject_leases",
    ] {
        assert!(tables.iter().any(|t| t == expected), "missing table {expected}: {tables:?}");
    }
}

#[test]
fn a_failing_migration_leaves_nothing_behind() {
    const BROKEN: &[Migration] = &[
        Migration { version: 1, name: "good", sql: "CREATE TABLE first (id INTEGER);" },
        Migration { version: 2, name: "also good", sql: "CREATE TABLE second (id INTEGER);" },
        Migration { version: 3, name: "broken", sql: "CREATE TABLE third (id INTEGER; oops" },
    ];
    let mut conn = Connection::open_in_memory().unwrap();
    let error = apply_migrations(&mut conn, BROKEN, ":memory:").unwrap_err();
    assert!(matches!(error, StoreError::Migration { version: 3, .. }), "{error}");
    let version: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0)).unwrap();
    assert_eq!(version, 0);
    assert!(table_names(&conn).is_empty(), "{:?}", table_names(&conn));
}

#[test]
fn only_pending_migrations_run() {
    const FIRST: &[Migration] =
        &[Migration { version: 1, name: "one", sql: "CREATE TABLE one (id INTEGER);" }];
    const BOTH: &[Migration] = &[
        Migration { version: 1, name: "one", sql: "CREATE TABLE one (id INTEGER);" },
        Migration { version: 2, name: "two", sql: "CREATE TABLE two (id INTEGER);" },
    ];
    let mut conn = Connection::open_in_memory().unwrap();
    apply_migrations(&mut conn, FIRST, ":memory:").unwrap();
    apply_migrations(&mut conn, BOTH, ":memory:").unwrap();
    apply_migrations(&mut conn, BOTH, ":memory:").unwrap();
    assert_eq!(table_names(&conn), ["one", "two"]);
}

#[test]
fn a_newer_database_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("factdesk.sqlite3");
    {
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", 999).unwrap();
    }
    let error = Store::open(&path).unwrap_err();
    let message = error.to_string();
    assert!(matches!(error, StoreError::DatabaseTooNew { found: 999, .. }));
    assert!(message.contains("factdesk.sqlite3") && message.contains("upgrade"), "{message}");
    let conn = Connection::open(&path).unwrap();
    assert!(table_names(&conn).is_empty());
}

#[test]
fn a_database_of_every_older_version_opens_with_its_data() {
    for version in 1..latest_version(MIGRATIONS) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.sqlite3");
        {
            let mut conn = Connection::open(&path).unwrap();
            let older: Vec<Migration> =
                MIGRATIONS.iter().copied().filter(|m| m.version <= version).collect();
            apply_migrations(&mut conn, &older, "old").unwrap();
            conn.execute(
                "INSERT INTO corpora (name, created_at) VALUES ('kept', '2024-01-01T00:00:00Z')",
                [],
            )
            .unwrap();
        }
        let store = Store::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), latest_version(MIGRATIONS));
        assert_eq!(store.corpus_id("kept").unwrap().0, 1, "data of version {version} kept");
    }
}

/// Version 5 moved the pending-index marks out of `documents`: what was pending stays
/// pending, what was indexed stays indexed, and the documents themselves are untouched.
#[test]
fn pending_index_marks_survive_the_move_to_their_own_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v4.sqlite3");
    {
        let mut conn = Connection::open(&path).unwrap();
        let older: Vec<Migration> = MIGRATIONS.iter().copied().filter(|m| m.version <= 4).collect();
        apply_migrations(&mut conn, &older, "v4").unwrap();
        conn.execute_batch(
            "INSERT INTO corpora (id, name, created_at) VALUES (1, 'c', '2024-01-01T00:00:00Z');
             INSERT INTO documents (id, corpus_id, origin, origin_kind, format, acquired_at,
                 content_hash, raw, text, indexed_at)
             VALUES (1, 1, 'a.txt', 'file', 'text', '2024-01-01T00:00:00Z', 'h1', x'41', 'A.',
                     '2024-01-01T00:00:01Z'),
                    (2, 1, 'b.txt', 'file', 'text', '2024-01-01T00:00:00Z', 'h2', x'42', 'B.',
                     NULL);
             INSERT INTO sentences (document_id, ordinal, start_char, end_char, start_byte, end_byte)
             VALUES (1, 0, 0, 2, 0, 2), (2, 0, 0, 2, 0, 2);",
        )
        .unwrap();
    }
    let store = Store::open(&path).unwrap();
    assert_eq!(store.documents_pending_index().unwrap(), [DocumentId(2)]);
    assert_eq!(store.indexed_sentence_ids().unwrap(), [SentenceId(1)]);
    assert_eq!(store.document(DocumentId(2)).unwrap().text, "B.");
    let columns: Vec<String> = store
        .conn
        .prepare("SELECT name FROM pragma_table_info('documents')")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .map(|name| name.unwrap())
        .collect();
    assert!(!columns.iter().any(|c| c == "indexed_at"), "{columns:?}");
}

/// Version 6 rewrites the runs' parameters as their identity (`{"method", "config",
/// "models"}`), on a copy of a real data directory of version 5: every other row is kept.
#[test]
fn run_parameters_of_a_version_5_database_become_identities() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/data-dir-v5/factdesk.sqlite3");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("factdesk.sqlite3");
    std::fs::copy(&fixture, &path).unwrap();
    let count = |conn: &Connection, table: &str| -> i64 {
        conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |row| row.get(0)).unwrap()
    };
    let tables = ["checks", "reviews", "claims", "documents", "sentences", "model_calls"];
    let before: Vec<i64> = {
        let conn = Connection::open(&path).unwrap();
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(version, 5);
        tables.iter().map(|table| count(&conn, table)).collect()
    };
    let store = Store::open(&path).unwrap();
    let after: Vec<i64> = tables.iter().map(|table| count(&store.conn, table)).collect();
    assert_eq!(after, before);
    let run = |id| store.run(factdesk_model::RunId(id)).unwrap();
    assert_eq!(
        run(1).parameters,
        serde_json::json!({
            "method": "corpus-nli",
            "config": {"documents": 1, "l": 4, "retrieve": 50, "threshold": 0.5, "corpora": ["demo"]},
            "models": {"nli": "factdesk-verifier"},
        })
    );
    assert_eq!(run(1).model.as_deref(), Some("factdesk-verifier"));
    assert_eq!(run(1).status, factdesk_model::RunStatus::Running);
    assert_eq!(
        run(5).parameters,
        serde_json::json!({
            "method": "p-true",
            "config": {"samples": 5, "seed": 0},
            "models": {"chat": "SmolLM2-135M-Instruct.Q4_1"},
        })
    );
    let llm_cite = run(3).parameters;
    assert_eq!(llm_cite["config"]["m"], 2);
    assert_eq!(llm_cite["config"]["premises"], "cumulative");
    assert_eq!(llm_cite["config"].get("nli_samples"), None, "the verifier judged");
    assert_eq!(llm_cite["models"]["nli"], "factdesk-verifier");
    // A single prompt: an identity too since version 18.
    assert_eq!(
        run(4).parameters,
        serde_json::json!({
            "method": "ask",
            "config": {"max_tokens": null, "seed": null, "temperature": null},
            "models": {"chat": run(4).model.unwrap()},
        })
    );
    let review: (String, String) = store
        .conn
        .query_row("SELECT decision, verdict FROM reviews WHERE check_id = 2", [], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .unwrap();
    assert_eq!(review, ("override".to_owned(), "not_enough_info".to_owned()));
}

/// Version 7 makes verdicts three-way and moves the reasons for no verdict to a column of
/// their own, rebuilding `checks` and `reviews`: on the real version-5 data directory, no
/// row, model-call link or review is lost, and each stored result says what its columns
/// say.
#[test]
fn verdicts_of_a_version_5_database_become_three_way() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/data-dir-v5/factdesk.sqlite3");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("factdesk.sqlite3");
    std::fs::copy(&fixture, &path).unwrap();
    let store = Store::open(&path).unwrap();
    // (id, verdict, undecided) as columns, then (verdict, undecided) inside the result.
    type Row = (i64, String, Option<String>, String, Option<String>);
    let rows: Vec<Row> = store
        .conn
        .prepare(
            "SELECT id, verdict, undecided, result ->> '$.verdict', result ->> '$.undecided'
             FROM checks ORDER BY id",
        )
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?)))
        .unwrap()
        .map(|row| row.unwrap())
        .collect();
    let verdicts: Vec<(&str, Option<&str>)> =
        rows.iter().map(|row| (row.1.as_str(), row.2.as_deref())).collect();
    let count = |wanted: (&str, Option<&str>)| verdicts.iter().filter(|v| **v == wanted).count();
    assert_eq!(count(("supported", None)), 4, "{verdicts:?}");
    assert_eq!(count(("not_enough_info", None)), 3, "{verdicts:?}");
    assert_eq!(count(("not_enough_info", Some("fetch_failed"))), 1, "{verdicts:?}");
    for (id, verdict, undecided, in_result, undecided_in_result) in &rows {
        assert_eq!((verdict, undecided), (in_result, undecided_in_result), "check {id}");
    }
    let links: i64 =
        store.conn.query_row("SELECT count(*) FROM check_model_calls", [], |r| r.get(0)).unwrap();
    assert_eq!(links, 4);
    // Every stored result reads back, with its reviews.
    let checks = store.checks(&crate::CheckFilter::default()).unwrap();
    assert_eq!(checks.len(), 8);
    let fetch_failed = checks.iter().find(|c| c.id.0 == 6).unwrap();
    assert_eq!(fetch_failed.check.undecided, Some(factdesk_model::Undecided::FetchFailed));
    // Stored with `urls` on every check: LLM-Cite's URLs read as its detail, the other
    // methods' empty lists as no detail.
    let urls = fetch_failed.check.proposed_urls();
    assert_eq!(urls.len(), 1);
    assert_eq!(urls[0].status, factdesk_model::UrlStatus::Refused);
    for other in checks.iter().filter(|c| c.check.envelope.method != "llm-cite") {
        assert_eq!(other.check.detail, None, "check {}", other.id);
    }
    let reviewed: Vec<_> = checks.iter().filter_map(|c| c.review.as_ref()).collect();
    assert_eq!(reviewed.len(), 2);
    assert_eq!(reviewed[0].verdict, factdesk_model::Verdict::Supported);
    let keys: i64 = store.conn.query_row("PRAGMA foreign_keys", [], |r| r.get(0)).unwrap();
    assert_eq!(keys, 1, "foreign keys are back on after migrating");
    // Version 8: token use by purpose, each total as before.
    let tokens =
        |id: i64| checks.iter().find(|c| c.id.0 == id).unwrap().check.envelope.tokens.clone();
    assert_eq!(
        serde_json::to_value(tokens(6)).unwrap(),
        serde_json::json!({"url": {"prompt": 367, "completion": 42}})
    );
    assert_eq!(
        serde_json::to_value(tokens(5)).unwrap(),
        serde_json::json!({"judge": {"prompt": 122, "completion": 0}})
    );
    assert_eq!(serde_json::to_value(tokens(1)).unwrap(), serde_json::json!({}));
    for stored in &checks {
        let column: i64 = store
            .conn
            .query_row("SELECT tokens FROM checks WHERE id = ?1", [stored.id.0], |r| r.get(0))
            .unwrap();
        assert_eq!(stored.check.envelope.tokens.total() as i64, column, "check {}", stored.id);
    }
    // Deleting a run still cascades to its checks, their links and reviews.
    store.conn.execute("DELETE FROM runs", []).unwrap();
    for table in ["checks", "check_model_calls", "reviews"] {
        let left: i64 = store
            .conn
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap();
        assert_eq!(left, 0, "{table}");
    }
}

#[test]
fn a_migration_that_leaves_a_dangling_reference_is_rolled_back() {
    const DANGLING: &[Migration] = &[
        Migration {
            version: 1,
            name: "tables",
            sql: "CREATE TABLE parent (id INTEGER PRIMARY KEY);
                  CREATE TABLE child (parent INTEGER REFERENCES parent(id));",
        },
        Migration { version: 2, name: "dangling", sql: "INSERT INTO child VALUES (7);" },
    ];
    let mut conn = Connection::open_in_memory().unwrap();
    conn.execute_batch("PRAGMA foreign_keys = ON").unwrap();
    let error = apply_migrations(&mut conn, DANGLING, ":memory:").unwrap_err();
    assert!(
        matches!(&error, StoreError::MigrationDangling { table } if table == "child"),
        "{error}"
    );
    assert!(table_names(&conn).is_empty());
    let keys: i64 = conn.query_row("PRAGMA foreign_keys", [], |r| r.get(0)).unwrap();
    assert_eq!(keys, 1);
}

/// A float is carried over as written: an f32 temperature read back by serde still equals
/// what the new code computes (SQLite's own float printing would move some by one ulp).
#[test]
fn run_identity_floats_keep_their_exact_value() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v5.sqlite3");
    let temperature = serde_json::to_value(0.41f32).unwrap();
    {
        let mut conn = Connection::open(&path).unwrap();
        let older: Vec<Migration> = MIGRATIONS.iter().copied().filter(|m| m.version <= 5).collect();
        apply_migrations(&mut conn, &older, "v5").unwrap();
        let parameters = serde_json::json!({
            "method": "llm-cite", "urls": "rs", "m": 4, "r": 5, "temperature": temperature,
            "l": 6, "threshold": 0.5, "premises": "cumulative", "nli": "llm", "nli_samples": 3,
            "p_true_samples": 5, "corpus_retrieve": 50, "corpora": [], "seed": 0, "model": "gpt",
        });
        conn.execute(
            "INSERT INTO runs (method, parameters, model, status, created_at)
             VALUES ('llm-cite', ?1, 'gpt', 'failed', '2024-01-01T00:00:00Z')",
            [parameters.to_string()],
        )
        .unwrap();
    }
    let store = Store::open(&path).unwrap();
    let identity = store.run(factdesk_model::RunId(1)).unwrap().parameters;
    assert_eq!(identity["config"]["temperature"], temperature);
    assert_eq!(identity["config"]["nli_samples"], 3, "the chat model judged");
    assert_eq!(identity["models"], serde_json::json!({"chat": "gpt", "nli": "llm"}));
}

#[test]
fn pragmas_are_set_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db.sqlite3")).unwrap();
    let mode: String = store.conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    let keys: i64 = store.conn.query_row("PRAGMA foreign_keys", [], |r| r.get(0)).unwrap();
    let timeout: i64 = store.conn.query_row("PRAGMA busy_timeout", [], |r| r.get(0)).unwrap();
    assert_eq!((mode.as_str(), keys, timeout), ("wal", 1, 10_000));
}

/// The checksum of every landed migration. A migration is never edited once it has landed:
/// this list fails the tests when one is. A new migration appends its checksum here.
const LANDED: &[(i64, &str)] = &[
    (1, "81aec6af42976dca0ee0bf6fbe7f8452775029ad9038cff6d36e7f0eeee2ca09"),
    (2, "7bcb1961f9d044a975faca6b3b7e3d21815419f2e29a082ce1e2d90c6ec2b812"),
    (3, "8d650e73e0285c66d7e69859e7689998b5e884835c137132cd0d15cd4ad8b4b9"),
    (4, "6d8a2c18d98a3198c2878643c49fae7d38fe9e1a289bfe9f54c028948f4c879e"),
    (5, "12d233d6e2c4e189a18e0975c16b121a70e078d9f36026f968475a89633810d3"),
    (6, "70a08b1069512270329adb4d6db512d7504a0247603fbc76f1e55900bf67aea9"),
    (7, "fcd905a52e2c7a2d70ce45efa8f3311716b97820a3073534dd20680f5142641a"),
    (8, "49a4a2d7b86218a3c419cf0bdae8a68fd4163c0b95d50591009920dc7a89cadb"),
    (9, "d8270d1987313a3486c635b1cd539998edb9637e86c6ce8173d93fb64341758b"),
    (10, "7c7a1a244198208819a57b89fa7d1f37edff0e011cb1dad0ae9aa3365afe8d4d"),
    (11, "2cdbd5fcb8593a509168dd9cf1c287812f2613e7636546f871626c4b63999a13"),
    (12, "108eb2bd6d6761dd131bcd37638de8f35a969ae434cac06bc8dfbb87d474852a"),
    (13, "19ad681f42fa177e49af45ae04766f7a43c4a71656f372eb9cc208ee9fc3ca73"),
    (14, "399e1dc45ba7c5ede77aa63513288a134d916b4e776414e3dbe2ef102ddf86da"),
    (15, "e666454e40d98b85af21e81f1c555cb976d14c3d371b24310c65de955b6108ef"),
    (16, "718789c8c802822a6873ff720fc5088538f84271093bbf07f20b51bb42cb449b"),
    (17, "bcd2029b34fea0dfe31af8f48ddd77297817807752401e4e9bb730df0213d7e8"),
    (18, "5c271905bd73cb6a91b938b728c057f2e65ae84aaf921da3e775c55e6fa25e73"),
    (19, "c8450266cc68bcb9263dbd7c2d4ff521cd58a17de7622eea101f8e92811bc69e"),
    (20, "f696d26398c1ab51e0412f088773de809b4ff5a5176a110951ccee6eca414d8e"),
    (21, "1a3b94b460a5dd37eb2512e82d82d32c19b31947efb992e13cc1041537ed59af"),
    (22, "5d50a214d9dda35e4f2d6821eb099d94ab0ea0dd49312c282c89b8f1f9d8b187"),
];

#[test]
fn no_landed_migration_has_changed() {
    let now: Vec<(i64, String)> =
        MIGRATIONS.iter().map(|migration| (migration.version, migration.checksum())).collect();
    let landed: Vec<(i64, String)> =
        LANDED.iter().map(|(version, checksum)| (*version, (*checksum).to_owned())).collect();
    assert_eq!(now, landed, "a landed migration changed, or a new one has no checksum in LANDED");
    // Line ends do not count.
    let crlf = Migration { sql: "CREATE TABLE a (id INTEGER);\r\n", ..MIGRATIONS[0] };
    let lf = Migration { sql: "CREATE TABLE a (id INTEGER);\n", ..MIGRATIONS[0] };
    assert_eq!(crlf.checksum(), lf.checksum());
}

fn recorded(conn: &Connection) -> Vec<(i64, String)> {
    let mut rows =
        conn.prepare("SELECT version, checksum FROM schema_migrations ORDER BY version").unwrap();
    rows.query_map([], |row| Ok((row.get(0)?, row.get(1)?))).unwrap().map(|r| r.unwrap()).collect()
}

#[test]
fn a_database_whose_applied_migration_changed_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("factdesk.sqlite3");
    drop(Store::open(&path).unwrap());
    let expected: Vec<(i64, String)> =
        MIGRATIONS.iter().map(|migration| (migration.version, migration.checksum())).collect();
    assert_eq!(recorded(&Connection::open(&path).unwrap()), expected);
    // A build whose migration 3 reads otherwise refuses the database, naming the file.
    let mut edited: Vec<Migration> = MIGRATIONS.to_vec();
    edited[2].sql = "CREATE TABLE fetches (id INTEGER);";
    let mut conn = Connection::open(&path).unwrap();
    let error = apply_migrations(&mut conn, &edited, "factdesk.sqlite3").unwrap_err();
    assert!(matches!(error, StoreError::MigrationChanged { version: 3, .. }), "{error}");
    let message = error.to_string();
    assert!(
        message.contains("factdesk.sqlite3") && message.contains("migrations/0003_fetches.sql"),
        "{message}"
    );
    // Nothing was changed: the database still opens as it was.
    assert_eq!(recorded(&conn), expected);
    // Nor by a build that also brings a new migration: it is refused before it runs.
    let mut newer = edited.clone();
    newer.push(Migration { version: 99, name: "later", sql: "CREATE TABLE later (id INTEGER);" });
    let error = apply_migrations(&mut conn, &newer, "factdesk.sqlite3").unwrap_err();
    assert!(matches!(error, StoreError::MigrationChanged { version: 3, .. }), "{error}");
    assert!(!table_names(&conn).contains(&"later".to_owned()));
    let version: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0)).unwrap();
    assert_eq!(version, latest_version(MIGRATIONS));
    drop(conn);
    assert!(Store::open(&path).is_ok());
}

#[test]
fn a_database_from_before_checksums_records_those_of_its_migrations() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.sqlite3");
    {
        let mut conn = Connection::open(&path).unwrap();
        let older: Vec<Migration> =
            MIGRATIONS.iter().copied().filter(|m| m.version <= 15).collect();
        apply_migrations(&mut conn, &older, "old").unwrap();
    }
    drop(Store::open(&path).unwrap());
    let versions: Vec<i64> =
        recorded(&Connection::open(&path).unwrap()).into_iter().map(|(v, _)| v).collect();
    assert_eq!(versions, (1..=latest_version(MIGRATIONS)).collect::<Vec<_>>());
}

/// Version 18 gives the runs that kept a shape of their own (summaries and their baselines,
/// summaries written again by hand, SGSS labels, single prompts) the identity every method's
/// run has, exactly as the core now computes it (`identity.rs`, whose tests hold the same
/// values): an unfinished summary still resumes. Runs already in that shape are left alone.
#[test]
fn runs_of_every_kind_get_one_identity_at_version_18() {
    let version = MIGRATIONS.iter().position(|m| m.name == "one_run_identity").unwrap();
    let mut conn = Connection::open_in_memory().unwrap();
    apply_migrations(&mut conn, &MIGRATIONS[..version], "test.sqlite3").unwrap();
    let tts_config = serde_json::json!({"tau": 0.1, "stance_judge": "verifier", "max_claims": 8});
    let rows = [
        (
            "tts",
            serde_json::json!({"method": "tts", "config": tts_config, "question": "Did the dam hold?", "documents": [3, 1], "model": "mock"}),
        ),
        (
            "majority-prompt",
            serde_json::json!({"method": "majority-prompt", "config": tts_config, "question": "Q?", "documents": [2], "model": "mock"}),
        ),
        ("tts-by-hand", serde_json::json!({"from_summary": 7, "used": [0, 2]})),
        (
            "score",
            serde_json::json!({"summaries": ["a.md"], "documents": ["d.txt"], "question": "Q?", "template": "sgss/label"}),
        ),
        ("ask", serde_json::json!({"max_tokens": 64, "temperature": 0.7, "seed": null})),
        (
            "corpus-nli",
            serde_json::json!({"method": "corpus-nli", "config": {"l": 4}, "models": {"nli": "factdesk-verifier"}}),
        ),
    ];
    for (method, parameters) in &rows {
        conn.execute(
            "INSERT INTO runs (method, parameters, model, status, created_at)
             VALUES (?1, ?2, 'mock', 'cancelled', '2026-11-27T00:00:00Z')",
            rusqlite::params![method, parameters.to_string()],
        )
        .unwrap();
    }
    apply_migrations(&mut conn, MIGRATIONS, "test.sqlite3").unwrap();
    let stored: Vec<serde_json::Value> = conn
        .prepare("SELECT parameters FROM runs ORDER BY id")
        .unwrap()
        .query_map([], |row| row.get::<_, String>(0))
        .unwrap()
        .map(|text| serde_json::from_str(&text.unwrap()).unwrap())
        .collect();
    let expected = [
        serde_json::json!({
            "method": "tts",
            "config": tts_config,
            "models": {"chat": "mock", "nli": "factdesk-verifier"},
            "inputs": {"question": "Did the dam hold?", "documents": [3, 1]},
        }),
        // No stances asked: no judge named.
        serde_json::json!({
            "method": "majority-prompt",
            "config": tts_config,
            "models": {"chat": "mock"},
            "inputs": {"question": "Q?", "documents": [2]},
        }),
        serde_json::json!({
            "method": "tts-by-hand",
            "config": {"used": [0, 2]},
            "models": {"chat": "mock"},
            "inputs": {"from_summary": 7},
        }),
        serde_json::json!({
            "method": "score",
            "config": {"template": "sgss/label"},
            "models": {"chat": "mock"},
            "inputs": {"summaries": ["a.md"], "documents": ["d.txt"], "question": "Q?"},
        }),
        serde_json::json!({
            "method": "ask",
            "config": {"max_tokens": 64, "temperature": 0.7, "seed": null},
            "models": {"chat": "mock"},
        }),
        rows[5].1.clone(),
    ];
    for (got, want) in stored.iter().zip(&expected) {
        assert_eq!(got, want);
    }
    // Floats keep their exact spelling, so an identity computed anew compares equal.
    let text: String = conn
        .query_row("SELECT parameters FROM runs WHERE method = 'ask'", [], |row| row.get(0))
        .unwrap();
    assert!(text.contains("0.7"), "{text}");
}

/// The envelopes the data directories of versions 5 and 20 hold (corpus-NLI's, P(True)'s and
/// LLM-Cite's) read into their methods' typed parameters through `Store::outcomes`, and write
/// back as they are stored, byte for byte.
#[test]
fn stored_envelopes_of_earlier_versions_read_as_typed_parameters() {
    use factdesk_model::MethodParameters;
    for (fixture, expected) in [("data-dir-v5", [4, 3, 1]), ("data-dir-v20", [2, 0, 0])] {
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures")
            .join(fixture)
            .join("factdesk.sqlite3");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("factdesk.sqlite3");
        std::fs::copy(&fixture, &path).unwrap();
        let store = Store::open(&path).unwrap();
        let mut read = [0; 3];
        for stored in store.outcomes(None, None).unwrap() {
            let envelope = stored.outcome.envelope();
            let slot = match (envelope.method.as_str(), &envelope.parameters) {
                ("corpus-nli", MethodParameters::CorpusNli(_)) => 0,
                ("p-true", MethodParameters::PTrue(_)) => 1,
                ("llm-cite", MethodParameters::LlmCite(_)) => 2,
                (method, parameters) => panic!("{method} read as {parameters:?}"),
            };
            read[slot] += 1;
            let written: String = store
                .conn
                .query_row(
                    "SELECT result ->> '$.parameters' FROM checks WHERE id = ?1",
                    [stored.id.0],
                    |row| row.get(0),
                )
                .unwrap();
            assert_eq!(serde_json::to_string(&envelope.parameters).unwrap(), written);
        }
        assert_eq!(read, expected, "{fixture:?}");
    }
}
