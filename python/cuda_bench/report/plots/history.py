"""Trend plots of archive series: per-run medians with their intervals, and change points."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..._untrusted import visible
from ...compare.model import Status
from .style import (
    STATUS_PLOT_COLORS,
    duration_formatter,
    figure_factory,
    foreground_color,
    plot_style,
    require_matplotlib,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ...history.series import HistoryView
    from .style import FigureFactory

__all__ = ["MAX_TREND_PANELS", "trend_figure"]

#: Series drawn in one figure; more would make each panel unreadably small.
MAX_TREND_PANELS = 12


def trend_figure(
    view: HistoryView,
    positions: Sequence[int],
    *,
    dark: bool = False,
    figure: FigureFactory | None = None,
) -> Figure:
    """One panel per series at ``positions`` (at most :data:`MAX_TREND_PANELS`): each run's
    median with its interval, the current level's interval as a band from its first run,
    a vertical line at each confirmed change (red slower, green faster), and each creep's
    ramp shaded in its colour."""
    require_matplotlib()
    chosen = list(positions)[:MAX_TREND_PANELS]
    if not chosen:
        raise ValueError("no series to plot")
    with plot_style(dark):
        fig = figure_factory(figure)(figsize=(9.0, 2.2 * len(chosen) + 0.6))
        axes = fig.subplots(len(chosen), 1, squeeze=False)[:, 0]
        for axis, position in zip(axes, chosen, strict=True):
            one = view.series[position]
            runs = list(range(one.runs))
            if one.median_lo is not None and one.median_hi is not None:
                below = one.medians - one.median_lo
                above = one.median_hi - one.medians
                axis.errorbar(
                    runs,
                    one.medians,
                    yerr=[below, above],
                    fmt="o",
                    markersize=3,
                    color=STATUS_PLOT_COLORS[Status.SAME],
                    elinewidth=1,
                )
            else:
                axis.plot(
                    runs, one.medians, "o", markersize=3, color=STATUS_PLOT_COLORS[Status.SAME]
                )
            level = view.levels[position]
            # In data coordinates: the band starts half a run before the level's first run.
            axis.fill_between(
                [level.since - 0.5, one.runs - 0.5],
                level.lo,
                level.hi,
                color=foreground_color(dark),
                alpha=0.12,
                linewidth=0,
            )
            for creep in view.creeps_of(position):
                axis.axvspan(
                    creep.first - 1.0,
                    creep.end,
                    color=STATUS_PLOT_COLORS[creep.status],
                    alpha=0.15,
                    linewidth=0,
                )
            for change in view.changes_of(position):
                axis.axvline(
                    change.index - 0.5, color=STATUS_PLOT_COLORS[change.status], linewidth=1.5
                )
            axis.yaxis.set_major_formatter(duration_formatter(log=False))
            title = " ".join(part for part in (one.benchmark, one.device_text, one.state) if part)
            axis.set_title(visible(title), fontsize=9, loc="left")
            axis.set_xlim(-0.5, one.runs - 0.5)
        axes[-1].set_xlabel("run (in commit order)")
        fig.tight_layout()
    return fig
