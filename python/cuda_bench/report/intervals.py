"""Timing-interval cells of the comparison tables: a center with its interval, compact
(``3.113 [-0.059, +0.021] us``) or explicit, and the alignment of such cells in a column.

Everything here is a pure function of its arguments.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import msgspec

from .._numbers import number_text
from .format import (
    NOT_AVAILABLE,
    DurationUnit,
    _rounds_to_1000,
    _signed_fixed,
    duration_unit,
    format_duration,
    scientific_duration,
    signed_bound,
)

__all__ = [
    "CompactInterval",
    "ExplicitInterval",
    "align_compact_intervals",
    "align_explicit_intervals",
    "compact_interval",
    "explicit_interval",
    "format_interval_compact",
    "format_interval_explicit",
]

_S, _US, _NS = DurationUnit.S, DurationUnit.US, DurationUnit.NS
#: Decimals of nanosecond deltas at most: a spread down to a femtosecond shows a digit (a
#: sub-picosecond spread read ``[0.000, 0.000] ns``, an interval of no width).
_FINEST_NS_DECIMALS = 6


# ---------------------------------------------------------------------------------------
# Timing intervals
# ---------------------------------------------------------------------------------------


def _usable_interval(lower: float | None, center: float | None, upper: float | None) -> bool:
    """All three present and finite, and ``lower <= center <= upper``."""
    if lower is None or center is None or upper is None:
        return False
    isfinite = math.isfinite
    return isfinite(lower) and isfinite(center) and isfinite(upper) and lower <= center <= upper


class CompactInterval(msgspec.Struct, frozen=True):
    """The pieces of ``C [-a, +b] unit``; :func:`align_compact_intervals` lines them up.

    ``lower``/``upper``/``delta_unit`` are ``None`` for a center without an interval.
    """

    center: str
    center_unit: str
    lower: str | None = None
    upper: str | None = None
    delta_unit: str | None = None

    @property
    def middle(self) -> str:
        """What sits between the center number and the final unit."""
        if self.lower is None or self.upper is None:
            return ""
        deltas = f"[{self.lower}, {self.upper}]"
        if self.delta_unit == self.center_unit:
            return deltas
        return f"{self.center_unit} {deltas}"

    @property
    def unit(self) -> str:
        """The unit written last."""
        return self.delta_unit if self.lower is not None and self.delta_unit else self.center_unit

    def __str__(self) -> str:
        middle = self.middle
        return f"{self.center} {middle} {self.unit}" if middle else f"{self.center} {self.unit}"


def _delta_decimals(center_unit: DurationUnit, delta_unit: DurationUnit) -> int:
    """Decimals that give deltas in ``delta_unit`` the center's resolution, within 0..3:
    3 in the center's unit or a coarser one, 0 in a unit a thousand times finer or more
    (the units are a thousand apart)."""
    return 3 if delta_unit.per_second <= center_unit.per_second else 0


def _delta_format(spread: float, center_unit: DurationUnit) -> tuple[DurationUnit, int]:
    """Unit and decimals for the deltas of an interval whose larger delta is ``spread``."""
    if spread == 0.0:
        return center_unit, 3
    unit = duration_unit(spread, 0)
    # Sub-microsecond deltas first try microseconds (``19.944 [-0.564, +0.564] us``); they
    # only go to ns below when microseconds would round them away.
    if unit is _NS and center_unit is not _NS:
        unit = _US
    decimals = _delta_decimals(center_unit, unit)
    scaled = spread * unit.per_second
    if 1.0 <= scaled < 999.0:  # nothing to round up to 1000 or down to zero
        return unit, decimals
    while unit is not _S and _rounds_to_1000(spread * unit.per_second, decimals):
        unit = unit.larger
        decimals = _delta_decimals(center_unit, unit)
    # At least 1 never rounds to zero (decimals are 0..6): ``round`` only for small deltas.
    while (scaled := spread * unit.per_second) < 1.0 and round(scaled, decimals) == 0.0:
        if unit is not _NS:
            unit = unit.smaller
            decimals = _delta_decimals(center_unit, unit)
        elif decimals < _FINEST_NS_DECIMALS:
            decimals += 1
        else:
            # Under half a femtosecond, far below what any timer resolves (float rounding):
            # zeros in the center's unit, like an interval of no width, rather than zeros in
            # nanoseconds beside a center in another unit.
            return center_unit, 3
    return unit, decimals


def _same_unit_format(
    spread: float, center_unit: DurationUnit, nearer: float
) -> tuple[DurationUnit, int]:
    """The center's unit for the deltas, with 3 decimals or up to 6 where fewer would round
    a nonzero delta to zero (``3.180 [-0.00001, +0.00001] us``): the ``nearer`` bound's
    (the smaller delta) where 6 decimals show it, so that ``[0.000, +0.001]`` never stands
    for ``[-0.0003, +0.0006]`` (a zero reads "the median is the interval's end"), else the
    ``spread``'s; one that rounds to zero even then keeps 3 (``[0.000, 0.000]``, an
    interval of no width)."""
    for delta in (nearer, spread):
        scaled = delta * center_unit.per_second
        for decimals in range(3, _FINEST_NS_DECIMALS + 1):
            if round(scaled, decimals) != 0:
                return center_unit, decimals
    return center_unit, 3


def compact_interval(
    lower: float | None,
    center: float | None,
    upper: float | None,
    *,
    same_unit: bool = False,
) -> CompactInterval | None:
    """The parts of a compact interval, or ``None`` when it cannot be shown.

    The center has 3 decimals in its own unit. The deltas ``lower - center`` and
    ``upper - center`` share one unit, chosen by the larger delta, with as many decimals
    (0..3) as make their resolution 0.001 of the center's unit: ``2.300 ms [-63, +89] us``,
    ``19.944 [-0.564, +0.564] us``, ``262.144 [-1.835, +0.262] ms``. When that would round
    the larger delta to zero, a finer unit is used, so a sub-microsecond spread on a
    millisecond center reads ``1.024 ms [-300, +200] ns`` instead of the meaningless
    ``[0, 0] us``, and a sub-picosecond one gets up to 6 decimals of nanoseconds
    (``93.837 us [-0.0004, +0.0002] ns``). A delta that is zero (or rounds to zero) has no
    sign: ``40.000 [0.000, 0.000] ns`` for an interval of no width, ``1.000 ms [0, +50] us``
    for one that starts at its center. With ``lower`` and ``upper`` both ``None`` only
    the center is shown. ``None`` is returned for a missing or non-finite center, or an
    interval that is not ``lower <= center <= upper`` with finite bounds.

    ``same_unit`` writes the deltas in the center's unit (3 decimals, up to 6 for a delta
    that would round to zero): ``152.400 [-0.0006, +0.0003] s``, not ``152.400 s [-607,
    +298] us``, for a column that should read in one unit a cell (the history's trend
    table).

    A center of a million seconds or more, or below half a picosecond
    (:func:`.format.scientific_duration`), is written with its deltas in seconds in
    scientific notation: ``3.182e+24 [-9.212e+22, +2.196e+22] s``.
    """
    if center is None or not math.isfinite(center):
        return None
    if scientific_duration(center):
        return _scientific_interval(lower, center, upper)
    center_unit = duration_unit(center)
    scaled = center * center_unit.per_second
    # A positive center (every timing) needs none of _signed_fixed's sign handling.
    center_text = f"{scaled:.3f}" if scaled > 0.0 else _signed_fixed(scaled, 3, False)
    if lower is None and upper is None:
        return CompactInterval(center_text, center_unit.symbol)
    if not _usable_interval(lower, center, upper):
        return None
    assert lower is not None and upper is not None
    below, above = center - lower, upper - center
    spread = below if below > above else above
    if same_unit:
        delta_unit, decimals = _same_unit_format(spread, center_unit, min(below, above))
    else:
        delta_unit, decimals = _delta_format(spread, center_unit)
    scale = delta_unit.per_second  # what DurationUnit.convert multiplies by
    # Positional, in field order: two cells of every row of a table.
    return CompactInterval(
        center_text,
        center_unit.symbol,
        signed_bound(-below * scale, decimals),
        signed_bound(above * scale, decimals),
        delta_unit.symbol,
    )


def _scientific_interval(
    lower: float | None, center: float, upper: float | None
) -> CompactInterval | None:
    """:func:`compact_interval` of an extreme center: all in seconds, scientific."""
    center_text = number_text(center, 3, keep_small=True)
    if lower is None and upper is None:
        return CompactInterval(center_text, "s")
    if not _usable_interval(lower, center, upper):
        return None
    assert lower is not None and upper is not None
    below, above = (
        signed_bound(delta, 3, keep_small=True) for delta in (lower - center, upper - center)
    )
    return CompactInterval(center_text, "s", below, above, "s")


def format_interval_compact(lower: float | None, center: float | None, upper: float | None) -> str:
    """``C [-a, +b] unit`` for one interval (see :func:`compact_interval`); ``n/a`` if unusable."""
    parts = compact_interval(lower, center, upper)
    return NOT_AVAILABLE if parts is None else str(parts)


def align_compact_intervals(items: Sequence[CompactInterval | None]) -> list[str]:
    """Cells for a column of compact intervals whose centers and final units line up.

    Among cells written in one unit (``C [-a, +b] unit``), center numbers are right-aligned
    to the widest one, the bracket part to the widest bracket part, units are left-aligned.
    A row without an interval writes its unit right after its center (``2.564 us``): a
    blank slot where the brackets would be reads as a broken cell. A cell whose deltas take
    another unit than its center (``1.233 ms [-29, +9] us``), or one in scientific notation,
    keeps its natural spacing: padding between a number and its own unit would only tear
    them apart. ``None`` items become ``n/a``.
    """
    # Each item's pieces once: (center, middle, unit, whether its units are mixed).
    pieces = [
        None if item is None else (item.center, item.middle, item.unit, _mixed_units(item))
        for item in items
    ]
    aligned = [piece for piece in pieces if piece is not None and not piece[3]]
    center_width = max((len(piece[0]) for piece in aligned), default=0)
    middle_width = max((len(piece[1]) for piece in aligned), default=0)
    unit_width = max((len(piece[2]) for piece in aligned), default=0)
    cells: list[str] = []
    for piece in pieces:
        if piece is None:
            cells.append(NOT_AVAILABLE)
            continue
        center, middle, unit, mixed = piece
        if mixed:
            cells.append(f"{center} {middle} {unit}")
            continue
        text = center.rjust(center_width)
        if middle:
            text += " " + middle.rjust(middle_width)
        cells.append(f"{text} {unit.ljust(unit_width)}".rstrip())
    return cells


def _mixed_units(item: CompactInterval) -> bool:
    """Whether a cell keeps its natural spacing: its deltas take another unit than its
    center, or it is written in scientific notation (padded to the fixed cells' widths,
    its pieces would stand far apart)."""
    if "e" in item.center:
        return True
    return item.lower is not None and item.delta_unit not in (None, item.center_unit)


class ExplicitInterval(msgspec.Struct, frozen=True):
    """The pieces of ``[Lo / Ce / Hi] unit``, all in one unit with 3 decimals."""

    lower: str
    center: str
    upper: str
    unit: str

    def text(self, *, factor_prefix: bool = False) -> str:
        """The interval text; ``factor_prefix`` writes ``1.0[18 / 24 / 25] ms`` style."""
        if factor_prefix:
            prefix = _shared_numeric_prefix((self.lower, self.center, self.upper))
            if prefix:
                cut = len(prefix)
                rest = " / ".join(part[cut:] for part in (self.lower, self.center, self.upper))
                return f"{prefix}[{rest}] {self.unit}"
        return f"[{self.lower} / {self.center} / {self.upper}] {self.unit}"

    def __str__(self) -> str:
        return self.text()


def _shared_numeric_prefix(parts: Sequence[str]) -> str:
    """The common leading text of ``parts`` if it is worth factoring out, else ``""``.

    Worth it means: it includes the decimal point, has at least two digits of which at
    least one is a decimal, and leaves something of every part.
    """
    if len({len(part) for part in parts}) != 1 or any("e" in part for part in parts):
        return ""  # scientific notation: a shared prefix would split a mantissa
    prefix = parts[0]
    for part in parts[1:]:
        while not part.startswith(prefix):
            prefix = prefix[:-1]
    if "." not in prefix or any(len(part) == len(prefix) for part in parts):
        return ""
    digits = sum(ch.isdigit() for ch in prefix)
    decimals = len(prefix.split(".", 1)[1])
    return prefix if digits >= 2 and decimals >= 1 else ""


def explicit_interval(lower: float, center: float, upper: float) -> ExplicitInterval | None:
    """The parts of ``[Lo / Ce / Hi] unit``; the unit follows the largest magnitude.

    ``None`` unless all three are finite and ``lower <= center <= upper``.
    """
    if not _usable_interval(lower, center, upper):
        return None
    largest = max(abs(lower), abs(center), abs(upper))
    if scientific_duration(largest):  # all in seconds: 3.182e+24, 3.000e-15
        lo, ce, hi = (number_text(v, 3, keep_small=True) for v in (lower, center, upper))
        return ExplicitInterval(lo, ce, hi, "s")
    unit = duration_unit(largest)
    lo, ce, hi = (_signed_fixed(unit.convert(v), 3, False) for v in (lower, center, upper))
    return ExplicitInterval(lo, ce, hi, unit.symbol)


def format_interval_explicit(
    lower: float | None,
    center: float | None,
    upper: float | None,
    *,
    factor_prefix: bool = False,
) -> str:
    """``[Lo / Ce / Hi] unit`` (e.g. ``[98.816 / 99.968 / 100.224] us``).

    Without bounds (``lower`` and ``upper`` ``None``) the plain center duration is shown;
    an unusable interval or center is ``n/a``. See :meth:`ExplicitInterval.text` for
    ``factor_prefix``.
    """
    if lower is None and upper is None:
        return format_duration(center)
    if lower is None or center is None or upper is None:
        return NOT_AVAILABLE
    parts = explicit_interval(lower, center, upper)
    return NOT_AVAILABLE if parts is None else parts.text(factor_prefix=factor_prefix)


def align_explicit_intervals(items: Sequence[ExplicitInterval | str | None]) -> list[str]:
    """Cells for a column of explicit intervals with Lo, Ce and Hi each right-aligned.

    Widths are computed per part across the column, whatever the unit. Strings (such as a
    plain center duration) pass through; ``None`` becomes ``n/a``.
    """
    intervals = [item for item in items if isinstance(item, ExplicitInterval)]
    widths = [
        max((len(getattr(item, part)) for item in intervals), default=0)
        for part in ("lower", "center", "upper")
    ]
    cells: list[str] = []
    for item in items:
        if item is None:
            cells.append(NOT_AVAILABLE)
        elif isinstance(item, str):
            cells.append(item)
        else:
            lo, ce, hi = (
                getattr(item, part).rjust(width)
                for part, width in zip(("lower", "center", "upper"), widths, strict=True)
            )
            cells.append(f"[{lo} / {ce} / {hi}] {item.unit}")
    return cells
