"""pagerecall: local recall with citation pointers (file, physical pages, printed labels).

The public surface; everything else is private modules::

    from pagerecall import Settings, Searcher, build, update, rebuild, rollback

    settings = Settings.from_env()            # flags > environment > defaults
    build(settings, "examples/corpus")        # new generation, verified, swapped in
    hits = Searcher(settings).search("fog signal", k=5).hits   # pointers, not quotations
"""

from __future__ import annotations

from .config import Settings
from .errors import PagerecallError
from .indexing import build, rebuild, rollback, update
from .search import Searcher, search

__version__ = "0.1.0"

__all__ = ["Settings", "Searcher", "PagerecallError", "build", "update", "rebuild", "rollback", "search",
           "__version__"]
