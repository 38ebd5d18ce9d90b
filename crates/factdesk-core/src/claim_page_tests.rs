use factdesk_model::{
    ClaimCheck, Envelope, NewClaim, ReviewDecision, TokenUse, Undecided, Verdict,
};
use factdesk_store::ClaimFilter;

use super::*;
use crate::Settings;

fn check(claim: &str, method: &str, verdict: Verdict, confidence: Option<f64>) -> ClaimCheck {
    ClaimCheck {
        envelope: Envelope {
            method: method.into(),
            parameters: serde_json::json!({}).into(),
            model: "none".into(),
            nli_model: None,
            tokens: TokenUse::default(),
            explanation: "a test verdict".into(),
        },
        claim: claim.to_owned(),
        verdict,
        undecided: None,
        confidence,
        attributions: Vec::new(),
        sources: Vec::new(),
        premises: Vec::new(),
        left_out: Vec::new(),
        detail: None,
    }
}

/// Seven claims: five checked by llm-cite (confidences 0.2 … 0.9 and one none), bravo later
/// by p-true too (refuted, 0.6: its newest check); one undecided, one overridden, one tagged;
/// two never checked.
fn desk() -> (tempfile::TempDir, Factdesk) {
    let dir = tempfile::tempdir().unwrap();
    let app = Factdesk::open_with_settings(dir.path(), Settings::default()).unwrap();
    let claim = |text: &str, tags: &[&str]| NewClaim {
        text: text.to_owned(),
        origin: None,
        tags: tags.iter().map(|tag| (*tag).to_owned()).collect(),
        notes: None,
        gold_label: None,
        claimed_on: None,
    };
    let ids: Vec<ClaimId> = {
        let mut store = app.store().unwrap();
        let collection = store.ensure_collection("desk").unwrap();
        let texts = [
            claim("delta", &[]),
            claim("Alpha", &["econ"]),
            claim("echo", &[]),
            claim("charlie", &[]),
            claim("bravo", &[]),
            claim("golf", &[]),
            claim("foxtrot", &[]),
        ];
        store.insert_claims(collection, &texts).unwrap();
        let filter = ClaimFilter { collection: Some(collection), ..ClaimFilter::default() };
        let ids: Vec<_> = store.claims(&filter).unwrap().into_iter().map(|c| c.id).collect();
        let cite = store.create_run("llm-cite", &serde_json::json!({}), None, Some(collection));
        let cite = cite.unwrap();
        let p_true = store.create_run("p-true", &serde_json::json!({}), None, Some(collection));
        let p_true = p_true.unwrap();
        let checks = [
            (0, Verdict::Supported, Some(0.5)),
            (1, Verdict::Refuted, Some(0.9)),
            (2, Verdict::Supported, Some(0.2)),
            (3, Verdict::NotEnoughInfo, None),
            (4, Verdict::Supported, Some(0.7)),
        ];
        for (at, verdict, confidence) in checks {
            let mut made = check("x", "llm-cite", verdict, confidence);
            if at == 3 {
                made.undecided = Some(Undecided::NoValidUrl);
            }
            store.insert_check(cite, Some(ids[at]), &made, &[]).unwrap();
        }
        let made = check("x", "p-true", Verdict::Refuted, Some(0.6));
        store.insert_check(p_true, Some(ids[4]), &made, &[]).unwrap();
        ids
    };
    // echo's supported verdict overridden with refuted.
    let page = app.collection_page("desk", &ClaimPageRequest { limit: 10, ..Default::default() });
    let echo = page.unwrap().claims.into_iter().find(|entry| entry.claim.id == ids[2]).unwrap();
    let echo_check = echo.check.unwrap().id;
    app.review_check(echo_check, ReviewDecision::Override, Some(Verdict::Refuted), "no", None)
        .unwrap();
    (dir, app)
}

fn texts(page: &ClaimPage) -> Vec<&str> {
    page.claims.iter().map(|entry| entry.claim.text.as_str()).collect()
}

fn page(app: &Factdesk, request: ClaimPageRequest) -> ClaimPage {
    app.collection_page("desk", &request).unwrap()
}

#[test]
fn pages_follow_one_another_in_the_collections_order() {
    let (_dir, app) = desk();
    let first = page(&app, ClaimPageRequest { limit: 3, ..Default::default() });
    assert_eq!(texts(&first), ["delta", "Alpha", "echo"]);
    assert_eq!((first.matching, first.total, first.checked, first.offset), (7, 7, 5, 0));
    let last = page(&app, ClaimPageRequest { offset: 6, limit: 3, ..Default::default() });
    assert_eq!(texts(&last), ["foxtrot"]);
    let beyond = page(&app, ClaimPageRequest { offset: 9, limit: 3, ..Default::default() });
    assert!(beyond.claims.is_empty() && beyond.matching == 7);
}

/// A sorted column is sorted over every claim: the pages put together are the whole order.
#[test]
fn a_sort_holds_across_pages_with_missing_values_last_either_way() {
    let (_dir, app) = desk();
    let sorted = |sort, descending| -> Vec<String> {
        (0..3)
            .flat_map(|n| {
                let request = ClaimPageRequest {
                    sort: Some(sort),
                    descending,
                    offset: n * 3,
                    limit: 3,
                    ..Default::default()
                };
                texts(&page(&app, request)).into_iter().map(str::to_owned).collect::<Vec<_>>()
            })
            .collect()
    };
    assert_eq!(
        sorted(ClaimSort::Confidence, true),
        ["Alpha", "bravo", "delta", "echo", "charlie", "golf", "foxtrot"]
    );
    assert_eq!(
        sorted(ClaimSort::Confidence, false),
        ["echo", "delta", "bravo", "Alpha", "charlie", "golf", "foxtrot"]
    );
    assert_eq!(
        sorted(ClaimSort::Text, false),
        ["Alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"]
    );
    // The standing verdict: echo's review (refuted) counts, not its machine verdict.
    assert_eq!(
        sorted(ClaimSort::Verdict, false),
        ["delta", "Alpha", "echo", "bravo", "charlie", "golf", "foxtrot"]
    );
    assert_eq!(
        sorted(ClaimSort::Status, true),
        ["echo", "delta", "Alpha", "charlie", "bravo", "golf", "foxtrot"]
    );
}

#[test]
fn filters_choose_claims_before_the_page_is_cut() {
    let (_dir, app) = desk();
    let with = |request: ClaimPageRequest| {
        let found = page(&app, ClaimPageRequest { limit: 10, ..request });
        texts(&found).into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    let verdict = |name: &str| ClaimPageRequest {
        verdict: Some(name.parse().unwrap()),
        ..Default::default()
    };
    assert_eq!(with(verdict("refuted")), ["Alpha", "echo", "bravo"]);
    assert_eq!(with(verdict("supported")), ["delta"]);
    assert_eq!(with(verdict("no_valid_url")), ["charlie"]);
    assert_eq!(with(verdict("none")), ["golf", "foxtrot"]);
    let machine = ClaimPageRequest { machine: Some(Verdict::Supported), ..Default::default() };
    assert_eq!(with(machine), ["delta", "echo"]);
    let reviewed =
        ClaimPageRequest { review: Some("refuted".parse().unwrap()), ..Default::default() };
    assert_eq!(with(reviewed), ["echo"]);
    let open = ClaimPageRequest { review: Some("none".parse().unwrap()), ..Default::default() };
    assert_eq!(with(open), ["delta", "Alpha", "charlie", "bravo"]);
    let tagged = ClaimPageRequest { tag: Some(" econ ".into()), ..Default::default() };
    assert_eq!(with(tagged), ["Alpha"]);
    let status = ClaimPageRequest { status: Some(ClaimStatus::Unchecked), ..Default::default() };
    assert_eq!(with(status), ["golf", "foxtrot"]);
    // One method's checks: bravo's llm-cite verdict, or its P(True) one, the others unchecked by it.
    let method = |name: &str| Some(serde_json::from_value(serde_json::json!(name)).unwrap());
    let selection = CheckSelection { method: method("llm-cite"), run: None };
    let cite = page(&app, ClaimPageRequest { selection, limit: 10, ..Default::default() });
    assert_eq!(cite.checked, 5);
    let bravo = cite.claims.iter().find(|entry| entry.claim.text == "bravo").unwrap();
    assert_eq!(bravo.check.as_ref().unwrap().check.verdict, Verdict::Supported);
    let selection = CheckSelection { method: method("p-true"), run: None };
    let p_true = page(&app, ClaimPageRequest { selection, limit: 10, ..Default::default() });
    assert_eq!(p_true.checked, 1);
    let bravo = p_true.claims.iter().find(|entry| entry.claim.text == "bravo").unwrap();
    assert_eq!(bravo.check.as_ref().unwrap().check.verdict, Verdict::Refuted);
}

#[test]
fn a_bad_request_is_refused_naming_what_to_give() {
    let (_dir, app) = desk();
    let refused =
        |request: ClaimPageRequest| app.collection_page("desk", &request).unwrap_err().to_string();
    assert!(refused(ClaimPageRequest::default()).contains("limit of at least 1"));
    // A filter of no such name is refused as the request is read, naming what it takes.
    let read = |request: serde_json::Value| {
        serde_json::from_value::<ClaimPageRequest>(request).unwrap_err().to_string()
    };
    let verdict = read(serde_json::json!({"verdict": "maybe", "limit": 5}));
    assert!(verdict.contains("no verdict is called 'maybe'; filter by supported"), "{verdict}");
    let review = read(serde_json::json!({"review": "no_valid_url", "limit": 5}));
    assert!(review.contains("no review verdict is called 'no_valid_url'"), "{review}");
    let missing =
        app.collection_page("nowhere", &ClaimPageRequest { limit: 5, ..Default::default() });
    assert_eq!(missing.unwrap_err().code(), "not_found");
}

#[test]
fn every_filter_is_read_from_the_name_it_is_written_with() {
    let name = |value: serde_json::Value| value.as_str().unwrap().to_owned();
    let verdicts: Vec<String> = VerdictFilter::all()
        .into_iter()
        .map(|filter| name(serde_json::to_value(filter).unwrap()))
        .collect();
    assert_eq!(
        verdicts,
        [
            "none",
            "supported",
            "refuted",
            "not_enough_info",
            "no_valid_url",
            "fetch_failed",
            "no_evidence",
            "unread_language"
        ]
    );
    for filter in VerdictFilter::all() {
        assert_eq!(name(serde_json::to_value(filter).unwrap()).parse(), Ok(filter));
    }
    let reviews: Vec<String> = ReviewFilter::all()
        .into_iter()
        .map(|filter| name(serde_json::to_value(filter).unwrap()))
        .collect();
    assert_eq!(reviews, ["none", "supported", "refuted", "not_enough_info"]);
    for filter in ReviewFilter::all() {
        assert_eq!(name(serde_json::to_value(filter).unwrap()).parse(), Ok(filter));
    }
    let request: ClaimPageRequest =
        serde_json::from_value(serde_json::json!({"verdict": "none", "review": "refuted"}))
            .unwrap();
    assert_eq!(request.verdict, Some(VerdictFilter::NoCheck(Absent::None)));
    assert_eq!(request.review, Some(ReviewFilter::Verdict(Verdict::Refuted)));
    // An empty name, as a menu's "any" sends it, or null is no filter.
    for absent in [serde_json::json!(""), serde_json::Value::Null] {
        let request: ClaimPageRequest =
            serde_json::from_value(serde_json::json!({"verdict": absent, "review": absent}))
                .unwrap();
        assert_eq!((request.verdict, request.review), (None, None));
    }
}
