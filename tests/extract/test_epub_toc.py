"""A book's table of contents page in the reading order is navigation, not text: it is left out of
the passages, and the page it occupies keeps its place so page numbers stay those a reader sees
(docs/formats.md). Books built here with zipfile, in ten languages, split (seed 12) into a tuning
half and a held-out half before anything ran; each half checks every kind of toc page."""

from __future__ import annotations

import random
import zipfile
from pathlib import Path

import pytest

from pagerecall.extract.epub import read_epub

# (language, book title, [(chapter title, first sentence)]): the toc lists the chapter titles
BOOKS = [
    ("de", "Der Leuchtturm", [("Kapitel 1", "Der Wärter stieg jeden Abend die Treppe hinauf."),
                              ("Kapitel 2", "Im Winter fror das Meer an der Mole zu.")]),
    ("fr", "Le Phare", [("Chapitre 1", "Le gardien montait l'escalier chaque soir."),
                        ("Chapitre 2", "En hiver, la mer gelait contre la jetée.")]),
    ("ja", "灯台", [("第一章", "灯台守は毎晩階段を上った。"), ("第二章", "冬には海が桟橋で凍った。")]),
    ("ru", "Маяк", [("Глава 1", "Смотритель каждый вечер поднимался по лестнице."),
                    ("Глава 2", "Зимой море замерзало у мола.")]),
    ("ar", "المنارة", [("الفصل 1", "كان الحارس يصعد الدرج كل مساء."), ("الفصل 2", "في الشتاء تجمد البحر عند الرصيف.")]),
    ("es", "El faro", [("Capítulo 1", "El guardián subía la escalera cada tarde."),
                       ("Capítulo 2", "En invierno el mar se helaba junto al muelle.")]),
    ("el", "Ο Φάρος", [("Κεφάλαιο 1", "Ο φύλακας ανέβαινε τη σκάλα κάθε βράδυ."),
                       ("Κεφάλαιο 2", "Τον χειμώνα η θάλασσα πάγωνε στον μόλο.")]),
    ("zh", "灯塔", [("第一章", "守塔人每天晚上爬上楼梯。"), ("第二章", "冬天海水在防波堤边结冰。")]),
    ("fi", "Majakka", [("Luku 1", "Vartija nousi portaat joka ilta."), ("Luku 2", "Talvella meri jäätyi laiturin luona.")]),
    ("tr", "Deniz Feneri", [("Bölüm 1", "Bekçi her akşam merdivenleri çıkardı."),
                            ("Bölüm 2", "Kışın deniz iskelede donardı.")]),
]
_order = list(range(len(BOOKS)))
random.Random(12).shuffle(_order)
TUNING = [BOOKS[i] for i in _order[:5]]
HELD_OUT = [BOOKS[i] for i in _order[5:]]
# how the book carries its toc page in the spine
KINDS = ["epub3_nav_in_spine", "epub3_nav_in_spine_paged", "epub3_landmarks_toc_page", "epub2_guide_toc_page"]

XHTML = ('<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml" '
         'xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="{lang}" lang="{lang}"><head><title>{title}</title>'
         '</head><body>{body}</body></html>')


def _toc_list(chapters) -> str:
    return "<ol>" + "".join(f'<li><a href="c{i}.xhtml">{t}</a></li>' for i, (t, _s) in enumerate(chapters, 1)) + "</ol>"


def build(tmp: Path, lang: str, title: str, chapters, kind: str) -> Path:
    """An EPUB of ``chapters`` whose toc page sits in the spine as ``kind`` says; returns its path.
    Paged books carry ``epub:type="pagebreak"`` markers 11, 12... at each chapter's start."""
    files: dict[str, str] = {}
    manifest, spine = [], []
    paged = kind.endswith("_paged")
    for i, (head, sentence) in enumerate(chapters, 1):
        marker = f'<span epub:type="pagebreak" id="p{10 + i}" title="{10 + i}"/>' if paged else ""
        files[f"c{i}.xhtml"] = XHTML.format(lang=lang, title=head, body=f"{marker}<h1>{head}</h1><p>{sentence}</p>")
        manifest.append(f'<item id="c{i}" href="c{i}.xhtml" media-type="application/xhtml+xml"/>')
    nav_body = f'<nav epub:type="toc" id="toc"><h1>{title}</h1>{_toc_list(chapters)}</nav>'
    guide = ""
    if kind == "epub3_landmarks_toc_page":  # the nav document off the spine, a visible contents page in it
        nav_body += ('<nav epub:type="landmarks" hidden=""><ol><li><a epub:type="toc" href="contents.xhtml">'
                     'Contents</a></li></ol></nav>')
    if kind in ("epub3_landmarks_toc_page", "epub2_guide_toc_page"):
        files["contents.xhtml"] = XHTML.format(lang=lang, title=title, body=f"<h1>{title}</h1>{_toc_list(chapters)}")
        manifest.append('<item id="contents" href="contents.xhtml" media-type="application/xhtml+xml"/>')
        spine.append("contents")
        guide = '<guide><reference type="toc" title="Contents" href="contents.xhtml"/></guide>'
    if kind != "epub2_guide_toc_page":
        files["nav.xhtml"] = XHTML.format(lang=lang, title=title, body=nav_body)
        manifest.append('<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>')
        if kind.startswith("epub3_nav_in_spine"):
            spine.append("nav")
    ncx = ('<?xml version="1.0" encoding="utf-8"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1">'
           f'<head/><docTitle><text>{title}</text></docTitle><navMap>'
           + "".join(f'<navPoint id="n{i}" playOrder="{i}"><navLabel><text>{t}</text></navLabel>'
                     f'<content src="c{i}.xhtml"/></navPoint>' for i, (t, _s) in enumerate(chapters, 1))
           + "</navMap></ncx>")
    files["toc.ncx"] = ncx
    manifest.append('<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>')
    spine += [f"c{i}" for i in range(1, len(chapters) + 1)]
    itemrefs = "".join(f'<itemref idref="{s}"/>' for s in spine)
    version = "2.0" if kind.startswith("epub2") else "3.0"
    opf = (f'<?xml version="1.0" encoding="utf-8"?><package xmlns="http://www.idpf.org/2007/opf" version="{version}" '
           f'unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">'
           f'urn:uuid:0-{lang}</dc:identifier><dc:title>{title}</dc:title><dc:language>{lang}</dc:language>'
           f'<meta property="dcterms:modified">2026-01-01T00:00:00Z</meta></metadata><manifest>{"".join(manifest)}'
           f'</manifest><spine toc="ncx">{itemrefs}</spine>{guide}</package>')
    path = tmp / f"{lang}-{kind}.epub"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        zf.writestr("META-INF/container.xml", '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:'
                    'tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" '
                    'media-type="application/oebps-package+xml"/></rootfiles></container>')
        zf.writestr("OEBPS/content.opf", opf)
        for name, data in files.items():
            zf.writestr(f"OEBPS/{name}", data)
    return path


def check(tmp: Path, books, kind: str) -> None:
    for lang, title, chapters in books:
        doc = read_epub(build(tmp, lang, title, chapters, kind), f"{lang}.epub")
        texts = [p.text for p in doc.pages]
        joined = "\n".join(texts)
        # the toc's lines are gone: each chapter title appears once, on its own chapter's page
        for head, sentence in chapters:
            assert joined.count(head) == 1, (lang, kind, texts)
            assert sum(sentence in t for t in texts) == 1, (lang, kind, texts)
        assert title not in joined.splitlines(), (lang, kind, texts)  # the toc page's heading
        if kind.endswith("_paged"):
            # the toc before the first page marker: an unlabelled front page a reader sees, kept empty
            assert [p.label for p in doc.pages] == [None] + [str(10 + i) for i in range(1, len(chapters) + 1)]
            assert doc.pages[0].text == "" and doc.pages[0].status == "empty"
        else:
            # page N is still the Nth spine item: the toc page is an empty page at its place, first
            assert len(doc.pages) == len(chapters) + 1, (lang, kind, texts)
            assert texts[0] == "" and doc.pages[0].status == "empty"
            assert all(texts[i].startswith(chapters[i - 1][0]) for i in range(1, len(texts)))
        # the outline still points each chapter at its page
        assert [(e.title, e.page) for e in doc.outline.entries] == [
            (head, i + 1) for i, (head, _s) in enumerate(chapters, 1)]


@pytest.mark.parametrize("kind", KINDS)
def test_toc_page_is_left_out_tuning_half(tmp_path, kind):
    check(tmp_path, TUNING, kind)


@pytest.mark.parametrize("kind", KINDS)
def test_toc_page_is_left_out_held_out_half(tmp_path, kind):
    check(tmp_path, HELD_OUT, kind)


def test_a_guide_toc_reference_to_a_page_of_prose_keeps_its_text(tmp_path):
    """A guide that names a chapter of prose as its "toc" (a mislabelled package) loses no text: only
    a page that is mostly links is a table of contents."""
    lang, title, chapters = BOOKS[0]
    path = build(tmp_path, lang, title, chapters, "epub2_guide_toc_page")
    with zipfile.ZipFile(path) as zin:
        members = {n: zin.read(n) for n in zin.namelist()}
    members["OEBPS/content.opf"] = members["OEBPS/content.opf"].replace(b'href="contents.xhtml"/></guide>',
                                                                        b'href="c1.xhtml"/></guide>')
    with zipfile.ZipFile(path, "w") as zout:
        for name, data in members.items():
            zout.writestr(name, data)
    doc = read_epub(path, "de.epub")
    assert chapters[0][1] in doc.pages[1].text  # the mislabelled chapter: kept
    assert doc.pages[0].text.startswith(title)  # the real contents page: nothing names it a toc, kept


def test_a_toc_nav_inside_a_chapter_is_left_out_the_chapter_kept(tmp_path):
    """A chapter that opens with its own small ``nav epub:type="toc"`` keeps its prose."""
    lang, title, chapters = BOOKS[3]
    path = build(tmp_path, lang, title, chapters, "epub3_nav_in_spine")
    with zipfile.ZipFile(path) as zin:
        members = {n: zin.read(n) for n in zin.namelist()}
    members["OEBPS/c1.xhtml"] = members["OEBPS/c1.xhtml"].replace(
        b"<body>", b'<body><nav epub:type="toc"><ol><li><a href="c2.xhtml">' + chapters[1][0].encode() + b"</a></li></ol></nav>")
    with zipfile.ZipFile(path, "w") as zout:
        for name, data in members.items():
            zout.writestr(name, data)
    doc = read_epub(path, "ru.epub")
    assert doc.pages[1].text == f"{chapters[0][0]}\n{chapters[0][1]}"
    assert chapters[1][0] in doc.pages[2].text


def test_the_critics_book_made_by_ebooklib(tmp_path):
    """ebooklib's own navigation document, in the spine as its documentation shows
    (``book.spine = ["nav", ...]``): it read as page 1, "Der Leuchtturm 1. Kapitel 1 2. Kapitel 2"."""
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("leuchtturm-1")
    book.set_title("Der Leuchtturm")
    book.set_language("de")
    chapters = []
    for i, sentence in enumerate(["Der Wärter stieg jeden Abend die Treppe hinauf.",
                                  "Im Winter fror das Meer an der Mole zu."], 1):
        c = epub.EpubHtml(title=f"Kapitel {i}", file_name=f"k{i}.xhtml", lang="de")
        c.content = f"<h1>Kapitel {i}</h1><p>{sentence}</p>"
        book.add_item(c)
        chapters.append(c)
    book.toc = chapters
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *chapters]
    path = tmp_path / "leuchtturm.epub"
    epub.write_epub(str(path), book)
    doc = read_epub(path, "leuchtturm.epub")
    assert [p.text for p in doc.pages] == ["", "Kapitel 1\nDer Wärter stieg jeden Abend die Treppe hinauf.",
                                           "Kapitel 2\nIm Winter fror das Meer an der Mole zu."]
    assert [(e.title, e.page) for e in doc.outline.entries] == [("Kapitel 1", 2), ("Kapitel 2", 3)]


@pytest.mark.parametrize("nav", [b"<html><body><nav", b"\x00\xff not xml"])  # an empty one: ebooklib refuses the book
def test_an_unreadable_navigation_document_costs_the_book_nothing(tmp_path, nav):
    lang, title, chapters = BOOKS[6]
    path = build(tmp_path, lang, title, chapters, "epub3_nav_in_spine")
    with zipfile.ZipFile(path) as zin:
        members = {n: zin.read(n) for n in zin.namelist()}
    members["OEBPS/nav.xhtml"] = nav
    with zipfile.ZipFile(path, "w") as zout:
        for name, data in members.items():
            zout.writestr(name, data)
    doc = read_epub(path, "el.epub")
    assert [p.text for p in doc.pages][1:] == [f"{h}\n{s}" for h, s in chapters]
    assert doc.pages[0].text == ""
