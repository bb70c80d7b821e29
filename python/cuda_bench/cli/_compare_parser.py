"""``nvbench_compare``'s argument parser, apart from the command that runs it, so that the
subcommands that reuse its options (``ab``) import it without importing the command
(:mod:`.compare` dispatches to them: one direction of imports)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Final

from ..compare.thresholds import PRESET_NAMES, Thresholds
from ._common import (
    ArgumentParser,
    add_side_files_argument,
    add_version_argument,
    non_negative_int,
    percentage,
    positive_int,
    tolerance_percentage,
)
from ._compare_many import add_many_arguments
from ._compare_outputs import (
    add_markdown_limit_argument,
    add_plot_arguments,
    add_table_arguments,
    method_help,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..compare.exit_policy import FailOn
    from ..compare.model import Comparison

    #: Turns a finished comparison into the exit status: (comparison, --fail-on, prog).
    StatusRule = Callable[[Comparison, tuple[FailOn, ...], str], int]


__all__ = [
    "COLOR_CHOICES",
    "DISPLAY_CHOICES",
    "FAIL_ON_CHOICES",
    "HTML_PLOTS",
    "PROG",
    "add_fail_on_argument",
    "build_parser",
    "thresholds_from_args",
]

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
    from ..compare.filter_arguments import add_filter_arguments

    parser = ArgumentParser(
        prog=prog,
        allow_abbrev=False,
        description=(
            "Compare a reference run with a compare run of NVBench benchmarks (JSON files, or "
            "directories of them paired by file name; a directory's byte-identical files, "
            "NVBench's --json file beside --jsonbin, are read once) and classify every state: "
            "SAME, FAST, SLOW, AMBG (not enough evidence), ???? (unusable input), ADDED or "
            "REMOVED. Three or more inputs (BASE CAND1 CAND2 ...) compare each candidate with the "
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
            f"A/A calibration file (written by '{PROG} calibrate' or '{PROG} ab --aa'): "
            "widens the ci tolerance of each state it lists to that state's run-to-run "
            "noise; with --paired, the paired floors of an 'ab --aa' file are each state's "
            "least A/A floor"
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


def thresholds_from_args(args: argparse.Namespace) -> tuple[str, Thresholds]:
    """The preset's name and the thresholds the options give: ``--preset``/``--config``,
    then ``--tolerance`` and ``--max-tolerance`` over them (one reading for the comparison
    and ``ab``, so that no option is accepted by one and ignored by the other)."""
    from ..compare.config import resolve_thresholds

    preset, thresholds = resolve_thresholds(args.preset, args.config)
    if args.tolerance is not None:
        thresholds = thresholds.replace(ci_tolerance=args.tolerance)
    if args.max_tolerance is not None:
        thresholds = thresholds.replace(ci_max_tolerance=args.max_tolerance)
    return preset, thresholds


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
