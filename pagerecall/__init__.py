"""pagerecall: local recall with citation pointers (file, physical pages, printed labels)."""

from __future__ import annotations

__version__ = "0.1.0"
