#!/usr/bin/env python3
"""CLI query and the upstream contract.

``python search_core.py "QUERY" -k N [--json]`` is ``pagerecall search``; importing this module
gives ``search(query, k) -> [{file, page_start, page_end, score, text, ...}]`` (file relative to
the corpus root, pages physical and 1-based).
"""
import sys

from pagerecall.search import search

__all__ = ["search"]

if __name__ == "__main__":
    from pagerecall.app import main

    sys.exit(main(["search", *sys.argv[1:]]))
