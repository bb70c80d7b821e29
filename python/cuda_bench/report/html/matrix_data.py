"""The data of the N-way HTML report: one record per state, one cell per candidate.

The blob of :mod:`.data` (same ``schema`` and ``version``) with ``layout`` ``"matrix"``::

    reference   {name, files}              the baseline
    candidates  [{name, files, counts}]    in the comparison's order; ``counts`` by status
    correction  {method, family_size, confidence, pair_confidence}
    statuses    [{code, key, label, word, meaning, count}]   ``count``: cells of all
                                           candidates
    reasons, texts                         as in the pairwise blob
    columns     [{key, label, type, text?, candidate?}]  a column with ``candidate`` reads
                                           its ``key`` from that cell of the row
    rows        [{id, file?, benchmark, device, device_name?, state, base, base_text,
                  base_spread?, base_samples?, best}]
    cells       per candidate, columns over the rows (one entry per row, ``null`` where
                absent): {status, reason, message, cmp_text, cmp_spread, cmp_samples,
                change, change_text, plot}; ``status`` is ``null`` where the candidate
                has no row for the state
    plots       as in the pairwise blob; a cell's ``plot`` is its position

The cells are columns, not one object per cell, so that no key repeats 15,000 times in a
comparison of 5,000 states with three candidates; the script makes them per-row objects.
A SAME or SKIP cell has no ``message`` (its change text and reason say what it would).

``best`` is the text of :attr:`~cuda.bench.compare.many.MatrixRow.best` in the words of
the terminal and markdown tables (:func:`~..matrix.best_text`): a name, ``tie:`` and the
names whose intervals overlap the fastest one's, ``all tie`` when that is the baseline
and every candidate, or ``undecided``. Plots go to the
most changed cells of every candidate together (:func:`.distributions.plot_order` over all
cells), at most ``plot_limit``.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from ...compare.many import MatrixRow, MultiComparison
from ...compare.model import Row, Status
from ..matrix import best_text
from ..tables import judged_change
from .data import (
    DATA_SCHEMA,
    DATA_VERSION,
    DEFAULT_PLOT_LIMIT,
    Texts,
    column_cells,
    device_fields,
    reason_entries,
    side_fields,
    side_files,
    sort_number,
    state_text,
    status_entries,
    verdict_fields,
)
from .distributions import DEFAULT_PLOT_POINTS, plot_order, plot_record, side_samples

if TYPE_CHECKING:
    from ...results._tools_api import SubBenchmarkState

__all__ = ["CELL_FIELDS", "MATRIX_LAYOUT", "matrix_page_data"]

#: The ``layout`` of the N-way blob.
MATRIX_LAYOUT: Final = "matrix"


class _Candidates:
    """Per candidate: its rows' positions and the table texts of those rows."""

    def __init__(self, multi: MultiComparison) -> None:
        self.positions = [
            {id(row): index for index, row in enumerate(candidate.comparison.rows)}
            for candidate in multi.candidates
        ]
        self.cells = [column_cells(candidate.comparison.rows) for candidate in multi.candidates]

    def text(self, candidate: int, row: Row, header: str) -> str:
        return self.cells[candidate][header][self.positions[candidate][id(row)]]


#: The per-candidate columns of ``cells``, in order.
CELL_FIELDS: Final = (
    "status",
    "reason",
    "message",
    "cmp_text",
    "cmp_spread",
    "cmp_samples",
    "change",
    "change_text",
    "plot",
)

#: Cells whose message is left out: their change text and reason say it all, and a
#: message per cell (each with its own numbers) would be most of a large page.
_TERSE: Final = frozenset({Status.SAME, Status.SKIP})


def _cell(row: Row, candidate: int, texts: Texts, tables: _Candidates) -> dict[str, Any]:
    cell: dict[str, Any] = {}
    verdict_fields(cell, row, texts, message=row.status not in _TERSE)
    cell["cmp_text"] = tables.text(candidate, row, "Cmp")
    side_fields(cell, "cmp", row.cmp)
    cell["change"] = sort_number(judged_change(row))
    cell["change_text"] = tables.text(candidate, row, "Change")
    return cell


def _file_text(entry: MatrixRow) -> str:
    """The baseline file a state comes from (names only), or ``""`` for a state only
    candidates have."""
    return ", ".join(os.path.basename(path) for path in entry.state.input.split(", ") if path)


def _row_record(
    index: int, entry: MatrixRow, texts: Texts, tables: _Candidates, files: bool
) -> dict[str, Any]:
    present = [(k, row) for k, row in enumerate(entry.cells) if row is not None]
    # The baseline side of the first pair that has it (every pair shares the baseline).
    source = next(((k, row) for k, row in present if row.ref is not None), present[0])
    record: dict[str, Any] = {"id": index}
    if files:
        record["file"] = _file_text(entry)
    record["benchmark"] = entry.state.benchmark
    device_fields(record, source[1], texts)
    record["state"] = state_text(source[1])
    record["base"] = sort_number(entry.baseline.center if entry.baseline is not None else None)
    record["base_text"] = tables.text(source[0], source[1], "Ref")
    side_fields(record, "base", entry.baseline)
    record["best"] = best_text(entry)
    return record


def _cell_columns(
    matrix: Sequence[MatrixRow], count: int, texts: Texts, tables: _Candidates
) -> list[dict[str, list[Any]]]:
    """Per candidate, each of :data:`CELL_FIELDS` as a list over the rows (``null`` where
    the cell or the field is absent): no key is repeated per cell."""
    columns = [{name: [None] * len(matrix) for name in CELL_FIELDS} for _ in range(count)]
    for index, entry in enumerate(matrix):
        for k, row in enumerate(entry.cells):
            if row is not None:
                for name, value in _cell(row, k, texts, tables).items():
                    columns[k][name][index] = value
    return columns


def _columns(multi: MultiComparison, files: bool) -> list[dict[str, Any]]:
    columns: list[dict[str, Any]] = (
        [{"key": "file", "label": "File", "type": "text"}] if files else []
    )
    columns += [
        {"key": "benchmark", "label": "Benchmark", "type": "text"},
        {"key": "device", "label": "Device", "type": "text"},
        {"key": "state", "label": "State", "type": "text"},
        {"key": "base", "label": multi.baseline, "type": "number", "text": "base_text"},
    ]
    for k, name in enumerate(multi.names):
        columns.append(
            {
                "key": "change",
                "label": f"{name} change",
                "type": "number",
                "text": "change_text",
                "candidate": k,
            }
        )
        columns.append(
            {"key": "status", "label": f"{name} status", "type": "status", "candidate": k}
        )
    columns.append({"key": "best", "label": "Best", "type": "text"})
    return columns


def matrix_page_data(
    multi: MultiComparison,
    *,
    plot_limit: int = DEFAULT_PLOT_LIMIT,
    plot_points: int = DEFAULT_PLOT_POINTS,
    samples: Callable[[SubBenchmarkState | None], Any | None] = side_samples,
) -> dict[str, Any]:
    """The blob described in the module docstring; ``plot_limit`` cells get plots."""
    matrix = multi.matrix()
    tables = _Candidates(multi)
    texts = Texts()
    # Directory inputs: several files per side, so the table says which one a state is from.
    files = any(len(candidate.comparison.inputs) > 1 for candidate in multi.candidates)
    records = [_row_record(i, entry, texts, tables, files) for i, entry in enumerate(matrix)]
    cells = _cell_columns(matrix, len(multi.candidates), texts, tables)
    # Every cell, flattened, so that the most changed cells of all candidates get plots.
    where = [
        (i, k)
        for i, entry in enumerate(matrix)
        for k, row in enumerate(entry.cells)
        if row is not None
    ]
    flat = [row for entry in matrix for row in entry.cells if row is not None]
    plots: list[dict[str, Any]] = []
    for index in sorted(plot_order(flat, plot_limit)):
        i, k = where[index]
        cells[k]["plot"][i] = len(plots)
        plots.append(plot_record(flat[index], plot_points, samples))
    totals: Counter[Status] = Counter()
    for candidate in multi.candidates:
        totals.update(candidate.comparison.counts)
    first = multi.candidates[0].comparison
    return {
        "schema": DATA_SCHEMA,
        "version": DATA_VERSION,
        "layout": MATRIX_LAYOUT,
        "reference": {
            "name": multi.baseline,
            "files": side_files(first, ref=True),
        },
        "candidates": [
            {
                "name": candidate.name,
                "files": side_files(candidate.comparison, ref=False),
                "counts": {
                    status.value: count for status, count in candidate.comparison.counts.items()
                },
            }
            for candidate in multi.candidates
        ],
        "correction": {
            "method": str(multi.correction),
            "family_size": multi.family_size,
            "confidence": multi.confidence,
            "pair_confidence": multi.pair_confidence,
        },
        "statuses": status_entries(totals),
        "reasons": reason_entries(flat),
        "texts": texts.values(),
        "columns": _columns(multi, files),
        "rows": records,
        "cells": cells,
        "plots": plots,
        "plot_limit": plot_limit,
    }
