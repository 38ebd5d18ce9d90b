// Passages and their revisions (RARR, CoVe): correcting a text, and people's decisions on the
// edits.

import type { Passage } from '../bindings/Passage';
import type { ReviewedRevision } from '../bindings/ReviewedRevision';
import type { ReviseRequest } from '../bindings/ReviseRequest';
import { call } from './transport';

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
