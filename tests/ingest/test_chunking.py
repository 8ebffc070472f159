"""Chunker invariants, as hypothesis properties over the real multilingual-e5 tokenizer, plus
real PDFs from ../shared.

The reference functions below re-derive, from the documented rules only, how a chunk's text
is sliced from its pages; they do not call the chunker's internals.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pagerecall.ingest.chunk_plan import sentence_breaks
from pagerecall.ingest.chunking import SKIPPED_STATUSES, chunk_document
from pagerecall.config import ChunkParams
from pagerecall.errors import UsageError
from pagerecall.model.tokenization import load_default_tokenizer
from pagerecall.types import Chunk, Document, Page
from tests.conftest import shared_path

TOK = load_default_tokenizer()

# ---------------------------------------------------------------------------------------------
# Reference model of the documented slicing rules


def contributing(doc: Document) -> list[Page]:
    return [p for p in doc.pages if p.status not in SKIPPED_STATUSES and p.text.strip()]


def reslice(doc: Document, c: Chunk) -> str:
    pages = {p.number: p for p in contributing(doc)}
    a, b = pages[c.page_start], pages[c.page_end]
    if a.number == b.number:
        return a.text[c.char_start : c.char_end]
    middle = [p.text for n, p in pages.items() if a.number < n < b.number]
    return "\n".join([a.text[c.char_start :], *middle, b.text[: c.char_end]])


def global_offsets(doc: Document) -> dict[int, int]:
    """Offset of each contributing page's text in the pages joined by "\\n"."""
    out, pos = {}, 0
    for p in contributing(doc):
        out[p.number] = pos
        pos += len(p.text) + 1
    return out


def joined(doc: Document) -> str:
    return "\n".join(p.text for p in contributing(doc))


def g_span(offsets: dict[int, int], c: Chunk) -> tuple[int, int]:
    return offsets[c.page_start] + c.char_start, offsets[c.page_end] + c.char_end


def check_invariants(doc: Document, chunks: list[Chunk], params: ChunkParams) -> None:
    pages = contributing(doc)
    if not pages:
        assert chunks == []
        return
    assert chunks, "a document with text must give at least one chunk"
    by_number = {p.number: p for p in pages}
    offsets = global_offsets(doc)
    for i, c in enumerate(chunks):
        assert c.seq == i and c.file == doc.path
        # size
        assert c.n_tokens == len(TOK.token_spans(c.text))
        assert c.n_tokens <= params.max_tokens
        assert c.n_tokens + TOK.overhead <= TOK.max_tokens
        # page mapping
        assert c.page_start in by_number and c.page_end in by_number and c.page_start <= c.page_end
        assert c.text == reslice(doc, c)
        assert c.text == c.text.strip() and c.text
        assert c.label_start == by_number[c.page_start].label
        assert c.label_end == by_number[c.page_end].label
        spanned = [p for p in pages if c.page_start <= p.number <= c.page_end]
        assert c.ocr == any(p.status == "ocr" for p in spanned)
    # minimum size: no small chunk unless it is the only one, or the documented exception
    # (chunking step 6): a last chunk that re-tokenises short and cannot be merged into the
    # chunk before (the merged text exceeds max_tokens); ending that chunk earlier is tried,
    # but it can fail for want of a word or sentence end that re-tokenises in range
    if len(chunks) > 1:
        for i, c in enumerate(chunks):
            if c.n_tokens >= params.min_tokens:
                continue
            sizes = [x.n_tokens for x in chunks]
            assert i == len(chunks) - 1, sizes
            prev = chunks[i - 1]
            start, end = g_span(global_offsets(doc), prev)[0], g_span(global_offsets(doc), c)[1]
            assert len(TOK.token_spans(joined(doc)[start:end])) > params.max_tokens, sizes
    # document order, and coverage of every non-whitespace character
    spans = [g_span(offsets, c) for c in chunks]
    assert all(a[0] < b[0] and a[1] < b[1] for a, b in zip(spans, spans[1:]))
    text = joined(doc)
    gaps, reach = [], 0  # the text outside every chunk (spans are sorted by start)
    for s, e in spans:
        if s > reach:
            gaps.append((reach, s))
        reach = max(reach, e)
    gaps.append((reach, len(text)))
    lost = [(a, text[a:b]) for a, b in gaps if text[a:b].strip()]
    assert not lost, f"characters in no chunk: {lost[:5]}"


# ---------------------------------------------------------------------------------------------
# Strategies: multilingual text with sentence ends, paragraphs, CJK runs and odd characters

WORDS = ["the", "manual", "page", "Index", "données", "Straße", "функция", "naïve", "ﬁle", "x86_64", "3.14", "e.g."]
CJK = ["日本語のテキストです", "中文文本没有空格", "한국어 문장", "ภาษาไทยไม่มีช่องว่าง"]
ODD = ["\u200b", "\ufeff", "e\u0301", "\x0b", "\x1c", "\x85", "\u00a0", "\u3000", "\f", "😀", "\x00", "  "]
PUNCT = [". ", "! ", "? ", "。", "！", "？", '." ', "\n", "\n\n", ", ", " - ", "…"]


def piece() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(WORDS).map(lambda w: w + " "),
        st.sampled_from(CJK),
        st.sampled_from(PUNCT),
        st.sampled_from(ODD),
        st.text(max_size=6),
    )


page_text = st.lists(piece(), max_size=120).map("".join)
statuses = st.sampled_from(["ok", "ok", "ok", "ocr", "image_only", "empty", "garbled"])
labels = st.one_of(st.none(), st.sampled_from(["i", "ii", "iv", "1", "12", "A-3"]))


@st.composite
def documents(draw) -> Document:
    n = draw(st.integers(0, 6))
    pages = tuple(
        Page(number=i + 1, text=draw(page_text), label=draw(labels), status=draw(statuses)) for i in range(n)
    )
    return Document(path="dir/doc.pdf", kind="pdf", pages=pages)


@st.composite
def chunk_params(draw) -> ChunkParams:
    mx = draw(st.integers(8, 120))
    return ChunkParams(
        max_tokens=mx, overlap_tokens=draw(st.integers(0, mx // 4)), min_tokens=draw(st.integers(0, mx // 2))
    )


PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# Found by hypothesis: the tail "données" was cut after "す" with no space between; in context it
# is 3 pieces ("don" "né" "es"), alone 1 ("▁données"), below min_tokens=3, and merging it would
# exceed max_tokens=8, so the chunk before it must end earlier.
_SHORT_TAIL = Document(
    path="dir/doc.pdf", kind="pdf", pages=(Page(number=1, text="the 日本語のテキストですdonnées ", label=None, status="ok"),)
)


@PROPS
@given(documents(), chunk_params())
@example(_SHORT_TAIL, ChunkParams(max_tokens=8, overlap_tokens=0, min_tokens=3))
@example(_SHORT_TAIL, ChunkParams(max_tokens=9, overlap_tokens=0, min_tokens=3))  # merged instead
# the same for a first chunk: U+0008 shifted the tokenizer's offsets (before _chunkplan._page_spans
# corrected them), so the planned 12 tokens re-tokenised to 11; the chunk must end later
@example(
    Document(
        path="dir/doc.pdf",
        kind="pdf",
        pages=(Page(1, "\x080:2données the the the . 日本語のテキストですthe the the the 日本語のテキストです", None, "ok"),),
    ),
    ChunkParams(max_tokens=24, overlap_tokens=0, min_tokens=12),
)
@example(
    Document(path="dir/doc.pdf", kind="pdf", pages=(Page(1, "the 日本語のテキストです", None, "ok"),
                                                    Page(2, "\x0b日本語のテキストです", None, "ok"))),
    ChunkParams(max_tokens=8, overlap_tokens=0, min_tokens=0),
)  # found by hypothesis: page 2's lone "▁" (its U+000B dropped) was counted in page 1's chunk
def test_invariants_hold(doc: Document, params: ChunkParams) -> None:
    check_invariants(doc, chunk_document(doc, TOK, params), params)


# Found by hypothesis: page 2 begins with U+000B, which the tokenizer's normalizer drops and
# its offsets then leave out, so every token of that page was mapped one character early. The
# "." of "e.g." was taken for the end of "▁manual", the first chunk ended inside "manual" and
# the 1-token overlap ". manua" re-tokenised to 4 tokens (_chunkplan._page_spans fixes the offsets).
_SHIFTED_PAGE = Document(
    path="dir/doc.pdf",
    kind="pdf",
    pages=(Page(1, "the the the the the the ", None, "ok"), Page(2, "\x0bthe the the the e.g. manual the ", None, "ok")),
)


@PROPS
@given(documents(), chunk_params())
@example(_SHIFTED_PAGE, ChunkParams(max_tokens=16, overlap_tokens=1, min_tokens=0))
@example(_SHIFTED_PAGE, ChunkParams(max_tokens=12, overlap_tokens=2, min_tokens=0))  # overlap on page 2
def test_consecutive_chunks_overlap_by_about_overlap_tokens(doc: Document, params: ChunkParams) -> None:
    chunks = chunk_document(doc, TOK, params)
    offsets, text = global_offsets(doc), joined(doc)
    O = params.overlap_tokens
    for a, b in zip(chunks, chunks[1:]):
        (_, a_end), (b_start, _) = g_span(offsets, a), g_span(offsets, b)
        shared = len(TOK.token_spans(text[b_start:a_end])) if b_start < a_end else 0
        # documented window: a sentence start within O +- O/2 tokens, else O +- O/4, capped by
        # the chunk's own length; 2 tokens of slack for re-tokenising a cut inside a word
        assert shared <= O + O // 2 + 2
        if O >= 4:
            assert shared >= min(O - O // 2, a.n_tokens - 1) - 2


@PROPS
@given(documents(), chunk_params())
def test_chunks_end_on_a_sentence_end_when_one_is_near(doc: Document, params: ChunkParams) -> None:
    chunks = chunk_document(doc, TOK, params)
    offsets, text = global_offsets(doc), joined(doc)
    breaks = set()
    for p in contributing(doc):
        breaks.update(offsets[p.number] + e for e in sentence_breaks(p.text))
    B = params.max_tokens
    for c in chunks[:-1]:
        g_start, g_end = g_span(offsets, c)
        spans = TOK.token_spans(c.text)
        # slack: re-tokenising a chunk can differ from the page-wise count by a token at each
        # page join (a lone "▁" before CJK) and at each cut inside a word
        slack = 2 + (c.page_end - c.page_start)
        # the zone is the final quarter of the B-token window (chunking step 4), not of the chunk:
        # a chunk cut at a word end before B has its zone's start at B - B // 4 all the same
        first_in_zone = max(params.min_tokens, B - B // 4) + slack
        if first_in_zone >= len(spans):
            continue
        zone_start = g_start + spans[first_in_zone][0]
        if any(zone_start < b < g_end for b in breaks):
            # the chunk ends in the token that holds a sentence end: nothing but closing
            # punctuation/space lies between that sentence end and the chunk's end
            assert any(b <= g_end and not re.search(r"\w", text[b:g_end]) for b in breaks), c.text[-60:]


# ---------------------------------------------------------------------------------------------
# Examples


def _doc(*texts: str, statuses: tuple[str, ...] = ()) -> Document:
    sts = statuses or ("ok",) * len(texts)
    return Document(
        "a.txt", "txt", tuple(Page(i + 1, t, label=str(i + 1), status=s) for i, (t, s) in enumerate(zip(texts, sts)))
    )


def test_sentence_breaks_examples() -> None:
    assert sentence_breaks("One. Two! Three? Four") == [4, 9, 16]
    assert sentence_breaks('He said "stop." Then') == [15]
    assert sentence_breaks("3.14 is pi") == []
    assert sentence_breaks("日本語です。次の文！終わり") == [6, 10]
    assert sentence_breaks("para one\n\npara two") == [8]
    assert sentence_breaks("ends here.") == [10]


def test_empty_and_tiny_documents() -> None:
    assert chunk_document(_doc(), TOK, ChunkParams()) == []
    assert chunk_document(_doc("   \n ", "junk", statuses=("ok", "garbled")), TOK, ChunkParams()) == []
    tiny = chunk_document(_doc("Hi."), TOK, ChunkParams())
    assert [(c.text, c.page_start, c.n_tokens) for c in tiny] == [("Hi.", 1, len(TOK.token_spans("Hi.")))]


def test_chunk_spanning_an_image_only_page() -> None:
    doc = _doc("Alpha beta gamma.", "", "Delta epsilon.", statuses=("ok", "image_only", "ocr"))
    (c,) = chunk_document(doc, TOK, ChunkParams())
    assert (c.page_start, c.page_end, c.label_start, c.label_end) == (1, 3, "1", "3")
    assert c.text == "Alpha beta gamma.\nDelta epsilon."
    assert c.ocr is True


def test_cjk_without_spaces_is_not_truncated() -> None:
    text = "日本語のテキストです。" * 300  # ~2,700 tokens, no spaces at all
    chunks = chunk_document(_doc(text), TOK, ChunkParams())
    assert len(chunks) > 5
    check_invariants(_doc(text), chunks, ChunkParams())
    assert all(c.text.endswith("。") for c in chunks)


def test_bad_params_raise_usage_error() -> None:
    with pytest.raises(UsageError, match="overlap"):
        chunk_document(_doc("x"), TOK, ChunkParams(max_tokens=50, overlap_tokens=50))
    with pytest.raises(UsageError, match="min_tokens"):
        chunk_document(_doc("x"), TOK, ChunkParams(max_tokens=50, min_tokens=60))
    with pytest.raises(UsageError, match="no room"):
        chunk_document(_doc("x"), TOK, ChunkParams(max_tokens=0, overlap_tokens=0, min_tokens=0))


def test_model_window_bounds_oversized_params() -> None:
    text = "A sentence of several plain words. " * 400
    chunks = chunk_document(_doc(text), TOK, ChunkParams(max_tokens=2000, overlap_tokens=40, min_tokens=32))
    assert max(c.n_tokens for c in chunks) + TOK.overhead <= TOK.max_tokens
    assert max(c.n_tokens for c in chunks) > 400


def test_regular_characters_are_left_alone_by_the_bundled_normalizer() -> None:
    """Re-derive the chunker's "regular page" character class from the tokenizer itself: on
    such pages token offsets are exact, so clean cuts skip re-tokenising."""
    from pagerecall.ingest.chunk_plan import _CLEAN_WS, _REGULAR_RE

    norm = TOK._tok.normalizer
    regular = [chr(cp) for cp in range(0x30000) if not 0xD800 <= cp < 0xE000 and _REGULAR_RE.fullmatch(chr(cp))]
    assert len(regular) > 30000
    changed = [c for c in regular if norm.normalize_str(c) != (" " if c in _CLEAN_WS else c)]
    assert not changed, [hex(ord(c)) for c in changed[:20]]
    # and the clean whitespace always splits words
    for c in _CLEAN_WS:
        assert len(TOK.token_spans(f"abc{c}def")) == len(TOK.token_spans("abc")) + len(TOK.token_spans("def"))


@pytest.mark.parametrize("lead", ["\x01", "\x08", "\x0b", "\x1c", "\x1f", "\x7f", "\x9f", "\x0b\x0b"])
def test_a_page_starting_with_a_dropped_control_character_is_cut_as_without_it(lead: str) -> None:
    """The tokenizer's offsets leave out control characters its normalizer drops at the start
    of a text; the chunks must be those of the page without them, moved by ``len(lead)``."""
    body = "The keeper's lamp burns e.g. at dusk. Fog signals sound! Données, Straße: naïve? " * 6
    params = ChunkParams(max_tokens=14, overlap_tokens=3, min_tokens=4)
    plain = chunk_document(_doc(body), TOK, params)
    led = chunk_document(_doc(lead + body), TOK, params)
    check_invariants(_doc(lead + body), led, params)
    assert len(plain) > 5
    n = len(lead)
    kept = lead.lstrip()  # a chunk never starts with whitespace: U+000B and U+001C-U+001F are
    assert [(c.text, c.char_start, c.char_end, c.n_tokens) for c in led] == [
        (kept + c.text if i == 0 else c.text, c.char_start + n if i else n - len(kept), c.char_end + n, c.n_tokens)
        for i, c in enumerate(plain)
    ]


def test_a_leading_space_leaves_the_tokens_alone_whatever_the_first_character() -> None:
    """``_chunkplan._page_spans`` tokenises a page that begins with a character outside the
    regular set with a space in front; that must give the same number of tokens, and offsets
    (moved back by one) that count the first character, for every first character (BMP)."""
    from pagerecall.ingest.chunk_plan import _REGULAR_RE

    firsts = [chr(cp) for cp in range(0x10000) if not 0xD800 <= cp < 0xE000 and not _REGULAR_RE.fullmatch(chr(cp))]
    assert len(firsts) > 1000
    texts = [f + "the x" for f in firsts]
    plain = TOK.token_spans_batch(texts)
    spaced = TOK.token_spans_batch([" " + t for t in texts])
    assert [len(a) for a in plain] == [len(b) for b in spaced]
    # the last token, " x", moved back by the space: characters len(f) + 3 .. len(f) + 5 of the text
    wrong = [hex(ord(f)) for f, b in zip(firsts, spaced) if (b[-1][0] - 1, b[-1][1] - 1) != (len(f) + 3, len(f) + 5)]
    assert not wrong, wrong[:20]


# ---------------------------------------------------------------------------------------------
# Real PDFs (text via plain PyMuPDF; pdf.py's extraction is tested on its own)


def _pdf_document(path) -> Document:
    import pymupdf

    with pymupdf.open(path) as pdf:
        pages = tuple(Page(i + 1, pg.get_text(), label=pg.get_label() or None) for i, pg in enumerate(pdf))
    return Document(path=path.name, kind="pdf", pages=pages)


@pytest.mark.parametrize("name", ["maint-guide.en.pdf", "maint-guide.ja.pdf"])
def test_real_pdf_invariants(name: str) -> None:
    doc = _pdf_document(shared_path("corpora", "demo", name))
    params = ChunkParams()
    chunks = chunk_document(doc, TOK, params)
    check_invariants(doc, chunks, params)
    # most chunks are near the budget, and page labels come through (roman front matter)
    assert sum(c.n_tokens for c in chunks) / len(chunks) > 0.75 * params.max_tokens
    assert any(c.label_start and c.label_start.isalpha() for c in chunks)


@pytest.mark.slow
def test_chunking_a_big_manual_keeps_the_invariants() -> None:
    """The invariants on a 1,000-page manual (its speed is measured by bench/bench_chunking.py, not here:
    machines are shared, so a timed test fails on load, not on a defect)."""
    doc = _pdf_document(shared_path("corpora", "bench", "r-manuals", "refman.pdf"))
    chunks = chunk_document(doc, TOK, ChunkParams())
    assert chunks
    check_invariants(doc, chunks, ChunkParams())


# ---------------------------------------------------------------------------------------------
# Long pages: tokenised window by window (issue 18.11)


@PROPS
@given(documents(), chunk_params(), st.integers(min_value=40, max_value=400))
def test_small_windows_keep_every_invariant(doc: Document, params: ChunkParams, window: int) -> None:
    check_invariants(doc, chunk_document(doc, TOK, params, window=window), params)


def test_windows_cut_at_whitespace_give_the_same_chunks_as_one_call() -> None:
    text = " ".join(f"Sentence {i} of a long line about the keeper's lamp and the fog signal." for i in range(3000))
    doc = _doc(text, "A second page. " * 50)
    whole = chunk_document(doc, TOK, window=10_000_000)
    assert chunk_document(doc, TOK, window=5_000) == whole
    assert len(whole) > 100


def test_a_long_line_without_spaces_is_chunked_within_bounds() -> None:
    params = ChunkParams()
    doc = _doc("日本語のテキストです。" * 3000 + "灯台" * 2000)
    chunks = chunk_document(doc, TOK, params, window=4_000)
    check_invariants(doc, chunks, params)


@pytest.mark.slow
def test_a_20_mb_single_line_text_stays_within_bounded_memory(tmp_path) -> None:
    """The issue's case: 20 MB on one line grew to 3.47 GB RSS. Measured here in a child process
    (peak RSS of reading + chunking, the model not loaded): see the assertion's bound."""
    import subprocess
    import sys

    line = " ".join(f"word{i % 977} is part of sentence {i}." for i in range(600_000))[:20_000_000]
    (tmp_path / "one-line.txt").write_text(line, encoding="utf-8")
    code = (
        "import resource, sys; from pathlib import Path\n"
        "from pagerecall.extract.sources import read_document; from pagerecall.ingest.chunking import chunk_document\n"
        "from pagerecall.model.tokenization import load_default_tokenizer\n"
        "doc = read_document(Path(sys.argv[1]), 'one-line.txt')\n"
        "chunks = chunk_document(doc, load_default_tokenizer())\n"
        # VmHWM, not ru_maxrss: Linux keeps ru_maxrss across fork+exec, so a child of a big pytest
        # process inherited its high-water mark (1.4 GB after the object-storage tests built indexes)
        "hwm = next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:'))\n"
        "print(len(chunks), hwm // 1024)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "one-line.txt")], capture_output=True,
                         text=True, check=True, timeout=3600).stdout.split()
    n, peak_mb = int(out[0]), int(out[1])
    assert n > 10_000
    assert peak_mb < 900, peak_mb
