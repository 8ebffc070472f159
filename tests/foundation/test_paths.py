"""Corpus confinement of file arguments, with real files and real symlinks in tmp_path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pagerecall.errors import PathOutsideCorpusError, SourceNotFoundError, UsageError
from pagerecall.paths import resolve_in_corpus


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    (root / "sub" / "deep").mkdir(parents=True)
    (root / "a.txt").write_text("alpha\n", encoding="utf-8")
    (root / "sub" / "b.txt").write_text("beta\n", encoding="utf-8")
    (root / "sub" / "deep" / "c d.txt").write_text("gamma\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n", encoding="utf-8")
    return root


def test_plain_relative_paths_resolve(corpus: Path) -> None:
    path, rel = resolve_in_corpus(corpus, "sub/deep/c d.txt")
    assert rel == "sub/deep/c d.txt"
    assert path == (corpus / "sub" / "deep" / "c d.txt").resolve()
    assert path.read_text(encoding="utf-8") == "gamma\n"


@pytest.mark.parametrize(
    "spelling", ["./sub/b.txt", "sub//b.txt", "sub/./b.txt", "sub\\b.txt", "sub/b.txt"]
)
def test_spellings_normalise_to_one_name(corpus: Path, spelling: str) -> None:
    path, rel = resolve_in_corpus(corpus, spelling)
    assert rel == "sub/b.txt"
    assert path.read_text(encoding="utf-8") == "beta\n"


def test_root_given_as_str_and_as_symlink(corpus: Path, tmp_path: Path) -> None:
    link_root = tmp_path / "link-to-corpus"
    link_root.symlink_to(corpus, target_is_directory=True)
    path, rel = resolve_in_corpus(str(link_root), "a.txt")
    assert rel == "a.txt"
    assert path == (corpus / "a.txt").resolve()


@pytest.mark.parametrize(
    "bad",
    [
        "../outside/secret.txt",
        "sub/../../outside/secret.txt",
        "sub/../a.txt",  # stays inside, still refused: one spelling per file
        "..",
    ],
)
def test_dotdot_refused(corpus: Path, bad: str) -> None:
    with pytest.raises(PathOutsideCorpusError, match=r"'\.\.'.*pagerecall files"):
        resolve_in_corpus(corpus, bad)


def test_absolute_paths_inside_the_root_are_accepted_outside_refused(corpus: Path, tmp_path: Path) -> None:
    # issue 18.6: one rule for page/verify and search --file
    assert resolve_in_corpus(corpus, str(corpus / "a.txt"))[1] == "a.txt"
    for bad in [str(tmp_path / "outside" / "secret.txt"), "/etc/passwd", str(corpus / ".." / "outside" / "secret.txt")]:
        with pytest.raises(PathOutsideCorpusError, match="absolute|'\\.\\.'"):
            resolve_in_corpus(corpus, bad)
    for bad in ["C:\\corpus\\a.txt", "C:a.txt", "\\\\server\\share\\a.txt"]:
        with pytest.raises(PathOutsideCorpusError):
            resolve_in_corpus(corpus, bad)


@pytest.mark.parametrize("bad", ["", "   ", "a.txt\x00.pdf", "~/a.txt", ".", "./"])
def test_empty_nul_home_and_root_refused(corpus: Path, bad: str) -> None:
    with pytest.raises(PathOutsideCorpusError) as info:
        resolve_in_corpus(corpus, bad)
    assert "relative to the corpus root" in str(info.value)
    assert isinstance(info.value, UsageError)  # the CLI maps it to exit 2


def test_symlinked_file_pointing_outside_refused(corpus: Path, tmp_path: Path) -> None:
    (corpus / "leak.txt").symlink_to(tmp_path / "outside" / "secret.txt")
    with pytest.raises(PathOutsideCorpusError, match="symlink"):
        resolve_in_corpus(corpus, "leak.txt")


def test_symlinked_parent_pointing_outside_refused(corpus: Path, tmp_path: Path) -> None:
    (corpus / "sub" / "out").symlink_to(tmp_path / "outside", target_is_directory=True)
    with pytest.raises(PathOutsideCorpusError, match="outside the corpus root"):
        resolve_in_corpus(corpus, "sub/out/secret.txt")
    # a name that does not exist behind the link is still refused, not "not found"
    with pytest.raises(PathOutsideCorpusError):
        resolve_in_corpus(corpus, "sub/out/missing.txt")


def test_symlink_to_root_sibling_with_common_prefix_refused(corpus: Path, tmp_path: Path) -> None:
    sibling = tmp_path / "corpus2"  # '/.../corpus2' starts with '/.../corpus' as a string
    sibling.mkdir()
    (sibling / "x.txt").write_text("x", encoding="utf-8")
    (corpus / "x.txt").symlink_to(sibling / "x.txt")
    with pytest.raises(PathOutsideCorpusError):
        resolve_in_corpus(corpus, "x.txt")


def test_symlink_staying_inside_is_followed(corpus: Path) -> None:
    (corpus / "alias.txt").symlink_to(corpus / "sub" / "b.txt")
    (corpus / "alias-dir").symlink_to(corpus / "sub", target_is_directory=True)
    path, rel = resolve_in_corpus(corpus, "alias.txt")
    assert rel == "alias.txt" and path == (corpus / "sub" / "b.txt").resolve()
    path, rel = resolve_in_corpus(corpus, "alias-dir/b.txt")
    assert rel == "alias-dir/b.txt" and path.read_text(encoding="utf-8") == "beta\n"


def test_symlink_loop_refused(corpus: Path) -> None:
    (corpus / "loop1").symlink_to(corpus / "loop2")
    (corpus / "loop2").symlink_to(corpus / "loop1")
    with pytest.raises((PathOutsideCorpusError, SourceNotFoundError)):
        resolve_in_corpus(corpus, "loop1")


def test_missing_file_inside_root_is_not_found_with_hint(corpus: Path) -> None:
    with pytest.raises(SourceNotFoundError, match=r"'sub/nope\.pdf'.*pagerecall files"):
        resolve_in_corpus(corpus, "sub/nope.pdf")


def test_folder_is_not_a_file(corpus: Path) -> None:
    with pytest.raises(SourceNotFoundError, match="not a regular file"):
        resolve_in_corpus(corpus, "sub")


def test_missing_root(tmp_path: Path) -> None:
    with pytest.raises(SourceNotFoundError, match="does not exist"):
        resolve_in_corpus(tmp_path / "nowhere", "a.txt")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file regardless of mode")
def test_unreadable_file(corpus: Path) -> None:
    target = corpus / "a.txt"
    target.chmod(0)
    try:
        with pytest.raises(SourceNotFoundError, match="not readable"):
            resolve_in_corpus(corpus, "a.txt")
    finally:
        target.chmod(0o644)


def test_a_name_too_long_is_simply_not_found(corpus: Path) -> None:
    # issue 18.2: ENAMETOOLONG (a component over 255 bytes, or a path over PATH_MAX) is "not found"
    for name in ["A" * 300 + ".txt", "A/" * 3000 + "x.txt", "sub/" + "é" * 200 + ".pdf"]:
        with pytest.raises(SourceNotFoundError, match="No file .*pagerecall files") as info:
            resolve_in_corpus(corpus, name)
        assert len(str(info.value)) < 600  # the name is shortened in the message


def test_names_match_under_unicode_nfc(corpus: Path) -> None:
    # issue 18.5: a name stored decomposed (NFD, as macOS writes it) found when typed composed
    import unicodedata

    nfd = unicodedata.normalize("NFD", "Müller-Übersicht-café.txt")
    (corpus / "sub" / nfd).write_text("x\n", encoding="utf-8")
    nfd_dir = unicodedata.normalize("NFD", "Bücher")
    (corpus / nfd_dir).mkdir()
    (corpus / nfd_dir / "ä.txt").write_text("y\n", encoding="utf-8")
    for typed in ["sub/Müller-Übersicht-café.txt", "sub/" + nfd]:
        path, rel = resolve_in_corpus(corpus, unicodedata.normalize("NFC", typed))
        assert rel == "sub/" + nfd and path.name == nfd
    assert resolve_in_corpus(corpus, "Bücher/ä.txt")[1] == nfd_dir + "/ä.txt"
