"""``build/update --json``: progress on stderr while stdout stays one JSON document, and
``previous`` names the generation ``rollback`` reaches (issue 36.5).

Before: ``--json`` switched the progress off (a 58-minute build said nothing on stderr), and an
update that changed nothing reported ``previous`` equal to ``generation`` (the live one), which
is not where ``rollback`` goes. Real model, real LanceDB and Tantivy, the CLI through ``main``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from pagerecall.cli.commands import main

ROOT = Path(__file__).resolve().parents[2]
FR = ROOT / "examples" / "corpus" / "fr" / "carnet-du-gardien.txt"


def _run(capsys, *argv: str) -> tuple[int, dict, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def test_json_writes_show_progress_on_stderr_and_previous_is_the_rollback_target(tmp_path: Path, capsys) -> None:
    corpus, index = tmp_path / "corpus", tmp_path / "index"
    corpus.mkdir()
    shutil.copy2(FR, corpus / "carnet.txt")

    code, first, err = _run(capsys, "build", str(corpus), "--index", str(index), "--json")
    assert code == 0 and first["written"] and first["previous"] is None
    assert "1/1 files" in err  # the progress a log gets (stderr is not a terminal here)

    (corpus / "note.txt").write_text("The relief keeper oiled the fog bell's striker at dawn.\f", encoding="utf-8")
    code, second, err = _run(capsys, "update", "--index", str(index), "--json")
    assert code == 0 and second["written"] and second["previous"] == first["generation"]
    assert "1/1 files" in err

    code, noop, _ = _run(capsys, "update", "--index", str(index), "--json")
    assert code == 0 and noop["written"] is False and noop["generation"] == second["generation"]
    assert noop["previous"] == first["generation"]  # what rollback makes live, not the live one again

    code, dry, _ = _run(capsys, "update", "--index", str(index), "--json", "--dry-run")
    assert code == 0 and dry["previous"] == first["generation"]  # nothing to change: rollback target unchanged

    (corpus / "late.txt").write_text("A late entry about the lamp's wick.\f", encoding="utf-8")
    code, dry, _ = _run(capsys, "update", "--index", str(index), "--json", "--dry-run")
    assert code == 0 and dry["previous"] == second["generation"]  # the update would keep the live one for rollback

    code, back, _ = _run(capsys, "rollback", "--index", str(index), "--json")
    assert code == 0 and back["generation"] == noop["previous"]
    assert back["previous"] == second["generation"] and back["older"] is None  # the first build has no older

    # a second rollback goes further back, never forward to the generation just left: here there is none
    code = main(["rollback", "--index", str(index)])
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and "No older generation to roll back to" in err, err
    assert (index / "CURRENT").read_text().strip() == first["generation"]
