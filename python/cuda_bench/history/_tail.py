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
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .._arrays import FloatArray

__all__ = ["tail_candidate"]


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
