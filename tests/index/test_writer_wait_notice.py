"""A second writer says at once that it waits, for whom (pid, host, since, command from lock.info) and
that --no-wait fails at once instead. Before: a second `pagerecall update` while one ran printed
nothing for minutes. Real OS file locks; the CLI case runs a real second process on a real index."""

from __future__ import annotations

import dataclasses
import logging
import os
import subprocess
import sys
import threading

import pytest

from pagerecall.errors import LockedError
from pagerecall.index.layout import IndexStore


def test_a_waiting_writer_says_whom_it_waits_for_at_once(tmp_path, caplog):
    holder = IndexStore(tmp_path / "idx")
    other = IndexStore(tmp_path / "idx")
    with holder.lock(wait=False):
        with caplog.at_level(logging.WARNING, logger="pagerecall"):
            with pytest.raises(LockedError):
                other.lock(wait=True, timeout=0.2).__enter__()
            said = [r.getMessage() for r in caplog.records if "waiting for another writer" in r.getMessage()]
            assert len(said) == 1 and f"pid={os.getpid()}" in said[0] and "--no-wait" in said[0], said
            caplog.clear()
            with pytest.raises(LockedError):  # --no-wait: refused at once, no waiting said
                other.lock(wait=False).__enter__()
            assert not [r for r in caplog.records if "waiting" in r.getMessage()]
    with caplog.at_level(logging.WARNING, logger="pagerecall"):
        with other.lock(wait=True):  # a free lock: nothing said
            pass
    assert not [r for r in caplog.records if "waiting" in r.getMessage()]


@pytest.mark.slow  # a build and a second process loading the model: ~20-40 s on a loaded machine
def test_second_update_prints_that_it_waits_on_stderr(tmp_path):
    from pagerecall.config import Settings
    from pagerecall.ingest.pipeline import build

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text("The harbour light shows red.\n", encoding="utf-8")
    settings = dataclasses.replace(Settings.from_env(), index_dir=tmp_path / "idx", corpus_root=None,
                                   degraded_registry=None)
    build(settings, corpus)
    (corpus / "b.txt").write_text("The quay is old.\n", encoding="utf-8")  # something for update to write
    holder = IndexStore(tmp_path / "idx")
    lines: list[str] = []
    seen = threading.Event()
    with holder.lock(wait=False):
        proc = subprocess.Popen([sys.executable, "-m", "pagerecall", "update", "--index", str(tmp_path / "idx")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})

        def read():
            for line in proc.stderr:
                lines.append(line)
                if "waiting for another writer" in line:
                    seen.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        if not seen.wait(120):  # said while the lock is still held
            proc.kill()
            proc.wait(30)
            pytest.fail("no waiting notice on stderr:\n" + "".join(lines))
    assert proc.wait(300) == 0, "".join(lines)
    reader.join(10)
    said = next(line for line in lines if "waiting for another writer" in line)
    assert f"pid={os.getpid()}" in said and "--no-wait" in said, said
