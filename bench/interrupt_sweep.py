"""Ctrl-C at every moment of a write: SIGINT sent to ``pagerecall build`` / ``pagerecall watch`` at
a sweep of delays after start, each in a fresh child process on a fresh copy of a corpus.

A run is **bad** when the process does not end with exit 0 (it finished first), 130, or by the
signal itself (a SIGINT in the last ~0.25 s of teardown, after the interpreter gave SIGINT back its
default: a shell reports that as 130 too), or its
stderr holds a traceback or a fatal error (``FATAL: exception not rethrown``, ``Fatal Python
error``), or (exit 130) the index holds a live generation that the last line does not name. It
prints one line per run (command, delay in s, exit code, ``BAD``) with the stderr's tail of a bad
one, and a summary line per command (runs, bad, by exit code). Found with it: OpenVINO's queued
requests outliving a Ctrl-C (SIGABRT at shutdown), a Ctrl-C inside a Lance scan ending in a
traceback (exit 1), a Ctrl-C while the command line was parsed (a traceback).

    nice python bench/interrupt_sweep.py [--commands build,watch] [--from 0.1] [--to 6] [--step 0.15]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import _suite as suite

ROOT = Path(__file__).resolve().parents[1]


def sigint_default() -> None:
    """The child's SIGINT back to its default (a sweep started in the background has it ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def one(command: str, delay: float, corpus: Path, work: Path) -> tuple[int, bool, str]:
    """(exit code, bad, stderr) of ``pagerecall COMMAND`` sent SIGINT ``delay`` s after its start."""
    run = Path(tempfile.mkdtemp(dir=work))
    try:
        shutil.copytree(corpus, run / "corpus")
        index = run / "index"
        extra = ["--settle", "0.2"] if command == "watch" else []
        env = {**os.environ, "PYTHONFAULTHANDLER": "1",
               "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
        child = subprocess.Popen([sys.executable, "-m", "pagerecall", command, str(run / "corpus"), "--index",
                                  str(index), *extra], env=env, cwd=run, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True, preexec_fn=sigint_default)
        time.sleep(delay)
        if child.poll() is None:
            child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=600)
        code = child.returncode
        bad = (code not in (0, 130, -signal.SIGINT) or "Traceback" in err or "FATAL" in err
               or "Fatal Python error" in err)
        if code in (130, -signal.SIGINT) and (index / "CURRENT").exists():
            live = (index / "CURRENT").read_text().strip()
            bad = bad or live not in err.strip().splitlines()[-1]
        return code, bad, err
    finally:
        shutil.rmtree(run, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commands", default="build,watch", help="comma-separated: build, watch")
    ap.add_argument("--corpus", type=Path, default=ROOT / "examples" / "corpus")
    ap.add_argument("--from", dest="start", type=float, default=0.1, help="first delay (s)")
    ap.add_argument("--to", type=float, default=6.0, help="last delay (s, exclusive)")
    ap.add_argument("--step", type=float, default=0.15, help="delay step (s)")
    args = ap.parse_args(argv)
    record = suite.start(__file__, args)
    delays = [round(args.start + k * args.step, 3) for k in range(int((args.to - args.start) / args.step + 1e-9))]
    total_bad = 0
    with tempfile.TemporaryDirectory(prefix="pagerecall-sweep-") as work:
        for command in args.commands.split(","):
            codes: Counter[int] = Counter()
            bad = 0
            for delay in delays:
                code, is_bad, err = one(command, delay, args.corpus, Path(work))
                codes[code] += 1
                bad += is_bad
                print(f"{command} {delay:.2f} s: exit {code}{'  BAD' if is_bad else ''}", flush=True)
                if is_bad:
                    print("    " + err[-2500:].replace("\n", "\n    "), flush=True)
            total_bad += bad
            print(f"{command}: {len(delays)} runs, {bad} bad; exit codes {dict(sorted(codes.items()))}", flush=True)
    record.end()
    return 1 if total_bad else 0


if __name__ == "__main__":
    sys.exit(main())
