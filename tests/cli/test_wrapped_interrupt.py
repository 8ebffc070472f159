"""Ctrl-C that lands inside Lance, or before a command begins, is a Ctrl-C: exit 130 and one line,
the live index unchanged.

Lance checks Python's signals in its Rust scan loop and hands a Ctrl-C back as
``ArrowInvalid("External error: KeyboardInterrupt: ")``. Before: a Ctrl-C during a build's
finalize (a scan of the files table) ended with a traceback and exit 1, and the watcher took it for
a failed update and went on watching (found by sending SIGINT to ``pagerecall build`` and
``pagerecall watch`` at 0.1-6 s: ``bench/interrupt_sweep.py``).

The Ctrl-C here is a real SIGINT sent to the main thread while it runs real Lance scans; a run in
which the signal landed between two scans (a plain ``KeyboardInterrupt``) is repeated, so that
each test checks the wrapped form.
"""

from __future__ import annotations

import dataclasses
import shutil
import signal
import threading
import time

import numpy as np
import pyarrow as pa
import pytest

from pagerecall.config import Settings
from pagerecall.errors import wrapped_interrupt
from tests.conftest import EXAMPLES


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    import lance

    n = 1_000_000
    table = pa.table({"a": np.arange(n), "s": pa.array([f"text {i} " * 5 for i in range(n)])})
    return lance.write_dataset(table, tmp_path_factory.mktemp("lance") / "ds")


def ctrl_c_inside_lance(ds, scan=None) -> None:
    """Scan ``ds`` (with ``scan(ds)``, default ``ds.to_table`` with a filter) until a real SIGINT
    (sent 0.3 s in) stops a scan; raises what Lance raised. Python's Ctrl-C handler is installed
    for the call (a suite started in the background of a non-interactive shell runs with SIGINT ignored)."""
    scan = scan or (lambda d: d.to_table(filter="s LIKE '%99999 %'"))
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    main = threading.main_thread().ident
    kick = threading.Timer(0.3, lambda: signal.pthread_kill(main, signal.SIGINT))
    kick.start()
    try:
        end = time.monotonic() + 30
        while time.monotonic() < end:
            scan(ds)
        raise AssertionError("no Ctrl-C reached the scans in 30 s")
    finally:
        kick.join()
        signal.signal(signal.SIGINT, previous)


def wrapped(ds) -> Exception:
    """The exception of a Ctrl-C inside a Lance scan (retried until it is the wrapped form)."""
    for _ in range(10):
        try:
            ctrl_c_inside_lance(ds)
        except KeyboardInterrupt:
            continue  # landed between two scans: plain already
        except Exception as exc:  # noqa: BLE001 - what Lance raises
            return exc
    raise AssertionError("the Ctrl-C never landed inside a Lance scan in 10 tries")


def test_lance_hands_ctrl_c_back_as_its_own_error_and_it_is_recognised(dataset):
    exc = wrapped(dataset)
    assert not isinstance(exc, KeyboardInterrupt) and wrapped_interrupt(exc), repr(exc)
    assert not wrapped_interrupt(OSError("cannot open KeyboardInterrupt.pdf: no such file"))
    assert not wrapped_interrupt(ValueError("page 3 of notes/KeyboardInterrupt: a file"))


def test_a_command_stopped_by_ctrl_c_inside_lance_exits_130_with_one_line(dataset, capsys):
    from pagerecall.cli.running import guarded

    seen = []

    def command(_args):
        try:
            ctrl_c_inside_lance(dataset)
        except BaseException as exc:
            seen.append(exc)
            raise

    for _ in range(10):
        seen.clear()
        capsys.readouterr()  # a try whose Ctrl-C landed between two scans printed its own line
        code = guarded(command, None)
        if not isinstance(seen[0], KeyboardInterrupt):
            break
    assert not isinstance(seen[0], KeyboardInterrupt), "the Ctrl-C never landed inside a Lance scan"
    err = capsys.readouterr().err
    assert code == 130 and err == "pagerecall: interrupted; the live index is unchanged\n", (code, err)


def test_a_build_stopped_by_ctrl_c_inside_lance_raises_keyboardinterrupt_and_writes_nothing(dataset, tmp_path):
    from pagerecall.index.layout import IndexStore
    from pagerecall.ingest import pipeline

    corpus = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "corpus" / "de", corpus)
    settings = dataclasses.replace(Settings.from_env(), index_dir=tmp_path / "index", corpus_root=corpus, ocr="off",
                                   degraded_registry=None)
    kinds = []

    def hook(point: str) -> None:
        if point == "before_finalize":
            try:
                ctrl_c_inside_lance(dataset)
            except BaseException as exc:
                kinds.append(type(exc))
                raise

    for _ in range(10):
        kinds.clear()
        with pytest.raises(KeyboardInterrupt):
            pipeline.build(settings, corpus, crash_hook=hook)
        if kinds != [KeyboardInterrupt]:
            break
    assert kinds and kinds[0] is not KeyboardInterrupt, "the Ctrl-C never landed inside a Lance scan"
    assert not IndexStore(settings.index_dir).exists()


def test_ctrl_c_while_the_command_line_is_parsed_exits_130_with_one_line(monkeypatch, capsys):
    """Before: a traceback through argparse and exit by SIGINT (``pagerecall watch`` sent SIGINT
    0.1 s after it started)."""
    import pagerecall.cli.commands as commands
    from pagerecall.app import main

    parse = commands.build_parser

    def build_parser():  # a real SIGINT while the parser is built
        signal.raise_signal(signal.SIGINT)
        return parse()

    monkeypatch.setattr(commands, "build_parser", build_parser)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        code = main(["search", "anything", "--index", "/nonexistent"])
    finally:
        signal.signal(signal.SIGINT, previous)
    assert code == 130
    assert capsys.readouterr().err == "pagerecall: interrupted before the command began; nothing was changed\n"


EXEC_CTRL_C = """
import signal, sys
import pagerecall.cli.commands as commands
from pagerecall.app import main

parse = commands.build_parser

def build_parser():  # a real SIGINT inside code that exec() of a string runs, as dataclasses do on import
    exec("import signal\\nsignal.raise_signal(signal.SIGINT)\\nx = 1")
    return parse()

commands.build_parser = build_parser
sys.exit(main(["search", "anything", "--index", sys.argv[1]]))
"""


def test_a_ctrl_c_inside_exec_of_a_string_still_exits_130(tmp_path):
    """CPython 3.11 marks a KeyboardInterrupt that leaves ``exec`` of a string as unhandled even
    when it is caught later, and the process then killed itself with SIGINT after printing its line
    (exit -2 to a parent in Python: CI's failure; ``dataclasses`` build methods that way, so a
    Ctrl-C during a lazy import hit it). A real process started as ``python -m`` (the interpreter
    reads the flag on that path), a real SIGINT inside ``exec``."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT, sigint_default

    (tmp_path / "exec_ctrl_c.py").write_text(EXEC_CTRL_C, encoding="utf-8")  # run with -m, as python -m pagerecall
    paths = (str(tmp_path), str(ROOT), os.environ.get("PYTHONPATH"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    child = subprocess.run([sys.executable, "-m", "exec_ctrl_c", str(tmp_path / "index")], env=env, capture_output=True,
                           text=True, timeout=120, preexec_fn=sigint_default)
    assert child.returncode == 130, (child.returncode, child.stderr[-2000:])
    assert child.stderr == "pagerecall: interrupted before the command began; nothing was changed\n", child.stderr


def test_a_ctrl_c_inside_a_read_of_the_index_is_a_ctrl_c_not_a_damaged_generation(dataset, examples_built):
    """Before: "Reading generation ... failed: External error: KeyboardInterrupt. Next: pagerecall info;
    pagerecall rebuild if it persists." (exit 1), for an update sent SIGINT 0.95 s after its start."""
    from pagerecall.index.snapshot import open_snapshot

    snapshot = open_snapshot(examples_built.index_dir)
    kinds = []
    for _ in range(10):
        try:  # the read every snapshot query goes through
            ctrl_c_inside_lance(dataset, lambda d: snapshot._read(d, filter="s LIKE '%99999 %'"))
        except KeyboardInterrupt as exc:
            kinds.append(type(exc.__cause__))
            if exc.__cause__ is not None:  # landed inside Lance (else between two scans: try again)
                break
    assert kinds and kinds[-1] is not type(None), kinds


def test_ctrl_c_during_an_import_that_swallows_it_is_raised_after_the_import(tmp_path, monkeypatch):
    """A library whose package initialisation swallows a KeyboardInterrupt (OpenVINO's did: the build
    then said "OpenVINO is not installed", exit 1) is imported with SIGINT held back; the Ctrl-C is
    raised once the import has finished, and the module is whole."""
    import importlib
    import sys

    from pagerecall.model.deferred import interrupt_deferred

    (tmp_path / "swallowing_lib.py").write_text(
        "import signal, time\ntry:\n    signal.raise_signal(signal.SIGINT)\n    time.sleep(0.05)\n"
        "except BaseException:\n    pass  # what a package's broad except does\nWHOLE = True\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            with interrupt_deferred():
                module = importlib.import_module("swallowing_lib")
        assert module.WHOLE
        sys.modules.pop("swallowing_lib")
        importlib.import_module("swallowing_lib")  # without the deferral the Ctrl-C is lost in the library
    finally:
        signal.signal(signal.SIGINT, previous)
        sys.modules.pop("swallowing_lib", None)


def test_a_ctrl_c_a_library_swallows_during_a_write_still_stops_it_before_the_swap(tmp_path):
    """Before: a library's "never cost the user the index" handler (topics, citations, metadata)
    took Lance's wrapped KeyboardInterrupt for a failure, the build went on and made its
    generation live, exit 0 after a Ctrl-C (``test_the_next_build_resumes_...`` under load). A real
    SIGINT, caught by a broad ``except`` at the write's ``before_finalize`` point the way those
    handlers catch it; the write must stop at its next point, before the swap."""
    from pagerecall.index.layout import IndexStore
    from pagerecall.ingest import pipeline

    corpus = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "corpus" / "de", corpus)
    settings = dataclasses.replace(Settings.from_env(), index_dir=tmp_path / "index", corpus_root=corpus, ocr="off",
                                   degraded_registry=None)
    swallowed = []

    def hook(point: str) -> None:
        if point == "before_finalize":
            try:
                signal.raise_signal(signal.SIGINT)
                time.sleep(0.01)
            except BaseException as exc:  # noqa: BLE001 - what a library's broad handler does
                swallowed.append(type(exc))

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            pipeline.build(settings, corpus, crash_hook=hook)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert swallowed == [KeyboardInterrupt]
    assert not IndexStore(settings.index_dir).exists()
