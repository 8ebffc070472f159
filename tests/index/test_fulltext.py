"""The full-text and filename lanes on a real Tantivy index of real PDF text (../shared).

The fixture extracts pages with PyMuPDF and cuts them into ~800-character pieces: the demo
maint-guide in en/de/ja, and the first pages of a few bench manuals (Chinese, English).
"""

from __future__ import annotations

import re

import pytest

from pagerecall.index import fulltext
from pagerecall.search.inventory import files_inventory
from pagerecall.search.lexical import filename_search, fulltext_search, term_coverage
from pagerecall.search.query import parse_query
from pagerecall.search.snippets import snippet
from tests.conftest import shared_path

PIECE = 800

SOURCES = [
    ("demo/maint-guide.en.pdf", ("corpora", "demo", "maint-guide.en.pdf"), None),
    ("demo/maint-guide.de.pdf", ("corpora", "demo", "maint-guide.de.pdf"), None),
    ("demo/maint-guide.ja.pdf", ("corpora", "demo", "maint-guide.ja.pdf"), None),
    ("bench/debian-faq.en.pdf", ("corpora", "bench", "debian-faq", "debian-faq.en.pdf"), 25),
    ("bench/debian-reference.en.pdf", ("corpora", "bench", "debian-reference", "debian-reference.en.pdf"), 25),
    ("bench/lshort-zh-cn.pdf", ("corpora", "bench", "lshort", "lshort-zh-cn.pdf"), 40),
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """``{"index": tantivy.Index, "chunks": {chunk_id: (file, text)}}``."""
    import pymupdf

    chunks: dict[str, tuple[str, str]] = {}
    index = fulltext.create_index(tmp_path_factory.mktemp("tantivy"))
    writer = index.writer()
    for rel, parts, max_pages in SOURCES:
        doc = pymupdf.open(shared_path(*parts))
        seq = 0
        for pno in range(min(doc.page_count, max_pages or doc.page_count)):
            text = doc[pno].get_text()
            for start in range(0, len(text), PIECE):
                piece = text[start : start + PIECE]
                if not piece.strip():
                    continue
                cid = f"{rel}-{seq:05d}"
                chunks[cid] = (rel, piece)
                writer.add_document(fulltext.make_document(cid, rel, piece, pno + 1, first=seq == 0))
                seq += 1
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return {"index": index, "chunks": chunks}


def _files(corpus, hits):
    return [corpus["chunks"][cid][0] for cid, _ in hits]


def _texts(corpus, hits):
    return [corpus["chunks"][cid][1] for cid, _ in hits]


def _containing(corpus, needle: str) -> set[str]:
    return {cid for cid, (_, text) in corpus["chunks"].items() if needle in text}


# --------------------------------------------------------------------------- CJK


def _rare_run(corpus, file: str, length: int) -> tuple[str, str]:
    """A run of ``length`` CJK characters from ``file`` that occurs in at most 2 chunks."""
    for cid, (f, text) in corpus["chunks"].items():
        if f != file:
            continue
        for run in fulltext.ngram_runs(text):
            for i in range(0, len(run) - length + 1):
                cand = run[i : i + length]
                if len(_containing(corpus, cand)) <= 2:
                    return cid, cand
    raise AssertionError(f"no rare CJK run in {file}")


@pytest.mark.parametrize("file", ["demo/maint-guide.ja.pdf", "bench/lshort-zh-cn.pdf"])
def test_cjk_query_with_only_some_characters_matching_finds_the_passage(corpus, file):
    cid, run = _rare_run(corpus, file, 6)
    absent = "鰻鰈鱈"
    assert not any(c in text for _, text in corpus["chunks"].values() for c in absent)
    query = run[:2] + absent + run[2:4]  # 4 of its 7 characters occur, in two fragments
    hits = fulltext_search(corpus["index"], query, 10)
    assert cid in [h[0] for h in hits]
    assert run[:2] in _texts(corpus, hits[:1])[0] or run[2:4] in _texts(corpus, hits[:1])[0]


def test_cjk_exact_run_ranks_its_passage_first(corpus):
    cid, run = _rare_run(corpus, "demo/maint-guide.ja.pdf", 8)
    hits = fulltext_search(corpus["index"], run, 5)
    assert hits and run in _texts(corpus, hits[:1])[0]
    assert cid in [h[0] for h in hits]


def test_single_cjk_character_query(corpus):
    hits = fulltext_search(corpus["index"], "版", 5)
    assert hits and all("版" in t for t in _texts(corpus, hits))


# --------------------------------------------------------------------------- filename lane


@pytest.mark.parametrize(
    "query, expected",
    [
        ("debian reference", "bench/debian-reference.en.pdf"),
        ("Debian FAQ", "bench/debian-faq.en.pdf"),
        ("maint guide ja", "demo/maint-guide.ja.pdf"),
        ("lshort", "bench/lshort-zh-cn.pdf"),
    ],
)
def test_title_query_ranks_the_titled_file_first(corpus, query, expected):
    hits = filename_search(corpus["index"], query, 5)
    assert _files(corpus, hits)[0] == expected
    assert len(set(_files(corpus, hits))) == len(hits)  # one chunk per file


def test_filename_lane_picks_the_chunk_matching_the_other_words(corpus):
    hits = filename_search(corpus["index"], "maint guide en dquilt", 3)
    file, text = corpus["chunks"][hits[0][0]]
    assert file == "demo/maint-guide.en.pdf" and "dquilt" in text.lower()
    plain = filename_search(corpus["index"], "maint guide en", 3)
    assert plain[0][0] == "demo/maint-guide.en.pdf-00000"  # no other words: the first chunk


def test_filename_lane_without_a_match_is_empty(corpus):
    assert filename_search(corpus["index"], "gnuplot", 5) == []


# --------------------------------------------------------------------------- phrases, relaxation


def test_quoted_phrase_matches_only_the_phrase(corpus):
    phrase = re.compile(r"source\W+packages?\b", re.IGNORECASE)  # "(source) package" is the phrase too
    loose = fulltext_search(corpus["index"], "package source", 200)
    assert any(not phrase.search(t) for t in _texts(corpus, loose))  # precondition
    hits = fulltext_search(corpus["index"], '"source package"', 200)
    assert hits and all(phrase.search(t) for t in _texts(corpus, hits))


def test_phrase_with_typographic_quotes_and_extra_terms(corpus):
    hits = fulltext_search(corpus["index"], "\u201cupstream source\u201d tarball", 20)
    texts = _texts(corpus, hits)
    assert texts and all(re.search(r"upstream\W+sources?\b", t, re.IGNORECASE) for t in texts)
    assert "tarball" in texts[0].lower()


def test_relaxation_when_one_term_matches_nothing(corpus):
    hits = fulltext_search(corpus["index"], "dpkg-buildpackage qzxwvkj", 10)
    assert hits and all("dpkg-buildpackage" in t.lower() for t in _texts(corpus, hits))


def _tokens(text: str) -> set[str]:
    return set(fulltext.text_analyzer().analyze(fulltext.word_text(text)))


def test_relaxation_keeps_the_rarest_term_and_ranks_full_matches_first(corpus):
    searcher = corpus["index"].searcher()
    rare, common = sorted(["lintian", "debuild"], key=lambda w: searcher.doc_freq("text", w))
    both = {cid for cid, (_, t) in corpus["chunks"].items() if {rare, common} <= _tokens(t)}
    assert both  # precondition
    hits = fulltext_search(corpus["index"], f"{common} {rare} qzxwvkj", 60)
    toks = [_tokens(t) for t in _texts(corpus, hits)]
    assert {cid for cid, _ in hits[: len(both)]} == both  # full matches first
    # past the full matches come partial ones (relaxed tier): the rarer word is kept; only after
    # every chunk holding it come chunks with any one term (the last, filling tier)
    n_rare = sum(1 for _, t in corpus["chunks"].values() if rare in _tokens(t))
    assert len(hits) > len(both) and all(rare in t for t in toks[len(both):n_rare])
    assert all(rare not in t for t in toks[n_rare:])


def test_latin_word_glued_to_cjk_text_is_found(corpus):
    glued = [cid for cid, (_, t) in corpus["chunks"].items() if "最新のlintian" in t]
    assert glued  # precondition: the Japanese guide writes the word without a space
    hits = fulltext_search(corpus["index"], "lintian", 200, files=["demo/maint-guide.ja.pdf"])
    assert set(glued) <= {cid for cid, _ in hits}


def test_stemming_singular_finds_plural(corpus):
    hits = fulltext_search(corpus["index"], "maintainer", 50)
    assert any("maintainers" in t.lower() for t in _texts(corpus, hits))


@pytest.mark.parametrize(
    "query",
    ['"unbalanced quote', "AND OR (", "field:", "text:foo", '"', "((", ")", "*", "~2", "^",
     "a:b:c", "-", "+", '""', "\\", "[1 TO", "{", "NOT", "", "   ", '"" ""', "😀 ☃",
     "title:\"debian", "foo AND", "x" * 500],
)
def test_malformed_queries_do_not_crash(corpus, query):
    hits = fulltext_search(corpus["index"], query, 5)
    assert isinstance(hits, list)
    assert isinstance(filename_search(corpus["index"], query, 5), list)
    assert isinstance(snippet(query, "some text"), str)


def test_unbalanced_quote_still_searches_its_words(corpus):
    assert fulltext_search(corpus["index"], '"dquilt', 5) == fulltext_search(corpus["index"], "dquilt", 5)
    assert fulltext_search(corpus["index"], "dquilt", 5)


def test_scope_is_honoured(corpus):
    scope = ["demo/maint-guide.de.pdf"]
    hits = fulltext_search(corpus["index"], "debian paket", 30, files=scope)
    assert hits and set(_files(corpus, hits)) == set(scope)
    assert fulltext_search(corpus["index"], "debian", 10, files=[]) == []


# --------------------------------------------------------------------------- inventory, snippets


RECORDS = [
    {"path": p, "status": "ok"}
    for p in ("debian/maint-guide.en.pdf", "debian/debian-faq.de.pdf", "notes/Packaging Guides.txt",
              "scans/linn.pdf", "Übersicht/Café-Notizen.txt")
] + [{"path": "broken/truncated.pdf", "status": "failed", "error": "truncated"}]


def _paths(result):
    return [f["path"] for f in result["files"]]


def test_inventory_singular_finds_plural_and_back():
    r = files_inventory(RECORDS, "guide")
    assert r["total"] == 6 and _paths(r) == ["debian/maint-guide.en.pdf", "notes/Packaging Guides.txt"]
    assert _paths(files_inventory(RECORDS, "GUIDES")) == _paths(r)
    assert _paths(files_inventory(RECORDS, "package")) == ["notes/Packaging Guides.txt"]


def test_inventory_globs_and_folding():
    assert files_inventory(RECORDS, "*.pdf")["matched"] == 4
    assert _paths(files_inventory(RECORDS, "debian-*")) == ["debian/debian-faq.de.pdf"]
    assert _paths(files_inventory(RECORDS, "*.TXT")) == ["notes/Packaging Guides.txt", "Übersicht/Café-Notizen.txt"]
    assert _paths(files_inventory(RECORDS, "cafe notizen")) == ["Übersicht/Café-Notizen.txt"]
    assert _paths(files_inventory(RECORDS, "truncated")) == ["broken/truncated.pdf"]  # failed files too
    assert files_inventory(RECORDS, "maint")["matched"] == 1  # substring of the folded path


def test_inventory_definitive_negative_and_limit():
    r = files_inventory(RECORDS, "gnuplot")
    assert r == {"total": 6, "matched": 0, "files": []}
    r = files_inventory(RECORDS, "*", limit=2)
    assert r["matched"] == 6 and len(r["files"]) == 2


def test_snippet_highlights_stemmed_words_and_cjk():
    text = "Intro. " + "filler " * 60 + "The maintainers upload packages to the archive. " + "tail " * 60
    s = snippet("maintainer package", text)
    assert "⟦maintainers⟧" in s and "⟦packages⟧" in s and s.startswith("\u2026") and s.endswith("\u2026")
    assert len(s.replace("⟦", "").replace("⟧", "")) <= 240 + 2  # max_chars plus the two ellipses
    assert snippet("配列", "キーボードの配列は変更できます") == "キーボードの⟦配列⟧は変更できます"
    assert snippet('"upload packages"', "we upload packages") == "we ⟦upload⟧ ⟦packages⟧"
    assert snippet("zzz", "no match here") == "no match here"


def test_term_left_only_in_deleted_documents_does_not_hide_the_others(tmp_path):
    """Tantivy's document frequency still counts deleted documents until a merge."""
    index = fulltext.create_index(tmp_path)
    w = index.writer(heap_size=15_000_000, num_threads=1)  # one segment per commit
    w.add_document(fulltext.make_document("a-00000", "a.pdf", "zebra giraffe", 1, first=True))
    w.add_document(fulltext.make_document("c-00000", "c.pdf", "lion", 1, first=True))
    w.commit()
    w.add_document(fulltext.make_document("b-00000", "b.pdf", "giraffe elephant", 1, first=True))
    w.commit()
    w.delete_documents_by_term("file", "a.pdf")
    w.commit()
    index.reload()
    if index.searcher().doc_freq("text", "zebra") != 1:
        pytest.skip("this Tantivy purged the deleted document already: no trap to test")
    assert [h[0] for h in fulltext_search(index, "zebra giraffe", 5)] == ["b-00000"]
    assert fulltext_search(index, "zebra", 5) == []


# --------------------------------------------------------------------------- term coverage


def _coverage_from_texts(index, query: str, texts: list[str]) -> list[float]:
    """The definition of term coverage computed the slow way: analyse each text in Python."""
    import math

    searcher = index.searcher()
    parsed = parse_query(query)
    terms = list(dict.fromkeys(list(parsed.terms) + [("text", w) for ws, _ in parsed.phrases for _, w in ws]
                               + [("text_ngram", g) for _, gs in parsed.phrases for g in gs]))
    n = searcher.num_docs
    idf = {t: math.log(1 + (n - searcher.doc_freq(*t) + 0.5) / (searcher.doc_freq(*t) + 0.5)) for t in terms}
    words, grams = fulltext.text_analyzer(), fulltext.ngram_analyzer()
    out = []
    for text in texts:
        present = {("text", w) for w in words.analyze(fulltext.word_text(text))}
        present |= {("text_ngram", g) for run in fulltext.ngram_runs(text) for g in grams.analyze(run)}
        out.append(sum(v for t, v in idf.items() if t in present) / sum(idf.values()))
    return out


@pytest.mark.parametrize("query", [
    "build a Debian package from the upstream tarball",
    '"source package" changelog upstream maintainer zzqxnotaword',
    "软件包 安装 Debian",
])
def test_term_coverage_is_the_idf_weighted_share_of_query_terms_in_each_chunk(corpus, query):
    hits = fulltext_search(corpus["index"], query, 30)
    ids = [cid for cid, _ in hits] + ["no-such-chunk-00000"]
    got = term_coverage(corpus["index"], query, ids)
    want = _coverage_from_texts(corpus["index"], query, _texts(corpus, hits)) + [0.0]
    assert got == pytest.approx(want, abs=1e-6)
    assert len(set(round(g, 4) for g in got)) > 2  # the query terms are spread unevenly over the hits
    assert got[-1] == 0.0 and all(0.0 <= g <= 1.0 for g in got)
