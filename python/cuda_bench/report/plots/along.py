"""Center time along a numeric axis (``nvbench_compare --plot-along AXIS``).

Log-log axes, one colour per combination of the *other* axes, reference dashed and compare
solid, with noise bands. One figure per benchmark and device pair; the data is a frozen
:class:`AlongChart`, drawn separately.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol

from ...compare.model import Comparison, Status
from ..format import AxisStyle, format_axis_value, format_percent
from .labels import drawn_label, file_label, plan_of
from .style import (
    STATUS_PLOT_COLORS,
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

    from ...compare.filters import FilterPlan
    from ...results._tools_api import StateAxisValue

__all__ = [
    "AlongChart",
    "AlongPlot",
    "AlongPoint",
    "AlongSeries",
    "Band",
    "along_charts",
    "along_figures",
    "axis_problem",
    "value_axes",
]

# Beyond this many distinct x values the along plot's x ticks come from a locator instead of
# one tick per measured value.
_MAX_VALUE_TICKS = 12


@dataclass(frozen=True, slots=True)
class Band:
    """The noise band drawn around one center: ``[lo, hi]``, both > 0."""

    lo: float
    hi: float


@dataclass(frozen=True, slots=True)
class AlongPoint:
    """One state on the plotted axis: ``x`` and both sides' center times (seconds)."""

    x: float
    x_text: str
    ref: float
    cmp: float
    ref_band: Band | None
    cmp_band: Band | None
    status: Status


@dataclass(frozen=True, slots=True)
class AlongSeries:
    """The states that differ only in the plotted axis; ``label`` names the other axes."""

    label: str
    points: tuple[AlongPoint, ...]


@dataclass(frozen=True, slots=True)
class AlongChart:
    """One figure of ``--plot-along``: one benchmark on one device pair of one input pair.

    ``fixed`` names the other axes that have one value in the whole figure (pinned by a
    filter, or just constant); they are in the title rather than in every series label.
    """

    pair: int
    benchmark: str
    device_pair: int
    cmp_device: int | None
    device: str
    axis: str
    pow2: bool
    series: tuple[AlongSeries, ...]
    fixed: str = ""
    ref_label: str = "reference"
    cmp_label: str = "compare"

    @property
    def template_fields(self) -> dict[str, str]:
        """The raw ``--plot-along-output`` field values (sanitized when expanded)."""
        return {
            "benchmark": self.benchmark,
            "device": "cpu" if self.cmp_device is None else str(self.cmp_device),
            "axis": self.axis,
            "pair": str(self.device_pair),
        }


@dataclass(frozen=True, slots=True)
class AlongPlot:
    chart: AlongChart
    figure: Figure


def _band(center: float, estimate: Any) -> Band | None:
    """The side's interval when it is valid, else ``center * (1 ± noise)``; clipped above 0
    (a log axis cannot show 0) the way upstream clips: at a thousandth of the center."""
    floor = center * 1e-3
    interval = estimate.interval
    if interval is not None and interval.is_valid:
        return Band(max(interval.lo, floor), interval.hi)
    noise = estimate.noise
    if noise is None or not math.isfinite(noise) or noise < 0:
        return None
    return Band(max(center * (1.0 - noise), floor), center * (1.0 + noise))


def _numeric(value: StateAxisValue) -> float | None:
    """The number an int64/float64 axis value holds; ``None`` for strings and types."""
    typed = value.typed
    if isinstance(typed, bool) or not isinstance(typed, int | float):
        return None
    return float(typed)


def _usable_center(value: float | None) -> bool:
    return value is not None and math.isfinite(value) and value > 0


def along_charts(
    comparison: Comparison,
    axis: str,
    *,
    filters: FilterPlan | None = None,
) -> tuple[list[AlongChart], list[str]]:
    """The data of ``--plot-along axis``: one chart per benchmark x device pair, and notes.

    Series are keyed by the values of the *other* axes (and the duplicate number of repeated
    states), never by the state name, which contains the plotted value too. A benchmark
    without ``axis``, or with a value that is not a number there, is left out with a note
    instead of failing the run; states whose value a log axis cannot show (zero, negative)
    and rows without usable centers on both sides (``????``, ADDED, REMOVED) are left out
    with a note too.
    """
    plan = filters if filters is not None else plan_of(comparison)
    charts: list[AlongChart] = []
    notes: list[str] = []
    skipped_benchmarks: set[tuple[int, str]] = set()
    for section in comparison.sections():
        bench_key = (section.pair, section.benchmark)
        if bench_key in skipped_benchmarks:
            continue
        bench_rows = [
            row
            for row in comparison.rows
            if row.pair == section.pair and row.benchmark == section.benchmark
        ]
        problem = axis_problem(bench_rows, axis)
        if problem is not None:
            skipped_benchmarks.add(bench_key)
            notes.append(f"--plot-along: benchmark '{section.benchmark}' {problem}; skipped")
            continue
        pins = plan.single_valued_axes(section.benchmark)
        series: dict[tuple[tuple[str, str], ...], list[AlongPoint]] = {}
        others: dict[str, dict[str, None]] = {}
        unusable = 0
        off_axis = 0
        pow2 = False
        for row in section.rows:
            value = next(v for v in row.axis_values if v.name == axis)
            x = _numeric(value)
            assert x is not None  # axis_problem checked every row
            if not (math.isfinite(x) and x > 0):
                off_axis += 1
                continue
            pow2 = pow2 or value.is_pow2
            ref, cmp = row.ref, row.cmp
            if (
                ref is None
                or cmp is None
                or not (_usable_center(ref.center) and _usable_center(cmp.center))
            ):
                unusable += 1
                continue
            assert ref.center is not None and cmp.center is not None
            key_items = [
                (v.name, format_axis_value(v, AxisStyle.COMPACT))
                for v in row.axis_values
                if v.name != axis
            ]
            if row.occurrence:
                key_items.append(("#", str(row.occurrence + 1)))
            for name, text in key_items:
                others.setdefault(name, {})[text] = None
            series.setdefault(tuple(key_items), []).append(
                AlongPoint(
                    x=x,
                    x_text=format_axis_value(value, AxisStyle.COMPACT),
                    ref=ref.center,
                    cmp=cmp.center,
                    ref_band=_band(ref.center, ref),
                    cmp_band=_band(cmp.center, cmp),
                    status=row.status,
                )
            )
        where = f"'{section.benchmark}'" + (f" {section.title}" if section.title else "")
        if off_axis:
            noun = "state" if off_axis == 1 else "states"
            notes.append(
                f"--plot-along: {where}: {off_axis} {noun} with {axis} <= 0 left out "
                "(a log axis cannot show them)"
            )
        if unusable:
            noun = "state" if unusable == 1 else "states"
            notes.append(
                f"--plot-along: {where}: {unusable} {noun} without usable times on both "
                "sides left out"
            )
        if not series:
            notes.append(f"--plot-along: {where}: nothing to draw; skipped")
            continue
        # Axes with one value in the whole figure go to the title, the rest label the series.
        constant = [name for name, texts in others.items() if len(texts) == 1]
        fixed_parts = [f"{name}={value}" for name, value in pins.items() if name != axis]
        fixed_parts += [
            f"{name}={next(iter(others[name]))}"
            for name in constant
            if name not in pins and name != "#"
        ]
        built: list[AlongSeries] = []
        for key, points in series.items():
            shown = [
                (name, text) for name, text in key if name not in constant and name not in pins
            ]
            label = " ".join(
                f"#{text}" if name == "#" else f"{name}={text}" for name, text in shown
            )
            built.append(AlongSeries(label, tuple(sorted(points, key=lambda p: p.x))))
        files = comparison.inputs[section.pair] if section.pair < len(comparison.inputs) else None
        charts.append(
            AlongChart(
                pair=section.pair,
                benchmark=section.benchmark,
                device_pair=section.device_pair,
                cmp_device=section.cmp_device,
                device=section.title,
                axis=axis,
                pow2=pow2,
                series=tuple(built),
                fixed=" ".join(dict.fromkeys(fixed_parts)),
                ref_label=f"reference ({file_label(files.ref)})" if files else "reference",
                cmp_label=f"compare ({file_label(files.cmp)})" if files else "compare",
            )
        )
    if not charts and comparison.rows:
        notes.append(f"--plot-along: no benchmark has usable values of axis '{axis}'; no figure")
    return charts, notes


class _HasAxisValues(Protocol):
    @property
    def axis_values(self) -> Sequence[StateAxisValue]: ...


def axis_problem(rows: Iterable[_HasAxisValues], axis: str) -> str | None:
    """Why ``axis`` cannot be plotted for a benchmark's rows (pairwise rows or matrix
    rows), or ``None``."""
    for row in rows:
        value = next((v for v in row.axis_values if v.name == axis), None)
        if value is None:
            return f"has no axis '{axis}'"
        if _numeric(value) is None:
            shown = format_axis_value(value, AxisStyle.COMPACT)
            return f"has non-numeric values of axis '{axis}' ({shown!r})"
    return None


def _runs(flags: Sequence[bool]) -> Iterator[tuple[int, int]]:
    """``(start, stop)`` of the runs of True of length >= 2 (a band needs two points)."""
    start: int | None = None
    for index, flag in enumerate([*flags, False]):
        if flag and start is None:
            start = index
        elif not flag and start is not None:
            if index - start >= 2:
                yield start, index
            start = None


def _draw_along(chart: AlongChart, dark: bool, figure: FigureFactory) -> Figure:
    from matplotlib import lines

    fg = foreground_color(dark)
    longest = max((len(series.label) for series in chart.series), default=0)
    # The legend sits right of the axes so it never covers a line; the figure grows with it.
    width = 7.5 + min(6.0, 0.075 * max(longest, len(chart.cmp_label)) + 0.6)
    height = max(4.8, min(12.0, 2.0 + 0.24 * (len(chart.series) + 4)))
    fig = figure(figsize=(width, height), layout="constrained")
    ax: Axes = fig.add_subplot()
    colors = series_colors(len(chart.series))
    for series, color in zip(chart.series, colors, strict=True):
        xs = [p.x for p in series.points]
        for side, style, marker_face in (("ref", "--", "none"), ("cmp", "-", color)):
            ys = [p.ref if side == "ref" else p.cmp for p in series.points]
            bands = [p.ref_band if side == "ref" else p.cmp_band for p in series.points]
            ax.plot(
                xs,
                ys,
                linestyle=style,
                marker="o",
                markersize=5,
                markerfacecolor=marker_face,
                color=color,
                linewidth=1.6,
                label=drawn_label(f"{series.label} {side}".strip()),
                zorder=3,
            )
            for start, stop in _runs([band is not None for band in bands]):
                part = bands[start:stop]
                ax.fill_between(
                    xs[start:stop],
                    [band.lo for band in part if band is not None],
                    [band.hi for band in part if band is not None],
                    color=color,
                    alpha=0.10 if side == "ref" else 0.16,
                    linewidth=0,
                    zorder=1,
                )
    value_axes(
        ax, {p.x: p.x_text for series in chart.series for p in series.points}, chart.pow2, width
    )
    ax.margins(y=0.08)
    ys_all = [
        value
        for series in chart.series
        for p in series.points
        for band in (p.ref_band, p.cmp_band)
        for value in ((band.lo, band.hi) if band is not None else ())
    ] + [v for series in chart.series for p in series.points for v in (p.ref, p.cmp)]
    log_time_ticks(ax.yaxis, ys_all)
    ax.tick_params(axis="both", which="both", labelsize=8.5)
    _mark_changes(ax, chart)
    ax.grid(True, which="major", color=faint_color(dark), linewidth=0.6)
    ax.grid(True, which="minor", axis="y", color=faint_color(dark), linewidth=0.3, alpha=0.6)
    # Names are untrusted text: control characters drawn as their escapes (no font has them).
    ax.set_xlabel(drawn_label(chart.axis))
    ax.set_ylabel("center time")
    title = f"{chart.benchmark} — {chart.device}" if chart.device else chart.benchmark
    # Each line escaped on its own: the line break is ours, not the names'.
    parts = (title, chart.fixed) if chart.fixed else (title,)
    ax.set_title("\n".join(drawn_label(part) for part in parts), fontsize=10)

    # Legend: one entry per series (its colour), then what dashed and solid mean.
    handles: list[Any] = [
        lines.Line2D(
            [], [], color=color, linewidth=2.5, label=drawn_label(series.label) or "all states"
        )
        for series, color in zip(chart.series, colors, strict=True)
    ]
    handles += [
        lines.Line2D(
            [],
            [],
            color=fg,
            linestyle="--",
            marker="o",
            markerfacecolor="none",
            label=drawn_label(chart.ref_label),
        ),
        lines.Line2D(
            [], [], color=fg, linestyle="-", marker="o", label=drawn_label(chart.cmp_label)
        ),
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


def value_axes(ax: Axes, texts: Mapping[float, str], pow2: bool, width: float) -> None:
    """Log axes for times against an axis's values: one x tick per measured value written
    as the tables write it (``2^20``, ``0.25``) when there are few, ``2^n`` labels for a
    dense power-of-two axis, and room around the first and last value."""
    from matplotlib import ticker

    # The x limits are set below: matplotlib's autoscaling of a log axis from 1e300 adds
    # its margin with an exp that overflows (a RuntimeWarning on the command line).
    ax.set_autoscalex_on(False)
    ax.set_xscale("log", base=2 if pow2 else 10)
    ax.set_yscale("log")
    xs_all = sorted(texts)
    if len(xs_all) <= _MAX_VALUE_TICKS:
        ax.xaxis.set_major_locator(ticker.FixedLocator(xs_all))
        ax.xaxis.set_major_formatter(
            ticker.FixedFormatter(_thinned_labels(xs_all, [texts[x] for x in xs_all], width))
        )
        ax.xaxis.set_minor_locator(ticker.NullLocator())
    elif pow2:
        ax.xaxis.set_major_formatter(
            ticker.FuncFormatter(lambda x, pos: f"2^{round(math.log2(x))}" if x > 0 else "")
        )
    ax.set_xlim(*_log_limits(xs_all[0], xs_all[-1]))


def _log_limits(first: float, final: float) -> tuple[float, float]:
    """Limits of a log axis from ``first`` to ``final`` (both positive) with 6 % of the
    range as margin each side (a log axis has no natural margin for markers and labels at
    its ends), 2x for one value; computed in logarithms and held within the floats, so
    values such as 1e300 and 5e-324 (whose ratio overflows) still give finite limits."""
    low, high = math.log(first), math.log(final)
    margin = 0.06 * (high - low) if final > first else math.log(2.0)
    left = math.exp(low - margin) or first  # underflow: no margin below the smallest value
    right = math.exp(high + margin) if high + margin < _LOG_LARGEST else sys.float_info.max
    return left, right


#: The logarithm of the largest float: ``exp`` overflows beyond it.
_LOG_LARGEST: Final = math.log(sys.float_info.max)


def _thinned_labels(xs: Sequence[float], texts: Sequence[str], width: float) -> list[str]:
    """Tick labels for values on a log axis, blank where one would run into the previous.

    Dense values (0.0006, 0.0007, ... on a log scale) otherwise print over each other; the
    ticks stay, only their text is dropped. Uses ~0.075 inch per character at the tick font
    size on an axis about ``width - 3`` inches wide.
    """
    if len(xs) < 2:
        return list(texts)
    # In logarithms: the ratio of 1e5 to 5e-324 overflows.
    logs = [math.log(x) for x in xs]
    total = (logs[-1] - logs[0]) * 1.12  # the x limits add 6 % of the range each side
    inches = max(width - 3.5, 2.0)
    where = [(log - logs[0]) / total * inches for log in logs]

    def collide(a: int, b: int) -> bool:
        return abs(where[b] - where[a]) < 0.075 * (len(texts[a]) + len(texts[b])) / 2 + 0.1

    labels: list[str] = []
    last: int | None = None
    for index, text in enumerate(texts):
        if last is not None and collide(last, index):
            labels.append("")
            continue
        labels.append(text)
        last = index
    # The largest value always gets its label (it bounds the range); it displaces the
    # previous label instead when the two collide.
    final = len(texts) - 1
    if not labels[final] and last is not None:
        if collide(last, final):
            labels[last] = ""
        labels[final] = texts[final]
    return labels


def _mark_changes(ax: Axes, chart: AlongChart) -> None:
    """Name the FAST/SLOW states next to their compare point, in the status colour: the
    lines show how time scales, this shows where the comparison found a change."""
    last = max(point.x for series in chart.series for point in series.points)
    for series in chart.series:
        for point in series.points:
            if not point.status.is_change:
                continue
            change = (point.cmp - point.ref) / point.ref
            # Text runs towards the inside of the plot, so it never leaves the axes.
            inward = -1 if point.x >= last else 1
            ax.annotate(
                f"{point.status.value} {format_percent(change, decimals=1, signed=True)}",
                (point.x, point.cmp),
                xytext=(6 * inward, 6 if point.cmp >= point.ref else -6),
                textcoords="offset points",
                ha="left" if inward > 0 else "right",
                va="bottom" if point.cmp >= point.ref else "top",
                fontsize=7.5,
                fontweight="bold",
                color=STATUS_PLOT_COLORS[point.status],
                zorder=5,
            )


def along_figures(
    comparison: Comparison,
    axis: str,
    *,
    filters: FilterPlan | None = None,
    dark: bool = False,
    figure: FigureFactory | None = None,
) -> tuple[list[AlongPlot], list[str]]:
    """``--plot-along axis``: one figure per :func:`along_charts` chart, and the notes."""
    require_matplotlib()
    charts, notes = along_charts(comparison, axis, filters=filters)
    factory = figure_factory(figure)
    plots: list[AlongPlot] = []
    for chart in charts:
        with plot_style(dark):
            plots.append(AlongPlot(chart, _draw_along(chart, dark, factory)))
    return plots, notes
