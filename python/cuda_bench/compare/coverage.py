"""Nearest-neighbour coverage of one run's per-sample values by another's (reference §3.6).

Two runs of an unchanged kernel produce the same *set* of values: NVBench's timers are
quantized, so times repeat, and a shifted mode shows up as values the other run never
produced. For every distinct value on one side we measure, in log space, the distance to
the nearest distinct value on the other side; a value is *covered* when that distance is
at most ``log1p(same.center_relative)``, i.e. a relative difference of at most the SAME
tolerance. Per side we report

* *sample coverage*: the share of samples whose value is covered (weighted by counts);
* *support coverage*: the share of distinct values that are covered, after dropping
  *rare* values (see :func:`rare_support_filter`) so that a handful of one-off outliers
  does not decide the support score.

The runs agree (bulk SAME) when both sample coverages reach ``bulk.sample_coverage`` and
both support coverages reach ``bulk.support_coverage``. The test is symmetric: a new mode
in either run fails it.

:func:`coverage` works on the u distinct values of two sorted families
(:class:`~.bulk.SortedSamples`): buckets of half the tolerance, counted by a binary search
of the few bucket edges, certify almost every value of two overlapping distributions in
O(u); only the r remaining values get an exact binary search for their nearest neighbour
and the logs that decide it (O(r log u)). That gives the answers a binary search and a log
for every value would give, for less. The robust method first asks
:func:`._coverage_fast.unsorted_coverage`, which decides from the values in measurement
order without sorting them.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

import msgspec

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .._arrays import BoolArray, FloatArray
    from .._arrays import IntArray as CountArray
    from .bulk import SortedSamples
else:
    from .._lazy import numpy as np

from .thresholds import Thresholds

__all__ = [
    "Coverage",
    "SideCoverage",
    "SupportFilter",
    "coverage",
    "covered_by",
    "rare_support_filter",
    "side_shares",
]


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


def _edge_factors(width: float, count: int) -> FloatArray:
    """``exp(k * width)`` for k = 0 .. count - 1, read-only."""
    # Comparisons under one tolerance cut buckets of one width: the factors are computed
    # once per width and length class, and sliced (element k is exp(k * width) whatever
    # the length of the array).
    return _edge_factor_table(width, max(256, 1 << (count - 1).bit_length()))[:count]


@functools.lru_cache(maxsize=16)
def _edge_factor_table(width: float, size: int) -> FloatArray:
    factors = np.exp(np.arange(size, dtype=np.float64) * width)
    factors.flags.writeable = False
    return factors


def covered_by(
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
    return side_shares(values.counts, covered, values.size, thresholds)


def side_shares(
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
    ref_covered = covered_by(ref.unique, cmp.unique, ref_certified, tolerance)
    cmp_covered = covered_by(cmp.unique, ref.unique, cmp_certified, tolerance)
    return Coverage.judged(
        family,
        _side_coverage(ref, ref_covered, thresholds),
        _side_coverage(cmp, cmp_covered, thresholds),
        thresholds,
    )
