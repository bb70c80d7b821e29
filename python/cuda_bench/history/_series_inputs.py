"""What :class:`.model.RunSeries` takes as its arrays, labels and confidence, checked and
turned into the series' own values (numpy only; pandas is looked for, never imported),
and how two series' arrays compare."""

from __future__ import annotations

import decimal
import math
import numbers
import sys
from collections.abc import Iterable, Mapping, Set, Sized
from typing import cast

import numpy as np

from .._arrays import FloatArray

__all__ = [
    "hash_floats",
    "own_confidence",
    "own_floats",
    "own_labels",
    "same_floats",
    "same_samples",
]

#: Kinds of numpy array read as numbers: floats, signed and unsigned integers.
_NUMBER_KINDS = frozenset("fiu")


def _missing_value(value: object) -> bool:
    """``None`` or pandas' ``NA`` (an object column's missing value): no value."""
    if value is None:
        return True
    pandas = sys.modules.get("pandas")
    return pandas is not None and value is getattr(pandas, "NA", None)


def _number_array(values: object, where: str) -> tuple[np.ndarray, np.ndarray | None]:
    """``values`` as a numpy array of numbers (an object array's ``None`` and ``pandas.NA``
    as NaN, and where they were: the second item, else ``None``), or a TypeError naming
    ``where`` (booleans, text, dates are no times)."""
    given = np.asarray(values)
    if given.dtype.kind == "O":
        flat = given.ravel()
        cleaned = []
        gaps = []
        for position, value in enumerate(flat.tolist()):
            gaps.append(_missing_value(value))
            if gaps[-1]:
                cleaned.append(math.nan)
                continue
            # Any number float() takes (a Decimal of a SQL NUMERIC column, a Fraction); a
            # bool, text or a date is no time.
            number = None
            if not isinstance(value, bool | str | bytes | bytearray):
                try:
                    number = float(value)
                except (TypeError, ValueError, OverflowError):
                    number = None
            if number is None:
                raise TypeError(
                    f"{where} must be numbers (NaN, None or pandas.NA for no value), got "
                    f"{type(value).__name__} {value!r:.40} at position {position}"
                )
            cleaned.append(number)
        shape = given.shape
        found = np.array(gaps, dtype=bool).reshape(shape) if any(gaps) else None
        return np.array(cleaned, dtype=np.float64).reshape(shape), found
    if given.dtype.kind not in _NUMBER_KINDS:
        raise TypeError(f"{where} must be numbers, got an array of {given.dtype}")
    return given, None


def own_floats(
    values: object, where: str, *, keep_float32: bool = False, masked_left_out: bool = False
) -> FloatArray:
    """A read-only copy of ``values`` as float64 (float32 kept where ``keep_float32``: the
    archive's samples are float32, and a copy twice their size buys nothing).

    A masked array's masked entries are no values, as are ``None`` and ``pandas.NA`` in an
    object array: NaN (a missing run, a run without an interval), or, where
    ``masked_left_out`` (a run's samples, any number of them), left out of a 1-D array. (A
    NaN sample time is no gap but a bad value, refused with the samples.) ``where`` names
    the argument in a TypeError."""
    mask = None
    if isinstance(values, np.ma.MaskedArray):
        mask = np.ma.getmaskarray(values)
        values = np.ma.getdata(values)
    given, gaps = _number_array(values, where)
    if gaps is not None:
        mask = gaps if mask is None else mask | gaps
    dtype = given.dtype if keep_float32 and given.dtype == np.float32 else np.float64
    copy = np.array(given, dtype=dtype, copy=True)
    if mask is not None and mask.any():
        if masked_left_out and copy.ndim == 1:
            copy = copy[~mask]
        else:
            copy[mask] = np.nan
    copy.flags.writeable = False
    return copy


def own_labels(labels: object, runs: int, where: str) -> tuple[str, ...]:
    """``labels`` as a tuple of text, one per run, or a TypeError or ValueError naming them:
    a string was taken as one label per character, and numbers or ``None`` became the
    ``commit`` of a change, a text field."""
    if type(labels) is tuple and len(labels) == runs and all(type(x) is str for x in labels):
        return labels  # what the archive and most callers give: nothing to convert
    # Any sized collection of text in run order (a list, a tuple, a numpy array, a pandas
    # column or index), but not text itself (one label per character) nor a mapping or set
    # (no run order).
    unordered = isinstance(labels, Mapping | Set)
    if isinstance(labels, str | bytes | bytearray) or unordered or not isinstance(labels, Sized):
        raise TypeError(
            f"{where}: labels must be a sequence of str, one per run (a tuple or list), "
            f"got {type(labels).__name__} {labels!r:.40}"
        )
    given = list(cast("Iterable[object]", labels))
    for run, label in enumerate(given):
        if not isinstance(label, str):
            raise TypeError(
                f"{where}: labels must be str (run {run}'s label is "
                f"{type(label).__name__} {label!r:.40})"
            )
    if len(given) != runs:
        raise ValueError(f"{where}: {len(given)} labels, {runs} runs")
    # numpy's str_ as str: a label is compared and written as text.
    return tuple(str(label) for label in given)


def own_confidence(confidence: object, where: str) -> float:
    """``confidence`` as a float strictly between 0 and 1, or a TypeError (text, a
    boolean: ``"0.9"`` failed with "'<' not supported") or ValueError (NaN, 0, 1, beyond)
    naming ``interval_confidence``. A ``Decimal`` is a number here, as in the medians (it
    is no ``numbers.Real``)."""
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real | decimal.Decimal):
        raise TypeError(
            f"{where}: interval_confidence must be a number in (0, 1), got "
            f"{type(confidence).__name__} {confidence!r:.40}"
        )
    value = float(confidence)
    if not 0.0 < value < 1.0:  # NaN too
        raise ValueError(f"{where}: interval_confidence must lie in (0, 1), got {value!r}")
    return value


def same_floats(one: FloatArray | None, other: FloatArray | None) -> bool:
    """Both ``None``, or arrays of one shape and equal values (NaN equal to NaN: a missing
    run is one in both; float32 and float64 compared by value)."""
    if one is None or other is None:
        return one is other
    return one.shape == other.shape and bool(np.array_equal(one, other, equal_nan=True))


def same_samples(one: tuple[FloatArray, ...] | None, other: tuple[FloatArray, ...] | None) -> bool:
    """Both ``None``, or as many runs' samples, each :func:`same_floats`."""
    if one is None or other is None:
        return one is other
    return len(one) == len(other) and all(map(same_floats, one, other))


def hash_floats(values: FloatArray) -> bytes:
    """``values`` (float64) as bytes equal for arrays :func:`same_floats` calls equal:
    every NaN as one NaN (their bits may differ), -0.0 as 0.0."""
    canonical = np.where(np.isnan(values), np.nan, values + 0.0)
    return np.ascontiguousarray(canonical, dtype=np.float64).tobytes()
