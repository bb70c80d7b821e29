"""The per-row record of a comparison: one field list behind the JSON and CSV reports and
:meth:`~.model.Comparison.to_dataframe`.

:data:`ROW_FIELDS` is the schema as data: name, type, unit, meaning and how to read the
value from a row. ``docs/report-schema.md`` documents the same list, and a test keeps the
two in step. The JSON report adds the axis values as a list of objects to these fields;
:func:`flat_records` is the tidy shape of the CSV report and the DataFrame (one column per
axis and per threshold, so every row stands alone).

Units: times in seconds, clock rates in Hz, relative quantities as fractions (``0.05`` is
5 %), ratios as ``compare / reference``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Final, cast

import msgspec

from .._untrusted import json_names
from ._frame_types import FRAME_DTYPES, integer_column
from .config import SCHEMA as _CONFIG_SCHEMA
from .exit_policy import FailOn, normalize_conditions, row_conditions
from .thresholds import Thresholds

if TYPE_CHECKING:
    import pandas as pd

    from . import model as _model
    from .model import Comparison, Effect, Row, SideEstimate
else:
    from .._lazy import LazyModule

    # RowContext's fields are named through the module, imported when an annotation is
    # read (typing.get_type_hints): the model imports this module for its frame.
    _model = LazyModule("cuda.bench.compare.model")

__all__ = [
    "APPENDED_FIELDS",
    "DESIGN_COLUMNS",
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

#: Identifies the report format; readers should check both.
SCHEMA_NAME: Final = "nvbench-tools.compare"
#: Bumped on any incompatible change (a removed or renamed field, a changed meaning).
#: Adding fields keeps the version. 2: ``change_lo/hi`` became ``interval_change_lo/hi``,
#: ``effect_lo/hi`` ``effect_ci_lo/hi`` (and the same for ``cycle_effect``), status SKIP.
SCHEMA_VERSION: Final = 2


class RowContext(msgspec.Struct, frozen=True):
    """What a field reads: the row, its position, the comparison and ``--fail-on``."""

    index: int
    row: _model.Row
    comparison: _model.Comparison
    fail_on: tuple[FailOn, ...] = ()


class RowField(msgspec.Struct, frozen=True):
    """One field of a row record.

    ``type`` is a JSON type name (``string``, ``integer``, ``number``, ``boolean``,
    ``array``); ``nullable`` fields may be ``null``. ``unit``: ``s``, ``Hz``,
    ``fraction``, ``ratio``, ``count`` or empty.
    """

    name: str
    type: str
    nullable: bool
    unit: str
    description: str
    value: Callable[[RowContext], Any]
    #: An ``array`` of names (free text, any character): the flat records write it as a JSON
    #: array text (:func:`~.._untrusted.json_names`), which reads back whole; other arrays
    #: (fixed words) are joined with ``;``.
    names: bool = False


def _side(context: RowContext, ref: bool) -> SideEstimate | None:
    return context.row.ref if ref else context.row.cmp


def _side_fields(prefix: str, ref: bool) -> tuple[RowField, ...]:
    who = "reference" if ref else "compare"

    def field(
        name: str,
        kind: str,
        unit: str,
        description: str,
        read: Callable[[SideEstimate], Any],
    ) -> RowField:
        def value(context: RowContext) -> Any:
            side = _side(context, ref)
            return None if side is None else read(side)

        return RowField(f"{prefix}_{name}", kind, True, unit, f"{who}: {description}", value)

    def bound(which: str) -> Callable[[SideEstimate], float | None]:
        def read(side: SideEstimate) -> float | None:
            return None if side.interval is None else float(getattr(side.interval, which))

        return read

    return (
        field("center", "number", "s", "center time the decision used", lambda s: s.center),
        field("lo", "number", "s", "lower end of the timing interval", bound("lo")),
        field("hi", "number", "s", "upper end of the timing interval", bound("hi")),
        field("spread", "number", "fraction", "relative dispersion", lambda s: s.noise),
        field("source", "string", "", "where the estimate came from", lambda s: s.source.value),
        field("mean", "number", "s", "NVBench's mean time", lambda s: s.mean),
        field(
            "stdev_relative",
            "number",
            "fraction",
            "NVBench's relative standard deviation",
            lambda s: s.stdev_relative,
        ),
        field("sample_count", "integer", "count", "number of samples", lambda s: s.sample_count),
        field("clock_rate", "number", "Hz", "mean SM clock rate", lambda s: s.clock_rate),
        field("is_skipped", "boolean", "", "NVBench skipped the state", lambda s: s.is_skipped),
        field("skip_reason", "string", "", "why NVBench skipped it", lambda s: s.skip_reason),
        field("sample_file", "string", "", "sample-times side file", lambda s: s.sample_file),
        field(
            "frequency_file",
            "string",
            "",
            "SM-clock side file",
            lambda s: s.frequency_file,
        ),
    )


def _effect_fields(prefix: str, cycles: bool) -> tuple[RowField, ...]:
    what = "cycle-space effect" if cycles else "effect"

    def effect(context: RowContext) -> Effect | None:
        verdict = context.row.verdict
        return verdict.cycle_effect if cycles else verdict.effect

    def field(
        name: str, kind: str, unit: str, description: str, column: str | None = None
    ) -> RowField:
        def value(context: RowContext) -> Any:
            found = effect(context)
            return None if found is None else getattr(found, name)

        label = f"{prefix}_{column or name}"
        return RowField(label, kind, True, unit, f"{what}: {description}", value)

    return (
        field("ratio", "number", "ratio", "estimated compare/reference ratio of the centers"),
        field("lo", "number", "ratio", "lower end of its confidence interval", "ci_lo"),
        field("hi", "number", "ratio", "upper end of its confidence interval", "ci_hi"),
        field("confidence", "number", "fraction", "confidence level of the interval"),
        field("space", "string", "", "'time' or 'cycles'"),
        field("basis", "string", "", "how the interval was obtained"),
        field("tolerance", "number", "fraction", "half-width of the tolerance band it was held to"),
    )


def _input_files(context: RowContext, ref: bool) -> list[str] | None:
    """The row's pair's files of one side, as given; ``None`` where the comparison records
    none."""
    inputs = context.comparison.inputs
    if context.row.pair >= len(inputs):
        return None
    files = inputs[context.row.pair].ref if ref else inputs[context.row.pair].cmp
    return list(files) if files else None


def _input_file(context: RowContext, ref: bool) -> str | None:
    """``ref_file``/``cmp_file``, kept for older readers: the files joined with ``, ``,
    which a name holding one makes impossible to split (``ref_files`` is the list)."""
    files = _input_files(context, ref)
    return None if files is None else ", ".join(files)


def evidence_source(row: Row) -> str | None:
    """The estimate sources of a row: ``summary``, or ``summary/samples`` when they differ;
    a side file that exists but was rejected is named with its problem, e.g. ``summary
    (reference side file rejected: sample times: ...)``, so that an estimate from the
    summaries after a corrupt file is not mistaken for one without side files."""
    sides = [side for side in (row.ref, row.cmp) if side is not None]
    if not sides:
        return None
    sources = [side.source.value for side in sides]
    text = sources[0] if len(set(sources)) == 1 else "/".join(sources)
    for who, side in (("reference", row.ref), ("compare", row.cmp)):
        if side is not None and side.side_file_problem is not None:
            text += f" ({who} side file rejected: {side.side_file_problem})"
    return text


def _calibrated_tolerance(row: Row) -> float | None:
    effect = row.verdict.effect
    return None if effect is None else effect.calibrated_tolerance


def _bounds(context: RowContext, which: int) -> float | None:
    bounds = context.row.change_bounds
    return None if bounds is None else bounds[which]


#: Every field of a row record, in report order.
ROW_FIELDS: Final[tuple[RowField, ...]] = (
    RowField("index", "integer", False, "", "position of the row in the report", lambda c: c.index),
    RowField("pair", "integer", False, "", "index of the input file pair", lambda c: c.row.pair),
    RowField(
        "ref_file", "string", True, "", "reference input file", lambda c: _input_file(c, True)
    ),
    RowField("cmp_file", "string", True, "", "compare input file", lambda c: _input_file(c, False)),
    RowField("benchmark", "string", False, "", "benchmark name", lambda c: c.row.benchmark),
    RowField(
        "occurrence",
        "integer",
        False,
        "",
        "0 for the first state with this key in its device section, 1 for a duplicate, ...",
        lambda c: c.row.occurrence,
    ),
    RowField(
        "device_pair",
        "integer",
        False,
        "",
        "position of the device pair in the benchmark",
        lambda c: c.row.device_pair,
    ),
    RowField("ref_device", "integer", True, "", "reference device id", lambda c: c.row.ref_device),
    RowField("cmp_device", "integer", True, "", "compare device id", lambda c: c.row.cmp_device),
    RowField(
        "ref_device_name", "string", True, "", "reference device", lambda c: c.row.ref_device_name
    ),
    RowField(
        "cmp_device_name", "string", True, "", "compare device", lambda c: c.row.cmp_device_name
    ),
    RowField(
        "ref_state_name",
        "string",
        True,
        "",
        "NVBench state name in the reference file",
        lambda c: c.row.ref_state_name,
    ),
    RowField(
        "cmp_state_name",
        "string",
        True,
        "",
        "NVBench state name in the compare file",
        lambda c: c.row.cmp_state_name,
    ),
    RowField(
        "key",
        "string",
        False,
        "",
        "state name without its Device= token (the matching key)",
        lambda c: c.row.key,
    ),
    RowField(
        "status",
        "string",
        False,
        "",
        "SAME, FAST, SLOW, AMBG, ????, ADDED, REMOVED or SKIP",
        lambda c: c.row.status.value,
    ),
    RowField(
        "reason_code", "string", False, "", "canonical reason code", lambda c: c.row.reason.value
    ),
    RowField(
        "reason_alias",
        "string",
        False,
        "",
        "short reason alias (explain table)",
        lambda c: c.row.reason.alias,
    ),
    RowField(
        "reason_message",
        "string",
        False,
        "",
        "the reason in words, with this row's numbers",
        lambda c: c.row.verdict.text,
    ),
    RowField(
        "severity",
        "number",
        False,
        "",
        "how far from passing (orders rows with the same reason; 0 when not graded)",
        lambda c: c.row.verdict.severity,
    ),
    RowField(
        "frac_diff",
        "number",
        True,
        "fraction",
        "(cmp center - ref center) / ref center",
        lambda c: c.row.frac_diff,
    ),
    RowField(
        "center_change",
        "number",
        True,
        "fraction",
        "(cmp center - ref center) / min(cmp center, ref center)",
        lambda c: c.row.center_change,
    ),
    RowField(
        "interval_change_lo",
        "number",
        True,
        "fraction",
        "least change the two timing intervals allow (symmetric difference; not a "
        "confidence interval)",
        lambda c: _bounds(c, 0),
    ),
    RowField(
        "interval_change_hi",
        "number",
        True,
        "fraction",
        "most change the two timing intervals allow (symmetric difference; not a "
        "confidence interval)",
        lambda c: _bounds(c, 1),
    ),
    *_effect_fields("effect", cycles=False),
    *_effect_fields("cycle_effect", cycles=True),
    RowField(
        "calibrated_tolerance",
        "number",
        True,
        "fraction",
        "tolerance the A/A calibration asked for this state, before the [ci] max_tolerance "
        "cap (effect_tolerance is the one used); null when no calibration raised it",
        lambda c: _calibrated_tolerance(c.row),
    ),
    RowField(
        "evidence_source",
        "string",
        True,
        "",
        "estimate sources: summary, samples, mean, none; 'ref/cmp' when they differ",
        lambda c: evidence_source(c.row),
    ),
    *_side_fields("ref", ref=True),
    *_side_fields("cmp", ref=False),
    RowField(
        "failed_conditions",
        "array",
        False,
        "",
        "--fail-on conditions this row triggers (strings)",
        lambda c: [condition.value for condition in row_conditions(c.row, c.fail_on)],
    ),
    # Last, so that the columns of a CSV report before them keep their places (added
    # 2026-11-29).
    RowField(
        "ref_files",
        "array",
        True,
        "",
        "reference input files (several: runs), as given",
        lambda c: _input_files(c, True),
        names=True,
    ),
    RowField(
        "cmp_files",
        "array",
        True,
        "",
        "compare input files (several: runs), as given",
        lambda c: _input_files(c, False),
        names=True,
    ),
)


# ---------------------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------------------


def threshold_items(thresholds: Thresholds) -> list[tuple[str, float | int]]:
    """``(TOML key, value)`` of every threshold, e.g. ``("clear_gap.relative", 0.005)``;
    integer keys (``ci.resamples``) stay integers."""
    return [
        (
            entry.path,
            int(getattr(thresholds, entry.field))
            if entry.integer
            else float(getattr(thresholds, entry.field)),
        )
        for entry in _CONFIG_SCHEMA
    ]


def axis_names(comparison: Comparison) -> tuple[str, ...]:
    """Every axis name of the comparison's rows, in first-seen order."""
    names: dict[str, None] = {}
    for row in comparison.rows:
        names.update(dict.fromkeys(value.name for value in row.axis_values))
    return tuple(names)


def axis_column(name: str) -> str:
    """The flat column of an axis: ``axis.Elements``."""
    return f"axis.{name}"


def threshold_column(key: str) -> str:
    """The flat column of a threshold: ``threshold.clear_gap.relative``."""
    return f"threshold.{key}"


#: Suite-level columns of the flat records (the same value on every line):
#: ``(column, SuiteSummary attribute)``.
SUITE_COLUMNS: Final = (
    ("suite.geomean_ratio", "ratio"),
    ("suite.geomean_lo", "lo"),
    ("suite.geomean_hi", "hi"),
    ("suite.geomean_confidence", "confidence"),
    ("suite.expected_false_flags", "expected_false_flags"),
)


def _suite_values(comparison: Comparison) -> dict[str, Any]:
    from .suite import suite_summary

    summary = suite_summary(comparison)
    return {
        column: None if summary is None else getattr(summary, name)
        for column, name in SUITE_COLUMNS
    }


#: A paired comparison's ``design`` (CSV column, JSON field); only paired comparisons have
#: them, so every other CSV keeps its columns.
DESIGN_COLUMNS: Final = (
    ("design.rounds", "rounds"),
    ("design.order", "order"),
    ("design.seed", "seed"),
    ("design.first", "first"),
)


def _design_values(comparison: Comparison) -> dict[str, Any]:
    design = comparison.settings.get("design")
    if not isinstance(design, dict):
        return {}
    values = {column: design.get(name) for column, name in DESIGN_COLUMNS}
    first = values["design.first"]
    values["design.first"] = ";".join(first) if isinstance(first, list) else None
    return values


#: Row fields added after the CSV report's columns were laid out (2026-11-29): the flat
#: records write them after every other column, ``design.*`` included, so that each column
#: a CSV report had before keeps its place for readers that take columns by position (among
#: the row fields they would move every ``axis.*``, ``threshold.*`` and ``suite.*`` column).
APPENDED_FIELDS: Final = ("ref_files", "cmp_files")


def flat_columns(comparison: Comparison) -> list[str]:
    """Columns of :func:`flat_records`, in order."""
    return [
        "schema",
        "schema_version",
        "method",
        "preset",
        *(spec.name for spec in ROW_FIELDS if spec.name not in APPENDED_FIELDS),
        *(axis_column(name) for name in axis_names(comparison)),
        *(threshold_column(key) for key, _ in threshold_items(comparison.thresholds)),
        *(column for column, _ in SUITE_COLUMNS),
        *_design_values(comparison),
        *APPENDED_FIELDS,
    ]


def flat_records(
    comparison: Comparison,
    fail_on: str | Iterable[FailOn | str] = (),
    *,
    typed_axes: bool = False,
) -> list[dict[str, Any]]:
    """Tidy records: the row fields, one ``axis.<name>`` column per axis and one
    ``threshold.<key>`` column per threshold, plus schema, method and preset (and a paired
    comparison's ``design.*``).

    Axis cells hold the stored text (``"1048576"``), or with ``typed_axes`` the typed value
    (``1048576``); a state without that axis has ``None``. ``failed_conditions`` is joined
    with ``;``; a list of names (``ref_files``, ``cmp_files``) is a JSON array text, which
    no name can break (:func:`~.._untrusted.json_names`).
    """
    conditions = normalize_conditions(fail_on)
    names = axis_names(comparison)
    constant: dict[str, Any] = {
        "schema": SCHEMA_NAME,
        "schema_version": SCHEMA_VERSION,
        "method": comparison.method,
        "preset": comparison.preset,
    }
    thresholds = {
        threshold_column(key): value for key, value in threshold_items(comparison.thresholds)
    }
    suite = _suite_values(comparison)
    design = _design_values(comparison)
    records: list[dict[str, Any]] = []
    for index, row in enumerate(comparison.rows):
        context = RowContext(index, row, comparison, conditions)
        record = dict(constant)
        appended: dict[str, Any] = {}
        for spec in ROW_FIELDS:
            value = spec.value(context)
            if isinstance(value, list):
                value = json_names(value) if spec.names else ";".join(value)
            (appended if spec.name in APPENDED_FIELDS else record)[spec.name] = value
        axes = {value.name: value for value in reversed(row.axis_values)}
        for name in names:
            found = axes.get(name)
            cell = None if found is None else (found.typed if typed_axes else found.value)
            record[axis_column(name)] = cell
        record.update(thresholds)
        record.update(suite)
        record.update(design)
        record.update(appended)
        records.append(record)
    return records


def comparison_frame(
    comparison: Comparison, fail_on: str | Iterable[FailOn | str] = ()
) -> pd.DataFrame:
    """A tidy :class:`pandas.DataFrame`, one row per compared state.

    The columns are those of the CSV report (:func:`flat_columns`), with typed axis values
    (ints, floats, strings) and missing numbers as NaN. Needs pandas
    (``python -m pip install '.[pandas]'`` from the nvbench-tools checkout's root).
    """
    from .._deps import require

    pandas = require("pandas", extra="pandas", purpose="Comparison.to_dataframe()")
    records = flat_records(comparison, fail_on, typed_axes=True)
    frame = pandas.DataFrame.from_records(records, columns=flat_columns(comparison))
    # Columns that are entirely missing (no effect estimates yet) would otherwise come out
    # as object columns; give every field its schema type, missing values as NA. Integers
    # beyond int64 stay Python ints (dtype object).
    for spec in ROW_FIELDS:
        dtype = FRAME_DTYPES.get((spec.type, spec.nullable))
        if spec.type == "integer" and dtype is not None:
            cells = [record[spec.name] for record in records]
            frame[spec.name] = integer_column(pandas, cells, dtype)
        elif dtype is not None:
            frame[spec.name] = frame[spec.name].astype(dtype)
    for column, _ in SUITE_COLUMNS:
        frame[column] = frame[column].astype("float64")
    for column in ("design.rounds", "design.seed"):
        if column in frame:
            frame[column] = integer_column(pandas, [record.get(column) for record in records])
    for name in axis_names(comparison):
        # int64 axes stay integers even where some states lack the axis.
        column = axis_column(name)
        cells = [record[column] for record in records]
        present = [cell for cell in cells if cell is not None]
        if present and all(isinstance(c, int) and not isinstance(c, bool) for c in present):
            frame[column] = integer_column(pandas, cells)
    return cast("pd.DataFrame", frame)
