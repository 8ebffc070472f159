"""A document's reference list and its in-text citations, read from its pages' text (no model).

Why our own parser: the established extractors were measured or ruled out (docs/decisions/
library-citations.md): ``refextract`` (INSPIRE-HEP) installs from the registry but took 3-31 s per
paper on this machine (15 s for ACM's sample paper), more than building the paper's index, pulls
62 MB of dependencies, and splits a LaTeX manual's listing into hundreds of "references"; GROBID,
CERMINE and AnyStyle need a Java or Ruby service. This parser reads what the common styles print:

* the list starts after the last heading line "References", "Bibliography", "Literatur",
  "Références", "Referencias", "参考文献", "Список литературы", ... (numbered or not);
* entries are split on ``[n]`` labels, on ``n.`` labels counting up from 1, or (author-year) on a line
  that starts with "Surname, I." / "Surname I." after a line that ended a sentence;
* in-text citations: ``[12]``, ``[3, 5-7]``, ``(Moreau & Tanaka, 2019)``, ``(Moreau et al. 2019;
  Li 2020)``, ``Moreau and Tanaka (2019)``. Superscript numbers are not read: the text layer
  gives no sign of them (PyMuPDF's plain text puts them in line with the words).

Pages are physical and 1-based; offsets are into one page's text.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Sequence

HEADING = re.compile(
    r"^[ \t]*(?:[\dIVX]+\.?[ \t]+)?(references?|bibliography|works cited|literature cited|cited literature|"
    r"literatur|literaturverzeichnis|quellenverzeichnis|références|bibliographie|referencias|bibliografía|"
    r"bibliografia|riferimenti bibliografici|referências|referências bibliográficas|参考文献|參考文獻|"
    r"список литературы|литература|irodalomjegyzék|hivatkozások)[ \t]*:?[ \t]*$",
    re.IGNORECASE | re.MULTILINE)
BRACKET = re.compile(r"^[ \t]*\[(\d{1,3})\][ \t]*", re.MULTILINE)
NUMBERED = re.compile(r"^[ \t]*(\d{1,3})\.[ \t]+(?=\S)", re.MULTILINE)
AUTHOR_START = re.compile(r"^[ \t]*(?:[A-Z][\w'’-]+(?:[ \t]+[A-Z][\w'’-]+)?,[ \t]*(?:[A-Z]\.|[A-Z][a-z]+)|"
                          r"[A-Z][\w'’-]+[ \t]+[A-Z]\.(?:[ \t]*[A-Z]\.)*,)", re.MULTILINE)
YEAR = re.compile(r"(?<!\d)((?:1[89]|20)\d\d)[a-z]?(?!\d)")
NUMERIC_CITE = re.compile(r"\[(\s*\d{1,3}(?:\s*[-–,;]\s*\d{1,3})*\s*)\]")
PAREN_NUMERIC = re.compile(r"\((\s*\d{1,3}(?:\s*[-–,;]\s*\d{1,3})*\s*)\)")
"""``(19)``, ``(3, 7)``: read only in a document where such numbers name more than twice as many of
its list's labels as bracketed ones do (tracemonkey.pdf cites so; its ``[8]`` are array
indexes), and only for labels of its list (equation numbers look the same)."""
PAREN = re.compile(r"\(([^()]{4,300})\)")
AUTHOR_YEAR = re.compile(r"([A-Z][\w'’-]+)(?:\s+et\s+al\.?|\s+(?:and|&|und|et|y)\s+[A-Z][\w'’-]+)?,?\s+"
                         r"((?:1[89]|20)\d\d)[a-z]?")
NARRATIVE = re.compile(r"([A-Z][\w'’-]+)(?:\s+et\s+al\.?|\s+(?:and|&)\s+[A-Z][\w'’-]+)?\s+\(((?:1[89]|20)\d\d)[a-z]?\)")
AFTER_LIST = (
    re.compile(r"\n[ \t]*\n[ \t]*(?:[A-Z](?:\.\d+)*\.?[ \t]+)?(?:appendix|appendices|anhang|annexe|anexo|"
               r"acknowledge?ments?|supplementary material)\b", re.IGNORECASE),
    re.compile(r"\n[ \t]*\n[ \t]*[A-Z](?:\.\d+)*\.?[ \t]*(?:\n[ \t]*)?[A-Z][A-Z \t-]{3,}[ \t]*\n"),
)
"""Where the text after a reference list begins, cut from its last entry: after a blank line, an
appendix or acknowledgements heading, or an appendix's lettered heading in capitals (``A`` /
``RESEARCH METHODS``, as ACM's template prints it). Without it the last entry ran on into the
appendix (sample-sigconf.pdf's [38] held 800 characters of "Lorem ipsum")."""
MAX_ENTRY = 800
"""Characters kept of one entry (a longer one ran into the text after the list)."""
MIN_ENTRIES = 2


@dataclass
class Reference:
    """One entry of a reference list: ``label`` (``"12"`` or None in author-year lists), ``text``
    (lines joined, hyphenation undone), ``page`` where it begins, first author's family name and the
    year when found; ``cited_on`` the pages its in-text citations stand on (sorted)."""

    label: str | None
    text: str
    page: int
    author: str | None = None
    year: str | None = None
    cited_on: list[int] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def fold(word: str) -> str:
    """Lower case without accents (to match "Müller" with "Muller")."""
    return "".join(c for c in unicodedata.normalize("NFKD", word.lower()) if not unicodedata.combining(c))


def _join(text: str) -> str:
    text = re.sub(r"(\w)-\n(\w)", r"\1\2", text)
    return re.sub(r"\s+", " ", text).strip()[:MAX_ENTRY]


def _first_author(text: str) -> str | None:
    head = re.split(r"(?<=[a-z]{2})\.\s|,\s*(?:and\s)?|\s(?:and|&|és|und|et|y)\s|\(|\d", text, maxsplit=1)
    m = re.match(r"\s*([A-Z][\w'’-]+),", text)
    if m:
        return m.group(1)
    words = re.findall(r"[A-Z][\w'’-]+", head[0]) if head else []
    return words[-1] if words else None


def _split(body: str, starts: list[tuple[int, str | None]]) -> list[tuple[int, str | None, str]]:
    out = []
    for i, (pos, label) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(body)
        out.append((pos, label, body[pos:end]))
    return out


def _entries(body: str) -> tuple[str, list[tuple[int, str | None, str]]]:
    """``(style, [(offset, label, raw text)])`` of the reference list ``body``."""
    br = [(m.start(), m.group(1)) for m in BRACKET.finditer(body)]
    if len(br) >= MIN_ENTRIES and br[0][1] in ("1", "0"):
        return "numeric", [(p, lab, t[BRACKET.match(t).end():]) for p, lab, t in _split(body, br)]
    nums, want = [], 1
    for m in NUMBERED.finditer(body):
        if int(m.group(1)) == want:
            nums.append((m.start(), m.group(1)))
            want += 1
    if len(nums) >= MIN_ENTRIES:
        return "numbered", [(p, lab, t[NUMBERED.match(t).end():]) for p, lab, t in _split(body, nums)]
    starts = []
    for m in AUTHOR_START.finditer(body):
        before = body[:m.start()].rstrip()
        if not starts and m.start() > 400:
            continue
        if not before or before[-1] in ".)]" or YEAR.search(before[-12:] or ""):
            starts.append((m.start(), None))
    if len(starts) >= MIN_ENTRIES:
        return "author-year", [(p, None, t) for p, _, t in _split(body, starts)]
    return "none", []


def reference_list(pages: Sequence[tuple[int, str]]) -> tuple[int | None, str, list[Reference]]:
    """``(heading page, style, references)`` of a document given as ``[(page number, text)]``; the
    list runs from the last heading that is followed by entries to the end of the document.
    ``(None, "none", [])`` when no list is found."""
    heads = [(i, m) for i, (_, text) in enumerate(pages) for m in HEADING.finditer(text)]
    for i, m in reversed(heads):
        segs, body = [], ""
        for j in range(i, len(pages)):
            text = pages[j][1][m.end():] if j == i else pages[j][1]
            segs.append((len(body), pages[j][0]))
            body += text + "\n"
        style, raw = _entries(body)
        if style == "none":
            continue
        refs = []
        if raw:  # the last entry ends where the text after the list begins
            pos, label, text = raw[-1]
            cut = min((m.start() for rx in AFTER_LIST for m in [rx.search(text)] if m), default=len(text))
            raw[-1] = (pos, label, text[:cut])
        for pos, label, text in raw:
            page = next(pg for off, pg in reversed(segs) if off <= pos)
            joined = _join(text)
            if len(joined) < 12:
                continue
            y = YEAR.search(joined)
            refs.append(Reference(label, joined, page, _first_author(joined), y.group(1) if y else None))
        dated = sum(1 for r in refs if r.year or "doi" in r.text.lower() or "http" in r.text)
        if len(refs) >= MIN_ENTRIES and dated >= 0.5 * len(refs):  # a numbered list of anything else has few
            return pages[i][0], style, refs
    return None, "none", []


def _expand(spec: str) -> list[str]:
    out = []
    for part in re.split(r"[,;]", spec):
        part = part.strip()
        m = re.match(r"(\d+)\s*[-–]\s*(\d+)$", part)
        if m and 0 <= int(m.group(2)) - int(m.group(1)) <= 50:
            out.extend(str(n) for n in range(int(m.group(1)), int(m.group(2)) + 1))
        elif part.isdigit():
            out.append(part)
    return out


def citations_on(text: str, parens: bool = False) -> tuple[list[str], list[tuple[str, str]]]:
    """The in-text citations of one page's ``text``: ``(labels, [(folded family name, year)])``;
    ``parens``: numbers in parentheses are citations too (:data:`PAREN_NUMERIC`)."""
    pattern = PAREN_NUMERIC if parens else NUMERIC_CITE
    labels = [lab for m in pattern.finditer(text) for lab in _expand(m.group(1))]
    pairs = []
    for m in PAREN.finditer(text):
        for part in m.group(1).split(";"):
            a = AUTHOR_YEAR.search(part)
            if a:
                pairs.append((fold(a.group(1)), a.group(2)))
    pairs += [(fold(m.group(1)), m.group(2)) for m in NARRATIVE.finditer(text)]
    return labels, pairs


def link_citations(pages: Sequence[tuple[int, str]], refs: list[Reference], list_page: int | None) -> int:
    """Set each reference's ``cited_on`` from the pages before the list (and the list's own page,
    text before it not told apart). Returns how many in-text citations matched no entry."""
    by_label = {r.label: r for r in refs if r.label}
    by_author: dict[tuple[str, str], Reference] = {}
    for r in refs:
        if r.author and r.year:
            by_author.setdefault((fold(r.author), r.year), r)
    before = []
    for number, text in pages:
        if list_page is not None and number > list_page:
            break
        if list_page is not None and number == list_page:
            m = list(HEADING.finditer(text))
            text = text[: m[-1].start()] if m else text
        before.append((number, text))
    def known(pattern: re.Pattern) -> int:
        return sum(lab in by_label for _, t in before for m in pattern.finditer(t) for lab in _expand(m.group(1)))

    parens = bool(by_label) and known(PAREN_NUMERIC) > 2 * known(NUMERIC_CITE)
    unmatched = 0
    for number, text in before:
        labels, pairs = citations_on(text, parens)
        for lab in labels:
            r = by_label.get(lab)
            if r is None:
                unmatched += 0 if parens else 1  # a number in parentheses outside the list is not a citation
            elif number not in r.cited_on:
                r.cited_on.append(number)
        for key in pairs:
            r = by_author.get(key)
            if r is None:
                unmatched += 1 if by_author else 0
            elif number not in r.cited_on:
                r.cited_on.append(number)
    for r in refs:
        r.cited_on.sort()
    return unmatched
