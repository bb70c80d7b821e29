"""The reader's exception and warning types (defined in :mod:`cuda.bench._errors`)."""

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
]
