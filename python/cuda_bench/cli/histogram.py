"""``nvbench-histogram``: the distribution of the per-sample times of NVBench states.

Reads the ``--jsonbin`` side files of one or more result files and draws, per state, every
file's samples overlaid and labelled by file name: empirical CDFs (default) or kernel
densities. Unlike NVIDIA's script, same-named states of different files stay apart (that is
the point of comparing them), ``-b``/``-a`` select states, and the figure can be saved::

    nvbench-histogram ref.json cmp.json -b copy -a T=F32 -o hist.png

Exit status: 0 when the figure was written or shown, 2 for usage or input errors and a
missing matplotlib (one line on stderr).
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
    add_side_files_argument,
    add_version_argument,
    positive_int,
    print_warning,
    prog_name,
    run,
    say,
    writing_output,
)

__all__ = ["build_parser", "main"]

PROG: Final = "nvbench-histogram"
KIND_CHOICES: Final = ("ecdf", "kde")
DEFAULT_OUTPUT: Final = "nvbench_histogram.png"
#: Same value as :data:`cuda.bench.report.plots.DEFAULT_MAX_STATES`, kept as a literal so
#: that ``--help`` does not import the plotting module.
DEFAULT_MAX_STATES: Final = 24
_FILTERS_DEST = "filters"


def build_parser(prog: str | None = None) -> ArgumentParser:
    """The command-line parser of ``nvbench-histogram``."""
    from ..compare.filters import add_filter_arguments

    parser = ArgumentParser(
        prog=prog,
        allow_abbrev=False,
        description=(
            "Plot the distribution of per-sample GPU (or CPU-only) times of NVBench states, "
            "read from the --jsonbin side files: one subplot per state, every input file "
            "overlaid and labelled by its name."
        ),
        epilog="Exit status: 0 on success, 2 for usage or input errors.",
    )
    parser.add_argument(
        "inputs",
        nargs="*",
        metavar="FILE_OR_DIR",
        help=f"NVBench JSON files written with --jsonbin, {FOLDER_INPUTS_HELP}",
    )
    add_version_argument(parser)
    add_side_files_argument(parser)
    parser.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        help=(
            "write the figure to PATH (format from the extension: png, svg, pdf, ...); "
            f"without it a window opens, or {DEFAULT_OUTPUT} is written when there is no display"
        ),
    )
    parser.add_argument(
        "--kind",
        choices=KIND_CHOICES,
        default=KIND_CHOICES[0],
        help=(
            "ecdf: empirical cumulative distribution (every sample, no smoothing); "
            "kde: Gaussian kernel density (default: %(default)s)"
        ),
    )
    parser.add_argument("--log-x", action="store_true", help="time on a logarithmic axis")
    parser.add_argument(
        "--max-states",
        metavar="N",
        type=positive_int,
        default=DEFAULT_MAX_STATES,
        help="draw at most N states, in file order (default: %(default)s)",
    )
    parser.add_argument("--dark", action="store_true", help="black background")
    add_filter_arguments(parser, _FILTERS_DEST, verb="draw")
    parser.set_defaults(**{_FILTERS_DEST: []})
    return parser


def _main(argv: Sequence[str] | None) -> int:
    prog = prog_name(PROG)
    args = build_parser(prog).parse_args(argv)
    if not args.inputs:
        raise UsageError("no input files given; see --help")

    from ..compare.filters import FilterPlan

    plan = FilterPlan.from_args(args.filters)

    from .._deps import require

    # Before any file is read: a missing matplotlib is the first thing to fix.
    require("matplotlib", extra="plot", purpose="nvbench-histogram")
    from ._plotting import FigureSink, check_image_path, refuse_default_figures

    if args.output is not None:
        try:
            check_image_path("--output", args.output)
        except ValueError as error:
            raise UsageError(str(error)) from None

    from ..report import plots
    from ..report.walltime import read_result_file
    from ._input_guard import result_files_read_once

    # A run given twice (the same file, or a copy) would overlay two identical curves.
    files = result_files_read_once(prog, args.inputs, args.output)
    if args.output is None:
        refuse_default_figures([("histogram", DEFAULT_OUTPUT)], any_output=False)
    labels = plots.unique_labels(files)
    # Every value checked, as the other commands check it (invalid NVBench JSON: exit 2).
    results = [(label, read_result_file(path)) for label, path in zip(labels, files, strict=True)]
    problems: list[str] = []
    states, notes = plots.collect_samples(results, filters=plan, problems=problems)
    for problem in problems:
        print_warning(prog, problem)
    sink = FigureSink.choose(prog, any_output=args.output is not None)
    sink.notes(notes)
    if not states and problems:
        raise UsageError(
            "no selected state has usable sample times (the side files named above are not used)"
        )
    if not states:
        raise UsageError(
            "no selected state has sample times; run NVBench with --jsonbin to record them"
        )
    kind = plots.HistogramKind(args.kind)
    title = (
        "Sample times: empirical CDF" if kind is plots.HistogramKind.ECDF else "Sample times: KDE"
    )
    if plan.describe():
        title += f" ({' '.join(plan.describe())})"
    plot = plots.histogram_figure(
        states,
        kind=kind,
        log_x=args.log_x,
        dark=args.dark,
        max_states=args.max_states,
        title=title,
        figure=sink.factory,
    )
    if plot.dropped:
        sink.notes(
            [
                f"drew the first {len(plot.states)} of {len(states)} states; select fewer "
                "with -b/-a or raise --max-states"
            ]
        )
    with writing_output("--output", args.output):
        sink.emit(plot.figure, args.output, DEFAULT_OUTPUT, "histogram")
    if args.output is not None:
        # Said for a named file too (the default one gets its own note), so a script's
        # log shows where every picture went.
        say(f"{prog}: wrote the histogram to {visible(str(args.output))}")
    sink.finish()
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``nvbench-histogram``; returns the exit status (0 ok, 2 bad usage or input)."""
    return run(_main, argv, prog_name(PROG))


if __name__ == "__main__":
    sys.exit(main())
