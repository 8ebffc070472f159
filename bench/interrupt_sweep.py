"""Ctrl-C at every moment of a write: SIGINT sent to `pagerecall build`, `watch`, `rebuild` or `update`
a sweep of delays after start, each in a fresh child process on a fresh copy of a corpus.

``rebuild`` and ``update`` start from a copy of the corpus built once (``update`` after one
text file changed). A run is **bad** when the process does not end with exit 0 (it finished first), 130, or by the
signal itself after its work was done (a SIGINT in the last ~0.25 s of teardown, after the
interpreter gave SIGINT back its default: a shell reports that as 130 too), or its
stderr holds a traceback or a fatal error, or it hangs (:data:`HANG_S`) (``FATAL: exception not rethrown``, ``Fatal Python
error``), or (exit 130) the index holds a live generation that the last line does not name. It
prints one line per run (command, delay in s, exit code, ``BAD``) with the stderr's tail of a bad
one, and a summary line per command (runs, bad, by exit code). Found with it: OpenVINO's queued
requests outliving a Ctrl-C (SIGABRT at shutdown), a Ctrl-C inside a Lance scan ending in a
traceback (exit 1), a Ctrl-C while the command line was parsed (a traceback), a Ctrl-C inside
``exec`` of a string (``dataclasses`` on a lazy import) ending in a death by SIGINT after the
line that said it was handled, a hang when a Ctrl-C left the import lock held (the
file-preparation worker waited for it, the main thread for the worker).

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


HANG_S = 180.0
"""Seconds after which a run that has not ended counts as hung (killed, bad)."""


def sigint_default() -> None:
    """The child's SIGINT back to its default (a sweep started in the background has it ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def built(corpus: Path, work: Path) -> Path:
    """A folder holding ``corpus`` and its built ``index`` (once per sweep): what ``rebuild`` and
    ``update`` start from."""
    base = work / "built"
    if not (base / "index" / "CURRENT").exists():
        shutil.copytree(corpus, base / "corpus")
        subprocess.run([sys.executable, "-m", "pagerecall", "build", str(base / "corpus"), "--index",
                        str(base / "index"), "--quiet"], check=True, cwd=base, env=_env())
    return base


def _env() -> dict:
    return {**os.environ, "PYTHONFAULTHANDLER": "1",
            "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}


def one(command: str, delay: float, corpus: Path, work: Path) -> tuple[int, bool, str]:
    """(exit code, bad, stderr) of ``pagerecall COMMAND`` sent SIGINT ``delay`` s after its start
    (``build``/``watch`` on a fresh copy of ``corpus``; ``rebuild``/``update`` on a copy of it built,
    ``update`` after one text file of it changed)."""
    run = Path(tempfile.mkdtemp(dir=work))
    try:
        index = run / "index"
        if command in ("rebuild", "update"):
            base = built(corpus, work)
            shutil.copytree(base / "corpus", run / "corpus")
            shutil.copytree(base / "index", index)
            if command == "update":
                changed = next(p for p in sorted((run / "corpus").rglob("*.txt")))
                changed.write_text(changed.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
        else:
            shutil.copytree(corpus, run / "corpus")
        live_before = (index / "CURRENT").read_text().strip() if (index / "CURRENT").exists() else None
        extra = ["--settle", "0.2"] if command == "watch" else []
        target = [] if command in ("rebuild", "update") else [str(run / "corpus")]
        child = subprocess.Popen([sys.executable, "-m", "pagerecall", command, *target, "--index", str(index),
                                  *extra], env=_env(), cwd=run, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, preexec_fn=sigint_default)
        time.sleep(delay)
        if child.poll() is None:
            child.send_signal(signal.SIGINT)
        try:
            out, err = child.communicate(timeout=HANG_S)
        except subprocess.TimeoutExpired:  # a hang is the worst answer to Ctrl-C
            child.kill()
            out, err = child.communicate()
            return child.returncode, True, f"HUNG: no exit {HANG_S:g} s after SIGINT\n{err}"
        code = child.returncode
        bad = (code not in (0, 130, -signal.SIGINT) or "Traceback" in err or "FATAL" in err
               or "Fatal Python error" in err)
        live = (index / "CURRENT").read_text().strip() if (index / "CURRENT").exists() else None
        lines = [line for line in err.splitlines() if line.strip()]
        said = " ".join(lines[-2:] + out.splitlines()[-1:])  # the write's last lines, the report on stdout
        if code == -signal.SIGINT:  # only after the work was done (a new live generation, named)
            bad = bad or live is None or live == live_before or live not in said
        elif code == 130 and live is not None:
            if live != live_before:  # a new generation went live: named, and never called "unchanged"
                bad = bad or live not in err or "unchanged" in said
            else:  # the old one stands: said so (watch: "stopped after N update(s)")
                bad = bad or not any(w in said for w in ("unchanged", "nothing was changed", "stopped after"))
        if bad:
            err += f"\n[stdout tail] {out[-300:]!r}\n[live before] {live_before} [after] {live}"
        return code, bad, err
    finally:
        shutil.rmtree(run, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commands", default="build,watch", help="comma-separated: build, watch, rebuild, update")
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
