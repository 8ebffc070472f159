"""What the adversarial hidden-text sets share (``constructions_heldout``, ``_third``, ``_fourth``, ``_fifth`` and
their tests): how a set's cases are split into a tuning and a held-out half, which cases are hidden, how a sentence
is found in a text, the end-to-end check over one build, the tests' case parameters and corpus. Each set calls these with its own ``SENTENCES`` and
``SEED``; its committed ``TUNING`` / ``HELD_OUT`` tuples must equal what the split draws."""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Iterable, Mapping
from pathlib import Path


def draw_split(names: Iterable[str], seed: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(tuning, held out) of case ``names``: each group (hidden ``h_``, printed ``p_``) sorted, shuffled with
    ``random.Random(seed)`` and cut in half (the tuning half gets the smaller one); both halves sorted."""
    rng = random.Random(seed)
    names = list(names)
    tuning, held = [], []
    for prefix in ("h_", "p_"):
        group = sorted(n for n in names if n.startswith(prefix))
        rng.shuffle(group)
        tuning += group[:len(group) // 2]
        held += group[len(group) // 2:]
    return tuple(sorted(tuning)), tuple(sorted(held))


def is_hidden(name: str) -> bool:
    """True for a hidden trick (``h_``), False for a printed control (``p_``)."""
    return name.startswith("h_")


def squash(text: str) -> str:
    """``text`` NFKC-normalised, case-folded, without whitespace (what a sentence is compared as)."""
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def found_part(sentence: str, text: str, window: int = 15) -> bool:
    """Whether any ``window`` characters of ``sentence`` (squashed) occur in ``text`` (squashed)."""
    s, t = squash(sentence), squash(text)
    return any(s[i:i + window] in t for i in range(max(1, len(s) - window + 1)))


def wrong_end_to_end(corpus: Path, index: Path, sentences: Mapping[str, str], known: Iterable[str] = (),
                     printed_ok: tuple[str, ...] = ("exact",)) -> list[tuple[str, str, str]]:
    """Over one build (``index``) of a set's cases (``corpus/<name>.pdf``, each sentence on page 1), the cases
    whose stored passages or ``verify`` disagree with their label: a hidden sentence served (a piece of it
    stored, or verified ``exact``/``normalised``), a printed one lost (not stored whole, or verified other than
    ``printed_ok``). ``known`` cases are skipped. ``[(name, "served" | "lost", match)]``."""
    import lancedb

    from pagerecall.verify import verify_quote

    gen = index / (index / "CURRENT").read_text().strip()
    table = lancedb.connect(str(gen / "lance")).open_table("chunks")
    stored: dict[str, str] = {}
    for r in table.search().select(["file", "text"]).limit(None).to_list():
        stored[r["file"]] = stored.get(r["file"], "") + "\n" + r["text"]
    skip, wrong = set(known), []
    for name in sorted(sentences):
        if name in skip:
            continue
        s, file = sentences[name], f"{name}.pdf"
        match = verify_quote(corpus, s, file, 1).match
        if is_hidden(name) and (found_part(s, stored.get(file, "")) or match in ("exact", "normalised")):
            wrong.append((name, "served", match))
        if not is_hidden(name) and (squash(s) not in squash(stored.get(file, "")) or match not in printed_ok):
            wrong.append((name, "lost", match))
    return wrong


def case_params(cases: Iterable[str], tuning: Iterable[str], known: Mapping[str, str]) -> list:
    """One ``pytest.param`` per case, sorted, with id ``tuning-NAME`` or ``held_out-NAME``; a case in
    ``known`` (name -> why) is a strict xfail."""
    import pytest

    tuning = set(tuning)
    return [pytest.param(n, id=f"{'tuning' if n in tuning else 'held_out'}-{n}",
                         marks=[pytest.mark.xfail(reason=known[n], strict=True)] if n in known else [])
            for n in sorted(cases)]


def build_corpus(tmp_path_factory, name: str, cases: Iterable[str], build_case) -> Path:
    """A fresh folder ``<tmp>/<name>/corpus`` holding every case built by ``build_case(folder, case)``."""
    folder = tmp_path_factory.mktemp(name) / "corpus"
    folder.mkdir()
    for case in cases:
        build_case(folder, case)
    return folder
