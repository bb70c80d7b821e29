"""What one side of a comparison row measured.

:func:`side_evidence` collects, for one state, everything a decision method may consult:

* the timing summaries of the isolated measurement: ``nv/cold/time/gpu/*`` for GPU
  states, ``nv/cpu_only/time/cpu/*`` for CPU-only states (ours: NVIDIA's tool has no
  CPU-only support), with NVBench's conventions applied once, here: a JSON ``null``
  standard deviation or IQR means "infinitely noisy" (+inf), the legacy ``ir/*`` tags
  stand in for ``iqr/*``, and a missing ``stdev/absolute`` is ``stdev/relative * mean``;
* the mean SM clock (``nv/cold/sm_clock_rate/mean``; CPU-only states have none);
* the per-sample side files, behind :class:`~.bulkdata.BulkData`: nothing is read until a
  decision asks, and what is read is validated, sorted once and cached.

Side files and what happens when they are unavailable or unusable: :mod:`.bulkdata`. The
estimates a decision compares: :mod:`.estimates`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from enum import Enum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Final, NamedTuple

import msgspec

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..results._tools_api import SubBenchmarkState
else:
    from .._lazy import numpy as np

from .._numbers import as_float, is_int64
from ..results._arithmetic import clock_mean, describe
from ..results._sidecar import FREQS_TAG, TIMES_TAGS
from ._record import PartialRecord
from .bulk import usable_clock
from .bulkdata import NO_BULK, BulkData, SideFile, Warn, state_place
from .model import Interval
from .side_warnings import SideFileProblem, side_file_warning

__all__ = [
    "BulkData",
    "MeasurementKind",
    "SideEvidence",
    "TimingSummaries",
    "Warn",
    "records_sample_times",
    "sample_times_without_values",
    "side_evidence",
    "usable_clock",
    "usable_time",
    "valid_interval",
]


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
    #: The recorded median as written, where the file has a median summary that is no
    #: time (null, text, NaN, infinite, at or below zero, beyond the float32 range):
    #: a damaged state, which no other summary (the mean) or sample stands in for.
    median_not_a_time: str | None = None

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
            _in_range(value if type(value) is float else _as_float(value)) for value in found
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
        recorded = found[6]
        broken = None
        if recorded is not _ABSENT and not usable_time(median):
            broken = "null" if recorded is None else repr(recorded)[:40]
        # Positional: built for every state, and matching keywords would slow each one.
        return cls(
            low,
            high,
            mean,
            stdev_absolute,
            stdev_relative,
            q1,
            median,
            q3,
            iqr_abs,
            iqr_rel,
            broken,
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
        return valid_interval(Interval(max(lows), mean, min(highs)))


#: The float32 range: NVBench's per-sample times are float32 seconds, so no time (or ratio
#: of times) it summarises lies beyond the largest float32 or, unless zero, below the
#: smallest positive one. A value outside in a file is crafted or corrupt; it would
#: overflow the ratios and logarithms made of it (1e308 s against 3 us, or 3 us against
#: 5e-324 s, is an OverflowError in exp), so it counts as unusable, as a non-finite value
#: does. Inside, every ratio stays below 1e84: its logarithm is far from overflowing.
_LARGEST_TIME = 3.4028234663852886e38
_SMALLEST_TIME = 1.401298464324817e-45


def _in_range(value: float | None) -> float | None:
    """``value``, or ``+inf`` (unusable) when its magnitude lies outside the float32 range
    (:data:`_LARGEST_TIME`, :data:`_SMALLEST_TIME`; zero and NaN pass as they are)."""
    if value is None or value != value or value == 0.0:
        return value
    if _SMALLEST_TIME <= abs(value) <= _LARGEST_TIME:
        return value
    return math.inf


def usable_time(value: object) -> bool:
    """Whether ``value`` is a time the comparison can use: a finite positive number within
    the float32 range (:data:`_LARGEST_TIME`, :data:`_SMALLEST_TIME`). The history holds
    its stored medians to the same rule."""
    if isinstance(value, bool) or not isinstance(value, float | int):
        return False
    return _SMALLEST_TIME <= value <= _LARGEST_TIME


def valid_interval(interval: Interval | None) -> Interval | None:
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
    """A looked-up value as float: ``None`` when absent, null or text. An integer beyond
    the float range (an ``int64``-typed summary of 400 digits, which the reader keeps as a
    Python int) is infinite, unusable as any value beyond the float32 range, rather than
    an OverflowError."""
    if value is None or value is _ABSENT or isinstance(value, str):
        return None
    return as_float(value)


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


_TIMING_TAGS: Final[Mapping[MeasurementKind, _TimingTags]] = MappingProxyType(
    {
        kind: _TimingTags(
            *(f"{kind.time_prefix}/{field.replace('_', '/')}" for field in _TimingTags._fields)
        )
        for kind in MeasurementKind
    }
)


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
    #: The recorded sample count as written, where the file records one that is no count
    #: (not an integer from 0 to 2^63 - 1: beyond int64, negative, text, a fraction); then
    #: :attr:`sample_count` is ``None``. A damaged file (:func:`~.methods.minimum.
    #: too_few_samples`): ``nvbench-history ingest`` refuses it.
    sample_count_not_a_count: str | None = None

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


def _recorded(state: SubBenchmarkState, tag: str | None, warn: Warn) -> tuple[str, object] | None:
    """(filename, recorded size) of a side-file summary, or ``None`` when it names no usable
    file: said in a warning where the summary records one without a usable name (an empty
    ``filename`` fell back to the summaries without a word); NVBench's own way of saying
    that writing the file failed, both fields left out, stays silent. The size is returned
    as recorded: one that is no count (a fraction, text, absent) is a broken record, as 0
    sample times is (:func:`side_evidence`)."""
    if tag is None or not state.has_summary(tag):
        return None
    filename = state.value(tag, "filename")
    size = state.value(tag, "size")
    if filename is None and size is None:
        return None
    if not isinstance(filename, str) or not filename:
        text = (
            f"{state.benchmark.source.label}: side-file summary {tag} of {state_place(state)} "
            f"records no usable file name ({filename!r}, {size!r}); using its summaries"
        )
        warn(side_file_warning(text, state, SideFileProblem.NO_PATH, repr(filename)))
        return None
    return filename, size


def _recorded_clock(found: Any) -> float | None:
    """The mean SM clock as the methods read it: ``None`` where the summary is absent or
    ``null`` (as ``nvbench-history ingest`` takes them), else a float. A clock present but
    unreadable (text: a ``"string"`` or unknown type tag, which the reader leaves as text)
    is NaN, an invalid clock (``invalid_clock_rate``), never an absent one: a clock tagged
    ``"string"`` let the time change decide alone (SLOW) where the same clock tagged
    ``float64`` explained it. An integer beyond the float range is infinite, as invalid."""
    if found is _ABSENT or found is None:
        return None
    if isinstance(found, bool) or not isinstance(found, float | int):
        return math.nan
    return as_float(found)


def records_sample_times(state: SubBenchmarkState) -> bool:
    """Whether ``state`` records a sample-times side file (without looking for the file)."""
    return any(state.has_summary(tag) for tag in TIMES_TAGS)


def sample_times_without_values(state: SubBenchmarkState) -> str | None:
    """The side file that the sample-times summary of ``state`` records with 0 values,
    named as every side-file line names one (with the JSON file that records it), which the
    reader then does not read (``state.samples`` is ``None``), as for a run without
    ``--jsonbin``; ``None`` for any other state. Said in :func:`~.bulk.recorded_count_line`'s
    words."""
    tag = next((tag for tag in TIMES_TAGS if state.has_summary(tag)), None)
    if tag is None:
        return None
    filename, size = state.value(tag, "filename"), state.value(tag, "size")
    if isinstance(filename, str) and filename and isinstance(size, int) and size == 0:
        source = state.benchmark.source
        return source.named(source.recorded(filename))
    return None


def recorded_sample_summaries(
    state: SubBenchmarkState,
) -> tuple[float | None, float | None, float | None]:
    """The min, max and mean time ``state`` records for its measurement kind (``None``
    where absent or no usable time, as :attr:`TimingSummaries.min` leaves such a value
    out): what its sample times must reach and average to
    (:func:`~.bulk.check_recorded_summaries`)."""
    prefix = (MeasurementKind.CPU_ONLY if state.is_cpu_only else MeasurementKind.GPU).time_prefix
    values = [state.float_value(f"{prefix}/{name}") for name in ("min", "max", "mean")]
    low, high, mean = (value if usable_time(value) else None for value in values)
    return low, high, mean


def side_evidence(state: SubBenchmarkState, *, warn: Warn) -> SideEvidence:
    """The evidence of one state; side files are only located and read when needed."""
    kind = MeasurementKind.CPU_ONLY if state.is_cpu_only else MeasurementKind.GPU
    has_summaries = bool(state.tags)
    clock = None
    if kind is MeasurementKind.GPU:  # the kind with a clock_tag
        clock = _recorded_clock(state.get_value(_CLOCK_TAG, _ABSENT))
    times = _recorded(state, kind.times_tag, warn)
    frequencies = _recorded(state, kind.frequencies_tag, warn)
    # Each side file named with the JSON file that records it: both runs of a pair often
    # record the same side-file names.
    source = state.benchmark.source
    # A count no file of values has: NVBench records at least one sample time (no summary
    # at all for a measurement without samples), and 0 SM clocks is what --profile writes
    # (nvbench-json-format.md 5.3.1, 6.8); none beyond int64. Such a file is unavailable
    # where it is missing or empty (a warning names the count), and unusable where it
    # holds values (compare.md 2: present with the wrong size): ci then uses the summaries,
    # robust answers AMBG. It cannot be paired by its count either.
    broken = (
        times is not None and not is_int64(times[1], 1),
        frequencies is not None and not is_int64(frequencies[1], 0),
    )
    if (
        times is not None
        and frequencies is not None
        and not any(broken)
        and times[1] != frequencies[1]
    ):
        if times[1] and frequencies[1]:  # counts (not broken): 0 clocks is --profile's
            warn(
                f"{source.named(source.recorded(times[0]))}: {times[1]} sample times but "
                f"{frequencies[1]} SM clock frequencies ({source.recorded(frequencies[0])}) "
                f"recorded for {state.benchmark.name} / {state.state_name}; using its summaries"
            )
        # Samples that cannot be paired with their clocks are not trusted either (as
        # NVIDIA's tool does); NVBench's --profile runs record 0 frequencies this way.
        times = frequencies = None
    times_file = frequencies_file = None
    if times is not None and (broken[0] or times[1]):
        times_file = SideFile(state, *times, frequencies=False, warn=warn, broken_count=broken[0])
    if frequencies is not None and (broken[1] or frequencies[1]):
        frequencies_file = SideFile(
            state, *frequencies, frequencies=True, warn=warn, broken_count=broken[1]
        )
    timing = TimingSummaries.read(state, kind) if has_summaries else TimingSummaries()
    # States without side files (most) share one empty BulkData, which never changes.
    bulk = (
        NO_BULK
        if times_file is None and frequencies_file is None
        else BulkData(
            times_file,
            frequencies_file,
            warn=warn,
            recorded_summaries=(timing.min, timing.max, timing.mean),
        )
    )
    found = state.get_values(_COUNT_TAGS, _ABSENT)
    broken = next((value for value in found if not _count_or_absent(value)), _ABSENT)
    # Positional, in field order (built for every state of a comparison).
    return SideEvidence(
        kind,
        timing,
        clock,
        state.sample_count if broken is _ABSENT else None,
        state.is_skipped,
        state.skip_reason,
        has_summaries,
        bulk,
        None if broken is _ABSENT else repr(broken)[:40],
    )


#: The sample counts a state may record (``SubBenchmarkState.sample_count`` takes the first).
_COUNT_TAGS: Final = ("nv/cold/sample_size", "nv/cpu_only/sample_size")


def _count_or_absent(value: object) -> bool:
    """A recorded sample count the comparison can rest on, or none (absent, ``null``):
    an integer from 0 (NVBench's count of a measurement without samples) to
    :data:`INT64_MAX`. 2^70 samples made the standard error of the mean vanish (a 1.1 %
    change SLOW [+1.1, +1.1]), where ``nvbench-history ingest`` refused the file."""
    if value is _ABSENT or value is None:
        return True
    return is_int64(value, 0)
