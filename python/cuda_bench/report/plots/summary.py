"""The summary chart (``nvbench_compare --plot``): one bar per compared row.

Each bar is the plain relative change of the centers ``(cmp - ref) / ref``, coloured by
status, with the confidence interval of the row's :class:`~cuda.bench.compare.model.Effect`
as an error bar when the method estimated one. One figure per input pair; the bars are a
frozen :class:`SummaryChart`, drawn separately.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..._untrusted import visible
from ...compare.model import Comparison, Row, Status
from ..colors import STATUS_MEANING
from ..format import format_percent
from ..tables import device_text
from .labels import axis_text, device_title, drawn_label, file_label, pinned_axes, plan_of
from .style import (
    STATUS_PLOT_COLORS,
    FigureFactory,
    band_alpha,
    faint_color,
    figure_factory,
    foreground_color,
    plot_style,
    require_matplotlib,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ...compare.filters import FilterPlan

__all__ = ["Bar", "SummaryChart", "SummaryPlot", "summary_charts", "summary_figures"]


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
    from ..tables import is_visible

    plan = filters if filters is not None else plan_of(comparison)
    charts: list[SummaryChart] = []
    notes: list[str] = []
    pairs = sorted({row.pair for row in comparison.rows})
    for pair in pairs:
        rows = [row for row in comparison.rows if row.pair == pair]
        benchmarks = list(dict.fromkeys(row.benchmark for row in rows))
        pins, pinned_text = pinned_axes(plan, benchmarks)
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
            device = device_title(row)
            if device:
                devices[device] = None
            parts = [row.benchmark]
            device_id = device_text(row)
            if device_id:
                parts.append(device_id)
            axes = axis_text(row.axis_values, pins.get(row.benchmark, {}))
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
            title += f": {file_label(files.cmp)} vs. {file_label(files.ref)}"
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

    fg, faint = foreground_color(dark), faint_color(dark)
    bars = chart.bars
    count = len(bars)
    # Names are untrusted text: control characters drawn as their escapes (no font has them),
    # and no longer than a figure shows.
    labels = [drawn_label(bar.label) for bar in bars]
    longest = max(len(label) for label in labels)
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
    ax.set_yticks(positions, labels, fontsize=9)
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
            alpha=band_alpha(dark),
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
                alpha=band_alpha(dark),
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
        visible(chart.title)
        if not chart.subtitle
        else f"{visible(chart.title)}\n{visible(chart.subtitle)}",
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
    require_matplotlib()
    charts, notes = summary_charts(comparison, filters=filters, min_change=min_change)
    factory = figure_factory(figure)
    plots: list[SummaryPlot] = []
    for chart in charts:
        with plot_style(dark):
            plots.append(SummaryPlot(chart, _draw_summary(chart, dark, factory)))
    return plots, notes
