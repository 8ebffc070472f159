"""Where the embedder's CPU goes: the model inside pagerecall against a bare onnxruntime session.

Usage::

    python bench/embed_overhead.py [--n 256] [--rounds 3] [--compete]

Issue 23 measured the model inside pagerecall at ~0.29 CPU-ms per token against ~0.22 for a bare
onnxruntime session on the same int8 graph. This probe runs, interleaved in one process on the
same passages (real text: the first pages of the Debian New Maintainers' Guide in ../shared, or
``--text FILE``, cut into passages of about 188 tokens, the mean passage of a maint-guide index):

``bare``          ``InferenceSession(model.onnx)`` with default options (CPU arena on, spinning on),
                  on batches tokenised and padded beforehand: the issue's reference.
``bare-noarena``  the same with ``enable_cpu_mem_arena=False`` (pagerecall's setting until now).
``bare-nospin``   default options but ``session.intra_op.allow_spinning=0`` (idle threads sleep).
``session``       pagerecall's session (``_bundled.open_session``) on the same padded batches.
``embed``         ``BundledEmbedder.embed_passages``: tokenise, sort by length, pad, run, pool.
``openvino``      the same through OpenVINO bf16 on the f32e8 graph (needs ``pagerecall[openvino]``).

Each variant reports CPU-ms per *real* token (prefix and special tokens counted, padding not;
CPU of every thread of the process: ``getrusage``), the padding share, and wall passages/s.
With ``--compete`` a second thread extracts PDF text (PyMuPDF, the work indexing overlaps
with embedding) while each variant runs; its own CPU (``/proc/self/task/TID/stat``) is
subtracted, so the figure is the model's CPU under contention for the 2 cores.
``--profile`` prints a cProfile of ``embed`` (Python-side costs).
GMAC/s per core: 22.4 M multiply-adds per token (issue 23's arithmetic) / CPU-ms per token.

Findings (issue 23: 0.29 CPU-ms/token inside pagerecall vs 0.22 bare)
    Two interleaved runs (without, then with a competing thread), 128 passages of maint-guide
    en (mean 206 tokens, batch 32), int8 graph, CPU of all threads per real token, min-max of 2
    rounds, Intel Xeon (AMX) with 2 cores shared with other jobs at load 12-24 (so absolute
    figures are 2-3x the quiet ones; compare within a run):
    bare session, default options 0.652-0.664; the same with the arena off 0.700-0.738
    (+7-11 %); with spinning off 0.535-0.592 (-10 to -18 %); pagerecall's session 0.696-0.714;
    ``embed_passages`` 0.713-0.716 (+2 % over its session: tokenising, sorting, padding and
    pooling; cProfile: ``encode_batch`` 31 ms and pooling 25 ms of 11.6 s). With a thread
    extracting PDF text meanwhile (its CPU subtracted): bare 0.589-0.758, spinning off
    0.519-0.573. Padding: 1.9 % of the tokens run on the demo index (files embedded one by one;
    1.6 % batched across files). So Python and padding cost ~2 % each, the disabled arena 7-11 % (in
    this run; within the noise across processes, below),
    and onnxruntime's spinning threads 10-25 % when another thread (extraction, chunking, other
    jobs) wants the second core; the issue's 0.29 is wall-derived (2 cores x wall / token), which
    on a shared machine also counts time the model waited for a core.
    Taken: indexing sessions (``open_session(passages=True)``) do not spin.
    Rejected: the arena for indexing. One process per variant, interleaved, 2 rounds (load
    20-26), the same 128 passages run twice: RSS after the runs +1,085 MB over the session's
    start against +137-204 MB without it, peak RSS 1,628-1,635 MB against 1,321-1,347 MB, page
    faults per run 22 k against 91 k, CPU 0.69-0.71 against 0.62-0.78 CPU-ms/token (within the
    noise at that load). The build's peak RSS must not grow (issue 23). Spinning off for
    queries: not taken (one short run each: latency matters there, not CPU).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import threading
import time
from pathlib import Path

import _suite as suite

ROOT = suite.ROOT

MACS_PER_TOKEN = 22.4e6
"""multilingual-e5-small: 12 x (4 x 384^2 + 2 x 384 x 1536) + ~1.2 M attention at 128 tokens (issue 23)."""
SHARED = suite.SHARED
PDF = SHARED / "corpora" / "demo" / "maint-guide.en.pdf"


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _thread_cpu(tid: int) -> float:
    try:
        fields = Path(f"/proc/self/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def passages(tokenizer, n: int, text_file: Path | None, target: int = 188) -> list[str]:
    """``n`` passages of about ``target`` tokens (with prefix and specials) cut from real text."""
    if text_file:
        words = text_file.read_text(encoding="utf-8", errors="replace").split()
    else:
        import pymupdf

        with pymupdf.open(PDF) as doc:
            words = " ".join(doc[i].get_text() for i in range(min(60, doc.page_count))).split()
    out, i = [], 0
    while len(out) < n:
        k = 100
        while k < 400:
            text = " ".join(words[i % len(words): i % len(words) + k])
            if tokenizer.count(text, with_overhead=True) >= target:
                break
            k += 10
        out.append(text)
        i += k
    return out


class Competitor:
    """A thread extracting PDF text in a loop (what indexing overlaps with embedding)."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.tid = 0
        self.t = threading.Thread(target=self.work, daemon=True, name="compete")

    def work(self) -> None:
        import pymupdf

        self.tid = threading.get_native_id()
        while not self.stop.is_set():
            with pymupdf.open(PDF) as doc:
                for page in doc:
                    if self.stop.is_set():
                        return
                    page.get_text()

    def __enter__(self) -> "Competitor":
        self.t.start()
        while not self.tid:
            time.sleep(0.01)
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.t.join()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=256, help="passages per variant and round")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--text", type=Path, help="a long text file (default: maint-guide en from ../shared)")
    ap.add_argument("--compete", action="store_true", help="extract PDF text in a second thread meanwhile")
    ap.add_argument("--profile", action="store_true", help="cProfile one embed_passages call")
    ap.add_argument("--variants", default="bare,bare-noarena,bare-nospin,session,embed")
    a = ap.parse_args(argv)

    import onnxruntime as ort

    from pagerecall.model import bundled as _bundled
    from pagerecall.config import Settings
    from pagerecall.model.embedding import load_embedder

    import dataclasses

    settings = dataclasses.replace(Settings.from_env(), runtime="onnxruntime")  # the int8 graph
    record = suite.start(__file__, a, settings)
    emb = load_embedder(settings, purpose="index")
    texts = passages(emb.tokenizer, a.n, a.text)
    ids = [e.ids for e in emb._passage_tok.encode_batch([emb.passage_prefix + t for t in texts])]
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    batches = [_bundled.pad_batch([ids[i] for i in order[j:j + a.batch]]) for j in range(0, len(ids), a.batch)]
    real = sum(len(x) for x in ids)
    padded = sum(int(m.size) for _, m in batches)
    model = emb.model_dir / "model.onnx"

    def bare(arena: bool, spin: bool = True):
        so = ort.SessionOptions()
        so.enable_cpu_mem_arena = arena
        if not spin:
            so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        s = ort.InferenceSession(str(model), so, providers=["CPUExecutionProvider"])
        return lambda: [s.run(None, {"input_ids": i, "attention_mask": m}) for i, m in batches]

    runs = {
        "bare": bare(True),
        "bare-noarena": bare(False),
        "bare-nospin": bare(True, spin=False),
        "session": lambda: [emb.encoder.session.run(None, {"input_ids": i, "attention_mask": m}) for i, m in batches],
        "embed": lambda: emb.embed_passages(texts, batch_size=a.batch),
    }
    if "openvino" in a.variants:
        ov = load_embedder(dataclasses.replace(settings, runtime="openvino"), purpose="index")
        runs["openvino"] = lambda: ov.embed_passages(texts, batch_size=a.batch)
    chosen = [v for v in a.variants.split(",") if v]
    for v in chosen:
        runs[v]()  # warm-up (first-run allocations, lazy tokenizer)
    if a.profile:
        import cProfile
        import pstats

        pr = cProfile.Profile()
        pr.enable()
        runs["embed"]()
        pr.disable()
        pstats.Stats(pr, stream=sys.stderr).sort_stats("tottime").print_stats(12)
    res: dict[str, list[tuple[float, float]]] = {v: [] for v in chosen}
    for _ in range(a.rounds):
        for v in chosen:
            with (Competitor() if a.compete else _Null()) as comp:
                c_other = _thread_cpu(comp.tid) if a.compete else 0.0
                c0, t0 = _cpu(), time.perf_counter()
                runs[v]()
                wall = time.perf_counter() - t0
                cpu = _cpu() - c0 - ((_thread_cpu(comp.tid) - c_other) if a.compete else 0.0)
            res[v].append((cpu, wall))
    print(f"{a.n} passages, mean {real / a.n:.0f} tokens, batch {a.batch}; padding {100 * (padded - real) / padded:.1f} % "
          f"of the tokens run; onnxruntime {ort.__version__}; graph {emb.model_dir.name}; "
          f"{'with' if a.compete else 'without'} a competing extraction thread; {a.rounds} rounds")
    cores = os.cpu_count() or 1
    print(f"| variant | CPU-ms/token (min-max) | GMAC/s per core | passages/s wall (min-max) | {cores} cores x wall / token, ms |")
    print("|---|---|---|---|---|")
    for v in chosen:
        ms = [1000 * c / real for c, _ in res[v]]
        ps = [a.n / w for _, w in res[v]]
        gmac = MACS_PER_TOKEN / (min(ms) / 1000) / 1e9
        wall_ms = [1000 * cores * w / real for _, w in res[v]]
        print(f"| {v} | {min(ms):.3f}-{max(ms):.3f} | {gmac:.0f} | {min(ps):.1f}-{max(ps):.1f} | "
              f"{min(wall_ms):.3f}-{max(wall_ms):.3f} |")
    record.end()
    return 0


class _Null:
    tid = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


if __name__ == "__main__":
    sys.exit(main())
