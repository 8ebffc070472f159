"""The write half through ``pylance`` alone (issue 45, item 2): a build, an update and a guarded rebuild
never import ``lancedb``, and a generation whose tables LanceDB wrote (every index before this change) is
updated by the writer and reads the same.

Real bundled model, real Lance and Tantivy; the first test runs the CLI in a fresh interpreter on three
small text files of the example corpus (a few seconds)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from pagerecall.index.ann import ANN_MIN_ROWS
from pagerecall.index.layout import IndexStore
from pagerecall.index.snapshot import open_snapshot
from pagerecall.index.tables import LanceTable, table_uri
from tests.index.test_generations import build, file_record, make_rows, unit

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
from pagerecall.cli.commands import main
corpus, index = sys.argv[1], sys.argv[2]
steps = {}
steps["build"] = main(["build", corpus, "--index", index, "-q"])
from pathlib import Path
c = Path(corpus)
(c / "fr" / "carnet-du-gardien.txt").write_text((c / "fr" / "carnet-du-gardien.txt").read_text() + "\\nNouvelle ligne.\\n")
(c / "de" / "moewenhaken-dienstanweisung.txt").rename(c / "de" / "dienstanweisung.txt")
(c / "zh" / "bailujiao-dengta.txt").unlink()
steps["update"] = main(["update", "--index", index, "-q"])
steps["rebuild"] = main(["rebuild", "--index", index, "-q"])
print(json.dumps({"steps": steps, "modules": sorted(m.split(".")[0] for m in sys.modules)}), file=sys.stderr)
"""


def test_build_update_and_rebuild_never_import_lancedb(tmp_path):
    corpus = tmp_path / "corpus"
    for lang in ("de", "fr", "zh"):
        shutil.copytree(ROOT / "examples" / "corpus" / lang, corpus / lang)
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, "-c", PROBE, str(corpus), str(tmp_path / "index")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900, check=False)
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    assert report["steps"] == {"build": 0, "update": 0, "rebuild": 0}, proc.stderr[-3000:]
    assert "lance" in report["modules"]
    assert not {"lancedb", "lance_namespace_urllib3_client"} & set(report["modules"])
    snap = open_snapshot(tmp_path / "index")
    assert sorted(r["path"] for r in snap.files_table()) == ["de/dienstanweisung.txt", "fr/carnet-du-gardien.txt"]


def _rewrite_with_lancedb(gen_dir: Path, ann: dict | None) -> None:
    """Write generation ``gen_dir``'s Lance tables anew through LanceDB, as the writer did before it used
    ``pylance``: ``create_table``, ``add``, BTREE indexes on ``file`` and ``chunk_id``, the IVF_SQ index with
    LanceDB's configuration, ``optimize``. Same rows, so meta.json and Tantivy still match."""
    import lancedb
    from lancedb.index import BTree, IvfSq

    from pagerecall.index.ann import IVF_MAX_ITERATIONS, IVF_SAMPLE_RATE

    uri = str(gen_dir / "lance")
    chunks, files = (LanceTable.open(table_uri(uri, t)).scan() for t in ("chunks", "files"))
    for t in ("chunks", "files"):
        shutil.rmtree(gen_dir / "lance" / f"{t}.lance")
    db = lancedb.connect(uri)
    db.create_table("files", schema=files.schema).add(files)
    table = db.create_table("chunks", schema=chunks.schema)
    for lo in range(0, chunks.num_rows, 4096):
        table.add(chunks.slice(lo, 4096))
    for col in ("file", "chunk_id"):
        table.create_index(col, config=BTree())
    table.optimize()
    if ann:
        table.create_index("vector", config=IvfSq(distance_type="cosine", num_partitions=ann["num_partitions"],
                                                  max_iterations=IVF_MAX_ITERATIONS, sample_rate=IVF_SAMPLE_RATE))


def test_a_generation_lancedb_wrote_is_updated_and_reads_the_same(tmp_path):
    """Gen 1's tables come from LanceDB (with its ANN index); the update over it (a delete, a rename, an
    added file, a carried record) is written by the pylance writer, verified, and answers like a reader of
    the same rows: every row's vector bit for bit, the moved file's chunks under its new name."""
    dim, n = 16, ANN_MIN_ROWS + 200
    store = IndexStore(tmp_path / "idx")
    name = build(store, {"big.pdf": n - 30, "gone.pdf": 10, "old/name.pdf": 20}, dim=dim)
    meta = json.loads((store.path / name / "meta.json").read_text())
    assert meta["ann"]["type"] == "IVF_SQ"
    _rewrite_with_lancedb(store.path / name, meta["ann"])
    before = open_snapshot(store.path)
    assert before.name == name and before.chunks.count_rows() == n
    kept = before.chunks.to_table(filter="file = 'big.pdf'").sort_by("chunk_id")

    w = store.begin_generation(base=name, dim=dim)
    w.delete_files(["gone.pdf"])
    w.rename_file("old/name.pdf", "new/name.pdf")
    w.add_chunks(make_rows("added.pdf", 7, unit(np.random.default_rng(9), 7, dim)))
    w.upsert_file_records([file_record("added.pdf", 7)])
    w.carry_file_records({"big.pdf": {"mtime": 1.8e9}})
    out = w.finalize({"model": "test", "dim": dim})
    report = w.verify()
    store.swap(w.name)

    after = open_snapshot(store.path)
    assert after.name == w.name and report.lance_chunks == n - 10 + 7 == out["counts"]["lance_chunks"]
    assert out["ann"]["type"] == "IVF_SQ" and "vector_idx" in report.indexes
    assert {r["path"]: r["mtime"] for r in after.files_table()}["big.pdf"] == 1.8e9
    assert sorted(r["path"] for r in after.files_table()) == ["added.pdf", "big.pdf", "new/name.pdf"]
    assert after.chunks.count_rows("file = 'new/name.pdf'") == 20 and not after.chunks.count_rows("file = 'gone.pdf'")
    now = after.chunks.to_table(filter="file = 'big.pdf'").sort_by("chunk_id")
    assert now.equals(kept)  # text, pages and vectors bit for bit
    q = np.asarray(kept.column("vector")[3].as_py(), dtype=np.float32)
    assert after.vector_search(q, 1)[0][0] == kept.column("chunk_id")[3].as_py()
    # the base (LanceDB's tables, still open in a pinned snapshot) is untouched
    assert before.chunks.count_rows() == n and before.chunks.count_rows("file = 'gone.pdf'") == 10
