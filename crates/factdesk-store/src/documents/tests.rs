use factdesk_model::now_rfc3339;

use super::*;

pub(crate) fn new_document(text: &str, spans: &[(u32, u32)]) -> NewDocument {
    NewDocument {
        origin: "fixture.txt".into(),
        origin_kind: OriginKind::File,
        url: None,
        format: DocumentFormat::Text,
        title: Some("Fixture".into()),
        published_at: None,
        acquired_at: now_rfc3339(),
        content_hash: blake_like(text),
        raw: text.as_bytes().to_vec(),
        charset: Some("UTF-8".into()),
        text: text.into(),
        sentences: spans
            .iter()
            .map(|&(start, end)| SentenceSpan {
                start_char: start,
                end_char: end,
                start_byte: start,
                end_byte: end,
            })
            .collect(),
        page_starts: Vec::new(),
        language: Some("en".into()),
        sentence_languages: Vec::new(),
    }
}

fn blake_like(text: &str) -> String {
    format!("hash-of-{text}")
}

#[test]
fn documents_round_trip_with_sentences() {
    let mut store = Store::open_in_memory().unwrap();
    let corpus = store.ensure_corpus("news").unwrap();
    let outcomes = store
        .insert_documents(corpus, &[new_document("One two. Three.", &[(0, 8), (9, 15)])])
        .unwrap();
    let DocumentInsertOutcome::Inserted { document: id, ref sentence_ids } = outcomes[0] else {
        panic!("{outcomes:?}")
    };
    let document = store.document(id).unwrap();
    let texts: Vec<_> = document.sentences.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(texts, ["One two.", "Three."]);
    let stored_ids: Vec<_> = document.sentences.iter().map(|s| s.id).collect();
    assert_eq!(&stored_ids, sentence_ids);
    assert_eq!(document.summary.corpus, "news");
    assert_eq!(document.summary.sentence_count, 2);
    assert_eq!(store.document_raw(id).unwrap(), b"One two. Three.");
    let by_id = store.sentences_by_id(&[document.sentences[1].id]).unwrap();
    assert_eq!(by_id[0].0.text, "Three.");
    assert_eq!(by_id[0].1.language.as_deref(), Some("en"));
    assert_eq!(document.summary.language.as_deref(), Some("en"));
}

#[test]
fn unknown_languages_are_listed_in_steps_and_recorded() {
    let mut store = Store::open_in_memory().unwrap();
    let corpus = store.ensure_corpus("news").unwrap();
    let mut documents: Vec<NewDocument> = (0..3)
        .map(|i| {
            let text = format!("Text number {i}.");
            let end = text.len() as u32;
            NewDocument { language: None, ..new_document(&text, &[(0, end)]) }
        })
        .collect();
    documents[1].language = Some("de".into());
    store.insert_documents(corpus, &documents).unwrap();
    assert_eq!(store.count_documents_without_language().unwrap(), 2);
    let first = store.documents_without_language(DocumentId(0), 1, 6).unwrap();
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].1, "Text n");
    let rest = store.documents_without_language(first[0].0, 10, 100).unwrap();
    assert_eq!(rest.len(), 1, "the German one is known: {rest:?}");
    store.set_document_languages(&[(first[0].0, "fr".into())]).unwrap();
    assert_eq!(store.documents_without_language(DocumentId(0), 10, 100).unwrap(), rest);
    assert_eq!(store.count_documents_without_language().unwrap(), 1);
    let indexable = store.sentences_for_index(&[first[0].0, rest[0].0]).unwrap();
    let languages: Vec<_> = indexable.iter().map(|s| s.language.as_deref()).collect();
    assert_eq!(languages, [Some("fr"), None]);
    // The column takes lower-case codes only.
    assert!(store.set_document_languages(&[(rest[0].0, "German".into())]).is_err());
}

#[test]
fn a_sentence_in_another_language_is_indexed_in_it() {
    let mut store = Store::open_in_memory().unwrap();
    let corpus = store.ensure_corpus("news").unwrap();
    let document = NewDocument {
        sentence_languages: vec![(1, "de".into())],
        ..new_document("One. Zwei. Three.", &[(0, 4), (5, 10), (11, 17)])
    };
    let outcomes = store.insert_documents(corpus, &[document]).unwrap();
    let DocumentInsertOutcome::Inserted { document, .. } = outcomes[0] else { panic!() };
    let indexable = store.sentences_for_index(&[document]).unwrap();
    let languages: Vec<_> =
        indexable.iter().map(|s| (s.text.as_str(), s.language.as_deref())).collect();
    assert_eq!(languages, [("One.", Some("en")), ("Zwei.", Some("de")), ("Three.", Some("en"))]);
    // The column takes lower-case codes only.
    let shouting = NewDocument {
        sentence_languages: vec![(0, "DE".into())],
        ..new_document("Eins.", &[(0, 5)])
    };
    assert!(store.insert_documents(corpus, &[shouting]).is_err());
}

#[test]
fn duplicates_are_detected_within_and_across_batches() {
    let mut store = Store::open_in_memory().unwrap();
    let corpus = store.ensure_corpus("news").unwrap();
    let doc = new_document("Same text.", &[(0, 10)]);
    let outcomes = store.insert_documents(corpus, &[doc.clone(), doc.clone()]).unwrap();
    let DocumentInsertOutcome::Inserted { document: first, .. } = outcomes[0] else { panic!() };
    assert_eq!(outcomes[1], DocumentInsertOutcome::Duplicate(first));
    let outcomes = store.insert_documents(corpus, std::slice::from_ref(&doc)).unwrap();
    assert_eq!(outcomes[0], DocumentInsertOutcome::Duplicate(first));
    let other_corpus = store.ensure_corpus("other").unwrap();
    let outcomes = store.insert_documents(other_corpus, &[doc]).unwrap();
    assert!(matches!(outcomes[0], DocumentInsertOutcome::Inserted { .. }));
}

#[test]
fn a_failing_batch_stores_nothing() {
    let mut store = Store::open_in_memory().unwrap();
    let corpus = store.ensure_corpus("news").unwrap();
    let good = new_document("Good one.", &[(0, 9)]);
    // end_char must exceed start_char: the CHECK constraint fails on the second document.
    let bad = new_document("Bad one.", &[(3, 3)]);
    assert!(store.insert_documents(corpus, &[good, bad]).is_err());
    assert!(store.documents(&DocumentFilter::default()).unwrap().is_empty());
    assert_eq!(store.sentence_count().unwrap(), 0);
}

#[test]
fn index_marks_track_pending_documents() {
    let mut store = Store::open_in_memory().unwrap();
    let corpus = store.ensure_corpus("news").unwrap();
    let outcomes = store
        .insert_documents(
            corpus,
            &[new_document("A b.", &[(0, 4)]), new_document("C d. E f.", &[(0, 4), (5, 9)])],
        )
        .unwrap();
    let ids: Vec<DocumentId> = outcomes
        .iter()
        .map(|o| match o {
            DocumentInsertOutcome::Inserted { document, .. } => *document,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(store.documents_pending_index().unwrap(), ids);
    let sentences = store.sentences_for_index(&ids).unwrap();
    let texts: Vec<_> = sentences.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(texts, ["A b.", "C d.", "E f."]);
    store.mark_indexed(&ids[..1]).unwrap();
    assert_eq!(store.documents_pending_index().unwrap(), &ids[1..]);
    assert_eq!(store.indexed_sentence_ids().unwrap(), vec![sentences[0].sentence_id]);
    store.delete_documents(&ids[1..]).unwrap();
    assert_eq!(store.sentence_count().unwrap(), 1);
    store.clear_index_marks().unwrap();
    assert_eq!(store.documents_pending_index().unwrap(), &ids[..1]);
}
