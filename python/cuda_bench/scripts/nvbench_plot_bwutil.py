"""``python -m cuda.bench.scripts.nvbench_plot_bwutil``: NVIDIA's module name for
:mod:`cuda.bench.cli.plot_bwutil` (see :mod:`cuda.bench.scripts`)."""

import sys

from ..cli.plot_bwutil import main as _run
from ..cli.plot_bwutil import main as main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(_run())
