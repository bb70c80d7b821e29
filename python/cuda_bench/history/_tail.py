"""A change too recent for the scan: the candidate at the end of a series.

The scan places a change only with ``min_segment`` runs on each side. Before that, a
sustained shift of the last ``k`` runs (``2 <= k < min_segment``; one run alone is an
outlier) is a *candidate*: every one of the last ``k`` runs lies on the same side of the
level before it (the median of up to ``reach`` runs since the last change), and the mean
deviation of all but the most deviating of them, as a two-sample z statistic in units of
the series' difference scale widened by the shortest window's dependence factor, reaches
the series' calibrated threshold. Leaving the largest deviation out keeps a single
reverting outlier from making a candidate; the runs are not winsorised here, since the
running median that winsorises the scan's scores still lies at the old level a few runs
into a new one.

The scan also keeps the last runs from raising the null a candidate is tested against
(:func:`tail_apart`), and hands a change it pulled to its last position over to the
candidate (:func:`belongs_to_tail`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .._arrays import FloatArray

__all__ = ["belongs_to_tail", "tail_apart", "tail_candidate"]


def tail_candidate(
    values: FloatArray,
    last_change: int,
    *,
    min_segment: int,
    reach: int,
    spread: float,
    dependence: float,
    threshold: float,
) -> tuple[int, float] | None:
    """``(index, statistic)`` of the strongest candidate in the last runs of ``values``
    (log medians), or ``None`` (module docstring)."""
    runs = values.size
    if spread <= 0 or not math.isfinite(spread):
        return None
    best: tuple[int, float] | None = None
    for start in range(max(runs - min_segment + 1, last_change + min_segment), runs - 1):
        before = values[max(last_change, start - reach) : start]
        width = before.size
        deviation = (values[start:] - float(np.median(before))) / spread
        if not ((deviation > 0).all() or (deviation < 0).all()):
            continue
        # The largest deviation left out: one outlier among the last runs adds nothing.
        kept = np.sort(np.abs(deviation))[:-1]
        statistic = float(kept.mean()) * math.sqrt(kept.size / (1.0 + kept.size / width))
        statistic /= max(dependence, 1.0)
        if statistic >= threshold and (best is None or statistic > best[1]):
            best = (start, statistic)
    return best


def belongs_to_tail(
    values: FloatArray, found: Sequence[tuple[int, int, float]], min_segment: int
) -> bool:
    """Whether the last change is a shift of the last few runs that the scan, which places
    changes at most ``runs - min_segment``, pulled to its last position: the single-change
    CUSUM of the values after the change before it peaks later than that (the most
    deviating of the last ``min_segment - 1`` runs replaced by the median of the others),
    and the change lies within ``min_segment`` runs of that last position."""
    runs = values.size
    # Only a change at (or within a shortest segment of) its last position can have been
    # pulled there: a fresh shift of the last runs had handed a 10 % step 95 runs before
    # over to the candidate, and the change was lost.
    if not found or found[-1][0] <= runs - 2 * min_segment:
        return False
    low = found[-2][0] if len(found) > 1 else 0
    part = np.array(values[low:], dtype=np.float64)
    # One outlier among the last runs is no shift (as for the candidate): the most deviating
    # of the last ``min_segment - 1`` runs takes the median of the others. A single +90 %
    # run at the end had pulled the CUSUM's peak there and handed a real 9 % step of
    # 100 runs before to the candidate, which then dropped it.
    tail = min(min_segment - 1, part.size)
    if tail >= 3:
        last = part[-tail:]
        worst = int(np.argmax(np.abs(last - np.median(last))))
        last[worst] = np.median(np.delete(last, worst))
    part -= part.mean()
    t = np.arange(min_segment, part.size - 1)
    if t.size == 0:
        return False
    sums = np.cumsum(part)[t - 1]
    cusum = np.abs(sums) / np.sqrt(t * (part.size - t) / part.size)
    return low + int(t[np.argmax(cusum)]) > runs - min_segment


def tail_apart(residuals: FloatArray, min_segment: int) -> FloatArray:
    """Residuals with their last ``min_segment - 1`` runs centred on their own: a shift too
    recent to place (a candidate) must not inflate the null it is tested against."""
    tail = min_segment - 1
    if residuals.shape[1] <= 2 * tail:
        return residuals
    out: FloatArray = np.array(residuals, copy=True)
    out[:, -tail:] -= out[:, -tail:].mean(axis=1, keepdims=True)
    return out
