"""``nvbench-history``: an archive of NVBench runs, their trends and change points.

Subcommands: ``ingest`` (append runs to the Parquet archive), ``trend`` (each series'
current level), ``detect`` (calibrated change points, events, a JSON report), ``gate`` (a
new run against the current levels, as ``nvbench_compare`` reports and exits), ``baseline
check`` (the acceptance rule of a committed baseline) and ``report`` (a static HTML
dashboard). The archive needs ``python -m pip install '.[history]'`` (from the
nvbench-tools checkout's root); the heavy modules are imported after the arguments are parsed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from .._untrusted import visible
from ._common import (
    EXIT_OK,
    ArgumentParser,
    UsageError,
    add_side_files_argument,
    add_version_argument,
    directory_path,
    non_negative_int,
    package_version,
    print_warning,
    prog_name,
    run,
    say,
    writing_output,
)
from ._history_gate import add_baseline_parser, add_gate_parser
from ._input_guard import print_read_once, refuse_outputs_in_archive
from ._stdout import STDOUT_NAME

if TYPE_CHECKING:
    from ..history.series import ArchiveSeries, HistoryView

__all__ = ["build_parser", "console_main", "main"]

PROG: Final = "nvbench-history"
#: The --help description (the module docstring's first line without its markup).
_DESCRIPTION: Final = "An archive of NVBench runs, their trends and change points."


def _tag(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, value


def _add_archive(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--archive",
        required=True,
        type=directory_path,
        metavar="DIR",
        help="the archive directory",
    )


def _add_selection(parser: argparse.ArgumentParser) -> None:
    from ..compare.filter_arguments import add_filter_arguments

    add_filter_arguments(parser, verb="show")
    parser.set_defaults(filters=[])
    parser.add_argument(
        "--device",
        default="all",
        metavar="IDS",
        help="device ids to keep: 'all' (default) or comma-separated ids",
    )


def build_parser(prog: str = PROG) -> ArgumentParser:
    parser = ArgumentParser(prog=prog, allow_abbrev=False, description=_DESCRIPTION)
    add_version_argument(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    ingest = commands.add_parser(
        "ingest",
        help="append NVBench runs to the archive",
        description="Append NVBench JSON runs to the archive under --archive (Parquet), "
        "labelled with their commit, date, order, branch and tags. Every run is checked "
        "before anything is written; a run the archive already holds is refused.",
        epilog="Exit status: 0 when every run was appended, 2 for a usage error, a run that "
        "cannot be read or is refused (nothing is then written) or an archive that cannot be "
        "read or written.",
        allow_abbrev=False,
    )
    _add_archive(ingest)
    add_side_files_argument(ingest)
    ingest.add_argument(
        "--commit",
        required=True,
        help="commit of the benchmarked code (NVBench's file records only its own git SHA)",
    )
    ingest.add_argument(
        "--date",
        help="ISO 8601 date of the runs, 2026-11-30T02:00:00+01:00; without an offset (or Z) "
        "it is UTC (default: now)",
    )
    ingest.add_argument(
        "--order",
        type=non_negative_int,
        metavar="N",
        help="position of the commit in first-parent order (git rev-list --first-parent "
        "--count HEAD); series follow it when every run has one, else the dates: give it "
        "to every run of an archive or to none (a run that breaks the rule is refused)",
    )
    ingest.add_argument("--branch", help="branch of the runs")
    ingest.add_argument(
        "--tag",
        type=_tag,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a tag of the runs (repeatable, one value per key), e.g. --tag driver=580.65",
    )
    ingest.add_argument(
        "--samples",
        type=non_negative_int,
        default=0,
        metavar="N",
        help="also store up to N samples per state (evenly spaced, float32), which the gate "
        "then bootstraps; default 0: summaries only",
    )
    ingest.add_argument("runs", nargs="+", metavar="RUN.json", help="NVBench JSON result files")

    trend = commands.add_parser(
        "trend",
        help="each series' runs and current level",
        description="Print each series of the archive (a state on a device and machine): its "
        "runs and its current level (since its last change point).",
        epilog="Exit status: 0 whatever the series show (it reports; 'gate' fails a job on a "
        "regression), 2 for a usage error, an archive that cannot be read or an image that "
        "cannot be written.",
        allow_abbrev=False,
    )
    _add_archive(trend)
    _add_selection(trend)
    trend.add_argument(
        "--plot",
        metavar="PATH",
        help="draw the series to an image (png, svg, ...; needs matplotlib): one panel each, "
        "the first 12 in the table's order (a note says how many were left out; select fewer "
        "with -b/-a)",
    )

    detect = commands.add_parser(
        "detect",
        help="change points with calibrated error rates",
        description="Find the change points of every series in the archive, with the false-"
        "alarm rate calibrated per series, confirm them (FAST or SLOW with the ratio and its "
        "interval) and group the changes of one commit into events; --json writes the report. "
        "Exit status 0 whatever it finds (it reports; 'gate' fails a job on a regression), 2 "
        "for a usage error or an archive that cannot be read.",
        allow_abbrev=False,
    )
    _add_archive(detect)
    _add_selection(detect)
    detect.add_argument("--json", metavar="PATH", help="write the JSON report here ('-': stdout)")
    detect.add_argument(
        "--since",
        metavar="COMMIT",
        help="report changes from this commit on (the commit, or a prefix of only it)",
    )

    add_gate_parser(commands)
    add_baseline_parser(commands)

    report = commands.add_parser(
        "report",
        help="write a static HTML dashboard",
        description="Write a static HTML dashboard of the archive into OUT_DIR: an index of "
        "the events and recent regressions, and a page per benchmark charting its series. "
        "It works from file://, no server needed.",
        epilog="Exit status: 0 when the site was written, 2 for a usage error, an archive or "
        "--gate report that cannot be read or a site that cannot be written.",
        allow_abbrev=False,
    )
    _add_archive(report)
    _add_selection(report)
    report.add_argument("--html", required=True, metavar="OUT_DIR", help="the site's directory")
    report.add_argument(
        "--gate",
        metavar="GATE.json",
        help="the latest gate's JSON report (nvbench-history gate --json), shown on the index",
    )
    return parser


def _each_run_once(paths: Sequence[str]) -> list[str]:
    """``paths`` less the byte-identical copies of a run that NVBench writes beside it in its
    folder (``--jsonbin X.json --json X_plain.json``, both of which ``out/*.json`` names),
    with a note naming each, as the other tools read such a folder; one run given twice in
    any other way is still refused."""
    from ..results._identity import written_together

    by_folder: dict[Path, list[Path]] = {}
    for one in paths:
        by_folder.setdefault(Path(one).parent, []).append(Path(one))
    copies: dict[Path, Path] = {}
    for listed in by_folder.values():
        once = list(dict.fromkeys(listed))  # one file named twice stays refused (below)
        if len(once) > 1:
            copies.update(written_together(once))
    print_read_once(prog_name(PROG), copies.items())
    return [one for one in paths if Path(one) not in copies]


def _ingest(args: argparse.Namespace) -> int:
    from ..history._run_checks import check_labels
    from ..history._run_ids import already_archived
    from ..history.archive import ArchiveError, check_new_run, ingest, ingest_new_run

    archive = Path(args.archive)
    tags = dict(args.tag)
    check_labels(args.commit, args.branch, tags)  # before any run is read
    for key, value in args.tag:
        if tags[key] != value:
            # The archive keeps one value per key, for good: the other would be dropped.
            raise UsageError(
                f"--tag {key}: given twice, as {value!r} and {tags[key]!r}; the archive keeps "
                "one value per key: give one; nothing written"
            )
    # Every run is read and checked before anything is written: several runs first each
    # alone (ingest then reads each again), one run in the one reading that writes it.
    runs = _each_run_once(args.runs)
    alone = len(runs) == 1
    seen: dict[str, str] = {}
    for path in [] if alone else runs:
        digest = check_new_run(archive, path, commit=args.commit, date=args.date)
        if digest in seen:
            raise ArchiveError(f"{path}: the same run as {seen[digest]}; nothing written")
        seen[digest] = path
    # A summary line that cannot be written (``> /dev/full``) fails no ingest: the runs were
    # checked and go into the archive all the same, and the one error line says so.
    unwritten: list[OSError] = []

    def show(line: str) -> None:
        if not unwritten:
            try:
                # The line names the run's file: shown, not obeyed, as every other line.
                print(visible(line), flush=True)
            except OSError as error:
                unwritten.append(error)

    for path in runs:
        done = (ingest_new_run if alone else ingest)(
            archive,
            path,
            commit=args.commit,
            date=args.date,
            order=args.order,
            branch=args.branch,
            tags=tags,
            samples=args.samples,
        )
        if not done.added:
            # Another ingest stored it since the check (one lock per ingest, not per command).
            held = archive / "runs" / f"machine={done.machine}" / f"month={done.month}"
            raise ArchiveError(already_archived(path, archive, held / f"{done.run}.parquet"))
        show(
            f"{path}: run {done.run[:16]}, {done.states} states, machine {done.machine}, "
            f"month {done.month}"
        )
        for name in done.without_states:
            print_warning(
                prog_name(PROG),
                f'{path}: benchmark {name!r} holds no state (its "states" is null or '
                "empty); archived without it",
            )
        # One line a side file, up to three: a run whose side files all lead elsewhere
        # (an artifact moved without them) would otherwise print one line a state.
        for line in done.unusable_side_files[:3]:
            print_warning(prog_name(PROG), line)
        if len(done.unusable_side_files) > 3:
            print_warning(
                prog_name(PROG),
                f"{path}: {len(done.unusable_side_files) - 3} more side file(s) not used, "
                "for reasons like those above",
            )
        if done.missing_samples:
            print_warning(
                prog_name(PROG),
                f"{path}: {done.missing_samples} of {done.states} "
                "states record side files that are missing or empty; archived from their "
                "summaries, without a median interval" + (" or samples" if args.samples else ""),
            )
        elif args.samples and not done.sampled_states and not done.unusable_side_files:
            # Samples asked for, none stored, no line above saying why: the run records no
            # side files at all (NVBench without --jsonbin).
            print_warning(
                prog_name(PROG),
                f"{path}: no samples stored: the run has no side files (NVBench's --jsonbin "
                "writes them); archived from its summaries",
            )
    if unwritten:
        count = len(runs)
        raise UsageError(
            f"{STDOUT_NAME} could not be written ({unwritten[0].strerror or unwritten[0]}); "
            f"{'the run was' if count == 1 else f'all {count} runs were'} archived all the same"
        )
    return EXIT_OK


def _load(args: argparse.Namespace, connection: Any = None) -> list[ArchiveSeries]:
    """The selected series of the archive, read over ``connection`` (an open
    :func:`~..history.archive.query` of it) where the caller has one."""
    from ..compare.filters import FilterPlan, parse_device_selection
    from ..history._selection import empty_selection
    from ..history.series import load_series, read_series

    plan = FilterPlan.from_args(args.filters)
    devices = parse_device_selection(args.device, "--device")
    if connection is None:
        series = load_series(args.archive, filters=plan, devices=devices)
    else:
        series = read_series(connection, args.archive, filters=plan, devices=devices)
    if not series:
        # The -b/-a/--device that matched nothing, and what the archive holds.
        raise UsageError(empty_selection(args.archive, filters=plan, devices=devices))
    return series


def _view(args: argparse.Namespace, since: str | None = None) -> HistoryView:
    from ..history.series import examine

    return examine(_load(args), since=since)


def _check_file_output(option: str, path: str, what: str) -> None:
    """Refuse, before any work, an output ``path`` that is not a file name (``-`` is not
    standard output here: it would be written as a file named ``-``) or whose directory
    does not exist."""
    from .._io import check_destination

    if not path:
        # Would be the working directory: a site written there, inside an archive even.
        raise UsageError(f"{option} needs a path")
    if path == "-":
        raise UsageError(f"{option} -: {what} cannot go to standard output; give a path")
    try:
        check_destination(path)
    except OSError as error:
        raise UsageError(f"{option}: {path}: {error.strerror or error}") from None


def _trend(args: argparse.Namespace) -> int:
    from ..report.history import trend_text

    if args.plot is not None:
        from ._plotting import check_image_path

        _check_file_output("--plot", args.plot, "an image")
        refuse_outputs_in_archive(args.archive, [("--plot", args.plot)])
        try:
            check_image_path("--plot", args.plot)
        except ValueError as error:
            raise UsageError(str(error)) from None
    view = _view(args)
    sys.stdout.write(trend_text(view) + "\n")
    if args.plot is not None:
        from ..report.plots import save_figure
        from ..report.plots.history import MAX_TREND_PANELS, trend_figure

        with writing_output("--plot", args.plot):
            save_figure(trend_figure(view, range(len(view.series))), args.plot)
        # Where the image went, as ``report`` says where its site went; on stderr with the
        # note below, so that stdout stays the table (``trend > table.txt``).
        say(f"{PROG}: wrote {visible(str(args.plot))}")
        if len(view.series) > MAX_TREND_PANELS:
            say(
                f"{PROG}: note: --plot drew the first {MAX_TREND_PANELS} of "
                f"{len(view.series)} series; select fewer with -b/-a"
            )
    return EXIT_OK


def _detect(args: argparse.Namespace) -> int:
    from .._io import write_text
    from ..report.history import detect_report, detect_text

    if args.json is not None and args.json != "-":
        # Before the detection, as gate's reports are: a path that cannot be written.
        _check_file_output("--json", args.json, "the report")
        if Path(args.json).is_dir():
            raise UsageError(f"--json: '{args.json}' is a directory")
    refuse_outputs_in_archive(args.archive, [("--json", args.json)])
    view = _view(args, args.since)
    if args.json is not None:
        document = detect_report(view, tool_version=package_version())
        text = json.dumps(document, indent=2, allow_nan=False) + "\n"
        if args.json == "-":
            write_text(args.json, text)
        else:
            with writing_output("--json", args.json):
                write_text(args.json, text)
    if args.json != "-":
        sys.stdout.write(detect_text(view))
    return EXIT_OK


def _report(args: argparse.Namespace) -> int:
    from ..report.html.history_site import read_gate_report, site_writes, write_site

    _check_file_output("--html", args.html, "a site (a directory)")
    refuse_outputs_in_archive(args.archive, [("--html", args.html)])
    gate = None
    if args.gate == "":
        raise UsageError("--gate needs a path (the gate's JSON report)")
    if args.gate is not None:
        if site_writes(args.html, args.gate):
            raise UsageError(
                f"--gate {args.gate}: a file of the site --html {args.html} writes; keep the "
                "gate report under another name"
            )
        try:
            gate = read_gate_report(args.gate)
        except ValueError as error:
            raise UsageError(str(error)) from None
    from ..history.archive import query
    from ..history.series import examine

    # One opening of the archive (listing and checking its files) serves the check of the
    # gate report and the reading of the series.
    connection = query(args.archive)
    try:
        if gate is not None and gate.archive_runs:
            _check_gate_archive(args.gate, args.archive, gate.archive_runs, connection)
        view = examine(_load(args, connection))
    finally:
        connection.close()
    with writing_output("--html", args.html):
        index = write_site(view, args.html, tool_version=package_version(), gate=gate)
    print(f"{PROG}: wrote {visible(str(index))}")
    return EXIT_OK


def _check_gate_archive(path: str, archive: str, gated: Sequence[str], connection: Any) -> None:
    """Before the series are read, refuse a gate report none of whose level runs is among
    the runs of ``archive`` (open as ``connection``): another archive's gate, which the
    index would show as this one's latest, whatever the report's selection shows; warn
    where some are not (left out as unreadable, or removed)."""
    from ..report.history import counted

    held = {str(run) for (run,) in connection.execute("SELECT run FROM runs").fetchall()}
    absent = [run for run in gated if run not in held]
    if len(absent) == len(gated):
        raise UsageError(
            f"{path}: the gate of another archive: none of the {counted(len(gated), 'run')} "
            f"its levels held is in {archive}; give this archive's gate report"
        )
    if absent:
        print_warning(
            prog_name(PROG),
            f"{path}: {len(absent)} of the {len(gated)} runs its levels held are not among "
            f"the runs of {archive} (left out as unreadable, or removed)",
        )


def _gate(args: argparse.Namespace) -> int:
    from ._history_gate import gate

    return gate(args, prog_name(PROG))


def _baseline(args: argparse.Namespace) -> int:
    from ._history_gate import baseline_check

    return baseline_check(args, prog_name(PROG))


_COMMANDS: Final = MappingProxyType(
    {
        "ingest": _ingest,
        "trend": _trend,
        "detect": _detect,
        "gate": _gate,
        "baseline": _baseline,
        "report": _report,
    }
)


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser(prog_name(PROG)).parse_args(argv)
    from ..history.archive import ArchiveError
    from ..history.series import UnknownCommitError

    try:
        return _COMMANDS[args.command](args)
    except (ArchiveError, UnknownCommitError) as error:
        raise UsageError(str(error)) from None
    except Exception as error:
        # A file of the archive that DuckDB could open but not read (a damaged data page):
        # bad input, one line and exit 2, never a traceback (exit 1 reads as a regression).
        duckdb = sys.modules.get("duckdb")
        if duckdb is not None and isinstance(error, duckdb.Error):
            from ..history._archive_files import duckdb_problem

            problem = duckdb_problem(error)
            raise UsageError(
                f"{getattr(args, 'archive', '')}: cannot read the archive: {problem}"
            ) from None
        raise


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``nvbench-history``; returns the exit status (0 ok, 2 error)."""
    return run(_main, argv, prog_name(PROG))


def console_main() -> int:
    """The ``nvbench-history`` program itself: :func:`main` in a process tuned for one run
    that ends it (:func:`._process.tuned_process`)."""
    from ._process import tuned_process

    with tuned_process():
        return main()


if __name__ == "__main__":
    sys.exit(console_main())
