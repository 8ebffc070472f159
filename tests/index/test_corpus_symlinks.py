"""Folder symlinks in the corpus are followed or listed, never ignored silently (issue 36.4).

A folder linked into the corpus was neither indexed nor listed as skipped (``os.walk`` without
``followlinks`` names it and never enters it). Now a link that stays inside the corpus is followed
(its files under the link's path, as file symlinks are), one that leaves the corpus is listed as
skipped (the read path refuses such files too), and one that leads back to a folder it sits in is
listed as a symlink loop; the walk always ends. Real files, real folders and links on disk.
"""

from __future__ import annotations

from pathlib import Path

from pagerecall.index.corpus import scan_corpus


def _txt(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\f", encoding="utf-8")


def _corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    _txt(root / "top.txt", "The keeper's log of the north light.")
    _txt(root / "archive" / "1901" / "storm.txt", "The storm of 1901 broke the lantern glass.")
    _txt(tmp_path / "outside" / "secret.txt", "Not part of the corpus.")
    (root / "mirror").symlink_to(root / "archive" / "1901", target_is_directory=True)  # stays inside: followed
    (root / "elsewhere").symlink_to(tmp_path / "outside", target_is_directory=True)  # leaves the corpus
    (root / "archive" / "1901" / "up").symlink_to(root / "archive", target_is_directory=True)  # loop
    # two folders linking to each other: followed once each way, then a loop
    (root / "a").mkdir()
    (root / "b").mkdir()
    _txt(root / "a" / "a.txt", "Folder a.")
    (root / "a" / "to-b").symlink_to(root / "b", target_is_directory=True)
    (root / "b" / "to-a").symlink_to(root / "a", target_is_directory=True)
    return root


def test_folder_symlinks_are_followed_inside_the_corpus_and_listed_otherwise(tmp_path: Path) -> None:
    root = _corpus(tmp_path)
    skipped: list[dict] = []
    found = scan_corpus(root, skipped=skipped)
    assert sorted(found) == [
        "a/a.txt", "archive/1901/storm.txt", "b/to-a/a.txt", "mirror/storm.txt", "top.txt",
    ]
    reasons = {s["path"]: s["reason"] for s in skipped}
    assert reasons["elsewhere"] == "symlink leaves the corpus root"
    assert reasons["archive/1901/up"] == "symlink loop"
    assert reasons["mirror/up"] == "symlink loop"
    assert reasons["a/to-b/to-a"] == "symlink loop" and reasons["b/to-a/to-b"] == "symlink loop"


def test_build_dry_run_lists_the_skipped_folder_links(tmp_path: Path) -> None:
    import dataclasses

    from pagerecall.ingest import pipeline as indexing
    from pagerecall.config import Settings

    root = _corpus(tmp_path)
    settings = dataclasses.replace(Settings.from_env(), index_dir=tmp_path / "index")
    out = indexing.build(settings, root, dry_run=True).to_dict()
    assert "mirror/storm.txt" in out["delta"]["files"]
    assert {"path": "elsewhere", "reason": "symlink leaves the corpus root"} in out["skipped"]
