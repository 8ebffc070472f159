"""``pagerecall.memory``: the malloc arena limit a long-running server applies to itself."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
                    reason="M_ARENA_MAX is glibc's")
def test_the_arena_limit_applies_on_glibc():
    # in a fresh interpreter, so that this test process keeps its own allocator settings
    code = "from pagerecall.memory import limit_malloc_arenas as f; print(f(2), f(1))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "True"]

