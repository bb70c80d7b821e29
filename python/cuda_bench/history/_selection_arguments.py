"""The selection of a library call that reads an archive's series (``load_series``,
``gate``): ``filters`` and ``devices`` in the forms :func:`~cuda.bench.compare.compare` takes
them, each refused with one error naming the parameter (:mod:`..compare._arguments`).
Without it ``filters=[("benchmark", "copy")]`` failed with an AttributeError and
``devices="0"`` was split into its characters, selecting no series.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..compare._arguments import DeviceSelection, device_selection, filter_plan

if TYPE_CHECKING:
    from ..compare.filter_arguments import FilterItem
    from ..compare.filters import FilterPlan

__all__ = ["checked_selection"]


def checked_selection(
    filters: FilterPlan | Sequence[FilterItem] | None, devices: DeviceSelection
) -> tuple[FilterPlan | None, tuple[int, ...] | None]:
    """``filters`` and ``devices`` of a library call that reads an archive's series, in the
    forms :func:`~cuda.bench.compare.compare` takes them (``[("benchmark", "copy")]``, a
    plan; ``"0,1"``, device ids), each refused with one error naming the parameter."""
    plan = None if filters is None else filter_plan(filters)
    return plan, device_selection(devices, "devices", "--device")
