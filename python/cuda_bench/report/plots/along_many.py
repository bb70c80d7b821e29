"""Center time along a numeric axis for several candidates (``--plot-along AXIS`` of an
N-way comparison).

The N-way counterpart of :mod:`.along`: one line per contender (the baseline dashed, each
candidate solid, one colour each) with its noise band, log-log axes, one marker per
combination of the other axes. One figure per benchmark and device of the matrix; the
data is a frozen :class:`ManyAlongChart`, drawn separately. The pairwise plot is
unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...compare.model import SideEstimate, Status
from ..format import AxisStyle, format_axis_value
from .along import Band, _band, _numeric, _runs, axis_problem, value_axes
from .labels import drawn_label
from .style import (
    FigureFactory,
    faint_color,
    figure_factory,
    foreground_color,
    log_time_ticks,
    plot_style,
    require_matplotlib,
    series_colors,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ...compare.many import MatrixRow, MultiComparison, StateRef

__all__ = [
    "ContenderLine",
    "ContenderPoint",
    "ManyAlongChart",
    "ManyAlongPlot",
    "ManyAlongSeries",
    "many_along_charts",
    "many_along_figures",
]

_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")


@dataclass(frozen=True, slots=True)
class ContenderPoint:
    """One state of one contender: ``x`` on the plotted axis, its center time (seconds),
    its band, and the cell's status (``None`` for the baseline)."""

    x: float
    x_text: str
    center: float
    band: Band | None
    status: Status | None


@dataclass(frozen=True, slots=True)
class ContenderLine:
    """The points of one contender in one series; ``is_baseline`` for the baseline."""

    name: str
    is_baseline: bool
    points: tuple[ContenderPoint, ...]


@dataclass(frozen=True, slots=True)
class ManyAlongSeries:
    """The states that differ only in the plotted axis; ``label`` names the other axes."""

    label: str
    lines: tuple[ContenderLine, ...]


@dataclass(frozen=True, slots=True)
class ManyAlongChart:
    """One figure: one benchmark on one (baseline) device of one baseline input.

    ``names`` are the contenders, the baseline first; colours follow this order."""

    input: str
    benchmark: str
    device: int | None
    axis: str
    pow2: bool
    names: tuple[str, ...]
    series: tuple[ManyAlongSeries, ...]

    @property
    def template_fields(self) -> dict[str, str]:
        """The raw ``--plot-along-output`` field values (sanitized when expanded)."""
        return {
            "benchmark": self.benchmark,
            "device": "cpu" if self.device is None else str(self.device),
            "axis": self.axis,
            "pair": "0",
        }


@dataclass(frozen=True, slots=True)
class ManyAlongPlot:
    chart: ManyAlongChart
    figure: Figure


def _point(x: float, x_text: str, side: SideEstimate | None, status: Status | None) -> Any:
    center = None if side is None else side.center
    if center is None or not math.isfinite(center) or center <= 0:
        return None
    assert side is not None
    return ContenderPoint(x, x_text, center, _band(center, side), status)


def _group_key(state: StateRef) -> tuple[str, str, int | None]:
    return state.input, state.benchmark, state.device


def many_along_charts(many: MultiComparison, axis: str) -> tuple[list[ManyAlongChart], list[str]]:
    """The data of ``--plot-along axis`` for an N-way comparison, and notes.

    Series are keyed by the values of the other axes (and the state's occurrence). A
    benchmark without ``axis`` or with non-numeric values of it is left out with a note;
    states whose value a log axis cannot show and contenders without a usable center are
    left out of their line.
    """
    names = (many.baseline, *many.names)
    groups: dict[tuple[str, str, int | None], list[MatrixRow]] = {}
    for line in many.matrix():
        groups.setdefault(_group_key(line.state), []).append(line)
    charts: list[ManyAlongChart] = []
    notes: list[str] = []
    for (source, benchmark, device), lines in groups.items():
        problem = axis_problem(lines, axis)
        if problem is not None:
            note = f"--plot-along: benchmark '{benchmark}' {problem}; skipped"
            if note not in notes:  # once, not once per device of the benchmark
                notes.append(note)
            continue
        values = [next(v for v in line.axis_values if v.name == axis) for line in lines]
        series: dict[str, list[list[ContenderPoint]]] = {}
        pow2 = False
        for line, value in zip(lines, values, strict=True):
            assert value is not None
            x = _numeric(value)
            if x is None or not (math.isfinite(x) and x > 0):
                continue
            pow2 = pow2 or value.is_pow2
            text = format_axis_value(value, AxisStyle.COMPACT)
            label = " ".join(
                f"{v.name}={format_axis_value(v, AxisStyle.COMPACT)}"
                for v in line.axis_values
                if v.name != axis
            )
            if line.state.occurrence:
                label = f"{label} #{line.state.occurrence + 1}".strip()
            slots = series.setdefault(label, [[] for _ in names])
            baseline = _point(x, text, line.baseline, None)
            if baseline is not None:
                slots[0].append(baseline)
            for position, cell in enumerate(line.cells, start=1):
                if cell is not None and (point := _point(x, text, cell.cmp, cell.status)):
                    slots[position].append(point)
        built = tuple(
            ManyAlongSeries(
                label,
                tuple(
                    ContenderLine(name, index == 0, tuple(sorted(points, key=lambda p: p.x)))
                    for index, (name, points) in enumerate(zip(names, slots, strict=True))
                    if points
                ),
            )
            for label, slots in series.items()
            if any(slots)
        )
        if not built:
            notes.append(f"--plot-along: '{benchmark}': nothing to draw; skipped")
            continue
        charts.append(ManyAlongChart(source, benchmark, device, axis, pow2, names, built))
    if not charts and groups:
        notes.append(f"--plot-along: no benchmark has usable values of axis '{axis}'; no figure")
    return charts, notes


def _draw(chart: ManyAlongChart, dark: bool, figure: FigureFactory) -> Figure:
    from matplotlib import lines

    fg = foreground_color(dark)
    fig = figure(figsize=(10.0, max(4.8, min(12.0, 3.0 + 0.25 * len(chart.series)))))
    fig.set_layout_engine("constrained")
    ax: Axes = fig.add_subplot()
    colors = dict(zip(chart.names, series_colors(len(chart.names)), strict=True))
    for number, series in enumerate(chart.series):
        marker = _MARKERS[number % len(_MARKERS)]
        for line in series.lines:
            color = colors[line.name]
            xs = [point.x for point in line.points]
            ax.plot(
                xs,
                [point.center for point in line.points],
                linestyle="--" if line.is_baseline else "-",
                marker=marker,
                markersize=5,
                markerfacecolor="none" if line.is_baseline else color,
                color=color,
                linewidth=1.6,
                zorder=3,
            )
            bands = [point.band for point in line.points]
            for start, stop in _runs([band is not None for band in bands]):
                part = [band for band in bands[start:stop] if band is not None]
                ax.fill_between(
                    xs[start:stop],
                    [band.lo for band in part],
                    [band.hi for band in part],
                    color=color,
                    alpha=0.12,
                    linewidth=0,
                    zorder=1,
                )
    points = [p for s in chart.series for line in s.lines for p in line.points]
    value_axes(ax, {p.x: p.x_text for p in points}, chart.pow2, 10.0)
    ys = [p.center for p in points] + [
        v for p in points if p.band is not None for v in (p.band.lo, p.band.hi)
    ]
    log_time_ticks(ax.yaxis, ys)
    ax.grid(True, which="major", color=faint_color(dark), linewidth=0.6)
    # Names are untrusted text: control characters drawn as their escapes (no font has them).
    ax.set_xlabel(drawn_label(chart.axis))
    ax.set_ylabel("center time")
    where = "" if chart.device is None else f" — device {chart.device}"
    ax.set_title(drawn_label(f"{chart.benchmark}{where}"), fontsize=10)
    handles: list[Any] = [
        lines.Line2D(
            [],
            [],
            color=colors[name],
            linestyle="--" if index == 0 else "-",
            linewidth=2.5,
            label=drawn_label(f"{name} (baseline)" if index == 0 else name),
        )
        for index, name in enumerate(chart.names)
    ]
    if len(chart.series) > 1:
        handles += [
            lines.Line2D(
                [],
                [],
                color=fg,
                linestyle="none",
                marker=_MARKERS[number % len(_MARKERS)],
                label=drawn_label(series.label) or "all states",
            )
            for number, series in enumerate(chart.series)
        ]
    ax.legend(
        handles=handles,
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        frameon=False,
        fontsize=8,
        title="shaded: noise bands",
        title_fontsize=8,
    )
    return fig


def many_along_figures(
    many: MultiComparison,
    axis: str,
    *,
    dark: bool = False,
    figure: FigureFactory | None = None,
) -> tuple[list[ManyAlongPlot], list[str]]:
    """One figure per :func:`many_along_charts` chart, and the notes."""
    require_matplotlib()
    charts, notes = many_along_charts(many, axis)
    factory = figure_factory(figure)
    plots: list[ManyAlongPlot] = []
    for chart in charts:
        with plot_style(dark):
            plots.append(ManyAlongPlot(chart, _draw(chart, dark, factory)))
    return plots, notes
