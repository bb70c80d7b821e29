"""The N-way comparison's file outputs on the command line: ``--html`` and ``--output-dir``.

``nvbench_compare BASE C1 C2 ...`` calls :func:`write_many_outputs` after the comparison,
with the matrix renderers it has (file name → renderer) for ``--output-dir``; the option
itself is added by :func:`add_output_dir_argument`. Errors are ``OSError`` (naming the
file) or ``ValueError``, which the program's runner reports in one line with status 2.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..compare.exit_policy import FailOn
    from ..compare.many import MultiComparison
    from ..report.output_dir import MatrixRenderer

__all__ = ["add_output_dir_argument", "write_many_outputs"]


def add_output_dir_argument(group: argparse._ActionsContainer) -> None:
    """``--output-dir DIR`` (created when missing; its parent must exist)."""
    group.add_argument(
        "--output-dir",
        metavar="DIR",
        help="N-way: write the matrix reports, a summary, and per candidate a folder with its "
        "highlights, regressions and improvements (markdown and CSV) and JSON report to DIR",
    )


def write_many_outputs(
    multi: MultiComparison,
    args: argparse.Namespace,
    fail_on: tuple[FailOn, ...],
    matrix_reports: Mapping[str, MatrixRenderer] | None = None,
) -> None:
    """Write ``--html PATH`` (the N-way page, ``--html-plots`` plots) and ``--output-dir``
    (:func:`cuda.bench.report.output_dir.write_output_dir`) when given."""
    options: dict[str, Any] = vars(args)
    html = options.get("html")
    if html is not None:
        from ..report.html import write_html

        write_html(multi, html, plots=options["html_plots"], fail_on=fail_on)
    directory = options.get("output_dir")
    if directory is not None:
        from ..report.output_dir import write_output_dir

        write_output_dir(multi, directory, matrix_reports=matrix_reports, fail_on=fail_on)
