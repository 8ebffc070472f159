"""The chunker's rule for when a chunk keeps its planned tokens without re-tokenising
(``_Planner.regular_cut``: the characters around each cut and page join, not whole pages, must
be regular), held to the full tokenizer: every ``n_tokens`` and every handed ``token_ids`` equal
the full tokenizer's of the chunk's text, with characters the normaliser changes, drops or
merges placed next to the cuts. Real bundled tokenizer, no mocks."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pagerecall.config import ChunkParams, Settings
from pagerecall.ingest.chunk_plan import _JOINS_RE, _REGULAR_RE
from pagerecall.ingest.chunking import chunk_document
from pagerecall.model.embedding import load_embedder
from pagerecall.types import Document, Page


@pytest.fixture(scope="module")
def toks():
    """(the light build tokenizer, which hands token ids on; the full tokenizer)."""
    from pagerecall.model.bundled import BundledEmbedder
    from pagerecall.model.span_tokenizer import LightTokenizer

    e = load_embedder(Settings.from_env())
    if not isinstance(e, BundledEmbedder) or e._query_tok is None:
        pytest.skip("not the bundled embedder with a light query tokenizer")
    fresh = BundledEmbedder(e.name, e.model_dir, e.quantization, e.converter_version, e.encoder,
                            e.query_prefix, e.passage_prefix, query_tokenizer=e._query_tok)
    light = fresh.tokenizer
    assert isinstance(light, LightTokenizer) and light.hands_ids
    return light, e.full_tokenizer


class _Counting:
    """A tokenizer that forwards to ``tok`` and records every text it tokenises."""

    def __init__(self, tok) -> None:
        self.tok = tok
        self.texts: list[str] = []

    def __getattr__(self, name: str):
        return getattr(self.tok, name)

    def spans_ids_batch(self, texts):
        self.texts.extend(texts)
        return self.tok.spans_ids_batch(texts)


def _doc(*pages: str) -> Document:
    return Document(path="cuts.txt", kind="txt", pages=tuple(Page(number=i + 1, text=t) for i, t in enumerate(pages)))


def _exact(chunks, full) -> None:
    for c in chunks:
        ids = full.ids(c.text, add_special_tokens=False)
        assert c.n_tokens == len(ids), c.text
        if c.token_ids is not None:
            assert list(c.token_ids) == ids, c.text


SENTENCE = "The keeper winds the clockwork of the fog signal at dusk and logs the weather. "


def test_a_footnote_superscript_far_from_the_cuts_re_tokenises_no_chunk(toks) -> None:
    """Half the maint-guide pages hold a footnote superscript ("⁴", which the normaliser maps to
    "4"); the per-page rule re-tokenised every chunk of such a page to count its tokens. Only a
    chunk whose ends or page joins touch an irregular character is re-tokenised now."""
    light, full = toks
    page = SENTENCE * 8 + "See the manual⁴ for the lamp. " + SENTENCE * 8
    counting = _Counting(light)
    chunks = chunk_document(_doc(page, SENTENCE * 4), counting, ChunkParams(max_tokens=40, overlap_tokens=8, min_tokens=8))
    _exact(chunks, full)
    assert len(chunks) > 8
    re_tokenised = [t for t in counting.texts if t not in (page, SENTENCE * 4)]
    assert all("⁴" in t for t in re_tokenised), re_tokenised
    assert len(re_tokenised) <= 2
    assert sum(c.token_ids is not None for c in chunks) == len(chunks)


# characters the normaliser changes (one to one, one to many, to a space), drops, or that join
# their neighbours in one grapheme cluster (marks, joiners, jamo, prepended, regional indicators)
ODD = ["⁴", "\u302a", "…", "（", "ﬁ", "\ufffd", "\u0301", "\u200b", "\u200d", "\u00ad", "\x0b", "\x85", "\u2581", "\U0001f3fb",
       "\u1100", "\u1161", "\u0600", "\U0001f1e9", "\u3099", "Ａ", "¨", "\u2002", "\r\n", "\u00a0"]
WORDS = ["the", "lamp", "keeper", "Straße", "функция", "naïve", "3.14", "e.g.", "日本語", "한국어"]
SEP = [" ", " ", " ", "\n", ". ", "  ", " \n "]


@st.composite
def odd_pages(draw) -> str:
    """A page of words and separators with irregular characters inserted next to word edges."""
    out = []
    for _ in range(draw(st.integers(1, 60))):
        w = draw(st.sampled_from(WORDS))
        if draw(st.integers(0, 3)) == 0:
            odd = draw(st.sampled_from(ODD))
            w = odd + w if draw(st.booleans()) else w + odd
        out.append(w + draw(st.sampled_from(SEP)))
    return "".join(out)


# found by hypothesis, on regular pages too: a word whose "▁" is a piece of its own ("▁" "keeper" "4",
# "▁" "." after a line break) was cut between the two; the count alone was one more than planned
@example(["the⁴ ", "the the keeper⁴ the "], 6)
@example(["the the4 the4 the4 the4 the4 the4 keeper\n. the4 4the "], 6)
@example(["the the⁴ the⁴ the⁴ the⁴ the⁴ the⁴ keeper\r\n. the⁴ ⁴the "], 6)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(odd_pages(), min_size=1, max_size=3), st.integers(6, 40))
def test_counts_and_ids_equal_the_full_tokenizers_with_odd_characters_at_the_cuts(toks, pages, mx) -> None:
    light, full = toks
    chunks = chunk_document(_doc(*pages), light, ChunkParams(max_tokens=mx, overlap_tokens=mx // 5, min_tokens=mx // 4))
    _exact(chunks, full)


def test_regular_characters_are_grapheme_clusters_of_their_own() -> None:
    """The exactness argument of ``regular_cut``: a regular character next to another regular
    character or whitespace is a grapheme cluster of its own (the normaliser maps clusters), but
    for the ideographic tone marks U+302A-U+302F (``_JOINS_RE``), which no cut window may hold."""
    regex = pytest.importorskip("regex")
    regular = [chr(cp) for cp in range(0x30000) if not 0xD800 <= cp < 0xE000 and _REGULAR_RE.fullmatch(chr(cp))
               and not _JOINS_RE.match(chr(cp))]
    assert len(regular) > 30000
    joined = [c for c in regular if regex.findall(r"\X", f"a{c}a") != ["a", c, "a"]
              or regex.findall(r"\X", f" {c} ") != [" ", c, " "]]
    assert not joined, [hex(ord(c)) for c in joined[:20]]
    assert not [c for c in regular if "\u1100" <= c <= "\u11ff" or "\ua960" <= c <= "\ua97f" or "\ud7b0" <= c <= "\ud7ff"]
