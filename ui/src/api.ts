// The one module that talks to the Rust shell. Every command of `src-tauri/src/commands.rs`
// has a wrapper here, typed by the command's declaration (`call` and `startTask` take only the
// arguments `bindings/Commands.ts` gives for it, and answer its type), and so do the two Tauri
// facilities the UI uses (the file dialog and files dropped on the window); the rest of the UI
// imports these and never calls `invoke()` or a plugin itself.

import { Channel, invoke, type InvokeArgs } from '@tauri-apps/api/core';
import { getCurrentWebview } from '@tauri-apps/api/webview';
import { open, save } from '@tauri-apps/plugin-dialog';

// What the commands take and give: generated from the Rust types (`src-tauri/src/bindings.rs`,
// written by `scripts/ui-types.sh`; a Rust test fails when they are stale). Never edit them here.
import type { AppInfo } from './bindings/AppInfo';
import type { Attribution } from './bindings/Attribution';
import type { BatchSummary } from './bindings/BatchSummary';
import type { CheckSelection } from './bindings/CheckSelection';
import type { TokenUse } from './bindings/TokenUse';
import type { Masses } from './bindings/Masses';
import type { RuleVerdict } from './bindings/RuleVerdict';
import type { Stance } from './bindings/Stance';
import type { CiberDetail } from './bindings/CiberDetail';
import type { Claim } from './bindings/Claim';
import type { ClaimCheck } from './bindings/ClaimCheck';
import type { ClaimCollection } from './bindings/ClaimCollection';
import type { ClaimImportSummary } from './bindings/ClaimImportSummary';
import type { ClaimPage } from './bindings/ClaimPage';
import type { ClaimPageRequest } from './bindings/ClaimPageRequest';
import type { ClaimSort } from './bindings/ClaimSort';
import type { ReviewFilter } from './bindings/ReviewFilter';
import type { VerdictFilter } from './bindings/VerdictFilter';
import { REVIEW_FILTERS, VERDICT_FILTERS } from './bindings/ClaimFilters';
import type { Run } from './bindings/Run';
import type { ClaimStatus } from './bindings/ClaimStatus';
import type { ClaimWithCheck } from './bindings/ClaimWithCheck';
import type { CommandError } from './bindings/CommandError';
import type { CommandName } from './bindings/CommandName';
import type { CommandAnswer, CommandArgs, TaskCommandName } from './bindings/Commands';
import type { ListClaimsArgs } from './bindings/ListClaimsArgs';
import type { ReviewCheckArgs } from './bindings/ReviewCheckArgs';
import type { SearchSentencesArgs } from './bindings/SearchSentencesArgs';
import type { ConfusionRow } from './bindings/ConfusionRow';
import type { Corpus } from './bindings/Corpus';
import type { ConfidenceBin } from './bindings/ConfidenceBin';
import type { Dashboard } from './bindings/Dashboard';
import type { DayCount } from './bindings/DayCount';
import type { ReviewCell } from './bindings/ReviewCell';
import type { ReviewRow } from './bindings/ReviewRow';
import type { VerdictCount } from './bindings/VerdictCount';
import type { Document } from './bindings/Document';
import type { DocumentFormat } from './bindings/DocumentFormat';
import type { DocumentSummary } from './bindings/DocumentSummary';
import type { Evaluation } from './bindings/Evaluation';
import type { EvidenceSource } from './bindings/EvidenceSource';
import type { Figure } from './bindings/Figure';
import type { ImportFailure } from './bindings/ImportFailure';
import type { ImportSummary } from './bindings/ImportSummary';
import type { IndexRebuild } from './bindings/IndexRebuild';
import type { ImportedDocument } from './bindings/ImportedDocument';
import type { Method } from './bindings/Method';
import type { MethodInfo } from './bindings/MethodInfo';
import { VERDICT_METHODS } from './bindings/VerdictMethods';
import { CLAIM_FILE_EXTENSIONS, IMPORTED_EXTENSIONS } from './bindings/ImportedExtensions';
import { REVISION_CHOICES } from './bindings/RevisionMethods';
import { SUMMARY_CHOICES } from './bindings/SummaryMethods';
import { SCORE_CHOICES } from './bindings/ScoreMethod';
import { PAGE_REPORT_FORMATS, REPORT_FORMATS } from './bindings/ReportFormats';
import { NLI_CHOICES } from './bindings/NliChoices';
import type { NliChoice } from './bindings/NliChoice';
import type { MethodFigures } from './bindings/MethodFigures';
import type { MethodsSettings } from './bindings/MethodsSettings';
import type { ModelCheck } from './bindings/ModelCheck';
import type { ModelChoice } from './bindings/ModelChoice';
import type { OriginKind } from './bindings/OriginKind';
import type { Passage } from './bindings/Passage';
import type { ElementLabel } from './bindings/ElementLabel';
import type { ModelLabel } from './bindings/ModelLabel';
import type { QuestionScores } from './bindings/QuestionScores';
import type { SummaryLine } from './bindings/SummaryLine';
import type { SummaryQuestion } from './bindings/SummaryQuestion';
import type { SummaryScore } from './bindings/SummaryScore';
import type { SummaryView } from './bindings/SummaryView';
import type { SummaryRun } from './bindings/SummaryRun';
import type { SimilarClaim } from './bindings/SimilarClaim';
import type { SummarizeInput } from './bindings/SummarizeInput';
import type { StoredOutcome } from './bindings/StoredOutcome';
import type { SourcedSummary } from './bindings/SourcedSummary';
import type { ScoredSource } from './bindings/ScoredSource';
import type { SourceClaims } from './bindings/SourceClaims';
import type { ReviewedRevision } from './bindings/ReviewedRevision';
import type { ReviseRequest } from './bindings/ReviseRequest';
import type { ReportFormat } from './bindings/ReportFormat';
import type { Revision } from './bindings/Revision';
import type { Edit } from './bindings/Edit';
import type { EditDecision } from './bindings/EditDecision';
import type { SourceReview } from './bindings/SourceReview';
import type { EvidenceSentences } from './bindings/EvidenceSentences';
import type { VerificationStep } from './bindings/VerificationStep';
import type { RevisionMetrics } from './bindings/RevisionMetrics';
import type { PremiseCheck } from './bindings/PremiseCheck';
import type { ProposedUrl } from './bindings/ProposedUrl';
import type { Review } from './bindings/Review';
import type { ReviewDecision } from './bindings/ReviewDecision';
import type { SearchHit } from './bindings/SearchHit';
import type { Sentence } from './bindings/Sentence';
import type { SettingChange } from './bindings/SettingChange';
import type { Settings } from './bindings/Settings';
import type { SettingsView } from './bindings/SettingsView';
import type { StaleEvidence } from './bindings/StaleEvidence';
import type { StoredCheck } from './bindings/StoredCheck';
import type { SubjectFailure as ClaimFailure } from './bindings/SubjectFailure';
import type { TaskProgress } from './bindings/TaskProgress';
import type { TokensPerClaim } from './bindings/TokensPerClaim';
import type { Undecided } from './bindings/Undecided';
import type { UrlStatus } from './bindings/UrlStatus';
import type { UrlStrategy } from './bindings/UrlStrategy';
import type { Verdict } from './bindings/Verdict';
import type { VerifyOptions } from './bindings/VerifyOptions';
import type { VerifySettings } from './bindings/VerifySettings';

export type {
  CheckSelection,
  ReportFormat,
  ReviseRequest,
  VerifyOptions,
  ConfidenceBin,
  Dashboard,
  DayCount,
  ReviewCell,
  ReviewRow,
  VerdictCount,
  SimilarClaim,
  SummaryRun,
  SummarizeInput,
  StoredOutcome,
  SourcedSummary,
  ScoredSource,
  SourceClaims,
  ElementLabel,
  ModelLabel,
  QuestionScores,
  SummaryLine,
  SummaryQuestion,
  SummaryScore,
  SummaryView,
  AppInfo,
  Attribution,
  BatchSummary,
  TokenUse,
  CiberDetail,
  Masses,
  RuleVerdict,
  Stance,
  Claim,
  ClaimCheck,
  ClaimCollection,
  ClaimFailure,
  ClaimImportSummary,
  ClaimStatus,
  ClaimWithCheck,
  CommandError,
  ConfusionRow,
  Corpus,
  Document,
  DocumentFormat,
  DocumentSummary,
  Evaluation,
  EvidenceSource,
  Figure,
  ImportFailure,
  ImportSummary,
  IndexRebuild,
  ImportedDocument,
  Method,
  MethodInfo,
  MethodFigures,
  MethodsSettings,
  ModelCheck,
  ModelChoice,
  NliChoice,
  OriginKind,
  Passage,
  ReviewedRevision,
  Revision,
  Edit,
  EditDecision,
  ClaimPage,
  ClaimPageRequest,
  ClaimSort,
  ReviewFilter,
  VerdictFilter,
  Run,
  SourceReview,
  EvidenceSentences,
  VerificationStep,
  RevisionMetrics,
  PremiseCheck,
  ProposedUrl,
  Review,
  ReviewDecision,
  SearchHit,
  Sentence,
  SettingChange,
  Settings,
  SettingsView,
  StaleEvidence,
  StoredCheck,
  TaskProgress,
  TokensPerClaim,
  Undecided,
  UrlStatus,
  UrlStrategy,
  Verdict,
  VerifySettings,
};

/** A claim's gold label: a verdict given in advance. */
export type ClaimLabel = Verdict;

// The values of the generated unions, for menus and URL parameters. `Record<…, true>` makes the
// compiler refuse a list that misses a value Rust added.
const VERDICT_SET: Record<Verdict, true> = { supported: true, refuted: true, not_enough_info: true };
export const VERDICTS = Object.keys(VERDICT_SET) as Verdict[];
const UNDECIDED_SET: Record<Undecided, true> = {
  no_valid_url: true,
  fetch_failed: true,
  no_evidence: true,
  unread_language: true,
};
export const UNDECIDED = Object.keys(UNDECIDED_SET) as Undecided[];
// The collection view's verdict and review filters, in menu order: the core's (generated).
export { REVIEW_FILTERS, VERDICT_FILTERS };
// The verdict methods come from the core's one list of them (generated: VerdictMethods.ts).
export { VERDICT_METHODS };
export const METHODS: Method[] = VERDICT_METHODS.map((info) => info.method);
const URL_STRATEGY_SET: Record<UrlStrategy, true> = { diverse: true, controlled: true, rs: true };
export const URL_STRATEGIES = Object.keys(URL_STRATEGY_SET) as UrlStrategy[];

// The UI's own shapes: how it asks, where Rust fills in what is left out.

/** A long action under way (an import, a batch of checks): its outcome, and a way to stop it. */
export interface RunningTask<T> {
  done: Promise<T>;
  /** Asks the action to stop at its next safe point; false if it had already ended. */
  cancel(): Promise<boolean>;
}

/** What a search asks for besides its text (the arguments of `search_sentences`). */
export type SearchOptions = Partial<Omit<SearchSentencesArgs, 'query'>>;

/** The settings a check's options start from. */
export interface CheckDefaults {
  verify: VerifySettings;
  methods: MethodsSettings;
}

/** Which claims `listClaims` lists (the arguments of `list_claims`): each field left out is no filter. */
export type ClaimFilter = ListClaimsArgs;

/** A person's review of a check (the arguments of `review_check` besides the check). */
export type ReviewInput = Omit<ReviewCheckArgs, 'checkId'>;

/** Turns whatever a rejected call gives into a `CommandError`. */
export function asCommandError(error: unknown): CommandError {
  if (typeof error === 'object' && error !== null && 'code' in error && 'message' in error) {
    const { code, message } = error as { code: unknown; message: unknown };
    return { code: String(code), message: String(message) };
  }
  return { code: 'internal', message: String(error) };
}

/** Sends a command; `call` and `startTask` say what it takes and answers. */
async function send<T>(command: CommandName, args: InvokeArgs): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (error) {
    throw asCommandError(error);
  }
}

/**
 * Calls a command the app declares (src-tauri/src/command_names.rs) with the arguments its
 * declaration gives (`CommandArgs`, generated), answering its type (`CommandAnswer`): a name,
 * argument or type the command does not have fails to compile.
 */
function call<C extends Exclude<CommandName, TaskCommandName>>(command: C, args: CommandArgs[C]): Promise<CommandAnswer[C]> {
  return send<CommandAnswer[C]>(command, args);
}

/** The type of `call`, for the type test that a wrong argument name fails (`ui/type-tests/`). */
export type CallCommand = typeof call;

export function appInfo(): Promise<AppInfo> {
  return call('app_info', {});
}

export function listCorpora(): Promise<Corpus[]> {
  return call('list_corpora', {});
}

/** One page of documents, newest first, of `corpus` (or of every corpus). */
export function listDocuments(corpus: string | null, limit: number, offset: number): Promise<DocumentSummary[]> {
  return call('list_documents', { corpus, limit, offset });
}

export function getDocument(id: number): Promise<Document> {
  return call('get_document', { id });
}

// Task ids only need to differ between actions running at once; starting at a random number
// keeps a reloaded page from reusing the id of an action still running.
let nextTaskId = Math.floor(Math.random() * 1_000_000_000);

/**
 * Starts a long command that takes `taskId` and an `onProgress` channel, and gives its outcome
 * and a way to cancel it (`cancel_task`).
 */
function startTask<C extends TaskCommandName>(
  command: C,
  args: CommandArgs[C],
  onProgress: (message: TaskProgress) => void,
): RunningTask<CommandAnswer[C]> {
  const taskId = nextTaskId++;
  const channel = new Channel<TaskProgress>();
  channel.onmessage = onProgress;
  return {
    done: send<CommandAnswer[C]>(command, { ...args, taskId, onProgress: channel }),
    cancel: () => call('cancel_task', { taskId }),
  };
}

/** The type of `startTask`, for the type test that a wrong argument name fails (`ui/type-tests/`). */
export type StartTask = typeof startTask;

/**
 * Imports files, folders and http(s) URLs into `corpus` (created if missing). Progress
 * messages arrive at `onProgress` while `done` is pending.
 */
export function importSources(
  corpus: string,
  sources: string[],
  onProgress: (message: TaskProgress) => void,
): RunningTask<ImportSummary> {
  return startTask('import_sources', { corpus, sources }, onProgress);
}

/**
 * Finishes the rebuild of a search index replaced when the app started (an older layout, or a
 * rebuild left unfinished); `done` gives `null` at once when none is pending.
 */
export function finishIndexRebuild(onProgress: (message: TaskProgress) => void): RunningTask<IndexRebuild | null> {
  return startTask('finish_index_rebuild', {}, onProgress);
}

export function searchSentences(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
  return call('search_sentences', {
    query,
    limit: options.limit ?? null,
    corpora: options.corpora ?? [],
    language: options.language ?? null,
  });
}

export function getSettings(): Promise<SettingsView> {
  return call('get_settings', {});
}

/**
 * Writes `changes` into the user's config file and answers the settings now in effect. An
 * invalid change is refused (code `config`, naming its key) and nothing is written.
 */
export function saveSettings(changes: SettingChange[]): Promise<SettingsView> {
  return call('save_settings', { changes });
}

/** Asks the selected chat model for a one-word answer. May take a while (a model may load). */
export function checkModel(): Promise<ModelCheck> {
  return call('check_model', {});
}

export function listCollections(): Promise<ClaimCollection[]> {
  return call('list_collections', {});
}

export function listClaims(filter: ClaimFilter = {}): Promise<Claim[]> {
  return call('list_claims', {
    collection: filter.collection ?? null,
    status: filter.status ?? null,
    tag: filter.tag ?? null,
    limit: filter.limit ?? null,
  });
}

/** Splits a pasted text into candidate claims, one per sentence. */
export function splitClaims(text: string): Promise<string[]> {
  return call('split_claims', { text });
}

/** Adds claims to `collection` (created if missing); ones it holds already count as duplicates. */
export function addClaims(collection: string, claims: string[], claimedOn: string | null = null): Promise<ClaimImportSummary> {
  return call('add_claims', { collection, claims, claimedOn });
}

/** Imports a claims file (CSV, JSONL, or one claim per line) into `collection`. */
export function importClaims(path: string, collection: string): Promise<ClaimImportSummary> {
  return call('import_claims', { path, collection });
}

/**
 * Checks every claim of `collection`; an unfinished run with the same method and parameters is
 * resumed, skipping the claims it already checked. Progress arrives at `onProgress`.
 */
export function verifyCollection(
  collection: string,
  options: VerifyOptions,
  onProgress: (message: TaskProgress) => void,
): RunningTask<BatchSummary> {
  return startTask('verify_collection', { collection, options }, onProgress);
}


/** The claims of a collection, each with its newest check (of `selection`) and that check's latest review. */
export function collectionChecks(collection: string, selection: CheckSelection = {}): Promise<ClaimWithCheck[]> {
  return call('collection_checks', { collection, selection });
}

/** The runs over a collection, newest first. */
export function collectionRuns(collection: string): Promise<Run[]> {
  return call('collection_runs', { collection });
}

/** A collection's dashboard: verdict counts, machine against review, confidence by agreement, checks per day. */
/** One page of a collection's claims, filtered and sorted over the whole collection. */
export function collectionPage(collection: string, request: ClaimPageRequest): Promise<ClaimPage> {
  return call('collection_page', { collection, request });
}

export function collectionDashboard(collection: string, selection: CheckSelection = {}): Promise<Dashboard> {
  return call('collection_dashboard', { collection, selection });
}

/** Every check of a claim, oldest first. */
export function checksOfClaim(claimId: number): Promise<StoredCheck[]> {
  return call('checks_of_claim', { id: claimId });
}

/**
 * Sets a claim's language (an ISO 639-1 code such as `de`; `null`: unknown), correcting the
 * one detected, and gives the claim back; a code that is not one is refused (`invalid_input`).
 */
export function setClaimLanguage(claimId: number, language: string | null): Promise<Claim> {
  return call('set_claim_language', { id: claimId, language });
}


/** Records a review of a check; the machine verdict is kept beside it. */
export function reviewCheck(checkId: number, review: ReviewInput): Promise<Review> {
  return call('review_check', {
    checkId,
    decision: review.decision,
    verdict: review.verdict ?? null,
    comment: review.comment,
    reviewer: review.reviewer ?? null,
  });
}

/** Writes the report of `collection` (each claim's newest check of `selection`) in `format` to `path`. */
export function exportReport(collection: string, format: ReportFormat, path: string, selection: CheckSelection = {}, machineVerdicts = false): Promise<null> {
  return call('export_report', { collection, format, path, selection, machineVerdicts });
}

/** Scores the newest check (of `selection`) of each labelled claim of `collection` against its gold label. */
export function evaluate(collection: string, selection: CheckSelection = {}): Promise<Evaluation> {
  return call('evaluate', { collection, selection });
}


/** Lets the user pick files (or, with `folders`, folders) to import; [] if they cancel. */
export async function chooseImportSources(folders: boolean): Promise<string[]> {
  try {
    const picked = await open({
      title: folders ? 'Folders to import' : 'Files to import',
      multiple: true,
      directory: folders,
      filters: folders ? undefined : [{ name: 'Documents', extensions: [...IMPORTED_EXTENSIONS] }],
    });
    return picked ?? [];
  } catch (error) {
    throw asCommandError(error);
  }
}

/** Lets the user pick one claims file; null if they cancel. */
export async function chooseClaimsFile(): Promise<string | null> {
  try {
    return await open({
      title: 'Claims file to import',
      multiple: false,
      directory: false,
      // The claims files `import_claims` reads: the core's list (generated).
      filters: [{ name: 'Claims', extensions: [...CLAIM_FILE_EXTENSIONS] }],
    });
  } catch (error) {
    throw asCommandError(error);
  }
}

/** Asks where to save a report, suggesting `fileName`; null if the user cancels. */
export async function chooseReportPath(fileName: string, extension: string): Promise<string | null> {
  try {
    return await save({
      title: 'Save the report',
      defaultPath: fileName,
      filters: [{ name: `${extension.toUpperCase()} report`, extensions: [extension] }],
    });
  } catch (error) {
    throw asCommandError(error);
  }
}

export interface DropHandlers {
  /** Files are being dragged over the window (true) or no longer are (false). */
  hovering(active: boolean): void;
  /** Files were dropped: their paths. */
  dropped(paths: string[]): void;
}

/** Calls `handlers` when files are dragged over or dropped on the window. */
export async function onFilesDropped(handlers: DropHandlers): Promise<() => void> {
  return getCurrentWebview().onDragDropEvent((event) => {
    const payload = event.payload;
    switch (payload.type) {
      case 'enter':
      case 'over':
        handlers.hovering(true);
        break;
      case 'leave':
        handlers.hovering(false);
        break;
      case 'drop':
        handlers.hovering(false);
        if (payload.paths.length > 0) handlers.dropped(payload.paths);
        break;
    }
  });
}

/**
 * The revising methods, the evidence a revision reads, how it is cut and who gates it, each with
 * its name for people: the core's lists (generated, `bindings/RevisionMethods.ts`).
 */
export { REVISION_CHOICES };
/**
 * The summary methods (TTS and its baselines) and the stance judges, each with its name for
 * people, and τ when a request gives none: the core's lists (generated,
 * `bindings/SummaryMethods.ts`).
 */
export { SUMMARY_CHOICES };
/** SGSS's grades (word, value, key), best first, and its defaults: the core's (generated). */
export { SCORE_CHOICES };
/**
 * Every report format with its file extension, and those of the one-page reports (a summary's):
 * the report crate's lists (generated, `bindings/ReportFormats.ts`).
 */
export { PAGE_REPORT_FORMATS, REPORT_FORMATS };
/** The NLI judges a form offers, with their names for people: the core's list (generated). */
export { NLI_CHOICES };
/** A format of the one-page reports. */
export type PageReportFormat = (typeof PAGE_REPORT_FORMATS)[number];

/** The extension of a report file in `format`, without the dot. */
export function reportExtension(format: ReportFormat): string {
  return REPORT_FORMATS.find((named) => named.value === format)?.extension ?? format;
}
/** The value of one of the core's lists of choices. */
type ChoiceOf<T extends ReadonlyArray<{ value: string }>> = T[number]['value'];
export type ReviseMethodName = ChoiceOf<typeof REVISION_CHOICES.methods>;

/** How the UI asks for a revision (the core's `ReviseRequest`); what is left out comes from the method's settings. */
export type ReviseInput = ReviseRequest;

/** The passages of a collection (texts to correct), oldest first. */
export function listPassages(collection: string): Promise<Passage[]> {
  return call('list_passages', { collection });
}

/** Corrects a pasted text with RARR or CoVe; the revision is stored. */
export function reviseText(text: string, input: ReviseInput): Promise<ReviewedRevision> {
  return call('revise_text', { text, request: input });
}

/** Corrects a stored passage (against its own source documents by default). */
export function revisePassage(id: number, input: ReviseInput): Promise<ReviewedRevision> {
  return call('revise_passage', { id, request: input });
}

/** A stored revision with the decisions on its edits. */
export function getRevision(id: number): Promise<ReviewedRevision> {
  return call('get_revision', { id });
}

/** Accepts or rejects edit `edit` (from 0) of revision `id`, with why when given; the revision itself is kept. */
export function decideEdit(id: number, edit: number, accepted: boolean, reviewer?: string, comment?: string): Promise<ReviewedRevision> {
  return call('decide_edit', { id, edit, accepted, comment: comment ?? null, reviewer: reviewer ?? null });
}

/** Writes the text kept of revision `id` (every edit not rejected) to `path`. */
export function exportKeptText(id: number, path: string): Promise<null> {
  return call('export_kept_text', { id, path });
}

/** The questions with stored structured summaries. */
export function listSummaryQuestions(): Promise<SummaryQuestion[]> {
  return call('list_summary_questions', {});
}

/** Keeps a structured summary (Markdown, or JSON) of `question`. */
export function addSummary(question: string, name: string, text: string): Promise<SummaryView> {
  return call('add_summary', { question, name, text });
}

/** Labels one element of a stored summary as a person (`null` clears the label). */
export function labelSummary(id: number, element: string, grade: number | null): Promise<null> {
  return call('label_summary', { id, element, grade });
}

/** Every stored summary of `question`, labelled and scored with SGSS. */
export function scoreQuestion(question: string): Promise<QuestionScores> {
  return call('score_question', { question });
}

/**
 * Summarises several sources for a question with TTS (or a baseline); an unfinished run of the
 * same input is resumed. Progress (sources scored) arrives at `onProgress`.
 */
export function summarizeSources(input: SummarizeInput, onProgress: (message: TaskProgress) => void): RunningTask<SummaryRun> {
  return startTask('summarize_sources', { input }, onProgress);
}

/** The stored summaries of several sources, newest first. */
export function listSourcedSummaries(): Promise<StoredOutcome[]> {
  return call('list_sourced_summaries', {});
}

/** One stored summary of several sources. */
export function getSourcedSummary(id: number): Promise<StoredOutcome> {
  return call('get_sourced_summary', { id });
}

/** People's reviews of summary `id`'s sources (the newest for each reviewed source). */
export function summarySourceReviews(id: number): Promise<SourceReview[]> {
  return call('summary_source_reviews', { id });
}

/**
 * Reviews source `source` (from 0) of summary `id`: agrees with what the summary did with it,
 * or not, saying why in `comment`. Answers every review that counts.
 */
export function reviewSummarySource(id: number, source: number, accepted: boolean, comment?: string, reviewer?: string): Promise<SourceReview[]> {
  return call('review_summary_source', { id, source, accepted, comment: comment ?? null, reviewer: reviewer ?? null });
}

/** Writes summary `id`'s answer again from the sources `used` (indices) and stores it anew. */
export function resummarize(id: number, used: number[]): Promise<StoredOutcome> {
  return call('resummarize', { id, used });
}

/** Writes summary `id` as a report in one of `PAGE_REPORT_FORMATS` to `path`. */
export function exportSummaryReport(id: number, format: PageReportFormat, path: string): Promise<null> {
  return call('export_summary_report', { id, format, path });
}

/** Earlier claims of the library like `text` (checked before), most alike first, each with its newest check. */
export function similarClaims(text: string, limit = 3): Promise<SimilarClaim[]> {
  return call('similar_claims', { text, limit });
}
