"""Contrast sets for Factdesk's verifier: sentences of HaluEval's right news summaries, each
beside its twin with one fact changed (edits.py), judged against the summary's article.

    python3 contrast.py DATA_DIR OUT.jsonl --range dev|eval [--per-kind 200] [--seed 13]

`--range dev` takes summarization items 7500-7999 (the dev slice of the training range: for
tuning), `--range eval` items 8000-9999 (the evaluation range: for reported figures only,
never for tuning or training); both ranges are read from split.json beside this file, and no
other range is accepted. The dialogue file is not read.

For each item, the right summary is cut into sentences and a sentence is kept when the article
holds most of its content words (`--min-support`, default 0.8: a sentence the article does not
support cannot show that a changed fact is caught). One kept sentence, chosen by the seed, is
the item's `original` case (expected supported) and its `someone-else` case (the same sentence
against the next item's article: expected not supported). For each edit kind of edits.py
(number, year, name-same, name-other, negation, antonym, role) the item gives one case: the
same sentence edited if that kind applies to it, else the first kept sentence (in the seed's
order) it applies to (expected not supported). Each kind is then cut to `--per-kind` cases,
items drawn by the seed. The same arguments give the same file.

One JSON object per line: {"item", "kind", "article", "claim", "original", "old", "new"} —
the item's line number in the file, the kind, the evidence, the sentence to judge, the
unedited sentence, and the words taken out and put in (null for `original` and
`someone-else`).

Standard library only.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import edits  # noqa: E402
from data import load_split, read_items  # noqa: E402

RANGES = ("dev", "eval")
KINDS = ("original",) + edits.KINDS + ("someone-else",)
# Other articles whose names `name-other` may take: the next few items of the range.
OTHER_ARTICLES = 3


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def support_share(sentence: str, article_words: set[str]) -> float:
    """The share of the sentence's content words (plural -s aside) that the article holds."""
    wanted = {_stem(word) for word in edits.words(sentence)}
    if not wanted:
        return 0.0
    return len(wanted & article_words) / len(wanted)


def supported_sentences(summary: str, article: str, min_support: float) -> list[str]:
    article_words = {_stem(word) for word in edits.words(article)}
    out = []
    for sentence in edits.sentences(summary):
        if len(edits.words(sentence)) >= 4 and support_share(sentence, article_words) >= min_support:
            out.append(sentence)
    return out


def case(item: int, kind: str, article: str, claim: str, original: str, change=None) -> dict:
    return {
        "item": item,
        "kind": kind,
        "article": article,
        "claim": claim,
        "original": original,
        "old": change.old if change else None,
        "new": change.new if change else None,
    }


def item_cases(
    position: int,
    items: list[tuple[int, dict]],
    tag: str,
    min_support: float,
) -> dict[str, dict]:
    """The cases of one item, by kind (kinds that apply to none of its sentences left out)."""
    number, item = items[position]
    article = item["document"]
    kept = supported_sentences(item["right_summary"], article, min_support)
    if not kept:
        return {}
    rng = random.Random(f"{tag}:{number}")
    order = list(kept)
    rng.shuffle(order)
    chosen = order[0]
    following = [items[(position + step) % len(items)][1]["document"] for step in range(1, OTHER_ARTICLES + 1)]
    out = {
        "original": case(number, "original", article, chosen, chosen),
        "someone-else": case(number, "someone-else", following[0], chosen, chosen),
    }
    for kind in edits.KINDS:
        kind_rng = random.Random(f"{tag}:{number}:{kind}")
        for sentence in order:
            change = edits.edit(kind, sentence, kind_rng, article=article, others=following)
            if change and change.text != sentence:
                out[kind] = case(number, kind, article, change.text, sentence, change)
                break
    return out


def build(data_dir: Path, part: str, per_kind: int, seed: int, min_support: float) -> tuple[list[dict], dict]:
    if part not in RANGES:
        raise SystemExit(f"contrast sets are built from the dev or eval range only, not {part!r}")
    split = load_split()["summarization"]
    start, end = split[part]
    items = read_items(data_dir / split["file"], start, end)
    tag = f"{seed}:{part}"
    by_kind: dict[str, list[dict]] = {kind: [] for kind in KINDS}
    for position in range(len(items)):
        for kind, made in item_cases(position, items, tag, min_support).items():
            by_kind[kind].append(made)
    out = []
    counts = {}
    for kind in KINDS:
        available = by_kind[kind]
        chosen = available
        if len(available) > per_kind:
            chosen = random.Random(f"{tag}:{kind}:sample").sample(available, per_kind)
            chosen.sort(key=lambda made: made["item"])
        counts[kind] = {"available": len(available), "kept": len(chosen)}
        out.extend(chosen)
    return out, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir", type=Path, help="the folder of HaluEval's JSONL files")
    parser.add_argument("out", type=Path, help="JSONL file to write")
    parser.add_argument("--range", dest="part", required=True, help="dev (tuning) or eval (reporting only)")
    parser.add_argument("--per-kind", type=int, default=200, help="at most this many cases per kind")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument(
        "--min-support",
        type=float,
        default=0.8,
        help="share of a sentence's content words the article must hold for the sentence to be used",
    )
    args = parser.parse_args()
    if args.part not in RANGES:
        parser.error(f"--range must be dev or eval, not {args.part!r}")
    if args.per_kind < 1:
        parser.error("--per-kind must be at least 1")
    cases, counts = build(args.data_dir, args.part, args.per_kind, args.seed, args.min_support)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    partial = args.out.with_name(args.out.name + ".part")
    with partial.open("w", encoding="utf-8") as out:
        for made in cases:
            out.write(json.dumps(made, ensure_ascii=False) + "\n")
    partial.replace(args.out)
    summary = ", ".join(f"{kind} {c['kept']}/{c['available']}" for kind, c in counts.items())
    print(f"{args.out}: {len(cases)} cases from the {args.part} range ({summary})", file=sys.stderr)


if __name__ == "__main__":
    main()
