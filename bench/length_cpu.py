#!/usr/bin/env python3
"""The int8 model's CPU for the same text at several passage lengths, interleaved: ``python bench/length_cpu.py``.

What ``bench/passage_length.py`` cannot say (its lengths are built one after the other, so their
seconds are not comparable on a shared machine): what the model costs for *the same text* chunked
at each length, measured in one process, the lengths interleaved.

Text (``--corpus``): ``demo`` = pages ``--pages`` (physical, 1-based, inclusive) of maint-guide en,
de and ja (../shared/corpora/demo; OCR off), each PDF one file; ``scifact`` = ``--scifact-docs``
abstracts drawn (seed 0) from the SciFact set ``bench/eval.py --scifact-docs 1000`` indexes, each
its own ``.txt`` file as there (one file per document, ``title\\n\\ntext``).

For each length N (``--max-tokens``, tokens of the model's tokenizer) the chunk parameters of
``bench/passage_length.py``: ``N / N//5 / min(32, N//5)`` (200 gives the default 200/40/32). Each
file is chunked once by pagerecall's chunker (``pagerecall.ingest.chunking.chunk_document``), then
embedded by the embed loop a build runs (``pagerecall.ingest.embed_loop.EmbedLoop``, no cache):
int8 on onnxruntime through the indexing session (attention passage by passage, arena on), a
file's distinct passages sorted by length and cut where the texts say
(``pagerecall.ingest.batches.cut_batches``), the chunker's token ids handed to the model, the
batches in the build's lanes (``pagerecall.ingest.lanes``: one per core, one intra-op thread each). Each
round embeds every length once on the same text, the order reversed every other round. Measured:
the process's CPU (``getrusage``: user + system, all threads) and wall per length and corpus;
tokens computed = the embed loop's count (each passage's tokens + prefix and special tokens,
times the longest in its batch: padding included).

Printed: per round, CPU-s and CPU-ms per token computed; then per corpus and length the
passages, text tokens, tokens computed, and the median (min-max) over rounds of the ratio to
``--base`` of (a) CPU for the whole text, (b) CPU per token computed. Only ratios count on a
shared machine: state the CPU and the load (the suite's header and footer) with them.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import _suite as suite

SHARED = suite.SHARED
DEMO_PDFS = [SHARED / "corpora" / "demo" / f"maint-guide.{lang}.pdf" for lang in ("en", "de", "ja")]


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def chunk_params(n: int):
    """``bench/passage_length.py``'s chunk parameters for ``n`` tokens (``ChunkParams``)."""
    from pagerecall.config import ChunkParams

    return ChunkParams(n, n // 5, min(32, n // 5))


def demo_documents(pages: tuple[int, int]) -> list:
    """maint-guide en/de/ja (OCR off) cut to physical pages ``pages[0]..pages[1]``: ``Document`` list."""
    from pagerecall.extract.sources import read_document

    docs = []
    for path in DEMO_PDFS:
        doc = read_document(path, path.name, ocr="off")
        docs.append(dataclasses.replace(doc, pages=tuple(p for p in doc.pages if pages[0] <= p.number <= pages[1])))
    return docs


def scifact_documents(n: int, folder: Path) -> list:
    """``n`` abstracts (seed 0) of ``bench/eval.py``'s SciFact-1000 set, each written to ``folder``
    as its own ``.txt`` and read back by pagerecall's text reader: ``Document`` list."""
    from eval import load_beir

    from pagerecall.extract.sources import read_document

    corpus, _ = load_beir("scifact", SHARED / "eval" / "scifact", max_docs=1000)
    names = sorted(random.Random(0).sample(sorted(corpus.docs), min(n, len(corpus.docs))))
    docs = []
    for name in names:
        path = folder / name
        path.write_text(corpus.docs[name], encoding="utf-8")
        docs.append(read_document(path, name))
    return docs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max-tokens", default="160,200", help="comma list of passage lengths in tokens")
    ap.add_argument("--base", type=int, default=200, help="the length the others are compared with")
    ap.add_argument("--corpus", default="demo,scifact", help="comma list of demo, scifact")
    ap.add_argument("--pages", default="11-22", help="physical pages A-B of each maint-guide PDF (demo)")
    ap.add_argument("--scifact-docs", type=int, default=120, help="SciFact abstracts (scifact)")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    a = ap.parse_args(argv)
    lengths = [int(x) for x in a.max_tokens.split(",") if x]
    if a.base not in lengths:
        ap.error(f"--base {a.base} is not among --max-tokens {a.max_tokens}")
    corpora = [c for c in a.corpus.split(",") if c]
    if bad := [c for c in corpora if c not in ("demo", "scifact")]:
        ap.error(f"unknown corpus {', '.join(bad)}: choose demo, scifact")
    if not SHARED.is_dir():
        ap.error(f"{SHARED} not found: the text comes from the project's ../shared folder")
    lo, hi = (int(x) for x in a.pages.split("-"))

    from pagerecall.config import Settings
    from pagerecall.ingest.chunking import chunk_document
    from pagerecall.ingest.embed_loop import EmbedLoop
    from pagerecall.ingest.preparing import Prepared
    from pagerecall.memory import tune_for_writes
    from pagerecall.model.embedding import load_embedder

    settings = dataclasses.replace(Settings.from_env(), runtime="onnxruntime")
    run = suite.start(__file__, a, settings)
    tune_for_writes()  # as a build, before the model's threads allocate
    emb = load_embedder(settings, purpose="index")
    tune_for_writes(getattr(getattr(emb, "encoder", None), "name", ""))

    prepared: dict[tuple[str, int], list] = {}
    with tempfile.TemporaryDirectory() as tmp:
        docs = {"demo": demo_documents((lo, hi)) if "demo" in corpora else [],
                "scifact": scifact_documents(a.scifact_docs, Path(tmp)) if "scifact" in corpora else []}
    for c in corpora:
        for n in lengths:
            prepared[c, n] = [Prepared(d.path, {}, chunk_document(d, emb.tokenizer, chunk_params(n))) for d in docs[c]]
    info = {}
    for (c, n), files in prepared.items():
        info[f"{c}/{n}"] = {"files": len(files), "passages": sum(len(p.chunks) for p in files),
                            "text_tokens": sum(ch.n_tokens for p in files for ch in p.chunks)}
    # one warm-up pass per corpus (first runs of each shape pay onnxruntime's planning), not counted
    for c in corpora:
        warm = EmbedLoop(emb, None, lambda *_: None)
        warm.vectors(prepared[c, lengths[0]][:3])
        getattr(warm, "close", lambda: None)()

    cpu: dict[str, list[float]] = {k: [] for k in info}
    wall: dict[str, list[float]] = {k: [] for k in info}
    for r in range(a.rounds):
        order = [(c, n) for c in corpora for n in (lengths if r % 2 == 0 else lengths[::-1])]
        cells = []
        for c, n in order:
            loop = EmbedLoop(emb, None, lambda *_: None)
            c0, w0 = _cpu(), time.perf_counter()
            loop.vectors(prepared[c, n])
            cpu[f"{c}/{n}"].append(_cpu() - c0)
            wall[f"{c}/{n}"].append(time.perf_counter() - w0)
            getattr(loop, "close", lambda: None)()  # its lanes' threads (pagerecall.ingest.lanes)
            info[f"{c}/{n}"]["tokens_computed"] = loop.stats.tokens
            cells.append(f"{c}/{n} {cpu[f'{c}/{n}'][-1]:.2f} CPU-s "
                         f"({1000 * cpu[f'{c}/{n}'][-1] / loop.stats.tokens:.3f} ms/token)")
        print(f"# round {r + 1}: " + ", ".join(cells) + "; load " + " ".join(f"{x:.2f}" for x in os.getloadavg()),
              flush=True)

    print("\n| text | length | files | passages | text tokens | tokens computed | CPU-s per round (median) | "
          f"CPU for the text / {a.base} (median, min-max) | CPU per token computed / {a.base} |")
    print("|---|---|---|---|---|---|---|---|---|")
    out = {"rounds": a.rounds, "lengths": lengths, "base": a.base, "cells": {}}
    for c in corpora:
        base = cpu[f"{c}/{a.base}"]
        tb = info[f"{c}/{a.base}"]["tokens_computed"]
        for n in lengths:
            k = f"{c}/{n}"
            t = info[k]["tokens_computed"]
            ratios = [x / b for x, b in zip(cpu[k], base)]
            per_tok = [x * tb / (b * t) for x, b in zip(cpu[k], base)]
            print(f"| {c} | {n} | {info[k]['files']} | {info[k]['passages']:,} | {info[k]['text_tokens']:,} | {t:,} | "
                  f"{statistics.median(cpu[k]):.2f} | {statistics.median(ratios):.3f} ({min(ratios):.3f}-"
                  f"{max(ratios):.3f}) | {statistics.median(per_tok):.3f} ({min(per_tok):.3f}-{max(per_tok):.3f}) |")
            out["cells"][k] = {**info[k], "cpu_s": [round(x, 3) for x in cpu[k]], "wall_s": [round(x, 3) for x in wall[k]],
                               "ratio_text_median": round(statistics.median(ratios), 4),
                               "ratio_per_token_median": round(statistics.median(per_tok), 4)}
    if a.json:
        a.json.write_text(json.dumps({"run": run.as_dict(), **out}, indent=1) + "\n", encoding="utf-8")
    run.end()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PAGERECALL_RUNTIME", "onnxruntime")
    raise SystemExit(main())
