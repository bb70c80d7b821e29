"""``--output-dir DIR`` of an N-way comparison on the command line.

``nvbench_compare BASE C1 C2 ...`` (and ``--col``) write, besides the usual reports, a
directory with the matrix reports, a summary, the HTML page and per candidate a folder of
its highlights, regressions and improvements
(:func:`cuda.bench.report.output_dir.write_output_dir`). Errors are ``OSError`` (naming
the file) or ``ValueError``, which the program's runner reports in one line with status 2.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

    from ..compare.exit_policy import FailOn
    from ..compare.many import MultiComparison

__all__ = ["check_output_directory", "write_output_directory"]


def check_output_directory(args: argparse.Namespace) -> None:
    """``--output-dir DIR``: a directory, or a name to create in an existing directory;
    checked before anything is compared or written."""
    import os

    from ._common import UsageError

    directory = args.output_dir
    if directory is None:
        return
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise UsageError(f"--output-dir: '{directory}' exists and is not a directory")
    parent = os.path.dirname(os.path.abspath(directory))
    if not os.path.isdir(parent):
        raise UsageError(
            f"--output-dir: the parent of '{directory}' does not exist (it is not created)"
        )


def write_output_directory(
    many: MultiComparison,
    args: argparse.Namespace,
    fail_on: tuple[FailOn, ...],
    gate: tuple[str, ...] | None,
) -> None:
    """Write ``--output-dir`` with the matrix renderers of the command line's reports
    (``--html-plots`` plots in its ``report.html``)."""
    from ..report.matrix import render_matrix_markdown
    from ..report.matrix_records import render_many_csv, render_many_json
    from ..report.output_dir import write_output_dir

    write_output_dir(
        many,
        args.output_dir,
        matrix_reports={
            "matrix.json": lambda m: render_many_json(m, fail_on=fail_on, gate=gate),
            "matrix.csv": lambda m: render_many_csv(m, fail_on=fail_on),
            "matrix.md": lambda m: render_matrix_markdown(
                m, fail_on=fail_on, gate=gate, limit=args.markdown_limit
            ),
        },
        fail_on=fail_on,
        html_plots=args.html_plots,
    )
