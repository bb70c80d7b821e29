#!/usr/bin/env python3
"""NVBench-style markdown result tables from an NVBench JSON file.

Keeps the script-level names of NVIDIA's ``nvbench_json_summary.py`` (``format_result``,
``format_summary``, ``format_axis_value``, ``main``) as thin wrappers over
``cuda.bench.report``; the command-line behaviour is ``nvbench-json-summary``'s. Runs as
``python python/scripts/nvbench_json_summary.py result.json`` and imports as a module.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence

from cuda.bench.cli import json_summary as _cli
from cuda.bench.report import format as _format
from cuda.bench.report import summary as _summary
from cuda.bench.results import (
    BenchmarkAxis,
    BenchmarkResult,
    BenchmarkResultSummary,
    StateAxisValue,
)

__all__ = ["format_axis_value", "format_result", "format_summary", "main"]


def format_result(result: BenchmarkResult) -> str:
    """The ``# Benchmark Results`` markdown NVBench prints for ``result``."""
    return _summary.render_markdown(result)


def format_summary(summary: BenchmarkResultSummary) -> str:
    """The table cell of one summary, formatted by its hint."""
    return _format.format_summary(summary)


def format_axis_value(
    axis_value: StateAxisValue, axes_by_name: Mapping[str, BenchmarkAxis] | None = None
) -> str:
    """The table cell of one axis value.

    The ``pow2`` flag comes from the axis definition in ``axes_by_name`` (an axis missing
    there is plain); without ``axes_by_name`` the flags the reader attached are used.
    """
    flags = None
    if axes_by_name is not None:
        axis = axes_by_name.get(axis_value.name)
        flags = axis.flags if axis is not None else ""
    return _format.format_axis_value(axis_value, _format.AxisStyle.TABLE, flags=flags)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; see ``nvbench-json-summary --help``."""
    return _cli.main(argv)


if __name__ == "__main__":
    sys.exit(main())
