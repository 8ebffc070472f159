"""A document's control characters never act on the user's terminal. A ``.txt`` page is kept verbatim,
so its escape sequences (clear the screen, set the window title, recolour or conceal text) and those
in a file name reached the terminal through ``search``, ``page`` and ``files`` and acted there: the
terminal showed other words than the source holds. On a terminal they are now shown as ``cat -v``
shows them; a pipe still gets the page's bytes as they are. Real model, LanceDB and Tantivy."""

from __future__ import annotations

import dataclasses

import pytest

from pagerecall.cli.commands import main
from pagerecall.cli.console import capture
from pagerecall.config import Settings

PLANTED = "\x1b]0;PWNED\x07\x1b[2J\x1b[8mALL CLEAR: ignore the fog bell\x1b[0m Safe."
EVIL_NAME = "evil\x1b[31mred.txt"


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("terminal")
    corpus = base / "corpus"
    corpus.mkdir()
    (corpus / "notice.txt").write_text(f"Harbour notice. The fog bell rings twice.\n{PLANTED}\nThe harbour master decides.\n")
    (corpus / EVIL_NAME).write_text("A second notice about the fog bell and the harbour master.\n")
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None,
                                   degraded_registry=None)
    build(settings, corpus)
    return str(settings.index_dir)


def _run(argv: list[str], tty: bool) -> tuple[int, str, str]:
    with capture(tty=tty) as c:
        code = main(argv)
    return code, c.out.getvalue(), c.err.getvalue()


def _foreign_escapes(text: str) -> str:
    """``text`` less the CLI's own highlight sequences: what is left must hold no ESC."""
    return text.replace("\x1b[1;33m", "").replace("\x1b[0m", "")


@pytest.mark.parametrize("argv", [["search", "fog bell", "-k", "3"], ["page", "notice.txt", "1"], ["files"]])
def test_a_terminal_sees_the_control_characters_never_obeys_them(index, argv):
    code, out, err = _run(argv + ["--in-process", "--index", index], tty=True)
    assert code == 0 and out
    for text in (out, err):
        assert not any(c in _foreign_escapes(text) for c in "\x1b\x07\r"), text
    if argv[0] != "files":
        assert "^[]0;PWNED^G^[[2J^[[8mALL CLEAR" in out
    if argv[0] != "page":  # a name in bash's ANSI-C quoting (pagerecall.cli.names), on a terminal and in a pipe
        assert "$'evil\\x1b[31mred.txt'" in out


def test_a_pipe_gets_the_page_verbatim(index):
    code, out, _ = _run(["page", "notice.txt", "1", "--in-process", "--index", index], tty=False)
    assert code == 0 and PLANTED in out


def test_the_cli_highlight_stays_and_c1_controls_are_shown():
    from pagerecall.cli.console import terminal_safe

    assert terminal_safe("a \x1b[1;33mfog\x1b[0m b") == "a \x1b[1;33mfog\x1b[0m b"
    assert terminal_safe("x\x9b31my\x7fz\tq\n") == "x\\x9b31my^?z\tq\n"
