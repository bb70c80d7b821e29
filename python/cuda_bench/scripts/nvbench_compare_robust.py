"""``python -m cuda.bench.scripts.nvbench_compare_robust``: NVIDIA's module name for
:mod:`cuda.bench.cli.compare_robust` (see :mod:`cuda.bench.scripts`)."""

import sys

from ..cli.compare_robust import console_main as _run
from ..cli.compare_robust import main as main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(_run())
