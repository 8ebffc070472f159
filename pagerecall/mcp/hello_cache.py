"""The SDK's handshake answers, remembered per code version, for the stdio front's next start.

The front (:mod:`pagerecall.mcp.front`) answers ``initialize``, ``server/discover``, ``tools/list`` and
the stateless-era envelope of a tool result from what the SDK itself answered in an earlier run of the
same code: they are the SDK's serialisation of the tool schemas pydantic derives from the tool
signatures, so a stored copy could drift from the code; a learned one is keyed by a hash of the code
(:func:`code_fingerprint`). On a miss (first start after an install or a change of pagerecall, the
SDK or pydantic) the SDK answers and the front learns. Standard library only.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger("pagerecall.mcp.front")  # the name its log lines always had

CACHE_FORMAT = 2
"""Version of the hello cache's layout (part of :func:`code_fingerprint`)."""
KEEP_CACHE_FILES = 8
"""Hello cache files kept (the newest): one per code version and ``read_only``, so that two
installs or ``serve`` with and without ``--read-only`` sharing a cache do not evict each other."""
STATELESS_LIST = "stateless tools/list"
STATELESS_CALL = "stateless tools/call"
"""Sections of the stateless era (``server/discover`` is its own): kept apart from the handshake
era's, whose answers to the same method and version have another form."""
SECTIONS = ("initialize", "tools/list", "server/discover", STATELESS_LIST, STATELESS_CALL)
"""The cache's sections; each maps a protocol version to an answer object."""


def code_fingerprint(read_only: bool) -> str:
    """A key (16 hex digits) of what decides the handshake's answers: pagerecall's version and
    every ``.py`` file of the package (the tool signatures, descriptions and output models),
    the installed versions of the MCP SDK and pydantic (their ``*.dist-info`` folder names),
    Python's version, and ``read_only``. Costs a few milliseconds (about 1.2 MB of source).

    CRC-32 and Adler-32 (``zlib``), not ``hashlib``: importing ``hashlib`` loads OpenSSL, the
    largest import of this start-up path; a cache key needs no cryptographic strength."""
    import importlib.util
    import zlib

    from pagerecall import __version__

    crc = adler = 1

    def feed(data: bytes) -> None:
        nonlocal crc, adler
        crc, adler = zlib.crc32(data, crc), zlib.adler32(data, adler)

    feed(f"{CACHE_FORMAT}|{__version__}|{read_only}|{sys.version}".encode())
    pkg = Path(__file__).resolve().parent.parent
    for path in sorted(pkg.rglob("*.py")):
        feed(str(path.relative_to(pkg)).encode())
        feed(path.read_bytes())
    spec = importlib.util.find_spec("mcp")
    if spec is not None and spec.origin:
        site = Path(spec.origin).parent.parent
        try:
            names = sorted(n for n in os.listdir(site)
                           if n.endswith(".dist-info") and n.lower().startswith(("mcp", "pydantic")))
        except OSError:
            names = []
        feed("|".join([str(site), *names]).encode())
    return f"{crc:08x}{adler:08x}"


def hello_cache_file(cache_dir: Path, read_only: bool) -> Path:
    """Where the SDK's handshake answers for this code are remembered:
    ``CACHE_DIR/mcp/hello-<code_fingerprint>.json``."""
    return Path(cache_dir) / "mcp" / f"hello-{code_fingerprint(read_only)}.json"


class HelloCache:
    """The remembered answers of one hello cache file (``None``: remember nothing), by section
    (:data:`SECTIONS`) and protocol version. Thread-safe. A file of the wrong shape is ignored
    entry by entry (learned again); one that cannot be written leaves every start at the SDK's pace."""

    def __init__(self, path: Path | None):
        self.path = path
        self._lock = threading.Lock()
        self._changed = False
        self._data = self._read()

    def _read(self) -> dict[str, dict[str, Any]]:
        empty: dict[str, dict[str, Any]] = {k: {} for k in SECTIONS}
        if self.path is None:
            return empty
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return empty
        if not isinstance(data, dict):
            return empty
        out = {}
        for k in empty:  # per protocol version, an answer object; anything else: not remembered
            part = data.get(k)
            out[k] = {v: a for v, a in part.items() if isinstance(v, str) and isinstance(a, dict)} \
                if isinstance(part, dict) else {}
        return out

    def get(self, section: str, version: Any) -> dict | None:
        """The remembered answer of ``section`` for protocol ``version``, or None."""
        return self._data[section].get(version) if isinstance(version, str) else None

    def knows(self, section: str, version: Any) -> bool:
        return self.get(section, version) is not None

    def remembers_handshake(self) -> bool:
        """Whether answers of an earlier run were found (else the SDK must answer the handshake)."""
        return bool(self._data["initialize"] or self._data["server/discover"])

    def learn(self, section: str, version: str, result: Any, sent: Any) -> None:
        """Remember the SDK's ``result`` (``sent``: what the front had answered, if anything) and
        write the file at once, so that the next start answers it."""
        with self._lock:
            if self._data[section].get(version) == result:
                return
            self._data[section][version] = result
            self._changed = True
        if sent is not None:
            log.debug("the remembered %s answer differed from the SDK's; remembered the SDK's", section)
        self._save()

    def _save(self) -> None:
        if self.path is None or not self._changed:
            return
        with self._lock:
            text = json.dumps(self._data, ensure_ascii=False, sort_keys=True)
            self._changed = False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, self.path)
            others = sorted(self.path.parent.glob("hello-*.json"), key=lambda p: p.stat().st_mtime)
            for stale in others[:-KEEP_CACHE_FILES]:
                stale.unlink(missing_ok=True)
        except OSError as exc:  # a read-only cache: every start answers at the SDK's pace
            log.debug("cannot remember the MCP handshake in %s: %s", self.path, exc)
