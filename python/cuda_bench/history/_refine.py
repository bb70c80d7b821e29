"""Changes between changes: binary segmentation of the stretches the scan left whole.

The scan's widest windows reach 40 runs a side, and a window that straddles a neighbouring
change sees that change as well, so a modest step with another change 20 to 40 runs away can
stay below the threshold although the runs between its neighbours show it plainly (the
``well_log`` series of the Turing Change Point Dataset has several such steps). After the
scan, each stretch between consecutive changes (and the series' ends) is searched by binary
segmentation (Scott & Knott 1974, *A cluster analysis method for grouping means in the
analysis of variance*, Biometrics 30:507; Vostrikova 1981, *Detecting "disorder" in
multidimensional random processes*, Soviet Math. Dokl. 24:55): the CUSUM statistic

    ``z(t) = |mean(after) - mean(before)| / sqrt(1/a + 1/b)``

over the stretch (``a`` and ``b`` runs on either side of ``t`` within it, at least
``min_segment`` each), in units of its null standard deviation, is compared with the series'
calibrated threshold. Where the largest reaches it, a change is proposed there; it is kept
only if it is a step and not a trend or a creep (the same choice as every change,
:func:`._shapes.steps_only`), and the two stretches it makes are searched in turn.

The null standard deviation is the largest of the windows' calibrated ones (the widest
window's, for positively correlated noise), widened to the stretch by the AR(1) model with
the series' lag-one correlation (:func:`._robust.ar1_window_scale` at half the stretch
against the widest window): a CUSUM
over a long stretch averages more runs, and with positively correlated noise its variance
keeps growing toward the long-run one.

Only a series in which the scan found a change is searched, so a series of pure noise keeps
the false-alarm rate the scan was calibrated to. Within a stretch without a further change,
the CUSUM's maximum (that of a standardised Brownian bridge) stays below the maximum over
all windows and positions of the whole series, whose quantile the threshold is.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ._robust import ar1_window_scale
from ._shapes import steps_only

if TYPE_CHECKING:
    from .._arrays import FloatArray

__all__ = ["split_stretches", "steps_between"]

#: A change as the scan carries it: first run of the new level, runs a side, statistic.
Found = tuple[int, int, float]
#: The null around a list of changes: the largest window's standard deviation, threshold.
Null = Callable[[list[int]], tuple[float, float]]


def split_stretches(
    found: Sequence[Found],
    scores: FloatArray,
    *,
    scanned: tuple[float, float],
    null: Null,
    widest: int,
    rho: float,
    min_segment: int,
    steps: Callable[[list[Found]], list[Found]],
) -> list[Found]:
    """``found`` with the changes binary segmentation adds between them (module docstring).

    ``scores`` is the scanned series; ``scanned`` the largest null standard deviation of the
    windows' statistics (``widest`` runs a side for the widest window) and the threshold, as
    the scan calibrated them; ``null(changes)`` the same calibrated around ``changes``;
    ``steps`` the step-versus-trend choice applied to a list of changes. Returns the changes
    in index order; those of ``found`` are kept as they are.
    """
    if not found:
        return list(found)
    runs = scores.size
    sums = np.concatenate(([0.0], np.cumsum(scores)))
    kept = {change[0]: change for change in found}
    searched: set[tuple[int, int]] = set()
    while True:
        bounds = [0, *sorted(kept), runs]
        stretches = [
            (low, high)
            for low, high in itertools.pairwise(bounds)
            if high - low >= 2 * min_segment and (low, high) not in searched
        ]
        if not stretches:
            return sorted(kept.values())
        for low, high in stretches:
            searched.add((low, high))
            at, statistic = _largest_split(sums, low, high, min_segment)
            widening = _widening(rho, widest, (high - low) // 2)
            # A change the scan missed inflates the null it is tested against; the null
            # around the changes with this one (soft-thresholded) is the fair one.
            for scale, threshold in (scanned, null(sorted([*kept, at]))):
                if statistic / (scale * widening) >= threshold:
                    break
            else:
                continue
            change = (at, min(at - low, high - at), statistic / (scale * widening))
            if at in {index for index, _, _ in steps(sorted([*kept.values(), change]))}:
                kept[at] = change


def steps_between(
    found: Sequence[Found],
    scores: FloatArray,
    values: FloatArray,
    *,
    scanned: tuple[float, float],
    null: Null,
    rho: float,
    reach: int,
    min_segment: int,
) -> list[Found]:
    """The scan's changes that are steps (:func:`._shapes.steps_only`, within ``reach`` runs
    a side), and the steps :func:`split_stretches` finds between them."""

    def steps(changes: list[Found]) -> list[Found]:
        return steps_only(changes, scores, reach, rho, min_segment, values)

    return split_stretches(
        steps(list(found)),
        scores,
        scanned=scanned,
        null=null,
        widest=reach,
        rho=rho,
        min_segment=min_segment,
        steps=steps,
    )


def _largest_split(sums: FloatArray, low: int, high: int, min_segment: int) -> tuple[int, float]:
    """Position and value of the largest CUSUM statistic of ``[low, high)``."""
    t = np.arange(low + min_segment, high - min_segment + 1)
    before = (sums[t] - sums[low]) / (t - low)
    after = (sums[high] - sums[t]) / (high - t)
    z = np.abs(after - before) / np.sqrt(1.0 / (t - low) + 1.0 / (high - t))
    best = int(np.argmax(z))
    return int(t[best]), float(z[best])


def _widening(rho: float, widest: int, half: int) -> float:
    """How much more an AR(1) CUSUM of ``half`` runs a side varies than one of ``widest``."""
    if half <= widest:
        return 1.0
    scales = ar1_window_scale(np.array([rho]), [widest, half])[0]
    return max(1.0, float(scales[1] / scales[0]))
