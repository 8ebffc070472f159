"""Rerankers: a real (tiny) ONNX cross-encoder loaded through fastembed's custom path, and the
documented fallback scorer when no cross-encoder can be loaded. No mocks: the tiny model is a
real ONNX graph run by onnxruntime, and the fallback runs the real bundled embedder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from pagerecall.config import Settings
from pagerecall.model.rerank import (
    DEFAULT_RERANKER,
    LEXICAL_WEIGHT,
    CrossEncoderReranker,
    FallbackReranker,
    Reranker,
    lexical_terms,
    load_reranker,
    lexical_share,
)
from pagerecall.model.tokenization import bundled_e5_tokenizer_path

VOCAB = 250002


def _tiny_cross_encoder(folder: Path, seed: int = 7) -> np.ndarray:
    """Write a tiny ONNX 'cross-encoder': logits (batch, 1) = sum over real tokens of W[id].

    Returns W so a test can compute the expected score of any pair independently.
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    w = np.random.default_rng(seed).normal(size=VOCAB).astype(np.float32)
    nodes = [
        helper.make_node("Gather", ["W", "input_ids"], ["per_token"]),
        helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["per_token", "mask_f"], ["masked"]),
        helper.make_node("ReduceSum", ["masked", "axes"], ["logits"], keepdims=1),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny_cross_encoder",
        inputs=[
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        outputs=[helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])],
        initializer=[numpy_helper.from_array(w, "W"), numpy_helper.from_array(np.array([1], np.int64), "axes")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    folder.mkdir(parents=True, exist_ok=True)
    onnx.save_model(model, str(folder / "model.onnx"))
    shutil.copyfile(bundled_e5_tokenizer_path(), folder / "tokenizer.json")
    (folder / "tokenizer_config.json").write_text(json.dumps({"model_max_length": 512, "pad_token": "<pad>"}))
    return w


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory) -> Path:
    """A cache dir sharing the converted embedding model with the default cache, and nothing else
    (so no cross-encoder is cached there, whatever this machine has downloaded)."""
    from pagerecall.model import converter as _e5onnx

    default = Settings.from_env().cache_dir
    _e5onnx.ensure_converted(default, "int8")
    cache = tmp_path_factory.mktemp("rerank-cache")
    (cache / "models").symlink_to(default / "models", target_is_directory=True)
    return cache


def test_local_onnx_cross_encoder_scores_come_from_the_model(tmp_path):
    from tokenizers import Tokenizer

    folder = tmp_path / "tiny-ce"
    w = _tiny_cross_encoder(folder)
    rr = load_reranker(Settings(reranker=str(folder), cache_dir=tmp_path / "cache"))
    assert isinstance(rr, CrossEncoderReranker) and isinstance(rr, Reranker)
    assert rr.kind == "cross-encoder" and rr.name == str(folder.resolve())
    query = "water pump reset after power failure"
    passages = [
        "Reset the water pump by holding the red button for five seconds.",
        "Der Vertrag beendete den Krieg.",
        "博物館は平日の朝九時に開館します。",
        "pump pump pump",
    ]
    scores = rr.score(query, passages)
    assert scores.shape == (4,) and scores.dtype == np.float32
    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    expected = np.array([w[tok.encode(query, p).ids].sum() for p in passages], dtype=np.float32)
    np.testing.assert_allclose(scores, expected, rtol=1e-5, atol=1e-4)
    # order follows the input, and a different model gives different scores
    np.testing.assert_allclose(rr.score(query, passages[::-1]), expected[::-1], rtol=1e-5, atol=1e-4)
    assert rr.score(query, []).shape == (0,)
    assert load_reranker(Settings(reranker=str(folder), cache_dir=tmp_path / "cache")) is rr


def test_folder_without_tokenizer_config_falls_back_with_the_reason(tmp_path, model_cache):
    folder = tmp_path / "broken-ce"
    _tiny_cross_encoder(folder)
    (folder / "tokenizer_config.json").unlink()
    rr = load_reranker(Settings(reranker=str(folder), cache_dir=model_cache))
    assert rr.kind == "fallback" and isinstance(rr, FallbackReranker)
    assert "tokenizer_config.json" in rr.reason
    assert rr.name.startswith("cosine+lexical(") and "e5" in rr.name


def test_unset_reranker_does_not_download_and_falls_back(model_cache):
    rr = load_reranker(Settings(reranker=None, cache_dir=model_cache))
    assert rr.kind == "fallback"
    assert DEFAULT_RERANKER in rr.reason and "PAGERECALL_RERANKER" in rr.reason
    assert not any(p.name != "models" for p in model_cache.iterdir()), "nothing may be fetched"


def test_unknown_reranker_name_falls_back(model_cache):
    rr = load_reranker(Settings(reranker="no-such-org/no-such-reranker", cache_dir=model_cache))
    assert rr.kind == "fallback" and "Unknown reranker" in rr.reason


def test_fallback_ranks_the_relevant_widened_passage_first(model_cache):
    rr = load_reranker(Settings(reranker="no-such-org/no-such-reranker", cache_dir=model_cache))
    query = "How do I reset the water pump after a power failure?"
    passages = [
        "The museum opens at nine in the morning on weekdays. Tickets are sold at the entrance.",
        "After a power failure, reset the water pump: switch off the breaker, wait ten seconds, "
        "then hold the red reset button until the green lamp lights.",
        "Der Vertrag beendete den Krieg zwischen den beiden Königreichen.",
    ]
    s = rr.score(query, passages)
    assert s.shape == (3,) and s.dtype == np.float32
    assert int(np.argmax(s)) == 1
    # the score is exactly cosine + weight * coverage, with the embedder's prefixes
    emb = rr.embedder
    cos = emb.embed_passages(passages) @ emb.embed_queries([query])[0]
    cov = np.array([lexical_share(query, p) for p in passages])
    np.testing.assert_allclose(s, cos + LEXICAL_WEIGHT * cov, atol=1e-5)


def test_fallback_reads_a_line_end_split_as_the_joined_word(model_cache):
    """The full-text lane indexes ``cap-\\nture`` as "capture" (and its halves); the fallback scorer
    reads it the same way: coverage counts the word, and the model embeds the joined text."""
    rr = load_reranker(Settings(reranker="no-such-org/no-such-reranker", cache_dir=model_cache))
    split = "The keeper notes the cap-\nture of every drifting buoy in the journal."
    joined = "The keeper notes the capture of every drifting buoy in the journal."
    assert lexical_share("capture buoy", split) == 1.0
    assert lexical_share("cap ture", split) == 1.0  # the printed halves still count
    query = "capture of a drifting buoy"
    np.testing.assert_allclose(rr.score(query, [split]), rr.score(query, [joined]), atol=1e-6)


def test_lexical_terms_and_coverage():
    assert lexical_terms("Die Pumpe P-101 läuft") == {"die", "pumpe", "p", "101", "läuft"}
    assert lexical_terms("東京都") == {"東京", "京都"}
    assert lexical_terms("ＡＢＣ") == {"abc"}  # NFKC folds full-width letters
    assert lexical_share("pump P-101", "The pump p-101 failed") == 1.0
    assert lexical_share("pump P-101", "nothing here") == 0.0
    assert lexical_share("", "anything") == 0.0


def test_fallback_scores_with_the_index_families_query_embedder(model_cache):
    """Deep mode on an fp32-family index (built by OpenVINO) reranks with the q4f32 query embedder
    its queries already loaded, not a second (int8) model; an int8 index keeps the int8 one."""
    from pagerecall.config import DEFAULT_MODEL
    from pagerecall.model.embedding import load_embedder

    settings = Settings(reranker="no-such-org/no-such-reranker", cache_dir=model_cache)
    fp32_index = {"model": DEFAULT_MODEL, "quantization": "fp32"}
    rr = load_reranker(settings, fp32_index)
    assert rr.kind == "fallback"
    assert rr.embedder is load_embedder(settings, index_fingerprint=fp32_index)
    assert rr.embedder.quantization == "fp32" and rr.embedder.model_dir.name.endswith("q4f32")
    int8 = load_reranker(settings, {"model": DEFAULT_MODEL, "quantization": "int8"})
    assert int8.embedder.quantization == "int8" and int8 is not rr
    assert load_reranker(settings).embedder is int8.embedder  # no fingerprint: the int8 default
