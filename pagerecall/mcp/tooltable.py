"""The MCP tools without the SDK: what :mod:`pagerecall.mcp.front` runs before the SDK is loaded.

:func:`pagerecall.mcp.server.create_server` with ``sdk=False`` defines the same tool functions
(the same bodies, signatures and bounds) on a :class:`ToolTable` instead of an ``MCPServer``;
:meth:`ToolTable.call` validates a call's arguments against the function's signature (pydantic,
lax mode, as the SDK does) and runs it with :data:`pagerecall.mcp.budget.PLAIN_RESULTS` set, so a
successful call's result is the wire's JSON object. An argument out of the bounds of
:func:`pagerecall.mcp.bounds.check_args` (an over-long query, ``k`` 0) is refused here, in the SDK's
words (:func:`pagerecall.mcp.protocol_mirror.tool_error`), without loading it. Anything else (unknown
tool, arguments that do not validate, a tool error) returns None: the front then hands the call to
the SDK, which answers it as it always did. The ledger's tools and
``view_page`` are not in the table.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)


class ToolTable:
    """Records tool functions the way ``MCPServer.tool`` registers them (name = function name)."""

    def __init__(self) -> None:
        self.tools: dict[str, Callable[..., Any]] = {}
        self._validated: dict[str, Callable[..., Any]] = {}
        self._hints: dict[str, dict[str, Any] | None] = {}  # tool name -> its argument types (None: unreadable)

    def tool(self, description: str | None = None, annotations: Any = None, structured_output: bool | None = None):
        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            self.tools[fn.__name__] = fn
            return fn

        return register

    def call(self, name: str, arguments: dict | None) -> dict | None:
        """The wire result of tool ``name`` called with ``arguments`` (a JSON object), or None when
        the SDK must answer instead (see the module docstring). Runs in the calling thread."""
        from pydantic import ValidationError, validate_call

        from pagerecall.mcp.budget import PLAIN_RESULTS, Refusal
        from pagerecall.mcp.protocol_mirror import tool_error

        fn = self.tools.get(name)
        if fn is None or not isinstance(arguments, (dict, type(None))):
            return None
        if _json_type_refused(fn, arguments, self._hints):
            return None  # true/false where a number goes, or not true/false where a flag goes: the SDK refuses it
        run = self._validated.get(name)
        if run is None:
            run = self._validated[name] = validate_call(fn)
        token = PLAIN_RESULTS.set(True)
        try:
            result = run(**(arguments or {}))
        except (ValidationError, TypeError):
            return None
        except Refusal as exc:  # an argument out of bounds: refused at once, as the SDK words it
            return tool_error(name, str(exc))
        except Exception as exc:  # noqa: BLE001 - a tool error: the SDK answers it in its words
            log.debug("%s left to the SDK: %s", name, exc)
            return None
        finally:
            PLAIN_RESULTS.reset(token)
        return result if isinstance(result, dict) else None


def _json_type_refused(fn: Callable[..., Any], arguments: dict | None, cache: dict) -> bool:
    """True when an argument's JSON type is one the SDK refuses though lax validation would convert it
    (:func:`pagerecall.mcp.arguments.wrong_json_type`: a boolean where ``fn`` takes a number, a
    non-boolean where it takes true/false), or when ``fn``'s types cannot be read. ``cache``: tool
    name -> its types, filled here."""
    import typing

    from pagerecall.mcp.arguments import wrong_json_type

    if not arguments:
        return False
    if fn.__name__ not in cache:
        try:
            cache[fn.__name__] = typing.get_type_hints(fn, include_extras=True)
        except Exception:  # noqa: BLE001 - unreadable types: let the SDK judge the call
            cache[fn.__name__] = None
    hints = cache[fn.__name__]
    return hints is None or wrong_json_type(hints, arguments) is not None
