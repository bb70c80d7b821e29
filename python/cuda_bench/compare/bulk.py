"""Per-sample ("bulk") values for comparisons: validated and sorted value families.

Bulk data are the ``--jsonbin`` side files: one float32 time (and, for cold GPU
measurements, one SM clock frequency) per sample. A *family* is one side's times, or its
cycles (time x frequency per sample), checked positive and finite.

**Nearest-rank quartiles** (:meth:`SortedSamples.quantile`). NVBench picks
``sorted[round(p/100 * (n-1))]`` with C ``std::round`` (half away from zero); the
integer form ``(p*(n-1) + 50) // 100`` is the same number for the quartiles. No
interpolation: every quartile is one of the samples, so a comparison sees exactly the
values NVBench wrote into the summaries.

Each family of one side is sorted at most once (times in float32, which sorts faster than
float64 and widens exactly; cycles in float64, since a float32 product would merge
distinct cycle counts). Quartiles, extremes, distinct values and their counts are read off
that one sorted array in O(n). Tests that need no sort read the family in measurement
order (:class:`OrderedValues`); the coverage of one family by another is
:mod:`.coverage`, its fast path in measurement order :mod:`._coverage_fast`. No Python
loop touches individual samples.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, NoReturn

import msgspec

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .._arrays import FloatArray
    from .._arrays import IntArray as CountArray
else:
    from .._lazy import LazyModule
    from .._lazy import numpy as np

    # Annotations of the records' fields name numpy through these, so that
    # ``typing.get_type_hints`` resolves them; numpy stays unimported until one is read.
    npt = LazyModule("numpy.typing")

from ..results._arithmetic import rank_index
from .model import Interval

__all__ = [
    "CLOCK_RANGE",
    "MAX_CLOCK_RATE",
    "MIN_CLOCK_RATE",
    "CheckedValues",
    "CyclesOverflow",
    "OrderedValues",
    "SortedSamples",
    "UnusableBulkData",
    "check_recorded_summaries",
    "checked_frequencies",
    "checked_values",
    "cycle_products",
    "cycle_samples",
    "cycle_values",
    "distinct_runs",
    "ordered_cycles",
    "ordered_times",
    "overlap_fraction",
    "paired_frequencies",
    "rank_window",
    "recorded_count_line",
    "recorded_count_text",
    "sort_samples",
    "unusable_samples_line",
    "usable_clock",
]


class UnusableBulkData(ValueError):
    """Per-sample values exist but cannot be used (empty, non-finite, non-positive, ...)."""


#: The range (Hz) an SM clock must lie in to be one: a state's mean clock
#: (``nv/cold/sm_clock_rate/mean``; ``invalid_clock_rate`` outside) and every value of its
#: SM clock side file (unusable outside). NVBench's clock is SM cycles over global-timer
#: nanoseconds (nvbench-json-format.md 6.6); GPUs clock their SMs at some 0.1 to 3 GHz,
#: idle clocks included, and no processor clock has reached 10 GHz (overclocking records
#: under liquid nitrogen included). The range lies a hundred times below the one and ten
#: times above the other, so that no clock a GPU or CPU can run at leaves it, while a value
#: outside it is no clock but a damaged or crafted file: a mean clock of 1e308 Hz turned a
#: +50 % time change into +8.5e300 % in cycles, which "confirmed" it as SLOW. Within the
#: range two clocks differ at most 1e5-fold, so cycles made of them stay finite wherever
#: the times are.
MIN_CLOCK_RATE: Final = 1e6
MAX_CLOCK_RATE: Final = 1e11
#: :data:`MIN_CLOCK_RATE` to :data:`MAX_CLOCK_RATE` in words.
CLOCK_RANGE: Final = "1 MHz to 100 GHz"


def usable_clock(value: object) -> bool:
    """Whether ``value`` is an SM clock rate the comparison makes cycles of: a number (not
    a bool) from :data:`MIN_CLOCK_RATE` to :data:`MAX_CLOCK_RATE` Hz. NaN, infinities, zero
    and negative values lie outside too."""
    if isinstance(value, bool) or not isinstance(value, float | int):
        return False
    return MIN_CLOCK_RATE <= value <= MAX_CLOCK_RATE


def unusable_samples_line(where: object, problem: object) -> str:
    """The line every tool says of a side file whose values are unusable (``problem``, an
    :class:`UnusableBulkData` or its text), ``where`` naming the file with the JSON file
    that records it (:meth:`~cuda.bench.results._source._Source.named`): one wording for
    nvbench_compare, nvbench-histogram and nvbench-history ingest."""
    return f"{where}: {problem}; its per-sample data are not used"


def recorded_count_line(named: str, count: object) -> str:
    """What every tool says of a side file its summary records with ``count`` values, 0 (or
    fewer) sample times, or a size that is no count: NVBench records at least one, so the
    record is broken, and the file is not read. ``named`` is the side file as every
    side-file line names it, with the JSON file that records it
    (:meth:`~cuda.bench.results._source._Source.named`). One wording for nvbench_compare,
    nvbench-histogram and nvbench-history ingest; each adds what it does instead (a size
    that is no integer reaches nvbench_compare's lenient reader only: the other two refuse
    the file as invalid)."""
    return f"{named}: {recorded_count_text(count)}"


def recorded_count_text(count: object) -> str:
    """:func:`recorded_count_line` without the file's name: an integer as it is, any other
    recorded size (a fraction, text) as its repr, an absent one as no count."""
    if count is None:
        return "recorded with no count of values"
    if isinstance(count, int) and not isinstance(count, bool):
        return f"recorded with {count} values"
    return f"recorded with size {count!r}, no count of values"


class CyclesOverflow(UnusableBulkData):
    """Cycles (time x SM clock) beyond float32: the sample times are what is absurd
    (:func:`cycle_products`), so their file is the one named."""


#: The largest finite float32; cycles beyond it overflow :func:`rank_window`'s cast.
#: (A literal: numpy is imported lazily; ``float(np.finfo(np.float32).max)``.)
_FLOAT32_MAX: Final = 3.4028234663852886e38


class SortedSamples(msgspec.Struct, frozen=True, eq=False):
    """One family of values (times or cycles) of one side, validated and sorted once.

    ``values`` is ascending (float32 for times as NVBench stores them, float64 for cycles);
    ``unique`` holds the distinct values widened to float64 (``values`` itself when that is
    already float64 without repeats) and ``counts`` how often each occurs, ``None`` when
    every value occurs once (typical for cycles; saves an array of ones). Every value is
    positive and finite. Build it with :func:`sort_samples` or :func:`cycle_samples`.
    """

    values: npt.NDArray[Any]
    unique: npt.NDArray[np.float64]
    counts: npt.NDArray[np.int64] | None = None

    @property
    def distinct(self) -> bool:
        """Every value occurs exactly once."""
        return self.counts is None

    @property
    def size(self) -> int:
        return int(self.values.size)

    @property
    def minimum(self) -> float:
        return float(self.values[0])

    @property
    def maximum(self) -> float:
        return float(self.values[-1])

    def quantile(self, percent: int) -> float:
        """NVBench's nearest-rank quantile (``percent`` 25, 50, 75, ...).

        ``sorted[round(percent/100 * (n-1))]`` with C rounding, which for these positions
        is the integer rank ``(percent * (n-1) + 50) // 100``.
        """
        return float(self.values[rank_index(self.size, percent)])

    @property
    def median(self) -> float:
        return self.quantile(50)

    @property
    def interval(self) -> Interval:
        """``[min, q3]`` around the median: the comparison interval of the robust method.

        Asymmetric on purpose: the lower end is the best the kernel ever did (its
        noise-free floor), the upper end excludes the slow tail.
        """
        return Interval(self.minimum, self.median, self.quantile(75))

    @property
    def noise(self) -> float:
        """Relative interquartile range ``(q3 - q1) / median``."""
        return (self.quantile(75) - self.quantile(25)) / self.median


class CheckedValues(msgspec.Struct, frozen=True, eq=False):
    """One family of per-sample values in measurement order, validated positive and
    finite (float32 or float64), with its smallest and largest value."""

    values: npt.NDArray[Any]
    low: float
    high: float


def _family_array(values: npt.ArrayLike) -> tuple[npt.NDArray[Any], bool]:
    """One family of per-sample values as a one-dimensional, non-empty float32 or float64
    array (other types become float64), and whether that array is a new one; raises
    :class:`UnusableBulkData` otherwise (the shape and emptiness checks of
    :func:`sort_samples` and :func:`checked_values`)."""
    data = np.asarray(values)
    converted = data.dtype != np.float32 and data.dtype != np.float64
    if converted:
        data = data.astype(np.float64)
    if data.ndim != 1:
        raise UnusableBulkData(f"expected one value per sample, got shape {data.shape}")
    if data.size == 0:
        raise UnusableBulkData("holds no values")
    return data, converted


def checked_values(values: npt.ArrayLike) -> CheckedValues:
    """One family of per-sample values validated as :func:`sort_samples` validates them,
    in their order: the float32 or float64 array itself (other types become float64).

    Raises :class:`UnusableBulkData` with the messages of :func:`sort_samples`: NaN and
    +inf make the maximum non-finite; -inf or a non-positive value makes the minimum
    non-positive (the ends a sorted array would show).
    """
    data, _ = _family_array(values)
    high = float(data.max())
    if not math.isfinite(high):
        raise UnusableBulkData("holds non-finite values")
    low = float(data.min())
    if not low > 0.0:
        raise UnusableBulkData("holds non-positive or non-finite values")
    return CheckedValues(data, low, high)


#: How far a side file's smallest or largest time may lie from the state's recorded min
#: or max (relative). NVBench computes both from the samples it writes; the file holds
#: them as float32 (2^-24 relative) after a float32 pass in milliseconds, so the real
#: files differ by at most 5.4e-8 (nvbench-format-examples, 2026-11-30). 1e-5 is some
#: 170 float32 steps: no rounding reaches it, and samples of another state or run do.
RECORDED_RANGE_TOLERANCE: Final = 1e-5


#: How far the mean of a side file's times may lie from the state's recorded mean
#: (relative). NVBench sums the times in double before they are rounded to float32: the
#: real files differ by at most 9.3e-9 (nvbench-format-examples, 2026-11-30). A sum kept
#: in float32 over 10^5 samples strays by some 2e-5 (its round-off grows as the square
#: root of the count); 1e-3 leaves room for any such writer, while another state's times
#: differ by percents (all a state's samples at its min: 3.8 % in a trial's file).
RECORDED_MEAN_TOLERANCE: Final = 1e-3


def check_recorded_summaries(
    times: CheckedValues,
    low: float | None,
    high: float | None,
    mean: float | None = None,
) -> None:
    """Raise :class:`UnusableBulkData` where validated sample ``times`` do not reach the
    state's recorded ``low`` (min) and ``high`` (max) time, or do not average to its
    recorded ``mean``: a side file of another state or run (a copied folder, a renumbered
    file), whose samples would decide the state against its own summaries. NVBench
    recorded no min and max before 2025 (the mean only). A summary that is not recorded,
    or not a usable time, is not checked."""
    for name, recorded, found in (("min", low, times.low), ("max", high, times.high)):
        if recorded is None or not _checkable(recorded):
            continue
        if abs(found - recorded) > RECORDED_RANGE_TOLERANCE * recorded:
            raise UnusableBulkData(
                f"holds samples from {times.low:.6g} to {times.high:.6g} s, where its state "
                f"records {name} {recorded:.6g} s: not this state's samples"
            )
    if mean is not None and _checkable(mean):
        average = float(np.mean(times.values, dtype=np.float64))
        if abs(average - mean) > RECORDED_MEAN_TOLERANCE * mean:
            raise UnusableBulkData(
                f"holds samples of mean {average:.6g} s, where its state records mean "
                f"{mean:.6g} s: not this state's samples"
            )


def _checkable(recorded: float) -> bool:
    """A recorded summary that is a time to check against (finite and positive)."""
    return math.isfinite(recorded) and recorded > 0.0


def checked_frequencies(times: CheckedValues, frequencies: npt.ArrayLike) -> CheckedValues:
    """SM clock frequencies that pair with validated ``times``, checked as
    :func:`paired_frequencies` checks them (the same messages)."""
    freq = np.asarray(frequencies)
    if times.values.shape != freq.shape:
        raise UnusableBulkData(
            f"{times.values.size} sample times but {freq.size} frequencies; cannot pair them"
        )
    low = float(freq.min())
    if not low > 0.0:
        _reject_factor(freq, low)
    high = float(freq.max())
    if not math.isfinite(high):
        raise UnusableBulkData("holds non-finite values")
    if not (usable_clock(low) and usable_clock(high)):
        raise UnusableBulkData(
            f"holds SM clocks from {low:.3g} to {high:.3g} Hz, outside {CLOCK_RANGE}: "
            "no clock a GPU runs at"
        )
    return CheckedValues(freq, low, high)


def _reject_factor(values: npt.NDArray[Any], low: float) -> NoReturn:
    """Raise for a factor of cycles whose smallest value ``low`` is not positive: a
    non-positive value is named first; NaN (which ``min`` propagates, and which no sign
    check catches) alone is a non-finite value, as the times' own checks call it."""
    if math.isnan(low) and not bool(np.less_equal(values, 0.0).any()):
        raise UnusableBulkData("holds non-finite values")
    raise UnusableBulkData("sample times or frequencies hold non-positive values")


def sort_samples(values: npt.ArrayLike, *, copy: bool = True) -> SortedSamples:
    """Validate and sort one family of per-sample values.

    float32 input stays float32 while sorting; anything else becomes float64. With
    ``copy=False`` a float array the caller no longer needs is sorted in place. Raises
    :class:`UnusableBulkData` when there are no values, or a value is not finite or not
    positive (after sorting both checks look at one end of the array only: NaN and +inf
    sort last, -inf and non-positive values first).
    """
    data, converted = _family_array(values)
    if converted:
        copy = False  # a new array already: sort it in place
    if copy or not data.flags.writeable:
        ordered = np.sort(data)
    else:
        ordered = data
        ordered.sort()
    if not math.isfinite(float(ordered[-1])):
        raise UnusableBulkData("holds non-finite values")
    if not float(ordered[0]) > 0.0:
        raise UnusableBulkData("holds non-positive or non-finite values")
    distinct, counts = distinct_runs(ordered)  # np.unique would sort a second time
    unique = distinct.astype(np.float64, copy=False)
    if counts is not None:
        counts.flags.writeable = False
    ordered.flags.writeable = False
    unique.flags.writeable = False
    return SortedSamples(values=ordered, unique=unique, counts=counts)


def distinct_runs(ordered: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], CountArray | None]:
    """Distinct values of a sorted array (``ordered`` itself when all are distinct, the
    typical case for cycles) and how often each occurs (``None``: once each)."""
    if ordered.size == 0:
        return ordered, None
    starts = np.empty(ordered.size, dtype=np.bool_)
    starts[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=starts[1:])
    first = starts.nonzero()[0]
    if first.size == ordered.size:
        return ordered, None
    # Run lengths: differences of the run starts, the last run ends at the array's end.
    # (np.diff with ``append`` would first copy the whole array to append one value.)
    counts = np.empty(first.size, dtype=np.int64)
    np.subtract(first[1:], first[:-1], out=counts[:-1])
    counts[-1] = ordered.size - first[-1]
    return ordered.take(first), counts


#: Most buckets :func:`rank_window` counts values in.
_WINDOW_BUCKETS = 4096


def rank_window(values: npt.NDArray[Any], lo: int, hi: int) -> npt.NDArray[Any]:
    """``sorted(values)[lo : hi + 1]`` of validated positive values (:func:`checked_values`)
    in any order, without sorting them all.

    A bootstrap of the median needs the order statistics near the median only. Values are
    counted in buckets of their float32 bit pattern (monotonic in the value, and equal
    values share a bucket), so the buckets holding ranks ``lo`` to ``hi`` are found from
    the cumulative counts; only their values are sorted, instead of every value.
    """
    size = values.size
    if not 0 <= lo <= hi < size:
        raise ValueError(f"ranks {lo}..{hi} outside 0..{size - 1}")
    approx = values if values.dtype == np.float32 else values.astype(np.float32)
    keys = approx.view(np.int32).astype(np.intp)
    low = int(keys.min())
    shift = max(0, (int(keys.max()) - low).bit_length() - _WINDOW_BUCKETS.bit_length() + 1)
    keys -= low
    keys >>= shift
    below = np.cumsum(np.bincount(keys))  # values in this bucket and the ones before
    first = int(np.searchsorted(below, lo, side="right"))
    last = int(np.searchsorted(below, hi, side="right"))
    offset = int(below[first - 1]) if first else 0
    chosen = values[(keys >= first) & (keys <= last)]
    chosen.sort()
    return chosen[lo - offset : hi - offset + 1]


def cycle_samples(times: npt.ArrayLike, frequencies: npt.ArrayLike) -> SortedSamples:
    """Cycles per sample, ``float64(time) * float64(frequency)``, sorted.

    Both inputs must have the same length and hold positive, finite values; otherwise
    :class:`UnusableBulkData`. The product is taken in float64 so that distinct cycle
    counts stay distinct.
    """
    return sort_samples(cycle_values(times, frequencies), copy=False)


def cycle_values(times: npt.ArrayLike, frequencies: npt.ArrayLike) -> FloatArray:
    """Cycles per sample in measurement order, validated as :func:`cycle_samples` does."""
    return cycle_products(*paired_frequencies(times, frequencies)).values


def cycle_products(times: npt.NDArray[Any], frequencies: npt.NDArray[Any]) -> CheckedValues:
    """``float64(time) * float64(frequency)`` per sample of paired factors
    (:func:`paired_frequencies`, :func:`checked_frequencies`), checked: products of
    float64 factors may overflow, and products beyond float32 (finite float32 factors of
    absurd size: a sample time of 1e38 s) are :class:`CyclesOverflow`, unusable as any
    other non-finite value (the bootstrap ranks cycles by their float32 bit patterns,
    :func:`rank_window`)."""
    checked = checked_values(_products(times, frequencies))
    if checked.high > _FLOAT32_MAX:
        raise CyclesOverflow(
            f"holds values whose cycles (time x SM clock, up to {checked.high:.3g}) "
            "overflow float32"
        )
    return checked


def _products(times: npt.NDArray[Any], frequencies: npt.NDArray[Any]) -> FloatArray:
    """``float64(time) * float64(frequency)`` per sample, unchecked."""
    # The same products as np.multiply(time, freq, dtype=np.float64), without the ufunc's
    # buffered casting of both inputs.
    product = times.astype(np.float64)
    product *= frequencies
    return product


def paired_frequencies(
    times: npt.ArrayLike, frequencies: npt.ArrayLike
) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """Times and frequencies as arrays, checked as factors of :func:`cycle_values`.

    The same length, at least one value, positive (two negative factors would make a
    positive product, so each factor's sign counts), and finite frequencies: with
    positive finite times, the product is finite exactly when they are (float32 factors
    cannot overflow a float64 product; :func:`cycle_values` checks other types' products).
    """
    time = np.asarray(times)
    freq = np.asarray(frequencies)
    if time.shape != freq.shape:
        raise UnusableBulkData(
            f"{time.size} sample times but {freq.size} frequencies; cannot pair them"
        )
    if freq.size == 0:
        raise UnusableBulkData("holds no values")
    low = float(time.min())
    if not low > 0.0:
        _reject_factor(time, low)
    high = float(time.max())
    # The frequencies' own checks: non-positive first, then non-finite, as for the times.
    checked_frequencies(CheckedValues(time, low, high), freq)
    if not math.isfinite(high):
        raise UnusableBulkData("holds non-finite values")
    return time, freq


# ---------------------------------------------------------------------------------------------
# Interval overlap (used by the SAME gate of the robust method)


def overlap_fraction(a: Interval, b: Interval) -> float:
    """Length of ``a`` ∩ ``b`` over the width of the narrower interval; 0 when disjoint.

    Normalising by the narrower width asks "how much of the tighter measurement is
    consistent with the other one". Zero-width intervals (every sample equal) are
    points: two points overlap fully when equal, a point and an interval when the point
    lies inside the interval.
    """
    width_a, width_b = a.width, b.width
    if width_a == 0.0 and width_b == 0.0:
        return 1.0 if a.lo == b.lo else 0.0
    if width_a == 0.0:
        return 1.0 if b.lo <= a.lo <= b.hi else 0.0
    if width_b == 0.0:
        return 1.0 if a.lo <= b.lo <= a.hi else 0.0
    shared = min(a.hi, b.hi) - max(a.lo, b.lo)
    if shared <= 0.0:
        return 0.0
    return shared / min(width_a, width_b)


# ---------------------------------------------------------------------------------------------
# Families in measurement order


class OrderedValues(msgspec.Struct, frozen=True, eq=False):
    """One side's family (times or cycles) in measurement order, validated: what
    :func:`._coverage_fast.unsorted_coverage` reads. Build it with :func:`ordered_times` or
    :func:`ordered_cycles`.

    ``approx`` holds the values as float32 (times exactly as stored; cycles rounded to
    float32, relative error below 1e-7) and ``low``/``high`` bound them (float32 values
    at or beyond the extremes). ``exact(positions)`` gives the float64 values the exact
    test compares at those positions, and ``sort()`` the sorted family (which callers
    cache).
    """

    approx: npt.NDArray[np.float32]
    low: float
    high: float
    exact: Callable[[npt.NDArray[np.intp]], npt.NDArray[np.float64]]
    sort: Callable[[], SortedSamples]

    @property
    def size(self) -> int:
        return int(self.approx.size)


def ordered_times(values: CheckedValues, sort: Callable[[], SortedSamples]) -> OrderedValues:
    """Validated sample times for :func:`._coverage_fast.unsorted_coverage`; ``sort`` gives
    them sorted (:func:`sort_samples`)."""
    data = values.values

    def exact(positions: npt.NDArray[np.intp]) -> FloatArray:
        return data.take(positions).astype(np.float64)

    approx = data if data.dtype == np.float32 else data.astype(np.float32)
    # float32 rounding is monotonic: the rounded extremes are the extremes of the rounded.
    low, high = float(np.float32(values.low)), float(np.float32(values.high))
    return OrderedValues(approx, low, high, exact, sort)


def ordered_cycles(
    times: CheckedValues, frequencies: CheckedValues, sort: Callable[[], SortedSamples]
) -> OrderedValues:
    """Cycles of validated, paired float32 times and frequencies
    (:func:`checked_frequencies`) for :func:`._coverage_fast.unsorted_coverage`: float32
    products, the exact float64 ones where asked for; ``sort`` gives the exact cycles
    sorted."""
    time, frequency = times.values, frequencies.values

    def exact(positions: npt.NDArray[np.intp]) -> FloatArray:
        # Positive and finite: float32 factors, validated, cannot overflow a float64 product.
        return _products(time.take(positions), frequency.take(positions))

    approx = np.multiply(time, frequency, dtype=np.float32)
    # Each product is rounded once to float32, monotonically: the rounded products of the
    # extremes bound the rounded products.
    low = float(np.float32(times.low) * np.float32(frequencies.low))
    high = float(np.float32(times.high) * np.float32(frequencies.high))
    return OrderedValues(approx, low, high, exact, sort)
