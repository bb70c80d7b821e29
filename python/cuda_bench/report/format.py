"""Text formatting shared by every renderer: one helper per concept.

* NVBench summary cells by hint (spec §8.4) and C ``printf`` number text;
* axis values, in NVBench's table style (``2^20 = 1048576``) or the compact style of the
  comparison tables (``2^20``);
* durations, percentages, noise and timing intervals for comparison tables;
* wall-clock times (``[HH:][MM:]SS.mmm``);
* tables: a :class:`Table` value (headers, rows, alignments) rendered by :func:`render_table`
  in a :class:`TableFormat` — GitHub pipe tables or NVBench's own markdown layout.

Everything here is a pure function of its arguments.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from enum import Enum

import msgspec

from ..results import BenchmarkResultSummary, StateAxisValue

__all__ = [
    "GITHUB",
    "NOT_AVAILABLE",
    "NVBENCH",
    "Align",
    "AxisStyle",
    "CompactInterval",
    "DurationUnit",
    "ExplicitInterval",
    "Table",
    "TableFormat",
    "WidthMeasure",
    "align_compact_intervals",
    "align_explicit_intervals",
    "c_fixed",
    "c_general",
    "compact_interval",
    "display_width",
    "duration_unit",
    "escape_cell",
    "explicit_interval",
    "format_axis_value",
    "format_duration",
    "format_interval_compact",
    "format_interval_explicit",
    "format_noise",
    "format_percent",
    "format_summary",
    "format_summary_value",
    "format_walltime",
    "render_nvbench_table",
    "render_table",
    "strip_ansi",
]

#: The text of a value that cannot be shown (missing, NaN, an unusable interval).
NOT_AVAILABLE = "n/a"

# ---------------------------------------------------------------------------------------
# C printf number text
# ---------------------------------------------------------------------------------------


def _c_special(value: float) -> str | None:
    """C's text for a non-finite value, ``None`` for a finite one."""
    # glibc prints the sign of a NaN ("-nan"); Python's formatting drops it.
    if math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return None


def c_fixed(value: float, decimals: int = 3) -> str:
    """C ``printf("%.<decimals>f", value)``: ``1.500``, ``-0.000``, ``inf``, ``-inf``, ``nan``."""
    special = _c_special(value)
    return special if special is not None else f"{value:.{decimals}f}"


def c_general(value: float, precision: int = 5) -> str:
    """C ``printf("%.<precision>g", value)``: ``0.25``, ``1``, ``1.2346e+05``, ``1e-07``."""
    special = _c_special(value)
    return special if special is not None else f"{value:.{precision}g}"


# ---------------------------------------------------------------------------------------
# NVBench summary cells (spec §8.4)
# ---------------------------------------------------------------------------------------

#: (threshold, multiplier, suffix), largest first; the last row catches everything else.
_Scale = tuple[tuple[float, float, str], ...]

_DURATION_SCALE: _Scale = (
    (1.0, 1.0, " s"),
    (1e-3, 1e3, " ms"),
    (1e-6, 1e6, " us"),
    (-math.inf, 1e9, " ns"),
)
_ITEM_RATE_SCALE: _Scale = (
    (1e15, 1e-15, "P"),
    (1e12, 1e-12, "T"),
    (1e9, 1e-9, "G"),
    (1e6, 1e-6, "M"),
    (1e3, 1e-3, "K"),
    (-math.inf, 1.0, ""),
)
_BYTE_RATE_SCALE: _Scale = (
    (1e15, 1e-15, " PB/s"),
    (1e12, 1e-12, " TB/s"),
    (1e9, 1e-9, " GB/s"),
    (1e6, 1e-6, " MB/s"),
    (1e3, 1e-3, " KB/s"),
    (-math.inf, 1.0, " B/s"),
)
_BYTES_SCALE: _Scale = (
    (2.0**30, 2.0**-30, " GiB"),
    (2.0**20, 2.0**-20, " MiB"),
    (2.0**10, 2.0**-10, " KiB"),
    (-math.inf, 1.0, " B"),
)
_FREQUENCY_SCALE: _Scale = (
    (1e9, 1e-9, " GHz"),
    (1e6, 1e-6, " MHz"),
    (1e3, 1e-3, " KHz"),
    (-math.inf, 1.0, " Hz"),
)
_HINT_SCALES: dict[str, _Scale] = {
    "duration": _DURATION_SCALE,
    "item_rate": _ITEM_RATE_SCALE,
    "byte_rate": _BYTE_RATE_SCALE,
    "bytes": _BYTES_SCALE,
    "frequency": _FREQUENCY_SCALE,
}


def _scaled(value: float, scale: _Scale) -> str:
    """``value`` in the first unit of ``scale`` whose threshold it reaches, 3 decimals."""
    for threshold, multiplier, suffix in scale:
        if value >= threshold:
            return c_fixed(value * multiplier) + suffix
    # Only NaN gets here: it fails every ">=" test, so like NVBench's C++ chain of
    # comparisons it takes the last unit ("nan ns").
    _, multiplier, suffix = scale[-1]
    return c_fixed(value * multiplier) + suffix


def _default_text(value: int | float | str) -> str:
    """A value without a (known) hint: floats ``%.5g``, everything else as ``str``."""
    if isinstance(value, float):
        return c_general(value)
    return str(value)


def format_summary_value(value: int | float | str | None, hint: str | None) -> str:
    """The table cell NVBench's markdown printer writes for a summary value (spec §8.4).

    ``duration`` (seconds) → ``s``/``ms``/``us``/``ns``; ``item_rate`` → ``K``..``P``
    suffix; ``byte_rate`` → ``B/s``..``PB/s`` (decimal); ``bytes`` → ``B``..``GiB``
    (binary); ``frequency`` → ``Hz``..``GHz``; all with 3 decimals. ``sample_size`` →
    ``<n>x``; ``percentage`` (a ratio) → ``%.2f%``; anything else: floats ``%.5g``, ints in
    decimal, strings as they are. Non-finite values print as C does (``inf s``,
    ``nan ns``, ``inf%``); a missing value is the empty cell. A value whose type does not
    fit its hint (text under ``duration``) is shown as it is rather than guessed at.
    """
    if value is None:
        return ""
    if isinstance(value, str) or hint is None:
        return _default_text(value)
    scale = _HINT_SCALES.get(hint)
    if scale is not None:
        return _scaled(float(value), scale)
    if hint == "sample_size":
        count = int(value) if isinstance(value, float) and value.is_integer() else value
        return f"{_default_text(count)}x"
    if hint == "percentage":
        return c_fixed(float(value) * 100.0, 2) + "%"
    return _default_text(value)


def format_summary(summary: BenchmarkResultSummary) -> str:
    """:func:`format_summary_value` of a summary's ``value`` entry under its ``hint``."""
    return format_summary_value(summary.value, summary.hint)


# ---------------------------------------------------------------------------------------
# Axis values
# ---------------------------------------------------------------------------------------


class AxisStyle(Enum):
    """How an axis value is written."""

    #: NVBench's markdown tables (spec §8.3): ``2^20 = 1048576``, ``%.5g`` floats.
    TABLE = "table"
    #: Comparison tables and state names (spec §4.3): ``2^20``, ``%.5g`` floats.
    COMPACT = "compact"


def format_axis_value(
    value: StateAxisValue, style: AxisStyle = AxisStyle.TABLE, *, flags: str | None = None
) -> str:
    """The text of one axis value of a state.

    int64 axes with the ``pow2`` flag show the exponent (``2^20``; the table style adds
    ``= 1048576``), other ints are decimal, floats ``%.5g``, strings and type axes the raw
    string. ``flags`` overrides ``value.flags`` when the caller holds the axis definition
    separately. A null value is the empty string.
    """
    typed = value.typed
    pow2 = (flags if flags is not None else value.flags) == "pow2"
    if typed is None:
        return ""
    if isinstance(typed, int) and not isinstance(typed, bool):
        if pow2 and typed > 0:
            exponent = typed.bit_length() - 1
            return f"2^{exponent}" if style is AxisStyle.COMPACT else f"2^{exponent} = {typed}"
        return str(typed)
    if isinstance(typed, float):
        return c_general(typed)
    return value.value


# ---------------------------------------------------------------------------------------
# Durations, percentages and noise for comparison tables
# ---------------------------------------------------------------------------------------


class DurationUnit(Enum):
    """A unit for durations: symbol and how many of it make one second."""

    S = ("s", 1.0)
    MS = ("ms", 1e3)
    US = ("us", 1e6)
    NS = ("ns", 1e9)

    def __init__(self, symbol: str, per_second: float) -> None:
        self.symbol = symbol
        self.per_second = per_second

    def convert(self, seconds: float) -> float:
        """``seconds`` expressed in this unit."""
        return seconds * self.per_second

    @property
    def larger(self) -> DurationUnit:
        """The next larger unit (``s`` stays ``s``)."""
        return _LARGER_UNIT[self]

    @property
    def smaller(self) -> DurationUnit:
        """The next smaller unit (``ns`` stays ``ns``)."""
        return _SMALLER_UNIT[self]


# Unit steps and delta decimals are looked up for every interval cell of a table.
_UNIT_ORDER = tuple(DurationUnit)
_S, _MS, _US, _NS = _UNIT_ORDER
_LARGER_UNIT = {
    unit: _UNIT_ORDER[max(position - 1, 0)] for position, unit in enumerate(_UNIT_ORDER)
}
_SMALLER_UNIT = {
    unit: _UNIT_ORDER[min(position + 1, len(_UNIT_ORDER) - 1)]
    for position, unit in enumerate(_UNIT_ORDER)
}


def duration_unit(seconds: float, decimals: int = 3) -> DurationUnit:
    """The unit a duration of this magnitude is shown in; the sign does not matter.

    ``|v| >= 1 s`` → s, ``>= 1 ms`` → ms, ``>= 1 us`` → us, smaller (and zero) → ns. A value
    that would round up to 1000 of its unit at ``decimals`` moves to the next unit, so
    ``0.9999996`` is ``1.000 s`` rather than ``1000.000 ms``. NaN gives ns, infinities s.
    """
    magnitude = abs(seconds)
    if magnitude >= 1.0:
        return _S
    if magnitude >= 1e-3:
        unit = _MS
    elif magnitude >= 1e-6:
        unit = _US
    else:
        unit = _NS
    # Below 999 of its unit nothing rounds up to 1000 (two cells of every table row).
    if magnitude * unit.per_second < 999.0 and decimals >= 0:
        return unit
    while unit is not _S and _rounds_to_1000(magnitude * unit.per_second, decimals):
        unit = unit.larger
    return unit


def _rounds_to_1000(value: float, decimals: int) -> bool:
    """``round(value, decimals) >= 1000``; ``round`` (a decimal conversion) only near 1000."""
    if value < 999.0 and decimals >= 0:
        return False
    return round(value, decimals) >= 1000.0


def _signed_fixed(value: float, decimals: int, signed: bool) -> str:
    """``value`` with ``decimals`` decimals; no ``-`` on a value that rounds to zero."""
    text = f"{abs(value):.{decimals}f}"
    rounds_to_zero = not text.strip("0.")
    if value < 0 and not rounds_to_zero:
        return "-" + text
    return ("+" + text) if signed else text


def format_duration(
    seconds: float | None,
    *,
    unit: DurationUnit | None = None,
    decimals: int = 3,
    signed: bool = False,
) -> str:
    """A duration in seconds as ``<number> <unit>``, e.g. ``1.024 ms``, ``-26.219 ms``.

    The unit follows the magnitude (:func:`duration_unit`, including ``ns`` below a
    microsecond) unless ``unit`` fixes it; the sign is kept, so differences read correctly.
    ``signed`` adds ``+`` to non-negative values (for differences). A value that rounds to
    zero never shows ``-``. ``None`` and NaN give ``n/a``; infinities ``inf``/``-inf``.
    """
    if seconds is None or math.isnan(seconds):
        return NOT_AVAILABLE
    if math.isinf(seconds):
        return ("+inf" if signed else "inf") if seconds > 0 else "-inf"
    chosen = unit if unit is not None else duration_unit(seconds, decimals)
    return f"{_signed_fixed(chosen.convert(seconds), decimals, signed)} {chosen.symbol}"


def format_percent(ratio: float | None, *, decimals: int = 1, signed: bool = False) -> str:
    """A ratio as a percentage: ``0.103`` → ``10.3%`` (``+10.3%`` when ``signed``).

    A value that rounds to zero is ``0.0%`` (``+0.0%`` when signed), never ``-0.0%``.
    ``None`` and NaN give ``n/a``; infinities ``inf%`` (``+inf%``, ``-inf%``).
    """
    if ratio is None or math.isnan(ratio):
        return NOT_AVAILABLE
    if math.isinf(ratio):
        return ("+inf%" if signed else "inf%") if ratio > 0 else "-inf%"
    return _signed_fixed(ratio * 100.0, decimals, signed) + "%"


def format_noise(ratio: float | None, *, decimals: int = 2) -> str:
    """A relative dispersion (noise) as ``0.45%``.

    Infinite noise (NVBench's "unknown" sentinel) is ``inf``; ``None``, NaN and negative
    values, which cannot be a dispersion, are ``n/a``.
    """
    if ratio is None or math.isnan(ratio) or ratio < 0:
        return NOT_AVAILABLE
    if math.isinf(ratio):
        return "inf"
    return f"{ratio * 100.0:.{decimals}f}%"


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
    # At least 1 never rounds to zero (decimals are 0..3): ``round`` only for small deltas.
    while (scaled := spread * unit.per_second) < 1.0 and round(scaled, decimals) == 0.0:
        if unit is not _NS:
            unit = unit.smaller
            decimals = _delta_decimals(center_unit, unit)
        elif decimals < 3:
            decimals += 1
        else:
            break
    return unit, decimals


def compact_interval(
    lower: float | None, center: float | None, upper: float | None
) -> CompactInterval | None:
    """The parts of a compact interval, or ``None`` when it cannot be shown.

    The center has 3 decimals in its own unit. The deltas ``lower - center`` and
    ``upper - center`` share one unit, chosen by the larger delta, with as many decimals
    (0..3) as make their resolution 0.001 of the center's unit: ``2.300 ms [-63, +89] us``,
    ``19.944 [-0.564, +0.564] us``, ``262.144 [-1.835, +0.262] ms``. When that would round
    the larger delta to zero, a finer unit is used, so a sub-microsecond spread on a
    millisecond center reads ``1.024 ms [-300, +200] ns`` instead of the meaningless
    ``[-0, +0] us``. With ``lower`` and ``upper`` both ``None`` only the center is shown.
    ``None`` is returned for a missing or non-finite center, or an interval that is not
    ``lower <= center <= upper`` with finite bounds.
    """
    if center is None or not math.isfinite(center):
        return None
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
    delta_unit, decimals = _delta_format(below if below > above else above, center_unit)
    scale = delta_unit.per_second  # what DurationUnit.convert multiplies by
    # Positional, in field order: two cells of every row of a table.
    return CompactInterval(
        center_text,
        center_unit.symbol,
        f"-{below * scale:.{decimals}f}",
        f"+{above * scale:.{decimals}f}",
        delta_unit.symbol,
    )


def format_interval_compact(lower: float | None, center: float | None, upper: float | None) -> str:
    """``C [-a, +b] unit`` for one interval (see :func:`compact_interval`); ``n/a`` if unusable."""
    parts = compact_interval(lower, center, upper)
    return NOT_AVAILABLE if parts is None else str(parts)


def align_compact_intervals(items: Sequence[CompactInterval | None]) -> list[str]:
    """Cells for a column of compact intervals whose centers and final units line up.

    Among cells written in one unit (``C [-a, +b] unit``), center numbers are right-aligned
    to the widest one, the bracket part to the widest bracket part (a row without an
    interval keeps a blank slot), units are left-aligned. A cell whose deltas take another
    unit than its center (``1.233 ms [-29, +9] us``) keeps its natural spacing: padding
    between a number and its own unit would only tear them apart. ``None`` items become
    ``n/a``.
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
        if middle_width:
            text += " " + middle.rjust(middle_width)
        cells.append(f"{text} {unit.ljust(unit_width)}".rstrip())
    return cells


def _mixed_units(item: CompactInterval) -> bool:
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
    if len({len(part) for part in parts}) != 1:
        return ""
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
    unit = duration_unit(max(abs(lower), abs(center), abs(upper)))
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


# ---------------------------------------------------------------------------------------
# Wall-clock times
# ---------------------------------------------------------------------------------------


def format_walltime(seconds: float) -> str:
    """A wall-clock span as ``[HH:][MM:]SS.mmm``: ``0.606``, ``48.703``, ``03:08.374``.

    Leading zero components are dropped; once a larger component is shown the smaller ones
    are zero-padded to two digits. Rounds to the millisecond first, so 59.9996 s is
    ``01:00.000``. Negative spans keep their sign; non-finite ones print as C does.
    """
    special = _c_special(seconds)
    if special is not None:
        return special
    sign = "-" if seconds < 0 and round(abs(seconds) * 1000) else ""
    millis = round(abs(seconds) * 1000)
    hours, rest = divmod(millis, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    secs, ms = divmod(rest, 1000)
    if hours:
        return f"{sign}{hours:02d}:{minutes:02d}:{secs:02d}.{ms:03d}"
    if minutes:
        return f"{sign}{minutes:02d}:{secs:02d}.{ms:03d}"
    return f"{sign}{secs}.{ms:03d}"


# ---------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------

# CSI sequences (colours, cursor) and OSC sequences (hyperlinks), which take no columns.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
_ZERO_WIDTH_CATEGORIES = frozenset({"Mn", "Me", "Cf", "Cc"})


def strip_ansi(text: str) -> str:
    """``text`` without ANSI escape sequences."""
    return _ANSI.sub("", text)


def display_width(text: str) -> int:
    """Terminal columns ``text`` occupies: ANSI codes take none, wide characters two.

    East-Asian wide and full-width characters (which include emoji such as 🔵) count 2,
    combining marks, format characters (zero-width joiner, variation selectors) and
    control characters 0, everything else 1. Emoji joined by a zero-width joiner count
    as the sum of their parts, which overestimates what some terminals draw.
    """
    # Tables measure every cell. Printable ASCII (no escape codes, no control characters)
    # is one column per character; other texts repeat (status labels), so are remembered.
    if text.isascii() and text.isprintable():
        return len(text)
    return _measured_width(text)


@functools.lru_cache(maxsize=4096)
def _measured_width(text: str) -> int:
    """:func:`display_width` of a text that is not plain printable ASCII."""
    width = 0
    for char in strip_ansi(text):
        if unicodedata.category(char) in _ZERO_WIDTH_CATEGORIES:
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def _utf8_width(text: str) -> int:
    """Length in UTF-8 bytes, NVBench's notion of a string's width."""
    return len(text.encode("utf-8"))


def escape_cell(text: str) -> str:
    """A cell safe inside a pipe table: ``|`` → ``\\|``, line breaks → spaces."""
    if "|" not in text and text.isprintable():  # nearly every cell: nothing to escape
        return text
    return text.replace("|", "\\|").replace("\r\n", " ").replace("\n", " ").replace("\r", " ")


class Align(Enum):
    """Horizontal alignment of a column (done with spaces)."""

    LEFT = "left"
    RIGHT = "right"
    CENTER = "center"


class WidthMeasure(Enum):
    """How a table measures text when padding it."""

    #: Terminal columns (:func:`display_width`): ANSI codes ignored, emoji two wide.
    DISPLAY = "display"
    #: UTF-8 bytes, as NVBench's C++ printer measures ``std::string`` lengths.
    UTF8_BYTES = "utf8_bytes"


class TableFormat(msgspec.Struct, frozen=True):
    """How :func:`render_table` lays out a table."""

    measure: WidthMeasure = WidthMeasure.DISPLAY
    #: Escape ``|`` (and flatten line breaks) in headers and cells.
    escape: bool = True
    #: Write ``:---``/``---:``/``:---:`` in the divider so renderers align columns too.
    alignment_markers: bool = False


#: GitHub-flavoured pipe table, padded for reading as text, safe for any cell text.
GITHUB = TableFormat()
#: Exactly what NVBench's markdown printer writes (spec §8.2); no escaping.
NVBENCH = TableFormat(measure=WidthMeasure.UTF8_BYTES, escape=False)


class Table(msgspec.Struct, frozen=True):
    """A table as data: headers, rows of cell text, and per-column alignments.

    ``header_align`` defaults to ``align``. Rows shorter than the header are padded with
    empty cells; longer rows are an error.
    """

    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    align: tuple[Align, ...]
    header_align: tuple[Align, ...] | None = None

    def __post_init__(self) -> None:
        columns = len(self.headers)
        if len(self.align) != columns:
            raise ValueError(f"{len(self.align)} alignments for {columns} columns")
        if self.header_align is not None and len(self.header_align) != columns:
            raise ValueError(f"{len(self.header_align)} header alignments for {columns} columns")
        for row in self.rows:
            if len(row) > columns:
                raise ValueError(f"a row has {len(row)} cells for {columns} columns")

    @classmethod
    def of(
        cls,
        headers: Sequence[str],
        rows: Sequence[Sequence[str]],
        align: Sequence[Align] | Align = Align.LEFT,
        header_align: Sequence[Align] | Align | None = None,
    ) -> Table:
        """Build a table from any sequences; a single :class:`Align` applies to all columns."""
        count = len(headers)
        aligns = (align,) * count if isinstance(align, Align) else tuple(align)
        if isinstance(header_align, Align):
            header_aligns: tuple[Align, ...] | None = (header_align,) * count
        else:
            header_aligns = None if header_align is None else tuple(header_align)
        return cls(
            headers=tuple(headers),
            rows=tuple(tuple(row) for row in rows),
            align=aligns,
            header_align=header_aligns,
        )


def _pad(text: str, width: int, used: int, align: Align) -> str:
    """``text`` (measuring ``used``) padded with spaces to ``width``."""
    gap = max(width - used, 0)
    if align is Align.RIGHT:
        return " " * gap + text
    if align is Align.CENTER:
        left = gap // 2
        return " " * left + text + " " * (gap - left)
    return text + " " * gap


def _divider(width: int, align: Align, markers: bool) -> str:
    """The divider cell of a column ``width`` wide, with alignment colons if asked."""
    dashes = width + 2
    if not markers:
        return "-" * dashes
    if align is Align.LEFT:
        return ":" + "-" * (dashes - 1)
    if align is Align.RIGHT:
        return "-" * (dashes - 1) + ":"
    return ":" + "-" * (dashes - 2) + ":"


def render_table(table: Table, fmt: TableFormat = GITHUB) -> str:
    """Render ``table`` as a pipe table, one ``\\n``-terminated line per row.

    Every cell gets one space either side; columns are padded to the widest header or cell
    (as ``fmt.measure`` counts). Centred text gets ``floor(pad / 2)`` spaces on the left.
    The divider is ``-`` repeated ``width + 2`` (with ``:`` markers if ``fmt`` asks). A
    table without columns renders as the empty string.
    """
    columns = len(table.headers)
    if columns == 0:
        return ""
    rows = [
        list(row) + [""] * (columns - len(row)) if len(row) < columns else row for row in table.rows
    ]
    header_align = table.header_align or table.align
    measure = display_width if fmt.measure is WidthMeasure.DISPLAY else _utf8_width
    clean = escape_cell if fmt.escape else None
    # Column by column: a comparison table has ten thousand rows, and nearly every column
    # holds plain ASCII, which str.ljust/rjust pad in C.
    headers: list[str] = []
    padded: list[list[str]] = []
    widths: list[int] = []
    for column, header in enumerate(table.headers):
        header_text = header if clean is None else clean(header)
        header_used = measure(header_text)
        texts, used, plain = _column_cells([row[column] for row in rows], measure, clean)
        width = max(header_used, max(used, default=0))
        widths.append(width)
        headers.append(_pad(header_text, width, header_used, header_align[column]))
        padded.append(_pad_column(texts, used, width, table.align[column], plain))
    out = ["|" + "".join(f" {cell} |" for cell in headers) + "\n"]
    out.append(
        "|"
        + "".join(
            _divider(width, align, fmt.alignment_markers) + "|"
            for width, align in zip(widths, table.align, strict=True)
        )
        + "\n"
    )
    out.extend("| " + " | ".join(line) + " |\n" for line in zip(*padded, strict=True))
    return "".join(out)


def _column_cells(
    cells: list[str], measure: Callable[[str], int], clean: Callable[[str], str] | None
) -> tuple[list[str], list[int], bool]:
    """A column's cells as written (``clean``: escaped), what each measures, and whether
    all are plain ASCII (nothing to escape, one column or byte per character)."""
    # One test of the joined text answers for every cell (line breaks cannot hide in it:
    # they are not printable).
    joined = "".join(cells)
    if joined.isascii() and joined.isprintable() and (clean is None or "|" not in joined):
        return cells, list(map(len, cells)), True
    texts = cells if clean is None else [clean(cell) for cell in cells]
    return texts, [measure(text) for text in texts], False


def _pad_column(
    texts: list[str], used: list[int], width: int, align: Align, plain: bool
) -> list[str]:
    """The cells of a column padded to ``width`` (``used``: what each measures; ``plain``:
    each measures its length)."""
    if plain and align is Align.RIGHT:
        return [text.rjust(width) for text in texts]
    if plain and align is Align.LEFT:
        return [text.ljust(width) for text in texts]
    return [_pad(text, width, count, align) for text, count in zip(texts, used, strict=True)]


def render_nvbench_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A table exactly as NVBench's markdown printer writes it (spec §8.2).

    Headers centred (``floor(pad / 2)`` spaces left), cells right-aligned, widths in UTF-8
    bytes, ``-`` dividers, no escaping. Missing cells are empty. No columns → ``""``.
    """
    table = Table.of(headers, rows, align=Align.RIGHT, header_align=Align.CENTER)
    return render_table(table, NVBENCH)
