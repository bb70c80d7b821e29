"""Plots: comparisons and sample distributions as matplotlib figures.

Three kinds, each a pure function from data to :class:`matplotlib.figure.Figure` objects
(nothing is shown, saved or printed by them), one module each:

* :mod:`.summary` — :func:`summary_figures` (``nvbench_compare --plot``): one horizontal bar
  per compared row, the change of the centers, coloured by status, with the effect's
  confidence interval. One figure per input pair.
* :mod:`.along` — :func:`along_figures` (``--plot-along AXIS``): center time against a
  numeric axis on log-log axes, with noise bands. One figure per benchmark and device pair.
* :mod:`.along_many` — :func:`many_along_figures` (``--plot-along AXIS`` of an N-way
  comparison): one line per contender with its band. One figure per benchmark and device.
* :mod:`.heatmap` — :func:`heatmap_figure`: the log ratios of an N-way comparison, states
  x candidates, FAST/SLOW cells marked.
* :mod:`.histogram` — :func:`histogram_figure` (``nvbench-histogram``): the distribution of
  the per-sample times of each state, every input overlaid (ECDF or KDE).

The data each figure is drawn from is a frozen value as well (:class:`SummaryChart`,
:class:`AlongChart`, :class:`StateSamples`), so tests and notebooks can check or reuse it
without looking at pixels. :mod:`.style` holds what the figures share (colours, the style,
time ticks), :mod:`.labels` the text drawn from rows, and :mod:`.output` what surrounds the
figures: atomic image files, output paths and templates, and the choice between a window
and a file.

matplotlib (and numpy) are imported inside the functions that draw, so importing this
package stays cheap; a missing matplotlib raises
:class:`~cuda.bench._deps.MissingDependencyError` with an install hint.
"""

from .along import (
    AlongChart,
    AlongPlot,
    AlongPoint,
    AlongSeries,
    Band,
    along_charts,
    along_figures,
)
from .along_many import (
    ContenderLine,
    ContenderPoint,
    ManyAlongChart,
    ManyAlongPlot,
    ManyAlongSeries,
    many_along_charts,
    many_along_figures,
)
from .heatmap import HeatmapChart, heatmap_chart, heatmap_figure
from .histogram import (
    DEFAULT_MAX_STATES,
    HistogramKind,
    HistogramPlot,
    StateSamples,
    collect_samples,
    ecdf_points,
    gaussian_kde,
    histogram_figure,
    unique_labels,
)
from .output import (
    ALONG_FIELDS,
    DEFAULT_DPI,
    OutputPaths,
    check_template,
    expand_template,
    has_display,
    image_format,
    interactive_backend,
    sanitize_field,
    save_figure,
    use_file_backend,
)
from .style import STATUS_PLOT_COLORS, FigureFactory
from .summary import Bar, SummaryChart, SummaryPlot, summary_charts, summary_figures

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
    "ContenderLine",
    "ContenderPoint",
    "FigureFactory",
    "HeatmapChart",
    "HistogramKind",
    "HistogramPlot",
    "ManyAlongChart",
    "ManyAlongPlot",
    "ManyAlongSeries",
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
    "heatmap_chart",
    "heatmap_figure",
    "histogram_figure",
    "image_format",
    "interactive_backend",
    "many_along_charts",
    "many_along_figures",
    "sanitize_field",
    "save_figure",
    "summary_charts",
    "summary_figures",
    "unique_labels",
    "use_file_backend",
]
