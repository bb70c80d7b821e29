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
penalty per change: the same criterion (the fall in the residual sum of squares, in units of
the innovation variance, that one more change must buy) as the segmentation that proposed
it. That penalty is calibrated to the scan's false-alarm rate (:func:`._ar1_segment.penalty`),
and the rule runs only where 20 or more series pool their correlation: with one series' own
correlation, the whole-series model confirmed a rise on TCPD's ``quality_control_1`` that
the annotators do not mark (docs/history-detection.md).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..compare.bootstrap import MAD_TO_SD

if TYPE_CHECKING:
    from .._arrays import FloatArray

__all__ = ["step_t"]

#: Residuals are winsorised at this many robust deviations for their variance (as the
#: segmentation's spread, :mod:`._ar1_segment`): one outlying run must not hide a step.
_WINSOR = 3.5


def step_t(scores: FloatArray, changes: Sequence[int], at: int, rho: float) -> float:
    """The ``t`` statistic of the step at ``at`` in the model of ``scores`` with a level
    between each pair of consecutive ``changes`` (and ``at``), one straight-line slope and
    AR(1) errors with correlation ``rho`` (module docstring); 0.0 where the model cannot be
    fitted (too few runs) or fits exactly (no noise to measure the step against)."""
    y = np.asarray(scores, dtype=np.float64)
    runs = y.size
    edges = [0, *sorted({*changes, at} - {0, runs}), runs]
    design = np.zeros((runs, len(edges)))
    for column, (low, high) in enumerate(itertools.pairwise(edges)):
        design[low:high, column] = 1.0
    design[:, -1] = np.arange(runs) - (runs - 1) / 2.0
    y_star = y[1:] - rho * y[:-1]
    x_star = design[1:] - rho * design[:-1]
    parameters = x_star.shape[1]
    if y_star.size <= parameters + 1:
        return 0.0
    coefficients, *_ = np.linalg.lstsq(x_star, y_star, rcond=None)
    residuals = y_star - x_star @ coefficients
    centred = residuals - np.median(residuals)
    spread = MAD_TO_SD * float(np.median(np.abs(centred)))
    clipped = np.clip(centred, -_WINSOR * spread, _WINSOR * spread)
    variance = float(clipped @ clipped) / (y_star.size - parameters)
    contrast = np.zeros(parameters)
    column = edges.index(at)
    contrast[column], contrast[column - 1] = 1.0, -1.0
    spread_of_step = variance * float(contrast @ np.linalg.pinv(x_star.T @ x_star) @ contrast)
    if not spread_of_step > 0.0:
        return 0.0
    return float(contrast @ coefficients) / float(np.sqrt(spread_of_step))
