"""Turning what a caller names as an input into a loaded result (shared by
:func:`~.api.compare` and :func:`~.calibrate.calibrate`)."""

from __future__ import annotations

import os

from ..results import BenchmarkResult, ReadMode

__all__ = ["Source", "load_result"]

#: One input: a path to an NVBench JSON file (or directory of them), or a loaded result.
Source = str | os.PathLike[str] | BenchmarkResult


def load_result(source: Source, *, mode: ReadMode = ReadMode.LAZY) -> BenchmarkResult:
    """A loaded result: ``source`` itself, or the file it names, read in ``mode``."""
    if isinstance(source, BenchmarkResult):
        return source
    # A state whose sample and frequency counts differ is compared from its summaries
    # (with a warning), not refused with its whole file.
    return BenchmarkResult(source, mode=mode, check_counts=False)
