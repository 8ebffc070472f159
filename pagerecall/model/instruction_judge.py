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
from functools import lru_cache
from importlib import resources
from typing import Any, Sequence

import numpy as np

from pagerecall.config import DEFAULT_MODEL

__all__ = ["InstructionJudge", "judge_for", "load_weights"]

WEIGHTS_FILE = "instruction_judge.json"


@lru_cache(maxsize=1)
def load_weights() -> dict[str, Any]:
    """The shipped weights: ``{"model", "w" (384 floats), "b", "threshold", "trained"}``.
    Raises ``FileNotFoundError`` when the package data is missing."""
    text = resources.files("pagerecall.model").joinpath("data", WEIGHTS_FILE).read_text(encoding="utf-8")
    return json.loads(text)


class InstructionJudge:
    """Scores sentences with the shipped logistic regression on ``embedder``'s query embeddings.

    ``embedder`` must be the bundled multilingual-e5-small (what the weights were trained on):
    any object with ``embed_queries(texts) -> np.ndarray`` of shape ``(n, 384)``, float32, rows
    L2-normalised."""

    def __init__(self, embedder: Any, weights: dict[str, Any] | None = None) -> None:
        w = weights or load_weights()
        self.embedder = embedder
        self.w = np.asarray(w["w"], dtype=np.float32)
        self.b = float(w["b"])
        self.threshold = float(w["threshold"])
        self.sentences = 0  # judged so far (cost accounting for bench/)

    def scores(self, sentences: Sequence[str]) -> np.ndarray:
        """Probability, per sentence, that it is addressed to an AI agent: float32 array of
        ``len(sentences)``, in [0, 1]."""
        if not sentences:
            return np.zeros(0, dtype=np.float32)
        self.sentences += len(sentences)
        x = np.asarray(self.embedder.embed_queries(list(sentences)), dtype=np.float32)
        return (1.0 / (1.0 + np.exp(-(x @ self.w + self.b)))).astype(np.float32)

    def __call__(self, sentences: Sequence[str]) -> list[bool]:
        """``scores(sentences) >= threshold``, as the :data:`pagerecall.text.instructions.Judge` a
        build hands to :func:`pagerecall.text.instructions.instruction_like`."""
        return [bool(s >= self.threshold) for s in self.scores(sentences)]


def judge_for(settings: Any, embedder: Any | None = None) -> InstructionJudge | None:
    """The judge of a build with ``settings``: on ``embedder`` (or the build's own embedder,
    :func:`pagerecall.model.embedding.load_embedder` with ``purpose="index"``: loaded once per
    process, so the build's instance) when the model is the bundled default, else None (no
    weights for another model: the patterns decide alone). Never raises for missing weights
    (None, logged)."""
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
    return InstructionJudge(embedder, weights)
