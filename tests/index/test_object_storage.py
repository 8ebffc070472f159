"""An index whose Lance tables live on object storage (issue 17, part 2).

The object store is a real S3-compatible server (moto in server mode, offline) that the tests start on
127.0.0.1 at a random port; Lance and LanceDB talk to it over HTTP exactly as to S3. The index's
local folder keeps ``storage.json``, ``CURRENT``, the lock, ``meta.json`` and Tantivy
(pagerecall.index.storage). Searched through the CLI, the resident server and MCP, updated, rolled
back, and compared hit for hit with the same corpus indexed wholly on disk.

The first tests need no model and no server (default run); the rest are marked slow.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from pathlib import Path

import anyio
import pytest

from pagerecall.cli.commands import main
from pagerecall.config import Settings
from pagerecall.errors import IndexCorruptError, UsageError
from pagerecall.index.storage import Storage, check_storage, read_storage

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "examples" / "corpus"
BUCKET = "pagerecall-test"
QUERY = "How often does the fog signal sound?"


# --------------------------------------------------------------------------- no model, no server


def test_storage_checks_refuse_credentials_and_local_paths():
    check_storage("s3://bucket/prefix", {"aws_region": "eu-west-1", "allow_http": "true"})
    for uri in ("/tmp/x", "bucket/prefix", "http://host/x", "s3://"):
        with pytest.raises(UsageError, match="object-store location"):
            check_storage(uri, {})
    for key in ("aws_secret_access_key", "aws_access_key_id", "aws_session_token", "azure_storage_account_key"):
        with pytest.raises(UsageError, match="credential.*environment"):
            check_storage("s3://bucket/p", {key: "x"})


def test_storage_file_is_read_and_a_broken_one_is_an_error(tmp_path):
    assert read_storage(tmp_path) == Storage()
    assert Storage().lance_location(tmp_path, "gen-000001") == str(tmp_path / "gen-000001" / "lance")
    (tmp_path / "storage.json").write_text(json.dumps({"lance_uri": "s3://b/p/", "storage_options": {"a": 1}}))
    st = read_storage(tmp_path)
    assert st == Storage("s3://b/p", {"a": "1"}) and st.lance_location(tmp_path, "gen-000002") == "s3://b/p/gen-000002"
    (tmp_path / "storage.json").write_text("[1, 2]")
    with pytest.raises(IndexCorruptError, match="storage.json is not a storage description"):
        read_storage(tmp_path)


@pytest.mark.parametrize("argv, message", [
    (["--storage-option", "nokeyvalue"], "is not KEY=VALUE"),
    (["--storage-option", "aws_secret_access_key=x", "--lance-uri", "s3://b/p"], "AWS_SECRET_ACCESS_KEY"),
    (["--lance-uri", "./local-folder"], "object-store location"),
    (["--ray-workers", "0"], "must be >= 1"),
])
def test_bad_scale_out_flags_are_usage_errors(tmp_path, capsys, argv, message):
    code = main(["build", str(CORPUS), "--index", str(tmp_path / "idx"), *argv])
    assert code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "idx").exists()


def test_a_bad_engine_in_the_environment_is_a_usage_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PAGERECALL_ENGINE", "spark")
    assert main(["build", str(CORPUS), "--index", str(tmp_path / "idx")]) == 2
    assert "PAGERECALL_ENGINE" in capsys.readouterr().err


# --------------------------------------------------------------------------- a real S3-compatible server


@pytest.fixture(scope="module")
def s3():
    """A moto S3 server on 127.0.0.1 (random port) with one bucket; credentials in the environment
    (where Lance reads them), never in the index. Yields the endpoint URL."""
    pytest.importorskip("moto.server", reason="needs moto[server] (pip install -e '.[test]')")
    import boto3
    from moto.server import ThreadedMotoServer

    env = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_EC2_METADATA_DISABLED": "true"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    import logging

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per request otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(Bucket=BUCKET)
    try:
        yield endpoint
    finally:
        server.stop()
        for k, v in saved.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)


def _keys(endpoint: str, prefix: str) -> list[str]:
    import boto3

    client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
    pages = client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix)
    return [o["Key"] for page in pages for o in page.get("Contents", [])]


@pytest.fixture(scope="module")
def indexes(s3, tmp_path_factory):
    """The example corpus indexed twice by the CLI: Lance on S3 (``remote``) and wholly on disk (``local``)."""
    base = tmp_path_factory.mktemp("objstore")
    corpus = base / "corpus"
    shutil.copytree(CORPUS, corpus)
    remote, local = base / "remote", base / "local"
    opts = ["--storage-option", f"aws_endpoint={s3}", "--storage-option", "allow_http=true",
            "--storage-option", "aws_region=us-east-1"]
    assert main(["build", str(corpus), "--index", str(remote), "--lance-uri", f"s3://{BUCKET}/lib", *opts, "-q"]) == 0
    assert main(["build", str(corpus), "--index", str(local), "-q"]) == 0
    settings = dataclasses.replace(Settings.from_env(), corpus_root=None, degraded_registry=None)
    return {"corpus": corpus, "remote": dataclasses.replace(settings, index_dir=remote),
            "local": dataclasses.replace(settings, index_dir=local), "endpoint": s3}


def _search(capsys, index: Path, *extra: str) -> dict:
    assert main(["search", QUERY, "--json", "-k", "5", "--index", str(index), *extra]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_lance_tables_are_on_the_object_store_and_the_small_parts_local(indexes):
    idx = indexes["remote"].index_dir
    stored = json.loads((idx / "storage.json").read_text())
    assert stored == {"lance_uri": f"s3://{BUCKET}/lib",
                      "storage_options": {"aws_endpoint": indexes["endpoint"], "allow_http": "true",
                                          "aws_region": "us-east-1"}}
    assert "testing" not in (idx / "storage.json").read_text()  # credentials stay in the environment
    gen = (idx / "CURRENT").read_text().strip()
    assert (idx / gen / "meta.json").is_file() and any((idx / gen / "tantivy").iterdir())
    assert not list((idx / gen).rglob("*.lance"))  # no Lance data on the local disk
    keys = _keys(indexes["endpoint"], f"lib/{gen}/")
    assert any(k.startswith(f"lib/{gen}/chunks.lance/data/") for k in keys)
    assert any(k.startswith(f"lib/{gen}/chunks.lance/_indices/") for k in keys)  # scalar indexes
    assert any(k.startswith(f"lib/{gen}/files.lance/") for k in keys)


@pytest.mark.slow
def test_cli_search_on_object_storage_equals_the_local_index(indexes, capsys):
    remote = _search(capsys, indexes["remote"].index_dir, "--in-process")
    local = _search(capsys, indexes["local"].index_dir, "--in-process")
    assert remote["hits"] and remote["hits"][0]["file"].startswith("en/")
    assert [(h["chunk_id"], h["page_start"], h["label_start"]) for h in remote["hits"]] == [
        (h["chunk_id"], h["page_start"], h["label_start"]) for h in local["hits"]]
    assert [round(h["score"], 6) for h in remote["hits"]] == [round(h["score"], 6) for h in local["hits"]]
    assert main(["info", "--json", "--in-process", "--index", str(indexes["remote"].index_dir)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["counts"]["lance_chunks"] == info["counts"]["tantivy_docs"] > 0


@pytest.mark.slow
def test_resident_server_and_mcp_answer_from_object_storage(indexes, capsys):
    import mcp

    from pagerecall.cli.forwarded import run_forwarded
    from pagerecall.resident import server as resident
    from pagerecall.mcp.server import create_server
    from pagerecall.search.searcher import Searcher

    settings = indexes["remote"]
    in_process = _search(capsys, settings.index_dir, "--in-process")
    server = resident.ResidentServer(settings, Searcher(settings), forward=run_forwarded).start()
    try:
        code = main(["search", QUERY, "--json", "-k", "5", "--index", str(settings.index_dir)])
        out = capsys.readouterr()
        assert code == 0 and json.loads(out.out) == in_process and "not used" not in out.err

        async def go():
            async with mcp.Client(create_server(settings, searcher=server.searcher)) as client:
                return await client.call_tool("semantic_search", {"query": QUERY, "k": 5})

        got = anyio.run(go).structured_content
    finally:
        server.stop()
    assert [h["chunk_id"] for h in got["hits"]] == [h["chunk_id"] for h in in_process["hits"]]


@pytest.mark.slow
def test_update_rollback_and_cleanup_on_object_storage(indexes, capsys):
    from pagerecall.ingest.pipeline import rollback, update

    settings, endpoint = indexes["remote"], indexes["endpoint"]
    idx, corpus = settings.index_dir, indexes["corpus"]
    first = (idx / "CURRENT").read_text().strip()
    new = corpus / "en" / "added-note.txt"
    new.write_text("The keeper logs every sounding of the foghorn in the red ledger.\n", encoding="utf-8")
    rep = update(settings)
    assert rep.delta["added"] == [str(new.relative_to(corpus))] and rep.chunks_embedded == 1 and rep.verified
    second = rep.generation
    assert _keys(endpoint, f"lib/{first}/") and _keys(endpoint, f"lib/{second}/chunks.lance/data/")
    hits = _search(capsys, idx, "--in-process", "--mode", "fulltext")  # the cloned base rows are there
    assert hits["hits"]
    assert main(["search", "red ledger foghorn", "--json", "--in-process", "--index", str(idx)]) == 0
    assert json.loads(capsys.readouterr().out)["hits"][0]["file"] == "en/added-note.txt"

    assert rollback(settings)["generation"] == first  # the first generation's remote tables still serve
    assert _search(capsys, idx, "--in-process")["hits"]
    third = update(settings).generation  # adds the note to `first` again; cleanup keeps CURRENT and PREVIOUS
    assert third not in (first, second)
    assert {first, third} == {(idx / "CURRENT").read_text().strip(), (idx / "PREVIOUS").read_text().strip()}
    assert not _keys(endpoint, f"lib/{second}/") and not (idx / second).exists()


@pytest.mark.slow
def test_an_aborted_generation_leaves_no_remote_tables_and_the_live_one_serving(indexes, capsys):
    from pagerecall.index.remote import open_store

    settings, endpoint = indexes["remote"], indexes["endpoint"]
    store = open_store(settings)
    live = store.current_name()
    writer = store.begin_generation(base=live)
    assert _keys(endpoint, f"lib/{writer.name}/chunks.lance/")  # the clone of the base
    writer.abort()
    assert not _keys(endpoint, f"lib/{writer.name}/") and store.current_name() == live
    assert _search(capsys, settings.index_dir, "--in-process")["hits"]


@pytest.mark.slow
def test_lance_uri_is_refused_for_an_index_on_disk_or_elsewhere(indexes, capsys):
    for which, message in (("local", "applies only to a new index"), ("remote", "keeps its Lance tables at")):
        code = main(["build", str(indexes["corpus"]), "--index", str(indexes[which].index_dir),
                     "--lance-uri", f"s3://{BUCKET}/other"])
        assert code == 2 and message in capsys.readouterr().err


@pytest.mark.slow
def test_an_update_of_touched_files_keeps_their_whole_records_on_object_storage(indexes):
    """New mtimes, same content (a ``touch`` of the corpus): the records read back from the remote
    table go forward whole, outline and page flags included (tests/ingest/test_update_keeps_records.py)."""
    from pagerecall.index.snapshot import open_snapshot
    from pagerecall.ingest.pipeline import update

    settings, corpus = indexes["remote"], indexes["corpus"]
    update(settings)  # whatever an earlier test left changed: start from an index of the corpus as it is

    def records() -> dict:
        return {r["path"]: dict(r, mtime=None) for r in open_snapshot(settings.index_dir).files.to_table().to_pylist()}

    before = records()
    assert all(r["outline"] is not None and r["page_flags"] is not None for r in before.values())
    for p in corpus.rglob("*"):
        if p.is_file():
            st = p.stat()
            os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    rep = update(settings)
    assert rep.written and sorted(rep.delta["touched"]) == sorted(before) and rep.chunks_embedded == 0
    assert records() == before
