"""Global-memory bandwidth utilisation per state (``nvbench-plot-bwutil``).

NVBench reports, for benchmarks that declare the bytes they read and write, the achieved
bandwidth as a fraction of the device's peak (summary ``nv/cold/bw/global/utilization``).
:func:`bwutil_bars` collects it per state, :func:`bwutil_figure` draws one horizontal bar per
state (0-100 %), coloured by benchmark, so memory-bound kernels far from the peak stand out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..._untrusted import visible
from .style import FigureFactory, figure_factory, plot_style, require_matplotlib, series_colors

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ...compare.filters import FilterPlan
    from ...results._tools_api import BenchmarkResult

__all__ = ["UTILIZATION_TAG", "BandwidthBar", "bwutil_bars", "bwutil_figure"]

#: NVBench's summary tag of the bandwidth utilisation (a fraction of the peak).
UTILIZATION_TAG = "nv/cold/bw/global/utilization"


@dataclass(frozen=True)
class BandwidthBar:
    """One state's utilisation: ``label`` is ``benchmark [device] | axis values``,
    ``device`` the device's name where the file names it."""

    label: str
    utilization: float
    benchmark: str
    device: str | None


def bwutil_bars(
    results: Sequence[BenchmarkResult], *, filters: FilterPlan | None = None
) -> list[BandwidthBar]:
    """The utilisation of every selected state that reports one, in file order."""
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
            label = f"{bench.name}{where} | {state.name()}".rstrip(" |")
            info = None if state.device is None else bench.device_info.get(state.device)
            device = None if info is None else info.name
            bars.append(BandwidthBar(label, float(value), bench.name, device))
    return bars


def bwutil_figure(
    bars: Sequence[BandwidthBar],
    *,
    title: str | None = None,
    dark: bool = False,
    figure: FigureFactory | None = None,
) -> Figure:
    """One horizontal bar per state, its utilisation in percent of the peak."""
    require_matplotlib()
    if not bars:
        raise ValueError("no states to draw")
    from matplotlib import ticker

    heading = title or "Global memory bandwidth utilization"
    benchmarks = list(dict.fromkeys(bar.benchmark for bar in bars))
    color_of = dict(zip(benchmarks, series_colors(len(benchmarks)), strict=True))
    with plot_style(dark):
        fig = figure_factory(figure)(figsize=(10, 1.2 + 0.28 * len(bars)), layout="constrained")
        ax = fig.subplots()
        positions = list(range(len(bars)))[::-1]  # first state at the top
        ax.barh(
            positions,
            [bar.utilization * 100 for bar in bars],
            color=[color_of[bar.benchmark] for bar in bars],
        )
        # Labels are names from result files: control characters shown, as in every plot.
        ax.set_yticks(positions, [visible(bar.label) for bar in bars])
        ax.set_xlim(0, max(100.0, max(bar.utilization * 100 for bar in bars)))
        ax.xaxis.set_major_formatter(ticker.PercentFormatter())
        ax.set_xlabel("achieved / peak global memory bandwidth")
        ax.grid(axis="x", alpha=0.3)
        ax.set_title(heading)
    return fig
