"""The estimates a decision compares, from the evidence of both sides of a row.

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

from .evidence import SideEvidence, valid_interval
from .model import EvidenceSource, Interval, SideEstimate

__all__ = ["estimates"]


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
    # Positional, in field order: built for every row, and matching keywords would slow
    # each one.
    return SideEstimate(
        center,
        noise,
        valid_interval(interval),
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
    and only while the other side can still be robust. Where the benchmark skipped one side
    only, each side gets the best estimate it can give alone.
    """
    if ref.is_skipped != cmp.is_skipped:
        # One side was not measured: there is nothing to compare, and the measured side
        # keeps its own best estimate (its interval), as a state without counterpart does.
        return estimates(ref, ref)[0], estimates(cmp, cmp)[1]
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
