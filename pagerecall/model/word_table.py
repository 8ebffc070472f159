"""The word-embedding table read from a file per query instead of held in the onnxruntime session.

The bundled graphs' 250,002 x 384 word-embedding table is most of each graph, and onnxruntime
copies it onto the heap, although a query reads a few dozen of its rows. Here the
``Gather`` (and the int8 graph's ``DequantizeLinear``) is cut out of the graph; the graph takes the
gathered rows as its input ``emb_word`` float32 ``(batch, seq, 384)``, and :class:`WordTable`
reads the rows a batch uses from ``word-table.bin`` with ``os.pread``: the rows sit in the page
cache, not in the process's RSS, and a build's batches read a few thousand rows each.

Arithmetic: the rows are de-quantised exactly as onnxruntime's kernels do it, so the hidden states
are bit-identical to the full graph's (``tests/model/test_word_table.py``, every bundled graph):

* ``int8`` (``quantize_dynamic``): uint8 codes, one scale and zero point for the whole table:
  ``float32(q - zero_point) * scale``.
* ``q4`` / ``q4f32`` (``GatherBlockQuantized``, 4 bits, blocks of 32 along the row): nibble ``2i`` in
  the low and ``2i+1`` in the high half of byte ``i``: ``float32(nibble - 8) * scale[block]``.
* ``f32e8`` (OpenVINO's graph): int8 codes, one scale per row: ``float32(q) * scale[row]``.
* ``fp32``: the rows as stored.

The split graph is written once beside ``model.onnx``
(``split/``, atomically, under a file lock), so an old model folder gains it on first use.

Why: docs/decisions/word-table-from-disk.md (the session's RSS with and without the table).

Integrity: ``word-table.json`` holds a hash of its own fields and the table file's size and
modification time as written; each load checks them, and a first batch of two tokens runs through
the table and the graph before the encoder is handed out. A changed, truncated or edited split
folder is written again when the cache is writable, and otherwise the full graph runs (with a
warning): a damaged table never gives vectors. Copying a cache without keeping file times (``cp -r``
without ``-p``) makes it write the split again. A writer killed mid-way leaves ``.split.tmp-*``
(or, between its two renames, ``split.old-*``), removed by the next writer. On a disk with less
free space than the graph's size the split is not attempted (one log line), so a full disk does not
cost each start a graph load and a failed write.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import shutil
import weakref
from pathlib import Path

import numpy as np

from pagerecall.errors import ModelError, sentences

log = logging.getLogger(__name__)

SPLIT_VERSION = "2"
"""Bump when the split graph or the table file changes: they are then rewritten."""
INPUT = "emb_word"
"""Name of the gathered rows in the bundled graphs, and the split graph's new input."""


class WordTable:
    """Rows of a word-embedding table in ``word-table.bin`` (see the module docstring).

    ``lookup(ids)``: int64 ``(batch, seq)`` token ids → float32 ``(batch, seq, dim)``, each row
    de-quantised as onnxruntime's kernel does. Thread-safe (``os.pread`` has no file position).

    Raises ``ModelError`` when the table file is missing or shorter than its meta says, and
    ``IndexError`` for an id outside ``[0, rows)``.
    """

    def __init__(self, folder: Path) -> None:
        folder = Path(folder)
        path = folder / "word-table.bin"
        try:
            meta = read_meta(folder)
            self._fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except (OSError, ValueError) as exc:
            raise ModelError(sentences(f"Cannot use {folder}: {exc}", f"Next: delete {folder} so it is written again")) from exc
        self.kind: str = meta["kind"]
        self.rows: int = int(meta["rows"])
        self.dim: int = int(meta["dim"])
        self.row_bytes: int = int(meta["row_bytes"])
        self.scale = np.float32(meta.get("scale", 1.0))
        self.zero_point = int(meta.get("zero_point", 0))
        self.block = int(meta.get("block", 0))
        st = os.fstat(self._fd)
        if [st.st_size, st.st_mtime_ns] != meta["table_stat"]:
            os.close(self._fd)
            raise ModelError(f"{path} was changed after it was written (size or time differ). "
                             f"Next: delete {folder} so it is written again")
        self._finalizer = weakref.finalize(self, os.close, self._fd)

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
        if self.kind == "int8_row":
            scale = raw[:, self.dim:].copy().view(np.float32)  # (n, 1)
            return raw[:, : self.dim].view(np.int8).astype(np.float32) * scale
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
        """Close the table file (also done when the object is collected)."""
        self._finalizer()


def split_dir(model_dir: Path) -> Path:
    """Where the split graph and the table of ``model_dir`` live."""
    return Path(model_dir) / "split"


def _check(meta: dict) -> str:
    """A hash over the meta's fields (all but itself), so that an edited field is noticed."""
    body = json.dumps({k: v for k, v in meta.items() if k != "check"}, sort_keys=True)
    return hashlib.sha256(body.encode()).hexdigest()[:16]


_ROW_BYTES = {"uint8": lambda m: m["dim"], "int8_row": lambda m: m["dim"] + 4, "fp32": lambda m: 4 * m["dim"],
              "q4": lambda m: m["dim"] // 2 + 4 * (m["dim"] // m["block"])}


def read_meta(folder: Path) -> dict:
    """``word-table.json`` of a split folder, checked: its version, its own hash (an edited field),
    the row size its kind implies. Raises ``ValueError`` (or ``OSError``) saying what is wrong."""
    meta = json.loads((Path(folder) / "word-table.json").read_text())
    if meta.get("version") != SPLIT_VERSION:
        raise ValueError(f"split version {meta.get('version')!r}, expected {SPLIT_VERSION!r}")
    if meta.get("check") != _check(meta):
        raise ValueError("word-table.json was edited")
    if meta.get("kind") not in _ROW_BYTES or meta["row_bytes"] != _ROW_BYTES[meta["kind"]](meta):
        raise ValueError(f"row size {meta.get('row_bytes')} does not fit the kind {meta.get('kind')!r}")
    return meta


def _complete(folder: Path) -> bool:
    try:
        meta = read_meta(folder)
        st = (folder / "word-table.bin").stat()
    except (OSError, ValueError, KeyError, TypeError, ZeroDivisionError):
        return False
    return (folder / "model.onnx").is_file() and [st.st_size, st.st_mtime_ns] == meta["table_stat"]


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
        with FileLock(str(model_dir / ".split.lock")):  # a writer in progress holds it: wait, then use its split
            if _complete(dest):
                return dest
            # left by a writer killed mid-way (.split.tmp-*) or between its two renames (split.old-*)
            for stale in [*model_dir.glob(".split.tmp-*"), *model_dir.glob(f"{dest.name}.old-*")]:
                shutil.rmtree(stale, ignore_errors=True)
            # a full disk: say so without loading the graph (hundreds of MB) and failing to write it at each start
            free, need = shutil.disk_usage(model_dir).free, (model_dir / "model.onnx").stat().st_size
            if free < need:
                log.info("Cannot write the split graph in %s (%s: %.0f MiB free, it takes about %.0f MiB); the full "
                         "graph runs", dest, os.strerror(errno.ENOSPC), free / 2**20, need / 2**20)
                return None
            return _write_split(model_dir, dest)
    except OSError as exc:
        log.info("Cannot write the split graph in %s (%s); the full graph runs", dest, exc)
        return None


def _table_rows(g, gather) -> tuple[np.ndarray, dict, list] | None:
    """The word table of graph ``g`` as one record per row (uint8 ``(rows, row_bytes)``), its meta,
    and the nodes that compute ``emb_word`` from it; ``None`` for a layout not recognised."""
    from onnx import helper, numpy_helper

    inits = {t.name: t for t in g.initializer}
    producer = {o: n for n in g.node for o in n.output}
    consumers = [n for n in g.node if gather.output[0] in n.input]
    src = gather.input[0]
    if src in inits and src == "word_embeddings_quantized":  # int8: Gather -> DequantizeLinear (per tensor)
        table = numpy_helper.to_array(inits[src])
        dq = consumers[0] if len(consumers) == 1 else None
        if dq is None or dq.op_type != "DequantizeLinear" or dq.output[0] != INPUT or table.dtype != np.uint8:
            return None
        scale = numpy_helper.to_array(inits[dq.input[1]])
        meta = {"kind": "uint8", "scale": float(scale), "zero_point": int(numpy_helper.to_array(inits[dq.input[2]]))}
        if np.float32(meta["scale"]) != scale:
            return None
        return table, {**meta, "dim": int(table.shape[1])}, [gather, dq]
    if gather.output[0] != INPUT:
        return None
    if src in inits and src == "word_q4":  # q4 / q4f32: GatherBlockQuantized, 4 bits, blocks along the row
        attrs = {a.name: helper.get_attribute_value(a) for a in gather.attribute}
        if attrs.get("bits", 4) != 4 or attrs.get("quantize_axis") != 1 or len(gather.input) != 3:
            return None
        table = numpy_helper.to_array(inits[src]).astype(np.uint8)
        scales = numpy_helper.to_array(inits[gather.input[2]]).astype(np.float32)
        rows = np.concatenate([table, scales.view(np.uint8)], axis=1)
        return rows, {"kind": "q4", "block": int(attrs["block_size"]), "dim": int(table.shape[1]) * 2}, [gather]
    if src in inits and src == "word_embeddings":  # fp32
        table = numpy_helper.to_array(inits[src]).astype(np.float32)
        return table.view(np.uint8), {"kind": "fp32", "dim": int(table.shape[1])}, [gather]
    dq = producer.get(src)  # f32e8: DequantizeLinear(int8 table, one scale per row) -> Gather
    if dq is None or dq.op_type != "DequantizeLinear" or len(dq.input) != 2 or dq.input[0] not in inits:
        return None
    if {a.name: helper.get_attribute_value(a) for a in dq.attribute}.get("axis") != 0:
        return None
    codes = numpy_helper.to_array(inits[dq.input[0]])
    scales = numpy_helper.to_array(inits[dq.input[1]]).astype(np.float32)
    if codes.dtype != np.int8 or scales.shape != (codes.shape[0],):
        return None
    rows = np.concatenate([codes.view(np.uint8), scales[:, None].view(np.uint8)], axis=1)
    return rows, {"kind": "int8_row", "dim": int(codes.shape[1])}, [gather, dq]


def _write_split(model_dir: Path, dest: Path) -> Path | None:
    import tempfile

    import onnx
    from onnx import TensorProto, helper

    model = onnx.load(str(model_dir / "model.onnx"))
    g = model.graph
    gather = next((n for n in g.node if n.name == INPUT), None)
    found = _table_rows(g, gather) if gather is not None else None
    if found is None:
        log.info("No word table to split in %s", model_dir)
        return None
    rows, meta, remove = found
    rows = np.ascontiguousarray(rows)
    meta.update(version=SPLIT_VERSION, rows=int(rows.shape[0]), row_bytes=int(rows.shape[1]))
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
        st = (tmp / "word-table.bin").stat()  # a rename keeps size and time: checked at every load
        meta["table_stat"] = [st.st_size, st.st_mtime_ns]
        meta["check"] = _check(meta)
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
    log.info("Split the word table (%s, %d rows) out of %s", meta["kind"], meta["rows"], model_dir)
    return dest
