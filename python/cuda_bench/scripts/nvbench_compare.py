"""``python -m cuda.bench.scripts.nvbench_compare``: NVIDIA's module name for
:mod:`cuda.bench.cli.compare_legacy` (see :mod:`cuda.bench.scripts`)."""

import sys

from ..cli.compare_legacy import console_main as _run
from ..cli.compare_legacy import main as main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(_run())
