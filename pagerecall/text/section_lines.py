"""Numbered section headings in a text layer (plain text, one string per page, lines split at ``\\n``).

A text layer has no fonts, so a heading is known by its number: ``§ 1 Allgemeines``, ``I. La relève``,
``Article 3``, ``Kapitel 2``, ``Chapitre II``, ``Chapter 4: Tides``, ``1.2 Title``, ``第3章``, ``三、``.
What keeps a numbered list item or a wrapped sentence out (a number at a line start is common in
running text):

* the title starts with a capital letter (or a letter of a script without case); a title is short
  (:data:`MAX_TITLE_WORDS`, :data:`MAX_CJK_TITLE_CHARS`) and does not end like a sentence or a list
  item (``.``, ``,``, ``;``, ``:``, ``。``);
* the line starts a block: the page's first line, after a blank line, after a line that ends a
  sentence, or after a short line (a running head, a page number); a wrapped sentence's next line
  does not;
* a plain number (``1.``, ``2)``) is a list item, not a heading, after a line that ends in ``:`` or
  beside the next or previous item (``n±1`` within :data:`LIST_GAP` lines);
* a date (``8. Oktober 2022``) and a number starting ``0`` (``0.1 release``) are not section numbers,
  nor a numbered listing line (``7 Vcs-Git: https://...``);
* a title seen before (a running head) and the pages of a table of contents or an index
  (:func:`pagerecall.text.headings.is_listing`) add nothing.

A number alone on a line (``1.3``, ``Chapter 1``: how DocBook and TeX set them) is joined with the
title on the next line. Levels: by kind (part, chapter, roman numeral, section / § / article,
numbered by depth), numbered from 1 in the order of the kinds the document uses.

Measured (found / false, the outlines of the example files and of real text layers: PyMuPDF's page
text of PDFs scored against their bookmarks; ``bench/text_headings.py``): see
docs/decisions/text-layer-headings.md.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["LIST_GAP", "MAX_TITLE_WORDS", "MAX_CJK_TITLE_CHARS", "numbered_headings"]

MAX_LINE_CHARS = 160
MAX_TITLE_WORDS = 14
"""Words of a title in a script with spaces: longer is a sentence (the longest maint-guide title has 9)."""
MAX_CJK_TITLE_CHARS = 30
"""Characters of a title in a script without spaces (Han, kana): longer is a sentence."""
LIST_GAP = 3
"""Lines within which two plain numbers ``n`` and ``n+1`` make a list, not two headings."""
BLOCK_LINE_CHARS = 60
"""A previous line this short (a running head, a page number, a title) still lets a heading start."""

_ROMAN = r"[IVXLC]{1,7}"
_KEYWORDS = {
    0: r"Part|Teil|Partie|Parte|Buch|Livre|Book",
    1: r"Chapter|Kapitel|Chapitre|Cap[ií]tulo|Capitolo|Hoofdstuk",
    3: r"Section|Abschnitt|Article|Artikel|Art\.|Articolo|Art[ií]culo|Appendix|Anhang|Annexe|Ap[eé]ndice",
}
_KEYWORD = re.compile(
    r"^(?P<kw>" + "|".join(f"(?:{v})" for v in _KEYWORDS.values()) + r")\s+"
    rf"(?P<n>[0-9]+(?:\.[0-9]+)*[a-z]?|{_ROMAN}|[A-Z])\b\.?\s*(?:[:.\-–—]\s*)?(?P<title>.*)$",
    re.IGNORECASE)
_PARA = re.compile(r"^(?:§§?|Art\.)\s*(?P<n>[0-9]+[a-z]?)\.?\s*(?:[:.\-–—]\s*)?(?P<title>.*)$")
_ROMAN_LINE = re.compile(rf"^(?P<n>{_ROMAN})[.)]\s+(?P<title>.+)$")
_NUMBER = re.compile(r"^(?P<n>[0-9]{1,3}(?:\.[0-9]{1,3})*)(?P<end>[.)]?)\s+(?P<title>.+)$")
_NUMBER_ALONE = re.compile(r"^(?P<n>[0-9]{1,3}(?:\.[0-9]{1,3})+|[0-9]{1,3}\.)$")
_CJK = re.compile(r"^(?:第\s*[0-9一二三四五六七八九十百]+\s*[章節节部條条款編编]|[一二三四五六七八九十百]+\s*[、．.])\s*(?P<title>.*)$")
_FIELD = re.compile(r"^[\w-]+:\s")
_DATE = re.compile(r"^[0-9]{1,2}\.\s+\S+\s+[0-9]{4}$")
_SENTENCE_END = tuple(".!?。！？…»”\")")
_NO_SPACE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def _title_ok(title: str, required: bool = True) -> bool:
    """A plausible title: empty only when not ``required``; starts with a letter that is upper case or
    has no case; short; does not end like a sentence or a list's lead-in."""
    title = title.strip()
    if not title:
        return not required
    first = title[0]
    if not first.isalpha() or (first.lower() != first.upper() and not first.isupper()):
        return False
    if title.endswith((".", ",", ";", ":", "。", "、", "，")) and not title.endswith(("...", "…")):
        return False
    if _NO_SPACE.search(title):
        return len(title) <= MAX_CJK_TITLE_CHARS
    return len(title.split()) <= MAX_TITLE_WORDS


def _starts_block(lines: list[str], i: int) -> bool:
    if i == 0:
        return True
    prev = lines[i - 1].strip()
    return not prev or prev.endswith(_SENTENCE_END) or len(prev) <= BLOCK_LINE_CHARS or prev[-1].isdigit()


def _candidate(line: str, nxt: str | None) -> tuple[tuple[int, int], str, str | None, bool] | None:
    """``(rank, title, plain number or None, joins next line)`` of a heading line, or None."""
    s = line.strip()
    if not s or len(s) > MAX_LINE_CHARS:
        return None
    m = _KEYWORD.match(s)
    if m and s[0].isupper():
        kind = next(k for k, v in _KEYWORDS.items() if re.fullmatch(v, m.group("kw"), re.IGNORECASE))
        title = m.group("title")
        if not title.strip() and nxt is not None and _title_ok(nxt) and not _any_number(nxt):
            return (kind, 0), f"{s} {nxt.strip()}", None, True
        return ((kind, 0), s, None, False) if _title_ok(title, required=False) else None
    m = _PARA.match(s)
    if m:
        return ((3, 0), s, None, False) if _title_ok(m.group("title"), required=False) else None
    m = _CJK.match(s)
    if m:
        return ((2, 0), s, None, False) if _title_ok(m.group("title"), required=False) else None
    m = _ROMAN_LINE.match(s)
    if m and _title_ok(m.group("title")):
        return (2, 0), s, None, False
    m = _NUMBER_ALONE.match(s)
    if m and not s.startswith("0") and nxt is not None and _title_ok(nxt) and not _any_number(nxt):
        return (4, s.rstrip(".").count(".") + 1), f"{s} {nxt.strip()}", None, True
    m = _NUMBER.match(s)
    if m and not s.startswith("0") and not _DATE.match(s) and _title_ok(m.group("title")):
        n = m.group("n")
        if "://" in s or ("." not in n and _FIELD.match(m.group("title"))):
            return None  # a numbered listing line: "7 Vcs-Git: https://...", "18 License: GPL-2+"
        plain = n if "." not in n else None
        return (4, n.count(".") + 1), s, plain, False
    return None


def _any_number(line: str) -> bool:
    s = line.strip()
    return bool(_NUMBER.match(s) or _NUMBER_ALONE.match(s) or _KEYWORD.match(s) or _PARA.match(s))


def numbered_headings(pages: Sequence[str]) -> list[tuple[int, str, int]]:
    """The numbered headings of a text layer as ``(level, title, page)``, pages physical and 1-based,
    in document order (rules in the module docstring). ``pages[i]`` is the text of page ``i + 1``."""
    from pagerecall.text.headings import is_listing

    found: list[tuple[tuple[int, int], str, int]] = []
    seen: set[str] = set()
    for number, text in enumerate(pages, start=1):
        if is_listing(text):
            continue  # a table of contents or an index lists every title
        lines = text.split("\n")
        cands: dict[int, tuple[tuple[int, int], str, str | None]] = {}
        skip = -1
        for i, line in enumerate(lines):
            if i <= skip:
                continue
            nxt = next((x for x in lines[i + 1:i + 2] if x.strip()), None)
            got = _candidate(line, nxt)
            if got is None or not _starts_block(lines, i):
                continue
            rank, title, plain, joins = got
            if plain is not None and i and lines[i - 1].strip().endswith(":"):
                continue  # "... as follows:" / "1. Check the lamp": a list
            cands[i] = (rank, title, plain)
            if joins:
                skip = i + 1
        plain_at = {i: int(c[2]) for i, c in cands.items() if c[2] is not None}
        for i, (rank, title, plain) in sorted(cands.items()):
            if plain is not None and any(abs(j - i) <= LIST_GAP and abs(n - plain_at[i]) == 1
                                         for j, n in plain_at.items() if j != i):
                continue  # 1. / 2. / 3. on nearby lines: a numbered list
            key = " ".join(title.casefold().split())
            if key in seen:
                continue  # a running head repeats its section's title on every page
            seen.add(key)
            found.append((rank, title, number))
    order = {r: k for k, r in enumerate(sorted({r for r, _t, _p in found}), start=1)}
    return [(order[r], t, p) for r, t, p in found]
