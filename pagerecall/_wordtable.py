"""The word-embedding table read from a file per query instead of held in the onnxruntime session.

Why (issue 13, footprint): the bundled graphs' 250,002 x 384 word-embedding table is most of each
graph (int8 graph: 96.0 of 117.8 MB; ``q4f32``: 51.0 of 74.3 MB; ``fp32``: 384 of 470 MB), and
onnxruntime copies it onto the heap, although a query reads a few dozen of its rows. Here the
``Gather`` (and the int8 graph's ``DequantizeLinear``) is cut out of the graph; the graph takes the
gathered rows as its input ``emb_word`` float32 ``(batch, seq, 384)``, and :class:`WordTable`
reads the rows a batch uses from ``word-table.bin`` with ``os.pread``: the rows sit in the page
cache, not in the process's RSS, and a build's batches read a few thousand rows each.

Arithmetic: the rows are de-quantised exactly as onnxruntime's kernels do it, so the hidden states
are bit-identical to the full graph's (``tests/test_wordtable.py``, every bundled graph):

* ``int8`` (``quantize_dynamic``): uint8 codes, one scale and zero point for the whole table:
  ``float32(q - zero_point) * scale``.
* ``q4`` / ``q4f32`` (``GatherBlockQuantized``, 4 bits, blocks of 32 along the row): nibble ``2i`` in
  the low and ``2i+1`` in the high half of byte ``i``: ``float32(nibble - 8) * scale[block]``.
* ``fp32``: the rows as stored.

Measured (a fresh process, one query of 24 tokens then 30 more, onnxruntime 1.32, Intel Xeon, 2
cores, load 1-3): the int8 graph's session 158 MB anonymous RSS against 68 MB split (VmRSS 199
against 141 MB); outputs bit-identical. The split graph is written once beside ``model.onnx``
(``split/``, atomically, under the converter's lock), so an old model folder gains it on first use.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from pathlib import Path

import numpy as np

from .errors import ModelError

log = logging.getLogger(__name__)

SPLIT_VERSION = "1"
"""Bump when the split graph or the table file changes: they are then rewritten."""
INPUT = "emb_word"
"""Name of the gathered rows in the bundled graphs, and the split graph's new input."""
_TABLES = {"word_embeddings_quantized": "uint8", "word_q4": "q4", "word_embeddings": "fp32"}


class WordTable:
    """Rows of a word-embedding table in ``word-table.bin`` (see the module docstring).

    ``lookup(ids)``: int64 ``(batch, seq)`` token ids → float32 ``(batch, seq, dim)``, each row
    de-quantised as onnxruntime's kernel does. Thread-safe (``os.pread`` has no file position).

    Raises ``ModelError`` when the table file is missing or shorter than its meta says, and
    ``IndexError`` for an id outside ``[0, rows)``.
    """

    def __init__(self, folder: Path) -> None:
        folder = Path(folder)
        meta = json.loads((folder / "word-table.json").read_text())
        self.kind: str = meta["kind"]
        self.rows: int = int(meta["rows"])
        self.dim: int = int(meta["dim"])
        self.row_bytes: int = int(meta["row_bytes"])
        self.scale = np.float32(meta.get("scale", 1.0))
        self.zero_point = int(meta.get("zero_point", 0))
        self.block = int(meta.get("block", 0))
        path = folder / "word-table.bin"
        try:
            self._fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            raise ModelError(f"Cannot open {path}: {exc}. Next: delete {folder} so it is written again") from exc
        if os.fstat(self._fd).st_size != self.rows * self.row_bytes:
            os.close(self._fd)
            raise ModelError(f"{path} is truncated. Next: delete {folder} so it is written again")
        self._closed = threading.Event()

    def _read(self, ids: np.ndarray) -> bytes:
        rb = self.row_bytes
        return b"".join(os.pread(self._fd, rb, int(i) * rb) for i in ids)

    def lookup(self, ids: np.ndarray) -> np.ndarray:
        ids = np.asarray(ids, dtype=np.int64)
        if ids.size and (ids.min() < 0 or ids.max() >= self.rows):
            raise IndexError(f"token id outside [0, {self.rows})")
        uniq, inverse = np.unique(ids, return_inverse=True)
        raw = np.frombuffer(self._read(uniq), dtype=np.uint8).reshape(len(uniq), self.row_bytes)
        rows = self._dequantise(raw)
        return rows[inverse.reshape(ids.shape)]

    def _dequantise(self, raw: np.ndarray) -> np.ndarray:
        if self.kind == "fp32":
            return raw.view(np.float32)
        if self.kind == "uint8":
            return (raw.astype(np.int32) - self.zero_point).astype(np.float32) * self.scale
        # q4: per row, dim/2 bytes of nibbles then dim/block float32 scales
        half = self.dim // 2
        packed = raw[:, :half]
        scales = raw[:, half:].copy().view(np.float32)  # (n, dim / block)
        q = np.empty((len(raw), self.dim), dtype=np.int32)
        q[:, 0::2] = packed & 0x0F
        q[:, 1::2] = packed >> 4
        w = (q - 8).astype(np.float32).reshape(len(raw), -1, self.block)
        return (w * scales[:, :, None]).reshape(len(raw), self.dim)

    def close(self) -> None:
        if not self._closed.is_set():
            self._closed.set()
            os.close(self._fd)

    def __del__(self) -> None:  # pragma: no cover - interpreter shutdown order
        with contextlib.suppress(OSError, AttributeError):
            self.close()


def split_dir(model_dir: Path) -> Path:
    """Where the split graph and the table of ``model_dir`` live."""
    return Path(model_dir) / "split"


def _complete(folder: Path) -> bool:
    try:
        meta = json.loads((folder / "word-table.json").read_text())
    except (OSError, ValueError):
        return False
    return meta.get("version") == SPLIT_VERSION and (folder / "model.onnx").is_file() and (folder / "word-table.bin").is_file()


def ensure_split(model_dir: Path) -> Path | None:
    """Return the folder holding ``model.onnx`` (the split graph), ``word-table.bin`` and
    ``word-table.json`` for ``model_dir/model.onnx``, writing them first if needed (once; under a
    file lock; atomically). Returns ``None`` when the graph has no recognised word table (the
    caller then runs the full graph) or the folder cannot be written (read-only cache).
    """
    model_dir = Path(model_dir)
    dest = split_dir(model_dir)
    if _complete(dest):
        return dest
    from filelock import FileLock

    try:
        with FileLock(str(model_dir / ".split.lock")):
            if _complete(dest):
                return dest
            return _write_split(model_dir, dest)
    except OSError as exc:
        log.info("Cannot write the split graph in %s (%s); the full graph runs", dest, exc)
        return None


def _write_split(model_dir: Path, dest: Path) -> Path | None:
    import shutil
    import tempfile

    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(str(model_dir / "model.onnx"))
    g = model.graph
    gather = next((n for n in g.node if n.name == INPUT), None)
    inits = {t.name: t for t in g.initializer}
    if gather is None or gather.input[0] not in _TABLES or gather.input[0] not in inits:
        log.info("No word table to split in %s", model_dir)
        return None
    kind = _TABLES[gather.input[0]]
    table = numpy_helper.to_array(inits[gather.input[0]])
    remove = [gather]
    meta: dict = {"version": SPLIT_VERSION, "kind": kind, "rows": int(table.shape[0])}
    if kind == "uint8":
        dq = next(n for n in g.node if n.op_type == "DequantizeLinear" and n.input[0] == gather.output[0])
        if dq.output[0] != INPUT:
            return None
        meta["scale"] = float(numpy_helper.to_array(inits[dq.input[1]]))
        meta["zero_point"] = int(numpy_helper.to_array(inits[dq.input[2]]))
        if np.float32(meta["scale"]) != numpy_helper.to_array(inits[dq.input[1]]):
            return None
        remove.append(dq)
        meta["dim"] = int(table.shape[1])
        rows = table.astype(np.uint8, copy=False)
    elif kind == "q4":
        attrs = {a.name: helper.get_attribute_value(a) for a in gather.attribute}
        if attrs.get("bits", 4) != 4 or attrs.get("quantize_axis") != 1 or len(gather.input) != 3:
            return None
        scales = numpy_helper.to_array(inits[gather.input[2]]).astype(np.float32)
        meta["block"] = int(attrs["block_size"])
        meta["dim"] = int(table.shape[1]) * 2
        rows = np.concatenate([table.astype(np.uint8), scales.view(np.uint8)], axis=1)
    else:
        meta["dim"] = int(table.shape[1])
        rows = table.astype(np.float32).view(np.uint8)
    rows = np.ascontiguousarray(rows)
    meta["row_bytes"] = int(rows.shape[1])
    for n in remove:
        g.node.remove(n)
    used = {i for n in g.node for i in n.input}
    for t in [t for t in g.initializer if t.name not in used]:
        g.initializer.remove(t)
    for inp in [i for i in g.input if i.name not in used]:
        g.input.remove(inp)
    g.input.insert(0, helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, ["batch", "sequence", meta["dim"]]))
    tmp = Path(tempfile.mkdtemp(prefix=".split.tmp-", dir=model_dir))
    try:
        rows.tofile(tmp / "word-table.bin")
        onnx.save_model(model, str(tmp / "model.onnx"))
        (tmp / "word-table.json").write_text(json.dumps(meta, indent=2))
        os.chmod(tmp, 0o755)
        if dest.exists():
            old = dest.with_name(f"{dest.name}.old-{os.getpid()}")
            os.replace(dest, old)
            shutil.rmtree(old, ignore_errors=True)
        os.replace(tmp, dest)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    log.info("Split the word table (%s, %d rows) out of %s", kind, meta["rows"], model_dir)
    return dest
