"""Which query words a snippet marks: the ones that carry the query, in any language.

A snippet marked every analysed query word it found: in "How often does the fog signal sound?" the
web page lit up ``the`` as brightly as ``fog``, and single letters (``a``). :func:`unmarked` names the words not to mark, judged by the index
itself (no stop-word list, which would be language-specific; the full-text lane's relaxation makes
the same kind of choice, see :mod:`pagerecall.search.lexical`):

* a word held by more than :data:`COMMON_SHARE` of the passages that hold any word of the query.
  Why among those and not among all passages: in a corpus of several languages a word common in
  one of them is rare in the whole (``the`` is in 18 of 28 passages of the en + ja example corpus,
  but in all 18 that hold a word of an English query);
* single letters of scripts written with spaces, and single characters of scripts without spaces
  when the query has a longer run.

When every word would be left unmarked (a query of common words only), all are marked as before.
"""

from __future__ import annotations

import logging
from typing import Any

from pagerecall.index.fulltext import has_no_space_script

from pagerecall.search.query import ParsedQuery

log = logging.getLogger(__name__)

__all__ = ["COMMON_SHARE", "unmarked"]

COMMON_SHARE = 0.6
"""A word in more than this share of the passages holding any query word is not marked. Measured
with "How often does the fog signal sound? a lamp keeper": en + ja example corpus (18 such
passages): ``the`` 1.0, ``keeper`` 0.94, ``a`` 0.89 (unmarked), ``lamp`` 0.5, ``signal`` 0.33,
``fog`` 0.28 (marked); Debian FAQ + maint-guide + sample-sigconf (690 of 731 passages): ``the``
0.95, ``a`` 0.74 (unmarked), ``how`` 0.2, ``doe`` 0.11, ``often`` 0.02 (marked)."""


def unmarked(source: Any, parsed: ParsedQuery) -> frozenset[str]:
    """The analysed words of ``parsed`` (as in ``parsed.words``) a snippet should not mark, given
    the full-text index of ``source`` (a ``Snapshot`` or a ``tantivy.Index``). Never raises: an
    unreadable index leaves only single letters unmarked."""
    words = list(dict.fromkeys(parsed.words))
    if len(words) < 2:
        return frozenset()
    skip = {w for w in words if len(w) == 1 and (not has_no_space_script(w)
                                                  or any(len(x) > 1 for x in words if has_no_space_script(x)))}
    try:
        from tantivy import Occur, Query

        from pagerecall.search.lexical import _searcher

        index, searcher = _searcher(source)
        fields = {w: "text_ngram" if has_no_space_script(w) else "text" for w in words}
        any_word = Query.boolean_query([(Occur.Should, Query.term_query(index.schema, f, w))
                                        for w, f in fields.items()])
        holding = searcher.search(any_word, limit=1, count=True).count
        if holding:
            skip |= {w for w, f in fields.items() if searcher.doc_freq(f, w) > COMMON_SHARE * holding}
    except Exception:  # noqa: BLE001 - decoration only: never fail a search for it
        log.debug("snippet marks: index counts unreadable", exc_info=True)
    return frozenset(skip) if len(skip) < len(words) else frozenset()
