"""A read of an index whose first build was interrupted says so and how it resumes.

Before: ``pagerecall build CORPUS --index IDX``, Ctrl-C during its first build, then ``pagerecall search
lintian --index IDX`` run from a folder holding the Quickstart's ``.pagerecall-index`` answered "No
index at IDX, but this folder has one: .pagerecall-index. Next: add --index .pagerecall-index to the
command": the user had named IDX, and the hint sent them to another corpus's index instead of
saying that the build they interrupted resumes.

A real ``pagerecall build`` process (real model, real index) gets a real SIGINT once its resume cache
holds vectors; the reads run through ``main(argv)`` in a folder that has its own ``.pagerecall-index``.
"""

from __future__ import annotations

import shutil

import pytest

from pagerecall.cli.commands import main
from tests.cli.test_interrupted_first_build import CORPUS, _build, _cached


@pytest.fixture(scope="module")
def interrupted(tmp_path_factory):
    base = tmp_path_factory.mktemp("interrupted")
    corpus = base / "corpus"
    shutil.copytree(CORPUS, corpus)
    index = base / "index"
    code, err = _build(corpus, index, lambda: _cached(index) > 0)
    assert code == 130 and not (index / "CURRENT").exists(), err
    other = base / "elsewhere"  # a working folder that holds another index, as README's Quickstart makes
    (other / ".pagerecall-index").mkdir(parents=True)
    (other / ".pagerecall-index" / "CURRENT").write_text("gen-000001\n", encoding="utf-8")
    return corpus, index, other


@pytest.mark.parametrize("argv", [["search", "fog signal", "--in-process"], ["info", "--in-process"],
                                  ["files", "--in-process"], ["outline", "harrow-point-manual.pdf", "--in-process"]],
                         ids=lambda a: a[0])
def test_a_read_names_the_interrupted_build_and_how_it_resumes(interrupted, capsys, monkeypatch, argv):
    corpus, index, other = interrupted
    monkeypatch.chdir(other)
    code = main([*argv, "--index", str(index)])
    err = capsys.readouterr().err
    assert code == 1, err
    assert f"No index at {index} yet" in err and "stopped before it finished" in err, err
    assert f"Next: pagerecall build {corpus} --index {index}" in err, err
    assert ".pagerecall-index" not in err, err  # not another folder's index


def test_a_folder_without_any_trace_still_points_to_the_local_index(interrupted, capsys, monkeypatch, tmp_path):
    _, _, other = interrupted
    monkeypatch.chdir(other)
    code = main(["search", "fog signal", "--in-process", "--index", str(tmp_path / "nothing-here")])
    err = capsys.readouterr().err
    assert code == 1 and "but this folder has one: .pagerecall-index" in err, err
