"""The onnxruntime session of the bundled model, and its saved optimised graph.

Saved optimised graph
    Why: onnxruntime re-optimises the 118 MB int8 graph at every start. The graph it optimised
    once (``SessionOptions.optimized_model_filepath``) is saved in ``<model_dir>/optimized/`` under
    a name keyed by onnxruntime's version, the converter version, the quantisation and a hash of
    the CPU's flags (the saved graph may hold CPU-specific kernels), written atomically, and
    loaded with graph optimisation disabled.
    Session creation from the saved graph costs less CPU than optimising again; outputs are
    bit-identical.
    Why: docs/decisions/onnxruntime-session.md.

A cache that cannot be written (a shared install, ``chmod -R a-w``, a full disk)
    The saved graph is a speed-up, never a condition: when none fits this onnxruntime (another
    version wrote the cache) and ``optimized/`` cannot take a new one, or the saved one does not
    load and cannot be deleted, the session optimises ``model.onnx`` in memory (the same
    ORT_ENABLE_ALL, bit-identical outputs) without saving, and one warning per graph and process
    says how to make the saving possible. Before, onnxruntime failed writing the file
    (``ModelRequiresCompilation: SystemError : 13``) and the advice was to delete the model folder,
    which a user of a read-only cache cannot do (``tests/model/test_read_only_cache.py``).

A writer killed mid-save
    leaves its temporary file (``.<graph>.tmp-<pid>-<thread>``, up to the graph's size) in
    ``optimized/``; the next session opened on that folder removes it once its process is gone
    (``_remove_stale_temps``).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import logging
import os
import platform
import re
import shutil
import threading
import time
from pathlib import Path
from typing import Any, Callable

log = logging.getLogger(__name__)

_warned: set[str] = set()
_warned_lock = threading.Lock()


def cpu_signature() -> str:
    """A short hash of this CPU's instruction-set flags (``/proc/cpuinfo``; elsewhere the
    platform's processor string), so that a cache shared between machines never hands one CPU
    a graph optimised for another."""
    flags = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith(("flags", "Features")):
                    flags = " ".join(sorted(line.split(":", 1)[1].split()))
                    break
    except OSError:
        pass
    raw = f"{platform.machine()}|{flags or platform.processor()}"
    return hashlib.sha256(raw.encode()).hexdigest()[:10]


def physical_cores() -> int:
    """Physical cores this process may run on: the CPUs of its affinity set (``os.sched_getaffinity``,
    so a container's or ``taskset``'s limit counts), SMT siblings counted once (Linux's
    ``topology/core_id`` and ``physical_package_id``); elsewhere ``os.cpu_count()``. At least 1.
    onnxruntime's default intra-op thread count is the physical cores too (its cpuinfo)."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)
    cores = set()
    for c in cpus:
        topo = Path(f"/sys/devices/system/cpu/cpu{c}/topology")
        try:
            cores.add((topo.joinpath("physical_package_id").read_text().strip(),
                       topo.joinpath("core_id").read_text().strip()))
        except OSError:
            cores.add(("cpu", str(c)))  # no topology (some containers): each CPU a core
    return max(1, len(cores))


def optimized_graph_path(model_dir: Path, quantization: str, converter_version: str, variant: str = "") -> Path:
    """Where the saved optimised graph of ``model_dir/model.onnx`` lives (see the module
    docstring): keyed by onnxruntime version, converter version, quantisation, ``variant`` (the
    split graph's, ``pagerecall.model.word_table``) and CPU flags."""
    import onnxruntime as ort

    tag = f"-{variant}" if variant else ""
    name = f"model-c{converter_version}-{quantization}{tag}-ort{ort.__version__}-{cpu_signature()}.onnx"
    return Path(model_dir) / "optimized" / name


def _session_options(threads: int | None, passages: bool = False):
    import onnxruntime as ort

    so = ort.SessionOptions()
    if passages:
        # Indexing: idle intra-op threads sleep instead of spinning, so they leave the second core
        # to extraction and chunking (which overlap embedding) and to other jobs. See
        # ``pagerecall.model.bundled`` ("Where the embedder's CPU goes").
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # as fastembed sets them (fastembed.common.onnx_model): threads for both pools when given
    if threads is not None:
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = threads
    # Queries: off (onnxruntime's arena keeps its high-water mark, so a server's steady RSS would stay
    # at the peak of its largest batch). Indexing: on, since the attention runs passage by passage:
    # 3-4 % less CPU and wall (freed buffers reused instead of fresh pages), peak RSS still below the
    # batched graph's without it; a write returns it before finalize (OrtEncoder.release_memory).
    # Why: docs/decisions/onnxruntime-session.md.
    so.enable_cpu_mem_arena = passages
    so.log_severity_level = 3  # the "hardware specific optimizations" warning on saving
    return so


def _temp_beside(opt: Path) -> tuple[Path | None, str]:
    """A new empty temporary file beside ``opt`` for onnxruntime to write the optimised graph
    into, or ``(None, reason)`` when the folder cannot take it (read-only, missing rights)."""
    tmp = opt.with_name(f".{opt.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    try:
        opt.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    except OSError as exc:
        return None, exc.strerror or repr(exc)
    return tmp, ""


STALE_TEMP_AGE_S = 60.0
"""A writer's temporary file is removed by others only when its process is gone and it is older than this (s)."""


def _remove_stale_temps(folder: Path) -> int:
    """Delete the temporary graphs (``.<name>.tmp-<pid>-<thread>``) that writers killed mid-save
    (kill -9, power loss) left in ``folder``: those whose process no longer runs on this machine and
    which are older than ``STALE_TEMP_AGE_S``. A live writer's file is never touched (its pid runs,
    or it is younger than that, e.g. on a cache shared between machines). Returns how many were
    removed; errors (a read-only cache) are ignored: the leftovers only waste disk."""
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    now = time.time()
    for entry in entries:
        m = re.fullmatch(r"\..+\.tmp-(\d+)-\d+", entry.name)
        if m is None or int(m.group(1)) == os.getpid():
            continue
        try:
            if now - entry.stat(follow_symlinks=False).st_mtime < STALE_TEMP_AGE_S:
                continue
            os.kill(int(m.group(1)), 0)
            continue  # its writer still runs
        except ProcessLookupError:
            pass
        except OSError:  # PermissionError: a live process of another user; or the file went away
            continue
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
            removed += 1
            log.info("Removed %s, left by a writer that no longer runs", entry.path)
    return removed


def _why_not_saved(exc: Exception, tmp: Path, src: Path) -> str:
    """Words for onnxruntime's failure to write the optimised graph into ``tmp``: its errors say
    ``SystemError : 13`` for a refused write and ``Protobuf serialization failed`` for a full disk
    (onnxruntime 1.32, measured on a 10 MB tmpfs)."""
    m = re.search(r"SystemError : (\d+)", str(exc))
    if m:
        return os.strerror(int(m.group(1)))
    try:  # the partial temporary file is deleted after this: its bytes count as free
        free = shutil.disk_usage(tmp.parent).free + (tmp.stat().st_size if tmp.exists() else 0)
        need = src.stat().st_size
    except OSError:
        return repr(exc)
    if free < need:
        return f"{os.strerror(errno.ENOSPC)}: {free / 2**20:.0f} MiB free, the graph takes about {need / 2**20:.0f} MiB"
    return repr(exc)


def _warn_unsaved(opt: Path, src: Path, reason: str) -> None:
    import onnxruntime as ort

    with _warned_lock:
        if str(opt) in _warned:
            return
        _warned.add(str(opt))
    if reason.startswith(os.strerror(errno.ENOSPC)):
        advice = "free disk space there, or set PAGERECALL_CACHE_DIR to a folder on a disk with room"
    else:
        advice = (f"run pagerecall once as the cache's owner (saves it for onnxruntime {ort.__version__}), or set "
                  "PAGERECALL_CACHE_DIR to a writable folder")
    log.warning("Cannot save the optimised graph in %s (%s): %s runs optimised in memory, each start "
                "optimises it again. Next: %s", opt.parent, reason, src, advice)


def open_session(model_dir: Path, quantization: str, converter_version: str, threads: int | None = None,
                 save_optimized: bool = True, passages: bool = False, source: Path | None = None,
                 variant: str = "", rewrite: Callable[[Any], Any] | None = None):
    """An ``onnxruntime.InferenceSession`` (CPU) on ``model_dir/model.onnx`` (or on ``source``, a
    variant of it named ``variant``: the split graph of ``pagerecall.model.word_table``).
    ``rewrite``: applied to the graph (an ``onnx.ModelProto``) before onnxruntime optimises it
    (``pagerecall.model.attention_graph``); ``variant`` must then name the rewrite too, since the
    saved optimised graph is keyed by it.

    Loads the saved optimised graph when present (optimisation disabled), else optimises
    the graph (ORT_ENABLE_ALL, as fastembed) and, with ``save_optimized``, saves the result
    atomically for the next start. A saved graph that fails to load is deleted and rebuilt.
    Where the saved graph can be neither loaded nor written (a read-only cache, a full disk),
    the graph is optimised in memory without saving, with one warning (module docstring).

    Raises whatever onnxruntime raises for a missing or corrupt graph.
    """
    import onnxruntime as ort

    providers = ["CPUExecutionProvider"]
    src = Path(source or Path(model_dir) / "model.onnx")
    graph: str | bytes = str(src)
    opt = optimized_graph_path(model_dir, quantization, converter_version, variant)
    reason = ""
    _remove_stale_temps(opt.parent)
    if opt.is_file():
        so = _session_options(threads, passages)
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        try:
            return ort.InferenceSession(str(opt), so, providers=providers)
        except Exception as exc:  # truncated or foreign file: rebuild it
            try:
                opt.unlink(missing_ok=True)
                log.warning("Saved optimised graph %s does not load (%r); rebuilding it", opt, exc)
            except OSError as err:  # read-only cache: it stays, and no new one can be saved
                reason = f"{opt.name} does not load ({exc!r}) and cannot be deleted: {err.strerror or err!r}"
    if rewrite is not None:  # only when onnxruntime must optimise: a saved graph already holds it
        import onnx

        graph = rewrite(onnx.load(str(src))).SerializeToString()
    if save_optimized and not reason:
        tmp, reason = _temp_beside(opt)
        if tmp is not None:
            so = _session_options(threads, passages)
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            so.optimized_model_filepath = str(tmp)
            try:
                session = ort.InferenceSession(graph, so, providers=providers)
            except Exception as exc:  # writing failed (disk full, ...): once more below without saving
                reason = _why_not_saved(exc, tmp, src)
            else:
                try:
                    os.replace(tmp, opt)
                except OSError as exc:
                    _warn_unsaved(opt, src, exc.strerror or repr(exc))
                return session
            finally:
                with contextlib.suppress(OSError):
                    tmp.unlink(missing_ok=True)
    so = _session_options(threads, passages)
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(graph, so, providers=providers)  # a bad graph raises here
    if save_optimized:
        _warn_unsaved(opt, src, reason)
    return session
