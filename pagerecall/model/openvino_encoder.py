"""OpenVINO encoder: the bundled model's ``f32e8`` graph (fp32 weights, int8 word-embedding table),
inferred in bf16 on CPUs with bf16 units.

Optional (``pip install 'pagerecall[openvino]'``); chosen by ``pagerecall.model.runtimes.choose`` for
indexing only. ``OVEncoder.run`` takes a list of padded batches and runs them concurrently on
the plugin's streams (``PERFORMANCE_HINT=THROUGHPUT`` + ``AsyncInferQueue``), returning the
``last_hidden_state`` of each, in order. The compiled model is cached by OpenVINO itself in
``<cache_dir>/openvino`` (``CACHE_DIR``), so later starts skip most of the compilation.

Why bf16 on the fp32 graph and not OpenVINO on the int8 graph: see ``pagerecall.model.runtimes``; why
the int8 word table: see ``pagerecall.model.converter.QUANTIZATIONS``.
Compilation (fresh process, 2 shared cores, load 10-14): 13 s without OpenVINO's model cache,
3.6 s with it (the fp32 graph); the f32e8 graph compiles in 7-8 s uncached.
Batch independence: bf16 inference has no per-batch activation scale; a passage alone vs in a
batch of 16 gives cosine 1.00000 (``tests/test_embedding.py``).

Where the time goes (``PERF_COUNT``, one thread, a batch of 16 x 202 tokens, Intel Xeon model 207
with AMX, 2026-12-02, quiet): 772 ms per batch, 0.24 ms per token; fully connected layers 51 %
(``brgemm_avx512_amx_bf16``: the Q/K/V/output products run at ~340 GMAC/s, the FFN's at 180-280,
the exact-erf GELU being fused into the first), the attention subgraph 35 % (``Subgraph``,
``jit_avx512_bf16``: 17-19 ms per layer for 0.5 GMAC, ~30 GMAC/s: softmax over 202 keys and
products with a head size of 32), transposes, adds, layer norms and reorders the rest.
Tried and rejected, each against the same batches in one interleaved run (2 shared cores, load
2-5, CPU-ms per real token): the attention as one ``ScaledDotProductAttention`` op (the CPU plugin
decomposes it back into the same subgraph: 0.223-0.243 against 0.203-0.279); Q, K and V as one
384 x 1152 product (0.157-0.231 against 0.161-0.214, cosine 0.99997); static shapes per batch
length (0.142-0.217 against 0.157-0.202); snippets off (``SNIPPETS_MODE=DISABLE``: the attention
runs as AMX MatMuls plus a separate softmax, no faster in total). Batches of 16/24/64, the LATENCY
hint and 4 streams: no gain end to end (CHANGELOG).
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from pagerecall.model.word_table import INPUT
from pagerecall.errors import ModelError

SEQ_MULTIPLE = 8
"""Batches are right-padded (``<pad>``, mask 0) to a multiple of this many tokens.

Why: the CPU plugin keeps compiled executors per input shape (``CPU_RUNTIME_CACHE_CAPACITY``,
5,000 shapes by default), about 1 MiB each, and a build meets a new shape for nearly every
(batch size, longest passage) pair. Measured (``bench/ov_shapes.py``, 450 batches of 16
passages of 6-150 words in random order, malloc tuned as in a build, Intel Xeon with AMX):
RSS grew from 301 to 782 MiB with every length; the whole-bench build's RSS kept growing
for the hour it ran (425 to 700 MiB anonymous). Capping the cache instead (0 or 32 shapes)
held RSS at 617-626 MiB but recompiled at most shapes: +35-44 % CPU. Padding costs the
padded positions only (masked in attention and pooling)."""

log = logging.getLogger(__name__)


class OVEncoder:
    """``run(batches, pool=None)``: ``[(input_ids int64 (b, s), attention_mask int64 (b, s)), ...]`` →
    ``[last_hidden_state float32 (b, s, 384), ...]``, or ``[pool(hidden, mask), ...]`` when ``pool``
    is given: then each request's output is reduced in its completion callback, read in place
    from OpenVINO's tensor, so a call holds ``(b, 384)`` per batch instead of ``(b, s, 384)``
    (a group of 256 passages of ~200 tokens: 0.4 MB instead of ~79 MB). Thread-safe (one ``run``
    at a time).

    ``preferred_batch`` = 16: half the activations of batches of 32 on each of the plugin's
    streams, at the same speed (``embed_passages`` on 512 bench passages, interleaved, Intel Xeon
    with AMX, 2 cores, load 14: CPU 18.3-26.0 s at 32 against 19.1-23.8 s at 16; a bare
    THROUGHPUT session measured 0.135-0.148 CPU-ms per token at 16 against 0.177-0.183 at 32).

    Raises ``ModelError`` when OpenVINO is missing or cannot compile the graph.
    """

    name = "openvino"
    batch_invariant = True
    preferred_batch = 16

    @property
    def seq_multiple(self) -> int:
        """Batches are padded to a multiple of this many tokens (:data:`SEQ_MULTIPLE`)."""
        return SEQ_MULTIPLE

    def __init__(self, model_path: Path, cache_dir: Path | None = None, threads: int | None = None,
                 precision: str = "bf16", table: Any | None = None) -> None:
        self.table = table  # pagerecall.model.word_table.WordTable when model_path is the split graph
        try:
            import openvino as ov
        except ImportError as exc:
            raise ModelError("OpenVINO is not installed. Next: pip install 'pagerecall[openvino]'") from exc
        self.version = ov.__version__
        core = ov.Core()
        config = {"PERFORMANCE_HINT": "THROUGHPUT", "INFERENCE_PRECISION_HINT": precision}
        if threads:
            config["INFERENCE_NUM_THREADS"] = int(threads)
        if cache_dir is not None:
            try:
                Path(cache_dir).mkdir(parents=True, exist_ok=True)
                core.set_property({"CACHE_DIR": str(cache_dir)})
            except (OSError, RuntimeError) as exc:  # read-only cache: compile every time
                log.info("OpenVINO model cache unavailable at %s: %s", cache_dir, exc)
        try:
            self._compiled = core.compile_model(str(model_path), "CPU", config)
        except Exception as exc:
            raise ModelError(f"OpenVINO cannot compile {model_path}: {exc!r}. "
                             "Next: set PAGERECALL_RUNTIME=onnxruntime") from exc
        prec = self._compiled.get_property("INFERENCE_PRECISION_HINT")
        self.precision = prec.to_string() if hasattr(prec, "to_string") else str(prec)
        self.streams = int(self._compiled.get_property("NUM_STREAMS"))
        self._queue = ov.AsyncInferQueue(self._compiled)
        self._lock = threading.Lock()
        log.info("OpenVINO %s: %s inference, %d streams", self.version, self.precision, self.streams)

    def run(self, batches: Sequence[tuple[np.ndarray, np.ndarray]],
            pool: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None) -> list[np.ndarray]:
        out: list[np.ndarray | None] = [None] * len(batches)

        def done(request, k: int) -> None:
            hidden = request.get_output_tensor(0).data  # a view of the request's buffer, reused
            ids, mask = batches[k]
            hidden = hidden[:, : ids.shape[1]]  # the padding of pad_to_multiple dropped
            out[k] = hidden.copy() if pool is None else pool(hidden, mask)

        with self._lock:
            self._queue.set_callback(done)
            for k, (ids, mask) in enumerate(batches):
                ids, mask = pad_to_multiple(ids, mask, SEQ_MULTIPLE)
                first = {"input_ids": ids} if self.table is None else {INPUT: self.table.lookup(ids)}
                self._queue.start_async({**first, "attention_mask": mask}, k)
            self._queue.wait_all()
        if any(o is None for o in out):
            raise ModelError("OpenVINO returned no output for a batch. Next: set PAGERECALL_RUNTIME=onnxruntime")
        return out  # type: ignore[return-value]


def pad_to_multiple(ids: np.ndarray, mask: np.ndarray, multiple: int) -> tuple[np.ndarray, np.ndarray]:
    """Right-pad int64 ``(b, s)`` ``ids`` with ``<pad>`` and ``mask`` with 0 to ``(b, s')``, ``s'``
    the next multiple of ``multiple`` (``s`` itself when it is one). See :data:`SEQ_MULTIPLE`."""
    from pagerecall.model.tokenization import PAD_ID

    extra = -ids.shape[1] % multiple
    if not extra:
        return ids, mask
    pad = ((0, 0), (0, extra))
    return np.pad(ids, pad, constant_values=PAD_ID), np.pad(mask, pad, constant_values=0)
