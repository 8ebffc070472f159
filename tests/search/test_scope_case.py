"""``--file`` ignores case when the name as typed matches nothing, as ``files`` does (a new user:
``search --file "résumé multicolonne.pdf"`` was exit 2 for ``Résumé multicolonne.pdf``, which
``files résumé`` listed). A name that matches with its case as typed keeps only that match."""

from __future__ import annotations

import unicodedata

import pytest

from pagerecall.errors import UsageError
from pagerecall.search.inventory import resolve_scope

INDEXED = [unicodedata.normalize("NFD", "papers/Résumé multicolonne.pdf"), "papers/notes.txt",
           "Guides/README.md", "guides/readme.md", "fr/carnet.txt"]


def test_a_name_typed_in_other_case_names_the_file():
    assert resolve_scope(["résumé multicolonne.pdf"], INDEXED, None) == [INDEXED[0]]
    assert resolve_scope(["PAPERS/NOTES.TXT"], INDEXED, None) == ["papers/notes.txt"]
    assert resolve_scope(["FR"], INDEXED, None) == ["fr/carnet.txt"]


def test_the_case_as_typed_wins_when_it_matches():
    assert resolve_scope(["Guides/README.md"], INDEXED, None) == ["Guides/README.md"]
    assert resolve_scope(["guides"], INDEXED, None) == ["guides/readme.md"]


def test_a_name_that_matches_nothing_is_still_refused():
    with pytest.raises(UsageError, match="matches no indexed file"):
        resolve_scope(["resume.pdf"], INDEXED, None)
