#!/usr/bin/env python3
"""What a small edit costs ``update``: passages whose text changed, and passages embedded again.

    nice python bench/edit_reuse.py edits FILE [FILE ...] [--anchor-min N|off] [--update] [--runtime R]
    nice python bench/edit_reuse.py sweep TEXT_LAYER_OR_PDF [...] [--pages 12] [--anchor-min off,80]
    nice python bench/edit_reuse.py stats DIR_OR_FILE [...] [--anchor-min N|off]

``edits``: for each FILE (a PDF, a ``.txt`` with form-feed page breaks, or ``PDF --as-text``: the PDF's
pages as read by pagerecall written to a temporary text layer, one form feed between pages) applies
each edit of :data:`EDITS` to a copy and chunks both versions with the product's extraction and
chunker (bundled multilingual-e5 tokenizer). Per edit: passages before/after, passages whose text is
new (what a batch-invariant runtime embeds again: OpenVINO bf16, fp32), the pages they span. With
``--update`` it also builds a temporary index of the unedited file (real model, LanceDB, Tantivy;
``--runtime``, default ``auto``) and runs ``update`` after each edit on a copy: the report's
``chunks_embedded`` and ``chunks_reused.live_generation`` (int8: whole unchanged batches only).

``stats``: passages, tokens (``n_tokens``), tokens the model computes (``+ overhead`` per passage, and
padded in int8 batches sorted by length: cut every 32, ``embed_loop.padded_tokens``, and cut where the
texts say, ``batches.cut_batches``) over the supported files under each path: the build cost of a cut rule.

``sweep``: each text edit (insert, delete, longer word) at ``--pages`` pages spread over a text layer,
chunked in memory: passages changed (mean, max), the share of edits whose changes stay on the page and
its neighbours, and the int8 passages embedded again with batches cut every 32 (``int8_mean``) and cut
where the texts say (``int8_cdc8``: the code's; 16 and 32 for comparison), simulated on the chunks.

``--anchor-min``: a comma list of page anchor thresholds (``pagerecall.ingest.chunk_anchors.ANCHOR_MIN_TOKENS``)
to compare in one run; ``off`` (the code's default) gives the cuts without anchors; a suffix ``g`` (greedy up
to the anchor) or ``e`` (even shares over the whole page) picks the other rules measured. Prints the suite's header,
then JSON lines.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

import _suite as suite

SENTENCE = "An added sentence says where the font maps are installed."
LONGER = "reconfiguration"
EDITS = ("insert-p1", "insert-mid", "delete-mid", "longer-word-mid")
"""Edits: a sentence inserted after the first sentence of page 1 / of the middle page; a sentence of
the middle page deleted; a word of the middle page replaced by a longer one. On a PDF: the
sentence drawn at the page's top, a text line redacted, a word redacted and the longer one drawn at
its place (PyMuPDF, as an editor saves it)."""

_SENT_END = re.compile(r"[.!?][\"')\]]*\s")
_WORD = re.compile(r"\b[A-Za-z]{5,}\b")


def _tokenizer():
    from pagerecall.model.tokenization import load_default_tokenizer

    return load_default_tokenizer()


def _set_anchor(value: str) -> None:
    from pagerecall.ingest import chunk_anchors

    chunk_anchors.ANCHOR_MIN_TOKENS = None if value == "off" else int(value)


def _greedy(s: int, a: int, budget: int, overlap: int) -> tuple[int, bool]:
    """An option measured: chunks run greedily up to the anchor (the one that reaches it ends there,
    however short)."""
    return (a, True) if a - s <= budget else (s + budget, False)


def _even_all(s: int, a: int, budget: int, overlap: int) -> tuple[int, bool]:
    """An option measured: every chunk of the stretch before an anchor gets an even share (``k`` as few
    as fit ``budget``), so an edit anywhere on a page moves all its cuts."""
    if a - s <= budget:
        return a, True
    k = -(-(a - s - overlap) // max(1, budget - overlap))
    return min(s + budget, s + overlap + -(-(a - s - overlap) // k) + budget // 8), False


_DOCS: dict = {}


def _read(path: Path):
    """The document at ``path``, read once per content (variants re-chunk it, extraction is the slow part)."""
    from pagerecall.extract.sources import read_document
    from pagerecall.paths import file_sha256

    key = (path.name, file_sha256(path))
    if key not in _DOCS:
        _DOCS[key] = read_document(path, path.name, ocr="off")
    return _DOCS[key]


def _chunks(path: Path, tok) -> list:
    from pagerecall.config import Settings
    from pagerecall.ingest.chunking import chunk_document

    return chunk_document(_read(path), tok, Settings.from_env().chunk)


def _variants(spec: str | None) -> list[tuple[str, str]]:
    """``--anchor-min`` as (threshold, rule) pairs: ``off,80,160g,80e`` (suffix ``g``: greedy up to the
    anchor, ``e``: even shares over the whole stretch; none: the code's rule)."""
    from pagerecall.ingest import chunk_anchors

    if spec is None:
        return [(str(chunk_anchors.ANCHOR_MIN_TOKENS or "off"), "")]
    return [(v.rstrip("ge"), v[len(v.rstrip("ge")):]) for v in spec.split(",")]


_CODE = None


def _use(variant: tuple[str, str]) -> None:
    global _CODE
    from pagerecall.ingest import chunk_anchors

    _CODE = _CODE or chunk_anchors.anchored_end
    chunk_anchors.anchored_end = {"g": _greedy, "e": _even_all}.get(variant[1], _CODE)
    _set_anchor(variant[0])


def text_layer(pdf: Path, out_dir: Path) -> Path:
    """``pdf``'s pages as pagerecall reads them, joined by one form feed each, as ``out_dir/NAME.txt``."""
    doc = _read(pdf)
    out = out_dir / (pdf.stem + ".txt")
    out.write_text("\f".join(p.text.replace("\f", " ") for p in doc.pages), encoding="utf-8")
    return out


def _middle(pages: list[str]) -> int:
    """The 0-based middle page, or the next one with some prose (two sentence ends, 600 characters)."""
    for i in list(range(len(pages) // 2, len(pages))) + list(range(0, len(pages) // 2)):
        if len(pages[i]) >= 600 and len(_SENT_END.findall(pages[i])) >= 3:
            return i
    return len(pages) // 2


def edit_text(pages: list[str], edit: str, at_page: int | None = None) -> tuple[list[str], int]:
    """``pages`` (a text layer's page texts) with ``edit`` applied (at the 0-based page ``at_page`` when
    given), and the 1-based page edited."""
    pages = list(pages)
    i = at_page if at_page is not None else 0 if edit.endswith("p1") else _middle(pages)
    t = pages[i]
    ends = [m.end() for m in _SENT_END.finditer(t)]
    if edit.startswith("insert"):
        at = ends[0] if ends else 0
        pages[i] = t[:at] + SENTENCE + " " + t[at:]
    elif edit.startswith("delete"):
        k = len(ends) // 2
        a, b = (ends[k - 1], ends[k]) if k >= 1 else (0, ends[0] if ends else len(t) // 2)
        pages[i] = t[:a] + t[b:]
    else:
        m = _WORD.search(t, len(t) // 2) or _WORD.search(t)
        pages[i] = t[: m.start()] + LONGER + t[m.end():]
    return pages, i + 1


def edit_pdf(src: Path, dst: Path, edit: str) -> int:
    """A copy of ``src`` at ``dst`` with ``edit`` applied (PyMuPDF); returns the 1-based page edited."""
    import pymupdf

    with pymupdf.open(src) as doc:
        texts = [p.get_text() for p in doc]
        i = 0 if edit.endswith("p1") else _middle(texts)
        page = doc[i]
        if edit.startswith("insert"):
            page.insert_text((72, 60), SENTENCE, fontsize=9)
        elif edit.startswith("delete"):
            lines = [ln for b in page.get_text("dict")["blocks"] for ln in b.get("lines", [])
                     if len("".join(s["text"] for s in ln["spans"]).split()) >= 6]
            page.add_redact_annot(pymupdf.Rect(lines[len(lines) // 2]["bbox"]))
            page.apply_redactions(images=pymupdf.PDF_REDACT_IMAGE_NONE)
        else:
            words = [w for w in page.get_text("words") if len(w[4]) >= 5 and w[4].isalpha()]
            w = words[len(words) // 2]
            page.add_redact_annot(pymupdf.Rect(w[:4]))
            page.apply_redactions(images=pymupdf.PDF_REDACT_IMAGE_NONE)
            page.insert_text((w[0], w[3] - 0.2 * (w[3] - w[1])), LONGER, fontsize=0.8 * (w[3] - w[1]))
        doc.save(dst)
    return i + 1


def apply_edit(src: Path, dst: Path, edit: str) -> int:
    """``src`` edited by ``edit`` written to ``dst`` (same suffix); the 1-based page edited."""
    if src.suffix.lower() == ".pdf":
        return edit_pdf(src, dst, edit)
    pages, page = edit_text(src.read_text(encoding="utf-8").split("\f"), edit)
    dst.write_text("\f".join(pages), encoding="utf-8")
    return page


def int8_batches(chunks: list, mean: int = 0) -> list[tuple[str, ...]]:
    """The int8 embed loop's batches of one file before content-defined cuts (distinct texts in chunk
    order, stably sorted by token count, cut every ``EMBED_BATCH``), or with ``mean``:
    ``batches.cut_batches`` with that mean (8: the code's) and at most ``EMBED_BATCH``."""
    from pagerecall.ingest.embed_loop import EMBED_BATCH

    first: dict[str, int] = {}
    for c in chunks:
        first.setdefault(c.text, c.n_tokens)
    order = sorted(first, key=first.get)
    if not mean:
        return [tuple(order[i : i + EMBED_BATCH]) for i in range(0, len(order), EMBED_BATCH)]
    from pagerecall.ingest.batches import cut_batches

    texts = list(first)
    return [tuple(texts[i] for i in b) for b in cut_batches(texts, [first[t] for t in texts], EMBED_BATCH, mean)]


def compare(old: list, new: list) -> dict:
    """Passages of ``new`` whose text is not among ``old``'s (embedded again by a batch-invariant
    runtime), the pages they span, and the passages in int8 batches not among ``old``'s (what the
    int8 graph embeds again: ``pagerecall.ingest.reuse`` takes whole unchanged batches only)."""
    old_texts = {c.text for c in old}
    fresh = [c for c in new if c.text not in old_texts]
    cdc = {f"int8_cdc{m}_new": sum(len(b) for b in int8_batches(new, m) if b not in set(int8_batches(old, m)))
           for m in (8, 16, 32)}
    old_batches = set(int8_batches(old))
    return {**cdc, "passages_before": len(old), "passages_after": len(new), "new_texts": len(fresh),
            "pages": [min(c.page_start for c in fresh), max(c.page_end for c in fresh)] if fresh else None,
            "int8_new": sum(len(b) for b in int8_batches(new) if b not in old_batches)}


def _update_run(src: Path, work: Path, runtime: str, edits: list[str]) -> dict:
    """Build an index of ``src`` alone, then per edit: ``update`` on a copy of it after the edit."""
    from pagerecall.ingest import pipeline

    corpus = work / "corpus"
    corpus.mkdir()
    shutil.copy2(src, corpus / src.name)
    settings = suite.bench_settings(index_dir=work / "index", ocr="off", runtime=runtime, degraded_registry=None)
    built = pipeline.build(settings, corpus).to_dict()
    out = {"build": {k: built[k] for k in ("chunks_total", "chunks_embedded", "tokens_embedded")}}
    for edit in edits:
        idx = work / f"index-{edit}"
        shutil.copytree(work / "index", idx, symlinks=True)
        apply_edit(src, corpus / src.name, edit)
        d = pipeline.update(dataclasses.replace(settings, index_dir=idx)).to_dict()
        out[edit] = {"total": d["chunks_total"], "embedded": d["chunks_embedded"],
                     "reused": (d.get("chunks_reused") or {}).get("live_generation"),
                     "tokens_embedded": d["tokens_embedded"]}
        shutil.copy2(src, corpus / src.name)
        shutil.rmtree(idx)
    return out


def cmd_edits(a, tok) -> None:
    work = Path(tempfile.mkdtemp(prefix="edit-reuse-"))
    try:
        for f in a.files:
            src = text_layer(f, work) if a.as_text and f.suffix.lower() == ".pdf" else f
            edited = {}
            for edit in a.edit:
                dst = work / (f"edited-{edit}" + src.suffix)
                edited[edit] = (dst, apply_edit(src, dst, edit))
            for variant in _variants(a.anchor_min):
                _use(variant)
                old = _chunks(src, tok)
                row = {"file": f.name, "as": src.suffix, "pages": len(_read(src).pages), "anchor_min": variant[0],
                       "rule": variant[1] or "code"}
                for edit, (dst, page) in edited.items():
                    row[edit] = {"page": page, **compare(old, _chunks(dst, tok))}
                print(json.dumps(row), flush=True)
                if a.update:  # the real build and update, with this variant's cuts
                    up = work / "update"
                    up.mkdir()
                    print(json.dumps({"file": f.name, "anchor_min": variant[0], "rule": variant[1] or "code",
                                      "runtime": a.runtime, "update": _update_run(src, up, a.runtime, a.edit)}),
                          flush=True)
                    shutil.rmtree(up)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def cmd_sweep(a, tok) -> None:
    """Each text edit at ``--pages`` pages spread over the document (pages with prose), per variant:
    passages whose text changed (mean, max) and the share of edits whose changes stay within the
    edited page and its two neighbours. Chunked in memory (no files), so many edits are cheap."""
    import statistics

    from pagerecall.config import Settings
    from pagerecall.ingest.chunking import chunk_document
    from pagerecall.types import Document

    work = Path(tempfile.mkdtemp(prefix="edit-sweep-"))
    try:
        for f in a.files:
            src = text_layer(f, work) if f.suffix.lower() == ".pdf" else f
            doc = _read(src)
            texts = [p.text for p in doc.pages]
            prose = [i for i, t in enumerate(texts) if len(t) >= 600 and len(_SENT_END.findall(t)) >= 3]
            at = [prose[round(j * (len(prose) - 1) / max(1, a.pages - 1))] for j in range(min(a.pages, len(prose)))]
            edits = ("insert", "delete", "longer-word")
            versions = {}
            for e in edits:
                for i in at:
                    new, _ = edit_text(texts, e, i)
                    versions[(e, i)] = Document(path=doc.path, kind=doc.kind, pages=tuple(
                        dataclasses.replace(p, text=t) for p, t in zip(doc.pages, new)))
            for variant in _variants(a.anchor_min):
                _use(variant)
                params = Settings.from_env().chunk
                old = chunk_document(doc, tok, params)
                row = {"file": f.name, "pages": len(texts), "edited_pages": len(at), "anchor_min": variant[0],
                       "rule": variant[1] or "code", "passages": len(old)}
                for e in edits:
                    counts, int8, local = [], [], 0
                    cdc: dict[str, list[int]] = {}
                    for i in at:
                        c = compare(old, chunk_document(versions[(e, i)], tok, params))
                        counts.append(c["new_texts"])
                        int8.append(c["int8_new"])
                        for k, v in c.items():
                            if k.startswith("int8_cdc"):
                                cdc.setdefault(k, []).append(v)
                        local += c["pages"] is None or (c["pages"][0] >= i and c["pages"][1] <= i + 2)
                    row[e] = {"mean": round(statistics.mean(counts), 2), "max": max(counts),
                              "within_page_and_neighbours": round(local / len(at), 2),
                              "int8_mean": round(statistics.mean(int8), 1), "int8_max": max(int8),
                              **{k: round(statistics.mean(v), 1) for k, v in cdc.items()}}
                print(json.dumps(row), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def cmd_stats(a, tok) -> None:
    from pagerecall.extract.sources import is_supported
    from pagerecall.ingest.batches import cut_batches
    from pagerecall.ingest.embed_loop import EMBED_BATCH, padded_tokens

    files = []
    for p in a.paths:
        files += sorted(x for x in p.rglob("*") if x.is_file() and is_supported(x)) if p.is_dir() else [p]
    for variant in _variants(a.anchor_min):
        _use(variant)
        total = {"files": 0, "passages": 0, "tokens": 0, "model_tokens": 0, "padded_int8": 0, "padded_int8_cdc": 0,
                 "int8_batches_cdc": 0}
        for f in files:
            try:
                ch = _chunks(f, tok)
            except Exception as exc:  # noqa: BLE001 - a file that does not read adds nothing
                print(f"# skip {f.name}: {exc}", file=sys.stderr)
                continue
            lengths = [c.n_tokens + tok.overhead for c in ch]
            total["files"] += 1
            total["passages"] += len(ch)
            total["tokens"] += sum(c.n_tokens for c in ch)
            total["model_tokens"] += sum(lengths)
            total["padded_int8"] += padded_tokens(lengths, EMBED_BATCH) if lengths else 0
            lens = {}
            for c, n in zip(ch, lengths):
                lens.setdefault(c.text, n)
            texts = list(lens)
            cuts = cut_batches(texts, [lens[t] for t in texts], EMBED_BATCH)
            total["padded_int8_cdc"] += sum(max(lens[texts[i]] for i in b) * len(b) for b in cuts)
            total["int8_batches_cdc"] += len(cuts)
        print(json.dumps({"anchor_min": variant[0], "rule": variant[1] or "code", "paths": [str(p) for p in a.paths], **total}),
              flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("edits", help="passages changed and re-embedded per edit")
    e.add_argument("files", nargs="+", type=Path)
    e.add_argument("--as-text", action="store_true", help="edit a PDF's text layer (.txt, form feeds) instead")
    e.add_argument("--edit", action="append", choices=EDITS, help=f"default: all of {', '.join(EDITS)}")
    e.add_argument("--update", action="store_true", help="also build and update a temporary index (real model)")
    e.add_argument("--runtime", default="auto", choices=("auto", "onnxruntime", "openvino"))
    w = sub.add_parser("sweep", help="each text edit at many pages (in memory): passages changed per variant")
    w.add_argument("files", nargs="+", type=Path, help="text layers, or PDFs (read into one)")
    w.add_argument("--pages", type=int, default=12, help="pages edited, spread over the document")
    s = sub.add_parser("stats", help="passages and tokens of a corpus")
    s.add_argument("paths", nargs="+", type=Path)
    for p in (e, w, s):
        p.add_argument("--anchor-min", default=None,
                       help="comma list of page anchor thresholds in tokens, or off; a trailing g: no even shares "
                            "before an anchor (default: the code's)")
    a = ap.parse_args(argv)
    if a.cmd == "edits" and a.edit is None:
        a.edit = list(EDITS)
    record = suite.start(__file__, a, suite.bench_settings(ocr="off"))
    tok = _tokenizer()
    {"edits": cmd_edits, "sweep": cmd_sweep, "stats": cmd_stats}[a.cmd](a, tok)
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
