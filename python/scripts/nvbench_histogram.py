#!/usr/bin/env python3
"""Distributions of NVBench per-sample times; see ``nvbench-histogram --help``.

A thin wrapper over :mod:`cuda.bench.cli.histogram`, runnable as
``python python/scripts/nvbench_histogram.py ref.json cmp.json -o hist.png`` and importable:
``main(argv)`` returns the exit status.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from cuda.bench.cli import histogram as _cli

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    return _cli.main(argv)


if __name__ == "__main__":
    sys.exit(main())
