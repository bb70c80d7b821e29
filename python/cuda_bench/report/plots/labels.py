"""Text drawn from comparison rows: titles, axis values, pinned axes, file names."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Final

from ..._untrusted import visible
from ..format import AxisStyle, format_axis_value

if TYPE_CHECKING:
    from ...compare.filters import FilterPlan
    from ...compare.model import Comparison, Row
    from ...results._tools_api import StateAxisValue

__all__ = [
    "LABEL_LIMIT",
    "axis_text",
    "device_title",
    "drawn_label",
    "file_label",
    "pinned_axes",
    "plan_of",
]

#: The most characters of a label a plot draws. A figure is at most 24 inches wide, where
#: about 250 characters of a 9-point label fit; matplotlib lays out every character of a
#: longer one (a 200,000-character name from a result file: ten minutes) to draw nothing.
LABEL_LIMIT: Final = 200


def drawn_label(text: str, limit: int = LABEL_LIMIT) -> str:
    """``text`` as a plot draws it: control characters as visible escapes, and at most
    ``limit`` characters (a longer one cut, ending in ``…``)."""
    shown = visible(text)
    return shown if len(shown) <= limit else f"{shown[: limit - 1]}…"


def plan_of(comparison: Comparison) -> FilterPlan:
    """The filter plan a comparison was made with, rebuilt from its ``-b``/``-a`` text."""
    from ...compare.filters import FilterPlan

    items: list[tuple[str, str]] = []
    for option in comparison.filters:
        flag, _, value = option.partition(" ")
        items.append(("benchmark" if flag == "-b" else "axis", value))
    return FilterPlan.from_args(items)


def device_title(row: Row) -> str:
    """``[0] NAME`` or ``[0] A vs. [1] B`` (names included), ``""`` for CPU-only rows."""
    ref_id, cmp_id = row.ref_device, row.cmp_device
    if ref_id is None and cmp_id is None:
        return ""
    ref = f"[{ref_id}] {row.ref_device_name or ''}".rstrip()
    cmp = f"[{cmp_id}] {row.cmp_device_name or ''}".rstrip()
    if ref_id is None:
        return cmp
    if cmp_id is None or ref == cmp:
        return ref
    return f"{ref} vs. {cmp}"


def axis_text(values: Iterable[StateAxisValue], drop: Iterable[str] = ()) -> str:
    dropped = set(drop)
    return " ".join(
        f"{value.name}={format_axis_value(value, AxisStyle.COMPACT)}"
        for value in values
        if value.name not in dropped
    )


def pinned_axes(
    plan: FilterPlan, benchmarks: Sequence[str]
) -> tuple[dict[str, dict[str, str]], str]:
    """Axes the filters pin, per benchmark, and the title text that names them.

    Pins every benchmark of the figure shares are written once (``T=F32``); the others per
    benchmark (``copy: Layout=strided``).
    """
    per_benchmark = {name: plan.single_valued_axes(name) for name in benchmarks}
    if not per_benchmark:
        return {}, ""
    shared = dict(next(iter(per_benchmark.values())))
    for pins in per_benchmark.values():
        shared = {name: value for name, value in shared.items() if pins.get(name) == value}
    parts = [f"{name}={value}" for name, value in shared.items()]
    for bench, pins in per_benchmark.items():
        own = [f"{name}={value}" for name, value in pins.items() if name not in shared]
        if own:
            parts.append(f"{bench}: {' '.join(own)}")
    return per_benchmark, " · ".join(parts)


def file_label(files: Sequence[str]) -> str:
    return ", ".join(os.path.basename(os.fspath(name)) or os.fspath(name) for name in files)
