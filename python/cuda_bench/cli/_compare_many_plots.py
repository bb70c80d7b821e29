"""The plots of a comparison of several candidates (or of ``--col`` variants):
``--plot-along AXIS`` (one line per contender with its band,
:mod:`cuda.bench.report.plots.along_many`) and ``--heatmap PATH`` (log ratios, states x
candidates, :mod:`cuda.bench.report.plots.heatmap`). Windows or files as for the pairwise
plots (:mod:`._plotting`).
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from ._common import UsageError
from ._compare_outputs import STDOUT

if TYPE_CHECKING:
    from ..compare.many import MultiComparison

__all__ = ["check_heatmap_argument", "check_many_default_figures", "make_many_plots"]


def check_heatmap_argument(args: argparse.Namespace) -> None:
    """``--heatmap PATH``: matplotlib present, a usable image path that no report writes;
    checked before any comparison."""
    path = args.heatmap
    if path is None:
        return
    from .._deps import require

    require("matplotlib", extra="plot", purpose="--heatmap")
    from ._plotting import check_image_path

    try:
        check_image_path("--heatmap", path)
    except ValueError as error:
        raise UsageError(str(error)) from None
    taken = {
        os.path.realpath(other): option
        for option, other in (
            ("--json", args.json),
            ("--csv", args.csv),
            ("--markdown", args.markdown),
            ("--html", args.html),
            ("--plot-output", args.plot_output),
        )
        if other and other != STDOUT
    }
    if os.path.realpath(path) in taken:
        raise UsageError(f"{taken[os.path.realpath(path)]} and --heatmap both write '{path}'")


def _any_output(args: argparse.Namespace) -> bool:
    """Whether :func:`make_many_plots`' figures all go to files (:meth:`FigureSink.choose`)."""
    return args.plot_along_output is not None or args.heatmap is not None


def check_many_default_figures(args: argparse.Namespace) -> None:
    """Before any comparison: the default name :func:`make_many_plots` would write
    ``--plot-along`` figures without an output path to, refused inside an archive
    (``--heatmap`` always has its path)."""
    from ._compare_plots import along_default_figure

    defaults = along_default_figure(args)
    if defaults:
        from ._plotting import refuse_default_figures

        refuse_default_figures(defaults, any_output=_any_output(args))


def make_many_plots(args: argparse.Namespace, many: MultiComparison, prog: str) -> None:
    """Draw ``--plot-along`` and ``--heatmap`` for ``many`` and write or show them."""
    if args.plot_along is None and args.heatmap is None:
        return
    from ..report.plots.along_many import many_along_figures
    from ..report.plots.heatmap import heatmap_figure
    from ._compare_plots import emit_along
    from ._plotting import FigureSink

    sink = FigureSink.choose(prog, any_output=_any_output(args))
    if args.plot_along is not None:
        along, notes = many_along_figures(
            many, args.plot_along, dark=args.dark, figure=sink.factory
        )
        sink.notes(notes)
        emit_along(sink, along, args.plot_along_output)
    if args.heatmap is not None:
        figure = heatmap_figure(many, dark=args.dark, figure=sink.factory)
        sink.emit(figure, args.heatmap, args.heatmap, "--heatmap figure")
    sink.finish()
