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
:func:`._shapes.steps_and_creeps`), and the two stretches it makes are searched in turn.

The null is the scan's or, where the statistic falls short of it, the one recalibrated
around the changes with the proposed one (residuals with soft-thresholded steps, as the
scan's first pass, less their straight line): a change the scan missed inflates the null it
is tested against, and so does a slow trend, which the step-versus-trend choice that every
proposal then faces already tells from a step. Its
standard deviation is the largest of the windows' calibrated ones (the widest window's, for
positively correlated noise), widened to the stretch by the AR(1) model with the series'
lag-one correlation (:func:`._robust.ar1_window_scale` at half the stretch against the
widest window): a CUSUM over a long stretch averages more runs, and with positively
correlated noise its variance keeps growing toward the long-run one. An added change carries
the p-value of the null that accepted it.

Only a series in which the scan found a change is searched, so a series of pure noise keeps
its calibrated probability of any false change. Within a stretch with no further change, the
CUSUM's upper quantiles (those of a standardised Brownian bridge) lie far below those of the
maximum over all windows and positions of a series, which the threshold is: 0.085 % of
150-run stretches of independent noise reach the threshold of 200-run series (20,000
simulated, 2026-11-28). Each stretch searched is one more such chance, so a series with
changes can gain a false one a little more often than the rate.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import msgspec
import numpy as np

from ._ar1_place import placed_in_ar1
from ._robust import ar1_window_scale
from ._shapes import Found, FoundCreep, steps_and_creeps
from ._whole_series import further_steps, kept_by_whole_series

if TYPE_CHECKING:
    from .._arrays import FloatArray

__all__ = ["StretchNull", "cusum_peak", "placed", "relocate", "split_stretches", "steps_between"]


class StretchNull(msgspec.Struct, frozen=True):
    """A null a stretch's CUSUM is held to: the largest window standard deviation, the
    threshold, and the p-value of a statistic in those units."""

    scale: float
    threshold: float
    p_value: Callable[[float], float]


def split_stretches(
    found: Sequence[Found],
    scores: FloatArray,
    *,
    scanned: StretchNull,
    around: Callable[[list[int]], StretchNull],
    least: float,
    widest: int,
    rho: float,
    min_segment: int,
    steps: Callable[[list[Found]], list[Found]],
) -> tuple[list[Found], dict[int, float]]:
    """``found`` with the changes binary segmentation adds between them (module docstring),
    and the p-value of each added change under the null that accepted it.

    ``scores`` is the scanned series; ``scanned`` the null as the scan calibrated it;
    ``around(changes)`` the null calibrated around ``changes``, whose scale times threshold
    is never below ``least`` (a smaller statistic is not worth a calibration); ``steps`` the
    step-versus-trend choice applied to a list of changes. The changes of ``found`` stay,
    even where a change added beside them narrows the runs their own choice would see.
    """
    if not found:
        return list(found), {}
    runs = scores.size
    sums = np.concatenate(([0.0], np.cumsum(scores)))
    kept = {change[0]: change for change in found}
    p_values: dict[int, float] = {}
    searched: set[tuple[int, int]] = set()
    while True:
        bounds = [0, *sorted(kept), runs]
        stretches = [
            (low, high)
            for low, high in itertools.pairwise(bounds)
            if high - low >= 2 * min_segment and (low, high) not in searched
        ]
        if not stretches:
            return sorted(kept.values()), p_values
        for low, high in stretches:
            searched.add((low, high))
            at, statistic = cusum_peak(sums, low, high, low + min_segment, high - min_segment)
            statistic /= _widening(rho, widest, (high - low) // 2)
            null = _accepting(statistic, scanned, least, around, [*kept, at])
            if null is None:
                continue
            change = (at, min(at - low, high - at, widest), statistic / null.scale)
            if at in {index for index, _, _ in steps(sorted([*kept.values(), change]))}:
                kept[at] = change
                p_values[at] = null.p_value(change[2])


def _accepting(
    statistic: float,
    scanned: StretchNull,
    least: float,
    around: Callable[[list[int]], StretchNull],
    changes: list[int],
) -> StretchNull | None:
    """The null ``statistic`` passes: the scan's, or else the one recalibrated around the
    proposed change (a change the scan missed inflates the null it is tested against; the
    null around the changes with this one, soft-thresholded, is the fair one), calibrated
    only when the statistic could pass it; ``changes`` includes the proposed one; ``None``
    when neither does."""
    if statistic >= scanned.scale * scanned.threshold:
        return scanned
    if statistic < least:
        return None
    null = around(changes)
    return null if statistic >= null.scale * null.threshold else None


def steps_between(
    found: Sequence[Found],
    scores: FloatArray,
    values: FloatArray,
    *,
    scanned: StretchNull,
    around: Callable[[list[int]], StretchNull],
    least: float,
    rho: float,
    reach: int,
    min_segment: int,
    proposals: Sequence[Found] = (),
    proposal_p_value: float = 1.0,
    whole_series_penalty: float | None = None,
    search_penalty: float | None = None,
    lost: Sequence[int] = (),
) -> tuple[list[Found], dict[int, float], list[FoundCreep]]:
    """The scan's changes that are steps (:func:`._shapes.steps_and_creeps`, within
    ``reach`` runs a side), the steps :func:`split_stretches` finds between them with their
    p-values, and the scan's changes that are creeps (none with a change inside its ramp).

    ``proposals`` (:mod:`._ar1_segment`), strongest first, join the kept steps one by one
    where the step-versus-trend choice keeps each among them, as binary segmentation's
    proposals do, never within ``min_segment`` runs of a kept step or a creep; a kept one's
    p-value is ``proposal_p_value`` or that of its statistic under the scan's null, the
    smaller (docs/history-detection.md, *Where 20 or more series are scanned together*; why,
    with figures: docs/history-detection-record.md, *Their p-values*).

    With ``whole_series_penalty`` (only where the correlation is pooled across many series),
    a scan's change or a proposal that the choice sets aside, and that is no creep, is kept
    when its step's squared ``t`` in the model of the whole series (a level per segment, one
    slope, AR(1) noise; the ends of creeps' ramps bound its segments too) reaches that
    penalty and the step fits better than a bend of that slope
    (:func:`._whole_series.kept_by_whole_series`): the scan's changes first, strongest
    first, then the proposals. With ``search_penalty``, last, where a series has changes,
    that model searches it for further steps (:func:`._whole_series.further_steps`, a step's
    ``t^2`` held to that penalty), each carrying the p-value a proposal would. A series left
    with no change whose first round found the changes ``lost`` (a later round's null lost
    them all) first gets back those the model keeps at that penalty
    (:func:`._whole_series.kept_by_whole_series`); where one comes back, the search goes on
    beside it. Last, each change is placed at its AR(1) least-squares split
    (:func:`._ar1_place.placed_in_ar1`, the creeps' ramps bounding it)."""

    def steps(changes: list[Found]) -> list[Found]:
        return steps_and_creeps(changes, scores, reach, rho, min_segment, values)[0]

    def free(at: int) -> bool:
        near = any(abs(at - k[0]) < min_segment for k in kept)
        return not near and all(not c[0] - min_segment <= at <= c[1] + min_segment for c in creeps)

    def whole_series_keeps(at: int) -> bool:
        if whole_series_penalty is None:
            return False
        # A creep's ramp is no level: its ends bound the segments the model fits.
        bounds = [k[0] for k in kept] + [end for c in creeps for end in (c[0], c[1])]
        return kept_by_whole_series(
            scores, bounds, at, rho, penalty=whole_series_penalty, min_segment=min_segment
        )

    kept, creeps = steps_and_creeps(list(found), scores, reach, rho, min_segment, values)
    for change in sorted(found, key=lambda c: -c[2]):
        if change not in kept and free(change[0]) and whole_series_keeps(change[0]):
            kept = sorted([*kept, change])
    for change in sorted(proposals, key=lambda c: -c[2]):
        at = change[0]
        if not free(at):
            continue
        if at in {k[0] for k in steps(sorted([*kept, change]))} or whole_series_keeps(at):
            kept = sorted([*kept, change])
    chosen = {c[0]: c[2] for c in proposals if c in kept}
    changes, p_values = split_stretches(
        kept,
        scores,
        scanned=scanned,
        around=around,
        least=least,
        widest=reach,
        rho=rho,
        min_segment=min_segment,
        steps=steps,
    )
    for at, statistic in chosen.items():
        p_values[at] = min(proposal_p_value, scanned.p_value(statistic))
    clear = [c for c in creeps if not any(c[0] <= index <= c[1] for index, _, _ in changes)]
    if search_penalty is not None and lost and not changes and not creeps:
        # A series whose later rounds lost every change the first round found: those the
        # model of the whole series keeps at the search's penalty come back, and where one
        # does, the search below goes on beside them (docs/history-detection.md).
        for at in lost:
            edges = [index for index, _, _ in changes]
            if all(abs(at - edge) >= min_segment for edge in edges) and kept_by_whole_series(
                scores, edges, at, rho, penalty=search_penalty, min_segment=min_segment
            ):
                change = placed(at, [*edges, at], scores, rho, reach, scanned.scale)
                changes = sorted([*changes, change])
                p_values[at] = min(proposal_p_value, scanned.p_value(change[2]))
    if search_penalty is not None and changes:
        # Last, the steps the model of the whole series adds on its own criterion.
        # Every creep's ramp, as the whole-series choice above bounds its segments with.
        ramps = [(c[0], c[1]) for c in creeps]
        added = further_steps(
            scores,
            [index for index, _, _ in changes],
            ramps,
            rho,
            penalty=search_penalty,
            min_segment=min_segment,
        )
        edges = sorted({*(c[0] for c in changes), *added, *(e for r in ramps for e in r)})
        for at in added:
            change = placed(at, edges, scores, rho, reach, scanned.scale)
            changes = sorted([*changes, change])
            p_values[at] = min(proposal_p_value, scanned.p_value(change[2]))
    ramps = [(c[0], c[1]) for c in clear]
    moved = placed_in_ar1(
        changes,
        ramps,
        scores,
        rho,
        min_segment,
        reach,
        # A change after run N - 2 * min_segment may be a shift of the last runs that the
        # scan (placing changes at most min_segment from the end) pulled there; it is the
        # candidate's (_tail.belongs_to_tail): a split short of the shift left both a
        # change and a candidate, and a step moved in was taken for one.
        tail=2 * min_segment,
    )
    p_values = {
        new[0]: p_values[old[0]]
        for old, new in zip(changes, moved, strict=True)
        if old[0] in p_values
    }
    return moved, p_values, clear


def placed(
    at: int, edges: Sequence[int], scores: FloatArray, rho: float, reach: int, scale: float
) -> Found:
    """A change at ``at`` as ``(index, width, statistic)``: the CUSUM statistic between its
    neighbours in ``edges``, narrowed by the AR(1) widening of a stretch wider than
    ``reach`` and in units of the scan's ``scale`` (as the penalised segmentation's
    proposals carry, so the scan's null gives it a p-value)."""
    low = max([0, *(e for e in edges if e < at)])
    high = min([scores.size, *(e for e in edges if e > at)])
    sums = np.concatenate(([0.0], np.cumsum(scores)))
    statistic = cusum_peak(sums, low, high, at, at)[1] / _widening(rho, reach, (high - low) // 2)
    return (at, min(at - low, high - at, reach), statistic / scale)


def relocate(kept: list[Found], scores: FloatArray, min_segment: int) -> list[Found]:
    """Move each change to the CUSUM maximum between its neighbours, within its window."""
    runs = scores.size
    sums = np.concatenate(([0.0], np.cumsum(scores)))
    out = list(kept)
    for i, (position, width, value) in enumerate(out):
        low = out[i - 1][0] if i else 0
        high = out[i + 1][0] if i + 1 < len(out) else runs
        first = max(low + min_segment, position - width)
        last = min(high - min_segment, position + width)
        if last > first:
            out[i] = (cusum_peak(sums, low, high, first, last)[0], width, value)
    return out


def cusum_peak(sums: FloatArray, low: int, high: int, first: int, last: int) -> tuple[int, float]:
    """Where in ``first..last`` the CUSUM statistic of the runs ``[low, high)`` peaks, and its
    value: ``|mean(after) - mean(before)| / sqrt(1/a + 1/b)``, ``sums`` the cumulative sums
    of the scores with a leading zero."""
    t = np.arange(first, last + 1)
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
