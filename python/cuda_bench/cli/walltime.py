"""``nvbench-walltime``: where the benchmark wall time of NVBench result files went."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .._io import write_text
from ..report.walltime import render_walltime, walltime_report
from ._common import (
    FOLDER_INPUTS_HELP,
    ArgumentParser,
    UsageError,
    add_version_argument,
    print_warning,
    prog_name,
    run,
    writing_output,
)

__all__ = ["build_parser", "main"]


def build_parser(prog: str | None = None) -> ArgumentParser:
    """The command-line parser of ``nvbench-walltime``."""
    parser = ArgumentParser(
        prog=prog,
        allow_abbrev=False,
        description=(
            "Report where the measurement wall time of NVBench runs went: per file, "
            "benchmark, configuration, device and axis value."
        ),
        epilog="Exit status: 0 when the report was written, 2 for usage or input errors (no "
        "input, a file that cannot be read, a run given twice, an output that cannot be "
        "written).",
    )
    parser.add_argument(
        "inputs",
        nargs="*",
        metavar="FILE_OR_DIR",
        help=f"NVBench JSON result files, {FOLDER_INPUTS_HELP}",
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE instead of standard output"
    )
    add_version_argument(parser)
    return parser


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser(prog_name("nvbench-walltime"))
    args = parser.parse_args(argv)
    if not args.inputs:
        raise UsageError("no input files or directories given")
    from ._input_guard import result_files_read_once

    # A run given twice would be counted twice: refused, as history gate and baseline
    # check refuse it.
    files = result_files_read_once(prog_name("nvbench-walltime"), args.inputs, args.output)
    report = walltime_report(files)
    for problem in report.problems:
        print_warning(prog_name("nvbench-walltime"), problem)
    with writing_output("--output", args.output):
        write_text(args.output or "-", render_walltime(report))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``nvbench-walltime``; returns the exit status (0 ok, 2 bad usage or input)."""
    return run(_main, argv, prog_name("nvbench-walltime"))


if __name__ == "__main__":
    sys.exit(main())
