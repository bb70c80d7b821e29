"""NVBench's measurement arithmetic, reproduced exactly (spec §6): quantiles, sums, means,
standard deviations and the statistics of a list of samples.

Everything here follows NVBench's arithmetic, not textbook statistics:

* quantiles are nearest-rank samples, ``sorted[round(p/100 * (N-1))]`` with C ``std::round``
  (half away from zero), never interpolated;
* sums are accumulated sequentially in sample order. numpy's ``sum`` adds pairwise and gives
  different low bits, so every sum goes through ``np.add.accumulate``, whose prefix-sum
  semantics force the sequential order;
* the N < 5 and degenerate-input rules of §6.2-§6.4 and §6.8 are applied as written.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .._arrays import FloatArray
else:
    from .._lazy import numpy as np


__all__ = [
    "SampleStats",
    "clock_mean",
    "describe",
    "describe_rows",
    "divide",
    "nearest_rank",
    "nearest_rank_along",
    "quantile",
    "quartiles",
    "quartiles_along",
    "rank_index",
    "relative_iqr",
    "relative_stdev",
    "sequential_mean",
    "sequential_sum",
    "sequential_sum_along",
    "stdev",
]

#: Minimum sample count for a finite standard deviation and a relative IQR (§6.2, §6.4).
_MIN_SAMPLES_FOR_NOISE = 5


# ---------------------------------------------------------------------------------------------
# Nearest-rank quantiles (§6.4)


def rank_index(size: int, percent: float) -> int:
    """Index of the nearest-rank ``percent`` quantile in a sorted array of ``size`` samples.

    ``round(percent / 100 * (size - 1))`` with C ``std::round`` semantics (half away from
    zero, computed exactly); the spec's ``floor(x + 0.5)`` agrees except for the double just
    below 0.5, where ``x + 0.5`` itself rounds up.
    """
    if size < 1:
        raise ValueError(f"rank_index needs at least one sample, got size={size}")
    if not (0.0 <= percent <= 100.0):
        raise ValueError(f"percent must be within [0, 100], got {percent!r}")
    position = percent / 100.0 * (size - 1)
    whole = math.floor(position)
    # position - whole is exact for doubles, so this is exactly std::round for position >= 0.
    return int(whole) + (1 if position - whole >= 0.5 else 0)


def _as_float_array(values: npt.ArrayLike) -> FloatArray:
    return np.asarray(values, dtype=np.float64)


def _last_axis(data: FloatArray, axis: int) -> FloatArray:
    """``data`` with ``axis`` moved last (no-op, and no overhead, when it already is)."""
    if axis == -1 or axis == data.ndim - 1:
        return data
    return np.moveaxis(data, axis, -1)


def nearest_rank_along(
    sorted_values: npt.ArrayLike, percent: float, *, axis: int = -1
) -> FloatArray:
    """Nearest-rank quantile of data already sorted ascending along ``axis``.

    Lanes that are empty or contain a NaN give NaN (§6.4). Returns an array with ``axis``
    removed.
    """
    data = _last_axis(_as_float_array(sorted_values), axis)
    size = data.shape[-1]
    if size == 0:
        return np.full(data.shape[:-1], np.nan)
    picked = np.array(data[..., rank_index(size, percent)], dtype=np.float64)
    return np.where(np.isnan(data).any(axis=-1), np.nan, picked)


def nearest_rank(sorted_values: npt.ArrayLike, percent: float) -> float:
    """Nearest-rank quantile of a 1-D array already sorted ascending (NaN if empty or NaN)."""
    data = _as_float_array(sorted_values)
    if data.ndim != 1:
        raise ValueError(f"nearest_rank expects 1-D data, got shape {data.shape}")
    return float(nearest_rank_along(data, percent))


def quantile(values: npt.ArrayLike, percent: float) -> float:
    """Nearest-rank quantile of unsorted 1-D data; uses selection, not a full sort."""
    data = _as_float_array(values)
    if data.ndim != 1:
        raise ValueError(f"quantile expects 1-D data, got shape {data.shape}")
    if data.size == 0 or bool(np.isnan(data).any()):
        return math.nan
    index = rank_index(data.size, percent)
    return float(np.partition(data, index)[index])


def quartiles_along(
    values: npt.ArrayLike, *, axis: int = -1, presorted: bool = False
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(Q1, median, Q3) along ``axis`` of n-D data, each an array with ``axis`` removed.

    Selection (``np.partition``) replaces sorting unless ``presorted``; the picked samples are
    identical, as in NVBench, which switches to ``nth_element`` at 4096 samples.
    """
    data = _last_axis(_as_float_array(values), axis)
    size = data.shape[-1]
    if size == 0:
        empty = np.full(data.shape[:-1], np.nan)
        return empty, empty.copy(), empty.copy()
    ranks = [rank_index(size, p) for p in (25.0, 50.0, 75.0)]
    ordered = data if presorted else np.partition(data, sorted(set(ranks)), axis=-1)
    has_nan = np.isnan(data).any(axis=-1)
    q1, median, q3 = (np.where(has_nan, np.nan, ordered[..., r]) for r in ranks)
    return q1, median, q3


def quartiles(values: npt.ArrayLike, *, presorted: bool = False) -> tuple[float, float, float]:
    """(Q1, median, Q3) of 1-D data by NVBench's nearest-rank rule; NaNs if empty or NaN."""
    data = _as_float_array(values)
    if data.ndim != 1:
        raise ValueError(f"quartiles expects 1-D data, got shape {data.shape}")
    q1, median, q3 = quartiles_along(data, presorted=presorted)
    return float(q1), float(median), float(q3)


# ---------------------------------------------------------------------------------------------
# Sequential sums, mean and standard deviation (§6.1-§6.3)


def sequential_sum_along(values: npt.ArrayLike, *, axis: int = -1) -> FloatArray:
    """float64 sum accumulated in order along ``axis`` (``total += x_i``), bit-exact."""
    data = _last_axis(_as_float_array(values), axis)
    if data.shape[-1] == 0:
        return np.zeros(data.shape[:-1])
    # Overflow to inf and inf - inf = NaN are the IEEE results C gives too: not errors here.
    with np.errstate(over="ignore", invalid="ignore"):
        return np.array(np.add.accumulate(data, axis=-1)[..., -1], dtype=np.float64)


def sequential_sum(values: npt.ArrayLike) -> float:
    """float64 sum of 1-D data accumulated in order, identical to a Python ``+=`` loop."""
    data = _as_float_array(values)
    if data.ndim != 1:
        raise ValueError(f"sequential_sum expects 1-D data, got shape {data.shape}")
    return float(sequential_sum_along(data))


def sequential_mean(values: npt.ArrayLike) -> float:
    """NVBench's mean: sequential float64 sum / N (NaN for no samples)."""
    data = _as_float_array(values)
    if data.size == 0:
        return math.nan
    return sequential_sum(data) / data.size


def divide(numerator: float, denominator: float) -> float:
    """IEEE division as C does it: ``x / 0`` gives ±inf or NaN instead of raising."""
    top, bottom = float(numerator), float(denominator)
    if bottom != 0 or math.isnan(bottom):
        return top / bottom
    if top == 0 or math.isnan(top):
        return math.nan
    return math.copysign(math.inf, top) * math.copysign(1.0, bottom)


def _stdev_along(data: FloatArray, mean: FloatArray) -> FloatArray:
    size = data.shape[-1]
    if size < _MIN_SAMPLES_FOR_NOISE:
        return np.full(data.shape[:-1], np.inf)
    with np.errstate(over="ignore", invalid="ignore"):
        deviation = data - mean[..., None]
        squares = deviation * deviation
    total = sequential_sum_along(squares)
    with np.errstate(invalid="ignore"):
        return np.asarray(np.sqrt(total / (size - 1)), dtype=np.float64)


def stdev(values: npt.ArrayLike) -> float:
    """Sample standard deviation with Bessel's correction, summed in order; inf when N < 5."""
    data = _as_float_array(values)
    if data.ndim != 1:
        raise ValueError(f"stdev expects 1-D data, got shape {data.shape}")
    mean = np.array(sequential_mean(data)) if data.size else np.array(math.nan)
    return float(_stdev_along(data, mean))


def relative_stdev(stdev_value: float, mean: float, size: int) -> float:
    """``stdev / mean``, or +inf when N < 5 or either input is unusable (§6.3)."""
    if size < _MIN_SAMPLES_FOR_NOISE or not math.isfinite(stdev_value):
        return math.inf
    if mean <= 0 or not math.isfinite(mean) or stdev_value < 0:
        return math.inf
    return stdev_value / mean


def relative_iqr(q1: float, median: float, q3: float, size: int) -> float | None:
    """``(Q3 - Q1) / median``, or ``None`` when NVBench omits the summary (§6.4)."""
    spread = q3 - q1
    if size < _MIN_SAMPLES_FOR_NOISE or not math.isfinite(spread) or spread < 0:
        return None
    if not math.isfinite(median) or median <= 0:
        return None
    return spread / median


def clock_mean(frequencies: npt.ArrayLike) -> float | None:
    """Mean SM clock (§6.6): float64 sum of the float32 estimates / N; ``None`` if sum is 0.

    The estimates are rounded to float32 first because NVBench stores them that way; a
    ``None`` result means NVBench would not emit the clock summaries.
    """
    data = np.asarray(frequencies, dtype=np.float32).astype(np.float64)
    if data.ndim != 1:
        raise ValueError(f"clock_mean expects 1-D data, got shape {data.shape}")
    if data.size == 0:
        return None
    total = sequential_sum(data)
    if total == 0:
        return None
    return total / data.size


# ---------------------------------------------------------------------------------------------
# Descriptive statistics of one measurement


@dataclass(frozen=True)
class SampleStats:
    """Every statistic NVBench reports for one list of samples (seconds)."""

    size: int
    min: float
    max: float
    mean: float
    stdev: float
    relative_stdev: float
    q1: float
    median: float
    q3: float
    iqr: float
    #: ``None`` when NVBench omits ``iqr/relative``.
    relative_iqr: float | None


def describe_rows(values: npt.ArrayLike) -> list[SampleStats]:
    """:class:`SampleStats` of each row of a 2-D array (one measurement per row), vectorized.

    min and max skip NaN samples (a running ``std::min`` never picks NaN); mean, stdev and the
    quartiles become NaN as §6.8 says.
    """
    data = _as_float_array(values)
    if data.ndim != 2:
        raise ValueError(f"describe_rows expects a 2-D array, got shape {data.shape}")
    rows, size = data.shape
    if size == 0:
        nan = math.nan
        return [SampleStats(0, nan, nan, nan, nan, math.inf, nan, nan, nan, nan, None)] * rows
    with np.errstate(invalid="ignore"):
        minima = np.fmin.reduce(data, axis=1)
        maxima = np.fmax.reduce(data, axis=1)
    means = sequential_sum_along(data) / size
    stdevs = _stdev_along(data, means)
    q1s, medians, q3s = quartiles_along(data)
    result = []
    for row in range(rows):
        q1, median, q3 = float(q1s[row]), float(medians[row]), float(q3s[row])
        mean, spread = float(means[row]), float(stdevs[row])
        result.append(
            SampleStats(
                size=size,
                min=float(minima[row]),
                max=float(maxima[row]),
                mean=mean,
                stdev=spread,
                relative_stdev=relative_stdev(spread, mean, size),
                q1=q1,
                median=median,
                q3=q3,
                iqr=q3 - q1,
                relative_iqr=relative_iqr(q1, median, q3, size),
            )
        )
    return result


def describe(values: npt.ArrayLike) -> SampleStats:
    """:class:`SampleStats` of a 1-D list of samples."""
    data = _as_float_array(values)
    if data.ndim != 1:
        raise ValueError(f"describe expects 1-D data, got shape {data.shape}")
    return describe_rows(data[None, :])[0]


# ---------------------------------------------------------------------------------------------
# Summary catalog (§5.3)
