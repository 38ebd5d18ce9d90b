// The one module the UI talks to the Rust shell through. Every command of
// `src-tauri/src/commands.rs` has a wrapper here or in a part of it under `api/` (re-exported
// here), typed by the command's declaration (`call` and `startTask`, `api/transport.ts`, take
// only the arguments `bindings/Commands.ts` gives for it, and answer its type), and so do the
// two Tauri facilities the UI uses (`api/dialogs.ts`: the file dialog and files dropped on the
// window); the rest of the UI imports from here and never calls `invoke()` or a plugin itself.
// Here: the library, search, settings and claims; the parts: revisions and summaries.

import { call, startTask, type RunningTask } from './api/transport';

export { asCommandError, type CallCommand, type RunningTask, type StartTask } from './api/transport';
export * from './api/dialogs';
export * from './api/revisions';
export * from './api/summaries';

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

/** The extension of a report file in `format`, without the dot. */
export function reportExtension(format: ReportFormat): string {
  return REPORT_FORMATS.find((named) => named.value === format)?.extension ?? format;
}
/** The value of one of the core's lists of choices. */
type ChoiceOf<T extends ReadonlyArray<{ value: string }>> = T[number]['value'];
export type ReviseMethodName = ChoiceOf<typeof REVISION_CHOICES.methods>;

/** Earlier claims of the library like `text` (checked before), most alike first, each with its newest check. */
export function similarClaims(text: string, limit = 3): Promise<SimilarClaim[]> {
  return call('similar_claims', { text, limit });
}
