// Summaries: structured ones scored with SGSS, and summaries of several sources written with
// TTS (or a baseline), their sources' reviews and their reports.

import { PAGE_REPORT_FORMATS } from '../bindings/ReportFormats';
import type { QuestionScores } from '../bindings/QuestionScores';
import type { SourceReview } from '../bindings/SourceReview';
import type { StoredOutcome } from '../bindings/StoredOutcome';
import type { SummarizeInput } from '../bindings/SummarizeInput';
import type { SummaryQuestion } from '../bindings/SummaryQuestion';
import type { SummaryRun } from '../bindings/SummaryRun';
import type { SummaryView } from '../bindings/SummaryView';
import type { TaskProgress } from '../bindings/TaskProgress';
import { call, startTask, type RunningTask } from './transport';

/** A format of the one-page reports. */
export type PageReportFormat = (typeof PAGE_REPORT_FORMATS)[number];

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
