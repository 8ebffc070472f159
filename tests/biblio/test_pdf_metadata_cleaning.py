"""A PDF's Author and Title fields as LaTeX classes and translators fill them: e-mail addresses,
LaTeX spacing and "A, B und C" lists do not reach a citation (issue 47.5). Real PDFs from ../shared."""

from __future__ import annotations

import pytest
from tests.conftest import shared_path

CASES = [  # (folder, file, the families in order, the short citation)
    ("maint-guide", "maint-guide.de.pdf",
     ["Rodin", "Aoki", "Kreutzmann", "Quathamer", "Schanze", "Bloch"], "Rodin et al. n.d."),
    ("maint-guide", "maint-guide.it.pdf",
     ["Rodin", "Aoki", "Leggio", "Reggiani", "Lovergine"], "Rodin et al. n.d."),
    ("multicolumn", "IEEEconf.pdf", ["Pakin"], "Pakin n.d."),
    ("multicolumn", "abntex2-modelo-artigo.pdf", ["Equipe abnTeX2", "Araujo"], "Equipe abnTeX2 & Araujo n.d."),
    ("multicolumn", "cquthesis.pdf", ["李振楠"], "李振楠 n.d."),
    ("maint-guide", "maint-guide.ja.pdf", ["Rodin", "Aoki", "倉澤", "八津尾", "佐々木", "倉敷", "青木"], "Rodin et al. n.d."),
]


@pytest.mark.parametrize("folder,name,families,citation", CASES)
def test_pdf_authors_are_people_not_the_fields_markup(folder, name, families, citation):
    from pagerecall.biblio.pdfmeta import pdf_metadata
    from pagerecall.biblio.record import families as families_of
    from pagerecall.biblio.record import short_citation

    rec = pdf_metadata(shared_path("corpora", "bench", folder, name))
    assert families_of(rec) == families
    assert short_citation(rec) == citation
    flat = repr(rec["authors"])
    assert "@" not in flat and "[" not in flat.replace("[{", "").replace("}]", "") and " und " not in flat


def test_a_coloured_latex_title_loses_its_colour():
    from pagerecall.biblio.pdfmeta import pdf_metadata

    rec = pdf_metadata(shared_path("corpora", "bench", "multicolumn", "cquthesis.pdf"))
    assert rec["title"].startswith("CquThesis")
