"""Sample distributions (``nvbench-histogram``): per state, every input's sample times
overlaid as an empirical CDF or a Gaussian kernel density, one subplot per state."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Final

from ..._untrusted import visible
from .style import (
    FigureFactory,
    below_legend,
    duration_formatter,
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

    from ..._arrays import FloatArray
    from ...compare.filters import FilterPlan
    from ...results._tools_api import BenchmarkResult

__all__ = [
    "DEFAULT_MAX_STATES",
    "HistogramKind",
    "HistogramPlot",
    "StateSamples",
    "collect_samples",
    "ecdf_points",
    "gaussian_kde",
    "histogram_figure",
    "unique_labels",
]

#: Characters of a panel title line (8.5 pt in a 4.8 inch panel): longer parts are wrapped,
#: and cut after :data:`_TITLE_PART_LINES` lines, so titles stay above their own panel.
_TITLE_WIDTH = 56
_TITLE_PART_LINES = 2

#: Most states ``nvbench-histogram`` draws in one figure; more would make unreadable subplots.
DEFAULT_MAX_STATES: Final = 24
# ECDFs of huge sample sets are drawn from this many order statistics: indistinguishable on
# screen, and cheap to render.
_ECDF_POINTS = 4000
# Above this many samples the KDE is computed from a fine histogram instead of every sample.
_KDE_EXACT_LIMIT = 10_000
_KDE_GRID = 256


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
    def title_parts(self) -> tuple[str, ...]:
        """The lines of the panel title, as the file names them: ``benchmark device``,
        then the state's axis values (``Device=`` dropped: the first line names it)."""
        head = f"{self.benchmark} {self.device}".strip()
        key = self.state
        if key.startswith("Device="):
            key = key.partition(" ")[2]
        return (head, key) if key else (head,)

    @property
    def title(self) -> str:
        """:attr:`title_parts` as one text, a newline between them (names unescaped)."""
        return "\n".join(self.title_parts)


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
    problems: list[str] | None = None,
) -> tuple[list[StateSamples], list[str]]:
    """Every selected state with sample times, in first-seen order, and notes.

    Sample times are checked as the comparison checks them
    (:func:`~cuda.bench.compare.bulk.checked_values`): a side file holding a zero, a
    negative or a non-finite value is not used (its state drawn from the other inputs, or
    left out), and ``problems`` gets nvbench_compare's line for it, naming the side file.
    Drawn, an all-NaN file was an empty panel without a word. So is a side file the reader
    does not read (outside the JSON file's tree, a name that is no path, the wrong size):
    ``problems`` gets the reader's line (it stopped the plot before).

    States are matched across the inputs by benchmark and full state name (``Device=`` kept:
    the same state on two devices is two distributions). A state no input has sample times
    for is left out; notes say how many per input, and which, except for the states the
    benchmark skipped (it says why in its own output); a sample-times file recorded with
    0 values is named as such, in nvbench_compare's words.
    """
    import numpy as np

    from ..._errors import SideFileError
    from ...compare.bulk import (
        UnusableBulkData,
        check_recorded_summaries,
        checked_values,
        recorded_count_line,
        unusable_samples_line,
    )
    from ...compare.evidence import recorded_sample_summaries, sample_times_without_values
    from ...compare.filters import FilterPlan, seen_benchmarks

    plan = filters if filters is not None else FilterPlan()
    plan.require_matches(seen_benchmarks([result for _, result in results]))
    order: dict[tuple[str, str], str] = {}
    found: dict[tuple[str, str], list[tuple[str, FloatArray]]] = {}
    missing: dict[str, list[str]] = {}
    # Per input, the states whose sample times are recorded with 0 values, with the file.
    without_values: dict[str, list[tuple[str, str]]] = {}
    for label, result in results:
        for bench, state in plan.ran_states(result):
            key = (bench.name, state.state_name)
            device = state.device
            if key not in order:
                info = None if device is None else bench.device_info.get(device)
                name = "" if info is None else info.name
                order[key] = "" if device is None else f"[{device}] {name}".rstrip()
            try:
                samples = state.samples
            except SideFileError as error:
                # Not read (outside the JSON file's tree, no usable name, the wrong size):
                # as nvbench_compare, a warning and the state drawn without it.
                if problems is not None:
                    problems.append(str(error))
                continue
            if samples is None or samples.size == 0:
                where = f"{bench.name} {state.state_name}".strip()
                side_file = sample_times_without_values(state) if samples is None else None
                if side_file is not None:  # the run has side files: its record is wrong
                    without_values.setdefault(label, []).append((side_file, where))
                else:
                    missing.setdefault(label, []).append(where)
                continue
            try:
                check_recorded_summaries(checked_values(samples), *recorded_sample_summaries(state))
            except UnusableBulkData as error:
                if problems is not None:
                    # nvbench_compare's words for the same file.
                    file = state.sample_file
                    where = (
                        f"{bench.name} {state.state_name}".strip()
                        if file is None
                        else bench.source.named(bench.source.shown(file))
                    )
                    problems.append(unusable_samples_line(where, error))
                continue
            values = np.asarray(samples, dtype=np.float64)
            found.setdefault(key, []).append((label, values))
    notes: list[str] = []
    for label, states in missing.items():
        noun = "state has" if len(states) == 1 else "states have"
        example = f" (e.g. '{states[0]}')" if len(states) > 1 else f" ('{states[0]}')"
        notes.append(
            f"{label}: {len(states)} {noun} no sample times (run without --jsonbin, or its "
            f"side files are missing){example}; left out"
        )
    for recorded in without_values.values():
        side_file, where = recorded[0]
        others = f", and {len(recorded) - 1} more state(s) alike" if len(recorded) > 1 else ""
        line = recorded_count_line(side_file, 0)
        notes.append(f"{line} ('{where}'){others}; left out")
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
    if n > _KDE_EXACT_LIMIT and values.min() == values.max():
        # numpy bins identical values over [v - 0.5, v + 0.5]: one value of weight 1.
        values, weights = values[:1], weights[:1]
    elif n > _KDE_EXACT_LIMIT:
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


def panel_title(state: StateSamples) -> str:
    """The title of ``state``'s panel: each part (names from result files) with its control
    characters shown as escapes, wrapped to :data:`_TITLE_WIDTH` characters and cut with
    an ellipsis after :data:`_TITLE_PART_LINES` lines, the parts joined by real newlines.
    Escaping the joined title showed the tool's own line break as a literal ``\\n`` and
    ran the one-line titles into each other."""
    import textwrap

    lines: list[str] = []
    for part in state.title_parts:
        wrapped = textwrap.wrap(visible(part), _TITLE_WIDTH) or [""]
        if len(wrapped) > _TITLE_PART_LINES:
            wrapped = wrapped[:_TITLE_PART_LINES]
            wrapped[-1] = wrapped[-1][: _TITLE_WIDTH - 1] + "…"
        lines.extend(wrapped)
    return "\n".join(lines)


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

    fg, faint = foreground_color(dark), faint_color(dark)
    count = len(states)
    # One row up to three states, a square for four, then rows of three.
    columns = count if count <= 3 else 2 if count == 4 else 3
    rows = math.ceil(count / columns)
    fig = figure(figsize=(4.8 * columns + 0.4, 3.3 * rows + 1.2), layout="constrained")
    axes = fig.subplots(rows, columns, squeeze=False)
    colors = series_colors(len(labels))
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
            log_time_ticks(
                ax.xaxis,
                [float(v) for _, samples in state.samples for v in (samples.min(), samples.max())],
            )
        else:
            ax.xaxis.set_major_formatter(duration_formatter(log=False))
            ax.xaxis.set_major_locator(ticker.MaxNLocator(5))
        # Minor labels too: a log axis labels minor ticks where they fit.
        ax.tick_params(which="both", labelsize=8)
        # Densities have no readable unit, so only the time axis gets grid lines there.
        ax.grid(
            True, axis="both" if kind is HistogramKind.ECDF else "x", color=faint, linewidth=0.5
        )
        ax.set_title(panel_title(state), fontsize=8.5)
    for index in range(count, rows * columns):
        axes[index // columns][index % columns].set_visible(False)
    # Labels are file names, which an artifact may choose: control characters as escapes.
    handles = [
        lines.Line2D([], [], color=color_of[label], linewidth=2, label=visible(label))
        for label in labels
    ]
    fig.legend(
        handles=handles,
        # Below the subplots: above them it would collide with the suptitle.
        loc=below_legend(),
        ncol=min(len(handles), 4),
        frameon=False,
        fontsize=9,
        title="dotted lines: medians" if kind is HistogramKind.KDE else None,
        title_fontsize=8,
    )
    fig.suptitle(visible(title), fontsize=11, color=fg)
    return fig


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
    require_matplotlib()
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
    with plot_style(dark):
        fig = _draw_histogram(shown, labels, chosen, log_x, dark, heading, figure_factory(figure))
    return HistogramPlot(fig, shown, len(states) - len(shown))
