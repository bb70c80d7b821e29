"""Step functions fitted to scores: residuals for calibration, and steps told from trends.

See :mod:`.changepoint` and ``docs/history-detection.md`` for where each is used and why.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import numpy as np

from ._gradual import MIN_WINDOW, creep_ramp, is_gradual

if TYPE_CHECKING:
    from .._arrays import FloatArray

__all__ = [
    "FoundCreep",
    "residuals",
    "shrunk_split_residuals",
    "shrunk_steps_residuals",
    "steps_and_creeps",
]

#: A change as the scan carries it: first run of the new level, runs a side, statistic.
Found = tuple[int, int, float]
#: A creep: its first run off the old level, the first run at the new one, and the scan's
#: change inside it (which the step-versus-creep choice set aside).
FoundCreep = tuple[int, int, Found]

#: 95 % quantile of the supremum of a Brownian bridge (Kolmogorov's distribution).
_KOLMOGOROV_95: Final = 1.358


def steps_and_creeps(
    kept: list[Found],
    scores: FloatArray,
    reach: int,
    rho: float = 0.0,
    min_length: int = 5,
    values: FloatArray | None = None,
) -> tuple[list[Found], list[FoundCreep]]:
    """The changes that are steps, not stretches of a slow trend or a creep; and the creeps.

    Around each change (up to ``reach`` runs a side, not past its neighbours) a level shift
    and a straight line are fitted by least squares. A change is kept when the step fits
    better than the line (both have two parameters) and the model with the line and the step
    together is preferred to the line alone by the Schwarz criterion (Schwarz 1978, *Estimating
    the dimension of a model*, Ann. Statist. 6:461): the step's t statistic reaches
    ``sqrt(log n)`` for ``n`` runs in the fit, its variance widened by the long-run factor
    ``(1 + rho) / (1 - rho)`` of AR(1) noise with the lag-one correlation ``rho`` (the
    scan's estimate around its changes, pooled, :func:`._robust.pooled_correlation`). The scan has
    already rejected "no change" at the series' false-alarm rate; this is a choice between two
    explanations of that change, so a model-selection criterion, not a second test at that
    rate (which discarded steps the scan had rightly found; docs/history-detection.md),
    decides it. A slow trend or
    creep, which a line explains, is not reported as a change. Nor is a change that a
    linear ramp of at least ``min_length`` runs fits significantly better than any step
    (:mod:`._gradual`), judged on ``values`` (the series before winsorising, when given):
    clipping against a running median turns a large step into a short ramp. A change that
    fails this choice over the full reach, and is no creep there, is judged once more on the
    runs its placing window compared (:func:`_step_nearer`): a step the scan missed within
    the reach makes a line through both fit better than either step alone, and the nearer
    runs show the change the scan placed for what it is.

    The creeps are returned apart: the changes, steps or trends by the choice above, where a
    ramp between two levels also fits significantly better than the line
    (:func:`._gradual.creep_ramp`), with the first and last runs of the ramp. A line through
    the window (a slow trend that goes on) is not a creep.

    A change set aside outright (neither a step nor a creep) no longer bounds its
    neighbours' windows: the rest are judged again without it, until every change left is a
    step or a creep. Every creep's change stays a bound (the weaker of two in one creep
    too), and the ramps of the creeps found on the way also bound the windows beside them,
    so a step beside a creep is not judged with the creep's ramp in its window.
    """
    walls: list[tuple[int, int]] = []
    while True:
        out, creeps, every = _judged(kept, scores, reach, rho, min_length, values, walls)
        walls = sorted({*walls, *((first, end) for first, end, _ in every)})
        # Two changes the scan placed inside one ramp each saw half of it, in windows cut at
        # each other: the first passed for a step, the second for neither.
        survivors = sorted([*out, *(change for _, _, change in every)])
        if len(survivors) == len(kept):
            return out, creeps
        kept = survivors


def _judged(
    kept: list[Found],
    scores: FloatArray,
    reach: int,
    rho: float,
    min_length: int,
    values: FloatArray | None,
    walls: Sequence[tuple[int, int]],
) -> tuple[list[Found], list[FoundCreep], list[FoundCreep]]:
    """One pass of :func:`steps_and_creeps` over ``kept``, no window reaching into a ramp of
    ``walls`` (``(first, end)``) that lies wholly on one side of its change; also every
    creep found, the weaker of two merged ones included."""
    levels = scores if values is None else values
    out: list[Found] = []
    creeps: list[FoundCreep] = []
    every: list[FoundCreep] = []
    for i, (position, width, value) in enumerate(kept):
        low = max(
            out[-1][0] if out else 0,
            position - reach,
            *(end for _, end in walls if end <= position),
        )
        high = min(
            kept[i + 1][0] if i + 1 < len(kept) else scores.size,
            position + reach,
            *(first for first, _ in walls if first > position),
        )
        window = levels[low:high]
        if _step_within(scores, levels, low, high, position, rho, min_length):
            out.append((position, width, value))
            continue
        ramp = creep_ramp(window, min_length, rho)
        if ramp is None and _step_nearer(
            scores, levels, low, high, (position, width), reach, rho, min_length
        ):
            out.append((position, width, value))
            continue
        if ramp is None:
            continue
        creep = (low + ramp[0] + 1, low + ramp[0] + ramp[1], (position, width, value))
        every.append(creep)
        if creeps and creep[0] < creeps[-1][1]:
            # Two of the scan's changes inside one creep: it is reported once, by the
            # stronger of the two.
            if value <= creeps[-1][2][2]:
                continue
            creeps.pop()
        creeps.append(creep)
    return out, creeps, every


def _step_nearer(
    scores: FloatArray,
    levels: FloatArray,
    low: int,
    high: int,
    change: tuple[int, int],
    reach: int,
    rho: float,
    min_length: int,
) -> bool:
    """The second judgement of a change ``(position, width)`` that failed over ``[low,
    high)`` and is no creep there: a neighbouring step the scan missed inside the reach lets
    a line through both explain the runs better than either step alone, so the change is
    judged again on the runs its placing window compared (``width`` a side, at least half
    of :data:`._gradual.MIN_WINDOW` so that the ramp test still runs; never where the
    neighbours leave fewer runs than that)."""
    position, width = change
    near = max(width, MIN_WINDOW // 2)
    first, last = max(low, position - near), min(high, position + near)
    if near >= reach or last - first < MIN_WINDOW:
        return False
    return _step_within(scores, levels, first, last, position, rho, min_length)


def _step_within(
    scores: FloatArray,
    levels: FloatArray,
    low: int,
    high: int,
    position: int,
    rho: float,
    min_length: int,
) -> bool:
    """Whether the change at ``position`` is a step on the runs ``[low, high)``: a step
    rather than a line (:func:`_is_step`, on ``scores``) and not a ramp (on ``levels``)."""
    return _is_step(scores[low:high], position - low, rho) and not is_gradual(
        levels[low:high], min_length, rho
    )


def _is_step(part: FloatArray, at: int, rho: float) -> bool:
    """Whether a step at ``at`` explains ``part`` better than a straight line, and adds to
    the line by the Schwarz criterion with AR(1) widening (:func:`steps_and_creeps`)."""
    if part.size <= 3:
        return False
    step = (np.arange(part.size) >= at).astype(np.float64)
    x = np.arange(part.size, dtype=np.float64) - (part.size - 1) / 2.0
    step_rss = _rss(np.column_stack((np.ones_like(x), step)), part)[0]
    line_rss = _rss(np.column_stack((np.ones_like(x), x)), part)[0]
    if step_rss >= line_rss:
        return False
    design = np.column_stack((np.ones_like(x), x, step))
    both_rss, inverse = _rss(design, part)
    coefficient = float(np.linalg.lstsq(design, part, rcond=None)[0][2])
    variance = both_rss / (part.size - 3) * float(inverse[2, 2]) * (1 + rho) / (1 - rho)
    critical = math.sqrt(math.log(part.size))
    return not (variance > 0 and abs(coefficient) / math.sqrt(variance) < critical)


def _rss(design: FloatArray, values: FloatArray) -> tuple[float, FloatArray]:
    """Residual sum of squares of the least-squares fit, and ``(X'X)^-1``."""
    coefficients, _, _, _ = np.linalg.lstsq(design, values, rcond=None)
    residual = values - design @ coefficients
    inverse: FloatArray = np.linalg.pinv(design.T @ design)
    return float(residual @ residual), inverse


def shrunk_split_residuals(scores: FloatArray, min_segment: int) -> FloatArray:
    """Scores minus a soft-thresholded step at each row's split of largest CUSUM.

    The step is shrunk by what the largest CUSUM of stationary noise reaches at that split
    (module docstring, step 3), so pure noise keeps nearly all of its low-frequency spread.
    """
    rows, runs = scores.shape
    t = np.arange(min_segment, runs - min_segment + 1)
    sums = np.zeros((rows, runs + 1))
    np.cumsum(scores, axis=1, out=sums[:, 1:])
    before = sums[:, t] / t
    after = (sums[:, runs : runs + 1] - sums[:, t]) / (runs - t)
    weight = np.sqrt(t * (runs - t) / runs)
    best = np.argmax(weight * np.abs(after - before), axis=1)
    rows_index = np.arange(rows)
    split = t[best]
    step = (after - before)[rows_index, best]
    # Long-run standard deviation of AR(1) noise with the scores' lag-1 autocorrelation.
    centred = scores - np.where(np.arange(runs) >= split[:, None], step[:, None], 0.0)
    centred -= centred.mean(axis=1, keepdims=True)
    energy = np.maximum(np.sum(centred * centred, axis=1), 1e-300)  # constant series: 0
    lag1 = np.clip(np.sum(centred[:, 1:] * centred[:, :-1], axis=1) / energy, 0.0, 0.9)
    noise_reach = _KOLMOGOROV_95 * np.sqrt((1.0 + lag1) / (1.0 - lag1)) / weight[best]
    kept = np.sign(step) * np.maximum(np.abs(step) - noise_reach, 0.0)
    out: FloatArray = scores - np.where(np.arange(runs) >= split[:, None], kept[:, None], 0.0)
    out -= out.mean(axis=1, keepdims=True)
    return out


def shrunk_steps_residuals(scores: FloatArray, changes: Sequence[int]) -> FloatArray:
    """Scores minus a step function through ``changes`` whose every step is soft-thresholded
    by what stationary noise reaches at it (as :func:`shrunk_split_residuals` does for one)."""
    bounds = [0, *changes, scores.size]
    sizes = np.diff(bounds).astype(np.float64)
    means = np.array([scores[a:b].mean() for a, b in itertools.pairwise(bounds)])
    fitted = np.repeat(means, np.diff(bounds))
    centred = scores - fitted
    energy = max(float(centred @ centred), 1e-300)
    lag1 = min(max(float(centred[1:] @ centred[:-1]) / energy, 0.0), 0.9)
    long_run = math.sqrt(float(np.mean(centred**2)) * (1.0 + lag1) / (1.0 - lag1))
    steps = np.diff(means)
    weight = np.sqrt(sizes[:-1] * sizes[1:] / (sizes[:-1] + sizes[1:]))
    kept = np.sign(steps) * np.maximum(np.abs(steps) - _KOLMOGOROV_95 * long_run / weight, 0.0)
    levels = np.concatenate(([0.0], np.cumsum(kept)))
    out: FloatArray = scores - np.repeat(levels, np.diff(bounds))
    out -= out.mean()
    return out


def residuals(values: FloatArray, changes: Sequence[int], *, median: bool = False) -> FloatArray:
    """``values`` minus the mean (or median) of the segment each run belongs to."""
    bounds = [0, *changes, values.size]
    out = np.empty_like(values)
    for low, high in itertools.pairwise(bounds):
        part = values[low:high]
        out[low:high] = part - (np.median(part) if median else part.mean())
    return out
