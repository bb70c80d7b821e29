"""``nvbench_compare --paired``: the paired analysis flow, shared with ``nvbench_compare ab``.

Inputs are ``--ref r1 --ref r2 ... --cmp c1 --cmp c2 ...`` (round ``k`` is the ``k``-th of
each; the order each round ran in is unknown) or one directory written by ``nvbench_compare
ab`` (its manifest lists the finished rounds and their order). The comparison is
:func:`cuda.bench.compare.paired_inputs.compare_paired`; reports, ``--fail-on`` and exit
statuses are those of every comparison (:mod:`._compare_outputs`).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .._errors import missing_file_problem
from ._common import UsageError, print_warning
from ._compare_outputs import STDOUT as _STDOUT
from ._compare_outputs import (
    check_output_paths,
    exit_status,
    fail_on_conditions,
    nothing_compared,
    render_texts,
    requested_outputs,
)

if TYPE_CHECKING:
    from ..compare.filters import FilterPlan
    from ..compare.model import Comparison
    from ..compare.thresholds import Thresholds

__all__ = ["check_paired_arguments", "paired_inputs", "run_paired"]


def check_paired_arguments(args: argparse.Namespace, flow: str = "--paired") -> None:
    """Options a paired comparison cannot honour are a usage error (``flow`` names the
    command in the message: ``--paired``, or ``ab``, which checks before its first run)."""
    if args.method not in (None, "paired"):
        raise UsageError(f"{flow} compares with its own method; drop --method {args.method}")
    others = (
        ("col", "--col"),
        ("baseline", "--baseline"),
        ("heatmap", "--heatmap"),
        ("more", "a third input"),
        ("names", "--names"),
        ("gate", "--gate"),
        ("correction", "--correction"),
        ("runs", "--runs"),
        ("output_dir", "--output-dir"),
        # It draws no figure: a chart asked for must not pass silently without a file.
        ("plot", "--plot"),
        ("plot_output", "--plot-output"),
        ("plot_along", "--plot-along"),
        ("plot_along_output", "--plot-along-output"),
    )
    for dest, option in others:
        if getattr(args, dest, None):
            raise UsageError(f"{flow} compares two builds round by round; drop {option}")


def paired_inputs(args: argparse.Namespace) -> tuple[list[str], list[str]] | Path:
    """The runs by round (``--ref``/``--cmp``), or the runner's directory (``REF``)."""
    if args.ref_runs or args.cmp_runs:
        if args.ref is not None or args.cmp is not None:
            raise UsageError("give the inputs either as DIR or with --ref/--cmp, not both")
        if len(args.ref_runs) != len(args.cmp_runs):
            raise UsageError(
                f"--paired pairs runs by position: got {len(args.ref_runs)} --ref and "
                f"{len(args.cmp_runs)} --cmp runs"
            )
        folders = [run for run in [*args.ref_runs, *args.cmp_runs] if os.path.isdir(run)]
        if folders:
            raise UsageError(
                f"--paired --ref/--cmp take one run each, in round order; '{folders[0]}' is a "
                "directory (an ab directory is given alone: --paired DIR)"
            )
        if len(args.ref_runs) < 2:
            # As ab and an ab directory: one round has no spread to judge a change by
            # (every row AMBG paired_too_few_rounds, exit 0, where ab refuses it).
            raise UsageError(
                "--paired needs at least 2 rounds (--ref r1 --ref r2 --cmp c1 --cmp c2); "
                "one pair of runs is a plain comparison: nvbench_compare REF CMP"
            )
        return list(args.ref_runs), list(args.cmp_runs)
    if args.ref is not None and args.cmp is None and not os.path.exists(args.ref):
        raise UsageError(f"--paired {args.ref}: {missing_file_problem(args.ref)}")
    if args.ref is None or args.cmp is not None or not Path(args.ref).is_dir():
        raise UsageError(
            "--paired takes --ref r1 --ref r2 ... --cmp c1 --cmp c2 ... (one pair per round) "
            "or one directory written by 'nvbench_compare ab'"
        )
    return Path(args.ref)


def run_paired(
    args: argparse.Namespace,
    prog: str,
    *,
    preset: str,
    thresholds: Thresholds,
    filters: FilterPlan,
    write_stdout: Callable[[str], None],
    inputs: tuple[list[str], list[str]] | Path | None = None,
    before_report: Callable[[Comparison], None] | None = None,
) -> int:
    """Compare, render and return the exit status (module docstring)."""
    check_paired_arguments(args)
    found = paired_inputs(args) if inputs is None else inputs
    outputs = requested_outputs(args)
    reports = [(output.option, output.path) for output in outputs]
    from ._input_guard import check_outputs_against_inputs

    sources = [str(found)] if isinstance(found, Path) else [*found[0], *found[1]]
    check_outputs_against_inputs(
        [*reports, ("--plot-output", args.plot_output)],
        [*sources, args.calibration, args.config],
        [("--plot-along-output", args.plot_along_output)],
    )
    # After the input check: a report over a (read-only) input is named as that.
    check_output_paths(reports, args)
    fail_on = fail_on_conditions(args)

    from .._io import write_text
    from ..compare.paired_inputs import compare_paired, compare_paired_directory

    notes: list[str] = []
    options = {
        "preset": preset,
        "thresholds": thresholds,
        "filters": filters,
        "calibration": args.calibration,
        "warn_calibration": notes,
        "ref_devices": args.reference_devices,
        "cmp_devices": args.compare_devices,
        "ignore_devices": args.ignore_devices,
        "jobs": args.jobs,
    }
    if isinstance(found, Path):
        comparison, _ = compare_paired_directory(found, **options)
    else:
        comparison = compare_paired(found[0], found[1], **options)
    for warning in [*notes, *comparison.warnings]:
        print_warning(prog, warning)
    empty = nothing_compared(comparison)
    if empty is not None:
        raise UsageError(empty)
    if before_report is not None:
        before_report(comparison)
    for target, text in render_texts(comparison, args, outputs, fail_on):
        if target == _STDOUT:
            write_stdout(text)
        else:
            write_text(target, text)
    return exit_status(comparison, fail_on, prog)
