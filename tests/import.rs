//! Corpus import through the core API: every format, every kind of bad input, URLs from a
//! loopback server, deduplication, cancellation, and recovery of documents left pending.

use std::time::Duration;

use factdesk_core::import::ImportRequest;
use factdesk_core::model::{DocumentFormat, OriginKind};
use factdesk_core::search::SearchRequest;
use factdesk_core::{CancelToken, Settings};
use factdesk_testkit::{TestResponse, TestServer};
use factdesk_tests::{Harness, demo_corpus};

fn failure_for<'a>(
    summary: &'a factdesk_core::import::ImportSummary,
    item_suffix: &str,
) -> &'a str {
    summary
        .failures
        .iter()
        .find(|f| f.item.ends_with(item_suffix))
        .map(|f| f.message.as_str())
        .unwrap_or_else(|| panic!("no failure for {item_suffix}: {:#?}", summary.failures))
}

#[test]
fn the_demo_folder_imports_every_format() {
    let harness = Harness::new();
    let summary = harness.import(&[&demo_corpus().display().to_string()], "demo");
    assert!(summary.failures.is_empty(), "{:#?}", summary.failures);
    assert_eq!(summary.imported, 12);
    assert_eq!(summary.duplicates, 0);

    let documents = harness.app.documents(Some("demo"), None, 0).unwrap();
    let count = |format| documents.iter().filter(|d| d.format == format).count();
    assert_eq!(count(DocumentFormat::Markdown), 2);
    assert_eq!(count(DocumentFormat::Html), 3);
    assert_eq!(count(DocumentFormat::Text), 2);
    assert_eq!(count(DocumentFormat::Jsonl), 3);
    assert_eq!(count(DocumentFormat::Csv), 2);

    let eiffel = documents.iter().find(|d| d.origin.ends_with("eiffel-tower.html")).unwrap();
    assert_eq!(eiffel.title.as_deref(), Some("The Eiffel Tower"));
    assert_eq!(eiffel.published_at.as_deref(), Some("2023-06-14"));
    assert_eq!(eiffel.url.as_deref(), Some("https://demo.factdesk.invalid/eiffel-tower"));
    let document = harness.app.document(eiffel.id).unwrap();
    assert!(!document.text.contains("analytics"), "script text leaked: {}", document.text);
    assert!(!document.text.contains("Random"), "navigation leaked: {}", document.text);
    assert!(document.text.starts_with("The Eiffel Tower\n\nThe Eiffel Tower is a wrought-iron"));
    for sentence in &document.sentences {
        let by_chars: String = document
            .text
            .chars()
            .skip(sentence.span.start_char as usize)
            .take((sentence.span.end_char - sentence.span.start_char) as usize)
            .collect();
        assert_eq!(by_chars, sentence.text);
    }

    let sahara = documents.iter().find(|d| d.title.as_deref() == Some("The Sahara")).unwrap();
    assert!(sahara.origin.ends_with("geography.jsonl:3"), "{}", sahara.origin);
    assert_eq!(harness.app.corpora().unwrap()[0].document_count, 12);
    assert!(harness.app.check_index().unwrap().consistent);
}

#[test]
fn importing_again_finds_every_document_present() {
    let harness = Harness::new();
    let folder = demo_corpus().display().to_string();
    harness.import(&[&folder], "demo");
    let again = harness.import(&[&folder], "demo");
    assert_eq!((again.imported, again.duplicates), (0, 12));
    assert!(again.documents.iter().all(|d| d.duplicate));
    assert_eq!(harness.app.documents(None, None, 0).unwrap().len(), 12);
    // Another corpus keeps its own copy.
    let other = harness.import(&[&folder], "other");
    assert_eq!(other.imported, 12);
}

#[test]
fn bad_inputs_fail_alone_with_their_names_and_leave_nothing_behind() {
    let mut settings = Settings::default();
    settings.import.max_file_bytes = 4096;
    // Loopback is allowed so that a closed port fails to connect; other local addresses
    // stay refused.
    settings.fetch.allow_hosts = vec!["127.0.0.1".into()];
    let harness = Harness::with_settings(settings);
    let latin1 = harness.write(
        "latin1.txt",
        b"Le caf\xe9 de la gare a rouvert. Le maire l'a annonc\xe9 lundi, apr\xe8s des travaux d'\xe9t\xe9.",
    );
    let binary = harness.write("binary.txt", b"\x00\x01\x02\x03 not text");
    let pdf = harness.write("report.md", b"%PDF-1.7\n...");
    let empty = harness.write("empty.md", b"");
    let huge = harness.write("huge.txt", "Too long. ".repeat(1000).as_bytes());
    let malformed_html = harness
        .write("broken.html", b"<html><body><p>Unclosed <b>tags are <i>forgiven.<p>Second para");
    let only_script =
        harness.write("script.html", b"<html><body><script>alert(1)</script></body></html>");
    let jsonl = harness.write(
        "mixed.jsonl",
        b"{\"text\": \"Good line one.\"}\n{\"text\": broken}\n\n{\"title\": \"no text\"}\n{\"text\": \"Good line two.\"}\n",
    );
    let csv = harness.write("mixed.csv", b"title,text\nA,Good row.\nB,Bad,row,extra\nC\n");
    let unsupported = harness.write("scan.docx", b"PK\x03\x04");
    let missing = harness.path("does-not-exist.txt");
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let unreachable = format!("http://127.0.0.1:{port}/page");
    let forbidden = "http://169.254.169.254/latest/meta-data/";

    let summary = harness.import(
        &[
            &latin1,
            &binary,
            &pdf,
            &empty,
            &huge,
            &malformed_html,
            &only_script,
            &jsonl,
            &csv,
            &unsupported,
            &missing,
            &unreachable,
            forbidden,
        ],
        "bad",
    );

    assert!(failure_for(&summary, "binary.txt").contains("binary"));
    assert!(failure_for(&summary, "report.md").contains("PDF"));
    assert!(failure_for(&summary, "empty.md").contains("empty"));
    assert!(failure_for(&summary, "huge.txt").contains("import.max_file_bytes"));
    assert!(failure_for(&summary, "script.html").contains("no readable text"));
    assert!(failure_for(&summary, "mixed.jsonl:2").contains("not valid JSON"));
    assert!(failure_for(&summary, "mixed.jsonl:4").contains("--text-field"));
    assert!(failure_for(&summary, "mixed.csv:3").contains("fields"));
    assert!(failure_for(&summary, "mixed.csv:4").contains("1 fields but the header has 2"));
    assert!(failure_for(&summary, "scan.docx").contains("unsupported file type '.docx'"));
    assert!(failure_for(&summary, "does-not-exist.txt").contains("no such file"));
    assert!(failure_for(&summary, "/page").contains("could not connect"));
    assert!(failure_for(&summary, "/meta-data/").contains("a link-local address"));
    assert_eq!(summary.failed, summary.failures.len() as u64);

    // latin1.txt, broken.html, two JSONL lines and one CSV row made it.
    assert_eq!(summary.imported, 5, "{:#?}", summary.documents);
    let documents = harness.app.documents(Some("bad"), None, 0).unwrap();
    assert_eq!(documents.len(), 5);
    let latin = documents.iter().find(|d| d.origin.ends_with("latin1.txt")).unwrap();
    let text = harness.app.document(latin.id).unwrap().text;
    assert!(text.starts_with("Le café de la gare a rouvert."), "{text}");
    let check = harness.app.check_index().unwrap();
    assert!(check.consistent, "{check:?}");
    assert_eq!(check.store_sentences, check.index_sentences);
}

#[test]
fn folders_skip_hidden_entries_and_other_file_types() {
    let harness = Harness::new();
    harness.write("folder/a.txt", b"First file. It has two sentences.");
    harness.write("folder/nested/b.md", b"# B\n\nSecond file.");
    harness.write("folder/picture.png", b"\x89PNG....");
    harness.write("folder/.hidden/c.txt", b"Hidden file.");
    let summary = harness.import(&[&harness.path("input/folder")], "folders");
    assert_eq!(summary.imported, 2, "{summary:#?}");
    assert!(summary.failures.is_empty());
    assert_eq!(summary.skipped.len(), 1);
    assert!(summary.skipped[0].ends_with("picture.png"));
}

#[test]
fn urls_are_fetched_from_a_loopback_server() {
    let server = TestServer::with_routes(vec![
        (
            "/article",
            TestResponse::new(
                200,
                "text/html; charset=windows-1252",
                &b"<html><head><title>Local news</title></head><body><article><p>The caf\xe9 reopened on Monday after repairs lasting three months, the owner said.</p></article></body></html>"[..],
            ),
        ),
        ("/moved", TestResponse::redirect(301, "/notes.txt")),
        ("/notes.txt", TestResponse::text(200, "Plain notes\n\nA plain text page. Second sentence.")),
        ("/image", TestResponse::new(200, "image/png", &b"\x89PNG"[..])),
        ("/slow", TestResponse::html("<p>late</p>").with_delay(Duration::from_secs(5))),
    ]);
    let mut settings = Settings::default();
    settings.fetch.total_timeout_secs = 1;
    settings.fetch.read_timeout_secs = 1;
    // The loopback server is a local address, which fetching refuses unless allowed.
    settings.fetch.allow_hosts = vec!["127.0.0.1".into()];
    let harness = Harness::with_settings(settings);
    let summary = harness.import(
        &[
            &server.url("/article"),
            &server.url("/moved"),
            &server.url("/missing"),
            &server.url("/image"),
            &server.url("/slow"),
        ],
        "web",
    );
    assert_eq!(summary.imported, 2, "{summary:#?}");
    assert!(failure_for(&summary, "/missing").contains("HTTP 404"));
    assert!(failure_for(&summary, "/image").contains("image/png"));
    // Both limits are 1 s here: whichever fires, the message says which.
    let slow = failure_for(&summary, "/slow");
    assert!(slow.contains("within 1 s") || slow.contains("nothing arrived for 1 s"), "{slow}");

    let documents = harness.app.documents(Some("web"), None, 0).unwrap();
    let article = documents.iter().find(|d| d.origin.ends_with("/article")).unwrap();
    assert_eq!(article.origin_kind, OriginKind::Url);
    assert_eq!(article.title.as_deref(), Some("Local news"));
    assert!(harness.app.document(article.id).unwrap().text.contains("The café reopened"));
    let notes = documents.iter().find(|d| d.origin.ends_with("/moved")).unwrap();
    assert_eq!(notes.url.as_deref(), Some(server.url("/notes.txt").as_str()));
    assert_eq!(notes.format, DocumentFormat::Text);
}

#[test]
fn pdfs_keep_their_pages_and_unreadable_ones_fail_alone() {
    let fixtures = factdesk_tests::repo_root().join("tests/fixtures/pdf");
    let report = std::fs::read(fixtures.join("report.pdf")).unwrap();
    let server = TestServer::with_routes(vec![
        ("/filing", TestResponse::new(200, "application/pdf", &report[..])),
        ("/filing.pdf", TestResponse::new(200, "application/octet-stream", &report[..])),
    ]);
    let mut settings = Settings::default();
    settings.fetch.allow_hosts = vec!["127.0.0.1".into()];
    let harness = Harness::with_settings(settings);
    let cut = harness.write("cut/report-cut.pdf", &report[..report.len() / 3]);
    let summary = harness.import(&[&fixtures.display().to_string(), &cut], "pdfs");
    assert_eq!(summary.imported, 3, "{summary:#?}");
    assert!(failure_for(&summary, "encrypted.pdf").contains("protected by a password"));
    assert!(failure_for(&summary, "scanned.pdf").contains("no text layer"));
    assert!(failure_for(&summary, "report-cut.pdf").contains("not a readable PDF"));

    let documents = harness.app.documents(Some("pdfs"), None, 0).unwrap();
    assert!(documents.iter().all(|d| d.format == DocumentFormat::Pdf));
    let summary_of = |suffix: &str| documents.iter().find(|d| d.origin.ends_with(suffix)).unwrap();
    let report_summary = summary_of("report.pdf");
    assert_eq!(report_summary.title.as_deref(), Some("Harbour Authority Annual Report 2023"));
    assert_eq!(report_summary.published_at.as_deref(), Some("2024-03-05"));
    let document = harness.app.document(report_summary.id).unwrap();
    let page_of = |start: &str| {
        let sentence = document.sentences.iter().find(|s| s.text.starts_with(start));
        sentence.unwrap_or_else(|| panic!("{start}: {:#?}", document.sentences)).page
    };
    assert_eq!(page_of("The harbour handled 4.2 million tonnes"), Some(1));
    assert_eq!(page_of("Revenue reached 61 million euros"), Some(2));
    assert_eq!(page_of("Passenger ferries will move"), Some(3));

    // Search hits say the page; the same search over other formats says none.
    let search = |query: &str| {
        let request = SearchRequest { query: query.into(), ..SearchRequest::default() };
        harness.app.search(&request).unwrap()
    };
    let hits = search("north quay cost");
    assert_eq!(hits[0].document_id, report_summary.id);
    assert_eq!(hits[0].page, Some(2));
    let hits = search("Москва столица");
    assert_eq!(hits[0].page, Some(1), "{hits:#?}");
    harness.write("plain/notes.txt", b"The north quay is a plain text note.");
    harness.import(&[&harness.path("input/plain")], "notes");
    let hits = search("plain text note");
    assert_eq!((hits[0].corpus.as_str(), hits[0].page), ("notes", None));

    // PDFs by URL, known by their media type or their first bytes.
    let summary = harness.import(&[&server.url("/filing"), &server.url("/filing.pdf")], "web");
    assert_eq!((summary.imported, summary.duplicates), (1, 1), "{summary:#?}");
    let web = harness.app.documents(Some("web"), None, 0).unwrap();
    assert_eq!(web[0].format, DocumentFormat::Pdf);
    assert_eq!(web[0].title.as_deref(), Some("Harbour Authority Annual Report 2023"));
}

#[test]
fn field_names_can_be_chosen_per_import() {
    let harness = Harness::new();
    let file = harness.write("halu.jsonl", b"{\"document\": \"Body here. And more.\", \"headline\": \"H\", \"story\": \"Other field text.\"}\n");
    let summary = harness.import_request(ImportRequest {
        sources: vec![file],
        corpus: "c".into(),
        text_field: Some("story".into()),
        title_field: Some("headline".into()),
        ..ImportRequest::default()
    });
    assert_eq!(summary.imported, 1, "{summary:#?}");
    let document = harness.app.document(summary.documents[0].id).unwrap();
    assert_eq!(document.text, "Other field text.");
    assert_eq!(document.summary.title.as_deref(), Some("H"));
}

#[test]
fn a_cancelled_import_stops_before_writing() {
    let harness = Harness::new();
    let cancel = CancelToken::new();
    cancel.cancel();
    let summary = harness.import_with_cancel(
        ImportRequest {
            sources: vec![demo_corpus().display().to_string()],
            corpus: "demo".into(),
            ..ImportRequest::default()
        },
        cancel,
    );
    assert!(summary.cancelled);
    assert_eq!(summary.imported, 0);
    assert!(harness.app.documents(None, None, 0).unwrap().is_empty());
}

#[test]
fn documents_left_pending_by_a_crash_are_indexed_by_the_next_import() {
    let harness = Harness::new();
    // Simulate a crash between the SQLite commit and the index commit: store a document
    // directly, without indexing it.
    {
        let mut store =
            factdesk_store::Store::open(&harness.dir.path().join(factdesk_core::DATABASE_FILE))
                .unwrap();
        let corpus = store.ensure_corpus("crash").unwrap();
        let text = "The lighthouse keeper logged every passing ship.";
        let spans = factdesk_text_spans(text);
        store
            .insert_documents(
                corpus,
                &[factdesk_store::NewDocument {
                    origin: "crash.txt".into(),
                    origin_kind: OriginKind::File,
                    url: None,
                    format: DocumentFormat::Text,
                    title: None,
                    published_at: None,
                    acquired_at: "2024-01-01T00:00:00Z".into(),
                    content_hash: "crash".into(),
                    raw: text.as_bytes().to_vec(),
                    charset: Some("UTF-8".into()),
                    text: text.into(),
                    sentences: spans,
                    page_starts: Vec::new(),
                    language: Some("en".into()),
                    sentence_languages: Vec::new(),
                }],
            )
            .unwrap();
    }
    let check = harness.app.check_index().unwrap();
    assert_eq!(check.pending_documents, 1);
    assert!(!check.consistent);
    let search = |q: &str| {
        harness.app.search(&SearchRequest { query: q.into(), ..SearchRequest::default() }).unwrap()
    };
    assert!(search("lighthouse").is_empty());

    let file = harness.write("later.txt", b"A later import. It triggers the repair.");
    harness.import(&[&file], "crash");
    assert!(harness.app.check_index().unwrap().consistent);
    assert_eq!(
        search("lighthouse keeper")[0].sentence,
        "The lighthouse keeper logged every passing ship."
    );
}

fn factdesk_text_spans(text: &str) -> Vec<factdesk_core::model::SentenceSpan> {
    let length = text.len() as u32;
    vec![factdesk_core::model::SentenceSpan {
        start_char: 0,
        end_char: length,
        start_byte: 0,
        end_byte: length,
    }]
}

/// Files that are not regular files are refused before they are read, alone and in folders:
/// a link to /dev/zero (endless), a named pipe (blocks until someone writes), a /proc file
/// that says it is empty but is not. Each import returns at once, naming what was refused.
#[test]
fn devices_pipes_and_endless_files_are_refused_before_they_are_read() {
    let harness = Harness::new();
    harness.write("special/a.txt", b"A regular file. It is imported.");
    let zero = harness.path("input/special/zero.txt");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let pipe = harness.path("input/special/pipe.txt");
    let made = std::process::Command::new("mkfifo").arg(&pipe).status().unwrap();
    assert!(made.success(), "mkfifo failed");

    let started = std::time::Instant::now();
    let summary = harness.import(&[&zero, &pipe], "special");
    assert!(started.elapsed() < Duration::from_secs(10), "the import hung or read on");
    assert_eq!(summary.imported, 0, "{summary:#?}");
    assert!(failure_for(&summary, "zero.txt").contains("a device, not a regular file"));
    assert!(failure_for(&summary, "pipe.txt").contains("a named pipe, not a regular file"));

    // In a folder, they are passed over and listed as skipped; the regular file is imported.
    let summary = harness.import(&[&harness.path("input/special")], "special");
    assert_eq!(summary.imported, 1, "{summary:#?}");
    assert!(summary.failures.is_empty(), "{summary:#?}");
    let mut skipped: Vec<&str> =
        summary.skipped.iter().map(|path| path.rsplit('/').next().unwrap_or_default()).collect();
    skipped.sort_unstable();
    assert_eq!(skipped, ["pipe.txt", "zero.txt"]);

    // A file whose size says 0 is still read no further than the cap.
    let settings = Settings {
        import: factdesk_core::settings::ImportSettings {
            max_file_bytes: 16,
            ..Settings::default().import
        },
        ..Settings::default()
    };
    let small = Harness::with_settings(settings);
    let proc_file = small.path("cpuinfo.txt");
    std::os::unix::fs::symlink("/proc/cpuinfo", &proc_file).unwrap();
    let summary = small.import(&[&proc_file], "proc");
    assert!(
        failure_for(&summary, "cpuinfo.txt").contains("more than the import limit of 16 bytes"),
        "{summary:#?}"
    );

    // Claims are read the same way.
    let error = harness.app.import_claims(std::path::Path::new(&pipe), "claims").unwrap_err();
    assert!(error.to_string().contains("a named pipe"), "{error}");
}

#[test]
fn documents_in_other_languages_get_their_language_and_are_found_in_it() {
    let harness = Harness::new();
    let files = [
        harness.write(
            "zh.txt",
            "埃菲尔铁塔位于法国巴黎，建于1889年。它是巴黎最著名的建筑。".as_bytes(),
        ),
        harness.write(
            "de.txt",
            "Die Zugspitze ist mit 2962 Metern der höchste Berg Deutschlands. Sie liegt an der \
             Grenze zu Österreich."
                .as_bytes(),
        ),
        harness.write(
            "fr.txt",
            "La tour Eiffel mesure 330 mètres depuis 2022. Elle a été construite pour \
             l'Exposition universelle."
                .as_bytes(),
        ),
    ];
    let sources: Vec<&str> = files.iter().map(String::as_str).collect();
    let summary = harness.import(&sources, "world");
    assert_eq!(summary.imported, 3, "{:#?}", summary.failures);
    let languages: Vec<(String, Option<String>)> = summary
        .documents
        .iter()
        .map(|d| {
            let document = harness.app.document(d.id).unwrap();
            (d.origin.rsplit('/').next().unwrap().to_owned(), document.summary.language)
        })
        .collect();
    for (file, language) in &languages {
        assert_eq!(Some(&file[..2]), language.as_deref(), "{languages:?}");
    }
    let search = |query: &str, language: Option<&str>| {
        let request = SearchRequest {
            query: query.into(),
            language: language.map(str::to_owned),
            ..SearchRequest::default()
        };
        harness.app.search(&request).unwrap()
    };
    // Chinese words inside unspaced text; the query's language detected from its script.
    let hits = search("巴黎", None);
    assert_eq!(hits.len(), 2);
    assert!(search("埃菲尔铁塔", None)[0].sentence.starts_with("埃菲尔铁塔"));
    // Inflected forms, analysed in the language asked for.
    assert!(search("Bergen", Some("de"))[0].sentence.contains("höchste Berg"));
    assert!(search("mesurait", Some("fr"))[0].sentence.contains("mesure"));
    assert!(search("mesurait", Some("en")).is_empty());
    // Accents composed or decomposed (NFC on both sides): "höchste" typed as o and a
    // combining diaeresis finds the composed word.
    assert!(search("ho\u{308}chste", Some("de"))[0].sentence.contains("höchste Berg"));
    // And a text stored decomposed is found by the composed word (it is stored composed).
    let decomposed = "Die Bru\u{308}cke u\u{308}ber den Rhein wurde im Jahr 1910 gebaut.";
    let file = harness.write("nfd.txt", decomposed.as_bytes());
    assert_eq!(harness.import(&[&file], "world").imported, 1);
    let hits = search("Brücke", Some("de"));
    assert_eq!(hits[0].sentence, "Die Brücke über den Rhein wurde im Jahr 1910 gebaut.");

    // `--language` gives every document that language; a code that is not one is refused.
    let english = harness.write("short.txt", b"Der Berg ist hoch und die Luft ist klar.");
    let request = ImportRequest {
        sources: vec![english],
        corpus: "forced".into(),
        language: Some("nl".into()),
        ..ImportRequest::default()
    };
    let forced = harness.import_request(request);
    let document = harness.app.document(forced.documents[0].id).unwrap();
    assert_eq!(document.summary.language.as_deref(), Some("nl"));
    let bad = ImportRequest {
        sources: vec![harness.path("short.txt")],
        corpus: "forced".into(),
        language: Some("German".into()),
        ..ImportRequest::default()
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let error = runtime
        .block_on(harness.app.import(
            bad,
            std::sync::Arc::new(factdesk_core::NoProgress),
            CancelToken::new(),
        ))
        .unwrap_err();
    assert!(error.to_string().contains("'German' is not a language code"), "{error}");
}

/// A German paragraph inside an English article: the article is English, the paragraph's
/// sentences are analysed in German, so German inflections find them, and so does an index
/// rebuilt from the database. Before, they were stemmed as English: "Brücke" did not find
/// "Brücken".
#[test]
fn a_german_paragraph_in_an_english_article_is_found_in_german() {
    let harness = Harness::new();
    let article = "The council met on Monday to discuss the new bridge over the river. Its \
                   members said that the work would start in the spring and take two years.\n\n\
                   The mayor read a statement in German to the visitors from Munich:\n\n\
                   Die alten Brücken sollen bis zum Ende des Jahres abgerissen werden. Der neue \
                   Übergang wird von einer Firma aus Hamburg gebaut.\n\n\
                   The council will publish the plans on its website next week.";
    let file = harness.write("mixed.txt", article.as_bytes());
    let summary = harness.import(&[&file], "news");
    assert_eq!(summary.imported, 1, "{:#?}", summary.failures);
    let document = harness.app.document(summary.documents[0].id).unwrap();
    assert_eq!(document.summary.language.as_deref(), Some("en"));

    let search = |query: &str, language: &str| {
        let request = SearchRequest {
            query: query.into(),
            language: Some(language.to_owned()),
            ..SearchRequest::default()
        };
        harness.app.search(&request).unwrap()
    };
    let old_bridges = "Die alten Brücken sollen bis zum Ende des Jahres abgerissen werden.";
    let found = |hits: Vec<factdesk_core::search::SearchHit>| -> Vec<String> {
        hits.into_iter().map(|hit| hit.sentence).collect()
    };
    // "Brücke" and "Brücken" meet at one German stem; "Übergänge" and "Übergang" too.
    assert_eq!(found(search("Brücke", "de")), [old_bridges]);
    assert_eq!(
        found(search("Übergänge", "de"))[0],
        "Der neue Übergang wird von einer Firma aus Hamburg gebaut."
    );
    // The English sentences are still English: "bridges" finds "bridge".
    assert!(found(search("bridges", "en"))[0].contains("the new bridge over the river"));

    harness
        .app
        .reindex(std::sync::Arc::new(factdesk_core::NoProgress), CancelToken::new())
        .unwrap();
    assert_eq!(found(search("Brücke", "de")), [old_bridges], "after a rebuild");
}
