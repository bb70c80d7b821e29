#!/usr/bin/env python3
"""Where the wall time of NVBench runs went; see ``nvbench-walltime --help``.

A thin wrapper over :mod:`cuda.bench.report.walltime`, runnable as
``python python/scripts/nvbench_walltime.py result.json [dir/ ...]`` and importable.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from cuda.bench.cli import walltime as _cli

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    return _cli.main(argv)


if __name__ == "__main__":
    sys.exit(main())
