"""A claim's numbers, looked up on the cited pages of the SOURCE (not the index).

Agents misquote numbers more than words. :func:`check_numbers` finds every number of a claim
(:func:`pagerecall.verify.number_forms.find_numbers`: signs, scale words, identifiers left out)
and says, for each, whether the cited pages show it, on which page and printed label, and the
words around it there (``context``), so that an agent sees what matched.

References to parts of a document (``Figure 5``, ``Table 2``, ``§ 3``, ``p. 12``:
:func:`pagerecall.verify.number_forms.is_reference`) are not quantities: they are left out of the
numbers compared, on the claim's side and on the pages', and listed under ``references``.

A claim's number is ``found`` on a page when the page's body text holds a number with the same
value of a compatible kind (a plain number matches any number, a range's ends and a date's year;
a percent needs a percent; a range the same range; a date the same date or a longer one in that
month) **and**, when the claim gives a unit, the same unit or an equivalent one ("4 gigabytes" and
"4 GB", "$" and "USD"; :func:`pagerecall.verify.number_words.same_unit`). Otherwise ``status`` says
what the pages hold instead:

* ``found_without_unit``: the value is there, but not with the claim's unit;
* ``running_head``: the value is printed only in a running head or foot (a line at the top or
  bottom of the page repeated on the neighbouring pages, digits aside: :func:`running_lines`),
  such as a page number (``6``, ``6 / 57``, ``Page 6 of 57``) or a year in a header;
* ``hidden``: the value is only in text no reader sees (:mod:`pagerecall.extract.hidden`);
* ``not_found``.

Only ``found`` counts as found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from pagerecall.errors import SourceNotFoundError, UsageError
from pagerecall.paths import resolve_in_corpus
from pagerecall.types import MAX_CLAIM_CHARS
from pagerecall.verify.cjk_numerals import UNREAD_HINT, unread_numerals
from pagerecall.verify.number_forms import Number, find_numbers, in_identifier, references_in
from pagerecall.verify.number_words import UNITS, same_unit
from pagerecall.verify.cited_pages import MAX_PAGES, cited_pages, page_ranges, parse_pages
from pagerecall.verify.source import KnownVisible, _check_page_number, source_for

__all__ = ["MAX_CLAIM_CHARS", "MAX_PAGES", "UNITS", "Number", "NumberCheck", "check_numbers", "cited_pages",
           "find_numbers", "in_identifier", "is_item_number", "match_numbers", "page_ranges", "parse_pages",
           "references_note", "running_lines"]

CONTEXT_WORDS = 6
"""Words shown on each side of a found number (``context``)."""

RUNNING_LINES = 3
"""Lines at the top and at the bottom of a page looked at for a running head or foot."""

RUNNING_NEIGHBOURS = 2
"""Pages on each side of a cited page whose top and bottom lines are compared (2: left and right
pages of a book set running heads that alternate)."""


@dataclass
class NumberCheck:
    """What :func:`check_numbers` found: ``numbers`` (one dict per number of the claim, as
    :func:`match_numbers` gives them), ``found`` / ``not_found`` counts (``found``: status
    ``found`` only), a ``note`` (short, about this answer: what was not found, OCR pages, pages
    cited by their printed labels, references and numerals left out), ``details`` (:data:`NOTE`: how
    the check reads, what each status means, which number forms it knows), and ``ocr_pages``: the
    cited pages (physical, 1-based) whose text came from OCR (a number found there is not
    verbatim-citable: the scan is the source)."""

    claim: str
    file: str
    pages: list[int]
    labels: list[str | None]
    numbers: list[dict]
    found: int
    not_found: int
    note: str
    references: list[str] = field(default_factory=list)
    """The claim's references to parts of a document (``Figure 5``, ``Table 2``, ``§ 3``, ``p. 12``), as
    written: left out of ``numbers`` (they are not quantities; the pages' references are left out too)."""
    ocr_pages: list[int] = field(default_factory=list)
    details: str = ""

    def to_dict(self) -> dict:
        return {"claim": self.claim, "file": self.file, "pages": self.pages, "labels": self.labels,
                "numbers": self.numbers, "found": self.found, "not_found": self.not_found, "note": self.note,
                "references": self.references, "ocr_pages": self.ocr_pages, "details": self.details}


NOTE = ("Numbers read from the source's cited pages (visible text only), not from the index. found=false: the "
        "cited pages do not show that value in their body text with the claim's unit (status says what they "
        "show instead: found_without_unit, running_head, hidden, not_found); check the claim or the pages. "
        "context: the words around the number on the page. Digits in identifiers, versions and commands "
        "(v2.3.1, \\foo=4) are not numbers. Numbers in words: English; 0-99 in German, French, Spanish, "
        "Italian (not un/uno/ein, null; sei, due, dos, once, seize, sept, otto, neuf, elf, onze only before a "
        "unit); halves and quarters (two and a half, zweieinhalb, deux et demi, 2½, a quarter); scale words "
        "(million, Mio., Mrd., bn, k, 万 ...) in ten languages and myriad units (1億2000万, 1억2000만); Japanese "
        "and Chinese numerals before a counter or after 第 (二十四文字, 三つ, 两个, 第三章); full-width digits.")
"""How a check reads (``details`` of every answer; ``--json`` and the MCP tool carry it, the note does not)."""


def check_numbers(root: Path | str, claim: str, file: str, pages: Any, *, ocr: str = "auto",
                  passwords_file: tuple[Path, bool] | Path | None = None, known: KnownVisible | None = None,
                  ocr_texts: Any = None) -> NumberCheck:
    """Look up every number of ``claim`` on the cited ``pages`` of ``file``, read from the source.

    Besides the cited pages, up to :data:`RUNNING_NEIGHBOURS` pages on each side are read (their
    first and last lines only count) to tell running heads (:func:`running_lines`).

    Args:
        root: the corpus root. claim: 1-:data:`MAX_CLAIM_CHARS` characters.
        file: relative to ``root``. pages: as :func:`parse_pages` takes them (physical, 1-based).
        ocr, passwords_file, known, ocr_texts: as :func:`pagerecall.verify.read_page`.

    Returns:
        :class:`NumberCheck`; a claim without numbers gives ``numbers == []`` (and says so).

    Raises:
        UsageError: empty or too long claim, bad pages, or pages outside the file (the message
            gives the valid range).
        UsageError also for no such file (a ``SourceNotFoundError`` turned into one: a check's
            file and pages are the caller's input). PathOutsideCorpusError: ``file`` leaves the
            corpus root. ExtractionError: the file cannot be read.
    """
    if not isinstance(claim, str) or not claim.strip():
        raise UsageError("The claim is empty. Next: pass the sentence whose numbers to check.")
    if len(claim) > MAX_CLAIM_CHARS:
        raise UsageError(f"The claim has {len(claim):,} characters; the limit is {MAX_CLAIM_CHARS:,}. "
                         "Next: check the sentence that holds the numbers.")
    page_ranges(pages)  # not page numbers at all: said before the file is opened
    try:  # bad input, all of it: exit 2 on the command line, nothing read past the first page count
        path, rel = resolve_in_corpus(root, file)
        src = source_for(path, rel, ocr, passwords_file, known, ocr_texts)
        count = src.page_count()
        if not count:
            _check_page_number(1, count, rel)  # no page could be right: the file's problem
    except SourceNotFoundError as exc:
        raise UsageError(str(exc)) from exc
    wanted, problems = cited_pages(pages, count, rel)
    if problems:
        from pagerecall.verify.printed_pages import printed_hint

        # a citation wholly past the end may be printed page numbers: name the physical pages that print them
        past = sorted({p for lo, hi in page_ranges(pages) if min(lo, hi) > count for p in (lo, hi)})[:3]
        problems += [h.strip() for h in (printed_hint(src, p, count) for p in past) if h]  # each mistake of the citation on its own line (a range too long and past the end: two)
        raise UsageError("\n".join(problems))
    read = [src.page(p) for p in wanted]
    cited = []
    for pg in read:
        near = [(q - pg.number, src.page(q).text)
                for q in range(pg.number - RUNNING_NEIGHBOURS, pg.number + RUNNING_NEIGHBOURS + 1)
                if q != pg.number and 1 <= q <= count] if find_numbers(claim) else []
        cited.append((pg.number, pg.label, pg.text, [h.text for h in pg.hidden], running_lines(pg.text, near)))
    numbers = match_numbers(claim, cited)
    found = sum(1 for n in numbers if n["found"])
    refs = references_in(claim)
    note = result_note(numbers)
    if refs:
        note = references_note(refs) + " " + note
    spans = [(n.start, n.end) for n in find_numbers(claim, references=True) + find_numbers(claim)]
    if unread := unread_numerals(claim, spans):  # a notation this check cannot read: said, not a silent no-number
        note = f"Not read as numbers: {', '.join(unread)} ({UNREAD_HINT}). " + note
    from pagerecall.verify.printed_cited import printed_page_hint

    if hint := printed_page_hint(src, count, read, claim, numbers, match_numbers):  # cited by printed labels
        note = hint + " " + note
    ocr_pages = [pg.number for pg in read if pg.ocr]
    if ocr_pages:
        note = (f"Page(s) {', '.join(map(str, ocr_pages))} read by OCR: a number found there is OCR text, not "
                f"verbatim-citable; read the scan (pagerecall page {rel} {ocr_pages[0]} --png OUT.png, MCP "
                "view_page). " + note)
    return NumberCheck(claim, rel, wanted, [pg.label for pg in read], numbers, found, len(numbers) - found, note,
                       refs, ocr_pages, NOTE)


def result_note(numbers: Sequence[dict]) -> str:
    """The part of a check's note about its numbers (``numbers``: :func:`match_numbers`'s dicts): none
    recognised, those not found (as written, with what the pages show instead), or all found."""
    if not numbers:
        return ("The claim holds no number this check recognises (which forms it reads: `details`, --json). "
                "Next: check its words with pagerecall verify.")
    missing = [n for n in numbers if not n["found"]]
    if not missing:
        return "Every number was found on the cited pages, read from the source (visible text)."
    shown = ", ".join(f"{n['text']} ({n['status'].replace('_', ' ')})" for n in missing[:6])
    more = f" and {len(missing) - 6} more" if len(missing) > 6 else ""
    return f"Not found as claimed: {shown}{more}. Next: check the claim or the cited pages."


def references_note(refs: Sequence[str]) -> str:
    """The sentence a check's note starts with when the claim holds references (``refs``, as
    :func:`pagerecall.verify.number_forms.references_in` gives them)."""
    cited = any(re.search(r"\b(?:1[5-9]\d\d|20\d\d)[a-z]?[)\]]?$", r) for r in refs)
    return (f"Left out as references, not quantities: {', '.join(refs)} (a figure, table, section or page number "
            "is checked by reading that part of the source" + ("; an author-year citation names a work, not a "
                                                              "quantity of these pages" if cited else "") + ").")


def _line_key(line: str) -> str:
    return " ".join(re.sub(r"\d+", "#", line).casefold().split())


def _edge_lines(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the first and last :data:`RUNNING_LINES` non-blank lines of ``text``."""
    spans, pos = [], 0
    for line in text.split("\n"):
        if line.strip():
            spans.append((pos, pos + len(line)))
        pos += len(line) + 1
    if len(spans) <= 2 * RUNNING_LINES:
        return spans
    return spans[:RUNNING_LINES] + spans[-RUNNING_LINES:]


def running_lines(text: str, neighbours: Sequence[tuple[int, str]]) -> list[tuple[int, int]]:
    """``(start, end)`` code-point spans of ``text``'s running heads and feet, given the texts of
    neighbouring pages as ``(offset, text)`` (offset: their page number minus this page's).

    A line among the first and last :data:`RUNNING_LINES` is a running line when it is a page
    number ``n`` (a lone number, or a page-number form such as ``- n -``, ``Page n``, ``n / 57``,
    ``Page n of 57``: :func:`pagerecall.extract.page_numbers.page_number_form`) and a neighbour at
    offset ``d`` has ``n + d`` in the same form (and the same page count) among its edge lines; or
    when it holds a letter and its wording, digits masked and case folded, is also among the first
    or last lines of a neighbour (a header repeating a title and a year). A number that does not
    count with the pages (a section's year) is not. Pure; empty without neighbours."""
    if not neighbours:
        return []
    worded, numbered = set(), set()
    for d, t in neighbours:
        for s, e in _edge_lines(t):
            line = t[s:e].strip()
            form = _page_form(line)
            if form is not None:
                numbered.add((form[0] - d, form[1], form[2]))
            elif re.search(r"[^\W\d_]", line):
                worded.add(_line_key(line))
    out = []
    for s, e in _edge_lines(text):
        line = text[s:e].strip()
        form = _page_form(line)
        if (form is not None and form in numbered) or (
                form is None and re.search(r"[^\W\d_]", line) and _line_key(line) in worded):
            out.append((s, e))
    return out


def _page_form(line: str) -> tuple[int, str, int | None] | None:
    """``(n, the line with n masked and case folded, page count or None)`` when ``line`` is a page
    number ``n`` of at most 5 digits in a page-number form, else None."""
    from pagerecall.extract.page_numbers import page_number_form

    got = page_number_form(line)
    if got is None or not got[0].isdigit() or len(got[0]) > 5:
        return None
    return int(got[0]), _line_key(line), got[1]


def _context(text: str, start: int, end: int, words: int = CONTEXT_WORDS) -> str:
    """The number ``text[start:end]`` with up to ``words`` words on each side, spaces collapsed."""
    left, right = text[max(0, start - 40 * words):start], text[end:end + 40 * words]
    lw, rw = " ".join(left.split()[-words:]), " ".join(right.split()[:words])
    glue_l, glue_r = bool(left) and not left[-1].isspace(), bool(right) and not right[0].isspace()
    return ((lw + ("" if glue_l else " ") if lw else "") + " ".join(text[start:end].split())
            + (("" if glue_r else " ") + rw if rw else ""))


_RANK = {"found": 0, "found_without_unit": 1, "running_head": 2, "hidden": 3}


def match_numbers(claim: str, pages: Iterable[tuple]) -> list[dict]:
    """The ``numbers`` of :class:`NumberCheck` for ``claim`` over ``pages``, in the order cited,
    each given as ``(physical page, printed label or None, visible text)`` or with two more items,
    ``(..., hidden texts, running spans)``: the texts of the page's hidden spans and the
    ``(start, end)`` spans of ``visible text`` that are running heads (:func:`running_lines`).

    Each number: ``text``, ``kind``, ``value``, ``unit``, ``ambiguous`` (as
    :class:`~pagerecall.verify.number_forms.Number`), ``status`` (module docstring), ``found``
    (status ``found``), ``page`` and ``label`` of the first cited page with the best status,
    ``matched_text`` (the number as written there), ``matched_unit`` (its unit there or None),
    ``context`` (the words around it there) and ``pages`` (every cited page with that status). Pure."""
    on_page = []
    for item in pages:
        number, label, text = item[0], item[1], item[2]
        hidden, running = (item[3], item[4]) if len(item) > 4 else ((), ())
        spots = []
        for m in find_numbers(text):
            if is_item_number(text, m):
                continue
            head = any(s <= m.start < e for s, e in running)
            spots.append((m, "running_head" if head else "body", text))
        for h in hidden:
            spots.extend((m, "hidden", h) for m in find_numbers(h))
        on_page.append((number, label, spots))
    out = []
    for n in find_numbers(claim):
        best: list[tuple[str, int, str | None, Number, str]] = []
        near = _near_words(claim, n.start, n.end) if _in_words(n) else None
        for number, label, spots in on_page:
            for m, where, text in spots:
                common = n.wants & m.gives
                if not common or common <= n.weak and not _decimal(m) or common <= m.weak and not _decimal(n):
                    continue  # 3,000 read as 3.000 meets a written decimal only, never "three" (verify11)
                if near is not None and not same_unit(n.unit, m.unit) and not near & _near_words(text, m.start, m.end):
                    continue  # a number word matches a number in a comparable context (or with the same unit) only
                status = ("found" if not n.unit or n.kind in ("percent",) or same_unit(n.unit, m.unit)
                          else "found_without_unit") if where == "body" else where
                best.append((status, number, label, m, text))
        best.sort(key=lambda b: _RANK[b[0]])  # stable: the cited order within one status
        top = best[0] if best else None
        status = top[0] if top else "not_found"
        out.append({
            "text": n.text, "kind": n.kind, "value": n.value, "unit": n.unit, "ambiguous": n.ambiguous,
            "status": status, "found": status == "found", "page": top[1] if top else None,
            "label": top[2] if top else None, "matched_text": top[3].text if top else None,
            "matched_unit": top[3].unit if top else None,
            "context": _context(top[4], top[3].start, top[3].end) if top else None,
            "pages": list(dict.fromkeys(b[1] for b in best if b[0] == status)),
        })
    return out


def _decimal(n: Number) -> bool:
    """True when ``n`` is written with a decimal separator between digits (``3.0``, ``3,000``)."""
    return re.search(r"\d[.,]\d", n.text) is not None


_ITEM_AFTER = re.compile(r"[.)][ \t]+[^\W\d_]")
_LEADERS = re.compile(r"(?:\.\s?){3,}\s*$|\u2026+\s*$")


def is_item_number(text: str, m: Number) -> bool:
    """True when ``m`` numbers a list item or a section (``3. The Fog Signal``, ``2) Lamp``: a plain
    integer alone at the start of its line and followed by ``.`` or ``)`` and a word) or is a table
    of contents' page number after dot leaders (``Storms ....... 5`` at a line's end). Such a number
    is not a quantity a claim could state ("renewed three times" matched a table of contents' ``3.``)."""
    if m.kind != "integer" or not m.text.isdigit():
        return False
    line = text[text.rfind("\n", 0, m.start) + 1:m.start]
    if not line.strip():
        return bool(_ITEM_AFTER.match(text, m.end))
    end = text.find("\n", m.end)
    return bool(_LEADERS.search(line)) and not text[m.end:len(text) if end < 0 else end].strip()


_STOP = frozenset("the and but for from with was were are been has have had its this that than then into onto "
                  "over under not nor per der die das und mit von les des une est pour".split())
_LATIN_WORDS = re.compile(r"[A-Za-z\u00c0-\u024f][A-Za-z\u00c0-\u024f \-]*")


def _in_words(n: Number) -> bool:
    """True when the claim writes ``n`` in Latin-script words (``three``, ``twenty-one``)."""
    return bool(_LATIN_WORDS.fullmatch(n.text))


def _near_words(text: str, start: int, end: int, words: int = CONTEXT_WORDS) -> set[str]:
    """The content words (3+ letters, not a function word) among ``words`` words on each side of
    ``text[start:end]``, case-folded and cut to 5 letters (``renewed`` and ``renewal`` meet)."""
    left = re.findall(r"[^\W\d_]+", text[max(0, start - 40 * words):start])[-words:]
    right = re.findall(r"[^\W\d_]+", text[end:end + 40 * words])[:words]
    return {w.casefold()[:5] for w in left + right if len(w) >= 3 and w.casefold() not in _STOP}
