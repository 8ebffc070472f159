"""Confine file arguments to the corpus root (layer 1).

Every function that takes a file name from a user or an agent (read a page, verify a quote,
scope a search) passes it through :func:`resolve_in_corpus` first. A file argument is a path
*relative to the corpus root*, with ``/`` separators, exactly as ``pagerecall files`` lists it.

Decision record
---------------
Why: an MCP client may be an agent fed with untrusted text; a tool that reads "any path" would
read ``/etc/passwd`` or ``~/.ssh`` for it. So a file argument is refused when it is absolute,
contains a ``..`` component (even one that would stay inside: there is one spelling per file),
contains a NUL byte, is empty, or resolves (following symlinks in the file *or any parent*)
outside the resolved root. Symlinks that stay inside the root are followed.
Rejected: lexical checks only (``normpath`` + prefix test): a symlink ``root/docs -> /`` passes
them. ``os.path.commonprefix``: ``/corpus2`` starts with ``/corpus``; ``Path.is_relative_to`` on
resolved paths compares components.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath, PureWindowsPath

from .errors import PathOutsideCorpusError, SourceNotFoundError

_HINT = (
    "Pass a path relative to the corpus root, with '/' separators, as listed by "
    "`pagerecall files` (for example 'reports/2021/annual.pdf')."
)


def _refuse(file: str, why: str) -> PathOutsideCorpusError:
    return PathOutsideCorpusError(f"Refused file argument {file!r}: {why}. {_HINT}")


def resolve_in_corpus(root: Path | str, file: str) -> tuple[Path, str]:
    """Resolve a user's file argument inside the corpus root.

    Args:
        root: the corpus root folder (may itself be a symlink; it is resolved first).
        file: a path relative to ``root``; ``/`` separators (``\\`` is accepted as a separator
            too, since agents on Windows send it); a leading ``./`` and repeated ``/`` are
            tolerated.

    Returns:
        ``(absolute_path, rel)``: the fully resolved path of the file (symlinks followed, safe
        to open) and the normalised relative path (``/`` separators, no ``.`` components) that
        names it in the index.

    Raises:
        PathOutsideCorpusError: ``file`` is empty, contains a NUL byte, is absolute (POSIX,
            Windows drive or UNC form, or ``~``), contains a ``..`` component, or resolves
            (through a symlink in the file or any parent folder) outside the root.
        SourceNotFoundError: the root does not exist, or ``file`` stays inside the root but
            does not exist or is not a regular file.
    """
    if not isinstance(file, str):
        raise _refuse(str(file), f"expected a string, got {type(file).__name__}")
    if file.strip() == "":
        raise _refuse(file, "it is empty")
    if "\x00" in file:
        raise _refuse(file, "it contains a NUL byte")
    if file.startswith("~"):
        raise _refuse(file, "home-relative paths ('~') are not corpus paths")
    if PurePosixPath(file).is_absolute() or PureWindowsPath(file).is_absolute() or (
        PureWindowsPath(file).drive
    ):
        raise _refuse(file, "it is an absolute path")

    parts = [p for p in file.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts:
        raise _refuse(file, "it names the corpus root itself, not a file")
    if ".." in parts:
        raise _refuse(file, "it contains a '..' component")
    rel = "/".join(parts)

    root_path = Path(root)
    try:
        root_real = root_path.resolve(strict=True)
    except (FileNotFoundError, NotADirectoryError) as exc:
        raise SourceNotFoundError(
            f"Corpus root {str(root_path)!r} does not exist. Next: pass --corpus (or set "
            f"PAGERECALL_CORPUS) to the folder the index was built from."
        ) from exc

    candidate = root_real.joinpath(*parts)
    try:
        # strict=False: a missing file still resolves its existing parents' symlinks, so a
        # missing name under a symlinked-out folder is refused, not reported as "not found".
        real = candidate.resolve(strict=False)
    except RuntimeError as exc:  # symlink loop (Python < 3.13 raises RuntimeError)
        raise _refuse(file, f"it contains a symlink loop ({exc})") from exc
    except OSError as exc:  # ELOOP on newer Pythons, ENAMETOOLONG, ...
        raise _refuse(file, f"it cannot be resolved ({exc.strerror or exc})") from exc

    if not real.is_relative_to(root_real):
        raise _refuse(file, "it resolves (through a symlink) outside the corpus root")

    if not real.exists():
        raise SourceNotFoundError(
            f"No file {rel!r} under the corpus root {str(root_real)!r}. Next: run "
            f"`pagerecall files` to list the indexed files and pass one of those names."
        )
    if not real.is_file():
        raise SourceNotFoundError(
            f"{rel!r} under the corpus root is not a regular file (a folder?). Next: run "
            f"`pagerecall files` and pass a file name."
        )
    if not os.access(real, os.R_OK):
        raise SourceNotFoundError(
            f"{rel!r} exists under the corpus root but is not readable by this process. "
            f"Next: check its permissions."
        )
    return real, rel
