"""Visibility decided from the rendered page (issue 46, item 1): one test per kind.

Every construction is made in the test (:mod:`tests.extract.constructions`); a hidden kind must be
kept out of the page's text and listed in ``Page.hidden`` with its reason, a control must stay the
page's text with nothing listed. ``HELD_OUT`` kinds were written after the check was built and run
once: 6 of 8 hidden kinds and 4 of 4 controls passed then; the pattern fill was hidden but named
``unpainted`` (``get_bboxlog`` gives one tile cell, not the filled area: both names are accepted),
and text in an optional content layer that is off was dropped by MuPDF and not listed (fixed
afterwards: ``optional_content_off``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pagerecall.extract.pdf import read_pdf
from tests.extract.constructions import (
    HELD_OUT_HIDDEN,
    HELD_OUT_VISIBLE,
    PLANTED,
    TUNING_HIDDEN,
    TUNING_VISIBLE,
    VISIBLE,
    build,
)

HIDDEN = {**{f"tuning-{k}": v for k, v in TUNING_HIDDEN.items()}, **{f"held_out-{k}": v for k, v in HELD_OUT_HIDDEN.items()}}
SEEN = {**{f"tuning-{k}": v for k, v in TUNING_VISIBLE.items()}, **{f"held_out-{k}": v for k, v in HELD_OUT_VISIBLE.items()}}


def _page(path: Path):
    return read_pdf(path, path.name, ocr="off").pages[0]


@pytest.mark.parametrize("kind", sorted(HIDDEN))
def test_hidden_kind_is_kept_out_and_listed(tmp_path: Path, kind: str) -> None:
    builder, reasons = HIDDEN[kind]
    page = _page(build(tmp_path, builder))
    assert VISIBLE in page.text
    assert "AI assistants" not in page.text
    assert [h.text for h in page.hidden] == [PLANTED]
    assert page.hidden[0].reason in reasons


@pytest.mark.parametrize("kind", sorted(SEEN))
def test_visible_control_stays_page_text(tmp_path: Path, kind: str) -> None:
    page = _page(build(tmp_path, SEEN[kind]))
    assert VISIBLE in page.text
    assert PLANTED in " ".join(page.text.split())
    assert page.hidden == ()


def test_hidden_text_over_two_lines_joins_them_with_a_space(tmp_path: Path) -> None:
    def two_lines(p):
        p.insert_text((72, 120), "The harbour stays closed", fontsize=11, color=(1, 1, 1))
        p.insert_text((72, 134), "for good after the storm.", fontsize=11, color=(1, 1, 1))

    page = _page(build(tmp_path, two_lines))
    assert [h.text for h in page.hidden] == ["The harbour stays closed for good after the storm."]


def test_a_page_without_text_renders_nothing(tmp_path: Path, monkeypatch) -> None:
    import pagerecall.extract.rendering as rendering

    calls = []
    real = rendering.render_pair
    monkeypatch.setattr(rendering, "render_pair", lambda *a, **k: calls.append(1) or real(*a, **k))
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.draw_rect(pymupdf.Rect(10, 10, 200, 200), fill=(0, 0, 0))
    path = tmp_path / "blank.pdf"
    doc.save(path)
    assert _page(path).text == ""
    assert calls == []
    assert _page(build(tmp_path, lambda p: None)).text == VISIBLE and calls == [1]
