"""``pagerecall ui``: a small local web page over the search core.

A Starlette app served by uvicorn (both come with the MCP SDK) on **127.0.0.1 only**, with plain
HTML, CSS and JavaScript shipped as package data (``pagerecall/ui/static``): no build step, nothing
fetched from the internet. One warm :class:`~pagerecall.search.Searcher` answers every request, so a
search costs what the CLI's warm path (the resident server) costs.

Routes (all read-only, GET)::

    /                    the page (static/index.html)
    /static/<name>       app.js, app.css
    /api/files           library_files("*")
    /api/search          q, mode, k, file (repeatable), deep  -> SearchResult.to_dict()
    /api/view            file, page, hit | highlight, dpi     -> PageView.to_dict() + png (base64), untinted:
                                                                 the page draws the boxes itself
    /api/verify          quote, file, page                    -> QuoteCheck.to_dict() (with rects)

Errors come back as ``{"error": message}`` with 400 (bad input), 404 (no such file/page/hit), 503
(no index) or 500. Requests whose ``Host`` is not the loopback name are refused (DNS rebinding).
"""

from __future__ import annotations

import logging
from importlib import resources
from typing import Any

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
STATIC_FILES = {"index.html": "text/html", "app.js": "text/javascript", "app.css": "text/css"}


def create_app(searcher: Any) -> Any:
    """The Starlette app over ``searcher`` (a :class:`~pagerecall.search.Searcher`)."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    from pagerecall.errors import (
        IndexNotFoundError,
        PagerecallError,
        PathOutsideCorpusError,
        SourceNotFoundError,
        UsageError,
    )
    from pagerecall.search.commands import run_read
    from pagerecall.search.limits import UI_DEFAULT_K

    def static(name: str) -> Response:
        data = resources.files(__package__).joinpath("static", name).read_bytes()
        return Response(data, media_type=STATIC_FILES[name] + "; charset=utf-8",
                        headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"})

    def guarded(fn):
        def endpoint(request: Request) -> Response:
            try:
                return JSONResponse(fn(request.query_params))
            except SourceNotFoundError as exc:  # before UsageError: a missing file or page is a 404
                return JSONResponse({"error": str(exc)}, status_code=404)
            except (PathOutsideCorpusError, UsageError) as exc:
                return JSONResponse({"error": str(exc)}, status_code=400)
            except IndexNotFoundError as exc:
                return JSONResponse({"error": str(exc)}, status_code=503)
            except PagerecallError as exc:
                return JSONResponse({"error": str(exc)}, status_code=500)
            except (KeyError, ValueError) as exc:
                return JSONResponse({"error": f"bad request: {exc}"}, status_code=400)
            except Exception as exc:  # noqa: BLE001 - the page shows it; the log has the traceback
                log.exception("ui request failed")
                return JSONResponse({"error": f"internal error: {type(exc).__name__}: {exc}"}, status_code=500)

        return endpoint

    def _int(q: Any, key: str, default: int | None = None) -> int | None:
        v = q.get(key)
        if v in (None, ""):
            return default
        try:
            return int(v)
        except ValueError:
            raise UsageError(f"{key} must be a whole number, got {v!r}. Next: pass {key} as digits") from None

    def api_files(q: Any) -> dict:
        return run_read(searcher, "files", {"pattern": "*"})

    def api_search(q: Any) -> dict:
        files = [f for f in q.getlist("file") if f]
        return run_read(searcher, "search", {"query": q.get("q", ""), "k": _int(q, "k", UI_DEFAULT_K),
                                             "mode": q.get("mode") or "hybrid", "files": files or None,
                                             "deep": q.get("deep") in ("1", "true", "on")})

    def api_view(q: Any) -> dict:
        dpi = q.get("dpi")
        d = run_read(searcher, "view", {"file": q["file"], "page": _int(q, "page"),
                                        "highlight": q.get("highlight") or None, "hit": q.get("hit") or None,
                                        "dpi": float(dpi) if dpi else None, "tint": False})
        d["png"] = d.pop("png_base64")  # the page's script reads "png"
        return d

    def api_verify(q: Any) -> dict:
        return run_read(searcher, "verify", {"quote": q.get("quote", ""), "file": q["file"], "page": _int(q, "page")})

    routes = [
        Route("/", lambda request: static("index.html")),
        Route("/static/{name}", lambda request: static(request.path_params["name"])
              if request.path_params["name"] in STATIC_FILES else Response("not found", 404)),
        Route("/api/files", guarded(api_files)),
        Route("/api/search", guarded(api_search)),
        Route("/api/view", guarded(api_view)),
        Route("/api/verify", guarded(api_verify)),
    ]
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=[HOST, "localhost"])]
    return Starlette(routes=routes, middleware=middleware)


def serve_ui(settings: Any, port: int = 8766, *, ready: Any = None) -> None:
    """Serve the web page on ``127.0.0.1:port`` until stopped (Ctrl-C). Never binds another
    interface. The index and the model load in the background from the start. ``ready``: a
    callable given the actual port once listening (``port=0`` picks a free one; tests).
    Raises ``UsageError`` for a port outside 0-65535."""
    import socket

    import uvicorn

    from pagerecall.errors import UsageError
    from pagerecall.search.searcher import Searcher

    if not 0 <= int(port) <= 65535:
        raise UsageError(f"port must be in 0-65535, got {port}. Next: pagerecall ui --port 8766")
    # the port first, the model after: a refusal while onnxruntime creates its session in the
    # background ended the process with "terminate called without an active exception" (exit 134)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, int(port)))
    except OSError as exc:
        sock.close()
        raise UsageError(f"cannot listen on {HOST}:{port} ({exc.strerror}). Next: pagerecall ui --port OTHER") from None
    searcher = Searcher(settings)
    searcher.preload(open_index=True)
    app = create_app(searcher)
    actual = sock.getsockname()[1]
    log.warning("pagerecall ui: http://%s:%d/ (index %s; Ctrl-C stops)", HOST, actual, settings.index_dir)
    if ready is not None:
        ready(actual)
    config = uvicorn.Config(app, log_level="warning", access_log=False)
    uvicorn.Server(config).run(sockets=[sock])
