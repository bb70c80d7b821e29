"""Global-memory bandwidth utilisation per state (``nvbench-plot-bwutil``).

NVBench reports, for benchmarks that declare the bytes they read and write, the achieved
bandwidth as a fraction of the device's peak (summary ``nv/cold/bw/global/utilization``).
:func:`bwutil_bars` collects it per state, :func:`bwutil_figure` draws one horizontal bar per
state (0-100 %), coloured by benchmark (by file, named in a legend, when several files are
drawn), so memory-bound kernels far from the peak stand out.

A utilisation that is not a finite number from 0 to :data:`UTILIZATION_LIMIT` (NaN, a
negative fraction, ``1e308``) is no measurement: its state gets no bar, and the caller's
``problems`` list gets one line naming the file and the state (the command prints it as a
warning). Drawn, NaN was silently no bar and 1e308 stopped matplotlib with a traceback.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .labels import drawn_label
from .style import (
    FigureFactory,
    below_legend,
    figure_factory,
    plot_style,
    require_matplotlib,
    series_colors,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ...compare.filters import FilterPlan
    from ...results._tools_api import BenchmarkResult

__all__ = [
    "UTILIZATION_LIMIT",
    "UTILIZATION_TAG",
    "BandwidthBar",
    "bwutil_bars",
    "bwutil_figure",
    "usable_utilization",
]

#: NVBench's summary tag of the bandwidth utilisation (a fraction of the peak).
UTILIZATION_TAG = "nv/cold/bw/global/utilization"
#: The largest utilisation a state can report (1000 % of the peak): data served from the
#: L2 cache can pass the DRAM peak a few times over, never this far.
UTILIZATION_LIMIT = 10.0


def usable_utilization(value: float) -> bool:
    """A utilisation a state can have measured: finite, from 0 to :data:`UTILIZATION_LIMIT`."""
    return math.isfinite(value) and 0.0 <= value <= UTILIZATION_LIMIT


@dataclass(frozen=True)
class BandwidthBar:
    """One state's utilisation: ``label`` is ``benchmark [device] | axis values``,
    ``device`` the device's name where the file names it, ``file`` the result file as the
    caller named it (``None``: a result read from memory)."""

    label: str
    utilization: float
    benchmark: str
    device: str | None
    file: str | None = None


def bwutil_bars(
    results: Sequence[BenchmarkResult],
    *,
    filters: FilterPlan | None = None,
    problems: list[str] | None = None,
) -> list[BandwidthBar]:
    """The utilisation of every selected state that reports a usable one
    (:func:`usable_utilization`), in file order; ``problems`` gets one line per state left
    out for an unusable one."""
    from ...compare.filters import FilterPlan, seen_benchmarks

    plan = filters if filters is not None else FilterPlan()
    plan.require_matches(seen_benchmarks(list(results)))
    bars: list[BandwidthBar] = []
    for result in results:
        for bench, state in plan.ran_states(result):
            value = state.get_value(UTILIZATION_TAG)
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                continue
            where = "" if state.device is None else f" [{state.device}]"
            if not usable_utilization(float(value)):
                if problems is not None:
                    on = "" if state.device is None else f"device {state.device} "
                    problems.append(
                        f"{bench.source.label}: benchmark {bench.name!r} {on}state "
                        f"{state.name()!r} has {UTILIZATION_TAG} {float(value)!r}, not a "
                        "utilization; the state is left out"
                    )
                continue
            label = f"{bench.name}{where} | {state.name()}".rstrip(" |")
            info = None if state.device is None else bench.device_info.get(state.device)
            device = None if info is None else info.name
            bars.append(BandwidthBar(label, float(value), bench.name, device, result.label))
    return bars


def bwutil_figure(
    bars: Sequence[BandwidthBar],
    *,
    title: str | None = None,
    dark: bool = False,
    figure: FigureFactory | None = None,
) -> Figure:
    """One horizontal bar per state, its utilisation in percent of the peak (the axis spans
    0-100 %, or up to the largest usable one: an unusable value never sets it).

    Bars of one file are coloured by benchmark. Bars of several files (a folder of runs,
    whose labels repeat per file) are coloured by file, with a legend naming each file as
    the caller gave it: otherwise which bar is which run could not be told."""
    require_matplotlib()
    if not bars:
        raise ValueError("no states to draw")
    from matplotlib import ticker

    heading = title or "Global memory bandwidth utilization"
    files = list(dict.fromkeys(bar.file for bar in bars))
    by_file = len(files) > 1
    groups = files if by_file else list(dict.fromkeys(bar.benchmark for bar in bars))
    color_of = dict(zip(groups, series_colors(len(groups)), strict=True))
    with plot_style(dark):
        # A row of the legend under the bars (two files a row) for several files.
        legend_rows = (len(files) + 1) // 2 if by_file else 0
        height = 1.2 + 0.28 * len(bars) + 0.3 * legend_rows
        # Labels are names from result files: control characters shown, as in every plot,
        # and cut to what a figure shows (matplotlib laid out every character of a long
        # one, to collapse the bars). The figure widens with them, as the summary plot's.
        labels = [drawn_label(bar.label) for bar in bars]
        width = min(24.0, max(10.0, 6.0 + 0.072 * max(len(label) for label in labels)))
        fig = figure_factory(figure)(figsize=(width, height), layout="constrained")
        ax = fig.subplots()
        positions = list(range(len(bars)))[::-1]  # first state at the top
        ax.barh(
            positions,
            # An unusable value (bars built by hand) is drawn as no bar.
            [bar.utilization * 100 if usable_utilization(bar.utilization) else 0.0 for bar in bars],
            color=[color_of[bar.file if by_file else bar.benchmark] for bar in bars],
        )
        if by_file:
            _file_legend(fig, files, [color_of[file] for file in files])
        ax.set_yticks(positions, labels)
        # A limit of NaN or inf is matplotlib's error.
        shown = [bar.utilization * 100 for bar in bars if usable_utilization(bar.utilization)]
        ax.set_xlim(0, max([100.0, *shown]))
        ax.xaxis.set_major_formatter(ticker.PercentFormatter())
        ax.set_xlabel("achieved / peak global memory bandwidth")
        ax.grid(axis="x", alpha=0.3)
        ax.set_title(heading)
    return fig


def _file_legend(fig: Figure, files: Sequence[str | None], colors: Sequence[Any]) -> None:
    """A legend entry per file under the bars, in its bars' colour: the file's name as
    text (control characters shown, no mathtext: :func:`.style.plot_style`), a result
    from memory ``(no file)``. Handles and labels are given together, so that a name
    beginning with ``_`` is not taken for matplotlib's "leave out of the legend"."""
    from matplotlib.patches import Patch

    labels = [drawn_label(file) if file is not None else "(no file)" for file in files]
    handles = [Patch(facecolor=color) for color in colors]
    fig.legend(handles, labels, loc=below_legend(), ncol=min(len(files), 2), fontsize=9)
