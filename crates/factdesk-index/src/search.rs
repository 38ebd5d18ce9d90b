//! Searching the index: the query, its hits and their snippets. A query of plain words leaves
//! out the commonest English words unless nothing else is left; query syntax is tantivy's,
//! and text that does not parse as a query is searched as plain words; corpus and document
//! filters; snippets mark the matched words but not function words.

use std::ops::Range;

use factdesk_model::{CorpusId, DocumentId, SentenceId};
use serde::Serialize;
use tantivy::Term;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, QueryParser, TermSetQuery};
use tantivy::snippet::SnippetGenerator;
use tantivy::tokenizer::TokenizerManager;

use crate::{IndexError, Result, SentenceIndex, analyzer};

/// A search over sentences.
#[derive(Debug, Clone)]
pub struct SentenceQuery {
    pub text: String,
    /// The language the query is analysed in, an ISO 639-1 code (`en`, `de`): what it
    /// searches is in that language (a claim's, or the corpus's).
    pub language: String,
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

impl SentenceIndex {
    /// Searches sentences by BM25. Query syntax is tantivy's (words, "phrases", +required,
    /// -excluded) unless `query.plain`; text that does not parse as a query is searched as
    /// plain words, so any pasted text works.
    pub fn search(&self, query: &SentenceQuery) -> Result<SentenceSearch> {
        let searcher = self.reader.searcher();
        let english = analyzer::is_english(&query.language);
        let parser = if english {
            QueryParser::for_index(&self.index, vec![self.fields.text])
        } else {
            // The field's analyzer replaced by the query language's.
            let tokenizers = TokenizerManager::new();
            tokenizers.register(analyzer::NAME, analyzer::for_language(&query.language));
            QueryParser::new(self.index.schema(), vec![self.fields.text], tokenizers)
        };
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
        if !english {
            // The hits' words are found in the query's language, as the query's were.
            let mut terms = std::collections::BTreeMap::new();
            let mut failed = None;
            text_query.query_terms(&mut |term, _| {
                let value = term.value();
                let Some(word) = value.as_str() else { return };
                match searcher.doc_freq(term) {
                    Ok(0) => {}
                    Ok(count) => {
                        terms.insert(word.to_owned(), 1.0 / (1.0 + count as f32));
                    }
                    Err(error) => failed = Some(error),
                }
            });
            if let Some(error) = failed {
                return Err(self.wrap()(error));
            }
            let analyzer = analyzer::for_language(&query.language);
            snippets = SnippetGenerator::new(terms, analyzer, self.fields.text, 150);
        }
        snippets.set_max_num_chars(query.snippet_chars.max(40));
        Ok(SentenceSearch { hits, snippets, snippet_chars: query.snippet_chars.max(40) })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SentenceRecord;
    use crate::tests::{fixture, ids, query, record, text_of};

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
    fn sentences_and_queries_are_analysed_in_their_language() {
        let index = SentenceIndex::create_in_ram().unwrap();
        let mut writer = index.writer().unwrap();
        let sentences = [
            (31, "de", "Die Zugspitze ist mit 2962 Metern der höchste Berg Deutschlands."),
            (32, "fr", "La tour Eiffel mesure 330 mètres depuis 2022."),
            (33, "en", "The mountains near Bergen are green."),
            (34, "ru", "Москва является столицей России."),
        ];
        for (id, language, text) in sentences {
            writer.add(SentenceRecord { language, ..record(id, id, 1, text) }).unwrap();
        }
        writer.finish().unwrap();
        let search = |text: &str, language: &str| {
            let found = index.search(&SentenceQuery { language: language.into(), ..query(text) });
            ids(&found.unwrap())
        };
        // An inflected query finds the base form in the sentence's language.
        assert_eq!(search("Bergen", "de"), [31]);
        assert_eq!(search("mesurait", "fr"), [32]);
        assert_eq!(search("столица Москвы", "ru"), [34]);
        // Analysed as English, "Bergen" is the town's name, and "mesurait" nothing stored.
        assert_eq!(search("Bergen", "en"), [33]);
        assert!(search("mesurait", "en").is_empty());
        // The snippet marks the word in the query's language.
        let found =
            index.search(&SentenceQuery { language: "de".into(), ..query("Bergen") }).unwrap();
        let snippet = found.snippet(sentences[0].2);
        let marked: Vec<&str> =
            snippet.highlights.iter().map(|range| &snippet.text[range.clone()]).collect();
        assert_eq!(marked, ["Berg"]);
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
}
