"""``python -m cuda.bench.compare``: the same program as ``nvbench_compare``."""

import sys

from ..cli.compare import main

sys.exit(main())
