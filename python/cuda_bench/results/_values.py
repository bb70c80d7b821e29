"""Conversions between NVBench's string-encoded values and Python values (spec §2.3)."""

from __future__ import annotations

import math

__all__ = [
    "SummaryValue",
    "format_float64",
    "format_int64",
    "format_raw",
    "parse_float",
    "parse_typed",
]

#: A typed summary or axis value: int64 → int, float64 → float, string → str, null kept.
SummaryValue = int | float | str | None


def format_float64(value: float) -> str:
    """NVBench's ``fmt::to_string(double)``: shortest round trip, no trailing ``.0``."""
    if math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = repr(float(value))
    # repr switches to exponent form at 1e16, NVBench's fmt at the same place; only the
    # trailing ".0" of integral values differs.
    return text[:-2] if text.endswith(".0") else text


def format_int64(value: int) -> str:
    """Decimal text of an int64 value."""
    return str(int(value))


def parse_float(raw: str | int | float | None) -> float | None:
    """A float64 from any stored form: numeric string (incl. ``inf``/``nan``), number, null.

    Raises ``ValueError`` for a string that is not a number.
    """
    if raw is None:
        return None
    if isinstance(raw, str):
        return float(raw)
    return float(raw)


def parse_typed(type_name: str, raw: str | int | float | None) -> SummaryValue:
    """Decode a ``{"type", "value"}`` pair into a Python value.

    ``int64`` is parsed with an integer parser (no detour through float, so 64-bit values
    survive); a float-looking int64 string from a foreign writer falls back to float.
    ``float64`` accepts ``inf``, ``-inf``, ``nan`` and ``-nan``. Unknown types keep the raw
    value. Raises ``ValueError`` for text that does not parse as the declared type.
    """
    if raw is None:
        return None
    if type_name == "int64":
        if isinstance(raw, str):
            try:
                return int(raw)
            except ValueError:
                number = float(raw)
                return int(number) if number.is_integer() else number
        return raw
    if type_name == "float64":
        return float(raw)
    if type_name == "string":
        return raw if isinstance(raw, str) else format_raw(raw)
    return raw


def format_raw(raw: int | float) -> str:
    """Text of a native number found where a string was expected."""
    if isinstance(raw, float):
        return format_float64(raw)
    return str(raw)
