#!/usr/bin/env python3
"""Compare two NVBench runs: ``python python/scripts/nvbench_compare.py REF CMP [options]``.

A thin wrapper over ``cuda.bench.cli.compare`` (the ``nvbench_compare`` command); see
``--help``. Importable as a module too: ``main(argv)`` returns the exit status.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from cuda.bench.cli import compare as _cli

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; see ``nvbench_compare --help``."""
    return _cli.main(argv)


if __name__ == "__main__":
    sys.exit(_cli.console_main())  # the program itself: tuned for one run (see console_main)
