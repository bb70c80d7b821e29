"""``python -m cuda.bench.scripts.nvbench_json_summary``: NVIDIA's module name for
:mod:`cuda.bench.cli.json_summary` (see :mod:`cuda.bench.scripts`)."""

import sys

from ..cli.json_summary import main as _run
from ..cli.json_summary import main as main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(_run())
