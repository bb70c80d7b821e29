"""A pattern that repeats every ``P`` runs, found and taken out before the scan.

Why
    A series whose level follows a cycle (a nightly benchmark on a weekly schedule of
    machines or load, three runners taking turns, a monthly series' seasons) is neither a
    level shift nor noise. Left in, the cycle is read as noise: the difference-based scale
    and the dependence factors grow with it and a real step beside it goes unseen (TCPD's
    ``seatbelts``: the 1983 law's step at run 169 in a monthly series with a strong yearly
    cycle). Removing a fitted seasonal component before looking for breaks is the design of
    BFAST (Verbesselt, Hyndman, Newnham & Culvenor 2010, *Detecting trend and seasonal
    changes in satellite image time series*, Remote Sens. Environ. 114:106) and of the
    classical decomposition (a centred average of one period as the level, the pattern
    from what is left; Hyndman & Athanasopoulos, *Forecasting: Principles and Practice*,
    3rd ed., "Classical decomposition").

The test, for each period ``P`` from 3 to ``(N - 1) // 8`` (eight cycles or more) and at
most ``LONGEST`` (64)
    On the first differences ``d`` of the log medians, winsorised at 3 robust scales (a
    step or an outlier is one or two large differences and must not look periodic), less
    the mean of the ``P`` differences around each run (the change over one period: a
    pattern that repeats every ``P`` runs contributes nothing to it, a slow change of slope
    all of it, so a smooth curve, whose differences correlate at every lag, is not read
    as a cycle): the lag-``P`` autocorrelation ``r_P``, as
    ``z_P = r_P sqrt(m / (1 + 2 r_1^2))``, ``m`` the differences compared and ``r_1`` their
    lag-one autocorrelation (Bartlett's variance of a sample autocorrelation when only lag
    one is correlated, the dependence differencing leaves; Bartlett 1946, J. R. Stat. Soc.
    Suppl. 8:27). Not from 2: there the mean of the two differences around a run is half
    the second difference, whose lag-2 autocorrelation is positive in noise alone (so two
    runners taking turns are not looked for).
    A pattern is fitted where the largest ``z_P`` reaches the one-sided normal quantile of
    ``GAMMA / L`` for the ``L`` periods tried (a Bonferroni bound): in about ``GAMMA``
    (0.01 %) of series without one, a hundredth of the scan's false-alarm budget, for a
    pattern fitted by mistake, though it adds no change itself, can move a step beside it
    or, through the correlation pooled across series, tip a marginal one. The periods
    whose ``z_P`` is within 2 of the largest (sampling alone) compete on fit: the pattern
    taken is the one that leaves the least noise (the scan's difference-based scale), ties
    going to the shortest period (a smooth cycle of ``P`` runs correlates nearly as well at
    ``P - 1``). Then the period gives way to its shortest divisor whose repeats carry
    ``SHARE`` (nine tenths) of the pattern's variance: any cycle repeats its
    autocorrelation at ``2P``, ``3P`` ..., and a smooth one is the second or third harmonic
    there, fitted as well with as many numbers.

Runs missing (``observed``, :mod:`._cycle_runs`)
    Only differences of two observed runs are compared: the mean over ``P`` around each run
    is of those present, the autocorrelations are over the pairs present (Parzen 1963,
    Sankhyā A 25:383) and ``m`` counts the pairs at lag ``P``; the periods are bounded by
    the observed runs; each phase's median is of its observed runs. A filled-in value
    enters only the running level below.

The pattern
    The log medians less their running median over the one period around each run (for an
    even ``P`` the mean of the medians of the two ``P``-run windows half a run either side:
    the level, a step kept whole after ``P // 2`` runs), per phase ``t mod P`` the
    median of what is left, smoothed by least squares to ``HARMONICS`` (3) harmonics of the
    period: the harmonic season of BFAST's second form (Verbesselt, Hyndman, Zeileis &
    Culvenor 2010, *Phenological change detection while accounting for abrupt and gradual
    trends in satellite image time series*, Remote Sens. Environ. 114:2970), three
    harmonics as its ``bfast`` package fits. Six numbers describe any period, so a long
    period does not fit its noise (``P`` phase medians of a 63-run period would take an
    eighth of the series' degrees of freedom); up to a period of 7 they are every pattern.
    The scan then works on the medians less the pattern, and so does the confirmation of
    each change (:func:`.detect.adjusted`), so levels and ratios are the seasonally
    adjusted ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..compare.bootstrap import normal_quantile
from ._robust import difference_scale, robust_spread

if TYPE_CHECKING:
    from .._arrays import BoolArray, FloatArray

__all__ = [
    "CYCLES",
    "GAMMA",
    "HARMONICS",
    "LONGEST",
    "SHARE",
    "pattern_over",
    "seasonal_patterns",
    "without_patterns",
]

#: Per-series probability of fitting a pattern to a series without one (a hundredth of the
#: scan's 1 % per 200 runs: a pattern fitted by mistake can move a step beside it).
GAMMA: Final = 0.0001
#: Fewest whole cycles a period needs: each phase's median is over this many runs or more.
CYCLES: Final = 8
#: Robust scales at which the differences are winsorised (as the scores are: ``_robust.CLIP``).
_CLIP: Final = 3.0
#: Spread of the log differences at or below which they are equal but for rounding (a
#: relative change of 1e-9; a float32 time resolves 6e-8).
_ROUNDING: Final = 1e-9
#: Harmonics of the pattern (the module docstring).
HARMONICS: Final = 3
#: Longest period tried: the test costs ``O(N)`` per period and series, so the periods are
#: bounded apart from the length (a year of weekly runs, 52, is within it).
LONGEST: Final = 64
#: Periods whose ``z`` lies within this of the largest compete on fit (two standard
#: deviations of ``z`` apart: sampling alone).
_NEAR: Final = 2.0
#: Share of a pattern's variance that its average over the repeats of a divisor of its
#: period must carry for the cycle to be taken at the divisor (nine tenths: the rest is
#: of the order of the pattern's estimation noise where the cycle clears the bound).
SHARE: Final = 0.9


def seasonal_patterns(
    log_medians: FloatArray, observed: BoolArray | None = None
) -> tuple[tuple[float, ...], ...]:
    """Per row of ``log_medians`` (``(S, N)``), its pattern (``P`` log offsets, phase
    ``t mod P`` first at run 0, mean 0), or ``()`` where no period is shown. ``observed``
    (``(S, N)``) marks the runs that hold a value where some were filled in (missing runs,
    :mod:`._cycle_runs`): the test then compares only differences of two observed runs, the
    periods are bounded by the observed runs, and each phase's median is of its observed
    runs, so a filled value is never evidence of a cycle."""
    values = np.asarray(log_medians, dtype=np.float64)
    if observed is not None and not np.all(observed):
        whole = np.all(observed, axis=1)
        found = iter(seasonal_patterns(values[whole]) if np.any(whole) else ())
        return tuple(
            next(found) if complete else _with_gaps(row, mask)
            for row, mask, complete in zip(values, observed, whole, strict=True)
        )
    rows, runs = values.shape
    periods = range(3, min(LONGEST, (runs - 1) // CYCLES) + 1)
    if not periods:
        return tuple(() for _ in range(rows))
    differences = _winsorised_differences(values)
    z = np.stack([_period_z(differences, period) for period in periods], axis=1)
    largest = z.max(axis=1)
    bar = normal_quantile(1.0 - GAMMA / len(periods))
    out: list[tuple[float, ...]] = []
    for row in range(rows):
        if largest[row] < bar:
            out.append(())
            continue
        near = [p for p, z_p in zip(periods, z[row], strict=True) if z_p >= largest[row] - _NEAR]
        out.append(_best_pattern(values[row], near))
    return tuple(out)


def _with_gaps(row: FloatArray, observed: BoolArray) -> tuple[float, ...]:
    """:func:`seasonal_patterns` of one row whose unobserved runs were filled in."""
    periods = range(3, min(LONGEST, (int(np.sum(observed)) - 1) // CYCLES) + 1)
    if not periods:
        return ()
    # A difference is evidence only between two observed runs.
    valid = observed[1:] & observed[:-1]
    if not np.any(valid):
        return ()
    differences = _gapped_differences(row, valid)
    z = np.array([_gapped_period_z(differences, valid, period) for period in periods])
    if not z.max() >= normal_quantile(1.0 - GAMMA / len(periods)):
        return ()
    near = [p for p, z_p in zip(periods, z, strict=True) if z_p >= z.max() - _NEAR]
    return _best_pattern(row, near, observed)


def _best_pattern(
    row: FloatArray, periods: Sequence[int], observed: BoolArray | None = None
) -> tuple[float, ...]:
    """Of the patterns of ``periods`` (ascending), the one that leaves ``row`` the least
    noise (the scan's difference-based scale), ties going to the shortest period: a smooth
    cycle of ``P`` runs correlates nearly as well at ``P - 1``. Then the pattern at the
    shortest divisor of its period that carries ``SHARE`` of it: a cycle of ``q`` runs
    shows again at ``2q``, ``3q`` ..., and a smooth one is the second or third harmonic
    there, fitted as well with as many numbers."""
    patterns = {period: _pattern(row, period, observed) for period in periods}
    left = np.stack([row - pattern_over(pattern, row.size) for pattern in patterns.values()])
    # The noise the scan would see: of the observed runs alone (a filled run is no evidence,
    # and a long filled stretch of flat differences favoured a flat, wrong pattern).
    noise = difference_scale(left if observed is None else left[:, observed])
    chosen = patterns[periods[int(np.argmax(noise <= noise.min() * (1.0 + 1e-9) + _ROUNDING))]]
    period = len(chosen)
    energy = float(np.sum(np.square(chosen)))
    for divisor in range(3, period):
        if period % divisor:
            continue
        folded = np.asarray(chosen).reshape(period // divisor, divisor).mean(axis=0)
        if period // divisor * float(np.sum(np.square(folded))) >= SHARE * energy:
            # A candidate already fitted at the divisor is not fitted again.
            return patterns.get(divisor) or _pattern(row, divisor, observed)
    return chosen


def _winsorised_differences(values: FloatArray) -> FloatArray:
    """The first differences clipped at ``_CLIP`` robust scales of their median; a row whose
    differences are equal but for rounding (a constant, a steady geometric trend) is all
    zero, so its ``z`` is 0, not rounding error over rounding error."""
    return _clipped(np.diff(values, axis=1))


def _clipped(differences: FloatArray) -> FloatArray:
    """Each row of ``differences`` clipped at ``_CLIP`` robust scales of its median; all 0
    where the row does not vary beyond rounding."""
    centre = np.median(differences, axis=1, keepdims=True)
    # The mean absolute deviation where the MAD is rounding (mostly repeated values: a
    # timer's resolution), as for the noise scale (:func:`._robust.difference_scale`).
    spread = robust_spread(np.abs(differences - centre), nil=_ROUNDING)[:, None]
    reach = _CLIP * spread
    varies = spread > _ROUNDING
    out: FloatArray = np.where(varies, np.clip(differences, centre - reach, centre + reach), 0.0)
    return out


def _gapped_differences(row: FloatArray, valid: BoolArray) -> FloatArray:
    """The first differences of one row between two observed runs (``valid``), clipped as
    :func:`_winsorised_differences` clips them, on those alone; 0 elsewhere (never
    compared)."""
    out: FloatArray = np.zeros(row.size - 1)
    out[valid] = _clipped(np.diff(row)[valid][None, :])[0]
    return out


def _period_z(differences: FloatArray, period: int) -> FloatArray:
    """``z_P`` per row (module docstring); 0 where the differences do not vary."""
    sums = np.cumsum(differences, axis=1)
    sums = np.concatenate([np.zeros((sums.shape[0], 1)), sums], axis=1)
    around = (sums[:, period:] - sums[:, :-period]) / period
    start = period // 2
    left = differences[:, start : start + around.shape[1]] - around
    left = left - left.mean(axis=1, keepdims=True)
    power = np.einsum("ij,ij->i", left, left)
    lagged = np.einsum("ij,ij->i", left[:, period:], left[:, :-period])
    first = np.einsum("ij,ij->i", left[:, 1:], left[:, :-1])
    with np.errstate(invalid="ignore", divide="ignore"):
        r_period = lagged / power
        r_first = first / power
        z = r_period * np.sqrt(left.shape[1] / (1.0 + 2.0 * r_first * r_first))
    out: FloatArray = np.where(power > 0, z, 0.0)
    return out


def _gapped_period_z(differences: FloatArray, valid: BoolArray, period: int) -> float:
    """``z_P`` of one row of which only the ``valid`` differences are compared: the mean
    over ``P`` around each run of the valid ones, the autocorrelations over the pairs both
    valid (as sample autocorrelations with missing values are taken: Parzen 1963, *On
    spectral analysis with missing observations and amplitude modulation*, Sankhyā A
    25:383), ``m`` the pairs at lag ``P``."""
    flags = valid.astype(np.float64)
    sums = np.concatenate(([0.0], np.cumsum(differences * flags)))
    counts = np.concatenate(([0.0], np.cumsum(flags)))
    inside = counts[period:] - counts[:-period]
    around = (sums[period:] - sums[:-period]) / np.maximum(inside, 1.0)
    start = period // 2
    # A window of one valid difference leaves it nothing but rounding error: no evidence.
    keep = valid[start : start + around.size] & (inside > 1)
    if np.count_nonzero(keep) < 2:
        return 0.0
    left = np.where(keep, differences[start : start + around.size] - around, 0.0)
    left = np.where(keep, left - left[keep].mean(), 0.0)
    variance = float(np.dot(left, left)) / np.count_nonzero(keep)
    pairs = np.count_nonzero(keep[period:] & keep[:-period])
    if not variance > 0.0 or pairs < 2:
        return 0.0
    r_period = float(np.dot(left[period:], left[:-period])) / pairs / variance
    beside = max(1, int(np.count_nonzero(keep[1:] & keep[:-1])))
    r_first = float(np.dot(left[1:], left[:-1])) / beside / variance
    return r_period * float(np.sqrt(pairs / (1.0 + 2.0 * r_first * r_first)))


def _pattern(row: FloatArray, period: int, observed: BoolArray | None = None) -> tuple[float, ...]:
    left = row - _running_level(row, period)
    # Per phase the median (an outlier or the runs beside a step move it little), of its
    # observed runs only where some were filled in; then the harmonics fitted to those
    # medians (at the phases that have one).
    if observed is None:
        phases = np.arange(period)
        medians = np.array([np.median(left[phase::period]) for phase in range(period)])
    else:
        groups = [left[phase::period][observed[phase::period]] for phase in range(period)]
        phases = np.array([phase for phase, group in enumerate(groups) if group.size])
        medians = np.array([np.median(group) for group in groups if group.size])
    angle = 2.0 * np.pi * np.arange(period) / period
    harmonics = range(1, min(HARMONICS, period // 2) + 1)
    design = np.column_stack([f(k * angle) for k in harmonics for f in (np.cos, np.sin)])
    fitted = design @ np.linalg.lstsq(design[phases], medians - medians.mean(), rcond=None)[0]
    return tuple(float(x) for x in fitted)


def _running_level(row: FloatArray, period: int) -> FloatArray:
    """The median of the one period around each run: for an even period the mean of the
    medians of the two windows of ``period`` runs that centre on it half a run either
    side (a window of ``period + 1`` runs would count one phase twice)."""
    half = period // 2
    padded = np.pad(row, half, mode="edge")
    medians = np.median(sliding_window_view(padded, period), axis=1)
    if period % 2:
        out: FloatArray = medians
    else:
        out = 0.5 * (medians[:-1] + medians[1:])
    return out


def without_patterns(values: FloatArray, patterns: Sequence[tuple[float, ...]]) -> FloatArray:
    """``values`` (``(S, N)``) less each row's pattern repeated over its runs; ``values``
    itself where no row has one (the scan's usual case: no copy)."""
    if not any(patterns):
        return values
    out: FloatArray = np.array(values, dtype=np.float64)
    for row, pattern in enumerate(patterns):
        if pattern:
            out[row] -= pattern_over(pattern, out.shape[1])
    return out


def pattern_over(pattern: Sequence[float], runs: int) -> FloatArray:
    """``pattern`` repeated over ``runs`` runs from phase 0."""
    out: FloatArray = np.resize(np.asarray(pattern, dtype=np.float64), runs)
    return out
