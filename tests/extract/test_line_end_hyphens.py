"""A hyphen at a PDF line's end: the page text never invents a word the page does not print, and
verify accepts a quote with or without such a hyphen as exact (``pagerecall.extract.hyphenation``)."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from tests.conftest import shared_path
from pagerecall.extract.hyphenation import PageWords
from pagerecall.verify import read_page, verify_quote


DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


def _pdf(path: Path, lines: list[str], embedded: bool = False) -> Path:
    """A one-page PDF with ``lines`` set one under the other in one paragraph (a real PDF written by
    MuPDF, read back by pagerecall's own extraction). ``embedded``: DejaVu Sans embedded with a
    ToUnicode map that keeps U+00AD (Helvetica's encoding turns a soft hyphen into ``-``)."""
    font = {"fontname": "helv"}
    if embedded:
        if not DEJAVU.is_file():
            pytest.skip(f"needs {DEJAVU} (Debian: apt-get install fonts-dejavu-core)")
        font = {"fontname": "F0", "fontfile": str(DEJAVU)}
    with pymupdf.open() as doc:
        page = doc.new_page()
        page.insert_text((72, 100), "\n".join(lines), fontsize=11, **font)
        doc.save(path)
    return path


def test_tracemonkey_keeps_trace_compilation_and_verify_takes_both_readings():
    folder = shared_path("pdfs", "adversarial")
    text = read_page(folder, "tracemonkey.pdf", 2).text
    assert "our trace-\ncompilation based" in text and "tracecompilation" not in text
    assert "TraceMonkey" in text and "Trace-\nMonkey" not in text  # printed whole on the page: joined
    for quote in ("we describe our trace-compilation based speculative type specialization",
                  "we describe our tracecompilation based speculative type specialization",
                  "we describe our trace-\ncompilation based speculative type specialization"):
        res = verify_quote(folder, quote, "tracemonkey.pdf", page=2)
        assert res.match == "exact" and res.page == 2, (quote, res.match)
        assert res.matched_text == "we describe our trace-\ncompilation based speculative type specialization"
    # a space in place of the hyphen is no reading of the page
    res = verify_quote(folder, "we describe our trace compilation based speculative type", "tracemonkey.pdf", page=2)
    assert res.match not in ("exact", "normalised")


def test_german_compound_kept_and_a_printed_word_joined(tmp_path):
    _pdf(tmp_path / "de.pdf", ["Die Paket-", "verwaltung installiert Programme aus dem Netz und", "die Abhän-",
                               "gigkeiten werden aufgelöst; alle Abhängigkeiten werden geprüft."])
    text = read_page(tmp_path, "de.pdf", 1).text
    assert "Paket-\nverwaltung" in text and "Paketverwaltung" not in text
    assert "die Abhängigkeiten werden" in text and "Abhän-" not in text  # printed whole further on
    for quote in ("Die Paket-verwaltung installiert", "Die Paketverwaltung installiert"):
        res = verify_quote(tmp_path, quote, "de.pdf", page=1)
        assert res.match == "exact" and res.matched_text == "Die Paket-\nverwaltung installiert", quote


def test_soft_hyphen_at_a_line_end_always_joins(tmp_path):
    _pdf(tmp_path / "soft.pdf", ["Die Paket\u00ad", "verwaltung installiert Programme."], embedded=True)
    text = read_page(tmp_path, "soft.pdf", 1).text
    assert "Paketverwaltung installiert" in text and "\u00ad" not in text
    res = verify_quote(tmp_path, "Die Paketverwaltung installiert", "soft.pdf", page=1)
    assert res.match == "exact"


@pytest.mark.parametrize("lines,head,hyphen,tail,joined", [
    (["our trace-", "compilation"], "our trace", "-", "compilation", False),
    (["Trace-", "Monkey", "TraceMonkey runs"], "Trace", "-", "Monkey", True),
    (["two-column text", "two-", "column and twocolumn"], "two", "-", "column", False),  # printed hyphenated
    (["Paket\u00ad", "verwaltung"], "Paket", "\u00ad", "verwaltung", True),
])
def test_page_words_decision(lines, head, hyphen, tail, joined):
    assert PageWords(lines).join(head, hyphen, tail) is joined
