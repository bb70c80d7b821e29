"""A change's confirmation on the series less the slope its levels share.

The bootstrap confirmation (:mod:`.confirm`) compares the runs of the level before a
change with those of the level after it. On a series that also drifts slowly, each level's
runs spread along the drift, which widens both sides' intervals, and the levels' means
differ by the drift across the gap between them as well as by the step, so a real 3 %
step against a drift in the other direction is rejected. Here the drift is estimated as
the slope shared by all the segments between the scan's changes (one common slope, each
segment its own level: the fixed-effects, or pooled within-segment, estimator), by least
squares on pseudo-observations winsorised at three robust scales of the residuals (two
rounds of the iteration by modified residuals for regression M-estimates; Huber &
Ronchetti, *Robust Statistics*, 2nd ed., 2009, ch. 7: one slow run must not tilt it), with
its standard error from that robust scale (``1.4826 MAD``) widened by the AR(1) long-run
factor ``(1 + r) / (1 - r)`` of the winsorised
residuals (Box, Jenkins & Reinsel, *Time Series Analysis*, 4th ed., §2.1.5; ``r`` clipped
to ``[0, 0.9]``). The change is confirmed on the series less that slope shrunk towards zero
by the positive-part James-Stein factor ``w = max(0, 1 - 1/t^2)``, ``t`` the slope over
its error (the posterior mean of a normal slope under a normal prior whose variance is
estimated by moments, Efron & Morris 1973, JASA 68:117): a drift too weak to test alone
still comes out in part, and a series without one keeps its levels. The shrunk slope's
error, ``sqrt(w)`` times the slope's, times the distance between the centres of the runs
the confirmation compares, is drawn into its bootstrap (:func:`.confirm.with_slope_error`).

Only the scan's changes are confirmed so: a creep's ramp is itself a slope (detrending
would flatten the creep it confirms), so the creeps' ramps are left out of the estimate
and their ends, like a candidate's run, bound segments; creeps and candidates are
confirmed as before.

The same model gives the confirmation its noise: :func:`level_residuals` are the runs less
their segment's level and the shared slope, which the scan's null is fitted to for the
confirmation's dependence factor (``SeriesScan.level_dependence``); the scan's own factor,
fitted around the levels alone, counts the drift as slowly wandering noise.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec
import numpy as np
import numpy.typing as npt

from ._null import NullDistribution, calibrate
from ._scan_config import ScanConfig
from ._scan_result import SeriesScan
from ._tail import tail_apart
from .model import RunSeries

if TYPE_CHECKING:
    from .._arrays import FloatArray
    from ._moving_sums import MovingWindow

__all__ = [
    "Detrended",
    "less_shared_trend",
    "level_dependence",
    "level_residuals",
    "shared_slope",
    "shrunk",
    "trend_bounds",
]

_MOST_R = 0.9
_MAD_SCALE = 1.4826
#: Residuals are winsorised at this many robust scales (for the slope and for their
#: lag-one correlation), in this many rounds of Huber's iteration for the slope.
_WINSOR = 3.0
_HUBER_ROUNDS = 2


class Detrended(msgspec.Struct, frozen=True):
    """A series less its levels' shared slope, and that slope's standard error per run."""

    series: RunSeries
    slope_error: float


def _centred(
    logs: npt.NDArray[np.float64], bounds: Sequence[int]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """Run numbers and values centred within each segment between ``bounds`` (NaN runs and
    segments of fewer than three finite runs left out: ``used`` says which runs count)."""
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
    return tc, yc, used


def shared_slope(logs: npt.NDArray[np.float64], bounds: Sequence[int]) -> tuple[float, float]:
    """The slope per run shared by the segments of ``logs`` between ``bounds`` (NaN runs
    and segments of fewer than three finite runs left out), and its robust, AR(1)-widened
    standard error (module docstring); ``(0, 0)`` where no segment has three runs."""
    tc, yc, used = _centred(logs, bounds)
    den = float(tc @ tc)
    if den <= 0.0:
        return 0.0, 0.0
    slope = float(tc @ yc) / den
    rest = (yc - slope * tc)[used]
    scale = _MAD_SCALE * float(np.median(np.abs(rest - np.median(rest))))
    for _ in range(_HUBER_ROUNDS):
        # Winsorised pseudo-observations (Huber's iteration): one slow run must not tilt
        # the slope either. Within-segment constants do not move the slope (tc sums to 0).
        pseudo = yc.copy()
        pseudo[used] = slope * tc[used] + np.clip(rest, -_WINSOR * scale, _WINSOR * scale)
        slope = float(tc @ pseudo) / den
        rest = (yc - slope * tc)[used]
        scale = _MAD_SCALE * float(np.median(np.abs(rest - np.median(rest))))
    clipped = np.clip(rest, -_WINSOR * scale, _WINSOR * scale)
    square = float(clipped @ clipped)
    r = min(max(float(clipped[1:] @ clipped[:-1]) / square, 0.0), _MOST_R) if square else 0.0
    # Degrees of freedom: one level per segment and the slope.
    free = max(rest.size - len(bounds) - 2, 1)
    variance = scale * scale * rest.size / free / den * (1 + r) / (1 - r)
    return slope, math.sqrt(variance)


def shrunk(slope: float, error: float) -> tuple[float, float]:
    """``slope`` shrunk towards zero by the positive-part James-Stein factor
    ``w = max(0, 1 - (error / slope)^2)``, and the error of the shrunk estimate,
    ``error * sqrt(w)`` (module docstring)."""
    if not error > 0.0:
        return slope, 0.0
    weight = max(0.0, 1.0 - (error / slope) ** 2) if slope else 0.0
    return slope * weight, error * math.sqrt(weight)


def level_residuals(values: npt.NDArray[np.float64], bounds: Sequence[int]) -> FloatArray:
    """``values`` less the level of its segment between ``bounds`` and the slope the
    segments share (:func:`shared_slope`); NaN runs are left out of the result."""
    slope = shrunk(*shared_slope(values, bounds))[0]
    tc, yc, used = _centred(values, bounds)
    out: FloatArray = (yc - slope * tc)[used]
    return out


def less_shared_trend(one: RunSeries, result: SeriesScan) -> Detrended:
    """``one`` (the runs ``result`` scanned) less the slope shared by the segments between
    its changes, creeps' ramps left out, shrunk (:func:`shrunk`), with the shrunk slope's
    standard error; ``one`` itself (error 0) where the series has no change. For the
    confirmation of a change, never of a creep or candidate."""
    logs = np.log(np.asarray(one.medians, dtype=np.float64))
    if logs.size != result.runs or not result.changes:
        return Detrended(one, 0.0)
    slope, error = shrunk(*shared_slope(logs, trend_bounds(result, logs)))
    factor = np.exp(-slope * np.arange(logs.size, dtype=np.float64))
    lo, hi = one.median_lo, one.median_hi
    level = msgspec.structs.replace(
        one,
        medians=np.asarray(one.medians, dtype=np.float64) * factor,
        samples=None
        if one.samples is None
        else tuple(np.asarray(s) * factor[i] for i, s in enumerate(one.samples)),
        median_lo=None if lo is None else np.asarray(lo) * factor,
        median_hi=None if hi is None else np.asarray(hi) * factor,
    )
    return Detrended(level, error)


def trend_bounds(result: SeriesScan, logs: npt.NDArray[np.float64]) -> list[int]:
    """The segment bounds of the shared slope of a scanned series: its changes, its
    creeps' ends and its candidate's run; the creeps' ramps are set to NaN in ``logs``
    (in place), so that they are left out of the estimate."""
    bounds = [change.index for change in result.changes]
    for creep in result.creeps:
        logs[creep.first : creep.end] = np.nan
        bounds += [creep.first, creep.end]
    if result.candidate is not None:
        bounds.append(result.candidate.index)
    return sorted({b for b in bounds if 0 < b < logs.size})


def level_dependence(
    scores: FloatArray,
    result: SeriesScan,
    generator: np.random.Generator,
    windows: Sequence[MovingWindow],
    null: NullDistribution,
    config: ScanConfig,
    floor: FloatArray,
) -> tuple[float, ...]:
    """``c_w`` of the scores less their levels and the slope the levels share (what the
    confirmation of a change compares, module docstring), by the scan's own null fit;
    never above the scan's (fitted around the levels alone, which counts a drift as
    slowly wandering noise)."""
    rest = level_residuals(scores, trend_bounds(result, scores.copy()))
    calibration = calibrate(
        tail_apart(rest[None, :], config.min_segment), [generator], windows, null, config, floor
    )[0]
    return tuple(
        float(min(c, d)) for c, d in zip(calibration.dependence, result.dependence, strict=True)
    )
