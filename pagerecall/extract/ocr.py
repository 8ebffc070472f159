"""OCR of a PDF's pages in a child interpreter, so that Tesseract never holds the build's GIL.

Why: PyMuPDF's ``page.get_textpage_ocr`` runs Tesseract inside MuPDF *holding the GIL* (py-spy:
"active+gil" in ``fz_write_pixmap_as_pdfocr``) for about 11 s per page with ``eng+deu+jpn``.
A build extracts files in a prefetch thread (:mod:`pagerecall.ingest.prefetch`) while the main thread
embeds (:mod:`pagerecall.ingest.embed_loop`); in-process OCR kept the main thread from submitting batches
(the whole-bench build ran at about 1.1 of 2 cores for most of an hour).

How: :func:`ocr_dicts` starts one fresh interpreter per document that needs OCR
(``python -m pagerecall.extract.ocr``, not :mod:`multiprocessing`: no re-import of the user's
``__main__``, no fork of a threaded process). The child opens the same PDF the same way
(:func:`pagerecall.extract.opening.open_pdf`, password included), runs the identical
``page.get_textpage_ocr(flags=..., language=..., dpi=..., full=True, tessdata=...)`` and
``extractDICT()`` for the listed pages, and writes one pickle frame per page to stdout as soon
as the page is done. The parent collects the frames in a thread of its own (:class:`OcrRun`, GIL
released while it waits) and then applies the same post-processing as in-process OCR
(:func:`ocr_result`), so the text is the same. A build does not wait for it: the file is kept
as a :class:`PdfDraft` while the build prepares and embeds the files after it
(:mod:`pagerecall.ingest.prefetch`).

Protocol: the request is JSON on the child's stdin (the password never appears on a command
line): ``{"path": str, "password": str | null, "indexes": [int, ...] (0-based),
"language": str, "tessdata": str, "dpi": int}``. Each frame is
``pickle((index, "ok", dict))`` or ``pickle((index, "error", "Type: message"))``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import signal
import subprocess
import sys
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pagerecall.extract.opening import OcrConfig, open_pdf, text_flags
from pagerecall.extract.reading_order import ordered_text, upright
from pagerecall.extract.page_text import _normalise
from pagerecall.types import Document, Page

__all__ = [
    "OCR_BASE_SECONDS", "OCR_SECONDS_PER_PAGE", "OCR_WALL_FACTOR", "OcrRun", "PdfDraft", "apply_ocr", "main",
    "ocr_dicts", "ocr_in_child", "ocr_result", "with_known_ocr",
]

OCR_BASE_SECONDS = 120.0
"""Fixed part of the child's CPU-time limit, CPU seconds (interpreter and PyMuPDF start-up:
about 1.4 CPU-s here; Tesseract's language data load)."""

OCR_SECONDS_PER_PAGE = 180.0
"""Per-page part of the child's CPU-time limit, CPU seconds. Why: measured 5-18 CPU-s per page
at 300 dpi (docs/decisions/ocr-languages.md); 10x that
only stops a runaway Tesseract. The limit is CPU time (``RLIMIT_CPU``, set by the child), not
wall time, so that a busy machine (a niced build at load 12 got 1.4 CPU-s in 2 minutes here)
does not turn slow OCR into failed OCR."""

OCR_WALL_FACTOR = 10.0
"""The wall-clock limit is this many times the CPU-time limit: it only ends a child that hangs
without using CPU."""


def ocr_in_child(doc: Any, path: Path, password: str | None, ocr_cfg: OcrConfig, indexes: list[int],
                 pages: list[Page], notes: list[str | None]) -> None:
    """OCR pages ``indexes`` (0-based) of ``doc`` (the PyMuPDF document opened from ``path``)
    in one child interpreter (:func:`ocr_dicts`) and put each result in ``pages``/``notes``
    (one entry per page, 0-based) in place of its ``garbled``/``image_only`` page, exactly as
    in-process OCR would (:func:`apply_ocr`). A failed page keeps its page and gets the
    "OCR failed" warning. Raises nothing for a failing child."""
    results = ocr_dicts(path, password, indexes, ocr_cfg.language, ocr_cfg.tessdata, ocr_cfg.dpi)
    apply_ocr(doc, indexes, results, pages, notes)


def apply_ocr(doc: Any, indexes: list[int], results: dict[int, dict | str], pages: list[Page],
              notes: list[str | None]) -> None:
    """Put the OCR ``results`` (:func:`ocr_dicts`'s, one per index) of pages ``indexes``
    (0-based) of the open PyMuPDF ``doc`` into ``pages``/``notes`` (:func:`ocr_result`: the
    ``ocr`` page, or the fallback page kept with an "OCR failed" warning)."""
    for index in indexes:
        fallback = pages[index]
        try:
            page = doc.load_page(index)
        except Exception as exc:
            notes[index] = f"page {index + 1}: OCR failed ({type(exc).__name__}: {exc})"
            continue
        pages[index], notes[index] = ocr_result(page, fallback.label, fallback, results[index])


@dataclass
class PdfDraft:
    """A PDF read up to its OCR: every page extracted, the pages that need OCR listed
    (``ocr_pages``, 0-based, not empty) and kept as their ``garbled``/``image_only`` pages.

    Made by :func:`pagerecall.extract.pdf.read_pdf_draft`; the PyMuPDF document is closed (a draft holds
    text only: a build may keep several waiting for their OCR). :meth:`start` launches the
    child (:class:`OcrRun`); :meth:`finish` applies its results (reopening the file for the
    pages' rotation) and returns the :class:`~pagerecall.types.Document` that
    :func:`pagerecall.extract.pdf.read_pdf` returns for the same file. ``password`` is never logged.
    """

    path: Path
    rel: str
    password: str | None = field(repr=False)
    ocr_cfg: OcrConfig
    pages: list[Page]
    notes: list[str | None]
    ocr_pages: list[int]
    repaired: bool = False
    outline: Any = None
    said: str = ""
    """MuPDF's messages about the file as a whole (:func:`pagerecall.extract.opening.mupdf_note`), a warning."""

    def start(self) -> "OcrRun":
        """Start the OCR child for :attr:`ocr_pages` (at once; returns while it runs)."""
        cfg = self.ocr_cfg
        return OcrRun(self.path, self.password, self.ocr_pages, cfg.language, cfg.tessdata, cfg.dpi)

    def finish(self, results: dict[int, dict | str]) -> Document:
        """The document with ``results`` (:meth:`OcrRun.result`) applied. Raises
        :class:`~pagerecall.errors.ExtractionError` when the file no longer opens."""
        doc = open_pdf(self.path, self.rel, self.password)
        try:
            apply_ocr(doc, self.ocr_pages, results, self.pages, self.notes)
        finally:
            doc.close()
        return self.document()

    def take_known(self, known: Any) -> int:
        """Put in the OCR text an earlier read recorded (``known.get(page, cfg)``: a
        :class:`pagerecall.index.ocr_text.FileOcr`) for the pages of :attr:`ocr_pages` it has, as
        :func:`ocr_result` gave it then, and take them off :attr:`ocr_pages` (no OCR runs for them).
        Returns how many pages were filled."""
        filled = []
        for index in self.ocr_pages:
            text = known.get(index + 1, self.ocr_cfg)
            if text is None:
                continue
            filled.append(index)
            fallback = self.pages[index]
            if text:
                self.pages[index] = Page(number=fallback.number, text=text, label=fallback.label, status="ocr")
            self.notes[index] = None  # as after an OCR that read this text (or nothing)
        self.ocr_pages = [i for i in self.ocr_pages if i not in set(filled)]
        return len(filled)

    def read_by_ocr(self) -> dict[int, str]:
        """After :meth:`finish`: ``{page (1-based): text}`` of the pages of :attr:`ocr_pages` that OCR
        read (``""`` where it read nothing); a page whose OCR failed is left out. What
        :class:`pagerecall.index.ocr_text.OcrTextStore` records."""
        return {i + 1: (self.pages[i].text if self.pages[i].status == "ocr" else "")
                for i in self.ocr_pages if self.notes[i] is None}

    def document(self) -> Document:
        """The :class:`~pagerecall.types.Document` of the pages as they are now."""
        warnings = [note for note in self.notes if note]
        if self.said:
            warnings.insert(0, self.said)
        if self.repaired:
            warnings.insert(0, "the PDF is damaged and was repaired by PyMuPDF: pages may be missing text")
        return Document(path=self.rel, kind="pdf", pages=tuple(self.pages), repaired=self.repaired,
                        warnings=tuple(warnings), outline=self.outline)


def with_known_ocr(doc: Document, known: Any) -> Document:
    """``doc`` (read without OCR: ``ocr="off"`` or no Tesseract) with the OCR text an earlier read
    recorded (``known.get(page, None)``: a :class:`pagerecall.index.ocr_text.FileOcr`, any OCR
    settings) put in for its image-only and garbled pages (status ``ocr``)."""
    pages = list(doc.pages)
    for i, p in enumerate(pages):
        if p.status in ("image_only", "garbled"):
            text = known.get(p.number, None)
            if text:
                pages[i] = Page(number=p.number, text=text, label=p.label, status="ocr")
    return dataclasses.replace(doc, pages=tuple(pages))


def ocr_result(page: Any, label: str | None, fallback: Page, data: dict | str) -> tuple[Page, str | None]:
    """(page, warning) from an OCR text page's ``extractDICT()`` ``data`` (in process or from
    the child): the ``ocr`` page with the text built as for any page
    (``_normalise(ordered_text(upright(data, page)))``, the page's own printed number left out:
    :func:`pagerecall.extract.page_numbers.without_page_number`); ``fallback`` (the ``garbled`` or
    ``image_only`` page) with no warning when OCR read nothing; ``fallback`` and
    ``"page N: OCR failed (Type: message)"`` when ``data`` is such a failure string or the text
    cannot be built. ``page`` is the PyMuPDF page (its rotation), N its 1-based number."""
    number = fallback.number
    if isinstance(data, str):
        return fallback, f"page {number}: OCR failed ({data})"
    try:
        from pagerecall.extract.page_numbers import without_page_number

        ocr_text = _normalise(ordered_text(without_page_number(upright(data, page), label, number)))
    except Exception as exc:
        return fallback, f"page {number}: OCR failed ({type(exc).__name__}: {exc})"
    if not ocr_text:
        return fallback, None
    return Page(number=number, text=ocr_text, label=label, status="ocr"), None


def ocr_dicts(path: Path, password: str | None, indexes: list[int], language: str, tessdata: str,
              dpi: int, timeout: float | None = None) -> dict[int, dict | str]:
    """OCR pages ``indexes`` (0-based) of the PDF at ``path`` in a child interpreter and wait
    for it (:class:`OcrRun`).

    Returns, for every index asked for, either the page's ``extractDICT()`` of its OCR text
    page (the dict PyMuPDF returns in process: blocks, lines, spans, boxes in points) or a
    ``"Type: message"`` string saying why that page has none (its OCR raised, the child failed
    to open the file, crashed, used more than :data:`OCR_BASE_SECONDS` +
    :data:`OCR_SECONDS_PER_PAGE` per page of CPU time, or ran longer than ``timeout`` wall
    seconds, by default :data:`OCR_WALL_FACTOR` times that CPU limit, or no interpreter could
    be started). Pages finished before a crash or time-out keep their dicts. Never raises for
    a failing child.
    """
    return OcrRun(path, password, indexes, language, tessdata, dpi, timeout).result()


CANCEL: ContextVar[threading.Event | None] = ContextVar("pagerecall_ocr_cancel", default=None)
"""Set by a server for the request it answers: when the event is set (its client went away),
:func:`ocr_page_cancellable` kills the OCR child and raises :class:`~pagerecall.errors.Cancelled`."""


def ocr_page_cancellable(path: Path, password: str | None, index: int, ocr_cfg: OcrConfig) -> dict | str:
    """OCR page ``index`` (0-based) of the PDF at ``path`` in a child interpreter (:class:`OcrRun`)
    and wait for it: the page's ``extractDICT()`` or a ``"Type: message"`` failure, as
    :func:`ocr_dicts`. The caller's thread holds no GIL meanwhile, so a server's other requests
    go on (in process, Tesseract holds the GIL for the whole page, ~11 s). When :data:`CANCEL`
    is set for this request and its event fires, the child is killed and
    :class:`~pagerecall.errors.Cancelled` raised."""
    run = OcrRun(path, password, [index], ocr_cfg.language, ocr_cfg.tessdata, ocr_cfg.dpi)
    cancel = CANCEL.get()
    while True:
        try:
            return run.result(timeout=0.2)[index]
        except FutureTimeout:
            if cancel is not None and cancel.is_set():
                run.cancel()
                from pagerecall.errors import Cancelled

                raise Cancelled(f"page {index + 1} of {path.name}: OCR stopped, the client went away") from None


class OcrRun:
    """One OCR child (``python -m pagerecall.extract.ocr``) for pages ``indexes`` (0-based) of the
    PDF at ``path``, started at once; a daemon thread feeds it the request and collects its
    frames, so the caller can go on (a build prepares and embeds other files meanwhile).

    :meth:`done`, :meth:`result` (the dict :func:`ocr_dicts` describes) and :attr:`future` (a
    ``concurrent.futures.Future`` of that dict, for ``concurrent.futures.wait``);
    :meth:`cancel` kills the child (a build that stops). Limits as :func:`ocr_dicts`.
    """

    def __init__(self, path: Path, password: str | None, indexes: list[int], language: str, tessdata: str,
                 dpi: int, timeout: float | None = None) -> None:
        self.indexes = list(indexes)
        self.future: Future = Future()
        self._proc: subprocess.Popen | None = None
        self._cancelled = False
        if not self.indexes:
            self.future.set_result({})
            return
        self._cpu_limit = OCR_BASE_SECONDS + OCR_SECONDS_PER_PAGE * len(self.indexes)
        self._timeout = OCR_WALL_FACTOR * self._cpu_limit if timeout is None else timeout
        request = json.dumps({"path": str(Path(path).resolve()), "password": password, "indexes": self.indexes,
                              "language": language, "tessdata": tessdata, "dpi": dpi,
                              "cpu_limit": self._cpu_limit, "parent": os.getpid()}).encode("utf-8")
        # cwd: the folder holding this package, so that ``-m`` imports this very pagerecall (the
        # current directory comes first on the child's sys.path)
        package_parent = str(Path(__file__).resolve().parent.parent)
        try:
            self._proc = subprocess.Popen([sys.executable, "-m", "pagerecall.extract.ocr"], stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=package_parent)
        except OSError as exc:  # no interpreter could be started: every page keeps its fallback
            self.future.set_result({i: f"{type(exc).__name__}: {exc}" for i in self.indexes})
            return
        threading.Thread(target=self._collect, args=(request,), name="pagerecall-ocr-wait", daemon=True).start()

    def done(self) -> bool:
        """Whether the child has ended (its result is ready)."""
        return self.future.done()

    def result(self, timeout: float | None = None) -> dict[int, dict | str]:
        """Wait (at most ``timeout`` s; ``concurrent.futures.TimeoutError`` past it) and return
        the result (see :func:`ocr_dicts`)."""
        return self.future.result(timeout)

    def cancel(self) -> None:
        """Kill the child if it still runs; its pages get a failure string."""
        self._cancelled = True
        proc = self._proc
        if proc is not None and proc.poll() is None:
            try:
                proc.kill()
            except OSError:
                pass

    def _collect(self, request: bytes) -> None:
        proc = self._proc
        assert proc is not None
        failure = None
        stdout = b""
        try:
            try:
                stdout, stderr = proc.communicate(request, timeout=self._timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                stdout, stderr = proc.communicate()
                failure = f"TimeoutError: the OCR process took more than {self._timeout:.0f} s and was stopped"
            if failure is None and self._cancelled:
                failure = "CancelledError: the build stopped before the OCR process ended"
            elif failure is None and proc.returncode == -getattr(signal, "SIGXCPU", 0):  # RLIMIT_CPU reached
                failure = f"TimeoutError: the OCR process used more than {self._cpu_limit:.0f} CPU-s and was stopped"
            elif failure is None and proc.returncode != 0:
                failure = (f"ChildProcessError: the OCR process ended with exit code {proc.returncode}"
                           + _last_line(stderr))
        except BaseException as exc:  # never leave the future unset
            failure = f"{type(exc).__name__}: {exc}"
        results: dict[int, dict | str] = {}
        for index, status, value in _frames(stdout or b""):
            results[index] = value if status == "ok" else str(value)
        for index in self.indexes:
            if index not in results:
                results[index] = failure or "ChildProcessError: the OCR process returned no result for this page"
        self.future.set_result(results)


def _last_line(stderr: bytes) -> str:
    lines = [ln for ln in stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
    return f" ({lines[-1].strip()[:300]})" if lines else ""


def _frames(data: bytes) -> list[tuple[int, str, Any]]:
    """The complete frames in ``data``; a frame cut off by a crash or time-out is dropped."""
    import io

    buf = io.BytesIO(data)
    out = []
    while buf.tell() < len(data):
        try:
            frame = pickle.load(buf)  # our own child's output, never a file's
        except Exception:
            break
        out.append(frame)
    return out


def _limit_cpu(seconds: float) -> None:
    """Set this process's soft ``RLIMIT_CPU`` (the kernel sends SIGXCPU, which ends it, when
    the CPU time used passes it). Nothing where ``resource`` is missing or for ``seconds <= 0``."""
    try:
        import resource
    except ImportError:  # not Unix
        return
    if seconds <= 0:
        return
    _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    want = int(seconds) + 1
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (want, hard))


PR_SET_PDEATHSIG = 1
"""``prctl(2)`` option (linux/prctl.h): the signal the kernel sends this process when its parent ends."""


def die_with_parent() -> bool:
    """Linux: have the kernel SIGKILL this process when the process that started it ends
    (``prctl(PR_SET_PDEATHSIG, SIGKILL)`` through ``ctypes``), so that a build killed with
    ``kill -9`` leaves no OCR child running Tesseract to the end of its pages. True when set;
    False elsewhere (no prctl) or when the call fails. Why ctypes: the prctl wrappers on the
    package index (python-prctl 2020, pyprctl 2021) are unmaintained, and this is one call.

    The kernel sends the signal when the *thread* that started the child ends: every caller of
    :class:`OcrRun` waits for it (or cancels it) in the thread that started it
    (:func:`ocr_dicts`, :func:`ocr_page_cancellable`, the prefetch worker of a build)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def main() -> int:
    """The child: read the JSON request on stdin, write one pickle frame per page on stdout.

    Dies with its parent (:func:`die_with_parent`; a parent gone before that was set, the
    request's ``parent`` pid no longer this process's parent, ends it at once). Exit code 0
    when every page was attempted (a page whose OCR raised gets an ``"error"`` frame), 1 when
    the request is bad or the PDF cannot be opened (the reason on stderr).
    """
    watched = die_with_parent()
    # frames go to the original stdout; anything else printed there (PyMuPDF's messages,
    # Tesseract, C libraries) goes to stderr, so that it cannot corrupt a frame
    out = os.fdopen(os.dup(1), "wb")
    sys.stdout.flush()
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        req = json.loads(sys.stdin.buffer.read().decode("utf-8"))
        if watched and req.get("parent") and os.getppid() != req["parent"]:
            raise ChildProcessError("the process that started this OCR child has ended")
        path, indexes = Path(req["path"]), [int(i) for i in req["indexes"]]
        _limit_cpu(float(req.get("cpu_limit") or 0))
        doc = open_pdf(path, path.name, req.get("password"))
    except Exception as exc:
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        out.close()
        return 1
    flags = text_flags()
    try:
        for index in indexes:
            try:
                page = doc.load_page(index)
                tp = page.get_textpage_ocr(flags=flags, language=req["language"], dpi=req["dpi"], full=True,
                                           tessdata=req["tessdata"])
                frame = (index, "ok", tp.extractDICT())
            except Exception as exc:
                frame = (index, "error", f"{type(exc).__name__}: {exc}")
            pickle.dump(frame, out, protocol=pickle.HIGHEST_PROTOCOL)
            out.flush()
    finally:
        doc.close()
        out.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
