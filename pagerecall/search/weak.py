"""Weak answers: a query that no lane has evidence for, measured against meaningless queries (layer 3).

A search always returns its nearest passages, even for ``xylofrobnicated``. When no word of the
query matched and its best passage is no closer to it than to made-up words (:data:`NOISE_PROBES`,
:data:`NOISE_MARGIN`), :func:`no_evidence` says so: the searcher marks the hits ``weak`` and the
envelope says to treat the answer as a miss (:data:`pagerecall.search.coverage.WEAK_NOTE`).
"""

from __future__ import annotations

from typing import Any, Callable

NOISE_PROBES = ("xylofrobnicated", "qzxvbnm wkjhg", "?!...;;", "*", "zzzzzz", "frobnicate the glorp",
                "ksdjf lkqwe poiuz")
"""Queries that mean nothing in any language (made-up words, punctuation, one symbol): how close a
query is to the nearest of them is the yardstick of "no evidence" (:func:`no_evidence`)."""

NOISE_MARGIN = -0.04
"""A query no word of which matched, and whose best passage is not closer to it than the nearest of
:data:`NOISE_PROBES` minus 0.04 (cosine), has no evidence: its hits are marked ``weak``
(:func:`no_evidence`). A query without a letter or a digit (``*``, ``?!...;;``) has no
meaning to find: with no word matched, its hits are weak whatever the cosines.
Measured (bundled model, demo index of 1,157 passages; best cosine minus nearest probe): the 270
demo section titles -0.018 at the lowest (``manpage.*``), scoped to one other language's file
-0.033 (``control``, which the full-text lane matches anyway); a 4-file corpus of this module's
tests: a German and a Japanese query that no word of matched -0.016 and +0.001. Twenty
meaningless queries not among the probes: -0.098 to -0.001; -0.04 marks 12 of them
(``xylofrobnicated`` -0.056, ``zxcvbnm``, ``#``, ``...``, ``??``) and none of the real ones.
Honest limit: made-up words that look like words (``flibbertigibbet snorkwax`` -0.001) stay
unmarked; the envelope says only what it can tell."""


def no_evidence(q: Any, lanes: dict[str, list[tuple[str, float]]], probe_vectors: Callable[[Any], Any]) -> bool:
    """True when no lane has evidence for the query: no word of it matched (the
    full-text, filename and heading lanes are empty or did not run) and its best passage is
    no closer to it than meaningless text is: ``best cosine - max cosine to NOISE_PROBES <
    NOISE_MARGIN``. The hits are then the nearest passages to nothing in particular
    (``xylofrobnicated``, ``?!...;;``, ``*``).

    ``q`` is the search's ``pagerecall.search.searcher._Query`` (its parsed query, its vector once
    the vector lane ran, its snapshot); ``probe_vectors(snapshot)`` gives the query vectors of
    :data:`NOISE_PROBES` (``Searcher._probe_vectors``: embedded once per Searcher, and only when
    the cosines decide).

    Decision record. Why relative to probes: E5's cosines are compressed and their level
    depends on the query's length and script (``*`` reaches 0.83 on a 4-file corpus, a German
    query about the same corpus's lighthouse 0.82), so no absolute cosine separates noise from
    a cross-lingual query that no word of matches; how much closer the query is to the best
    passage than to gibberish does. Measured: see :data:`NOISE_MARGIN`.
    Rejected: the best probe's top-1 cosine in the index as a floor (flagged the German and
    Japanese queries above as noise)."""
    if any(lanes.get(n) for n in ("fulltext", "filename", "heading")):
        return False
    vec = lanes.get("vector")
    if not vec:
        return False
    if not any(ch.isalnum() for ch in q.parsed.raw):
        return True  # no word, no number: nothing to find by meaning either
    import numpy as np

    qv = q.vector
    probes = probe_vectors(q.snapshot)
    raw = q.parsed.raw.strip()
    nearest_noise = max(float(np.dot(qv, p)) for p, text in zip(probes, NOISE_PROBES) if text != raw)
    return vec[0][1] - nearest_noise < NOISE_MARGIN
