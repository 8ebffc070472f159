"""The embedder's part of an index fingerprint (the index adds chunking and schema versions:
:mod:`pagerecall.index.fingerprint`)."""

from __future__ import annotations

from typing import Any


def model_fingerprint(emb: Any, tokenizer_sha256: str, max_tokens: int) -> dict:
    """The embedder's part of the fingerprint (JSON-safe), the same keys for every embedder:
    ``emb`` has ``name``, ``dim``, ``pooling``, ``query_prefix``, ``passage_prefix``,
    ``quantization`` (the vector family) and ``converter_version``."""
    return {
        "model": emb.name,
        "dim": emb.dim,
        "pooling": emb.pooling,
        "normalize": True,
        "query_prefix": emb.query_prefix,
        "passage_prefix": emb.passage_prefix,
        "tokenizer_sha256": tokenizer_sha256,
        "max_tokens": max_tokens,
        "quantization": emb.quantization,
        "converter_version": emb.converter_version,
    }
