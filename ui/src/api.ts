// The one module that talks to the Rust shell. Every command of `src-tauri/src/commands.rs`
// has a typed wrapper here, and so do the two Tauri facilities the UI uses (the file dialog and
// files dropped on the window); the rest of the UI imports these and never calls `invoke()` or
// a plugin itself. The types mirror the Rust structs as serde writes them.

import { Channel, invoke } from '@tauri-apps/api/core';
import { getCurrentWebview } from '@tauri-apps/api/webview';
import { open, save } from '@tauri-apps/plugin-dialog';

/** What a failed command rejects with: a stable code and a readable message. */
export interface CommandError {
  /** `not_found`, `invalid_input`, `config`, `database_too_new`, `index_busy`, `fetch`,
   * `model`, `io` or `internal`. */
  code: string;
  message: string;
}

export interface AppInfo {
  version: string;
  data_dir: string;
  log_dir: string;
  config_file: string;
  /** Set only by the end-to-end tests: Reports exports into this folder without a dialog. */
  e2e_export_dir: string | null;
}

export interface Corpus {
  id: number;
  name: string;
  description: string | null;
  created_at: string;
  document_count: number;
}

export type OriginKind = string;
export type DocumentFormat = string;

export interface DocumentSummary {
  id: number;
  corpus: string;
  origin: string;
  origin_kind: OriginKind;
  url: string | null;
  format: DocumentFormat;
  title: string | null;
  published_at: string | null;
  acquired_at: string;
  content_hash: string;
  sentence_count: number;
  text_chars: number;
}

export interface Sentence {
  id: number;
  document_id: number;
  ordinal: number;
  span: { start_char: number; end_char: number; start_byte: number; end_byte: number };
  text: string;
}

export interface Document {
  summary: DocumentSummary;
  charset: string | null;
  text: string;
  sentences: Sentence[];
}

export interface SearchHit {
  sentence_id: number;
  document_id: number;
  corpus: string;
  score: number;
  sentence: string;
  ordinal: number;
  start_char: number;
  end_char: number;
  /** The text shown for the hit. */
  snippet: string;
  /** Matched words as `[start, end)` UTF-8 byte offsets into `snippet`. */
  highlights: Array<[number, number]>;
  document_title: string | null;
  document_origin: string;
  document_url: string | null;
  published_at: string | null;
}

export interface SearchOptions {
  limit?: number;
  corpora?: string[];
}

export interface ImportedDocument {
  id: number;
  origin: string;
  title: string | null;
  sentences: number;
  duplicate: boolean;
}

export interface ImportFailure {
  item: string;
  message: string;
}

export interface ImportSummary {
  corpus: string;
  imported: number;
  duplicates: number;
  failed: number;
  sentences: number;
  bytes: number;
  seconds: number;
  cancelled: boolean;
  documents: ImportedDocument[];
  failures: ImportFailure[];
  skipped: string[];
}

/** A message about a running import or batch of checks (`TaskProgress` in `tasks.rs`). */
export type TaskProgress =
  | { event: 'phase'; name: string; total: number | null; unit: 'items' | 'bytes' }
  | { event: 'progress'; done: number; item: string | null }
  | { event: 'item_failed'; item: string; message: string }
  | { event: 'finished' };

/** A long action under way (an import, a batch of checks): its outcome, and a way to stop it. */
export interface RunningTask<T> {
  done: Promise<T>;
  /** Asks the action to stop at its next safe point; false if it had already ended. */
  cancel(): Promise<boolean>;
}

export type ModelChoice =
  | { provider: 'embedded'; path: string }
  | { provider: 'openai-compatible'; base_url: string; model: string; has_api_key: boolean };

/** The settings in effect; a section is a table of plain values (and lists of them). */
export type SettingsSections = Record<string, Record<string, unknown>>;

/** `[llm]` as the window sees it (`api_key` is always blank; see `ModelChoice.has_api_key`). */
export interface LlmSettings {
  provider: 'auto' | 'embedded' | 'openai-compatible' | string;
  base_url: string;
  model: string;
  api_key: string;
  cache: string;
  embedded_model: string;
  [key: string]: unknown;
}

export interface FetchSettings {
  offline: boolean;
  reuse_archive: boolean;
  allow_hosts: string[];
  wikipedia_api: string;
  [key: string]: unknown;
}

/** `[verify]`: the method a check uses when the window does not choose it, and the NLI judge. */
export interface VerifySettings {
  method: string;
  nli: string;
  [key: string]: unknown;
}

/** `[methods.llm-cite]`. */
export interface LlmCiteSettings {
  urls: string;
  m: number;
  r: number;
  temperature: number;
  l: number;
  threshold: number;
  premises: string;
  document_chars: number;
  [key: string]: unknown;
}

/** `[methods.corpus-nli]`. */
export interface CorpusNliSettings {
  documents: number;
  l: number;
  retrieve: number;
  threshold: number;
  [key: string]: unknown;
}

/** `[methods]`: each method's own settings. */
export interface MethodsSettings {
  'llm-cite': LlmCiteSettings;
  'p-true': { samples: number; [key: string]: unknown };
  'corpus-nli': CorpusNliSettings;
}

/** The settings a check's options start from. */
export interface CheckDefaults {
  verify: VerifySettings;
  methods: MethodsSettings;
}

export interface SettingsView {
  settings: SettingsSections & {
    llm: LlmSettings;
    search: { limit: number; [key: string]: unknown };
    fetch: FetchSettings;
    verify: VerifySettings;
    methods: MethodsSettings;
  };
  model: ModelChoice;
}

/**
 * One change to the user's config file: a dotted key (`llm.base_url`) and the value to write,
 * or `null` to take the key out of the file so that its default applies again.
 */
export interface SettingChange {
  key: string;
  value: string | number | boolean | string[] | null;
}

export interface ModelCheck {
  selected: ModelChoice;
  answer: string;
  latency_ms: number;
  prompt_tokens: number;
  completion_tokens: number;
}

export interface ClaimCollection {
  id: number;
  name: string;
  description: string | null;
  created_at: string;
  claim_count: number;
}

export type ClaimStatus = 'unchecked' | 'checked' | 'reviewed';
/** A claim's gold label: a verdict given in advance. */
export type ClaimLabel = Verdict;

export interface Claim {
  id: number;
  collection: string;
  text: string;
  origin: string | null;
  tags: string[];
  notes: string | null;
  status: ClaimStatus;
  gold_label: ClaimLabel | null;
  created_at: string;
  updated_at: string;
}

export interface ClaimFilter {
  collection?: string;
  status?: ClaimStatus;
  tag?: string;
  limit?: number;
}

export interface ClaimImportSummary {
  collection: string;
  imported: number;
  duplicates: number;
  failed: number;
  failures: ImportFailure[];
}

// Checks (`crates/factdesk-model/src/check.rs`).

/** Supported, refuted, or not enough info: the vocabulary of verdicts and of gold labels. */
export type Verdict = 'supported' | 'refuted' | 'not_enough_info';
export const VERDICTS: Verdict[] = ['supported', 'refuted', 'not_enough_info'];

/** Why a method could not decide (its verdict is then `not_enough_info`). */
export type Undecided = 'no_valid_url' | 'fetch_failed' | 'no_evidence';
export const UNDECIDED: Undecided[] = ['no_valid_url', 'fetch_failed', 'no_evidence'];

export type UrlStatus = 'fetched' | 'not_found' | 'invalid' | 'refused' | 'failed' | 'skipped';

/** A URL the model proposed, and what became of it. */
export interface ProposedUrl {
  url: string;
  status: UrlStatus;
  final_url: string | null;
  title: string | null;
  fetched_at: string | null;
  content_hash: string | null;
  error: string | null;
  sample: number;
}

/** Where a premise's sentences come from: a fetched page or a corpus document. */
export interface EvidenceSource {
  url: string | null;
  title: string | null;
  document_id: number | null;
  fetched_at: string | null;
  content_hash: string | null;
}

/** One premise judged against the claim, with the NLI probabilities. */
export interface PremiseCheck {
  /** Index into `ClaimCheck.sources`. */
  source: number;
  sentences: string[];
  premise: string;
  entailment: number;
  neutral: number;
  contradiction: number;
  entails: boolean;
}

export interface Attribution {
  source: EvidenceSource;
  sentences: string[];
  entailment: number;
}

export interface CheckTokens {
  url_prompt: number;
  url_completion: number;
  judge_prompt: number;
  judge_completion: number;
}

export interface ClaimCheck {
  claim: string;
  /** `llm-cite`, `p-true` or `corpus-nli`. */
  method: string;
  parameters: unknown;
  model: string;
  nli_model: string | null;
  verdict: Verdict;
  /** Why the method could not decide; absent when it judged the claim on evidence. */
  undecided?: Undecided;
  confidence: number | null;
  attributions: Attribution[];
  urls: ProposedUrl[];
  sources: EvidenceSource[];
  premises: PremiseCheck[];
  tokens: CheckTokens;
  explanation: string;
}

export type ReviewDecision = 'accept' | 'override';

/** A person's review, kept beside the machine verdict (never replacing it). */
export interface Review {
  id: number;
  check_id: number;
  decision: ReviewDecision;
  /** The machine's verdict for `accept`, the reviewer's for `override`. */
  verdict: Verdict;
  comment: string;
  reviewer: string | null;
  created_at: string;
}

export interface StoredCheck {
  id: number;
  run_id: number;
  claim_id: number | null;
  checked_at: string;
  /** Ids of the recorded model calls behind the check. */
  model_calls: number[];
  check: ClaimCheck;
  /** The latest review, if any. */
  review: Review | null;
}

/** A claim of a collection with its newest check (and that check's latest review). */
export interface ClaimWithCheck {
  claim: Claim;
  check: StoredCheck | null;
}

export type Method = 'llm-cite' | 'p-true' | 'corpus-nli';
export const METHODS: Method[] = ['llm-cite', 'p-true', 'corpus-nli'];
export type UrlStrategy = 'diverse' | 'controlled' | 'rs';
export const URL_STRATEGIES: UrlStrategy[] = ['diverse', 'controlled', 'rs'];

/** The choices of a check (the core's `VerifyOptions`); what is left out comes from `[verify]` and the method's `[methods.<name>]`. */
export interface VerifyRequest {
  method?: Method;
  urls?: UrlStrategy;
  /** URLs (LLM-Cite) or documents (corpus-NLI) judged per claim. */
  m?: number;
  /** Sentences kept per page or document. */
  l?: number;
  r?: number;
  temperature?: number;
  /** P(entailment) at which a premise entails the claim. */
  threshold?: number;
  whole_document?: boolean;
  nli?: string;
  /** Corpora corpus-NLI takes its evidence from (all when empty). */
  corpora?: string[];
  /** Start a new run even if an unfinished one could be resumed. */
  restart?: boolean;
  /** Leave out claims an earlier run checked with the same method configuration and models. */
  skip_checked?: boolean;
}

export interface ClaimFailure {
  claim_id: number;
  claim: string;
  message: string;
}

/** What a collection run did. */
export interface BatchSummary {
  run_id: number;
  collection: string;
  method: string;
  resumed: boolean;
  claims: number;
  already_checked: number;
  checked: number;
  failed: number;
  cancelled: boolean;
  verdicts: Array<[Verdict, number]>;
  /** Of the not-enough-info checks, those that could not decide, per reason. */
  undecided: Array<[Undecided, number]>;
  failures: ClaimFailure[];
}

/** Export formats of `export_report`. */
export type ReportFormat = 'md' | 'html' | 'json' | 'csv' | 'claimreview';

export interface ConfusionRow {
  gold: ClaimLabel;
  verdicts: Array<[Verdict, number]>;
}

export interface TokensPerClaim {
  url_prompt: number;
  url_completion: number;
  judge_prompt: number;
  judge_completion: number;
  total: number;
}

/** Evaluation figures; rates are fractions in [0, 1], `null` when undefined. */
export interface Evaluation {
  collection: string;
  run_id: number | null;
  methods: string[];
  claims: number;
  labelled: number;
  evaluated: number;
  accuracy: number | null;
  balanced_accuracy: number | null;
  true_positive_rate: number | null;
  true_negative_rate: number | null;
  roc_auc: number | null;
  expected_calibration_error: number | null;
  not_supported_precision: number | null;
  not_supported_recall: number | null;
  nli_models: string[];
  confusion: ConfusionRow[];
  /** Mean F1 over the three verdicts that occur (gold or said); null with nothing scored. */
  macro_f1: number | null;
  /** Scored checks that could not decide, per reason. */
  undecided: Array<[Undecided, number]>;
  /** Each method's own figures over its checks (e.g. LLM-Cite's URL figures). */
  figures: MethodFigures[];
  tokens_per_claim: TokensPerClaim;
}

/** One figure a method reports about its checks. */
export interface Figure {
  key: string;
  label: string;
  /** Null when undefined (a rate over nothing). */
  value: number | null;
  /** A share in [0, 1] rather than a count. */
  rate: boolean;
  note: string;
}

export interface MethodFigures {
  method: string;
  figures: Figure[];
}

/** Turns whatever a rejected call gives into a `CommandError`. */
export function asCommandError(error: unknown): CommandError {
  if (typeof error === 'object' && error !== null && 'code' in error && 'message' in error) {
    const { code, message } = error as { code: unknown; message: unknown };
    return { code: String(code), message: String(message) };
  }
  return { code: 'internal', message: String(error) };
}

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (error) {
    throw asCommandError(error);
  }
}

export function appInfo(): Promise<AppInfo> {
  return call<AppInfo>('app_info');
}

export function listCorpora(): Promise<Corpus[]> {
  return call<Corpus[]>('list_corpora');
}

/** One page of documents, newest first, of `corpus` (or of every corpus). */
export function listDocuments(corpus: string | null, limit: number, offset: number): Promise<DocumentSummary[]> {
  return call<DocumentSummary[]>('list_documents', { corpus, limit, offset });
}

export function getDocument(id: number): Promise<Document> {
  return call<Document>('get_document', { id });
}

// Task ids only need to differ between actions running at once; starting at a random number
// keeps a reloaded page from reusing the id of an action still running.
let nextTaskId = Math.floor(Math.random() * 1_000_000_000);

/**
 * Starts a long command that takes `taskId` and an `onProgress` channel, and gives its outcome
 * and a way to cancel it (`cancel_task`).
 */
function startTask<T>(
  command: string,
  args: Record<string, unknown>,
  onProgress: (message: TaskProgress) => void,
): RunningTask<T> {
  const taskId = nextTaskId++;
  const channel = new Channel<TaskProgress>();
  channel.onmessage = onProgress;
  return {
    done: call<T>(command, { ...args, taskId, onProgress: channel }),
    cancel: () => call<boolean>('cancel_task', { taskId }),
  };
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
  return startTask<ImportSummary>('import_sources', { corpus, sources }, onProgress);
}

export function searchSentences(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
  return call<SearchHit[]>('search_sentences', {
    query,
    limit: options.limit ?? null,
    corpora: options.corpora ?? [],
  });
}

export function getSettings(): Promise<SettingsView> {
  return call<SettingsView>('get_settings');
}

/**
 * Writes `changes` into the user's config file and answers the settings now in effect. An
 * invalid change is refused (code `config`, naming its key) and nothing is written.
 */
export function saveSettings(changes: SettingChange[]): Promise<SettingsView> {
  return call<SettingsView>('save_settings', { changes });
}

/** Asks the selected chat model for a one-word answer. May take a while (a model may load). */
export function checkModel(): Promise<ModelCheck> {
  return call<ModelCheck>('check_model');
}

export function listCollections(): Promise<ClaimCollection[]> {
  return call<ClaimCollection[]>('list_collections');
}

export function listClaims(filter: ClaimFilter = {}): Promise<Claim[]> {
  return call<Claim[]>('list_claims', {
    collection: filter.collection ?? null,
    status: filter.status ?? null,
    tag: filter.tag ?? null,
    limit: filter.limit ?? null,
  });
}

/** Splits a pasted text into candidate claims, one per sentence. */
export function splitClaims(text: string): Promise<string[]> {
  return call<string[]>('split_claims', { text });
}

/** Adds claims to `collection` (created if missing); ones it holds already count as duplicates. */
export function addClaims(collection: string, claims: string[]): Promise<ClaimImportSummary> {
  return call<ClaimImportSummary>('add_claims', { collection, claims });
}

/** Imports a claims file (CSV, JSONL, or one claim per line) into `collection`. */
export function importClaims(path: string, collection: string): Promise<ClaimImportSummary> {
  return call<ClaimImportSummary>('import_claims', { path, collection });
}

/**
 * Checks every claim of `collection`; an unfinished run with the same method and parameters is
 * resumed, skipping the claims it already checked. Progress arrives at `onProgress`.
 */
export function verifyCollection(
  collection: string,
  options: VerifyRequest,
  onProgress: (message: TaskProgress) => void,
): RunningTask<BatchSummary> {
  return startTask<BatchSummary>('verify_collection', { collection, options }, onProgress);
}

/** Which checks lists, reports and eval read (the core's `CheckSelection`): each claim's newest check, of one method or one run when given. */
export interface CheckSelection {
  method?: Method;
  run?: number;
}

/** The claims of a collection, each with its newest check (of `selection`) and that check's latest review. */
export function collectionChecks(collection: string, selection: CheckSelection = {}): Promise<ClaimWithCheck[]> {
  return call<ClaimWithCheck[]>('collection_checks', { collection, selection });
}

/** Every check of a claim, oldest first. */
export function checksOfClaim(claimId: number): Promise<StoredCheck[]> {
  return call<StoredCheck[]>('checks_of_claim', { id: claimId });
}

export interface ReviewInput {
  decision: ReviewDecision;
  /** Required for `override`; for `accept`, the machine verdict or nothing. */
  verdict?: Verdict;
  /** Required for `override`: why the machine verdict is wrong. */
  comment: string;
  reviewer?: string;
}

/** Records a review of a check; the machine verdict is kept beside it. */
export function reviewCheck(checkId: number, review: ReviewInput): Promise<Review> {
  return call<Review>('review_check', {
    checkId,
    decision: review.decision,
    verdict: review.verdict ?? null,
    comment: review.comment,
    reviewer: review.reviewer ?? null,
  });
}

/** Writes the report of `collection` (each claim's newest check of `selection`) in `format` to `path`. */
export function exportReport(collection: string, format: ReportFormat, path: string, selection: CheckSelection = {}): Promise<void> {
  return call<void>('export_report', { collection, format, path, selection });
}

/** Scores the newest check (of `selection`) of each labelled claim of `collection` against its gold label. */
export function evaluate(collection: string, selection: CheckSelection = {}): Promise<Evaluation> {
  return call<Evaluation>('evaluate', { collection, selection });
}

/** The file types the import reads, for the file dialog's filter. */
const IMPORTABLE_EXTENSIONS = ['txt', 'md', 'html', 'htm', 'jsonl', 'csv'];

/** Lets the user pick files (or, with `folders`, folders) to import; [] if they cancel. */
export async function chooseImportSources(folders: boolean): Promise<string[]> {
  try {
    const picked = await open({
      title: folders ? 'Folders to import' : 'Files to import',
      multiple: true,
      directory: folders,
      filters: folders ? undefined : [{ name: 'Documents', extensions: IMPORTABLE_EXTENSIONS }],
    });
    return picked ?? [];
  } catch (error) {
    throw asCommandError(error);
  }
}

/** The claims files `import_claims` reads, for the file dialog's filter. */
const CLAIM_FILE_EXTENSIONS = ['csv', 'jsonl', 'ndjson', 'txt'];

/** Lets the user pick one claims file; null if they cancel. */
export async function chooseClaimsFile(): Promise<string | null> {
  try {
    return await open({
      title: 'Claims file to import',
      multiple: false,
      directory: false,
      filters: [{ name: 'Claims', extensions: CLAIM_FILE_EXTENSIONS }],
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
