"""Shared fixtures.

``../shared`` (real PDFs, corpora and evaluation sets) sits beside the project in CI and on
the developers' machines; in a user's clone it may be absent, and tests that need it skip
with the reason.
"""

from __future__ import annotations

from pathlib import Path

import os

import pytest
from hypothesis import HealthCheck, settings

# Property tests: no per-example deadline (shared 2-core machines are noisy). CI sets
# HYPOTHESIS_PROFILE=ci for a reproducible run (derandomized examples); locally they are random.
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

ROOT = Path(__file__).resolve().parent.parent
SHARED = (ROOT / ".." / "shared").resolve()
EXAMPLES = ROOT / "examples"


def shared_path(*parts: str) -> Path:
    """Path under ``../shared``; skips the calling test when it is missing."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"needs {path} (the project's shared real data, present in CI; absent here)")
    return path


@pytest.fixture(scope="session")
def shared() -> Path:
    return shared_path()
