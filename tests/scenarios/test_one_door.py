"""One door for reads, one for writes: the read-command table is the resident protocol's, a cold
command line probes the resident server's socket once, and the index's writer knows no store."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_read_table_is_what_the_resident_server_answers():
    from pagerecall.search.commands import READS
    from pagerecall.wire.protocol import READ_COMMANDS

    assert tuple(READS) == READ_COMMANDS


def test_a_cold_command_line_connects_to_the_socket_once(tmp_path):
    """A socket file nobody listens on (a killed server's): the console script tries it once,
    removes it, and the CLI answers in process without trying again (exit 1: no index here)."""
    index = tmp_path / "idx"
    index.mkdir()
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(index / "serve.sock"))
    dead.close()  # bound, never listening: connect() is refused
    probe = ("import sys\n"
             "connects = []\n"
             "sys.addaudithook(lambda event, args: connects.append(args[1]) if event == 'socket.connect' else None)\n"
             "from pagerecall.app import main\n"
             "code = main(sys.argv[1:])\n"
             "print(code, len(connects), file=sys.stderr)\n")
    proc = subprocess.run([sys.executable, "-c", probe, "files", "--index", str(index)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    code, connects = proc.stderr.strip().splitlines()[-1].split()
    assert (code, connects) == ("1", "1"), proc.stderr
    assert not (index / "serve.sock").exists()


def test_the_writer_and_its_verification_know_no_store():
    """``index.writer`` and ``index.verification`` get paths and URIs passed in: no import of
    ``index.layout`` (counting imports under TYPE_CHECKING), so no circle to hide."""
    import grimp

    graph = grimp.build_graph("pagerecall", exclude_type_checking_imports=False)
    for module in ("pagerecall.index.writer", "pagerecall.index.verification"):
        assert not graph.chain_exists(importer=module, imported="pagerecall.index.layout"), module
