//! Sentence search through the core API over the demo corpus: expected hits with highlights,
//! filters, rebuilding the index, and the consistency check.

use std::sync::Arc;

use factdesk_core::search::{SearchHit, SearchRequest};
use factdesk_core::{CancelToken, NoProgress};
use factdesk_index::{SentenceIndex, SentenceRecord};
use factdesk_tests::{Harness, demo_corpus};

fn demo() -> Harness {
    let harness = Harness::new();
    let summary = harness.import(&[&demo_corpus().display().to_string()], "demo");
    assert!(summary.failures.is_empty(), "{:#?}", summary.failures);
    harness
}

fn search(harness: &Harness, query: &str) -> Vec<SearchHit> {
    harness.app.search(&SearchRequest { query: query.into(), ..SearchRequest::default() }).unwrap()
}

fn highlighted(hit: &SearchHit) -> Vec<&str> {
    hit.highlights.iter().map(|[start, end]| &hit.snippet[*start..*end]).collect()
}

#[test]
fn search_finds_the_expected_sentence_with_highlights() {
    let harness = demo();
    let hits = search(&harness, "who discovered penicillin");
    let top = &hits[0];
    assert_eq!(
        top.sentence,
        "The Scottish physician and microbiologist Alexander Fleming discovered penicillin in 1928 at St Mary's Hospital in London."
    );
    assert_eq!(top.snippet, top.sentence);
    assert_eq!(highlighted(top), ["discovered", "penicillin"]);
    assert_eq!(top.document_title.as_deref(), Some("How penicillin was found"));
    assert_eq!(top.corpus, "demo");
    assert!(top.document_origin.ends_with("penicillin.html"));

    let hits = search(&harness, "first summit Everest 1953");
    assert!(
        hits[0].sentence.starts_with("Edmund Hillary of New Zealand and Tenzing Norgay"),
        "{:?}",
        hits[0]
    );
    // Stemming: "bleached" finds "bleaching".
    let hits = search(&harness, "bleached");
    assert!(hits[0].sentence.contains("mass coral bleaching"), "{:?}", hits[0]);
}

#[test]
fn filters_limit_results() {
    let harness = demo();
    harness.import(&[&demo_corpus().join("okra.md").display().to_string()], "other");
    let all = search(&harness, "okra mallow");
    assert!(all.iter().any(|h| h.corpus == "other") && all.iter().any(|h| h.corpus == "demo"));
    let only_other = harness
        .app
        .search(&SearchRequest {
            query: "okra mallow".into(),
            corpora: vec!["other".into()],
            ..SearchRequest::default()
        })
        .unwrap();
    assert!(!only_other.is_empty() && only_other.iter().all(|h| h.corpus == "other"));
    let limited = harness
        .app
        .search(&SearchRequest { query: "the".into(), limit: Some(3), ..SearchRequest::default() })
        .unwrap();
    assert_eq!(limited.len(), 3);
    let document = all[0].document_id;
    let in_document = harness
        .app
        .search(&SearchRequest {
            query: "okra".into(),
            documents: vec![document],
            ..SearchRequest::default()
        })
        .unwrap();
    assert!(in_document.iter().all(|h| h.document_id == document));
    let unknown = harness
        .app
        .search(&SearchRequest {
            query: "okra".into(),
            corpora: vec!["nope".into()],
            ..SearchRequest::default()
        })
        .unwrap_err();
    assert_eq!(unknown.code(), "not_found");
    assert!(unknown.to_string().contains("'nope'"), "{unknown}");
}

/// A hit as a user sees it: the sentence, the snippet, the marked ranges.
type SeenHit = (i64, String, Vec<[usize; 2]>);

#[test]
fn reindex_gives_identical_results() {
    let harness = demo();
    let queries = [
        "penicillin Fleming",
        "tallest structure Paris",
        "Moon landing 1969",
        "hottest planet",
        "Nobel Prize chemistry",
    ];
    // What a user sees of each query's hits: which sentences, in which order, marked how.
    let results = || -> Vec<Vec<SeenHit>> {
        queries
            .iter()
            .map(|q| {
                search(&harness, q)
                    .into_iter()
                    .map(|h| (h.sentence_id.0, h.snippet, h.highlights))
                    .collect()
            })
            .collect()
    };
    let before = results();
    let summary = harness.app.reindex(Arc::new(NoProgress), CancelToken::new()).unwrap().unwrap();
    assert_eq!(summary.documents, 12);
    let after = results();
    assert_eq!(before, after);
    assert!(before.iter().all(|hits| !hits.is_empty()));
    assert!(harness.app.check_index().unwrap().consistent);
}

#[test]
fn the_check_finds_an_index_that_drifted_and_reindex_repairs_it() {
    let harness = demo();
    assert!(harness.app.check_index().unwrap().consistent);
    {
        // Another writer adds a sentence the database does not know.
        let index = SentenceIndex::open_or_create(
            &harness.dir.path().join(factdesk_core::INDEX_DIR),
            32 << 20,
        )
        .unwrap();
        let mut writer = index.writer().unwrap();
        writer
            .add(SentenceRecord {
                sentence_id: factdesk_core::model::SentenceId(999_999),
                document_id: factdesk_core::model::DocumentId(999),
                corpus_id: factdesk_core::model::CorpusId(1),
                text: "A sentence only the index has about penicillin.",
                language: "en",
            })
            .unwrap();
        writer.finish().unwrap();
    }
    let check = harness.app.check_index().unwrap();
    assert_eq!(check.orphaned_in_index, 1, "{check:?}");
    assert_eq!(check.examples, [factdesk_core::model::SentenceId(999_999)]);
    assert!(!check.consistent);
    // Searches never show a sentence the database lacks.
    assert!(search(&harness, "only the index has").iter().all(|h| h.sentence_id.0 != 999_999));

    harness.app.reindex(Arc::new(NoProgress), CancelToken::new()).unwrap();
    assert!(harness.app.check_index().unwrap().consistent);
}

#[test]
fn a_cancelled_reindex_keeps_the_old_index() {
    let harness = demo();
    let cancel = CancelToken::new();
    cancel.cancel();
    assert!(harness.app.reindex(Arc::new(NoProgress), cancel).unwrap().is_none());
    assert!(!search(&harness, "penicillin").is_empty());
    assert!(harness.app.check_index().unwrap().consistent);
}

#[test]
fn an_index_of_another_layout_is_rebuilt_on_open() {
    let Harness { dir, app } = demo();
    drop(app);
    // Make the index look as another version would leave it: a field of another name.
    let meta = dir.path().join(factdesk_core::INDEX_DIR).join("meta.json");
    let layout = std::fs::read_to_string(&meta).unwrap();
    assert!(layout.contains("\"sentence_id\""));
    std::fs::write(&meta, layout.replace("\"sentence_id\"", "\"sentence_key\"")).unwrap();

    let app =
        factdesk_core::Factdesk::open_with_settings(dir.path(), factdesk_core::Settings::default())
            .unwrap();
    let reopened = Harness { dir, app };
    assert!(reopened.app.check_index().unwrap().consistent);
    assert_eq!(
        search(&reopened, "who discovered penicillin")[0].document_title.as_deref(),
        Some("How penicillin was found")
    );
}

#[test]
fn chinese_text_is_found_by_its_words_and_an_index_of_the_old_analyzer_is_rebuilt() {
    let harness = Harness::new();
    let file = harness.dir.path().join("巴黎.txt");
    std::fs::write(&file, "埃菲尔铁塔位于法国巴黎。它建于1889年，高约330米。\n").unwrap();
    let summary = harness.import(&[&file.display().to_string()], "news");
    assert!(summary.failures.is_empty(), "{:#?}", summary.failures);
    for query in ["巴黎", "埃菲尔铁塔", "1889年"] {
        let hits = search(&harness, query);
        assert!(!hits.is_empty(), "{query}: no hit");
        assert!(hits[0].sentence.contains(query.trim_end_matches('年')), "{query}: {:?}", hits[0]);
    }
    assert_eq!(highlighted(&search(&harness, "铁塔")[0]), ["铁塔"]);

    // An index from before (tantivy's en_stem, a whole clause one token) is rebuilt on open.
    let reopened = reopen_with_old_analyzer(harness, "en_stem");
    assert!(search(&reopened, "巴黎")[0].sentence.contains("巴黎"));
}

#[test]
fn an_index_of_english_only_analysis_is_rebuilt_and_old_documents_get_their_language() {
    let harness = Harness::new();
    let file = harness.write("en.txt", b"The mountains near the city of Bergen are green.");
    harness.import(&[&file], "news");
    store_without_language(
        &harness,
        &["Die Zugspitze ist mit 2962 Metern der höchste Berg Deutschlands."],
    );
    let reopened = reopen_with_old_analyzer(harness, "factdesk_words");
    let german = |query: &str| {
        let request = SearchRequest {
            query: query.into(),
            language: Some("de".into()),
            ..SearchRequest::default()
        };
        reopened.app.search(&request).unwrap()
    };
    let hits = german("Bergen");
    assert!(hits[0].sentence.contains("höchste Berg"), "{hits:?}");
    let document = reopened.app.document(hits[0].document_id).unwrap();
    assert_eq!(document.summary.language.as_deref(), Some("de"));
}

/// Closes the harness's app, makes its index look as one built with `old_analyzer` would, and
/// opens it again: the index is rebuilt from the database.
fn reopen_with_old_analyzer(harness: Harness, old_analyzer: &str) -> Harness {
    let Harness { dir, app } = harness;
    drop(app);
    let meta = dir.path().join(factdesk_core::INDEX_DIR).join("meta.json");
    let layout = std::fs::read_to_string(&meta).unwrap();
    assert!(layout.contains("\"factdesk_languages\""), "{layout}");
    let old = format!("\"{old_analyzer}\"");
    std::fs::write(&meta, layout.replace("\"factdesk_languages\"", &old)).unwrap();
    let app =
        factdesk_core::Factdesk::open_with_settings(dir.path(), factdesk_core::Settings::default())
            .unwrap();
    let reopened = Harness { dir, app };
    assert!(reopened.app.check_index().unwrap().consistent);
    reopened
}

/// Stores a document of these sentences (joined by spaces) in corpus "news" as one stored
/// before languages were: no language, as migration 17 leaves it, and not indexed.
fn store_without_language(harness: &Harness, sentences: &[&str]) {
    let mut store =
        factdesk_store::Store::open(&harness.dir.path().join(factdesk_core::DATABASE_FILE))
            .unwrap();
    let corpus = store.ensure_corpus("news").unwrap();
    let text = sentences.join(" ");
    let mut spans = Vec::new();
    let (mut start_byte, mut start_char) = (0, 0);
    for sentence in sentences {
        let (bytes, chars) = (sentence.len() as u32, sentence.chars().count() as u32);
        spans.push(factdesk_core::model::SentenceSpan {
            start_char,
            end_char: start_char + chars,
            start_byte,
            end_byte: start_byte + bytes,
        });
        (start_byte, start_char) = (start_byte + bytes + 1, start_char + chars + 1);
    }
    store
        .insert_documents(
            corpus,
            &[factdesk_store::NewDocument {
                origin: "alt.txt".into(),
                origin_kind: factdesk_core::model::OriginKind::File,
                url: None,
                format: factdesk_core::model::DocumentFormat::Text,
                title: None,
                published_at: None,
                acquired_at: "2024-01-01T00:00:00Z".into(),
                content_hash: format!("stored before languages: {text}"),
                raw: text.as_bytes().to_vec(),
                charset: Some("UTF-8".into()),
                text,
                sentences: spans,
                page_starts: Vec::new(),
                language: None,
                sentence_languages: Vec::new(),
            }],
        )
        .unwrap();
}

/// What a rebuild reported: each phase with its total, and the units advanced in it. It
/// cancels `cancel_at` when the phase of that name begins.
#[derive(Default)]
struct Recorded {
    phases: std::sync::Mutex<Vec<(String, Option<u64>, u64)>>,
    cancel_at: Option<(&'static str, CancelToken)>,
}

impl factdesk_core::Reporter for Recorded {
    fn phase(&self, name: &str, total: Option<u64>, _unit: factdesk_core::ProgressUnit) {
        self.phases.lock().unwrap().push((name.to_owned(), total, 0));
        if let Some((at, cancel)) = &self.cancel_at
            && *at == name
        {
            cancel.cancel();
        }
    }

    fn advance(&self, amount: u64) {
        if let Some(last) = self.phases.lock().unwrap().last_mut() {
            last.2 += amount;
        }
    }
}

/// The data directory `dir` opened with default settings, its index rebuild left to the caller.
fn open_deferring(dir: &std::path::Path) -> factdesk_core::Factdesk {
    factdesk_core::Factdesk::open_deferring_index_rebuild_with_settings(
        dir,
        factdesk_core::Settings::default(),
    )
    .unwrap()
}

#[test]
fn a_rebuild_left_to_the_shell_reports_its_progress_and_goes_on_after_an_interruption() {
    let harness = demo();
    store_without_language(
        &harness,
        &["Die Zugspitze ist mit 2962 Metern der höchste Berg Deutschlands."],
    );
    // An English article quoting German, stored before languages were too.
    let old_bridges = "Die alten Brücken sollen bis zum Ende des Jahres abgerissen werden.";
    store_without_language(
        &harness,
        &[
            "The council met on Monday to discuss the new bridge over the river.",
            old_bridges,
            "The council will publish the plans on its website next week.",
        ],
    );
    let Harness { dir, app } = harness;
    let documents = app.documents(None, None, 0).unwrap().len() as u64;
    drop(app);
    let meta = dir.path().join(factdesk_core::INDEX_DIR).join("meta.json");
    let layout = std::fs::read_to_string(&meta).unwrap();
    std::fs::write(&meta, layout.replace("\"factdesk_languages\"", "\"factdesk_words\"")).unwrap();
    let open = || open_deferring(dir.path());

    // Opened, the index is empty and the rebuild is left to the caller.
    let app = open();
    assert!(app.index_rebuild_pending());
    let request = SearchRequest { query: "penicillin".into(), ..SearchRequest::default() };
    assert!(app.search(&request).unwrap().is_empty());
    // Interrupted as it starts indexing: the languages are stored, the rebuild still pending.
    let cancel = CancelToken::new();
    let reporter =
        Arc::new(Recorded { cancel_at: Some(("Indexing", cancel.clone())), ..Recorded::default() });
    let first = app.finish_index_rebuild(reporter.clone(), cancel).unwrap().unwrap();
    assert_eq!((first.languages_detected, first.documents, first.complete), (2, 0, false));
    assert_eq!(
        *reporter.phases.lock().unwrap(),
        [
            ("Detecting languages".to_owned(), Some(2), 2),
            ("Indexing".to_owned(), Some(documents), 0)
        ]
    );
    drop(app);

    // Opened again, it goes on: nothing left to detect, every document indexed.
    let app = open();
    assert!(app.index_rebuild_pending());
    let reporter = Arc::new(Recorded::default());
    let second = app.finish_index_rebuild(reporter.clone(), CancelToken::new()).unwrap().unwrap();
    assert_eq!(
        (second.languages_detected, second.documents, second.complete),
        (0, documents, true)
    );
    assert!(second.sentences > documents, "{second:?}");
    assert_eq!(
        *reporter.phases.lock().unwrap(),
        [("Indexing".to_owned(), Some(documents), documents)]
    );
    assert!(!app.index_rebuild_pending());
    assert!(app.check_index().unwrap().consistent);
    assert!(!app.search(&request).unwrap().is_empty());
    let german = SearchRequest {
        query: "Bergen".into(),
        language: Some("de".into()),
        ..SearchRequest::default()
    };
    assert!(app.search(&german).unwrap()[0].sentence.contains("höchste Berg"));
    // The German sentence of the English article is analysed in German.
    let bridge = SearchRequest {
        query: "Brücke".into(),
        language: Some("de".into()),
        ..SearchRequest::default()
    };
    let hits: Vec<String> = app.search(&bridge).unwrap().into_iter().map(|h| h.sentence).collect();
    assert_eq!(hits, [old_bridges]);
    // Nothing is left to do.
    assert_eq!(app.finish_index_rebuild(Arc::new(NoProgress), CancelToken::new()).unwrap(), None);
}

/// A data directory of schema version 19 (`tests/fixtures/data-dir-v19`, see its README): an
/// English article with a German sentence and the okra article, imported with a language
/// before sentences had theirs, the German sentence indexed as English.
#[test]
fn sentences_of_documents_imported_before_they_had_languages_get_theirs_on_upgrade() {
    let old_bridges = "Die alten Brücken sollen bis zum Ende des Jahres abgerissen werden.";
    let search = |app: &factdesk_core::Factdesk, query: &str, language: &str| -> Vec<String> {
        let request = SearchRequest {
            query: query.into(),
            language: Some(language.into()),
            ..SearchRequest::default()
        };
        app.search(&request).unwrap().into_iter().map(|hit| hit.sentence).collect()
    };
    let dir = tempfile::tempdir().unwrap();
    factdesk_testkit::copy_dir(
        &factdesk_tests::repo_root().join("tests/fixtures/data-dir-v19"),
        dir.path(),
    );
    let open = || open_deferring(dir.path());

    // Opened, the index is kept and the reading left to the caller; cancelled as it starts,
    // nothing is lost and it is still pending.
    let app = open();
    assert!(app.index_rebuild_pending());
    assert_eq!(search(&app, "bridges", "en").len(), 1);
    assert!(search(&app, "Brücke", "de").is_empty());
    let cancel = CancelToken::new();
    let reporter = Arc::new(Recorded {
        cancel_at: Some(("Reading sentence languages", cancel.clone())),
        ..Recorded::default()
    });
    let first = app.finish_index_rebuild(reporter.clone(), cancel).unwrap().unwrap();
    assert!(!first.complete);
    assert_eq!(
        *reporter.phases.lock().unwrap(),
        [("Reading sentence languages".to_owned(), Some(2), 0)]
    );
    drop(app);

    // Opened again, it goes on: both documents read, the article indexed again.
    let app = open();
    assert!(app.index_rebuild_pending());
    let reporter = Arc::new(Recorded::default());
    let second = app.finish_index_rebuild(reporter.clone(), CancelToken::new()).unwrap().unwrap();
    assert_eq!((second.documents, second.sentences, second.complete), (1, 3, true));
    assert_eq!(
        *reporter.phases.lock().unwrap(),
        [
            ("Reading sentence languages".to_owned(), Some(2), 2),
            ("Indexing".to_owned(), Some(1), 1)
        ]
    );
    assert!(!app.index_rebuild_pending());
    assert!(app.check_index().unwrap().consistent);
    assert_eq!(search(&app, "Brücke", "de"), [old_bridges]);
    assert_eq!(search(&app, "bridges", "en").len(), 1);
    assert!(!search(&app, "okra", "en").is_empty());
    drop(app);
    // Nothing is left for the next open.
    assert!(!open().index_rebuild_pending());
}

/// A data directory of schema version 20 (`tests/fixtures/data-dir-v20`, see its README):
/// sentences have their languages, but an article stored before they had (its French sentence
/// indexed as English) has not; an article whose German sentence was read on import; a German
/// article in another corpus; a corpus-NLI run cancelled after two of six claims.
#[test]
fn a_data_directory_of_version_20_upgrades_and_finds_each_sentence_in_its_language() {
    let old_market = "Le march\u{e9} couvert restera ferm\u{e9} pendant trois semaines de travaux.";
    let bridges = "Die alten Br\u{fc}cken sollen bis zum Ende des Jahres abgerissen werden.";
    let search = |app: &factdesk_core::Factdesk,
                  query: &str,
                  language: Option<&str>,
                  corpora: &[&str]|
     -> Vec<String> {
        let request = SearchRequest {
            query: query.into(),
            language: language.map(str::to_owned),
            corpora: corpora.iter().map(|name| name.to_string()).collect(),
            ..SearchRequest::default()
        };
        app.search(&request).unwrap().into_iter().map(|hit| hit.sentence).collect()
    };
    let dir = tempfile::tempdir().unwrap();
    factdesk_testkit::copy_dir(
        &factdesk_tests::repo_root().join("tests/fixtures/data-dir-v20"),
        dir.path(),
    );

    // Opened, 0021 lists the article stored before 0020 alone: its reading is left to the
    // caller and the index kept, so its French sentence is not found in French yet; the
    // German sentence read on import is.
    let app = open_deferring(dir.path());
    assert!(app.index_rebuild_pending());
    assert!(search(&app, "march\u{e9}s", Some("fr"), &[]).is_empty());
    assert_eq!(search(&app, "Br\u{fc}cke", Some("de"), &[]), [bridges]);
    // 0022: a query naming no language is analysed in the language of the corpus searched.
    assert_eq!(app.query_language("Bergen", &["zeitung".into()]).unwrap(), "de");
    let hits = search(&app, "Bergen", None, &["zeitung"]);
    assert!(hits[0].contains("h\u{f6}chste Berg"), "{hits:?}");
    assert_eq!(app.query_language("Bergen", &["news".into()]).unwrap(), "en");

    // The reading: one document read, the one indexed again, its French sentence found.
    let reporter = Arc::new(Recorded::default());
    let done = app.finish_index_rebuild(reporter.clone(), CancelToken::new()).unwrap().unwrap();
    assert_eq!((done.documents, done.sentences, done.complete), (1, 3, true));
    assert_eq!(
        *reporter.phases.lock().unwrap(),
        [
            ("Reading sentence languages".to_owned(), Some(1), 1),
            ("Indexing".to_owned(), Some(1), 1)
        ]
    );
    assert!(!app.index_rebuild_pending());
    assert!(app.check_index().unwrap().consistent);
    assert_eq!(search(&app, "march\u{e9}s", Some("fr"), &[]), [old_market]);
    assert_eq!(search(&app, "Br\u{fc}cke", Some("de"), &[]), [bridges]);
    let stalls = search(&app, "stall", Some("en"), &[]);
    assert_eq!(stalls, ["Traders sold fruit from stalls in the square."]);
    let languages: Vec<(String, Option<String>)> = app
        .documents(None, None, 0)
        .unwrap()
        .into_iter()
        .map(|document| (document.origin, document.language))
        .collect();
    assert_eq!(languages.len(), 3);
    for (origin, language) in &languages {
        let expected = if origin.ends_with("zugspitze.txt") { "de" } else { "en" };
        assert_eq!(language.as_deref(), Some(expected), "{origin}");
    }
    // The cancelled run's checks are kept.
    let entries =
        app.collection_checks("desk", &factdesk_core::verify::CheckSelection::default()).unwrap();
    let checked: Vec<i64> = entries
        .iter()
        .filter(|entry| entry.check.is_some())
        .map(|entry| entry.claim.id.0)
        .collect();
    assert_eq!((entries.len(), checked), (6, vec![1, 2]));
    drop(app);
    // Nothing is left for the next open.
    assert!(!open_deferring(dir.path()).index_rebuild_pending());
}

#[test]
fn a_query_naming_no_language_is_analysed_in_the_language_of_the_corpora_searched() {
    let harness = demo();
    let file = harness.write(
        "de.txt",
        "Die Zugspitze ist mit 2962 Metern der höchste Berg Deutschlands. Sie liegt an der \
         Grenze zu Österreich."
            .as_bytes(),
    );
    assert_eq!(harness.import(&[&file], "zeitung").imported, 1);
    let corpora = |names: &[&str]| names.iter().map(|name| name.to_string()).collect::<Vec<_>>();
    let language = |query: &str, names: &[&str]| -> String {
        harness.app.query_language(query, &corpora(names)).unwrap()
    };
    // One German word, ASCII and too short to detect: the searched corpus's language.
    assert_eq!(language("Bergen", &["zeitung"]), "de");
    let request = SearchRequest {
        query: "Bergen".into(),
        corpora: corpora(&["zeitung"]),
        ..SearchRequest::default()
    };
    let hits = harness.app.search(&request).unwrap();
    assert!(hits[0].sentence.contains("höchste Berg"), "{hits:?}");
    // Over every corpus, English has most documents (the demo's); a chosen language wins.
    assert_eq!(language("Bergen", &[]), "en");
    assert_eq!(language("Bergen", &["demo", "zeitung"]), "en");
    assert!(search(&harness, "Bergen").is_empty());
    let chosen = SearchRequest { language: Some("de".into()), ..request.clone() };
    assert_eq!(harness.app.search(&chosen).unwrap(), hits);
    // A query in another script is detected whatever the corpora.
    assert_eq!(language("Здравствуйте, как дела у вашей семьи сегодня?", &["zeitung"]), "ru");
    // An unknown corpus is named, and so is a language that is not a code.
    let error = harness.app.query_language("Bergen", &corpora(&["nowhere"])).unwrap_err();
    assert!(error.to_string().contains("nowhere"), "{error}");
    let german = SearchRequest { language: Some("German".into()), ..request };
    let error = harness.app.search(&german).unwrap_err().to_string();
    assert!(error.contains("'German' is not a language code"), "{error}");
}
