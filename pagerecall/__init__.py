"""pagerecall: local recall with citation pointers (file, physical pages, printed labels).

The public surface; everything else is private modules::

    from pagerecall import Settings, Searcher, build, update, rebuild, rollback

    settings = Settings.from_env()            # flags > environment > defaults
    build(settings, "examples/corpus")        # new generation, verified, swapped in
    hits = Searcher(settings).search("fog signal", k=5).hits   # pointers, not quotations

The names are imported on first use (PEP 562 ``__getattr__``): ``import pagerecall`` loads neither
the write path nor the search core, so a CLI command imports only what it runs. The upstream
contract ``search(query, k)`` is ``pagerecall.search.search`` (and ``search_core.search``):
``pagerecall.search`` is the search package.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_LAZY = {
    "Settings": "pagerecall.config",
    "PagerecallError": "pagerecall.errors",
    "build": "pagerecall.ingest.pipeline",
    "update": "pagerecall.ingest.pipeline",
    "rebuild": "pagerecall.ingest.pipeline",
    "rollback": "pagerecall.ingest.pipeline",
    "Searcher": "pagerecall.search.searcher",
}

__all__ = ["Settings", "Searcher", "PagerecallError", "build", "update", "rebuild", "rollback", "__version__"]

TYPE_CHECKING = False  # not ``typing``'s: the forwarding client (pagerecall.wire.client) imports nothing it need not
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from pagerecall.config import Settings
    from pagerecall.errors import PagerecallError
    from pagerecall.ingest.pipeline import build, rebuild, rollback, update
    from pagerecall.search.searcher import Searcher


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'pagerecall' has no attribute {name!r}")
