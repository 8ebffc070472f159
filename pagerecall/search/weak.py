"""Weak answers: a query that no lane has evidence for, measured against meaningless queries (layer 3).

A search always returns its nearest passages, even for ``xylofrobnicated``. When no word of the
query matched and its best passage is no closer to it than to made-up words (:data:`NOISE_PROBES`,
:data:`NOISE_MARGIN`), :func:`no_evidence` says so: the searcher marks the hits ``weak`` and the
envelope says to treat the answer as a miss (:data:`pagerecall.search.coverage.WEAK_NOTE`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
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


RELATIVE_MARGIN = 0.01
"""The same yardstick measured on the index itself: a query no word of which matched is
also weak when its margin over the probes (best cosine minus nearest probe) exceeds the probes' own
median margin in this index and scope (:func:`probe_margin`) by less than 0.01. Why: the best
cosine of any query grows with the number of passages (more passages, a closer nearest one), so a
fixed margin that marks ``xylofrobnicated`` on the 56-passage example index (-0.087) no longer does
at a few thousand passages; the probes' own margins grow the same way (median -0.072 at 56
passages, -0.042 at 731, -0.031 at 6,481). Measured on indexes of 3, 56, 731 and 6,481 passages
(the last: 1,191 pages of seven bench manuals, where ``xylofrobnicated``'s margin was -0.032 and
the fixed rule let it through), query margin minus probe median: ``xylofrobnicated`` +0.003 /
-0.015 / +0.001 / -0.001; ``qwpoeiruty`` -0.018 / -0.010 / -0.019 / -0.005; ``zxcvbnm`` -0.080 /
-0.082 / -0.053 / -0.049; real cross-lingual queries no word of which matched: +0.041 to +0.068
on the 3-passage corpus that answers them, +0.059 to +0.157 on the example corpus, +0.014 to
+0.115 and +0.019 to +0.105 on the Debian/R indexes (which do not answer "Sauerteig füttern"
at +0.014 / +0.019: the rule cannot tell, as before). Honest limit unchanged: ``flibbertigibbet
snorkwax`` (+0.024 to +0.040) stays unmarked."""

_MARGINS: OrderedDict[tuple, float] = OrderedDict()
_MARGINS_LOCK = threading.Lock()


def probe_margin(snapshot: Any, scope: Any, probes: Any) -> float:
    """Median over :data:`NOISE_PROBES` of (the probe's best passage cosine in ``snapshot`` within
    ``scope`` minus its cosine to the nearest other probe): how close meaningless text gets in this
    index. ``probes`` are their query vectors (float32 (n, dim), L2-normalised). Cached per
    generation and scope (32 entries); costs one top-1 vector search per probe."""
    import numpy as np

    key = (str(getattr(snapshot, "path", "")), getattr(snapshot, "name", None), tuple(scope or ()))
    with _MARGINS_LOCK:
        if key in _MARGINS:
            _MARGINS.move_to_end(key)
            return _MARGINS[key]
    sims = np.asarray(probes) @ np.asarray(probes).T
    margins = []
    for i, p in enumerate(probes):
        hits, _ = snapshot.vector_search_with_rows(p, 1, files=scope)
        if hits:
            margins.append(hits[0][1] - max(float(sims[i, j]) for j in range(len(probes)) if j != i))
    value = float(np.median(margins)) if margins else float("-inf")
    with _MARGINS_LOCK:
        _MARGINS[key] = value
        while len(_MARGINS) > 32:
            _MARGINS.popitem(last=False)
    return value


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
    Japanese queries above as noise). The margin is also compared with the
    probes' own margins in the same index and scope (:data:`RELATIVE_MARGIN`), so the rule holds
    at any index size."""
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
    margin = vec[0][1] - nearest_noise
    if margin < NOISE_MARGIN:
        return True
    return margin - probe_margin(q.snapshot, q.scope, probes) < RELATIVE_MARGIN
