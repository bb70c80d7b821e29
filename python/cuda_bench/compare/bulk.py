"""Per-sample ("bulk") statistics for comparisons: sorted value families and coverage.

Bulk data are the ``--jsonbin`` side files: one float32 time (and, for cold GPU
measurements, one SM clock frequency) per sample. Two statistics are built on them.

**Nearest-rank quartiles** (:meth:`SortedSamples.quantile`). NVBench picks
``sorted[round(p/100 * (n-1))]`` with C ``std::round`` (half away from zero); the
integer form ``(p*(n-1) + 50) // 100`` is the same number for the quartiles. No
interpolation: every quartile is one of the samples, so a comparison sees exactly the
values NVBench wrote into the summaries.

**Nearest-neighbour coverage** (:func:`coverage`, reference §3.6). Two runs of an
unchanged kernel produce the same *set* of values: NVBench's timers are quantized, so
times repeat, and a shifted mode shows up as values the other run never produced. For
every distinct value on one side we measure, in log space, the distance to the nearest
distinct value on the other side; a value is *covered* when that distance is at most
``log1p(same.center_relative)``, i.e. a relative difference of at most the SAME
tolerance. Per side we report

* *sample coverage*: the share of samples whose value is covered (weighted by counts);
* *support coverage*: the share of distinct values that are covered, after dropping
  *rare* values (see :func:`rare_support_filter`) so that a handful of one-off outliers
  does not decide the support score.

The runs agree (bulk SAME) when both sample coverages reach ``bulk.sample_coverage`` and
both support coverages reach ``bulk.support_coverage``. The test is symmetric: a new mode
in either run fails it.

Cost. Sorting 10,000 values costs more than everything else a row does, so the robust
method first asks :func:`unsorted_coverage`, which decides from the values in measurement
order without sorting (see there). Where a sort is
needed, each family of one side is sorted exactly once (times in float32, which sorts about
twice as fast and widens exactly; cycles in float64, since a float32 product would merge
distinct cycle counts). Quartiles, extremes, distinct values and their counts are read off
that one sorted array in O(n). The coverage test works on the u distinct values: buckets
of half the tolerance, counted by a binary search of the few bucket edges, certify almost
every value of two overlapping distributions in O(u); only the r remaining values get an
exact binary search for their nearest neighbour and the logs that decide it
(O(r log u)). That is several times cheaper than a binary search and a log for every
value, and gives identical answers. No Python loop touches individual samples.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

import msgspec

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .._arrays import BoolArray, FloatArray
    from .._arrays import IntArray as CountArray
else:
    from .._lazy import numpy as np

from ..results._stats import rank_index
from .model import Interval
from .thresholds import Thresholds

__all__ = [
    "CheckedValues",
    "Coverage",
    "OrderedValues",
    "SideCoverage",
    "SortedSamples",
    "SupportFilter",
    "UnusableBulkData",
    "checked_frequencies",
    "checked_values",
    "coverage",
    "cycle_products",
    "cycle_samples",
    "cycle_values",
    "ordered_coverage",
    "ordered_cycles",
    "ordered_times",
    "overlap_fraction",
    "paired_frequencies",
    "rank_window",
    "rare_support_filter",
    "sort_samples",
    "unsorted_coverage",
]


class UnusableBulkData(ValueError):
    """Per-sample values exist but cannot be used (empty, non-finite, non-positive, ...)."""


class SortedSamples(msgspec.Struct, frozen=True, eq=False):
    """One family of values (times or cycles) of one side, validated and sorted once.

    ``values`` is ascending (float32 for times as NVBench stores them, float64 for cycles);
    ``unique`` holds the distinct values widened to float64 (``values`` itself when that is
    already float64 without repeats) and ``counts`` how often each occurs, ``None`` when
    every value occurs once (typical for cycles; saves an array of ones). Every value is
    positive and finite. Build it with :func:`sort_samples` or :func:`cycle_samples`.
    """

    values: npt.NDArray[Any]
    unique: FloatArray
    counts: CountArray | None = None

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
    distinct, counts = _runs(ordered)  # np.unique would sort a second time
    unique = distinct.astype(np.float64, copy=False)
    if counts is not None:
        counts.flags.writeable = False
    ordered.flags.writeable = False
    unique.flags.writeable = False
    return SortedSamples(values=ordered, unique=unique, counts=counts)


#: Most buckets :func:`rank_window` counts values in.
_WINDOW_BUCKETS = 4096


def rank_window(values: npt.NDArray[Any], lo: int, hi: int) -> npt.NDArray[Any]:
    """``sorted(values)[lo : hi + 1]`` of validated positive values (:func:`checked_values`)
    in any order, without sorting them all.

    A bootstrap of the median needs the order statistics near the median only. Values are
    counted in buckets of their float32 bit pattern (monotonic in the value, and equal
    values share a bucket), so the buckets holding ranks ``lo`` to ``hi`` are found from
    the cumulative counts; only their values are sorted. Sorting 10,000 values costs
    several times this.
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
    float64 factors may overflow."""
    return checked_values(_products(times, frequencies))


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
# Nearest-neighbour coverage (reference §3.6)


class SupportFilter(msgspec.Struct, frozen=True):
    """Whether rare distinct values were left out of the support coverage, and why.

    ``applied`` with ``removed_fraction`` (share of samples whose value was dropped), or
    not applied with the ``reason``.
    """

    applied: bool
    reason: str
    removed_fraction: float = 0.0

    def __str__(self) -> str:
        if self.applied:
            return f"on({self.removed_fraction:.1%})"
        return f"off({self.reason})"


def rare_support_filter(
    counts: CountArray | None, thresholds: Thresholds
) -> tuple[SupportFilter, BoolArray | None]:
    """Decide which distinct values count for support coverage; ``None`` keeps all.

    A value is *rare* when it occurs fewer than ``max(2, ceil(sample_fraction * n))``
    times. Rare values are dropped only when that is meaningful and cheap: not when the
    filter is disabled (either threshold <= 0), not when every value occurs once (no
    value is more typical than another), not when nothing or everything is rare, and not
    when the rare values carry more than ``max_removed_sample_fraction`` of the samples
    (then they are a real part of the distribution, not outliers).
    """
    fraction = thresholds.bulk_rare_sample_fraction
    max_removed = thresholds.bulk_rare_max_removed_fraction
    if fraction <= 0 or max_removed <= 0:
        return SupportFilter(False, "disabled"), None
    if counts is None:
        return SupportFilter(False, "all values unique"), None
    largest = int(counts.max())
    if largest == 1:
        return SupportFilter(False, "all values unique"), None
    total = int(counts.sum())
    min_count = max(2, math.ceil(fraction * total))
    if largest < min_count:  # every value is rare (the common case): skip the masks
        return SupportFilter(False, "would remove all support"), None
    rare = counts < min_count
    rare_values = int(np.count_nonzero(rare))
    if rare_values == 0:
        return SupportFilter(False, "no rare values"), None
    if rare_values == rare.size:
        return SupportFilter(False, "would remove all support"), None
    removed = int(counts[rare].sum()) / total
    if removed > max_removed:
        return SupportFilter(False, "would remove too much mass", removed), None
    return SupportFilter(True, "rare values removed", removed), ~rare


#: Below this tolerance bucket certificates are not worth their rounding analysis.
_MIN_BUCKET_TOLERANCE = 1e-9


def _bucket_certificates(
    a: FloatArray, b: FloatArray, tolerance: float
) -> tuple[BoolArray, BoolArray] | None:
    """Values that certainly have a neighbour within ``tolerance`` (log space) on the other side.

    ``a`` and ``b`` are sorted distinct positive values. Cut the range into buckets
    ``[lo*e^(k*w), lo*e^((k+1)*w))`` with ``w`` half the tolerance: two values in one
    bucket are less than ``w`` apart in log space (the rounding of the bucket edges and of
    the logs is below 1e-12), so a value whose bucket holds a value of the other side is
    covered. Bucket counts come from a binary search of the few bucket edges, not of the
    values, so this costs O(k log n + n) for k buckets and certifies almost every value of
    two overlapping distributions. ``None`` when there would be more buckets than values
    (widely spread values) or the tolerance is too small; then every value is searched.
    """
    if not tolerance >= _MIN_BUCKET_TOLERANCE:
        return None
    width = tolerance / 2
    low = min(float(a[0]), float(b[0]))
    high = max(float(a[-1]), float(b[-1]))
    spread = math.log(high / low) / width
    if not spread + 2 <= a.size + b.size:  # also false for an infinite ratio
        return None
    buckets = math.floor(spread) + 2  # the last edge lies a whole bucket above ``high``
    edges = _edge_factors(width, buckets + 1) * low
    starts_a = np.searchsorted(a, edges)
    starts_b = np.searchsorted(b, edges)
    count_a = starts_a[1:] - starts_a[:-1]  # np.diff, without its per-call overhead
    count_b = starts_b[1:] - starts_b[:-1]
    return (
        _certified(count_b > 0, count_a, a.size),
        _certified(count_a > 0, count_b, b.size),
    )


def _certified(other_present: BoolArray, counts: npt.NDArray[Any], size: int) -> BoolArray:
    """Per value (the first edge is the smallest value): does its bucket hold a value of the
    other side. Values at or above the last edge (none, given the bucket count) do not."""
    per_value = np.repeat(other_present, counts)
    if per_value.size == size:  # always, in practice: no second array to fill
        return per_value
    certified = np.zeros(size, dtype=np.bool_)
    certified[: per_value.size] = per_value
    return certified


#: ``exp(k * width)`` for k = 0, 1, ... by bucket width: comparisons under one tolerance
#: cut buckets of one width, so the factors are computed once and sliced.
_EDGE_FACTORS: dict[float, FloatArray] = {}


def _edge_factors(width: float, count: int) -> FloatArray:
    factors = _EDGE_FACTORS.get(width)
    if factors is None or factors.size < count:
        # Element k is exp(k * width) whatever the length, so a slice of a longer array
        # holds what np.exp(np.arange(count) * width) would.
        size = max(count, 256, 0 if factors is None else 2 * factors.size)
        factors = np.exp(np.arange(size, dtype=np.float64) * width)
        factors.flags.writeable = False
        if len(_EDGE_FACTORS) >= 16:
            _EDGE_FACTORS.clear()
        _EDGE_FACTORS[width] = factors
    return factors[:count]


def _covered(
    points: FloatArray, other: FloatArray, certified: BoolArray | None, tolerance: float
) -> BoolArray:
    """Whether the nearest value of ``other`` is within ``tolerance`` of each point, in log space.

    Both arrays are sorted distinct positive values. ``certified`` points (see
    :func:`_bucket_certificates`) are covered; for the others the nearest value is the one
    just below or just above the insertion point, and the distance is
    ``|log(point) - log(neighbour)|`` exactly as upstream computes it (numpy's ``log`` of a
    value does not depend on the array it sits in), so boundary cases decide identically.
    A binary search in value space finds the same neighbours as one in log space.
    """
    covered = np.zeros(points.size, dtype=np.bool_) if certified is None else certified
    if covered.all():
        return covered
    rest = (~covered).nonzero()[0]
    if rest.size:
        remaining = points[rest]
        rank = np.searchsorted(other, remaining)
        log_points = np.log(remaining)
        above = np.log(other.take(rank, mode="clip"))
        below = np.log(other.take(rank - 1, mode="clip"))
        np.subtract(above, log_points, out=above)
        np.subtract(log_points, below, out=below)
        np.abs(above, out=above)
        np.abs(below, out=below)
        np.minimum(above, below, out=above)
        covered[rest] = above <= tolerance
    return covered


class SideCoverage(msgspec.Struct, frozen=True):
    """Coverage of one side's values by the other side's."""

    sample: float
    support: float
    support_filter: SupportFilter


def _side_coverage(
    values: SortedSamples, covered: BoolArray, thresholds: Thresholds
) -> SideCoverage:
    return _shares(values.counts, covered, values.size, thresholds)


def _shares(
    counts: CountArray | None, covered: BoolArray, size: int, thresholds: Thresholds
) -> SideCoverage:
    """Sample and support shares of one side from its distinct values' ``counts`` (``None``:
    all distinct) and whether each is ``covered``; the order of the values is immaterial."""
    support_filter, keep = rare_support_filter(counts, thresholds)
    covered_count = int(np.count_nonzero(covered))
    if covered_count == covered.size:
        # Every value covered (typical of SAME rows): both shares are exactly 1, as the
        # sums below would give (the counts add up to the sample count).
        return SideCoverage(1.0, 1.0, support_filter)
    sample = covered_count / size if counts is None else int(counts[covered].sum()) / size
    kept = covered if keep is None else covered[keep]
    support = (covered_count if keep is None else int(np.count_nonzero(kept))) / kept.size
    return SideCoverage(sample, support, support_filter)


class Coverage(msgspec.Struct, frozen=True):
    """Nearest-neighbour coverage of one value family (``"time"`` or ``"cycle"``)."""

    family: str
    ref: SideCoverage
    cmp: SideCoverage
    sample_threshold: float
    support_threshold: float

    @classmethod
    def judged(
        cls, family: str, ref: SideCoverage, cmp: SideCoverage, thresholds: Thresholds
    ) -> Coverage:
        """The coverage of both sides held against the thresholds' bulk requirements."""
        return cls(
            family=family,
            ref=ref,
            cmp=cmp,
            sample_threshold=thresholds.bulk_sample_coverage,
            support_threshold=thresholds.bulk_support_coverage,
        )

    @property
    def sample(self) -> float:
        """The worse side's sample coverage."""
        return min(self.ref.sample, self.cmp.sample)

    @property
    def support(self) -> float:
        """The worse side's support coverage."""
        return min(self.ref.support, self.cmp.support)

    @property
    def passed(self) -> bool:
        """Both sides reach both thresholds: the bulk evidence supports SAME."""
        return self.sample >= self.sample_threshold and self.support >= self.support_threshold

    @property
    def severity(self) -> float:
        """How far the worse score falls short of its threshold (0 when passed)."""
        return max(
            0.0,
            self.sample_threshold - self.sample,
            self.support_threshold - self.support,
        )

    @property
    def message(self) -> str:
        """The requirement and the scores (upstream's format).

        ``sample: min(ref=100.0%, cmp=94.5%) >= 97.0%; support: min(ref=100.0%,
        cmp=84.9%) >= 80.0%``: it states what is required, not whether it passed.
        """
        return (
            f"sample: min(ref={self.ref.sample:.1%}, cmp={self.cmp.sample:.1%}) "
            f">= {self.sample_threshold:.1%}; "
            f"support: min(ref={self.ref.support:.1%}, cmp={self.cmp.support:.1%}) "
            f">= {self.support_threshold:.1%}"
        )


def coverage(
    ref: SortedSamples, cmp: SortedSamples, thresholds: Thresholds, *, family: str = "time"
) -> Coverage:
    """Nearest-neighbour coverage of ``ref`` and ``cmp`` in both directions (module docstring)."""
    tolerance = math.log1p(thresholds.same_center_relative)
    certified = _bucket_certificates(ref.unique, cmp.unique, tolerance)
    ref_certified, cmp_certified = (None, None) if certified is None else certified
    ref_covered = _covered(ref.unique, cmp.unique, ref_certified, tolerance)
    cmp_covered = _covered(cmp.unique, ref.unique, cmp_certified, tolerance)
    return Coverage.judged(
        family,
        _side_coverage(ref, ref_covered, thresholds),
        _side_coverage(cmp, cmp_covered, thresholds),
        thresholds,
    )


# ---------------------------------------------------------------------------------------------
# Coverage from values in measurement order


class OrderedValues(msgspec.Struct, frozen=True, eq=False):
    """One side's family (times or cycles) in measurement order, validated: what
    :func:`unsorted_coverage` reads. Build it with :func:`ordered_times` or
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
    exact: Callable[[npt.NDArray[np.intp]], FloatArray]
    sort: Callable[[], SortedSamples]

    @property
    def size(self) -> int:
        return int(self.approx.size)


def ordered_times(values: CheckedValues, sort: Callable[[], SortedSamples]) -> OrderedValues:
    """Validated sample times for :func:`unsorted_coverage`; ``sort`` gives them sorted
    (:func:`sort_samples`)."""
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
    (:func:`checked_frequencies`) for :func:`unsorted_coverage`: float32 products, the
    exact float64 ones where asked for; ``sort`` gives the exact cycles sorted."""
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


#: Narrowest tolerance (log space) :func:`unsorted_coverage` buckets: far wider than the
#: float32 rounding of the cycles it buckets.
_MIN_UNSORTED_TOLERANCE = 1e-3
#: Most uncertified values per side searched exactly; more means distributions that differ
#: (rows that rarely end SAME), where sorting both sides costs no more.
_MAX_UNCERTIFIED = 512
#: A value is certified by a value of the other side in its own bucket or up to this many
#: buckets away; buckets are narrow enough (:func:`_bucket_shift`) that such values are
#: within three quarters of the tolerance of each other.
_CERTIFYING_BUCKETS = 2
#: Buckets span at least an eighth of the tolerance in log space, so a neighbour within the
#: tolerance lies at most this many buckets away, with one to spare for the float32
#: rounding of cycles.
_NEIGHBOUR_BUCKETS = 10
#: Most (uncertified value, candidate neighbour) pairs measured all at once.
_MAX_PAIRS = 65_536
#: Slots per value (at least) of the table :func:`_tally` counts distinct values with, and
#: the most slots (32 MiB): more values than a few hundred thousand share slots more often,
#: which costs time, not exactness.
_SLOTS_PER_VALUE = 8
_MAX_TABLE_BITS = 22

#: The support filter of a side whose every value is covered: whatever the filter would
#: drop, the support share stays 1, so its counts are not worked out.
_ALL_COVERED_FILTER = SupportFilter(False, "not needed: every value is covered")


def unsorted_coverage(
    ref: OrderedValues, cmp: OrderedValues, thresholds: Thresholds, *, family: str = "time"
) -> Coverage | None:
    """:func:`coverage` of two families in measurement order: the same numbers without
    sorting; ``None`` when this route does not apply (then sort both and call
    :func:`coverage`).

    Sorting 10,000 values costs several times what this does, and two runs of an
    unchanged kernel cover each other almost everywhere. Every value gets a bucket: its
    float32 bit pattern without the low mantissa bits, a run of whole ulps at most a
    quarter of the tolerance wide. A value with a value of the other side in its bucket
    or the two next to it on either side is covered (within three quarters of the
    tolerance, far more than the rounding of float32 cycles); counting values per bucket
    finds them without touching each value twice. The few others are searched exactly,
    with the float64 values and logs of :func:`_covered`, against the other side's
    values of the buckets within reach. A side whose every value is covered has sample
    and support shares of exactly 1; a side with uncovered values also needs its
    distinct values and their counts (support share, rare-value filter), which
    :func:`_tally` finds with a small table indexed by float32 bit pattern.
    """
    tolerance = math.log1p(thresholds.same_center_relative)
    shift = _bucket_shift(tolerance)
    if shift is None:
        return None
    reach = _CERTIFYING_BUCKETS
    # Bucket numbers from the bounds: buckets are monotonic in the value.
    base = (_float32_bits(min(ref.low, cmp.low)) >> shift) - reach
    top = _float32_bits(max(ref.high, cmp.high)) >> shift
    buckets = top - base + 1 + reach  # room for ``reach`` neighbours on both sides
    if buckets - 2 * reach > ref.size + cmp.size:  # too widely spread for buckets to pay
        return None
    ref_buckets = _buckets(ref, shift, base)
    cmp_buckets = _buckets(cmp, shift, base)
    ref_counts = np.bincount(ref_buckets, minlength=buckets)
    cmp_counts = np.bincount(cmp_buckets, minlength=buckets)
    ref_uncovered = _uncovered(
        ref, ref_buckets, ref_counts, cmp, cmp_buckets, cmp_counts, tolerance
    )
    if ref_uncovered is None:
        return None
    cmp_uncovered = _uncovered(
        cmp, cmp_buckets, cmp_counts, ref, ref_buckets, ref_counts, tolerance
    )
    if cmp_uncovered is None:
        return None
    return Coverage.judged(
        family,
        _unsorted_side(ref, ref_uncovered, thresholds),
        _unsorted_side(cmp, cmp_uncovered, thresholds),
        thresholds,
    )


def ordered_coverage(
    ref: OrderedValues, cmp: OrderedValues, thresholds: Thresholds, *, family: str = "time"
) -> Coverage:
    """:func:`coverage` of two families in measurement order: :func:`unsorted_coverage`
    where it applies (most SAME rows then sort nothing), else both families sorted."""
    return unsorted_coverage(ref, cmp, thresholds, family=family) or coverage(
        ref.sort(), cmp.sort(), thresholds, family=family
    )


def _float32_bits(value: float) -> int:
    """The bit pattern of ``value`` as a float32 (exact for the bounds, float32 values)."""
    return int(struct.unpack("<i", struct.pack("<f", value))[0])


def _buckets(values: OrderedValues, shift: int, base: int) -> npt.NDArray[np.intp]:
    """Each value's bucket number counted from ``base`` (intp: numpy's counting and
    indexing take it without a conversion)."""
    buckets = values.approx.view(np.int32).astype(np.intp)
    buckets >>= shift
    buckets -= base
    return buckets


def _bucket_shift(tolerance: float) -> int | None:
    """Low bits to drop from a positive float32's bit pattern so that a bucket (the values
    sharing the other bits) spans at most a quarter of ``tolerance``; ``None`` when the
    tolerance is below :data:`_MIN_UNSORTED_TOLERANCE` (or not a number).

    ``2**shift`` ulps of a value with mantissa ``m`` (1 <= m < 2) span ``2**(shift-23)/m``
    of it, relatively (more than the log-space width): between a sixteenth and a quarter
    of the tolerance. Such runs never cross a power of two, where the ulp changes.
    """
    if not tolerance >= _MIN_UNSORTED_TOLERANCE:
        return None
    return math.floor(math.log2(tolerance / 4)) + 23


def _uncovered(
    points: OrderedValues,
    point_buckets: npt.NDArray[np.intp],
    point_counts: CountArray,
    other: OrderedValues,
    other_buckets: npt.NDArray[np.intp],
    other_counts: CountArray,
    tolerance: float,
) -> FloatArray | None:
    """The exact values of ``points`` (one per sample, repeats kept) with no value of
    ``other`` within ``tolerance``; ``None`` when too many need an exact search.

    ``*_buckets`` are the values' bucket numbers, starting at :data:`_CERTIFYING_BUCKETS`
    (room for the neighbours of the first and last), ``*_counts`` the values per bucket.
    """
    reach = _CERTIFYING_BUCKETS
    buckets = other_counts.size
    occupied = other_counts > 0
    # near[k] for bucket k + reach: a value of the other side at most ``reach`` buckets away.
    near = occupied[reach : buckets - reach].copy()
    for step in range(1, reach + 1):
        near |= occupied[reach - step : buckets - reach - step]
        near |= occupied[reach + step : buckets - reach + step]
    lonely = point_counts[reach : buckets - reach].copy()
    lonely[near] = 0  # values per bucket left uncertified
    if not lonely.any():
        return np.empty(0, dtype=np.float64)
    if int(lonely.sum()) > _MAX_UNCERTIFIED:
        return None
    uncertified = lonely.nonzero()[0] + reach
    flagged = np.zeros(buckets, dtype=np.bool_)
    flagged[uncertified] = True
    remaining = points.exact(np.flatnonzero(flagged.take(point_buckets)))
    # The other side's values near the uncertified ones: those of the buckets within reach.
    wanted = np.zeros(buckets + _NEIGHBOUR_BUCKETS + 1, dtype=np.bool_)
    for bucket in uncertified.tolist():
        wanted[max(bucket - _NEIGHBOUR_BUCKETS, 0) : bucket + _NEIGHBOUR_BUCKETS + 1] = True
    if not (wanted[:buckets] & occupied).any():
        return remaining
    candidates = other.exact(np.flatnonzero(wanted.take(other_buckets)))
    if remaining.size * candidates.size > _MAX_PAIRS:
        covered = _covered(remaining, np.unique(candidates), None, tolerance)
    else:
        # Every pair at once: the smallest |log(c) - log(p)| is the nearest neighbour's
        # distance, computed as _covered computes it (same logs, same subtraction).
        distances = np.log(candidates)[None, :] - np.log(remaining)[:, None]
        np.abs(distances, out=distances)
        covered = distances.min(axis=1) <= tolerance
    return remaining[~covered]


def _unsorted_side(
    values: OrderedValues, uncovered: FloatArray, thresholds: Thresholds
) -> SideCoverage:
    """A side's shares: exactly 1 when nothing is uncovered, else from its distinct values
    and their counts (:func:`_tally`)."""
    if uncovered.size == 0:
        return SideCoverage(1.0, 1.0, _ALL_COVERED_FILTER)
    return _shares(*_tally(values, np.unique(uncovered)), values.size, thresholds)


def _tally(values: OrderedValues, missing: FloatArray) -> tuple[CountArray | None, BoolArray]:
    """Counts of the distinct values (``None`` when each occurs once) and whether each is
    covered, i.e. not one of ``missing`` (sorted distinct exact values that occur), in no
    particular order.

    Equal values have equal float32 bit patterns, hence equal slots in a table indexed by
    the pattern's low bits. The table keeps one sample per slot (whichever numpy writes
    last): a sample alone in its slot holds a value no other sample holds. Only the
    samples of shared slots (repeated values, and different values whose patterns end
    alike: about a tenth) are sorted, by exact value, and counted. The table (a few times
    as many slots as values) stays in the processor's cache.
    """
    size = values.size
    table = 1 << min(max(10, (_SLOTS_PER_VALUE * size).bit_length()), _MAX_TABLE_BITS)
    # intp indices throughout: numpy converts other index types on every use.
    slots = values.approx.view(np.int32).astype(np.intp)
    slots &= table - 1
    order = np.arange(size, dtype=np.intp)
    kept = np.empty(table, dtype=np.intp)
    kept[slots] = order
    owners = kept.take(slots)
    crowded = owners != order
    crowded[owners[crowded]] = True  # the sample kept in a shared slot shares it too
    group = np.flatnonzero(crowded)
    exact = values.exact(group)
    exact.sort()
    singles = size - group.size
    distinct, shared_counts = _runs(exact)
    covered = np.ones(singles + distinct.size, dtype=np.bool_)
    if missing.size:
        found = np.searchsorted(distinct, missing)
        repeated = (
            distinct.take(found, mode="clip") == missing
            if distinct.size
            else np.zeros(missing.size, dtype=np.bool_)
        )
        # Values held once all count alike (one sample each): which of them are the
        # uncovered ones does not matter, only how many.
        covered[: missing.size - int(np.count_nonzero(repeated))] = False
        covered[singles + found[repeated]] = False
    if shared_counts is None:
        return None, covered
    return np.concatenate((np.ones(singles, dtype=np.int64), shared_counts)), covered


def _runs(ordered: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], CountArray | None]:
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
    # (np.diff with ``append`` costs several times this on arrays of this size.)
    counts = np.empty(first.size, dtype=np.int64)
    np.subtract(first[1:], first[:-1], out=counts[:-1])
    counts[-1] = ordered.size - first[-1]
    return ordered.take(first), counts
