use super::*;

/// Reads `stored` and writes it back: the variant it was read as, and the JSON, which must be
/// `stored` byte for byte.
fn round_trip(stored: &str) -> MethodParameters {
    let parameters: MethodParameters = serde_json::from_str(stored).unwrap();
    assert_eq!(serde_json::to_string(&parameters).unwrap(), stored, "{parameters:?}");
    parameters
}

// Each as its method writes it today (the first three as the version-5 data directory,
// `tests/fixtures/data-dir-v5`, holds them).
const CORPUS_NLI: &str = r#"{"documents":1,"l":4,"retrieve":50,"threshold":0.5}"#;
const P_TRUE: &str = r#"{"p_true":0.4354831404781759,"samples":5,"seed":0}"#;
const LLM_CITE: &str = r#"{"l":6,"m":2,"premises":"cumulative","r":1,"seed":0,"temperature":0.800000011920929,"threshold":0.5,"urls":"diverse","valid_urls_per_sample":[]}"#;
const CIBER: &str = r#"{"agree":2,"alpha":0.5,"conflict":2,"document_words":300,"documents":3,"mode":"exact","probes":1,"rag":true,"retrieve":50,"rule":"meta","samples":10,"seed":0,"temperature":0.699999988079071}"#;
const RARR: &str = r#"{"calls":{"edit":1,"gate":1},"evidence":"corpus","gate":"chat","granularity":"snippets","max_growth":1.5,"questions":3,"seed":0,"threshold":0.5}"#;
const TTS: &str = r#"{"document_words":400,"duplicate_threshold":0.8,"max_claims":8,"seed":0,"stance_batch":8,"stance_judge":"chat","stance_threshold":0.5,"tau":0.06}"#;

#[test]
fn every_method_s_parameters_read_as_its_variant_and_write_back_unchanged() {
    let MethodParameters::CorpusNli(nli) = round_trip(CORPUS_NLI) else { panic!("corpus-nli") };
    assert_eq!((nli.documents, nli.l, nli.retrieve), (1, 4, 50));
    let MethodParameters::PTrue(p_true) = round_trip(P_TRUE) else { panic!("p-true") };
    assert_eq!((p_true.samples, p_true.p_true), (5, 0.4354831404781759));
    let MethodParameters::LlmCite(cite) = round_trip(LLM_CITE) else { panic!("llm-cite") };
    assert_eq!(
        (cite.urls, cite.m, cite.premises),
        (UrlStrategy::Diverse, 2, PremiseForm::Cumulative)
    );
    let MethodParameters::Ciber(ciber) = round_trip(CIBER) else { panic!("ciber") };
    assert_eq!((ciber.mode, ciber.rule, ciber.rag), (ProbeMode::Exact, FusionRule::Meta, true));
    let rarr = round_trip(RARR);
    let revision = rarr.revision().expect("a revision");
    assert_eq!((revision.evidence.as_str(), revision.gate), ("corpus", Some(Gate::Chat)));
    assert_eq!(revision.calls.as_ref().unwrap()["gate"], 1);
    let tts = round_trip(TTS);
    assert!(matches!(tts, MethodParameters::Summary(_)), "{tts:?}");
    assert_eq!(tts.summary().unwrap().stance_judge, Some(StanceJudge::Chat));
}

#[test]
fn llm_cite_s_whole_document_premises_keep_their_length() {
    let whole = LLM_CITE.replace(
        r#""premises":"cumulative""#,
        r#""premises":{"whole-document":{"max_chars":4000}}"#,
    );
    let MethodParameters::LlmCite(cite) = round_trip(&whole) else { panic!("llm-cite") };
    assert_eq!(cite.premises, PremiseForm::WholeDocument { max_chars: 4000 });
}

#[test]
fn a_revision_without_evidence_or_settings_keeps_its_null_and_absent_fields() {
    // RARR with no evidence: granularity null, written as null again.
    for granularity in [Granularity::Snippets, Granularity::Chunks] {
        let written = serde_json::to_value(granularity).unwrap();
        assert_eq!(written.as_str(), Some(granularity.as_str()));
    }
    let none = RARR.replace(r#""evidence":"corpus""#, r#""evidence":"none""#);
    let none = none.replace(r#""granularity":"snippets""#, r#""granularity":null"#);
    assert_eq!(round_trip(&none).revision().unwrap().granularity, None);
    // A method that records only its evidence (the core's test-only toy): no settings appear.
    let toy = round_trip(r#"{"evidence":"source","granularity":"chunks"}"#);
    let toy = toy.revision().unwrap();
    assert_eq!((toy.gate.as_ref(), toy.calls.as_ref()), (None, None));
}

#[test]
fn a_summary_written_again_by_hand_reads_with_the_first_one_s_settings() {
    let stored = format!(r#"{{"config":{TTS},"from_summary":7}}"#);
    let again = round_trip(&stored);
    let MethodParameters::Resummarized(ref by_hand) = again else { panic!("{again:?}") };
    assert_eq!(by_hand.from_summary, 7);
    assert_eq!(again.summary().unwrap().tau, 0.06);
}

#[test]
fn a_summary_stored_before_stances_were_a_setting_reads_and_writes_without_them() {
    let old = r#"{"document_words":400,"duplicate_threshold":0.8,"max_claims":8,"seed":3,"stance_batch":8,"tau":0.1}"#;
    let summary = round_trip(old);
    let summary = summary.summary().unwrap();
    assert_eq!((summary.seed, summary.stance_judge.as_ref()), (3, None));
}

#[test]
fn bodies_no_method_writes_may_be_normalised_as_the_module_says() {
    let written = |stored: &str| {
        let parameters: MethodParameters = serde_json::from_str(stored).unwrap();
        serde_json::to_string(&parameters).unwrap()
    };
    // A revision's granularity is written when absent; its null gate is left out.
    let web = r#"{"evidence":"web","granularity":null}"#;
    assert_eq!(written(r#"{"evidence":"web","gate":null}"#), web);
    assert_eq!(written(r#"{"evidence":"web"}"#), web);
    // A summary's null stance judge is left out.
    let judged = TTS.replace(r#""stance_judge":"chat""#, r#""stance_judge":null"#);
    let unjudged = TTS.replace(r#""stance_judge":"chat","#, "");
    assert_eq!(written(&judged), unjudged);
    // A whole number where a fraction is held is written as a fraction.
    assert_eq!(
        written(&P_TRUE.replace("0.4354831404781759", "1")),
        P_TRUE.replace("0.4354831404781759", "1.0")
    );
    let certain = CORPUS_NLI.replace(r#""threshold":0.5"#, r#""threshold":1"#);
    assert_eq!(written(&certain), CORPUS_NLI.replace("0.5", "1.0"));
}

#[test]
fn fields_a_variant_does_not_name_are_kept_and_written_back() {
    // A field of a later (or earlier) version beside P(True)'s own: read into `other`.
    let stored = r#"{"p_true":0.5,"samples":5,"seed":0,"temperature":0.3}"#;
    let MethodParameters::PTrue(p_true) = round_trip(stored) else { panic!("p-true") };
    assert_eq!(p_true.other["temperature"], 0.3);
    let stored = format!("{},\"window\":{{\"size\":2}}}}", &CIBER[..CIBER.len() - 1]);
    let MethodParameters::Ciber(ciber) = round_trip(&stored) else { panic!("ciber") };
    assert_eq!(ciber.other["window"]["size"], 2);
}

#[test]
fn a_body_no_variant_describes_is_kept_whole() {
    // A test-only method's, an object missing a field its method always wrote, and none.
    for stored in [r#"{"sentences":3}"#, r#"{"documents":1,"l":4,"threshold":0.5}"#, "null"] {
        let parameters = round_trip(stored);
        assert!(matches!(parameters, MethodParameters::Other(_)), "{stored}: {parameters:?}");
        assert_eq!(
            MethodParameters::from(serde_json::from_str::<serde_json::Value>(stored).unwrap()),
            parameters
        );
    }
    assert_eq!(MethodParameters::default(), round_trip("null"));
}

#[test]
fn a_value_converts_to_the_variant_its_fields_describe() {
    let value: serde_json::Value = serde_json::from_str(CORPUS_NLI).unwrap();
    let parameters = MethodParameters::from(value.clone());
    assert!(matches!(parameters, MethodParameters::CorpusNli(_)), "{parameters:?}");
    assert_eq!(parameters.to_json(), value);
}
