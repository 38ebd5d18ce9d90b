//! The sentence index: BM25 over every stored sentence, with corpus and document filters and
//! highlighted snippets. This is the only crate that imports tantivy.
//!
//! The index is derived data. SQLite is the source of truth; this crate never decides what a
//! document or sentence is, it only indexes the records it is given and answers queries with
//! sentence ids and scores. It keeps no copy of the text (ids live in fast fields): the caller
//! brings each hit's text from SQLite and [`SentenceSearch::snippet`] highlights it. The index
//! can be deleted and rebuilt at any time.
//!
//! A query of plain words (no query syntax) leaves out the commonest English words ("the",
//! "of", …) unless nothing else is left: their posting lists are the longest and move BM25
//! scores least (on the HaluEval news sentences, search p95 1.6 ms instead of 2.7 ms with
//! recall@10 unchanged, `scripts/bench.sh`).
//!
//! One process at a time may write (tantivy keeps a lock file); [`SentenceIndex::writer`]
//! waits for a writer held by another Factdesk process to finish instead of failing at once.
//! Readers in every process see each commit shortly after it lands.
//!
//! Each sentence is analysed in its language, and a query in the language it is given in
//! ([`SentenceQuery::language`]): the language's Snowball stemmer where tantivy has one,
//! Chinese, Japanese and Korean in pairs of characters, other text lower-cased. One text field
//! holds every language: English sentences are analysed by the field's own analyzer (so an
//! English import costs what it did), the others' tokens are made by their language's analyzer
//! and handed over made. Words spelled alike in two languages meet (names, numbers).
//!
//! Files:
//! - `analyzer.rs`: the sentence field's analyzer (stems with a cache, CJK characters in pairs),
//!   and the other languages' analyzers;
//! - `search.rs`: queries, hits and snippets: the BM25 search with its filters and word rules;
//! - `writer.rs`: the write lock (waiting for another process) and the queued changes;
//! - `lib.rs` (this file): the errors, the schema, opening the index, the sentence ids it
//!   holds, and the analyzer token count for the benchmark.

mod analyzer;
mod search;
mod writer;

use std::path::{Path, PathBuf};

use factdesk_model::{CorpusId, DocumentId, SentenceId};
use tantivy::directory::MmapDirectory;
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::{Index, IndexReader, ReloadPolicy};

pub use search::{MAX_HITS, SentenceHit, SentenceQuery, SentenceSearch, Snippet};
pub use writer::SentenceIndexWriter;

/// Errors of the sentence index.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("search index error in {path}: {source}")]
    Tantivy {
        path: String,
        #[source]
        source: tantivy::TantivyError,
    },
    #[error(
        "another Factdesk process has been writing the search index in {path} for over {waited_secs} s; \
         wait for it to finish and try again"
    )]
    WriterBusy { path: String, waited_secs: u64 },
    #[error(
        "the search index in {path} was built with another layout (an older or newer Factdesk); \
         it must be rebuilt from the database"
    )]
    LayoutMismatch { path: String },
    #[error("the query '{query}' has no searchable words")]
    EmptyQuery { query: String },
    #[error("cannot open the search index folder {path}: {message}")]
    Open { path: String, message: String },
}

pub type Result<T, E = IndexError> = std::result::Result<T, E>;

/// One sentence to index.
#[derive(Debug, Clone, Copy)]
pub struct SentenceRecord<'a> {
    pub sentence_id: SentenceId,
    pub document_id: DocumentId,
    pub corpus_id: CorpusId,
    pub text: &'a str,
    /// The sentence's language (its document's), an ISO 639-1 code: its words are stemmed by
    /// that language's rules (see the analyzer).
    pub language: &'a str,
}

#[derive(Debug, Clone, Copy)]
struct Fields {
    sentence_id: Field,
    document_id: Field,
    corpus_id: Field,
    text: Field,
}

fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let sentence_id = builder.add_u64_field("sentence_id", FAST);
    let document_id = builder.add_u64_field("document_id", INDEXED | FAST);
    let corpus_id = builder.add_u64_field("corpus_id", INDEXED | FAST);
    let text_options = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(analyzer::NAME)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let text = builder.add_text_field("text", text_options);
    (builder.build(), Fields { sentence_id, document_id, corpus_id, text })
}

/// The sentence index of one data directory (or in memory, for tests).
pub struct SentenceIndex {
    index: Index,
    reader: IndexReader,
    fields: Fields,
    path: Option<PathBuf>,
    writer_memory_bytes: usize,
}

impl std::fmt::Debug for SentenceIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SentenceIndex").field("path", &self.path).finish_non_exhaustive()
    }
}

impl SentenceIndex {
    /// Opens the index in `directory`, creating it (and the folder) when absent.
    pub fn open_or_create(directory: &Path, writer_memory_bytes: usize) -> Result<SentenceIndex> {
        let display = directory.display().to_string();
        std::fs::create_dir_all(directory).map_err(|error| IndexError::Open {
            path: display.clone(),
            message: error.to_string(),
        })?;
        let mmap = MmapDirectory::open(directory).map_err(|error| IndexError::Open {
            path: display.clone(),
            message: error.to_string(),
        })?;
        let (schema, fields) = schema();
        let index = Index::open_or_create(mmap, schema).map_err(|source| match source {
            tantivy::TantivyError::SchemaError(_) => {
                IndexError::LayoutMismatch { path: display.clone() }
            }
            source => IndexError::Tantivy { path: display.clone(), source },
        })?;
        Self::finish(index, fields, Some(directory.to_path_buf()), writer_memory_bytes)
    }

    /// A fresh index in memory.
    pub fn create_in_ram() -> Result<SentenceIndex> {
        let (schema, fields) = schema();
        Self::finish(Index::create_in_ram(schema), fields, None, 32 << 20)
    }

    fn finish(
        index: Index,
        fields: Fields,
        path: Option<PathBuf>,
        writer_memory_bytes: usize,
    ) -> Result<SentenceIndex> {
        let display = path.as_ref().map_or("memory".to_owned(), |p| p.display().to_string());
        index.tokenizers().register(analyzer::NAME, analyzer::english());
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::OnCommitWithDelay)
            .try_into()
            .map_err(|source| IndexError::Tantivy { path: display, source })?;
        Ok(SentenceIndex { index, reader, fields, path, writer_memory_bytes })
    }

    fn display_path(&self) -> String {
        self.path.as_ref().map_or("memory".to_owned(), |p| p.display().to_string())
    }

    fn wrap(&self) -> impl Fn(tantivy::TantivyError) -> IndexError + '_ {
        move |source| IndexError::Tantivy { path: self.display_path(), source }
    }

    /// Makes the latest commit (of any process) visible to searches now.
    pub fn refresh(&self) -> Result<()> {
        self.reader.reload().map_err(self.wrap())
    }

    /// Number of sentences in the index.
    pub fn sentence_count(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Every sentence id in the index, ascending (with repeats if a sentence was indexed twice).
    pub fn sentence_ids(&self) -> Result<Vec<SentenceId>> {
        let searcher = self.reader.searcher();
        let mut ids = Vec::with_capacity(searcher.num_docs() as usize);
        for segment in searcher.segment_readers() {
            let column = segment.fast_fields().u64("sentence_id").map_err(self.wrap())?;
            for doc in segment.doc_ids_alive() {
                if let Some(id) = column.first(doc) {
                    ids.push(SentenceId(id as i64));
                }
            }
        }
        ids.sort_unstable();
        Ok(ids)
    }
}

/// Which analyzer [`count_tokens`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Analyzer {
    /// The sentence field's analyzer, with its stem cache (what imports and queries use).
    Sentences,
    /// tantivy's own `en_stem`, which gives the same tokens without the cache (for text
    /// without CJK characters).
    TantivyEnStem,
}

/// Runs every text through one analyzer, as an import would (one analyzer for all), and
/// returns how many tokens it gave: what `factdesk-bench analyzer` times.
pub fn count_tokens(texts: &[&str], analyzer: Analyzer) -> usize {
    let mut analyzer = match analyzer {
        Analyzer::Sentences => analyzer::english(),
        // tantivy's default manager always registers en_stem (the test below runs it).
        Analyzer::TantivyEnStem => tantivy::tokenizer::TokenizerManager::default()
            .get(analyzer::TANTIVY_EN_STEM)
            .expect("tantivy registers en_stem by default"),
    };
    let mut count = 0;
    for text in texts {
        analyzer.token_stream(text).process(&mut |_| count += 1);
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXTS: &[(i64, i64, i64, &str)] = &[
        (1, 10, 1, "Okra is a flowering plant in the mallow family."),
        (2, 10, 1, "It is valued for its edible green seed pods."),
        (3, 11, 1, "The Eiffel Tower was completed in 1889."),
        (4, 12, 2, "Mallow plants grow in warm climates."),
    ];

    #[test]
    fn both_benchmarked_analyzers_count_the_same_tokens() {
        let texts: Vec<&str> = TEXTS.iter().map(|(.., text)| *text).collect();
        let ours = count_tokens(&texts, Analyzer::Sentences);
        assert_eq!(ours, count_tokens(&texts, Analyzer::TantivyEnStem));
        // "Okra is a flowering plant in the mallow family." alone is nine words.
        assert_eq!(count_tokens(&texts[..1], Analyzer::Sentences), 9);
        assert_eq!(count_tokens(&[], Analyzer::Sentences), 0);
    }

    pub(crate) fn record(
        sentence: i64,
        document: i64,
        corpus: i64,
        text: &str,
    ) -> SentenceRecord<'_> {
        SentenceRecord {
            sentence_id: SentenceId(sentence),
            document_id: DocumentId(document),
            corpus_id: CorpusId(corpus),
            text,
            language: "en",
        }
    }

    pub(crate) fn text_of(id: SentenceId) -> &'static str {
        TEXTS.iter().find(|row| row.0 == id.0).map(|row| row.3).unwrap()
    }

    pub(crate) fn query(text: &str) -> SentenceQuery {
        SentenceQuery {
            plain: false,
            language: "en".into(),
            text: text.into(),
            limit: 10,
            corpora: Vec::new(),
            documents: Vec::new(),
            snippet_chars: 200,
        }
    }

    pub(crate) fn ids(search: &SentenceSearch) -> Vec<i64> {
        search.hits.iter().map(|hit| hit.sentence_id.0).collect()
    }

    pub(crate) fn fixture() -> SentenceIndex {
        let index = SentenceIndex::create_in_ram().unwrap();
        let mut writer = index.writer().unwrap();
        for &(sentence, document, corpus, text) in TEXTS {
            writer.add(record(sentence, document, corpus, text)).unwrap();
        }
        writer.finish().unwrap();
        index
    }

    #[test]
    fn index_on_disk_is_reopened() {
        let dir = tempfile::tempdir().unwrap();
        {
            let index = SentenceIndex::open_or_create(dir.path(), 32 << 20).unwrap();
            let mut writer = index.writer().unwrap();
            writer.add(record(1, 1, 1, "Persisted across opens.")).unwrap();
            writer.finish().unwrap();
        }
        let index = SentenceIndex::open_or_create(dir.path(), 32 << 20).unwrap();
        assert_eq!(ids(&index.search(&query("persisted")).unwrap()), [1]);
    }
}
