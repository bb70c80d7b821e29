"""The nulls of the scan's statistic: independent noise simulated once per length, and each
series' own, fitted by the block bootstrap (steps 1 and 2 of :mod:`.changepoint`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

import msgspec
import numpy as np

# At run time too (numpy is loaded here anyway): changepoint re-exports NullDistribution,
# and typing.get_type_hints, pydoc and inspect.signature resolve its annotations.
from .._arrays import FloatArray, IntArray
from ._moving_sums import MovingWindow, window_geometry, window_statistics
from ._robust import robust_scores
from ._scan_config import ScanConfig

__all__ = [
    "Calibration",
    "NullDistribution",
    "block_rows",
    "calibrate",
    "exchangeable_null",
    "series_false_alarm_rate",
]

#: Share of the exchangeable null above which its tail is extrapolated.
_TAIL_START: Final = 0.05
#: Floor of a window statistic's null variance (residual scores of heavily tied series).
_MIN_SPREAD: Final = 0.01


class NullDistribution(msgspec.Struct, frozen=True):
    """The exchangeable null of ``T`` for one series length (:mod:`.changepoint`, step 1)."""

    runs: int
    #: Simulated maxima, ascending.
    maxima: FloatArray
    mean: float
    sd: float
    tail_start: float
    tail_scale: float

    def quantile(self, level: float) -> float:
        """The ``level`` quantile (exponential tail beyond the 95th percentile)."""
        exceed = 1.0 - level
        if exceed >= _TAIL_START:
            return float(np.quantile(self.maxima, level))
        return self.tail_start + self.tail_scale * math.log(_TAIL_START / exceed)

    def threshold(self, config: ScanConfig) -> float:
        """The threshold of independent noise: the quantile at the false-alarm rate of a
        series of :attr:`runs` runs (:func:`series_false_alarm_rate`)."""
        return self.quantile(1.0 - series_false_alarm_rate(self.runs, config))

    def survival(self, value: float) -> float:
        """``P(T >= value)``."""
        if value <= self.tail_start:
            above = self.maxima.size - int(np.searchsorted(self.maxima, value, side="left"))
            return (1.0 + above) / (1.0 + self.maxima.size)
        return _TAIL_START * math.exp(-(value - self.tail_start) / self.tail_scale)


def series_false_alarm_rate(runs: int, config: ScanConfig) -> float:
    """``alpha_N``: the configured rate per ``rate_runs`` runs, for a series of ``runs``."""
    return -math.expm1(runs / config.rate_runs * math.log1p(-config.false_alarm_rate))


def exchangeable_null(runs: int, config: ScanConfig) -> NullDistribution:
    """Simulate ``T`` over independent normal series, scored as the scan scores (step 1)."""
    windows = window_geometry(runs, config.windows, config.min_segment)
    if not windows:
        raise ValueError(f"a series of {runs} runs is too short for min_segment")
    rng = np.random.default_rng(np.random.SeedSequence([config.seed, runs, 0x0E11]))
    maxima = []
    for start in range(0, config.permutations, 2048):
        count = min(2048, config.permutations - start)
        scores = robust_scores(rng.standard_normal((count, runs)), config.min_segment)
        stats = [np.asarray(z, dtype=np.float64) for z in window_statistics(scores, windows)]
        maxima.append(np.max([np.abs(z).max(axis=1) for z in stats], axis=0))
    ordered = np.sort(np.concatenate(maxima))
    tail_start = float(np.quantile(ordered, 1.0 - _TAIL_START))
    excess = ordered[ordered > tail_start] - tail_start
    tail_scale = float(excess.mean()) if excess.size else 1e-3
    return NullDistribution(
        runs, ordered, float(ordered.mean()), float(ordered.std(ddof=1)), tail_start, tail_scale
    )


class Calibration(msgspec.Struct, frozen=True):
    """A series' null: ``c_w`` and the location-scale map onto the exchangeable null."""

    #: Standard deviation of each window's statistic under the series' null (score units).
    scale: FloatArray  # (K,)
    #: ``scale`` relative to independent noise of the same marginal spread: ``c_w``.
    dependence: FloatArray  # (K,)
    shift: float
    stretch: float
    threshold: float

    def p_value(self, statistic: float, null: NullDistribution) -> float:
        mapped = min((statistic - self.shift) / self.stretch, statistic)
        return min(1.0, null.survival(mapped))


def block_rows(rng: np.random.Generator, runs: int, block: int, resamples: int) -> IntArray:
    """Circular block-bootstrap indices, shape ``(resamples, runs)``."""
    blocks = -(-runs // block)
    starts = rng.integers(0, runs, size=(resamples, blocks))
    index = (starts[:, :, None] + np.arange(block)).reshape(resamples, blocks * block)[:, :runs]
    out: IntArray = index % runs
    return out


def calibrate(
    residual_scores: FloatArray,
    generators: Sequence[np.random.Generator],
    windows: Sequence[MovingWindow],
    null: NullDistribution,
    config: ScanConfig,
    floor: FloatArray,
) -> list[Calibration]:
    """Block-bootstrap each row of ``residual_scores`` and fit its null (:mod:`.changepoint`)."""
    count, runs = residual_scores.shape
    resamples = config.null_resamples
    block = config.block_length or max(1, round(2.0 * runs ** (1.0 / 3.0)))
    index = np.stack([block_rows(rng, runs, block, resamples) for rng in generators])
    # Single precision halves the memory traffic of the scan's largest arrays; the moving
    # sums of 200 scores keep about 5 significant digits, far more than the null needs.
    replicas = np.take_along_axis(
        residual_scores.astype(np.float32)[:, None, :], index, axis=2
    ).reshape(-1, runs)
    stats = window_statistics(replicas, windows)
    spread = np.stack(
        [np.mean(z * z, axis=1, dtype=np.float64).reshape(count, resamples).mean(1) for z in stats]
    )
    # Blocks of a finite centred series vary less than independent stretches would, by the
    # finite-population factor (N - L) / (N - 1); undo it. Never assume less spread than
    # independent noise of the same marginal has.
    spread *= (runs - 1) / max(runs - block, 1)
    marginal = np.sqrt(np.maximum(np.mean(residual_scores**2, axis=1), _MIN_SPREAD))
    scale = np.maximum(np.sqrt(np.maximum(spread, _MIN_SPREAD)).T, marginal[:, None])  # (count, K)
    # Never less than AR(1) noise with the correlation the differences show (step 2).
    scale = np.maximum(scale, floor)
    peaks = np.stack([np.abs(z).max(axis=1).reshape(count, resamples) for z in stats])
    maxima = (peaks / scale.T[:, :, None]).max(axis=0)  # (count, resamples)
    base = null.threshold(config)
    out = []
    for row in range(count):
        stretch = max(float(maxima[row].std(ddof=1)) / null.sd, 1e-6)
        shift = float(maxima[row].mean()) - stretch * null.mean
        threshold = max(base, shift + stretch * base)
        dependence = scale[row] / marginal[row]
        out.append(Calibration(scale[row], dependence, shift, stretch, threshold))
    return out
