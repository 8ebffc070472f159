"""The Ray Data build: extract, chunk and embed files on a Ray cluster; write on the driver.

:func:`index_files_ray` has the signature and the contract of :func:`pagerecall.ingest.write_files.index_files`
(the local embed loop), so ``build``, ``update`` and ``rebuild`` keep their one write path: a new
generation from :class:`~pagerecall.index.writer.GenerationWriter`, finalized, verified with a real
probe, then swapped in. Only the work per file moves:

* the driver makes a Ray Dataset of the files to embed (a build: all; an update: the delta only);
* an actor pool (:class:`FileEmbedder`, ``Settings.ray_workers`` actors of
  ``Settings.ray_cpus_per_worker`` CPUs, one embedder per actor, loaded once; never more actors than
  files: the unit of parallelism is the file) runs
  :func:`~pagerecall.ingest.pipeline.prepare_file` (extraction, OCR, chunking, chunk ids) and embeds each
  file on its own through the local loop itself (``pagerecall.ingest.embed_loop.EmbedLoop``, without the
  resume cache): the int8 graph quantises per batch, so the same batches give the same vectors;
* each file comes back as its ``files`` record and its chunk rows (Arrow IPC), in input order; the
  driver adds them through the writer (Lance rows, then Tantivy documents, record after its rows).

Same chunk ids, pages, labels and vectors as a local build; failed files come back as failed
records, reported the same way (tests/ingest/test_ray_build.py).

Decision record
    Why the driver writes: the writer's guarantees (verified generation, one commit point,
    Tantivy in step with Lance) stay in one place, and writing is not the bottleneck: the local
    upgrade path adds ~8,000 rows/s to Tantivy and Lance appends 8k-row fragments, against ~50
    passages/s of embedding per CPU (docs/scale-out.md has the measured figures and the scaling model).
    Rejected for now: Lance fragments written by the workers (``lance-ray``) and committed by the
    driver, then Tantivy rebuilt from the Lance rows; it pays off only when the driver's ~8,000
    rows/s are the limit, beyond ~1,000 embedding CPUs at ~7.6 passages/s each (docs/scale-out.md,
    where sharding is the answer past that), and needs the writer to adopt a table it did not write.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import time
from pathlib import Path

from pagerecall.config import Settings
from pagerecall.errors import PagerecallError, UsageError

log = logging.getLogger(__name__)

LOCAL_OBJECT_STORE_BYTES = 1 << 30
"""Object store of a local Ray cluster started by pagerecall (1 GiB): a file's rows are ~2.5 KB per
passage, so the 2,415-page R manual (~10k passages) is ~25 MB; Ray's default is 30% of RAM."""

DISPATCH = "one file in flight per actor"
"""Why ``max_tasks_in_flight_per_actor=1``: with Ray Data's default, the first actor to come up was handed
every queued file and the pool then scaled down ("consumed all inputs"): on this 2-core machine both files
of a benchmark ran one after the other on one actor while the second CPU idled (ray-data.log,
``tasks_in_flight=2``). A file is minutes of embedding; Ray's pipelining of small tasks gains nothing here."""

LOCAL_START_ATTEMPTS = 3
"""Starts of a local Ray cluster before giving up: Ray waits a fixed 30 s for its raylet to register,
which a busy machine can miss (seen here at load 20 on 2 cores, under ``nice -n 19``)."""


def _ray():
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError as exc:
        raise UsageError(
            f"--engine ray needs Ray Data ({exc}). Next: pip install 'pagerecall[ray]' (on every node "
            "of the cluster), or build with --engine local"
        ) from None
    return ray


def _connect(settings: Settings) -> bool:
    """Join ``settings.ray_address`` or start a local cluster; True when this call started Ray (then
    the caller shuts it down). A Ray already initialised in this process is used as it is."""
    ray = _ray()
    if ray.is_initialized():
        return False
    if settings.ray_address:
        ray.init(address=settings.ray_address, **_QUIET)
    else:
        start_local_cluster()
    log.info("ray: %s CPUs in the cluster", ray.cluster_resources().get("CPU"))
    return True


_QUIET = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.WARNING,
          "configure_logging": False}


def start_local_cluster(num_cpus: int | None = None) -> None:
    """``ray.init`` of a local cluster of ``num_cpus`` CPUs (default: all cores) whose workers import
    this same ``pagerecall`` (its folder goes first on their ``PYTHONPATH``). Tests start theirs with
    it; :func:`index_files_ray` starts one when no address is given and Ray is not running. Ray's usage
    statistics stay off for it unless ``RAY_USAGE_STATS_ENABLED`` says otherwise."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # a cluster of our own reports no usage (as OpenVINO)
    ray = _ray()
    here = str(Path(__file__).resolve().parents[2])  # the folder holding the pagerecall package
    path = os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH")) if p)
    for attempt in range(1, LOCAL_START_ATTEMPTS + 1):
        try:
            ray.init(num_cpus=num_cpus or os.cpu_count(), object_store_memory=LOCAL_OBJECT_STORE_BYTES,
                     runtime_env={"env_vars": {"PYTHONPATH": path}}, **_QUIET)
            return
        except Exception as exc:  # Ray raises a bare Exception when its raylet misses its 30 s start window
            ray.shutdown()
            if attempt == LOCAL_START_ATTEMPTS or "timed out during startup" not in str(exc):
                raise
            log.warning("ray: local cluster start timed out (attempt %d of %d); retrying", attempt,
                        LOCAL_START_ATTEMPTS)


class FileEmbedder:
    """A Ray Data actor: prepares and embeds one file per call, with one embedder loaded once.

    ``__call__(batch)``: ``batch`` has columns ``rel`` (path relative to ``root``), ``size``,
    ``mtime`` (seconds) and ``sha`` (SHA-256 hex, or "" to compute it here); returns per file
    ``rel``, ``record`` (the ``files`` record as JSON), ``chunks`` (Arrow IPC stream of its chunk
    rows, ``vector`` float32 (dim,) L2-normalised) and ``embed_s`` (seconds in the model).
    Raises ``IndexMismatchError`` when this worker's embedder would give another fingerprint than the
    driver's (another model, runtime family or chunking), ``UsageError`` when ``root`` is missing here.
    """

    def __init__(self, root: str, settings: Settings, fingerprint: dict) -> None:
        from pagerecall.model.embedding import load_embedder
        from pagerecall.index.fingerprint import check_fingerprint, index_fingerprint

        if not Path(root).is_dir():
            import socket

            raise UsageError(f"The corpus folder {root} does not exist on Ray node {socket.gethostname()}. "
                             "Next: mount the corpus at the same path on every node")
        self.root, self.settings = Path(root), settings
        self.embedder = load_embedder(settings, index_fingerprint=fingerprint, purpose="index")
        check_fingerprint(fingerprint, index_fingerprint(self.embedder, settings), "embed on this Ray worker for")

    def __call__(self, batch: dict) -> dict:
        import pyarrow as pa

        from pagerecall.errors import ExtractionError
        from pagerecall.index.corpus import DiskFile
        from pagerecall.index.schema import chunks_schema, to_table
        from pagerecall.ingest.embed_loop import EmbedLoop
        from pagerecall.ingest.preparing import Prepared, file_record, prepare_file, rows_of
        from pagerecall.paths import file_sha256

        out: dict[str, list] = {"rel": [], "record": [], "chunks": [], "embed_s": []}
        emb = self.embedder
        for rel, size, mtime, sha in zip(batch["rel"], batch["size"], batch["mtime"], batch["sha"]):
            rel, f = str(rel), DiskFile(str(rel), int(size), float(mtime))
            try:
                sha = str(sha) or file_sha256(self.root / rel)
            except OSError as exc:  # as index_files: a failed file, not a failed build
                err = ExtractionError(rel, "unreadable", exc.strerror or str(exc))
                prep = Prepared(rel, file_record(rel, f, "", None, err, 0, ""), [])
            else:
                prep = prepare_file(self.root, f, sha, emb.tokenizer, self.settings)
            t0 = time.perf_counter()
            # the local loop itself (pagerecall.ingest.embed_loop.EmbedLoop, no cache): its batches are the
            # local build's (int8 vectors depend on their batch mates), so the vectors are the same
            vecs = EmbedLoop(emb, None, lambda *_: None).vectors([prep])[0]
            table = to_table(rows_of(prep, vecs), chunks_schema(emb.dim))
            sink = pa.BufferOutputStream()
            with pa.ipc.new_stream(sink, table.schema) as w:
                w.write_table(table)
            out["rel"].append(rel)
            out["record"].append(json.dumps(prep.record))
            out["chunks"].append(sink.getvalue().to_pybytes())
            out["embed_s"].append(time.perf_counter() - t0)
        return out


def index_files_ray(writer, root: Path, files: list, hashes: dict[str, str], embedder, settings: Settings,
                    progress=None):
    """Extract, chunk and embed ``files`` on Ray; write them into the open generation ``writer``.

    Same arguments and result (:class:`pagerecall.ingest.write_files.WriteStats`) as
    :func:`pagerecall.ingest.write_files.index_files`: ``files`` are :class:`~pagerecall.index.corpus.DiskFile`
    under ``root`` (which every Ray node must see at the same path), ``hashes`` known SHA-256 by
    path, ``embedder`` the driver's (its fingerprint is what every worker must match; it embeds
    nothing here). ``WriteStats.seconds_embedding`` sums the workers' seconds in the model (CPU-
    parallel: it can exceed the wall time). Raises ``UsageError`` without Ray or without the corpus on
    a node, and whatever a worker raised (``PagerecallError`` unwrapped from Ray's task error);
    the caller aborts the generation then (the live one is untouched).
    """
    import pyarrow as pa

    from pagerecall.index.fingerprint import index_fingerprint
    from pagerecall.ingest.write_files import WriteStats
    from pagerecall.ingest.preparing import VANISHED, vanished

    progress = progress or (lambda stage, done, total: None)
    stats = WriteStats()
    if not files:
        return stats
    ray = _ray()
    started = _connect(settings)
    try:
        ctx = ray.data.DataContext.get_current()
        ctx.execution_options.preserve_order = True  # files come back in the local loop's order
        ctx.enable_progress_bars = False  # the CLI draws its own (progress callback)
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        workers = settings.ray_workers or max(1, cpus // settings.ray_cpus_per_worker)
        worker_settings = dataclasses.replace(settings, threads=settings.ray_cpus_per_worker, engine="local")
        items = [{"rel": f.rel, "size": f.size, "mtime": f.mtime, "sha": hashes.get(f.rel) or ""} for f in files]
        ds = ray.data.from_items(items, override_num_blocks=min(len(items), 1000)).map_batches(
            FileEmbedder, batch_size=1, compute=ray.data.ActorPoolStrategy(
                size=min(workers, len(items)), max_tasks_in_flight_per_actor=1),  # see DISPATCH
            num_cpus=settings.ray_cpus_per_worker,
            fn_constructor_args=(str(root), worker_settings, index_fingerprint(embedder, settings)),
        )
        log.info("ray: %d files on %d embedding actors of %d CPU(s)", len(items), workers, settings.ray_cpus_per_worker)
        done = 0
        try:
            for row in ds.iter_rows():
                table = pa.ipc.open_stream(row["chunks"]).read_all()
                record = json.loads(row["record"])
                if record["status"] != "ok" and vanished(root, record["path"]):
                    # deleted or renamed while a worker read it: no failed record (as index_files)
                    log.warning(VANISHED, record["path"])
                    stats.files_vanished += 1
                    done += 1
                    progress("files", done, len(items))
                    continue
                if table.num_rows:
                    writer.add_chunks(table)
                writer.upsert_file_records([record])  # after its rows: an 'ok' record always has them
                stats.pages += record["pages"]
                if record["status"] == "ok":
                    stats.files_ok += 1
                else:
                    stats.files_failed += 1
                stats.chunks_embedded += table.num_rows
                stats.seconds_embedding += float(row["embed_s"])
                done += 1
                progress("files", done, len(items))
                progress("passages", stats.chunks_embedded, stats.chunks_embedded)
        except ray.exceptions.RayError as exc:
            cause = _cause(exc)
            if isinstance(cause, PagerecallError):
                raise cause from None
            raise
        return stats
    finally:
        if started:
            ray.shutdown()


def _cause(exc: BaseException) -> BaseException | None:
    """The exception a Ray task or actor raised, through Ray's wrappers (``cause`` chains)."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, PagerecallError):
            return exc
        exc = getattr(exc, "cause", None) or exc.__cause__
        seen += 1
    return None
