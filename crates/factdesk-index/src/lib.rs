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

mod analyzer;

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use factdesk_model::{CorpusId, DocumentId, SentenceId};
use serde::Serialize;
use tantivy::collector::TopDocs;
use tantivy::directory::MmapDirectory;
use tantivy::query::{BooleanQuery, Occur, Query, QueryParser, TermSetQuery};
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::snippet::SnippetGenerator;
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, Term, doc};

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
}

/// A search over sentences.
#[derive(Debug, Clone)]
pub struct SentenceQuery {
    pub text: String,
    /// Search `text` as plain words, without query syntax: for text that is not a query (a
    /// claim), where "NOT" or "-40" must not exclude sentences.
    pub plain: bool,
    /// Hits to return, at most [`MAX_HITS`].
    pub limit: usize,
    /// Only these corpora (empty: all).
    pub corpora: Vec<CorpusId>,
    /// Only these documents (empty: all).
    pub documents: Vec<DocumentId>,
    /// The longest snippet, in characters.
    pub snippet_chars: usize,
}

/// The most hits one search returns (the search reserves room for the limit up front).
pub const MAX_HITS: usize = 10_000;

/// Opening parentheses beyond which a query is searched as plain words: the query parser
/// recurses once per level.
const MAX_QUERY_NESTING: usize = 32;

/// One matching sentence, best first.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SentenceHit {
    pub sentence_id: SentenceId,
    pub document_id: DocumentId,
    pub corpus_id: CorpusId,
    pub score: f32,
}

/// A snippet of a hit's text with the matched words marked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Snippet {
    /// The whole sentence, or its best part when it is longer than the limit.
    pub text: String,
    /// Byte ranges of the matched words within `text`.
    pub highlights: Vec<Range<usize>>,
}

/// The hits of one search, and what it takes to highlight them.
pub struct SentenceSearch {
    pub hits: Vec<SentenceHit>,
    snippets: SnippetGenerator,
    snippet_chars: usize,
}

impl std::fmt::Debug for SentenceSearch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SentenceSearch").field("hits", &self.hits).finish_non_exhaustive()
    }
}

impl SentenceSearch {
    /// Highlights the query's words in `text` (a hit's sentence): the whole sentence when it
    /// fits the snippet limit, else its best-matching part.
    ///
    /// Matched function words ("the", "of", …) count for ranking but are not marked: marking
    /// them would bury the words that carry the match.
    pub fn snippet(&self, text: &str) -> Snippet {
        let snippet = self.snippets.snippet(text);
        let mut result = if text.chars().count() <= self.snippet_chars {
            let shift = snippet.fragment_range().start;
            let highlights =
                snippet.highlighted().iter().map(|r| r.start + shift..r.end + shift).collect();
            Snippet { text: text.to_owned(), highlights }
        } else if snippet.fragment().is_empty() {
            let cut = text.char_indices().nth(self.snippet_chars).map_or(text.len(), |(i, _)| i);
            Snippet { text: text[..cut].to_owned(), highlights: Vec::new() }
        } else {
            Snippet {
                text: snippet.fragment().to_owned(),
                highlights: snippet.highlighted().to_vec(),
            }
        };
        let Snippet { text, highlights } = &mut result;
        highlights.retain(|range| !is_function_word(&text[range.clone()]));
        result
    }
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

    /// Takes the index's write lock, waiting while another process holds it.
    pub fn writer(&self) -> Result<SentenceIndexWriter<'_>> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(4);
        let memory = self.writer_memory_bytes.max((threads * 16) << 20);
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
    /// -excluded) unless `query.plain`; text that does not parse as a query is searched as
    /// plain words, so any pasted text works.
    pub fn search(&self, query: &SentenceQuery) -> Result<SentenceSearch> {
        let searcher = self.reader.searcher();
        let parser = QueryParser::for_index(&self.index, vec![self.fields.text]);
        let words = || parser.parse_query_lenient(&plain_words(&query.text)).0;
        let text_query = if !has_query_syntax(&query.text) {
            // Words alone: their union, without the commonest words, whose posting lists are
            // the longest and move BM25 scores least (all of them when nothing else is left).
            parser.parse_query_lenient(&content_words(&query.text)).0
        } else if query.plain || query.text.matches('(').count() > MAX_QUERY_NESTING {
            words()
        } else {
            // Pasted text that is not query syntax: search its words.
            parser.parse_query(&query.text).unwrap_or_else(|_| words())
        };
        let mut has_terms = false;
        text_query.query_terms(&mut |_, _| has_terms = true);
        if !has_terms {
            return Err(IndexError::EmptyQuery { query: query.text.clone() });
        }
        // Without filters the text query runs alone: a union of words then ranks by block-max
        // WAND, skipping blocks that cannot reach the top hits; wrapped in a boolean query of
        // one clause it would score every sentence that has any of the words.
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
        let combined: Box<dyn Query> = if clauses.len() == 1 {
            text_query.box_clone()
        } else {
            Box::new(BooleanQuery::new(clauses))
        };
        let top = searcher
            .search(
                &*combined,
                &TopDocs::with_limit(query.limit.clamp(1, MAX_HITS)).order_by_score(),
            )
            .map_err(self.wrap())?;
        // Each segment's id columns are opened once, however many hits it has.
        let mut columns: Vec<(u32, [tantivy::columnar::Column<u64>; 3])> = Vec::new();
        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            let position = match columns.iter().position(|(ord, _)| *ord == address.segment_ord) {
                Some(position) => position,
                None => {
                    let fast = searcher.segment_reader(address.segment_ord).fast_fields();
                    let open = |name: &str| fast.u64(name).map_err(self.wrap());
                    columns.push((
                        address.segment_ord,
                        [open("sentence_id")?, open("document_id")?, open("corpus_id")?],
                    ));
                    columns.len() - 1
                }
            };
            let [sentence, document, corpus] = &columns[position].1;
            let read = |column: &tantivy::columnar::Column<u64>| {
                column.first(address.doc_id).unwrap_or_default() as i64
            };
            hits.push(SentenceHit {
                sentence_id: SentenceId(read(sentence)),
                document_id: DocumentId(read(document)),
                corpus_id: CorpusId(read(corpus)),
                score,
            });
        }
        let mut snippets = SnippetGenerator::create(&searcher, &*text_query, self.fields.text)
            .map_err(self.wrap())?;
        snippets.set_max_num_chars(query.snippet_chars.max(40));
        Ok(SentenceSearch { hits, snippets, snippet_chars: query.snippet_chars.max(40) })
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

/// English words too common to be worth marking in a snippet.
const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "he", "her",
    "his", "in", "is", "it", "its", "of", "on", "or", "she", "that", "the", "their", "they",
    "this", "to", "was", "were", "which", "who", "with",
];

/// The commonest English words: in most sentences, so their posting lists are the longest.
const COMMON_WORDS: &[&str] = &["a", "an", "and", "in", "of", "the", "to"];

fn is_common_word(word: &str) -> bool {
    COMMON_WORDS.iter().any(|candidate| candidate.eq_ignore_ascii_case(word))
}

fn is_function_word(word: &str) -> bool {
    FUNCTION_WORDS.iter().any(|candidate| candidate.eq_ignore_ascii_case(word))
}

/// Whether `text` uses query syntax: a phrase, a required or excluded word, a field, a group,
/// a boost or fuzziness, a range, or an operator word.
fn has_query_syntax(text: &str) -> bool {
    text.contains(['"', '+', ':', '(', ')', '^', '~', '*', '[', ']', '{', '}', '!', '\\'])
        || text
            .split_whitespace()
            .any(|word| word.starts_with('-') || matches!(word, "AND" | "OR" | "NOT" | "IN"))
}

/// The words of plain `text` without function words, or all of them when only function words
/// are there.
fn content_words(text: &str) -> String {
    let words = plain_words(text);
    let content: Vec<&str> = words.split(' ').filter(|word| !is_common_word(word)).collect();
    if content.is_empty() { words } else { content.join(" ") }
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

    fn record(sentence: i64, document: i64, corpus: i64, text: &str) -> SentenceRecord<'_> {
        SentenceRecord {
            sentence_id: SentenceId(sentence),
            document_id: DocumentId(document),
            corpus_id: CorpusId(corpus),
            text,
        }
    }

    fn text_of(id: SentenceId) -> &'static str {
        TEXTS.iter().find(|row| row.0 == id.0).map(|row| row.3).unwrap()
    }

    fn query(text: &str) -> SentenceQuery {
        SentenceQuery {
            plain: false,
            text: text.into(),
            limit: 10,
            corpora: Vec::new(),
            documents: Vec::new(),
            snippet_chars: 200,
        }
    }

    fn ids(search: &SentenceSearch) -> Vec<i64> {
        search.hits.iter().map(|hit| hit.sentence_id.0).collect()
    }

    fn fixture() -> SentenceIndex {
        let index = SentenceIndex::create_in_ram().unwrap();
        let mut writer = index.writer().unwrap();
        for &(sentence, document, corpus, text) in TEXTS {
            writer.add(record(sentence, document, corpus, text)).unwrap();
        }
        writer.finish().unwrap();
        index
    }

    #[test]
    fn search_finds_the_sentence_and_highlights_it() {
        let index = fixture();
        let search = index.search(&query("flowering okra")).unwrap();
        let top = search.hits[0];
        assert_eq!(
            (top.sentence_id, top.document_id, top.corpus_id),
            (SentenceId(1), DocumentId(10), CorpusId(1))
        );
        let snippet = search.snippet(text_of(top.sentence_id));
        assert_eq!(snippet.text, "Okra is a flowering plant in the mallow family.");
        let marked: Vec<&str> =
            snippet.highlights.iter().map(|range| &snippet.text[range.clone()]).collect();
        assert_eq!(marked, ["Okra", "flowering"]);

        let search = index.search(&query("the okra is in a family")).unwrap();
        let snippet = search.snippet(text_of(SentenceId(1)));
        let marked: Vec<&str> =
            snippet.highlights.iter().map(|range| &snippet.text[range.clone()]).collect();
        assert_eq!(marked, ["Okra", "family"]);

        let short =
            index.search(&SentenceQuery { snippet_chars: 40, ..query("mallow family") }).unwrap();
        let snippet = short.snippet(text_of(SentenceId(1)));
        assert!(snippet.text.chars().count() <= 40, "{snippet:?}");
        assert!(!snippet.highlights.is_empty(), "{snippet:?}");
    }

    #[test]
    fn the_commonest_words_of_a_word_query_are_not_searched_unless_nothing_else_is_there() {
        let index = fixture();
        // "in" and "the" would match three sentences; without them, only okra's matches.
        assert_eq!(ids(&index.search(&query("okra in the")).unwrap()), [1]);
        // A query of common words alone searches them.
        assert_eq!(ids(&index.search(&query("the")).unwrap()), [3, 1]);
        // Query syntax keeps every word: a phrase, or a required word.
        assert_eq!(ids(&index.search(&query("\"in the mallow\"")).unwrap()), [1]);
        // (+in requires "in", which three sentences have.)
        assert_eq!(ids(&index.search(&query("okra +in")).unwrap()), [1, 4, 3]);
        assert_eq!(content_words("The Okra, in a family!"), "Okra family");
        assert!(!has_query_syntax("The okra's pods are green, it said."));
        assert!(has_query_syntax("pods (not) green") && has_query_syntax("mallow OR okra"));
        assert!(has_query_syntax("okra -mallow") && !has_query_syntax("well-known okra"));
    }

    #[test]
    fn chinese_and_japanese_words_are_found_inside_unspaced_text() {
        let index = SentenceIndex::create_in_ram().unwrap();
        let mut writer = index.writer().unwrap();
        writer.add(record(21, 30, 1, "埃菲尔铁塔位于法国巴黎，建于1889年。")).unwrap();
        writer.add(record(22, 31, 1, "東京タワーは東京都港区にある電波塔です。")).unwrap();
        writer.add(record(23, 32, 1, "The Eiffel Tower is in Paris.")).unwrap();
        writer.finish().unwrap();
        assert_eq!(ids(&index.search(&query("巴黎")).unwrap()), [21]);
        assert_eq!(ids(&index.search(&query("埃菲尔铁塔")).unwrap()), [21]);
        assert_eq!(ids(&index.search(&query("東京タワー")).unwrap()), [22]);
        // A query's characters are searched together, in their order.
        assert!(index.search(&query("黎巴")).unwrap().hits.is_empty());
        assert_eq!(ids(&index.search(&query("Paris 巴黎")).unwrap()).len(), 2);
        let search = index.search(&query("铁塔")).unwrap();
        let snippet = search.snippet("埃菲尔铁塔位于法国巴黎，建于1889年。");
        let marked: Vec<&str> =
            snippet.highlights.iter().map(|range| &snippet.text[range.clone()]).collect();
        assert_eq!(marked, ["铁塔"]);
    }

    #[test]
    fn stemming_and_phrases_work() {
        let index = fixture();
        assert_eq!(ids(&index.search(&query("completing towers")).unwrap())[0], 3);
        assert_eq!(ids(&index.search(&query("\"Eiffel Tower\"")).unwrap()), [3]);
        assert!(index.search(&query("\"Tower Eiffel\"")).unwrap().hits.is_empty());
    }

    #[test]
    fn filters_limit_to_corpora_and_documents() {
        let index = fixture();
        assert_eq!(ids(&index.search(&query("mallow")).unwrap()).len(), 2);
        let in_corpus =
            index.search(&SentenceQuery { corpora: vec![CorpusId(2)], ..query("mallow") }).unwrap();
        assert_eq!(ids(&in_corpus), [4]);
        let in_document = index
            .search(&SentenceQuery { documents: vec![DocumentId(10)], ..query("mallow") })
            .unwrap();
        assert_eq!(ids(&in_document), [1]);
    }

    #[test]
    fn an_unfiltered_search_ranks_as_one_filtered_to_every_corpus() {
        // Unfiltered word queries take block-max WAND; filtered ones a boolean query.
        let index = fixture();
        let words = query("mallow plant okra family warm 1889");
        let all = index.search(&words).unwrap();
        let every = SentenceQuery { corpora: vec![CorpusId(1), CorpusId(2)], ..words };
        let filtered = index.search(&every).unwrap();
        assert_eq!(ids(&all), [1, 4, 3]);
        assert_eq!(ids(&all), ids(&filtered));
        // The filter clause adds the same constant to every score; the BM25 parts agree.
        let offset = filtered.hits[0].score - all.hits[0].score;
        for (a, b) in all.hits.iter().zip(&filtered.hits) {
            assert!((b.score - a.score - offset).abs() < 1e-4, "{a:?} {b:?}");
        }
    }

    #[test]
    fn pasted_text_with_syntax_characters_still_searches() {
        let index = fixture();
        assert_eq!(ids(&index.search(&query("\"Eiffel (tower AND: 1889")).unwrap())[0], 3);
        assert!(matches!(index.search(&query("  ")), Err(IndexError::EmptyQuery { .. })));
        assert!(matches!(index.search(&query("!!! ???")), Err(IndexError::EmptyQuery { .. })));
    }

    #[test]
    fn plain_queries_exclude_nothing_and_odd_queries_do_not_break_the_search() {
        let index = fixture();
        // As a query, "-mallow" excludes sentences; as plain words it finds them.
        assert!(index.search(&query("plants -mallow")).unwrap().hits.is_empty());
        let plain = SentenceQuery { plain: true, ..query("plants -mallow") };
        assert_eq!(ids(&index.search(&plain).unwrap())[0], 4);
        let claim = SentenceQuery { plain: true, ..query("Okra is NOT in the mallow family") };
        assert!(ids(&index.search(&claim).unwrap()).contains(&1));
        // Deep nesting is searched as words; a huge limit is capped, not allocated.
        let nested = format!("{}okra", "(".repeat(5000));
        assert_eq!(ids(&index.search(&query(&nested)).unwrap()), [1]);
        let all = SentenceQuery { limit: usize::MAX, ..query("mallow") };
        assert_eq!(ids(&index.search(&all).unwrap()).len(), 2);
    }

    #[test]
    fn deleting_a_document_removes_its_sentences() {
        let index = fixture();
        let mut writer = index.writer().unwrap();
        writer.delete_document(DocumentId(10));
        writer.finish().unwrap();
        assert_eq!(index.sentence_ids().unwrap(), [SentenceId(3), SentenceId(4)]);
        assert!(index.search(&query("okra")).unwrap().hits.is_empty());
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
        assert_eq!(ids(&index.search(&query("persisted")).unwrap()), [1]);
    }
}
