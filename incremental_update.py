#!/usr/bin/env python3
"""Apply what changed on disk: ``python incremental_update.py [--dry-run] [--json]``.

Thin entry point; same as ``pagerecall update``. Exit 0 on success, 1 on an error, 2 on usage.
"""
import sys

from pagerecall.app import main

if __name__ == "__main__":
    sys.exit(main(["update", *sys.argv[1:]]))
