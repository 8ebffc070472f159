"""What every benchmark in ``bench/`` records with its figures, in one place.

A figure from a shared 2-core machine means little without the CPU it ran on, the ISA that decides
which runtime embeds (AVX2 only, or AVX-512-BF16/AMX for OpenVINO bf16), the load average, the commit
and the settings in force. Every script calls :func:`start` before it measures; it prints the same
header (lines starting with ``#``, so a reader of JSON lines can skip them) on stdout, and
:meth:`Run.end` prints the load after the run. Scripts that write a JSON report put
:meth:`Run.as_dict` (or :func:`machine_info`) in it.

=======================  ======================================================================
:func:`machine`          CPU model (``lscpu``, else ``/proc/cpuinfo``), cores, RAM, the ISA flags
                         that matter here (:data:`ISA_FLAGS`), Python, platform
:func:`load`             ``os.getloadavg()``: 1, 5 and 15 minutes
:func:`git_commit`       ``HEAD`` of this checkout, ``-dirty`` when tracked files differ
:func:`settings_in_force`  the pagerecall settings that move figures (model, runtime and what
                         ``auto`` picks on this CPU, OCR, threads, chunking, engine) and every
                         ``PAGERECALL_*`` variable set
:func:`percentiles`      nearest-rank percentiles (``numpy.percentile(method="inverted_cdf")``)
:func:`start`            all of the above as a :class:`Run`, its header printed
=======================  ======================================================================

Shared inputs of several scripts live here too, so that no script imports another's helpers:
:func:`mixed_queries` (the latency queries), :func:`bench_settings`, :func:`run_in_checkout`
(a child interpreter on another checkout) and :func:`instruction_train_half` (the bench corpus's
training half for the instruction classifier).

Standard library only at import time (numpy and pagerecall are imported where used), so that
importing a script costs nothing and ``--help`` is instant.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterable, TextIO

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = (ROOT / ".." / "shared").resolve()
CACHE = HERE / ".cache"
if str(ROOT) not in sys.path:  # `python bench/x.py` puts bench/ on the path, not the checkout
    sys.path.insert(0, str(ROOT))

ISA_FLAGS = ("avx2", "avx512f", "avx512_bf16", "amx_tile", "amx_bf16")
"""``/proc/cpuinfo`` flags recorded with every figure: AVX2 (what onnxruntime int8 uses here),
AVX-512, and the bf16 units (AVX-512-BF16, AMX) on which ``auto`` picks OpenVINO bf16
(``pagerecall.model.runtimes.BF16_FLAGS``)."""


# --------------------------------------------------------------------------- machine


def cpu_model() -> str:
    """The CPU model: ``lscpu``'s "Model name", else ``/proc/cpuinfo``'s "model name", else
    ``platform.processor()``, else ``"unknown"``."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def cpu_flags() -> frozenset[str]:
    """Every flag of the first CPU in ``/proc/cpuinfo`` (empty where the file does not exist)."""
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            if line.startswith("flags"):
                return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def machine() -> dict:
    """``{"cpu", "isa", "cores", "ram_gb", "python", "platform"}``: ``isa`` maps each of
    :data:`ISA_FLAGS` to whether this CPU has it; ``ram_gb`` in GiB (None if unknown)."""
    flags = cpu_flags()
    try:
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        ram = None
    return {"cpu": cpu_model(), "isa": {f: f in flags for f in ISA_FLAGS}, "cores": os.cpu_count(),
            "ram_gb": round(ram / 2**30, 1) if ram else None, "python": platform.python_version(),
            "platform": platform.platform()}


def load() -> list[float] | None:
    """The load average over 1, 5 and 15 minutes (``os.getloadavg``), rounded to 0.01; None where
    the platform has none. Other work on a shared machine slows every timing: read them with it."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def git_commit(short: bool = False) -> str | None:
    """This checkout's ``HEAD`` (``short``: 7 hex digits) with ``-dirty`` when tracked files differ
    from it; None outside a git checkout."""
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return (sha[:7] if short else sha) + ("-dirty" if dirty else "")


def machine_info() -> dict:
    """The ``machine`` object of the JSON reports of ``eval.py``, ``perf.py`` and others (keys kept
    from before the suite: ``load_avg_1_5_15``, ``cores``, ``ram_gb``, ``cpu``, ``python``,
    ``platform``), plus ``isa``."""
    m = machine()
    return {"load_avg_1_5_15": load(), "cores": m["cores"], "ram_gb": m["ram_gb"], "cpu": m["cpu"],
            "isa": m["isa"], "python": m["python"], "platform": m["platform"]}


# --------------------------------------------------------------------------- settings


def bench_settings(index_dir: Path | None = None, corpus_root: Path | None = None, **changes):
    """``Settings.from_env()`` with ``index_dir``/``corpus_root`` (when given) and ``changes``
    replaced: what a script measures with."""
    from pagerecall.config import Settings

    s = Settings.from_env()
    if index_dir is not None:
        changes["index_dir"] = Path(index_dir)
        changes.setdefault("corpus_root", corpus_root)
    elif corpus_root is not None:
        changes["corpus_root"] = corpus_root
    return dataclasses.replace(s, **changes) if changes else s


def settings_in_force(settings=None) -> dict:
    """The settings that move figures: ``model``, ``runtime`` (the setting), ``runtime_chosen``
    (what :func:`pagerecall.model.runtimes.choose` picks for a new index on this CPU, with its
    vector family), ``ocr``, ``threads``, ``chunk`` (tokens), ``engine``, and ``env``: every
    ``PAGERECALL_*`` variable set (name and value; none holds a secret: passwords live in a file).
    ``settings`` defaults to ``Settings.from_env()``."""
    from pagerecall.config import Settings

    s = settings if settings is not None else Settings.from_env()
    out: dict = {"model": s.model, "runtime": s.runtime}
    try:
        from pagerecall.model.runtimes import choose

        c = choose(s.runtime)
        out["runtime_chosen"] = f"{c.name} ({c.family})"
    except Exception as exc:  # noqa: BLE001 - a runtime that cannot run is recorded, not raised
        out["runtime_chosen"] = f"unavailable: {exc}"
    out.update(ocr=s.ocr, threads=s.threads, chunk=s.chunk.as_dict(), engine=s.engine,
               env={k: v for k, v in sorted(os.environ.items()) if k.startswith("PAGERECALL_")})
    return out


# --------------------------------------------------------------------------- statistics


def percentiles(values: Iterable[float], qs: Iterable[float] = (50, 95), scale: float = 1000.0,
                ndigits: int | None = 2) -> dict[str, float | None]:
    """``{"p50": ..., "p95": ...}``: nearest-rank percentiles of ``values`` times ``scale``
    (default seconds -> milliseconds), rounded to ``ndigits`` (None: not rounded).

    Nearest rank (the smallest value with at least q % of the values at or below it; no
    interpolation, so every figure is a measured time) is ``numpy.percentile(...,
    method="inverted_cdf")`` (Hyndman & Fan 1996, definition 1). Every entry is None when
    ``values`` is empty."""
    import numpy as np

    v = np.asarray(list(values), dtype=np.float64)
    qs = list(qs)
    names = [f"p{q:g}" for q in qs]
    if v.size == 0:
        return dict.fromkeys(names)
    got = np.percentile(v, qs, method="inverted_cdf") * scale
    return {n: (round(float(x), ndigits) if ndigits is not None else float(x)) for n, x in zip(names, got)}


def percentile(values: Iterable[float], q: float, scale: float = 1000.0, ndigits: int | None = 2) -> float | None:
    """One nearest-rank percentile of ``values`` (see :func:`percentiles`)."""
    return percentiles(values, (q,), scale, ndigits)[f"p{q:g}"]


# --------------------------------------------------------------------------- the run record


@dataclasses.dataclass
class Run:
    """One script's run: what :func:`start` recorded before the measurement.

    ``date`` is UTC (ISO 8601, seconds); ``load_before``/``load_after`` are 1/5/15-minute load
    averages; ``settings`` is :func:`settings_in_force` (None for a script that runs no
    pagerecall code); ``args`` the script's own options."""

    script: str
    date: str
    commit: str | None
    machine: dict
    load_before: list[float] | None
    settings: dict | None = None
    args: dict = dataclasses.field(default_factory=dict)
    load_after: list[float] | None = None

    def header(self) -> str:
        """The header lines (each starting with ``# ``) printed before the figures."""
        m = self.machine
        isa = ", ".join(f if ok else f"no {f}" for f, ok in m["isa"].items())
        lines = [f"# bench/{self.script} | {self.date} | commit {self.commit or 'unknown'}",
                 f"# machine: {m['cpu']}, {m['cores']} cores, {m['ram_gb']} GiB RAM; ISA: {isa}",
                 f"# load before: {_fmt_load(self.load_before)} (1/5/15 min)"]
        if self.settings is not None:
            s = self.settings
            c = s["chunk"]
            env = " ".join(f"{k}={v}" for k, v in s["env"].items()) or "none"
            lines.append(f"# settings: model {s['model']}, runtime {s['runtime']} -> {s['runtime_chosen']}, "
                         f"ocr {s['ocr']}, threads {s['threads'] or 'default'}, chunk {c['max_tokens']}/"
                         f"{c['overlap_tokens']}/{c['min_tokens']} tokens, engine {s['engine']}; env: {env}")
        if self.args:
            lines.append("# args: " + " ".join(f"{k}={v}" for k, v in self.args.items()))
        return "\n".join(lines)

    def end(self, file: TextIO | None = None) -> str:
        """Record the load now, print ``# load after: ...`` on ``file`` (default stdout) and return it."""
        self.load_after = load()
        line = f"# load after: {_fmt_load(self.load_after)} (1/5/15 min)"
        print(line, file=file or sys.stdout, flush=True)
        return line

    def as_dict(self) -> dict:
        """The record as JSON-ready data (for a script's JSON report)."""
        return dataclasses.asdict(self)


def _plain(value):
    """An option's value as JSON-ready data: paths as text, also inside lists."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _fmt_load(value: list[float] | None) -> str:
    return " ".join(f"{x:.2f}" for x in value) if value else "unknown"


def start(script: str, args=None, settings=None, with_settings: bool = True, file: TextIO | None = None,
          quiet: bool = False) -> Run:
    """Record the run of ``script`` (its ``__file__``) and print its header on ``file`` (default
    stdout) unless ``quiet`` (a script whose stdout must be one JSON document puts
    :meth:`Run.as_dict` in it instead).

    ``args``: an ``argparse.Namespace`` or a dict of the script's options (paths shown as text);
    ``settings``: the ``pagerecall.config.Settings`` the script measures with (default
    ``Settings.from_env()``); ``with_settings=False`` for a script that runs no pagerecall code
    in this process (it compares reports, or runs other checkouts only)."""
    opts = vars(args) if args is not None and not isinstance(args, dict) else dict(args or {})
    run = Run(script=Path(script).name, date=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
              commit=git_commit(), machine=machine(), load_before=load(),
              settings=settings_in_force(settings) if with_settings else None,
              args={k: _plain(v) for k, v in opts.items() if not k.startswith("_")})
    if not quiet:
        print(run.header(), file=file or sys.stdout, flush=True)
    return run


# --------------------------------------------------------------------------- shared inputs


def mixed_queries(n: int) -> list[str]:
    """The first ``n`` latency queries: the 270 section titles of ``../shared/corpora/demo``
    (``queries.tsv``, en/de/ja) interleaved with SciFact claims (``../shared/eval/scifact``), then the
    remaining claims. Raises SystemExit when fewer than ``n`` exist or the files are missing."""
    import csv

    demo_tsv = SHARED / "corpora" / "demo" / "queries.tsv"
    sci_jsonl = SHARED / "eval" / "scifact" / "queries.jsonl"
    if not demo_tsv.is_file() or not sci_jsonl.is_file():
        raise SystemExit(f"needs {demo_tsv} and {sci_jsonl} (the project's shared data, ../shared)")
    with open(demo_tsv, encoding="utf-8") as fh:
        demo = [r["title"] for r in csv.DictReader(fh, delimiter="\t")]
    with open(sci_jsonl, encoding="utf-8") as fh:
        sci = [json.loads(line)["text"] for line in fh if line.strip()]
    mixed = [q for pair in zip(demo, sci) for q in pair] + sci[len(demo):]
    if n > len(mixed):
        raise SystemExit(f"only {len(mixed)} queries available, asked for {n}")
    return mixed[:n]


def run_in_checkout(checkout: Path, code: str, argv: list[str], what: str) -> dict:
    """Run ``code`` (Python source printing a JSON line last) in a fresh interpreter whose
    ``PYTHONPATH`` is ``checkout``; returns its JSON plus ``process_wall_s`` (seconds, spawn to exit)
    and ``load`` (1/5/15-minute load average after it). Raises SystemExit naming ``what`` when the
    child fails. Used by ``pipeline_ab.py`` and ``ocr_ab.py``."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, *argv], env=env, cwd=checkout, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{what} with {checkout} failed:\n{proc.stderr[-3000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process_wall_s"] = round(time.perf_counter() - t0, 1)
    out["load"] = os.getloadavg()
    return out


def instruction_train_half(file: str) -> bool:
    """Whether a bench corpus file's candidate sentences are training negatives of the instruction
    classifier (half of the files, by the first byte of the SHA-1 of the name); the other half is
    held out. Used by ``train_instruction_judge.py`` (training) and ``instruction_sweep.py``
    (which reports the two halves apart)."""
    return hashlib.sha1(file.encode()).digest()[0] % 2 == 0
