#!/usr/bin/env python3
"""Guarded full rebuild: ``python rebuild.py [--json]`` (new generation, verify, swap).

Thin entry point; same as ``pagerecall rebuild``. The live index keeps serving until the new
generation is verified; ``pagerecall rollback`` returns to the previous one.
"""
import sys

from pagerecall.app import main

if __name__ == "__main__":
    sys.exit(main(["rebuild", *sys.argv[1:]]))
