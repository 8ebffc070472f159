"""What deciding visibility from the rendered page costs a build (the 15 % budget).

Part 1, extraction (every page of the subset): per PDF, interleaved and in alternating order,
the CPU of :func:`pagerecall.extract.pdf.read_pdf` with the visibility check and with it
switched off (``pagerecall.extract.pdf.split_pdf_hidden`` replaced by "nothing hidden"), and where
the check's CPU goes (the two renders; the glyph-level check on pages the span-level one did not prove).

Part 2, ``--build N``: ``pagerecall build`` of the first N PDFs of the subset, in a child process
each, with and without the check, interleaved (off, on, on, off), CPU of the child (user + system,
all threads). The check's share of the build = (on - off) / on.

    nice python bench/visibility_cost.py [--subset upstream] [--build 3]
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _suite as suite

HERE = suite.HERE
SUBSETS = {"upstream": ["maint-guide", "debian-faq", "developers-reference", "texlive-guide", "multicolumn"]}
_OFF = "import pagerecall.extract.pdf as p; p.split_pdf_hidden = lambda page, tp, data: (data, ())\n"


def _files(root: Path, subset: str) -> list[Path]:
    folders = SUBSETS.get(subset, subset.split(","))
    return sorted(p for f in folders for p in (root / f).rglob("*.pdf"))


def extraction(files: list[Path]) -> dict:
    import pagerecall.extract.hidden as hidden
    import pagerecall.extract.pdf as pdf
    import pagerecall.extract.rendering as rendering
    from pagerecall.extract.pdf import read_pdf

    real_classify, real_render, real_split = hidden._classify, rendering.render_pair, pdf.split_pdf_hidden
    spent = {"render": 0.0, "classify": 0.0}

    def timed_render(*a, **k):
        t = time.process_time()
        try:
            return real_render(*a, **k)
        finally:
            spent["render"] += time.process_time() - t

    def timed_classify(*a, **k):
        t = time.process_time()
        try:
            return real_classify(*a, **k)
        finally:
            spent["classify"] += time.process_time() - t

    rendering.render_pair = timed_render
    cpu = {"on": 0.0, "off": 0.0}
    pages = hidden_pages = 0
    for i, path in enumerate(files):
        for mode in (("off", "on") if i % 2 else ("on", "off")):
            hidden._classify = timed_classify
            pdf.split_pdf_hidden = real_split if mode == "on" else (lambda page, tp, data: (data, ()))
            t = time.process_time()
            doc = read_pdf(path, path.name, ocr="off")
            cpu[mode] += time.process_time() - t
            if mode == "on":
                pages += len(doc.pages)
                hidden_pages += sum(bool(p.hidden) for p in doc.pages)
    hidden._classify, rendering.render_pair, pdf.split_pdf_hidden = real_classify, real_render, real_split
    return {"files": len(files), "pages": pages, "pages_listing_hidden": hidden_pages,
            "extract_cpu_s_off": round(cpu["off"], 1), "extract_cpu_s_on": round(cpu["on"], 1),
            "check_cpu_s": round(cpu["on"] - cpu["off"], 1), "check_ms_per_page": round(1000 * (cpu["on"] - cpu["off"]) / max(pages, 1), 2),
            "of_which_render_s": round(spent["render"], 1), "glyph_level_s": round(spent["classify"], 1)}


def build(files: list[Path]) -> dict:
    out: dict[str, list[float]] = {"on": [], "off": []}
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus"
        corpus.mkdir()
        for p in files:
            shutil.copy(p, corpus / p.name)  # a symlink out of the corpus is skipped by build
        for k, mode in enumerate(("off", "on", "on", "off")):
            code = (_OFF if mode == "off" else "") + (
                "from pagerecall.app import main; import sys; "
                f"sys.exit(main(['build', {str(corpus)!r}, '--index', {str(Path(tmp) / f'idx{k}')!r}, '--ocr', 'off', '-q']))")
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run([sys.executable, "-c", code], check=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            out[mode].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    on, off = sum(out["on"]) / 2, sum(out["off"]) / 2
    return {"build_files": [p.name for p in files], "build_cpu_s_off": round(off, 1), "build_cpu_s_on": round(on, 1),
            "check_share_of_build": round((on - off) / on, 3), "runs": out}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--subset", default="upstream")
    ap.add_argument("--root", type=Path, default=HERE.parent.parent / "shared" / "corpora" / "bench")
    ap.add_argument("--build", type=int, default=0, help="also build the first N PDFs with and without the check")
    ap.add_argument("--skip-extraction", action="store_true")
    args = ap.parse_args(argv)
    record = suite.start(__file__, args, suite.bench_settings(ocr="off"))
    root = args.root if args.root.exists() else HERE.parent / ".." / "shared" / "corpora" / "bench"
    files = _files(root, args.subset)
    if not args.skip_extraction:
        print(json.dumps(extraction(files)), flush=True)
    if args.build:
        print(json.dumps(build(files[: args.build])), flush=True)
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
