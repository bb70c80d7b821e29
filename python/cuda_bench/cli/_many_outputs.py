"""``--output-dir DIR`` of an N-way comparison on the command line.

``nvbench_compare BASE C1 C2 ...`` (and ``--col``) write, besides the usual reports, a
directory with the matrix reports, a summary, the HTML page and per candidate a folder of
its highlights, regressions and improvements
(:func:`cuda.bench.report.output_dir.write_output_dir`). Errors are ``OSError`` (naming
the file) or ``ValueError``, which the program's runner reports in one line with status 2.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import argparse

    from ..compare.exit_policy import FailOn
    from ..compare.many import MultiComparison

__all__ = [
    "MATRIX_REPORTS",
    "check_output_directory",
    "refuse_output_directory_inputs",
    "write_output_directory",
]

#: The matrix reports ``--output-dir`` writes besides its own files.
MATRIX_REPORTS: Final = ("matrix.json", "matrix.csv", "matrix.md")


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
    from .._io import probe_folder

    try:
        # Where its files (or the folder itself) will be made: a failed run leaves none.
        probe_folder(directory if os.path.isdir(directory) else parent, directory)
    except OSError as error:
        raise UsageError(f"--output-dir: {directory}: {error.strerror}") from None


def refuse_output_directory_inputs(
    args: argparse.Namespace, names: Iterable[str], inputs: Iterable[str | None]
) -> None:
    """:class:`UsageError` when a file ``--output-dir`` would write for candidates ``names``
    is one of ``inputs`` (or a side file or a file in a directory among them): refused
    before anything is compared or printed, as ``--json`` and ``--html`` are, since
    replacing it would destroy the evidence."""
    if args.output_dir is None:
        return
    from ..report.output_dir import output_dir_files
    from ._input_guard import check_outputs_against_inputs

    files = output_dir_files(
        args.output_dir, names, MATRIX_REPORTS, html=args.html_plots is not None
    )
    check_outputs_against_inputs([("--output-dir", str(path)) for path in files], inputs)


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
        matrix_reports=dict(
            zip(
                MATRIX_REPORTS,
                (
                    lambda m: render_many_json(m, fail_on=fail_on, gate=gate),
                    lambda m: render_many_csv(m, fail_on=fail_on),
                    lambda m: render_matrix_markdown(
                        m, fail_on=fail_on, gate=gate, limit=args.markdown_limit
                    ),
                ),
                strict=True,
            )
        ),
        fail_on=fail_on,
        html_plots=args.html_plots,
    )
