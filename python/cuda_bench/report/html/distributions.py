"""What the HTML report plots for a row: both sides' sample distributions and the effect.

A plot is data, not a picture: the page's script draws it as inline SVG when the row is
opened. Per side it holds the empirical CDF of the sample times thinned to a fixed number
of order statistics (:func:`cuda.bench.report.plots.ecdf_points`), the side's timing
interval, and the row's effect intervals (time and cycles) with their tolerance band, so
the page stays small however many samples the side files hold.

With several runs per side, the samples are those of each side's first run (the run the
row's states come from); the intervals and effects are the row's, from every run.

Which rows get one (:func:`plot_order`): changed rows (SLOW, then FAST) first, largest
change first, then ambiguous rows, up to a limit; every other row is still in the table.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from ...compare.model import Effect, Row, SideEstimate, Status

if TYPE_CHECKING:
    from ...results._tools_api import SubBenchmarkState

__all__ = [
    "DEFAULT_PLOT_POINTS",
    "PLOTTED_STATUSES",
    "plot_order",
    "plot_record",
    "side_samples",
]

#: Order statistics kept per side for the ECDF: smooth at the plot's width, and small.
DEFAULT_PLOT_POINTS: Final = 80

#: Statuses whose rows get plots, in priority order.
PLOTTED_STATUSES: Final = (Status.SLOW, Status.FAST, Status.AMBG)

#: Significant digits kept for plotted values: far below a pixel of the drawing.
_DIGITS: Final = 5


def _round(value: float) -> float:
    return float(f"{value:.{_DIGITS}g}")


def _change_size(row: Row) -> float:
    """How far a row moved, as ``|log ratio|``; rows without a change come last."""
    effect = row.verdict.effect
    if effect is not None and effect.ratio > 0:
        return abs(math.log(effect.ratio))
    change = row.frac_diff
    if change is None or not change > -1.0:
        return -1.0
    return abs(math.log1p(change))


def plot_order(rows: Sequence[Row], limit: int) -> list[int]:
    """Positions (in ``rows``) of the rows to plot: by status priority, then by size of change
    (largest first), then in row order; at most ``limit``."""
    if limit <= 0:
        return []
    priority = {status: rank for rank, status in enumerate(PLOTTED_STATUSES)}
    candidates = [
        index
        for index, row in enumerate(rows)
        if row.status in priority and row.ref is not None and row.cmp is not None
    ]
    candidates.sort(key=lambda index: (priority[rows[index].status], -_change_size(rows[index])))
    return candidates[:limit]


def side_samples(state: SubBenchmarkState | None) -> Any | None:
    """The sample times of one side, validated (seconds, in measurement order), or ``None``.

    Read through the comparison's own evidence path, so that a missing or unusable side
    file means "no samples" here exactly as it did for the verdict (its warnings were
    reported by the comparison already and are not repeated).
    """
    if state is None or state.is_skipped:
        return None
    from ...compare.evidence import side_evidence

    ignored: list[str] = []
    evidence = side_evidence(state, warn=ignored.append)
    try:
        return evidence.bulk.ordered_times()
    finally:
        evidence.bulk.release()


def _distribution(samples: Any | None, points: int) -> dict[str, Any] | None:
    if samples is None or len(samples) == 0:
        return None
    from ..plots import ecdf_points

    x, y = ecdf_points(samples, points)
    return {
        "n": len(samples),
        "x": [_round(float(value)) for value in x],
        "y": [round(float(value), 3) for value in y],
    }


def _interval(side: SideEstimate | None) -> list[float] | None:
    if side is None or side.interval is None or not side.interval.is_valid:
        return None
    interval = side.interval
    return [_round(interval.lo), _round(interval.center), _round(interval.hi)]


def _effect(effect: Effect | None) -> dict[str, Any] | None:
    if effect is None or not all(
        math.isfinite(value) and value > 0 for value in (effect.ratio, effect.lo, effect.hi)
    ):
        return None
    record: dict[str, Any] = {
        "ratio": _round(effect.ratio),
        "lo": _round(effect.lo),
        "hi": _round(effect.hi),
        "confidence": effect.confidence,
        "space": effect.space,
    }
    if effect.tolerance is not None and math.isfinite(effect.tolerance):
        record["tolerance"] = effect.tolerance
    return record


def plot_record(
    row: Row,
    points: int = DEFAULT_PLOT_POINTS,
    samples: Callable[[SubBenchmarkState | None], Any | None] = side_samples,
) -> dict[str, Any]:
    """The plot data of one row (see the module docstring); ``samples`` reads a side."""
    record: dict[str, Any] = {
        "ref": _distribution(samples(row.ref_state), points),
        "cmp": _distribution(samples(row.cmp_state), points),
        "ref_interval": _interval(row.ref),
        "cmp_interval": _interval(row.cmp),
        "effect": _effect(row.verdict.effect),
        "cycles": _effect(row.verdict.cycle_effect),
    }
    change = row.frac_diff
    if change is not None and math.isfinite(change):
        record["center_change"] = _round(change)
    return record
