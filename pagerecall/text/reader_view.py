"""Text as a reader sees it, for judging what it says: :func:`reader_view`.

A sentence planted for an agent can be stored so that a pattern or a model reading the stored
characters misses it while a reader (and an agent reading the rendered page) sees it plainly:

* compatibility forms (fullwidth ``ｉｇｎｏｒｅ``, mathematical ``𝐢𝐠𝐧𝐨𝐫𝐞``, ligatures): NFKC;
* zero-width and other invisible format characters inside words (``ig\\u200bnore``): removed;
* text stored reversed behind a right-to-left override (``\\u202esnoitcurtsni erongi\\u202c``):
  put in the order a reader sees (the run between RLO and its PDF reversed, Unicode UAX 9's
  rule for an override); other bidi controls removed (text is kept in logical order, which is
  what the embedding model reads);
* letters from another script that look alike (``ignоrе`` with Cyrillic ``о`` and ``е``): in a
  word that mixes Latin, Greek and Cyrillic letters, each letter folded to its look-alike in the
  word's main script by the Unicode TS 39 confusables table (the ``disarm`` package's
  ``normalize_confusables``; a word in one script is left alone, so Russian stays Russian);
* lines joined: a line ending in a hyphen before a lower-case letter is joined without it
  (``ig-\\nnore``), any other single line break becomes a space; a blank line stays a break.

:func:`reader_view` returns the text with, for each of its characters, the offset of the source
character it comes from, so that a sentence found in the view points into the source text.
Cost: a text that holds none of these and no hyphen at a line's end nor a blank line (the usual
case) costs a few C-level scans (~3 µs for 550 characters).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["ReaderText", "reader_view"]

_INVISIBLE = ("\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f"
              "\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f")
_INVISIBLE_RE = re.compile(f"[{_INVISIBLE}]")
_GREEK_CYRILLIC = re.compile("[\u0370-\u052f]")
_MIXED = re.compile("[A-Za-z\u00c0-\u024f][\u0370-\u052f]|[\u0370-\u052f][A-Za-z\u00c0-\u024f]")


def _suspect(text: str) -> bool:
    """True when ``text`` needs the slow path: an invisible or bidi control, or a Latin letter
    next to a Greek or Cyrillic one."""
    return bool(_INVISIBLE_RE.search(text) or (_GREEK_CYRILLIC.search(text) and _MIXED.search(text)))
_RLO, _LRO, _PDF = "\u202e", "\u202d", "\u202c"
_OPENERS = "\u202a\u202b\u202d\u202e"
_ISOLATES = "\u2066\u2067\u2068"
_LINE_JOIN = re.compile(r"(?P<blank>(?<=\n)\n+)|(?<=[^\W\d_])-\n(?=[^\W\d_A-Z])|(?P<line>\n(?!\s*\n))")


@dataclass(slots=True)
class ReaderText:
    """``text`` as a reader sees it (module docstring) and ``source``: for each character of
    ``text`` the code-point offset of the character of the original it comes from (worked out
    on first use, :meth:`span`: most texts are judged and never pointed into)."""

    text: str
    original: str
    _source: tuple[int, ...] | None | bool = False  # False: not worked out yet; None: one for one

    @property
    def source(self) -> tuple[int, ...] | None:
        """None: one for one (``text[i]`` comes from the original's ``i``)."""
        if self._source is False:
            self._source = _mapped(self.original).source
        return self._source

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original's ``(start, end)`` (end exclusive) of ``text[start:end]``: the smallest
        span holding every source character (a reversed run maps back reversed)."""
        if self.source is None:
            return start, end
        if start >= end:
            at = self.source[start] if start < len(self.source) else (self.source[-1] + 1 if self.source else 0)
            return at, at
        part = self.source[start:end]
        return min(part), max(part) + 1


def reader_view(text: str) -> ReaderText:
    """``text`` as a reader sees it (module docstring). Pure; never raises."""
    if text.isascii() or (unicodedata.is_normalized("NFKC", text) and not _suspect(text)):
        if "\n" not in text:
            return ReaderText(text, text, None)
        if "\n\n" not in text and "-\n" not in text:
            return ReaderText(text.replace("\n", " "), text, None)
        return ReaderText(_LINE_JOIN.sub(_joined, text), text)
    got = _mapped(text)
    return ReaderText(got.text, text, got.source)


def _joined(m: re.Match) -> str:
    return " " if m.group("line") else ""


def _mapped(text: str) -> ReaderText:
    """:func:`reader_view` with its ``source`` worked out."""
    if text.isascii() or (unicodedata.is_normalized("NFKC", text) and not _suspect(text)):
        if "\n" not in text:
            return ReaderText(text, text, None)
        if "\n\n" not in text and "-\n" not in text:  # every line break becomes a space: one for one
            return ReaderText(text.replace("\n", " "), text, None)
        chars, src = list(text), list(range(len(text)))
    else:
        chars, src = _slow(text)
    return _join_lines(chars, src)


_CONTROL_RE = re.compile(f"[{_INVISIBLE}\u2066-\u2069\n]")


def _slow(text: str) -> tuple[list[str], list[int]]:
    """Controls resolved and NFKC applied per character (a run without controls that is NFKC
    already is copied whole), then look-alike letters folded in mixed-script words."""
    chars: list[str] = []
    src: list[int] = []
    stack: list[tuple[str, int]] = []  # (control, index in chars where its run starts)
    pos = 0
    for m in _CONTROL_RE.finditer(text + "\n"):
        _copy(text, pos, m.start(), chars, src)
        pos = m.end()
        i, c = m.start(), m.group(0)
        if i == len(text):
            break
        if c in _OPENERS or c in _ISOLATES:
            stack.append((c, len(chars)))
        elif c in (_PDF, "\u2069", "\n"):
            while stack and (c == "\n" or stack[-1][0] not in _ISOLATES or c == "\u2069"):
                ctl, at = stack.pop()
                if ctl == _RLO:
                    chars[at:], src[at:] = chars[at:][::-1], src[at:][::-1]
                if c != "\n":
                    break
            if c == "\n":
                chars.append(c)
                src.append(i)
        # any other control: invisible, dropped
    while stack:
        ctl, at = stack.pop()
        if ctl == _RLO:
            chars[at:], src[at:] = chars[at:][::-1], src[at:][::-1]
    if _GREEK_CYRILLIC.search(text) and _MIXED.search(unicodedata.normalize("NFKC", text)):
        _fold_mixed_words(chars)
    return chars, src


def _copy(text: str, start: int, end: int, chars: list[str], src: list[int]) -> None:
    run = text[start:end]
    if run.isascii() or unicodedata.is_normalized("NFKC", run):
        chars.extend(run)
        src.extend(range(start, end))
        return
    for i, c in enumerate(run, start):
        if c.isascii() or unicodedata.is_normalized("NFKC", c):
            chars.append(c)
            src.append(i)
        else:
            for n in unicodedata.normalize("NFKC", c):
                chars.append(n)
                src.append(i)


_LETTER_SCRIPT = (("latin", re.compile(r"[A-Za-z\u00c0-\u024f]")),
                  ("cyrillic", re.compile(r"[\u0400-\u052f]")), ("greek", re.compile(r"[\u0370-\u03ff]")))


def _script(c: str) -> str | None:
    for name, pattern in _LETTER_SCRIPT:
        if pattern.match(c):
            return name
    return None


@lru_cache(maxsize=4096)
def _fold(c: str, target: str) -> str:
    from disarm import normalize_confusables

    got = normalize_confusables(c, target_script=target)
    return got if len(got) == 1 else c


def _fold_mixed_words(chars: list[str]) -> None:
    """In place: in each word mixing Latin, Greek and Cyrillic letters, letters of the minority
    scripts folded to the majority's look-alikes (Greek words fold to Latin: TS 39 has no Greek
    target). One character stays one character (offsets hold)."""
    i, n = 0, len(chars)
    while i < n:
        if not chars[i].isalpha():
            i += 1
            continue
        j = i
        while j < n and chars[j].isalpha():
            j += 1
        scripts = [_script(c) for c in chars[i:j]]
        present = {s for s in scripts if s}
        if len(present) > 1:
            main = max(present, key=scripts.count)
            target = "cyrillic" if main == "cyrillic" else "latin"
            for k in range(i, j):
                if scripts[k - i] and scripts[k - i] != main:
                    chars[k] = _fold(chars[k], target)
        i = j


def _join_lines(chars: list[str], src: list[int]) -> ReaderText:
    text = "".join(chars)
    if "\n" not in text:
        return ReaderText(text, "", tuple(src))
    out: list[str] = []
    out_src: list[int] = []
    pos = 0
    for m in _LINE_JOIN.finditer(text):
        out.extend(text[pos:m.start()])
        out_src.extend(src[pos:m.start()])
        if m.group("line"):
            out.append(" ")
            out_src.append(src[m.start()])
        pos = m.end()
    out.extend(text[pos:])
    out_src.extend(src[pos:])
    return ReaderText("".join(out), "", tuple(out_src))
