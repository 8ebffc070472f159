"""A Ctrl-C that leaves the import lock held by the main thread no longer hangs a write.

CPython 3.11's importlib takes the global import lock and then enters the ``try`` that releases it:
a KeyboardInterrupt between the two leaves the lock held by the main thread for good, and a worker
thread that imports a module for the first time then waits forever (``bench/interrupt_sweep.py``:
a ``rebuild`` sent SIGINT 0.55 s after its start hung, its main thread waiting for the
file-preparation worker, the worker for the import lock).

The test leaves the lock held as that race does (``_imp.acquire_lock()`` in the main thread, never
released) while the real :func:`pagerecall.ingest.prefetch.prepare_ahead` worker prepares files
whose second needs a module imported for the first time, in a child process with a timeout.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from tests.conftest import ROOT

CHILD = textwrap.dedent("""
    import _imp, sys, time
    from pagerecall.ingest.prefetch import prepare_ahead

    def start(item):
        if item == 2:
            import leaked_lock_fresh_module  # a first import, in the worker thread
        return Ready(item)

    class Ready:  # what start_file returns for a file without OCR (prepare_ahead reads .chunks)
        def __init__(self, item):
            self.item, self.chunks = item, [item]

    got = []
    for prepared in prepare_ahead([1, 2, 3], start):
        got.append(prepared.item)
        if len(got) == 1:
            _imp.acquire_lock()  # what a Ctrl-C inside importlib's window leaves: held, never released
            time.sleep(0.2)      # the worker meets the held lock at its import
    print(got, _imp.lock_held(), flush=True)
""")


def test_a_worker_import_is_not_blocked_by_an_import_lock_the_main_thread_leaked(tmp_path):
    (tmp_path / "leaked_lock_fresh_module.py").write_text("VALUE = 1\n", encoding="utf-8")
    paths = (str(tmp_path), str(ROOT), os.environ.get("PYTHONPATH"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    try:
        child = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:  # before: the main thread waited for the worker, the worker for the lock
        raise AssertionError("the write hung: the worker waited for the import lock the main thread leaked") from None
    assert child.returncode == 0 and child.stdout == "[1, 2, 3] False\n", (child.stdout, child.stderr[-2000:])
