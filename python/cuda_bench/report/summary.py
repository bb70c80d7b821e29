"""NVBench-style result tables from a result file: the library behind ``nvbench-json-summary``.

The markdown output is what NVBench's own markdown printer writes in its
``# Benchmark Results`` section (spec §8.1, §8.2), byte for byte; the CSV output is what its
``--csv`` printer writes (spec §9). Names are untrusted text: where they hold markdown
syntax or control characters (CSV: a formula's first character), they are escaped
(:mod:`.._untrusted`), which NVBench does not do; other names are written as NVBench writes
them. Selection (which benchmarks, states and devices) is
decided by the caller and passed in as :class:`SummaryView` values.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from .._untrusted import csv_text, markdown_inline
from ..results._tools_api import (
    BenchmarkResult,
    BenchmarkResultSummary,
    StateAxisValue,
    SubBenchmarkResult,
    SubBenchmarkState,
)
from ..results._values import format_float64
from .format import AxisStyle, format_axis_value, format_summary
from .table import render_nvbench_table

__all__ = [
    "NO_DATA",
    "Column",
    "ResultTable",
    "SummaryView",
    "axis_column",
    "csv_table",
    "is_shown",
    "render_csv",
    "render_markdown",
    "result_tables",
    "select_views",
]

#: What NVBench prints instead of a table without columns.
NO_DATA = "No data -- check log."

#: Hints of summaries that point to side files; never a table column, even when shown hidden.
_FILE_HINT_PREFIX = "file/"

#: Axis types whose stored values the reader checked to be numbers.
_NUMERIC_AXIS_TYPES = frozenset({"int64", "float64"})

#: CSV header suffixes by hint (spec §9).
_CSV_UNIT_SUFFIX: Final = MappingProxyType(
    {
        "duration": " (sec)",
        "item_rate": " (elem/sec)",
        "bytes": " (bytes)",
        "byte_rate": " (bytes/sec)",
    }
)


@dataclass(frozen=True, slots=True)
class SummaryView:
    """The part of one benchmark to show: chosen states and device sections, in file order.

    ``devices`` is empty for CPU-only benchmarks, which have a single section.
    """

    benchmark: SubBenchmarkResult
    states: tuple[SubBenchmarkState, ...]
    devices: tuple[int, ...]

    @property
    def is_cpu_only(self) -> bool:
        """A CPU-only benchmark: one section, no device heading."""
        return self.benchmark.is_cpu_only

    def device_states(self, device: int | None) -> tuple[SubBenchmarkState, ...]:
        """The states of one device section (``None``: the single CPU-only section)."""
        if device is None:
            return self.states
        return tuple(state for state in self.states if state.device == device)


def select_views(
    result: BenchmarkResult,
    *,
    benchmarks: Callable[[SubBenchmarkResult], bool] | None = None,
    states: Callable[[SubBenchmarkResult, SubBenchmarkState], bool] | None = None,
    devices: Collection[int] | None = None,
    drop_empty: bool = False,
) -> tuple[SummaryView, ...]:
    """Views of ``result`` in file order (duplicate benchmarks included).

    ``benchmarks`` and ``states`` are predicates (default: everything); ``devices``
    restricts the device sections of GPU benchmarks (CPU-only ones have none to restrict),
    and a GPU benchmark left without a device is dropped. ``drop_empty`` also drops device
    sections and benchmarks whose states were all filtered out — meant for filtered output,
    where NVBench's "No data" line would wrongly suggest a failed run.
    """
    views: list[SummaryView] = []
    for bench in result.benchmarks:
        if benchmarks is not None and not benchmarks(bench):
            continue
        chosen = tuple(state for state in bench if states is None or states(bench, state))
        if bench.is_cpu_only:
            if drop_empty and not chosen:
                continue
            views.append(SummaryView(bench, chosen, ()))
            continue
        device_ids = tuple(
            device for device in bench.devices if devices is None or device in devices
        )
        if drop_empty:
            present = {state.device for state in chosen}
            device_ids = tuple(device for device in device_ids if device in present)
        if not device_ids:
            continue
        kept = tuple(state for state in chosen if state.device in device_ids)
        views.append(SummaryView(bench, kept, device_ids))
    return tuple(views)


# ---------------------------------------------------------------------------------------
# Columns, built the way NVBench builds them: keyed, in order of first appearance
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Column:
    """A table column: NVBench's internal ``key`` and the ``header`` it prints."""

    key: str
    header: str


class _TableBuilder:
    """Rows of keyed cells; columns appear in the order their keys are first seen."""

    def __init__(self) -> None:
        self._columns: dict[str, Column] = {}
        self._rows: list[dict[str, str]] = []

    def new_row(self) -> dict[str, str]:
        row: dict[str, str] = {}
        self._rows.append(row)
        return row

    def add(self, row: dict[str, str], key: str, header: str, text: str) -> None:
        if key not in self._columns:
            self._columns[key] = Column(key, header)
        row[key] = text

    @property
    def columns(self) -> tuple[Column, ...]:
        return tuple(self._columns.values())

    @property
    def has_cells(self) -> bool:
        return any(self._rows)

    def rows(self) -> tuple[tuple[str, ...], ...]:
        keys = tuple(self._columns)
        return tuple(tuple(row.get(key, "") for key in keys) for row in self._rows)


def axis_column(value: StateAxisValue) -> Column:
    """The markdown column of an axis: keyed by name for pow2 axes, ``name_axis`` otherwise."""
    key = value.name if value.is_pow2 and value.type == "int64" else f"{value.name}_axis"
    return Column(key, value.name)


def is_shown(summary: BenchmarkResultSummary, *, show_hidden: bool = False) -> bool:
    """Whether a summary gets a column: no ``hide`` key (spec §8.2).

    ``show_hidden`` shows hidden summaries too, except the side-file references
    (``file/...`` hints), which hold no value to show.
    """
    if summary.hint is not None and summary.hint.startswith(_FILE_HINT_PREFIX):
        return False
    return show_hidden or not summary.is_hidden


def _shown_summaries(
    state: SubBenchmarkState, show_hidden: bool
) -> Iterable[BenchmarkResultSummary]:
    """The summaries of ``state`` that get a column, in emission order."""
    return (
        summary
        for summary in state.summaries.values()
        if is_shown(summary, show_hidden=show_hidden)
    )


# ---------------------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ResultTable:
    """One table of the markdown output: a benchmark on one device (or CPU-only)."""

    benchmark: str
    device: int | None
    device_name: str | None
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    @property
    def heading(self) -> str | None:
        """``[id] name`` for a device section, ``None`` for a CPU-only benchmark."""
        if self.device is None:
            return None
        return f"[{self.device}] {self.device_name}"

    def render(self) -> str:
        """The table as NVBench prints it, or the "No data" line when it has no columns.

        Headers and cells (names and values from the file: untrusted) are
        :func:`~.._untrusted.markdown_inline`, which leaves NVBench's own names and numbers
        as they are."""
        if not self.headers:
            return NO_DATA + "\n"
        rows = tuple(tuple(map(markdown_inline, row)) for row in self.rows)
        return render_nvbench_table(tuple(map(markdown_inline, self.headers)), rows)


def _markdown_table(
    view: SummaryView, device: int | None, device_name: str | None, show_hidden: bool
) -> ResultTable:
    """One device section of ``view`` as NVBench's markdown printer builds it (spec §8.2)."""
    builder = _TableBuilder()
    for state in view.device_states(device):
        if state.is_skipped:
            continue
        row = builder.new_row()
        for value in state.axis_values:
            column = axis_column(value)
            builder.add(row, column.key, column.header, format_axis_value(value, AxisStyle.TABLE))
        for summary in _shown_summaries(state, show_hidden):
            header = summary.name if summary.name is not None else summary.tag
            builder.add(row, summary.tag, header, format_summary(summary))
    return ResultTable(
        benchmark=view.benchmark.name,
        device=device,
        device_name=device_name,
        headers=tuple(column.header for column in builder.columns),
        rows=builder.rows(),
    )


def _device_name(result: BenchmarkResult, device: int) -> str:
    """The name the file records for ``device``."""
    info = result.devices.get(device)
    # NVBench always describes its devices; a foreign file may not.
    return info.name if info is not None else f"Device {device}"


def result_tables(
    result: BenchmarkResult,
    views: Sequence[SummaryView] | None = None,
    *,
    show_hidden: bool = False,
) -> tuple[ResultTable, ...]:
    """The markdown tables in output order: per benchmark, per device section."""
    tables: list[ResultTable] = []
    for view in select_views(result) if views is None else views:
        if view.is_cpu_only:
            tables.append(_markdown_table(view, None, None, show_hidden))
            continue
        for device in view.devices:
            name = _device_name(result, device)
            tables.append(_markdown_table(view, device, name, show_hidden))
    return tuple(tables)


def render_markdown(
    result: BenchmarkResult,
    views: Sequence[SummaryView] | None = None,
    *,
    show_hidden: bool = False,
) -> str:
    """The ``# Benchmark Results`` section NVBench's markdown printer writes (spec §8.1).

    ``## <benchmark>`` per benchmark, ``### [id] <device>`` per device section (none for
    CPU-only benchmarks), one table each with axis columns then one column per visible
    summary; skipped states are left out. As in NVBench, a blank line precedes each
    ``##`` but none separates a table from the next ``###``. Names are written as text:
    :func:`~.._untrusted.markdown_inline` in headings and cells (NVBench writes them raw).
    """
    chosen = select_views(result) if views is None else tuple(views)
    out = ["# Benchmark Results\n"]
    for view in chosen:
        out.append(f"\n## {markdown_inline(view.benchmark.name)}\n\n")
        if view.is_cpu_only:
            out.append(_markdown_table(view, None, None, show_hidden).render())
            continue
        for device in view.devices:
            table = _markdown_table(view, device, _device_name(result, device), show_hidden)
            out.append(f"### {markdown_inline(table.heading or '')}\n\n")
            out.append(table.render())
    return "".join(out)


# ---------------------------------------------------------------------------------------
# CSV
# ---------------------------------------------------------------------------------------


def _raw_text(value: int | float | str | None) -> str:
    """A value as NVBench's CSV printer writes it: ints decimal, floats shortest round trip;
    text (untrusted) as :func:`~.._untrusted.csv_text`."""
    if value is None:
        return ""
    if isinstance(value, float):
        return format_float64(value)
    if isinstance(value, str):
        return csv_text(value)
    return str(value)


def csv_table(
    result: BenchmarkResult,
    views: Sequence[SummaryView] | None = None,
    *,
    show_hidden: bool = False,
) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """Headers and rows of NVBench's CSV table (spec §9) for the chosen views.

    One row per state, skipped states included (their cells end at ``Skipped``), columns
    in order of first appearance across the whole run. No rows at all → no headers.
    Names and text values are :func:`~.._untrusted.csv_text` (control characters shown,
    no cell a spreadsheet would evaluate); numbers and NVBench's own names stay as written.
    """
    builder = _TableBuilder()
    for view in select_views(result) if views is None else views:
        bench = view.benchmark
        for state in view.states:
            row = builder.new_row()
            builder.add(row, "_bench_name", "Benchmark", csv_text(bench.name))
            device = state.device
            device_id = "" if device is None else str(device)
            device_name = "" if device is None else csv_text(_device_name(result, device))
            builder.add(row, "_device_id", "Device", device_id)
            builder.add(row, "_device_name", "Device Name", device_name)
            for value in state.axis_values:
                name = csv_text(value.name)
                if value.is_pow2 and value.type == "int64":
                    pretty = format_axis_value(value, AxisStyle.COMPACT)
                    key = value.name
                    builder.add(row, f"{key}_axis_pow2_pretty", f"{name} (pow2)", pretty)
                    builder.add(row, f"{key}_axis_plain", name, value.value)
                else:
                    # Numbers (checked when read) as stored; text, or a type we don't know, guarded.
                    numeric = value.type in _NUMERIC_AXIS_TYPES
                    text = value.value if numeric else csv_text(value.value)
                    builder.add(row, f"{value.name}_axis", name, text)
            builder.add(row, "_skip_reason", "Skipped", "Yes" if state.is_skipped else "No")
            if state.is_skipped:
                continue
            for summary in _shown_summaries(state, show_hidden):
                name = summary.name if summary.name is not None else summary.tag
                header = csv_text(name) + _CSV_UNIT_SUFFIX.get(summary.hint or "", "")
                builder.add(row, summary.tag, header, _raw_text(summary.value))
    if not builder.has_cells:
        return (), ()
    return tuple(column.header for column in builder.columns), builder.rows()


def _csv_field(text: str) -> str:
    # NVBench writes fields bare; quoting only what would otherwise break the line keeps
    # every NVBench-written file identical and a stray comma from shifting columns.
    if any(char in text for char in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def render_csv(
    result: BenchmarkResult,
    views: Sequence[SummaryView] | None = None,
    *,
    show_hidden: bool = False,
) -> str:
    """NVBench's ``--csv`` output for the chosen views: header line, one line per state.

    Identical to NVBench's file for NVBench's data; fields holding ``,``, ``"`` or a line
    break are quoted (RFC 4180), where NVBench would write a broken line. Nothing to show →
    the empty string.
    """
    headers, rows = csv_table(result, views, show_hidden=show_hidden)
    if not headers:
        return ""
    lines = [headers, *rows]
    return "".join(",".join(_csv_field(cell) for cell in line) + "\n" for line in lines)
