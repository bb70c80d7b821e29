"""``nvbench-plot-bwutil`` (also ``nvbench_plot_bwutil``): the global-memory bandwidth
utilisation of each NVBench state as a horizontal bar chart.

The entry point compatible with NVIDIA's ``nvbench_plot_bwutil`` script: its options
(``-o/--output``, ``--title``, ``--dark``, ``-a/--axis``, ``-b/--benchmark``) and inputs
(result files and directories), our own rendering. Without ``-o`` a window opens, or
``nvbench_plot_bwutil.png`` is written where there is no display (a note says so); with
no input it prints its help and exits 0, as NVIDIA's does.

Exit status: 0 when the figure was written or shown, 2 for usage or input errors (one line
on stderr; NVIDIA's script stops with a traceback there).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Final

from .._untrusted import visible
from ._common import (
    EXIT_OK,
    FOLDER_INPUTS_HELP,
    ArgumentParser,
    UsageError,
    add_version_argument,
    print_warning,
    prog_name,
    run,
    say,
    writing_output,
)
from ._compat import compat_note

__all__ = ["build_parser", "main"]

PROG: Final = "nvbench-plot-bwutil"
DEFAULT_OUTPUT: Final = "nvbench_plot_bwutil.png"
_FILTERS_DEST = "filters"


def build_parser(prog: str | None = None) -> ArgumentParser:
    """The command-line parser of ``nvbench-plot-bwutil``."""
    import argparse

    from ..compare.filters import add_filter_arguments

    parser = ArgumentParser(
        prog=prog,
        allow_abbrev=False,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            compat_note("nvbench_plot_bwutil", "its own rendering", shared=False)
            + "\n\nPlot the global-memory bandwidth utilisation (summary "
            "nv/cold/bw/global/utilization) of every state of the inputs, one bar per state."
        ),
        epilog="Exit status: 0 on success, 2 for usage or input errors.",
    )
    parser.add_argument(
        "inputs",
        nargs="*",
        metavar="FILE_OR_DIR",
        help=f"NVBench JSON files, {FOLDER_INPUTS_HELP}",
    )
    add_version_argument(parser)
    parser.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        help=(
            "write the figure to PATH (png, svg, pdf, ...); without it a window opens, "
            f"or {DEFAULT_OUTPUT} is written when there is no display"
        ),
    )
    parser.add_argument("--title", help="the figure's title")
    parser.add_argument("--dark", action="store_true", help="black background")
    add_filter_arguments(parser, _FILTERS_DEST, verb="draw")
    parser.set_defaults(**{_FILTERS_DEST: []})
    return parser


def _main(argv: Sequence[str] | None) -> int:
    prog = prog_name(PROG)
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    if not args.inputs:
        parser.print_help()
        return EXIT_OK

    from .._deps import require
    from ..compare.filters import FilterPlan

    plan = FilterPlan.from_args(args.filters)
    require("matplotlib", extra="plot", purpose=PROG)
    from ._plotting import FigureSink, check_image_path, refuse_default_figures

    if args.output is not None:
        try:
            check_image_path("--output", args.output)
        except ValueError as error:
            raise UsageError(str(error)) from None

    from ..report.plots.bwutil import bwutil_bars, bwutil_figure
    from ..report.walltime import read_result_file
    from ._input_guard import result_files_read_once

    # A run given twice (the same file, or a copy) would draw every bar twice; no output
    # over an input, nor inside an nvbench-history archive.
    files = result_files_read_once(prog, args.inputs, args.output)
    if args.output is None:
        refuse_default_figures([("bandwidth plot", DEFAULT_OUTPUT)], any_output=False)
    # Every value checked, as the other commands check it (invalid NVBench JSON: exit 2).
    results = [read_result_file(path) for path in files]
    problems: list[str] = []
    bars = bwutil_bars(results, filters=plan, problems=problems)
    for problem in problems:
        print_warning(prog, problem)
    if not bars:
        raise UsageError(
            "no selected state reports nv/cold/bw/global/utilization (NVBench writes it "
            "for benchmarks that declare their global memory reads and writes)"
        )
    sink = FigureSink.choose(prog, any_output=args.output is not None)
    figure = bwutil_figure(bars, title=args.title, dark=args.dark, figure=sink.factory)
    with writing_output("--output", args.output):
        sink.emit(figure, args.output, DEFAULT_OUTPUT, "bandwidth plot")
    if args.output is not None:
        say(f"{prog}: wrote the bandwidth plot to {visible(str(args.output))}")
    sink.finish()
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``nvbench-plot-bwutil``; returns the exit status (0 ok, 2 bad usage or input)."""
    return run(_main, argv, prog_name(PROG))


if __name__ == "__main__":
    sys.exit(main())
