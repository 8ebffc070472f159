"""The word-embedding table outside the onnxruntime session (``pagerecall.model.word_table``): the split
graph gives the full graph's hidden states bit for bit, holds no table, and a damaged split folder
falls back to the full graph."""

from __future__ import annotations

import json
import logging
import shutil

import numpy as np
import onnxruntime as ort
import pytest

from pagerecall.model import bundled as _bundled
from pagerecall.model import converter as _e5onnx
from pagerecall.model import word_table as _wordtable
from pagerecall.config import DEFAULT_MODEL, Settings
from pagerecall.model.embedding import load_embedder
from pagerecall.errors import ModelError
from tests.conftest import openvino_or_skip

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


def _linked_copy(model_dir, tmp_path):
    work = tmp_path / model_dir.name
    work.mkdir()
    for f in model_dir.iterdir():
        if f.is_file() and not f.name.startswith("."):
            (work / f.name).symlink_to(f)
    return work


def _damage_table(split):
    with open(split / "word-table.bin", "r+b") as fh:  # same size, other bytes: a corrupted copy
        fh.seek(1000)
        fh.write(bytes(4096))


def _damage_meta(split):
    meta = json.loads((split / "word-table.json").read_text())
    meta["scale"] = 0.01
    (split / "word-table.json").write_text(json.dumps(meta))


def _truncate_table(split):
    with open(split / "word-table.bin", "r+b") as fh:
        fh.truncate(1000)


@pytest.mark.parametrize("damage", [_truncate_table, _damage_table, _damage_meta])
def test_a_damaged_split_folder_falls_back_and_is_written_again(cache, tmp_path, caplog, damage):
    model_dir = _e5onnx.ensure_converted(cache, "int8")
    work = _linked_copy(model_dir, tmp_path)
    with caplog.at_level(logging.INFO, logger="pagerecall.model.word_table"):
        split = _wordtable.ensure_split(work)
    assert split == work / "split", caplog.text
    assert (split / "word-table.bin").stat().st_size > 90_000_000
    ids = np.array([[0, 35378, 12, 5, 2]], dtype=np.int64)
    ref = _session(model_dir / "model.onnx").run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids)})[0]
    damage(split)
    with pytest.raises(ModelError, match="Next: delete"):
        _wordtable.WordTable(split)
    # the damaged folder is written again, and a killed writer's leftover is removed
    (work / ".split.tmp-killed").mkdir()
    (work / "split.old-99999").mkdir()  # a writer killed between its two renames
    (work / "split.old-99999" / "word-table.bin").write_bytes(bytes(1000))
    split = _wordtable.ensure_split(work)
    assert not (work / ".split.tmp-killed").exists() and not (work / "split.old-99999").exists()
    enc = _bundled._ort_encoder(work, "int8", None, passages=False)
    assert enc.table is not None
    np.testing.assert_array_equal(enc.run([(ids, np.ones_like(ids))])[0], ref)


def test_a_split_graph_that_does_not_load_or_cannot_be_written_falls_back(cache, tmp_path, caplog):
    model_dir = _e5onnx.ensure_converted(cache, "int8")
    work = _linked_copy(model_dir, tmp_path)
    split = _wordtable.ensure_split(work)
    (split / "model.onnx").write_bytes(b"not a graph")
    ids = np.array([[0, 35378, 12, 5, 2]], dtype=np.int64)
    feed = [(ids, np.ones_like(ids))]
    ref = _session(model_dir / "model.onnx").run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids)})[0]
    with caplog.at_level(logging.WARNING, logger="pagerecall.model.bundled"):
        enc = _bundled._ort_encoder(work, "int8", None, passages=False)
    assert enc.table is None and "does not load" in caplog.text
    np.testing.assert_array_equal(enc.run(feed)[0], ref)
    # a cache where the split cannot be written (here: its lock path is taken by a folder)
    shutil.rmtree(split)
    (work / ".split.lock").unlink(missing_ok=True)
    (work / ".split.lock").mkdir()
    with caplog.at_level(logging.INFO, logger="pagerecall.model.word_table"):
        assert _wordtable.ensure_split(work) is None
    assert "Cannot write the split graph" in caplog.text
    enc = _bundled._ort_encoder(work, "int8", None, passages=False)
    assert enc.table is None
    np.testing.assert_array_equal(enc.run(feed)[0], ref)


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
    openvino_or_skip()
    from pagerecall.model.openvino_encoder import OVEncoder

    full = OVEncoder(model_dir / "model.onnx").run([(ids, mask)])[0]
    np.testing.assert_array_equal(OVEncoder(split / "model.onnx", table=table).run([(ids, mask)])[0], full)
