// The one module that talks to the Rust shell. Every command of `src-tauri/src/lib.rs` has a
// typed wrapper here; the rest of the UI imports these and never calls `invoke()` itself.

import { invoke } from '@tauri-apps/api/core';

/** What a failed command rejects with: the core's stable code and a readable message. */
export interface CommandError {
  code: string;
  message: string;
}

export interface AppInfo {
  version: string;
  data_dir: string;
}

export interface Corpus {
  id: number;
  name: string;
  description: string | null;
  created_at: string;
  document_count: number;
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

/** Turns whatever a rejected `invoke()` gives into a `CommandError`. */
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

export function searchSentences(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
  return call<SearchHit[]>('search_sentences', {
    query,
    limit: options.limit ?? null,
    corpora: options.corpora ?? [],
  });
}
