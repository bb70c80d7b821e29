"""``--csv PATH``: one CSV line per row, every line self-contained (``docs/report-schema.md``).

The columns are :func:`cuda.bench.compare.records.flat_columns`: ``schema``,
``schema_version``, ``method``, ``preset``, the row fields of the JSON report,
``axis.<name>`` per axis (stored value; empty when a state lacks the axis),
``threshold.<key>`` per threshold, ``suite.*`` and ``design.*``, then ``ref_files`` and
``cmp_files`` (added last: every earlier column keeps its place). Empty cells are missing
values; booleans are ``true``/``false``; non-finite numbers ``inf``, ``-inf``, ``nan``;
floats in Python's shortest round-trip text; ``failed_conditions`` joined with ``;``;
``ref_files`` and ``cmp_files`` as JSON array text (a name may hold any separator). Text
cells, the header's ``axis.<name>`` included, are :func:`~.._untrusted.csv_text`.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .._untrusted import csv_text
from ..compare.exit_policy import FailOn
from ..compare.model import Comparison
from ..compare.records import flat_columns, flat_records

__all__ = ["csv_cell", "csv_document", "render_csv"]


def csv_cell(value: Any) -> str:
    """The text of one CSV cell. Numbers stay numbers (``-4.1``); a text cell (a name from
    a result file) is :func:`~.._untrusted.csv_text`: control characters written as visible
    escapes (``\\x1b``), and a leading ``'`` when it begins with ``=``, ``+``, ``-`` or
    ``@``, so spreadsheet programs show it rather than evaluate it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, int):
        return str(value)
    return csv_text(str(value))


def csv_document(columns: Sequence[str], records: Iterable[Mapping[str, Any]]) -> str:
    """CSV text: a header line of ``columns``, then one line per record (its value of each
    column, empty where it has none), every cell :func:`csv_cell` (``\\n`` line ends)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([csv_cell(column) for column in columns])
    for record in records:
        writer.writerow([csv_cell(record.get(column)) for column in columns])
    return buffer.getvalue()


def render_csv(comparison: Comparison, *, fail_on: str | Iterable[FailOn | str] = ()) -> str:
    """The CSV report text: a header line, then one line per row (``\\n`` line ends)."""
    return csv_document(flat_columns(comparison), flat_records(comparison, fail_on))
