#!/usr/bin/env python3
"""Full build of an index from a corpus folder: ``python build_index.py CORPUS [--index DIR]``.

Thin entry point; the logic lives in ``pagerecall.ingest.pipeline``. Same as ``pagerecall build``.
"""
import sys

from pagerecall.app import main

if __name__ == "__main__":
    sys.exit(main(["build", *sys.argv[1:]]))
