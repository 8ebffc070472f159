"""Topic labels of Japanese and Chinese text are words, not character bigrams, and no language's
stop-words: the example corpus's Japanese and Chinese text layers and maint-guide.ja's text (real
files), each page one class of the c-TF-IDF that labels topics."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from tests.conftest import shared_path
from pagerecall.extract.textlayer import read_textlayer
from pagerecall.library.labels import ctfidf, label_classes, stopwords

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "corpus"
HIRAGANA = re.compile(r"[\u3040-\u309f]")


def _labels(files: list[tuple[str, str, list[str]]]) -> dict[tuple[int, str], list[str]]:
    topics, texts, langs = [], [], []
    for n, (name, lang, pages) in enumerate(files):
        for i, text in enumerate(pages):
            topics.append(10 * n + i)
            texts.append(text)
            langs.append(lang)
    return ctfidf(label_classes(topics, texts, langs))


def test_japanese_and_chinese_labels_are_words():
    ja = [p.text for p in read_textlayer(EXAMPLES / "ja/kamomegasaki-tebiki.txt", "ja").pages]
    zh = [p.text for p in read_textlayer(EXAMPLES / "zh/bailujiao-dengta.txt", "zh").pages]
    labels = _labels([("ja", "ja", ja), ("zh", "zh", zh)])
    ja_words = [w for (t, lang), ws in labels.items() if lang == "ja" for w in ws]
    zh_words = [w for (t, lang), ws in labels.items() if lang == "zh" for w in ws]
    assert {"レンズ", "地震", "灯台日誌"} <= set(ja_words)  # a katakana word whole, kanji compounds
    assert not [w for w in ja_words if HIRAGANA.search(w)]  # no particle fragments (には, がある)
    assert {"透镜", "台风", "灯塔"} <= set(zh_words)  # words, not 风季 / 鹭角
    assert all(len(ws) >= 3 for (t, lang), ws in labels.items())


def test_no_stop_words_of_any_corpus_language_in_labels():
    import pymupdf

    with pymupdf.open(shared_path("corpora", "demo", "maint-guide.ja.pdf")) as d:
        ja = [d[i].get_text() for i in range(8, 40)]
    with pymupdf.open(shared_path("corpora", "demo", "maint-guide.en.pdf")) as d:
        en = [d[i].get_text() for i in range(8, 40)]
    labels = _labels([("ja", "ja", ja), ("en", "en", en)])
    stop = stopwords(frozenset({"ja", "en"}))
    words = Counter(w for ws in labels.values() for w in ws)
    assert not [w for w in words if w in stop or HIRAGANA.search(w)]
    assert {"your", "which", "will", "should", "have"}.isdisjoint(words)
