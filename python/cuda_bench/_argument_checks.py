"""The check every library argument that counts something shares: an integer, never a
bool (``True`` is an ``int`` to Python) nor a float; numpy's integers pass.

Each caller words its own refusal (which setting, parameter or option it is); the test of
the value's kind is this one.
"""

from __future__ import annotations

import numbers

__all__ = ["whole_number"]


def whole_number(value: object, refusal: str) -> int:
    """``value`` as an int, or a ``TypeError`` of ``refusal`` and the value given
    (``"jobs must be an int or None"`` → ``"jobs must be an int or None, got 1.5"``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{refusal}, got {value!r}")
    return int(value)
