"""OpenVINO encoder: the bundled model's ``f32e8`` graph (fp32 weights, int8 word-embedding table),
inferred in bf16 on CPUs with bf16 units.

Installed with pagerecall on x86-64 Linux and Windows (``pyproject.toml``); chosen by ``pagerecall.model.runtimes.choose`` for
indexing only. ``OVEncoder.run`` takes a list of padded batches and runs them concurrently on
the plugin's streams (``PERFORMANCE_HINT=THROUGHPUT`` + ``AsyncInferQueue``), returning the
``last_hidden_state`` of each, in order. The compiled model is cached by OpenVINO itself in
``<cache_dir>/openvino`` (``CACHE_DIR``), so later starts skip most of the compilation.

Compilation takes seconds; OpenVINO's model cache makes later starts shorter. bf16 inference has
no per-batch activation scale: a passage alone and in a batch give the same vector.
Why: docs/decisions/openvino-encoder.md (the profile, the graph rewrites rejected, the batch size);
why OpenVINO bf16 at all: docs/decisions/embedding-runtime.md.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from pagerecall.model.word_table import INPUT
from pagerecall.errors import ModelError

SEQ_MULTIPLE = 16
"""Batches are right-padded (``<pad>``, mask 0) to a multiple of this many tokens.

The CPU plugin keeps a compiled executor (about 1 MiB) per input shape; padding bounds the shapes
a build meets, at the cost of the padded positions only (masked in attention and pooling). 16, not
8: an AMX tile holds 16 rows, and with sequences padded to 8 a passage's vector depended on its batch
mates on an Intel Xeon with AMX (70 of 96 passages bit-equal to the passage embedded alone; 96/96 at
16, 32 and 64), so an update's reused and new vectors differed from a fresh build's.
Why: docs/decisions/openvino-padding.md."""

log = logging.getLogger(__name__)


class OVEncoder:
    """``run(batches, pool=None)``: ``[(input_ids int64 (b, s), attention_mask int64 (b, s)), ...]`` →
    ``[last_hidden_state float32 (b, s, 384), ...]``, or ``[pool(hidden, mask), ...]`` when ``pool``
    is given: then each request's output is reduced in its completion callback, read in place
    from OpenVINO's tensor, so a call holds ``(b, 384)`` per batch instead of ``(b, s, 384)``
    (a group of 256 passages of ~200 tokens: 0.4 MB instead of ~79 MB). Thread-safe (one ``run``
    at a time).

    ``preferred_batch`` = 16 passages: half the activations of batches of 32 on each of the
    plugin's streams, at the same speed. Why: docs/decisions/openvino-encoder.md.

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
            from pagerecall.model.runtimes import import_openvino

            ov = import_openvino()
        except ImportError as exc:
            raise ModelError("OpenVINO is not installed. Next: pip install 'openvino==2026.4.*'") from exc
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
            try:
                for k, (ids, mask) in enumerate(batches):
                    ids, mask = pad_to_multiple(ids, mask, SEQ_MULTIPLE)
                    first = {"input_ids": ids} if self.table is None else {INPUT: self.table.lookup(ids)}
                    self._queue.start_async({**first, "attention_mask": mask}, k)
            finally:  # Ctrl-C between two start_async: the requests in flight end before this returns.
                # Before, their callbacks ran in OpenVINO's threads while the interpreter shut down
                # ("FATAL: exception not rethrown", SIGABRT; tests/ingest/test_interrupt_exit.py).
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


def open_encoder(model_dir: Path, cache_dir: Path, threads: int | None) -> Any:
    """An ``OVEncoder`` on the split ``f32e8`` graph and its word table (``pagerecall.model.word_table``:
    -82 to -93 MB RSS after compiling and running, outputs bit-identical), else on the full graph."""
    from pagerecall.model import word_table as _wordtable
    from pagerecall.model.tokenization import pad_batch
    from pagerecall.model.runtimes import openvino_installed

    split = _wordtable.ensure_split(model_dir) if openvino_installed() else None
    if split is not None:
        try:
            encoder = OVEncoder(split / "model.onnx", cache_dir, threads, table=_wordtable.WordTable(split))
            encoder.run([pad_batch([[0, 2]])])  # the table and the graph fit together, or fall back now
            return encoder
        except (ModelError, OSError, ValueError, IndexError, RuntimeError) as exc:  # a damaged split folder
            log.warning("The split graph in %s does not load (%r); running the full graph", split, exc)
    return OVEncoder(model_dir / "model.onnx", cache_dir, threads)
