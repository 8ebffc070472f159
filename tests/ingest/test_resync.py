"""A one-page edit costs about what it changed (issue 45 item 3): ``update`` with the int8 graph re-embeds the
batches that hold a changed passage and reuses every other (``pagerecall.ingest.batches``: batches cut where
their texts say); and the page anchors (``pagerecall.ingest.chunk_anchors``, measured, off by default) keep an
edit's changed passages on its page.

Real data: 30 pages of the English maint-guide as a text layer (form feeds between pages, PyMuPDF's
plain text, as ``pdftotext`` writes one), the bundled tokenizer and model, real LanceDB and Tantivy.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from pagerecall.config import Settings
from pagerecall.ingest.chunking import chunk_document
from pagerecall.types import Document, Page
from tests.conftest import shared_path

FIRST, PAGES = 7, 30  # physical pages 7..36 of the PDF: text layer pages 1..30 (prose, no front matter)
SENTENCE = "A sentence added by the maintainer says where the upload queue lives."
_SENT_END = re.compile(r"[.!?]\s")


@pytest.fixture(scope="module")
def pages() -> list[str]:
    import pymupdf

    with pymupdf.open(shared_path("corpora", "demo", "maint-guide.en.pdf")) as pdf:
        return [pdf[i].get_text().replace("\f", " ") for i in range(FIRST - 1, FIRST - 1 + PAGES)]


@pytest.fixture(scope="module")
def tok():
    from pagerecall.model.tokenization import load_default_tokenizer

    return load_default_tokenizer()


def _edited(pages: list[str], edit: str, i: int) -> list[str]:
    t = pages[i]
    ends = [m.end() for m in _SENT_END.finditer(t)]
    if edit == "insert":
        t = t[: ends[0]] + SENTENCE + " " + t[ends[0]:]
    elif edit == "delete":
        t = t[: ends[1]] + t[ends[2]:]
    else:  # a word made longer
        m = re.search(r"\b[a-z]{5,}\b", t[len(t) // 2:])
        at = len(t) // 2 + m.start()
        t = t[:at] + "reconfiguration" + t[at + len(m.group()):]
    return [*pages[:i], t, *pages[i + 1:]]


def _chunks(pages: list[str], tok) -> list:
    doc = Document(path="layer.txt", kind="txt", pages=tuple(Page(number=i + 1, text=t) for i, t in enumerate(pages)))
    return chunk_document(doc, tok)


@pytest.mark.slow  # an option that is off by default: checked where the slow tests run
@pytest.mark.parametrize("edit, page", [("insert", 1), ("delete", 1), ("longer", 1), ("insert", 15), ("delete", 15)])
def test_with_page_anchors_an_edit_changes_only_the_passages_of_its_page(pages, tok, edit, page, monkeypatch):
    from pagerecall.ingest import chunk_anchors

    monkeypatch.setattr(chunk_anchors, "ANCHOR_MIN_TOKENS", 80)
    old = _chunks(pages, tok)
    new = _chunks(_edited(pages, edit, page - 1), tok)
    known = {c.text for c in old}
    fresh = [c for c in new if c.text not in known]
    assert fresh, "the edit changed no passage"
    # the passages that changed touch the edited page (a passage crossing into it from the page
    # before, or out of it into the next, included); every other passage is as it was
    assert all(c.page_start <= page <= c.page_end or page - 1 <= c.page_start <= page + 1 for c in fresh), \
        [(c.page_start, c.page_end) for c in fresh]
    on_page = sum(1 for c in new if c.page_start <= page <= c.page_end)
    assert len(fresh) <= on_page + 1, (len(fresh), on_page)
    assert abs(len(new) - len(old)) <= 1


@pytest.mark.slow
def test_update_re_embeds_only_the_int8_batches_an_insertion_on_page_one_touched(pages, tmp_path):
    """The whole write path with the default runtime here (onnxruntime int8, whose vectors depend on their
    batch mates): after a sentence inserted on page 1, ``update`` embeds exactly the passages of the
    batches that hold a changed passage and takes every other batch from the live generation. With
    batches cut every 32 in length order it embedded every passage of the file again."""
    from pagerecall.index.snapshot import open_snapshot
    from pagerecall.ingest import pipeline
    from pagerecall.ingest.batches import cut_batches
    from pagerecall.ingest.embed_loop import EMBED_BATCH
    from pagerecall.ingest.reuse import SOURCE

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    layer = corpus / "layer.txt"
    layer.write_text("\f".join(pages), encoding="utf-8")
    s = dataclasses.replace(Settings.from_env(), index_dir=tmp_path / "index", ocr="off", corpus_root=None,
                            degraded_registry=None, runtime="onnxruntime")

    def batches() -> set[tuple[str, ...]]:
        rows = sorted(open_snapshot(s.index_dir).chunks.to_table(columns=["seq", "text", "n_tokens"]).to_pylist(),
                      key=lambda r: r["seq"])
        first = {}
        for r in rows:
            first.setdefault(r["text"], r["n_tokens"])
        texts = list(first)
        return {tuple(texts[i] for i in b) for b in cut_batches(texts, [first[t] for t in texts], EMBED_BATCH)}

    pipeline.build(s, corpus)
    old = batches()
    layer.write_text("\f".join(_edited(pages, "insert", 0)), encoding="utf-8")
    rep = pipeline.update(s)
    new = batches()
    assert rep.delta["changed"] == ["layer.txt"]
    touched = sum(len(b) for b in new - old)
    assert 1 <= rep.chunks_embedded == touched
    assert rep.chunks_reused[SOURCE] == rep.chunks_total - touched - rep.chunks_reused["duplicates"] >= rep.chunks_total // 4
