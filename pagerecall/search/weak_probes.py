"""Everyday questions in eleven languages: the yardstick of an unrelated query, in the query's own language.

How close an unrelated question gets to an index depends on its language as much as on its meaning:
E5's cosines are compressed, and a German question sits closer to the German pages of a library than an
English one does to any page (``docs/decisions/weak-languages.md``). So the weak rule
(:mod:`pagerecall.search.weak`) measures a query against the same eight everyday topics asked in its own
language (:data:`OFF_TOPIC_BY_LANGUAGE`), the language being the one whose topics' mean vector is nearest to the
query (:func:`query_language`): the eight topics are the same in every language, so their mean differs
between languages by the language, not the topic.
"""

from __future__ import annotations

from typing import Any, Mapping

OFF_TOPIC_BY_LANGUAGE: dict[str, tuple[str, ...]] = {
    "en": ("recipe for banana bread", "Who won the football world cup?", "weather forecast for tomorrow in Paris",
           "how to train a puppy to sit", "best hiking trails in the Alps", "symptoms of the common cold",
           "history of the Roman empire", "how to grow tomatoes on a balcony"),
    "de": ("Rezept für Bananenbrot", "Wer hat die Fußballweltmeisterschaft gewonnen?",
           "Wettervorhersage für morgen in Paris", "Wie bringe ich einem Welpen Sitz bei?",
           "die schönsten Wanderwege in den Alpen", "Symptome einer Erkältung", "Geschichte des Römischen Reiches",
           "Tomaten auf dem Balkon anbauen"),
    "fr": ("recette du pain à la banane", "Qui a gagné la coupe du monde de football ?",
           "prévisions météo pour demain à Paris", "comment apprendre à un chiot à s'asseoir",
           "les plus beaux sentiers de randonnée dans les Alpes", "symptômes du rhume", "histoire de l'Empire romain",
           "cultiver des tomates sur un balcon"),
    "es": ("receta de pan de plátano", "¿Quién ganó la copa mundial de fútbol?",
           "pronóstico del tiempo para mañana en París", "cómo enseñar a un cachorro a sentarse",
           "las mejores rutas de senderismo en los Alpes", "síntomas del resfriado común", "historia del Imperio romano",
           "cómo cultivar tomates en el balcón"),
    "it": ("ricetta del pane alla banana", "Chi ha vinto la coppa del mondo di calcio?",
           "previsioni del tempo per domani a Parigi", "come insegnare a un cucciolo a sedersi",
           "i migliori sentieri escursionistici delle Alpi", "sintomi del raffreddore", "storia dell'Impero romano",
           "coltivare pomodori sul balcone"),
    "pt": ("receita de pão de banana", "Quem ganhou a copa do mundo de futebol?",
           "previsão do tempo para amanhã em Paris", "como ensinar um filhote a sentar", "as melhores trilhas nos Alpes",
           "sintomas do resfriado comum", "história do Império Romano", "como plantar tomates na varanda"),
    "ru": ("рецепт бананового хлеба", "Кто выиграл чемпионат мира по футболу?", "прогноз погоды на завтра в Париже",
           "как научить щенка команде «сидеть»", "лучшие пешеходные маршруты в Альпах", "симптомы простуды",
           "история Римской империи", "как вырастить помидоры на балконе"),
    "ja": ("バナナブレッドのレシピ", "サッカーのワールドカップで優勝したのはどこですか", "明日のパリの天気予報",
           "子犬にお座りを教える方法", "アルプスのおすすめハイキングコース", "風邪の症状", "ローマ帝国の歴史",
           "ベランダでトマトを育てる方法"),
    "zh": ("香蕉面包的做法", "谁赢得了足球世界杯？", "巴黎明天的天气预报", "如何训练小狗坐下", "阿尔卑斯山最好的徒步路线",
           "普通感冒的症状", "罗马帝国的历史", "如何在阳台上种番茄"),
    "ko": ("바나나 브레드 만드는 법", "축구 월드컵에서 누가 우승했나요?", "내일 파리 날씨 예보",
           "강아지에게 앉아를 가르치는 방법", "알프스 최고의 등산로", "감기 증상", "로마 제국의 역사",
           "베란다에서 토마토 키우는 법"),
    "ar": ("وصفة خبز الموز", "من فاز بكأس العالم لكرة القدم؟", "توقعات الطقس ليوم غد في باريس",
           "كيف أعلّم جروًا الجلوس؟", "أفضل مسارات المشي في جبال الألب", "أعراض نزلة البرد", "تاريخ الإمبراطورية الرومانية",
           "كيف أزرع الطماطم في الشرفة؟"),
}
"""The same eight everyday topics (a recipe, a football result, a weather forecast, a puppy, hiking, a cold,
Roman history, tomatoes) in eleven languages (Arabic since weak12: an Arabic
question was measured against the Korean probes, ``bench/weak_cases.py``). Their median margin in an index is the yardstick of an unrelated
question in that language (:func:`pagerecall.search.weak.off_topic_margin`); a corpus that holds one of the
topics raises one probe, not the median. Languages of the corpora (``../shared/corpora``: maint-guide,
debian-reference, lshort) and of the eval sets; a query in another language is measured against the nearest
of them (Dutch against German or English, Catalan against Spanish or French)."""

LANGUAGES: tuple[str, ...] = tuple(OFF_TOPIC_BY_LANGUAGE)
OFF_TOPIC_TEXTS: tuple[str, ...] = tuple(t for lang in LANGUAGES for t in OFF_TOPIC_BY_LANGUAGE[lang])
"""Every language's probes, in :data:`LANGUAGES` order (what a searcher embeds once, after the noise probes)."""


def by_language(vectors: Any) -> dict[str, Any]:
    """``vectors`` of :data:`OFF_TOPIC_TEXTS` (float32 (88, dim), in that order) split per language."""
    out, i = {}, 0
    for lang in LANGUAGES:
        n = len(OFF_TOPIC_BY_LANGUAGE[lang])
        out[lang] = vectors[i:i + n]
        i += n
    return out


def query_language(vector: Any, topics: Mapping[str, Any]) -> str:
    """The language of :data:`LANGUAGES` whose probes' mean vector (``topics[lang]``: float32 (8, dim),
    L2-normalised rows) is nearest (cosine) to the query ``vector`` (float32 (dim,)). The topics are the
    same in every language, so the means differ by language: a German question is nearest the German mean."""
    import numpy as np

    best, lang = float("-inf"), LANGUAGES[0]
    for name, vecs in topics.items():
        mean = np.asarray(vecs).mean(axis=0)
        score = float(np.dot(mean, vector)) / (float(np.linalg.norm(mean)) or 1.0)
        if score > best:
            best, lang = score, name
    return lang


def cached_vectors(cache_dir: Any, fingerprint: Mapping[str, Any], texts: list[str], embed: Any) -> Any:
    """``embed(texts)`` (query vectors, float32 (n, dim)), kept in ``cache_dir/weak-probes-<key>.npy``, the key a
    SHA-256 of the index's model ``fingerprint`` and the texts: a one-shot ``pagerecall search`` that reaches the
    weak rule reads 95 probe vectors (146 KB) instead of embedding them (about 1 CPU-s on 2 AVX2 cores against
    0.17 s for the 15 probes of one language; docs/decisions/weak-languages.md). The vectors are the ones the
    query embedder of that fingerprint gives; a folder that cannot be read or written costs only the embedding."""
    import hashlib
    import json
    import os
    from pathlib import Path

    import numpy as np

    key = hashlib.sha256(json.dumps([dict(fingerprint), texts], sort_keys=True, default=str).encode()).hexdigest()[:24]
    path = Path(cache_dir) / f"weak-probes-{key}.npy"
    try:
        got = np.load(path, allow_pickle=False)
        if got.shape[0] == len(texts):
            return got
    except (OSError, ValueError):
        pass
    vectors = np.asarray(embed(texts), dtype=np.float32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as fh:
            np.save(fh, vectors, allow_pickle=False)
        os.replace(tmp, path)
    except OSError:
        pass
    return vectors
