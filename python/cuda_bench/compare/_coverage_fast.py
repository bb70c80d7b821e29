"""Coverage (:mod:`.coverage`) of two families read in measurement order, without sorting.

Sorting a side's samples would be most of what a row with side files costs, and two runs
of an unchanged kernel cover each other almost everywhere. :func:`unsorted_coverage` buckets
every value by its float32 bit pattern (monotonic in the value, so equal and nearby values
share buckets), certifies the values with a value of the other side in a nearby bucket,
and searches only the few others exactly, with the float64 values and logs
:func:`.coverage.covered_by` uses. It gives :func:`.coverage.coverage`'s numbers, or ``None``
where it does not apply (then :func:`ordered_coverage` sorts both families and asks the
reference). Pure functions of their inputs; tests hold them to the reference on random
families.
"""

from __future__ import annotations

import math
import struct
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .._arrays import BoolArray, FloatArray
    from .._arrays import IntArray as CountArray
else:
    from .._lazy import numpy as np

from .bulk import OrderedValues, distinct_runs
from .coverage import Coverage, SideCoverage, SupportFilter, coverage, covered_by, side_shares
from .thresholds import Thresholds

__all__ = ["ordered_coverage", "unsorted_coverage"]


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

    No value is sorted: two runs of an unchanged kernel cover each other almost
    everywhere, and counting values per bucket shows it. Every value gets a bucket: its
    float32 bit pattern without the low mantissa bits, a run of whole ulps at most a
    quarter of the tolerance wide. A value with a value of the other side in its bucket
    or the two next to it on either side is covered (within three quarters of the
    tolerance, far more than the rounding of float32 cycles); counting values per bucket
    finds them without touching each value twice. The few others are searched exactly,
    with the float64 values and logs of :func:`.coverage.covered_by`, against the other
    side's values of the buckets within reach. A side whose every value is covered has
    sample and support shares of exactly 1; a side with uncovered values also needs its
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
        covered = covered_by(remaining, np.unique(candidates), None, tolerance)
    else:
        # Every pair at once: the smallest |log(c) - log(p)| is the nearest neighbour's
        # distance, computed as covered_by computes it (same logs, same subtraction).
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
    return side_shares(*_tally(values, np.unique(uncovered)), values.size, thresholds)


def _tally(values: OrderedValues, missing: FloatArray) -> tuple[CountArray | None, BoolArray]:
    """Counts of the distinct values (``None`` when each occurs once) and whether each is
    covered, i.e. not one of ``missing`` (sorted distinct exact values that occur), in no
    particular order.

    Equal values have equal float32 bit patterns, hence equal slots in a table indexed by
    the pattern's low bits. The table keeps one sample per slot (whichever numpy writes
    last): a sample alone in its slot holds a value no other sample holds. Only the
    samples of shared slots (repeated values, and different values whose patterns end
    alike: few, with several slots per value) are sorted, by exact value, and counted.
    The table (a few times as many slots as values) stays in the processor's cache.
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
    distinct, shared_counts = distinct_runs(exact)
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
