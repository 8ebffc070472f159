"""Topic labels: the words that set a topic apart, per language (class-based TF-IDF).

c-TF-IDF (Grootendorst 2022, BERTopic): the passages of one topic in one language are one class;
a word's weight is its frequency in the class times ``log(1 + A / f)``, with ``A`` the mean number
of words per class and ``f`` the word's frequency over all classes. Words are folded
(:func:`pagerecall.text.fold`-style: lower case, NFKC), of 3+ letters; Chinese, Japanese and Korean
runs give character bigrams (no word spaces). The language of a file is told from its text by
script, then by the share of a few very common words (:func:`language_of`): a heuristic meant to
keep each label in one language, not a language identifier.
"""

from __future__ import annotations

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


def words_of(text: str) -> list[str]:
    """The label words of ``text``: folded words of 3+ letters without very common words, and
    character bigrams of CJK runs."""
    t = unicodedata.normalize("NFKC", text).lower()
    out = [w for w in _WORD.findall(t) if w not in _STOP and not _CJK_RUN.fullmatch(w)]
    for run in _CJK_RUN.findall(t):
        out.extend(run[i:i + 2] for i in range(len(run) - 1))
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
    """Word counts per (topic, language) of the passages with a topic (``>= 0``)."""
    classes: dict[tuple[int, str], Counter] = {}
    for t, text, lang in zip(topics, texts, langs):
        if t >= 0:
            classes.setdefault((int(t), lang), Counter()).update(words_of(text))
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
