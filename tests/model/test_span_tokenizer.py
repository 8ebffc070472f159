"""The build's light tokenizer (pagerecall.model.span_tokenizer) against the full tokenizer: the same token
spans, ids, chunks and vectors on the real demo PDFs, and on random and adversarial texts.
Real model and tokenizer, no mocks."""

from __future__ import annotations

import numpy as np
import pytest

from pagerecall.ingest.chunking import ChunkParams, chunk_document
from pagerecall.config import Settings
from pagerecall.model.embedding import load_embedder

from tests.conftest import shared_path

DEMO = ["maint-guide.en.pdf", "maint-guide.de.pdf", "maint-guide.ja.pdf", "c03-29.pdf", "linn.pdf"]


@pytest.fixture(scope="module")
def emb():
    from pagerecall.model.bundled import BundledEmbedder

    e = load_embedder(Settings.from_env())
    if not isinstance(e, BundledEmbedder) or e._query_tok is None:
        pytest.skip("not the bundled embedder with a light query tokenizer")
    return e


def _fresh(emb):
    from pagerecall.model.bundled import BundledEmbedder

    return BundledEmbedder(emb.name, emb.model_dir, emb.quantization, emb.converter_version, emb.encoder,
                           emb.query_prefix, emb.passage_prefix, query_tokenizer=emb._query_tok)


def test_spans_ids_chunks_and_vectors_equal_the_full_tokenizers_on_the_demo_pdfs(emb):
    from pagerecall.model.span_tokenizer import LightTokenizer
    from pagerecall.extract.pdf import read_pdf

    paths = [shared_path("corpora", "demo", n) for n in DEMO]
    docs = [read_pdf(p, p.name, ocr="off") for p in paths]
    light_emb = _fresh(emb)
    light = light_emb.tokenizer
    assert isinstance(light, LightTokenizer)
    pages = [pg.text for d in docs for pg in d.pages]
    spans = [s for a in range(0, len(pages), 64) for s in light.token_spans_batch(pages[a : a + 64])]
    chunks = [chunk_document(d, light, ChunkParams()) for d in docs]
    sample = [c.text for cs in chunks for c in cs[:40]]
    light_vecs = light_emb.embed_passages(sample)
    passage_ids = light.passage_ids([light.passage_prefix + t for t in sample])
    # the chunker's token ids (Chunk.token_ids), handed to the embedder instead of tokenising again
    every = [c for cs in chunks for c in cs]
    handed = [c for c in every if c.token_ids is not None]
    assert light_emb.takes_token_ids and len(handed) >= 0.9 * len(every)
    from_chunker = [light.passage_ids_from(c.token_ids) for c in handed]
    page_text = {(d.path, pg.number): pg.text for d in docs for pg in d.pages}
    mid_word = [c for c in handed if c.char_start and not page_text[c.file, c.page_start][c.char_start - 1].isspace()]
    assert len(mid_word) >= 10  # CJK runs cut inside: their ids come from re-tokenising the chunk alone
    sample_ids = [c.token_ids for cs in chunks for c in cs[:40]]
    handed_vecs = light_emb.embed_passages(sample, token_ids=sample_ids)
    assert light_emb._tokenizer is None  # the build never needed the 250k-piece vocabulary

    full = light_emb.full_tokenizer
    assert light.overhead == full.overhead and light.sha256 == full.sha256
    assert spans == [s for a in range(0, len(pages), 64) for s in full.token_spans_batch(pages[a : a + 64])]
    assert chunks == [chunk_document(d, full, ChunkParams()) for d in docs]
    assert passage_ids == [e.ids for e in light_emb._passage_tok.encode_batch([full.passage_prefix + t for t in sample])]
    full_vecs = light_emb.embed_passages(sample)  # now through the full tokenizer
    assert np.array_equal(light_vecs, full_vecs)
    assert np.array_equal(handed_vecs, full_vecs)
    # every handed passage, those starting inside a word or a CJK run included
    assert [list(c.token_ids) for c in handed] == [full.ids(c.text, add_special_tokens=False) for c in handed]
    assert from_chunker == [e.ids for e in light_emb._passage_tok.encode_batch([full.passage_prefix + c.text
                                                                                 for c in handed])]


def test_random_and_adversarial_texts_give_the_full_tokenizers_spans_and_ids(emb):
    """Property test over many scripts; texts holding added tokens (``<mask>``, full-width
    ``＜s＞`` that NFKC maps to ``<s>``) agree too; long texts are truncated at 512 tokens alike."""
    from hypothesis import given, settings as hsettings, strategies as st

    light = _fresh(emb).tokenizer
    full = emb.full_tokenizer
    fixed = ["", " ", "<mask> and <s>", "＜s＞ full width", "a\u0008b\ufeffc", "Caf\u0065\u0301 ﬁ ①",
             "The keeper winds the fog bell clockwork. " * 150, "最新のlintian 透镜" * 60]
    assert light.token_spans_batch(fixed) == full.token_spans_batch(fixed)
    assert [light.count(t, True) for t in fixed] == [full.count(t, True) for t in fixed]
    assert [light.ids(t) for t in fixed] == [full.ids(t) for t in fixed]
    got = light.passage_ids(fixed)
    assert None not in got  # added tokens are cut out here: no full tokenizer (see the next test)
    assert max(len(g) for g in got) == 512
    alphabet = st.characters(min_codepoint=9, max_codepoint=0x1F64F, blacklist_categories=("Cs",))

    @hsettings(max_examples=200, deadline=None)
    @given(st.lists(st.text(alphabet=alphabet, max_size=120), min_size=1, max_size=4))
    def check(texts: list[str]) -> None:
        assert light.token_spans_batch(texts) == full.token_spans_batch(texts)

    check()


def test_a_full_word_cache_is_cleared_without_losing_the_batchs_cached_words(emb, monkeypatch):
    """Regression (whole-bench build, 2026-12-02): when a batch's new words overflowed the word
    cache, the cache was cleared after the batch's already-cached words had been looked up as
    "not new", and a KeyError failed the file. With a cache of 8 words, batches that share words
    and bring new ones must keep giving the full tokenizer's spans."""
    import pagerecall.model.span_tokenizer as spantok

    monkeypatch.setattr(spantok, "_WORD_CACHE", 8)
    light = _fresh(emb).tokenizer
    full = emb.full_tokenizer
    batches = [["the fog bell rings"], ["the fog signal which sounds (PostScript) twice"],
               ["which bell, the fog or the signal? (PostScript) again and again"]]
    for texts in batches:
        assert light.token_spans_batch(texts) == full.token_spans_batch(texts)


def test_texts_holding_added_tokens_give_the_full_tokenizers_spans_and_ids_without_loading_it(emb):
    """Regression (whole-bench build, 2026-12-02): one page of gnuplot.pdf prints ``<s>``; the light
    tokenizer sent it to the full tokenizer, which stayed loaded (+265 MB of RSS) for the rest of the
    build. Added tokens are now cut out as the full tokenizer cuts them (leftmost-longest, on the
    raw text, each part encoded alone). Spans, ids and the model's passage ids (specials added,
    truncated at 512) must equal the full tokenizer's, and the full one must never load."""
    from hypothesis import example, given, settings as hsettings, strategies as st

    light_emb = _fresh(emb)
    light = light_emb.tokenizer
    fixed = ["<s>", "a<s>b", "a <s> b", " <s> ", "</s></s><s>", "x<pad>y<unk>z<mask>", "<<s>>", "<</s>",
             "  <mask>  ", "a\u0008<s>\ufeffc", "最新の<s>lintian 透镜", "set <s>strike</s> é ﬁ ①",
             "The keeper <s> winds the fog bell. " * 120]
    spans = light.token_spans_batch(fixed)
    ids = [light.ids(t) for t in fixed] + [light.ids(t, add_special_tokens=False) for t in fixed]
    passage = light.passage_ids([light.passage_prefix + t for t in fixed])
    assert light_emb._tokenizer is None and light._full is None  # never loaded

    full = light_emb.full_tokenizer
    assert spans == full.token_spans_batch(fixed)
    assert ids == [full.ids(t) for t in fixed] + [full.ids(t, add_special_tokens=False) for t in fixed]
    assert passage == [e.ids for e in light_emb._passage_tok.encode_batch([full.passage_prefix + t for t in fixed])]
    assert max(len(p) for p in passage) == 512

    words = st.sampled_from(["<s>", "</s>", "<pad>", "<unk>", "<mask>", "＜s＞", " ", "<", ">", "s", "fog", "é",
                             "\u0301", "灯台", "\u0008", "\n", "ﬁ"])
    alphabet = st.characters(min_codepoint=9, max_codepoint=0x1F64F, blacklist_categories=("Cs",))
    text = st.lists(st.one_of(words, st.text(alphabet=alphabet, max_size=12)), max_size=12).map("".join)
    check_light = _fresh(emb).tokenizer

    @hsettings(max_examples=150, deadline=None)
    @given(st.lists(text, min_size=1, max_size=4))
    @example(["a<s>\u0301b", "<mask>\u0301"])
    def check(texts: list[str]) -> None:
        assert check_light.token_spans_batch(texts) == full.token_spans_batch(texts)
        assert [check_light.ids(t) for t in texts] == [full.ids(t) for t in texts]
        got = check_light.passage_ids([full.passage_prefix + t for t in texts])
        assert got == [e.ids for e in light_emb._passage_tok.encode_batch([full.passage_prefix + t for t in texts])]

    check()
    assert check_light._full is None


def test_token_ids_handed_by_the_chunker_equal_the_full_tokenizers_on_adversarial_documents(emb):
    """A wrong reuse of the chunker's token ids (``Chunk.token_ids``, ``LightTokenizer.passage_ids_from``)
    would embed other ids than the model's tokenizer gives "passage: " + text. Small chunks over pages
    that mix long words without spaces (cuts inside words), CJK without spaces, added tokens
    (``<s>``, ``<mask>``: "passage: <s>" cuts the prefix's space into a token of its own), combining
    marks, "▁", superscripts, NBSP, control characters: every handed id list must equal the full
    tokenizer's, and the embedder must give the same vectors with and without them."""
    from hypothesis import given, settings as hsettings, strategies as st

    from pagerecall.types import Document, Page

    light_emb = _fresh(emb)
    light = light_emb.tokenizer
    full = emb.full_tokenizer
    params = ChunkParams(max_tokens=24, overlap_tokens=6, min_tokens=4)
    prefix = full.passage_prefix

    def handed_ok(pages: list[str]) -> list:
        doc = Document(path="adv.txt", kind="txt", pages=tuple(Page(number=i + 1, text=t) for i, t in enumerate(pages)))
        chunks = chunk_document(doc, light, params)
        handed = [c for c in chunks if c.token_ids is not None]
        for c in handed:
            assert list(c.token_ids) == full.ids(c.text, add_special_tokens=False), c.text
            assert light.passage_ids_from(c.token_ids) == emb._passage_tok.encode(prefix + c.text).ids, c.text
        return chunks

    fixed = ["Leuchtturmwärterdienstvorschriftensammlung" * 6 + " und der Nebelsignalgeber tönt.",
             "最新のlintianは透镜の中で動作します。" * 12, "set <s>strike</s> then <mask> the fog bell twice. " * 4,
             "The keeper\u00a0winds ⁴the clockwork…\u0301again \u2581marks ¨and\u0008controls. " * 5,
             "\u000bLeading control, then plain words follow here. " * 4,
             "The fog signal sounds three times every sixty seconds while the keeper winds it. " * 6,
             "Plain words again: the lamp turns, the lens throws its beam over the rocks. " * 6]
    chunks = handed_ok(fixed)
    assert sum(c.token_ids is not None for c in chunks) >= len(chunks) // 2
    assert all(c.token_ids is None for c in chunks if "<s>" in c.text or "<mask>" in c.text)
    texts = [c.text for c in chunks]
    handed_vecs = light_emb.embed_passages(texts, token_ids=[c.token_ids for c in chunks])
    assert light_emb._tokenizer is None and emb._tokenizer is not None
    assert np.array_equal(handed_vecs, emb.embed_passages(texts))  # through the full tokenizer

    words = st.sampled_from(["<s>", "<mask>", "fog", "Nebelsignal", "灯台の", "最新", "\u0301", "\u2581", "\u00a0",
                             "⁴", "…", "\u0008", "é", "ﬁ", "\U0001f3fb", "（", "\n", ". ", " ", "  "])
    page = st.lists(words, min_size=1, max_size=60).map("".join)

    @hsettings(max_examples=60, deadline=None)
    @given(st.lists(page, min_size=1, max_size=3))
    def check(pages: list[str]) -> None:
        handed_ok(pages)

    check()


def test_the_vectorised_piece_search_and_word_split_equal_the_plain_ones(emb):
    """``piece_search.pieces_in_words`` against a loop over every substring, and
    ``LightTokenizer._words_of`` against the pre-tokeniser's own words, on random words (NUL,
    "▁", astral and combining characters among them)."""
    from hypothesis import given, settings as hsettings, strategies as st

    from pagerecall.model.piece_search import pieces_in_words

    light = _fresh(emb).tokenizer
    q = light._q

    def plain(word: str) -> list[int]:
        subs = {word[i:j].encode() for i in range(len(word)) for j in range(i + 1, min(len(word), i + q._max_chars) + 1)}
        cand = np.array([b for b in subs if len(b) <= q._width and b"\0" not in b], dtype=f"S{q._width}")
        if not len(cand):
            return []
        pos = np.minimum(np.searchsorted(q._pieces, cand), len(q._pieces) - 1)
        return sorted(int(i) for i in q._ids[pos[q._pieces[pos] == cand]])

    alphabet = st.one_of(st.characters(min_codepoint=0, max_codepoint=0x2FFFF, blacklist_categories=("Cs",)),
                         st.sampled_from(list("▁abcdefghijklmnopqrstuvwxyzäöü日本語のをはテスト")))

    @hsettings(max_examples=80, deadline=None)
    @given(st.lists(st.text(alphabet=alphabet, max_size=40), max_size=30))
    def check(words: list[str]) -> None:
        got = pieces_in_words(words, q._pieces, q._ids, q._max_chars, light._keys)
        assert [g.tolist() for g in got] == [plain(w) for w in words]
        for w in words:
            n = light._norm.normalize_str(w)
            assert set(light._words_of(n)) >= {x for x, _ in light._pre.pre_tokenize_str(n)}

    check()


BUILD_CHILD = r"""
import dataclasses, json, resource, sys
from pathlib import Path
import lance
from pagerecall.ingest import pipeline as indexing
from pagerecall.config import Settings
from pagerecall.model.embedding import load_embedder

corpus, out = Path(sys.argv[1]), Path(sys.argv[2])

def rows(index):
    gen = (index / "CURRENT").read_text().strip()
    cols = ["chunk_id", "file", "page_start", "page_end", "char_start", "char_end", "text", "n_tokens", "vector"]
    t = lance.dataset(str(index / gen / "lance" / "chunks.lance")).to_table(columns=cols).to_pylist()
    return sorted(t, key=lambda r: r["chunk_id"])

s = dataclasses.replace(Settings.from_env(), index_dir=out / "light", ocr="off")
indexing.build(s, corpus)
emb = load_embedder(s, purpose="index")  # the write's instance (cached per process)
light_loaded_full = emb._tokenizer is not None
emb.full_tokenizer  # now every passage's ids come from the full tokenizer
s2 = dataclasses.replace(s, index_dir=out / "full")
indexing.build(s2, corpus)
print(json.dumps({"full_loaded_by_build": light_loaded_full, "same_rows": rows(out / "light") == rows(out / "full"),
                  "n": len(rows(out / "light"))}))
"""


def test_a_build_of_text_holding_added_tokens_never_loads_the_full_tokenizer(tmp_path):
    """A real build (fresh process: the embedder is cached per process) of a text layer whose pages
    print ``<s>``, ``</s>`` and ``<mask>`` (as gnuplot.pdf of the bench corpus does): the full
    tokenizer (+265 MB) must not load, and the rows (chunk ids, pages, offsets, token counts, text,
    vectors) must equal those of a build whose passage ids come from the full tokenizer."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    para = ("The fog signal sounds three times every sixty seconds while the keeper winds the clockwork. "
            "In the plot command, set style <s> and close it with </s>; the <mask> token stays literal. ")
    pages = [para * 6, "Ordinary page without markup. " * 40, "<s>" + para * 3 + "<mask>"]
    (corpus / "markup.txt").write_text("\f".join(pages), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-c", BUILD_CHILD, str(corpus), str(tmp_path)], env=env, cwd=root,
                          capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["n"] >= 3
    assert got["full_loaded_by_build"] is False
    assert got["same_rows"] is True


def test_every_first_character_that_starts_a_word_gives_the_full_tokenizers_passage_ids(emb):
    """``LightTokenizer.starts_word`` decides when a passage's model ids are the prefix's followed by
    the text's own (the chunker's ``token_ids``); it accepts characters the normaliser maps to one
    other character (footnote superscripts "⁴", full-width forms). Over every such first character
    U+0001-U+2FFFF it accepts (those left as they are were checked when the rule was written),
    followed by a word, or by a superscript word and another word, the ids built from the text's
    own must equal the full tokenizer's of "passage: " + text."""
    light = _fresh(emb).tokenizer
    full = emb.full_tokenizer
    prefix = full.passage_prefix
    firsts = [chr(cp) for cp in range(1, 0x30000) if not 0xD800 <= cp < 0xE000]
    changed = [f for f in firsts if light.starts_word(f) and light._norm.normalize_str(f) != f]
    assert len(changed) > 2000 and {"⁴", "⁹", "（", "Ａ"} <= set(changed)
    texts = [f + tail for f in changed for tail in ("abc", "⁴x Kapitel")]
    assert not light.starts_word("\ufffd") and not light.starts_word("\u0301x") and not light.starts_word("\u2581x")
    own = full._tok.encode_batch(texts, add_special_tokens=False)
    whole = emb._passage_tok.encode_batch([prefix + t for t in texts])
    wrong = [t for t, o, w in zip(texts, own, whole) if light.passage_ids_from(o.ids) != w.ids]
    assert not wrong, [hex(ord(t[0])) for t in wrong[:20]]
