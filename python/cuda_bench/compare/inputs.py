"""Turning what a caller names as an input into a loaded result (shared by
:func:`~.api.compare` and :func:`~.calibrate.calibrate`)."""

from __future__ import annotations

import os

from ..results import BenchmarkResult

__all__ = ["Source", "load_result"]

#: One input: a path to an NVBench JSON file (or directory of them), or a loaded result.
Source = str | os.PathLike[str] | BenchmarkResult


def load_result(source: Source, *, lazy: bool = True) -> BenchmarkResult:
    """A loaded result: ``source`` itself, or the file it names (``lazy`` as for
    :class:`~cuda.bench.results.BenchmarkResult`)."""
    if isinstance(source, BenchmarkResult):
        return source
    # A state whose sample and frequency counts differ is compared from its summaries
    # (with a warning), not refused with its whole file.
    return BenchmarkResult(source, lazy=lazy, check_counts=False)
