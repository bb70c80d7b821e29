"""A change's confirmation on the series less the slope its levels share.

The bootstrap confirmation (:mod:`.confirm`) compares the runs of the level before a
change with those of the level after it. On a series that also drifts slowly, each level's
runs spread along the drift, which widens both sides' intervals, and the levels' means
differ by the drift across the gap between them as well as by the step, so a real 3 %
step against a drift in the other direction is rejected. Here the drift is estimated as
the slope shared by all the segments between the scan's changes (one common slope, each
segment its own level: the fixed-effects, or pooled within-segment, estimator), as a
regression M-estimate: least squares on pseudo-observations winsorised at three robust
scales of the residuals (two rounds of the iteration by modified residuals; Huber &
Ronchetti, *Robust Statistics*, 2nd ed., 2009, ch. 7), so that one slow run neither tilts
it nor widens its error, with the M-estimator's own variance (ch. 7: ``K^2 sum(psi^2) /
(n - p)`` over the squared mean of ``psi'``) widened by the AR(1) long-run factor
``(1 + r) / (1 - r)`` (Box, Jenkins & Reinsel, *Time Series Analysis*, 4th ed., §2.1.5, the
variance of a mean, used for the slope as an approximation), ``r`` the lag-one correlation
of the winsorised residuals over neighbouring runs of one segment, corrected for the bias of
residuals about a fitted mean (Kendall 1954, Biometrika 41:403: ``E r = rho - (1 + 3 rho) /
m``) and clipped to ``[0, 0.9]``. The change is confirmed on the series less that slope
shrunk towards zero by the empirical-Bayes factor ``w = max(0, 1 - 1/t^2)``, ``t`` the
slope over its error (the posterior mean under a normal prior whose variance,
``max(0, slope^2 - error^2)``, is its maximum-likelihood estimate; Efron & Morris 1973,
JASA 68:117, discuss this rule): a drift too weak to test alone still comes out in part, and
a series without one keeps its levels. The shrunk slope's plug-in error, ``sqrt(w)`` times
the slope's, times the error distance of the compared runs (:meth:`Detrended.error_distance`)
is drawn into the bootstrap (:func:`.confirm.with_slope_error`). The plug-in error ignores
the error in ``w`` (Morris 1983), so where a drift is about as large as its own error the
interval covers the true step less often than it says (docs/history-detection.md).

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

from ..compare.bootstrap import MAD_TO_SD
from ._null import NullDistribution, calibrate
from ._scan_config import ScanConfig
from ._scan_result import SeriesScan
from ._tail import tail_apart
from .model import RunSeries

if TYPE_CHECKING:
    from .._arrays import FloatArray, IntArray
    from ._moving_sums import MovingWindow

__all__ = [
    "Detrended",
    "for_trend",
    "less_shared_trend",
    "level_dependence",
    "level_residuals",
    "shared_slope",
    "shrunk",
]

_MOST_R = 0.9
#: Residuals are winsorised at this many robust scales (for the slope, its error and their
#: lag-one correlation), in this many rounds of Huber's iteration for the slope.
_WINSOR = 3.0
_HUBER_ROUNDS = 2


class Detrended(msgspec.Struct, frozen=True):
    """A series less its levels' shared slope (shrunk), that slope's standard error per
    run, and each run's offset from the middle of its trend segment (0 for runs the slope
    was not fitted on), which :meth:`error_distance` needs."""

    series: RunSeries
    slope_error: float
    offsets: FloatArray

    def error_distance(self, before: Sequence[int], after: Sequence[int]) -> float:
        """What the slope's error is multiplied by in the difference of the mean levels of
        the runs ``after`` and ``before``: their distance ``D`` (between the sides'
        centres), less twice ``D`` times the difference of their mean offsets, under the
        root. The slope is fitted on the same runs, so its error and the sides' means are
        correlated (``cov(mean, slope) = var(slope) * mean offset``); where a side is a
        whole segment its mean offset is 0 and the distance is ``D`` itself."""
        if not before or not after:
            return 0.0
        distance = float(np.mean(after) - np.mean(before))
        shift = float(np.mean(self.offsets[list(after)]) - np.mean(self.offsets[list(before)]))
        return math.sqrt(max(distance * distance - 2.0 * distance * shift, 0.0))


def _segments(logs: npt.NDArray[np.float64], bounds: Sequence[int]) -> list[IntArray]:
    """The finite runs of each segment between ``bounds`` that has at least three."""
    out = []
    for low, high in itertools.pairwise([0, *bounds, logs.size]):
        idx = np.arange(low, high)[np.isfinite(logs[low:high])]
        if idx.size >= 3:
            out.append(idx)
    return out


def _offsets(segments: Sequence[IntArray], runs: int) -> FloatArray:
    """Each run's number less the mean of its segment's (0 for runs in no fitted segment)."""
    out: FloatArray = np.zeros(runs)
    for idx in segments:
        out[idx] = idx - idx.mean()
    return out


def shared_slope(logs: npt.NDArray[np.float64], bounds: Sequence[int]) -> tuple[float, float]:
    """The slope per run shared by the segments of ``logs`` between ``bounds`` (NaN runs
    and segments of fewer than three finite runs left out), and its robust, AR(1)-widened
    standard error (module docstring); ``(0, 0)`` where no segment has three runs."""
    return _fitted(logs, bounds)[1:]


def _fitted(
    logs: npt.NDArray[np.float64], bounds: Sequence[int]
) -> tuple[list[IntArray], float, float]:
    """The segments :func:`shared_slope` is fitted on, the slope and its error."""
    segments = _segments(logs, bounds)
    if not segments:
        return segments, 0.0, 0.0
    tc = np.concatenate([idx - idx.mean() for idx in segments])
    yc = np.concatenate([logs[idx] - logs[idx].mean() for idx in segments])
    den = float(tc @ tc)
    slope = float(tc @ yc) / den
    rest = yc - slope * tc
    # Degrees of freedom: a level per segment fitted, and the slope.
    free = max(rest.size - len(segments) - 1, 1)

    def robust_scale(residuals: FloatArray) -> float:
        mad = MAD_TO_SD * float(np.median(np.abs(residuals - np.median(residuals))))
        # Quantised runs can leave most residuals at one value (a MAD of 0).
        return mad if mad > 0.0 else math.sqrt(float(residuals @ residuals) / free)

    scale = robust_scale(rest)
    for _ in range(_HUBER_ROUNDS):
        # Winsorised pseudo-observations (Huber's iteration): one slow run must not tilt
        # the slope. Within-segment constants do not move it (tc sums to 0 in each).
        pseudo = slope * tc + np.clip(rest, -_WINSOR * scale, _WINSOR * scale)
        slope = float(tc @ pseudo) / den
        rest = yc - slope * tc
        scale = robust_scale(rest)
    if scale == 0.0:
        return segments, slope, 0.0  # the runs lie on the fitted lines
    # The M-estimator's own variance (Huber & Ronchetti 2009, ch. 7): sum(psi^2) / (n - p)
    # over the mean of psi' squared, with Huber's correction K for p parameters.
    psi = np.clip(rest, -_WINSOR * scale, _WINSOR * scale)
    inside = max(float(np.mean(np.abs(rest) < _WINSOR * scale)), 1.0 / rest.size)
    parameters = len(segments) + 1
    correction = 1.0 + parameters / rest.size * (1.0 - inside) / inside
    spread = correction**2 * float(psi @ psi) / free / inside**2
    variance = spread / den * _long_run_factor(psi, segments)
    return segments, slope, math.sqrt(variance)


def _long_run_factor(psi: FloatArray, segments: Sequence[IntArray]) -> float:
    """``(1 + r) / (1 - r)`` of the lag-one correlation ``r`` of the winsorised residuals,
    over neighbouring runs of one segment only, corrected for the bias of a correlation of
    residuals about a fitted mean (Kendall 1954: ``E r = rho - (1 + 3 rho) / m`` for ``m``
    runs), ``m`` the mean segment length; clipped to ``[0, 0.9]``."""
    square = float(psi @ psi)
    if not square > 0.0:
        return 1.0
    product = 0.0
    start = 0
    for idx in segments:
        part = psi[start : start + idx.size]
        start += idx.size
        adjacent = np.diff(idx) == 1
        product += float(part[1:][adjacent] @ part[:-1][adjacent])
    length = psi.size / len(segments)
    r = (product / square + 1.0 / length) / max(1.0 - 3.0 / length, 0.1)
    r = min(max(r, 0.0), _MOST_R)
    return (1.0 + r) / (1.0 - r)


def shrunk(slope: float, error: float) -> tuple[float, float]:
    """``slope`` shrunk towards zero by the empirical-Bayes factor ``w = max(0, 1 - 1/t^2)``
    (``t = slope / error``; a normal prior of variance ``max(0, slope^2 - error^2)``, its
    maximum-likelihood estimate), and the shrunk estimate's plug-in error
    ``error * sqrt(w)`` (module docstring)."""
    if not error > 0.0:
        return slope, 0.0
    t = abs(slope) / error
    weight = 1.0 - 1.0 / (t * t) if t > 1.0 else 0.0
    return slope * weight, error * math.sqrt(weight)


def level_residuals(values: npt.NDArray[np.float64], bounds: Sequence[int]) -> FloatArray:
    """``values`` less the level of its segment between ``bounds`` and the (shrunk) slope
    the segments share (:func:`shared_slope`), over the runs the slope is fitted on."""
    segments, slope, error = _fitted(values, bounds)
    if not segments:
        return np.zeros(0)
    slope = shrunk(slope, error)[0]
    out: FloatArray = np.concatenate(
        [values[idx] - values[idx].mean() - slope * (idx - idx.mean()) for idx in segments]
    )
    return out


def less_shared_trend(one: RunSeries, result: SeriesScan) -> Detrended:
    """``one`` (the runs ``result`` scanned) less the slope shared by the segments between
    its changes, creeps' ramps left out, shrunk (:func:`shrunk`), with the shrunk slope's
    standard error; ``one`` itself (error 0) where the series has no change. For the
    confirmation of a change, never of a creep or candidate."""
    logs = np.log(np.asarray(one.medians, dtype=np.float64))
    if logs.size != result.runs or not result.changes:
        return Detrended(one, 0.0, np.zeros(logs.size))
    masked, bounds = for_trend(result, logs)
    segments, slope, error = _fitted(masked, bounds)
    slope, error = shrunk(slope, error)
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
    return Detrended(level, error, _offsets(segments, logs.size))


def for_trend(result: SeriesScan, logs: npt.NDArray[np.float64]) -> tuple[FloatArray, list[int]]:
    """What the shared slope of a scanned series is fitted on: a copy of ``logs`` with its
    creeps' ramps set to NaN (left out), and the segment bounds: its changes, its creeps'
    ends and its candidate's run."""
    masked: FloatArray = np.array(logs, dtype=np.float64)
    bounds = [change.index for change in result.changes]
    for creep in result.creeps:
        masked[creep.first : creep.end] = np.nan
        bounds += [creep.first, creep.end]
    if result.candidate is not None:
        bounds.append(result.candidate.index)
    return masked, sorted({b for b in bounds if 0 < b < logs.size})


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
    rest = level_residuals(*for_trend(result, scores))
    calibration = calibrate(
        tail_apart(rest[None, :], config.min_segment), [generator], windows, null, config, floor
    )[0]
    return tuple(
        float(min(c, d)) for c, d in zip(calibration.dependence, result.dependence, strict=True)
    )
