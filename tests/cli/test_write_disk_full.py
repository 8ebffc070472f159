"""A build that cannot write its databases (a full disk, a file size limit) ends with one line that
names the index folder's databases and what to do, never a traceback, and never blames a citation
ledger that the build did not touch.

Before: `pagerecall build CORPUS --index IDX` on a disk that filled up while it embedded said "cannot open
or write the citation ledger IDX/ledger.sqlite: database or disk is full" (measured on a 12 MB tmpfs:
the file that filled it was the resume cache, and no ledger existed). Here the limit is the process's
file size limit (RLIMIT_FSIZE), which makes SQLite's writes of the resume cache fail as a full disk
does; the real example corpus, the bundled model."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(not hasattr(resource, "RLIMIT_FSIZE"), reason="needs RLIMIT_FSIZE (POSIX)")
def test_a_build_that_cannot_write_its_resume_cache_says_so_in_one_line(tmp_path):
    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))

    index = tmp_path / "index"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "pagerecall", "build", str(ROOT / "examples" / "corpus"),
                          "--index", str(index)], preexec_fn=limit, capture_output=True, text=True, env=env,
                         timeout=900)
    err = run.stderr
    assert run.returncode == 1, err[-2000:]
    assert "Traceback" not in err, err[-2000:]
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"pagerecall: cannot write a database of the index folder {index} "
                           "(the resume cache embedcache.sqlite, or the citation ledger ledger.sqlite)"), last
    assert "free space" in last and "run the same command again" in last, last
    assert not (index / "ledger.sqlite").exists()


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs Linux's /proc, where no folder can be made")
def test_an_index_folder_that_cannot_be_made_is_one_line(capsys):
    """Before: ``build --index /proc/x`` ended in a FileNotFoundError traceback from ``mkdir``."""
    from pagerecall.cli.commands import main

    index = Path(f"/proc/pagerecall-test-{os.getpid()}")
    code = main(["build", str(ROOT / "examples" / "corpus"), "--index", str(index), "-q"])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err, err
    assert err.strip().splitlines()[-1].startswith(f"pagerecall: cannot open or write {index}: "), err
    assert "pass --index a folder you can write" in err
