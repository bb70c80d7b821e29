"""The per-sample data the archive takes from one state: its ``--jsonbin`` side files
validated as the comparison validates them (:mod:`cuda.bench.compare.bulk`).

The comparison does not use the samples of a side file that exists but holds a zero, a
negative or a non-finite value (and says so in one line naming the file); the ingest did
use them, for the stored median, its interval and the cycles, and with ``--samples`` stored
them, NaN included. Both tools now take the same side files: an unusable sample-times file
leaves the state to its summaries, as a state without side files; an unusable SM-clock file
leaves the state without cycles; each is named in one warning line. So does a sample-times
file whose smallest or largest time is not the state's recorded min or max (samples of
another state or run: :func:`~cuda.bench.compare.bulk.check_recorded_summaries`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from .._untrusted import shortened_numbers
from ..compare.bulk import (
    UnusableBulkData,
    check_recorded_summaries,
    checked_frequencies,
    checked_values,
    cycle_products,
    recorded_count_line,
    unusable_samples_line,
)
from ..compare.evidence import recorded_sample_summaries, sample_times_without_values
from ..results._errors import OutsideSideFileError, SideFileError
from ._names import display_state_name

if TYPE_CHECKING:
    from pathlib import Path

    import numpy as np

    from ..results._tools_api import SubBenchmarkState

__all__ = ["StateSamples", "state_label", "usable_samples"]


class StateSamples(NamedTuple):
    """The usable per-sample data of one state (``None``: none the archive can use)."""

    #: Sample times in measurement order (float32, as the side file holds them).
    times: np.ndarray[Any, Any] | None
    #: SM clocks paired with :attr:`times` (float32).
    clocks: np.ndarray[Any, Any] | None
    #: time x clock per sample (float64), as the comparison forms them.
    cycles: np.ndarray[Any, Any] | None
    #: One warning line naming a side file that exists but is not used, else ``None``.
    problem: str | None


_NONE = StateSamples(None, None, None, None)


def state_label(state: SubBenchmarkState) -> str:
    """``benchmark 'B' device N state 'S'``, as the ingest's lines name a state."""
    where = f"device {state.device} " if state.device is not None else ""
    # A value of 400 digits (a crafted file) would fill the line: shortened.
    shown = shortened_numbers(display_state_name(state.name()))
    return f"benchmark {state.benchmark.name!r} {where}state {shown!r}"


def _refused(state: SubBenchmarkState, error: SideFileError) -> SideFileError:
    """``error`` with the result file and the state named first (the run is refused)."""
    return SideFileError(
        state.benchmark.source.label, f"{state_label(state)}: {error}; nothing written"
    )


def _not_used(state: SubBenchmarkState, path: Path | None, error: Exception, then: str) -> str:
    # The comparison's own words (the file as the user would spell it), then what the
    # archive does instead.
    source = state.benchmark.source
    where = path if path is None else source.named(source.shown(path))
    return f"{unusable_samples_line(where, error)}: {state_label(state)} {then}"


def usable_samples(state: SubBenchmarkState, *, clocks: bool = True) -> StateSamples:
    """The side-file data of ``state`` the archive may use; without ``clocks`` the SM-clock
    file is not read (the median check needs the times only).

    A side file of the wrong size still raises the results layer's ``SideFileError``
    (refused, as before), its line naming the result file and the state before the side
    file (it named the side file alone); one that is recorded but missing or empty gives
    ``None`` here, and one recorded with 0 values a line saying so, in the comparison's
    words (:func:`~cuda.bench.compare.bulk.recorded_count_line`).
    """
    try:
        times = state.samples
    except OutsideSideFileError as error:
        # Not read, whatever is there (results._sidecar): as for a missing side file, the
        # state is archived from its summaries, and the line says why.
        return StateSamples(
            None, None, None, f"{error}: {state_label(state)} is archived from its summaries"
        )
    except SideFileError as error:
        raise _refused(state, error) from error
    if times is None and (name := sample_times_without_values(state)) is not None:
        # Not "missing or empty": the side file is there, its record is what is wrong.
        line = recorded_count_line(name, 0)
        problem = f"{line}: {state_label(state)} is archived from its summaries"
        return StateSamples(None, None, None, problem)
    if times is None or not times.size:
        return _NONE
    try:
        checked = checked_values(times)
        # Samples of another state or run (a copied folder) would give the state a stored
        # median its summaries contradict: the comparison leaves them out too.
        check_recorded_summaries(checked, *recorded_sample_summaries(state))
    except UnusableBulkData as error:
        problem = _not_used(state, state.sample_file, error, "is archived from its summaries")
        return StateSamples(None, None, None, problem)
    try:
        frequencies = None if state.is_cpu_only or not clocks else state.frequencies
    except OutsideSideFileError as error:
        return StateSamples(
            times, None, None, f"{error}: {state_label(state)} is archived without cycles"
        )
    except SideFileError as error:
        raise _refused(state, error) from error
    if frequencies is None:  # (a count unlike the times' raised SideFileError, above)
        return StateSamples(times, None, None, None)
    try:
        products = cycle_products(times, checked_frequencies(checked, frequencies).values)
    except UnusableBulkData as error:
        problem = _not_used(state, state.frequency_file, error, "is archived without cycles")
        return StateSamples(times, None, None, problem)
    return StateSamples(times, frequencies, products.values, None)
