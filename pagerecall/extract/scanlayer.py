"""Does the image beneath an invisible text layer show that text? Checked by OCR of a sample.

A scanned page's OCR layer is text in render mode 3 (drawn by no one) over the scan: it is the
page's text because the image shows those words. The same construction over a logo, a photo or a
banner plants words no reader sees. :func:`confirmed_lines` decides between the two for the
invisible lines over images of one page:

1. The lines are grouped by the image they lie over (the first ``fill-image`` of ``get_bboxlog``
   that meets the line's box).
2. Per image, up to :data:`SAMPLE_LINES` lines, spread evenly in reading order, are rendered
   without text (:func:`pagerecall.extract.rendering.render_without_text`, what the image shows
   there) at :data:`OCR_ZOOM`, stacked into one picture and read by Tesseract once (MuPDF's
   built-in engine, as :mod:`pagerecall.extract.ocr`; the installed languages of
   :func:`pagerecall.extract.opening.resolve_ocr`).
3. A sampled line is *confirmed* when at least :data:`LINE_SHARE` of its words of
   :data:`MIN_WORD` or more letters find an OCR word of its strip scoring :data:`WORD_SAME`
   (rapidfuzz ``ratio``).
4. An image whose sampled lines are confirmed at least :data:`IMAGE_SHARE` of the time shows
   its layer: its lines stay text, except sampled lines that were not confirmed. An image that
   does not is a logo, a photo or a banner: all its invisible lines are hidden.

What it cannot see: a planted line over a real scan among more than :data:`SAMPLE_LINES`
lines that the sample does not draw (every line is read when there are at most that many).
Without Tesseract language data the caller keeps its contrast rule (a scan's line shows dark
ink on light paper), which cannot tell a scan from a logo.

Cost: nothing on a page without render-mode-3 text over an image; otherwise one Tesseract call
per image: 8 strips of sandwich.pdf 0.45 CPU-s with ``eng``, 0.67 with ``eng+deu``, 1.15 with
``eng+deu+jpn`` (2-core AMD EPYC), so the CJK packs are left out when the layer has no CJK
character. Tesseract runs in process and holds the GIL for that long.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np

__all__ = ["IMAGE_SHARE", "LINE_SHARE", "MIN_READABLE", "MIN_RUN", "MIN_WORD", "RUN_SAME", "OCR_ZOOM", "PrintBeneath",
           "SAMPLE_LINES", "SCAN_DARKEST", "SCAN_MIN_CONTRAST", "WORD_SAME", "confirmed_lines"]

SAMPLE_LINES = 8
"""Lines per image read by OCR. Why: 8 strips of a scanned page read in one Tesseract call at
~0.4 CPU-s; every line of a short planted text (a sentence or two) is read."""

OCR_ZOOM = 150 / 72
"""Pixels per point of the strips (150 dpi): sandwich.pdf's 10 pt lines read as well as at 300
dpi (the same words confirmed) at a third of the pixels."""

MIN_WORD = 3
"""Letters and digits a layer word needs to be judged (OCR misreads short words most)."""

WORD_SAME = 0.75
"""rapidfuzz ratio / 100 from which an OCR word confirms a layer word (a misread letter in a
6-letter word keeps 0.83; "Paris"/"Osaka" 0.2)."""

LINE_SHARE = 0.5
"""Share of a line's judged words that must be confirmed. Why: on sandwich.pdf every sampled line
of the real layer scores 0.6-1.0 (strip edges cut a word, "state—of—the-art" reads as one word);
a sentence over a logo, a photo or other printed words scores 0-0.2."""

MIN_RUN = 10
"""Letters and digits a line needs for its run to be compared (:data:`RUN_SAME`): a short run finds a
near match by chance in a strip of other words."""

RUN_SAME = 0.85
"""rapidfuzz ``partial_ratio`` / 100 from which a line's run of letters confirms it in the strip's run
(two misread letters in "rechtsmittelbeiehrung" keep 0.95; a sentence over a scan of other words
scores 0.3-0.6)."""

IMAGE_SHARE = 0.5
"""Share of an image's sampled lines that must be confirmed for its layer to stay text."""

PAD = 0.25
"""Line heights added above and below a strip (the ink of ascenders and descenders)."""

SCAN_MIN_CONTRAST = 3.0
"""Contrast ratio between the darkest (:data:`SCAN_DARKEST`) and the lightest 5 % of the pixels beneath a line of
invisible text (render without text) for the image there to count as showing print. Why: a scan's text
line is dark ink on light paper (ratio > 5 on sandwich.pdf); a plain banner or tint is ~1."""

SCAN_DARKEST = 1
"""Percentile of the pixels beneath a line taken as its ink. Why 1 and not 5: at 72 dpi a scan's thin strokes
ink under 5 % of a line's box (pdfplumber's ``pr-136-example.pdf``, a scanned Chinese letter: the 5th
percentile of its table rows is gray 151, contrast 2.9; the 1st gives 4.5-4.9); a plain banner is uniform
at any percentile."""

_WORD = re.compile(r"\w+")


class PrintBeneath:
    """Whether the image beneath a line of invisible text (render mode 3) shows that line as print, for
    one page: ``raw`` its ``extractRAWDICT``, ``log`` its paint log (``get_bboxlog``), ``without_text``
    the gray render without text and ``m`` the matrix to its pixels
    (:func:`pagerecall.extract.rendering.render_pair`). Lines are judged once, OCR runs once a page."""

    def __init__(self, page: Any, raw: dict, log: list, without_text: np.ndarray, m: Any) -> None:
        self.page, self.raw, self.log, self.bg, self.m = page, raw, log, without_text, m
        self._inked_lines: dict[tuple[int, int], bool] = {}
        self._ocr: dict | bool | None = None  # the OCR verdicts per line (False: OCR cannot run)

    def shows(self, b: int, l: int, box: Any) -> bool:
        """True when an image lies beneath the glyph box ``box`` (unrotated page points) of line ``l`` of
        block ``b``, the page beneath that line holds dark ink on light ground (:data:`SCAN_MIN_CONTRAST`),
        and OCR of a sample of the image confirms the layer's words there (:func:`confirmed_lines`;
        without Tesseract, or for a script no installed pack reads, the contrast alone decides)."""
        from pagerecall.extract.offpage import meets

        if not any(k in ("fill-image", "fill-imgmask") and meets(box, r) for k, r in self.log):
            return False
        if not self._inked(b, l):
            return False
        if self._ocr is None:
            self._ocr = self._read_layer()
        return self._ocr.get((b, l), True) if self._ocr is not False else True

    def _inked(self, b: int, l: int) -> bool:
        if (b, l) not in self._inked_lines:
            import pymupdf

            from pagerecall.extract.colour_seen import contrast_ratio, lin_level

            r = pymupdf.Rect(self.raw["blocks"][b]["lines"][l]["bbox"]) * self.m  # a multiple of 90 degrees
            x0, y0, x1, y1 = (int(v) for v in np.round([r.x0, r.y0, r.x1, r.y1]))
            region = self.bg[max(0, y0):max(0, y1), max(0, x0):max(0, x1)]
            lo, hi = np.percentile(region, (SCAN_DARKEST, 95)) if region.size >= 4 else (255, 255)
            self._inked_lines[(b, l)] = contrast_ratio(lin_level(lo), lin_level(hi)) >= SCAN_MIN_CONTRAST
        return self._inked_lines[(b, l)]

    def _read_layer(self) -> dict | bool:
        """OCR verdicts for every invisible line over an image whose ground shows print (once a
        page), or False when OCR cannot run."""
        from pagerecall.extract.offpage import meets

        images = [r for k, r in self.log if k in ("fill-image", "fill-imgmask")]
        lines = []
        for b, blk in enumerate(self.raw.get("blocks", ())):
            for l, line in enumerate(blk.get("lines", ())):
                spans = [s for s in line.get("spans", ()) if not s.get("char_flags", 16) & 48]
                text = "".join(c["c"] for s in spans for c in s.get("chars", ()))
                if not any(ch.isalnum() for ch in text) or not any(meets(line["bbox"], r) for r in images):
                    continue
                if self._inked(b, l):
                    lines.append(((b, l), tuple(line["bbox"]), text, tuple(line.get("dir") or (1.0, 0.0))))
        got = confirmed_lines(self.page, lines, images)
        return False if got is None else got


def confirmed_lines(page: Any, lines: Sequence[tuple[Any, tuple, str]], images: Sequence[tuple]) -> dict | None:
    """``{key: True/False}`` for ``lines`` (``(key, bbox, text)`` or ``(key, bbox, text, direction)``:
    invisible lines over an image, in reading order, boxes in unrotated page points, the line's unit
    direction there, ``(1, 0)`` when not given: a strip is turned so that its line reads left to
    right, as on a page rotated by ``/Rotate``), ``images`` the image boxes of the page;
    None when OCR cannot run here (no Tesseract language data): the caller decides without it.
    Never raises for a page PyMuPDF can read (an OCR failure: None)."""
    from pagerecall.extract.opening import resolve_ocr

    cfg = resolve_ocr("auto")
    if cfg is None or not lines:
        return None
    groups: dict[int, list[int]] = {}
    for i, line in enumerate(lines):
        j = next((j for j, r in enumerate(images) if _meets(line[1], r)), -1)
        groups.setdefault(j, []).append(i)
    out: dict = {}
    for members in groups.values():
        picked = _spread(members, SAMPLE_LINES)
        texts = [lines[i][2] for i in picked]
        if not _readable(texts, cfg.language):  # no installed pack reads the layer's script: OCR cannot judge,
            out.update((lines[i][0], True) for i in members)  # the caller's contrast verdict stands
            continue
        boxes = [_own_band(lines, members, i) for i in picked]
        dirs = [lines[i][3] if len(lines[i]) > 3 else (1.0, 0.0) for i in picked]
        langs = _languages(cfg, texts)
        try:
            seen = _ocr_strips(page, boxes, langs, dirs)
            verdicts = {i: _confirmed(lines[i][2], words) for i, words in zip(picked, seen)}
            again = [k for k, i in enumerate(picked) if not verdicts[i]]
            if again and len(again) < len(picked):  # a scan with lines not read: those lines once more, apart
                for k, words in zip(again, _ocr_strips(page, [boxes[k] for k in again], langs,
                                                       [dirs[k] for k in again])):
                    verdicts[picked[k]] = _confirmed(lines[picked[k]][2], words)
        except Exception:  # OCR failed: the caller's rule decides
            return None
        shown = sum(verdicts.values()) >= IMAGE_SHARE * len(picked)
        for i in members:
            out[lines[i][0]] = verdicts.get(i, shown) and shown
    return out


_READS = {"jpn": {"CJK", "HIRAGANA", "KATAKANA"}, "jpn_vert": {"CJK", "HIRAGANA", "KATAKANA"},
          "chi_sim": {"CJK"}, "chi_tra": {"CJK"}, "chi_sim_vert": {"CJK"}, "chi_tra_vert": {"CJK"},
          "kor": {"HANGUL", "CJK"}, "kor_vert": {"HANGUL", "CJK"}, "rus": {"CYRILLIC"}, "ukr": {"CYRILLIC"},
          "bul": {"CYRILLIC"}, "srp": {"CYRILLIC"}, "bel": {"CYRILLIC"}, "mkd": {"CYRILLIC"}, "ell": {"GREEK"},
          "grc": {"GREEK"}, "ara": {"ARABIC"}, "fas": {"ARABIC"}, "urd": {"ARABIC"}, "heb": {"HEBREW"},
          "yid": {"HEBREW"}, "hin": {"DEVANAGARI"}, "mar": {"DEVANAGARI"}, "nep": {"DEVANAGARI"},
          "san": {"DEVANAGARI"}, "tha": {"THAI"}, "kat": {"GEORGIAN"}, "hye": {"ARMENIAN"}, "ben": {"BENGALI"},
          "tam": {"TAMIL"}}
"""The scripts (the first word of a letter's Unicode name) a Tesseract pack reads; a pack not listed reads
Latin. Japanese reads Han only in Japanese text: on Chinese text (Han without kana) ``jpn`` reads the shared
characters and misreads the simplified ones (measured: pdfplumber's ``pr-136-example.pdf``, a scanned Chinese
letter, 2 of 8 sampled lines confirmed), so Han without kana needs a Chinese or Korean pack."""

MIN_READABLE = 0.5
"""Share of a sample's letters in scripts the installed packs read for OCR to judge the image's layer;
under it the caller's contrast rule decides, as on a machine without Tesseract."""


def _readable(texts: list[str], language: str) -> bool:
    """True when :data:`MIN_READABLE` of the letters of ``texts`` are in scripts the Tesseract packs of
    ``language`` (``"eng+deu+jpn"``) read (:data:`_READS`); True for texts without letters."""
    import unicodedata

    scripts = [unicodedata.name(ch, "?").split(" ")[0] for t in texts for ch in t if ch.isalpha()]
    if not scripts:
        return True
    packs = language.split("+")
    reads = set().union(*(_READS.get(p, {"LATIN"}) for p in packs))
    if not {"HIRAGANA", "KATAKANA"} & set(scripts) and not any(p.startswith(("chi", "kor")) for p in packs):
        reads.discard("CJK")  # Han without kana is Chinese: jpn does not read it
    return sum(sc in reads for sc in scripts) >= MIN_READABLE * len(scripts)


NEIGHBOUR_APART = 0.4
"""Line heights between two line centres from which the other line is a line of its own (not a piece of
the same row, a superscript): :func:`_own_band` cuts a strip there."""

MIN_OVERLAP_CUT = 0.25
"""Share of a line's height by which another line's box must overlap it, across the line, for
:func:`_own_band` to cut. Why: boxes of neighbouring lines that merely touch (pdf.js's ``issue12963.pdf``:
0.5-1 pt of 10-12 pt boxes) leave a strip with its own line; cutting them changed nothing but the pixels
Tesseract got. The Vicksburg layer's boxes overlap by 39 %."""


def _own_band(lines: Sequence[tuple], members: list[int], i: int) -> tuple:
    """Line ``i``'s box cut, across its line, at half-way to the centre of each other line of ``members``
    whose box meets it: an OCR layer's boxes may be taller than its line pitch (the Seige of Vicksburg
    scan: 10.7 pt boxes, 6.5 pt apart), and a strip holding two lines is read as the other one."""
    x0, y0, x1, y1 = lines[i][1]
    dx, dy = lines[i][3] if len(lines[i]) > 3 else (1.0, 0.0)
    vertical = abs(dy) > abs(dx)
    lo, hi, a0, a1 = (x0, x1, y0, y1) if vertical else (y0, y1, x0, x1)
    c, apart = (lo + hi) / 2, NEIGHBOUR_APART * (hi - lo)
    top, bottom = lo, hi
    for j in members:
        b = lines[j][1]
        blo, bhi, b0, b1 = (b[0], b[2], b[1], b[3]) if vertical else (b[1], b[3], b[0], b[2])
        if j == i or b0 >= a1 or a0 >= b1 or blo >= hi or lo >= bhi:
            continue
        cj = (blo + bhi) / 2
        if min(hi, bhi) - max(lo, blo) < MIN_OVERLAP_CUT * (hi - lo):
            continue
        if cj <= c - apart:
            top = max(top, (c + cj) / 2)
        elif cj >= c + apart:
            bottom = min(bottom, (c + cj) / 2)
    return (top, y0, bottom, y1) if vertical else (x0, top, x1, bottom)


_CJK_LANGUAGES = {"jpn", "jpn_vert", "chi_sim", "chi_tra", "chi_sim_vert", "chi_tra_vert", "kor", "kor_vert"}


def _languages(cfg: Any, texts: list[str]) -> Any:
    """``cfg`` without the CJK language packs when the layer's text holds no CJK character: each
    pack costs Tesseract time (eng+deu+jpn 1.15 CPU-s, eng+deu 0.67 for the same 8 strips)."""
    import dataclasses

    if any(ord(ch) >= 0x2E80 for t in texts for ch in t):
        return cfg
    kept = [lang for lang in cfg.language.split("+") if lang not in _CJK_LANGUAGES]
    return dataclasses.replace(cfg, language="+".join(kept)) if kept else cfg


def _spread(members: list[int], n: int) -> list[int]:
    """At most ``n`` of ``members``, evenly spaced, first and last included."""
    if len(members) <= n:
        return list(members)
    return [members[round(k * (len(members) - 1) / (n - 1))] for k in range(n)]


def _meets(a: Sequence[float], b: Sequence[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _ocr_strips(page: Any, boxes: list[tuple], cfg: Any, dirs: list[tuple] | None = None) -> list[list[str]]:
    """OCR words of each strip (a line's box, padded, rendered without text, turned by a multiple of
    90 degrees so that its line ``dirs[i]`` reads left to right), one Tesseract call."""
    import pymupdf

    strips = []
    for (x0, y0, x1, y1), (dx, dy) in zip(boxes, dirs or [(1.0, 0.0)] * len(boxes)):
        if abs(dy) > abs(dx):  # a vertical line: the pads swap axes, the strip turns a quarter
            pad = PAD * (x1 - x0)
            strip = _render(page, (x0 - pad, y0 - 2 * pad, x1 + pad, y1 + 2 * pad))
            strips.append(np.ascontiguousarray(np.rot90(strip, 1 if dy > 0 else -1)))
        else:
            pad = PAD * (y1 - y0)
            strip = _render(page, (x0 - 2 * pad, y0 - pad, x1 + 2 * pad, y1 + pad))
            strips.append(strip if dx > 0 else np.ascontiguousarray(strip[::-1, ::-1]))
    gap = 8
    width = max(s.shape[1] for s in strips)
    height = sum(s.shape[0] for s in strips) + gap * (len(strips) + 1)
    canvas = np.full((height, width), 255, np.uint8)
    spans, y = [], gap
    for s in strips:
        canvas[y:y + s.shape[0], :s.shape[1]] = s
        spans.append((y, y + s.shape[0]))
        y += s.shape[0] + gap
    rgb = np.ascontiguousarray(np.repeat(canvas[:, :, None], 3, axis=2))  # MuPDF's OCR reads RGB only
    pix = pymupdf.Pixmap(pymupdf.csRGB, width, height, rgb.tobytes(), 0)
    result = pymupdf.open("pdf", pix.pdfocr_tobytes(language=cfg.language, tessdata=cfg.tessdata))
    try:
        ocr_page = result[0]
        scale = height / ocr_page.rect.height
        words: list[list[str]] = [[] for _ in strips]
        for w in ocr_page.get_text("words"):
            mid = (w[1] + w[3]) / 2 * scale
            k = next((k for k, (a, b) in enumerate(spans) if a - gap / 2 <= mid < b + gap / 2), None)
            if k is not None:
                words[k] += [t.casefold() for t in _WORD.findall(w[4])]
        return words
    finally:
        result.close()


def _render(page: Any, clip: tuple) -> np.ndarray:
    from pagerecall.extract.rendering import render_without_text

    return render_without_text(page, clip, OCR_ZOOM)


def _confirmed(text: str, seen: list[str]) -> bool:
    """True when :data:`LINE_SHARE` of ``text``'s words of :data:`MIN_WORD`+ letters are in ``seen``
    (fuzzily), or when the line's letters and digits, run together, are found in the strip's run together
    (:data:`RUN_SAME`; a line of :data:`MIN_RUN` or more): the layer and Tesseract cut words apart in
    different places ("Rechtsmittel beiehrung" in a layer, "rechtsmittelbelehrung" read from the scan)."""
    from rapidfuzz import fuzz, process

    judged = [w.casefold() for w in _WORD.findall(text) if len(w) >= MIN_WORD]
    if not judged:
        return bool(seen)
    if not seen:
        return False
    hits = sum(1 for w in judged if (m := process.extractOne(w, seen, scorer=fuzz.ratio)) and m[1] / 100 >= WORD_SAME)
    if hits >= LINE_SHARE * len(judged):
        return True
    run = "".join(_WORD.findall(text.casefold())).replace("_", "")
    return len(run) >= MIN_RUN and fuzz.partial_ratio(run, "".join(seen).replace("_", "")) / 100 >= RUN_SAME
