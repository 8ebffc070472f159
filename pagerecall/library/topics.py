"""Topics of the library: communities of passages (:mod:`pagerecall.library.graph`) with a size,
their documents, a label per language (:mod:`pagerecall.library.labels`) and representative
passages as pointers.

Built once per generation at build/update time (:func:`build_topics`, written to
``library/topics.json`` by :mod:`pagerecall.library.build`); read by ``pagerecall topics`` and by
``search --topics`` (:func:`topic_of`), never computed on a query's path.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np

from pagerecall.library import store
from pagerecall.library.graph import GRAPH_MAX, KNN, MIN_TOPIC, RESOLUTION, communities, sample
from pagerecall.library.labels import ctfidf, label_classes, languages

FILE = store.TOPICS_FILE
CENTRE_LANGUAGES = True
"""Subtract each language's mean passage vector before the graph is built: a multilingual model's
vectors carry their language, and without it the same manual in 11 languages falls into 11 sets
of topics (measured in docs/library.md)."""
REPRESENTATIVES = 3
WHAT = "topics"
STRAY_SHARE = 0.25
"""A lone-language document's passages in a topic are strays when fewer than ``MIN_TOPIC`` and at
most this share of its passages in its main topic (:func:`lone_language_strays`)."""
ONE_DOCUMENT_SHARE = 0.9
"""A topic nine passages in ten of which come from one document is that document's (``one_document``),
not a subject the library's documents share: listed after the others, and its short label says so."""


COLUMNS = ("chunk_id", "file", "page_start", "page_end", "label_start", "label_end", "text")
"""The passage columns :func:`build_topics` reads (with the vectors)."""


def build_topics(snapshot: Any, previous: dict | None = None, data: tuple | None = None) -> dict:
    """The topics of ``snapshot``'s passages (the layout of ``topics.json``): ``{"method",
    "passages", "seconds", "topics": [{"id", "size", "one_document" (a path, or None: see
    :data:`ONE_DOCUMENT_SHARE`), "documents": [{"file", "passages"}],
    "languages": {lang: passages}, "label": {lang: [words]}, "representatives": [pointer]}],
    "assign": {chunk_id: topic id}}``. ``previous`` is the previous generation's ``topics.json``
    (seeds the communities: stable ids across an update that changes little); ``data`` the
    :func:`pagerecall.library.vectors.read_vectors` of :data:`COLUMNS` when already read."""
    from pagerecall.library.vectors import centred_by_language, read_vectors

    t0 = time.perf_counter()
    cols, vectors = data if data is not None else read_vectors(snapshot, COLUMNS)
    ids = cols["chunk_id"]
    prev = (previous or {}).get("assign") or None
    langs_by_file = languages(cols["file"], cols["text"])
    langs = [langs_by_file.get(f, "und") for f in cols["file"]]
    labels = communities(ids, centred_by_language(vectors, langs) if CENTRE_LANGUAGES else vectors, prev)
    labels = lone_language_strays(labels, cols["file"], langs_by_file)
    pos = sample(ids)  # labels from the graph's passages: bounded work at any size
    words = ctfidf(label_classes(labels[pos], [cols["text"][i] for i in pos], [langs[i] for i in pos]))
    topics = []
    for t in sorted({int(x) for x in labels if x >= 0}):
        rows = np.flatnonzero(labels == t)
        docs: dict[str, int] = {}
        lang_counts: dict[str, int] = {}
        for i in rows:
            docs[cols["file"][i]] = docs.get(cols["file"][i], 0) + 1
            lang_counts[langs[i]] = lang_counts.get(langs[i], 0) + 1
        centre = vectors[rows].mean(axis=0)
        near = rows[np.argsort(-(vectors[rows] @ centre), kind="stable")]
        reps, seen = [], set()
        for i in near:  # one per file first, so a topic shared by documents shows several
            if cols["file"][i] not in seen:
                seen.add(cols["file"][i])
                reps.append(int(i))
            if len(reps) == REPRESENTATIVES:
                break
        reps += [int(i) for i in near if int(i) not in reps][: REPRESENTATIVES - len(reps)]
        top_file, top_n = max(docs.items(), key=lambda x: (x[1], x[0]))
        topics.append({
            "id": t, "size": int(len(rows)),
            "one_document": top_file if top_n >= ONE_DOCUMENT_SHARE * len(rows) and len(set(cols["file"])) > 1
            else None,
            "documents": [{"file": f, "passages": n} for f, n in sorted(docs.items(), key=lambda x: (-x[1], x[0]))],
            "languages": dict(sorted(lang_counts.items(), key=lambda x: (-x[1], x[0]))),
            "label": {lang: words.get((t, lang), []) for lang in sorted(lang_counts, key=lambda x: -lang_counts[x])},
            "representatives": [{"chunk_id": ids[i], "file": cols["file"][i], "page_start": cols["page_start"][i],
                                 "page_end": cols["page_end"][i], "label_start": cols["label_start"][i],
                                 "label_end": cols["label_end"][i]}
                                for i in reps],
        })
    topics.sort(key=lambda x: (x["one_document"] is not None, -x["size"], x["id"]))
    return {
        "method": {"graph": f"exact {KNN}-nearest-neighbour graph of passage vectors (cosine)",
                   "communities": "Leiden (leidenalg), RBConfiguration (modularity)", "resolution": RESOLUTION,
                   "graph_max": GRAPH_MAX, "beyond": "nearest community centroid", "min_topic": MIN_TOPIC,
                   "labels": "c-TF-IDF per topic and language, over the graph's passages",
                   "lone_languages": "a document whose language no other document uses: its passages in a topic "
                                     f"where it has fewer than {MIN_TOPIC} and at most {STRAY_SHARE:.0%} of its "
                                     "main topic's join its main topic",
                   "one_document": f"{ONE_DOCUMENT_SHARE:.0%} or more of a topic's passages from one document"},
        "passages": len(ids), "unassigned": int((labels < 0).sum()),
        "seconds": round(time.perf_counter() - t0, 3),
        "topics": topics,
        "file_languages": langs_by_file,
        "assign": {cid: int(t) for cid, t in zip(ids, labels) if t >= 0},
    }


def lone_language_strays(labels: np.ndarray, files: Sequence[str], langs_by_file: dict[str, str]) -> np.ndarray:
    """``labels`` (int, -1: no topic) with the stray passages of lone-language documents moved: a
    document whose language no other document of the library uses sends to a topic fewer than
    ``MIN_TOPIC`` passages and at most :data:`STRAY_SHARE` of what it sends to its main topic (the
    one holding most of its passages) -> they join its main topic when that holds ``MIN_TOPIC`` or
    more, else no topic. A document spread evenly over several topics (the example corpus: each
    manual alone in its language, 2-4 passages per shared topic) keeps its topics.

    Why: the language centring subtracts each language's mean vector; for a language only one
    document uses that mean is the document's own, so its subject is subtracted with its language and
    a few of its passages land in unrelated topics (the French lighthouse log's passages in a LaTeX
    topic, labelled in French with "bateau, équipage, sauvetage"). Measured: docs/library.md."""
    by_lang: dict[str, list[str]] = {}
    for f, lang in langs_by_file.items():
        by_lang.setdefault(lang, []).append(f)
    lone = {fs[0] for lang, fs in by_lang.items() if len(fs) == 1 and lang != "und"}
    if not lone or len(langs_by_file) < 2:
        return labels
    out = labels.copy()
    arr = np.asarray(files, dtype=object)
    for f in lone:
        rows = np.flatnonzero(arr == f)
        mine = labels[rows]
        ts, counts = np.unique(mine[mine >= 0], return_counts=True)
        if not len(ts):
            continue
        top = int(counts.max())
        main = int(ts[np.argmax(counts)]) if top >= MIN_TOPIC else -1
        for t, c in zip(ts, counts):
            if c < MIN_TOPIC and c <= STRAY_SHARE * top and int(t) != int(ts[np.argmax(counts)]):
                out[rows[mine == t]] = main
    return out


def _short(topic: dict) -> str:
    label = topic.get("label") or {}
    first = next(iter(label.values()), []) if label else []
    words = ", ".join(first[:3])
    one = topic.get("one_document")
    return f"{words} (one document: {one})" if one else words


def read_topics(snapshot: Any) -> dict:
    """``topics.json`` of ``snapshot``'s generation. Raises ``IndexMismatchError`` (built before
    topics were stored, or their build failed: says what to run)."""
    return store.read(snapshot.path, FILE, WHAT)


def topic_of(snapshot: Any, chunk_ids: Sequence[str]) -> dict[str, dict | None]:
    """``{chunk_id: {"id", "label"} or None}``: the topic of each passage (None: in no topic).
    ``label`` is the first words of the topic's label in its main language. Raises as
    :func:`read_topics`."""
    data = read_topics(snapshot)
    assign = data.get("assign") or {}
    by_id = {t["id"]: t for t in data.get("topics") or []}
    out: dict[str, dict | None] = {}
    for cid in chunk_ids:
        t = assign.get(cid)
        out[cid] = None if t is None or t not in by_id else {"id": t, "label": _short(by_id[t])}
    return out


def list_topics(searcher: Any, limit: int | None = None, file: str | None = None) -> dict:
    """``pagerecall topics``: ``{"generation", "passages", "unassigned", "method", "topics": [...]}``,
    the topics several documents share largest first, then those of one document (``one_document``:
    its path; None for the others) (at most ``limit``); with ``file``, only the topics that file's passages are in.
    ``total``: how many topics there are (those of ``file``) before ``limit`` cuts the list.
    Raises as :func:`read_topics`; ``SourceArgumentError`` for a file argument the index does not hold;
    ``QueryError`` (a usage error) for a ``limit`` below 1."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        from pagerecall.errors import QueryError

        raise QueryError(f"limit must be 1 or more, got {limit!r}. Next: ask for 1 or more topics, "
                         "or leave the limit out for all")
    snapshot = searcher.snapshot()
    data = read_topics(snapshot)
    topics = data.get("topics") or []
    if file is not None:
        from pagerecall.library.pointers import file_record

        path = file_record(searcher, snapshot, file)["path"]
        topics = [t for t in topics if any(d["file"] == path for d in t["documents"])]
    total = len(topics)
    if limit is not None:
        topics = topics[:limit]
    return {"generation": snapshot.name, "passages": data.get("passages"), "unassigned": data.get("unassigned"),
            "method": data.get("method"), "topics": topics, "total": total,
            "note": "topics are computed when the index is built or updated; representatives are pointers: "
                    "read the pages to quote them"}
