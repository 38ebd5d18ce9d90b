//! Factdesk's grounding verifier as shipped (`assets/models/factdesk-verifier`): it loads
//! through the cross-encoder backend with its calibration for premise size, as Factdesk runs
//! it, ranks claims the demo corpus supports above the same claims with a fact changed (an
//! ignored test records what it does not yet do), and was trained on HaluEval's training
//! range only; the training data builder (`training/verifier/data.py`) is deterministic and
//! never reads an evaluation item.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use factdesk_llm::Nli;
use factdesk_llm::cross_encoder::CrossEncoderNli;
use factdesk_methods::calibration::{self, CalibrationWeights};
use factdesk_methods::grounding::{self, GroundingConfig};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn shipped() -> PathBuf {
    root().join("assets/models/factdesk-verifier")
}

fn demo(file: &str) -> String {
    std::fs::read_to_string(root().join("assets/demo/corpus").join(file)).unwrap()
}

/// The shipped verifier as Factdesk runs it: the model and its calibration.
fn verifier() -> Arc<dyn Nli> {
    let model = CrossEncoderNli::load(&shipped()).expect("the shipped verifier loads");
    calibration::with_shipped_calibration(Arc::new(model), &shipped())
        .expect("the shipped calibration loads")
}

fn support(nli: &dyn Nli, evidence: &str, claim: &str) -> f64 {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime
        .block_on(grounding::ground(nli, evidence, claim, &GroundingConfig::default()))
        .unwrap()
        .support
}

/// (evidence file, a claim it supports, the same claim with one fact changed)
const DEMO_CASES: [(&str, &str, &str); 4] = [
    ("okra.md", "Okra belongs to the mallow family.", "Okra belongs to the rose family."),
    (
        "mount-everest.txt",
        "Mount Everest was first climbed in 1953.",
        "Mount Everest was first climbed in 1921.",
    ),
    (
        "marie-curie.txt",
        "Marie Curie won Nobel Prizes in physics and chemistry.",
        "Marie Curie won Nobel Prizes in literature and peace.",
    ),
    (
        "penicillin.html",
        "Penicillin was discovered by Alexander Fleming.",
        "Penicillin was discovered by Louis Pasteur.",
    ),
];

/// The support of each case's supported and changed claim.
fn demo_supports(nli: &dyn Nli) -> Vec<(f64, f64)> {
    DEMO_CASES
        .iter()
        .map(|(file, supported, changed)| {
            let evidence = demo(file);
            (support(nli, &evidence, supported), support(nli, &evidence, changed))
        })
        .collect()
}

#[test]
fn the_shipped_verifier_ranks_supported_claims_above_changed_ones() {
    let model = CrossEncoderNli::load(&shipped()).expect("the shipped verifier loads");
    assert_eq!(model.labels().count, 2, "a two-label classifier");
    assert_eq!(model.max_tokens(), 256, "reads pairs as long as those it was trained on");
    let nli = verifier();
    let supports = demo_supports(&*nli);
    let right_order = supports.iter().filter(|(yes, no)| yes > no).count();
    assert_eq!(right_order, 4, "pairs ranked right: {supports:?}");
    // The true claims pass but for the penicillin page's, whose support comes from a longer
    // premise, which the calibration discounts (the model card lists the figures).
    let passed = supports.iter().filter(|(yes, _)| *yes >= 0.5).count();
    assert!(passed >= 3, "{supports:?}");
}

/// What the verifier should do and does not yet: a claim with one fact changed (a family, a
/// year, a field) scores lower than the true claim but still above 0.5 when its words match
/// the evidence, a true claim can fall below 0.5, and a page on another topic can still give
/// a claim more than 0.5 (the model card lists the figures). Run with
/// `cargo test -- --ignored`.
#[test]
#[ignore = "known weakness of the shipped verifier: most minimal edits and some other topics still score above 0.5"]
fn the_shipped_verifier_rejects_changed_facts_and_other_topics() {
    let nli = verifier();
    let supports = demo_supports(&*nli);
    assert!(supports.iter().all(|(yes, no)| *yes >= 0.5 && *no < 0.5), "{supports:?}");
    for (file, claim) in [
        ("okra.md", "Mount Everest was first climbed in 1953."),
        ("mount-everest.txt", "Penicillin was discovered by Alexander Fleming."),
        ("penicillin.html", "Okra belongs to the mallow family."),
    ] {
        let value = support(&*nli, &demo(file), claim);
        assert!(value < 0.5, "{file} supports '{claim}' at {value}");
    }
}

#[test]
fn bad_text_gets_an_answer_not_a_panic() {
    let nli = verifier();
    // 100 000 characters of evidence without punctuation; a claim far longer than the window.
    let long_evidence = "the committee met again and again ".repeat(3000);
    let long_claim = "the committee met again ".repeat(120);
    for (evidence, claim) in [
        ("", "Okra is a plant."),
        ("Okra is a plant.", ""),
        (long_evidence.as_str(), long_claim.as_str()),
        ("オクラはアオイ科の植物である。", "オクラはバラ科の植物である。"),
        ("\u{0}\u{1}\u{feff}", "\u{202e}abc"),
    ] {
        let value = support(&*nli, evidence, claim);
        assert!((0.0..=1.0).contains(&value), "{value}");
    }
}

/// The calibration ships beside the weights and discounts longer premises, and a premise of
/// one sentence keeps about the model's own judgement.
#[test]
fn the_shipped_calibration_discounts_longer_premises() {
    let weights = CalibrationWeights::load(&shipped())
        .expect("calibration.json reads")
        .expect("the verifier ships calibration.json");
    assert!(weights.extra_sentence > 0.0, "{weights:?}");
    assert!(weights.apply(0.9, 4, 0.0) < weights.apply(0.9, 1, 0.0));
    assert!(weights.apply(0.95, 1, 0.0) > 0.5 && weights.apply(0.05, 1, 0.0) < 0.5, "{weights:?}");
    // A broken calibration stops the verifier from loading instead of being skipped.
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(folder.path().join(calibration::CALIBRATION_FILE), "{}").unwrap();
    let model = CrossEncoderNli::load(&shipped()).unwrap();
    let error =
        calibration::with_shipped_calibration(Arc::new(model), folder.path()).err().unwrap();
    assert!(error.contains("not a calibration file"), "{error}");
}

#[test]
fn a_weights_folder_of_another_kind_is_refused_by_name() {
    let folder = tempfile::tempdir().unwrap();
    for file in ["config.json", "tokenizer.json", "model.safetensors"] {
        std::fs::copy(shipped().join(file), folder.path().join(file)).unwrap();
    }
    // Corrupt weights: the error names the file.
    std::fs::write(folder.path().join("model.safetensors"), b"not safetensors").unwrap();
    let error = CrossEncoderNli::load(folder.path()).unwrap_err().to_string();
    assert!(error.contains("model.safetensors"), "{error}");
    // Another architecture (with good weights).
    std::fs::copy(shipped().join("model.safetensors"), folder.path().join("model.safetensors"))
        .unwrap();
    let config = std::fs::read_to_string(shipped().join("config.json")).unwrap();
    std::fs::write(folder.path().join("config.json"), config.replace("\"bert\"", "\"gpt2\""))
        .unwrap();
    let error = CrossEncoderNli::load(folder.path()).unwrap_err().to_string();
    assert!(error.contains("gpt2"), "{error}");
}

fn range(split: &serde_json::Value, dataset: &str, part: &str) -> (u64, u64) {
    let pair = &split[dataset][part];
    (pair[0].as_u64().unwrap(), pair[1].as_u64().unwrap())
}

#[test]
fn the_split_keeps_evaluation_items_out_of_training() {
    let split: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("training/verifier/split.json")).unwrap(),
    )
    .unwrap();
    // The ranges the project's rules fix: evaluation is QA 5000–9999, summarization 8000–9999.
    assert_eq!(range(&split, "qa", "eval"), (5000, 10000));
    assert_eq!(range(&split, "summarization", "eval"), (8000, 10000));
    for dataset in ["qa", "summarization"] {
        let (train, dev, eval) = (
            range(&split, dataset, "train"),
            range(&split, dataset, "dev"),
            range(&split, dataset, "eval"),
        );
        assert!(train.1 <= dev.0 && dev.1 <= eval.0, "{dataset}: ranges overlap");
    }
    // The shipped model's training record lists the items it read: all in the training range.
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(shipped().join("training.json")).unwrap())
            .unwrap();
    assert_eq!(record["claim_only"], false);
    for dataset in ["qa", "summarization"] {
        let (start, end) = range(&split, dataset, "train");
        let items = record["items"][dataset].as_array().unwrap();
        assert!(!items.is_empty(), "{dataset}: no items recorded");
        for item in items {
            let item = item.as_u64().unwrap();
            assert!((start..end).contains(&item), "{dataset} item {item} is outside training");
        }
    }
}

/// A HaluEval-shaped folder in which every item outside the training and dev ranges carries
/// the word EVALONLY, and the dialogue file holds nothing else.
fn poisoned_halueval(dir: &Path) {
    let write = |name: &str, lines: Vec<String>| {
        std::fs::write(dir.join(name), lines.join("\n") + "\n").unwrap();
    };
    let mark = |number: usize, limit: usize| if number >= limit { " EVALONLY" } else { "" };
    write(
        "dataset_halueval_qa.jsonl",
        (0..10000)
            .map(|n| {
                let m = mark(n, 5000);
                serde_json::json!({
                    "knowledge": format!("Item {n} lives in Paris{m}. It was founded in {}{m}.", 1900 + n % 100),
                    "question": format!("Where does item {n} live{m}?"),
                    "right_answer": format!("Paris{m}"),
                    "hallucinated_answer": format!("Item {n} lives in Rome{m}."),
                })
                .to_string()
            })
            .collect(),
    );
    write(
        "dataset_halueval_summarization.jsonl",
        (0..10000)
            .map(|n| {
                let m = mark(n, 8000);
                serde_json::json!({
                    "document": format!("Mayor Anna Berg opened bridge {n} on Monday{m}. The bridge cost 40 million dollars{m}. It has 3 lanes{m}."),
                    "right_summary": format!("Bridge {n} was opened by Anna Berg{m}. It cost 40 million dollars{m}."),
                    "hallucinated_summary": format!("Bridge {n} was opened by Tom Hale{m}. It cost 90 million dollars{m}."),
                })
                .to_string()
            })
            .collect(),
    );
    write("dataset_halueval_dialogue.jsonl", vec!["{\"EVALONLY\": \"EVALONLY\"}".into(); 10]);
}

#[test]
fn training_examples_are_deterministic_and_never_read_an_evaluation_item() {
    let dir = tempfile::tempdir().unwrap();
    poisoned_halueval(dir.path());
    let build = |part: &str, out: &str| {
        let status = Command::new("python3")
            .arg(root().join("training/verifier/data.py"))
            .arg(dir.path())
            .arg(dir.path().join(out))
            .args(["--part", part, "--limit", "60"])
            .status()
            .expect("python3 runs");
        assert!(status.success());
        std::fs::read_to_string(dir.path().join(out)).unwrap()
    };
    let first = build("train", "a.jsonl");
    assert_eq!(first, build("train", "b.jsonl"), "the same seed gives the same examples");
    let dev = build("dev", "dev.jsonl");
    for text in [&first, &dev] {
        assert!(text.lines().count() > 100, "too few examples");
        assert!(!text.contains("EVALONLY"), "an evaluation item reached the examples");
    }
    // Counterfactual kinds give a claim of each style both labels, so the claims alone do not
    // tell the label.
    let labels_of = |kind: &str| -> std::collections::BTreeSet<i64> {
        first
            .lines()
            .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
            .filter(|example| example["kind"] == kind)
            .map(|example| example["label"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(labels_of("qa-counterfactual"), [0, 1].into());
    assert_eq!(labels_of("summary-counterfactual"), [1].into());
    assert_eq!(labels_of("summary-perturbed-counterfactual"), [0, 1].into());
    assert_eq!(labels_of("summary"), [0, 1].into());
    // The evaluation part cannot be built at all.
    let refused = Command::new("python3")
        .arg(root().join("training/verifier/data.py"))
        .arg(dir.path())
        .arg(dir.path().join("eval.jsonl"))
        .args(["--part", "eval"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(!dir.path().join("eval.jsonl").exists());
}
