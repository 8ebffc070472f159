"""The generation a rollback leaves is no leftover of an interrupted write. Before, ``info`` and
``update --dry-run`` said, right after ``build``, ``update``, ``rollback``: "interrupted a write: partial
generation(s) gen-000002 (0.0 MiB). nothing to resume", though nothing was interrupted and gen-000002 had
been live, verified, a moment before. A write killed between its finalize and its swap is still reported.
Real model, LanceDB and Tantivy, through the CLI as a user runs it."""

from __future__ import annotations

import json

from pagerecall.cli.commands import main
from pagerecall.index.leftovers import interrupted_write


def _json(capsys, argv: list[str]) -> dict:
    assert main(argv + ["--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_generation_a_rollback_leaves_is_not_an_interrupted_write(tmp_path, capsys):
    corpus, index = tmp_path / "corpus", tmp_path / "index"
    corpus.mkdir()
    (corpus / "a.txt").write_text("The first note is about the lamp of the lighthouse.\n")
    at = ["--index", str(index)]
    assert main(["build", str(corpus), "-q"] + at) == 0
    (corpus / "b.txt").write_text("The second note is about the fog bell and its rope.\n")
    assert main(["update", "-q"] + at) == 0
    assert main(["rollback"] + at) == 0
    capsys.readouterr()
    assert sorted(p.name for p in index.glob("gen-*")) == ["gen-000001", "gen-000002"]  # left, kept on disk
    assert interrupted_write(index) is None
    info = _json(capsys, ["info", "--in-process"] + at)
    assert info["generation"] == "gen-000001" and info["interrupted"] is None
    assert info["stale"]["added"] == ["b.txt"]  # the rolled-back index says what it lacks
    dry = _json(capsys, ["update", "--dry-run"] + at)
    assert dry["interrupted"] is None and dry["delta"]["added"] == ["b.txt"]
    # a generation finalized but never swapped in (a write killed before its swap) is still reported
    (index / "gen-000003").mkdir()
    (index / "gen-000003" / "meta.json").write_text("{}", encoding="utf-8")
    assert [g["name"] for g in interrupted_write(index)["partial_generations"]] == ["gen-000003"]
