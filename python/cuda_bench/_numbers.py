"""Number text shared by the reports and the verdict messages: fixed notation for ordinary
magnitudes, scientific notation beyond them.

A corrupt or crafted file can hold a time of 1e30 s or a change of 1e32 %: in fixed
notation such a figure runs to dozens of digits (``3181608294734859985747968.000 s``) and
widens every column of its table. From :data:`SCIENTIFIC_FROM` on, a figure is written
``3.182e+24``; every ordinary figure keeps the fixed notation the tables have always used.
A finite value is never written ``inf``: a percentage whose figure overflows the floats
(a ratio of 1e307) is written from the ratio's own digits, and a change given by its
logarithm from the logarithm.

Everything here is a pure function of its arguments. :func:`as_float` is the one conversion
of a recorded number to a float that every reader of summaries shares, and
:data:`INT64_MIN`..:data:`INT64_MAX` the range of NVBench's int64 values (axis values, sample
counts, device ids), which the comparison and the archive hold values to. Here, not beside
the axes, because this module imports no numpy: the summaries-only path must not.
"""

from __future__ import annotations

import math
from typing import Final

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "SCIENTIFIC_FROM",
    "as_float",
    "is_int64",
    "log_ratio_percent",
    "magnitude_text",
    "number_text",
    "percent_text",
]

INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1

#: The magnitude (of the figure as written: seconds, percent, MHz) from which a figure is
#: written in scientific notation.
SCIENTIFIC_FROM: Final = 1e6

#: Above this logarithm of a ratio, ``math.expm1`` overflows (its limit is about 709.78).
_LARGEST_EXPM1: Final = 709.0


def is_int64(value: object, least: int = INT64_MIN) -> bool:
    """Whether ``value`` is an integer (not a bool, which is one to Python) from ``least``
    to :data:`INT64_MAX`: a value NVBench's int64 can hold, a count from 0 or 1."""
    return isinstance(value, int) and not isinstance(value, bool) and least <= value <= INT64_MAX


def as_float(value: int | float) -> float:
    """``value`` as a float; an integer beyond the floats (an ``int64``-typed summary of 400
    digits, which the reader keeps as a Python int) is the infinity of its sign, as a C
    conversion would give, not an OverflowError: every check of a value beyond the float32
    range then refuses it as it refuses any infinite value."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def magnitude_text(magnitude: float, decimals: int, *, keep_small: bool = False) -> str:
    """A non-negative ``magnitude`` with ``decimals`` decimals (``12.345``), or in
    scientific notation with as many decimals, at least one (``3.182e+24``), from
    :data:`SCIENTIFIC_FROM` on. ``keep_small`` writes a nonzero magnitude that would round
    to zero in scientific notation too (``3.000e-15`` rather than ``0.000``), for
    quantities where a zero is no rounding but a false statement (a time, a clock rate).
    Infinities and NaN are ``inf`` and ``nan``."""
    if magnitude >= SCIENTIFIC_FROM or (keep_small and 0.0 < magnitude < 0.5 * 10.0**-decimals):
        return f"{magnitude:.{max(decimals, 1)}e}"
    return f"{magnitude:.{decimals}f}"


def number_text(
    value: float, decimals: int, *, signed: bool = False, keep_small: bool = False
) -> str:
    """``value`` as :func:`magnitude_text` writes its magnitude, with its sign: ``-`` for a
    negative value unless it rounds to zero (never ``-0.000``), ``+`` for the rest when
    ``signed``. Infinities are ``inf``/``-inf`` (``+inf`` when signed), NaN ``nan``."""
    if math.isnan(value):
        return "nan"
    text = magnitude_text(abs(value), decimals, keep_small=keep_small)
    if value < 0 and text.strip("0."):
        return "-" + text
    return "+" + text if signed else text


def percent_text(ratio: float, decimals: int, *, signed: bool = False) -> str:
    """A fraction as a percentage with ``%``: ``0.0123`` → ``1.23%`` (:func:`number_text`
    of ``ratio * 100``), ``1e30`` → ``1.00e+32%``. A finite ratio whose percentage
    overflows the floats (``1e307``) still reads as a number (``1.00e+309%``)."""
    percent = ratio * 100.0
    if math.isinf(percent) and math.isfinite(ratio):
        mantissa, exponent = f"{abs(ratio):.{max(decimals, 1)}e}".split("e")
        sign = "-" if ratio < 0 else "+" if signed else ""
        return f"{sign}{mantissa}e{int(exponent) + 2:+03d}%"
    return number_text(percent, decimals, signed=signed) + "%"


def log_ratio_percent(log_ratio: float, decimals: int) -> str:
    """The change ``exp(log_ratio) - 1`` as a signed percentage (:func:`percent_text`),
    computed from the logarithm where the ratio itself would overflow: a log ratio of 800
    is ``+2.73e+349%``, not ``+inf%``. Only an infinite logarithm is ``+inf%``. An ordinary
    change keeps the sign of its own value, ``-0.00%`` for a change just below zero (an
    interval ``[-0.22%, -0.00%]`` excludes zero; ``+0.00%`` read as if it did not), as the
    ``ci`` method's messages have always written it."""
    if not log_ratio > _LARGEST_EXPM1:  # NaN included: "nan%"
        change = math.expm1(log_ratio)
        if abs(change) * 100.0 < SCIENTIFIC_FROM:
            return f"{change * 100.0:+.{decimals}f}%"
        return percent_text(change, decimals, signed=True)
    if math.isinf(log_ratio):
        return "+inf%"
    # exp(x) - 1 is exp(x) at this size; times 100 for the percentage.
    exponent10 = log_ratio / math.log(10.0) + 2.0
    whole = math.floor(exponent10)
    digits = max(decimals, 1)
    mantissa = f"{10.0 ** (exponent10 - whole):.{digits}f}"
    if mantissa.startswith("10"):  # 9.999... rounded up
        whole += 1
        mantissa = f"{1.0:.{digits}f}"
    return f"+{mantissa}e+{whole}%"
