"""``python -m pagerecall``: the same as the ``pagerecall`` console script."""

import sys

from pagerecall._client import main

sys.exit(main())
