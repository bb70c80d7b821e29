"""Column types of :meth:`.model.Comparison.to_dataframe` (:func:`.records.comparison_frame`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final

from .._numbers import INT64_MAX, INT64_MIN

__all__ = ["FRAME_DTYPES", "integer_column"]

#: pandas dtypes per (JSON type, nullable); strings and arrays keep pandas' choice.
FRAME_DTYPES: Final[Mapping[tuple[str, bool], str]] = MappingProxyType(
    {
        ("number", True): "float64",
        ("number", False): "float64",
        ("integer", True): "Int64",
        ("integer", False): "int64",
        ("boolean", True): "boolean",
        ("boolean", False): "bool",
    }
)


def integer_column(pandas: Any, cells: Sequence[Any], dtype: str = "Int64") -> Any:
    """``cells`` (ints and ``None``) as integers of ``dtype``, or as Python ints of dtype
    object when one lies beyond int64 (a sample count or an axis value of 2^63 and more,
    which pandas cannot hold as integers), as :meth:`BenchmarkResult.to_dataframe` keeps
    such a column."""
    beyond = any(
        isinstance(cell, int) and not isinstance(cell, bool) and not INT64_MIN <= cell <= INT64_MAX
        for cell in cells
    )
    if beyond:
        return pandas.Series(cells, dtype=object)
    return pandas.array(cells, dtype=dtype)
