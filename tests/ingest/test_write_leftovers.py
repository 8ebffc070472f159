"""What a killed write leaves is described, with what to run (issue 36.1), without a model.

The index folders here are laid out on disk as a killed writer leaves them: a live generation
named by ``CURRENT``, a half-written one with its ``.building`` marker, the real resume cache
(``pagerecall.ingest.resume_cache.EmbedCache``, SQLite) and the writer's ``lock.info``. The kill -9 test
with the real model is ``tests/ingest/test_interrupted_rebuild.py`` (slow).
"""

from __future__ import annotations

import dataclasses
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pagerecall.ingest import resume_cache as embedcache
from pagerecall.config import Settings
from pagerecall.errors import IndexNotFoundError
from pagerecall.index.leftovers import interrupted_write


def _index(tmp_path: Path, live: bool = True) -> Path:
    index = tmp_path / "index"
    index.mkdir()
    if live:
        (index / "gen-000001").mkdir()
        (index / "gen-000001" / "meta.json").write_text("{}", encoding="utf-8")
        (index / "gen-000001" / "data.bin").write_bytes(b"x" * 1000)
        (index / "CURRENT").write_text("gen-000001\n", encoding="utf-8")
    return index


def _partial(index: Path) -> Path:
    gen = index / "gen-000002"
    (gen / "lance").mkdir(parents=True)
    (gen / ".building").write_text("pid=1\n", encoding="utf-8")
    (gen / "lance" / "own.bin").write_bytes(b"y" * 4096)
    if (index / "gen-000001").exists():  # an update's clone: hard links to the live generation are not its own
        os.link(index / "gen-000001" / "data.bin", gen / "lance" / "shared.bin")
    return gen


def _cache(index: Path, action: str | None, passages: int) -> None:
    cache = embedcache.EmbedCache(embedcache.path_of(index), "model-x", dim=4)
    if action:
        cache.note_write({"action": action, "generation": "gen-000002", "corpus_root": "/corpus",
                          "started": "2026-12-03T10:00:00+00:00", "pid": 1, "host": socket.gethostname()})
    if passages:
        cache.put([(cache.key(["a passage"]), np.ones((passages, 4), np.float32))])
    cache.close()


def test_a_clean_index_has_no_leftovers(tmp_path: Path) -> None:
    assert interrupted_write(_index(tmp_path)) is None
    assert interrupted_write(tmp_path / "absent") is None


def test_a_rebuild_killed_with_vectors_cached_is_resumable(tmp_path: Path) -> None:
    index = _index(tmp_path)
    _partial(index)
    _cache(index, "rebuild", 3)
    left = interrupted_write(index)
    assert left["action"] == "rebuild" and left["resumable"] and left["running"] is None
    assert left["cache"]["passages"] == 3 and left["cache"]["batches"] == 1 and left["cache"]["bytes"] > 0
    assert left["partial_generations"] == [{"name": "gen-000002", "bytes": 4096 + len("pid=1\n")}]
    assert left["next"].startswith("pagerecall update (or pagerecall rebuild) resumes the interrupted rebuild")


def test_a_rebuild_killed_before_its_first_batch_says_to_run_it_again(tmp_path: Path) -> None:
    index = _index(tmp_path)
    _partial(index)
    _cache(index, "rebuild", 0)
    left = interrupted_write(index)
    assert not left["resumable"] and "Next: pagerecall rebuild to start it again" in left["next"]


def test_a_partial_generation_alone_is_reported(tmp_path: Path) -> None:
    index = _index(tmp_path)
    _partial(index)
    left = interrupted_write(index)
    assert left["cache"] is None and left["action"] is None and not left["resumable"]
    assert [g["name"] for g in left["partial_generations"]] == ["gen-000002"]


def test_a_running_writer_is_not_called_interrupted(tmp_path: Path) -> None:
    index = _index(tmp_path)
    _partial(index)
    _cache(index, "rebuild", 3)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (index / "lock.info").write_text(f"pid={sleeper.pid} host={socket.gethostname()} since=now cmd=x\n",
                                         encoding="utf-8")
        left = interrupted_write(index)
        assert left["running"]["pid"] == sleeper.pid and not left["resumable"]
        assert "a write is running now" in left["next"]
    finally:
        sleeper.kill()
        sleeper.wait()
    left = interrupted_write(index)  # the writer died (kill): its lock.info stays, its work is leftovers
    assert left["running"] is None and left["resumable"]


def test_update_without_a_live_index_names_the_leftovers(tmp_path: Path) -> None:
    from pagerecall.ingest import pipeline as indexing

    index = _index(tmp_path, live=False)
    _partial(index)
    _cache(index, "build", 0)
    settings = dataclasses.replace(Settings.from_env(), index_dir=index)
    with pytest.raises(IndexNotFoundError) as exc:
        indexing.update(settings)
    said = str(exc.value)  # one next step: the build again (an update has nothing to update)
    assert "a first build was interrupted" in said and "Next: pagerecall build /corpus --index" in said, said


def test_an_update_with_nothing_to_do_removes_leftovers_nothing_will_resume(tmp_path: Path, capsys) -> None:
    """A rebuild killed before its first batch (an empty cache, a half-written generation) beside a
    real index: the update writes nothing, says what the dead rebuild was and what to run, and
    removes the debris (before, it stayed on disk unmentioned)."""
    from pagerecall.ingest import pipeline as indexing
    from pagerecall.cli.commands import main

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "log.txt").write_text("The keeper trimmed the wick and wound the clockwork at dusk.\f", encoding="utf-8")
    index = tmp_path / "index"
    settings = dataclasses.replace(Settings.from_env(), index_dir=index)
    first = indexing.build(settings, corpus)
    gen = index / "gen-000002"
    (gen / "lance").mkdir(parents=True)
    (gen / ".building").write_text("pid=1\n", encoding="utf-8")
    _cache(index, "rebuild", 0)

    assert main(["update", "--index", str(index)]) == 0
    out = capsys.readouterr().out
    assert "no generation written" in out
    assert "interrupted rebuild started 2026-12-03T10:00:00+00:00" in out and "removed" in out
    assert "Next: pagerecall rebuild to start it again" in out
    assert interrupted_write(index) is None and not gen.exists() and not embedcache.path_of(index).exists()
    assert (index / "CURRENT").read_text().strip() == first.generation
