"""Whitespace and control characters: where ``str.strip``/``str.isspace`` (the chunk text's rule: no
leading or trailing whitespace) and the bundled multilingual-e5 tokenizer disagree, and the chunker's
invariants with every such character placed at cuts, page starts and window cuts.

The classes, measured over every character that ``str.isspace`` calls whitespace or whose category is
Cc, Cf, Zs, Zl or Zp (U+0000-U+2FFFF):

* whitespace to both, and the tokenizer splits words there (its normalizer makes it a space):
  ``_chunkplan._CLEAN_WS``, the cuts whose planned token count is exact;
* whitespace to ``str.isspace``, dropped by the normalizer and *not* splitting words
  (``"c\\x0bd"`` is one token): U+000B, U+001C-U+001F;
* whitespace to ``str.isspace``, a token of its own to the tokenizer: U+0085 only (a chunk ending or
  starting at it has the token stripped off its text: ``_Planner.blank``);
* not whitespace to ``str.isspace``, a space to the tokenizer: U+200B-U+200F and U+FEFF.

The adversarial cases (each such character in multilingual templates, several parameters and window
sizes) are split with a fixed seed into a tuning half and a held-out half; both must keep every
invariant of ``tests/ingest/test_chunking.py``.
"""

from __future__ import annotations

import random
import re
import unicodedata

import pytest

from pagerecall.config import ChunkParams
from pagerecall.ingest.chunk_plan import _CLEAN_WS, _FOLDED_WS
from pagerecall.ingest.chunking import chunk_document
from pagerecall.types import Document, Page
from tests.ingest.test_chunking import TOK, check_invariants


def _candidates() -> list[str]:
    return [
        chr(cp) for cp in range(0x30000)
        if not 0xD800 <= cp < 0xE000
        and (chr(cp).isspace() or unicodedata.category(chr(cp)) in ("Cc", "Cf", "Zs", "Zl", "Zp"))
    ]


def _classes() -> dict[str, set[str]]:
    norm = TOK._tok.normalizer
    n = lambda s: len(TOK.token_spans(s))  # noqa: E731
    base = n("abc") + n("def")
    out: dict[str, set[str]] = {"split": set(), "dropped_joins": set(), "kept": set(), "other": set()}
    for c in _candidates():
        z = norm.normalize_str(c)
        splits = n(f"abc{c}def") == base
        if z == " " and splits:
            out["split"].add(c)
        elif z == "" and not splits:
            out["dropped_joins"].add(c)
        elif z == c:
            out["kept"].add(c)
        else:
            out["other"].add(c)
    return out


def test_whitespace_classes_of_the_bundled_tokenizer() -> None:
    """The table in the module docstring, re-measured: the chunker's constants and ``_Planner.blank``
    rely on it (a new tokenizer that moves a character between classes fails here first)."""
    cls = _classes()
    space = {c for c in _candidates() if c.isspace()}
    assert space & cls["split"] == set(_CLEAN_WS)
    assert space & cls["dropped_joins"] == set("\x0b\x1c\x1d\x1e\x1f")
    assert space & cls["kept"] == {"\x85"}
    assert space <= cls["split"] | cls["dropped_joins"] | cls["kept"]
    assert cls["split"] - space == set("\u200b\u200c\u200d\u200e\u200f\ufeff")
    assert cls["split"] == set(_FOLDED_WS)  # what a long page's window cut moves back over
    assert all(re.fullmatch(r"\s", c) for c in space)  # the planner's regexes agree with str.isspace


_TEMPLATES = [
    lambda x: ("the the the " + x + "日本語のテキストです",),
    lambda x: ((x + "Données, Straße: naïve? ") * 3 + x + "функция конец.",),
    lambda x: ("Alpha beta.", x + "…", "gamma" + x + " delta " + x + x + " 中文文本没有空格。" + x),
    lambda x: ("word" + x + "word " + x + " word" + x + x + "word ภาษาไทย" + x + "ไม่มี x.",),
    lambda x: ("Ends here. " + x, x + x + "한국어 문장" + x + ". e.g. " + x + "more text", x),
    lambda x: ("!", "." + x + "m " * 5 + x + "the manual page.",),
]
_PARAMS = [ChunkParams(8, 0, 4), ChunkParams(8, 1, 4), ChunkParams(12, 2, 6), ChunkParams(16, 3, 8)]
_LONG = lambda x: ("lorem" + x + "  ipsum " + x + " 日本語" + x + ", dolor sit. ") * 12  # noqa: E731
_WINDOWS = [40, 57, 90]


def _cases() -> list[tuple[str, int, Document, ChunkParams, int | None]]:
    cases = []
    for x in _candidates():
        for t, tmpl in enumerate(_TEMPLATES):
            pages = tuple(Page(i + 1, s, None, "ok") for i, s in enumerate(tmpl(x)))
            for params in _PARAMS:
                cases.append((x, t, Document("ws.txt", "txt", pages), params, None))
        long_doc = Document("ws.txt", "txt", (Page(1, _LONG(x), None, "ok"),))
        for w in _WINDOWS:
            cases.append((x, len(_TEMPLATES), long_doc, ChunkParams(16, 3, 8), w))
    return cases


def _half(which: int) -> list[tuple[str, int, Document, ChunkParams, int | None]]:
    """Half ``which`` (0: tuning, 1: held out) of the cases, split with a fixed seed."""
    cases = _cases()
    random.Random(20261205).shuffle(cases)
    return cases[which::2]


@pytest.mark.parametrize("which", [0, 1], ids=["tuning", "held_out"])
def test_whitespace_and_controls_at_cuts_keep_every_invariant(which: int) -> None:
    failed = []
    cases = _half(which)
    assert len(cases) > 1500
    for x, t, doc, params, window in cases:
        chunks = chunk_document(doc, TOK, params) if window is None else chunk_document(doc, TOK, params, window=window)
        try:
            check_invariants(doc, chunks, params)
        except AssertionError as e:
            failed.append((hex(ord(x)), t, params, window, str(e)[:80]))
    assert not failed, (len(failed), failed[:10])


@pytest.mark.parametrize("sep", ["  ", " \u200b ", "\u200b ", " \x0b ", "\u3000 ", " \x85 "])
def test_windows_cut_in_whitespace_runs_give_the_same_chunks_as_one_call(sep: str) -> None:
    """A long page tokenised window by window: the cut lands in runs of whitespace the normalizer folds
    into one space (or next to a zero-width space or a dropped control); the chunks must be those
    of one call over the whole page, with exact counts."""
    text = sep.join(f"Sentence {i} of the keeper's lamp,{sep}and the fog signal{sep}sounds." for i in range(400))
    doc = Document("long.txt", "txt", (Page(1, text, None, "ok"), Page(2, "A second page. " * 20, None, "ok")))
    params = ChunkParams()
    whole = chunk_document(doc, TOK, params, window=10_000_000)
    assert len(whole) > 20
    for window in (997, 4_999, 6_001, 9_000):
        assert chunk_document(doc, TOK, params, window=window) == whole, window
    check_invariants(doc, whole, params)
