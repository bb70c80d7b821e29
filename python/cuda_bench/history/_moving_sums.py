"""Normal scores and moving-sum statistics of many series at once (see :mod:`.changepoint`)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import msgspec
import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from .._arrays import FloatArray, IntArray

__all__ = ["MovingWindow", "normal_scores", "score_table", "window_geometry", "window_statistics"]


def score_table(runs: int) -> FloatArray:
    """The van der Waerden scores of ranks 1..``runs``, standardised to mean 0, variance 1."""
    normal = statistics.NormalDist()
    table = np.array([normal.inv_cdf((rank + 1) / (runs + 1)) for rank in range(runs)])
    table -= table.mean()
    table /= math.sqrt(float(table @ table) / runs)
    return table


def normal_scores(values: FloatArray, table: FloatArray | None = None) -> FloatArray:
    """Standardised van der Waerden scores of each row of ``values`` (ties share their mean)."""
    rows, runs = values.shape
    table = score_table(runs) if table is None else table
    order = np.argsort(values, axis=1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=1)
    # Tie groups: a new group starts wherever the sorted value changes; ids unique per row.
    starts = np.ones((rows, runs), dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    if starts.all():
        sorted_scores = np.broadcast_to(table, (rows, runs))
    else:
        groups = np.cumsum(starts.ravel()) - 1
        totals = np.bincount(groups, weights=np.broadcast_to(table, (rows, runs)).ravel())
        sizes = np.bincount(groups)
        sorted_scores = (totals / sizes)[groups].reshape(rows, runs)
    scores = np.empty((rows, runs))
    np.put_along_axis(scores, order, sorted_scores, axis=1)
    return scores


class MovingWindow(msgspec.Struct, frozen=True):
    """Candidate positions of one window and the (possibly truncated) sides at each."""

    width: int
    positions: IntArray
    left: IntArray
    right: IntArray
    scale: FloatArray


def window_geometry(
    runs: int, windows: Sequence[int], min_segment: int
) -> tuple[MovingWindow, ...]:
    """The windows (each capped at half the series) and their positions in ``runs`` runs."""
    low = min_segment
    positions = np.arange(low, runs - low + 1, dtype=np.int64)
    if positions.size == 0:
        return ()
    widths = sorted({min(w, max(low, runs // 2)) for w in windows})
    out = []
    for width in widths:
        left = np.minimum(width, positions)
        right = np.minimum(width, runs - positions)
        out.append(MovingWindow(width, positions, left, right, np.sqrt(1.0 / left + 1.0 / right)))
    return tuple(out)


def window_statistics(
    scores: npt.NDArray[np.floating[Any]], windows: Sequence[MovingWindow]
) -> list[npt.NDArray[np.floating[Any]]]:
    """``z_w(t)`` for every row, window and position: one ``(rows, positions)`` per window,
    in the precision of ``scores``."""
    rows, runs = scores.shape
    widest = max(window.width for window in windows)
    # Cumulative sums padded with ``widest`` copies of their first and last values: the
    # truncated sides at the ends become plain slices (views) instead of gathers.
    sums = np.empty((rows, runs + 1 + 2 * widest), dtype=scores.dtype)
    sums[:, : widest + 1] = 0.0
    np.cumsum(scores, axis=1, out=sums[:, widest + 1 : widest + 1 + runs])
    sums[:, widest + 1 + runs :] = sums[:, widest + runs : widest + 1 + runs]
    out = []
    for window in windows:
        first, count, width = int(window.positions[0]) + widest, window.positions.size, window.width
        at = sums[:, first : first + count]
        after = sums[:, first + width : first + width + count] - at
        after *= (1.0 / (window.right * window.scale)).astype(scores.dtype)
        before = at - sums[:, first - width : first - width + count]
        before *= (1.0 / (window.left * window.scale)).astype(scores.dtype)
        after -= before
        out.append(after)
    return out
