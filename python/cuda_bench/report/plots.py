"""Plots: comparisons and sample distributions as matplotlib figures.

Three kinds, each a pure function from data to :class:`matplotlib.figure.Figure` objects
(nothing is shown, saved or printed here):

* :func:`summary_figures` (``nvbench_compare --plot``): one horizontal bar per compared row,
  the plain relative change of the centers ``(cmp - ref) / ref``, coloured by status, with the
  confidence interval of the row's :class:`~cuda.bench.compare.model.Effect` as an error bar
  when the method estimated one. One figure per input pair.
* :func:`along_figures` (``--plot-along AXIS``): center time against a numeric axis on log-log
  axes, one colour per combination of the *other* axes, reference dashed and compare solid,
  with noise bands. One figure per benchmark and device pair.
* :func:`histogram_figure` (``nvbench-histogram``): the distribution of the per-sample times
  of each state, one subplot per state, every input overlaid and labelled (ECDF or KDE).

The data each figure is drawn from is a frozen value as well (:class:`SummaryChart`,
:class:`AlongChart`, :class:`StateSamples`), so tests and notebooks can check or reuse it
without looking at pixels.

Around the figures: :func:`save_figure` (atomic: a temporary file beside the target, then a
rename), :class:`OutputPaths` (a path used twice in one run gets ``-copy-N``), the
``--plot-along-output`` template helpers, and :func:`has_display` /
:func:`use_file_backend` / :func:`interactive_backend` for the command lines' choice between
a window and a file.

matplotlib (and numpy) are imported inside the functions that draw, so importing this module
stays cheap; a missing matplotlib raises :class:`~cuda.bench._deps.MissingDependencyError`
with an install hint.
"""

from __future__ import annotations

import math
import os
import re
import string
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final

from .._deps import require
from ..compare.model import Comparison, Row, Status
from .colors import STATUS_MEANING
from .format import AxisStyle, DurationUnit, duration_unit, format_axis_value, format_percent
from .tables import device_text

if TYPE_CHECKING:
    import contextlib

    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.ticker import Formatter

    from .._arrays import FloatArray
    from ..compare.filters import FilterPlan
    from ..results import BenchmarkResult, StateAxisValue

__all__ = [
    "ALONG_FIELDS",
    "DEFAULT_DPI",
    "DEFAULT_MAX_STATES",
    "STATUS_PLOT_COLORS",
    "AlongChart",
    "AlongPlot",
    "AlongPoint",
    "AlongSeries",
    "Band",
    "Bar",
    "FigureFactory",
    "HistogramKind",
    "HistogramPlot",
    "OutputPaths",
    "StateSamples",
    "SummaryChart",
    "SummaryPlot",
    "along_charts",
    "along_figures",
    "check_template",
    "collect_samples",
    "ecdf_points",
    "expand_template",
    "gaussian_kde",
    "has_display",
    "histogram_figure",
    "image_format",
    "interactive_backend",
    "sanitize_field",
    "save_figure",
    "summary_charts",
    "summary_figures",
    "unique_labels",
    "use_file_backend",
]

#: Resolution of saved images (dots per inch), as upstream.
DEFAULT_DPI: Final = 150
#: Most states ``nvbench-histogram`` draws in one figure; more would make unreadable subplots.
DEFAULT_MAX_STATES: Final = 24
#: ``--plot-along-output`` template fields.
ALONG_FIELDS: Final = ("axis", "benchmark", "device", "pair")

#: Plot colour per status: the terminal's colours (``colors.STATUS_ANSI``) in matplotlib's
#: "tab" palette, which reads on white and on black backgrounds alike.
STATUS_PLOT_COLORS: Final[Mapping[Status, str]] = {
    Status.SAME: "#1f77b4",  # blue
    Status.FAST: "#2ca02c",  # green
    Status.SLOW: "#d62728",  # red
    Status.AMBG: "#8c8c8c",  # grey
    Status.UNKNOWN: "#bcbd22",  # olive (the terminal's yellow is unreadable on white)
    Status.ADDED: "#17becf",  # cyan
    Status.REMOVED: "#9467bd",  # purple
}

#: Makes an empty figure: ``matplotlib.figure.Figure`` (the default, no pyplot involved) or
#: ``matplotlib.pyplot.figure`` when the figures are to be shown in windows.
FigureFactory = Callable[..., "Figure"]

_PURPOSE = "plots"
_FIELD_JUNK = re.compile(r"[^A-Za-z0-9_-]+")
# Backends that never open a window; MPLBACKEND set to one of them means "no display".
_FILE_BACKENDS: Final = frozenset(
    {"agg", "cairo", "pdf", "pgf", "ps", "svg", "template", "module://matplotlib_inline"}
)
# Beyond this many distinct x values the along plot's x ticks come from a locator instead of
# one tick per measured value.
_MAX_VALUE_TICKS = 12
# ECDFs of huge sample sets are drawn from this many order statistics: indistinguishable on
# screen, and cheap to render.
_ECDF_POINTS = 4000
# Above this many samples the KDE is computed from a fine histogram instead of every sample.
_KDE_EXACT_LIMIT = 10_000
_KDE_GRID = 256


def _require_matplotlib() -> None:
    """matplotlib, or :class:`MissingDependencyError` with the install hint. Every public
    function that draws or saves calls this first; after it, plain (typed) imports work."""
    require("matplotlib", extra="plot", purpose=_PURPOSE)


# ---------------------------------------------------------------------------------------------
# Styling and number formatting shared by every plot
# ---------------------------------------------------------------------------------------------


def _style(dark: bool) -> contextlib.AbstractContextManager[None]:
    """matplotlib's default style (so a user's matplotlibrc cannot make images differ),
    with a black background for ``dark``. rcParams are read when artists are created, so
    drawing a whole figure inside this context fixes its look for good."""
    from matplotlib import style

    context: contextlib.AbstractContextManager[None] = style.context(
        ["default", "dark_background"] if dark else ["default"]
    )
    return context


def _foreground(dark: bool) -> str:
    return "white" if dark else "black"


def _faint(dark: bool) -> str:
    return "#5a5a5a" if dark else "#c8c8c8"


def _band_alpha(dark: bool) -> float:
    """Shaded bands need more opacity to show on black than on white."""
    return 0.28 if dark else 0.10


def _duration_tick(seconds: float, unit: DurationUnit | None = None, decimals: int = 3) -> str:
    """``2.5 us``; with ``unit`` None the unit follows the value (for log axes)."""
    if not (math.isfinite(seconds) and seconds > 0) and unit is None:
        return ""
    if unit is None:
        chosen = duration_unit(seconds, 2)
        return f"{chosen.convert(seconds):.3g} {chosen.symbol}"
    return f"{unit.convert(seconds):.{decimals}f} {unit.symbol}"


def _fixed_decimals(values: Sequence[float]) -> int:
    """The fewest decimals (up to 6) that write every tick value exactly."""
    for decimals in range(7):
        scale = 10.0**decimals
        if all(abs(v * scale - round(v * scale)) < 1e-6 * max(1.0, abs(v * scale)) for v in values):
            return decimals
    return 6


def _duration_formatter(log: bool) -> Formatter:
    """Tick labels for seconds: per-tick units on log axes (``100 ns``, ``1 us``), one shared
    unit with just enough decimals on linear axes (``5.02 us``, ``5.04 us``)."""
    from matplotlib.ticker import Formatter

    class DurationFormatter(Formatter):
        def __call__(self, x: float, pos: int | None = None) -> str:
            if log:
                return _duration_tick(x)
            return self.format_ticks([x])[0]

        def format_ticks(self, values: Sequence[float]) -> list[str]:
            if log:
                return [_duration_tick(v) for v in values]
            finite = [float(v) for v in values if math.isfinite(v)]
            largest = max((abs(v) for v in finite), default=0.0)
            unit = duration_unit(largest, 2) if largest > 0 else DurationUnit.S
            decimals = _fixed_decimals([unit.convert(v) for v in finite])
            return [_duration_tick(v, unit, decimals) for v in values]

    formatter: Formatter = DurationFormatter()
    return formatter


def _log_minor_formatter(span_decades: float, labeller: Callable[[float], str]) -> Formatter:
    """Minor tick labels of a log axis: all of them within one decade (where there may be no
    major tick at all), 2 and 5 up to three decades, none beyond (they would collide)."""
    from matplotlib.ticker import FuncFormatter

    if span_decades < 1.0:
        wanted: tuple[int, ...] = (2, 3, 4, 5, 6, 7, 8, 9)
    elif span_decades <= 3.0:
        wanted = (2, 5)
    else:
        wanted = ()

    def label(x: float, pos: int | None = None) -> str:
        if not (x > 0 and math.isfinite(x)) or not wanted:
            return ""
        mantissa = x / 10.0 ** math.floor(math.log10(x) + 1e-9)
        return (
            labeller(x)
            if round(mantissa) in wanted and abs(mantissa - round(mantissa)) < 1e-6
            else ""
        )

    return FuncFormatter(label)


def _decades(values: Iterable[float]) -> float:
    positive = [v for v in values if v > 0 and math.isfinite(v)]
    if not positive:
        return 0.0
    return math.log10(max(positive) / min(positive))


# ---------------------------------------------------------------------------------------------
# Labels
# ---------------------------------------------------------------------------------------------


def _plan_of(comparison: Comparison) -> FilterPlan:
    """The filter plan a comparison was made with, rebuilt from its ``-b``/``-a`` text."""
    from ..compare.filters import FilterPlan

    items: list[tuple[str, str]] = []
    for option in comparison.filters:
        flag, _, value = option.partition(" ")
        items.append(("benchmark" if flag == "-b" else "axis", value))
    return FilterPlan.from_args(items)


def _device_title(row: Row) -> str:
    """``[0] NAME`` or ``[0] A vs. [1] B`` (names included), ``""`` for CPU-only rows."""
    ref_id, cmp_id = row.ref_device, row.cmp_device
    if ref_id is None and cmp_id is None:
        return ""
    ref = f"[{ref_id}] {row.ref_device_name or ''}".rstrip()
    cmp = f"[{cmp_id}] {row.cmp_device_name or ''}".rstrip()
    if ref_id is None:
        return cmp
    if cmp_id is None or ref == cmp:
        return ref
    return f"{ref} vs. {cmp}"


def _axis_text(values: Iterable[StateAxisValue], drop: Iterable[str] = ()) -> str:
    dropped = set(drop)
    return " ".join(
        f"{value.name}={format_axis_value(value, AxisStyle.COMPACT)}"
        for value in values
        if value.name not in dropped
    )


def _pinned(plan: FilterPlan, benchmarks: Sequence[str]) -> tuple[dict[str, dict[str, str]], str]:
    """Axes the filters pin, per benchmark, and the title text that names them.

    Pins every benchmark of the figure shares are written once (``T=F32``); the others per
    benchmark (``copy: Layout=strided``).
    """
    per_benchmark = {name: plan.single_valued_axes(name) for name in benchmarks}
    if not per_benchmark:
        return {}, ""
    shared = dict(next(iter(per_benchmark.values())))
    for pins in per_benchmark.values():
        shared = {name: value for name, value in shared.items() if pins.get(name) == value}
    parts = [f"{name}={value}" for name, value in shared.items()]
    for bench, pins in per_benchmark.items():
        own = [f"{name}={value}" for name, value in pins.items() if name not in shared]
        if own:
            parts.append(f"{bench}: {' '.join(own)}")
    return per_benchmark, " · ".join(parts)


def _file_label(files: Sequence[str]) -> str:
    return ", ".join(os.path.basename(os.fspath(name)) or os.fspath(name) for name in files)


# ---------------------------------------------------------------------------------------------
# Summary plot (--plot)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bar:
    """One bar of the summary plot.

    ``change`` is ``(cmp - ref) / ref`` of the centers; ``interval`` the change the row's
    effect confidence interval allows (``ratio - 1`` at both ends), when there is one;
    ``group`` numbers the benchmark x device sections, for the separators between them.
    """

    label: str
    change: float
    status: Status
    interval: tuple[float, float] | None
    group: int
    row: Row = field(repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class SummaryChart:
    """What one summary figure shows: the bars of one input pair and the text around them.

    ``confidence`` is the level of the drawn effect intervals; ``tolerance`` the half-width
    of the equivalence band the method judged them against, when every row used the same
    one (SAME means the interval lies inside ``[1/(1+t) - 1, t]``), drawn as a shaded band.
    """

    pair: int
    title: str
    subtitle: str
    bars: tuple[Bar, ...]
    confidence: float | None = None
    tolerance: float | None = None

    @property
    def statuses(self) -> tuple[Status, ...]:
        """The statuses drawn, in :class:`Status` order."""
        present = {bar.status for bar in self.bars}
        return tuple(status for status in Status if status in present)


@dataclass(frozen=True, slots=True)
class SummaryPlot:
    chart: SummaryChart
    figure: Figure


def _effect_interval(row: Row) -> tuple[float, float] | None:
    effect = row.verdict.effect
    if effect is None:
        return None
    lo, hi = effect.lo, effect.hi
    if not (math.isfinite(lo) and math.isfinite(hi) and 0 < lo <= hi):
        return None
    return lo - 1.0, hi - 1.0


def summary_charts(
    comparison: Comparison,
    *,
    filters: FilterPlan | None = None,
    min_change: float = 0.0,
) -> tuple[list[SummaryChart], list[str]]:
    """The bars of every input pair, and notes on what was left out.

    Rows are drawn when ``--threshold-diff`` shows them (``min_change``, a fraction) and they
    have a finite change: ``????``, ADDED and REMOVED rows have none and are counted in the
    subtitle instead. Labels are ``benchmark [device] axis=value ...``; axes that ``filters``
    (by default the comparison's own ``-b``/``-a`` filters) pin to one value move from the
    labels to the subtitle, next to the device names.
    """
    from .tables import is_visible

    plan = filters if filters is not None else _plan_of(comparison)
    charts: list[SummaryChart] = []
    notes: list[str] = []
    pairs = sorted({row.pair for row in comparison.rows})
    for pair in pairs:
        rows = [row for row in comparison.rows if row.pair == pair]
        benchmarks = list(dict.fromkeys(row.benchmark for row in rows))
        pins, pinned_text = _pinned(plan, benchmarks)
        bars: list[Bar] = []
        left_out: dict[str, int] = {}
        devices: dict[str, None] = {}
        group = -1
        last: tuple[str, int] | None = None
        confidence: float | None = None
        tolerances: set[float] = set()
        for row in rows:
            change = row.frac_diff
            if not is_visible(row, min_change):
                left_out["below --threshold-diff"] = left_out.get("below --threshold-diff", 0) + 1
                continue
            if row.status is Status.UNKNOWN or change is None or not math.isfinite(change):
                left_out[row.status.value] = left_out.get(row.status.value, 0) + 1
                continue
            section = (row.benchmark, row.device_pair)
            if section != last:
                group += 1
                last = section
            device = _device_title(row)
            if device:
                devices[device] = None
            parts = [row.benchmark]
            device_id = device_text(row)
            if device_id:
                parts.append(device_id)
            axes = _axis_text(row.axis_values, pins.get(row.benchmark, {}))
            if axes:
                parts.append(axes)
            if row.occurrence:
                parts.append(f"#{row.occurrence + 1}")
            interval = _effect_interval(row)
            effect = row.verdict.effect
            if interval is not None and effect is not None:
                confidence = effect.confidence
                # getattr: the band is an optional extra a method may or may not record.
                tolerance = getattr(effect, "tolerance", None)
                if isinstance(tolerance, float) and math.isfinite(tolerance) and tolerance > 0:
                    tolerances.add(tolerance)
            bars.append(Bar(" ".join(parts), change, row.status, interval, group, row))
        files = comparison.inputs[pair] if pair < len(comparison.inputs) else None
        title = "Change of the center time"
        if files is not None:
            title += f": {_file_label(files.cmp)} vs. {_file_label(files.ref)}"
        details = [f"devices: {', '.join(devices)}" if len(devices) > 1 else "".join(devices)]
        if pinned_text:
            details.append(pinned_text)
        if left_out:
            details.append(
                "not drawn: " + ", ".join(f"{count} {what}" for what, count in left_out.items())
            )
        subtitle = " | ".join(part for part in details if part)
        if not bars:
            where = f" of {files.label}" if files is not None else ""
            notes.append(f"summary plot{where}: no row with a change to draw; skipped")
            continue
        tolerance = next(iter(tolerances)) if len(tolerances) == 1 else None
        charts.append(SummaryChart(pair, title, subtitle, tuple(bars), confidence, tolerance))
    if not pairs:
        notes.append("summary plot: the comparison has no rows; nothing to draw")
    return charts, notes


def _draw_summary(chart: SummaryChart, dark: bool, figure: FigureFactory) -> Figure:
    from matplotlib import lines, patches, ticker

    fg, faint = _foreground(dark), _faint(dark)
    bars = chart.bars
    count = len(bars)
    longest = max(len(bar.label) for bar in bars)
    # Wide enough for the longest label next to a readable plot area, tall enough for ~0.3
    # inch per bar; the labels are what varies most between suites.
    width = min(24.0, max(9.0, 6.0 + 0.072 * longest))
    height = min(300.0, max(3.6, 0.3 * count + 2.2))
    fig = figure(figsize=(width, height), layout="constrained")
    ax: Axes = fig.add_subplot()
    positions = list(range(count))
    changes = [bar.change for bar in bars]
    ax.barh(
        positions,
        changes,
        height=0.7,
        color=[STATUS_PLOT_COLORS[bar.status] for bar in bars],
        zorder=2,
    )
    ax.set_yticks(positions, [bar.label for bar in bars], fontsize=9)
    ax.set_ylim(count - 0.5, -0.5)  # first row on top
    ax.axvline(0.0, color=fg, linewidth=0.8, zorder=3)
    for index in range(1, count):
        if bars[index].group != bars[index - 1].group:
            ax.axhline(index - 0.5, color=faint, linewidth=0.8, zorder=1)

    low = min([0.0, *changes])
    high = max([0.0, *changes])
    with_interval = [(i, bar.interval) for i, bar in enumerate(bars) if bar.interval is not None]
    for _, (lo, hi) in with_interval:
        low, high = min(low, lo), max(high, hi)
    if chart.tolerance is not None:
        band = (1.0 / (1.0 + chart.tolerance) - 1.0, chart.tolerance)
        ax.axvspan(
            *band,
            color=STATUS_PLOT_COLORS[Status.SAME],
            alpha=_band_alpha(dark),
            linewidth=0,
            zorder=0,
        )
        low, high = min(low, band[0]), max(high, band[1])
    if with_interval:
        # Drawn from the interval's own ends, not around the bar: a CI of the ratio need not
        # be centred on the plain change of the centers.
        ax.errorbar(
            [(lo + hi) / 2 for _, (lo, hi) in with_interval],
            [i for i, _ in with_interval],
            xerr=[(hi - lo) / 2 for _, (lo, hi) in with_interval],
            fmt="none",
            ecolor=fg,
            elinewidth=1.0,
            capsize=3,
            zorder=4,
        )
    span = high - low
    if span <= 0.0:
        span = 0.05 if low == 0.0 else abs(low) * 0.1
    # Room on both sides for the value written at the end of each bar.
    pad = 0.16 * span
    ax.set_xlim(low - pad, high + pad)
    for index, bar in enumerate(bars):
        end_hi = max(bar.change, bar.interval[1] if bar.interval else bar.change)
        end_lo = min(bar.change, bar.interval[0] if bar.interval else bar.change)
        text = format_percent(bar.change, decimals=1 if abs(bar.change) >= 0.01 else 2, signed=True)
        # A change that rounds to zero reads "+0.00%"; it goes right, like any non-negative.
        right = not text.startswith("-")
        ax.annotate(
            text,
            (end_hi if right else end_lo, index),
            xytext=(4 if right else -4, 0),
            textcoords="offset points",
            ha="left" if right else "right",
            va="center",
            fontsize=7.5,
            color=fg,
        )
    ax.xaxis.set_major_formatter(ticker.PercentFormatter(1.0))
    ax.grid(axis="x", color=faint, linewidth=0.6, zorder=0)
    ax.set_axisbelow(True)
    ax.set_xlabel("change of the center time: (compare - reference) / reference")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)

    handles: list[Any] = [
        patches.Patch(
            color=STATUS_PLOT_COLORS[status],
            label=f"{status.value} ({STATUS_MEANING[status][0].lower()})",
        )
        for status in chart.statuses
    ]
    if chart.tolerance is not None:
        handles.append(
            patches.Patch(
                color=STATUS_PLOT_COLORS[Status.SAME],
                alpha=_band_alpha(dark),
                label=f"tolerance ±{format_percent(chart.tolerance, decimals=1)}",
            )
        )
    if with_interval:
        confidence = chart.confidence
        level = f"{confidence * 100:.0f}% " if confidence is not None else ""
        handles.append(
            lines.Line2D(
                [], [], color=fg, marker="|", linewidth=1.0, label=f"{level}CI of the effect"
            )
        )
    # As many entries per legend row as fit over the plot area (about 0.07 inch per
    # character at this size, the labels taking their share of the figure's width).
    plot_inches = width - 0.072 * longest - 0.8
    entry_inches = max(0.07 * len(str(handle.get_label())) + 0.55 for handle in handles)
    ax.legend(
        handles=handles,
        loc="lower left",
        bbox_to_anchor=(0.0, 1.0),
        ncol=max(1, min(len(handles), int(plot_inches // entry_inches))),
        frameon=False,
        fontsize=8,
        borderaxespad=0.3,
        handlelength=1.2,
    )
    fig.suptitle(
        chart.title if not chart.subtitle else f"{chart.title}\n{chart.subtitle}",
        fontsize=10,
    )
    return fig


def summary_figures(
    comparison: Comparison,
    *,
    filters: FilterPlan | None = None,
    min_change: float = 0.0,
    dark: bool = False,
    figure: FigureFactory | None = None,
) -> tuple[list[SummaryPlot], list[str]]:
    """``--plot``: one bar chart per input pair (see :func:`summary_charts`), and notes.

    ``figure`` makes the empty figures (``matplotlib.figure.Figure`` by default, which needs
    no backend and opens no window; pass ``matplotlib.pyplot.figure`` to show them).
    """
    _require_matplotlib()
    charts, notes = summary_charts(comparison, filters=filters, min_change=min_change)
    factory = _factory(figure)
    plots: list[SummaryPlot] = []
    for chart in charts:
        with _style(dark):
            plots.append(SummaryPlot(chart, _draw_summary(chart, dark, factory)))
    return plots, notes


def _factory(figure: FigureFactory | None) -> FigureFactory:
    if figure is not None:
        return figure
    from matplotlib.figure import Figure

    return Figure


# ---------------------------------------------------------------------------------------------
# Plot along an axis (--plot-along AXIS)
# ---------------------------------------------------------------------------------------------


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
    plan = filters if filters is not None else _plan_of(comparison)
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
        problem = _axis_problem(bench_rows, axis)
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
            assert x is not None  # _axis_problem checked every row
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
                ref_label=f"reference ({_file_label(files.ref)})" if files else "reference",
                cmp_label=f"compare ({_file_label(files.cmp)})" if files else "compare",
            )
        )
    if not charts and comparison.rows:
        notes.append(f"--plot-along: no benchmark has usable values of axis '{axis}'; no figure")
    return charts, notes


def _axis_problem(rows: Sequence[Row], axis: str) -> str | None:
    """Why ``axis`` cannot be plotted for a benchmark's rows, or ``None``."""
    for row in rows:
        value = next((v for v in row.axis_values if v.name == axis), None)
        if value is None:
            return f"has no axis '{axis}'"
        if _numeric(value) is None:
            shown = format_axis_value(value, AxisStyle.COMPACT)
            return f"has non-numeric values of axis '{axis}' ({shown!r})"
    return None


def _series_colors(count: int) -> list[Any]:
    from matplotlib import colormaps

    if count <= 10:
        return [colormaps["tab10"](i) for i in range(count)]
    if count <= 20:
        return [colormaps["tab20"](i) for i in range(count)]
    cmap = colormaps["turbo"]
    return [cmap(i / max(count - 1, 1)) for i in range(count)]


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
    from matplotlib import lines, ticker

    fg = _foreground(dark)
    longest = max((len(series.label) for series in chart.series), default=0)
    # The legend sits right of the axes so it never covers a line; the figure grows with it.
    width = 7.5 + min(6.0, 0.075 * max(longest, len(chart.cmp_label)) + 0.6)
    height = max(4.8, min(12.0, 2.0 + 0.24 * (len(chart.series) + 4)))
    fig = figure(figsize=(width, height), layout="constrained")
    ax: Axes = fig.add_subplot()
    colors = _series_colors(len(chart.series))
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
                label=f"{series.label} {side}".strip(),
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
    ax.set_xscale("log", base=2 if chart.pow2 else 10)
    ax.set_yscale("log")

    xs_all = sorted({p.x for series in chart.series for p in series.points})
    texts = {p.x: p.x_text for series in chart.series for p in series.points}
    if len(xs_all) <= _MAX_VALUE_TICKS:
        # One tick per measured value, written as the tables write it (2^20, 0.25).
        ax.xaxis.set_major_locator(ticker.FixedLocator(xs_all))
        ax.xaxis.set_major_formatter(
            ticker.FixedFormatter(_thinned_labels(xs_all, [texts[x] for x in xs_all], width))
        )
        ax.xaxis.set_minor_locator(ticker.NullLocator())
    elif chart.pow2:
        ax.xaxis.set_major_formatter(
            ticker.FuncFormatter(lambda x, pos: f"2^{round(math.log2(x))}" if x > 0 else "")
        )
    # Room around the first and last value (a log axis has no natural margin for markers
    # and labels), and a little above and below the lines.
    first, final = xs_all[0], xs_all[-1]
    ratio = (final / first) ** 0.06 if final > first else 2.0
    ax.set_xlim(first / ratio, final * ratio)
    ax.margins(y=0.08)
    ys_all = [
        value
        for series in chart.series
        for p in series.points
        for band in (p.ref_band, p.cmp_band)
        for value in ((band.lo, band.hi) if band is not None else ())
    ] + [v for series in chart.series for p in series.points for v in (p.ref, p.cmp)]
    ax.yaxis.set_major_formatter(_duration_formatter(log=True))
    ax.yaxis.set_minor_formatter(_log_minor_formatter(_decades(ys_all), _duration_tick))
    ax.tick_params(axis="both", which="both", labelsize=8.5)
    _mark_changes(ax, chart)
    ax.grid(True, which="major", color=_faint(dark), linewidth=0.6)
    ax.grid(True, which="minor", axis="y", color=_faint(dark), linewidth=0.3, alpha=0.6)
    ax.set_xlabel(chart.axis)
    ax.set_ylabel("center time")
    title = f"{chart.benchmark} — {chart.device}" if chart.device else chart.benchmark
    if chart.fixed:
        title += f"\n{chart.fixed}"
    ax.set_title(title, fontsize=10)

    # Legend: one entry per series (its colour), then what dashed and solid mean.
    handles: list[Any] = [
        lines.Line2D([], [], color=color, linewidth=2.5, label=series.label or "all states")
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
            label=chart.ref_label,
        ),
        lines.Line2D([], [], color=fg, linestyle="-", marker="o", label=chart.cmp_label),
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


def _thinned_labels(xs: Sequence[float], texts: Sequence[str], width: float) -> list[str]:
    """Tick labels for values on a log axis, blank where one would run into the previous.

    Dense values (0.0006, 0.0007, ... on a log scale) otherwise print over each other; the
    ticks stay, only their text is dropped. Uses ~0.075 inch per character at the tick font
    size on an axis about ``width - 3`` inches wide.
    """
    if len(xs) < 2:
        return list(texts)
    total = math.log(xs[-1] / xs[0]) * 1.12  # the x limits add 6 % of the range each side
    inches = max(width - 3.5, 2.0)
    where = [math.log(x / xs[0]) / total * inches for x in xs]

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
    _require_matplotlib()
    charts, notes = along_charts(comparison, axis, filters=filters)
    factory = _factory(figure)
    plots: list[AlongPlot] = []
    for chart in charts:
        with _style(dark):
            plots.append(AlongPlot(chart, _draw_along(chart, dark, factory)))
    return plots, notes


# ---------------------------------------------------------------------------------------------
# Sample distributions (nvbench-histogram)
# ---------------------------------------------------------------------------------------------


class HistogramKind(str, Enum):
    """``--kind``: empirical CDF (exact, no parameters) or Gaussian kernel density."""

    ECDF = "ecdf"
    KDE = "kde"

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True, slots=True)
class StateSamples:
    """One state's sample times from every input that has them.

    ``samples`` pairs an input's label with its sample times (seconds, float64); inputs
    without the state or without sample times are not in it.
    """

    benchmark: str
    state: str
    device: str
    samples: tuple[tuple[str, FloatArray], ...] = field(compare=False)

    @property
    def title(self) -> str:
        head = f"{self.benchmark} {self.device}".strip()
        key = self.state
        if key.startswith("Device="):
            key = key.partition(" ")[2]
        return f"{head}\n{key}" if key else head


@dataclass(frozen=True, slots=True)
class HistogramPlot:
    figure: Figure
    states: tuple[StateSamples, ...]
    dropped: int


def unique_labels(paths: Sequence[str | os.PathLike[str]]) -> list[str]:
    """File names, with as many parent directories as it takes to tell equal names apart."""
    parts = [Path(os.fspath(path)).parts or (os.fspath(path),) for path in paths]
    depth = 1
    while True:
        labels = ["/".join(p[-depth:]) for p in parts]
        if len(set(labels)) == len(labels) or all(depth >= len(p) for p in parts):
            return labels
        depth += 1


def collect_samples(
    results: Sequence[tuple[str, BenchmarkResult]],
    *,
    filters: FilterPlan | None = None,
) -> tuple[list[StateSamples], list[str]]:
    """Every selected state with sample times, in first-seen order, and notes.

    States are matched across the inputs by benchmark and full state name (``Device=`` kept:
    the same state on two devices is two distributions). A state no input has sample times
    for is left out; notes say how many per input, and which.
    """
    import numpy as np

    from ..compare.filters import FilterPlan, seen_benchmarks

    plan = filters if filters is not None else FilterPlan()
    plan.require_matches(seen_benchmarks([result for _, result in results]))
    order: dict[tuple[str, str], str] = {}
    found: dict[tuple[str, str], list[tuple[str, FloatArray]]] = {}
    missing: dict[str, list[str]] = {}
    for label, result in results:
        for bench in result.benchmarks:
            if not plan.selects_benchmark(bench.name):
                continue
            names = {device: info.name for device, info in bench.device_info.items()}
            for state in bench:
                if not plan.selects_state(bench.name, state.axis_values):
                    continue
                key = (bench.name, state.state_name)
                device = state.device
                order.setdefault(
                    key, "" if device is None else f"[{device}] {names.get(device, '')}".rstrip()
                )
                samples = None if state.is_skipped else state.samples
                if samples is None or samples.size == 0:
                    missing.setdefault(label, []).append(f"{bench.name} {state.state_name}".strip())
                    continue
                values = np.asarray(samples, dtype=np.float64)
                found.setdefault(key, []).append((label, values))
    notes: list[str] = []
    for label, states in missing.items():
        noun = "state has" if len(states) == 1 else "states have"
        example = f" (e.g. '{states[0]}')" if len(states) > 1 else f" ('{states[0]}')"
        notes.append(
            f"{label}: {len(states)} {noun} no sample times (skipped, or run without "
            f"--jsonbin){example}; left out"
        )
    collected = [
        StateSamples(bench, state, device, tuple(found[(bench, state)]))
        for (bench, state), device in order.items()
        if (bench, state) in found
    ]
    return collected, notes


def ecdf_points(samples: FloatArray, limit: int = _ECDF_POINTS) -> tuple[FloatArray, FloatArray]:
    """``(x, y)`` of the empirical CDF: sorted values and ``(i + 1) / n``.

    More than ``limit`` samples are thinned to ``limit`` evenly spaced order statistics
    (always including the minimum and maximum).
    """
    import numpy as np

    values = np.sort(np.asarray(samples, dtype=np.float64))
    n = values.size
    fractions = np.arange(1, n + 1, dtype=np.float64) / n
    if n > limit:
        picks = np.unique(np.linspace(0, n - 1, limit).round().astype(np.int64))
        return values[picks], fractions[picks]
    return values, fractions


def gaussian_kde(
    samples: FloatArray, grid: FloatArray, bandwidth: float | None = None
) -> FloatArray:
    """Gaussian kernel density of ``samples`` evaluated at ``grid`` (integrates to 1).

    The bandwidth defaults to Silverman's rule of thumb, ``0.9 * min(sd, IQR / 1.34) *
    n^(-1/5)``, which stays sensible with outliers. Large sample sets are first binned
    into 2048 bins (weights), which changes nothing visible at plot resolution.
    """
    import numpy as np

    values = np.asarray(samples, dtype=np.float64)
    points = np.asarray(grid, dtype=np.float64)
    n = values.size
    if n == 0:
        return np.zeros_like(points)
    if bandwidth is None:
        bandwidth = _silverman(values)
    weights: FloatArray = np.ones(n, dtype=np.float64)
    if n > _KDE_EXACT_LIMIT:
        counts, edges = np.histogram(values, bins=2048)
        keep = counts > 0
        values = np.asarray(((edges[:-1] + edges[1:]) / 2)[keep], dtype=np.float64)
        weights = counts[keep].astype(np.float64)
    weights /= weights.sum()
    density = np.zeros_like(points)
    norm = 1.0 / (bandwidth * math.sqrt(2.0 * math.pi))
    # Chunked so memory stays bounded by grid size x chunk whatever the sample count.
    for start in range(0, values.size, 4096):
        chunk = values[start : start + 4096]
        z = (points[:, None] - chunk[None, :]) / bandwidth
        density += (np.exp(-0.5 * z * z) * weights[start : start + 4096]).sum(axis=1)
    result: FloatArray = density * norm
    return result


def _silverman(values: FloatArray) -> float:
    import numpy as np

    n = values.size
    sd = float(np.std(values, ddof=1)) if n > 1 else 0.0
    q75, q25 = (float(q) for q in np.percentile(values, [75.0, 25.0]))
    spread = min(sd, (q75 - q25) / 1.34) if q75 > q25 else sd
    if not spread > 0:
        # Identical (or two-valued, timer-quantized) samples: a narrow spike is the truth.
        scale = float(np.max(np.abs(values))) if n else 1.0
        return max(scale * 1e-3, 1e-15)
    return 0.9 * spread * math.pow(n, -0.2)


def _draw_histogram(
    states: Sequence[StateSamples],
    labels: Sequence[str],
    kind: HistogramKind,
    log_x: bool,
    dark: bool,
    title: str,
    figure: FigureFactory,
) -> Figure:
    import numpy as np
    from matplotlib import lines, ticker

    fg, faint = _foreground(dark), _faint(dark)
    count = len(states)
    # One row up to three states, a square for four, then rows of three.
    columns = count if count <= 3 else 2 if count == 4 else 3
    rows = math.ceil(count / columns)
    fig = figure(figsize=(4.8 * columns + 0.4, 3.3 * rows + 1.2), layout="constrained")
    axes = fig.subplots(rows, columns, squeeze=False)
    colors = _series_colors(len(labels))
    color_of = dict(zip(labels, colors, strict=True))
    for index, state in enumerate(states):
        ax: Axes = axes[index // columns][index % columns]
        for label, samples in state.samples:
            color = color_of[label]
            if kind is HistogramKind.ECDF:
                x, y = ecdf_points(samples)
                ax.step(x, y, where="post", color=color, linewidth=1.5, label=label)
            else:
                space = np.asarray(np.log(samples) if log_x else samples, dtype=np.float64)
                bandwidth = _silverman(space)
                lo = float(space.min()) - 3 * bandwidth
                hi = float(space.max()) + 3 * bandwidth
                grid = np.asarray(np.linspace(lo, hi, _KDE_GRID), dtype=np.float64)
                density = gaussian_kde(space, grid, bandwidth)
                x = np.exp(grid) if log_x else grid
                ax.plot(x, density, color=color, linewidth=1.5, label=label)
                ax.fill_between(x, density, color=color, alpha=0.15, linewidth=0)
                ax.axvline(float(np.median(samples)), color=color, linestyle=":", linewidth=1.0)
        if kind is HistogramKind.ECDF:
            ax.axhline(0.5, color=faint, linestyle=":", linewidth=0.8)
            ax.set_ylim(0.0, 1.02)
            if index % columns == 0:
                ax.set_ylabel("fraction of samples ≤ x", fontsize=8)
        else:
            ax.set_ylim(bottom=0.0)
            if index % columns == 0:
                ax.set_ylabel("density", fontsize=8)
            ax.tick_params(axis="y", labelleft=False, left=False)
        if log_x:
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(_duration_formatter(log=True))
            span = _decades(
                [float(v) for _, samples in state.samples for v in (samples.min(), samples.max())]
            )
            ax.xaxis.set_minor_formatter(_log_minor_formatter(span, _duration_tick))
        else:
            ax.xaxis.set_major_formatter(_duration_formatter(log=False))
            ax.xaxis.set_major_locator(ticker.MaxNLocator(5))
        ax.tick_params(labelsize=8)
        # Densities have no readable unit, so only the time axis gets grid lines there.
        ax.grid(
            True, axis="both" if kind is HistogramKind.ECDF else "x", color=faint, linewidth=0.5
        )
        ax.set_title(state.title, fontsize=8.5)
    for index in range(count, rows * columns):
        axes[index // columns][index % columns].set_visible(False)
    handles = [
        lines.Line2D([], [], color=color_of[label], linewidth=2, label=label) for label in labels
    ]
    fig.legend(
        handles=handles,
        # Below the subplots: above them it would collide with the suptitle.
        loc="outside lower center" if _supports_outside_legend() else "lower center",
        ncol=min(len(handles), 4),
        frameon=False,
        fontsize=9,
        title="dotted lines: medians" if kind is HistogramKind.KDE else None,
        title_fontsize=8,
    )
    fig.suptitle(title, fontsize=11, color=fg)
    return fig


def _supports_outside_legend() -> bool:
    """``loc="outside ..."`` (figure legends beside the axes) arrived in matplotlib 3.7."""
    import matplotlib

    version = str(matplotlib.__version__).split(".")
    try:
        return (int(version[0]), int(version[1])) >= (3, 7)
    except (IndexError, ValueError):
        return True


def histogram_figure(
    states: Sequence[StateSamples],
    *,
    kind: HistogramKind | str = HistogramKind.ECDF,
    log_x: bool = False,
    dark: bool = False,
    max_states: int = DEFAULT_MAX_STATES,
    title: str | None = None,
    figure: FigureFactory | None = None,
) -> HistogramPlot:
    """One subplot per state (at most ``max_states``; ``dropped`` counts the rest), each
    input's samples overlaid in its own colour and named in a shared legend.

    ``kind`` ``ecdf`` draws empirical CDFs (every sample, no smoothing); ``kde`` Gaussian
    kernel densities with a dotted line at each median. ``log_x`` puts time on a log axis
    (for KDE the density is estimated in log time then).
    """
    _require_matplotlib()
    if not states:
        raise ValueError("no states to draw")
    if max_states < 1:
        raise ValueError(f"max_states must be at least 1, got {max_states}")
    chosen = HistogramKind(kind)
    shown = tuple(states[:max_states])
    labels = list(dict.fromkeys(label for state in shown for label, _ in state.samples))
    heading = title or (
        "Sample times: empirical CDF" if chosen is HistogramKind.ECDF else "Sample times: KDE"
    )
    with _style(dark):
        fig = _draw_histogram(shown, labels, chosen, log_x, dark, heading, _factory(figure))
    return HistogramPlot(fig, shown, len(states) - len(shown))


# ---------------------------------------------------------------------------------------------
# Output files
# ---------------------------------------------------------------------------------------------


def image_format(path: str | os.PathLike[str]) -> str:
    """The image format a path asks for by its extension (``png`` without one).

    Raises :class:`ValueError` for an extension matplotlib cannot write.
    """
    suffix = Path(os.fspath(path)).suffix.lower().lstrip(".")
    if not suffix:
        return "png"
    _require_matplotlib()
    from matplotlib.backend_bases import FigureCanvasBase

    supported = sorted(FigureCanvasBase.get_supported_filetypes())
    if suffix not in supported:
        raise ValueError(
            f"cannot write image format '.{suffix}' (supported: {', '.join(supported)})"
        )
    return suffix


def save_figure(figure: Figure, path: str | os.PathLike[str], *, dpi: int = DEFAULT_DPI) -> Path:
    """Write ``figure`` to ``path`` atomically (a temporary file beside it, then a rename).

    The format follows the extension (:func:`image_format`); missing parent directories are
    created. Nothing half-written is ever visible under ``path``. The file gets the
    permissions a plain ``open()`` would give it (an existing file keeps its own).
    """
    from .._io import atomic_path

    fmt = image_format(path)
    target = Path(os.fspath(path))
    with atomic_path(target, suffix=f".{fmt}") as temporary:
        figure.savefig(temporary, format=fmt, dpi=dpi, facecolor=figure.get_facecolor())
    return target


class OutputPaths:
    """Hands out output paths for one run; a path asked for twice gets ``-copy-N``.

    The first use of a path takes it (overwriting a file left by an earlier run); later
    uses get ``stem-copy-N.ext`` with the first N that is neither taken in this run nor on
    disk, and a warning saying so.
    """

    def __init__(self) -> None:
        self._taken: set[str] = set()

    def claim(self, path: str | os.PathLike[str]) -> tuple[Path, str | None]:
        """The path to write and, when it had to change, a warning."""
        wanted = Path(os.fspath(path))
        key = os.path.realpath(wanted)
        if key not in self._taken:
            self._taken.add(key)
            return wanted, None
        number = 1
        while True:
            candidate = wanted.with_name(f"{wanted.stem}-copy-{number}{wanted.suffix}")
            candidate_key = os.path.realpath(candidate)
            # The resolved path: ``sub/../x`` must count as ``x`` even when ``sub`` is absent.
            if candidate_key not in self._taken and not os.path.exists(candidate_key):
                self._taken.add(candidate_key)
                return candidate, (
                    f"'{wanted}' was already written in this run; writing '{candidate}' instead"
                )
            number += 1


def sanitize_field(text: str) -> str:
    """A template field value safe in a file name: runs of characters outside
    ``[A-Za-z0-9_-]`` become ``_``, leading and trailing ``._-`` go, empty becomes ``value``.

    >>> sanitize_field("Elements{io}")
    'Elements_io'
    >>> sanitize_field("../..")
    'value'
    """
    cleaned = _FIELD_JUNK.sub("_", text).strip("._-")
    return cleaned or "value"


def check_template(template: str, fields: Sequence[str] = ALONG_FIELDS) -> None:
    """Raise :class:`ValueError` unless ``template`` uses only ``{field}`` placeholders.

    Format specs, conversions, attribute or index access and positional ``{}`` are refused:
    file names need none of them, and a typo should fail before any work is done.
    """
    if not template:
        raise ValueError("the output template is empty")
    allowed = ", ".join(f"{{{name}}}" for name in sorted(fields))
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as error:
        raise ValueError(f"template is invalid: {error}") from None
    for _, name, spec, conversion in parsed:
        if name is None:
            continue
        if name not in fields or spec or conversion:
            shown = (
                "{"
                + name
                + (f"!{conversion}" if conversion else "")
                + (f":{spec}" if spec else "")
                + "}"
            )
            raise ValueError(f"supports template fields {allowed}; got {shown}")


def expand_template(template: str, values: Mapping[str, str]) -> str:
    """``template`` with every ``{field}`` replaced by its :func:`sanitize_field` value."""
    check_template(template, tuple(values))
    return template.format_map({name: sanitize_field(value) for name, value in values.items()})


# ---------------------------------------------------------------------------------------------
# Window or file
# ---------------------------------------------------------------------------------------------


def has_display(environ: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    """Whether a plot window could be shown: macOS and Windows always have a desktop; other
    systems need ``$DISPLAY`` or ``$WAYLAND_DISPLAY``. ``MPLBACKEND`` naming a file-only
    backend (``agg``, ``pdf``, ...) means no window either."""
    env = os.environ if environ is None else environ
    backend = env.get("MPLBACKEND", "").strip().lower()
    if backend in _FILE_BACKENDS:
        return False
    system = sys.platform if platform is None else platform
    if system == "darwin" or system.startswith("win"):
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


def use_file_backend() -> None:
    """Select the Agg backend, so that nothing drawn later can open a window.

    Done before pyplot is imported (``matplotlib.use`` switches pyplot over if it already
    was). The figures of this module need no backend to be saved; this protects against
    anything else that reaches for pyplot.
    """
    _require_matplotlib()
    import matplotlib

    matplotlib.use("Agg")


def interactive_backend() -> ModuleType | None:
    """``matplotlib.pyplot`` when its backend can show windows, else ``None``.

    pyplot falls back to Agg silently when no GUI toolkit is installed; then ``show()``
    would return at once and show nothing, so callers should write files instead.
    """
    _require_matplotlib()
    import matplotlib.pyplot as pyplot

    probe = pyplot.figure()
    try:
        framework = type(probe.canvas).required_interactive_framework
    finally:
        pyplot.close(probe)
    return pyplot if framework is not None else None
