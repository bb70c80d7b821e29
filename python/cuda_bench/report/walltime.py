"""Where the benchmark wall time went: per file, benchmark, configuration and axis value.

The wall time of a state is the sum of its measurement walltimes (``nv/cold/walltime``,
``nv/batch/walltime``, ``nv/cupti/walltime`` and, for CPU-only benchmarks,
``nv/cpu_only/walltime``). Warmup and setup are not recorded by NVBench, so the totals are
the measurement time only. Skipped states usually recorded nothing and count as zero.

A walltime that is not a finite, non-negative number below
:data:`~.format.WALLTIME_SPAN_LIMIT` seconds (NaN, a negative span, ``1e308``) is no
measurement: its state is left out of every table and total, and
:attr:`WalltimeReport.problems` names the file, the state and the value (the command
prints each as a warning). Such a state counted made the totals ``nan`` or negative, hid a
column, or stopped the report with a traceback.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from .._errors import EMPTY_RESULT_WHY, stdin_hint
from .._special_files import unread_entry_problem
from .._subfolders import subfolder_note
from .._untrusted import markdown_inline, visible
from ..results._tools_api import (
    BenchmarkResult,
    ResultFormatError,
    StateAxisValue,
    SubBenchmarkResult,
    SubBenchmarkState,
)
from .format import (
    WALLTIME_SPAN_LIMIT,
    AxisStyle,
    format_axis_value,
    format_percent,
    format_walltime,
)
from .table import MARKDOWN, Align, Table, render_table

__all__ = [
    "BenchmarkWalltime",
    "FileWalltime",
    "Measure",
    "StateWalltime",
    "WalltimeReport",
    "Walltimes",
    "collect_file",
    "find_result_files",
    "read_result_file",
    "render_walltime",
    "same_run_note",
    "short_labels",
    "usable_walltime",
    "walltime_report",
]

#: Measures whose total stays below this many seconds get no column.
_ACTIVE_THRESHOLD = 1e-9
_PERCENT_DECIMALS = 2


class Measure(Enum):
    """A measurement kind with a walltime summary: its tag and column header."""

    ISOLATED = ("nv/cold/walltime", "Isolated")
    BATCH = ("nv/batch/walltime", "Batch")
    CUPTI = ("nv/cupti/walltime", "CUPTI")
    CPU_ONLY = ("nv/cpu_only/walltime", "CPU-only")

    def __init__(self, tag: str, header: str) -> None:
        self.tag = tag
        self.header = header


@dataclass(frozen=True, slots=True)
class Walltimes:
    """Seconds per :class:`Measure`, in the enum's order."""

    seconds: tuple[float, ...] = (0.0,) * len(Measure)

    def __getitem__(self, measure: Measure) -> float:
        """Seconds of one measure."""
        return self.seconds[list(Measure).index(measure)]

    def __add__(self, other: Walltimes) -> Walltimes:
        """Measure-wise sum."""
        return Walltimes(tuple(a + b for a, b in zip(self.seconds, other.seconds, strict=True)))

    @property
    def total(self) -> float:
        """Seconds of all measures together."""
        return sum(self.seconds)

    @classmethod
    def sum(cls, items: Iterable[Walltimes]) -> Walltimes:
        """Measure-wise sum of ``items`` (zero for none)."""
        total = cls()
        for item in items:
            total = total + item
        return total


@dataclass(frozen=True, slots=True)
class StateWalltime:
    """The walltimes of one state; ``recorded`` is false when it has no walltime summary."""

    name: str
    device: int | None
    axis_values: tuple[StateAxisValue, ...]
    is_skipped: bool
    recorded: bool
    times: Walltimes


@dataclass(frozen=True, slots=True)
class BenchmarkWalltime:
    """One benchmark of a file (duplicated benchmarks appear once per occurrence)."""

    name: str
    axes: tuple[str, ...]
    devices: tuple[tuple[int, str], ...]
    states: tuple[StateWalltime, ...]

    @property
    def times(self) -> Walltimes:
        """Total over the benchmark's states."""
        return Walltimes.sum(state.times for state in self.states)

    @property
    def skipped(self) -> int:
        """How many of its states NVBench skipped."""
        return sum(state.is_skipped for state in self.states)


@dataclass(frozen=True, slots=True)
class FileWalltime:
    """One result file, labelled as the user named it."""

    label: str
    benchmarks: tuple[BenchmarkWalltime, ...]

    @property
    def times(self) -> Walltimes:
        """Total over the file's benchmarks."""
        return Walltimes.sum(bench.times for bench in self.benchmarks)


@dataclass(frozen=True, slots=True)
class WalltimeReport:
    """Walltimes of several result files; their labels are relative to ``directory``
    when it is not empty (the directory the files share)."""

    files: tuple[FileWalltime, ...]
    directory: str = ""
    #: One line per state left out (of every table and count) for a walltime that is no
    #: measurement (file, state, summary and value), in reading order.
    problems: tuple[str, ...] = ()

    @property
    def times(self) -> Walltimes:
        """Total over all files."""
        return Walltimes.sum(file.times for file in self.files)

    @property
    def measures(self) -> tuple[Measure, ...]:
        """Measures with a non-negligible total; the report shows only these columns."""
        totals = self.times
        return tuple(measure for measure in Measure if totals[measure] > _ACTIVE_THRESHOLD)


# ---------------------------------------------------------------------------------------
# Collecting
# ---------------------------------------------------------------------------------------


def find_result_files(
    inputs: Sequence[str | os.PathLike[str]],
    copies: dict[Path, Path] | None = None,
    left_out: dict[Path, str] | None = None,
) -> list[Path]:
    """The result files named by ``inputs``: files as given, directories expanded.

    A directory contributes its non-empty ``*.json`` files (not recursively), sorted by
    name, each run once: files of one directory that are byte for byte the same are one
    run, as NVBench writes ``--json X_plain.json`` beside ``--jsonbin X.json``; the one
    whose side-file names are its own is read (:func:`~cuda.bench.results._identity.
    written_together`), and ``copies`` maps each one left out to it (a command says so:
    :func:`same_run_note`; they are inputs still, never to be written over). Files given by
    name are all read (the commands refuse one run given twice). ``left_out`` maps each
    other ``*.json`` entry of a directory that is not read to why: an empty file (what
    NVBench leaves of a run that crashed), or no regular file (a named pipe would hold the
    read). Raises
    :class:`ResultFormatError` for a path that does not exist or a directory without such
    files.
    """
    from ..results._identity import written_together

    files: list[Path] = []
    for item in inputs:
        path = Path(item)
        if path.is_dir():
            found = []
            for child in sorted(path.iterdir()):
                if child.suffix != ".json" or child.is_dir():
                    continue
                why = _not_read(child)
                if why is None:
                    found.append(child)
                elif left_out is not None:
                    left_out[child] = why
            if not found:
                raise ResultFormatError(
                    os.fspath(item),
                    "directory holds no non-empty .json file" + subfolder_note(path),
                )
            together = written_together(found)
            if copies is not None:
                copies.update(together)
            files.extend(child for child in found if child not in together)
        elif path.exists():
            files.append(path)
        else:
            problem = f"no such file or directory{stdin_hint(item)}"
            raise ResultFormatError(os.fspath(item), problem)
    return files


def _not_read(child: Path) -> str | None:
    """Why a directory's ``*.json`` entry ``child`` is not read, or ``None`` to read it."""
    why = unread_entry_problem(child)
    if why is not None:
        return why
    if child.stat().st_size == 0:
        return f"empty ({EMPTY_RESULT_WHY}); left out"
    return None


def same_run_note(copy: str | os.PathLike[str], kept: str | os.PathLike[str]) -> str:
    """What a command says of a file :func:`find_result_files` (or ``nvbench_compare``'s
    folder inputs) left out as ``kept``'s copy."""
    return (
        f"{os.fspath(copy)}: the same run as {os.fspath(kept)} (byte for byte, as NVBench "
        "writes --json beside --jsonbin); read once"
    )


def usable_walltime(value: float) -> bool:
    """A walltime a run can have taken: finite, not negative, below
    :data:`~.format.WALLTIME_SPAN_LIMIT` seconds."""
    return math.isfinite(value) and 0.0 <= value < WALLTIME_SPAN_LIMIT


def read_result_file(path: str | os.PathLike[str]) -> BenchmarkResult:
    """The result file ``path``, every summary value of every state read with its declared
    type, as ``nvbench-json-summary`` reads them (and compare and history ingest the values
    they use): a value that is not of its type raises the reader's
    :class:`ResultFormatError` ("invalid NVBench JSON: 'abc' is not a valid float64 at
    $.benchmarks[0]...") whichever summary holds it. The tools that read a few summaries
    only (wall time, bandwidth, side files) read such a file without a word."""
    result = BenchmarkResult(path)
    for state in result.states():
        state.summaries  # noqa: B018 - decoding every value is the check
    return result


def _state_walltime(state: SubBenchmarkState, problems: list[str]) -> StateWalltime | None:
    """The walltime summaries of one state; absent (or null) ones count as zero. A state
    with an unusable one (:func:`usable_walltime`) is ``None``: left out of every table
    and count (a state counted but in no table would not add up), and ``problems`` gets
    one line naming it."""
    seconds: list[float] = []
    recorded = False
    for measure in Measure:
        value = state.float_value(measure.tag)
        if value is not None and not usable_walltime(value):
            where = f"device {state.device} " if state.device is not None else ""
            problems.append(
                f"{state.benchmark.source.label}: benchmark {state.benchmark.name!r} "
                f"{where}state {state.state_name!r} has {measure.tag} {value!r}, not a "
                "wall time; the state is left out of every table and count"
            )
            return None
        recorded = recorded or value is not None
        seconds.append(value if value is not None else 0.0)
    return StateWalltime(
        name=state.state_name,
        device=state.device,
        axis_values=state.axis_values,
        is_skipped=state.is_skipped,
        recorded=recorded,
        times=Walltimes(tuple(seconds)),
    )


def _benchmark(
    result: BenchmarkResult, bench: SubBenchmarkResult, problems: list[str]
) -> BenchmarkWalltime:
    """The walltimes of one benchmark occurrence."""
    devices = tuple(
        (device, info.name if (info := result.devices.get(device)) else f"Device {device}")
        for device in bench.devices
    )
    return BenchmarkWalltime(
        name=bench.name,
        axes=tuple(axis.name for axis in bench.axes),
        devices=devices,
        states=tuple(
            walltime
            for state in bench
            if (walltime := _state_walltime(state, problems)) is not None
        ),
    )


def collect_file(
    result: BenchmarkResult, label: str, problems: list[str] | None = None
) -> FileWalltime:
    """The walltimes recorded in one result, labelled ``label``; ``problems`` gets a line
    per state left out for an unusable walltime (:func:`usable_walltime`)."""
    found: list[str] = [] if problems is None else problems
    return FileWalltime(
        label, tuple(_benchmark(result, bench, found) for bench in result.benchmarks)
    )


def walltime_report(inputs: Sequence[str | os.PathLike[str]]) -> WalltimeReport:
    """Read the result files named by ``inputs`` (see :func:`find_result_files`)."""
    files = find_result_files(inputs)
    directory, labels = short_labels(files)
    problems: list[str] = []
    collected = tuple(
        collect_file(read_result_file(path), label, problems)
        for path, label in zip(files, labels, strict=True)
    )
    return WalltimeReport(collected, directory, tuple(problems))


def short_labels(paths: Sequence[str | os.PathLike[str]]) -> tuple[str, list[str]]:
    """``(directory, labels)``: the paths relative to the deepest directory they share, so
    that tables are not as wide as absolute paths (one file: its name); ``("", paths)``
    when they share none (or mix absolute and relative paths)."""
    names = [os.fspath(path) for path in paths]
    try:
        shared = os.path.commonpath([os.path.dirname(name) or "." for name in names])
    except ValueError:
        return "", names
    if not names or shared in ("", ".", os.sep):
        return "", names
    return shared, [os.path.relpath(name, shared) for name in names]


# ---------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------


def _share(part: float, whole: float) -> str:
    """``part`` as a percentage of ``whole``; ``n/a`` when nothing was spent at all."""
    return format_percent(part / whole, decimals=_PERCENT_DECIMALS) if whole > 0 else "n/a"


def _times_cells(times: Walltimes, measures: Sequence[Measure]) -> list[str]:
    """The ``Walltime`` cell and one cell per shown measure."""
    return [format_walltime(times.total)] + [format_walltime(times[m]) for m in measures]


def _breakdown(
    label: str,
    rows: Sequence[tuple[str, Walltimes]],
    measures: Sequence[Measure],
    total: Walltimes | None = None,
) -> Table:
    """``label | % | Walltime | <measures>`` with one row per item and a ``Total`` row.

    The names (from result files: untrusted) get their control characters shown as
    escapes here; :data:`.table.MARKDOWN` escapes their markdown when the table is drawn."""
    whole = Walltimes.sum(times for _, times in rows) if total is None else total
    body = [
        [visible(name), _share(times.total, whole.total), *_times_cells(times, measures)]
        for name, times in rows
    ]
    body.append(["Total", _share(whole.total, whole.total), *_times_cells(whole, measures)])
    headers = [visible(label), "%", "Walltime", *(m.header for m in measures)]
    aligns = [Align.LEFT] + [Align.RIGHT] * (len(headers) - 1)
    return Table.of(headers, body, aligns)


def _grouped(states: Iterable[StateWalltime], key: str | None) -> list[tuple[str, Walltimes]]:
    """Walltime per axis value of axis ``key`` (or per device for ``None``), first seen first."""
    groups: dict[str, Walltimes] = {}
    for state in states:
        if key is None:
            label = "" if state.device is None else str(state.device)
        else:
            value = next((v for v in state.axis_values if v.name == key), None)
            if value is None:
                continue
            label = format_axis_value(value, AxisStyle.COMPACT)
        groups[label] = groups.get(label, Walltimes()) + state.times
    return list(groups.items())


def _benchmark_blocks(bench: BenchmarkWalltime, measures: Sequence[Measure]) -> list[str]:
    """The ``### Benchmark:`` section: note on skipped states, then its tables."""
    blocks = [f"### Benchmark: {markdown_inline(bench.name)}\n"]
    if bench.skipped:
        blocks.append(
            f"{bench.skipped} of {len(bench.states)} states were skipped; states without a "
            "recorded walltime are not listed.\n"
        )
    recorded = [state for state in bench.states if state.recorded]
    if not recorded:
        blocks.append("No walltime recorded.\n")
        return blocks
    configurations = [(state.name or "(no axes)", state.times) for state in recorded]
    blocks.append(render_table(_breakdown("Configuration", configurations, measures), MARKDOWN))
    if len(bench.devices) > 1:
        names = dict(bench.devices)
        by_device = [
            (f"[{label}] {names.get(int(label), '')}".rstrip() if label else "-", times)
            for label, times in _grouped(recorded, None)
        ]
        blocks.append(render_table(_breakdown("Device", by_device, measures), MARKDOWN))
    for axis in bench.axes:
        values = _grouped(recorded, axis)
        if values:
            table = _breakdown(f"Axis: {axis}", values, measures)
            blocks.append(render_table(table, MARKDOWN))
    return blocks


def render_walltime(report: WalltimeReport) -> str:
    """The wall-time report as markdown.

    ``# Walltime Overview`` (counts and totals), ``# Files`` (share per file), then per
    file a ``## File:`` table of its benchmarks and per benchmark a ``### Benchmark:``
    table of its configurations (state names), one of its devices when it ran on several,
    and one per axis with the share of each axis value. Times are ``[HH:][MM:]SS.mmm``,
    shares ``%.2f%`` of the table's total; columns are the measurement kinds that took any
    time (``Isolated`` cold, ``Batch``, ``CUPTI``, ``CPU-only``). Names and file names are
    written as text: markdown and HTML syntax escaped, control characters shown as escapes.
    """
    measures = report.measures
    total = report.times
    benchmarks = [bench for file in report.files for bench in file.benchmarks]
    states = [state for bench in benchmarks for state in bench.states]
    overview = Table.of(
        ["Files", "Benchmarks", "States", "Skipped", "Walltime", *(m.header for m in measures)],
        [
            [
                str(len(report.files)),
                str(len(benchmarks)),
                str(len(states)),
                str(sum(state.is_skipped for state in states)),
                *_times_cells(total, measures),
            ]
        ],
        Align.RIGHT,
    )
    files = [(file.label, file.times) for file in report.files]
    blocks = [
        "# Walltime Overview\n",
        "Times are wall-clock time in seconds ([HH:][MM:]SS.mmm); % is the share of the "
        "table's total.\n",
        render_table(overview, MARKDOWN),
        "# Files\n",
        *([f"In {markdown_inline(report.directory + os.sep)}\n"] if report.directory else []),
        render_table(_breakdown("Filename", files, measures, total), MARKDOWN),
    ]
    for file in report.files:
        blocks.append(f"## File: {markdown_inline(file.label)}\n")
        rows = [(bench.name, bench.times) for bench in file.benchmarks]
        blocks.append(render_table(_breakdown("Benchmark", rows, measures, file.times), MARKDOWN))
        for bench in file.benchmarks:
            blocks.extend(_benchmark_blocks(bench, measures))
    # One blank line between blocks, none at the end.
    return "\n".join(blocks)
