"""An indexing session keeps onnxruntime's CPU memory arena while it embeds (freed buffers reused:
less CPU) and returns it on ``release_memory`` (a write calls it before ``finalize``; a long-lived
``watch`` then holds no arena between updates). A query session has no arena and ignores the call.
The bundled int8 model, real onnxruntime; RSS from /proc (Linux)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pagerecall.config import Settings
from pagerecall.model.embedding import load_embedder

TEXT = " ".join(f"On day {i} the keeper noted the wind, the swell, the fog signal and the lamp's oil." for i in range(12))


def _rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    pytest.skip("no /proc/self/status (not Linux)")


def test_the_indexing_arena_is_returned_and_vectors_stay_the_same():
    settings = dataclasses.replace(Settings.from_env(), runtime="onnxruntime")  # the arena is onnxruntime's
    index, query = load_embedder(settings, purpose="index"), load_embedder(settings, purpose="query")
    texts = [f"{i}. {TEXT}" for i in range(32)]  # one batch of 32 passages of ~200 tokens
    before = index.embed_passages(texts)
    held = _rss_mib()
    index.encoder.release_memory()
    returned = held - _rss_mib()
    assert returned > 20, f"the arena gave back only {returned:.1f} MiB"
    assert (index.embed_passages(texts) == before).all()  # the arena grows again; the same vectors
    query.encoder.release_memory()  # no arena: nothing happens, and the session still answers
    assert query.embed_queries(["fog signal"]).shape == (1, 384)
