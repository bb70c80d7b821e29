"""``--json PATH``: the comparison as a versioned JSON document (``docs/report-schema.md``).

>>> import json
>>> data = json.loads(render_json(comparison))            # doctest: +SKIP
>>> data["schema"], data["schema_version"]                # doctest: +SKIP
('nvbench-tools.compare', 1)

Every row is reported, whatever a display threshold hides. Numbers are JSON numbers;
non-finite values, which JSON cannot hold, are the strings ``"inf"``, ``"-inf"`` and
``"nan"`` (an infinite noise is NVBench's "unknown dispersion").
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from .._tools_version import __version__
from .._untrusted import json_text
from ..compare.exit_policy import FailOn, evaluate, normalize_conditions
from ..compare.model import Comparison, Row, Status, reason_description
from ..compare.records import (
    ROW_FIELDS,
    SCHEMA_NAME,
    SCHEMA_VERSION,
    RowContext,
    threshold_items,
)
from ..compare.skipped import skip_reasons
from ..compare.suite import suite_summary
from .document import COMPARE_TOOL, comparison_notes, tool_name
from .format import AxisStyle, format_axis_value

__all__ = ["TOOL_NAME", "axis_objects", "render_json", "report_data", "row_records"]

#: The ``tool.name`` of reports written by this package.
TOOL_NAME = COMPARE_TOOL


def axis_objects(row: Row) -> list[dict[str, Any]]:
    """The axis values of a row: ``{name, type, value (stored text), display}`` each."""
    return [
        {
            "name": value.name,
            "type": value.type,
            "value": value.value,
            "display": format_axis_value(value, AxisStyle.COMPACT),
        }
        for value in row.axis_values
    ]


def row_records(
    comparison: Comparison, fail_on: str | Iterable[FailOn | str] = ()
) -> list[dict[str, Any]]:
    """The ``rows`` of the report: every row field plus ``axes``, floats unconverted."""
    conditions = normalize_conditions(fail_on)
    records: list[dict[str, Any]] = []
    for index, row in enumerate(comparison.rows):
        context = RowContext(index, row, comparison, conditions)
        record = {spec.name: spec.value(context) for spec in ROW_FIELDS}
        record["axes"] = axis_objects(row)
        records.append(record)
    return records


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(item) for item in value]
    return value


def _devices(comparison: Comparison) -> dict[str, Any]:
    settings = comparison.settings
    return {
        "reference": settings.get("ref_devices"),
        "compare": settings.get("cmp_devices"),
        "ignore_devices": bool(settings.get("ignore_devices", False)),
    }


def _reasons(comparison: Comparison) -> list[dict[str, Any]]:
    return [
        {
            "status": status.value,
            "code": reason.value,
            "alias": reason.alias,
            "count": count,
            "message": row.verdict.text,
            "description": reason_description(reason, count, row),
        }
        for status in (Status.AMBG, Status.UNKNOWN)
        for reason, count, row in comparison.reason_counts(status)
    ]


def _fail_on(comparison: Comparison, conditions: tuple[FailOn, ...]) -> dict[str, Any]:
    positions = {id(row): index for index, row in enumerate(comparison.rows)}
    outcome = evaluate(comparison, conditions)
    return {
        "conditions": [condition.value for condition in conditions],
        "failed": outcome.failed,
        "failures": [
            {
                "condition": failure.condition.value,
                "rows": [positions[id(row)] for row in failure.rows],
                "unpaired_files": [
                    {"side": side, "path": path} for side, path in failure.unpaired_files
                ],
            }
            for failure in outcome.failures
        ],
    }


def _archive(comparison: Comparison) -> dict[str, Any] | None:
    """What a gate gated against (``settings["archive_runs"]``), for ``nvbench-history
    report --gate`` to tell one archive's gate from another's; ``None`` for a comparison."""
    runs = comparison.settings.get("archive_runs")
    if runs is None:
        return None
    return {"runs": [str(run) for run in runs]}


def report_data(
    comparison: Comparison, *, fail_on: str | Iterable[FailOn | str] = ()
) -> dict[str, Any]:
    """The report as plain Python data (before non-finite numbers become strings)."""
    conditions = normalize_conditions(fail_on)
    counts = comparison.counts
    change = suite_summary(comparison)
    return {
        "schema": SCHEMA_NAME,
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": tool_name(comparison), "version": __version__},
        "method": comparison.method,
        "preset": comparison.preset,
        "thresholds": dict(threshold_items(comparison.thresholds)),
        "inputs": [{"ref": list(pair.ref), "cmp": list(pair.cmp)} for pair in comparison.inputs],
        "filters": list(comparison.filters),
        "design": comparison.settings.get("design"),
        "archive": _archive(comparison),
        "devices": _devices(comparison),
        "total": len(comparison.rows),
        "counts": {status.value: counts[status] for status in Status},
        "reasons": _reasons(comparison),
        "skipped": [
            {"reason": reason, "count": count} for reason, count in skip_reasons(comparison)
        ],
        "geomean": None
        if change is None
        else {
            "ratio": change.ratio,
            "rows": change.rows,
            "lo": change.lo,
            "hi": change.hi,
            "confidence": change.confidence,
            "basis": change.basis,
            "interval_covers": change.interval_covers,
            "drift_rows": change.drift_rows,
            "drift_reasons": dict(change.drift_reasons),
        },
        "expected_false_flags": None
        if comparison.suite is None
        else comparison.suite.expected_false_flags,
        "warnings": list(comparison.warnings),
        "notes": list(comparison_notes(comparison)),
        "unpaired_files": [
            {"side": side, "path": path} for side, path in comparison.unpaired_files
        ],
        "fail_on": _fail_on(comparison, conditions),
        "rows": row_records(comparison, conditions),
    }


def render_json(
    comparison: Comparison, *, fail_on: str | Iterable[FailOn | str] = (), indent: int | None = 2
) -> str:
    """The JSON report text (UTF-8 safe, ends with a newline)."""
    data = _json_safe(report_data(comparison, fail_on=fail_on))
    return json_text(data, indent=indent, allow_nan=False) + "\n"
