"""The int8 graph's batches of a file are cut where the texts say (``pagerecall.ingest.batches``): a passage
that changed, appeared or vanished changes the batches it left and joined, not every batch after it in
length order. Pure function: real passage texts of the maint-guide's text layer, no model."""

from __future__ import annotations

import pytest

from pagerecall.ingest.batches import BATCH_MEAN, cut_batches
from pagerecall.ingest.embed_loop import EMBED_BATCH
from tests.conftest import shared_path


@pytest.fixture(scope="module")
def passages() -> tuple[list[str], list[int]]:
    """(texts, lengths): 400 distinct lines-and-a-half of the English maint-guide, with their word
    counts standing in for token counts (the function sorts by whatever length it is given)."""
    import pymupdf

    with pymupdf.open(shared_path("corpora", "demo", "maint-guide.en.pdf")) as pdf:
        words = " ".join(pdf[i].get_text() for i in range(6, 40)).split()
    texts = list(dict.fromkeys(" ".join(words[i : i + 20 + i % 13]) for i in range(0, 20 * 400, 20)))[:400]
    return texts, [len(t.split()) for t in texts]


def _sets(texts: list[str], batches: list[list[int]]) -> set[tuple[str, ...]]:
    return {tuple(texts[i] for i in b) for b in batches}


def test_every_passage_once_in_length_order_and_never_more_than_a_batch(passages):
    texts, lengths = passages
    batches = cut_batches(texts, lengths, EMBED_BATCH)
    flat = [i for b in batches for i in b]
    assert sorted(flat) == list(range(len(texts)))
    assert [lengths[i] for i in flat] == sorted(lengths)  # one sorted order, cut
    assert max(len(b) for b in batches) <= EMBED_BATCH
    assert 0.5 * BATCH_MEAN <= len(texts) / len(batches) <= 1.5 * BATCH_MEAN
    assert cut_batches([], [], EMBED_BATCH) == []


def test_a_changed_passage_changes_only_the_batches_it_left_and_joined(passages):
    texts, lengths = passages
    before = _sets(texts, cut_batches(texts, lengths, EMBED_BATCH))
    for k in (3, 150, 390):  # one passage made longer by a sentence: it moves in length order
        edited = [*texts[:k], texts[k] + " A sentence added by the maintainer.", *texts[k + 1:]]
        lens = [*lengths[:k], lengths[k] + 6, *lengths[k + 1:]]
        after = _sets(edited, cut_batches(edited, lens, EMBED_BATCH))
        new = [b for b in after if b not in before]
        # the batch it left, the one it joined, and where a batch's end moved, the next one or two;
        # fixed cuts every 32 re-made every batch in between
        assert 1 <= len(new) <= 5, len(new)
        assert sum(len(b) for b in new) <= 3 * EMBED_BATCH
        fixed = [list(range(len(edited)))[a : a + EMBED_BATCH] for a in range(0, len(edited), EMBED_BATCH)]
        assert len(new) < len(fixed)
    gone = [*texts[:200], *texts[201:]]  # a passage deleted
    after = _sets(gone, cut_batches(gone, [*lengths[:200], *lengths[201:]], EMBED_BATCH))
    new = [b for b in after if b not in before]
    assert 1 <= len(new) <= 4 and sum(len(b) for b in new) <= 3 * EMBED_BATCH  # fixed cuts: every later batch
