"""The main job end to end on the bundled example corpus, through the CLI's ``main(argv)``.

Real model, real LanceDB, real Tantivy. One index is built per module into a temporary folder;
tests that change the index work on their own copy of the corpus.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import shutil
from pathlib import Path

import pymupdf
import pytest

from tests.conftest import copy_of_index_and_corpus, rewrite_fulltext_as_schema_1
from pagerecall.index import fulltext
from pagerecall.ingest import pipeline as indexing
from pagerecall.cli.commands import main
from pagerecall.config import Settings
from pagerecall.errors import IndexMismatchError
from pagerecall.search import Searcher

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "examples" / "corpus"


@pytest.fixture(autouse=True)
def _in_an_empty_working_folder(tmp_path, monkeypatch):
    """Every test here runs in an empty working folder: the CLI's "No index" message points to a
    ``.pagerecall-index`` of the folder it runs from (README Quickstart command 1 leaves one in a
    clone's root), so a test run from there saw another message than the one it checks."""
    monkeypatch.chdir(tmp_path)


def _settings(index: Path, corpus: Path | None = None) -> Settings:
    s = dataclasses.replace(Settings.from_env(), index_dir=index)
    return dataclasses.replace(s, corpus_root=corpus) if corpus else s


@pytest.fixture(scope="module")
def example_index(examples_built) -> Path:
    """The session's index of ``examples/corpus`` (``tests/conftest.py``): read only here; a test
    that writes takes a copy of the folder."""
    report = examples_built.report
    assert report.files_failed == 0 and report.files_ok == 5
    assert examples_built.corpus == CORPUS
    return examples_built.index_dir


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_search_json_gives_pointers_with_labels(example_index, capsys):
    code, out, _ = run_cli(capsys, "search", '"the first duty of every keeper"', "--index", str(example_index),
                           "-k", "3", "--json")
    assert code == 0
    res = json.loads(out)
    top = res["hits"][0]
    assert top["file"] == "en/harrow-point-manual.pdf"
    assert top["page_start"] <= 4 <= top["page_end"]
    # printed labels come from the PDF itself
    with pymupdf.open(CORPUS / top["file"]) as doc:
        assert top["label_start"] == doc[top["page_start"] - 1].get_label()
        assert top["label_end"] == doc[top["page_end"] - 1].get_label()
    assert top["ranks"]["fulltext"] == 1
    assert set(res["envelope"]) >= {"generation", "built_at", "files_indexed", "files_failed", "stale"}
    assert res["envelope"]["files_indexed"] == 5


def _example_queries() -> list[dict]:
    with open(ROOT / "examples" / "queries.tsv", encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


@pytest.mark.parametrize("row", _example_queries(), ids=lambda r: r["query_id"])
def test_example_queries_find_their_page(example_index, row):
    """Each documented example query finds its page within the top 3 (its mode and scope)."""
    s = Searcher(_settings(example_index))
    files = [row["scope"]] if row["scope"] else None
    res = s.search(row["query"], k=3, mode=row["mode"] or "hybrid", files=files)
    pages = [(h.file, p) for h in res.hits for p in range(h.page_start, h.page_end + 1)]
    assert (row["expected_file"], int(row["expected_page"])) in pages


def test_cross_lingual_query_from_readme(example_index):
    """The README's cross-lingual example: an English question answered only in Japanese."""
    s = Searcher(_settings(example_index))
    res = s.search("What does the keeper do when an earthquake shakes the tower?", k=3, files=["ja/*"])
    assert res.hits[0].file == "ja/kamomegasaki-tebiki.txt"
    assert res.hits[0].page_start <= 3 <= res.hits[0].page_end
    assert res.hits[0].label_start in {"42", "43"}


def test_search_core_contract(example_index, monkeypatch):
    import search_core

    monkeypatch.setenv("PAGERECALL_INDEX", str(example_index))
    hits = search_core.search("fog signal", 4)
    assert 1 <= len(hits) <= 4
    for h in hits:
        assert {"file", "page_start", "page_end", "score", "text"} <= set(h)
        assert not h["file"].startswith("/") and h["page_start"] >= 1 and h["page_end"] >= h["page_start"]
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)


def test_human_output_and_info(example_index, capsys):
    code, out, err = run_cli(capsys, "search", "fog signal", "--index", str(example_index), "-k", "2")
    assert code == 0 and out.startswith("1. ") and "score" in out and "⟦" not in out
    code, out, _ = run_cli(capsys, "info", "--index", str(example_index))
    assert code == 0 and "5 indexed, 0 failed" in out


def test_files_inventory_negative_is_definitive_by_name(example_index, capsys):
    code, out, _ = run_cli(capsys, "files", "manuals", "--index", str(example_index), "--json")
    res = json.loads(out)
    assert code == 0 and res["total"] == 5
    assert [f["path"] if isinstance(f, dict) else f for f in res["files"]] == ["en/harrow-point-manual.pdf"]
    code, out, _ = run_cli(capsys, "files", "zebra", "--index", str(example_index), "--json")
    res = json.loads(out)
    assert res["matched"] == 0 and "definitive negative by file name" in res["note"]


def test_exit_codes(example_index, tmp_path, capsys):
    code, _, err = run_cli(capsys, "search", "x", "--index", str(tmp_path / "none"))
    assert code == 1 and "pagerecall build" in err
    (tmp_path / "afile").write_text("not an index")
    for argv in (["search", "x"], ["info"], ["build", str(CORPUS)]):
        code, _, err = run_cli(capsys, *argv, "--index", str(tmp_path / "afile"))
        assert code == 2 and "is a file" in err
    code, _, err = run_cli(capsys, "search", "fog", "-k", "0", "--index", str(example_index))
    assert code == 2
    code, _, err = run_cli(capsys, "search", "   ", "--index", str(example_index))
    assert code == 2
    with pytest.raises(SystemExit) as exc:
        main(["search"])
    assert exc.value.code == 2


def test_page_and_verify_read_the_source(example_index, capsys):
    code, out, _ = run_cli(capsys, "page", "en/harrow-point-manual.pdf", "4", "--index", str(example_index))
    assert code == 0 and "first duty of every keeper" in out
    code, out, _ = run_cli(capsys, "verify", "the first duty of every keeper", "--file",
                           "en/harrow-point-manual.pdf", "--page", "7", "--index", str(example_index), "--json")
    res = json.loads(out)
    # found, but on another page than cited: exit 3 (a wrong citation a script must not accept)
    assert code == 3 and res["match"] in {"exact", "normalised"} and res["page"] == 4 and res["page_correct"] is False
    code, out, _ = run_cli(capsys, "verify", "the first duty of every keeper", "--file",
                           "en/harrow-point-manual.pdf", "--page", "4", "--index", str(example_index))
    assert code == 0 and out.startswith(("exact", "normalised")) and "WRONG" not in out
    # a misquote (one word changed) is only a similar passage: exit 4, never accepted as the quote
    code, out, _ = run_cli(capsys, "verify", "the fog signal must be started", "--file",
                           "en/harrow-point-manual.pdf", "--index", str(example_index), "--json")
    assert code == 4 and json.loads(out)["match"] == "fuzzy"
    code, _, err = run_cli(capsys, "page", "../etc/passwd", "1", "--index", str(example_index))
    assert code == 2


def test_model_mismatch_is_refused_with_rebuild(example_index, tmp_path):
    index = tmp_path / "idx"
    shutil.copytree(example_index, index, symlinks=True)
    s = Searcher(_settings(index))
    gen = (index / "CURRENT").read_text().strip()
    meta_path = index / gen / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["fingerprint"]["model"] = "some/other-model"
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(IndexMismatchError, match="rebuild"):
        s.search("fog signal", k=2, mode="vector")


def test_other_chunking_is_refused_for_update_with_rebuild_but_still_queried(examples_built, tmp_path):
    """A chunking setting changes the fingerprint (issue 23: less overlap): an update that would
    embed new passages refuses an index chunked otherwise ("rebuild"); nothing is written, and
    queries, which do not depend on chunking, keep working."""
    old, corpus = copy_of_index_and_corpus(examples_built, tmp_path)
    old = dataclasses.replace(old, corpus_root=corpus)
    gen = (old.index_dir / "CURRENT").read_text()
    other = dataclasses.replace(old.chunk, overlap_tokens=old.chunk.overlap_tokens // 2 + 1)
    new = dataclasses.replace(old, chunk=other)
    victim = next(p for p in sorted(corpus.rglob("*.txt")))
    victim.write_text(victim.read_text(encoding="utf-8") + "\n\nA new closing paragraph.\n", encoding="utf-8")
    with pytest.raises(IndexMismatchError, match="rebuild") as err:
        indexing.update(new)
    assert "chunking" in str(err.value)
    assert (old.index_dir / "CURRENT").read_text() == gen
    assert Searcher(new).search("fog signal", k=2, mode="vector").hits


def test_incremental_update_add_move_delete_rebuild_rollback(examples_built, tmp_path):
    settings, corpus = copy_of_index_and_corpus(examples_built, tmp_path)  # as if built from the copy
    s = Searcher(settings)

    noop = indexing.update(settings)
    assert noop.chunks_embedded == 0 and noop.delta["unchanged"] == 5

    (corpus / "en" / "new-note.txt").write_text(
        "The zeppelin mooring mast was painted ochre in 1931.\f"
        "A second page about the quartermaster's brass telescope.", encoding="utf-8")
    dry = indexing.update(settings, dry_run=True)
    assert dry.dry_run and dry.delta["added"] == ["en/new-note.txt"]
    assert not s.search("zeppelin", k=3, mode="fulltext").hits
    rep = indexing.update(settings)
    assert rep.delta["added"] == ["en/new-note.txt"] and rep.chunks_embedded >= 1
    hits = s.search("zeppelin mooring mast", k=3, mode="fulltext").hits  # no restart, no stale full text
    assert hits and hits[0].file == "en/new-note.txt" and hits[0].page_start == 1

    (corpus / "moved").mkdir()
    (corpus / "en" / "new-note.txt").rename(corpus / "moved" / "renamed-note.txt")
    rep = indexing.update(settings)
    assert rep.delta["moved"] == [{"from": "en/new-note.txt", "to": "moved/renamed-note.txt"}]
    assert rep.chunks_embedded == 0
    hits = s.search("zeppelin mooring mast", k=3, mode="fulltext").hits
    assert hits[0].file == "moved/renamed-note.txt"

    (corpus / "moved" / "renamed-note.txt").unlink()
    rep = indexing.update(settings)
    assert rep.delta["deleted"] == ["moved/renamed-note.txt"] and rep.chunks_embedded == 0
    assert not s.search("zeppelin", k=3, mode="fulltext").hits

    before = {h.chunk_id for h in s.search("fog signal", k=10).hits}
    rb = indexing.rebuild(settings)
    after = s.search("fog signal", k=10).hits
    assert len({h.chunk_id for h in after}) == len(after)  # a rebuild never duplicates hits
    assert {h.chunk_id for h in after} == before
    assert rb.chunks_total == Searcher(settings).snapshot().count_chunks()

    back = indexing.rollback(settings)
    assert back["generation"] != rb.generation
    assert s.search("fog signal", k=3).envelope["generation"] == back["generation"]


def test_empty_index_miss_is_not_trustworthy(tmp_path):
    (tmp_path / "empty").mkdir()
    settings = _settings(tmp_path / "idx")
    indexing.build(settings, tmp_path / "empty")
    res = Searcher(settings).search("anything at all", k=3, mode="fulltext")
    assert res.hits == [] and res.envelope["miss"]["trustworthy"] is False
    assert "no file is indexed" in res.envelope["miss"]["caveats"]


def test_failed_file_is_reported_and_retried(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "good.txt").write_text("Granite breakwater repaired in the spring.", encoding="utf-8")
    (corpus / "bad.txt").write_bytes(b"\xff\xfe\x00\xd8 broken \x81\x8d bytes \xc3\x28")
    (corpus / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not really a pdf\n")
    settings = _settings(tmp_path / "idx")
    rep = indexing.build(settings, corpus)
    failed = {f["path"]: f["error"] for f in rep.failed}
    assert "broken.pdf" in failed and failed["broken.pdf"]
    info = Searcher(settings).info()
    assert {f["path"] for f in info["files_failed"]} == set(failed)
    # failed files are retried on every update, and listed until they succeed
    rep = indexing.update(settings)
    assert "broken.pdf" in rep.delta["retry"]
    (corpus / "broken.pdf").unlink()
    shutil.copy(CORPUS / "en" / "harrow-point-manual.pdf", corpus / "broken.pdf")
    rep = indexing.update(settings)
    assert "broken.pdf" not in {f["path"] for f in rep.failed}
    assert Searcher(settings).search("fog signal", k=2, files=["broken.pdf"]).hits


def test_heading_lane_keeps_the_first_passage_of_a_running_header(tmp_path):
    """A chapter title printed as a running header on every page matches a line of every
    passage; the heading lane keeps only the file's first one, where the chapter starts."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    filler = ("The keeper trims the wick, polishes the lens, winds the clockwork and writes the weather into the "
              "log before dawn. ")
    pages = ["Contents\nThe Lamp Room . . . . . . . . 2\nThe Keeper’s Log . . . . . . . . 3\nStorms . . . . . . 4",
             "Chapter 1\nThe Lamp Room\n" + filler * 6]
    pages += [f"The Keeper’s Log\n{'Chapter 2' + chr(10) + 'The Keeper’s Log' + chr(10) if n == 0 else ''}"
              + f"Entry {n}: " + filler * 6 for n in range(4)]
    (corpus / "keeper.txt").write_text("\f".join(pages), encoding="utf-8")
    settings = _settings(tmp_path / "index", corpus)
    indexing.build(settings, corpus)
    res = Searcher(settings).search("The Keeper's Log", k=10)
    heading = [h for h in res.hits if h.ranks.get("heading")]
    assert len(heading) == 1, [(h.page_start, h.ranks) for h in res.hits]
    assert res.hits[0].chunk_id == heading[0].chunk_id
    # chapter 2 starts on physical page 3 (page 1 is the contents); chunks may span a page break
    assert res.hits[0].page_start <= 3 <= res.hits[0].page_end
    other = [h for h in res.hits if h.page_start > 3]
    assert other, "the running header's later pages are still found by the other lanes"


def test_a_quoted_phrase_that_occurs_nowhere_is_reported(example_index, capsys):
    """Loose matches of an absent phrase are never passed off as the phrase."""
    s = Searcher(_settings(example_index))
    absent = s.search('"twenty strokes every two seconds"', k=5, mode="fulltext")
    assert absent.envelope["phrases_not_found"] == ["twenty strokes every two seconds"]
    assert absent.hits, "its words still find passages"
    present = s.search('"first duty of every keeper"', k=5, mode="hybrid")
    assert present.envelope["phrases_not_found"] == []
    assert "phrases_not_found" not in s.search("fog signal", k=2, mode="vector").envelope
    code, _, err = run_cli(capsys, "search", '"twenty strokes every two seconds"', "--index", str(example_index))
    assert code == 0 and 'the phrase "twenty strokes every two seconds" occurs in no indexed passage' in err


def test_page_without_text_says_so(tmp_path, capsys):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    with pymupdf.open() as pdf:
        pdf.new_page().insert_text((72, 72), "The lamp is lit at sunset and put out at sunrise.")
        pdf.new_page()  # a blank page: no text layer
        pdf.save(corpus / "log.pdf")
    index = tmp_path / "index"
    indexing.build(_settings(index, corpus), corpus)
    code, out, err = run_cli(capsys, "page", "log.pdf", "2", "--index", str(index))
    assert code == 0 and out.strip() == ""
    assert "note: page 2 of log.pdf has no text (status empty)" in err


@pytest.mark.parametrize("scope", ["ja", "ja/", "./ja", str(CORPUS / "ja"), str(CORPUS / "ja" / "kamomegasaki-tebiki.txt"),
                                   "kamomegasaki-tebiki.txt", "ja/*.txt"])
def test_file_scope_accepts_folders_names_globs_and_absolute_paths(example_index, scope):
    s = Searcher(_settings(example_index, CORPUS))
    assert s.resolve_scope([scope]) == ["ja/kamomegasaki-tebiki.txt"]


def test_file_scope_outside_the_corpus_matches_nothing(example_index, tmp_path):
    from pagerecall.errors import UsageError

    s = Searcher(_settings(example_index, CORPUS))
    with pytest.raises(UsageError, match="matches no indexed file"):
        s.resolve_scope([str(tmp_path)])


def test_index_of_fulltext_schema_1_searches_alike_and_update_upgrades_it_without_embedding(example_index, tmp_path):
    index = tmp_path / "idx"
    shutil.copytree(example_index, index, symlinks=True)
    settings = _settings(index)
    queries = ["fog signal", "Nebelhorn", '"mooring"', "lighthouse keeper's log"]
    before = {q: [(h.chunk_id, h.page_start, h.text) for h in Searcher(settings).search(q, k=5).hits] for q in queries}
    rewrite_fulltext_as_schema_1(index / (index / "CURRENT").read_text().strip())
    old = Searcher(settings)  # rows of the full-text hits now come from Lance
    assert {q: [(h.chunk_id, h.page_start, h.text) for h in old.search(q, k=5).hits] for q in queries} == before

    dry = indexing.update(settings, dry_run=True)
    assert dry.dry_run and dry.fulltext_rebuilt and dry.generation == dry.previous  # would rebuild; nothing written
    assert old.info()["fulltext_upgrade_pending"] and old.info()["fulltext_schema_version"] == 1
    rep = indexing.update(settings)
    assert rep.fulltext_rebuilt and rep.verified and rep.chunks_embedded == 0
    assert rep.generation != rep.previous
    new = Searcher(settings)
    assert new.snapshot().meta["fulltext_schema_version"] == fulltext.FULLTEXT_SCHEMA_VERSION and not new.info()["fulltext_upgrade_pending"]
    assert {q: [(h.chunk_id, h.page_start, h.text) for h in new.search(q, k=5).hits] for q in queries} == before
    again = indexing.update(settings)
    assert not again.fulltext_rebuilt and again.generation == rep.generation  # a no-op again


def test_build_over_an_index_of_another_corpus_is_refused_without_replace(example_index, tmp_path, capsys):
    index = tmp_path / "idx"
    shutil.copytree(example_index, index, symlinks=True)
    live = (index / "CURRENT").read_text().strip()
    other = tmp_path / "other"
    other.mkdir()
    (other / "note.txt").write_text("The quartermaster kept a brass telescope in the chart room.", encoding="utf-8")
    code, out, err = run_cli(capsys, "build", str(other), "--index", str(index))
    assert code == 2 and "holds another corpus" in err and "--replace" in err and str(CORPUS.resolve()) in err
    assert (index / "CURRENT").read_text().strip() == live and not out  # nothing written

    code, out, _ = run_cli(capsys, "build", str(other), "--index", str(index), "--replace", "--json")
    assert code == 0 and json.loads(out)["previous"] == live
    assert Searcher(_settings(index)).search("brass telescope", k=1).hits[0].file == "note.txt"
    assert indexing.rollback(_settings(index))["generation"] == live  # the replaced corpus comes back
    for cmd in ("rebuild", "update"):  # another corpus by setting: refused too, nothing written
        code, _, err = run_cli(capsys, cmd, "--index", str(index), "--corpus", str(other))
        assert code == 2 and "--replace" in err, (cmd, err)
        assert (index / "CURRENT").read_text().strip() == live
    assert Searcher(_settings(index)).search("fog signal", k=1).hits[0].file.startswith("en/")
    code, _, err = run_cli(capsys, "build", str(CORPUS), "--index", str(index), "--quiet")  # the same corpus
    assert code == 0, err


def test_readme_quickstart_search_is_cross_lingual_and_its_sample_output_is_real(example_index, capsys):
    """Issue 18.14: the README's command 1 search answers from other languages than the question's, and
    the sample output under "What you get back" names files of examples/corpus with their real pages."""
    import re
    import shlex

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = next(line for line in readme.splitlines() if line.startswith("python3.11 -m venv") and " search " in line)
    argv = shlex.split(command.split("&& .venv/bin/pagerecall search ", 1)[1])
    argv[argv.index("--index") + 1] = str(example_index)
    code, out, _ = run_cli(capsys, "search", *argv, "--json")
    hits = json.loads(out)["hits"]
    assert code == 0 and hits and all(not h["file"].startswith("en/") for h in hits)
    sample = readme.split("## What you get back", 1)[1].split("```", 2)[1]
    shown = re.findall(r"^\d+\. (\S+)  p\. (\d+)", sample, flags=re.M)
    assert shown
    for file, page in shown:
        assert (CORPUS / file).is_file(), file
        assert any(h["file"] == file and h["page_start"] <= int(page) <= h["page_end"] for h in hits), (file, page)
    assert ".venv/bin/python search_core.py" in readme


@pytest.mark.parametrize("lang", ["ja", "zh"])
def test_a_corpus_written_without_spaces_builds_updates_and_is_found(tmp_path, lang):
    """The verification probe searches character grams where a passage has no words: a corpus of
    only Chinese or only Japanese text failed verification at build ("text probe ... returned
    nothing"), and so did an update that wrote only such a file."""
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS / lang, corpus / lang)
    settings = _settings(tmp_path / "idx")
    report = indexing.build(settings, corpus)
    assert report.files_ok == 1 and report.files_failed == 0
    src = next((corpus / lang).iterdir())
    with src.open("a", encoding="utf-8") as fh:
        fh.write("\n追記：新しい気圧計を設置した。\n")
    update = indexing.update(settings)
    assert update.files_failed == 0 and update.delta["changed"] == [f"{lang}/{src.name}"] and update.verified
    hits = Searcher(settings).search("新しい気圧計を設置した", k=3, mode="fulltext").hits
    assert hits and hits[0].file == f"{lang}/{src.name}"


def _drop_extraction_revision(index: Path) -> None:
    """Make the live generation's ``files`` table look as older code left it: no
    ``extraction_revision`` column (every file then counts as revision 1)."""
    import lancedb

    gen = (index / "CURRENT").read_text().strip()
    lancedb.connect(str(index / gen / "lance")).open_table("files").drop_columns(["extraction_revision"])


def test_a_fresh_build_says_nothing_about_an_older_extraction(example_index, capsys):
    code, out, _ = run_cli(capsys, "info", "--index", str(example_index), "--json")
    assert code == 0 and json.loads(out)["extraction_outdated"] is None
    code, out, _ = run_cli(capsys, "info", "--index", str(example_index))
    assert code == 0 and "extraction" not in out and "rebuild" not in out
    code, out, _ = run_cli(capsys, "search", "fog signal", "--index", str(example_index), "--json")
    assert code == 0 and "extraction_outdated" not in json.loads(out)["envelope"]
    code, _, err = run_cli(capsys, "search", "fog signal", "--index", str(example_index))
    assert code == 0 and "older pagerecall" not in err


def test_an_index_read_by_an_older_extraction_says_so_until_rebuild(example_index, tmp_path, capsys):
    """An index whose files record no extraction revision (written before it was recorded) opens and
    answers as before, and info and the envelope say which files a rebuild would re-read, what it
    changes and the command; update keeps working (a changed file is read with the current
    revision, the others stay older); rebuild makes the note go away."""
    from pagerecall.extract.revision import EXTRACTION_REVISION, REVISIONS

    corpus, old = tmp_path / "corpus", tmp_path / "old"
    shutil.copytree(CORPUS, corpus)
    shutil.copytree(example_index, old)
    _drop_extraction_revision(old)
    idx = ["--index", str(old), "--corpus", str(corpus)]

    code, out, _ = run_cli(capsys, "info", *idx, "--json")
    eo = json.loads(out)["extraction_outdated"]
    assert code == 0 and (eo["files"], eo["files_indexed"], eo["by_revision"]) == (5, 5, {"1": 5})
    assert (eo["oldest"], eo["current"], eo["next"]) == (1, EXTRACTION_REVISION, "pagerecall rebuild")
    assert eo["changes"] == [f"revision {n}: {REVISIONS[n]}" for n in range(2, EXTRACTION_REVISION + 1)]
    code, out, _ = run_cli(capsys, "info", *idx)
    assert code == 0 and f"extraction  5 of 5 file(s) read by an older pagerecall (revision 1;" in out
    assert f"  revision 2: {REVISIONS[2]}\n" in out and "  Next: pagerecall rebuild\n" in out

    query = ["search", "How often does the fog signal sound?", "-k", "5", "--json"]
    _, fresh, _ = run_cli(capsys, *query, "--index", str(example_index))
    code, out, err = run_cli(capsys, *query, *idx)
    res = json.loads(out)
    assert code == 0 and res["hits"] == json.loads(fresh)["hits"]  # the same answer, with the note
    note = res["envelope"]["extraction_outdated"]
    assert note["files"] == 5 and note["in_hits"] == list(dict.fromkeys(h["file"] for h in res["hits"]))
    assert note["next"] == "pagerecall rebuild" and "Next: pagerecall rebuild" in note["note"]
    code, _, err = run_cli(capsys, *query[:-1], *idx)
    assert code == 0 and "note: 5 indexed file(s) were read by an older pagerecall" in err
    code, out, _ = run_cli(capsys, "search", '"zeppelin mooring mast"', "--mode", "fulltext", *idx, "--json")
    miss = json.loads(out)["envelope"]["miss"]
    assert miss["trustworthy"] is False and any("older pagerecall" in c for c in miss["caveats"])

    victim = corpus / "fr" / "carnet-du-gardien.txt"
    victim.write_text(victim.read_text(encoding="utf-8") + "\nUne note ajoutée sur la lampe.\n", encoding="utf-8")
    assert main(["update", *idx, "-q"]) == 0
    capsys.readouterr()
    code, out, _ = run_cli(capsys, "info", *idx, "--json")
    assert json.loads(out)["extraction_outdated"]["by_revision"] == {"1": 4}
    code, out, _ = run_cli(capsys, "files", "*", *idx, "--json")
    assert {f["path"]: f.get("extraction_revision") for f in json.loads(out)["files"]}["fr/carnet-du-gardien.txt"] \
        == EXTRACTION_REVISION

    assert main(["rebuild", *idx, "-q"]) == 0
    capsys.readouterr()
    code, out, _ = run_cli(capsys, "info", *idx, "--json")
    assert code == 0 and json.loads(out)["extraction_outdated"] is None
    code, out, _ = run_cli(capsys, "info", *idx)
    assert "extraction" not in out
    code, out, _ = run_cli(capsys, *query, *idx)
    assert code == 0 and "extraction_outdated" not in json.loads(out)["envelope"]
    code, _, err = run_cli(capsys, *query[:-1], *idx)
    assert code == 0 and "older pagerecall" not in err


def test_check_of_a_claim_without_numbers_says_nothing_to_check(example_index, capsys):
    code, out, _ = run_cli(capsys, "check", "The keeper trims the wick every evening", "--file",
                           "en/harrow-point-manual.pdf", "--pages", "2", "--index", str(example_index))
    assert code == 3 and out.startswith("nothing to check:") and "found" not in out, out
    code, out, _ = run_cli(capsys, "check", "The tower was first lit in 1871 and the apparatus dates from 1903, "
                           "renewed three times", "--file", "en/harrow-point-manual.pdf", "--pages", "2",
                           "--index", str(example_index))
    assert code == 1 and "NOT FOUND  three" in out and "2 of 3 number(s) found" in out, out
