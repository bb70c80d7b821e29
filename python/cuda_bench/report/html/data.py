"""The data of an HTML report: one JSON-ready blob the page's script renders from.

Layout (``schema`` ``nvbench-tools.compare-html``, ``version`` 1)::

    reference   {name, files}              the baseline
    candidates  [{name, files}]            what was compared against it (one, pairwise)
    statuses    [{code, key, label, shape, word, meaning, count}]   in sort order (worst
                                           first); ``shape``: SVG path data (:mod:`.badges`)
    reasons     {code: {alias, message}}   every reason a row has
    texts       [text]                     messages and device names, each once; a row's
                                           ``message`` and ``device_name`` index it
    columns     [{key, label, type, text?}]  the table's columns; ``text`` names the
                                           display field of a numeric column
    rows        [{id, candidate, benchmark, device, state, status, reason, ...}]
    plots       [{ref, cmp, ref_interval, cmp_interval, effect, cycles, center_change}]

Every row of the comparison is a record with a ``candidate`` field, so a comparison of
several candidates against one baseline adds records, not a new layout. Display texts are
the ones the terminal tables print (:data:`cuda.bench.report.tables.LAYOUTS`); the numbers
beside them are for sorting. A row's ``plot`` is its position in ``plots``.

The N-way page (:mod:`.matrix_data`) uses the same blob with ``layout`` ``"matrix"``: one
record per state with a cell per candidate. The helpers here build the parts both share.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from ...compare.model import Comparison, Row, SideEstimate, Status
from ..colors import PLAIN, STATUS_MEANING
from ..format import format_noise
from ..tables import LAYOUTS, Display, device_text, judged_change
from .badges import STATUS_SHAPES
from .distributions import DEFAULT_PLOT_POINTS, plot_order, plot_record, side_samples

if TYPE_CHECKING:
    from ...results._tools_api import SubBenchmarkState

__all__ = [
    "DATA_SCHEMA",
    "DATA_VERSION",
    "DEFAULT_PLOT_LIMIT",
    "STATUS_ORDER",
    "Texts",
    "candidate_name",
    "column_cells",
    "device_fields",
    "page_data",
    "reason_entries",
    "side_fields",
    "side_files",
    "side_name",
    "sort_number",
    "state_text",
    "status_entries",
    "verdict_fields",
]

DATA_SCHEMA: Final = "nvbench-tools.compare-html"
DATA_VERSION: Final = 1

#: Rows that get a distribution plot unless told otherwise (``--html-plots``).
DEFAULT_PLOT_LIMIT: Final = 200

#: Status order when the table is sorted by status: what needs a look first.
STATUS_ORDER: Final = (
    Status.SLOW,
    Status.FAST,
    Status.AMBG,
    Status.UNKNOWN,
    Status.REMOVED,
    Status.ADDED,
    Status.SAME,
    Status.SKIP,
)


def _stem(path: str) -> str:
    name = os.path.basename(os.path.normpath(path))
    stem, extension = os.path.splitext(name)
    return stem if extension.lower() == ".json" and stem else name


def side_name(files: Sequence[str], fallback: str) -> str:
    """A file's stem, or the directory that holds several files."""
    if len(files) == 1:
        return _stem(files[0]) or fallback
    if not files:
        return fallback
    try:
        common = os.path.commonpath([os.path.abspath(path) for path in files])
    except ValueError:  # different drives
        return fallback
    return os.path.basename(common) or fallback


def side_files(comparison: Comparison, ref: bool) -> list[str]:
    """The reference (``ref``) or compare side's files of every input pair, each once."""
    found: dict[str, None] = {}
    for pair in comparison.inputs:
        found.update(dict.fromkeys(pair.ref if ref else pair.cmp))
    return list(found)


def candidate_name(comparison: Comparison) -> str:
    """The compare side's name: its file's stem, or its files' common directory."""
    return side_name(side_files(comparison, ref=False), "compare")


def _pair_labels(comparison: Comparison) -> list[str] | None:
    """The compare file of each input pair, when there are several (directory inputs)."""
    if len(comparison.inputs) <= 1:
        return None
    return [", ".join(os.path.basename(path) for path in pair.cmp) for pair in comparison.inputs]


def column_cells(rows: Sequence[Row]) -> dict[str, list[str]]:
    """The ``intervals`` layout's cells by header, whitespace of the alignment removed."""
    return {
        column.header: [" ".join(cell.split()) for cell in column.cells(rows, PLAIN)]
        for column in LAYOUTS[Display.INTERVALS]
    }


def sort_number(value: float | None) -> float | None:
    """A finite number to sort by (6 significant digits: the texts show fewer), else
    ``None`` (JSON has no NaN)."""
    return float(f"{value:.6g}") if value is not None and math.isfinite(value) else None


def state_text(row: Row) -> str:
    """The state's key, numbered when the same key occurs again."""
    return f"{row.key} #{row.occurrence + 1}" if row.occurrence else row.key


class Texts:
    """Long texts that repeat across rows (messages, device names), each stored once."""

    def __init__(self) -> None:
        self.positions: dict[str, int] = {}

    def index(self, text: str) -> int:
        return self.positions.setdefault(text, len(self.positions))

    def values(self) -> list[str]:
        return list(self.positions)


def device_fields(record: dict[str, Any], row: Row, texts: Texts) -> None:
    """A row's ``device`` text and, when either side names its device, ``device_name``."""
    record["device"] = device_text(row)
    names = dict.fromkeys(name for name in (row.ref_device_name, row.cmp_device_name) if name)
    if names:
        record["device_name"] = texts.index(" vs. ".join(names))


def verdict_fields(record: dict[str, Any], row: Row, texts: Texts, *, message: bool = True) -> None:
    """A row's ``status``, ``reason`` and, when it says more than the reason (and
    ``message`` is asked for), ``message``."""
    record["status"] = row.status.value
    record["reason"] = row.reason.value
    if message and row.verdict.message and row.verdict.message != row.reason.message:
        record["message"] = texts.index(row.verdict.message)


def side_fields(record: dict[str, Any], side: str, estimate: SideEstimate | None) -> None:
    """``<side>_spread`` and ``<side>_samples`` of one side's estimate, where known."""
    if estimate is None:
        return
    if estimate.noise is not None:
        record[f"{side}_spread"] = format_noise(estimate.noise)
    if estimate.sample_count is not None:
        record[f"{side}_samples"] = estimate.sample_count


def _row_record(
    index: int,
    row: Row,
    candidate: str,
    cells: dict[str, list[str]],
    pairs: list[str] | None,
    texts: Texts,
) -> dict[str, Any]:
    record: dict[str, Any] = {"id": index, "candidate": candidate}
    if pairs is not None and row.pair < len(pairs):
        record["file"] = pairs[row.pair]
    record["benchmark"] = row.benchmark
    device_fields(record, row, texts)
    record["state"] = state_text(row)
    verdict_fields(record, row, texts)
    record["ref"] = sort_number(row.ref_center)
    record["ref_text"] = cells["Ref"][index]
    record["cmp"] = sort_number(row.cmp_center)
    record["cmp_text"] = cells["Cmp"][index]
    record["change"] = sort_number(judged_change(row))
    record["change_text"] = cells["Change"][index]
    side_fields(record, "ref", row.ref)
    side_fields(record, "cmp", row.cmp)
    return record


def _columns(has_files: bool) -> list[dict[str, str]]:
    columns = [{"key": "file", "label": "File", "type": "text"}] if has_files else []
    columns += [
        {"key": "benchmark", "label": "Benchmark", "type": "text"},
        {"key": "device", "label": "Device", "type": "text"},
        {"key": "state", "label": "State", "type": "text"},
        {"key": "ref", "label": "Ref", "type": "number", "text": "ref_text"},
        {"key": "cmp", "label": "Cmp", "type": "number", "text": "cmp_text"},
        {"key": "change", "label": "Change", "type": "number", "text": "change_text"},
        {"key": "status", "label": "Status", "type": "status"},
        {"key": "reason", "label": "Reason", "type": "reason"},
    ]
    return columns


def status_entries(counts: Mapping[Status, int]) -> list[dict[str, Any]]:
    """The ``statuses`` of the blob, in :data:`STATUS_ORDER`, with ``counts``."""
    return [
        {
            "code": status.value,
            "key": status.name.lower(),
            "label": status.value,
            "shape": STATUS_SHAPES[status],
            "word": STATUS_MEANING[status][0],
            "meaning": STATUS_MEANING[status][1],
            "count": counts.get(status, 0),
        }
        for status in STATUS_ORDER
    ]


def reason_entries(rows: Iterable[Row]) -> dict[str, dict[str, str]]:
    """The ``reasons`` of the blob: every reason of ``rows``, by code."""
    return {
        reason.value: {"alias": reason.alias, "message": reason.message}
        for reason in dict.fromkeys(row.reason for row in rows)
    }


def page_data(
    comparison: Comparison,
    *,
    plot_limit: int = DEFAULT_PLOT_LIMIT,
    plot_points: int = DEFAULT_PLOT_POINTS,
    samples: Callable[[SubBenchmarkState | None], Any | None] = side_samples,
) -> dict[str, Any]:
    """The blob described in the module docstring; ``plot_limit`` rows get plots."""
    rows = comparison.rows
    name = candidate_name(comparison)
    cells = column_cells(rows)
    pairs = _pair_labels(comparison)
    texts = Texts()
    records = [_row_record(i, row, name, cells, pairs, texts) for i, row in enumerate(rows)]
    plots: list[dict[str, Any]] = []
    for index in sorted(plot_order(rows, plot_limit)):
        records[index]["plot"] = len(plots)
        plots.append(plot_record(rows[index], plot_points, samples))
    return {
        "schema": DATA_SCHEMA,
        "version": DATA_VERSION,
        "reference": {
            "name": side_name(side_files(comparison, ref=True), "reference"),
            "files": side_files(comparison, ref=True),
        },
        "candidates": [{"name": name, "files": side_files(comparison, ref=False)}],
        "statuses": status_entries(comparison.counts),
        "reasons": reason_entries(rows),
        "texts": texts.values(),
        "columns": _columns(pairs is not None),
        "rows": records,
        "plots": plots,
        "plot_limit": plot_limit,
    }
