#!/usr/bin/env python3
"""Writes a large made-up Wikipedia ZIM for scripts/bench-zim.sh: N articles of a few
kilobytes of HTML each (seeded, so every run writes the same articles), one redirect for every
fifth article, zstd clusters as libzim writes them. Also writes OUT.titles: one line per
lookup the benchmark may make ("article<TAB>title", "redirect<TAB>title").

Usage: python3 scripts/make-bench-zim.py N OUT  (needs PyPI `libzim`)
"""

import random
import sys
from pathlib import Path

from libzim.writer import Creator

from zim_article import Article

WORDS = (
    "river city council harbour museum treaty railway festival island mountain river bridge "
    "election parliament cathedral school library market province battle dynasty novel film "
    "album science theory engine bird forest desert lake canal castle tower station airport "
    "university hospital company league season champion record orchestra opera painting"
).split()
NAMES = (
    "Abel Berna Corvin Dalia Eskel Farro Galen Hestia Ivor Jarra Kelso Lumen Marit Nadir "
    "Orlan Pell Quill Rasmus Selka Tamsin Ulla Varen Wendel Xara Yorick Zelde"
).split()


def title_of(number, rng):
    return f"{rng.choice(NAMES)} {rng.choice(WORDS).capitalize()} {number}"


def html_of(title, rng):
    paragraphs = []
    for _ in range(rng.randint(4, 9)):
        sentences = []
        for _ in range(rng.randint(3, 6)):
            words = [rng.choice(WORDS) for _ in range(rng.randint(8, 20))]
            sentences.append(f"The {' '.join(words)} of {rng.choice(NAMES)} dates from {rng.randint(1200, 2024)}.")
        paragraphs.append(f"<p>{' '.join(sentences)}</p>")
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{title}</title></head><body>'
        f'<h1 id="firstHeading">{title}</h1><div id="mw-content-text">{"".join(paragraphs)}'
        "</div></body></html>"
    )


def main():
    count, out = int(sys.argv[1]), Path(sys.argv[2])
    rng = random.Random(20261125)
    out.unlink(missing_ok=True)
    lookups = []
    with Creator(str(out)).config_indexing(False, "eng") as creator:
        for name, value in [("Name", "wikipedia_en_factdesk-bench"), ("Title", "Factdesk bench"),
                            ("Language", "eng"), ("Source", "en.wikipedia.org"),
                            ("Creator", "Factdesk"), ("Publisher", "Factdesk"), ("Date", "2026-11-25"),
                            ("Description", "Made-up articles for Factdesk's ZIM benchmark")]:
            creator.add_metadata(name, value)
        for number in range(count):
            title = title_of(number, rng)
            creator.add_item(Article(title, html_of(title, rng)))
            lookups.append(f"article\t{title}")
            if number % 5 == 0:
                alias = f"{title} (alias)"
                creator.add_redirection(alias.replace(" ", "_"), alias, title.replace(" ", "_"), {})
                lookups.append(f"redirect\t{alias}")
    Path(f"{out}.titles").write_text("\n".join(lookups) + "\n", encoding="utf-8")
    print(f"wrote {out} ({out.stat().st_size >> 20} MiB, {count} articles)")


if __name__ == "__main__":
    main()
