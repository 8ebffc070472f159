"""Ctrl-C (SIGINT) during a write says what is true: "the live index is unchanged" when there is one;
during a first build, that no index was written yet and what to run next (the next build resumes
from the resume cache when it holds vectors).

Before: a first build interrupted said "interrupted; the live index is unchanged", with no index
at all and no next step.

A real ``pagerecall build`` process (real model, real index) gets a real SIGINT once it holds the
writer lock (the model is loaded) or once its resume cache holds vectors.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pagerecall.index.leftovers import interrupted_write
from tests.conftest import sigint_default

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "examples" / "corpus"
NO_INDEX = "pagerecall: interrupted; no index was written yet (the first build stopped before it finished). Next: "
UNCHANGED = "pagerecall: interrupted; the live index is unchanged\n"


def _build(corpus: Path, index: Path, interrupt_when=None, timeout: float = 300, command: str = "build",
           *extra: str) -> tuple[int, str]:
    """``pagerecall build corpus --index index`` (or ``command``) in a child process; SIGINT once
    ``interrupt_when()`` is true (None: run to the end). Returns the exit code and stderr."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    child = subprocess.Popen([sys.executable, "-m", "pagerecall", command, str(corpus), "--index", str(index), *extra],
                             env=env, cwd=index.parent, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=sigint_default)
    deadline = time.monotonic() + timeout
    if interrupt_when is not None:
        while child.poll() is None and not interrupt_when() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert child.poll() is None, "the build ended before it could be interrupted"
        child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=timeout)
    return child.returncode, err


def _cached(index: Path) -> int:
    left = interrupted_write(index) if index.is_dir() else None
    return int(((left or {}).get("cache") or {}).get("passages") or 0)


def test_ctrl_c_during_a_first_build_says_no_index_was_written_and_what_to_run(tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    index = tmp_path / "index"
    code, err = _build(corpus, index, lambda: (index / "lock.info").exists())  # it holds the writer lock
    last = err.splitlines()[-1] + "\n"
    assert code == 130, err
    assert last.startswith(NO_INDEX) and f"pagerecall build {corpus} --index {index}" in last, err
    assert "the live index is unchanged" not in err and "Traceback" not in err
    assert not (index / "CURRENT").exists()
    cached = _cached(index)  # what the line says of the resume cache is what the cache holds
    assert (f"it resumes from the resume cache ({cached} passage(s)" in last) == (cached > 0), (cached, last)


def test_ctrl_c_during_the_first_build_of_pagerecall_watch_says_no_index_was_written(tmp_path):
    """``pagerecall watch`` builds an index that does not exist yet; stopped then, it said "the live
    generation is unchanged"."""
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    index = tmp_path / "index"
    code, err = _build(corpus, index, lambda: (index / "lock.info").exists(), 300, "watch", "--settle", "0.2")
    assert code == 130, err
    assert err.splitlines()[-1] == ("pagerecall: stopped after 0 update(s); the first build in progress was abandoned: "
                                    "no index was written yet. Next: start pagerecall watch again (or pagerecall "
                                    "build): it resumes from the resume cache"), err
    assert "unchanged" not in err and not (index / "CURRENT").exists()


@pytest.mark.slow  # three builds in child processes (about 30 s)
def test_the_next_build_resumes_and_a_later_ctrl_c_keeps_the_live_index(tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    index = tmp_path / "index"
    code, err = _build(corpus, index, lambda: _cached(index) > 0)
    cached = _cached(index)
    assert code == 130 and cached > 0
    assert err.splitlines()[-1] == (f"{NO_INDEX}pagerecall build {corpus} --index {index}: it resumes from the "
                                    f"resume cache ({cached} passage(s) embedded so far)")
    code, err = _build(corpus, index)  # what the line told to run
    assert code == 0 and "resumed:" in err and (index / "CURRENT").exists(), err
    live = (index / "CURRENT").read_text()
    code, err = _build(corpus, index, lambda: (index / "lock.info").exists())
    assert code == 130 and err.endswith(UNCHANGED), err
    assert (index / "CURRENT").read_text() == live


def test_update_after_a_first_build_stopped_before_any_vector_names_the_build_to_run(tmp_path, capsys):
    """Before: ``pagerecall update`` then said "No index at INDEX. Next: pagerecall build CORPUS ... (an
    interrupted build left leftovers: the interrupted build stored no vectors. Next: pagerecall build to
    start it again (pagerecall update removes the partial generation))": two next steps, no corpus,
    and the command that had just failed given as the remedy."""
    from pagerecall.cli.commands import main

    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    index = tmp_path / "index"
    # once its generation folder exists (with the lock alone, the interrupt could land before it: no leftover)
    code, err = _build(corpus, index, lambda: index.is_dir() and any(index.glob("gen-*")))
    assert code == 130, err
    if _cached(index):
        pytest.skip("the build kept vectors before the interrupt (a slow SIGINT): update resumes it instead")
    code = main(["update", "--index", str(index)])
    err = capsys.readouterr().err
    assert code == 1, err
    assert err.startswith(f"pagerecall: No index at {index}: a first build was interrupted before it finished and "
                          f"kept no vectors to resume. Next: pagerecall build "), err
    assert err.endswith(f" --index {index}\n") and err.count("Next:") == 1 and "pagerecall update" not in err, err
