"""A text layer's outline finds numbered headings of the forms the example files use (``§ 1
Allgemeines``, ``I. La relève ...``, ``一、``) and keeps numbered list items, dates and wrapped
sentences out. The example corpus's text files, indexed for real (bundled model, LanceDB, Tantivy),
and ``pagerecall outline``; a real text layer (maint-guide's PyMuPDF page text) scored against the
PDF's own bookmarks."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import shared_path
from pagerecall.cli.commands import main
from pagerecall.config import Settings
from pagerecall.extract.outline import text_outline
from pagerecall.ingest.pipeline import build

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "corpus"
LIST_FILE = """Anweisung für die Nacht

§ 1 Wache

Vor dem Anzünden prüft der Wärter die Lampe. Dabei geht er so vor:
1. Docht kürzen
2. Glas putzen
3. Petroleum nachfüllen
Danach trägt er die Uhrzeit in das Tagebuch ein, wie es
12 Regeln der Seewarte verlangen, und meldet Schäden sofort.

Stand: 8. Oktober 2022
\f§ 2 Ablösung

Die Ablösung kommt um Mitternacht.
\f"""


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    base = tmp_path_factory.mktemp("headings")
    corpus = base / "corpus"
    for rel in ("de/moewenhaken-dienstanweisung.txt", "fr/carnet-du-gardien.txt"):
        (corpus / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(EXAMPLES / rel, corpus / rel)
    (corpus / "liste.txt").write_text(LIST_FILE, encoding="utf-8")
    settings = Settings(index_dir=base / "index", cache_dir=Path.home() / ".cache" / "pagerecall",
                        degraded_registry=None)
    build(settings, corpus)
    return settings.index_dir


def _outline(index: Path, rel: str, capsys) -> list[tuple[str, int]]:
    assert main(["outline", rel, "--index", str(index), "--json", "--in-process"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["source"] == "detected"
    flat, stack = [], list(reversed(out["entries"]))
    while stack:
        e = stack.pop()
        flat.append((e["title"], e["page"]))
        stack.extend(reversed(e["children"]))
    return flat


def test_text_layer_reader_finds_the_example_headings():
    from pagerecall.extract.textlayer import read_textlayer

    for rel, want in (("de/moewenhaken-dienstanweisung.txt", 6), ("fr/carnet-du-gardien.txt", 5),
                      ("zh/bailujiao-dengta.txt", 4), ("ja/kamomegasaki-tebiki.txt", 5)):
        doc = read_textlayer(EXAMPLES / rel, rel)
        titles = [e.title for e in doc.outline.entries]
        assert len(titles) == want and [e.page for e in doc.outline.entries] == list(range(1, want + 1)), titles
    listed = text_outline(LIST_FILE.split("\f")[:2])
    assert [e.title for e in listed.entries] == ["§ 1 Wache", "§ 2 Ablösung"]


@pytest.mark.slow  # builds an index: 42 s at load 20 on 2 cores
def test_outline_of_the_example_text_files(index, capsys):
    de = _outline(index, "de/moewenhaken-dienstanweisung.txt", capsys)
    assert [t for t, _ in de] == ["§ 1 Allgemeines", "§ 2 Pflege der Optik und der Lampe", "§ 3 Nebelsignal",
                                  "§ 4 Wetterbeobachtung und Tagebuch", "§ 5 Vogelzug", "§ 6 Eiswinter"]
    assert [p for _, p in de] == [1, 2, 3, 4, 5, 6]
    fr = _outline(index, "fr/carnet-du-gardien.txt", capsys)
    assert [t.split(".")[0] for t, _ in fr] == ["I", "II", "III", "IV", "V"]
    assert fr[0] == ("I. La relève et la vie au phare", 1)


@pytest.mark.slow
def test_list_items_dates_and_wrapped_sentences_are_no_headings(index, capsys):
    assert _outline(index, "liste.txt", capsys) == [("§ 1 Wache", 1), ("§ 2 Ablösung", 2)]


def test_a_real_text_layer_keeps_false_headings_rare():
    import pymupdf

    with pymupdf.open(shared_path("corpora", "demo", "maint-guide.en.pdf")) as doc:
        marks = {" ".join(re.findall(r"\w+", t.casefold())) for _l, t, _p in doc.get_toc()}
        texts = [page.get_text() for page in doc]
    detected = [" ".join(re.findall(r"\w+", e.title.casefold())) for e in text_outline(texts).entries]
    false = [d for d in detected if not any(d == m or d.endswith(" " + m) for m in marks)]
    assert len(detected) >= 45 and not false, false  # measured: 53 detected, 0 false (of 90 bookmarks)
