"""``python -m cuda.bench.scripts.nvbench_histogram``: NVIDIA's module name for
:mod:`cuda.bench.cli.histogram` (see :mod:`cuda.bench.scripts`)."""

import sys

from ..cli.histogram import main as _run
from ..cli.histogram import main as main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(_run())
