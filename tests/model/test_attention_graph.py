"""Indexing sessions of the int8 graph run the attention passage by passage
(``pagerecall.model.attention_graph``): the same vectors bit for bit as the batched graph that
queries (and every index built before) use, so existing int8 indexes stay queryable and updatable."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from pagerecall.config import Settings
from pagerecall.extract.sources import read_document
from pagerecall.ingest.chunking import chunk_document
from pagerecall.model import attention_graph as _attention
from pagerecall.model import bundled as _bundled
from pagerecall.model import word_table as _wordtable
from pagerecall.model.embedding import load_embedder
from pagerecall.model.ort_session import _session_options
from tests.conftest import shared_path

ROOT = Path(__file__).resolve().parents[2]


def _settings(tmp_cache: Path | None = None) -> Settings:
    return Settings(cache_dir=tmp_cache or Settings.from_env().cache_dir, runtime="onnxruntime")


@pytest.fixture(scope="module")
def embedders():
    """The indexing embedder (per-passage attention) and a query embedder (the batched graph)."""
    settings = _settings()
    return load_embedder(settings, purpose="index"), load_embedder(settings, purpose="query")


@pytest.fixture(scope="module")
def batched_session(embedders):
    """A session on the int8 split graph exactly as converted (attention on the whole batch), with
    the indexing session's options."""
    split = _wordtable.split_dir(embedders[0].model_dir)
    so = _session_options(None, passages=True)
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(split / "model.onnx"), so, providers=["CPUExecutionProvider"])


def _ops(session_graph: Path) -> set[str]:
    return {n.op_type for n in onnx.load(str(session_graph), load_external_data=False).graph.node}


def test_indexing_session_runs_attention_per_passage(embedders):
    index, query = embedders
    assert index.quantization == query.quantization == "int8"
    from pagerecall.model.converter import CONVERTER_VERSION
    from pagerecall.model.ort_session import optimized_graph_path

    split = f"split{_wordtable.SPLIT_VERSION}"
    saved = optimized_graph_path(index.model_dir, "int8", CONVERTER_VERSION, f"{split}-{_attention.VARIANT}")
    assert saved.is_file()
    assert "Scan" in _ops(saved) and "Softmax" not in _ops(saved)  # the core moved into the Scans
    batched = optimized_graph_path(index.model_dir, "int8", CONVERTER_VERSION, split)
    assert "Scan" not in _ops(batched) and "Softmax" in _ops(batched)  # queries: the graph as converted
    # the fingerprint (what an index records) is the same for both: vectors did not change
    assert index.fingerprint() == query.fingerprint()


def _file_batches(emb, path: Path):
    doc = read_document(path, path.name, ocr="off")
    texts = [c.text for c in chunk_document(doc, emb.tokenizer, Settings.from_env().chunk)]
    ids = emb._ids([emb.passage_prefix + t for t in texts], True, passages=True)
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))  # as the embed loop batches a file
    return texts, [_bundled.pad_batch([ids[i] for i in order[a:a + 32]]) for a in range(0, len(order), 32)]


def _assert_same(emb, batched_session, path: Path) -> int:
    _, batches = _file_batches(emb, path)
    table = emb.encoder.table
    assert table is not None
    for ids, mask in batches:
        feed = {_wordtable.INPUT: table.lookup(ids), "attention_mask": mask}
        got = emb.encoder.session.run(None, feed)[0]
        ref = batched_session.run(None, feed)[0]
        real = mask.astype(bool)
        np.testing.assert_array_equal(got[real], ref[real])
        np.testing.assert_array_equal(_bundled.mean_pool_normalize(got, mask), _bundled.mean_pool_normalize(ref, mask))
    return sum(len(ids) for ids, _ in batches)


def test_per_passage_attention_gives_the_batched_vectors_bit_for_bit(embedders):
    """One file's passages (one padded batch of real lengths) embedded by the indexing embedder and
    by the query embedder (the batched graph), and two queries."""
    index, query = embedders
    texts, _ = _file_batches(index, ROOT / "examples" / "corpus" / "en" / "harrow-point-manual.pdf")
    assert len(texts) >= 10
    np.testing.assert_array_equal(index.embed_passages(texts), query.embed_passages(texts))
    q = ["Wie wechsle ich die Lampe?", "灯台の点灯時刻は?"]
    np.testing.assert_array_equal(index.embed_queries(q), query.embed_queries(q))


@pytest.mark.slow
def test_per_passage_attention_bit_for_bit_on_every_demo_passage(embedders, batched_session):
    """Every passage of the example corpus and of the demo corpus's text layers (maint-guide en/de/ja,
    linn.txt), batched as the embed loop batches each file."""
    index, _ = embedders
    files = sorted((ROOT / "examples" / "corpus").rglob("*.*"))
    files += [shared_path("corpora", "demo", f"maint-guide.{lang}.pdf") for lang in ("en", "de", "ja")]
    files.append(shared_path("corpora", "demo", "linn.txt"))
    assert sum(_assert_same(index, batched_session, f) for f in files) > 1000


def test_rewrite_refuses_another_graph_and_indexing_keeps_it(embedders):
    """A graph without ``build_onnx``'s attention core is not rewritten (``ValueError``), and the
    indexing session then runs it as it is."""
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])
    model = helper.make_model(helper.make_graph([helper.make_node("Softmax", ["x"], ["y"], name="l0_probs")],
                                                "g", [x], [y]))
    with pytest.raises(ValueError, match="attention core"):
        _attention.per_passage_attention(model)
    assert _attention.rewrite_or_keep(model) is model
    assert [n.op_type for n in model.graph.node] == ["Softmax"]
