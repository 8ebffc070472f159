"""The classifier that tells a sentence addressed to an AI agent from one that only speaks about
instructions, AI or models (layer: model): :class:`InstructionJudge`.

A logistic regression over the bundled model's query embeddings (multilingual-e5-small,
``"query: "`` prefix, 384 dimensions, L2-normalised) of a sentence as a reader sees it
(:func:`pagerecall.text.reader_view.reader_view`). Trained offline by
``bench/train_instruction_judge.py`` on the labelled set ``tests/text/instruction_set.jsonl``
(21 languages; its ``train`` part only) plus ordinary sentences of the demo corpus as negatives;
the weights, the bias and the decision threshold ship as ``data/instruction_judge.json`` (package
data, ~9 KB). Precision and recall on the train and held-out parts: the decision record
``docs/decisions/instruction-classifier.md``.

Used at build time only, on candidate sentences (:func:`pagerecall.text.instruction_cues.is_candidate`):
the build's own embedder embeds them (it is loaded already), so the cost is the embedding of those
few sentences. Another embedding model than the bundled one has no weights here: then
:func:`judge_for` gives None and the patterns decide alone.
"""

from __future__ import annotations

import json
import threading
import weakref
from functools import lru_cache
from importlib import resources
from typing import Any, Sequence

import numpy as np

from pagerecall.config import DEFAULT_MODEL

__all__ = ["InstructionJudge", "embed_sentences", "judge_for", "load_weights"]

WEIGHTS_FILE = "instruction_judge.json"


@lru_cache(maxsize=1)
def load_weights() -> dict[str, Any]:
    """The shipped weights: ``{"model", "w" (384 floats), "b", "threshold", "trained"}``.
    Raises ``FileNotFoundError`` when the package data is missing."""
    text = resources.files("pagerecall.model").joinpath("data", WEIGHTS_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def embed_sentences(embedder: Any, sentences: Sequence[str]) -> np.ndarray:
    """The query embeddings the weights apply to (and were trained on): float32 ``(n, 384)``,
    each sentence embedded alone by ``embedder.embed_queries`` (:class:`InstructionJudge`)."""
    if not sentences:
        return np.zeros((0, 384), dtype=np.float32)
    return np.concatenate([np.asarray(embedder.embed_queries([s]), dtype=np.float32) for s in sentences])


MEMO_SENTENCES = 20_000
"""Scores a judge remembers by sentence text (about 3 MB of keys at 150 characters each): a
``watch`` or resident server that updates the same files again re-judges only new sentences."""


class InstructionJudge:
    """Scores sentences with the shipped logistic regression on ``embedder``'s query embeddings.

    ``embedder`` must be the bundled multilingual-e5-small (what the weights were trained on):
    any object with ``embed_queries(texts) -> np.ndarray`` of shape ``(n, 384)``, float32, rows
    L2-normalised.

    Each sentence is embedded alone (one model call per sentence): no padding to a longer batch
    mate (a file's candidates padded to its longest cost 2.2x their tokens), and a score that
    depends on the sentence only, also with the int8 graph (dynamic quantisation makes a vector
    depend on its batch mates): the same sentence gets the same verdict in any file, build or
    order, which is what lets the scores be remembered by text (:data:`MEMO_SENTENCES`).
    Thread-safe (the embedder is)."""

    def __init__(self, embedder: Any, weights: dict[str, Any] | None = None) -> None:
        w = weights or load_weights()
        self.embedder = embedder
        self.w = np.asarray(w["w"], dtype=np.float32)
        self.b = float(w["b"])
        self.threshold = float(w["threshold"])
        self.sentences = 0  # embedded by the model so far (cost accounting for bench/)
        self.remembered = 0  # answered from the memo
        self._memo: dict[str, float] = {}

    def embed(self, sentences: Sequence[str]) -> np.ndarray:
        """:func:`embed_sentences` on this judge's embedder."""
        return embed_sentences(self.embedder, sentences)

    def scores(self, sentences: Sequence[str]) -> np.ndarray:
        """Probability, per sentence, that it is addressed to an AI agent: float32 array of
        ``len(sentences)``, in [0, 1]; a sentence's score depends on its text only."""
        out = np.zeros(len(sentences), dtype=np.float32)
        todo: dict[str, list[int]] = {}
        for i, s in enumerate(sentences):
            got = self._memo.get(s)
            if got is None:
                todo.setdefault(s, []).append(i)
            else:
                out[i] = got
                self.remembered += 1
        if todo:
            texts = list(todo)
            self.sentences += len(texts)
            x = self.embed(texts)
            fresh = (1.0 / (1.0 + np.exp(-(x @ self.w + self.b)))).astype(np.float32)
            if len(self._memo) + len(texts) > MEMO_SENTENCES:
                self._memo.clear()
            for s, v in zip(texts, fresh):
                self._memo[s] = float(v)
                out[todo[s]] = v
        return out

    def __call__(self, sentences: Sequence[str]) -> list[bool]:
        """``scores(sentences) >= threshold``, as the :data:`pagerecall.text.instructions.Judge` a
        build hands to :func:`pagerecall.text.instructions.instruction_like`."""
        return [bool(s >= self.threshold) for s in self.scores(sentences)]


def judge_for(settings: Any, embedder: Any | None = None) -> InstructionJudge | None:
    """The judge of a build with ``settings``: on ``embedder`` (or the build's own embedder,
    :func:`pagerecall.model.embedding.load_embedder` with ``purpose="index"``: loaded once per
    process, so the build's instance) when the model is the bundled default, else None (no
    weights for another model: the patterns decide alone). One judge per embedder, kept while
    the embedder lives, so its memo of scores serves every file of a process. Never raises for
    missing weights (None, logged)."""
    if getattr(settings, "model", DEFAULT_MODEL) != DEFAULT_MODEL:
        return None
    try:
        weights = load_weights()
    except (OSError, ValueError):
        import logging

        logging.getLogger(__name__).warning("instruction classifier weights missing: patterns only")
        return None
    if embedder is None:
        from pagerecall.model.embedding import load_embedder

        embedder = load_embedder(settings, purpose="index")
    try:
        with _judges_lock:
            judge = _judges.get(embedder)
            if judge is None:
                judge = _judges[embedder] = InstructionJudge(embedder, weights)
        return judge
    except TypeError:  # an embedder that takes no weak reference: a judge of its own, no memo across calls
        return InstructionJudge(embedder, weights)


_judges: "weakref.WeakKeyDictionary[Any, InstructionJudge]" = weakref.WeakKeyDictionary()
_judges_lock = threading.Lock()
