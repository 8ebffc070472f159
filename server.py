#!/usr/bin/env python3
"""MCP server: ``python server.py`` (stdio) or ``python server.py --http [--port N]``.

Thin entry point; same as ``pagerecall serve``.
"""
import sys

from pagerecall.app import main

if __name__ == "__main__":
    sys.exit(main(["serve", *sys.argv[1:]]))
