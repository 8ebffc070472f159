"""The word-embedding table outside the onnxruntime session (``pagerecall._wordtable``): the split
graph gives the full graph's hidden states bit for bit, holds no table, and a damaged split folder
falls back to the full graph."""

from __future__ import annotations

import logging

import numpy as np
import onnxruntime as ort
import pytest

from pagerecall import _bundled, _e5onnx, _wordtable
from pagerecall.config import DEFAULT_MODEL, Settings
from pagerecall.embedding import load_embedder

TEXTS = [
    "query: Wie erstelle ich ein Debian-Paket aus einem Upstream-Tarball?",
    "passage: The maintainer uploads the package to the archive after building it with dpkg-buildpackage.",
    "passage: パッケージのビルドには debhelper を使います。",
    "passage: " + "Комитет одобрил бюджет новой библиотеки после долгих дебатов. " * 12,
    "query: x",
]


@pytest.fixture(scope="module")
def cache():
    return Settings.from_env().cache_dir


def _session(path):
    so = ort.SessionOptions()
    so.enable_cpu_mem_arena = False
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("graph", ["int8", "q4f32"])
def test_split_graph_gives_the_full_graphs_hidden_states_bit_for_bit(cache, graph):
    model_dir = _e5onnx.ensure_converted(cache, graph)
    split = _wordtable.ensure_split(model_dir)
    assert split is not None
    full, cut = _session(model_dir / "model.onnx"), _session(split / "model.onnx")
    assert [i.name for i in cut.get_inputs()] == [_wordtable.INPUT, "attention_mask"]
    table = _wordtable.WordTable(split)
    emb = load_embedder(Settings(cache_dir=cache))
    ids, mask = _bundled.pad_batch(emb._ids(TEXTS, light=True))  # real ids, one padded batch
    ref = full.run(None, {"input_ids": ids, "attention_mask": mask})[0]
    got = cut.run(None, {_wordtable.INPUT: table.lookup(ids), "attention_mask": mask})[0]
    np.testing.assert_array_equal(got, ref)
    # the split graph holds no table: the table file is the bulk of the full graph
    size_full = (model_dir / "model.onnx").stat().st_size
    size_table = (split / "word-table.bin").stat().st_size
    assert size_table == table.rows * table.row_bytes and table.rows > 250_000
    assert (split / "model.onnx").stat().st_size + size_table < size_full * 1.01
    assert size_table > size_full * 0.6
    with pytest.raises(IndexError):
        table.lookup(np.array([[0, table.rows]]))


def test_embedders_run_the_split_graph_with_unchanged_vectors(cache):
    emb = load_embedder(Settings(cache_dir=cache))
    assert emb.encoder.table is not None and emb.encoder.table.kind == "uint8"
    fp32 = load_embedder(Settings(cache_dir=cache), index_fingerprint={"model": DEFAULT_MODEL, "quantization": "fp32"})
    assert fp32.encoder.table is not None and fp32.encoder.table.kind == "q4"
    for e in (emb, fp32):
        full = _bundled.OrtEncoder(_session(e.model_dir / "model.onnx"), batch_invariant=e.batch_invariant)
        ref = _bundled.BundledEmbedder(e.name, e.model_dir, e.quantization, e.converter_version, full,
                                       e.query_prefix, e.passage_prefix, e._query_tok)
        texts = [t.split(": ", 1)[1] for t in TEXTS]
        np.testing.assert_array_equal(e.embed_passages(texts), ref.embed_passages(texts))
        np.testing.assert_array_equal(e.embed_queries(texts), ref.embed_queries(texts))


def test_a_truncated_table_falls_back_to_the_full_graph(cache, tmp_path, caplog):
    model_dir = _e5onnx.ensure_converted(cache, "int8")
    work = tmp_path / model_dir.name
    work.mkdir()
    for f in model_dir.iterdir():
        if f.is_file() and not f.name.startswith("."):
            (work / f.name).symlink_to(f)
    with caplog.at_level(logging.INFO, logger="pagerecall._wordtable"):
        split = _wordtable.ensure_split(work)
    assert split == work / "split", caplog.text
    assert split == work / "split" and (split / "word-table.bin").stat().st_size > 90_000_000
    with open(split / "word-table.bin", "r+b") as fh:
        fh.truncate(1000)
    with pytest.raises(Exception, match="truncated"):
        _wordtable.WordTable(split)
    with caplog.at_level(logging.WARNING, logger="pagerecall._bundled"):
        enc = _bundled._ort_encoder(work, "int8", None, passages=False)
    assert enc.table is None and "does not load" in caplog.text
    ids = np.array([[0, 35378, 12, 5, 2]], dtype=np.int64)
    ref = _session(model_dir / "model.onnx").run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids)})[0]
    np.testing.assert_array_equal(enc.run([(ids, np.ones_like(ids))])[0], ref)


@pytest.mark.slow
def test_openvino_graph_split_is_bit_identical_under_onnxruntime(cache):
    """The ``f32e8`` graph (int8 table, one scale per row), split, run by onnxruntime in fp32 (this
    checks the table's arithmetic without OpenVINO; converting it once takes ~20-60 s)."""
    model_dir = _e5onnx.ensure_converted(cache, "f32e8")
    split = _wordtable.ensure_split(model_dir)
    table = _wordtable.WordTable(split)
    assert table.kind == "int8_row" and table.row_bytes == table.dim + 4
    emb = load_embedder(Settings(cache_dir=cache))
    ids, mask = _bundled.pad_batch(emb._ids(TEXTS, light=True))
    ref = _session(model_dir / "model.onnx").run(None, {"input_ids": ids, "attention_mask": mask})[0]
    got = _session(split / "model.onnx").run(None, {_wordtable.INPUT: table.lookup(ids), "attention_mask": mask})[0]
    np.testing.assert_array_equal(got, ref)
    pytest.importorskip("openvino", reason="the OpenVINO half needs pagerecall[openvino]")
    from pagerecall._openvino import OVEncoder

    full = OVEncoder(model_dir / "model.onnx").run([(ids, mask)])[0]
    np.testing.assert_array_equal(OVEncoder(split / "model.onnx", table=table).run([(ids, mask)])[0], full)
