"""Former name of :mod:`cuda.bench.compare.records` (the report schema), which earlier
documentation named for ``comparison_frame``; kept so that imports of it keep working."""

from ..records import (
    ROW_FIELDS,
    SCHEMA_NAME,
    SCHEMA_VERSION,
    SUITE_COLUMNS,
    RowContext,
    RowField,
    axis_column,
    axis_names,
    comparison_frame,
    evidence_source,
    flat_columns,
    flat_records,
    threshold_column,
    threshold_items,
)

__all__ = [
    "ROW_FIELDS",
    "SCHEMA_NAME",
    "SCHEMA_VERSION",
    "SUITE_COLUMNS",
    "RowContext",
    "RowField",
    "axis_column",
    "axis_names",
    "comparison_frame",
    "evidence_source",
    "flat_columns",
    "flat_records",
    "threshold_column",
    "threshold_items",
]
