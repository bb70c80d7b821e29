"""Checks of the fields of the detection's settings (:class:`.changepoint.ScanConfig`,
:class:`.confirm.ConfirmConfig`): each refusal is one TypeError or ValueError naming the
setting.

A range written ``not lo < value < hi`` refuses NaN, but an integer setting given a float
passed ``value < least`` as NaN (``rate_runs=float('nan')``: the scan then found nothing,
its false-alarm rate NaN), and an infinite float passed a one-sided bound; so every field
is checked for its type and for a finite value first.
"""

from __future__ import annotations

import math
import numbers

from .._argument_checks import whole_number
from ..results._errors import check_flag

__all__ = ["checked_flag", "checked_int", "checked_real"]


def checked_int(owner: str, name: str, value: object, least: int) -> int:
    """``value`` of the setting ``owner.name``, an integer (not a bool) of at least
    ``least``."""
    number = whole_number(value, f"{owner}: {name} must be an int")
    if number < least:
        raise ValueError(f"{owner}: {name} must be at least {least}, got {value!r}")
    return number


def checked_real(owner: str, name: str, value: object) -> float:
    """``value`` of the setting ``owner.name``, a finite real number (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{owner}: {name} must be a number, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{owner}: {name} must be finite, got {value!r}")
    return float(value)


def checked_flag(owner: str, name: str, value: object) -> bool:
    """``value`` of the yes/no setting ``owner.name``: a bool or NumPy's bool scalar (a flag
    read from an array or a DataFrame), as a bool. ``ValueError`` for anything else (``"no"``
    would read as true), the type these settings have always refused with."""
    try:
        return check_flag(value, f"{owner}: {name}")
    except TypeError as error:
        raise ValueError(str(error)) from None
