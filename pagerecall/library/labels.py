"""Topic labels: the words that set a topic apart, per language (class-based TF-IDF).

c-TF-IDF (Grootendorst 2022, BERTopic): the passages of one topic in one language are one class;
a word's weight is its frequency in the class times ``log(1 + A / f)``, with ``A`` the mean number
of words per class and ``f`` the word's frequency over all classes. Words are folded
(:func:`pagerecall.text.fold`-style: lower case, NFKC), of 3+ letters; stop-words of every language
of the corpus are dropped (the ``stopwordsiso`` lists, English always: technical text quotes it).
Scripts written without spaces are cut into words (:func:`words_of`): Japanese into runs of kanji
and runs of katakana (hiragana are mostly particles and endings: ``レンズ``, ``灯台``, ``焦点``),
Chinese into the words of ``rjieba`` (jieba's dictionary; ``透镜``, ``台风``, ``补给``), numerals
left out. Why and the labels measured:
docs/decisions/library-topics.md ("CJK labels"). The language of a file is told from its text by
script, then by the share of a few very common words (:func:`language_of`): a heuristic meant to
keep each label in one language, not a language identifier.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections import Counter
from typing import Iterable, Sequence

LABEL_WORDS = 6
"""Words per label."""

_COMMON = {
    "en": "the and of to is in that for with are this you be as on it by or from",
    "de": "der die und das ist den nicht mit ein eine sie auf für sich dem des zu von im",
    "fr": "le la les et des est une pour que dans qui pas sur par avec vous du au ce",
    "es": "el la los las y de que en un una es por para con se del no su al",
    "it": "il la le di che è per un una non con del della sono gli si al da",
    "pt": "o a os as de que em um uma é para com não do da no na se",
    "ca": "el la els les i de que en un una és per amb no del als es",
    "nl": "de het een en van is dat op te in niet met voor zijn er",
    "vi": "và của các là có trong được cho không một những này với để",
    "pl": "i w na z się nie do że jest to jak po o od",
    "cs": "a v se na je že s z do o to jako pro by",
}
_COMMON_SETS = {lang: set(words.split()) for lang, words in _COMMON.items()}
_WORD = re.compile(r"[^\W\d_]{3,}")
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{2,}")
_STOP = set().union(*_COMMON_SETS.values())
_SCRIPTS = {
    "ja": re.compile(r"[\u3040-\u30ff]"), "han": re.compile(r"[\u4e00-\u9fff]"), "ko": re.compile(r"[\uac00-\ud7af]"),
    "ru": re.compile(r"[\u0400-\u04ff]"), "el": re.compile(r"[\u0370-\u03ff]"), "ar": re.compile(r"[\u0600-\u06ff]"),
    "th": re.compile(r"[\u0e00-\u0e7f]"), "he": re.compile(r"[\u0590-\u05ff]"),
    "latin": re.compile(r"[A-Za-z\u00c0-\u024f]"),
}


def language_of(text: str) -> str:
    """A language code for ``text`` (a sample of a file): ``ja`` (kana), ``zh`` (Han without kana),
    ``ko`` (Hangul), ``ru`` (Cyrillic), ``el``, ``ar`` (Arabic script), ``th``, ``he``; in Latin
    script the language of :data:`_COMMON` whose common words are most frequent, else ``und``."""
    sample = text[:20_000]
    counts = Counter({name: len(pattern.findall(sample)) for name, pattern in _SCRIPTS.items()})
    counts = Counter({k: v for k, v in counts.items() if v})
    if not counts:
        return "und"
    kana = counts.pop("ja", 0)
    cjk = kana + counts.pop("han", 0)
    script = max(counts, key=counts.get) if counts else "cjk"
    if cjk > counts.get(script, 0):
        return "ja" if kana > 0.05 * cjk else "zh"
    if script != "latin":
        return script
    words = Counter(w.lower() for w in re.findall(r"[^\W\d_]+", sample))
    best = max(_COMMON_SETS, key=lambda lang: sum(words[w] for w in _COMMON_SETS[lang]))
    return best if sum(words[w] for w in _COMMON_SETS[best]) else "und"


_KANJI_RUN = re.compile(r"[\u3400-\u9fff\u3005]{2,}")
_KATAKANA_RUN = re.compile(r"[\u30a0-\u30ff\u31f0-\u31ff]{2,}")
_HAN_RUN = re.compile(r"[\u3400-\u9fff]+")
_NUMERALS = set("〇一二三四五六七八九十百千万两零第几")
_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\u3005\u3400-\u9fff\uac00-\ud7af]")
_HANGUL_WORD = re.compile(r"[\uac00-\ud7af]{2,}")


@functools.lru_cache(maxsize=16)
def stopwords(langs: frozenset[str]) -> frozenset[str]:
    """The stop-words of ``langs`` and English, folded (``stopwordsiso``; our few common words of
    :data:`_COMMON` without it)."""
    out = set(_STOP)
    try:
        import stopwordsiso
    except ImportError:  # the lists are a declared dependency; without them: the few common words
        return frozenset(out)
    for lang in langs | {"en"}:
        if stopwordsiso.has_lang(lang):
            out.update(unicodedata.normalize("NFKC", w).lower() for w in stopwordsiso.stopwords(lang))
    return frozenset(out)


def _han_words(run: str) -> list[str]:
    """Words of a run of Han characters (Chinese): ``rjieba``'s segmentation (jieba's dictionary),
    words of 2+ characters not starting with a numeral (``三次``, ``二十``); character bigrams when
    ``rjieba`` is missing."""
    try:
        import rjieba
    except ImportError:  # a declared dependency; without it, the bigrams labels had before
        return [run[i:i + 2] for i in range(len(run) - 1)]
    return [w for w in rjieba.cut(run) if len(w) >= 2 and _HAN_RUN.fullmatch(w) and w[0] not in _NUMERALS]


def words_of(text: str, lang: str | None = None, stop: frozenset[str] | None = None) -> list[str]:
    """The label words of ``text`` (its file's language ``lang``): folded words of 3+ letters that
    are not stop-words (``stop``, default :func:`stopwords` of ``lang``); in Japanese the runs of
    kanji and of katakana, in Chinese ``rjieba``'s words (:func:`_han_words`), in Korean the
    Hangul words (the module docstring)."""
    t = unicodedata.normalize("NFKC", text).lower()
    stop = stop if stop is not None else stopwords(frozenset({lang} if lang else ()))
    out = [w for w in _WORD.findall(_CJK_CHAR.sub(" ", t)) if w not in stop]  # "やapt": "apt"
    if lang == "ja" or (lang is None and re.search(r"[\u3040-\u30ff]", t)):
        cjk = _KANJI_RUN.findall(t) + _KATAKANA_RUN.findall(t)
    else:
        cjk = [w for run in _HAN_RUN.findall(t) for w in _han_words(run)]
    out.extend(w for w in cjk if w not in stop and w[0] not in _NUMERALS)
    out.extend(w for w in _HANGUL_WORD.findall(t) if w not in stop)
    return out


def ctfidf(classes: dict[tuple[int, str], Counter], top: int = LABEL_WORDS) -> dict[tuple[int, str], list[str]]:
    """``{class: [top words]}`` by c-TF-IDF over ``classes`` (``{(topic, language): word counts}``)."""
    total = Counter()
    for c in classes.values():
        total.update(c)
    if not classes:
        return {}
    mean_words = sum(sum(c.values()) for c in classes.values()) / len(classes)
    out = {}
    for key, counts in classes.items():
        size = sum(counts.values()) or 1
        scored = sorted(((cnt / size) * math.log(1 + mean_words / total[w]), w)
                        for w, cnt in counts.items() if cnt >= 2)
        out[key] = [w for _, w in reversed(scored[-top:])]
    return out


def label_classes(topics: Sequence[int], texts: Sequence[str], langs: Sequence[str]) -> dict[tuple[int, str], Counter]:
    """Word counts per (topic, language) of the passages with a topic (``>= 0``); stop-words of
    every language among ``langs`` dropped (:func:`stopwords`)."""
    classes: dict[tuple[int, str], Counter] = {}
    stop = stopwords(frozenset(langs))
    for t, text, lang in zip(topics, texts, langs):
        if t >= 0:
            classes.setdefault((int(t), lang), Counter()).update(words_of(text, lang, stop))
    return classes


def languages(files: Iterable[str], texts: Iterable[str]) -> dict[str, str]:
    """``{file: language}`` from the first 20,000 characters of each file's passages."""
    sample: dict[str, list[str]] = {}
    size: dict[str, int] = {}
    for f, t in zip(files, texts):
        if size.get(f, 0) < 20_000:
            sample.setdefault(f, []).append(t)
            size[f] = size.get(f, 0) + len(t)
    return {f: language_of(" ".join(parts)) for f, parts in sample.items()}
