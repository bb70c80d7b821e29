"""``nvbench_compare calibrate RUN RUN [RUN ...]``: A/A calibration from repeated runs of one build.

Compares every pair of the runs with every method and preset (nothing changed, so each
FAST or SLOW is a false change), prints the false-change rates found, measures each
state's run-to-run noise floor and writes a calibration file for
``nvbench_compare --calibration FILE`` (:mod:`cuda.bench.compare.calibrate`).

Exit status: 0 when the calibration file was written, 2 for usage or input errors.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from .._untrusted import visible
from ..compare.thresholds import MAX_CALIBRATED_TOLERANCE, PRESET_NAMES
from ._common import (
    EXIT_OK,
    ArgumentParser,
    UsageError,
    add_side_files_argument,
    add_version_argument,
    percent_number,
    print_warning,
    prog_name,
    run,
    tolerance_percentage,
)

if TYPE_CHECKING:
    from ..compare.calibrate import Calibration, StateFloor

__all__ = ["build_parser", "main", "state_label"]

PROG: Final = "nvbench_compare"
DEFAULT_OUTPUT: Final = "nvbench_calibration.json"
_FILTERS_DEST = "filters"


def _rate(text: str) -> float:
    try:
        value = percent_number(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a percentage, got {text!r}") from None
    if not (math.isfinite(value) and 0.0 < value < 100.0):
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 100, got {text!r}")
    return value / 100.0


def _methods(text: str) -> tuple[str, ...]:
    from ..compare.errors import ConfigError
    from ..compare.methods import get_method

    names = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    if not names:
        raise argparse.ArgumentTypeError("needs at least one method name")
    try:
        return tuple(get_method(name).name for name in names)
    except ConfigError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def build_parser(prog: str | None = None) -> ArgumentParser:
    """The parser of ``nvbench_compare calibrate``."""
    from ..compare.filters import add_filter_arguments

    parser = ArgumentParser(
        prog=prog,
        allow_abbrev=False,
        description=(
            "A/A calibration: give repeated runs of ONE build (JSON files, or directories of "
            "them). Every pair of runs is compared with each method and preset and the "
            "false-change rate (FAST/SLOW between identical builds) is printed; each state's "
            "run-to-run noise floor goes into a calibration file that --calibration uses to "
            "widen that state's ci tolerance."
        ),
        epilog="Exit status: 0 when the calibration file was written, 2 for usage or input errors.",
    )
    parser.add_argument("runs", nargs="+", metavar="RUN", help="a run (JSON file) or directory")
    add_version_argument(parser)
    add_side_files_argument(parser)
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        default=DEFAULT_OUTPUT,
        help="calibration file to write (JSON; default: %(default)s)",
    )
    parser.add_argument(
        "--target-rate",
        metavar="PERCENT",
        type=_rate,
        default=0.01,
        help=(
            "false-change probability per state that the calibrated tolerance allows "
            "(default: 1 %%)"
        ),
    )
    parser.add_argument(
        "--methods",
        metavar="NAMES",
        type=_methods,
        default=("robust", "ci"),
        help="methods whose false-change rates to measure, comma list (default: robust,ci)",
    )
    parser.add_argument(
        "--preset",
        choices=PRESET_NAMES,
        help="preset whose [ci] bootstrap settings measure the noise floors (default: default)",
    )
    parser.add_argument("--config", metavar="FILE.toml", help="threshold config (TOML)")
    parser.add_argument(
        "--max-tolerance",
        metavar="PERCENT",
        type=tolerance_percentage,
        help=(
            "list the states whose tolerance would exceed PERCENT %% as not judgeable "
            "(sets [ci] max_tolerance, as for comparisons; default: the preset's, 5)"
        ),
    )
    add_filter_arguments(parser, _FILTERS_DEST, verb="calibrate")
    parser.set_defaults(**{_FILTERS_DEST: []})
    return parser


def _expand(paths: Sequence[str], prog: str) -> list[str]:
    """The runs ``paths`` name: files as given, a directory's ``.json`` files sorted by name,
    its byte-identical ones read once (NVBench's ``--json`` file beside ``--jsonbin``), a
    note naming each one left out."""
    from ..compare.folders import folder_runs
    from ._input_guard import print_read_once

    runs: list[str] = []
    copies: dict[Path, Path] = {}
    for text in paths:
        path = Path(text)
        if path.is_dir():
            found = folder_runs(path, "input", copies)
            if not found:
                from .._subfolders import subfolder_note

                raise UsageError(f"directory '{text}' holds no .json runs{subfolder_note(path)}")
            runs.extend(str(p) for p in found)
        else:
            runs.append(text)
    print_read_once(prog, copies.items())
    return runs


def _main(argv: Sequence[str] | None) -> int:
    prog = f"{prog_name(PROG)} calibrate"
    args = build_parser(prog).parse_args(argv)
    runs = _expand(args.runs, prog)
    if len(runs) < 2:
        raise UsageError(f"calibration needs at least two runs of one build, got {len(runs)}")
    from ._input_guard import check_outputs_against_inputs

    check_outputs_against_inputs([("--output", args.output)], [*runs, args.config])
    from ._compare_outputs import check_output_file

    check_output_file("--output", args.output)

    from .._io import write_text
    from ..compare.calibrate import calibrate
    from ..compare.config import resolve_thresholds
    from ..compare.filters import FilterPlan
    from ..compare.side_warnings import fold_warnings
    from ..report.calibration_text import describe_rates

    _, thresholds = resolve_thresholds(args.preset, args.config)
    if args.max_tolerance is not None:
        thresholds = thresholds.replace(ci_max_tolerance=args.max_tolerance)
    warnings: list[str] = []
    result = calibrate(
        runs,
        methods=args.methods,
        thresholds=thresholds,
        target_rate=args.target_rate,
        filters=FilterPlan.from_args(args.filters),
        warn=lambda message: warnings.append(message) if message not in warnings else None,
    )
    if not result.states:
        # A file of no state would calibrate nothing, silently: refuse it (missing evidence
        # is never a pass).
        selected = " selected by the filters" if args.filters else ""
        raise UsageError(
            f"no state{selected} of {runs[0]} has a usable time in another of the "
            f"{len(runs)} runs, so there is nothing to calibrate; give runs of one build of "
            "one benchmark (nothing written)"
        )
    if len(runs) < 5:
        warnings.append(
            f"{len(runs)} runs give {len(runs) - 1} degree(s) of freedom per noise floor, so "
            "the calibrated tolerances are wide; five or more runs give useful ones"
        )
    for warning in fold_warnings(warnings):
        print_warning(prog, warning)
    write_text(args.output, result.to_json())

    pairs = len(runs) * (len(runs) - 1) // 2
    lines = [
        f"A/A calibration from {len(runs)} runs ({pairs} pair(s)); false-change rates "
        "(FAST/SLOW between runs of one build):"
    ]
    lines += [f"  {line}" for line in describe_rates(result.rates)]
    widened = result.beyond(thresholds.ci_tolerance)
    lines.append(
        f"Noise floors of {len(result.states)} state(s): {len(widened)} need a tolerance "
        f"wider than the preset's ±{thresholds.ci_tolerance:.2%} "
        f"(target {result.target_rate:.1%} false changes per state)"
    )
    from ..compare.methods._tolerance import row_tolerance

    cap = row_tolerance(thresholds).cap
    noisy = result.beyond(cap)
    # The widened states that can still be judged here; those past the cap follow below.
    judged = [state for state in widened if state.tolerance <= cap]
    lines += [f"  {_state_line(state, result)}" for state in judged[:_LISTED]]
    if len(judged) > _LISTED:
        lines.append(f"  ... and {len(judged) - _LISTED} more (the file lists them all)")
    if noisy:
        lines.append(
            f"Cannot be judged on this machine: {len(noisy)} state(s) need a tolerance above "
            f"the cap ±{cap:.2%} ([ci] max_tolerance); comparisons call them AMBG "
            "too_noisy_to_judge unless they change by more than the tolerance listed for each "
            f"(a state listed at ±{MAX_CALIBRATED_TOLERANCE:.2%}, the largest, is never "
            "FAST/SLOW). More runs per side, more samples per run or a quieter machine help:"
        )
        lines += [f"  {_state_line(state, result)}" for state in noisy[:_LISTED]]
        if len(noisy) > _LISTED:
            lines.append(f"  ... and {len(noisy) - _LISTED} more (the file lists them all)")
    lines.append(f"Wrote {args.output}; compare with --calibration {args.output}")
    print("\n".join(lines))
    return EXIT_OK


#: Most states listed as not judgeable (the calibration file has them all).
_LISTED: Final = 20


def state_label(state: StateFloor) -> str:
    """``benchmark [device] axes`` of a calibrated state for the terminal: the names come
    from result files, so control characters are shown, not obeyed (also ``ab --aa``)."""
    device = "" if state.device is None else f" [{state.device}]"
    return visible(f"{state.benchmark}{device} {state.key or '(no axes)'}")


def _state_line(state: StateFloor, calibration: Calibration) -> str:
    used = calibration.least_floor(state)
    # A state lifted to the noise its machine's states share says so (docs/calibration.md).
    lifted = f" (lifted to {used:.2%})" if used > state.noise_floor * 1.0001 + 1e-12 else ""
    line = (
        f"{state_label(state)}: run-to-run "
        f"{state.noise_floor:.2%}{lifted} -> tolerance ±{state.tolerance:.2%}"
    )
    return line + _cap_note(state, calibration)


def _cap_note(state: StateFloor, calibration: Calibration) -> str:
    """Where the cap set the tolerance: what the formula gave, and why it is so wide."""
    from ..compare.calibrate import MAX_TOLERANCE, uncapped_tolerance

    floor = calibration.least_floor(state)
    wanted = uncapped_tolerance(floor, state.degrees_of_freedom, calibration.target_rate)
    if state.tolerance < MAX_TOLERANCE or wanted <= MAX_TOLERANCE:
        return ""
    shown = f"±{wanted:.0%}" if wanted < 100 else "over ±10000%"
    return (
        f" (the ±{MAX_TOLERANCE:.0%} cap: the formula gives {shown} from {state.runs} runs, "
        f"{state.degrees_of_freedom} degree(s) of freedom; more runs narrow it)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``nvbench_compare calibrate``; returns the exit status (0 ok, 2 error)."""
    return run(_main, argv, f"{prog_name(PROG)} calibrate")
