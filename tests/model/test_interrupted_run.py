"""Ctrl-C while OpenVINO runs a write's batches ends the process cleanly.

``OVEncoder.run`` queues the batches on OpenVINO's streams (``start_async``) and waits for them. A
Ctrl-C between two ``start_async`` calls used to leave the requests already queued running: their
callbacks (Python, in OpenVINO's threads) then met the interpreter shutting down, and the process
died of ``FATAL: exception not rethrown`` (SIGABRT) after printing that it had stopped (found by
CI: ``pagerecall watch`` interrupted during its first build, exit -2/-6 instead of 130). The
requests in flight now end before the interrupt leaves ``run``.

A real child process, the real OpenVINO encoder of the bundled model: the Ctrl-C is raised at a
fixed point (when ``run`` takes its third batch) so that the test does not depend on timing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.conftest import openvino_or_skip

ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent("""
    import sys
    import numpy as np
    from pagerecall.config import Settings
    from pagerecall.model.embedding import load_embedder

    enc = load_embedder(Settings.from_env(), purpose="index").encoder
    rng = np.random.default_rng(0)
    ids = rng.integers(5, 20000, size=(48, 512)).astype(np.int64)
    ids[:, 0], ids[:, -1] = 0, 2
    batch = (ids, np.ones_like(ids))

    class CtrlC(list):  # the third batch taken is a Ctrl-C (as SIGINT raises it between two calls)
        def __iter__(self):
            for k, item in enumerate(list.__iter__(self)):
                if k == 2:
                    raise KeyboardInterrupt
                yield item

    try:
        enc.run(CtrlC([batch] * 6))
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(130)
""")


def test_ctrl_c_between_two_openvino_batches_ends_the_process_cleanly():
    openvino_or_skip()
    env = {**os.environ, "PAGERECALL_RUNTIME": "openvino", "PYTHONFAULTHANDLER": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    for _ in range(2):  # before the fix: SIGSEGV or SIGABRT each time on an Intel Xeon (AMX)
        child = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=600)
        assert (child.returncode, child.stdout) == (130, "interrupted\n"), child.stderr[-3000:]
        assert "FATAL" not in child.stderr and "Fatal Python error" not in child.stderr, child.stderr[-3000:]
