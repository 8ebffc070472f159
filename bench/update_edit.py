#!/usr/bin/env python3
"""The cost of a one-page edit: ``python bench/update_edit.py PDF --before DIR --after DIR [--page N] [--rounds R]``.

Builds an index of a corpus holding ``PDF`` alone (with the ``--after`` checkout), edits page ``--page``
(1-based) with PyMuPDF (a sentence added, as an editor would save it), then runs ``update`` on a copy
of that index with each checkout in a fresh child process whose ``PYTHONPATH`` is the checkout,
alternating before/after ``--rounds`` times (load from other jobs falls on both alike). Per update:
wall seconds, CPU seconds (``getrusage``), peak RSS, passages embedded and the report's
``chunks_reused``. Prints the suite's header (CPU, ISA, load, commit, settings: ``bench/_suite.py``), then JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import _suite as suite
from _suite import machine_info

CHILD = r"""
import dataclasses, json, resource, sys, time
from pathlib import Path
from pagerecall.ingest import pipeline as indexing
from pagerecall.config import Settings
s = dataclasses.replace(Settings.from_env(), index_dir=Path(sys.argv[2]), corpus_root=None, ocr="off")
t0 = time.perf_counter()
r = indexing.build(s, Path(sys.argv[1])) if sys.argv[3] == "build" else indexing.update(s)
wall = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_SELF)
d = r.to_dict()
print(json.dumps({"wall_s": round(wall, 2), "cpu_s": round(ru.ru_utime + ru.ru_stime, 2),
                  "peak_rss_mib": round(ru.ru_maxrss / 1024), "embedded": d["chunks_embedded"],
                  "reused": d.get("chunks_reused"), "total": d["chunks_total"], "delta": {k: d["delta"].get(k) for k in ("changed", "added", "deleted")}}))
"""


def _child(checkout: Path, corpus: Path, index: Path, op: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    out = subprocess.run([sys.executable, "-c", CHILD, str(corpus), str(index), op], env=env, cwd=checkout,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _edit(path: Path, page: int) -> None:
    import pymupdf

    with pymupdf.open(path) as doc:
        doc[page - 1].insert_text((72, 60), "An added sentence about font maps and their installation.", fontsize=9)
        doc.save(path.with_suffix(".tmp"))
    path.with_suffix(".tmp").replace(path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pdf", type=Path)
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--after", type=Path, required=True)
    ap.add_argument("--page", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=1)
    a = ap.parse_args(argv)
    record = suite.start(__file__, a, suite.bench_settings(ocr="off"))
    work = Path(tempfile.mkdtemp(prefix="update-edit-"))
    corpus = work / "corpus"
    corpus.mkdir()
    shutil.copy2(a.pdf, corpus / a.pdf.name)
    built = _child(a.after, corpus, work / "index", "build")
    _edit(corpus / a.pdf.name, a.page)
    runs = []
    for r in range(a.rounds):
        for which, checkout in (("before", a.before), ("after", a.after)):
            idx = work / f"index-{which}-{r}"
            shutil.copytree(work / "index", idx, symlinks=True)
            runs.append({"which": which, "round": r, **_child(checkout, corpus, idx, "update")})
            shutil.rmtree(idx)
            print(json.dumps(runs[-1]), file=sys.stderr)
    shutil.rmtree(work)
    print(json.dumps({"machine": machine_info(), "pdf": str(a.pdf), "page": a.page, "build": built, "runs": runs},
                     indent=1))
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
