// Every command of the app, declared once: this list. A new command is a function in
// `commands.rs` (or `commands/`) and its name here; the rest follows from the list.
//
// - `build.rs` includes this file (`include!`) for [`COMMANDS`], and generates an
//   `allow-<name>` permission for each (`_` becomes `-`);
// - `lib.rs` registers the invoke handler of every command through `command_handler!`;
// - `bindings.rs` writes the names as the TypeScript type `CommandName`, the only names
//   `ui/src/api.ts` can call;
// - the app's tests check that `capabilities/default.json` grants exactly these (and that the
//   window may call them), and that the UI calls each of them.

/// Declares the commands: [`COMMANDS`], their names, and `command_handler!()`, Tauri's invoke
/// handler for all of them (`tauri::generate_handler!` over `crate::commands::<name>`).
macro_rules! declare_commands {
    ($($name:ident),* $(,)?) => {
        /// The name of every command, in the order declared.
        pub const COMMANDS: &[&str] = &[$(stringify!($name)),*];

        #[allow(unused_macros)]
        macro_rules! command_handler {
            () => {
                tauri::generate_handler![$(crate::commands::$name),*]
            };
        }
    };
}

declare_commands![
    app_info,
    list_corpora,
    list_documents,
    get_document,
    import_sources,
    finish_index_rebuild,
    cancel_task,
    search_sentences,
    get_settings,
    save_settings,
    check_model,
    list_collections,
    list_claims,
    split_claims,
    add_claims,
    import_claims,
    verify_collection,
    collection_checks,
    collection_page,
    collection_dashboard,
    collection_runs,
    checks_of_claim,
    set_claim_language,
    review_check,
    export_report,
    evaluate,
    list_passages,
    revise_text,
    revise_passage,
    get_revision,
    decide_edit,
    export_kept_text,
    list_summary_questions,
    add_summary,
    label_summary,
    score_question,
    summarize_sources,
    list_sourced_summaries,
    get_sourced_summary,
    resummarize,
    summary_source_reviews,
    review_summary_source,
    export_summary_report,
    similar_claims,
];
