"""``python -m cuda.bench.compare``: the same program as ``nvbench_compare``."""

import sys

from ..cli.compare import console_main

sys.exit(console_main())
