"""Scores trained verifiers on a dev file (data.py --part dev), kind by kind, so recipes can be
compared without touching HaluEval's evaluation range: ROC AUC and balanced accuracy of each
model's own P(supported) at 0.5, and for kinds of one label the share judged correctly.

Two-label and three-label models alike (the outputs are told apart by config.json's
id2label). For a three-label model and the single pairs of a kind that have three-way labels
(data.py --labels 3), also: "refuted", the share of the contradiction-labelled pairs the
judge would refute (P(contradiction) >= 0.5 and above P(entailment)); "refuted_otherwise",
the share of the others it would refute; "neutral_kept", the share of the neutral-labelled
ones neither entailed nor refuted. A two-label model refutes nothing (shown as 0).

    python score.py DEV.jsonl MODEL_DIR [MODEL_DIR ...] [--claim-only] [--kinds K,...] [--json OUT]

--claim-only empties every premise (for claim-only controls).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch
from transformers import BertForSequenceClassification
from transformers.utils import logging as transformers_logging

sys.path.insert(0, str(Path(__file__).resolve().parent))
import train  # noqa: E402  (the trainer's scoring, so both read a group the same way)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dev", type=Path)
    parser.add_argument("models", type=Path, nargs="+")
    parser.add_argument("--claim-only", action="store_true")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--kinds", help="comma-separated kinds to score (default: every kind)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    transformers_logging.disable_progress_bar()
    transformers_logging.set_verbosity_error()
    examples = train.load(args.dev, args.claim_only)
    if args.kinds:
        wanted = set(args.kinds.split(","))
        examples = [e for e in examples if e["kind"] in wanted]
    if not examples:
        raise SystemExit(f"{args.dev}: no examples to score")
    results = {}
    for folder in args.models:
        tokenizer = train.load_tokenizer(folder, args.max_tokens)
        model = BertForSequenceClassification.from_pretrained(str(folder)).float()
        roles = train.label_roles(model.config)
        rows = train.score_rows(model, tokenizer, examples)
        three = train.three_way(rows, roles)
        if roles["contradiction"] is None:
            # refutes nothing: P(contradiction) is 0
            three = [(float(torch.sigmoid(train.entailment_logits(r, roles)[0])), 0.0) if r.shape[0] == 1 else None
                     for r in rows]
        figures = train.figures_by_kind(examples, train.group_logit_list(rows, roles), probabilities3=three)
        results[str(folder)] = figures
        for kind, row in figures.items():
            extra = "".join(f" {key}={row[key]}" for key in ("refuted", "refuted_otherwise", "neutral_kept") if key in row)
            print(f"{folder.name:>24} {kind:<34} n={row['examples']:<5} auc={row['roc_auc']} "
                  f"ba={row['balanced_accuracy']} correct={row['correct']}{extra}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
