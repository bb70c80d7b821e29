"""A heat map of the log ratios of an N-way comparison: states x candidates.

Each cell is ``log2(candidate / baseline)`` of the change the verdict was decided on (the
judged effect; the ratio of the centers when the method gives no effect), in a diverging
palette centred on no change (blue faster, red slower), cells without a ratio grey. Cells
the comparison flagged FAST or SLOW carry a dot, so that the colour (size of the change)
and the verdict (its evidence) are both read. The data is a frozen :class:`HeatmapChart`,
drawn separately.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...compare.model import Row, Status
from .labels import drawn_label
from .style import FigureFactory, figure_factory, foreground_color, plot_style, require_matplotlib

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ...compare.many import MatrixRow, MultiComparison

__all__ = ["HeatmapChart", "cell_log_ratio", "heatmap_chart", "heatmap_figure", "state_label"]

_CHANGES = (Status.FAST, Status.SLOW)
#: Beyond this many states the rows are not labelled (the labels would overlap).
MAX_ROW_LABELS = 80
#: The colour scale ends at least this far from 0 (log2: a 10 % change), so that noise
#: does not fill the palette.
_MIN_SCALE = math.log2(1.10)


@dataclass(frozen=True, slots=True)
class HeatmapChart:
    """``values[i][j]``: log2 ratio of state ``rows[i]`` for candidate ``columns[j]``
    (``None``: no ratio); ``flags[i][j]``: the cell is FAST or SLOW."""

    baseline: str
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    values: tuple[tuple[float | None, ...], ...]
    flags: tuple[tuple[bool, ...], ...]

    @property
    def scale(self) -> float:
        """The colour scale's end: the largest absolute log ratio, at least 10 %."""
        found = [abs(v) for row in self.values for v in row if v is not None]
        return max([_MIN_SCALE, *found])


def cell_log_ratio(row: Row | None) -> float | None:
    """log2 of the cell's candidate/baseline ratio (module docstring), or ``None``."""
    if row is None or row.ref is None or row.cmp is None:
        return None
    effect = row.verdict.judged_effect
    ratio = effect.ratio if effect is not None else None
    if ratio is None:
        ref, cmp = row.ref.center, row.cmp.center
        if ref is None or cmp is None or ref <= 0 or cmp <= 0:
            return None
        ratio = cmp / ref
    if not (math.isfinite(ratio) and ratio > 0):
        return None
    return math.log2(ratio)


def state_label(line: MatrixRow, several_inputs: bool) -> str:
    """``benchmark [device] key`` (and the baseline input when there are several)."""
    device = "" if line.state.device is None else f" [{line.state.device}]"
    key = f" {line.state.key}" if line.state.key else ""
    label = f"{line.state.benchmark}{device}{key}"
    if line.state.occurrence:
        label += f" #{line.state.occurrence + 1}"
    return f"{line.state.input}: {label}" if several_inputs else label


def heatmap_chart(many: MultiComparison) -> HeatmapChart:
    """The data of the heat map, in the matrix's row order."""
    lines = many.matrix()
    several = len({line.state.input for line in lines}) > 1
    return HeatmapChart(
        baseline=many.baseline,
        rows=tuple(state_label(line, several) for line in lines),
        columns=many.names,
        values=tuple(tuple(cell_log_ratio(cell) for cell in line.cells) for line in lines),
        flags=tuple(
            tuple(cell is not None and cell.status in _CHANGES for cell in line.cells)
            for line in lines
        ),
    )


def _percent(log_ratio: float) -> str:
    return f"{(2.0**log_ratio - 1.0) * 100:+.0f}%"


def heatmap_figure(
    many: MultiComparison | HeatmapChart,
    *,
    dark: bool = False,
    figure: FigureFactory | None = None,
) -> Figure:
    """The heat map of ``many`` (or of a chart built with :func:`heatmap_chart`)."""
    require_matplotlib()
    import numpy as np
    from matplotlib import colormaps, ticker

    chart = many if isinstance(many, HeatmapChart) else heatmap_chart(many)
    count = len(chart.rows)
    labelled = 0 < count <= MAX_ROW_LABELS
    # Names are untrusted text: control characters drawn as their escapes (no font has them).
    rows = [drawn_label(label) for label in chart.rows] if labelled else []
    longest = max((len(label) for label in rows), default=0)
    width = 3.5 + 1.1 * max(len(chart.columns), 1) + min(0.07 * longest, 7.0)
    height = 2.5 + (0.22 * count if labelled else min(0.02 * count, 8.0))
    grid = np.array(
        [[np.nan if v is None else v for v in row] for row in chart.values], dtype=float
    ).reshape(count, len(chart.columns))
    with plot_style(dark):
        fig = figure_factory(figure)(figsize=(width, min(height, 40.0)))
        fig.set_layout_engine("constrained")
        ax = fig.add_subplot()
        scale = chart.scale
        image = ax.imshow(
            np.ma.masked_invalid(grid),
            aspect="auto",
            # Cells without a ratio in grey, never in the white of "no change".
            cmap=colormaps["RdBu_r"].with_extremes(bad="#a0a0a0"),
            vmin=-scale,
            vmax=scale,
            interpolation="nearest",
        )
        marks = [(j, i) for i, row in enumerate(chart.flags) for j, flag in enumerate(row) if flag]
        if marks:
            ax.scatter(
                [j for j, _ in marks],
                [i for _, i in marks],
                s=12 if labelled else 3,
                c=foreground_color(dark),
                marker="o",
                linewidths=0,
            )
        columns = [drawn_label(name) for name in chart.columns]
        ax.set_xticks(range(len(columns)), columns, rotation=30, ha="right")
        if labelled:
            ax.set_yticks(range(count), rows, fontsize=7.5)
        else:
            ax.set_ylabel(f"{count} states (matrix order)")
            ax.yaxis.set_major_locator(ticker.MaxNLocator(integer=True))
        ax.set_title(
            f"change against {drawn_label(chart.baseline)} (log scale; dots: FAST or SLOW)",
            fontsize=10,
        )
        bar = fig.colorbar(image, ax=ax, shrink=0.8)
        bar.ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, pos: _percent(v)))
        bar.set_label("candidate / baseline")
    return fig
