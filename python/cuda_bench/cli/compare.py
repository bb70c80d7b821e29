"""``nvbench_compare``: compare a reference and a compare run of NVBench benchmarks.

The program is parse → :func:`cuda.bench.compare.compare` → render → exit status; every
step is a library call a script can make itself. Checks that need no data (options,
config, filters, output paths) run first and the engine, numpy and the renderers are
imported only after them, so ``--help`` and usage errors return at once.

Exit status: 0 when the comparison completed and no ``--fail-on`` condition holds, 1 when
one holds, 2 for usage or input errors (one line on stderr; no output file is touched).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..compare.thresholds import Thresholds
from ._common import (
    EXIT_OK,
    UsageError,
    print_warning,
    prog_name,
    run,
    write_stdout,
)
from ._compare_many import is_many, run_many
from ._compare_outputs import STDOUT as _STDOUT
from ._compare_outputs import (
    check_output_paths,
    exit_status,
    fail_on_conditions,
    nothing_compared,
    render_texts,
    requested_outputs,
)
from ._compare_parser import PROG, add_fail_on_argument, build_parser, thresholds_from_args

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..compare.exit_policy import FailOn
    from ..compare.methods import Method
    from ..compare.model import Comparison

    #: Turns a finished comparison into the exit status: (comparison, --fail-on, prog).
    StatusRule = Callable[[Comparison, tuple[FailOn, ...], str], int]

__all__ = ["add_fail_on_argument", "build_parser", "console_main", "main"]


# ---------------------------------------------------------------------------------------
# Steps
# ---------------------------------------------------------------------------------------


def _main(
    argv: Sequence[str] | None,
    status: StatusRule = exit_status,
    prog: str | None = None,
    method: Method | None = None,
) -> int:
    """The comparison; ``status`` turns it into the exit status (``nvbench-compare-legacy``
    counts failures its own way); ``prog`` names the command in messages; ``method``, when
    given, decides the rows of a two-input comparison in place of ``--method``
    (``nvbench-compare-legacy``: NVIDIA's legacy rule, which is no ``--method`` choice)."""
    prog = prog or prog_name(PROG)
    args = build_parser(prog).parse_intermixed_args(argv)
    if method is not None and args.method is not None:
        raise UsageError(
            f"{prog} decides by {method.description}; drop --method {args.method} "
            f"(nvbench_compare --method {args.method} shows that method's verdicts)"
        )
    from ._compare_plots import check_default_figures, check_plot_arguments, make_plots

    check_plot_arguments(args)
    if args.heatmap is not None:
        from ._compare_many_plots import check_heatmap_argument

        check_heatmap_argument(args)

    from .._io import write_text
    from ..compare.config import dump_config

    preset, thresholds = thresholds_from_args(args)
    if args.dump_config:
        write_text(_STDOUT, dump_config(preset, thresholds))
        return EXIT_OK

    from ..compare.choices import DEFAULT_METHOD
    from ..compare.filters import FilterPlan, parse_device_selection

    plan = FilterPlan.from_args(args.filters)
    if args.paired:
        from ._compare_paired import run_paired

        return run_paired(
            args,
            prog,
            preset=preset,
            thresholds=thresholds,
            filters=plan,
            write_stdout=write_stdout,
        )
    variants = args.col is not None or args.baseline is not None
    if variants or is_many(args):
        for warning in _tolerance_warnings(args, args.method or DEFAULT_METHOD, thresholds):
            print_warning(prog, warning)
        if variants:
            from ._compare_variants import run_variants as flow
        else:
            flow = run_many
        return flow(
            args,
            prog,
            preset=preset,
            thresholds=thresholds,
            filters=plan,
            write_stdout=write_stdout,
        )
    ref_devices = parse_device_selection(args.reference_devices, "--reference-devices")
    cmp_devices = parse_device_selection(args.compare_devices, "--compare-devices")
    if args.heatmap is not None:
        raise UsageError("--heatmap draws several candidates (BASE CAND1 CAND2 ..., or --col)")
    ref_input, cmp_input = _inputs(args, sys.argv[1:] if argv is None else argv)
    outputs = requested_outputs(args)
    from ._input_guard import check_outputs_against_inputs, print_read_once

    reports = [(output.option, output.path) for output in outputs]
    check_outputs_against_inputs(
        [*reports, ("--plot-output", args.plot_output)],
        [*args.ref_runs, *args.cmp_runs, args.ref, args.cmp, args.calibration, args.config],
        [("--plot-along-output", args.plot_along_output)],
    )
    # After the input check: a report over a (read-only) input is named as that.
    check_output_paths(reports, args)
    check_default_figures(args)
    fail_on = fail_on_conditions(args)

    from ..compare.api import compare

    chosen: str | Method = method if method is not None else args.method or DEFAULT_METHOD
    chosen_name = chosen if isinstance(chosen, str) else chosen.name
    for warning in _tolerance_warnings(args, chosen_name, thresholds):
        print_warning(prog, warning)
    comparison = compare(
        ref_input,
        cmp_input,
        calibration=args.calibration,
        method=chosen,
        preset=preset,
        thresholds=thresholds,
        filters=plan,
        ref_devices=ref_devices,
        cmp_devices=cmp_devices,
        ignore_devices=args.ignore_devices,
        jobs=args.jobs,
    )
    print_read_once(prog, comparison.read_once)
    for warning in comparison.warnings:
        print_warning(prog, warning)
    empty = nothing_compared(comparison)
    if empty is not None:
        raise UsageError(empty)

    for target, text in render_texts(comparison, args, outputs, fail_on):
        if target == _STDOUT:
            write_stdout(text)
        else:
            write_text(target, text)
    make_plots(args, comparison, prog)
    return status(comparison, fail_on, prog)


def _tolerance_warnings(args: argparse.Namespace, method: str, thresholds: Thresholds) -> list[str]:
    """Tolerance options that do not do what they say: set for a method that ignores them,
    or a cap below the tolerance (the cap is then the tolerance)."""
    given = [
        option
        for option, value in (
            ("--tolerance", args.tolerance),
            ("--max-tolerance", args.max_tolerance),
        )
        if value is not None
    ]
    if given and method != "ci":
        verb = "sets" if len(given) == 1 else "set"
        return [f"{' and '.join(given)} {verb} the ci method's tolerance; '{method}' ignores it"]
    if method == "ci" and thresholds.ci_max_tolerance < thresholds.ci_tolerance:
        return [
            f"the cap [ci] max_tolerance ±{thresholds.ci_max_tolerance:.2%} is below the "
            f"tolerance ±{thresholds.ci_tolerance:.2%}; the tolerance is used as the cap"
        ]
    return []


def _input_taken_by_option(args: argparse.Namespace, argv: Sequence[str]) -> str:
    """`` (--markdown took 'ref.json' ...)`` where a report option's file name is a result
    file (``--markdown ref.json cmp.json``: the option takes the word after it; written
    ``--markdown=ref.json``, the file was named on purpose, and the hint says only that it
    holds results), else ``""``."""
    from ._input_guard import holds_result

    for option in ("--json", "--csv", "--markdown", "--html"):
        path = getattr(args, option[2:], None)
        if isinstance(path, str) and path != "-" and holds_result(path):
            if f"{option}={path}" in argv:
                return f" ({option}= names '{path}', a file of results, as the report to write)"
            return (
                f" ({option} took '{path}' as its file name: an option that takes a value "
                "takes the word after it)"
            )
    return ""


def _inputs(
    args: argparse.Namespace, argv: Sequence[str]
) -> tuple[str | list[str], str | list[str]]:
    """``(REF, CMP)`` paths, or lists of runs from ``--ref``/``--cmp``."""
    if args.ref_runs or args.cmp_runs:
        if args.ref is not None or args.cmp is not None:
            raise UsageError("give the inputs either as REF CMP or with --ref/--cmp, not both")
        if not (args.ref_runs and args.cmp_runs):
            missing = "--cmp" if args.ref_runs else "--ref"
            raise UsageError(f"--ref and --cmp go together; {missing} is missing")
        return list(args.ref_runs), list(args.cmp_runs)
    if args.ref is None or args.cmp is None:
        given = sum(path is not None for path in (args.ref, args.cmp))
        hint = (
            _input_taken_by_option(args, argv)
            or " (one input: --col AXIS compares the values of an axis, or the devices with "
            "--col Device, within it)"
            if given == 1
            else ""
        )
        raise UsageError(
            f"expected two inputs, REF and CMP (files or directories), got {given}{hint}; "
            "see --help"
        )
    for token in (str(args.ref), str(args.cmp)):
        # Named as for several candidates (base=ref.json new=cmp.json): "does not exist"
        # said nothing of why a file that is there was not found.
        name, _, path = token.partition("=")
        named = name and path and "/" not in name and os.sep not in name
        if named and not os.path.exists(token) and os.path.exists(path):
            raise UsageError(
                f"'{token}': NAME=PATH names the inputs of several candidates (BASE CAND1 "
                "CAND2 ...); give the two inputs of a pair as paths, REF CMP"
            )
    return str(args.ref), str(args.cmp)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``nvbench_compare``; returns the exit status (0 ok, 1 --fail-on, 2 error).

    ``nvbench_compare calibrate ...`` runs the A/A calibration (:mod:`.calibrate`),
    ``nvbench_compare ab ...`` the paired A/B runner (:mod:`.ab`).
    """
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments and arguments[0] == "calibrate":
        from .calibrate import main as calibrate_main

        return calibrate_main(arguments[1:])
    if arguments and arguments[0] == "ab":
        from .ab import main as ab_main

        return ab_main(arguments[1:])
    return run(_main, argv, prog_name(PROG))


def console_main() -> int:
    """The ``nvbench_compare`` program itself (console script, ``python -m
    cuda.bench.compare``): :func:`main` in a process tuned for one run that ends it
    (:func:`._process.tuned_process`). Callers in their own process call :func:`main`."""
    from ._process import tuned_process

    with tuned_process():
        return main()


if __name__ == "__main__":
    sys.exit(console_main())
