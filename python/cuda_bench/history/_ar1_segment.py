"""Penalised segmentation of the decorrelated robust scores: further change proposals.

The scan finds changes window by window and then splits stretches by binary segmentation;
both judge one change at a time, so a 3 % step next to a slow trend in AR(1) noise is often
hidden (the trend widens the null of every window). Chakar, Lebarbier, Lévy-Leduc and Robin
(2017, Bernoulli 23:1408, "A robust approach for estimating change-points in the mean of an
AR(1) process") segment an AR(1) series with shifts in the mean by decorrelating it,
``u_t = z_t - rho z_{t-1}`` with a robust ``rho``, and minimising a penalised least-squares
cost over all segmentations at once. Here ``z`` are the scan's robust scores, ``rho`` the
correlation pooled across the series scanned together (why this needs many series: one
series' ``rho`` is too noisy, docs/history-detection.md), and the exact minimum is found by
optimal partitioning (Jackson et al. 2005, IEEE Signal Processing Letters 12:105),
vectorised across series. Each segment's first ``u`` is its own parameter (the AR(1)
transition at a shift is ``(1 - rho)`` of the shift plus the full shift at one point), and
one straight-line slope shared by the whole series may be fitted too (charged a tenth of a
change's penalty), so a slow trend is not cut into steps; the slope is refitted within the
segments (each its own level), since a line through the series is tilted by its steps.

The segments' ends are proposals only: :func:`._refine.steps_between` keeps one only where
the scan's step-versus-trend choice keeps it among the changes it already keeps, as it does
for the binary segmentation's proposals, or where the model of the whole series does
(:mod:`._whole_series`), and the caller confirms it like any change.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..compare.bootstrap import MAD_TO_SD
from ._refine import placed

__all__ = ["MIN_SERIES", "penalty", "proposals", "segment_ends"]

FloatArray = npt.NDArray[np.float64]

#: Fewest series scanned together for the proposals: below, the pooled ``rho`` is too
#: noisy (a single real series, Firefox 4975360, lost its validated change).
MIN_SERIES = 20
#: Penalty per change, in units of the decorrelated scores' variance: set on our own
#: pure-noise seeds 9001-9007 (1000 series of 200 runs each) one step of margin above the
#: smallest penalty whose union false alarms stayed below 1 % (14); see :func:`penalty`.
_PENALTY = 15.0
#: Winsorising limit of the differences the decorrelated scores' spread is taken from.
_WINSOR = 3.5


def penalty(runs: int) -> float:
    """The penalty per change for ``runs`` runs: the same at every length. At a fixed
    penalty the chance that pure noise gets a segment end grows about in proportion to the
    runs (measured on Gaussian AR(1) noise, rho 0, 0.5 and 0.8, 3000 series each: 2.1-2.8 %,
    4.8-5.3 %, 8.8-10.2 % at 100, 200 and 400 runs), as a union bound over places
    predicts, so a fixed penalty holds the rate per 200 runs that the scan's threshold is
    calibrated to; a Schwarz-type ``log(runs)`` scaling would raise it 2.5-fold at 100 runs
    (docs/history-detection-record.md, *The penalty*)."""
    del runs
    return _PENALTY


def _spread(u: FloatArray) -> FloatArray:
    """Per row, the scale of ``u`` from its first differences (free of the level shifts),
    their variance winsorised at ``_WINSOR`` robust deviations (a MAD alone reads too small
    on skewed noise)."""
    d = np.diff(u, axis=1)
    centred = d - np.median(d, axis=1, keepdims=True)
    mad = MAD_TO_SD * np.median(np.abs(centred), axis=1, keepdims=True)
    clipped = np.clip(centred, -_WINSOR * mad, _WINSOR * mad)
    spread: FloatArray = np.maximum(np.sqrt((clipped * clipped).mean(axis=1) / 2.0), 1e-12)
    return spread


def _partition(
    w: FloatArray, beta: float, min_segment: int
) -> tuple[FloatArray, npt.NDArray[np.intp]]:
    """Optimal partitioning of each row of ``w``: least squares about each segment's mean
    plus ``beta`` per change, segments of ``min_segment`` or more, each segment's first
    value (after the first segment) left out of its sum of squares. The cost of each row
    and, per end ``e``, the start of the last segment ending there."""
    rows, m = w.shape
    s1 = np.zeros((rows, m + 1))
    s2 = np.zeros((rows, m + 1))
    np.cumsum(w, axis=1, out=s1[:, 1:])
    np.cumsum(w * w, axis=1, out=s2[:, 1:])
    best = np.full((rows, m + 1), np.inf)
    best[:, 0] = -beta
    back = np.zeros((rows, m + 1), dtype=np.intp)
    for end in range(min_segment, m + 1):
        start = np.arange(0, end - min_segment + 1)
        first = start + (start > 0)  # the AR(1) transition point is its own parameter
        n = (end - first).astype(np.float64)
        sums = s1[:, end : end + 1] - s1[:, first]
        cost = best[:, start] + beta + (s2[:, end : end + 1] - s2[:, first]) - sums * sums / n
        pick = np.argmin(cost, axis=1)
        back[:, end] = start[pick]
        best[:, end] = cost[np.arange(rows), pick]
    return best[:, m], back


def _ends(back: npt.NDArray[np.intp], m: int) -> list[int]:
    out: list[int] = []
    end = m
    while end > 0 and int(back[end]) > 0:
        end = int(back[end])
        out.append(end)
    return out[::-1]


def _starts(back: npt.NDArray[np.intp], runs: int) -> list[int]:
    """The first run of each later segment of a partition of the ``runs - 1`` decorrelated
    scores (``u_j`` belongs to run ``j + 1``)."""
    return [end + 1 for end in _ends(back, runs - 1)]


def _within_slope(z: FloatArray, starts: Sequence[Sequence[int]]) -> FloatArray:
    """Per row, the least-squares slope of ``z`` with a level of its own in each segment
    (segments begin at 0 and at ``starts[row]``)."""
    rows, runs = z.shape
    t = np.arange(runs, dtype=np.float64)
    out = np.zeros(rows)
    for row in range(rows):
        labels = np.zeros(runs, dtype=np.intp)
        labels[list(starts[row])] = 1
        labels = np.cumsum(labels)
        counts = np.bincount(labels).astype(np.float64)
        t_centred = t - (np.bincount(labels, t) / counts)[labels]
        z_centred = z[row] - (np.bincount(labels, z[row]) / counts)[labels]
        spread = float(t_centred @ t_centred)
        out[row] = float(t_centred @ z_centred) / spread if spread > 0.0 else 0.0
    return out


def segment_ends(
    scores: FloatArray, rho: FloatArray, beta: float, min_segment: int
) -> list[list[int]]:
    """Per row of ``scores`` (``(S, N)``), the runs that begin a new level in the penalised
    segmentation of its decorrelated scores, with no slope or one slope (whichever costs
    less, the slope charged ``beta / 10``): the row's least-squares slope, refitted within
    the segments of the segmentation it gives (one round: three rounds found no more steps)."""
    z = np.asarray(scores, dtype=np.float64)
    rows, runs = z.shape
    r = np.asarray(rho, dtype=np.float64)[:, None]
    u = z[:, 1:] - r * z[:, :-1]
    scale = _spread(u)[:, None]
    cost, back = _partition(u / scale, beta, min_segment)
    t = np.arange(runs, dtype=np.float64)
    centred = t - t.mean()
    slope = (z - z.mean(axis=1, keepdims=True)) @ centred / float(centred @ centred)
    tilt = t[1:] - r * t[:-1]
    sloped, back_sloped = _partition((u - slope[:, None] * tilt) / scale, beta, min_segment)
    # A line through the whole series is tilted by its steps (three steps one way read as a
    # trend); the slope within the segments (each its own level: the fixed-effects
    # estimator) is not. Refit it within the segments that line gave, and segment again.
    slope = _within_slope(z, [_starts(back_sloped[row], runs) for row in range(rows)])
    sloped, back_sloped = _partition((u - slope[:, None] * tilt) / scale, beta, min_segment)
    better = sloped + beta / 10.0 < cost
    back[better] = back_sloped[better]
    return [[s + 1 for s in _ends(back[row], runs - 1)] for row in range(rows)]


def proposals(
    scores: FloatArray,
    rho: FloatArray,
    found: Sequence[Sequence[tuple[int, int, float]]],
    scales: Sequence[float],
    *,
    reach: int,
    min_segment: int,
) -> list[list[tuple[int, int, float]]]:
    """Per row where the scan found changes ``found`` (as binary segmentation between
    changes, a series the scan found nothing in gets nothing, so pure noise keeps the scan's
    calibrated false-alarm probability; pairs of ends around a run or two of outliers were
    what the proposals added to pure log-normal noise), the segmentation's ends
    ``min_segment`` or more runs from those changes, as ``(index, width, statistic)``: the
    CUSUM statistic between the
    neighbouring changes and ends, narrowed by the AR(1) widening of a stretch wider than
    ``reach`` and in units of the row's calibrated scale ``scales`` (so the scan's null
    gives it a p-value, though the segmentation, not that null, chose it)."""
    runs = scores.shape[1]
    # Only the rows with a change get proposals; the segmentation is per row (its scale,
    # slope and partition), so it runs on those rows alone.
    rows = [row for row, have in enumerate(found) if have]
    found_ends = segment_ends(scores[rows], rho[rows], penalty(runs), min_segment) if rows else []
    ends = dict(zip(rows, found_ends, strict=True))
    out: list[list[tuple[int, int, float]]] = []
    for row, have in enumerate(found):
        if row not in ends:
            out.append([])
            continue
        own = [change[0] for change in have]
        new = ends[row]
        extra = [p for p in new if all(abs(p - i) >= min_segment for i in own)]
        every = sorted(own + extra)
        out.append(
            [
                placed(
                    p,
                    [i for i in every if abs(i - p) >= min_segment],
                    scores[row],
                    float(rho[row]),
                    reach,
                    scales[row],
                )
                for p in extra
            ]
        )
    return out
