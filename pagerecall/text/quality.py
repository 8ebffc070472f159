"""Does extracted text say what the page shows? Signals of text that lies (stdlib only).

A PDF's text layer is only as good as its fonts' character mappings. When a mapping is missing
or wrong, the text still extracts, but it is not what the page shows, and a search over it
misses silently. :func:`garbled_reason` names the first of these kinds found in a page's text
(``None`` for text that may be trusted); ``pagerecall.extract.pdf`` marks such pages ``garbled``
(never indexed, OCR'd where OCR is available, a miss over them never trusted):

* ``unmapped``: U+FFFD, control, surrogate or private-use characters (glyphs without a
  Unicode value; pdf.js ``TAMReview.pdf``), :data:`GARBLED_MIN_RATIO` of the non-space
  characters;
* ``byte-swapped``: UTF-16 read with its bytes swapped (``Pure Magenta`` as ``倀甀爀攀 䴀愀最攀渀琀愀``,
  OCRmyPDF's ``cmyk.pdf``), :data:`SWAPPED_MIN_RATIO`;
* ``wrong code page``: 8-bit text read in another code page, Cyrillic or Thai shown but Latin-1
  letters extracted (``Основы`` as ``Îñíîâû``, lshort-ru.pdf of the bench corpus), words of
  :data:`MOJIBAKE_RUN` or more consecutive characters of U+00A1-U+024F without an ASCII letter,
  which no language writes, in :data:`MOJIBAKE_MIN_SHARE` of the words;
* ``mixed scripts``: letters of two scripts inside one word (glyphs mapped to look-alikes of
  another script), in :data:`MIXED_MIN_SHARE` of the words.

"Words" here are whitespace-separated tokens with a letter, of scripts written with spaces;
tokens in scripts written without spaces (Han, kana, Thai, ...) are not judged by the word
signals (they count for the character signals only). Every threshold below says where it comes
from; ``bench/textcheck.py`` measures all of them over a corpus.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from pagerecall.text.fold import is_no_space

__all__ = [
    "GARBLED_MIN_RATIO",
    "MIXED_MIN_SHARE",
    "MIXED_MIN_WORDS",
    "MOJIBAKE_MIN_SHARE",
    "MOJIBAKE_MIN_WORDS",
    "MOJIBAKE_RUN",
    "SWAPPED_MIN_CHARS",
    "SWAPPED_MIN_RATIO",
    "TextSignals",
    "garbled_reason",
    "signals",
    "swapped_ratio",
    "unmapped_ratio",
]

GARBLED_MIN_RATIO = 0.3
"""A page is ``garbled`` when at least this share of its non-space characters are
U+FFFD / control / private-use / surrogate code points. Decision record. *Measured* on the 85
bench PDFs (12,065 pages): 11,981 pages are below 0.1; every page from 0.19 up is lshort-th
(Thai set in fonts without a usable ToUnicode: its prose comes out as U+FFFD, only the Latin
LaTeX examples survive), spread from 0.12 to 1.0; the worst good pages are lshort's
``picture`` pages at 0.12-0.18 (math glyphs without Unicode) and the pdf.js habibi sample
(six U+FFFD among Arabic and Latin) at 0.25. *Why 0.3*: above every good page seen,
and it flags the lshort-th pages whose prose is lost even when their code samples are
readable (56 pages at 0.3; 0.5, "mostly", flagged 45). *Rejected*: counting unassigned code points
(a per-character Python loop: 0.17 s of 0.8 s for maint-guide's 63 pages)."""

SWAPPED_MIN_RATIO = 0.5
"""A page is also ``garbled`` when at least this share of its non-space characters (and at
least :data:`SWAPPED_MIN_CHARS` of them) look like byte-swapped UTF-16 of ASCII: code points
U+2000-U+7E00 whose low byte is 0 (``Pure Magenta`` read as ``倀甀爀攀 䴀愀最攀渀琀愀``, OCRmyPDF's
``cmyk.pdf``: CJK-looking text that is really Latin). Decision record. *Measured* on every
page of the bench and demo PDFs (11,907 pages; Chinese, Japanese and Korean manuals
included): the highest share is 0.013 (texlive-zh-cn.pdf page 27); byte-swapped text scores
1.0 (its spaces stay spaces). *Why 0.5*: far
from both. *Rejected*: decoding the swapped text back to Latin (it would pass a mapping
error off as the page's words; OCR reads what the page shows)."""

SWAPPED_MIN_CHARS = 4
"""Fewer swapped-looking characters never make a page garbled (a stray ``一``)."""

MOJIBAKE_RUN = 3
"""A word (a token with at least one letter) that has this many consecutive characters of
U+00A1-U+024F (Latin-1 letters and signs, Latin Extended-A/B) and no ASCII letter at all is
8-bit text read in the wrong code page (``Îñíîâû``, ``ËÅÑ§¨Ò¡``). Real words with such a run
have ASCII letters around it (``küçük``, ``šířka``, ``część``, ``adresářů``: counted without
the ASCII condition, they made up to 7 % of the words of a Czech page); Vietnamese stacks its
tone marks in U+1EA0-U+1EF9, outside the range."""

MOJIBAKE_MIN_SHARE = 0.1
"""A page is ``garbled`` when at least this share of its words (and at least
:data:`MOJIBAKE_MIN_WORDS`) are wrong-code-page words (:data:`MOJIBAKE_RUN`). Decision record.
*Measured* (``bench/textcheck.py``) on the 12,129 pages with text of the bench, demo and scanned
PDFs: lshort-ru.pdf (Cyrillic shown, cp1251 read as Latin-1 extracted) has 138 of its 148
pages with text from 0.1 to 1.0, its index pages (Latin command names under a garbled running
head) 0.02-0.05; lshort-th.pdf (Thai as TIS-620 read as Latin-1, already ``unmapped``) up to
0.55; every other page of 30+ languages is at most 0.005 (a lone ``ÀÁÂ`` in a table of
accents). In the 977 pdf.js test files it flags two pages, both really mis-mapped: Tamil in a
TSCII font (``bug894572.pdf``, ``«À¢Ã¡Á¢``) and Kannada in a Nudi font (``issue7020.pdf``).
*Why 0.1*: twenty times the highest real page, and it keeps the lshort-ru index pages whose
words are readable. *Rejected*: a share of non-ASCII letters (Vietnamese, Czech and Hungarian
pages are full of them)."""

MOJIBAKE_MIN_WORDS = 3
"""Fewer words never make the wrong-code-page signal (a name such as ``Ñíguez``)."""

MIXED_MIN_SHARE = 0.4
"""A page is ``garbled`` when at least this share of its words (and at least
:data:`MIXED_MIN_WORDS`) mix letters of two scripts (``Tobіas`` with a Cyrillic ``і``).
Decision record. *Measured* on the bench, demo and scanned PDFs: every page but lshort-uk.pdf's
is below 0.15 (``LATEX2ε`` and math such as ``ϕi`` mix legitimately); lshort-uk.pdf's fonts
extract the Latin ``i`` as the Cyrillic ``і`` (``\\pіcture``, ``\\begіn``), in up to 57 % of the
words of a page (137 of its pages have some): the five pages from 0.4 up (99 and 127: LaTeX code, 134, 135 and 140: its
index of command names; a search for ``\\parindent`` or ``picture`` cannot match there) are
flagged, its prose pages stay ``ok``. *Why 0.4*: nearly three times the highest page without such a font error; glyphs mapped
to another script's look-alikes throughout give mixed words in most of a page."""

MIXED_MIN_WORDS = 5
"""Fewer words never make the mixed-scripts signal."""

_BAD_CHARS = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ue000-\uf8ff\ufffd"
    "\U000f0000-\U0010ffff]"
)
_WHITESPACE = re.compile(r"\s+")

_SWAPPED = re.compile("[" + "".join(f"\\u{hi:02x}00" for hi in range(0x21, 0x7F) if hi not in (0x30, 0x4E)) + "]")
"""U+XX00 for the printable ASCII byte XX, except U+3000 (the ideographic space) and U+4E00
(``一``, "one", common in CJK text); the space U+2000 is whitespace anyway."""

_MOJIBAKE = re.compile("[\u00a1-\u024f]{%d}" % MOJIBAKE_RUN)
_LETTER_RUN = re.compile(r"[^\W\d_]")
_ASCII_LETTER = re.compile(r"[A-Za-z]")


def unmapped_ratio(text: str) -> float:
    """Share of non-whitespace characters that are U+FFFD, control (C0/C1), surrogate or
    private-use (BMP and planes 15-16) code points; 0.0 for text without any."""
    bad = len(_BAD_CHARS.findall(text))
    if not bad:
        return 0.0
    total = len(_WHITESPACE.sub("", text))
    return bad / total if total else 0.0


def swapped_ratio(text: str) -> float:
    """Share of non-whitespace characters that look like byte-swapped UTF-16 of printable
    ASCII (U+XX00 with XX in 0x21-0x7E, see :data:`SWAPPED_MIN_RATIO`); 0.0 below
    :data:`SWAPPED_MIN_CHARS` of them."""
    swapped = len(_SWAPPED.findall(text))
    if swapped < SWAPPED_MIN_CHARS:
        return 0.0
    total = len(_WHITESPACE.sub("", text))
    return swapped / total if total else 0.0


@functools.lru_cache(maxsize=4096)
def _script(ch: str) -> str | None:
    """A letter's script as the first word of its Unicode name (``LATIN``, ``CYRILLIC``, ...);
    ``""`` for scripts written without spaces; None for anything but a letter. Letters named
    after their form rather than a script (``MATHEMATICAL``, ``MODIFIER``, ...) count as Latin
    or Greek by their decomposition when they have one, else None."""
    if not unicodedata.category(ch).startswith("L"):
        return None
    if is_no_space(ch):
        return ""
    base = unicodedata.normalize("NFKD", ch)[:1]
    try:
        word = unicodedata.name(base or ch).split(" ", 1)[0]
    except ValueError:
        return None
    if not base.isalpha() or word in ("MODIFIER", "MATHEMATICAL", "SMALL", "FULLWIDTH", "HALFWIDTH", "CIRCLED",
                                      "PARENTHESIZED", "SUPERSCRIPT", "SUBSCRIPT", "DOUBLE", "TURNED", "SCRIPT",
                                      "BLACK-LETTER", "MICRO", "FEMININE", "MASCULINE"):
        return None
    return word


class TextSignals:
    """Word counts of one page's text (see the module docstring): ``words`` (tokens with a
    letter, in scripts written with spaces), ``mojibake`` (words with a :data:`MOJIBAKE_RUN`),
    ``mixed`` (words with letters of two scripts). Plain ints; ``share(n)`` = ``n / words``."""

    __slots__ = ("words", "mojibake", "mixed")

    def __init__(self, words: int = 0, mojibake: int = 0, mixed: int = 0) -> None:
        self.words, self.mojibake, self.mixed = words, mojibake, mixed

    def share(self, n: int) -> float:
        return n / self.words if self.words else 0.0

    def __repr__(self) -> str:
        return f"TextSignals(words={self.words}, mojibake={self.mojibake}, mixed={self.mixed})"


def signals(text: str) -> TextSignals:
    """Count the word signals of ``text`` (one pass over its whitespace-separated tokens).

    Cost: ASCII tokens are decided by one regex each; the others look their letters' scripts
    up in a per-character cache (``bench/textcheck.py`` prints the time per page).
    """
    out = TextSignals()
    script = _script
    for tok in text.split():
        if tok.isascii():  # one script (Latin) or none: the common case, decided in C
            if _LETTER_RUN.search(tok):
                out.words += 1
            continue
        scripts = {script(c) for c in tok if c.isalpha()}
        scripts.discard(None)
        if "" in scripts or not scripts:
            continue  # a script written without spaces: a token is a phrase, not a word
        out.words += 1
        if _MOJIBAKE.search(tok) and not _ASCII_LETTER.search(tok):
            out.mojibake += 1
        elif len(scripts) > 1:
            out.mixed += 1
    return out


def garbled_reason(text: str) -> str | None:
    """Why ``text`` (one page, as extracted, before clean-up) cannot be what the page shows,
    or None: ``"unmapped"``, ``"byte-swapped"``, ``"wrong code page"`` or ``"mixed scripts"``
    (the kinds and thresholds of the module docstring, tried in that order)."""
    if not text:
        return None
    if unmapped_ratio(text) >= GARBLED_MIN_RATIO:
        return "unmapped"
    if swapped_ratio(text) >= SWAPPED_MIN_RATIO:
        return "byte-swapped"
    sig = signals(text)
    if sig.mojibake >= MOJIBAKE_MIN_WORDS and sig.share(sig.mojibake) >= MOJIBAKE_MIN_SHARE:
        return "wrong code page"
    if sig.mixed >= MIXED_MIN_WORDS and sig.share(sig.mixed) >= MIXED_MIN_SHARE:
        return "mixed scripts"
    return None
