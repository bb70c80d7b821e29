"""What one side of a comparison row measured, and the estimates a decision compares.

:func:`side_evidence` collects, for one state, everything a decision method may consult:

* the timing summaries of the isolated measurement: ``nv/cold/time/gpu/*`` for GPU
  states, ``nv/cpu_only/time/cpu/*`` for CPU-only states (ours: NVIDIA's tool has no
  CPU-only support), with NVBench's conventions applied once, here: a JSON ``null``
  standard deviation or IQR means "infinitely noisy" (+inf), the legacy ``ir/*`` tags
  stand in for ``iqr/*``, and a missing ``stdev/absolute`` is ``stdev/relative * mean``;
* the mean SM clock (``nv/cold/sm_clock_rate/mean``; CPU-only states have none);
* the per-sample side files, behind :class:`BulkData`: nothing is read until a decision
  asks, and what is read is validated, sorted once and cached.

Side files (compare.md §2). A side file that is not recorded, recorded with 0 values,
missing or empty is *unavailable*: decisions fall back to the summaries. One that exists
but holds the wrong number of values, or non-finite or non-positive values, is
*unusable*: the decision step that wanted it answers AMBG instead of silently falling
back. Either case is reported once through the ``warn`` callback, in one line naming the
file. As in NVIDIA's tool, when a state records different counts for its sample times
and its frequencies the two cannot be paired, and both are treated as unavailable.

:func:`estimates` then picks, for the two sides together, the center, relative dispersion
("noise") and interval that the robust decision compares (reference §3.2):

1. *robust* per side: from the summaries when ``min``, ``q1``, ``median``, ``q3`` are
   positive, finite and ordered and an IQR exists (center = median, noise = IQR/median,
   interval = ``[min, q3]``), else from the sample times by nearest-rank quartiles;
2. both sides robust: use them (one side may come from summaries, the other from samples);
3. else, when both sides have a mean: the mean fallback, center = mean, noise =
   ``stdev/mean``, interval ``[max(mean-sd, 0.001*mean, min), min(mean+sd, max)]``
   (the 0.001 floor keeps a huge stdev from reaching zero), only for a finite, non-negative
   stdev;
4. else both sides' median and IQR without intervals (quartiles incomplete, unordered or
   missing on a side whose mean fallback fails too);
5. else each side's mean without an interval (only for the SAME-path checks and display).

An interval is kept only when ``0 < lo <= center <= hi``, all finite.
"""

from __future__ import annotations

import math
import os
import stat
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Protocol

import msgspec

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:
    from .._lazy import numpy as np

from ..results import SideFileError
from ..results._sidecar import FREQS_TAG, TIMES_TAGS, load_float32, resolve_side_file
from ..results._stats import clock_mean, describe
from ._record import PartialRecord
from .bulk import (
    CheckedValues,
    OrderedValues,
    SortedSamples,
    UnusableBulkData,
    checked_frequencies,
    checked_values,
    cycle_products,
    ordered_cycles,
    ordered_times,
    sort_samples,
)
from .model import EvidenceSource, Interval, SideEstimate

if TYPE_CHECKING:
    from ..results import SubBenchmarkState

__all__ = [
    "BulkData",
    "BulkSource",
    "MeasurementKind",
    "SideEvidence",
    "TimingSummaries",
    "Warn",
    "estimates",
    "records_sample_times",
    "side_evidence",
]

#: Receives one-line warnings (a side file that cannot be used, ...).
Warn = Callable[[str], None]


def _ignore(message: str) -> None:
    """Default warning sink of hand-built evidence (tests, synthetic data)."""


class MeasurementKind(str, Enum):
    """Which isolated measurement a state holds: cold GPU, or CPU-only (no GPU, no clock)."""

    GPU = "gpu"
    CPU_ONLY = "cpu_only"

    def __str__(self) -> str:
        return str(self.value)

    @property
    def time_prefix(self) -> str:
        return "nv/cold/time/gpu" if self is MeasurementKind.GPU else "nv/cpu_only/time/cpu"

    @property
    def times_tag(self) -> str:
        """The summary that records the sample-times side file."""
        return TIMES_TAGS[0] if self is MeasurementKind.GPU else TIMES_TAGS[1]

    @property
    def frequencies_tag(self) -> str | None:
        """The summary that records the SM-clock side file (GPU only)."""
        return FREQS_TAG if self is MeasurementKind.GPU else None

    @property
    def clock_tag(self) -> str | None:
        return "nv/cold/sm_clock_rate/mean" if self is MeasurementKind.GPU else None

    @property
    def label(self) -> str:
        return "GPU" if self is MeasurementKind.GPU else "CPU-only"


# ---------------------------------------------------------------------------------------------
# Summaries


class TimingSummaries(msgspec.Struct, frozen=True):
    """The timing summaries of one state in seconds (relative values as fractions).

    ``None`` means absent. The dispersion fields are +inf where NVBench wrote ``null``.
    """

    min: float | None = None
    max: float | None = None
    mean: float | None = None
    stdev_absolute: float | None = None
    stdev_relative: float | None = None
    q1: float | None = None
    median: float | None = None
    q3: float | None = None
    iqr_absolute: float | None = None
    iqr_relative: float | None = None

    @classmethod
    def read(cls, state: SubBenchmarkState, kind: MeasurementKind) -> TimingSummaries:
        """Read the timing summaries of ``state`` for its measurement ``kind``."""
        # A comparison reads these for every state: tag names are built once per kind and
        # the values come in one call, in the order the checks below used to read them
        # (so a file with several bad values reports the same one); absent and null are
        # told apart by a sentinel. The legacy ``ir/*`` tags count only without ``iqr/*``.
        tags = _TIMING_TAGS[kind]
        found = state.get_values(tags[:9], _ABSENT)
        if found[8] is _ABSENT:
            found[8] = state.get_value(tags.ir_absolute, _ABSENT)
        iqr_relative = state.get_value(tags.iqr_relative, _ABSENT)
        if iqr_relative is _ABSENT:
            iqr_relative = state.get_value(tags.ir_relative, _ABSENT)
        found.append(iqr_relative)
        # Floats (nearly every value) pass as they are.
        mean, stdev_absolute, stdev_relative, low, high, q1, median, q3, iqr_abs, iqr_rel = [
            value if type(value) is float else _as_float(value) for value in found
        ]
        # Dispersions: a present null is +inf (see _number).
        if stdev_absolute is None and found[1] is None:
            stdev_absolute = math.inf
        if stdev_relative is None and found[2] is None:
            stdev_relative = math.inf
        if iqr_abs is None and found[8] is None:
            iqr_abs = math.inf
        if iqr_rel is None and found[9] is None:
            iqr_rel = math.inf
        if (
            stdev_absolute is None
            and stdev_relative is not None
            and mean is not None
            and math.isfinite(stdev_relative)
            and math.isfinite(mean)
        ):
            stdev_absolute = stdev_relative * mean
        # Positional: keyword matching costs as much as the rest of the construction.
        return cls(
            low, high, mean, stdev_absolute, stdev_relative, q1, median, q3, iqr_abs, iqr_rel
        )

    def robust(self) -> tuple[float, float, Interval] | None:
        """(center, noise, interval) from the quartile summaries, or ``None`` (§3.2).

        Needs ``min <= q1 <= median <= q3``, all positive and finite, and an IQR (relative,
        or absolute divided by the median).
        """
        low, q1, median, q3 = self.min, self.q1, self.median, self.q3
        if low is None or q1 is None or median is None or q3 is None:
            return None
        if self.iqr_relative is None and self.iqr_absolute is None:
            return None
        isfinite = math.isfinite
        if not (
            isfinite(low)
            and low > 0
            and isfinite(q1)
            and q1 > 0
            and isfinite(median)
            and median > 0
            and isfinite(q3)
            and q3 > 0
        ):
            return None
        if not low <= q1 <= median <= q3:
            return None
        if self.iqr_relative is not None:
            return median, self.iqr_relative, Interval(low, median, q3)
        assert self.iqr_absolute is not None  # checked above
        return median, self.iqr_absolute / median, Interval(low, median, q3)

    @property
    def mean_noise(self) -> float | None:
        """Relative standard deviation: the summary, else ``stdev/absolute / mean``."""
        if self.stdev_relative is not None:
            return self.stdev_relative
        mean, stdev = self.mean, self.stdev_absolute
        if mean is None or stdev is None or mean == 0 or math.isnan(mean):
            return None
        return stdev / mean

    def mean_interval(self) -> Interval | None:
        """``[max(mean-sd, 0.001*mean, min), min(mean+sd, max)]``, or ``None``.

        Needs a finite, non-negative stdev; ``min``/``max`` clamp only when positive and
        finite. The result is ``None`` unless ``0 < lo <= mean <= hi``.
        """
        mean, stdev = self.mean, self.stdev_absolute
        if mean is None or stdev is None or not math.isfinite(stdev) or stdev < 0:
            return None
        lows = [mean - stdev, 0.001 * mean]
        highs = [mean + stdev]
        if self.min is not None and math.isfinite(self.min) and self.min > 0:
            lows.append(self.min)
        if self.max is not None and math.isfinite(self.max) and self.max > 0:
            highs.append(self.max)
        return _valid(Interval(max(lows), mean, min(highs)))


def _valid(interval: Interval | None) -> Interval | None:
    return interval if interval is not None and interval.is_valid else None


def _number(state: SubBenchmarkState, tag: str, *, null_is_inf: bool) -> float | None:
    """A summary's ``value`` as float; ``None`` when absent or not a number.

    A present summary whose value is ``null`` is +inf for dispersions: NVBench writes
    ``null`` where the spread could not be measured, which must not read as "no spread".
    """
    found = state.get_value(tag, _ABSENT)
    return _as_dispersion(found) if null_is_inf else _as_float(found)


#: "No such summary" from :meth:`SubBenchmarkState.get_value` (``None`` is a null value).
_ABSENT: Any = object()
_CLOCK_TAG = "nv/cold/sm_clock_rate/mean"


def _as_float(value: Any) -> float | None:
    """A looked-up value as float: ``None`` when absent, null or text."""
    if value is None or value is _ABSENT or isinstance(value, str):
        return None
    return float(value)


def _as_dispersion(value: Any) -> float | None:
    """Like :func:`_as_float`, but a present ``null`` is +inf (see :func:`_number`)."""
    if value is None:
        return math.inf
    return _as_float(value)


class _TimingTags(NamedTuple):
    """The timing summary tags of one measurement kind."""

    mean: str
    stdev_absolute: str
    stdev_relative: str
    min: str
    max: str
    q1: str
    median: str
    q3: str
    iqr_absolute: str
    ir_absolute: str
    iqr_relative: str
    ir_relative: str


_TIMING_TAGS: dict[MeasurementKind, _TimingTags] = {
    kind: _TimingTags(
        *(f"{kind.time_prefix}/{field.replace('_', '/')}" for field in _TimingTags._fields)
    )
    for kind in MeasurementKind
}


# ---------------------------------------------------------------------------------------------
# Bulk data


class BulkSource(Protocol):
    """Where one family of per-sample values comes from (a side file, or memory)."""

    @property
    def path(self) -> str | None:
        """The resolved file, for display and warnings; ``None`` when there is none."""

    def available(self) -> bool:
        """Values exist: recorded, found and non-empty (checked once, may warn)."""

    def load(self) -> npt.NDArray[Any]:
        """The raw values in sample order; raises :class:`UnusableBulkData`."""


class _ArraySource:
    """Values already in memory (tests, synthetic data, other adapters)."""

    __slots__ = ("_values",)

    def __init__(self, values: npt.ArrayLike) -> None:
        array = np.asarray(values)
        self._values = array if array.dtype == np.float32 else array.astype(np.float64)

    @property
    def path(self) -> str | None:
        return None

    def available(self) -> bool:
        return self._values.size > 0

    def load(self) -> npt.NDArray[Any]:
        return self._values


class _SideFile:
    """A ``--jsonbin`` side file recorded in a state: located once, read once.

    The results layer's resolver locates the recorded name (compare.md §2 order); the file
    is then read here with the recorded count, so that it is located and read once.
    """

    __slots__ = (
        "_count",
        "_frequencies",
        "_recorded",
        "_resolved",
        "_size",
        "_state",
        "_text",
        "_warn",
    )

    def __init__(
        self,
        state: SubBenchmarkState,
        recorded: str,
        count: int,
        *,
        frequencies: bool,
        warn: Warn,
    ) -> None:
        self._state = state
        self._recorded = recorded
        self._count = count
        self._frequencies = frequencies
        self._warn = warn
        self._resolved = False
        #: The located file as text (what pathlib would print), ``None`` when not found.
        self._text: str | None = None
        #: The file's size when the lookup already had it, else ``None``.
        self._size: int | None = None

    def _resolve(self) -> str | None:
        if not self._resolved:
            source = self._state.benchmark.source.path
            if source is not None:
                found = _next_to(source, self._recorded)
                if found is not None:
                    self._text, self._size = found
                else:
                    # The results layer's resolver (compare.md §2 order), given the recorded
                    # name directly: SubBenchmarkState.sample_file would look it up again.
                    located = resolve_side_file(source, self._recorded)
                    self._text = None if located is None else str(located)
            self._resolved = True
        return self._text

    @property
    def path(self) -> str | None:
        return self._resolve()

    def _where(self) -> str:
        what = "SM clock file" if self._frequencies else "sample time file"
        state = self._state
        return f"{what} of {state.benchmark.name} / {state.state_name or '(no axes)'}"

    def available(self) -> bool:
        path = self._resolve()
        if path is None:
            # Name the JSON that records the file: a recorded name such as
            # ``run.json-bin/0.bin`` alone does not say which run's directory lacks it.
            source = self._state.benchmark.source.label
            recorded_in = "" if source is None else f" (recorded in {source})"
            self._warn(
                f"{self._recorded}: {self._where()}{recorded_in} not found; using its summaries"
            )
            return False
        if self._size is not None:
            empty = self._size == 0
        else:
            try:
                empty = os.path.getsize(path) == 0
            except OSError:
                empty = True
        if empty:
            self._warn(f"{path}: {self._where()} is empty; using its summaries")
            return False
        return True

    def load(self) -> npt.NDArray[Any]:
        path = self._resolve()
        if path is None:
            raise UnusableBulkData("not found")
        try:
            values = load_float32(path, self._count)
        except SideFileError as error:
            raise UnusableBulkData(error.problem) from error
        if values is None:
            raise UnusableBulkData("is empty")
        values.flags.writeable = False
        return values


def _next_to(json_path: Path, recorded: str) -> tuple[str, int] | None:
    """``(path, size)`` of a side file found where current NVBench puts it, else ``None``.

    The first rule of :func:`~cuda.bench.results._sidecar.resolve_side_file` (relative to
    the JSON file's directory) with one ``stat`` on strings: a comparison looks up thousands
    of side files and pathlib costs more than the lookup. Only names whose joined text is
    exactly what pathlib would make take this path; ``None`` sends the caller to the full
    resolver, which tries this rule again and then the others.
    """
    if os.sep != "/" or os.altsep is not None or recorded.startswith("/"):
        return None
    if "" in (parts := recorded.split("/")) or "." in parts:
        return None  # pathlib would normalize these; keep its text
    directory = os.path.dirname(str(json_path))
    candidate = directory + recorded if directory.endswith("/") else f"{directory}/{recorded}"
    try:
        status = os.stat(candidate)
    except (OSError, ValueError):
        return None
    return (candidate, status.st_size) if stat.S_ISREG(status.st_mode) else None


_NOT_LOADED: Any = object()


class BulkData:
    """Lazy per-sample data of one side: sample times, SM clock frequencies, cycles.

    Nothing is read at construction. :meth:`has_times` / :meth:`has_frequencies` tell
    whether the data are *available* (see the module docstring); :meth:`times` and
    :meth:`cycles` load, validate and sort on first use and return ``None`` when the data
    are unavailable or *unusable* (then one warning names the file). Results are cached.
    """

    __slots__ = (
        "_checked_frequencies",
        "_checked_times",
        "_cycle_values",
        "_cycles",
        "_frequencies",
        "_frequencies_ok",
        "_sorted_times",
        "_times",
        "_times_ok",
        "_warn",
    )

    def __init__(
        self,
        times: BulkSource | None = None,
        frequencies: BulkSource | None = None,
        *,
        warn: Warn | None = None,
    ) -> None:
        self._times = times
        self._frequencies = frequencies
        self._warn: Warn = _ignore if warn is None else warn
        self._times_ok: bool | None = None
        self._frequencies_ok: bool | None = None
        self._checked_times: CheckedValues | None = _NOT_LOADED
        self._sorted_times: SortedSamples | None = _NOT_LOADED
        self._checked_frequencies: CheckedValues | None = _NOT_LOADED
        self._cycle_values: CheckedValues | None = _NOT_LOADED
        self._cycles: SortedSamples | None = _NOT_LOADED

    @classmethod
    def from_arrays(
        cls,
        times: npt.ArrayLike | None = None,
        frequencies: npt.ArrayLike | None = None,
        *,
        warn: Warn | None = None,
    ) -> BulkData:
        """Bulk data held in memory; an empty or ``None`` array is unavailable."""
        return cls(
            None if times is None else _ArraySource(times),
            None if frequencies is None else _ArraySource(frequencies),
            warn=warn,
        )

    @property
    def sample_file(self) -> str | None:
        return None if self._times is None else self._times.path

    @property
    def frequency_file(self) -> str | None:
        return None if self._frequencies is None else self._frequencies.path

    def has_times(self) -> bool:
        """Sample times are available (they may still turn out unusable when loaded)."""
        if self._times_ok is None:
            self._times_ok = self._times is not None and self._times.available()
        return self._times_ok

    def has_frequencies(self) -> bool:
        """SM clock frequencies are available (they may still turn out unusable)."""
        if self._frequencies_ok is None:
            self._frequencies_ok = self._frequencies is not None and self._frequencies.available()
        return self._frequencies_ok

    def _unusable(self, source: BulkSource | None, what: str, problem: str) -> None:
        where = source.path if source is not None and source.path is not None else what
        self._warn(f"{where}: {problem}; its per-sample data are not used")

    def _times_checked(self) -> CheckedValues | None:
        """The sample times loaded and validated, or ``None`` (one warning names the file
        when they exist but cannot be used)."""
        if self._checked_times is _NOT_LOADED:
            result: CheckedValues | None = None
            if self.has_times():
                assert self._times is not None  # has_times() says so
                try:
                    result = checked_values(self._times.load())
                except UnusableBulkData as error:
                    self._unusable(self._times, "sample times", str(error))
            self._checked_times = result
        return self._checked_times

    def times(self) -> SortedSamples | None:
        """Sample times sorted (float32), or ``None`` when unavailable or unusable."""
        if self._sorted_times is _NOT_LOADED:
            values = self.ordered_times()
            # Validated already: sorting a copy cannot fail.
            self._sorted_times = None if values is None else sort_samples(values)
        return self._sorted_times

    def cycle_values(self) -> npt.NDArray[Any] | None:
        """Cycles per sample (time x frequency, float64) in measurement order, or ``None``.

        ``None`` when times or frequencies are unavailable or unusable, or cannot be
        paired (one warning names the file). The arrays in measurement order stay cached
        with the evidence (the ``ci`` method needs them too); the engine releases them
        (:meth:`release`) once a row is decided.
        """
        checked = self._cycles_checked()
        return None if checked is None else checked.values

    def _cycles_checked(self) -> CheckedValues | None:
        if self._cycle_values is _NOT_LOADED:
            result: CheckedValues | None = None
            frequencies = self._paired_frequencies()
            times = self._times_checked()
            if frequencies is not None and times is not None:
                try:
                    # Checks the products: those of non-float32 factors may overflow.
                    result = cycle_products(times.values, frequencies.values)
                except UnusableBulkData as error:
                    self._unusable(self._frequencies, "SM clock frequencies", str(error))
            self._cycle_values = result
        return self._cycle_values

    def _paired_frequencies(self) -> CheckedValues | None:
        """Frequencies that pair with usable times (:func:`~.bulk.checked_frequencies`), or
        ``None`` (one warning names the file when they exist but cannot be used)."""
        if self._checked_frequencies is _NOT_LOADED:
            result: CheckedValues | None = None
            times = self._times_checked()
            if times is not None and self.has_frequencies():
                assert self._frequencies is not None  # has_frequencies() says so
                try:
                    result = checked_frequencies(times, self._frequencies.load())
                except UnusableBulkData as error:
                    self._unusable(self._frequencies, "SM clock frequencies", str(error))
            self._checked_frequencies = result
        return self._checked_frequencies

    def unsorted_times(self) -> OrderedValues | None:
        """The sample times for tests that need no sort (:func:`~.bulk.unsorted_coverage`),
        or ``None`` when :meth:`times` is ``None``."""
        checked = self._times_checked()
        return None if checked is None else ordered_times(checked, self._sort_times)

    def unsorted_cycles(self) -> OrderedValues | None:
        """The cycles for tests that need no sort, or ``None`` when :meth:`cycles` is ``None``.

        float32 factors (what side files hold) give float32 products without building the
        float64 ones: such products cannot overflow, so they are usable exactly when the
        factors are.
        """
        frequencies = self._paired_frequencies()
        if frequencies is None:
            return None
        times = self._times_checked()
        assert times is not None  # paired frequencies exist
        if times.values.dtype == np.float32 and frequencies.values.dtype == np.float32:
            return ordered_cycles(times, frequencies, self._sort_cycles)
        cycles = self._cycles_checked()
        return None if cycles is None else ordered_times(cycles, self._sort_cycles)

    def _sort_times(self) -> SortedSamples:
        times = self.times()
        assert times is not None  # only asked for once the times were validated
        return times

    def _sort_cycles(self) -> SortedSamples:
        cycles = self.cycles()
        assert cycles is not None  # only asked for once the cycles were validated
        return cycles

    def cycles(self) -> SortedSamples | None:
        """Cycles per sample sorted (see :meth:`cycle_values`), or ``None``."""
        if self._cycles is _NOT_LOADED:
            values = self.cycle_values()
            # A sorted copy: the measurement order stays with cycle_values().
            self._cycles = None if values is None else sort_samples(values)
        return self._cycles

    def ordered_times(self) -> npt.NDArray[Any] | None:
        """Sample times validated, in measurement order (unsorted, as stored), or ``None``
        when they are unavailable or unusable (then one warning names the file).

        What :meth:`times` sorts; what needs no order (the ``ci`` bootstrap, which sorts
        only near the median) or the measurement order (its drift check) takes them so.
        """
        checked = self._times_checked()
        return None if checked is None else checked.values

    def ordered_frequencies(self) -> npt.NDArray[Any] | None:
        """SM clock frequencies in measurement order, or ``None`` when :meth:`cycles` cannot
        be built."""
        if self.cycle_values() is None:
            return None
        frequencies = self._paired_frequencies()
        assert frequencies is not None  # the cycles were built from them
        return frequencies.values

    def release(self) -> None:
        """Drop every loaded array (they are read again if asked for).

        Evidence caches what a decision loaded so that the decision and the estimates of
        a row share one read and one sort; release it once the row is done when many
        rows stay alive.
        """
        self._checked_times = _NOT_LOADED
        self._sorted_times = _NOT_LOADED
        self._checked_frequencies = _NOT_LOADED
        self._cycle_values = _NOT_LOADED
        self._cycles = _NOT_LOADED


_NO_BULK = BulkData()


# ---------------------------------------------------------------------------------------------
# Evidence of one side


class SideEvidence(PartialRecord, frozen=True):
    """Everything a decision method may consult about one side of a row.

    Build it from a state with :func:`side_evidence`, or directly (tests, synthetic data):
    ``SideEvidence(timing=TimingSummaries(...), clock_rate=..., bulk=BulkData.from_arrays(...))``
    or :meth:`from_samples`.
    """

    kind: MeasurementKind = MeasurementKind.GPU
    timing: TimingSummaries = msgspec.field(default_factory=TimingSummaries)
    clock_rate: float | None = None
    sample_count: int | None = None
    is_skipped: bool = False
    skip_reason: str | None = None
    #: ``False`` when the state's ``summaries`` are null or empty.
    has_summaries: bool = True
    bulk: BulkData = msgspec.field(default_factory=BulkData)

    #: Per-sample data load lazily and compare by identity: not part of the evidence's value.
    _ignored: ClassVar[frozenset[str]] = frozenset({"bulk"})

    @property
    def is_cpu_only(self) -> bool:
        return self.kind is MeasurementKind.CPU_ONLY

    @classmethod
    def from_samples(
        cls,
        times: npt.ArrayLike,
        frequencies: npt.ArrayLike | None = None,
        *,
        kind: MeasurementKind = MeasurementKind.GPU,
        bulk: bool = True,
        warn: Warn | None = None,
    ) -> SideEvidence:
        """Evidence of a state NVBench would have written for these samples.

        Summaries are NVBench's statistics of ``times`` (seconds); ``frequencies`` (Hz)
        give the mean SM clock. With ``bulk`` the samples are also the side-file data.
        """
        values = np.asarray(times, dtype=np.float64)
        stats = describe(values)
        clock = None
        if frequencies is not None and kind is MeasurementKind.GPU:
            clock = clock_mean(frequencies)
        timing = TimingSummaries(
            min=stats.min,
            max=stats.max,
            mean=stats.mean,
            stdev_absolute=stats.stdev,
            stdev_relative=stats.relative_stdev,
            q1=stats.q1,
            median=stats.median,
            q3=stats.q3,
            iqr_absolute=stats.iqr,
            iqr_relative=stats.relative_iqr,  # None where NVBench omits it (N < 5)
        )
        data = BulkData()
        if bulk:
            freqs = None if frequencies is None or kind is not MeasurementKind.GPU else frequencies
            data = BulkData.from_arrays(
                np.asarray(times, dtype=np.float32),
                None if freqs is None else np.asarray(freqs, dtype=np.float32),
                warn=warn,
            )
        return cls(
            kind=kind,
            timing=timing,
            clock_rate=clock,
            sample_count=stats.size,
            bulk=data,
        )


def _recorded(state: SubBenchmarkState, tag: str | None) -> tuple[str, int] | None:
    """(filename, count) of a side-file summary, or ``None`` when none is usable."""
    if tag is None or not state.has_summary(tag):
        return None
    filename = state.value(tag, "filename")
    size = state.value(tag, "size")
    if not isinstance(filename, str) or not filename or not isinstance(size, int):
        return None
    return filename, size


def records_sample_times(state: SubBenchmarkState) -> bool:
    """Whether ``state`` records a sample-times side file (without looking for the file)."""
    return any(state.has_summary(tag) for tag in TIMES_TAGS)


def side_evidence(state: SubBenchmarkState, *, warn: Warn) -> SideEvidence:
    """The evidence of one state; side files are only located and read when needed."""
    kind = MeasurementKind.CPU_ONLY if state.is_cpu_only else MeasurementKind.GPU
    has_summaries = bool(state.tags)
    clock = None
    if kind is MeasurementKind.GPU:  # the kind with a clock_tag
        clock = _as_float(state.get_value(_CLOCK_TAG))
    times = _recorded(state, kind.times_tag)
    frequencies = _recorded(state, kind.frequencies_tag)
    for recorded in (times, frequencies):
        if recorded is not None and recorded[1] < 0:
            warn(f"{recorded[0]}: recorded with {recorded[1]} values; using its summaries")
    if times is not None and frequencies is not None and times[1] != frequencies[1]:
        if times[1] > 0 and frequencies[1] > 0:
            warn(
                f"{times[0]}: {times[1]} sample times but {frequencies[1]} SM clock "
                f"frequencies ({frequencies[0]}) recorded for {state.benchmark.name} / "
                f"{state.state_name}; using its summaries"
            )
        # Samples that cannot be paired with their clocks are not trusted either (as
        # NVIDIA's tool does); NVBench's --profile runs record 0 frequencies this way.
        times = frequencies = None
    times_file = (
        None
        if times is None or times[1] <= 0
        else _SideFile(state, *times, frequencies=False, warn=warn)
    )
    frequencies_file = (
        None
        if frequencies is None or frequencies[1] <= 0
        else _SideFile(state, *frequencies, frequencies=True, warn=warn)
    )
    # States without side files (most) share one empty BulkData: it never loads or warns,
    # and whatever it caches is "nothing".
    bulk = (
        _NO_BULK
        if times_file is None and frequencies_file is None
        else BulkData(times_file, frequencies_file, warn=warn)
    )
    # Positional, in field order (built for every state of a comparison).
    return SideEvidence(
        kind,
        TimingSummaries.read(state, kind) if has_summaries else TimingSummaries(),
        clock,
        state.sample_count,
        state.is_skipped,
        state.skip_reason,
        has_summaries,
        bulk,
    )


# ---------------------------------------------------------------------------------------------
# Estimates (reference §3.2)


_Estimate = tuple[float, float | None, Interval | None, EvidenceSource]


def _robust(side: SideEvidence) -> _Estimate | None:
    """Full robust input: from the quartile summaries, else from the sample times."""
    summary = side.timing.robust()
    if summary is not None:
        return (*summary, EvidenceSource.SUMMARY)
    samples = side.bulk.times() if side.bulk.has_times() else None
    if samples is None:
        return None
    return samples.median, samples.noise, samples.interval, EvidenceSource.SAMPLES


def _mean_fallback(side: SideEvidence) -> _Estimate | None:
    """Mean input with a valid interval, or ``None``."""
    interval = side.timing.mean_interval()
    if interval is None:
        return None
    return interval.center, side.timing.mean_noise, interval, EvidenceSource.MEAN


def _median_only(side: SideEvidence) -> _Estimate | None:
    """Median and IQR noise without an interval (quartiles incomplete or unordered)."""
    timing = side.timing
    median = timing.median
    if median is None:
        return None
    if timing.iqr_relative is not None:
        noise: float | None = timing.iqr_relative
    elif timing.iqr_absolute is None:
        return None
    else:
        noise = timing.iqr_absolute / median if median != 0 and not math.isnan(median) else None
    return median, noise, None, EvidenceSource.SUMMARY


def _mean_only(
    side: SideEvidence, *, relative: bool
) -> tuple[float | None, float | None, Interval | None, EvidenceSource]:
    """The mean without an interval; noise from ``stdev/relative`` only when ``relative``."""
    timing = side.timing
    mean, stdev = timing.mean, timing.stdev_absolute
    if relative:
        noise = timing.mean_noise
    elif mean is None or stdev is None or mean == 0 or math.isnan(mean):
        noise = None
    else:
        noise = stdev / mean
    source = EvidenceSource.NONE if mean is None else EvidenceSource.MEAN
    return mean, noise, None, source


def _side_estimate(
    side: SideEvidence,
    estimate: tuple[float | None, float | None, Interval | None, EvidenceSource],
) -> SideEstimate:
    center, noise, interval, source = estimate
    timing, bulk = side.timing, side.bulk
    # Positional, in field order: keyword matching would cost as much as the construction.
    return SideEstimate(
        center,
        noise,
        _valid(interval),
        source,
        timing.mean,
        timing.stdev_relative,
        side.sample_count,
        side.clock_rate,
        side.is_skipped,
        side.skip_reason,
        bulk.sample_file,
        bulk.frequency_file,
    )


def estimates(ref: SideEvidence, cmp: SideEvidence) -> tuple[SideEstimate, SideEstimate]:
    """The (reference, compare) estimates the robust decision compares (module docstring).

    The first of these that both sides can give wins: robust with intervals; mean with
    intervals; median and IQR without intervals; each side's mean without an interval.
    Sample times are loaded only for a side whose summaries cannot give a robust estimate,
    and only while the other side can still be robust.
    """
    ref_robust = _robust(ref)
    cmp_robust = _robust(cmp) if ref_robust is not None else None
    if ref_robust is not None and cmp_robust is not None:
        return _side_estimate(ref, ref_robust), _side_estimate(cmp, cmp_robust)
    ref_mean, cmp_mean = _mean_fallback(ref), _mean_fallback(cmp)
    if ref_mean is not None and cmp_mean is not None:
        return _side_estimate(ref, ref_mean), _side_estimate(cmp, cmp_mean)
    # No comparable intervals: estimates for the SAME-path checks and for display only.
    ref_median = _strip(ref_robust) or _median_only(ref)
    if ref_median is not None:
        if ref_robust is None:
            cmp_robust = _robust(cmp)
        cmp_median = _strip(cmp_robust) or _median_only(cmp)
        if cmp_median is not None:
            return _side_estimate(ref, ref_median), _side_estimate(cmp, cmp_median)
    # Means: with NVBench's relative stdev when both sides have one, else each side alone.
    both = ref.timing.mean is not None and cmp.timing.mean is not None
    return (
        _side_estimate(ref, _mean_only(ref, relative=both)),
        _side_estimate(cmp, _mean_only(cmp, relative=both)),
    )


def _strip(estimate: _Estimate | None) -> _Estimate | None:
    """The estimate without its interval (intervals count only when both sides have one)."""
    return None if estimate is None else (estimate[0], estimate[1], None, estimate[3])
