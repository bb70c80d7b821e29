"""Bottom-up merging across scales: a series' changes from its windows' statistics.

Per window, the maximum of each run of exceedances of the calibrated threshold is a
candidate; windows are visited from the smallest, and a candidate is kept only if no kept
change lies within the window's width (Messer et al. 2014, *A multiple filter test for the
detection of rate changes in renewal processes with varying variance*, Ann. Appl. Stat.
8:2027; Meier, Kirch & Cho 2021, *mosum: A package for moving sums in change-point
analysis*, J. Stat. Softw. 97(8)). Kept changes are relocated to the CUSUM maximum between
their neighbours (:func:`._refine.relocate`). The map of the whole scan is in
:mod:`.changepoint`'s docstring.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ._refine import relocate

if TYPE_CHECKING:
    from .._arrays import FloatArray
    from ._moving_sums import MovingWindow
    from ._null import Calibration
    from ._scan_config import ScanConfig

__all__ = ["changes_across_scales", "exceeds_threshold", "largest_statistic"]


def changes_across_scales(
    stats: Sequence[FloatArray],
    windows: Sequence[MovingWindow],
    scores: FloatArray,
    calibration: Calibration,
    config: ScanConfig,
) -> list[tuple[int, int, float]]:
    """Changes of one series as ``(index, window, statistic)``, in index order.

    ``window`` is the window that placed the change; ``statistic`` the largest normalised
    statistic of any window whose candidate lies within that window's width of it (the
    placing window or a larger one it suppressed), so the change's p-value carries all the
    evidence for it: a clear step is placed by a short window but shown best by a long one.
    Under no change every such statistic is at most the series' maximum ``T``, so its
    p-value from ``T``'s null stays valid.
    """
    kept: list[tuple[int, int, float]] = []
    for z, window, factor in zip(stats, windows, calibration.scale, strict=True):
        normalised = np.abs(z) / factor
        above = np.flatnonzero(normalised >= calibration.threshold)
        if above.size == 0:
            continue
        runs_of_above = np.split(above, np.flatnonzero(np.diff(above) > 1) + 1)
        candidates = sorted(
            (
                (float(normalised[group].max()), int(group[np.argmax(normalised[group])]))
                for group in runs_of_above
            ),
            reverse=True,
        )
        for value, at in candidates:
            position = int(window.positions[at])
            near = [
                (abs(position - other), i)
                for i, (other, _, _) in enumerate(kept)
                if abs(position - other) < window.width
            ]
            if not near:
                kept.append((position, window.width, value))
                continue
            _, nearest = min(near)
            other, width, held = kept[nearest]
            kept[nearest] = (other, width, max(held, value))
    kept.sort()
    return relocate(kept, scores, config.min_segment)


def largest_statistic(stats: Sequence[FloatArray], row: int, calibration: Calibration) -> float:
    """The largest statistic of ``row`` over all windows, in units of its calibrated ones."""
    return float(
        max(
            float(np.abs(z[row]).max()) / factor
            for z, factor in zip(stats, calibration.scale, strict=True)
        )
    )


def exceeds_threshold(stats: Sequence[FloatArray], row: int, calibration: Calibration) -> bool:
    """Whether any window's statistic of ``row`` reaches the calibrated threshold."""
    return largest_statistic(stats, row, calibration) >= calibration.threshold
