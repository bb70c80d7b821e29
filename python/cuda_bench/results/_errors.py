"""The reader's exception and warning types (defined in :mod:`cuda.bench._errors`), and the
checks of a yes/no argument and of a path that the reader and the writer share."""

from __future__ import annotations

import os
from typing import TypeGuard

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
    "check_path",
    "is_text_path",
    "refuse_empty_path",
]


def check_flag(value: object, name: str) -> bool:
    """``value`` of the yes/no argument ``name``; ``TypeError`` for anything but a bool or
    NumPy's bool scalar (a flag read from an array or a DataFrame; ``lazy='no'`` would
    otherwise count as true). NumPy's is known by its type, so that nothing here imports
    NumPy."""
    if isinstance(value, bool):
        return value
    kind = type(value)
    if kind.__module__ == "numpy" and kind.__name__ in ("bool_", "bool"):
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {value!r}")


def is_text_path(value: object) -> TypeGuard[str | os.PathLike[str]]:
    """Whether ``value`` is a path the reader and the writer take: a ``str``, or an
    ``os.PathLike`` whose path is one (:func:`check_path` says what else is wrong)."""
    return isinstance(value, str) or (
        isinstance(value, os.PathLike) and isinstance(os.fspath(value), str)
    )


def check_path(value: object, name: str) -> str | os.PathLike[str]:
    """``value`` of the path argument ``name``, as given: a ``str`` or an ``os.PathLike``
    that gives one. ``TypeError`` for anything else: an ``int`` (or a bool, which is one)
    would be taken by ``open`` as a file descriptor, read and then closed under its owner;
    ``bytes`` are refused rather than kept as a name that messages and labels cannot show
    (``os.fsdecode`` makes a ``str`` of them)."""
    if is_text_path(value):
        return value
    if isinstance(value, os.PathLike):
        raise TypeError(
            f"{name} must be a str or os.PathLike, got {_shown(value)}, whose "
            "os.fspath() is bytes (os.fsdecode() gives a str)"
        )
    if isinstance(value, bytes | bytearray):
        hint = " (bytes are not taken: os.fsdecode gives a str)"
    elif isinstance(value, int) and not isinstance(value, bool):
        hint = " (a file descriptor is not read: give the file's path)"
    else:
        hint = ""
    raise TypeError(f"{name} must be a str or os.PathLike, got {_shown(value)}{hint}")


def refuse_empty_path(path: str | os.PathLike[str], name: str) -> None:
    """:class:`ResultFormatError` for the path ``""`` (a :class:`ValueError`): the reader
    would look up the current directory under that name."""
    if not os.fspath(path):
        raise ResultFormatError(None, f"{name} is empty: give the path of an NVBench JSON file")


def _shown(value: object) -> str:
    """``value`` for a message: its type, and its repr while that is short."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"
