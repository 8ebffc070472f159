"""Issue 16, "see the hit on the page": boxes of passages and quotes on real PDF pages, page images,
``page --png``, ``search --rects``, the MCP ``view_page`` tool and the web page's API.

Real PyMuPDF on real PDFs: the bundled example manual (always present) and, where ``../shared``
exists, two-column papers with ligatures and hyphenation (tracemonkey.pdf), a rotated page and a
scan. Boxes are checked against PyMuPDF's own text of the boxes (``get_text(clip=box)``), an
extraction that shares nothing with the box computation.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import re
from pathlib import Path

import anyio
import pymupdf
import pytest
from rapidfuzz.distance import Indel

from pagerecall import verify as pageview
from pagerecall.verify import boxes
from pagerecall.cli.commands import main
from pagerecall.errors import PathOutsideCorpusError, SourceNotFoundError, UsageError
from pagerecall.extract.pdf import read_pdf
from pagerecall.verify import normalise, read_page, verify_quote
from tests.conftest import EXAMPLES, copy_of_index, scan_excerpt, shared_path, whole_words

CORPUS = EXAMPLES / "corpus"
MANUAL = "en/harrow-point-manual.pdf"


def _norm(s: str) -> str:
    return normalise(s).text.replace(" ", "")


def shares(inside: str, passage: str) -> tuple[float, float]:
    """(precision, recall): of the characters inside the boxes, the share that is the passage; of
    the passage, the share inside the boxes (longest common subsequence of the normalised texts)."""
    a, b = _norm(inside), _norm(passage)
    lcs = (len(a) + len(b) - Indel.distance(a, b)) // 2
    return (lcs / len(a) if a else 0.0), (lcs / len(b) if b else 0.0)


def assert_boxes_hold(path: Path, page: int, boxes, passage: str, bar: float = 0.99) -> None:
    inside = pageview.page_boxes_text(path, page, boxes)
    precision, recall = shares(inside, passage)
    assert precision >= bar and recall >= bar, (precision, recall, inside, passage)


# ------------------------------------------------------------------ boxes on the example manual


def test_quote_boxes_on_the_example_manual():
    text = read_page(CORPUS, MANUAL, 3).text
    quote = text[text.index("Mariners know"):text.index("neighbouring station.") + len("neighbouring station.")]
    check = verify_quote(CORPUS, quote, MANUAL, 3)
    assert check.match == "exact"
    g = check.rects
    assert g is not None and g.located == 1.0 and g.note == ""
    (pb,) = g.pages
    assert pb.page == 3 and pb.label == "1" and len(pb.boxes) == 3  # three printed lines
    assert all(0 <= b[0] < b[2] <= pb.width and 0 <= b[1] < b[3] <= pb.height for b in pb.boxes)
    assert_boxes_hold(CORPUS / MANUAL, 3, pb.boxes, quote)


def test_text_layer_has_no_geometry_and_says_so():
    rel = "de/moewenhaken-dienstanweisung.txt"
    text = read_page(CORPUS, rel, 1).text
    a, b = text.index(" ", 10) + 1, text.index(" ", 80)  # whole words (a quote never starts mid-word)
    check = verify_quote(CORPUS, text[a:b], rel, 1)
    assert check.match == "exact"
    assert check.rects.pages == [] and "no page geometry" in check.rects.note
    g = pageview.passage_geometry(CORPUS, {"file": rel, "page_start": 1, "page_end": 1, "char_start": 0,
                                            "char_end": 20, "text": text[:20]})
    assert g.pages == [] and "text layer" in g.note


def test_a_miss_has_no_rects():
    check = verify_quote(CORPUS, "this sentence is nowhere in the harbour manual at all", MANUAL)
    assert check.match == "not_found" and check.rects is None


def test_stale_offsets_are_not_drawn_blindly():
    """Offsets that no longer name the indexed text: the text is looked up on the page instead."""
    text = read_page(CORPUS, MANUAL, 3).text
    i = text.index("The flashes are made")
    passage = text[i:i + 60]
    hit = {"file": MANUAL, "page_start": 3, "page_end": 3, "char_start": 5, "char_end": 65, "text": passage}
    g = pageview.passage_geometry(CORPUS, hit)
    assert g.located == 1.0
    assert_boxes_hold(CORPUS / MANUAL, 3, g.pages[0].boxes, passage)
    gone = dict(hit, text="words that the page does not hold anywhere, not even once")
    g = pageview.passage_geometry(CORPUS, gone)
    assert all(not pb.boxes for pb in g.pages) and "pagerecall update" in g.note


# ------------------------------------------------------------------ page images


def _pixmap(png: bytes) -> pymupdf.Pixmap:
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    return pymupdf.Pixmap(png)


def test_view_page_renders_and_tints_the_quote():
    text = read_page(CORPUS, MANUAL, 3).text
    quote = text[text.index("The light of Harrow"):text.index("every ten seconds.") + len("every ten seconds.")]
    v = pageview.view_page(CORPUS, MANUAL, 3, highlight=quote, dpi=100)
    assert (v.match, v.found_on, v.status, v.label, v.pages) == ("exact", None, "ok", "1", 10)
    pix = _pixmap(v.png)
    assert (pix.width, pix.height) == (v.width_px, v.height_px)
    assert abs(v.width_px - v.width * 100 / 72) <= 1 and abs(v.height_px - v.height * 100 / 72) <= 1
    (box,) = v.rects.pages[0].boxes
    zoom = 100 / 72
    # inside the box: paper turned yellow (blue channel lowered); far from it: white paper
    xs = range(int(box[0] * zoom) + 2, int(box[2] * zoom) - 2, 7)
    y = int((box[1] - 0.5) * zoom)  # the tint's top margin, above the glyphs: paper only
    assert any(pix.pixel(x, y)[:2] == (255, 255) and pix.pixel(x, y)[2] < 120 for x in xs)
    assert pix.pixel(3, 3) == (255, 255, 255)


def test_view_page_bad_input_is_explained():
    with pytest.raises(SourceNotFoundError, match="valid pages are 1-10"):
        pageview.view_page(CORPUS, MANUAL, 11)
    with pytest.raises(UsageError, match="text layer"):
        pageview.view_page(CORPUS, "de/moewenhaken-dienstanweisung.txt", 1)
    with pytest.raises(PathOutsideCorpusError):
        pageview.view_page(CORPUS, "../README.md", 1)
    with pytest.raises(UsageError, match="dpi"):
        pageview.view_page(CORPUS, MANUAL, 3, dpi=5000)
    # a quote on another page: the page is shown unmarked, and the note names the right page
    text = read_page(CORPUS, MANUAL, 3).text
    v = pageview.view_page(CORPUS, MANUAL, 4, highlight=whole_words(text, 0, 60), dpi=72)
    assert v.found_on == 3 and "found (exact) on page 3" in v.note and v.rects.pages == []
    assert _pixmap(v.png).width == v.width_px
    # a quote nowhere: not_found, still a real page image (ink on it)
    v = pageview.view_page(CORPUS, MANUAL, 3, highlight="a sentence the manual never printed anywhere", dpi=72)
    assert v.match == "not_found" and "not in the source text" in v.note
    assert _ink(_pixmap(v.png)) > 0.005


def _ink(pix: pymupdf.Pixmap) -> float:
    """Share of pixels that are not white (a blank image has none)."""
    samples = pix.samples
    n = pix.n
    step = 97
    dark = total = 0
    for i in range(0, len(samples) - n, n * step):
        total += 1
        dark += samples[i] < 200
    return dark / max(total, 1)


# ------------------------------------------------------------------ CLI, MCP, web API over an index


@pytest.fixture(scope="module")
def indexed(examples_built):
    """``(settings, index_dir)`` of a real index (bundled model) of the example corpus: the
    session's (``tests/conftest.py``), read only, with OCR off for the reads."""
    assert examples_built.corpus == CORPUS
    settings = dataclasses.replace(examples_built.settings, ocr="off")
    return settings, settings.index_dir


def _cli_json(capsys, argv: list[str]) -> tuple[int, dict]:
    code = main(argv)
    out = capsys.readouterr().out
    return code, (json.loads(out) if out.strip().startswith("{") else {"stdout": out})


def test_cli_search_rects(indexed, capsys):
    _, index = indexed
    code, res = _cli_json(capsys, ["search", "How often does the light flash?", "-k", "5", "--rects", "--json",
                                   "--index", str(index), "--in-process"])
    assert code == 0
    pdf_hits = [h for h in res["hits"] if h["file"].endswith(".pdf")]
    txt_hits = [h for h in res["hits"] if h["file"].endswith(".txt")]
    assert pdf_hits and all("rects" in h for h in res["hits"])
    for h in pdf_hits:
        g = h["rects"]
        assert g["located"] >= 0.99 and [pb["page"] for pb in g["pages"]] == list(range(h["page_start"], h["page_end"] + 1))
        for pb in g["pages"]:
            part = _page_part(h, pb["page"])
            assert_boxes_hold(CORPUS / h["file"], pb["page"], pb["boxes"], part)
    for h in txt_hits:
        assert h["rects"]["pages"] == [] and "text layer" in h["rects"]["note"]
    # without --rects the answer is unchanged (no rects key)
    code, res = _cli_json(capsys, ["search", "How often does the light flash?", "-k", "2", "--json",
                                   "--index", str(index), "--in-process"])
    assert all("rects" not in h for h in res["hits"])


def _page_part(hit: dict, page: int) -> str:
    text = read_page(CORPUS, hit["file"], page).text
    s = hit["char_start"] if page == hit["page_start"] else 0
    e = hit["char_end"] if page == hit["page_end"] else len(text)
    return text[s:e]


def test_cli_page_png(indexed, capsys, tmp_path):
    _, index = indexed
    common = ["--index", str(index), "--in-process"]
    code, res = _cli_json(capsys, ["search", "fog signal", "-k", "8", "--json", "--file", MANUAL] + common)
    hit = res["hits"][0]
    out = tmp_path / "hit.png"
    code, view = _cli_json(capsys, ["page", MANUAL, str(hit["page_start"]), "--png", str(out), "--hit",
                                    hit["chunk_id"], "--dpi", "80", "--json"] + common)
    assert code == 0 and view["highlight"] == "hit" and view["png"] == str(out)
    assert _pixmap(out.read_bytes()).width == view["width_px"]
    assert abs(view["width_px"] - view["width"] * 80 / 72) <= 1
    boxes = [b for pb in view["rects"]["pages"] for b in pb["boxes"]]
    assert boxes
    assert_boxes_hold(CORPUS / MANUAL, hit["page_start"], boxes, _page_part(hit, hit["page_start"]))
    # human output: one line naming the file, the page, the label and the size
    code = main(["page", MANUAL, "3", "--png", str(out)] + common)
    line = capsys.readouterr().out
    assert code == 0 and re.search(r"page 3 of 10 \(printed 1\), \d+x\d+ px at 150 dpi", line), line
    # a quote on another page: exit 3 (as verify), the note says where it is
    quote = whole_words(read_page(CORPUS, MANUAL, 3).text, 0, 50)
    code = main(["page", MANUAL, "4", "--png", str(out), "--highlight", quote] + common)
    assert code == 3 and "found (exact) on page 3" in capsys.readouterr().err
    # usage mistakes: exit 2 with a next step
    assert main(["page", MANUAL, "3", "--highlight", quote] + common) == 2
    assert "--png" in capsys.readouterr().err
    assert main(["page", "de/moewenhaken-dienstanweisung.txt", "1", "--png", str(out)] + common) == 2
    assert "text layer" in capsys.readouterr().err
    assert main(["page", MANUAL, "3", "--png", str(out), "--hit", "no-such-chunk"] + common) == 2  # names nothing
    assert "chunk_id" in capsys.readouterr().err


def test_mcp_view_page_and_search_rects(indexed):
    import mcp

    from pagerecall.mcp.server import create_server
    from pagerecall.mcp.view import IMAGE_MAX_EDGE_PX

    settings, _ = indexed
    server = create_server(settings)

    async def go():
        async with mcp.Client(server) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            found = await client.call_tool("semantic_search", {"query": "fog signal", "k": 3, "rects": True,
                                                               "files": [MANUAL]})
            hit = found.structured_content["hits"][0]
            view = await client.call_tool("view_page", {"file": MANUAL, "page": hit["page_start"], "hit": hit["chunk_id"]})
            bad = await client.call_tool("view_page", {"file": MANUAL, "page": 99})
            txt = await client.call_tool("view_page", {"file": "de/moewenhaken-dienstanweisung.txt", "page": 1})
            return tools, hit, view, bad, txt

    tools, hit, view, bad, txt = anyio.run(go)
    assert "view_page" in tools and tools["view_page"].annotations.read_only_hint
    assert hit["rects"]["pages"][0]["boxes"]
    assert not view.is_error
    image = [c for c in view.content if c.type == "image"]
    assert len(image) == 1 and image[0].mime_type == "image/png"
    pix = _pixmap(base64.b64decode(image[0].data))
    sc = view.structured_content
    assert max(pix.width, pix.height) <= IMAGE_MAX_EDGE_PX and (pix.width, pix.height) == (sc["width_px"], sc["height_px"])
    assert sc["rects"]["pages"][0]["boxes"] == hit["rects"]["pages"][0]["boxes"]
    assert sc["label"] and sc["image_tokens"] > 0
    assert bad.is_error and "valid pages are 1-10" in bad.content[0].text
    assert txt.is_error and "read_page" in txt.content[0].text


def test_web_api(indexed):
    from starlette.testclient import TestClient

    from pagerecall.search import Searcher
    from pagerecall.ui import create_app

    settings, _ = indexed
    client = TestClient(create_app(Searcher(settings)), base_url="http://127.0.0.1")
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text and "http" + "s://" not in page.text
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/../__init__.py").status_code == 404
    res = client.get("/api/search", params={"q": "fog signal", "k": 3}).json()
    hit = res["hits"][0]
    assert "envelope" in res and hit["ranks"]
    view = client.get("/api/view", params={"file": hit["file"], "page": hit["page_start"], "hit": hit["chunk_id"]}).json()
    assert view["png"] and view["rects"]["pages"]
    quote = whole_words(read_page(CORPUS, MANUAL, 3).text, 0, 40)
    check = client.get("/api/verify", params={"quote": quote, "file": MANUAL, "page": 3}).json()
    assert check["match"] == "exact" and check["rects"]["pages"][0]["boxes"]
    assert client.get("/api/view", params={"file": MANUAL, "page": 99}).status_code == 404
    assert client.get("/api/view", params={"file": "../x.pdf", "page": 1}).status_code == 400
    assert client.get("/api/search", params={"q": ""}).status_code == 400
    # another Host (DNS rebinding): refused
    evil = TestClient(create_app(Searcher(settings)), base_url="http://evil.example")
    assert evil.get("/api/files").status_code == 400


# ------------------------------------------------------------------ ../shared: two columns, rotation, scans


def test_glyph_layout_reproduces_the_page_text():
    """The premise of the mapping: laying the glyphs out in pdf.py's block order gives the page
    text after normalisation (two-column pages, ligatures, hyphenation, vertical Japanese)."""
    for rel in ("tracemonkey.pdf", "026-latex-multicolumn_multicolumn.pdf", "vertical.pdf"):
        path = shared_path("pdfs", "adversarial", rel)
        doc = read_pdf(path, rel, ocr="off")
        for p in doc.pages:
            data = boxes._page_data(path, rel, p.number, None)
            assert data.text == p.text, (rel, p.number)
            assert data.norm_glyphs.text == normalise(p.text).text, (rel, p.number)


def test_two_column_quotes_with_ligatures_and_hyphens():
    folder = shared_path("pdfs", "adversarial")
    rel = "tracemonkey.pdf"
    text = read_page(folder, rel, 2).text
    # across a line-end hyphen ("Trace-|Monkey") and with a ligature ("ﬂ" in "flow")
    cases = [text[text.index("We call the resulting"):text.index("2x-20x speedup")],
             whole_words(text, text.index("if control"), text.index("if control") + 120)]
    # across the column break: the end of the left column and the start of the right one
    end = text.index("dynamic compiler based on")
    cases.append(whole_words(text, end, end + 120))
    for k in range(0, len(text) - 200, 700):
        cases.append(whole_words(text, k, k + 200))
    for quote in cases:
        check = verify_quote(folder, quote, rel, 2)
        assert check.match in ("exact", "normalised"), quote
        assert check.rects.located == 1.0
        (pb,) = check.rects.pages
        assert_boxes_hold(folder / rel, 2, pb.boxes, quote)
        for b in pb.boxes:  # a line box never straddles the gutter between the columns
            assert b[2] <= 306 or b[0] >= 306, (b, quote)


def test_rotated_page_boxes_are_in_displayed_coordinates():
    folder = shared_path("pdfs", "adversarial")
    rel = "hello_world_rotated.pdf"
    doc = pymupdf.open(folder / rel)
    rotated = [i + 1 for i, pg in enumerate(doc) if pg.rotation and pg.get_text().strip()]
    assert rotated
    for page in rotated:
        text = read_page(folder, rel, page).text
        check = verify_quote(folder, text[: min(len(text), 40)], rel, page)
        (pb,) = check.rects.pages
        w, h = doc[page - 1].rect.width, doc[page - 1].rect.height
        assert (pb.width, pb.height) == (round(w, 2), round(h, 2))
        assert all(0 <= b[0] < b[2] <= w + 1 and 0 <= b[1] < b[3] <= h + 1 for b in pb.boxes)
        assert_boxes_hold(folder / rel, page, pb.boxes, text[:40])


def test_image_only_page_is_rendered_with_a_note(tmp_path):
    # the top quarter of linn.pdf's scanned page (no text layer): where Tesseract is installed the
    # highlight below OCRs the page, and a quarter of the page takes a quarter of the whole's time
    scan_excerpt(tmp_path / "linn-top.pdf")
    v = pageview.view_page(tmp_path, "linn-top.pdf", 1, dpi=72)
    assert v.status == "image_only" and "nothing to highlight" in v.note
    assert _ink(_pixmap(v.png)) > 0.01
    v = pageview.view_page(tmp_path, "linn-top.pdf", 1, highlight="any words at all on this scanned page", dpi=72)
    # no text layer: "no usable text", or, where Tesseract is installed (CI), "read by OCR": a miss proves nothing
    assert v.match == "not_found" and ("no usable text" in v.note or "read by OCR" in v.note)


def test_the_resident_server_gives_the_same_image_and_boxes(indexed, capsys, tmp_path):
    """``page --png`` and ``search --rects`` through a running resident server answer exactly as in process."""
    from pagerecall.cli.forwarded import run_forwarded
    from pagerecall.resident import server as resident
    from pagerecall.search import Searcher

    settings = copy_of_index(indexed[0], tmp_path / "index")  # the server's socket goes into the index folder
    index = settings.index_dir
    srv = resident.ResidentServer(settings, Searcher(settings), forward=run_forwarded).start()
    try:
        outputs = []
        for extra in ([], ["--in-process"]):
            out = tmp_path / f"page{len(extra)}.png"
            code = main(["page", MANUAL, "3", "--png", str(out), "--dpi", "60", "--index", str(index)] + extra)
            cli = capsys.readouterr()
            code2, res = _cli_json(capsys, ["search", "fog signal", "-k", "3", "--rects", "--json",
                                            "--index", str(index)] + extra)
            outputs.append((code, cli.out.replace(str(out), "OUT"), out.read_bytes(), code2,
                            [h["rects"] for h in res["hits"]]))
        assert "resident server not used" not in capsys.readouterr().err
        assert outputs[0] == outputs[1]
    finally:
        srv.stop()
