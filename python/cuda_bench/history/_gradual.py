"""A change that takes many runs: a creep, told from a step (see :mod:`.changepoint`).

A step moves the level from one run to the next; a creep moves it over many runs (real
nightly histories show both: TigerBeetle's level rises over about 48 runs, from run 97).
The scan places a change inside a creep wherever its windows see the largest difference,
and a step fits a creep followed by a plateau better than a straight line does, so neither
the scan nor the step-versus-line choice (:func:`._shapes.steps_and_creeps`) tells them apart.

Around a change, two models of the transition between an old and a new level are fitted by
least squares: the best single step (any position in the window), and the best linear ramp
of at least ``min_length`` runs (any start and length; a step is a ramp of one run). The
change is gradual when the ramp fits better by

    ``F = (RSS_step - RSS_ramp) / (RSS_ramp / (n - 4))``

beyond :data:`GRADUAL_F_99` times the AR(1) long-run factor ``(1 + rho) / (1 - rho)``,
and the ramp is also preferred to the best *two* steps (a staircase: two abrupt changes
close together, one of which the scan may have missed) by the Schwarz criterion (Schwarz
1978): the ramp has one parameter fewer, so it is preferred unless the staircase lowers
``n log RSS`` by more than ``log n`` (in the same long-run units). A staircase is left to
the scan, which reports its steps as changes.

:data:`GRADUAL_F_99` is the 99 % point of ``F`` for a true step in independent normal noise,
the largest over steps of 3, 5 and 8 noise standard deviations at the middle and at a
quarter of windows of 20, 30, 40, 60 and 80 runs (2,000 simulations each;
``test_history_gradual.py`` repeats part of the simulation): a step is taken for a creep in
at most about 1 % of windows. Windows shorter than :data:`MIN_WINDOW` runs, outside that
range, are not judged. The models carry no line: a creep inside a slow drift is
still a creep, and a sheriff-validated step of a Firefox series that sits in a drift
(``4975360`` at 44) read as a ramp when a line was added to both models. The search over
ramps makes ``F`` a maximum over many nested fits, so the classical F distribution would
not do.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Final

import numpy as np

if TYPE_CHECKING:
    from .._arrays import FloatArray, IntArray

__all__ = [
    "GRADUAL_F_99",
    "LINE_F_99",
    "MIN_WINDOW",
    "creep_ramp",
    "gradual_statistic",
    "is_gradual",
    "less_line",
    "ramp_regressors",
    "staircase_rss",
    "transition_rss",
]

#: 99 % point of :func:`gradual_statistic` for a true step in independent noise (module
#: docstring; the largest of the simulated 99 % points was 8.17, rounded up).
GRADUAL_F_99: Final = 8.5
#: 99 % point of the same ``F`` with a straight line in place of the step, for a true line
#: in independent noise: the largest over windows of 20 to 80 runs and slopes of 0 to 3
#: noise standard deviations per run (4,000 simulations each, 2026-11-28; the largest was
#: 12.4, at 20 runs and 0.3 per run), rounded up. A line is a ramp across the whole window,
#: so under a line ``F`` is the gain of the best shorter ramp by chance.
LINE_F_99: Final = 13.0
#: Fewest runs in a window for the creep test: the shortest simulated (in windows of 12 to
#: 14 runs the 99 % point is about 9).
MIN_WINDOW: Final = 20


def ramp_regressors(runs: int) -> tuple[FloatArray, IntArray, IntArray]:
    """Every transition of ``runs`` runs, centred: ``(transitions, runs)``, and each one's
    length (1 for a step) and start. Row ``(start, length)`` is 0 up to ``start``, 1 from
    ``start + length`` on, linear in between."""
    t = np.arange(runs, dtype=np.float64)
    lengths = np.concatenate([np.full(runs - length, length) for length in range(1, runs)])
    starts = np.concatenate([np.arange(runs - length) for length in range(1, runs)])
    ramps: FloatArray = np.clip((t[None, :] - starts[:, None]) / lengths[:, None], 0.0, 1.0)
    ramps -= ramps.mean(axis=1, keepdims=True)
    return ramps, lengths.astype(np.int64), starts.astype(np.int64)


def _transition_fits(values: FloatArray) -> tuple[FloatArray, IntArray, IntArray]:
    """The residual sum of squares of every transition's fit to every row of ``values``
    (``(transitions, rows)``), with each transition's length and start
    (:func:`ramp_regressors`)."""
    ramps, lengths, starts = ramp_regressors(values.shape[1])
    centred = values - values.mean(axis=1, keepdims=True)
    total = np.einsum("ij,ij->i", centred, centred)
    spread = np.einsum("ij,ij->i", ramps, ramps)
    rss: FloatArray = total[None, :] - (ramps @ centred.T) ** 2 / spread[:, None]
    return rss, lengths, starts


def transition_rss(values: FloatArray, min_length: int) -> tuple[FloatArray, FloatArray]:
    """Residual sums of squares of each row's best single step and best ramp of at least
    ``min_length`` runs (``values`` ``(rows, runs)``, with ``runs >= min_length + 2``)."""
    # The ramp across the whole window is a straight line; it stays a candidate, harmlessly:
    # a change reaches this test only when a step fits better than a line does.
    rss, lengths, _ = _transition_fits(values)
    step: FloatArray = rss[lengths == 1].min(axis=0)
    ramp: FloatArray = np.maximum(rss[lengths >= min_length].min(axis=0), 1e-300)
    return step, ramp


def gradual_statistic(values: FloatArray, min_length: int) -> FloatArray:
    """``F`` (module docstring) of each row of ``values``: ``(rows, runs)`` in, ``(rows,)``
    out; ``-inf`` where the window is too short for a ramp of ``min_length`` runs."""
    rows, runs = values.shape
    if runs < 2 * min_length + 2:
        return np.full(rows, -np.inf)
    step, ramp = transition_rss(values, min_length)
    return _gain(step, ramp, runs)


def _gain(worse: FloatArray, ramp: FloatArray, runs: int) -> FloatArray:
    """How much better the ramp fits than ``worse``: the drop in RSS over the ramp's
    residual variance (``n - 4`` degrees of freedom), as ``F`` in the module docstring."""
    out: FloatArray = (worse - ramp) / (ramp / (runs - 4))
    return out


def staircase_rss(values: FloatArray) -> float:
    """Residual sum of squares of the best fit by three levels (two steps) of ``values``
    (0 for fewer than 3 runs, which three levels fit exactly)."""
    runs = values.size
    if runs < 3:
        return 0.0
    sums = np.concatenate(([0.0], np.cumsum(values)))
    squares = np.concatenate(([0.0], np.cumsum(values * values)))
    first = np.arange(1, runs - 1)[:, None]  # first run of the middle level
    second = np.arange(2, runs)[None, :]  # first run of the last level
    valid = second > first
    second = np.where(valid, second, first + 1)
    last = np.full_like(second, runs)

    def spread(low: IntArray, high: IntArray) -> FloatArray:
        total = sums[high] - sums[low]
        out: FloatArray = squares[high] - squares[low] - total * total / (high - low)
        return out

    fits = spread(np.zeros_like(first), first) + spread(first, second) + spread(second, last)
    return float(np.where(valid, fits, np.inf).min())


def less_line(rows: FloatArray) -> FloatArray:
    """Each row less its least-squares straight line."""
    runs = rows.shape[1]
    x = np.arange(runs, dtype=np.float64) - (runs - 1) / 2.0
    slope = rows @ x / max(float(x @ x), 1e-300)
    out: FloatArray = rows - rows.mean(axis=1, keepdims=True) - slope[:, None] * x[None, :]
    return out


def _line_rss(values: FloatArray) -> float:
    residual = less_line(values[None, :])[0]
    return float(residual @ residual)


def creep_ramp(values: FloatArray, min_length: int, rho: float = 0.0) -> tuple[int, int] | None:
    """The ramp of a creep between two levels within ``values`` (one window of the series),
    as its start and length (row ``(start, length)`` of :func:`ramp_regressors`: the last
    run of the old level and the runs to the first of the new), or ``None``.

    Only ramps with at least ``min_length`` runs of the old level before them and of the new
    level after them within the window are considered (a level of one run has no spread to
    compare with). The best of them must fit significantly better than any step (as
    :func:`is_gradual`, at :data:`GRADUAL_F_99`), than a straight line (at
    :data:`LINE_F_99`: a slow trend through the window has no old and new level), both
    times the AR(1) long-run factor, and no worse than two steps by the Schwarz criterion.
    A subset of the ramps :func:`is_gradual` searches makes ``F`` smaller under a true step
    or line, so the critical values stay conservative."""
    runs = values.size
    if runs < max(MIN_WINDOW, 3 * min_length):
        return None
    # One set of fits serves the best step (any transition of one run) and the best sided
    # ramp.
    fits, lengths, starts = _transition_fits(values[None, :])
    rss = fits[:, 0]
    sided = np.flatnonzero(
        (lengths >= min_length)
        & (starts + 1 >= min_length)
        & (runs - starts - lengths >= min_length)
    )
    best = int(sided[np.argmin(rss[sided])])
    ramp = np.array([max(float(rss[best]), 1e-300)])
    step = np.array([float(rss[lengths == 1].min())])
    long_run = (1.0 + rho) / (1.0 - rho)
    if float(_gain(step, ramp, runs)[0]) <= GRADUAL_F_99 * long_run:
        return None
    if float(_gain(np.array([_line_rss(values)]), ramp, runs)[0]) <= LINE_F_99 * long_run:
        return None
    if not _no_staircase(values, ramp, long_run):
        return None
    return int(starts[best]), int(lengths[best])


def is_gradual(values: FloatArray, min_length: int, rho: float = 0.0) -> bool:
    """Whether the change within ``values`` (one window of the series) is a creep: a ramp
    of at least ``min_length`` runs fits it significantly better than any step, and no
    worse than two steps by the Schwarz criterion (module docstring). Windows shorter than
    :data:`MIN_WINDOW` runs, below the simulated range of the critical value, are never
    called creeps."""
    runs = values.size
    if runs < max(MIN_WINDOW, 2 * min_length + 2):
        return False
    long_run = (1.0 + rho) / (1.0 - rho)
    # The ramp fits are the costly part: computed once, for both comparisons.
    step, ramp = transition_rss(values[None, :], min_length)
    if float(_gain(step, ramp, runs)[0]) <= GRADUAL_F_99 * long_run:
        return False
    return _no_staircase(values, ramp, long_run)


def _no_staircase(values: FloatArray, ramp: FloatArray, long_run: float) -> bool:
    """Whether the ramp (its residual sum of squares ``ramp``, one row) is not beaten by
    the best two steps by more than the Schwarz penalty (module docstring)."""
    runs = values.size
    staircase = np.array([staircase_rss(values)])
    return float(_gain(staircase, ramp, runs)[0]) > -math.log(runs) * long_run
