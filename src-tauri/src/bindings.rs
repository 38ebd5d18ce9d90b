//! The TypeScript types of what the commands take and give, generated from the Rust types
//! (ts-rs) into `ui/src/bindings/`, one file per type, so that the UI cannot drift from the core:
//! `ui/src/api.ts` re-exports them and adds only what Rust does not describe (the command
//! wrappers and the UI's own request shapes). [`export`] writes them; a test renders them afresh
//! and fails when the committed files differ (`scripts/ui-types.sh` writes them again).

use std::path::Path;

use ts_rs::{Config, ExportError, TS};

/// Where the bindings live, relative to the repository root.
pub const BINDINGS_DIR: &str = "ui/src/bindings";

/// Writes the TypeScript type of every value that crosses the command boundary, and of what
/// those types contain, into `dir`. 64-bit integers become `number`: ids, counts and token sums
/// stay far below 2^53.
pub fn export(dir: &Path) -> Result<(), ExportError> {
    use factdesk_core::claim_page::{ClaimPage, ClaimPageRequest, ClaimSort};
    use factdesk_core::claims::ClaimImportSummary;
    use factdesk_core::dashboard::Dashboard;
    use factdesk_core::eval::Evaluation;
    use factdesk_core::import::ImportSummary;
    use factdesk_core::index_sync::IndexRebuild;
    use factdesk_core::model::{
        Claim, ClaimCollection, Corpus, Document, DocumentSummary, Review, ReviewDecision,
        SourceReview, StoredCheck, Undecided, Verdict,
    };
    use factdesk_core::models::ModelCheck;
    use factdesk_core::search::SearchHit;
    use factdesk_core::settings::SettingChange;
    use factdesk_core::verify::{
        BatchSummary, CheckSelection, ClaimWithCheck, Method, VerifyOptions,
    };

    use factdesk_core::model::Passage;
    use factdesk_core::revise::ReviewedRevision;
    use factdesk_core::summaries::{QuestionScores, SummaryQuestion, SummaryView};

    use factdesk_core::similar::SimilarClaim;
    use factdesk_core::summarize::SummaryRun;

    use crate::commands::{AppInfo, CommandError, ReviseRequest, SettingsView, SummarizeInput};
    use crate::tasks::TaskProgress;

    let config = Config::new().with_large_int("number").with_out_dir(dir);
    macro_rules! export_all {
        ($($ty:ty),* $(,)?) => { $( <$ty as TS>::export_all(&config)?; )* };
    }
    export_all!(
        AppInfo,
        BatchSummary,
        CheckSelection,
        Claim,
        ClaimCollection,
        ClaimImportSummary,
        ClaimPage,
        ClaimPageRequest,
        ClaimSort,
        ClaimWithCheck,
        CommandError,
        Corpus,
        Dashboard,
        Document,
        DocumentSummary,
        Evaluation,
        ImportSummary,
        IndexRebuild,
        Method,
        ModelCheck,
        Passage,
        QuestionScores,
        ReviewedRevision,
        ReviseRequest,
        Review,
        ReviewDecision,
        SearchHit,
        SettingChange,
        SettingsView,
        StoredCheck,
        SummaryQuestion,
        SummaryRun,
        SimilarClaim,
        SourceReview,
        SummaryView,
        SummarizeInput,
        TaskProgress,
        Undecided,
        Verdict,
        VerifyOptions,
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};

    use super::*;

    /// The `.ts` files under `dir` by their path relative to it (`serde_json/JsonValue.ts`).
    fn files(dir: &Path) -> BTreeMap<String, String> {
        fn walk(root: &Path, dir: &Path, found: &mut BTreeMap<String, String>) {
            let Ok(entries) = std::fs::read_dir(dir) else { return };
            for path in entries.map(|entry| entry.unwrap().path()) {
                if path.is_dir() {
                    walk(root, &path, found);
                } else if path.extension().is_some_and(|ext| ext == "ts") {
                    let name = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                    found.insert(name, std::fs::read_to_string(&path).unwrap());
                }
            }
        }
        let mut found = BTreeMap::new();
        walk(dir, dir, &mut found);
        found
    }

    /// The committed bindings are exactly what the Rust types give today. With
    /// `FACTDESK_WRITE_UI_TYPES=1` the test writes them instead (`scripts/ui-types.sh`).
    #[test]
    fn ui_bindings_match_the_rust_types() {
        let fresh = tempfile::tempdir().unwrap();
        export(fresh.path()).unwrap();
        let generated = files(fresh.path());
        assert!(generated.contains_key("StoredCheck.ts"), "{:?}", generated.keys());
        let committed_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(BINDINGS_DIR);
        if std::env::var_os("FACTDESK_WRITE_UI_TYPES").is_some_and(|value| value == "1") {
            for stale in files(&committed_dir).keys().filter(|name| !generated.contains_key(*name))
            {
                std::fs::remove_file(committed_dir.join(stale)).unwrap();
            }
            for (name, text) in &generated {
                let path = committed_dir.join(name);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, text).unwrap();
            }
        }
        let committed = files(&committed_dir);
        let names = |map: &BTreeMap<String, String>| map.keys().cloned().collect::<Vec<_>>();
        assert_eq!(
            names(&committed),
            names(&generated),
            "{BINDINGS_DIR} does not hold the types the Rust code gives: run scripts/ui-types.sh"
        );
        for (name, text) in &generated {
            assert_eq!(
                &committed[name], text,
                "{BINDINGS_DIR}/{name} is out of date: run scripts/ui-types.sh"
            );
        }
    }

    /// What the UI relies on in the generated shapes: ids and counts are numbers, the verdict
    /// vocabulary is the Rust one, optional fields stay optional.
    #[test]
    fn bindings_speak_numbers_and_the_verdict_vocabulary() {
        let config = Config::new().with_large_int("number");
        let verdict = factdesk_core::model::Verdict::decl(&config);
        assert!(verdict.contains(r#""supported" | "refuted" | "not_enough_info""#), "{verdict}");
        let check = factdesk_core::model::ClaimCheck::decl(&config);
        assert!(check.contains("undecided?: Undecided | null"), "{check}");
        let stored = factdesk_core::model::StoredCheck::decl(&config);
        assert!(stored.contains("model_calls: Array<number>"), "{stored}");
        assert!(!stored.contains("bigint"), "{stored}");
    }
}
