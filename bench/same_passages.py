"""Are the passages of the bench corpus the same as at another commit? Chunks and outlines, file by file.

Usage: nice python bench/same_passages.py REF [N]

Exports ``REF`` (a commit of this repository) with ``git archive`` into a temporary folder, then, with
that code and with this working tree, reads and chunks the first ``N`` (default 12) ``.pdf``/``.txt``
files of ``../shared/corpora/bench`` and prints per file: chunk count, a hash of every chunk's
``(seq, page_start, page_end, char_start, char_end, label_start, label_end, text)`` (chunk ids follow
from the file's content hash and ``seq``), and a hash of the placed outline. Exit 0 when both sides
print the same, 1 otherwise. Used for issue 44 (new formats leave PDF and text answers unchanged).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import _suite as suite

ROOT = suite.ROOT

PROBE = r'''
import hashlib, json, sys
from pathlib import Path
from pagerecall.extract.sources import read_document
from pagerecall.ingest.chunking import chunk_document
from pagerecall.model.tokenization import load_default_tokenizer
tok = load_default_tokenizer()
bench = Path(sys.argv[1])
for f in sorted(p for p in bench.rglob("*") if p.suffix in (".pdf", ".txt"))[: int(sys.argv[2])]:
    doc = read_document(f, f.name)
    chunks = chunk_document(doc, tok)
    rows = [(c.seq, c.page_start, c.page_end, c.char_start, c.char_end, c.label_start, c.label_end, c.text) for c in chunks]
    outline = doc.outline.placed([p.text for p in doc.pages]).to_json() if doc.outline else ""
    print(f.relative_to(bench), len(chunks), hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:16],
          hashlib.sha256(outline.encode()).hexdigest()[:12])
'''


def _run(code_dir: Path, bench: Path, n: int) -> str:
    env = dict(os.environ, PYTHONPATH=str(code_dir), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-c", PROBE, str(bench), str(n)], env=env, check=True,
                          capture_output=True, text=True).stdout


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ref", help="a commit of this repository to compare the working tree with")
    ap.add_argument("n", nargs="?", type=int, default=12, help="files of ../shared/corpora/bench read (default 12)")
    args = ap.parse_args(argv)
    ref, n = args.ref, args.n
    record = suite.start(__file__, args)
    bench = suite.SHARED / "corpora" / "bench"
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        before = _run(Path(tmp), bench, n)
    after = _run(ROOT, bench, n)
    print(f"# {ref}\n{before}# working tree\n{after}")
    same = before == after
    print("same passages and outlines" if same else "DIFFERENT")
    record.end()
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
