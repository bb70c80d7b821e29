"""Robust, local standardisation of many series at once (see :mod:`.changepoint`).

Scale from differences
    The run-to-run noise is estimated from the first differences, ``1.4826 MAD(diff) /
    sqrt(2)`` per series (a difference-based estimator, Rice 1984, *Bandwidth choice for
    nonparametric regression*, Ann. Statist. 12:1215; with the MAD for robustness as in
    Fryzlewicz 2014, *Wild binary segmentation*, Ann. Statist. 42:2243, §3). A level shift
    moves one difference and a slow trend shifts all of them alike, so neither inflates the
    scale, which a spread around one mean (or one fitted step) would.

Outliers clipped against a running median
    Each value is winsorised to within ``clip`` (3) scales of the running median of the
    ``2 half + 1`` runs around it (Huber 1964's clipping of residuals; the running median
    as a robust local level, Tukey 1977): a single slow run contributes at most 3 scales
    to any window, whereas a sustained shift moves the running median with it after
    ``half`` runs and is kept whole.

    Beside a level shift the centred median is that of whichever level holds more of its
    window, and one outlying run there tips it: the last run before a step was clipped
    toward the new level, which moved the step one run early (a rerun burst three runs
    before a 6 % step: the step placed early in 12 of 30 series). So where the medians of
    the ``half`` runs before and after a run differ by more than ``2 clip`` scales (an
    edge), the run is clipped around the one nearer its own value, as edge-preserving
    median filters choose among one-sided medians (Heinonen & Neuvo 1987, *FIR-median
    hybrid filters*, IEEE Trans. ASSP 35:832); elsewhere around the centred median.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..compare.bootstrap import MAD_TO_SD

if TYPE_CHECKING:
    from .._arrays import FloatArray

__all__ = [
    "CLIP",
    "ar1_window_scale",
    "clip_centres",
    "correlation_lower_bound",
    "correlation_variance",
    "difference_correlation",
    "difference_scale",
    "pooled_correlation",
    "pooled_lower_bound",
    "robust_scores",
    "robust_spread",
]

#: Scales from the running median beyond which a run is clipped (normal runs: 0.3 %).
CLIP: Final = 3.0


def difference_scale(values: FloatArray) -> FloatArray:
    """``1.4826 MAD(diff) / sqrt(2)`` per row; the mean absolute difference where the MAD
    is zero (a series with mostly repeated values); zero for a constant row."""
    diffs = np.diff(values, axis=1)
    if diffs.shape[1] == 0:
        return np.zeros(values.shape[0])
    centred = np.abs(diffs - np.median(diffs, axis=1, keepdims=True))
    out: FloatArray = robust_spread(centred) / math.sqrt(2.0)
    return out


def robust_spread(deviations: FloatArray, nil: float = 0.0) -> FloatArray:
    """Per row of absolute ``deviations`` from the row's median: ``1.4826`` times their
    median (the MAD), or ``sqrt(pi / 2)`` times their mean where the MAD is ``nil`` or less
    (a row of mostly repeated values); both estimate a normal standard deviation."""
    mad = MAD_TO_SD * np.median(deviations, axis=1)
    mean_abs = math.sqrt(math.pi / 2.0) * deviations.mean(axis=1)
    out: FloatArray = np.where(mad > nil, mad, mean_abs)
    return out


def clip_centres(values: FloatArray, half: int, reach: FloatArray) -> FloatArray:
    """The level each run is clipped around (module docstring): the median of the ``2 half
    + 1`` runs around it, or at an edge (the medians of the ``half`` runs before and after
    it more than ``reach`` apart, per row) the one of those nearer the run (ends
    reflected)."""
    runs = values.shape[1]
    half = min(half, runs - 1)
    if half < 1:
        same: FloatArray = np.array(values, copy=True)
        return same
    padded = np.pad(values, ((0, 0), (half, half)), mode="reflect")
    windows = sliding_window_view(padded, 2 * half + 1, axis=1)
    centred = np.median(windows, axis=2)
    before = np.median(windows[:, :, :half], axis=2)
    after = np.median(windows[:, :, half + 1 :], axis=2)
    nearer = np.where(np.abs(values - before) <= np.abs(values - after), before, after)
    out: FloatArray = np.where(np.abs(after - before) > reach, nearer, centred)
    return out


def robust_scores(values: FloatArray, half: int, clip: float = CLIP) -> FloatArray:
    """Each row in units of its difference scale, clipped around its running median (its
    nearer side's at an edge) and centred (module docstring); rows of zero scale become
    zeros."""
    scale = difference_scale(values)
    safe = np.where(scale > 0, scale, 1.0)[:, None]
    center = clip_centres(values, half, 2.0 * clip * safe)
    out: FloatArray = center / safe + np.clip((values - center) / safe, -clip, clip)
    out -= out.mean(axis=1, keepdims=True)
    out[scale <= 0] = 0.0
    return out


#: Standard deviation of :func:`difference_correlation` times ``sqrt(N)``: at most 1.9 in
#: simulations of AR(1) noise with rho 0 .. 0.7 and 50 .. 400 runs (1.4 at rho 0).
CORRELATION_SPREAD: Final = 1.9


def correlation_lower_bound(rho: FloatArray, runs: int, z: float = 1.645) -> FloatArray:
    """One-sided lower confidence bound (95 % by default) of the lag-one correlation whose
    :func:`difference_correlation` over ``runs`` runs is ``rho``: the estimate less ``z`` of
    its standard deviations, at least 0."""
    out: FloatArray = np.maximum(rho - z * CORRELATION_SPREAD / math.sqrt(runs), 0.0)
    return out


def difference_correlation(values: FloatArray, *, clipped: bool = True) -> FloatArray:
    """Lag-one autocorrelation of each row's noise from its differences, clipped to
    ``[0, 0.9]``: for AR(1) noise ``Var(x_t - x_(t-2)) / Var(x_t - x_(t-1)) = 1 + rho``; both
    variances of differences winsorised at 3 robust standard deviations, which a trend (a
    constant in every difference) does not move. Level shifts still raise it, winsorised or
    not: each is one large first difference but two large second differences (three steps of
    3, 5 and 10 % in AR(1) noise with rho 0.5 read 0.64), so the scan estimates it again from
    the series less the means between the changes it found."""
    if values.shape[1] < 4:
        return np.zeros(values.shape[0])
    spreads = []
    for lag in (1, 2):
        diffs = values[:, lag:] - values[:, :-lag]
        centred = diffs - np.median(diffs, axis=1, keepdims=True)
        bound = CLIP * MAD_TO_SD * np.median(np.abs(centred), axis=1, keepdims=True)
        spreads.append(np.mean(np.clip(centred, -bound, bound) ** 2, axis=1))
    ratio = np.where(spreads[0] > 0, spreads[1] / np.where(spreads[0] > 0, spreads[0], 1.0), 1.0)
    # Unclipped (``clipped=False``) for pooling: the mean of estimates clipped at 0 lies
    # above a correlation near 0.
    out: FloatArray = np.clip(ratio - 1.0, 0.0, 0.9) if clipped else ratio - 1.0
    return out


def pooled_correlation(rho: FloatArray, runs: int) -> FloatArray:
    """Each series' lag-one correlation shrunk toward the mean of the series scanned with it.

    One series' :func:`difference_correlation` is noisy (standard deviation about 0.06 to
    0.13 at 200 runs, rising with the correlation), and the long-run factor
    ``(1 + rho) / (1 - rho)`` that widens the step-versus-trend choice is convex in it, so
    the noise alone makes that choice stricter on average. Series scanned together come from
    one archive: mostly one machine, or a few, and their drift. The positive-part James-Stein
    estimator toward their mean (Efron & Morris 1973, *Stein's estimation rule and its
    competitors: an empirical Bayes approach*, JASA 68:117) shrinks by
    ``B = (k - 3) v / sum((rho_i - mean)^2)``, at most 1, ``v`` the estimator's sampling
    variance at the mean (:func:`correlation_variance`): all the way when the estimates
    scatter no more than sampling noise explains, little when the series' correlations truly
    differ. Fewer than four series are left as they are (the estimator needs ``k > 3``).
    """
    if rho.size < 4:
        same: FloatArray = np.array(rho, dtype=np.float64, copy=True)
        return same
    mean, shrink = _shrinkage(rho, runs)
    out: FloatArray = mean + (1.0 - shrink) * (rho - mean)
    return out


def _shrinkage(rho: FloatArray, runs: int, clipped: bool = True) -> tuple[float, float]:
    """The mean of ``rho`` (four or more series) and the James-Stein factor ``B`` toward it
    (:func:`pooled_correlation`), with the sampling variance of the estimates as given,
    ``clipped`` or not (the clipped ones vary less near 0 and 0.9)."""
    mean = float(rho.mean())
    scatter = float(np.sum((rho - mean) ** 2))
    variance = correlation_variance(mean, runs, clipped=clipped)
    shrink = 1.0 if scatter <= 0 else min(1.0, (rho.size - 3) * variance / scatter)
    return mean, shrink


def pooled_lower_bound(rho: FloatArray, runs: int, z: float = 1.645) -> FloatArray:
    """:func:`correlation_lower_bound` of each series' correlation pooled across the series
    (:func:`pooled_correlation`): the shrunk estimate less ``z`` of its posterior standard
    deviation, ``sqrt(1 - B)`` times the single series' (the empirical-Bayes posterior
    variance of a normal mean shrunk by ``B``, Morris 1983, *Parametric empirical Bayes
    inference*, JASA 78:47). ``rho`` unclipped (:func:`difference_correlation` with
    ``clipped=False``); the bound is clipped to ``[0, 0.9]``. Fewer than four series: the
    single series' bound.

    The shrunk estimate is taken to at most 0.9 before the bound is subtracted, as the
    single series' estimate is: an estimate past the range (a short series with a step reads
    up to 3) would otherwise keep its bound at 0.9, the widest floor, whatever its
    uncertainty, and that floor can hide the very step that raised the estimate (a real GPU
    history of 20 runs lost a 2 % step there that the series alone showed;
    docs/history-detection-record.md, *A real GPU history*)."""
    if rho.size < 4:
        return correlation_lower_bound(np.clip(rho, 0.0, 0.9), runs, z)
    mean, shrink = _shrinkage(rho, runs, clipped=False)
    shrunk = np.minimum(mean + (1.0 - shrink) * (rho - mean), 0.9)
    spread = math.sqrt(1.0 - shrink) * CORRELATION_SPREAD / math.sqrt(runs)
    out: FloatArray = np.clip(shrunk - z * spread, 0.0, 0.9)
    return out


def correlation_variance(
    rho: float, runs: int, series: int = 512, *, clipped: bool = True
) -> float:
    """Sampling variance of :func:`difference_correlation` (clipped or not) for AR(1) noise
    with lag-one correlation ``rho`` and ``runs`` runs, from ``series`` simulated series (a
    fixed seed, so the same inputs give the same value)."""
    rng = np.random.default_rng(np.random.SeedSequence([runs, 0xC0EE]))
    rho = min(max(rho, 0.0), 0.9)
    shocks = rng.standard_normal((series, runs)) * math.sqrt(1.0 - rho * rho)
    noise = np.empty((series, runs))
    noise[:, 0] = rng.standard_normal(series)
    for run in range(1, runs):
        noise[:, run] = rho * noise[:, run - 1] + shocks[:, run]
    return float(np.var(difference_correlation(noise, clipped=clipped)))


def ar1_window_scale(rho: FloatArray, widths: Sequence[int]) -> FloatArray:
    """Standard deviation of the moving-sum statistic of ``w`` runs a side, in units of the
    difference scale, for AR(1) noise with lag-one correlation ``rho``: ``(rows, windows)``.

    ``z_w = (mean(after) - mean(before)) / sqrt(2 / w)`` has variance ``a' S a w / 2`` with
    ``S_ij = rho^|i - j|`` (marginal variance 1) and ``a`` the two sides' weights; the
    marginal variance is ``1 / (1 - rho)`` difference-scale units squared.
    """
    out = np.empty((rho.size, len(widths)))
    for column, width in enumerate(widths):
        weights = np.concatenate((np.full(width, -1.0 / width), np.full(width, 1.0 / width)))
        pairs = np.correlate(weights, weights, mode="full")[2 * width - 1 :]  # lags 0..2w-1
        lags = np.arange(pairs.size)
        variance = (2.0 * (rho[:, None] ** lags[None, :]) @ pairs - pairs[0]) * width / 2.0
        out[:, column] = np.sqrt(np.maximum(variance, 0.0) / (1.0 - rho))
    return out
