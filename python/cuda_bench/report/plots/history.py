"""Trend plots of archive series: per-run medians with their intervals, and change points."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.text import Text

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
    median with its interval, the current level's interval as a band from its first run
    (none for a level of too few runs for one, :mod:`cuda.bench.history._level`), a
    vertical line at each confirmed change (red slower, green faster), and each creep's
    ramp shaded in its colour."""
    require_matplotlib()
    from matplotlib.ticker import MaxNLocator

    chosen = list(positions)[:MAX_TREND_PANELS]
    if not chosen:
        raise ValueError("no series to plot")
    with plot_style(dark):
        height = 2.2 * len(chosen) + 0.6
        fig = figure_factory(figure)(figsize=(_FIGURE_WIDTH, height))
        axes = fig.subplots(len(chosen), 1, squeeze=False)[:, 0]
        titles = []
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
            # A level of too few runs for an interval has no band.
            if level.has_interval:
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
            titles.append(visible(title))
            axis.set_xlim(-0.5, one.runs - 0.5)
            # Runs are whole numbers: a short history got ticks at -0.5, 0.5, 1.5.
            axis.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes[-1].set_xlabel("run (in commit order)")
        # Laid out once without titles for the panels' width, which the titles are then
        # wrapped to: a long name ran off the figure's edge, cut. The figure grows by the
        # lines the wrapping added, so that the panels keep their height.
        fig.tight_layout()
        for axis, title in zip(axes, titles, strict=True):
            lines, size = _fit_title(axis, title)
            height += (lines - 1) * size * _LINE_SPACING / _POINTS_PER_INCH
        fig.set_size_inches(_FIGURE_WIDTH, height)
        fig.tight_layout()
    return fig


_FIGURE_WIDTH = 9.0  # inches
_POINTS_PER_INCH = 72.0
#: Title font sizes (points): the usual one, and the smaller one for a name that would
#: take more than :data:`_MAX_LINES_AT_USUAL_SIZE` lines at it.
_TITLE_SIZE, _SMALL_TITLE_SIZE = 9.0, 7.0
_MAX_LINES_AT_USUAL_SIZE = 3
#: Baseline-to-baseline distance of title lines, in font sizes (matplotlib's default).
_LINE_SPACING = 1.2
#: Share of the panel's width a title line may take: widths are measured at the figure's
#: resolution, and glyph hinting makes text a few per cent wider or narrower at another.
_TITLE_WIDTH_SHARE = 0.95


def _fit_title(axis: Axes, title: str) -> tuple[int, float]:
    """Set ``title`` on ``axis``, whole, wrapped to the panel's width (at a smaller size
    when it is very long); never cut. Returns its number of lines and its font size."""
    width = axis.get_window_extent().width * _TITLE_WIDTH_SHARE
    for size in (_TITLE_SIZE, _SMALL_TITLE_SIZE):
        text = axis.set_title("", fontsize=size, loc="left")
        lines = _wrapped(title, _narrower_than(text, width))
        if len(lines) <= _MAX_LINES_AT_USUAL_SIZE:
            break
    text.set_text("\n".join(lines))
    return len(lines), size


def _narrower_than(text: Text, width: float) -> Callable[[str], bool]:
    """Whether a piece drawn as ``text`` is at most ``width`` pixels wide (measured as
    plain text: the plot style parses no mathtext, so a ``$`` in a name is a character
    like any other)."""

    def fits(piece: str) -> bool:
        text.set_text(piece)
        return bool(text.get_window_extent().width <= width)

    return fits


def _wrapped(text: str, fits: Callable[[str], bool]) -> list[str]:
    """``text`` in lines that each ``fits``: broken at spaces, and inside a word only where
    the word alone does not fit on a line."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        joined = f"{line} {word}" if line else word
        if fits(joined):
            line = joined
            continue
        if line:
            lines.append(line)
        line = ""
        if fits(word):
            line = word
            continue
        for character in word:  # a word wider than a line: as many characters as fit
            if line and not fits(line + character):
                lines.append(line)
                line = ""
            line += character
    lines.append(line)
    return lines
