"""Where a quote and the closest source text differ, and whether the difference turns the meaning:
:func:`differences`.

A fuzzy match measures characters, not meaning: "TraceMonkey is not a method JIT" quoted as
"TraceMonkey is a method JIT" scores about 0.9, as high as "a" quoted as "the". A verdict of
``fuzzy`` with "quote matched_text instead" reads as "close enough" for the first. So the words
that differ (a word-level alignment of the two texts, rapidfuzz ``Levenshtein.opcodes`` over
their words) are named, and each difference is classed:

============  ==============================================================================
``negation``  one side holds a negation the other lacks: a word (:data:`NEGATIONS`, ten
              languages, and ``n't``), a negating prefix of the same word (``valid`` /
              ``invalid``, ``möglich`` / ``unmöglich``), or in Japanese, Chinese and Korean a
              negating morpheme (:data:`CJK_NEGATIONS`) in the differing characters or next to them
``number``    the quote holds a number (digits, or a number word: ``two``, ``zwei``) that the
              source does not hold at that place, or another unit there (``MB`` for ``GB``);
              ``1,000`` and ``1000``, ``two`` and ``2``, ``MB`` and ``megabytes`` are equal
``antonym``    one side holds a word whose opposite the other holds at that place (``after`` /
              ``before``, ``unter`` / ``über``, ``最小`` / ``最大``: :mod:`pagerecall.verify.antonyms`,
              the languages of the negations)
``name``      a name in the quote that the source's match does not hold (as often: a name moved is none), or
              one of the source's replaced by other words (``Voreinstellung`` for ``FHS``): a word
              with a capital or a digit inside (``SpiderMonkey``, ``DFSG``), a capitalised word
              inside a sentence (not in a language that capitalises every noun: the page's share
              of such words above :data:`NOUN_CAPITALS`, German), or a Latin word in CJK text
``word``      any other difference (an article, a word left out, a synonym)
============  ==============================================================================

A quote left without a number or a name the source has, with nothing in its place (a dropped ``2x``),
is a ``word`` difference: it says less than the source, not the opposite. The verdict built on these
(:func:`pagerecall.verify.quote.verify_quote`): ``contradicted`` when any difference is a
negation, an antonym, a number or a name; ``fuzzy`` (with the differences named) otherwise.
Why and the cases measured: docs/decisions/quote-verification-trust.md.
"""

from __future__ import annotations

import functools
import re
from dataclasses import asdict, dataclass

from pagerecall.verify.antonyms import antonymous, cjk_antonymous
from pagerecall.verify.normalise import _is_wide, normalise
from pagerecall.verify.word_keys import _ELISION, _Tok, _is_number, _key, _tokens, as_number  # noqa: F401

MEANING = ("negation", "antonym", "number", "name")
"""The kinds of difference that turn a quote's meaning (module docstring)."""

NEGATIONS = frozenset((
    "not no never none nobody nothing nowhere neither nor cannot without "  # English
    "nicht kein keine keinen keinem keiner keines nie niemals nichts niemand nirgends weder ohne "  # German
    "ne pas jamais aucun aucune rien sans ni "  # French
    "nunca jamás ningún ninguno ninguna nada nadie sin tampoco "  # Spanish
    "non mai nessun nessuno nessuna niente nulla senza "  # Italian
    "não nenhum nenhuma ninguém sem nem "  # Portuguese
    "niet geen nooit niets niemand zonder "  # Dutch
    "не нет ни никогда ничего никто без "  # Russian
    "nie nigdy żaden bez"  # Polish
).split())
"""Negating words, lower case."""

CJK_NEGATIONS = ("ない", "なかっ", "なく", "ません", "不", "非", "未", "無", "没", "沒", "无", "别", "勿", "않", "못", "없")
"""Negating morphemes of Japanese, Chinese and Korean, looked for in a difference's characters and
the two on each side of it (``できます`` / ``できません`` differ in ``す`` / ``せん``)."""

_NEG_PREFIXES = (("un", 4), ("non", 4), ("in", 5), ("im", 5), ("il", 5), ("ir", 5), ("dis", 5), ("не", 5))
"""A negating prefix and the shortest word it is taken on (``form`` / ``inform`` is no negation;
Russian ``не``: ``необязательно`` / ``обязательно``)."""

NOUN_CAPITALS = 0.2
"""Share of capitalised words inside sentences above which a page's language capitalises nouns
(measured on pages 10, 20, 30, 40, 50: maint-guide.de 0.24-0.34; maint-guide.en 0.04-0.08;
tracemonkey.pdf page 10: 0.01): there a capitalised word is no sign of a name."""

MAX_REPORTED = 6
"""Differences named at most (those that turn the meaning first)."""

_SENTENCE_END = tuple(".!?。！？:\"“”«»(")


@dataclass(frozen=True, slots=True)
class Difference:
    """One place where the quote and the source differ: ``kind`` (module docstring), the quote's
    words there and the source's (normalised text; the word before is added to both when one side
    has none, so that ``is`` / ``is not`` reads as a difference)."""

    kind: str
    quote: str
    source: str

    def to_dict(self) -> dict:
        return asdict(self)


def _initial(text: str, t: _Tok) -> bool:
    i = t.start
    while i > 0 and text[i - 1].isspace():
        i -= 1
    return i == 0 or text[i - 1] in _SENTENCE_END


def _is_name(text: str, t: _Tok, capitalising) -> bool:
    w = t.text
    if t.wide or not any(c.isalpha() for c in w) or t.key.startswith("unit:"):
        return False
    if any(c.isupper() for c in w[1:]):
        return True  # SpiderMonkey, DFSG
    near = text[max(0, t.start - 1):t.start] + text[t.end:t.end + 1]
    if any(_is_wide(c) for c in near):
        return True  # a Latin word in CJK text
    return w[0].isupper() and not _initial(text, t) and not capitalising()


_LETTERS = re.compile(r"(?<!\w)[^\W\d_]{2,}(?!\w)")


def _capitalising(text: str) -> bool:
    """True when more than :data:`NOUN_CAPITALS` of the words inside the sentences of ``text`` are
    capitalised (``Paket``; ``TraceMonkey`` and ``DFSG`` are names in any language, not counted).
    About 1 ms a page."""
    inside = capital = 0
    for m in _LETTERS.finditer(text):
        w = m.group(0)
        if _is_wide(w[0]):
            continue
        i = m.start()
        while i > 0 and text[i - 1].isspace():
            i -= 1
        if i == 0 or text[i - 1] in _SENTENCE_END:
            continue
        inside += 1
        capital += w[0].isupper() and w[1:].islower()
    return inside >= 20 and capital / inside > NOUN_CAPITALS


def _negations(text: str, toks: list[_Tok], i: int, j: int) -> tuple[int, int]:
    """Negating words in ``toks[i:j]``, and negating morphemes in the characters of the wide tokens
    from ``i - 2`` to ``j + 2``."""
    words = sum(1 for t in toks[i:j] if not t.wide and (t.key in NEGATIONS or t.key.endswith(("n't", "n’t"))
                                                         or t.key.startswith(("n'", "n’"))))
    wide = [t for t in toks[max(0, i - 2):j + 2] if t.wide]
    if not wide:
        return words, 0
    chars = text[wide[0].start:wide[-1].end]
    return words, sum(chars.count(m) for m in CJK_NEGATIONS)


def _antonyms(nq: str, q: list[_Tok], i1: int, i2: int, ns: str, s: list[_Tok], j1: int, j2: int) -> bool:
    """The quote's words ``q[i1:i2]`` and the source's ``s[j1:j2]`` hold the two sides of an antonym
    pair (:mod:`pagerecall.verify.antonyms`); wide characters with one on each side."""
    qw, sw = [t.key for t in q[i1:i2] if not t.wide], [t.key for t in s[j1:j2] if not t.wide]
    if qw and sw and antonymous(qw, sw):
        return True
    qc = [t for t in q[max(0, i1 - 1):i2 + 1] if t.wide]
    sc = [t for t in s[max(0, j1 - 1):j2 + 1] if t.wide]
    return bool(qc and sc) and cjk_antonymous(nq[qc[0].start:qc[-1].end], ns[sc[0].start:sc[-1].end])


def _prefixed(a: list[_Tok], b: list[_Tok]) -> bool:
    """One word each, one the other with a negating prefix (``valid`` / ``invalid``)."""
    if len(a) != 1 or len(b) != 1:
        return False
    x, y = sorted((a[0].key, b[0].key), key=len)
    return any(y == p + x and len(x) >= n for p, n in _NEG_PREFIXES)


def differences(quote: str, source: str, page_text: str | None = None) -> list[Difference]:
    """The places where ``quote`` and ``source`` (the source text of a fuzzy match) differ, word by
    word, each with its kind (module docstring); those that turn the meaning first, at most
    :data:`MAX_REPORTED`. ``page_text``: the page the source text lies on, to tell a language that
    capitalises nouns (default: the two texts). Case and typography (``normalise``) are not
    differences. Pure; cost: quote words x source words."""
    from rapidfuzz.distance import Indel, Levenshtein

    nq, ns = normalise(quote).text, normalise(source).text
    q, s = _tokens(nq), _tokens(ns)
    if not q or not s:
        return []
    capitalising = functools.cache(lambda: _capitalising(page_text if page_text is not None else nq + " " + ns))
    from collections import Counter

    in_quote, in_source = Counter(t.key for t in q), Counter(t.key for t in s)
    qkeys, skeys = [t.key for t in q], [t.key for t in s]
    spans = min((_spans(q, s, aligner.opcodes(qkeys, skeys)) for aligner in (Levenshtein, Indel)),
                key=lambda sp: sum(i2 - i1 + j2 - j1 for i1, i2, j1, j2 in sp))  # Levenshtein on a tie
    if spans and spans[0][0] == 0 and spans[0][3] - spans[0][2] > 1:
        spans[0][2] = _counterparts(ns, s, spans[0][2], spans[0][3], spans[0][1], True)
    if spans and spans[-1][1] == len(q) and spans[-1][3] - spans[-1][2] > 1:
        spans[-1][3] = _counterparts(ns, s, spans[-1][2], spans[-1][3], spans[-1][1] - spans[-1][0], False)
    out: list[Difference] = []
    for i1, i2, j1, j2 in spans:
        qs, ss = q[i1:i2], s[j1:j2]
        qk, sk = [as_number(t, ss) for t in qs], [as_number(t, qs) for t in ss]  # "due file" for "2 file"
        if qk != [t.key for t in qs] or sk != [t.key for t in ss]:
            if "".join(qk) == "".join(sk):
                continue  # one number, written in a word read as a word elsewhere and in digits
        if "".join(t.key for t in qs) == "".join(t.key for t in ss):
            kind = "word"  # only the spacing differs ("makeinstall" for "make install")
        elif _negations(nq, q, i1, i2) != _negations(ns, s, j1, j2) or _prefixed(qs, ss):
            kind = "negation"
        elif _antonyms(nq, q, i1, i2, ns, s, j1, j2):
            kind = "antonym"
        elif {k for t, k in zip(qs, qk) if _is_number(t) or k != t.key} - set(sk) or (
                {t.key for t in qs if t.key.startswith("unit:")} - {t.key for t in ss}
                and any(t.key.startswith("unit:") for t in ss)):
            kind = "number"  # another value, or another unit (MB for GB)
        elif any(_is_name(nq, t, capitalising) and in_quote[t.key] > in_source[t.key] for t in qs) or qs and any(
                _is_name(ns, t, capitalising) and in_source[t.key] > in_quote[t.key] for t in ss):
            kind = "name"
        else:
            kind = "word"
        out.append(Difference(kind, _words(nq, q, i1, i2, j1 == j2), _words(ns, s, j1, j2, i1 == i2)))
    out.sort(key=lambda d: d.kind not in MEANING)
    return out[:MAX_REPORTED]


def _spans(q: list[_Tok], s: list[_Tok], opcodes) -> list[list[int]]:
    """The places where the words ``q`` (the quote's) and ``s`` (the source's) differ, ``[quote start, end,
    source start, end]`` each, from an alignment's ``opcodes``; none outside the quote's first and last word.
    :func:`differences` keeps, of Levenshtein's and Indel's alignment, the one that differs in fewer words:
    Levenshtein's replacements tie "il ne peut pas facilement" with "il peut facilement le" as "pas facilement"
    for "facilement le", Indel's longest common subsequence reads "ne" and "pas" added; Indel alone may take
    "de" from "Lors de" for the "de" of "de nouvelles"."""
    spans: list[list[int]] = []  # runs of differing words: [quote start, end, source start, end]
    for op in opcodes:
        if op.tag == "equal":
            continue
        if spans and spans[-1][1] == op.src_start and spans[-1][3] == op.dest_start:
            spans[-1][1], spans[-1][3] = op.src_end, op.dest_end  # one place: "す" / "せん", not two
        else:
            spans.append([op.src_start, op.src_end, op.dest_start, op.dest_end])
    spans = _framed(q, s, spans)
    if spans and spans[-1][0] == spans[-1][1] and [t.key for t in q[spans[-1][0]:]] == [
            t.key for t in s[spans[-1][2]:spans[-1][2] + len(q) - spans[-1][0]]]:
        spans.pop()  # source words inserted before the quote's last words, which they repeat: after them
    if spans and spans[0][0] == spans[0][1] and spans[0][3] >= spans[0][0] and [t.key for t in q[:spans[0][0]]] == [
            t.key for t in s[spans[0][3] - spans[0][0]:spans[0][3]]]:
        spans.pop(0)  # and before its first words: before them ("texmf a été" for "a été" ... "texmf, texmf")
    if spans and spans[0][1] == 0:
        spans.pop(0)  # source words before the quote's first word: outside the quote
    if spans and spans[-1][0] == len(q):
        spans.pop()  # and after its last
    return spans


def _framed(q: list[_Tok], s: list[_Tok], spans: list[list[int]]) -> list[list[int]]:
    """Two places that each add or drop only negating words, one word apart (French ``ne ... pas`` around
    a verb, ``n'est ... pas``), made one place: "ne quitte pas" where the quote has "quitte", not "ne"
    and "pas" apart."""
    out: list[list[int]] = []
    for sp in spans:
        if out and sp[0] - out[-1][1] == 1 and sp[2] - out[-1][3] == 1 and all(
                _negating_only(q[a[0]:a[1]] + s[a[2]:a[3]]) and (a[0] == a[1] or a[2] == a[3]) for a in (out[-1], sp)):
            out[-1] = [out[-1][0], sp[1], out[-1][2], sp[3]]
        else:
            out.append(sp)
    return out


def _negating_only(toks: list[_Tok]) -> bool:
    return bool(toks) and all(t.key in NEGATIONS or t.key.startswith(("n'", "n’")) for t in toks)


_STOPS = frozenset(".!?。！？:;•")
"""Characters between two source words that part them: across one, a word is no counterpart of a
quote's first or last word."""


def _counterparts(text: str, toks: list[_Tok], j1: int, j2: int, n: int, first: bool) -> int:
    """A quote's first (``first``) or last ``n`` words changed, against the source's ``toks[j1:j2]``:
    their counterparts are the ``n`` source words next to the equal words (at least one; CJK
    characters do not count: "ません" for "ます"), not across a sentence end or a bullet
    (:data:`_STOPS`), not the words before or after that the source text was widened by. Returns
    the new ``j1`` (first) or ``j2``."""
    n = max(1, n)
    if first:
        k = j2 - 1
        while k > j1 and (j2 - k < n or toks[k - 1].wide) and not _STOPS.intersection(
                text[toks[k - 1].end:toks[k].start]):
            k -= 1
        return k
    k = j1 + 1
    while k < j2 and (k - j1 < n or toks[k].wide) and not _STOPS.intersection(text[toks[k - 1].end:toks[k].start]):
        k += 1
    return k


def _words(text: str, toks: list[_Tok], i: int, j: int, other_empty: bool) -> str:
    """The words ``toks[i:j]`` as written in ``text``; with the word before (after, at the start)
    when this side or the other has none there."""
    if i == j or other_empty:
        i, j = (i - 1, j) if i > 0 else (i, min(j + 1, len(toks)))
    if i >= j:
        return ""
    return text[toks[i].start:toks[j - 1].end]


def _widen(text: str, s: int, e: int) -> tuple[int, int]:
    """``[s, e)`` of ``text`` widened by one word on each side (three characters of a script written
    without spaces): a fuzzy match's ends are the counterparts of the quote's first and last words,
    so a first or last word the quote changed (``3`` for ``2``, ``す`` for ``せん``) lies just outside."""
    a = s
    while a > 0 and not text[a - 1].isalnum() and text[a - 1] not in _STOPS and (s - a < 6 or text[a - 1].isspace()):
        a -= 1  # spaces, and brackets or a bullet: "(Required) • buildindep"
    if a > 0 and _is_wide(text[a - 1]):
        stop = a - 3
        while a > max(0, stop) and text[a - 1] not in _STOPS:
            a -= 1  # three characters, not across a sentence end
    while a > 0 and text[a - 1].isalnum() and not _is_wide(text[a - 1]):
        a -= 1
    b = e
    while b < len(text) and not text[b].isalnum() and text[b] not in _STOPS and (b - e < 6 or text[b].isspace()):
        b += 1
    if b < len(text) and _is_wide(text[b]):
        stop = b + 3
        while b < min(len(text), stop) and text[b] not in _STOPS:
            b += 1
    while b < len(text) and text[b].isalnum() and not _is_wide(text[b]):
        b += 1
    return a, b


def describe(diffs: list[Difference]) -> str:
    """``"is not" where the quote has "is" (negation); ...``: the differences in words."""
    return "; ".join(f'"{d.source}" where the quote has "{d.quote}" ({d.kind})' for d in diffs)


def weigh(result, page_text: str) -> str:
    """Name the differences of a fuzzy ``result`` (a :class:`pagerecall.verify.quote.QuoteCheck`
    with ``quote`` and ``matched_text``) in ``result.differences``, turn it into ``contradicted``
    when one of them is a negation, an antonym, a number or a name, and return its note. ``page_text``: the
    text of the page the match starts on (:func:`differences`)."""
    source = result.matched_text or ""
    if result.page == result.page_end and result.char_start is not None:  # a word more on each side:
        source = page_text[slice(*_widen(page_text, result.char_start, result.char_end))]  # "2" before "Programs"
    diffs = differences(result.quote, source, page_text)
    result.differences = [d.to_dict() for d in diffs]
    turned = [d for d in diffs if d.kind in MEANING]
    where = f"page {result.page}" + (f" (printed {result.label})" if result.label else "")
    if turned:
        result.match = "contradicted"
        return (f"contradicted: the source says otherwise on {where}: {describe(turned)}; not the source's "
                f"words and not a near match of them (the similarity {result.similarity:.2f} counts characters, "
                "not meaning): do not cite this quote; read the page (`pagerecall page`, MCP read_page)")
    said = f"; it differs in: {describe(diffs)}" if diffs else ""
    return (f"not verbatim: closest source text has similarity {result.similarity:.2f}; quote matched_text "
            f"instead{said}")
