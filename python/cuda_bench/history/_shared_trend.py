"""A change's confirmation on the series less the slope its levels share.

The bootstrap confirmation (:mod:`.confirm`) compares the runs of the level before a
change with those of the level after it. On a series that also drifts slowly, each level's
runs spread along the drift, which widens both sides' intervals, and the levels' means
differ by the drift across the gap between them as well as by the step, so a real 3 %
step against a drift in the other direction is rejected. Here the drift is estimated as
the least-squares slope shared by all the segments between the scan's changes (one
common slope, each segment its own level: the fixed-effects, or pooled within-segment,
estimator), its variance widened by the AR(1) long-run factor ``(1 + r) / (1 - r)`` of
its residuals (Box, Jenkins & Reinsel, *Time Series Analysis*, 4th ed., §2.1.5; ``r``
clipped to ``[0, 0.9]``). Only where that slope's ``t`` is at least :data:`LEAST_T` is the
series confirmed less it; elsewhere (no drift worth the name) nothing changes.

Only the scan's changes are confirmed so: a creep's ramp is itself a slope (detrending
would flatten the creep it confirms), so the creeps' ramps are left out of the estimate
and their ends, like a candidate's run, bound segments; creeps and candidates are
confirmed as before.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import msgspec
import numpy as np
import numpy.typing as npt

from ._scan_result import SeriesScan
from .model import RunSeries

__all__ = ["LEAST_T", "less_shared_trend", "shared_slope"]

#: Smallest ``t`` of the shared slope the confirmation removes it at (about 5 % two-sided).
LEAST_T = 2.0
_MOST_R = 0.9


def shared_slope(logs: npt.NDArray[np.float64], bounds: Sequence[int]) -> tuple[float, float]:
    """The slope per run shared by the segments of ``logs`` between ``bounds`` (NaN runs
    and segments of fewer than three finite runs left out), and its AR(1)-widened ``t``."""
    n = logs.size
    t = np.arange(n, dtype=np.float64)
    tc = np.zeros(n)
    yc = np.zeros(n)
    used = np.zeros(n, dtype=bool)
    for low, high in itertools.pairwise([0, *bounds, n]):
        idx = np.arange(low, high)[np.isfinite(logs[low:high])]
        if idx.size < 3:
            continue
        tc[idx] = t[idx] - t[idx].mean()
        yc[idx] = logs[idx] - logs[idx].mean()
        used[idx] = True
    den = float(tc @ tc)
    if den <= 0.0:
        return 0.0, 0.0
    slope = float(tc @ yc) / den
    rest = (yc - slope * tc)[used]
    square = float(rest @ rest)
    r = min(max(float(rest[1:] @ rest[:-1]) / square, 0.0), _MOST_R) if square > 0 else 0.0
    variance = square / max(rest.size - len(bounds) - 2, 1) / den * (1 + r) / (1 - r)
    return slope, (abs(slope) / math.sqrt(variance) if variance > 0 else 0.0)


def less_shared_trend(one: RunSeries, result: SeriesScan) -> RunSeries:
    """``one`` (the runs ``result`` scanned) less the slope shared by the segments between
    its changes, creeps' ramps left out, where that slope's ``t`` reaches :data:`LEAST_T`;
    else ``one`` itself. For the confirmation of a change, never of a creep or candidate."""
    logs = np.log(np.asarray(one.medians, dtype=np.float64))
    if logs.size != result.runs or not result.changes:
        return one
    bounds = [change.index for change in result.changes]
    for creep in result.creeps:
        logs[creep.first : creep.end] = np.nan
        bounds += [creep.first, creep.end]
    if result.candidate is not None:
        bounds.append(result.candidate.index)
    slope, t = shared_slope(logs, sorted({b for b in bounds if 0 < b < logs.size}))
    if t < LEAST_T:
        return one
    factor = np.exp(-slope * np.arange(logs.size, dtype=np.float64))
    lo, hi = one.median_lo, one.median_hi
    return msgspec.structs.replace(
        one,
        medians=np.asarray(one.medians, dtype=np.float64) * factor,
        samples=None
        if one.samples is None
        else tuple(np.asarray(s) * factor[i] for i, s in enumerate(one.samples)),
        median_lo=None if lo is None else np.asarray(lo) * factor,
        median_hi=None if hi is None else np.asarray(hi) * factor,
    )
