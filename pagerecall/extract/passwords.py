"""The PDF passwords file: which password opens which PDF of a corpus.

Read by the build (:mod:`pagerecall.ingest.preparing`) and the quote verifier
(:mod:`pagerecall.verify.source`); :func:`pagerecall.extract.pdf.read_pdf` takes the password found here.
"""

from __future__ import annotations

import functools
from pathlib import Path

from pagerecall.errors import UsageError

__all__ = ["load_passwords", "password_for"]


def load_passwords(path: Path | None, explicit: bool = False) -> dict[str, str]:
    """The passwords file at ``path``: a JSON object mapping a PDF's path relative to the corpus
    root (``/`` separators) or its bare file name to its password (user password, or the owner
    password, which PyMuPDF also accepts). ``{}`` when ``path`` is None, or does not exist and
    was not set explicitly (``explicit=False``: the default ``INDEX/passwords.json``).

    Cached on (path, mtime, size): cheap to call once per file. Passwords are never logged,
    and the errors below never quote the file's content.

    Raises :class:`~pagerecall.errors.UsageError` when an explicit file is missing, or the file
    cannot be read or is not a JSON object of strings to strings.
    """
    if path is None:
        return {}
    path = Path(path)
    try:
        st = path.stat()
    except FileNotFoundError:
        if explicit:
            raise UsageError(f"the passwords file {path} does not exist. Next: create it or unset PAGERECALL_PASSWORDS")
        return {}
    except OSError as exc:
        raise UsageError(f"the passwords file {path} cannot be read ({type(exc).__name__}). Next: check it") from None
    return dict(_load_passwords(str(path), st.st_mtime_ns, st.st_size))


@functools.lru_cache(maxsize=4)
def _load_passwords(path: str, _mtime: int, _size: int) -> tuple[tuple[str, str], ...]:
    import json

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        # the exception text can quote the file: name the kind of failure only
        raise UsageError(
            f"the passwords file {path} is not readable JSON ({type(exc).__name__}). "
            'Next: write a JSON object such as {"folder/file.pdf": "password"}'
        ) from None
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise UsageError(
            f"the passwords file {path} must be a JSON object of file names to password strings. "
            'Next: write it as {"folder/file.pdf": "password"}'
        )
    return tuple(data.items())


def password_for(passwords: dict[str, str], rel: str) -> str | None:
    """The password for the file at ``rel`` (relative to the corpus root): the entry for its
    relative path (``\\`` read as ``/``), else the entry for its file name, else None."""
    if not passwords:
        return None
    rel = rel.replace("\\", "/")
    got = passwords.get(rel)
    if got is None:
        got = passwords.get(rel.rsplit("/", 1)[-1])
    return got
