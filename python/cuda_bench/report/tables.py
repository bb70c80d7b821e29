"""Comparison tables: one layout per ``--display`` mode, as data.

Each layout is a tuple of :class:`Column` values (header, alignment, and a function from
the table's rows to that column's cells). Cells are computed a column at a time because
interval columns align their parts across rows. Axis columns come first, one per axis of
the benchmark, in NVBench's compact style (``2^20``, floats ``%.5g``).

=============  ===========================================================================
``intervals``  ``Ref``, ``Cmp`` (center with compact ``[-a, +b] unit``), ``Change``,
               ``Status``
``simple``     ``Ref``, ``Ref Span``, ``Cmp``, ``Cmp Span``, ``%C Diff``, ``Change``,
               ``Status``
``explain``    ``Ref [Lo / Ce / Hi]``, ``Cmp [Lo / Ce / Hi]``, ``Ref Spread``, ``Cmp Spread``
               (the relative dispersion the decision used), ``Reason`` (alias), ``Band`` (the
               tolerance held to; methods with one), ``Change``, ``Status``
``legacy``     ``Ref Time``, ``Ref Noise``, ``Cmp Time``, ``Cmp Noise``, ``Diff``,
               ``%Diff``, ``Status``: NVBench's mean and relative standard deviation
               ("Noise", as NVBench names it), with plain differences of the means; the
               status is still this tool's verdict
=============  ===========================================================================

Brackets mean different things in different columns, so :func:`table_legend` gives the one
line printed under each table that says what they mean there.

Rendering is pure: :func:`render_comparison_table` returns GitHub pipe-table text with
``|`` escaped and widths measured in terminal columns (emoji count two, ANSI codes none).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from types import MappingProxyType
from typing import TYPE_CHECKING, Final

import msgspec

from .._untrusted import visible
from ..compare.model import Effect, Row, SideEstimate, Status
from .colors import EMOJI, StatusStyle
from .format import (
    NOT_AVAILABLE,
    AxisStyle,
    distinct_decimals,
    format_axis_value,
    format_duration,
    format_noise,
    format_percent,
    signed_bound,
)
from .intervals import (
    CompactInterval,
    ExplicitInterval,
    align_compact_intervals,
    align_explicit_intervals,
    compact_interval,
    explicit_interval,
)
from .table import COLOURED, MARKDOWN, Align, Table, render_table

if TYPE_CHECKING:
    from ..compare.many import MatrixRow
    from ..compare.model import Comparison

__all__ = [
    "DISPLAY_NAMES",
    "LAYOUTS",
    "Column",
    "Display",
    "RowOrder",
    "axis_cell",
    "axis_names",
    "change_text",
    "comparison_table",
    "device_text",
    "effect_text",
    "is_visible",
    "judged_change",
    "judged_effect",
    "order_rows",
    "render_comparison_table",
    "row_label",
    "table_legend",
    "table_rows",
    "visible_rows",
]


class Display(str, Enum):
    """A table layout (``--display``)."""

    INTERVALS = "intervals"
    SIMPLE = "simple"
    EXPLAIN = "explain"
    LEGACY = "legacy"

    def __str__(self) -> str:
        return str(self.value)


#: ``--display`` choices, the default first.
DISPLAY_NAMES: Final = tuple(display.value for display in Display)

#: Cells of one column for the given rows, in row order.
CellFunction = Callable[[Sequence[Row], StatusStyle], list[str]]


class Column(msgspec.Struct, frozen=True):
    """One column of a layout: header, alignment and how to compute its cells."""

    header: str
    align: Align
    cells: CellFunction
    #: Left out of a table whose cells are all empty (e.g. the band of robust rows).
    optional: bool = False


# ---------------------------------------------------------------------------------------
# Cell text
# ---------------------------------------------------------------------------------------


def _bound_text(ratio: float, decimals: int) -> str:
    """A CI bound of a ratio as a signed percentage without the ``%`` (``+4.3``; a zero
    without a sign: ``0.0``)."""
    if math.isfinite(change := (ratio - 1.0) * 100.0):
        return signed_bound(change, decimals)
    return format_percent(ratio - 1.0, decimals=decimals, signed=True).removesuffix("%")


#: Decimals of the percentages of an effect: one, and up to three more for an interval
#: narrower than that (down to 0.0001 %, a millionth).
_EFFECT_DECIMALS, _EFFECT_DECIMALS_MOST = 1, 4


def effect_text(effect: Effect) -> str:
    """An effect and its interval as signed percentages: ``+4.9% [+4.3, +5.6]``; with more
    decimals where one would write both ends alike (``+0.01% [-0.02, +0.03]``)."""
    decimals = distinct_decimals(
        (effect.lo - 1.0) * 100.0,
        (effect.hi - 1.0) * 100.0,
        _EFFECT_DECIMALS,
        _EFFECT_DECIMALS_MOST,
    )
    center = format_percent(effect.ratio - 1.0, decimals=decimals, signed=True)
    return f"{center} [{_bound_text(effect.lo, decimals)}, {_bound_text(effect.hi, decimals)}]"


def change_text(row: Row) -> str:
    """The ``Change`` cell of a row.

    With an effect estimate on the verdict: the effect and its confidence interval
    (``+4.9% [+4.3, +5.6]``), whatever the status; the change in SM cycles, marked ``cyc``,
    when the verdict rests on the cycles alone because the time interval was too wide to
    tell (kernels whose times split into clock modes: their time estimate says which mode
    each run's median fell in, not what the code did). Otherwise, for FAST and SLOW rows, the
    least change of the time ratio the two timing intervals allow (:attr:`Row.least_change`):
    ``<= -6.1%`` (compare time at most 0.939 of the reference's) or ``>= +1.4%`` (at least
    1.014 of it). Empty for anything else.
    """
    effect = judged_effect(row)
    if effect is not None:
        text = effect_text(effect)
        return f"{text} cyc" if effect is not row.verdict.effect else text
    least = row.least_change
    if least is None:
        return ""
    return f"{'<=' if row.status is Status.FAST else '>='} {format_percent(least, signed=True)}"


def judged_effect(row: Row) -> Effect | None:
    """The effect a row's verdict was decided on: the cycles' for verdicts that rest on
    them alone, else the time effect (``None`` without an estimate)."""
    return row.verdict.judged_effect


def judged_change(row: Row) -> float | None:
    """The change a row's ``Change`` cell shows, what ``--sort change`` and the HTML
    report's Change column order by: the :func:`judged_effect` (the cycle change on rows
    decided in cycles), else the change of the centers."""
    effect = judged_effect(row)
    if effect is not None and math.isfinite(effect.ratio):
        return effect.ratio - 1.0
    return row.frac_diff


def band_text(row: Row) -> str:
    """The ``Band`` cell: the tolerance the row was held to (``±1.00%``), marked ``cal.``
    when a calibration set it, with the tolerance needed when a calibration asked for more
    than ``[ci] max_tolerance`` allows (``±5.00% (needs ±40.00%)``); empty without one."""
    effect = row.verdict.effect
    if effect is None or effect.tolerance is None:
        return ""
    text = f"±{format_percent(effect.tolerance, decimals=2)}"
    needed = effect.calibrated_tolerance
    if needed is None:
        return text
    if needed > effect.tolerance:
        return f"{text} (needs ±{format_percent(needed, decimals=2)})"
    return f"{text} cal."


def _interval(side: SideEstimate | None) -> tuple[float, float, float] | None:
    if side is None or side.interval is None or side.center is None:
        return None
    interval = side.interval
    return interval.lo, interval.center, interval.hi


def _compact(side: SideEstimate | None) -> CompactInterval | None:
    if side is None or side.center is None:
        return None
    bounds = _interval(side)
    parts = compact_interval(*bounds) if bounds is not None else None
    # An interval that cannot be shown still leaves the center worth showing.
    return parts if parts is not None else compact_interval(None, side.center, None)


def _explicit(side: SideEstimate | None) -> ExplicitInterval | str | None:
    if side is None or side.center is None:
        return None
    bounds = _interval(side)
    parts = explicit_interval(*bounds) if bounds is not None else None
    return parts if parts is not None else format_duration(side.center)


def _span(side: SideEstimate | None) -> str:
    bounds = _interval(side)
    if bounds is None:
        return NOT_AVAILABLE
    lo, center, hi = bounds
    if not center > 0:
        return NOT_AVAILABLE
    return format_percent((hi - lo) / center)


def _center(side: SideEstimate | None) -> str:
    return format_duration(None if side is None else side.center)


def _noise(side: SideEstimate | None) -> str:
    return format_noise(None if side is None else side.noise)


def _mean(side: SideEstimate | None) -> str:
    return format_duration(None if side is None else side.mean)


def _stdev(side: SideEstimate | None) -> str:
    return format_noise(None if side is None else side.stdev_relative)


def _mean_diff(row: Row) -> tuple[float, float | None] | None:
    """``cmp.mean - ref.mean`` and that relative to ``ref.mean`` (legacy columns)."""
    if row.ref is None or row.cmp is None:
        return None
    ref, cmp = row.ref.mean, row.cmp.mean
    if ref is None or cmp is None or not (math.isfinite(ref) and math.isfinite(cmp)):
        return None
    return cmp - ref, ((cmp - ref) / ref) if ref > 0 else None


def _legacy_diff(row: Row) -> str:
    diff = _mean_diff(row)
    return NOT_AVAILABLE if diff is None else format_duration(diff[0], signed=True)


def _legacy_percent(row: Row) -> str:
    diff = _mean_diff(row)
    return format_percent(None if diff is None else diff[1], decimals=2, signed=True)


def _per_row(function: Callable[[Row], str]) -> CellFunction:
    def cells(rows: Sequence[Row], style: StatusStyle) -> list[str]:
        return [function(row) for row in rows]

    return cells


def _per_side(function: Callable[[SideEstimate | None], str], ref: bool) -> CellFunction:
    return _per_row(lambda row: function(row.ref if ref else row.cmp))


def _compact_column(ref: bool) -> CellFunction:
    def cells(rows: Sequence[Row], style: StatusStyle) -> list[str]:
        return align_compact_intervals([_compact(row.ref if ref else row.cmp) for row in rows])

    return cells


def _explicit_column(ref: bool) -> CellFunction:
    def cells(rows: Sequence[Row], style: StatusStyle) -> list[str]:
        return align_explicit_intervals([_explicit(row.ref if ref else row.cmp) for row in rows])

    return cells


def _status_cells(rows: Sequence[Row], style: StatusStyle) -> list[str]:
    return [style.label(row.status) for row in rows]


_CHANGE = Column("Change", Align.RIGHT, _per_row(change_text))
_STATUS = Column("Status", Align.CENTER, _status_cells)

#: The columns after the axis columns, per display mode.
LAYOUTS: Final[Mapping[Display, tuple[Column, ...]]] = MappingProxyType(
    {
        Display.INTERVALS: (
            Column("Ref", Align.RIGHT, _compact_column(ref=True)),
            Column("Cmp", Align.RIGHT, _compact_column(ref=False)),
            _CHANGE,
            _STATUS,
        ),
        Display.SIMPLE: (
            Column("Ref", Align.RIGHT, _per_side(_center, ref=True)),
            Column("Ref Span", Align.RIGHT, _per_side(_span, ref=True)),
            Column("Cmp", Align.RIGHT, _per_side(_center, ref=False)),
            Column("Cmp Span", Align.RIGHT, _per_side(_span, ref=False)),
            Column(
                "%C Diff",
                Align.RIGHT,
                _per_row(lambda row: format_percent(row.center_change, signed=True)),
            ),
            _CHANGE,
            _STATUS,
        ),
        Display.EXPLAIN: (
            Column("Ref [Lo / Ce / Hi]", Align.RIGHT, _explicit_column(ref=True)),
            Column("Cmp [Lo / Ce / Hi]", Align.RIGHT, _explicit_column(ref=False)),
            Column("Ref Spread", Align.RIGHT, _per_side(_noise, ref=True)),
            Column("Cmp Spread", Align.RIGHT, _per_side(_noise, ref=False)),
            Column("Reason", Align.LEFT, _per_row(lambda row: row.reason.alias)),
            Column("Band", Align.RIGHT, _per_row(band_text), optional=True),
            _CHANGE,
            _STATUS,
        ),
        Display.LEGACY: (
            Column("Ref Time", Align.RIGHT, _per_side(_mean, ref=True)),
            Column("Ref Noise", Align.RIGHT, _per_side(_stdev, ref=True)),
            Column("Cmp Time", Align.RIGHT, _per_side(_mean, ref=False)),
            Column("Cmp Noise", Align.RIGHT, _per_side(_stdev, ref=False)),
            Column("Diff", Align.RIGHT, _per_row(_legacy_diff)),
            Column("%Diff", Align.RIGHT, _per_row(_legacy_percent)),
            _STATUS,
        ),
    }
)


# ---------------------------------------------------------------------------------------
# Axes and row identity
# ---------------------------------------------------------------------------------------


def axis_names(rows: Sequence[Row]) -> tuple[str, ...]:
    """Axis columns for ``rows``: the benchmark's axes in definition order, then any axis
    only some state has (files of different versions may disagree)."""
    names: dict[str, None] = {}
    seen_benchmarks: set[int] = set()
    for row in rows:
        for state in (row.cmp_state, row.ref_state):
            if state is None:
                continue
            bench = state.benchmark
            if id(bench) in seen_benchmarks:
                continue
            seen_benchmarks.add(id(bench))
            names.update(dict.fromkeys(axis.name for axis in bench.axes))
    for row in rows:
        names.update(dict.fromkeys(value.name for value in row.axis_values))
    return tuple(names)


def axis_cell(row: Row | MatrixRow, name: str) -> str:
    """The value of axis ``name`` of a row's state as the tables write it ("" without it)."""
    for value in row.axis_values:
        if value.name == name:
            return visible(format_axis_value(value, AxisStyle.COMPACT))  # untrusted text
    return ""


def device_text(row: Row) -> str:
    """``[0]``, ``[0] vs. [1]`` when the two sides ran on different ids, ``""`` for CPU."""
    ref, cmp = row.ref_device, row.cmp_device
    if ref is None and cmp is None:
        return ""
    if ref is None or cmp is None or ref == cmp:
        return f"[{cmp if ref is None else ref}]"
    return f"[{ref}] vs. [{cmp}]"


def row_label(row: Row, comparison: Comparison | None = None) -> str:
    """A one-line name for a row: ``copy_bench [0] T=F32 Elements=2^20``.

    Duplicated states get ``#2``, ``#3``...; with a ``comparison`` of several input pairs
    the compare file's name comes first.
    """
    parts = [row.benchmark]
    device = device_text(row)
    if device:
        parts.append(device)
    if row.key:
        parts.append(row.key)
    if row.occurrence:
        parts.append(f"#{row.occurrence + 1}")
    label = " ".join(parts)
    if comparison is not None and len(comparison.inputs) > 1 and row.pair < len(comparison.inputs):
        files = comparison.inputs[row.pair].cmp
        label = f"{os.path.basename(files[0]) if files else row.pair}: {label}"
    return visible(label)


# ---------------------------------------------------------------------------------------
# Row selection (--threshold-diff) and tables
# ---------------------------------------------------------------------------------------


def is_visible(row: Row, min_change: float = 0.0) -> bool:
    """Whether ``--threshold-diff`` keeps ``row``: ``|frac_diff| >= min_change``.

    ``min_change`` is a fraction (``--threshold-diff 5`` is 0.05). Rows without a relative
    change (``????``, ADDED, REMOVED, missing centers) are always kept: hiding them would
    hide the problem.
    """
    if min_change <= 0.0 or row.status is Status.UNKNOWN:
        return True
    change = row.frac_diff
    return change is None or abs(change) >= min_change


def visible_rows(rows: Sequence[Row], min_change: float = 0.0) -> tuple[Row, ...]:
    """The rows :func:`is_visible` keeps, in order."""
    return tuple(row for row in rows if is_visible(row, min_change))


#: Statuses ``--only-changed`` keeps: changes, and what must never be hidden (unusable
#: input, states on one side only).
_CHANGED: Final = frozenset(
    {Status.FAST, Status.SLOW, Status.UNKNOWN, Status.ADDED, Status.REMOVED}
)


class RowOrder(str, Enum):
    """``--sort``: the order of the rows within each table."""

    CHANGE = "change"  # most slowed down first, rows without a change last
    NAME = "name"  # by axis values: numbers by value, text alphabetically

    def __str__(self) -> str:
        return str(self.value)


def _name_key(row: Row) -> tuple[tuple[str, int, float, str], ...]:
    """Axis values in order, numbers by value (``2^8`` before ``2^16``), then the row's
    duplicate number; the middle flag keeps numbers and text from being compared."""
    parts: list[tuple[str, int, float, str]] = []
    for value in row.axis_values:
        typed = value.typed
        if isinstance(typed, int | float) and not isinstance(typed, bool):
            parts.append((value.name, 0, float(typed), ""))
        else:
            parts.append((value.name, 1, 0.0, value.value))
    parts.append(("", 0, float(row.occurrence), ""))
    return tuple(parts)


def order_rows(rows: Sequence[Row], order: RowOrder | str | None) -> tuple[Row, ...]:
    """``rows`` in ``order`` (``None``: as given, the result files' order)."""
    if order is None:
        return tuple(rows)
    if RowOrder(order) is RowOrder.NAME:
        return tuple(sorted(rows, key=_name_key))

    def slowest_first(row: Row) -> tuple[bool, float]:
        change = judged_change(row)
        known = change is not None and math.isfinite(change)
        return (not known, -change if change is not None and known else 0.0)

    return tuple(sorted(rows, key=slowest_first))


def table_rows(
    rows: Sequence[Row],
    min_change: float = 0.0,
    *,
    show_skipped: bool = False,
    only_changed: bool = False,
    order: RowOrder | str | None = None,
) -> tuple[Row, ...]:
    """The rows a table shows: :func:`visible_rows`, without the states the benchmark
    skipped in both runs (unless ``show_skipped``), with ``only_changed`` only FAST, SLOW,
    ``????``, ADDED and REMOVED rows, in ``order``."""
    shown = [
        row
        for row in visible_rows(rows, min_change)
        if (show_skipped or row.status is not Status.SKIP)
        and (not only_changed or row.status in _CHANGED)
    ]
    return order_rows(shown, order)


_INTERVAL_TEXT: Final = (
    "the timing interval around the center (minimum to third quartile; mean ± stdev "
    "without quartiles)"
)


def table_legend(rows: Sequence[Row], display: Display | str = Display.INTERVALS) -> str:
    """One line saying what the brackets (and the dispersion columns) of the table of
    ``rows`` in ``display`` mean; empty when the table has none."""
    chosen = Display(display)
    parts: list[str] = []
    if chosen is Display.INTERVALS:
        parts.append(f"Ref/Cmp center [-a, +b]: distances to the ends of {_INTERVAL_TEXT}")
    elif chosen is Display.SIMPLE:
        parts.append(f"Span: width of {_INTERVAL_TEXT}, relative to the center")
        # Beside Change it disagrees (-9.8% against -8.9%): say which quotient it is.
        parts.append("%C Diff: (Cmp - Ref) / the smaller of the two centers")
    elif chosen is Display.EXPLAIN:
        parts.append(f"[Lo / Ce / Hi]: {_INTERVAL_TEXT}")
        parts.append("Spread: IQR / median (stdev / mean without quartiles)")
    else:
        parts.append("Noise: NVBench's relative standard deviation; Time: its mean")
    if chosen is not Display.LEGACY:
        levels = {row.verdict.effect.confidence for row in rows if row.verdict.effect is not None}
        if levels:
            level = "/".join(f"{value * 100:g}%" for value in sorted(levels))
            parts.append(f"Change [lo, hi]: {level} confidence interval of the change")
        if any(judged_effect(row) is not row.verdict.effect for row in rows):
            parts.append("cyc: the change in SM cycles, which the verdict rests on")
        if any(row.verdict.effect is None and change_text(row) for row in rows):
            parts.append("Change <= / >=: the least change the two timing intervals allow")
    return "Legend: " + "; ".join(parts) + "."


def comparison_table(
    rows: Sequence[Row],
    display: Display | str = Display.INTERVALS,
    style: StatusStyle = EMOJI,
    *,
    identity: bool = False,
) -> Table:
    """The table of ``rows`` in ``display`` mode.

    Axis columns (centered) come first; with ``identity`` they are replaced by
    ``Benchmark``, ``Device`` and ``State`` columns, for tables that mix benchmarks.
    """
    layout = LAYOUTS[Display(display)]
    headers: list[str] = []
    aligns: list[Align] = []
    columns: list[list[str]] = []
    if identity:
        lead = (
            ("Benchmark", [visible(row.benchmark) for row in rows]),
            ("Device", [device_text(row) for row in rows]),
            ("State", [visible(row.key) for row in rows]),
        )
        for header, cells in lead:
            headers.append(header)
            aligns.append(Align.LEFT)
            columns.append(cells)
    else:
        for name in axis_names(rows):
            headers.append(visible(name))  # untrusted: a coloured table lets no colour pass
            aligns.append(Align.CENTER)
            columns.append([axis_cell(row, name) for row in rows])
    for column in layout:
        cells = column.cells(rows, style)
        if column.optional and not any(cells):
            continue
        headers.append(column.header)
        aligns.append(column.align)
        columns.append(cells)
    body = [tuple(column[index] for column in columns) for index in range(len(rows))]
    return Table.of(headers, body, aligns)


def render_comparison_table(
    rows: Sequence[Row],
    display: Display | str = Display.INTERVALS,
    style: StatusStyle = EMOJI,
    *,
    identity: bool = False,
    markdown: bool = False,
) -> str:
    """:func:`comparison_table` as GitHub pipe-table text (``\\n``-terminated lines).

    ``markdown``: for a markdown renderer (a PR comment, ``summary.md``), every cell's
    markdown and HTML syntax escaped, as names from result files are untrusted text."""
    table = comparison_table(rows, display, style, identity=identity)
    return render_table(table, MARKDOWN if markdown else COLOURED)
