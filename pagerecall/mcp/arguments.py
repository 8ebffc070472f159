"""One refusal style for every MCP tool's arguments.

The SDK (mcp 2.3) validates a call's arguments against the tool's pydantic model before the tool
runs: a bound broken there (``record_check`` with an empty claim, ``compose_evidence`` with
``max_tokens`` 0, ``view_page`` with ``dpi`` 10000, ``list_checks`` with an unknown ``status``)
reached the agent as pydantic's multi-line text with a documentation URL, while the tools' own
checks answer in one sentence with one next step; and an argument the tool does not have
(``semantic_search_info({"bogus": 1})``) was dropped silently. :func:`strict_arguments` wraps every
registered tool so that both answer like the rest: ``"<what>. Next: <step>."``.

A JSON ``true``/``false`` where a tool takes a number (``semantic_search(k=true)``) is refused too
(:func:`boolean_for_number`): pydantic's lax mode, which the SDK uses, reads it as 1 or 0, so a
client's bug ran as ``k=1`` or read page 1 without a word. The other way round too
(:func:`non_boolean_for_flag`): where a tool takes true/false, lax mode read ``"yes"``, ``"no"``,
``"on"``, ``"1"``, ``0`` or ``1`` as a boolean, so ``whole_file: "yes"`` ran while ``page: true`` was
refused; only JSON ``true`` and ``false`` are taken (and ``null`` where the argument may be null).
"""

from __future__ import annotations

import typing
from typing import Any

from pagerecall.errors import sentences

__all__ = ["boolean_for_number", "non_boolean_for_flag", "refusal", "strict_arguments", "wrong_json_type"]


_TYPE_KINDS = {"string_type": "text", "list_type": "a list", "int_type": "a whole number",
               "int_parsing": "a whole number", "bool_type": "true or false", "bool_parsing": "true or false",
               "dict_type": "an object", "none_required": "null"}
"""pydantic error types that say only "not this type", with what the type is in words."""


def _first_error(exc: Any) -> dict:
    errors = exc.errors(include_url=False)
    if not errors:
        return {"loc": (), "msg": str(exc), "type": ""}
    return _union_error(errors) or errors[0]


def _union_error(errors: list[dict]) -> dict | None:
    """For an argument typed as a union (``pages: str | list[int]``), pydantic reports one error per
    member, each ``loc`` naming the member (``("pages", "str")``): the first said "pages.str: must
    be text" for ``pages=5`` and for ``pages=[0]``. Returns, for such a set, the error of the member
    that matched the value's type (``[0]``: "pages must be 1 or more") with the member's name
    dropped from ``loc``, or one error saying the types the argument takes (``5``: "pages must be
    text or a list"); None when the first error is not a union's."""
    field = errors[0].get("loc", ())[:1]
    same = [e for e in errors if e.get("loc", ())[:1] == field]
    members = {e["loc"][1] for e in same if len(e.get("loc", ())) > 1 and isinstance(e["loc"][1], str)}
    if not field or len(same) < 2 or len(members) < 2:
        return None

    def strip(e: dict) -> dict:
        return {**e, "loc": tuple(field) + tuple(p for p in e["loc"][2:])}
    deeper = [e for e in same if e.get("type") not in _TYPE_KINDS or len(e["loc"]) > 2]  # past the type: an item
    if deeper:
        return strip(deeper[0])
    wants = list(dict.fromkeys(_TYPE_KINDS[e["type"]] for e in same))
    return {"loc": tuple(field), "type": "union_type", "input": same[0].get("input"), "ctx": {"wants": wants}}


def refusal(tool: str, exc: Any) -> str:
    """One sentence and one next step for the first error of a pydantic ``ValidationError``
    raised by ``tool``'s argument model."""
    err = _first_error(exc)
    loc = [str(p) for p in err.get("loc", ()) if not isinstance(p, int)]
    field = loc[0] if loc else "an argument"
    kind, ctx, value = err.get("type", ""), err.get("ctx") or {}, err.get("input")
    if kind == "missing":
        what, step = f"{field} is required", f"call {tool} again with {field}"
    elif kind == "string_too_short":
        least = ctx.get("min_length", 1)
        what = f"{field} is empty" if least == 1 or not value else f"{field} is shorter than {least} characters"
        step = f"pass {field} as non-empty text" if least == 1 else f"pass {field} of at least {least} characters"
    elif kind == "string_too_long":
        n = len(value) if isinstance(value, str) else "too many"
        what, step = (f"{field} has {n:,} characters; the limit is {ctx.get('max_length'):,}" if isinstance(n, int)
                      else f"{field} is too long", f"shorten {field}")
    elif kind in ("too_short", "too_long"):
        what = f"{field} has {ctx.get('actual_length')} entries; it takes " + (
            f"at least {ctx.get('min_length')}" if kind == "too_short" else f"at most {ctx.get('max_length')}")
        step = f"call {tool} again with {field} within that"
    elif kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        bound = {"greater_than_equal": f"{ctx.get('ge')} or more", "greater_than": f"more than {ctx.get('gt')}",
                 "less_than_equal": f"{ctx.get('le')} or less", "less_than": f"less than {ctx.get('lt')}"}[kind]
        what, step = f"{field} must be {bound}, got {value!r}", f"call {tool} again with {field} {bound}"
    elif kind in ("int_parsing", "int_type", "int_from_float"):
        what, step = f"{field} must be a whole number, got {value!r}", f"call {tool} again with {field} a whole number"
        if field == "page" and isinstance(value, str):  # a printed label ('ix', 'A-3') where the position goes
            step += " (the physical page, 1-based, not the printed label: hits give both, page_start and label_start)"
    elif kind in ("string_type", "bool_type", "bool_parsing", "list_type"):
        want = {"string_type": "text", "list_type": "a list"}.get(kind, "true or false")
        what, step = f"{field} must be {want}, got {value!r}", f"call {tool} again with {field} as {want}"
    elif kind == "union_type":
        wants = ctx["wants"]
        want = ", ".join(wants[:-1]) + " or " + wants[-1] if len(wants) > 1 else wants[0]
        what, step = f"{field} must be {want}, got {value!r}", f"call {tool} again with {field} as {want}"
    elif kind in ("literal_error", "enum"):
        what, step = (f"{field} {value!r} is not one of {ctx.get('expected')}",
                      f"call {tool} again with one of {ctx.get('expected')}")
    else:
        what, step = f"{field}: {err.get('msg', 'invalid value')} (got {value!r})", f"call {tool} again with {field} fixed"
    if len(loc) > 1:
        what = f"{'.'.join(loc)}: " + what.split(" ", 1)[1] if " " in what else what
    return sentences(what, f"Next: {step}")


def _members(annotation: Any) -> list[Any]:
    """The types an annotation admits, ``Annotated`` and unions unwrapped (``int | None`` -> [int, None])."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _members(typing.get_args(annotation)[0])
    if origin is typing.Union or type(annotation).__name__ == "UnionType":
        return [m for a in typing.get_args(annotation) for m in _members(a)]
    return [annotation]


def _refuses_boolean(annotation: Any) -> bool:
    """True when ``annotation`` takes a number (int or float) and no boolean (nor ``Any``)."""
    members = _members(annotation)
    takes_bool = any(m is bool or m is Any or m is object or (typing.get_origin(m) is typing.Literal
                                                             and any(isinstance(v, bool) for v in typing.get_args(m)))
                     for m in members)
    return not takes_bool and any(m is int or m is float for m in members)


def boolean_for_number(annotations: dict[str, Any], arguments: dict[str, Any] | None) -> str | None:
    """The refusal (``"<what>. Next: ..."`` without the tool's name) for the first JSON boolean in
    ``arguments`` given where ``annotations`` (argument name -> its type, ``Annotated`` allowed) take a
    whole number, as the argument itself or as an item of a list (``pages=[true]``); None when there
    is none. Arguments not in ``annotations`` are left to the other checks."""
    for name, value in (arguments or {}).items():
        if name not in annotations:
            continue
        members = _members(annotations[name])
        if isinstance(value, bool) and _refuses_boolean(annotations[name]):
            return sentences(f"{name} must be a whole number, got {str(value).lower()} (a JSON boolean)",
                             f"Next: pass {name} as a number")
        if isinstance(value, list) and any(isinstance(v, bool) for v in value):
            items = [typing.get_args(m)[0] for m in members if typing.get_origin(m) is list and typing.get_args(m)]
            if items and all(_refuses_boolean(i) for i in items):
                return sentences(f"{name} must list whole numbers, got true or false (a JSON boolean) in {value!r}",
                                 f"Next: pass {name} as a list of numbers")
    return None


def _flag_only(annotation: Any) -> bool:
    """True when ``annotation`` takes a boolean and nothing but (``None`` aside): ``bool``, ``bool | None``."""
    members = [m for m in _members(annotation) if m is not type(None) and m is not None]
    return bool(members) and all(m is bool for m in members)


def non_boolean_for_flag(annotations: dict[str, Any], arguments: dict[str, Any] | None) -> str | None:
    """The refusal (``"<what>. Next: ..."`` without the tool's name) for the first argument of
    ``arguments`` that is not a JSON boolean where ``annotations`` take only true/false (a string
    ``"yes"``/``"true"``, a number 0/1, a list); ``null`` passes where the type admits None (the
    SDK then judges it). None when there is none. Arguments not in ``annotations`` are left to the
    other checks."""
    for name, value in (arguments or {}).items():
        if name not in annotations or isinstance(value, bool) or not _flag_only(annotations[name]):
            continue
        if value is None and type(None) in _members(annotations[name]):
            continue
        kind = "text" if isinstance(value, str) else "a number" if isinstance(value, (int, float)) else \
            "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else "null"
        return sentences(f"{name} must be true or false (a JSON boolean), got {value!r} ({kind})",
                         f"Next: pass {name} as true or false, without quotes")
    return None


def wrong_json_type(annotations: dict[str, Any], arguments: dict[str, Any] | None) -> str | None:
    """:func:`boolean_for_number`, else :func:`non_boolean_for_flag`: the refusal for the first
    argument whose JSON type lax validation would have converted; None when there is none."""
    return boolean_for_number(annotations, arguments) or non_boolean_for_flag(annotations, arguments)


def _instead(unknown: list[str], names: frozenset[str]) -> str:
    """``"with files instead of file"`` when an unknown argument name is close to one the tool takes
    (``file`` for ``semantic_search``'s ``files``, ``querry``), else ``"without them"``."""
    import difflib

    pairs = []
    for name in unknown:
        near = difflib.get_close_matches(name, sorted(names), n=1, cutoff=0.75)
        if near:
            pairs.append(f"{near[0]} instead of {name}")
    return f"with {', '.join(pairs)}" if len(pairs) == len(unknown) else "without them"


def strict_arguments(server: Any) -> None:
    """Wrap every tool registered on ``server`` (an ``MCPServer``): unknown argument names are
    refused, and argument validation errors are said as :func:`refusal` says them, both as
    ``ToolError``. Call after the last tool is registered."""
    from pagerecall.mcp.sdk import SDK_IMPORT

    with SDK_IMPORT:
        from mcp.server.mcpserver.exceptions import ToolError
    from pydantic import ValidationError

    for tool in server._tool_manager.list_tools():
        model = tool.fn_metadata.arg_model
        names = {f.alias or n for n, f in model.model_fields.items()}
        types = {f.alias or n: f.annotation for n, f in model.model_fields.items()}
        original = tool.run

        def make(tool=tool, names=frozenset(names), types=types, original=original):
            async def run(arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
                unknown = sorted(set(arguments or {}) - names)
                if unknown:
                    takes = f"it takes {', '.join(sorted(names))}" if names else "it takes no arguments"
                    raise ToolError(f"Error executing tool {tool.name}: unknown argument(s) "
                                    f"{', '.join(map(repr, unknown))}; {takes}. Next: call {tool.name} again "
                                    f"{_instead(unknown, names)}.")
                boolean = wrong_json_type(types, arguments)
                if boolean:
                    raise ToolError(f"Error executing tool {tool.name}: {boolean.replace('Next: pass', f'Next: call {tool.name} again with', 1)}")
                try:
                    return await original(arguments, context, convert_result)
                except ToolError as exc:
                    cause = exc.__cause__
                    if isinstance(cause, ValidationError):
                        raise ToolError(f"Error executing tool {tool.name}: {refusal(tool.name, cause)}") from cause
                    raise
            return run

        object.__setattr__(tool, "run", make())
