"""The gate's inputs and its comparison's labels: stored samples fit to use, reading the
reference runs built on tonight's file, and the reference named after the archive.

Helpers of :mod:`.gate` in a module of their own (it would pass the 600 lines a module
may have).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import msgspec
import numpy as np

if TYPE_CHECKING:
    from ..compare.model import Comparison, Row
    from ..results._schema import Summary
    from ..results._tools_api import BenchmarkResult

__all__ = [
    "from_samples",
    "quiet_format_warnings",
    "refuse_states_twice",
    "relabelled",
    "usable_samples",
]


def usable_samples(
    sampled: tuple[Any, ...] | None,
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any] | None] | None:
    """A samples row's times and clocks, or ``None`` where they are no samples (none, not
    finite and positive, clocks of another count: a damaged or crafted file), checked as
    the comparison checks side files (:mod:`..compare.bulk`): the run's stored summaries
    stand in, as for a run archived without samples."""
    from ..compare.bulk import UnusableBulkData, checked_frequencies, checked_values

    if sampled is None or sampled[0] is None:
        return None
    times = np.asarray(sampled[0], dtype=np.float32)
    try:
        checked = checked_values(times)
    except UnusableBulkData:
        return None
    if sampled[1] is None:
        return times, None
    clocks = np.asarray(sampled[1], dtype=np.float32)
    try:
        checked_frequencies(checked, clocks)
    except UnusableBulkData:
        return times, None
    return times, clocks


def from_samples(
    times: np.ndarray[Any, Any], clocks: np.ndarray[Any, Any] | None, cpu_only: bool, default: Any
) -> list[Summary]:
    from ..results import _stats

    walltime = float(np.sum(times, dtype=np.float64))
    if cpu_only:
        return _stats.cpu_only_summaries(times, walltime=walltime)
    use_clocks = clocks is not None and default is not None
    return _stats.cold_summaries(
        times,
        times,
        walltime=walltime,
        frequencies=clocks if use_clocks else None,
        default_clock_rate=float(default) if use_clocks else None,
    )


@contextlib.contextmanager
def quiet_format_warnings() -> Iterator[None]:
    """Reading a reference run built on tonight's file (:func:`.gate._references`): what the
    reader says of its layout (a benchmark twice) it said of tonight's file, by name."""
    from ..results._tools_api import NVBenchFormatWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NVBenchFormatWarning)
        yield


def relabelled(
    comparison: Comparison, rows: tuple[Row, ...], names: Sequence[str], label: str
) -> Comparison:
    """``comparison`` with ``rows``, the reference runs named ``names``
    (:func:`._gate_names.reference_names`), and the comparison's per-run warnings about
    states a shorter level lacks left out (those states use the runs their level has,
    which is the design)."""
    from ..compare.model import InputPair

    # The reference runs are built on tonight's file (_references): what the comparison says
    # of their state names it says of tonight's, whose own warning is kept. Which lines are
    # the reference side's the engine says (never the text: it quotes the file's names).
    reference = frozenset(comparison.reference_warnings)
    kept = tuple(line for line in comparison.warnings if line not in reference)
    return msgspec.structs.replace(
        comparison,
        rows=rows,
        inputs=(InputPair(tuple(names), (label,)),),
        warnings=kept,
        reference_warnings=(),
    )


def refuse_states_twice(label: str, result: BenchmarkResult) -> None:
    """Refuse tonight's run when it holds one state twice (the same benchmark, device and
    state name): the archive's series hold one row per state and run, so the gate cannot say
    which of the two the level is to judge, and ``ingest`` refuses the same file; or when
    ingest would refuse its devices (:func:`._run_checks.device_problem`)."""
    from ._run_checks import ArchiveError, device_problem, repeated_state, state_twice

    repeated = repeated_state(result)
    if repeated is not None:
        raise ArchiveError(f"{label}: {state_twice(repeated[1])}")
    # A run whose devices ingest would refuse: the comparison stopped on it naming no file
    # (its reference, built from the archive, has no label).
    problem = device_problem(result)
    if problem is not None:
        raise ArchiveError(f"{label}: {problem}")
