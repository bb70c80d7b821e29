"""``--json`` and ``--csv`` of an N-way comparison (``docs/report-schema-many.md``).

One record per state and candidate: the matrix position (``state``), the candidate's name,
the state's ``best`` contenders, then every row field of the pairwise report
(:mod:`.json_report`, :mod:`~cuda.bench.compare.records`) for that candidate's row, so a
reader of pairwise reports reads these records too. A state a candidate's comparison has
no row for (a filter or an unpaired file left it out) has no record for that candidate.

>>> data = json.loads(render_many_json(many))             # doctest: +SKIP
>>> data["schema"], data["schema_version"]                # doctest: +SKIP
('nvbench-tools.compare-many', 1)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from .._tools_version import __version__
from .._untrusted import json_text
from ..compare.exit_policy import FailOn, normalize_conditions
from ..compare.many import MultiComparison, state_ref
from ..compare.many_gate import evaluate_many
from ..compare.model import Status
from ..compare.records import APPENDED_FIELDS, flat_columns, flat_records, threshold_items
from ..compare.suite import suite_summary
from .csv_report import csv_document
from .json_report import TOOL_NAME, _json_safe, row_records

__all__ = [
    "MANY_SCHEMA_NAME",
    "MANY_SCHEMA_VERSION",
    "many_columns",
    "many_records",
    "many_report_data",
    "render_many_csv",
    "render_many_json",
    "state_positions",
]

MANY_SCHEMA_NAME: Final = "nvbench-tools.compare-many"
#: Raised when a field is removed or renamed or changes meaning (docs/report-schema-many.md).
MANY_SCHEMA_VERSION: Final = 1

#: The fields every record starts with, before the pairwise row fields.
_LEAD_FIELDS: Final = ("candidate", "state", "best")
#: CSV columns that repeat the document's settings on every line.
_CONSTANT_COLUMNS: Final = (
    "schema",
    "schema_version",
    "baseline",
    "correction",
    "confidence",
    "pair_confidence",
)


def state_positions(many: MultiComparison) -> list[list[int]]:
    """Per candidate, the matrix position (:meth:`MultiComparison.matrix` index) of each of
    its pairwise rows."""
    order = {line.state: index for index, line in enumerate(many.matrix())}
    return [
        [order[state_ref(candidate.comparison, row)] for row in candidate.comparison.rows]
        for candidate in many.candidates
    ]


def _ordered(many: MultiComparison, per_candidate: list[list[dict[str, Any]]]) -> list[Any]:
    """Records of every candidate, lined up state by state (candidates in order within a
    state), each led by ``candidate``, ``state`` and ``best``."""
    matrix = many.matrix()
    positions = state_positions(many)
    keyed: list[tuple[int, int, int, dict[str, Any]]] = []
    for number, (candidate, records) in enumerate(zip(many.candidates, per_candidate, strict=True)):
        for index, record in enumerate(records):
            state = positions[number][index]
            lead = {
                "candidate": candidate.name,
                "state": state,
                "best": list(matrix[state].best),
            }
            keyed.append((state, number, index, {**lead, **record}))
    keyed.sort(key=lambda item: item[:3])
    return [record for *_, record in keyed]


def many_records(
    many: MultiComparison, fail_on: str | Iterable[FailOn | str] = ()
) -> list[dict[str, Any]]:
    """The ``rows`` of the JSON report (floats unconverted)."""
    conditions = normalize_conditions(fail_on)
    return _ordered(
        many, [row_records(candidate.comparison, conditions) for candidate in many.candidates]
    )


def _geomean(comparison: Any) -> dict[str, Any] | None:
    change = suite_summary(comparison)
    if change is None:
        return None
    return {
        "ratio": change.ratio,
        "rows": change.rows,
        "lo": change.lo,
        "hi": change.hi,
        "confidence": change.confidence,
    }


def many_report_data(
    many: MultiComparison,
    *,
    fail_on: str | Iterable[FailOn | str] = (),
    gate: Iterable[str] | None = None,
) -> dict[str, Any]:
    """The report as plain Python data (before non-finite numbers become strings)."""
    conditions = normalize_conditions(fail_on)
    outcome = evaluate_many(many, conditions, gate=gate)
    first = many.candidates[0].comparison
    candidates = []
    for candidate, judged in zip(many.candidates, outcome.candidates, strict=True):
        comparison = candidate.comparison
        counts = comparison.counts
        candidates.append(
            {
                "name": candidate.name,
                "inputs": [
                    {"ref": list(pair.ref), "cmp": list(pair.cmp)} for pair in comparison.inputs
                ],
                "total": len(comparison.rows),
                "counts": {status.value: counts[status] for status in Status},
                "geomean": _geomean(comparison),
                "gates": judged.gates,
                "failed": judged.failed,
                "failed_conditions": [
                    failure.condition.value for failure in judged.outcome.failures
                ],
                "warnings": list(comparison.warnings),
                "unpaired_files": [
                    {"side": side, "path": path} for side, path in comparison.unpaired_files
                ],
            }
        )
    return {
        "schema": MANY_SCHEMA_NAME,
        "schema_version": MANY_SCHEMA_VERSION,
        "tool": {"name": TOOL_NAME, "version": __version__},
        "method": first.method,
        "preset": first.preset,
        "thresholds": dict(threshold_items(first.thresholds)),
        "filters": list(first.filters),
        "baseline": many.baseline,
        "correction": many.correction.value,
        "family_size": many.family_size,
        "confidence": many.confidence,
        "pair_confidence": many.pair_confidence,
        "states": len(many.matrix()),
        "candidates": candidates,
        "fail_on": {
            "conditions": [condition.value for condition in conditions],
            "gate": list(outcome.gate),
            "failed": outcome.failed,
        },
        "rows": many_records(many, conditions),
    }


def render_many_json(
    many: MultiComparison,
    *,
    fail_on: str | Iterable[FailOn | str] = (),
    gate: Iterable[str] | None = None,
    indent: int | None = 2,
) -> str:
    """The JSON report text (UTF-8 safe, ends with a newline)."""
    data = _json_safe(many_report_data(many, fail_on=fail_on, gate=gate))
    return json_text(data, indent=indent, allow_nan=False) + "\n"


def many_columns(many: MultiComparison) -> list[str]:
    """CSV columns: the settings, ``candidate``, ``state``, ``best``, then the pairwise
    columns after their ``schema`` and ``schema_version`` (axis columns of every
    candidate, in first-seen order)."""
    pairwise: dict[str, None] = {}
    for candidate in many.candidates:
        pairwise.update(dict.fromkeys(flat_columns(candidate.comparison)[2:]))
    # Last, as in the pairwise CSV, whatever axis columns a later candidate adds.
    earlier = (column for column in pairwise if column not in APPENDED_FIELDS)
    return [*_CONSTANT_COLUMNS, *_LEAD_FIELDS, *earlier, *APPENDED_FIELDS]


def render_many_csv(many: MultiComparison, *, fail_on: str | Iterable[FailOn | str] = ()) -> str:
    """The CSV report text: a header line, then one line per state and candidate
    (``best`` joined with ``;``)."""
    conditions = normalize_conditions(fail_on)
    columns = many_columns(many)
    constant = {
        "schema": MANY_SCHEMA_NAME,
        "schema_version": MANY_SCHEMA_VERSION,
        "baseline": many.baseline,
        "correction": many.correction.value,
        "confidence": many.confidence,
        "pair_confidence": many.pair_confidence,
    }
    records = _ordered(
        many, [flat_records(candidate.comparison, conditions) for candidate in many.candidates]
    )
    for record in records:
        record.update(constant)
        record["best"] = ";".join(record["best"])
    return csv_document(columns, records)
