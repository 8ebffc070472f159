"""``python -m pagerecall``: the same as the ``pagerecall`` console script."""

import sys

from pagerecall.app import main

if __name__ == "__main__":
    sys.exit(main())
