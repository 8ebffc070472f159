"""The weak rule's probes in eleven languages: a query's language by its nearest probes' mean, and the probe
vectors kept on disk per model (real bundled model; no index needed)."""

from __future__ import annotations


import numpy as np
import pytest

from pagerecall.config import Settings
from pagerecall.search.weak import NOISE_PROBES
from pagerecall.search.weak_probes import OFF_TOPIC_TEXTS, by_language, cached_vectors, query_language


@pytest.fixture(scope="module")
def embedder():
    from pagerecall.model.embedding import load_embedder

    return load_embedder(Settings.from_env())


@pytest.mark.parametrize("query,lang", [
    ("Wann ist die Titanic gesunken?", "de"), ("Qui a peint le plafond de la chapelle Sixtine ?", "fr"),
    ("¿Cuántas calorías tiene un vaso de zumo de naranja?", "es"), ("半熟卵は何分ゆでればいいですか", "ja"),
    ("小猫需要打哪些疫苗？", "zh"), ("Какие прививки нужны котёнку?", "ru"), ("When did the Titanic sink?", "en"),
    ("ما هي عاصمة البرازيل؟", "ar"), ("كيف أنشئ حزمة دبيان من الشيفرة المصدرية؟", "ar"),  # before the Arabic probes: "ko"
])
def test_a_query_is_measured_against_the_probes_of_its_language(embedder, query, lang):
    topics = by_language(embedder.embed_queries(list(OFF_TOPIC_TEXTS)))
    assert query_language(embedder.embed_queries([query])[0], topics) == lang


def test_probe_vectors_are_kept_on_disk_per_model(embedder, tmp_path):
    texts = list(NOISE_PROBES + OFF_TOPIC_TEXTS)
    calls = []

    def embed(batch):
        calls.append(len(batch))
        return embedder.embed_queries(batch)

    fp = {"model": "intfloat/multilingual-e5-small", "dim": 384}
    first = cached_vectors(tmp_path, fp, texts, embed)
    again = cached_vectors(tmp_path, fp, texts, embed)
    assert calls == [len(texts)] and first.shape == (len(texts), 384) and np.array_equal(first, again)
    cached_vectors(tmp_path, dict(fp, model="another"), texts, embed)  # another model: its own file
    assert calls == [len(texts), len(texts)] and len(list(tmp_path.glob("weak-probes-*.npy"))) == 2
    unwritable = tmp_path / "file"
    unwritable.write_text("")
    assert np.array_equal(cached_vectors(unwritable, fp, texts, embed), first)  # a folder it cannot use: embeds
