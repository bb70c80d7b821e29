"""Text formatting shared by every renderer: one helper per concept.

* NVBench summary cells by hint (spec §8.4) and C ``printf`` number text;
* axis values, in NVBench's table style (``2^20 = 1048576``) or the compact style of the
  comparison tables (``2^20``);
* durations, percentages and noise for comparison tables (their timing intervals:
  :mod:`.intervals`);
* wall-clock times (``[HH:][MM:]SS.mmm``).

Tables of these cells are drawn by :mod:`.table`.

Everything here is a pure function of its arguments.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from enum import Enum
from types import MappingProxyType
from typing import Final

from .._numbers import as_float, magnitude_text, number_text, percent_text
from ..results._tools_api import BenchmarkResultSummary, StateAxisValue

__all__ = [
    "NOT_AVAILABLE",
    "RATIO_DECIMALS",
    "RATIO_DECIMALS_MOST",
    "WALLTIME_SPAN_LIMIT",
    "AxisStyle",
    "DurationUnit",
    "c_fixed",
    "c_general",
    "distinct_decimals",
    "duration_unit",
    "format_axis_value",
    "format_duration",
    "format_noise",
    "format_percent",
    "format_summary",
    "format_summary_value",
    "format_walltime",
    "scientific_duration",
    "signed_bound",
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
_HINT_SCALES: Final[Mapping[str, _Scale]] = MappingProxyType(
    {
        "duration": _DURATION_SCALE,
        "item_rate": _ITEM_RATE_SCALE,
        "byte_rate": _BYTE_RATE_SCALE,
        "bytes": _BYTES_SCALE,
        "frequency": _FREQUENCY_SCALE,
    }
)


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
        return _scaled(as_float(value), scale)
    if hint == "sample_size":
        count = int(value) if isinstance(value, float) and value.is_integer() else value
        return f"{_default_text(count)}x"
    if hint == "percentage":
        return c_fixed(as_float(value) * 100.0, 2) + "%"
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
_LARGER_UNIT: Final = MappingProxyType(
    {unit: _UNIT_ORDER[max(position - 1, 0)] for position, unit in enumerate(_UNIT_ORDER)}
)
_SMALLER_UNIT: Final = MappingProxyType(
    {
        unit: _UNIT_ORDER[min(position + 1, len(_UNIT_ORDER) - 1)]
        for position, unit in enumerate(_UNIT_ORDER)
    }
)


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
    """``value`` with ``decimals`` decimals; no ``-`` on a value that rounds to zero;
    scientific from a million on (:func:`cuda.bench._numbers.number_text`)."""
    return number_text(value, decimals, signed=signed)


def signed_bound(value: float, decimals: int, *, keep_small: bool = False) -> str:
    """A bound of a signed interval, or a delta of one (``+4.3``, ``-0.063``), with
    ``decimals`` decimals: its sign always, except on a zero (a value that rounds to zero),
    which is ``0.000`` without one. ``[-0.000, +0.000]`` read as a negative number and a
    positive one, for an interval of no width. Scientific from a million on (``+9.212e+22``),
    and below what the decimals show with ``keep_small``
    (:func:`cuda.bench._numbers.magnitude_text`)."""
    text = magnitude_text(abs(value), decimals, keep_small=keep_small)
    if not text.strip("0."):
        return text
    return ("-" if value < 0 else "+") + text


#: Decimals of a ratio with its interval (``1.052 [1.041, 1.063]``): three, and up to three
#: more for an interval narrower than that (down to a millionth).
RATIO_DECIMALS, RATIO_DECIMALS_MOST = 3, 6


def distinct_decimals(lower: float, upper: float, decimals: int, most: int) -> int:
    """Decimals from ``decimals`` up to ``most``, the fewest at which the ends of an
    interval ``lower < upper`` are written differently: a narrow interval got ends written
    alike (``+0.0% [0.0, 0.0]``), which reads as no interval at all. Ends that are equal,
    or differ by less than ``most`` shows, keep ``decimals``."""
    for tried in range(decimals, most + 1):
        if signed_bound(lower, tried) != signed_bound(upper, tried):
            return tried
    return decimals


#: Durations written in scientific notation in seconds (``3.182e+24 s``, ``3.000e-15 s``):
#: from a million seconds, where fixed notation runs to dozens of digits, and below half a
#: picosecond, which the tables' finest unit (``0.000 ns``) would write as zero.
_SCIENTIFIC_SECONDS_FROM, _SCIENTIFIC_SECONDS_BELOW = 1e6, 5e-13


def scientific_duration(seconds: float) -> bool:
    """Whether a duration is written in scientific notation: a magnitude of a million
    seconds or more, or nonzero below half a picosecond (NaN and infinities: no)."""
    magnitude = abs(seconds)
    return _SCIENTIFIC_SECONDS_FROM <= magnitude < math.inf or (
        0.0 < magnitude < _SCIENTIFIC_SECONDS_BELOW
    )


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
    Without ``unit``, a duration of a million seconds or more, or below half a picosecond
    (:func:`scientific_duration`), is written in seconds in scientific notation:
    ``3.182e+24 s``, ``3.000e-15 s`` (not ``0.000 ns``).
    """
    if seconds is None or math.isnan(seconds):
        return NOT_AVAILABLE
    if math.isinf(seconds):
        return ("+inf" if signed else "inf") if seconds > 0 else "-inf"
    if unit is None and scientific_duration(seconds):
        return f"{number_text(seconds, decimals, signed=signed, keep_small=True)} s"
    chosen = unit if unit is not None else duration_unit(seconds, decimals)
    return f"{_signed_fixed(chosen.convert(seconds), decimals, signed)} {chosen.symbol}"


def format_percent(ratio: float | None, *, decimals: int = 1, signed: bool = False) -> str:
    """A ratio as a percentage: ``0.103`` → ``10.3%`` (``+10.3%`` when ``signed``).

    A value that rounds to zero is ``0.0%`` (``+0.0%`` when signed), never ``-0.0%``.
    ``None`` and NaN give ``n/a``; infinities ``inf%`` (``+inf%``, ``-inf%``). From a
    million percent on, scientific notation: ``+1.0e+32%``
    (:func:`cuda.bench._numbers.percent_text`).
    """
    if ratio is None or math.isnan(ratio):
        return NOT_AVAILABLE
    return percent_text(ratio, decimals, signed=signed)


def format_noise(ratio: float | None, *, decimals: int = 2) -> str:
    """A relative dispersion (noise) as ``0.45%``.

    Infinite noise (NVBench's "unknown" sentinel) is ``inf``; ``None``, NaN and negative
    values, which cannot be a dispersion, are ``n/a``. From a million percent on,
    scientific notation (``1.00e+40%``).
    """
    if ratio is None or math.isnan(ratio) or ratio < 0:
        return NOT_AVAILABLE
    if math.isinf(ratio):
        return "inf"
    return percent_text(ratio, decimals)


# ---------------------------------------------------------------------------------------
# Wall-clock times
# ---------------------------------------------------------------------------------------


#: Seconds (about 31.7 years) from which a wall-clock span is no run's: :func:`format_walltime`
#: shows it as a number, and the wall-time report leaves such a state out.
WALLTIME_SPAN_LIMIT: Final = 1e9


def format_walltime(seconds: float) -> str:
    """A wall-clock span as ``[HH:][MM:]SS.mmm``: ``0.606``, ``48.703``, ``03:08.374``.

    Leading zero components are dropped; once a larger component is shown the smaller ones
    are zero-padded to two digits. Rounds to the millisecond first, so 59.9996 s is
    ``01:00.000``. Negative spans keep their sign; non-finite ones print as C does, and so
    do spans of :data:`WALLTIME_SPAN_LIMIT` seconds or more (C's ``%g``: ``1e+308``), which
    no run takes: never a traceback (1e308 s overflowed to an infinite count of
    milliseconds) nor a hundreds-of-digits hours field.
    """
    special = _c_special(seconds)
    if special is not None:
        return special
    if abs(seconds) >= WALLTIME_SPAN_LIMIT:
        return c_general(seconds, 6)
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
