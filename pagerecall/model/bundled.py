"""The bundled multilingual-e5-small run by onnxruntime and ``tokenizers`` directly (no fastembed).

Why: ``import fastembed`` costs 0.7-3.3 s and a cold ``pagerecall search`` must take <= 1 s
(the cold-query target). fastembed's custom-model path did only this: tokenise (truncate at 512, pad to the
longest of the batch with ``<pad>``=1), run the ONNX graph, mean-pool over the attention mask in
float64, L2-normalise, cast to float32. ``BundledEmbedder`` does the same, step for step, so its
vectors equal fastembed's (``tests/model/test_embedding.py``: max abs diff 0 on several texts, lengths
and batch sizes, while fastembed is installed).

Saved optimised graph
    See ``pagerecall.model.ort_session`` (the session, the saved graph, a read-only cache).

Query tokenizer
    ``embed_queries`` tokenises with ``pagerecall.model.query_tokenizer.QueryTokenizer`` (ids equal to the
    full tokenizer's, a few ms and MB) unless the full tokenizer is already loaded; the full
    one (``tokenizer``, the chunker's, 0.8-1.4 s, +288 MB) loads on first use only.

Indexing sessions (``open_session(passages=True)``) do not spin their idle threads.

Why: docs/decisions/bundled-embedder.md (start-up and where a query process's memory goes) and
docs/decisions/onnxruntime-session.md (the session's options).
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from pagerecall.model.ort_session import cpu_signature, open_session, optimized_graph_path, physical_cores  # noqa: F401
from pagerecall.errors import ModelError
from pagerecall.model.tokenization import PAD_ID, pad_batch  # noqa: F401 - pad_batch re-exported

log = logging.getLogger(__name__)

BUNDLED_DIM = 384
MAX_TOKENS = 512
"""multilingual-e5-small's maximum input (``tokenizer_config.json``: ``model_max_length``)."""

LANES = True
"""Whether an int8 indexing session runs one batch per core side by side (``OrtEncoder.lanes``: the
``threads`` setting, else the physical cores; each run on one intra-op thread) instead of one batch at
a time on every core. The same vectors bit for bit, 4 % less CPU, 9 % less wall on 2 cores (no
barrier inside an operator waits for a thread the file preparation took): docs/decisions/build-overhead.md,
"Lanes"."""


def mean_pool_normalize(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean over the tokens the mask marks, L2-normalised, as fastembed 0.9.1 computes it.

    ``hidden`` float32 ``(batch, seq, dim)``, ``mask`` int64 ``(batch, seq)`` of 0/1 → float32
    ``(batch, dim)``: the sum is taken in float64 (``where=mask``), divided by
    ``max(count, 1e-9)``, divided by ``max(norm, 1e-12)`` in float64, then cast to float32.
    """
    summed = np.sum(hidden, axis=1, where=mask[:, :, None].astype(bool), dtype=np.float64)
    pooled = summed / np.maximum(np.sum(mask, axis=1, keepdims=True), 1e-9)
    norm = np.maximum(np.linalg.norm(pooled, ord=2, axis=1, keepdims=True), 1e-12)
    return (pooled / norm).astype(np.float32, copy=False)


def passage_tokenizer(hf_tok: Any, max_length: int = MAX_TOKENS, pad: bool = True) -> Any:
    """A ``tokenizers.Tokenizer`` configured as fastembed's ``load_tokenizer`` configures the
    bundled folder (truncation right at ``max_length``, batch-longest right padding with
    ``<pad>``=1, the special tokens of ``special_tokens_map.json``), sharing the vocabulary
    model of ``hf_tok`` (a ``tokenizers.Tokenizer``) instead of loading ``tokenizer.json`` again.
    With ``pad=False`` it only truncates (``pad_batch`` pads each batch the same way).

    Why: the 250k-piece unigram model costs ~288 MB RSS per copy (docs/decisions/bundled-embedder.md).
    ``tests/model/test_embedding.py`` checks that its ids equal fastembed's own tokenizer's.
    """
    from tokenizers import Tokenizer

    tok = Tokenizer(hf_tok.model)  # the model is reference-counted, not copied
    tok.normalizer = hf_tok.normalizer
    tok.pre_tokenizer = hf_tok.pre_tokenizer
    tok.post_processor = hf_tok.post_processor
    tok.decoder = hf_tok.decoder
    tok.add_special_tokens([t.content for t in hf_tok.get_added_tokens_decoder().values()])
    tok.enable_truncation(max_length=max_length, direction="right")
    if pad:
        tok.enable_padding(direction="right", pad_id=tok.token_to_id("<pad>"), pad_type_id=0, pad_token="<pad>")
    return tok


class OrtEncoder:
    """``run(batches, pool=None)`` on an onnxruntime session: ``[(input_ids, attention_mask) int64
    (b, s)]`` → ``[last_hidden_state float32 (b, s, 384)]``, or ``[pool(hidden, mask)]`` when
    ``pool`` is given, one batch after another (onnxruntime uses every core inside a run), or, with
    ``lanes`` above 1 (an int8 indexing session of one intra-op thread: :data:`LANES`), up to ``lanes``
    runs at once from as many threads (the embed loop's lanes, :mod:`pagerecall.ingest.lanes`).
    ``preferred_batch``: passages per batch for a write (32: docs/measured.md). ``batch_invariant``: False for the int8 graph (dynamic quantisation scales
    activations per batch tensor: cosine 0.9977-0.9982 alone vs in a batch), True otherwise.
    ``table``: a ``pagerecall.model.word_table.WordTable`` when the session runs the split graph (its
    input is the gathered rows, not the ids; the same hidden states, bit for bit)."""

    name = "onnxruntime"
    preferred_batch = 32

    def __init__(self, session: Any, batch_invariant: bool, table: Any | None = None, lanes: int = 1) -> None:
        import onnxruntime as ort

        self.session = session
        self.batch_invariant = batch_invariant
        self.table = table
        self.version = ort.__version__
        self.lanes = max(1, int(lanes))
        self._lock = threading.BoundedSemaphore(self.lanes)  # runs at once: 1, or the lanes of an indexing session

    def release_memory(self) -> None:
        """Return the session's CPU memory arena (indexing sessions keep one,
        ``pagerecall.model.ort_session``) to the system: one run of a two-token input with
        onnxruntime's ``memory.enable_memory_arena_shrinkage`` run option. A no-op for a session
        without an arena. Why: a write calls it before ``finalize`` (whose ANN training and probe
        would otherwise grow on top of the arena), and a long-lived ``watch`` holds no arena
        between updates."""
        import onnxruntime as ort

        ro = ort.RunOptions()
        ro.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
        ids, mask = pad_batch([[0, 2]])
        if self.table is not None:
            from pagerecall.model.word_table import INPUT

            feed = {INPUT: self.table.lookup(ids), "attention_mask": mask}
        else:
            feed = {"input_ids": ids, "attention_mask": mask}
        with self._lock:
            try:
                self.session.run(None, feed, ro)
            except Exception:  # noqa: BLE001 - no arena on this session (queries): nothing to return
                pass

    def run(self, batches: Sequence[tuple[np.ndarray, np.ndarray]], pool=None) -> list[np.ndarray]:
        out = []
        for ids, mask in batches:
            if self.table is not None:
                from pagerecall.model.word_table import INPUT

                feed = {INPUT: self.table.lookup(ids), "attention_mask": mask}
            else:
                feed = {"input_ids": ids, "attention_mask": mask}
            with self._lock:
                hidden = self.session.run(None, feed)[0]
            out.append(hidden if pool is None else pool(hidden, mask))
        return out


class BundledEmbedder:
    """The ``Embedder`` of the bundled model (see ``pagerecall.model.embedding``), without fastembed.

    ``embed_passages``/``embed_queries`` return float32 ``(n, 384)`` arrays, rows L2-normalised
    (norm 1 ± 1e-5), in input order; an empty input gives ``(0, 384)``. Texts longer than 512
    tokens (prefix and special tokens included) are truncated, so callers chunk first.
    Within one call, texts are batched by token length (``sort_by_length``, less padding).
    ``tokenizer`` (the chunker's ``HFTokenizer``) loads on first access (0.8-1.4 s, +288 MB).
    ``quantization`` is the vector family written in the fingerprint (``int8``, ``q4``, ``fp32``);
    ``runtime_info()`` says which runtime and graph produce the vectors, and why.
    ``batch_invariant``: whether a text's vector is independent of its batch mates.
    Thread-safe.
    """

    pooling = "mean"

    def __init__(self, name: str, model_dir: Path, quantization: str, converter_version: str, encoder: Any,
                 query_prefix: str, passage_prefix: str, query_tokenizer: Any | None = None,
                 runtime: dict | None = None) -> None:
        self.name = name
        self.dim = BUNDLED_DIM
        self.model_dir = Path(model_dir)
        self.quantization = quantization
        self.converter_version = converter_version
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix
        self.encoder = encoder
        self._runtime = dict(runtime or {})
        self._query_tok = query_tokenizer
        self._overhead: int | None = None
        self._tokenizer = None
        self._light = None
        self._passage_tok = None
        self._sha256: str | None = getattr(query_tokenizer, "sha256", None)
        self._tok_lock = threading.Lock()

    @property
    def batch_invariant(self) -> bool:
        return bool(self.encoder.batch_invariant)

    @property
    def lanes(self) -> int:
        """Batches a write may run at once (``OrtEncoder.lanes``; 1 for every other encoder)."""
        return int(getattr(self.encoder, "lanes", 1))

    @property
    def preferred_batch(self) -> int:
        """Passages per model call that a write should use with this runtime (``OVEncoder``: 16,
        ``OrtEncoder``: 32; see their docstrings)."""
        return int(getattr(self.encoder, "preferred_batch", 32))

    def runtime_info(self) -> dict[str, Any]:
        """JSON-safe: ``runtime`` (``onnxruntime``/``openvino``), its ``version``, ``graph`` (the
        model folder's name), ``family``, ``precision`` where known, ``batch_invariant``, ``reason``."""
        info = {"runtime": self.encoder.name, "version": getattr(self.encoder, "version", None),
                "graph": self.model_dir.name, "family": self.quantization,
                "batch_invariant": self.batch_invariant}
        if getattr(self.encoder, "precision", None):
            info["precision"] = self.encoder.precision
        info.update({k: v for k, v in self._runtime.items() if k not in info})
        return info

    # ------------------------------------------------------------------ tokenizers
    @property
    def tokenizer(self):
        """The chunker's tokenizer (max 512, passage prefix): ``_spantok.LightTokenizer`` where the
        light query tokenizer exists (the same spans and ids without the 250k-piece vocabulary in
        memory, see ``pagerecall.model.span_tokenizer``), else the full ``tokenization.HFTokenizer``."""
        if self._query_tok is None:
            return self.full_tokenizer
        if self._light is None:
            with self._tok_lock:
                if self._light is None:
                    from pagerecall.model.span_tokenizer import LightTokenizer

                    self._light = LightTokenizer(self._query_tok, lambda: self.full_tokenizer,
                                                 MAX_TOKENS, self.passage_prefix)
        return self._light

    @property
    def full_tokenizer(self):
        """The model's full tokenizer (``tokenization.HFTokenizer``, max 512, passage prefix;
        0.8-1.4 s and +288 MB on first access)."""
        if self._tokenizer is None:
            with self._tok_lock:
                if self._tokenizer is None:
                    from pagerecall.model.tokenization import HFTokenizer

                    tok = HFTokenizer(self.model_dir / "tokenizer.json", max_tokens=MAX_TOKENS,
                                      passage_prefix=self.passage_prefix)
                    self._passage_tok = passage_tokenizer(tok._tok, pad=False)
                    self._sha256 = tok.sha256
                    self._tokenizer = tok
        return self._tokenizer

    @property
    def takes_token_ids(self) -> bool:
        """Whether :meth:`embed_passages` builds passages from ``token_ids`` (the chunk texts' own
        ids, ``Chunk.token_ids``, made by :attr:`tokenizer`): with the light build tokenizer."""
        return self._query_tok is not None and getattr(self.tokenizer, "hands_ids", False)

    def _ids(self, docs: list[str], light: bool, passages: bool = False,
             token_ids: Sequence[Sequence[int] | None] | None = None) -> list[list[int]]:
        if token_ids is not None and self._light is not None and self._tokenizer is None:
            # passages whose ids the chunker handed on (LightTokenizer.passage_ids_from); the rest tokenised.
            # Once the full tokenizer is loaded every passage goes through it (the tests' reference).
            got = [self._light.passage_ids_from(t) if t is not None else None for t in token_ids]
            rest = [i for i, g in enumerate(got) if g is None]
            if rest:
                for i, g in zip(rest, self._ids([docs[i] for i in rest], light, passages)):
                    got[i] = g
            return got  # type: ignore[return-value]
        if light and self._tokenizer is None and self._light is not None and passages:
            got = self._light.passage_ids(docs)
            if all(g is not None for g in got):
                return got  # type: ignore[return-value]
        elif light and self._tokenizer is None and self._query_tok is not None and all(
            self._query_tok.exact_for(d) for d in docs
        ):
            return self._query_tok.ids(docs)
        self.full_tokenizer  # noqa: B018 - loads the passage tokenizer too
        return [e.ids for e in self._passage_tok.encode_batch(docs)]

    # ------------------------------------------------------------------ embedding
    def _embed(self, texts: Sequence[str], prefix: str, batch_size: int, light: bool,
               sort_by_length: bool, passages: bool = False, token_ids: Sequence | None = None) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("pass a sequence of strings, not one string")
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if token_ids is not None and len(token_ids) != len(texts):
            raise ValueError("token_ids must have one entry per text")
        ids = self._ids([prefix + t for t in texts], light, passages, token_ids)
        # stable sort by length: batches of similar lengths carry less padding
        order = sorted(range(len(ids)), key=lambda i: len(ids[i])) if sort_by_length else list(range(len(ids)))
        groups = [order[a : a + batch_size] for a in range(0, len(order), batch_size)]
        batches = [pad_batch([ids[i] for i in g]) for g in groups]
        pooled = self.encoder.run(batches, mean_pool_normalize)
        vecs = np.empty((len(ids), self.dim), dtype=np.float32)
        for g, v in zip(groups, pooled):
            if v.shape != (len(g), self.dim):
                raise ModelError(f"{self.name} returned vectors of shape {v.shape}, expected ({len(g)}, {self.dim})")
            vecs[g] = v
        # fastembed's float32 result normalised once more, as the fastembed path did
        return vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)

    def embed_passages(self, texts: Sequence[str], batch_size: int = 32, *, sort_by_length: bool = True,
                       token_ids: Sequence[Sequence[int] | None] | None = None) -> np.ndarray:
        """Embed document passages (adds ``"passage: "``). float32 ``(n, 384)``, L2-normalised,
        in input order. ``sort_by_length=False`` batches in input order (as fastembed did).
        Tokenised like queries: through the light query tokenizer while the full one is not loaded
        (the same ids, truncated at 512 tokens), so that deep mode's fallback scorer in a query
        server does not load the full tokenizer (+288 MB); a build loads it for the chunker anyway.
        ``token_ids`` (with :attr:`takes_token_ids`): per text, the ids of the text alone that the
        chunker got from :attr:`tokenizer` (``Chunk.token_ids``), or None; a passage given them is
        not tokenised again (the same ids: ``LightTokenizer.passage_ids_from``). Raises
        ``ValueError`` when ``token_ids`` and ``texts`` differ in length."""
        return self._embed(texts, self.passage_prefix, batch_size, True, sort_by_length, passages=True,
                           token_ids=token_ids)

    def embed_queries(self, texts: Sequence[str], batch_size: int = 32, *, sort_by_length: bool = True) -> np.ndarray:
        """Embed search queries (adds ``"query: "``). float32 ``(n, 384)``, L2-normalised.
        Uses the light query tokenizer unless the full one is loaded (same ids either way)."""
        return self._embed(texts, self.query_prefix, batch_size, True, sort_by_length)

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` alone (no special tokens), as ``tokenizer.count`` counts them, through
        the light query tokenizer when it is exact for ``text`` (the full tokenizer costs ~1 s and
        ~280 MB RSS to load: evidence packing must not need it)."""
        if self._tokenizer is None and self._query_tok is not None:
            if self._overhead is None:
                self._overhead = len(self._ids([""], True)[0])
            if self._query_tok.exact_for(text):
                n = len(self._ids([text], True)[0])
                if n < MAX_TOKENS:  # the light path stops at the model's window: longer texts go below
                    return n - self._overhead
        return self.full_tokenizer.count(text)

    def fingerprint(self) -> dict[str, Any]:
        """What must match between an index and the embedder that queries it (JSON-safe); the
        same keys and values as the fastembed-based embedder of pagerecall 0.1. ``quantization``
        is the vector family: ``fp32`` whether OpenVINO bf16, the fp32 or the q4f32 graph made the
        vectors (cosine >= 0.99999 between them, ``pagerecall.model.runtimes``)."""
        if self._sha256 is None:
            from pagerecall.paths import file_sha256

            self._sha256 = file_sha256(self.model_dir / "tokenizer.json")
        from pagerecall.model.fingerprint import model_fingerprint

        return model_fingerprint(self, self._sha256, MAX_TOKENS)

    def __repr__(self) -> str:
        return (f"BundledEmbedder(name={self.name!r}, family={self.quantization!r}, "
                f"runtime={self.encoder.name!r}, graph={self.model_dir.name!r})")


def _ort_encoder(model_dir: Path, graph: str, threads: int | None, passages: bool) -> OrtEncoder:
    """An ``OrtEncoder`` on the split graph and its word table (``pagerecall.model.word_table``: ~90 MB
    less RSS with the int8 graph), or on the full graph when the split cannot be written or read.
    An indexing session of the int8 graph runs its attention passage by passage
    (``pagerecall.model.attention_graph``: the same vectors bit for bit, less CPU)."""
    from pagerecall.model import attention_graph as _attention
    from pagerecall.model import converter as _e5onnx
    from pagerecall.model import word_table as _wordtable

    lanes = 1
    if passages and graph == "int8" and LANES:  # batches run side by side, each on one thread
        lanes = threads or physical_cores()
        threads = 1 if lanes > 1 else threads
    split = _wordtable.ensure_split(model_dir)
    if split is not None:
        variant, rewrite = f"split{_wordtable.SPLIT_VERSION}", None
        if passages and graph == "int8" and _attention.PER_PASSAGE:
            variant, rewrite = f"{variant}-{_attention.VARIANT}", _attention.rewrite_or_keep
        try:
            table = _wordtable.WordTable(split)
            session = open_session(model_dir, graph, _e5onnx.CONVERTER_VERSION, threads, passages=passages,
                                   source=split / "model.onnx", variant=variant, rewrite=rewrite)
            encoder = OrtEncoder(session, batch_invariant=graph != "int8", table=table, lanes=lanes)
            encoder.run([pad_batch([[0, 2]])])  # the table and the graph fit together, or fall back now
            return encoder
        except Exception as exc:  # a damaged split folder: the full graph still answers
            log.warning("The split graph in %s does not load (%r); running the full graph", split, exc)
    session = open_session(model_dir, graph, _e5onnx.CONVERTER_VERSION, threads, passages=passages)
    return OrtEncoder(session, batch_invariant=graph != "int8", lanes=lanes)


def load_bundled(name: str, cache_dir: Path, quantization: str, threads: int | None,
                 query_prefix: str, passage_prefix: str, runtime: str = "onnxruntime",
                 reason: str = "", passages: bool = False) -> BundledEmbedder:
    """Convert (once) and open the bundled model; see ``pagerecall.model.embedding.load_embedder``.

    ``quantization`` is the vector family (``int8``, ``q4``, ``fp32``) or the ``q4f32`` graph
    (fp32 family). ``runtime="onnxruntime"`` runs the family's graph (``fp32`` family: the
    ``q4f32`` graph unless ``quantization`` is ``"fp32"`` itself, i.e. the ``-fp32`` model name);
    ``"openvino"`` runs the ``f32e8`` graph (fp32, int8 word table) in bf16 (family ``fp32``).
    ``reason`` is recorded in
    ``runtime_info()``. ``passages``: an indexing session (onnxruntime threads do not spin, see
    ``open_session``).

    Raises ``ModelError`` saying what failed and what to do next.
    """
    from pagerecall.model import converter as _e5onnx
    from pagerecall.model.query_tokenizer import QueryTokenizer, QueryTokenizerUnavailable

    family = "fp32" if quantization in ("fp32", "q4f32", "f32e8") else quantization
    graph = "f32e8" if runtime == "openvino" else quantization
    model_dir = _e5onnx.ensure_converted(Path(cache_dir), graph)
    try:
        if runtime == "openvino":
            from pagerecall.model.openvino_encoder import open_encoder

            encoder: Any = open_encoder(model_dir, Path(cache_dir) / "openvino", threads)
        else:
            encoder = _ort_encoder(model_dir, graph, threads, passages)
    except ModelError:
        raise
    except Exception as exc:
        raise ModelError(
            f"Cannot load the bundled embedding model from {model_dir}: {exc!r}. "
            + (f"Next: delete {model_dir} so it is converted again" if os.access(model_dir.parent, os.W_OK) else
               f"Next: ask the owner of {model_dir.parent} (read-only for you) to delete {model_dir.name}, "
               "or set PAGERECALL_CACHE_DIR to a writable folder")
        ) from exc
    try:
        qtok = QueryTokenizer(model_dir / "tokenizer.json", max_length=MAX_TOKENS)
    except (QueryTokenizerUnavailable, OSError, ValueError) as exc:  # the full tokenizer still works
        log.info("No light query tokenizer for %s (%r); queries use the full one", model_dir, exc)
        qtok = None
    return BundledEmbedder(name, model_dir, family, _e5onnx.CONVERTER_VERSION, encoder,
                           query_prefix, passage_prefix, qtok, {"reason": reason} if reason else None)
