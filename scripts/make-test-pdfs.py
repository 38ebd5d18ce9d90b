#!/usr/bin/env python3
"""Writes the PDFs Factdesk's tests import (tests/fixtures/pdf/), with reportlab, the way
reports and filings are made: a multi-page report with title and date in its metadata, a
two-column page, non-ASCII text in an embedded TrueType font, a scanned page (an image, no
text layer) and a password-protected file. The files are committed; run this again only to
change them.

Usage: python3 scripts/make-test-pdfs.py [OUT_DIR]  (needs PyPI reportlab and the DejaVu fonts)
"""

import sys
import zlib
from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.lib.units import cm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas
from reportlab.lib import pdfencrypt

ROOT = Path(__file__).resolve().parent.parent
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def lines(pdf, x, y, texts, font="Helvetica", size=11, leading=15):
    pdf.setFont(font, size)
    for text in texts:
        pdf.drawString(x, y, text)
        y -= leading
    return y


def new(path, title=None, **options):
    pdf = canvas.Canvas(str(path), pagesize=A4, invariant=1, **options)
    if title:
        pdf.setTitle(title)
    pdf.setAuthor("Factdesk tests")
    pdf.setCreator("scripts/make-test-pdfs.py")
    return pdf


def dated(path, date):
    """Sets the file's CreationDate (invariant=1 writes 2000-01-01) in place: the same number
    of bytes, so the cross-reference offsets stay right."""
    data = path.read_bytes()
    old = b"/CreationDate (D:20000101000000+00'00')"
    new = b"/CreationDate (D:" + date.replace("-", "").encode() + b"090000+00'00')"
    assert len(old) == len(new) and data.count(old) == 1
    path.write_bytes(data.replace(old, new))


def report(out):
    pdf = new(out / "report.pdf", title="Harbour Authority Annual Report 2023")
    pages = [
        ["Harbour Authority Annual Report 2023", "",
         "The harbour handled 4.2 million tonnes of cargo in 2023.",
         "Container traffic rose by 8 percent compared with 2022."],
        ["Finances", "",
         "Revenue reached 61 million euros, the highest in the authority's history.",
         "The new north quay cost 12 million euros and opened in May."],
        ["Outlook", "",
         "The authority expects the dredging of the main channel to finish in 2025.",
         "Passenger ferries will move to the east terminal next spring."],
    ]
    for page in pages:
        lines(pdf, 2.5 * cm, 26 * cm, page)
        pdf.showPage()
    pdf.save()
    dated(out / "report.pdf", "2024-03-05")


def two_columns(out):
    pdf = new(out / "two-columns.pdf", title="River Survey")
    left = ["The river survey began in April.", "Engineers measured the depth",
            "at forty points along the bank.", "The deepest point was 9 metres."]
    right = ["Fish counts fell in the summer.", "Biologists blame the warm water",
             "that followed a dry spring.", "Counts recovered by October."]
    lines(pdf, 2 * cm, 26 * cm, ["River Survey"], size=14)
    lines(pdf, 2 * cm, 24 * cm, left)
    lines(pdf, 11 * cm, 24 * cm, right)
    pdf.showPage()
    pdf.save()


def non_ascii(out):
    pdfmetrics.registerFont(TTFont("DejaVu", FONT))
    pdf = new(out / "non-ascii.pdf", title="Café Zürich – Überblick")
    lines(pdf, 2 * cm, 26 * cm, [
        "Das Café in Zürich öffnete 1911 am Seeufer.",
        "Σωκράτης γεννήθηκε στην Αθήνα.",
        "Москва — столица России.",
        "Crème brûlée costs 7,50 € at the café.",
    ], font="DejaVu")
    pdf.showPage()
    pdf.save()


def scanned(out):
    """A page that is only an image of text, as a scanner makes: no text layer."""
    pdf = new(out / "scanned.pdf", title="Scanned letter")
    width, height = 200, 40
    pixels = bytearray()
    for row in range(height):
        pixels += bytes(0 if (row // 4 + column // 6) % 2 else 255 for column in range(width))
    from reportlab.lib.utils import ImageReader
    import io
    import struct

    def png(width, height, gray):
        def chunk(kind, data):
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
        raw = b"".join(b"\x00" + bytes(gray[r * width:(r + 1) * width]) for r in range(height))
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))

    pdf.drawImage(ImageReader(io.BytesIO(png(width, height, pixels))), 2 * cm, 20 * cm, 15 * cm, 3 * cm)
    pdf.showPage()
    pdf.save()


def encrypted(out):
    lock = pdfencrypt.StandardEncryption("secret", ownerPassword="owner", canPrint=1)
    pdf = new(out / "encrypted.pdf", title="Confidential memo", encrypt=lock)
    lines(pdf, 2 * cm, 26 * cm, ["This memo is confidential."])
    pdf.showPage()
    pdf.save()


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests" / "fixtures" / "pdf"
    out.mkdir(parents=True, exist_ok=True)
    for make in (report, two_columns, non_ascii, scanned, encrypted):
        make(out)
    for path in sorted(out.glob("*.pdf")):
        print(f"{path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
