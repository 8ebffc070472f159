"""A word split by a hyphen at a line end is a term of the full-text index as the joined word, at
the head's position, while the stored text stays as printed (full-text schema version 5:
``pagerecall.index.fulltext.split_tokens``). Real Tantivy indexes; real PDF pages of ../shared."""

from __future__ import annotations

import pytest

from pagerecall.extract.pdf import read_pdf
from pagerecall.index import fulltext
from pagerecall.search.lexical import fulltext_search, phrases_not_found
from pagerecall.text.line_ends import joined_reading, line_end_splits
from tests.conftest import shared_path

PASSAGE = ("The keeper does the routine mainte-\nnance of the lamp every morning. Our trace-\n"
           "compilation based design; a two-column page and a two-\ncolumn layout. IEEE-\n754 floats.")


def _index(tmp_path, texts: dict[str, str]):
    index = fulltext.create_index(tmp_path)
    writer = index.writer(heap_size=15_000_000, num_threads=1)
    for i, (cid, text) in enumerate(texts.items()):
        writer.add_document(fulltext.make_document(cid, f"{cid}.pdf", text, 1, first=True, row={"chunk_id": cid}))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return index


def _ids(index, query: str) -> list[str]:
    return [cid for cid, _ in fulltext_search(index, query, 10)]


def test_splits_and_their_reading():
    splits = line_end_splits(PASSAGE)
    assert [(s.head, s.tail, s.compound) for s in splits] == [
        ("mainte", "nance", False), ("trace", "compilation", False), ("two", "column", True)]  # IEEE-|754: digits
    assert all(PASSAGE[s.start:s.hyphen] == s.head and PASSAGE[s.tail_start:s.end] == s.tail for s in splits)
    assert joined_reading(PASSAGE) == ("The keeper does the routine maintenance of the lamp every morning. Our "
                                       "tracecompilation based design; a two-column page and a two-column layout. "
                                       "IEEE-\n754 floats.")
    # one letter, a digit, a blank line, a hyphen alone on its line (tracemonkey.pdf p. 14: Engine / - / http)
    assert line_end_splits("a-\nb, x9ab-\ncd, word-\n\nnext, Engine\n-\nhttp, plain text") == []


def test_joined_word_halves_and_phrases_across_the_split_match(tmp_path):
    index = _index(tmp_path, {"p": PASSAGE, "q": "Nothing about lamps here, only the maintenance of boats."})
    assert set(_ids(index, "maintenance")) == {"p", "q"}
    assert _ids(index, "mainte nance") == ["p"]  # the printed halves are still terms
    assert _ids(index, "tracecompilation") == ["p"] and _ids(index, "trace compilation") == ["p"]
    for phrase in ('"routine maintenance of the lamp"', '"routine mainte"', '"mainte nance"',
                   '"our trace compilation"', '"our tracecompilation based"', '"two column layout"'):
        assert phrases_not_found(index, phrase) == [], phrase
        assert _ids(index, phrase) == ["p"], phrase
    # the cost (decision record): the printed tail shares the next word's position
    for phrase in ('"nance of the lamp"', '"trace compilation based"'):
        assert phrases_not_found(index, phrase) == [phrase.strip('"')], phrase
        assert _ids(index, phrase)[0] == "p", phrase  # found by its words (relaxed)
    # a compound printed hyphenated in the same passage gets no invented joined term
    assert _ids(index, "twocolumn") == []


def test_term_frequency_and_field_length_as_printed(tmp_path):
    """The joined word counts once; a passage without splits is indexed exactly as before."""
    index = _index(tmp_path, {"split": "routine mainte-\nnance", "whole": "routine maintenance"})
    scores = dict(fulltext_search(index, "maintenance", 10))
    assert set(scores) == {"split", "whole"}
    assert scores["split"] < scores["whole"]  # same tf, one token longer (the printed halves)
    assert fulltext.split_tokens(fulltext.word_text("routine maintenance")) is None


def test_every_word_split_on_tracemonkey_pages_finds_its_page(tmp_path):
    """Real PDF, pagerecall's own extraction (revision 9 keeps 70 hyphen line ends as printed): every
    word left split on a page is found by the joined word, on that page."""
    doc = read_pdf(shared_path("pdfs", "adversarial", "tracemonkey.pdf"), "tracemonkey.pdf", ocr="off")
    texts = {f"p{p.number}": p.text for p in doc.pages if p.text}
    index = _index(tmp_path, texts)
    words = {(s.head + s.tail, cid) for cid, text in texts.items() for s in line_end_splits(text) if not s.compound}
    assert len(words) >= 40
    missed = [(w, cid) for w, cid in words if cid not in [c for c, _ in fulltext_search(index, w, 14)]]
    assert missed == []
    assert "trace-\ncompilation" in texts["p2"]  # stored text unchanged: the page as printed
