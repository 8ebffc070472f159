"""The PDF passwords file: which password opens which PDF of a corpus.

Read by the build (:mod:`pagerecall.ingest.preparing`) and the quote verifier
(:mod:`pagerecall.verify.source`); :func:`pagerecall.extract.pdf.read_pdf` takes the password found here.
"""

from __future__ import annotations

import functools
from pathlib import Path

from pagerecall.errors import ExtractionError, UsageError

__all__ = ["load_passwords", "needs_password", "password_for", "with_passwords_file"]

DEFAULT_PLACE = "INDEX/passwords.json, or the file PAGERECALL_PASSWORDS names"
"""How the passwords file is named where the caller does not know which one is in use."""


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


def needs_password(rel: str, passwords_file: Path | str | None = None) -> ExtractionError:
    """The ``ExtractionError`` (reason ``"encrypted"``) of a PDF that needs a password none was given
    for: what to add to which passwords file. ``passwords_file``: the file in use (named as it is,
    e.g. ``/home/me/idx/passwords.json``); None names the default place and the variable instead.
    The error's ``needs_password`` is True (:func:`with_passwords_file` names the file later)."""
    where = str(passwords_file) if passwords_file is not None else DEFAULT_PLACE
    err = ExtractionError(
        rel, "encrypted",
        "the PDF needs a password. Next: add its path relative to the corpus (or its file name) and password to "
        f'the passwords file {where} ({{"folder/file.pdf": "password"}}), then run pagerecall update; '
        "or remove the file")
    err.needs_password = True  # type: ignore[attr-defined]
    return err


def with_passwords_file(exc: ExtractionError, passwords_file: Path | str | None) -> ExtractionError:
    """``exc`` naming ``passwords_file`` (the real path of the passwords file in use) when it is a
    :func:`needs_password` error raised where that path was not known; ``exc`` itself otherwise."""
    if passwords_file is None or not getattr(exc, "needs_password", False):
        return exc
    return needs_password(exc.path, passwords_file)
