#!/usr/bin/env python3
"""Builds assets/demo/wikipedia.zim: a tiny offline Wikipedia made of the demo corpus.

Each demo document becomes an article under the title Wikipedia gives its subject
("The Eiffel Tower" is the article "Eiffel Tower"), written as HTML the way Kiwix's Wikipedia
files store articles (new namespace scheme: articles in "C", paths with underscores), plus a
few of Wikipedia's redirects ("Abelmoschus esculentus" leads to "Okra"). Factdesk reads it
with `fetch.wikipedia_zim`, so the demo's LLM-Cite check runs with no network.

Usage: python3 scripts/make-demo-zim.py [OUT]  (needs PyPI `libzim`; scripts/demo.sh does not
run this, the built file is committed).
"""

import csv
import html
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

from libzim.writer import Creator

from zim_article import Article

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "assets" / "demo" / "corpus"

# Demo document title (or file stem) -> the Wikipedia article title of its subject.
TITLES = {
    "okra": "Okra",
    "marie-curie": "Marie Curie",
    "mount-everest": "Mount Everest",
    "great-barrier-reef": "Great Barrier Reef",
    "apollo-11": "Apollo 11",
    "eiffel-tower": "Eiffel Tower",
    "penicillin": "Penicillin",
    "Venus": "Venus",
    "The speed of light": "Speed of light",
    "The Amazon River": "Amazon River",
    "The Great Wall of China": "Great Wall of China",
    "The Sahara": "Sahara",
}

# Redirects as Wikipedia has them: source title -> article title.
REDIRECTS = {
    "Abelmoschus esculentus": "Okra",
    "Lady's fingers": "Okra",
    "Maria Skłodowska-Curie": "Marie Curie",
    "Everest": "Mount Everest",
    "Apollo XI": "Apollo 11",
    "Tour Eiffel": "Eiffel Tower",
    "Great wall of china": "Great Wall of China",
    "Sahara Desert": "Sahara",
}


class Paragraphs(HTMLParser):
    """The text of an HTML page's headings and paragraphs, skipping its navigation."""

    def __init__(self):
        super().__init__()
        self.blocks, self.current, self.depth = [], None, 0

    def handle_starttag(self, tag, attrs):
        if tag in ("p", "h2", "h3", "li") and self.current is None:
            self.current = (tag, [])

    def handle_endtag(self, tag):
        if self.current and tag == self.current[0]:
            text = " ".join("".join(self.current[1]).split())
            if text:
                self.blocks.append((tag, text))
            self.current = None

    def handle_data(self, data):
        if self.current:
            self.current[1].append(data)


def blocks_of(path):
    """(tag, text) blocks of one demo file: headings as h2, the rest as paragraphs."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".html":
        parser = Paragraphs()
        parser.feed(text)
        return parser.blocks
    blocks = []
    for number, block in enumerate(re.split(r"\n\s*\n", text)):
        block = " ".join(block.split())
        if not block or (number == 0 and path.suffix == ".txt"):
            continue  # the plain-text files open with their title
        if block.startswith("# "):
            continue
        if block.startswith("## "):
            blocks.append(("h2", block[3:]))
        else:
            blocks.append(("p", re.sub(r"\*([^*]+)\*", r"\1", block)))
    return blocks


def documents():
    """(article title, blocks) for every demo document."""
    for path in sorted(CORPUS.iterdir()):
        if path.suffix in (".md", ".txt", ".html"):
            yield TITLES[path.stem], blocks_of(path)
        elif path.suffix == ".csv":
            with path.open(encoding="utf-8", newline="") as rows:
                for row in csv.DictReader(rows):
                    yield TITLES[row["title"]], [("p", row["text"])]
        elif path.suffix == ".jsonl":
            for line in path.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                yield TITLES[row["title"]], [("p", row["text"])]


def page(title, blocks):
    body = "\n".join(f"<{tag}>{html.escape(text)}</{tag}>" for tag, text in blocks)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title></head>\n<body>\n"
        f'<h1 id="firstHeading">{html.escape(title)}</h1>\n'
        f'<div id="mw-content-text">\n{body}\n</div>\n</body></html>\n'
    )


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "assets" / "demo" / "wikipedia.zim"
    out.unlink(missing_ok=True)
    with Creator(str(out)).config_indexing(False, "eng") as creator:
        creator.set_mainpath("Okra")
        for name, value in [
            ("Name", "wikipedia_en_factdesk-demo"),
            ("Title", "Factdesk demo Wikipedia"),
            ("Description", "The Factdesk demo corpus as Wikipedia articles"),
            ("Language", "eng"),
            ("Source", "en.wikipedia.org"),
            ("Creator", "Factdesk"),
            ("Publisher", "Factdesk"),
            ("Date", "2026-11-25"),
        ]:
            creator.add_metadata(name, value)
        titles = set()
        for title, blocks in documents():
            creator.add_item(Article(title, page(title, blocks)))
            titles.add(title)
        for source, target in REDIRECTS.items():
            assert target in titles, target
            creator.add_redirection(source.replace(" ", "_"), source, target.replace(" ", "_"), {})
    print(f"wrote {out} ({out.stat().st_size} bytes, {len(titles)} articles)")


if __name__ == "__main__":
    main()
