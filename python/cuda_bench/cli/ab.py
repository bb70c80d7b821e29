"""``nvbench_compare ab [options] REF_EXE CMP_EXE [-- BENCH_ARGS...]``: paired A/B runs.

Runs the two benchmark commands alternately for ``--rounds`` rounds (:mod:`._ab_runner`),
keeps every run in ``--out DIR`` with a manifest, then compares the finished rounds paired
(:mod:`._compare_paired`) with the options of ``nvbench_compare`` (preset, tolerance,
reports, ``--fail-on``). ``--aa EXE`` runs one command on both sides: it prints each
state's A/A floor and the paired test's false-change rate, and writes a calibration file.

**Commands.** ``REF_EXE`` and ``CMP_EXE`` are each one argument, split into words as a
POSIX shell would (:func:`shlex.split`): ``./bench``, ``"python bench.py --quick"``, or
``"'/path with space/bench'"``; no shell runs them (no pipes, globs or variables). Each
must accept ``--jsonbin PATH``; ``BENCH_ARGS`` after ``--`` go to both, before
``--jsonbin``.

Exit status: that of the comparison (0, or 1 when a ``--fail-on`` condition holds); 2 for
usage errors, a command that cannot be found, a run that fails without ``--keep-going``,
or fewer than two finished rounds.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import secrets
import shlex
import shutil
import signal
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from .._untrusted import visible
from ._common import EXIT_OK, UsageError, non_negative_int, positive_int, prog_name, run, say

if TYPE_CHECKING:
    from ..compare.model import Comparison
    from ._ab_runner import Series, StopFlag

__all__ = ["build_parser", "main", "split_command"]

PROG: Final = "nvbench_compare"
DEFAULT_ROUNDS: Final = 8
#: Runs of each command before the rounds (a cold first process is not measured).
DEFAULT_WARMUP: Final = 1
CALIBRATION_NAME: Final = "nvbench_calibration.json"


def split_command(text: str, what: str) -> list[str]:
    """``text`` split into words as a POSIX shell would; :class:`UsageError` when empty
    or badly quoted."""
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise UsageError(f"{what} {text!r}: {error}") from None
    if not words:
        raise UsageError(f"{what} is empty")
    return words


def _check_executable(words: list[str], what: str) -> None:
    program = words[0]
    if os.sep in program or (os.altsep and os.altsep in program):
        found = os.path.isfile(program) and os.access(program, os.X_OK)
    else:
        found = shutil.which(program) is not None
    if not found:
        raise UsageError(f"{what} '{program}' is not an executable file or a command on PATH")


def _even_rounds(text: str) -> int:
    value = positive_int(text)
    if value < 2 or value % 2:
        raise argparse.ArgumentTypeError(
            f"must be even and at least 2 (each side goes first equally often), got {text!r}"
        )
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """``nvbench_compare``'s parser with the runner's options; REF and CMP are commands."""
    from ._compare_parser import build_parser as compare_parser

    parser = compare_parser(prog)
    parser.description = (
        "Run a reference and a compare benchmark command alternately, round by round "
        "(A B / B A / ...), keep every run, and compare them paired: each round's change "
        "cancels the drift both of its runs share. Options after the runner's are those of "
        "nvbench_compare (thresholds, reports, --fail-on). BENCH_ARGS after -- go to both "
        "commands, followed by --jsonbin PATH."
    )
    parser.epilog = (
        'Commands are split as a POSIX shell would: "python bench.py" is two words. Exit '
        "status: that of the comparison (0; 1 when --fail-on holds), 2 for usage errors, "
        "missing commands, a failing run without --keep-going or fewer than 2 finished rounds."
    )
    hidden = {dest for dest, _ in _NOT_FOR_AB} | _HIDDEN
    for action in parser._actions:
        if action.dest == "ref":
            action.metavar, action.help = "REF_EXE", "reference command (one argument)"
        elif action.dest == "cmp":
            action.metavar, action.help = "CMP_EXE", "compare command (one argument)"
        elif action.dest == "calibration":
            action.help = (
                "A/A calibration file written by 'nvbench_compare ab --aa': each state's paired "
                "floor in it is the least A/A floor of that state's row (a file from "
                "'nvbench_compare calibrate' has none and changes nothing)"
            )
        elif action.dest in hidden:
            action.help = argparse.SUPPRESS  # accepted, then refused with a reason
    for group in parser._action_groups:
        if group._group_actions and all(a.help == argparse.SUPPRESS for a in group._group_actions):
            group.title = group.description = None
    group = parser.add_argument_group("ab runner")
    group.add_argument(
        "--rounds",
        metavar="R",
        type=_even_rounds,
        default=DEFAULT_ROUNDS,
        help="rounds of one reference and one compare run, even (default: %(default)s)",
    )
    group.add_argument(
        "--order",
        choices=("alternate", "random"),
        default="alternate",
        help="which side goes first: alternate, or random with each side first in half the "
        "rounds (default: %(default)s)",
    )
    group.add_argument("--seed", metavar="N", type=int, help="seed of --order random")
    group.add_argument(
        "--out", metavar="DIR", help="keep the runs here (default: a new ab-<time> directory)"
    )
    group.add_argument(
        "--resume", metavar="DIR", help="continue the interrupted series in DIR (no commands)"
    )
    group.add_argument(
        "--run-timeout",
        metavar="SECONDS",
        type=_seconds,
        help="stop a run that takes longer; it counts as failed",
    )
    group.add_argument(
        "--warmup",
        metavar="N",
        type=non_negative_int,
        help="runs of each command before the rounds, not analysed: a cold machine's first "
        f"run would otherwise sit in round 1 (default: {DEFAULT_WARMUP})",
    )
    group.add_argument(
        "--keep-going",
        action="store_true",
        help="skip a round whose run fails instead of stopping",
    )
    group.add_argument(
        "--aa",
        action="store_true",
        help="A/A: one command (REF_EXE) on both sides; prints the noise floors and false-"
        "change rate and writes a calibration file",
    )
    group.add_argument(
        "--write-calibration",
        metavar="FILE",
        help=f"--aa: the calibration file to write (default: DIR/{CALIBRATION_NAME})",
    )
    return parser


_NOT_FOR_AB: Final = (
    ("ref_runs", "--ref"),
    ("cmp_runs", "--cmp"),
    ("paired", "--paired"),
    ("col", "--col"),
    ("baseline", "--baseline"),
    ("heatmap", "--heatmap"),
    ("more", "a third command"),
    ("names", "--names"),
    ("gate", "--gate"),
    ("output_dir", "--output-dir"),
    ("runs", "--runs"),
    ("correction", "--correction"),
    ("dump_config", "--dump-config"),
)


#: Further options ab's help leaves out: refused as the others above, or before the first run
#: by the paired analysis (its own method, no figure); ``--dark`` styles only those figures.
_HIDDEN: Final = frozenset(
    {
        "runs",
        "correction",
        "method",
        "plot",
        "plot_output",
        "plot_along",
        "plot_along_output",
        "dark",
    }
)


def _reject_compare_only(args: argparse.Namespace) -> None:
    for dest, option in _NOT_FOR_AB:
        if getattr(args, dest, None):
            raise UsageError(f"ab does not take {option}")


def _new_series(args: argparse.Namespace, bench_args: list[str]) -> Series:
    from ._ab_runner import Series, balanced_order

    if args.aa:
        if args.ref is None or args.cmp is not None:
            raise UsageError("ab --aa takes one command, EXE")
        ref_words = cmp_words = split_command(args.ref, "EXE")
        _check_executable(ref_words, "EXE")
    else:
        if args.ref is None or args.cmp is None:
            raise UsageError("ab needs two commands, REF_EXE and CMP_EXE (or --aa EXE)")
        ref_words = split_command(args.ref, "REF_EXE")
        cmp_words = split_command(args.cmp, "CMP_EXE")
        _check_executable(ref_words, "REF_EXE")
        _check_executable(cmp_words, "CMP_EXE")
    seed = args.seed
    if args.order == "random" and seed is None:
        seed = secrets.randbelow(2**31)
    directory = Path(args.out) if args.out else Path(f"ab-{dt.datetime.now():%Y%m%d-%H%M%S}")
    from ._input_guard import check_outputs_against_inputs

    # The rounds' folder and the calibration file: never inside an nvbench-history archive.
    check_outputs_against_inputs(
        [("--out", str(directory)), ("--write-calibration", args.write_calibration)], []
    )
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"--out '{directory}' is a file, not a directory: name a new directory")
    if directory.exists() and any(directory.iterdir()):
        raise UsageError(f"--out '{directory}' exists and is not empty; use --resume to continue")
    directory.mkdir(parents=True, exist_ok=True)
    return Series(
        directory=directory,
        ref_command=ref_words,
        cmp_command=cmp_words,
        bench_args=bench_args,
        rounds=args.rounds,
        order=args.order,
        seed=seed if args.order == "random" else None,
        run_timeout=args.run_timeout,
        keep_going=args.keep_going,
        aa=args.aa,
        firsts=balanced_order(args.rounds, args.order, seed),
        warmup=DEFAULT_WARMUP if args.warmup is None else args.warmup,
    )


def _resumed_series(args: argparse.Namespace, bench_args: list[str]) -> Series:
    from ..compare.errors import CompareInputError
    from ..compare.paired_inputs import read_manifest
    from ._ab_runner import Series

    if args.ref is not None or bench_args or args.out or args.warmup is not None:
        raise UsageError(
            "--resume DIR continues with the commands, options (--warmup too) and --out of DIR"
        )
    directory = Path(args.resume)
    try:
        series = Series.from_manifest(directory, read_manifest(directory))
    except CompareInputError as error:
        raise UsageError(str(error)) from None
    except ValueError as error:
        raise UsageError(f"--resume '{directory}': {error}") from None
    for words, what in ((series.ref_command, "REF_EXE"), (series.cmp_command, "CMP_EXE")):
        _check_executable(words, what)
    return series


@contextlib.contextmanager
def _interruptible(stop: StopFlag, prog: str) -> Iterator[None]:
    """Ctrl-C asks the runner to stop after the current run (a second one: at once)."""

    def handler(signum: int, frame: Any) -> None:
        urgent = stop.requested
        stop.interrupt()
        what = "ending the current run now" if urgent else "stopping after the current run"
        say(f"\n{prog}: interrupted, {what}")

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _progress_printer(stream: Any) -> Any:
    if stream is None or not stream.isatty():  # None: a closed stderr (2>&-)
        return None

    def progress(round_index: int, side: str, done: int, total: int, elapsed: float) -> None:
        left = "?"
        if done:
            seconds = elapsed / done * (total - done)
            left = f"~{int(seconds // 60)}m{int(seconds % 60):02d}s"
        where = f"round {round_index}" if round_index else "warm-up"
        stream.write(
            f"\r\x1b[K{where} {side}: {done}/{total} runs, "
            f"elapsed {int(elapsed // 60)}m{int(elapsed % 60):02d}s, left {left}"
        )
        stream.flush()

    return progress


def _split_bench_args(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    items = list(argv)
    if "--" in items:
        cut = items.index("--")
        return items[:cut], items[cut + 1 :]
    return items, []


def _check_outputs(args: argparse.Namespace) -> None:
    """Every report and calibration path can be written: checked before the first run,
    not after hours of them."""
    from ._compare_outputs import check_output_file, check_output_paths, requested_outputs

    check_output_paths([(out.option, out.path) for out in requested_outputs(args)], args)
    if args.write_calibration is not None:
        check_output_file("--write-calibration", args.write_calibration)


def _main(argv: Sequence[str] | None) -> int:
    from ._common import write_stdout

    prog = f"{prog_name(PROG)} ab"
    own, bench_args = _split_bench_args(sys.argv[2:] if argv is None else argv)
    args = build_parser(prog).parse_intermixed_args(own)
    _reject_compare_only(args)
    if args.write_calibration and not args.aa:
        raise UsageError("--write-calibration goes with --aa")
    # What the analysis would refuse is refused now, not after every round has run.
    from ._compare_paired import check_paired_arguments

    check_paired_arguments(args, "ab")
    _check_outputs(args)
    series = _resumed_series(args, bench_args) if args.resume else _new_series(args, bench_args)
    from ._ab_runner import StopFlag, run_series

    stop = StopFlag()
    if not (args.out or args.resume):
        say(f"{prog}: runs go to {series.directory}")
    progress = _progress_printer(sys.stderr)
    with _interruptible(stop, prog):
        outcome = run_series(
            series,
            stop,
            progress=progress,
            # The line quotes the run's stderr: shown, not obeyed, as in run()'s errors.
            report=lambda line: say(
                f"\r{prog}: warning: {visible(line)}; round skipped (--keep-going)"
            ),
            notice=lambda line: say(f"\r{prog}: warning: {visible(line)}"),
        )
    if progress is not None:
        say("")
    if outcome.failure is not None:
        # --keep-going skips failing rounds; a failing warm-up (round 0) stops every series.
        skip = "" if outcome.failure.round == 0 else " (or skip failing rounds with --keep-going)"
        raise UsageError(
            f"{outcome.failure.line()}; fix it and continue with --resume {series.directory}{skip}"
        )
    finished = series.finished()
    if outcome.interrupted:
        say(
            f"{prog}: interrupted with {finished} of {series.rounds} rounds finished; "
            f"continue with --resume {series.directory}"
        )
    if finished < 2:
        raise UsageError(f"{finished} round(s) finished; a paired comparison needs at least 2")
    return _analyse(args, prog, series, write_stdout)


def _analyse(args: argparse.Namespace, prog: str, series: Series, write_stdout: Any) -> int:
    from ..compare.filters import FilterPlan
    from ._compare_paired import run_paired
    from ._compare_parser import thresholds_from_args

    preset, thresholds = thresholds_from_args(args)
    plan = FilterPlan.from_args(args.filters)
    args.ref, args.cmp = str(series.directory), None
    if not series.aa:
        return run_paired(
            args,
            prog,
            preset=preset,
            thresholds=thresholds,
            filters=plan,
            write_stdout=write_stdout,
            inputs=series.directory,
        )
    from ._ab_calibration import aa_summary

    found: list[Comparison] = []
    run_paired(
        args,
        prog,
        preset=preset,
        thresholds=thresholds,
        filters=plan,
        write_stdout=lambda text: None,
        inputs=series.directory,
        before_report=found.append,
    )
    target = args.write_calibration or str(series.directory / CALIBRATION_NAME)
    write_stdout(aa_summary(found[0], series.directory, target, thresholds, plan))
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``nvbench_compare ab``; returns the exit status (module docstring)."""
    return run(_main, argv, f"{prog_name(PROG)} ab")
