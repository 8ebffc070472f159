"""``python -m pagerecall``: the same as the ``pagerecall`` console script."""

import sys

if __name__ == "__main__":
    try:
        from pagerecall.app import main
    except KeyboardInterrupt:  # Ctrl-C while Python loads pagerecall itself (before: a traceback)
        sys.stderr.write("pagerecall: interrupted before the command began; nothing was changed\n")
        sys.exit(130)
    sys.exit(main())
