"""A JSON boolean where a tool takes a whole number is refused, in one sentence with a next step:
``semantic_search(k=true)`` ran as k=1 (pydantic's lax mode reads true as 1), ``read_page(page=true)``
read page 1. Every integer argument of every tool (found in the tools' own input schemas), through
the SDK and through the stdio front's tool table. Real index and model."""

from __future__ import annotations

import dataclasses

import anyio
import pytest

from pagerecall.config import Settings

mcp = pytest.importorskip("mcp")

from pagerecall.mcp.server import create_server  # noqa: E402


@pytest.fixture(scope="module")
def settings(tmp_path_factory) -> Settings:
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("boolint")
    corpus = base / "corpus"
    corpus.mkdir()
    (corpus / "log.txt").write_text("The lamp is lit at sunset; the keeper logs 12 hours of light.\n",
                                    encoding="utf-8")
    s = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=corpus,
                            degraded_registry=None)
    build(s, corpus)
    return s


def _calls(settings: Settings, calls: list[tuple[str, dict]]) -> tuple[dict, list]:
    async def go():
        async with mcp.Client(create_server(settings)) as client:
            tools = {t.name: t.input_schema for t in (await client.list_tools()).tools}
            return tools, [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(go)


def _boolean_for(prop: dict) -> bool | list | None:
    """What to send for an integer argument: true, or [true] for a list of integers; None: no integer."""
    kinds = [prop] + prop.get("anyOf", []) + prop.get("oneOf", [])
    if any(k.get("type") == "integer" for k in kinds):
        return True
    if any(k.get("type") == "array" and k.get("items", {}).get("type") == "integer" for k in kinds):
        return [True]
    return None


def _refused(res, field: str, value: bool = True) -> bool:
    text = res.content[0].text if res.content else ""
    return res.is_error and field in text and str(value).lower() in text and "Next:" in text


def test_a_boolean_is_no_whole_number_for_the_common_calls(settings: Settings) -> None:
    calls = [("semantic_search", {"query": "lamp", "k": True}), ("read_page", {"file": "log.txt", "page": True}),
             ("read_page", {"file": "log.txt", "page": 1, "offset": False}),
             ("check_numbers", {"claim": "12 hours", "file": "log.txt", "pages": [True]}),
             ("library_files", {"pattern": "*", "limit": True})]
    _tools, results = _calls(settings, calls)
    for (name, args), res in zip(calls, results):
        field, value = next((k, v) for k, v in args.items() if v is True or v is False or v == [True])
        assert _refused(res, field, value is not False), (name, args, res.content[0].text if res.content else res)
        assert "whole number" in res.content[0].text
    ok = _calls(settings, [("semantic_search", {"query": "lamp", "k": 1})])[1][0]
    assert not ok.is_error


def test_every_integer_argument_of_every_tool_refuses_a_boolean(settings: Settings) -> None:
    tools = _calls(settings, [])[0]
    cases = [(name, field, value) for name, schema in sorted(tools.items())
             for field, prop in schema.get("properties", {}).items() if (value := _boolean_for(prop)) is not None]
    assert len(cases) >= 15, cases  # k, page, offset, limit, dpi, max_tokens, top, pages ... of the tools
    results = _calls(settings, [(name, {field: value}) for name, field, value in cases])[1]
    wrong = [(name, field, res.content[0].text if res.content else None)
             for (name, field, _v), res in zip(cases, results) if not _refused(res, field)]
    assert wrong == []


def test_the_stdio_fronts_table_leaves_a_boolean_to_the_sdks_refusal(settings: Settings) -> None:
    table = create_server(settings, sdk=False)
    assert table.call("semantic_search", {"query": "lamp", "k": True}) is None  # the SDK refuses it
    assert table.call("read_page", {"file": "log.txt", "page": True}) is None
    got = table.call("semantic_search", {"query": "lamp", "k": 1})
    assert got is not None and len(got["structuredContent"]["hits"]) == 1


# -- the other way round: only JSON true/false where a tool takes true/false (critic: whole_file "yes")

NOT_BOOLEANS = ["yes", "true", "false", "1", "", 1, 0, [True], {"on": True}]
"""What pydantic's lax mode read as a boolean (``"yes"``, ``"true"``, ``"1"``, ``1``, ``0``) and what it
refused (``""``, a list, an object) with its own words: each is refused in one sentence."""


def _flag_refused(res, field: str) -> bool:
    text = res.content[0].text if res.content else ""
    return res.is_error and field in text and "true or false" in text and "Next:" in text


def test_a_string_or_number_is_no_boolean_for_the_common_calls(settings: Settings) -> None:
    calls = [("verify_quote", {"quote": "The lamp is lit at sunset", "file": "log.txt", "whole_file": "yes"}),
             ("verify_quote", {"quote": "The lamp is lit at sunset", "file": "log.txt", "whole_file": "false"}),
             ("semantic_search", {"query": "lamp", "rects": 1}), ("semantic_search", {"query": "lamp", "topics": "on"})]
    results = _calls(settings, calls)[1]
    for (name, args), res in zip(calls, results):
        field = next(k for k in args if k in ("whole_file", "rects", "topics"))
        assert _flag_refused(res, field), (name, args, res.content[0].text if res.content else res)
        assert "without quotes" in res.content[0].text
    # JSON true and false still run
    ok = _calls(settings, [("verify_quote", {"quote": "The lamp is lit at sunset", "file": "log.txt",
                                             "whole_file": True}),
                           ("semantic_search", {"query": "lamp", "k": 1, "rects": False, "topics": True})])[1]
    assert [r.is_error for r in ok] == [False, False], [r.content[0].text for r in ok]
    assert ok[0].structured_content["match"] == "exact"


def test_every_boolean_argument_of_every_tool_refuses_a_non_boolean(settings: Settings) -> None:
    tools = _calls(settings, [])[0]
    fields = [(name, field) for name, schema in sorted(tools.items())
              for field, prop in schema.get("properties", {}).items()
              if any(k.get("type") == "boolean" for k in [prop] + prop.get("anyOf", []))
              and not any(k.get("type") not in ("boolean", "null") for k in [prop] + prop.get("anyOf", []))]
    assert len(fields) >= 6, fields  # rects, topics, with_notes, whole_file, same_file ... of the tools
    cases = [(name, field, value) for name, field in fields for value in NOT_BOOLEANS]
    results = _calls(settings, [(name, {field: value}) for name, field, value in cases])[1]
    wrong = [(name, field, value, res.content[0].text if res.content else None)
             for (name, field, value), res in zip(cases, results) if not _flag_refused(res, field)]
    assert wrong == []


def test_the_stdio_fronts_table_leaves_a_non_boolean_to_the_sdks_refusal(settings: Settings) -> None:
    table = create_server(settings, sdk=False)
    assert table.call("semantic_search", {"query": "lamp", "rects": "yes"}) is None  # the SDK refuses it
    assert table.call("semantic_search", {"query": "lamp", "topics": 0}) is None
    got = table.call("semantic_search", {"query": "lamp", "k": 1, "rects": False})
    assert got is not None and len(got["structuredContent"]["hits"]) == 1
