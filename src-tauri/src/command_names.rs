// Every command of the app, declared once: this list. A new command is a function in
// `commands.rs` (or `commands/`), the struct of its arguments beside it, and one line here:
// `call <name>(<Args>) -> <Answer>` (`call <name>() -> <Answer>` when it takes none), or
// `task <name>(…) -> …` for a long action that also takes a `task_id` and an `on_progress`
// channel and that `cancel_task` stops. The rest follows from the list:
//
// - `build.rs` includes this file (`include!`) for [`COMMANDS`], and generates an
//   `allow-<name>` permission for each (`_` becomes `-`);
// - `lib.rs` registers the invoke handler of every command through `command_handler!`;
// - `command_items!` (expanded in `bindings.rs`) checks that each function takes
//   `Args<that struct>` (or no `Args` when none is declared) and answers that type (`signature.rs`; it does not compile otherwise),
//   and lists each command's argument and answer types, which `bindings.rs` writes as
//   TypeScript: `CommandName`, and `CommandArgs`, `CommandAnswer` and `TaskCommandName`
//   (`Commands.ts`), through which `ui/src/api.ts` and its parts in `ui/src/api/` call every
//   command (`api/transport.ts`' `call` and `startTask`);
// - the app's tests check that `capabilities/default.json` grants exactly these (and that the
//   window may call them), and that the UI calls each of them.

/// Declares the commands: [`COMMANDS`], their names, `command_handler!()`, Tauri's invoke
/// handler for all of them (`tauri::generate_handler!` over `crate::commands::<name>`), and
/// `command_items!()`, the check of each function against its declaration and the list of
/// every command's types (`declared_commands`).
macro_rules! declare_commands {
    ($($kind:ident $name:ident($($args:ty)?) -> $answer:ty),* $(,)?) => {
        /// The name of every command, in the order declared.
        pub const COMMANDS: &[&str] = &[$(stringify!($name)),*];

        #[allow(unused_macros)]
        macro_rules! command_handler {
            () => {
                tauri::generate_handler![$(crate::commands::$name),*]
            };
        }

        // A declared argument struct is what the function takes; none declared, it takes none.
        #[allow(unused_macros)]
        macro_rules! check_args {
            ($command:ident) => {
                crate::signature::takes_no_args(&crate::commands::$command)
            };
            ($command:ident, $arguments:ty) => {
                crate::signature::takes_args::<$arguments, _, _, _>(&crate::commands::$command)
            };
        }

        #[allow(unused_macros)]
        macro_rules! command_items {
            () => {
                /// Compiles only if every command takes the arguments and gives the answer
                /// declared for it; never called.
                #[allow(dead_code)]
                fn check_declared_signatures() {
                    $(
                        check_args!($name $(, $args)?);
                        crate::signature::answers::<$answer, _, _, _>(&crate::commands::$name);
                    )*
                }

                /// Every command with the TypeScript of its arguments and answer, in the
                /// order declared.
                pub(crate) fn declared_commands(
                    config: &ts_rs::Config,
                ) -> Vec<crate::bindings::DeclaredCommand> {
                    vec![$(
                        crate::bindings::DeclaredCommand {
                            name: stringify!($name),
                            kind: crate::bindings::kind::$kind,
                            args: None$(.or(Some(crate::bindings::TypeUse::of::<$args>(config))))?,
                            answer: crate::bindings::TypeUse::of::<$answer>(config),
                        }
                    ),*]
                }
            };
        }
    };
}

declare_commands![
    call app_info() -> AppInfo,
    call list_corpora() -> Vec<Corpus>,
    call list_documents(ListDocumentsArgs) -> Vec<DocumentSummary>,
    call get_document(IdArgs) -> Document,
    task import_sources(ImportSourcesArgs) -> ImportSummary,
    task finish_index_rebuild() -> Option<IndexRebuild>,
    call cancel_task(CancelTaskArgs) -> bool,
    call search_sentences(SearchSentencesArgs) -> Vec<SearchHit>,
    call get_settings() -> SettingsView,
    call save_settings(SaveSettingsArgs) -> SettingsView,
    call check_model() -> ModelCheck,
    call list_collections() -> Vec<ClaimCollection>,
    call list_claims(ListClaimsArgs) -> Vec<Claim>,
    call split_claims(TextArgs) -> Vec<String>,
    call add_claims(AddClaimsArgs) -> ClaimImportSummary,
    call import_claims(ImportClaimsArgs) -> ClaimImportSummary,
    task verify_collection(VerifyCollectionArgs) -> BatchSummary,
    call collection_checks(SelectionArgs) -> Vec<ClaimWithCheck>,
    call collection_page(CollectionPageArgs) -> ClaimPage,
    call collection_dashboard(SelectionArgs) -> Dashboard,
    call collection_runs(CollectionArgs) -> Vec<Run>,
    call checks_of_claim(IdArgs) -> Vec<StoredCheck>,
    call set_claim_language(SetClaimLanguageArgs) -> Claim,
    call review_check(ReviewCheckArgs) -> Review,
    call export_report(ExportReportArgs) -> (),
    call evaluate(SelectionArgs) -> Evaluation,
    call list_passages(CollectionArgs) -> Vec<Passage>,
    call revise_text(ReviseTextArgs) -> ReviewedRevision,
    call revise_passage(RevisePassageArgs) -> ReviewedRevision,
    call get_revision(IdArgs) -> ReviewedRevision,
    call decide_edit(DecideEditArgs) -> ReviewedRevision,
    call export_kept_text(ExportKeptTextArgs) -> (),
    call list_summary_questions() -> Vec<SummaryQuestion>,
    call add_summary(AddSummaryArgs) -> SummaryView,
    call label_summary(LabelSummaryArgs) -> (),
    call score_question(ScoreQuestionArgs) -> QuestionScores,
    task summarize_sources(SummarizeSourcesArgs) -> SummaryRun,
    call list_sourced_summaries() -> Vec<StoredOutcome>,
    call get_sourced_summary(IdArgs) -> StoredOutcome,
    call resummarize(ResummarizeArgs) -> StoredOutcome,
    call summary_source_reviews(IdArgs) -> Vec<SourceReview>,
    call review_summary_source(ReviewSummarySourceArgs) -> Vec<SourceReview>,
    call export_summary_report(ExportSummaryReportArgs) -> (),
    call similar_claims(SimilarClaimsArgs) -> Vec<SimilarClaim>,
];
