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
import contextlib
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from .._untrusted import visible
from ..compare.thresholds import PRESET_NAMES, Thresholds
from ._common import (
    EXIT_OK,
    ArgumentParser,
    UsageError,
    add_side_files_argument,
    add_version_argument,
    non_negative_int,
    percentage,
    positive_int,
    prog_name,
    run,
    tolerance_percentage,
)
from ._compare_many import add_many_arguments, is_many, run_many
from ._compare_outputs import STDOUT as _STDOUT
from ._compare_outputs import (
    add_markdown_limit_argument,
    add_plot_arguments,
    add_table_arguments,
    check_output_paths,
    exit_status,
    fail_on_conditions,
    method_help,
    nothing_compared,
    render_texts,
    requested_outputs,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..compare.exit_policy import FailOn
    from ..compare.model import Comparison

    #: Turns a finished comparison into the exit status: (comparison, --fail-on, prog).
    StatusRule = Callable[[Comparison, tuple[FailOn, ...], str], int]

__all__ = ["add_fail_on_argument", "build_parser", "console_main", "main"]

PROG: Final = "nvbench_compare"

#: ``--display`` choices; the same as :data:`cuda.bench.report.tables.DISPLAY_NAMES`, kept
#: here as text because that module imports the result reader (numpy).
DISPLAY_CHOICES: Final = ("intervals", "simple", "explain", "legacy")
COLOR_CHOICES: Final = ("auto", "always", "never")
#: ``--fail-on`` conditions (:data:`cuda.bench.compare.exit_policy.FAIL_ON_NAMES`), as text
#: so that ``--help`` does not load the comparison model.
FAIL_ON_CHOICES: Final = ("slow", "fast", "ambiguous", "unknown", "missing")
#: ``--html-plots`` default (:data:`cuda.bench.report.html.DEFAULT_PLOT_LIMIT`, kept here
#: so that ``--help`` does not load the renderer).
HTML_PLOTS: Final = 200

_FILTERS_DEST = "filters"


def _method(text: str) -> str:
    """A registered method name. Checked here rather than with ``choices`` because argparse
    expands choices into every ``--help``, and the registry imports the engine (numpy)."""
    from ..compare.errors import ConfigError
    from ..compare.methods import get_method

    try:
        return get_method(text).name
    except ConfigError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _jobs(text: str) -> int | None:
    """``auto`` (``None``: one process per CPU) or a process count of at least 1."""
    if text == "auto":
        return None
    try:
        return positive_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected a positive integer or 'auto', got {text!r}"
        ) from None


def add_fail_on_argument(group: argparse._ActionsContainer, missing: str = "") -> None:
    """``--fail-on CONDITIONS`` (repeatable; ``missing`` says what counts as missing)."""
    group.add_argument(
        "--fail-on",
        metavar="CONDITIONS",
        type=_conditions,
        action="append",
        default=[],
        help=(
            f"exit with status 1 when any row matches a condition: a comma list of "
            f"{', '.join(FAIL_ON_CHOICES)}{missing}; repeatable; default: never fail"
        ),
    )


def _conditions(text: str) -> tuple[FailOn, ...]:
    from ..compare.exit_policy import parse_fail_on

    try:
        return parse_fail_on(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("--fail-on: ")) from None


def build_parser(prog: str | None = None) -> ArgumentParser:
    """The command-line parser of ``nvbench_compare``."""
    from ..compare.filters import add_filter_arguments

    parser = ArgumentParser(
        prog=prog,
        allow_abbrev=False,
        description=(
            "Compare a reference run with a compare run of NVBench benchmarks (JSON files, or "
            "directories of them paired by file name) and classify every state: SAME, FAST, "
            "SLOW, AMBG (not enough evidence), ???? (unusable input), ADDED or REMOVED. "
            "Three or more inputs (BASE CAND1 CAND2 ...) compare each candidate with the "
            "baseline in one matrix; --col AXIS compares the values of one axis inside a run."
        ),
        epilog=(
            "Exit status: 0 when the comparison completed and no --fail-on condition holds, "
            "1 when one holds, 2 for usage or input errors. A/A calibration from repeated "
            "runs of one build: %(prog)s calibrate RUN RUN [RUN ...]; run two builds in "
            "interleaved rounds and compare them paired: %(prog)s ab REF_EXE CMP_EXE (see "
            "their --help)."
        ),
    )
    parser.add_argument("ref", nargs="?", metavar="REF", help="reference JSON file or directory")
    parser.add_argument("cmp", nargs="?", metavar="CMP", help="compare JSON file or directory")
    add_version_argument(parser)
    add_side_files_argument(parser)

    runs = parser.add_argument_group(
        "several runs per side (instead of REF CMP; methods that resample runs, e.g. ci)",
        "Run both builds alternately (A B A B ...): drift then hits both sides alike and "
        "widens the interval instead of faking a change (docs/multi-run.md).",
    )
    runs.add_argument(
        "--ref",
        dest="ref_runs",
        metavar="PATH",
        action="append",
        default=[],
        help="a reference run (JSON file), or a directory whose .json files are runs; repeat",
    )
    runs.add_argument(
        "--cmp",
        dest="cmp_runs",
        metavar="PATH",
        action="append",
        default=[],
        help="a compare run (JSON file), or a directory whose .json files are runs; repeat",
    )
    runs.add_argument(
        "--paired",
        action="store_true",
        help=(
            "paired A/B rounds: --ref/--cmp runs paired by position (round k is the k-th "
            "of each), or REF a directory written by '%(prog)s ab'; decides on the "
            "per-round changes (docs/multi-run.md)"
        ),
    )

    decision = parser.add_argument_group("decision")
    decision.add_argument(
        "--method",
        metavar="NAME",
        type=_method,
        help=method_help(),
    )
    decision.add_argument(
        "--preset",
        choices=PRESET_NAMES,
        help="threshold preset (default: the config's [preset] name, else 'default')",
    )
    decision.add_argument(
        "--config", metavar="FILE.toml", help="threshold config (TOML, version = 1)"
    )
    decision.add_argument(
        "--tolerance",
        metavar="PERCENT",
        type=tolerance_percentage,
        help=(
            "ci: changes within ±PERCENT %% are SAME, beyond it FAST/SLOW (sets [ci] "
            "tolerance; default: the preset's, 1)"
        ),
    )
    decision.add_argument(
        "--max-tolerance",
        metavar="PERCENT",
        type=tolerance_percentage,
        help=(
            "ci: the widest tolerance a --calibration may give a state; a state whose "
            "run-to-run noise needs more is AMBG too_noisy_to_judge (sets [ci] "
            "max_tolerance; default: the preset's, 5)"
        ),
    )
    decision.add_argument(
        "--dump-config",
        action="store_true",
        help="print the effective threshold config as TOML and exit (needs no inputs)",
    )
    decision.add_argument(
        "--calibration",
        metavar="FILE",
        help=(
            "A/A calibration file (written by '%(prog)s calibrate'): widens the ci "
            "tolerance of each state it lists to that state's run-to-run noise"
        ),
    )

    decision.add_argument(
        "-j",
        "--jobs",
        metavar="N",
        type=_jobs,
        default=None,
        help=(
            "compare in up to N processes (default 'auto': one per CPU, at most 4; Linux "
            "only), only where it pays: large files split by benchmark, many rows with side "
            "files by row; the results are those of one process"
        ),
    )

    display = parser.add_argument_group("display")
    display.add_argument(
        "--display",
        choices=DISPLAY_CHOICES,
        default=DISPLAY_CHOICES[0],
        help=(
            "table layout: intervals (center with [-a, +b] interval), simple, explain "
            "(intervals, spread, reason) or legacy (means and relative stdevs); "
            "default: %(default)s"
        ),
    )
    display.add_argument(
        "--threshold-diff",
        metavar="PERCENT",
        type=percentage,
        default=0.0,
        help=(
            "hide rows whose center changed by less than PERCENT %% (display only: counts, "
            "reports and --fail-on see every row; ???? rows always show)"
        ),
    )
    display.add_argument(
        "--color",
        choices=COLOR_CHOICES,
        default="auto",
        help=(
            "ANSI colour for the status column: auto (a terminal without NO_COLOR), always, "
            "never; without colour statuses get emoji prefixes (default: %(default)s)"
        ),
    )
    display.add_argument(
        "--no-color",
        dest="color",
        action="store_const",
        const="never",
        help="same as --color never",
    )
    add_table_arguments(display)

    selection = parser.add_argument_group("selection")
    add_filter_arguments(selection, _FILTERS_DEST, verb="compare")
    selection.add_argument(
        "--reference-devices",
        metavar="IDS",
        default="all",
        help="reference device ids: all, an id, or a comma list (paired by position)",
    )
    selection.add_argument(
        "--compare-devices",
        metavar="IDS",
        default="all",
        help="compare device ids: all, an id, or a comma list (paired by position)",
    )
    selection.add_argument(
        "--ignore-devices",
        action="store_true",
        help="compare even when the device sections differ (a warning lists the differences)",
    )

    outputs = parser.add_argument_group("reports and exit status")
    add_fail_on_argument(outputs, " (missing: ADDED/REMOVED rows or unpaired files)")
    outputs.add_argument(
        "--json", metavar="PATH", help="write the JSON report to PATH ('-': standard output)"
    )
    outputs.add_argument(
        "--csv", metavar="PATH", help="write the CSV report to PATH ('-': standard output)"
    )
    outputs.add_argument(
        "--markdown",
        metavar="PATH",
        help="write a PR-comment markdown report to PATH ('-': standard output)",
    )
    add_markdown_limit_argument(outputs)
    outputs.add_argument(
        "--html",
        metavar="PATH",
        help="write a self-contained HTML report (sortable, filterable, with plots) to PATH "
        "('-': standard output)",
    )
    outputs.add_argument(
        "--html-plots",
        metavar="N",
        type=non_negative_int,
        default=HTML_PLOTS,
        help="rows of the HTML report with distribution plots, most changed first "
        "(default: %(default)s)",
    )
    outputs.add_argument(
        "--bulk-debug-python",
        metavar="DEST",
        help=(
            "write Python code listing the displayed rows with their side files (bulk_rows, "
            "load_bulk_data) to DEST; 'stdout' or '-' appends it to the printed output"
        ),
    )
    add_plot_arguments(parser)
    add_many_arguments(parser)
    _add_variant_arguments(parser)
    parser.set_defaults(**{_FILTERS_DEST: []})
    return parser


def _add_variant_arguments(parser: argparse.ArgumentParser) -> None:
    """``--col`` and ``--baseline`` (the flow is :mod:`._compare_variants`, imported when
    they are given)."""
    group = parser.add_argument_group(
        "variants within one run (REF --col AXIS, or --ref RUN ... --col AXIS)",
        "Compare the states of one input that differ only in AXIS with the state whose AXIS "
        "has the baseline value: one column per other value, named AXIS=value.",
    )
    group.add_argument(
        "--col",
        metavar="AXIS",
        help="the axis whose values are compared (Device: the devices of the file)",
    )
    parser.add_argument(
        "--heatmap",
        metavar="PATH",
        help=(
            "several candidates or --col: write a heat map of the changes (log ratios, "
            "states x candidates; FAST/SLOW cells dotted) to PATH (png, svg, ...; needs "
            "matplotlib)"
        ),
    )
    group.add_argument(
        "--baseline",
        metavar="VALUE",
        help=(
            "the value the others are compared with, as --axis takes it or state names show "
            "it (F32, 2^20, 1048576; a device id); default: the axis's first value"
        ),
    )


# ---------------------------------------------------------------------------------------
# Steps
# ---------------------------------------------------------------------------------------


def _utf8_stdio() -> None:
    """Emoji and non-ASCII names must never crash a run on a non-UTF-8 console."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None:
            continue
        with contextlib.suppress(AttributeError, OSError, ValueError):
            reconfigure(encoding="utf-8", errors="replace")


def _write_stdout(text: str) -> None:
    from .._io import write_text

    try:
        write_text(_STDOUT, text)
    except BrokenPipeError:
        # The reader left early (``| head``): not a failure of the comparison. Point stdout
        # at /dev/null so the interpreter's final flush does not complain a second time.
        with contextlib.suppress(OSError, ValueError, AttributeError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _main(
    argv: Sequence[str] | None, status: StatusRule = exit_status, prog: str | None = None
) -> int:
    """The comparison; ``status`` turns it into the exit status (``nvbench-compare-legacy``
    counts failures its own way); ``prog`` names the command in messages."""
    _utf8_stdio()
    prog = prog or prog_name(PROG)
    args = build_parser(prog).parse_intermixed_args(argv)
    from ._compare_plots import check_plot_arguments, make_plots

    check_plot_arguments(args)
    if args.heatmap is not None:
        from ._compare_many_plots import check_heatmap_argument

        check_heatmap_argument(args)

    from .._io import write_text
    from ..compare.config import dump_config, resolve_thresholds

    preset, thresholds = resolve_thresholds(args.preset, args.config)
    if args.tolerance is not None:
        thresholds = thresholds.replace(ci_tolerance=args.tolerance)
    if args.max_tolerance is not None:
        thresholds = thresholds.replace(ci_max_tolerance=args.max_tolerance)
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
            write_stdout=_write_stdout,
        )
    variants = args.col is not None or args.baseline is not None
    if variants or is_many(args):
        for warning in _tolerance_warnings(args, args.method or DEFAULT_METHOD, thresholds):
            print(f"{prog}: warning: {visible(warning)}", file=sys.stderr)
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
            write_stdout=_write_stdout,
        )
    ref_devices = parse_device_selection(args.reference_devices, "--reference-devices")
    cmp_devices = parse_device_selection(args.compare_devices, "--compare-devices")
    if args.heatmap is not None:
        raise UsageError("--heatmap draws several candidates (BASE CAND1 CAND2 ..., or --col)")
    ref_input, cmp_input = _inputs(args)
    outputs = requested_outputs(args)
    from ._input_guard import check_outputs_against_inputs

    reports = [(output.option, output.path) for output in outputs]
    check_output_paths(reports, args)
    check_outputs_against_inputs(
        [*reports, ("--plot-output", args.plot_output)],
        [*args.ref_runs, *args.cmp_runs, args.ref, args.cmp, args.calibration, args.config],
        [("--plot-along-output", args.plot_along_output)],
    )
    fail_on = fail_on_conditions(args)

    from ..compare.api import compare

    for warning in _tolerance_warnings(args, args.method or DEFAULT_METHOD, thresholds):
        print(f"{prog}: warning: {visible(warning)}", file=sys.stderr)
    comparison = compare(
        ref_input,
        cmp_input,
        calibration=args.calibration,
        method=args.method or DEFAULT_METHOD,
        preset=preset,
        thresholds=thresholds,
        filters=plan,
        ref_devices=ref_devices,
        cmp_devices=cmp_devices,
        ignore_devices=args.ignore_devices,
        jobs=args.jobs,
    )
    for warning in comparison.warnings:
        print(f"{prog}: warning: {visible(_one_line(warning))}", file=sys.stderr)
    empty = nothing_compared(comparison)
    if empty is not None:
        raise UsageError(empty)

    for target, text in render_texts(comparison, args, outputs, fail_on):
        if target == _STDOUT:
            _write_stdout(text)
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


def _inputs(args: argparse.Namespace) -> tuple[str | list[str], str | list[str]]:
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
            " (one input: --col AXIS compares the values of an axis, or the devices with "
            "--col Device, within it)"
            if given == 1
            else ""
        )
        raise UsageError(
            f"expected two inputs, REF and CMP (files or directories), got {given}{hint}; "
            "see --help"
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
