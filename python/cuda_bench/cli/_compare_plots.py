"""``nvbench_compare --plot/--plot-along``: the checks made before comparing and the
drawing after it. The drawing is :mod:`cuda.bench.report.plots`, the choice between
windows and files :mod:`._plotting`; imported only once the command line is parsed.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Final

from ._common import UsageError
from ._compare_outputs import STDOUT as _STDOUT

if TYPE_CHECKING:
    from ..compare.model import Comparison
    from ..report.plots.along import AlongPlot
    from ..report.plots.along_many import ManyAlongPlot
    from ._plotting import FigureSink

__all__ = [
    "along_default_figure",
    "check_default_figures",
    "check_plot_arguments",
    "emit_along",
    "make_plots",
]

#: Where plots without an output path go when they cannot (or must not) open a window.
_PLOT_DEFAULT: Final = "nvbench_compare.png"
_ALONG_DEFAULT: Final = "nvbench_compare_{axis}_{benchmark}_{device}.png"


def check_plot_arguments(args: argparse.Namespace) -> None:
    """Plot options that cannot work, and a missing matplotlib, fail before any comparison."""
    if args.plot_output is not None and not args.plot:
        raise UsageError("--plot-output requires --plot")
    if args.plot_along_output is not None and args.plot_along is None:
        raise UsageError("--plot-along-output requires --plot-along")
    if not args.plot and args.plot_along is None:
        return
    from .._deps import require

    require("matplotlib", extra="plot", purpose="--plot and --plot-along")
    from ._plotting import check_image_path

    reports = {
        os.path.realpath(path): f"--{option}"
        for option in ("json", "csv", "markdown", "html")
        if (path := getattr(args, option, None)) and path != _STDOUT
    }
    for option, path in (
        ("--plot-output", args.plot_output),
        ("--plot-along-output", args.plot_along_output),
    ):
        if path is None:
            continue
        try:
            check_image_path(option, path)
        except ValueError as error:
            raise UsageError(str(error)) from None
        if os.path.realpath(path) in reports:
            raise UsageError(f"{reports[os.path.realpath(path)]} and {option} both write '{path}'")


def _any_output(args: argparse.Namespace) -> bool:
    """Whether :func:`make_plots`' figures all go to files (:meth:`FigureSink.choose`)."""
    return args.plot_output is not None or args.plot_along_output is not None


def along_default_figure(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The ``--plot-along`` figures' default name when they have no output path (for
    :func:`._plotting.refuse_default_figures`)."""
    if args.plot_along is None or args.plot_along_output is not None:
        return []
    return [("--plot-along figure", _ALONG_DEFAULT)]


def check_default_figures(args: argparse.Namespace) -> None:
    """Before any comparison: the default names :func:`make_plots` would write figures
    without an output path to, refused inside an archive."""
    defaults = along_default_figure(args)
    if args.plot and args.plot_output is None:
        defaults.insert(0, ("--plot chart", _PLOT_DEFAULT))
    if defaults:
        from ._plotting import refuse_default_figures

        refuse_default_figures(defaults, any_output=_any_output(args))


def make_plots(args: argparse.Namespace, comparison: Comparison, prog: str) -> None:
    """Draw the requested plots and write or show them (see :mod:`._plotting`)."""
    if not args.plot and args.plot_along is None:
        return
    from ..compare.filters import FilterPlan
    from ..report import plots
    from ._plotting import FigureSink

    plan = FilterPlan.from_args(args.filters)
    sink = FigureSink.choose(prog, any_output=_any_output(args))
    if args.plot:
        summary, notes = plots.summary_figures(
            comparison,
            filters=plan,
            min_change=args.threshold_diff / 100.0,
            dark=args.dark,
            figure=sink.factory,
        )
        sink.notes(notes)
        for bar_chart in summary:
            sink.emit(bar_chart.figure, args.plot_output, _PLOT_DEFAULT, "--plot chart")
    if args.plot_along is not None:
        along, notes = plots.along_figures(
            comparison, args.plot_along, filters=plan, dark=args.dark, figure=sink.factory
        )
        sink.notes(notes)
        emit_along(sink, along, args.plot_along_output)
    sink.finish()


def emit_along(
    sink: FigureSink, along: Iterable[AlongPlot | ManyAlongPlot], template: str | None
) -> None:
    """Write or show ``--plot-along`` figures: to ``--plot-along-output``'s template filled
    with each chart's fields, else to the default name."""
    from ..report import plots

    for along_plot in along:
        fields = along_plot.chart.template_fields
        path = None if template is None else plots.expand_template(template, fields)
        default = plots.expand_template(_ALONG_DEFAULT, fields)
        sink.emit(along_plot.figure, path, default, "--plot-along figure")
