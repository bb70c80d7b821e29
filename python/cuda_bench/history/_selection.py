"""Why a selection of an archive's series (``-b``/``-a``/``--device``) is empty, in one line.

``nvbench_compare`` names a filter that matched nothing and the benchmarks its inputs have;
the history commands say the same of the archive: the ``-b`` name it lacks, the ``-a``
value no state of it has, the ``--device`` no series is on, with (briefly) what it holds.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ._names import brief_names

if TYPE_CHECKING:
    from ..compare.filters import FilterPlan
    from ..results._tools_api import StateAxisValue

__all__ = ["brief_names", "empty_selection"]


def empty_selection(
    archive: str | os.PathLike[str],
    *,
    filters: FilterPlan | None = None,
    devices: Sequence[int] | None = None,
) -> str:
    """Why ``filters`` and ``devices`` select no series of ``archive``: one line naming the
    selection that matched nothing and what the archive holds (call it when
    :func:`.series.load_series` with them returned none)."""
    from ._archive_files import ArchiveFileWarning
    from .series import ArchiveRowWarning, load_series

    label = os.fspath(archive)
    with warnings.catch_warnings():
        # The selected read already warned of the archive's unusable files and rows.
        warnings.simplefilter("ignore", ArchiveRowWarning)
        warnings.simplefilter("ignore", ArchiveFileWarning)
        everything = load_series(archive)
    if not everything:
        return f"{label}: the archive holds no series yet; ingest runs first"
    names = brief_names(one.benchmark for one in everything)
    held = f"(benchmarks in the archive: {names})"
    if filters is not None:
        seen: dict[str, list[Sequence[StateAxisValue]]] = {}
        for one in everything:
            seen.setdefault(one.benchmark, []).append(one.axes)
        unmatched = filters.unmatched_text(seen.items(), where="the archive")
        if unmatched is not None:
            return f"{label}: {unmatched} {held}"
    options = [] if filters is None else list(filters.describe())
    if devices is not None:
        ids = sorted({one.device for one in everything if one.device is not None})
        given = ",".join(str(device) for device in devices)
        absent = [device for device in devices if device not in ids]
        if len(absent) == len(devices):
            on = ", ".join(map(str, ids))
            if any(one.device is None for one in everything):
                on = f"{on} and CPU-only series" if on else "none: its series are CPU-only"
            where = "device" if len(absent) == 1 else "devices"
            shown = ", ".join(map(str, absent))
            return (
                f"{label}: --device {given}: no series on {where} {shown} "
                f"(devices in the archive: {on})"
            )
        options.append(f"--device {given}")
    selection = " ".join(options) or "the selection"
    return f"{label}: {selection} selects no series together {held}"
