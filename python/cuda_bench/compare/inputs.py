"""Turning what a caller names as an input into a loaded result (shared by
:func:`~.api.compare` and :func:`~.calibrate.calibrate`)."""

from __future__ import annotations

import os
from collections.abc import Sequence

from ..results._tools_api import BenchmarkResult, FileOutline, ReadMode
from .workers import fork_map

__all__ = ["Source", "load_result", "read_side_by_side"]

#: One input: a path to an NVBench JSON file (or directory of them), or a loaded result.
Source = str | os.PathLike[str] | BenchmarkResult


def load_result(source: Source, *, mode: ReadMode = ReadMode.LAZY) -> BenchmarkResult:
    """A loaded result: ``source`` itself, or the file it names, read in ``mode``."""
    if isinstance(source, BenchmarkResult):
        return source
    # A state whose sample and frequency counts differ is compared from its summaries
    # (with a warning), not refused with its whole file.
    return BenchmarkResult(source, mode=mode, check_counts=False)


def read_side_by_side(paths: Sequence[str]) -> list[BenchmarkResult]:
    """The files ``paths`` read benchmark by benchmark (as :func:`load_result` reads them),
    their first passes made side by side: the first file's here, each other's in a forked
    child (where :func:`~.workers.fork_map` forks), which sends back only the file's
    outline (:class:`~cuda.bench.results.FileOutline`).

    The checks and warnings of the reader are made here, file by file in order, as
    :func:`load_result` makes them; a file without an outline (one the first pass
    refuses) is read here, which words its problem.
    """
    reads = fork_map(_first_passes, [[(path, index == 0)] for index, path in enumerate(paths)])
    return [_result(path, read) for path, [read] in zip(paths, reads, strict=True)]


def _first_passes(
    files: Sequence[tuple[str, bool]],
) -> list[BenchmarkResult | FileOutline | None]:
    """Each file read here, or (``False``: for another process) its outline."""
    return [
        load_result(path, mode=ReadMode.BY_BENCHMARK) if here else FileOutline.read(path)
        for path, here in files
    ]


def _result(path: str, read: BenchmarkResult | FileOutline | None) -> BenchmarkResult:
    """The result of ``path`` from what :func:`_first_passes` gave for it."""
    if isinstance(read, BenchmarkResult):
        return read
    if read is None:  # no outline: read here, which words the problem
        return load_result(path, mode=ReadMode.BY_BENCHMARK)
    return BenchmarkResult.from_outline(read, check_counts=False)
