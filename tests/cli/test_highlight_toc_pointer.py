"""``pagerecall page FILE N --png OUT --highlight QUOTE`` with a quote that is not on page N points to
where it is: the body, not the table of contents that lists it (critic: "Using lintian" asked on
page 45 of maint-guide.en.pdf said "found on page 6", the contents, while the section is on page 51).

The pointer comes from :func:`pagerecall.verify.render.view_page` (``found_on``), which asks
:func:`pagerecall.verify.verify_quote`; ``verify --page`` gives the same page. Cases: the section
titles of the three Debian maint-guide PDFs (English, German, Japanese; their bookmarks give the body
page), cited 8 pages before their section, split (seed 12) into a tuning and a held-out half before
anything ran. Real PDFs from ../shared; skipped without them.
"""

from __future__ import annotations

import random

import pytest

from tests.conftest import SHARED

DEMO = SHARED / "corpora" / "demo"
FILES = ["maint-guide.en.pdf", "maint-guide.de.pdf", "maint-guide.ja.pdf"]
pytestmark = [
    pytest.mark.skipif(not all((DEMO / f).is_file() for f in FILES),
                       reason="needs ../shared/corpora/demo (the maint-guide PDFs)"),
    pytest.mark.xfail(strict=True, reason="the page choice is verify_quote's (pagerecall/verify/quote.py, owned by "
                                          "the verify helper): the patch is in small12's report"),
]


def _cases() -> list[tuple[str, str, int]]:
    """(file, section title, its body page) for titles of 8+ characters whose section starts past page 15."""
    import pymupdf

    out = []
    for f in FILES:
        with pymupdf.open(DEMO / f) as doc:
            out += [(f, title, page) for _lvl, title, page in doc.get_toc() if len(title) >= 8 and page > 15]
    rng = random.Random(12)
    rng.shuffle(out)
    return out[:24]


CASES = _cases() if all((DEMO / f).is_file() for f in FILES) else []
TUNING, HELD_OUT = CASES[:12], CASES[12:]


def _check(cases: list[tuple[str, str, int]]) -> None:
    from pagerecall.text.headings import is_listing
    from pagerecall.verify import read_page, verify_quote
    from pagerecall.verify.render import view_page

    wrong = []
    for file, title, body in cases:
        cited = body - 8
        view = view_page(DEMO, file, cited, highlight=title, dpi=36)
        check = verify_quote(DEMO, title, file, cited)
        pointer = view.found_on or view.page
        text = read_page(DEMO, file, pointer).text
        if is_listing(text) or check.page != pointer:
            wrong.append((file, title, cited, body, pointer, check.page))
    assert wrong == []


@pytest.mark.slow  # the three manuals read whole once (about 5 s each)
def test_the_pointer_offered_is_the_body_not_the_contents_tuning_half():
    assert len(TUNING) == 12
    _check(TUNING)


@pytest.mark.slow
def test_the_pointer_offered_is_the_body_not_the_contents_held_out_half():
    assert len(HELD_OUT) == 12
    _check(HELD_OUT)


@pytest.mark.slow
def test_the_critics_case():
    from pagerecall.verify.render import view_page

    view = view_page(DEMO, "maint-guide.en.pdf", 45, highlight="Using lintian", dpi=36)
    assert view.found_on == 51 and view.match == "exact"
