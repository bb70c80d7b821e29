"""``python -m cuda.bench.scripts.nvbench_walltime``: NVIDIA's module name for
:mod:`cuda.bench.cli.walltime` (see :mod:`cuda.bench.scripts`)."""

import sys

from ..cli.walltime import main as _run
from ..cli.walltime import main as main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(_run())
