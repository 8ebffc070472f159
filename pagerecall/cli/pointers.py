"""How the CLI's text output writes a pointer's pages (``search``, ``evidence``, ``related``, ``topics``)."""

from __future__ import annotations


def pages(h: dict) -> str:
    """A pointer's physical pages and, when they differ, its printed page labels: ``p. 5 (printed 3)``,
    ``pp. 1-2 (printed 41-42)`` (``h``: a hit dict with ``page_start``, ``page_end``, 1-based, and
    optional ``label_start`` / ``label_end``). Used by every read command's text output."""
    pages = f"p. {h['page_start']}" if h["page_start"] == h["page_end"] else f"pp. {h['page_start']}-{h['page_end']}"
    ls, le = h.get("label_start"), h.get("label_end")
    if ls:
        printed = ls if (le in (None, ls)) else f"{ls}-{le}"
        if printed != (str(h["page_start"]) if h["page_start"] == h["page_end"] else f"{h['page_start']}-{h['page_end']}"):
            pages += f" (printed {printed})"
    return pages
