"""A change's step in a model of the whole series: a level per segment, one slope, AR(1) noise.

The step-versus-trend choice (:func:`._shapes.steps_and_creeps`) judges a change on the
runs within its reach, where a line and a step compete with two parameters each. A 3 % step
set against a slow trend in AR(1) drift often loses there: over 40 runs the trend and the
drift's wander together look like a line. The whole series sees more: the same slope runs
through every segment between the changes, so it is estimated from all of them, and the
step is the difference of two levels about that slope. This module gives a change's ``t``
in that model, with the noise an AR(1) process of the correlation pooled across the series
scanned together, fitted by generalised least squares after the Cochrane-Orcutt
transformation (``y_t - rho y_(t-1)``; Cochrane & Orcutt 1949, J. Amer. Statist. Assoc.
44:32), the model that the penalised segmentation of :mod:`._ar1_segment` minimises
(Chakar, Lebarbier, Levy-Leduc & Robin 2017, Bernoulli 23:1408) with the slope fitted
within the segments (the fixed-effects estimator) rather than through them.

A change the local choice set aside is kept when its ``t^2`` reaches the segmentation's
penalty per change (the same criterion, the fall in the residual sum of squares in units of
the innovation variance that one more change must buy, as the segmentation that proposed
it), and when the step holds against a bend: one slope through the whole series is wrong
for a trend that starts or turns within it, and a step then stands in for the bend. So the
step must leave a smaller residual sum of squares than the same model with, instead of the
step, the slope changing at the best run between the change's neighbours (a broken line, as
the local choice holds a step against a line and a ramp), or, beside the step, that bend
must show no evidence of its own or the step keep its own (:func:`_beats_bend`). The
penalty is calibrated to the scan's false-alarm rate (:func:`._ar1_segment.penalty`), and
the rule runs only where 20 or more series pool their correlation: with one series' own
correlation, the whole-series model confirmed a rise on TCPD's ``quality_control_1`` that
the annotators do not mark (docs/history-detection-record.md, *The whole series, where the
correlation is pooled*).

:func:`shows_a_step` asks the same model, with each series' own correlation and for any
number of series, whether a preliminary segmentation's step is a step. It reports no change
itself: the scan's calibration, retried around such steps, needs one shown
(:mod:`.changepoint`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..compare.bootstrap import MAD_TO_SD, normal_quantile
from ._robust import difference_correlation
from ._shapes import residuals

if TYPE_CHECKING:
    from .._arrays import FloatArray, IntArray

__all__ = [
    "SEARCH_PENALTY",
    "further_steps",
    "kept_by_whole_series",
    "shows_a_step",
    "step_t",
]

#: Residuals are winsorised at this many robust deviations for their variance (as the
#: segmentation's spread, :mod:`._ar1_segment`): one outlying run must not hide a step.
_WINSOR = 3.5
#: Candidate runs :func:`_every_step_t` takes at a time (its arrays are runs x block).
_BLOCK = 256
#: The ``t^2`` a step of :func:`further_steps` must reach. The segmentation's penalty (15)
#: is too low for the largest ``t^2`` over every run: on our own pure-noise draws (seeds 900
#: and 901, 600 and 2,000 series of 200 runs per shape; iid, log-normal, bimodal, outliers,
#: AR(1) with rho 0.5 and 0.8, each with the scan's own scores and pooled rho), the share of
#: series whose largest ``t^2`` reached 15 was up to 4.2 % (rho 0.8; log-normal 2.8 %), 18
#: up to 1.45 %, and 20 at most 0.6 % (the smallest round value under 1 % on every shape;
#: on a held-out draw, seed 902, at most 0.55 %).
#: The partition's cost buys less per change (each segment's first decorrelated score is its
#: own parameter), and a rho estimated low inflates a level shift's ``t``.
SEARCH_PENALTY = 20.0
#: The ``t^2`` a bend's hinge must reach beside a step to set the step aside: chi-square's
#: 1 % point with one degree of freedom (the series' stated false-alarm rate), as for a bend
#: named in advance. The bend is chosen among many runs, which raises how often the noise
#: reaches this; measured beside true steps, its 99 % point was a little higher
#: (docs/history-detection-record.md), so the error falls on the side of the bend, as the
#: rule before it (the sums of squares alone) did.
_BEND_EVIDENCE = normal_quantile(1.0 - 0.01 / 2.0) ** 2
#: Residual variance below this share of the transformed scores' mean square is an exact
#: fit (round-off), against which no step can be measured.
_EXACT = 1e-20


def _levels_and_slope(runs: int, edges: Sequence[int]) -> FloatArray:
    """The design with a level between each pair of consecutive ``edges`` and one slope."""
    design = np.zeros((runs, len(edges)))
    for column, (low, high) in enumerate(itertools.pairwise(edges)):
        design[low:high, column] = 1.0
    design[:, -1] = np.arange(runs) - (runs - 1) / 2.0
    return design


def _transformed(y: FloatArray, design: FloatArray, rho: float) -> tuple[FloatArray, FloatArray]:
    """The Cochrane-Orcutt transformation of the scores and the design."""
    return y[1:] - rho * y[:-1], design[1:] - rho * design[:-1]


def _edges(runs: int, changes: Sequence[int], extra: Sequence[int]) -> list[int]:
    return [0, *sorted({*changes, *extra} - {0, runs}), runs]


class _StepFit(NamedTuple):
    """The model with the step at ``at`` fitted after the AR(1) transformation (with a
    bend's hinge as its last column, in :func:`_beats_bend`, the model holding both)."""

    edges: list[int]
    y_star: FloatArray
    x_star: FloatArray
    coefficients: FloatArray
    residuals: FloatArray


def _step_fit(scores: FloatArray, changes: Sequence[int], at: int, rho: float) -> _StepFit | None:
    """The stepped model of ``scores`` (:func:`step_t`); ``None`` where ``at`` is not inside
    the series or the runs are too few for the model."""
    y = np.asarray(scores, dtype=np.float64)
    runs = y.size
    if not 0 < at < runs:
        return None
    edges = _edges(runs, changes, [at])
    y_star, x_star = _transformed(y, _levels_and_slope(runs, edges), rho)
    if y_star.size <= x_star.shape[1] + 1:
        return None
    return _fitted(edges, y_star, x_star)


def _fitted(edges: list[int], y_star: FloatArray, x_star: FloatArray) -> _StepFit:
    """The least-squares fit of the transformed scores ``y_star`` on the design ``x_star``."""
    coefficients = np.asarray(np.linalg.lstsq(x_star, y_star, rcond=None)[0], dtype=np.float64)
    return _StepFit(edges, y_star, x_star, coefficients, y_star - x_star @ coefficients)


def _contrast_t(fit: _StepFit, contrast: FloatArray) -> float:
    """The ``t`` of ``contrast @ coefficients`` in a fitted model, the residuals' variance
    winsorised (one slow run must not hide a step); 0.0 for an exact fit (round-off)."""
    parameters = fit.x_star.shape[1]
    centred = fit.residuals - np.median(fit.residuals)
    spread = MAD_TO_SD * float(np.median(np.abs(centred)))
    clipped = np.clip(centred, -_WINSOR * spread, _WINSOR * spread)
    variance = float(clipped @ clipped) / (fit.y_star.size - parameters)
    if not variance > _EXACT * float(fit.y_star @ fit.y_star) / fit.y_star.size:
        return 0.0
    gram = fit.x_star.T @ fit.x_star
    spread_of_estimate = variance * float(contrast @ np.linalg.pinv(gram) @ contrast)
    if not spread_of_estimate > 0.0:
        return 0.0
    return float(contrast @ fit.coefficients) / float(np.sqrt(spread_of_estimate))


def _t(fit: _StepFit, at: int) -> float:
    """The step's ``t`` of a fitted model: the level after ``at`` less the level before."""
    contrast = np.zeros(fit.x_star.shape[1])
    column = fit.edges.index(at)
    contrast[column], contrast[column - 1] = 1.0, -1.0
    return _contrast_t(fit, contrast)


def step_t(scores: FloatArray, changes: Sequence[int], at: int, rho: float) -> float:
    """The ``t`` statistic of the step at ``at`` in the model of ``scores`` with a level
    between each pair of consecutive ``changes`` (and ``at``), one straight-line slope and
    AR(1) errors with correlation ``rho`` (module docstring); 0.0 where ``at`` is not inside
    the series, the model cannot be fitted (too few runs) or fits exactly (no noise to
    measure the step against)."""
    fit = _step_fit(scores, changes, at, rho)
    return 0.0 if fit is None else _t(fit, at)


def shows_a_step(
    values: FloatArray,
    scores: FloatArray,
    changes: Sequence[int],
    candidates: Sequence[int],
    *,
    penalty: float,
) -> bool:
    """Whether the model of the whole series shows a step at one of ``candidates`` beside
    ``changes``: the step's ``t^2`` (:func:`step_t`, every other change and candidate in
    the model) reaches ``penalty``. The noise's correlation is read from ``values`` about
    the means between all of them, each series' own: pooled, a strong drift's would be
    pulled toward that of weaker series. A preliminary segmentation whose threshold takes a
    lower bound of the correlation often reads a drift's wander as steps; a ``t^2`` at the
    search's penalty, the wander's correlation in its variance, rarely does. Reading the
    correlation about the candidates themselves lowers it a little where they are wander
    (docs/history-detection-record.md, *A retried null needs a step the whole series
    shows*)."""
    if not candidates:
        return False
    every = sorted({*changes, *candidates})
    line = np.asarray(values, dtype=np.float64)
    rho = float(difference_correlation(residuals(line, every)[None, :])[0])
    return any(
        step_t(scores, [edge for edge in every if edge != at], at, rho) ** 2 >= penalty
        for at in candidates
    )


def _rss(y_star: FloatArray, x_star: FloatArray) -> float:
    coefficients, *_ = np.linalg.lstsq(x_star, y_star, rcond=None)
    residuals = y_star - x_star @ coefficients
    return float(residuals @ residuals)


def _hinge(runs: int, bend: int, rho: float) -> FloatArray:
    """The transformed column of a slope that changes at ``bend`` and holds to the end."""
    hinge = np.maximum(np.arange(runs, dtype=np.float64) - bend, 0.0)
    return np.asarray(hinge[1:] - rho * hinge[:-1], dtype=np.float64)


def _best_bend(
    fit: _StepFit, scores: FloatArray, changes: Sequence[int], at: int, rho: float, least: int
) -> tuple[int, float] | None:
    """The run between ``at``'s neighbours in ``changes`` (``least`` runs from each) where
    a change of the slope, from there to the end of the series, leaves the smallest residual
    sum of squares (after the AR(1) transformation) in the model without the step, and that
    sum; ``None`` where no run is that far from both neighbours."""
    y = np.asarray(scores, dtype=np.float64)
    runs = y.size
    index = fit.edges.index(at)
    low, high = fit.edges[index - 1], fit.edges[index + 1]
    # The transformation is linear per column: the scores and the levels-and-slope design
    # are transformed once, each bend's hinge column on its own.
    y_star, base = _transformed(y, _levels_and_slope(runs, _edges(runs, changes, [])), rho)
    best: tuple[int, float] | None = None
    for bend in range(low + least, high - least + 1):
        rss = _rss(y_star, np.column_stack([base, _hinge(runs, bend, rho)]))
        if best is None or rss < best[1]:
            best = (bend, rss)
    return best


def _beats_bend(
    fit: _StepFit,
    scores: FloatArray,
    changes: Sequence[int],
    at: int,
    rho: float,
    least: int,
    penalty: float,
) -> bool:
    """Whether the stepped model ``fit`` holds against the best bend (:func:`_best_bend`):
    it leaves a smaller residual sum of squares; or, in the model holding both, the bend's
    hinge shows no evidence of its own (``t^2`` under ``_BEND_EVIDENCE``) or the step still
    reaches ``penalty`` (the data want both). A step and a bend each add one parameter to
    the levels and the slope, but the bend is the best of every run between the step's
    neighbours: by the sums of squares alone, the noise's best bend took true steps from
    trends that never turn. Each model's own term tested in the model holding both is the J
    test of two models that do not nest (Davidson & MacKinnon 1981, Econometrica 49:781;
    with one term each side, its statistic is that term's ``t``), here for two of the three
    models of a broken trend (Perron 1989, Econometrica 57:1361: a shift in level, a change
    of slope). Where the trend does turn, the hinge carries it beside the step, and the step
    goes (docs/history-detection-record.md, *A bend needs evidence of its own*). A bend
    that fits exactly (a noise-free broken line) leaves nothing to test against: the step
    goes."""
    found = _best_bend(fit, scores, changes, at, rho, least)
    if found is None:
        return True
    if not found[1] > _EXACT * float(fit.y_star @ fit.y_star):
        return False
    if found[1] > float(fit.residuals @ fit.residuals):
        return True
    x_star = np.column_stack([fit.x_star, _hinge(fit.y_star.size + 1, found[0], rho)])
    both = _fitted(fit.edges, fit.y_star, x_star)
    slope_change = np.zeros(x_star.shape[1])
    slope_change[-1] = 1.0
    if _contrast_t(both, slope_change) ** 2 < _BEND_EVIDENCE:
        return True
    return _t(both, at) ** 2 >= penalty


def kept_by_whole_series(
    scores: FloatArray,
    changes: Sequence[int],
    at: int,
    rho: float,
    *,
    penalty: float,
    min_segment: int,
) -> bool:
    """Whether the model of the whole series keeps a step at ``at`` beside ``changes`` (the
    kept changes and the ends of creeps' ramps): its ``t^2`` reaches ``penalty`` and it holds
    against a bend (module docstring)."""
    fit = _step_fit(scores, changes, at, rho)
    if fit is None:
        return False
    t = _t(fit, at)
    return t * t >= penalty and _beats_bend(fit, scores, changes, at, rho, min_segment, penalty)


def _every_step_t(
    scores: FloatArray, changes: Sequence[int], rho: float, at: IntArray
) -> FloatArray:
    """:func:`step_t` at each run of ``at`` at once. The model with a step at ``a`` is the
    model without it plus the column ``1(run >= a)`` (with the levels, it splits the segment
    ``a`` lies in), so by the Frisch-Waugh-Lovell theorem the step's coefficient and its
    variance come from that column and the scores, each less its projection on the model
    without the step; the residuals' winsorised variance is that of :func:`_t`."""
    y = np.asarray(scores, dtype=np.float64)
    runs = y.size
    y_star, x_star = _transformed(y, _levels_and_slope(runs, _edges(runs, changes, [])), rho)
    parameters = x_star.shape[1] + 1
    # As :func:`_step_fit`: the stepped model needs more runs than parameters plus one.
    if at.size == 0 or y_star.size <= parameters + 1:
        return np.zeros(at.size)
    basis = np.linalg.qr(x_star)[0]
    y_rest = y_star - basis @ (basis.T @ y_star)
    exact = _EXACT * float(y_star @ y_star) / y_star.size
    run = np.arange(runs)[:, None]
    out = np.zeros(at.size)
    # A block of candidate runs at a time: the arrays are runs x candidates.
    for first in range(0, at.size, _BLOCK):
        part = at[first : first + _BLOCK]
        columns = (run >= part[None, :]).astype(np.float64)
        columns_star = columns[1:] - rho * columns[:-1]
        columns_rest = columns_star - basis @ (basis.T @ columns_star)
        energy = np.einsum("ij,ij->j", columns_rest, columns_rest)
        # A step the model already holds (at an edge) leaves round-off, not a column.
        usable = energy > 1e-9 * np.einsum("ij,ij->j", columns_star, columns_star)
        energy = np.where(usable, energy, 1.0)
        step = (y_rest @ columns_rest) / energy
        rest = y_rest[:, None] - columns_rest * step[None, :]
        centred = rest - np.median(rest, axis=0)
        spread = MAD_TO_SD * np.median(np.abs(centred), axis=0)
        clipped = np.clip(centred, -_WINSOR * spread, _WINSOR * spread)
        variance = np.einsum("ij,ij->j", clipped, clipped) / (y_star.size - parameters)
        measurable = usable & (variance > exact)
        out[first : first + part.size] = np.where(
            measurable, step * np.sqrt(energy / np.where(measurable, variance, 1.0)), 0.0
        )
    return out


def further_steps(
    scores: FloatArray,
    changes: Sequence[int],
    ramps: Sequence[tuple[int, int]],
    rho: float,
    *,
    penalty: float,
    min_segment: int,
) -> list[int]:
    """The steps the model of the whole series adds beside ``changes`` and the creeps'
    ``ramps`` (first and end runs), greedily: each round, of the runs ``min_segment`` or
    more from every edge and more than that from every ramp (the runs the choice calls
    free), the one whose step has the largest ``t``, kept where
    :func:`kept_by_whole_series` keeps it (``t^2`` at least ``penalty``, holding against
    a bend); the search stops at the first it does not keep. This is binary segmentation
    (Vostrikova 1981) under the model's own criterion: the penalised segmentation buys a
    change where the fall in its cost reaches the penalty, and the largest fall one more
    change can buy is the largest ``t^2``. Returns the added steps in the order found."""
    runs = int(np.asarray(scores).size)
    added: list[int] = []
    positions = np.arange(min_segment, runs - min_segment + 1)
    while True:
        edges = sorted({*changes, *added, *(end for ramp in ramps for end in ramp)})
        free = np.ones(positions.size, dtype=bool)
        for edge in edges:
            free &= np.abs(positions - edge) >= min_segment
        for first, end in ramps:
            free &= (positions < first - min_segment) | (positions > end + min_segment)
        candidates = positions[free]
        if candidates.size == 0:
            return added
        t = _every_step_t(scores, edges, rho, candidates)
        at = int(candidates[int(np.argmax(t * t))])
        if not kept_by_whole_series(
            scores, edges, at, rho, penalty=penalty, min_segment=min_segment
        ):
            return added
        added.append(at)
