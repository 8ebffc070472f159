"""Plain-text layers (``.txt``) turned into pages.

Two page conventions are understood, tried in this order:

1. **Marker lines** ``===== page N =====`` (one per line; case-insensitive, spaces around the
   words optional, ``N`` any token without spaces such as ``12`` or ``iv``). Decision record:

   * *Physical page* = order of appearance of the marker, 1-based. *Label* = ``N`` exactly as
     printed in the marker. Why: a ``Page.number`` must be unique and increasing for chunking
     and citations; markers written by hand or by other tools have gaps (``1, 2, 5``) and
     restarts (``1..3, 1..2`` when two documents were concatenated), and taking ``N`` as the
     physical number would collide or leave holes. Gaps, restarts and duplicates add one
     warning to ``Document.warnings``. Rejected: physical page = ``N`` (collisions on restart).
   * Text before the first marker: if it is blank it is dropped; otherwise it becomes an
     unlabelled page 1 (all marked pages shift by one) and a warning says so. Nothing is
     silently dropped.
   * Form feeds inside marker-delimited text are treated as line breaks.

2. **Form feeds** ``\\f``: each form-feed-separated block is one page (physical = order,
   label ``None``); a file without ``\\f`` is a single page. One trailing empty block (a file
   ending with ``\\f`` or ``\\f\\n``) is not a page.

Encoding: UTF-8, with or without BOM. Line ends CRLF and CR become LF. A file that is not valid
UTF-8 is handed to ``charset_normalizer`` (a well-kept detector, used only when installed);
when it finds a plausible encoding the text is decoded with it and a warning names the
encoding; otherwise :class:`~pagerecall.errors.ExtractionError` ``"undecodable"`` is raised
with the byte offset of the first invalid UTF-8 byte.

Page text is the text between page boundaries with leading and trailing whitespace removed;
inner text is kept verbatim (it is citable). A first or last line that prints the page's own
number (its marker label, or on form-feed pages its physical number: ``12``, ``- 12 -``,
``Page 12 of 40``) is left out, as on a PDF page
(:func:`pagerecall.extract.page_numbers.text_without_page_number`). A blank page has status ``"empty"``, any other
``"ok"``.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from pagerecall.errors import ExtractionError
from pagerecall.types import Document, Page

__all__ = ["read_textlayer", "MARKER_RE"]

_log = logging.getLogger(__name__)

MARKER_RE = re.compile(r"^[ \t]*=====[ \t]*page[ \t]+(\S+?)[ \t]*=====[ \t]*$", re.IGNORECASE | re.MULTILINE)
"""A page marker line; group 1 is the printed page number (the label)."""

_BOM = b"\xef\xbb\xbf"


def read_textlayer(path: Path, rel: str, *, detect_encoding: bool = True) -> Document:
    """Read a ``.txt`` text layer into a :class:`~pagerecall.types.Document` (``kind="txt"``).

    ``path`` is the file on disk, ``rel`` its path relative to the corpus root (``/``
    separators; used in the Document and in errors). Pages are physical, 1-based, in order of
    appearance; labels come from ``===== page N =====`` markers (``None`` for form-feed pages).
    ``detect_encoding=False`` skips the charset detector (non-UTF-8 is then always an error).

    Raises :class:`~pagerecall.errors.ExtractionError` with reason ``"unopenable"`` (the file
    cannot be read), ``"undecodable"`` (not UTF-8 and no plausible encoding; the detail gives
    the byte offset) or ``"extraction_error"`` (anything unexpected, with the exception text).
    """
    try:
        return _read_textlayer(path, rel, detect_encoding)
    except ExtractionError:
        raise
    except OSError as exc:
        raise ExtractionError(rel, "unopenable", f"{str(exc).rstrip('. ')}. Next: check the file exists and is readable") from exc
    except Exception as exc:  # one bad file must never stop the caller
        raise ExtractionError(rel, "extraction_error", f"{type(exc).__name__}: {exc}") from exc


def _read_textlayer(path: Path, rel: str, detect_encoding: bool) -> Document:
    data = Path(path).read_bytes()
    warnings: list[str] = []
    text = _decode(data, rel, detect_encoding, warnings)
    text = text.replace("\r\n", "\n").replace("\r", "\n")

    markers = list(MARKER_RE.finditer(text))
    if markers:
        pages = _pages_from_markers(text, markers, warnings)
    else:
        pages = _pages_from_formfeeds(text)
    from pagerecall.extract.outline import text_outline

    outline = text_outline([p.text for p in pages], [p.label for p in pages])
    return Document(path=rel, kind="txt", pages=tuple(pages), warnings=tuple(warnings), outline=outline)


def _decode(data: bytes, rel: str, detect_encoding: bool, warnings: list[str]) -> str:
    skipped = 0
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 byte-order mark: unambiguous
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise ExtractionError(
                rel, "undecodable",
                f"starts with a UTF-16 byte-order mark but is not valid UTF-16 at byte offset {exc.start}. "
                "Next: re-save the file as UTF-8",
            ) from exc
    if data.startswith(_BOM):
        data = data[len(_BOM):]
        skipped = len(_BOM)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start + skipped  # offset in the file as stored, BOM included
        if detect_encoding:
            guess = _detect(data)
            if guess is not None:
                text, encoding = guess
                warnings.append(
                    f"not valid UTF-8 (first bad byte at offset {offset}); decoded as {encoding} "
                    "by charset detection: check the text, or re-save the file as UTF-8"
                )
                return text
        raise ExtractionError(
            rel,
            "undecodable",
            f"not valid UTF-8 at byte offset {offset} ({data[exc.start:exc.start + 4]!r}). "
            "Next: re-save the file as UTF-8",
        ) from exc


def _detect(data: bytes) -> tuple[str, str] | None:
    """Decode non-UTF-8 bytes with charset_normalizer when it is installed and confident."""
    try:
        from charset_normalizer import from_bytes
    except ImportError:
        return None
    best = from_bytes(data).best()
    if best is None or best.encoding is None:
        return None
    name = best.encoding.replace("-", "_").lower()
    if name in {"utf_8", "utf8"} or name.startswith(("utf_16", "utf_32")):
        # strict UTF-8 already failed; UTF-16/32 guesses on BOM-less bytes turned short Latin
        # text into CJK noise when tried (b"abc\x80" -> utf_16_be): refuse both.
        return None
    try:
        return data.decode(best.encoding), best.encoding
    except (UnicodeDecodeError, LookupError):
        return None


def _page(number: int, text: str, label: str | None) -> Page:
    from pagerecall.extract.hidden import split_hidden_text
    from pagerecall.extract.page_numbers import text_without_page_number

    text, hidden = split_hidden_text(text)
    text = text_without_page_number(text.strip(), label, number).strip()
    return Page(number=number, text=text, label=label, status="ok" if text else "empty", hidden=hidden)


def _pages_from_markers(text: str, markers: list[re.Match[str]], warnings: list[str]) -> list[Page]:
    pages: list[Page] = []
    preamble = text[: markers[0].start()]
    if preamble.strip():
        pages.append(_page(1, preamble.replace("\f", "\n"), None))
        warnings.append("text before the first '===== page N =====' marker kept as an unlabelled page 1")
    labels: list[str] = []
    for i, m in enumerate(markers):
        end = markers[i + 1].start() if i + 1 < len(markers) else len(text)
        body = text[m.end():end].replace("\f", "\n")
        label = m.group(1)
        labels.append(label)
        pages.append(_page(len(pages) + 1, body, label))
    note = _sequence_note(labels)
    if note:
        warnings.append(note)
    return pages


def _sequence_note(labels: list[str]) -> str | None:
    """Describe gaps / restarts / duplicates in numeric marker labels (None when 1, 2, 3...)."""
    nums = [int(x) if x.isdigit() else None for x in labels]
    gaps = restarts = 0
    for prev, cur in zip(nums, nums[1:]):
        if prev is None or cur is None:
            continue
        if cur <= prev:
            restarts += 1
        elif cur != prev + 1:
            gaps += 1
    if not gaps and not restarts:
        return None
    return (
        f"page markers are not consecutive ({gaps} gap(s), {restarts} restart(s) or repeat(s)): "
        "physical pages follow the order of the markers, the marker numbers are kept as labels"
    )


def _pages_from_formfeeds(text: str) -> list[Page]:
    blocks = text.split("\f")
    if len(blocks) > 1 and not blocks[-1].strip():
        blocks.pop()
    return [_page(i, block, None) for i, block in enumerate(blocks, start=1)]
