"""``nvbench-history gate`` and ``nvbench-history baseline check``: their options and steps.

The gate's options, reports and exit status are ``nvbench_compare``'s (the report writers,
``--fail-on`` and the checks of :mod:`._compare_outputs` are reused, not repeated): exit 0
when no ``--fail-on`` condition holds, 1 when one does, 2 for unusable input.
``baseline check`` exits 0 when every state passes, 1 when some fail, 2 for bad input.
Heavy modules are imported after the arguments are parsed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import warnings
from typing import Final

import msgspec

from .._errors import missing_file_problem
from .._special_files import special_file_problem
from ._common import (
    EXIT_OK,
    STDOUT,
    ArgumentParser,
    UsageError,
    directory_path,
    non_negative_int,
    positive_int,
    print_warning,
    say,
    tolerance_percentage,
    writing_output,
)

__all__ = [
    "add_baseline_parser",
    "add_gate_parser",
    "baseline_check",
    "gate",
]

EXIT_FAILED: Final = 1


def add_gate_parser(commands: argparse._SubParsersAction[ArgumentParser]) -> None:
    from ..compare.filters import add_filter_arguments
    from ._compare_outputs import add_markdown_limit_argument, add_table_arguments
    from ._compare_parser import COLOR_CHOICES, DISPLAY_CHOICES, HTML_PLOTS, add_fail_on_argument

    gate = commands.add_parser(
        "gate",
        help="compare a new run with the current level of its series in the archive",
        description=(
            "Compare RUN.json with the current level of each of its series in the archive "
            "(the runs since the series' last change point, so run-to-run drift is measured; "
            "where the series has a candidate change not yet confirmed, the runs before it) "
            "with nvbench_compare's ci method: the same statuses, reasons, reports and exit "
            "status. A state without history is ADDED; one of the latest archived run that "
            "RUN.json lacks is REMOVED; one whose level has fewer than --min-runs runs is "
            "AMBG (history_too_short). One run cannot tell a slow run of an unchanged build "
            "from a regression: gate two runs of the build (RUN1.json RUN2.json) and a state "
            "is FAST, SLOW or SAME only where both say so."
        ),
        epilog="Exit status: 0 when no --fail-on condition holds, 1 when one holds, 2 for "
        "unusable input.",
        allow_abbrev=False,
    )
    gate.add_argument(
        "--archive",
        required=True,
        type=directory_path,
        metavar="DIR",
        help="the archive directory",
    )
    gate.add_argument(
        "run",
        metavar="RUN.json",
        nargs="+",
        help="the NVBench JSON result to gate; several runs of one build are decided "
        "together (FAST, SLOW or SAME only where every run says so, else AMBG "
        "gate_runs_disagree)",
    )
    gate.add_argument(
        "--max-runs",
        type=positive_int,
        default=20,
        metavar="N",
        help="most recent runs of each level used as reference runs, at least --min-runs "
        "(default: %(default)s)",
    )
    gate.add_argument(
        "--min-runs",
        type=positive_int,
        default=3,
        metavar="N",
        help="fewest runs of a level for a verdict; fewer give AMBG (default: %(default)s)",
    )
    gate.add_argument(
        "--tolerance",
        type=tolerance_percentage,
        metavar="PERCENT",
        help="[ci] tolerance: the change of practical size (default: the preset's 1%%)",
    )
    add_filter_arguments(gate, verb="gate")
    gate.set_defaults(filters=[])
    gate.add_argument(
        "--device",
        default="all",
        metavar="IDS",
        help="device ids to keep: 'all' (default) or comma-separated ids",
    )
    display = gate.add_argument_group("display")
    display.add_argument(
        "--display",
        choices=DISPLAY_CHOICES,
        default=DISPLAY_CHOICES[0],
        help="table layout, as nvbench_compare's (default: %(default)s)",
    )
    display.add_argument(
        "--color",
        choices=COLOR_CHOICES,
        default="auto",
        help="ANSI colour for the status column (default: %(default)s)",
    )
    display.add_argument(
        "--no-color", dest="color", action="store_const", const="never", help="--color never"
    )
    add_table_arguments(display)
    outputs = gate.add_argument_group("reports and exit status")
    add_fail_on_argument(outputs, " (missing: states new or gone against the archive)")
    for option, what in (("json", "JSON"), ("csv", "CSV"), ("markdown", "markdown")):
        outputs.add_argument(
            f"--{option}", metavar="PATH", help=f"write the {what} report to PATH ('-': stdout)"
        )
    add_markdown_limit_argument(outputs)
    outputs.add_argument(
        "--html", metavar="PATH", help="write the self-contained HTML report to PATH"
    )
    outputs.add_argument(
        "--html-plots",
        metavar="N",
        type=non_negative_int,
        default=HTML_PLOTS,
        help=argparse.SUPPRESS,
    )
    # What nvbench_compare's renderers read and the gate does not offer.
    gate.set_defaults(threshold_diff=0.0, bulk_debug_python=None, plot_output=None)


def add_baseline_parser(commands: argparse._SubParsersAction[ArgumentParser]) -> None:
    baseline = commands.add_parser(
        "baseline", help="checks of a committed-baseline workflow", allow_abbrev=False
    )
    actions = baseline.add_subparsers(dest="baseline_command", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check",
        help="accept runs as a new baseline only if their medians agree",
        description=(
            "The acceptance rule before a baseline is refreshed: at least three runs of one "
            "build whose per-state medians agree within a relative standard deviation of "
            "--max-rsd. Prints the states that fail."
        ),
        epilog="Exit status: 0 when every state passes, 1 when some fail, 2 for bad input.",
        allow_abbrev=False,
    )
    check.add_argument("runs", nargs="+", metavar="RUN.json", help="NVBench runs of one build")
    check.add_argument(
        "--max-rsd",
        type=tolerance_percentage,
        default=0.03,
        metavar="PERCENT",
        help="largest relative standard deviation of a state's medians (default: 3%%)",
    )


def gate(args: argparse.Namespace, prog: str) -> int:
    from .._io import write_text
    from ..compare.filters import FilterPlan, parse_device_selection
    from ..compare.thresholds import PRESETS
    from ..history._archive_files import ArchiveFileWarning
    from ..history.gate import gate as run_gate
    from ..history.series import ArchiveRowWarning
    from ._compare_outputs import (
        check_output_paths,
        exit_status,
        fail_on_conditions,
        nothing_compared,
        render_texts,
    )
    from ._compare_outputs import requested_outputs as requested
    from ._input_guard import (
        check_outputs_against_inputs,
        refuse_outputs_in_archive,
        refuse_repeated_runs,
    )

    plan = FilterPlan.from_args(args.filters)
    devices = parse_device_selection(args.device, "--device")
    outputs = requested(args)
    reports = [(output.option, output.path) for output in outputs]
    refuse_outputs_in_archive(args.archive, reports)
    check_outputs_against_inputs(reports, list(args.run), [])
    # After the input check: a report over a (read-only) input is named as that.
    check_output_paths(reports, args)
    fail_on = fail_on_conditions(args)
    thresholds = None
    if args.tolerance is not None:
        thresholds = PRESETS["default"].replace(ci_tolerance=args.tolerance)
    if args.max_runs < args.min_runs:
        raise UsageError(
            f"--max-runs {args.max_runs} is below --min-runs {args.min_runs}: the reference "
            "would hold fewer runs than a verdict needs"
        )
    for path in args.run:
        if not os.path.exists(path):
            raise UsageError(f"{path}: {missing_file_problem(path)}")
        # A named pipe, socket or device is worded as every other reader words it, and a
        # pipe handed over (``/dev/stdin``, what ``-`` is told to give) is read as they read it.
        problem = (
            "not a file (an NVBench JSON result is expected)"
            if os.path.isdir(path)
            else special_file_problem(path)
        )
        if problem is not None:
            raise UsageError(f"{path}: {problem}")
    refuse_repeated_runs(args.run, "gate")
    with tempfile.TemporaryDirectory(prefix="nvbench-gate-") as scratch:
        caught: list[warnings.WarningMessage] = []
        try:
            with warnings.catch_warnings(record=True) as caught:
                found = run_gate(
                    args.archive,
                    args.run,
                    max_runs=args.max_runs,
                    min_runs=args.min_runs,
                    filters=plan,
                    devices=devices,
                    thresholds=thresholds,
                    workdir=scratch,
                )
        except BaseException:
            # Shown before the error line they explain ("no readable run file is left").
            for one in caught:
                warnings.showwarning(one.message, one.category, one.filename, one.lineno)
            raise
        # Files and rows of the archive left out are evidence missing from this gate: the
        # reports (JSON, markdown, HTML) say so, not only stderr. Other warnings as before.
        left_out = []
        for one in caught:
            if issubclass(one.category, ArchiveFileWarning | ArchiveRowWarning):
                # As every history command words it (the path says it is the archive's).
                left_out.append(str(one.message))
            else:
                warnings.showwarning(one.message, one.category, one.filename, one.lineno)
        comparison = found.comparison
        if left_out:
            comparison = msgspec.structs.replace(
                comparison, warnings=(*comparison.warnings, *dict.fromkeys(left_out))
            )
        for warning in comparison.warnings:
            print_warning(prog, warning)
        # Not nvbench_compare's error when nothing was compared: a run sharing no state with
        # the archive is a normal gate (ADDED and REMOVED rows, --fail-on missing), and the
        # library refuses a run that measured nothing with a line of its own. But a gate
        # that compared nothing passes --fail-on slow, so it says so.
        if nothing_compared(comparison) is not None:
            print_warning(
                prog,
                "no state of the gated run has history in the archive: nothing was "
                "compared (new states are ADDED, the archive's REMOVED; --fail-on missing "
                "fails on them)",
            )
        texts = render_texts(comparison, args, outputs, fail_on)
    options = {output.path: output.option for output in outputs}
    for target, text in texts:
        if target == STDOUT:
            write_text(target, text)
            continue
        with writing_output(options[target], target):
            write_text(target, text)
    return exit_status(comparison, fail_on, prog)


def baseline_check(args: argparse.Namespace, prog: str) -> int:
    from ..history.baseline import MIN_RUNS, check_baseline
    from ..report.history import baseline_text
    from ._input_guard import refuse_repeated_runs

    if len(args.runs) < MIN_RUNS:
        raise UsageError(
            f"baseline check needs at least {MIN_RUNS} runs of one build, got "
            f"{len(args.runs)}: run the benchmark {MIN_RUNS} times and pass every file"
        )
    refuse_repeated_runs(args.runs, "check")
    found = check_baseline(args.runs, max_rsd=args.max_rsd)
    if not found.states:
        raise UsageError(f"{', '.join(args.runs)}: no state was measured in these runs")
    sys.stdout.write(baseline_text(found))
    if found.failures:
        say(f"{prog}: {len(found.failures)} of {len(found.states)} state(s) fail the rule")
        return EXIT_FAILED
    return EXIT_OK
