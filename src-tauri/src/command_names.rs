// The name of every command of `commands.rs`. Included (`include!`) by `build.rs`, which
// generates an `allow-<name>` permission for each (`_` becomes `-`), and by the test that checks
// `capabilities/default.json` grants each one. A new command goes here, in `build_app`'s
// handler list and in the capability file.
pub const COMMANDS: &[&str] = &[
    "app_info",
    "list_corpora",
    "list_documents",
    "get_document",
    "import_sources",
    "cancel_task",
    "search_sentences",
    "get_settings",
    "save_settings",
    "check_model",
    "list_collections",
    "list_claims",
    "split_claims",
    "add_claims",
    "import_claims",
    "verify_collection",
    "collection_checks",
    "checks_of_claim",
    "review_check",
    "export_report",
    "evaluate",
    "list_passages",
    "revise_text",
    "revise_passage",
    "get_revision",
    "decide_edit",
    "export_kept_text",
];
