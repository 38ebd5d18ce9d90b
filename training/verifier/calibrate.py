"""Fits the verifier's calibration (calibration.json): the weights of

    P(supported) = sigmoid(w_nli * logit(P_model(entailment)) - w_extra * (sentences - 1)
                           - w_missing * missing + bias)

for each (premise, claim sentence) pair, where `sentences` is how many evidence sentences the
premise joins and `missing` the share of the claim sentence's terms the premise lacks (both
computed by crates/factdesk-methods/src/calibration.rs and written into the dump). A claim's
support is then, as at run time, the maximum over a sentence's cumulative premises and the
minimum over its sentences, so the weights are fitted on whole claims.

w_extra is chosen from a grid by cross-validation, with w_missing either fitted or held at 0
(so the dump shows what the missing-terms feature adds): for each choice, the items are
split in folds by item number, the other weights fitted on the other folds (scipy minimising
the class-balanced log loss of the claims' supports: each dataset and label weighs the same,
swapped-evidence claims count as not supported), and the choice kept is the one whose
held-out ROC AUC, averaged over the datasets, is highest. Then its weights are fitted on
every item.

Input: what `factdesk-bench verifier --dev --dump FILE` wrote for the dev slice of the
training range (training/verifier/split.json), with the uncalibrated model. A dump of any
other range is refused: the evaluation range only reports.

    python calibrate.py DUMP.jsonl [DUMP.jsonl ...] OUT/calibration.json [--folds 2]

Prints the dev figures of the model alone, then for each w_extra those of each fold's items
scored by weights fitted on the other folds, then writes the weights fitted on all of it.

A three-label model needs nothing else: the fit reads P(entailment) only, which the
calibration rescales while it keeps the model's P(contradiction) (capped at 1 - P(supported),
crates/factdesk-methods/src/calibration.rs). When the dump also gives each premise's
"contradiction", the figures add "refuted": the share of claims Factdesk's judge would call
refuted (no premise of some sentence supports it, and one contradicts it: P(contradiction) >=
0.5 and above the calibrated P(entailment)), among the supported claims, the unsupported ones
and the swapped ones.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np
from scipy.optimize import minimize
from sklearn.metrics import roc_auc_score

SPLIT = json.loads((Path(__file__).resolve().parent / "split.json").read_text(encoding="utf-8"))
NO_PREMISE = -30.0  # a sentence with no premise has support 0, as at run time
EXTRA_GRID = [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0]


def load(paths: list[Path]) -> list[dict]:
    claims = []
    for path in paths:
        for number, line in enumerate(path.open(encoding="utf-8"), start=1):
            claim = json.loads(line)
            dataset = {"qa": "qa", "summarization": "summarization"}.get(claim.get("dataset"))
            start, end = SPLIT[dataset]["dev"] if dataset else (0, 0)
            if claim.get("range") != "dev" or not start <= claim.get("item", -1) < end:
                raise SystemExit(
                    f"{path} line {number}: {claim.get('dataset')} item {claim.get('item')} of range "
                    f"{claim.get('range')!r}; the calibration is fitted on the dev slice of "
                    "split.json only (factdesk-bench verifier --dev --dump FILE)"
                )
            claims.append(claim)
    if not claims:
        raise SystemExit("no claims in " + ", ".join(map(str, paths)))
    return claims


def features(claims: list[dict]) -> list[list[np.ndarray]]:
    """Per claim, per sentence: rows of (model logit, premise sentences - 1, missing share), one
    per premise."""
    out = []
    for claim in claims:
        sentences = []
        for sentence in claim["sentences"]:
            rows = []
            for premise in sentence["premises"]:
                p = min(max(premise["entailment"], 1e-6), 1 - 1e-6)
                if "missing" not in premise:
                    raise SystemExit("the dump has no missing-terms share per premise: write it "
                                     "again with this version of factdesk-bench verifier --dump")
                rows.append((math.log(p / (1 - p)), max(premise["sentences"], 1) - 1,
                             premise["missing"]))
            sentences.append(np.array(rows, dtype=float).reshape(-1, 3))
        out.append(sentences)
    return out


def logits(weights, feats: list[list[np.ndarray]]) -> np.ndarray:
    """Each claim's calibrated logit: max over premises, min over sentences."""
    w_nli, w_extra, w_missing, bias = weights
    out = np.empty(len(feats))
    for index, sentences in enumerate(feats):
        best = [
            float(np.max(w_nli * rows[:, 0] - w_extra * rows[:, 1] - w_missing * rows[:, 2] + bias))
            if len(rows) else NO_PREMISE
            for rows in sentences
        ]
        out[index] = min(best) if best else NO_PREMISE
    return out


def fit(claims: list[dict], extra: float, with_missing: bool) -> np.ndarray:
    """(w_nli, w_extra, w_missing, bias) with w_extra = `extra`, w_missing fitted (or 0 without
    it) and the others fitted on `claims`."""
    feats = features(claims)
    labels = np.array([1.0 if c["supported"] else 0.0 for c in claims])
    counts: dict[tuple, int] = {}
    for claim in claims:
        key = (claim["dataset"], claim["supported"])
        counts[key] = counts.get(key, 0) + 1
    weights = np.array([1.0 / counts[(c["dataset"], c["supported"])] for c in claims])

    def full(w):
        return (w[0], extra, w[2] if with_missing else 0.0, w[1])

    def loss(w):
        z = logits(full(w), feats)
        return float(np.sum(weights * (labels * np.logaddexp(0, -z) + (1 - labels) * np.logaddexp(0, z))))

    start = np.array([1.0, 0.0, 0.0] if with_missing else [1.0, 0.0])
    result = minimize(loss, x0=start, method="Nelder-Mead",
                      options={"maxiter": 4000, "xatol": 1e-4, "fatol": 1e-8})
    return np.array(full(result.x))


def mean_auc(table: dict) -> float:
    return float(np.mean([row["roc_auc"] for row in table.values() if "roc_auc" in row]))


def refuted_claims(claims: list[dict], weights) -> np.ndarray | None:
    """Whether the judge would refute each claim under `weights` (None without contradiction
    in the dump)."""
    if not all("contradiction" in p for c in claims for s in c["sentences"] for p in s["premises"]):
        return None
    feats = features(claims)
    w_nli, w_extra, w_missing, bias = weights
    out = np.zeros(len(claims), dtype=bool)
    for index, (claim, sentences) in enumerate(zip(claims, feats)):
        for sentence, rows in zip(claim["sentences"], sentences):
            if not len(rows):
                continue
            entailment = 1 / (1 + np.exp(-(w_nli * rows[:, 0] - w_extra * rows[:, 1] - w_missing * rows[:, 2] + bias)))
            if entailment.max() >= 0.5:
                continue
            contradiction = np.minimum([p["contradiction"] for p in sentence["premises"]], 1 - entailment)
            if np.any((contradiction >= 0.5) & (contradiction > entailment)):
                out[index] = True
                break
    return out


def refuted_figures(claims: list[dict], weights) -> dict | None:
    judged = refuted_claims(claims, weights)
    if judged is None:
        return None
    out = {}
    for dataset in sorted({c["dataset"] for c in claims}):
        row = {}
        for name, test in (("supported", lambda c: c["supported"] and not c["swapped"]),
                           ("unsupported", lambda c: not c["supported"] and not c["swapped"]),
                           ("swapped", lambda c: c["swapped"])):
            chosen = [j for c, j in zip(claims, judged) if c["dataset"] == dataset and test(c)]
            if chosen:
                row[name] = round(float(np.mean(chosen)), 4)
        out[dataset] = row
    return out


def figures(claims: list[dict], probabilities: np.ndarray) -> dict:
    out = {}
    for dataset in sorted({c["dataset"] for c in claims}):
        plain = [(c, p) for c, p in zip(claims, probabilities) if c["dataset"] == dataset and not c["swapped"]]
        swapped = [p for c, p in zip(claims, probabilities) if c["dataset"] == dataset and c["swapped"]]
        labels = np.array([c["supported"] for c, _ in plain], dtype=bool)
        scores = np.array([p for _, p in plain])
        judged = scores >= 0.5
        row = {"claims": len(plain)}
        if labels.any() and (~labels).any():
            row["roc_auc"] = round(float(roc_auc_score(labels, scores)), 4)
            row["balanced_accuracy"] = round(float(0.5 * (judged[labels].mean() + (~judged[~labels]).mean())), 4)
        if swapped:
            row["swapped_not_supported"] = round(float(np.mean(np.array(swapped) < 0.5)), 4)
        out[dataset] = row
    return out


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-z))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dumps", type=Path, nargs="+")
    parser.add_argument("out", type=Path)
    parser.add_argument("--folds", type=int, default=2)
    args = parser.parse_args()
    claims = load(args.dumps)
    feats = features(claims)
    alone = (1.0, 0.0, 0.0, 0.0)
    print("model alone:", json.dumps(figures(claims, sigmoid(logits(alone, feats)))))
    best = None
    for with_missing in (False, True):
        for extra in EXTRA_GRID:
            held_out = np.empty(len(claims))
            for fold in range(args.folds):
                train = [c for c in claims if c["item"] % args.folds != fold]
                weights = fit(train, extra, with_missing)
                test = [i for i, c in enumerate(claims) if c["item"] % args.folds == fold]
                held_out[test] = sigmoid(logits(weights, [feats[i] for i in test]))
            table = figures(claims, held_out)
            print(f"w_extra {extra}, missing terms {'fitted' if with_missing else 'off'}: "
                  f"held out {json.dumps(table)}")
            if best is None or mean_auc(table) > mean_auc(best[2]):
                best = (extra, with_missing, table)
    extra, with_missing, held_out_table = best
    weights = fit(claims, extra, with_missing)
    record = {
        "weights": {"nli": round(float(weights[0]), 6), "extra_sentence": round(float(weights[1]), 6),
                    "missing_words": round(float(weights[2]), 6), "bias": round(float(weights[3]), 6)},
        "fitted_on": (
            "training/verifier/calibrate.py on the dev slice of the training range ("
            + ", ".join(f"{d}: {sum(1 for c in claims if c['dataset'] == d)} claims"
                        for d in sorted({c['dataset'] for c in claims}))
            + ", items "
            + ", ".join(f"{d} {min(c['item'] for c in claims if c['dataset'] == d)}–"
                        f"{max(c['item'] for c in claims if c['dataset'] == d)}"
                        for d in sorted({c['dataset'] for c in claims}))
            + f"); w_extra chosen from {EXTRA_GRID}, and w_missing fitted or held at 0, by "
            + f"{args.folds}-fold held-out ROC AUC ({'fitted' if with_missing else 'held at 0'}), "
            + "the other weights by class-balanced log loss of claim supports"
        ),
        "dev_figures": {
            "uncalibrated": figures(claims, sigmoid(logits(alone, feats))),
            "held_out_folds": held_out_table,
            "fitted_on_all": figures(claims, sigmoid(logits(weights, feats))),
        },
    }
    refuted = {"uncalibrated": refuted_figures(claims, alone), "fitted_on_all": refuted_figures(claims, weights)}
    if refuted["fitted_on_all"] is not None:
        record["dev_figures"]["refuted"] = refuted
        print("share refuted:", json.dumps(refuted))
    print("written:", json.dumps(record["weights"]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    partial = args.out.with_suffix(".part")
    partial.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    partial.replace(args.out)


if __name__ == "__main__":
    main()
