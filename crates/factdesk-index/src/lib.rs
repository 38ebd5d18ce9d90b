//! The sentence index: BM25 over every stored sentence, with corpus and document filters and
//! highlighted snippets. This is the only crate that imports tantivy.
//!
//! The index is derived data. SQLite is the source of truth; this crate never decides what a
//! document or sentence is, it only indexes the records it is given and answers queries with
//! sentence ids, scores and snippets. It can be deleted and rebuilt at any time.
//!
//! One process at a time may write (tantivy keeps a lock file); [`SentenceIndex::writer`]
//! waits for a writer held by another Factdesk process to finish instead of failing at once.
//! Readers in every process see each commit shortly after it lands.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use factdesk_model::{CorpusId, DocumentId, SentenceId};
use serde::Serialize;
use tantivy::collector::TopDocs;
use tantivy::directory::MmapDirectory;
use tantivy::query::{BooleanQuery, Occur, Query, QueryParser, TermSetQuery};
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::snippet::SnippetGenerator;
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term, doc};

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
}

/// A search over sentences.
#[derive(Debug, Clone)]
pub struct SentenceQuery {
    pub text: String,
    pub limit: usize,
    /// Only these corpora (empty: all).
    pub corpora: Vec<CorpusId>,
    /// Only these documents (empty: all).
    pub documents: Vec<DocumentId>,
    /// The longest snippet, in characters.
    pub snippet_chars: usize,
}

/// One matching sentence, best first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SentenceHit {
    pub sentence_id: SentenceId,
    pub document_id: DocumentId,
    pub corpus_id: CorpusId,
    pub score: f32,
    /// The snippet: the whole sentence, or its best part when it is longer than the limit.
    pub snippet: String,
    /// Byte ranges of the matched words within `snippet`.
    pub highlights: Vec<Range<usize>>,
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
    let sentence_id = builder.add_u64_field("sentence_id", INDEXED | STORED | FAST);
    let document_id = builder.add_u64_field("document_id", INDEXED | STORED | FAST);
    let corpus_id = builder.add_u64_field("corpus_id", INDEXED | STORED | FAST);
    let text_options = TextOptions::default()
        .set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer("en_stem")
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        )
        .set_stored();
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

/// How long [`SentenceIndex::writer`] waits for another process's writer.
const WRITER_WAIT: Duration = Duration::from_secs(60);

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
        let index = Index::open_or_create(mmap, schema)
            .map_err(|source| IndexError::Tantivy { path: display.clone(), source })?;
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

    /// Takes the index's write lock, waiting while another process holds it.
    pub fn writer(&self) -> Result<SentenceIndexWriter<'_>> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(4);
        let memory = self.writer_memory_bytes.max(threads * 16 << 20);
        let started = Instant::now();
        let mut pause = Duration::from_millis(20);
        loop {
            match self.index.writer_with_num_threads(threads, memory) {
                Ok(writer) => return Ok(SentenceIndexWriter { index: self, writer }),
                Err(tantivy::TantivyError::LockFailure(..)) if started.elapsed() < WRITER_WAIT => {
                    tracing::debug!("search index is locked by another writer; waiting");
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(500));
                }
                Err(tantivy::TantivyError::LockFailure(..)) => {
                    return Err(IndexError::WriterBusy {
                        path: self.display_path(),
                        waited_secs: WRITER_WAIT.as_secs(),
                    });
                }
                Err(source) => return Err(self.wrap()(source)),
            }
        }
    }

    /// Makes the latest commit (of any process) visible to searches now.
    pub fn refresh(&self) -> Result<()> {
        self.reader.reload().map_err(self.wrap())
    }

    /// Number of sentences in the index.
    pub fn sentence_count(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Searches sentences by BM25. Query syntax is tantivy's (words, "phrases", +required,
    /// -excluded); syntax errors are forgiven rather than reported, so any pasted text works.
    pub fn search(&self, query: &SentenceQuery) -> Result<Vec<SentenceHit>> {
        let searcher = self.reader.searcher();
        let parser = QueryParser::for_index(&self.index, vec![self.fields.text]);
        let text_query = match parser.parse_query(&query.text) {
            Ok(parsed) => parsed,
            // Pasted text is not query syntax: search its words.
            Err(_) => parser.parse_query_lenient(&plain_words(&query.text)).0,
        };
        let mut has_terms = false;
        text_query.query_terms(&mut |_, _| has_terms = true);
        if !has_terms {
            return Err(IndexError::EmptyQuery { query: query.text.clone() });
        }
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, text_query.box_clone())];
        if !query.corpora.is_empty() {
            let terms = query
                .corpora
                .iter()
                .map(|c| Term::from_field_u64(self.fields.corpus_id, c.0 as u64));
            clauses.push((Occur::Must, Box::new(TermSetQuery::new(terms))));
        }
        if !query.documents.is_empty() {
            let terms = query
                .documents
                .iter()
                .map(|d| Term::from_field_u64(self.fields.document_id, d.0 as u64));
            clauses.push((Occur::Must, Box::new(TermSetQuery::new(terms))));
        }
        let combined = BooleanQuery::new(clauses);
        let top = searcher
            .search(&combined, &TopDocs::with_limit(query.limit.max(1)).order_by_score())
            .map_err(self.wrap())?;
        let mut snippets = SnippetGenerator::create(&searcher, &*text_query, self.fields.text)
            .map_err(self.wrap())?;
        snippets.set_max_num_chars(query.snippet_chars.max(40));
        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            let stored: TantivyDocument = searcher.doc(address).map_err(self.wrap())?;
            let get_u64 =
                |field| stored.get_first(field).and_then(|v| v.as_u64()).unwrap_or_default();
            let snippet = snippets.snippet_from_doc(&stored);
            let text =
                stored.get_first(self.fields.text).and_then(|v| v.as_str()).unwrap_or_default();
            let (text, highlights) = if text.chars().count() <= query.snippet_chars {
                // The whole sentence fits: show all of it, with the highlights moved to match.
                let shift = snippet.fragment_range().start;
                let ranges =
                    snippet.highlighted().iter().map(|r| r.start + shift..r.end + shift).collect();
                (text.to_owned(), ranges)
            } else if snippet.fragment().is_empty() {
                let cut =
                    text.char_indices().nth(query.snippet_chars).map_or(text.len(), |(i, _)| i);
                (text[..cut].to_owned(), Vec::new())
            } else {
                (snippet.fragment().to_owned(), snippet.highlighted().to_vec())
            };
            hits.push(SentenceHit {
                sentence_id: SentenceId(get_u64(self.fields.sentence_id) as i64),
                document_id: DocumentId(get_u64(self.fields.document_id) as i64),
                corpus_id: CorpusId(get_u64(self.fields.corpus_id) as i64),
                score,
                snippet: text,
                highlights,
            });
        }
        Ok(hits)
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

/// The words of `text` with every query-syntax character and operator neutralised.
fn plain_words(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(|word| {
            if matches!(word, "AND" | "OR" | "NOT" | "IN") {
                word.to_lowercase()
            } else {
                word.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The index's write lock with pending changes; nothing is visible until [`commit`].
///
/// [`commit`]: SentenceIndexWriter::commit
pub struct SentenceIndexWriter<'a> {
    index: &'a SentenceIndex,
    writer: IndexWriter,
}

impl std::fmt::Debug for SentenceIndexWriter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SentenceIndexWriter").finish_non_exhaustive()
    }
}

impl SentenceIndexWriter<'_> {
    /// Queues one sentence.
    pub fn add(&mut self, record: SentenceRecord<'_>) -> Result<()> {
        let fields = self.index.fields;
        self.writer
            .add_document(doc!(
                fields.sentence_id => record.sentence_id.0 as u64,
                fields.document_id => record.document_id.0 as u64,
                fields.corpus_id => record.corpus_id.0 as u64,
                fields.text => record.text,
            ))
            .map_err(self.index.wrap())?;
        Ok(())
    }

    /// Queues the removal of every sentence of a document.
    pub fn delete_document(&mut self, document: DocumentId) {
        self.writer
            .delete_term(Term::from_field_u64(self.index.fields.document_id, document.0 as u64));
    }

    /// Queues the removal of everything.
    pub fn delete_all(&mut self) -> Result<()> {
        self.writer.delete_all_documents().map_err(self.index.wrap())?;
        Ok(())
    }

    /// Makes the queued changes durable and visible to this process's searches.
    pub fn commit(&mut self) -> Result<()> {
        self.writer.commit().map_err(self.index.wrap())?;
        self.index.refresh()
    }

    /// Drops the queued changes.
    pub fn rollback(&mut self) -> Result<()> {
        self.writer.rollback().map_err(self.index.wrap())?;
        Ok(())
    }

    /// Commits and waits for the indexing threads to finish, releasing the lock.
    pub fn finish(mut self) -> Result<()> {
        self.commit()?;
        self.writer.wait_merging_threads().map_err(self.index.wrap())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(sentence: i64, document: i64, corpus: i64, text: &str) -> SentenceRecord<'_> {
        SentenceRecord {
            sentence_id: SentenceId(sentence),
            document_id: DocumentId(document),
            corpus_id: CorpusId(corpus),
            text,
        }
    }

    fn query(text: &str) -> SentenceQuery {
        SentenceQuery {
            text: text.into(),
            limit: 10,
            corpora: Vec::new(),
            documents: Vec::new(),
            snippet_chars: 200,
        }
    }

    fn fixture() -> SentenceIndex {
        let index = SentenceIndex::create_in_ram().unwrap();
        let mut writer = index.writer().unwrap();
        writer.add(record(1, 10, 1, "Okra is a flowering plant in the mallow family.")).unwrap();
        writer.add(record(2, 10, 1, "It is valued for its edible green seed pods.")).unwrap();
        writer.add(record(3, 11, 1, "The Eiffel Tower was completed in 1889.")).unwrap();
        writer.add(record(4, 12, 2, "Mallow plants grow in warm climates.")).unwrap();
        writer.finish().unwrap();
        index
    }

    #[test]
    fn search_finds_the_sentence_with_highlights() {
        let index = fixture();
        let hits = index.search(&query("flowering okra")).unwrap();
        assert_eq!(hits[0].sentence_id, SentenceId(1));
        assert_eq!(hits[0].snippet, "Okra is a flowering plant in the mallow family.");
        let highlighted: Vec<&str> =
            hits[0].highlights.iter().map(|range| &hits[0].snippet[range.clone()]).collect();
        assert_eq!(highlighted, ["Okra", "flowering"]);
        let short =
            index.search(&SentenceQuery { snippet_chars: 40, ..query("mallow family") }).unwrap();
        let snippet = &short[0].snippet;
        assert!(snippet.chars().count() <= 40, "{snippet}");
        assert!(!short[0].highlights.is_empty(), "{snippet}");
    }

    #[test]
    fn stemming_matches_word_forms() {
        let index = fixture();
        let hits = index.search(&query("completing towers")).unwrap();
        assert_eq!(hits[0].sentence_id, SentenceId(3));
    }

    #[test]
    fn filters_limit_to_corpora_and_documents() {
        let index = fixture();
        let all: Vec<_> =
            index.search(&query("mallow")).unwrap().iter().map(|h| h.sentence_id.0).collect();
        assert_eq!(all.len(), 2);
        let in_corpus =
            index.search(&SentenceQuery { corpora: vec![CorpusId(2)], ..query("mallow") }).unwrap();
        assert_eq!(in_corpus.iter().map(|h| h.sentence_id.0).collect::<Vec<_>>(), [4]);
        let in_document = index
            .search(&SentenceQuery { documents: vec![DocumentId(10)], ..query("mallow") })
            .unwrap();
        assert_eq!(in_document.iter().map(|h| h.sentence_id.0).collect::<Vec<_>>(), [1]);
    }

    #[test]
    fn pasted_text_with_syntax_characters_still_searches() {
        let index = fixture();
        let hits = index.search(&query("\"Eiffel (tower AND: 1889")).unwrap();
        assert_eq!(hits[0].sentence_id, SentenceId(3));
        assert!(matches!(index.search(&query("  ")), Err(IndexError::EmptyQuery { .. })));
        assert!(matches!(index.search(&query("!!! ???")), Err(IndexError::EmptyQuery { .. })));
    }

    #[test]
    fn deleting_a_document_removes_its_sentences() {
        let index = fixture();
        let mut writer = index.writer().unwrap();
        writer.delete_document(DocumentId(10));
        writer.finish().unwrap();
        assert_eq!(index.sentence_ids().unwrap(), [SentenceId(3), SentenceId(4)]);
        assert!(index.search(&query("okra")).unwrap().is_empty());
    }

    #[test]
    fn rollback_discards_queued_sentences() {
        let index = fixture();
        let mut writer = index.writer().unwrap();
        writer.add(record(5, 13, 1, "Rolled back sentence.")).unwrap();
        writer.rollback().unwrap();
        writer.finish().unwrap();
        assert_eq!(index.sentence_count(), 4);
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
        assert_eq!(index.search(&query("persisted")).unwrap()[0].sentence_id, SentenceId(1));
    }
}
