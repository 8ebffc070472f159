"""Which pieces of a sorted Unigram vocabulary occur inside given words, in numpy.

The light tokenizers (:mod:`pagerecall.model.span_tokenizer`, :mod:`pagerecall.model.query_tokenizer`)
build a small ``tokenizers`` Unigram over the vocabulary pieces that are substrings of a text's
pre-tokenised words. Finding them was a Python loop over every substring of every new word
(``w[i:j].encode()``, up to ``max_piece_chars`` characters long) followed by one binary search
of all of them: 1.7 M substrings for the three maint-guide manuals (German compounds,
Japanese runs between spaces), 1.8 of the chunker's 3.4 CPU-s.

Here the substrings are never made as Python objects. The words' UTF-8 bytes sit in one buffer;
a candidate is a start character and a length, its fixed-width bytes one row gathered from a
sliding window over that buffer. Candidates grow one character at a time from every start,
and a start stops growing as soon as no vocabulary piece begins with its candidate: in the
bytewise sorted vocabulary the pieces that begin with a string ``c`` form one run starting at
``c``'s insertion point, so the piece found there (or right after ``c`` itself, when ``c`` is a
piece) tells whether any longer candidate from that start can still be a piece. The result is
exactly the set the loop found (``tests/model/test_span_tokenizer.py`` compares them on the
demo PDFs' words and on random words); most starts stop after 2-4 characters instead of 16.
Why: docs/decisions/build-overhead.md.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

_SLAB = 32_768
"""Start characters searched together: bounds the temporaries at ~3 x 32,768 x the pieces'
byte width (48 for multilingual-e5: ~5 MB)."""

_ID_BITS = 32
"""Word numbers and piece ids are packed into one int64 (word << 32 | id) to sort them once."""


def prefix_keys(pieces: np.ndarray) -> np.ndarray:
    """The first 8 bytes of each sorted piece as a big-endian number (uint64, zero-padded): sorted
    too, and searched ~6x faster than the fixed-width bytes (one number compare against up to 48
    bytes). ``pieces``: ``S<width>``, width >= 8. 8 bytes per piece (2 MB for multilingual-e5)."""
    rows = np.asarray(pieces).view(np.uint8).reshape(len(pieces), pieces.dtype.itemsize)
    return np.ascontiguousarray(rows[:, :8]).view(">u8").ravel().astype(np.uint64)


def _insertion_points(pieces: np.ndarray, keys: np.ndarray, cand: np.ndarray, rows: np.ndarray,
                      size: np.ndarray) -> np.ndarray:
    """``np.searchsorted(pieces, cand)``: the 8-byte prefix keys first, then, for candidates longer
    than 8 bytes, a vectorised binary search over the pieces sharing their first 8 bytes."""
    key = np.ascontiguousarray(rows[:, :8]).view(">u8").ravel().astype(np.uint64)
    pos = np.searchsorted(keys, key)
    long = np.flatnonzero(size > 8)
    if len(long):
        lo = pos[long]
        hi = np.searchsorted(keys, key[long], side="right")
        sub = cand[long]
        while True:
            open_ = np.flatnonzero(lo < hi)
            if not len(open_):
                break
            mid = (lo[open_] + hi[open_]) >> 1
            less = pieces[mid] < sub[open_]
            lo[open_] = np.where(less, mid + 1, lo[open_])
            hi[open_] = np.where(less, hi[open_], mid)
        pos[long] = lo
    return pos


def pieces_in_words(words: Sequence[str], pieces: np.ndarray, ids: np.ndarray, max_chars: int,
                    keys: np.ndarray | None = None) -> list[np.ndarray]:
    """For each word, the original ids (int32, sorted, unique; one small array each) of the
    vocabulary pieces that occur in it as substrings.

    ``pieces``: the vocabulary's UTF-8 pieces sorted bytewise, fixed width (``S<width>``, width >= 8,
    no piece empty or holding NUL: :func:`pagerecall.model.query_tokenizer.derive` checks both);
    ``ids``: int (any width), the original id of each sorted piece; ``max_chars``: the longest
    piece in characters; ``keys``: :func:`prefix_keys` of ``pieces`` (computed when None).
    A word holding a lone surrogate raises ``UnicodeEncodeError`` (normalised text never does).
    """
    n_words = len(words)
    if not n_words:
        return []
    if keys is None:
        keys = prefix_keys(pieces)
    width = pieces.dtype.itemsize
    joined = "".join(words)
    lens = np.fromiter(map(len, words), dtype=np.int64, count=n_words)
    cps = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32)
    n = len(cps)
    nbytes = 1 + (cps >= 0x80).astype(np.int64) + (cps >= 0x800) + (cps >= 0x10000)
    off = np.zeros(n + 1, dtype=np.int64)  # byte offset of each character in `raw`
    np.cumsum(nbytes, out=off[1:])
    raw = np.frombuffer(joined.encode("utf-8"), dtype=np.uint8)
    buf = np.zeros(len(raw) + width, dtype=np.uint8)
    buf[: len(raw)] = raw
    window = sliding_window_view(buf, width)  # row b: the `width` bytes from byte b on (a view)
    word_of = np.repeat(np.arange(n_words, dtype=np.int64), lens)
    limit = np.cumsum(lens)[word_of]  # per character: the end of its word (exclusive)
    nul = np.flatnonzero(cps == 0)
    if len(nul):  # no piece holds NUL (and fixed-width bytes would drop a trailing one): stop there
        k = np.searchsorted(nul, np.arange(n))
        limit = np.where(k < len(nul), np.minimum(limit, nul[np.minimum(k, len(nul) - 1)]), limit)
    last = len(pieces) - 1
    col = np.arange(width)
    found_keys: list[np.ndarray] = []
    for a in range(0, n, _SLAB):
        alive = np.arange(a, min(a + _SLAB, n))
        for length in range(1, max_chars + 1):
            alive = alive[alive + length <= limit[alive]]
            if not len(alive):
                break
            start = off[alive]
            size = off[alive + length] - start
            fits = size <= width
            if not fits.all():
                alive, start, size = alive[fits], start[fits], size[fits]
                if not len(alive):
                    break
            pad = col >= size[:, None]
            rows = window[start]  # a copy: (len(alive), width) uint8
            rows[pad] = 0
            cand = rows.view(f"S{width}").ravel()
            pos = np.minimum(_insertion_points(pieces, keys, cand, rows, size), last)
            hit = pieces[pos] == cand
            if hit.any():
                found_keys.append((word_of[alive[hit]] << _ID_BITS) | np.asarray(ids[pos[hit]], dtype=np.int64))
            # longer candidates from a start live on while some piece begins with this one: the
            # piece at its insertion point (after it, when it is a piece itself) tells
            after = np.asarray(pieces[np.minimum(pos + hit, last)]).view(np.uint8).reshape(-1, width).copy()
            after[pad] = 0
            alive = alive[(after == rows).all(axis=1)]
    if not found_keys:
        return [np.zeros(0, dtype=np.int32) for _ in range(n_words)]
    found = np.concatenate(found_keys)
    found.sort()
    found = found[np.concatenate(([True], found[1:] != found[:-1]))]
    owner = found >> _ID_BITS
    piece_ids = found & ((1 << _ID_BITS) - 1)
    bounds = np.searchsorted(owner, np.arange(n_words + 1)).tolist()
    # copies, not views: a cached word's array must not keep the whole batch's array alive
    return [piece_ids[bounds[k] : bounds[k + 1]].astype(np.int32) for k in range(n_words)]
