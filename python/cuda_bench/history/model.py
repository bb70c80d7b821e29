"""Value types of the history's change-point detection: its input series and its findings."""

from __future__ import annotations

import msgspec
import msgspec.structs
import numpy as np

# At run time too (numpy is loaded here anyway), so that typing.get_type_hints, pydoc and
# inspect.signature resolve the annotations.
from .._arrays import BoolArray, FloatArray, IntArray
from ..compare._status import as_status
from ..compare.model import Status
from ._scan_result import SeriesScan
from ._series_inputs import (
    hash_floats,
    own_confidence,
    own_floats,
    own_labels,
    same_floats,
    same_samples,
)

__all__ = ["Candidate", "ConfirmedChange", "ConfirmedCreep", "Detection", "Event", "RunSeries"]


def _check_samples(key: str, samples: tuple[FloatArray, ...], observed: BoolArray) -> None:
    """Refuse a run's samples that are not finite positive times (a 1-D array, empty
    for none): the confirmation takes their logs, and a negative one failed there with
    "math domain error". A missing run's samples are not read."""
    for run in np.flatnonzero(observed).tolist():
        one = samples[run]
        if one.ndim != 1:
            raise ValueError(f"series {key!r}: run {run}'s samples must be a 1-D array")
        if one.size and not (np.isfinite(one).all() and (one > 0).all()):
            raise ValueError(
                f"series {key!r}: run {run}'s samples hold a value that is no finite positive time"
            )


class RunSeries(msgspec.Struct, frozen=True):
    """One series (a state on one environment): its per-run medians in run order.

    The scan needs only ``medians``. The confirmation of a change by the two-level bootstrap
    (runs, then samples within runs) uses, per run, the ``samples`` when given (all of a
    run's sample times, any order), else the median's interval ``median_lo``..``median_hi``
    at ``interval_confidence`` as normal draws in log space (a run without one has NaN in
    both: it is taken alone), else the runs alone.
    ``labels`` names each run (its commit): a sequence of str (a tuple or list, kept as a
    tuple), one per run; events group changes by the label of the first run of the new
    level (by index when there are no labels).

    A run without a value (a night the benchmark did not run, a state it skipped) is a
    NaN median: it keeps its place and label, and detection works on the other runs
    (:meth:`observed`), reporting changes at the runs' own indices. Every other median
    must be a finite positive time: the detection compares levels as ratios (log
    scale), which no metric with values at or below zero has; a timer's zero (a state
    faster than its resolution) has no ratio either and is a missing run (NaN) too.
    Intervals and samples of a missing run are not read (give NaN and an empty array).

    The arrays hold numbers (a TypeError names the argument otherwise: booleans, text).
    A masked array's masked entries, and ``None`` or ``pandas.NA`` in an object array
    (a pandas column with gaps), are no values: a missing run in ``medians``, no interval
    in ``median_lo``/``median_hi`` (NaN), and left out of a run's ``samples``.

    Series compare by value (``==``: each array by its values, NaN equal to NaN) and hash
    consistently with it (its arrays are read-only copies, so the value cannot change).
    """

    key: str
    medians: FloatArray
    samples: tuple[FloatArray, ...] | None = None
    median_lo: FloatArray | None = None
    median_hi: FloatArray | None = None
    interval_confidence: float = 0.95
    labels: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.key, str):
            raise TypeError(f"key must be text (the series' name), got {self.key!r}")
        # Each array is this series' own read-only copy: the caller's array, kept, could be
        # changed after the checks below (a non-positive median past the check).
        medians = own_floats(self.medians, f"series {self.key!r}: medians")
        if medians.ndim != 1 or not medians.size:
            raise ValueError(f"series {self.key!r}: medians must be a non-empty 1-D array")
        observed = ~np.isnan(medians)
        if not observed.any():
            raise ValueError(f"series {self.key!r}: every run is missing (NaN)")
        bad = observed & ~(np.isfinite(medians) & (medians > 0))
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"series {self.key!r}: run {first} has median {medians[first]!r}; medians are "
                "finite positive times, NaN for a missing run"
            )
        msgspec.structs.force_setattr(self, "medians", medians)
        runs = medians.size
        if self.samples is not None:
            if len(self.samples) != runs:
                raise ValueError(
                    f"series {self.key!r}: {len(self.samples)} sample arrays, {runs} runs"
                )
            samples = tuple(
                own_floats(
                    one,
                    f"series {self.key!r}: run {run}'s samples",
                    keep_float32=True,
                    masked_left_out=True,
                )
                for run, one in enumerate(self.samples)
            )
            _check_samples(self.key, samples, observed)
            msgspec.structs.force_setattr(self, "samples", samples)
        if (self.median_lo is None) != (self.median_hi is None):
            raise ValueError(f"series {self.key!r}: give both median_lo and median_hi, or neither")
        if self.median_lo is not None and self.median_hi is not None:
            lo = own_floats(self.median_lo, f"series {self.key!r}: median_lo")
            hi = own_floats(self.median_hi, f"series {self.key!r}: median_hi")
            if lo.shape != medians.shape or hi.shape != medians.shape:
                raise ValueError(f"series {self.key!r}: median intervals must match the runs")
            held = (lo > 0) & (lo <= medians) & (medians <= hi) & np.isfinite(hi)
            # A run stored without an interval (no side files) has NaN in both.
            without = np.isnan(lo) & np.isnan(hi)
            if not (held | without)[observed].all():
                raise ValueError(
                    f"series {self.key!r}: intervals must hold their positive medians "
                    "(NaN in both for a run without one)"
                )
            msgspec.structs.force_setattr(self, "median_lo", lo)
            msgspec.structs.force_setattr(self, "median_hi", hi)
        confidence = own_confidence(self.interval_confidence, f"series {self.key!r}")
        msgspec.structs.force_setattr(self, "interval_confidence", confidence)
        if self.labels is not None:
            labels = own_labels(self.labels, runs, f"series {self.key!r}")
            msgspec.structs.force_setattr(self, "labels", labels)

    def __eq__(self, other: object) -> bool:
        """Equal by value: the same key, labels and confidence, and arrays of one shape and
        equal values (NaN equal to NaN, a missing run in both; samples compared by value
        whatever their float type)."""
        if not isinstance(other, RunSeries) or type(other) is not type(self):
            return NotImplemented
        return (
            self.key == other.key
            and self.labels == other.labels
            and self.interval_confidence == other.interval_confidence
            and same_floats(self.medians, other.medians)
            and same_floats(self.median_lo, other.median_lo)
            and same_floats(self.median_hi, other.median_hi)
            and same_samples(self.samples, other.samples)
        )

    def __hash__(self) -> int:
        """Consistent with ``==``: from the key and the medians (their read-only copies), so
        a series can be a set member or a dict key; series that differ only in their
        samples, intervals, labels or confidence share a hash."""
        return hash((self.key, hash_floats(self.medians)))

    @property
    def runs(self) -> int:
        return int(self.medians.size)

    @property
    def missing(self) -> int:
        """Runs without a value (NaN medians)."""
        return int(np.isnan(self.medians).sum())

    def observed(self) -> tuple[RunSeries, IntArray]:
        """The series without its missing runs, and the index here of each run it keeps."""
        positions = np.flatnonzero(~np.isnan(self.medians))
        if positions.size == self.runs:
            return self, positions

        def pick(values: FloatArray | None) -> FloatArray | None:
            return None if values is None else values[positions]

        kept = RunSeries(
            key=self.key,
            medians=self.medians[positions],
            samples=None
            if self.samples is None
            else tuple(self.samples[i] for i in positions.tolist()),
            median_lo=pick(self.median_lo),
            median_hi=pick(self.median_hi),
            interval_confidence=self.interval_confidence,
            labels=tuple(self.label(i) for i in positions.tolist()),
        )
        return kept, positions

    def label(self, index: int) -> str:
        """The label of run ``index`` (``#index`` without labels)."""
        return self.labels[index] if self.labels is not None else f"#{index}"


class ConfirmedChange(msgspec.Struct, frozen=True):
    """A change point that passed the false-discovery control and the bootstrap confirmation."""

    series: str
    #: First run of the new level, and its label (commit).
    index: int
    commit: str
    status: Status
    ratio: float
    ratio_lo: float
    ratio_hi: float
    #: Detection p-value (the series' calibrated null) and Benjamini-Hochberg q-value.
    p_value: float
    q_value: float
    #: Runs a side of the statistic that placed it (:class:`.changepoint.Change`'s ``window``).
    window: int
    #: Runs compared on each side (outlying runs left out).
    runs_before: int
    runs_after: int


class Candidate(msgspec.Struct, frozen=True):
    """A change that may be starting: too few runs after it for the scan to place it.

    ``status`` is the direction so far; ``ratio`` the after/before ratio of the runs so far
    with its bootstrap interval (as a confirmed change's); after ``runs_to_decide`` more
    runs the scan tests it as a change and confirms or rejects it.
    """

    series: str
    index: int
    commit: str
    status: Status
    ratio: float
    ratio_lo: float
    ratio_hi: float
    p_value: float
    q_value: float
    runs_before: int
    runs_after: int
    runs_to_decide: int


class ConfirmedCreep(msgspec.Struct, frozen=True):
    """A change that took many runs (a creep), past the false-discovery control and the
    bootstrap confirmation: the level moved from run ``first`` to run ``end`` along a ramp.

    ``ratio`` compares the runs at the new level (from ``end`` to the next change) with
    those at the old one (from the previous change to ``first``), the ramp's runs left out;
    no commit alone made it, so it belongs to no :class:`Event`.
    """

    series: str
    #: First run off the old level and first run at the new one, and their labels.
    first: int
    end: int
    first_commit: str
    end_commit: str
    status: Status
    ratio: float
    ratio_lo: float
    ratio_hi: float
    p_value: float
    q_value: float
    runs_before: int
    runs_after: int


class Event(msgspec.Struct, frozen=True):
    """Changes of one direction at one commit across series."""

    commit: str
    status: Status
    series: tuple[str, ...]
    #: Median ratio over the event's changes and its bootstrap interval.
    ratio: float
    ratio_lo: float
    ratio_hi: float


class Detection(msgspec.Struct, frozen=True):
    """Everything a detection over many series found, with each series' calibration."""

    scans: tuple[tuple[str, SeriesScan], ...]
    changes: tuple[ConfirmedChange, ...]
    events: tuple[Event, ...]
    #: Candidates that the false-discovery control or the confirmation dropped.
    rejected: int
    fdr: float
    tolerance: float
    #: Changes too recent to confirm, at most one per series (the end of the series).
    candidates: tuple[Candidate, ...] = ()
    #: Changes that took many runs, confirmed like changes, in no event.
    creeps: tuple[ConfirmedCreep, ...] = ()
    #: The fewest runs of a series the scan tests (:attr:`.ScanConfig.fewest_runs`); a series
    #: with fewer is not scanned (:attr:`.SeriesScan.scanned`). 0: not told.
    fewest_runs: int = 0

    def too_short(self) -> int:
        """Series with too few runs for the scan to test anything."""
        return sum(1 for _, scan in self.scans if not scan.scanned)

    def change_count(self, status: Status | str) -> int:
        """Confirmed changes of ``status`` (``Status.SLOW`` or its text, ``"SLOW"``)."""
        wanted = as_status(status)
        return sum(1 for change in self.changes if change.status is wanted)
