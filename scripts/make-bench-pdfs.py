#!/usr/bin/env python3
"""Writes PDFs for scripts/bench-pdf.sh: the first N news articles of HaluEval's summarization
file set as A4 pages with reportlab (wrapped lines, a page break every 45 lines, title in the
metadata), so that PDF import can be timed on realistic prose.

Usage: python3 scripts/make-bench-pdfs.py HALUEVAL_SUMMARIZATION_JSONL N OUT_DIR
"""

import json
import sys
import textwrap
from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.lib.units import cm
from reportlab.pdfgen import canvas


def main():
    source, count, out = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)
    with source.open(encoding="utf-8") as lines:
        for number, line in zip(range(count), lines):
            article = json.loads(line)["document"]
            pdf = canvas.Canvas(str(out / f"article-{number:05}.pdf"), pagesize=A4, invariant=1)
            pdf.setTitle(f"HaluEval news article {number}")
            pdf.setFont("Helvetica", 10)
            y = 27 * cm
            for paragraph in article.split("\n"):
                wrapped = textwrap.wrap(paragraph.encode("latin-1", "replace").decode("latin-1"), 95) or [""]
                for row in wrapped + [""]:
                    if y < 2 * cm:
                        pdf.showPage()
                        pdf.setFont("Helvetica", 10)
                        y = 27 * cm
                    pdf.drawString(2 * cm, y, row)
                    y -= 13
            pdf.showPage()
            pdf.save()
    total = sum(path.stat().st_size for path in out.glob("*.pdf"))
    print(f"wrote {count} PDFs to {out} ({total / 2**20:.1f} MiB)")


if __name__ == "__main__":
    main()
