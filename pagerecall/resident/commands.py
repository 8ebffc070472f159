"""The read commands on a ``Searcher``, as the dicts the CLI prints and the MCP tools shape.

The CLI's in-process path and the resident server both call :func:`run_command`, so both paths
print the same thing (``--json`` output is byte-identical either way).
"""

from __future__ import annotations

from typing import Any


def run_command(searcher: Any, command: str, args: dict) -> dict:
    """One read command on ``searcher``, as the dict the CLI prints (the in-process path calls this
    too, so both paths print the same thing), with the notes it asks for
    (:func:`pagerecall.ledger.read_with_notes`: none unless ``search`` asks ``with_notes`` or a
    ``tag``, or ``files`` a ``tag`` or the index has a ledger; nothing of the notes is imported
    otherwise)."""
    from pagerecall.ledger import read_with_notes

    return read_with_notes(searcher, command, args, run_without_notes)


def run_without_notes(searcher: Any, command: str, args: dict) -> dict:
    """The read command without notes."""
    if command == "search":
        res = searcher.search(args["query"], k=args.get("k", 8), mode=args.get("mode", "hybrid"),
                              files=args.get("files"), deep=bool(args.get("deep"))).to_dict()
        if args.get("rects"):
            from pagerecall.verify import add_rects

            add_rects(searcher.corpus_root(searcher.snapshot()), res["hits"],
                      passwords_file=searcher.settings.passwords_path())
        return res
    if command == "files":
        return searcher.files(args.get("pattern", "*"))
    if command == "info":
        return searcher.info()
    if command == "page":
        return searcher.read_page(args["file"], int(args["page"])).to_dict()
    if command == "verify":
        return searcher.verify_quote(args["quote"], args["file"], args.get("page")).to_dict()
    if command == "check":
        return searcher.check_numbers(args["claim"], args["file"], args["pages"]).to_dict()
    if command == "resolve":
        return searcher.resolve_reference(args["text"], int(args.get("top") or 5))
    if command == "outline":
        return searcher.outline(args["file"])
    if command == "evidence":
        return searcher.evidence(args["query"], int(args["max_tokens"]), files=args.get("files"))
    if command == "view":  # a page image: the PNG travels base64-encoded in the JSON answer
        import base64

        from pagerecall.verify import view_with_searcher

        view = view_with_searcher(searcher, args["file"], int(args["page"]), highlight=args.get("highlight"),
                                  hit=args.get("hit"), dpi=args.get("dpi"))
        return {**view.to_dict(), "png_base64": base64.b64encode(view.png).decode("ascii")}
    from pagerecall.errors import UsageError

    raise UsageError(f"unknown command {command!r}")
