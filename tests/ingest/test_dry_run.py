"""``--dry-run`` on the destructive commands writes nothing and says what would happen."""

from __future__ import annotations

import json
import os

from pagerecall.cli.commands import main


def test_rebuild_dry_run_lists_the_files_and_writes_nothing(tmp_path, capsys):
    corpus, index = tmp_path / "corpus", tmp_path / "index"
    corpus.mkdir()
    (corpus / "a.txt").write_text("The keeper lights the lamp at dusk.\f" * 3, encoding="utf-8")
    (corpus / "b.txt").write_text("The fog signal sounds every thirty seconds.", encoding="utf-8")
    assert main(["build", str(corpus), "--index", str(index), "-q"]) == 0
    capsys.readouterr()
    before = sorted(os.listdir(index)), (index / "CURRENT").read_text()
    (corpus / "c.txt").write_text("A third file, not indexed yet.", encoding="utf-8")
    assert main(["rebuild", "--dry-run", "--json", "--index", str(index)]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["dry_run"] is True and rep["action"] == "rebuild" and rep["written"] is False
    assert rep["delta"]["files"] == ["a.txt", "b.txt", "c.txt"] and rep["previous"] == before[1].strip()
    assert (sorted(os.listdir(index)), (index / "CURRENT").read_text()) == before
    assert main(["rebuild", "--dry-run", "--index", str(index)]) == 0
    out = capsys.readouterr().out
    # critic9: the first line said "nothing changed" right above the changes it lists; "nothing changed" is
    # what update says when the disk matches the index
    assert "Dry run: nothing written (the index is as it was)." in out and "would index 3 file(s)" in out
    assert [line.strip() for line in out.splitlines()[2:5]] == ["a.txt", "b.txt", "c.txt"]  # README: it lists them
    assert main(["update", "--dry-run", "--index", str(index)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == ["Dry run: nothing written (the index is as it was).", "An update would make these changes:",
                       "added 1, changed 0, moved 0, deleted 0, retried 0, touched 0, unchanged 2"], out
    assert (sorted(os.listdir(index)), (index / "CURRENT").read_text()) == before
