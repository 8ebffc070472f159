"""Confine file arguments to the corpus root.

Every function that takes a file name from a user or an agent (read a page, verify a quote,
scope a search) passes it through :func:`resolve_in_corpus` first. A file argument is a path
*relative to the corpus root*, with ``/`` separators, exactly as ``pagerecall files`` lists it.

Decision record
---------------
Why: an MCP client may be an agent fed with untrusted text; a tool that reads "any path" would
read ``/etc/passwd`` or ``~/.ssh`` for it. So a file argument is refused when it is absolute
*outside* the root (or in Windows drive/UNC form, or ``~``), contains a ``..`` component (even
one that would stay inside: there is one spelling per file), contains a NUL byte, is empty, or
resolves (following symlinks in the file *or any parent*) outside the resolved root. Symlinks
that stay inside the root are followed.
An absolute path *inside* the root is accepted and turned into its relative spelling (``search
--file`` took one and ``page`` refused it; one rule for both). It is safe for the same
reason as a relative one: the resolved path must still lie inside the resolved root.
A name that does not exist as typed is looked up by its Unicode NFC form (:func:`nfc`), and a
name too long for the file system is simply "not found" (:class:`SourceNotFoundError`).
Rejected: lexical checks only (``normpath`` + prefix test): a symlink ``root/docs -> /`` passes
them. ``os.path.commonprefix``: ``/corpus2`` starts with ``/corpus``; ``Path.is_relative_to`` on
resolved paths compares components.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import unicodedata
from pathlib import Path, PurePosixPath, PureWindowsPath

from pagerecall.errors import PathOutsideCorpusError, SourceArgumentError, SourceNotFoundError, sentences

_HINT = (
    "Next: pass a path relative to the corpus root, with '/' separators, as listed by "
    "`pagerecall files` (for example 'reports/2021/annual.pdf')."
)


def _refuse(file: str, why: str) -> PathOutsideCorpusError:
    return PathOutsideCorpusError(sentences(f"Refused file argument {file!r}: {why}", _HINT))


def resolve_in_corpus(root: Path | str, file: str) -> tuple[Path, str]:
    """Resolve a user's file argument inside the corpus root.

    Args:
        root: the corpus root folder (may itself be a symlink; it is resolved first).
        file: a path relative to ``root``; ``/`` separators (``\\`` is accepted as a separator
            too, since agents on Windows send it); a leading ``./`` and repeated ``/`` are
            tolerated. An absolute POSIX path inside the root is accepted; a name is matched
            under Unicode NFC when it does not exist as typed (NFD names written by macOS).

    Returns:
        ``(absolute_path, rel)``: the fully resolved path of the file (symlinks followed, safe
        to open) and the normalised relative path (``/`` separators, no ``.`` components, the
        name as spelled on disk) that names it in the index.

    Raises:
        PathOutsideCorpusError: ``file`` is empty, contains a NUL byte, is absolute outside the
            root (or in Windows drive or UNC form, or ``~``), contains a ``..`` component, or resolves
            (through a symlink in the file or any parent folder) outside the root.
        SourceNotFoundError: the root does not exist, or ``file`` is not readable.
        SourceArgumentError (a ``SourceNotFoundError`` and a ``UsageError``): ``file`` stays
            inside the root but does not exist (a name too long for the file system included)
            or is not a regular file.
    """
    if not isinstance(file, str):
        raise _refuse(str(file), f"expected a string, got {type(file).__name__}")
    if file.strip() == "":
        raise _refuse(file, "it is empty")
    if "\x00" in file:
        raise _refuse(file, "it contains a NUL byte")
    if file.startswith("~"):
        raise _refuse(file, "home-relative paths ('~') are not corpus paths")
    if PureWindowsPath(file).drive or (PureWindowsPath(file).is_absolute() and not PurePosixPath(file).is_absolute()):
        raise _refuse(file, "it is an absolute path")

    root_path = Path(root)
    try:
        root_real = root_path.resolve(strict=True)
    except (OSError, RuntimeError) as exc:  # missing, not a folder, a symlink loop (3.11: RuntimeError)
        raise SourceNotFoundError(
            f"Corpus root {str(root_path)!r} does not exist. Next: pass --corpus (or set "
            f"PAGERECALL_CORPUS) to the folder the index was built from."
        ) from exc

    if PurePosixPath(file).is_absolute():
        file = _inside(file, root_path, root_real)
    parts = [p for p in file.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts:
        raise _refuse(file, "it names the corpus root itself, not a file")
    if ".." in parts:
        raise _refuse(file, "it contains a '..' component")
    parts = _on_disk_spelling(root_real, parts)
    rel = "/".join(parts)

    candidate = root_real.joinpath(*parts)
    try:
        # strict=False: a missing file still resolves its existing parents' symlinks, so a
        # missing name under a symlinked-out folder is refused, not reported as "not found".
        real = candidate.resolve(strict=False)
    except RuntimeError as exc:  # symlink loop (Python < 3.13 raises RuntimeError)
        raise _refuse(file, f"it contains a symlink loop ({exc})") from exc
    except OSError as exc:  # ELOOP on newer Pythons, ...
        if exc.errno == errno.ENAMETOOLONG:
            raise _not_found(rel, root_real) from None
        raise _refuse(file, f"it cannot be resolved ({exc.strerror or exc})") from exc

    if not real.is_relative_to(root_real):
        raise _refuse(file, "it resolves (through a symlink) outside the corpus root")

    try:
        st = real.stat()
    except OSError:  # missing, a name too long (ENAMETOOLONG), ...: simply not there
        raise _not_found(rel, root_real) from None
    if not stat.S_ISREG(st.st_mode):
        raise SourceArgumentError(
            f"{rel!r} under the corpus root is not a regular file (a folder?). Next: run "
            f"`pagerecall files` and pass a file name."
        )
    if not os.access(real, os.R_OK):
        raise SourceNotFoundError(
            f"{rel!r} exists under the corpus root but is not readable by this process. "
            f"Next: check its permissions."
        )
    return real, rel


def _not_found(rel: str, root_real: Path) -> SourceArgumentError:
    shown = rel if len(rel) <= 120 else rel[:100] + "…" + rel[-15:]
    return SourceArgumentError(
        f"No file {shown!r} under the corpus root {str(root_real)!r}. Next: run "
        f"`pagerecall files` to list the indexed files and pass one of those names."
    )


def _inside(file: str, root_path: Path, root_real: Path) -> str:
    """An absolute POSIX ``file`` as a path relative to the corpus root, when it lies under the
    root as given or as resolved (compared by components, before following the file's own links:
    the confinement check after this still follows them). Raises ``PathOutsideCorpusError``."""
    p = PurePosixPath(file)
    for base in (root_path.absolute(), root_real):
        try:
            return p.relative_to(PurePosixPath(base)).as_posix()
        except ValueError:
            continue
    raise _refuse(file, "it is an absolute path outside the corpus root")


def nfc(name: str) -> str:
    """``name`` in Unicode normal form C: the one form file names are compared in.

    Why: macOS (and files copied from it) store names decomposed (NFD: ``u`` + combining
    diaeresis), while what a user or an agent types is composed (NFC: ``ü``). Two spellings of one
    name must find the same file (``page``, ``verify``, ``search --file``, the MCP tools)."""
    return unicodedata.normalize("NFC", name)


def _on_disk_spelling(root_real: Path, parts: list[str]) -> list[str]:
    """``parts`` with each component that does not exist as spelled replaced by the single entry
    of its folder that has the same NFC form (:func:`nfc`); unchanged where none or several do."""
    out: list[str] = []
    folder = root_real
    for i, part in enumerate(parts):
        try:
            exists = os.path.lexists(folder / part)
        except (OSError, ValueError):
            exists = False
        if not exists:
            want = nfc(part)
            try:
                same = [e for e in os.listdir(folder) if e != part and nfc(e) == want]
            except OSError:
                same = []
            if len(same) != 1:
                return out + parts[i:]
            part = same[0]
        out.append(part)
        folder = folder / part
    return out


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temp file, fsync, ``os.replace``, fsync of the dir."""
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    dfd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes, read 1 MiB at a time (file records, fingerprints, the ledger).
    Raises ``OSError`` when the file cannot be read."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
