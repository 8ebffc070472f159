"""A passage's pointer starts on the page where its text starts (issue 36.3).

A page whose last line is a page number ("…end of a sentence.\\n43") gave the next chunk a start
at that number (a sentence starts after the "."), so the chunk ran from the number on page p
into page p + 1 and its pointer said page p: one page early. The real case: maint-guide.en.pdf,
the table of contents of physical page 5 ends with a lone "43". Real tokenizer, real PDF.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pagerecall.ingest.chunking import chunk_document
from pagerecall.config import ChunkParams
from pagerecall.model.tokenization import load_default_tokenizer
from pagerecall.types import Document, Page
from tests.conftest import shared_path

TOK = load_default_tokenizer()

NUMBER_ONLY = re.compile(r"[\s\-–—()\[\]]*(?:page\s*)?(?:\d{1,5}|[ivxlcdm]{1,8})[\s\-–—()\[\]]*", re.IGNORECASE)


def _early(doc: Document, chunks) -> list[tuple[int, int, int, str]]:
    """Chunks spanning pages whose part on their first page is only a page number (a chunk that holds
    nothing but page numbers, from pages that print only their number, has no text to point at)."""
    pages = {p.number: p for p in doc.pages}
    out = []
    for c in chunks:
        if all(NUMBER_ONLY.fullmatch(line) for line in c.text.splitlines() if line.strip()):
            continue
        if c.page_start < c.page_end:
            head = pages[c.page_start].text[c.char_start:]
            # a page that prints nothing but its number: the chunk's text does start there
            if NUMBER_ONLY.fullmatch(head) and pages[c.page_start].text[:c.char_start].strip():
                out.append((c.seq, c.page_start, c.page_end, head.strip()))
    return out


def _sentences(n: int, word: str) -> str:
    return " ".join(f"The {word} keeper writes entry {i} in the station journal before dusk." for i in range(n))


@pytest.mark.parametrize("number", ["43", "xii", "- 7 -", "Page 12"])
def test_a_trailing_page_number_does_not_pull_the_pointer_one_page_early(number: str) -> None:
    doc = Document(path="log.txt", kind="txt", pages=(
        Page(1, _sentences(6, "lamp") + "\n" + number, "1", "ok"),
        Page(2, _sentences(9, "bell"), "2", "ok"),
    ))
    params = ChunkParams(max_tokens=120, overlap_tokens=24, min_tokens=16)
    chunks = chunk_document(doc, TOK, params)
    assert len(chunks) > 1
    assert _early(doc, chunks) == []
    # the number itself is still in a passage (the one before, which ends on page 2)
    assert any(number in c.text for c in chunks)


def test_real_manual_pointers_start_where_the_text_starts() -> None:
    from pagerecall.extract.sources import read_document

    pdf = shared_path("corpora", "demo", "maint-guide.en.pdf")
    doc = read_document(Path(pdf), "maint-guide.en.pdf", ocr="off")
    doc = Document(path=doc.path, kind=doc.kind, pages=doc.pages[:12])
    chunks = chunk_document(doc, TOK)
    assert _early(doc, chunks) == []


def test_a_table_of_contents_line_ending_a_page_does_not_pull_the_pointer_early() -> None:
    """gnuplot's manual: page 11 ends with "Locale . . . . . 167"; the leader dots end a
    "sentence", so the overlap started at "167" and the chunk pointed at page 11."""
    from pagerecall.extract.sources import read_document

    pdf = shared_path("corpora", "bench", "manuals-misc", "gnuplot.pdf")
    doc = read_document(Path(pdf), "gnuplot.pdf", ocr="off")
    doc = Document(path=doc.path, kind=doc.kind, pages=doc.pages[:14])
    chunks = chunk_document(doc, TOK)
    assert _early(doc, chunks) == []


def test_pages_ending_in_page_numbers_keep_every_chunk_invariant() -> None:
    """The chunker's invariants (sizes, slicing, labels, order, coverage of every character) and
    the overlap window hold on pages that all end with their page number, and a pointer starts
    early only where the rule cannot move it (hypothesis over ``tests/ingest/test_chunking.py``'s strategies)."""
    from hypothesis import given
    from hypothesis import strategies as st

    from tests.ingest.test_chunking import PROPS, chunk_params, check_invariants, documents, g_span, global_offsets, joined

    @PROPS
    @given(documents(), chunk_params(), st.sampled_from(["\n{n}", "\n- {n} -", "\nPage {n}"]))
    def run(doc: Document, params: ChunkParams, folio: str) -> None:
        doc = Document(path=doc.path, kind=doc.kind, pages=tuple(
            Page(p.number, p.text + folio.format(n=p.number), p.label, p.status) for p in doc.pages))
        chunks = chunk_document(doc, TOK, params)
        check_invariants(doc, chunks, params)
        offsets, text, o = global_offsets(doc), joined(doc), params.overlap_tokens
        for a, b in zip(chunks, chunks[1:]):
            (_, a_end), (b_start, _) = g_span(offsets, a), g_span(offsets, b)
            shared = len(TOK.token_spans(text[b_start:a_end])) if b_start < a_end else 0
            assert shared <= o + o // 2 + 2
        for seq, start, _end, _head in _early(doc, chunks):
            # only where moving would lose the number (the chunk before ends on this page: no
            # overlap to keep it), or for the last chunk, which starts min_tokens before the end
            assert seq == 0 or chunks[seq - 1].page_end == start or seq == len(chunks) - 1, (seq, start)

    run()
