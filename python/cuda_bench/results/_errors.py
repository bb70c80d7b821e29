"""The reader's exception and warning types (defined in :mod:`cuda.bench._errors`), and the
check of a yes/no argument that the reader and the writer share."""

from __future__ import annotations

from .._errors import (
    NVBenchFormatWarning,
    OutsideSideFileError,
    ResultFileNotFoundError,
    ResultFormatError,
    SideFileError,
    UnusableSideFileNameError,
)

__all__ = [
    "NVBenchFormatWarning",
    "OutsideSideFileError",
    "ResultFileNotFoundError",
    "ResultFormatError",
    "SideFileError",
    "UnusableSideFileNameError",
    "check_flag",
]


def check_flag(value: object, name: str) -> bool:
    """``value`` of the yes/no argument ``name``; ``TypeError`` for anything but a bool
    (``lazy='no'`` would otherwise count as true)."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return value
