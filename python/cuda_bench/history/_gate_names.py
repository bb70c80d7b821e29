"""The names of the gate's reference runs, as its reports show them (the inputs of the JSON
report and its rows' ``ref_files``, the markdown footer, the CSV's ``ref_files`` and
``ref_file``).

Reference ``k`` holds each gated state's ``k``-th most recent run of its level
(:func:`.gate._references`). Where that is one archived run for every state (levels of
one length, the usual case), the reference is that run, named by its commit (short, as
trend and detect show commits) and date in UTC: ``ARCHIVE (commit 9472c1b6f775,
2026-03-08 02:00 UTC)``. Where the states' levels differ (a change point in some series, a
state some runs lack, an outlying run left out of one level), it holds several archived
runs, named by its place and the first and last of them in date order: ``ARCHIVE (run 1 of
each state's level: 2 archived runs, commit ... .. commit ...)``.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

from ._dates import DATE_MICROS, run_date
from ._names import short_commit

if TYPE_CHECKING:
    from ..results._tools_api import BenchmarkResult
    from ._gate_states import GateLevel, LevelKey

__all__ = ["reference_names"]

_PLACES: Final = (
    f"SELECT run, commit, {DATE_MICROS.format(column='date')} FROM runs "
    "WHERE run IN (SELECT unnest(?::VARCHAR[]))"
)


def _runs_of(result: BenchmarkResult, levels: Mapping[LevelKey, GateLevel], k: int) -> set[str]:
    """The archived runs reference ``k`` holds: the ``k``-th run of each gated state's
    level and, in the primary reference (``k = 0``), the latest run of each level of a
    state the gated run lacks (its REMOVED rows, :func:`._gate_states.removed_states`)."""
    gated = {
        (view.name, state.device, state.name()) for view in result.benchmarks for state in view
    }
    runs = {level.runs[k] for key, level in levels.items() if key in gated and len(level.runs) > k}
    if k == 0:
        runs.update(
            level.runs[0]
            for key, level in levels.items()
            if key not in gated and level.current and level.runs
        )
    return runs


def _in_date_order(place: tuple[object, object]) -> tuple[float, str]:
    commit, date = place
    return (date.timestamp() if isinstance(date, dt.datetime) else 0.0, str(commit))


def _named(commit: object, date: object) -> str:
    when = date.astimezone(dt.timezone.utc) if isinstance(date, dt.datetime) else None
    shown = f"{when:%Y-%m-%d %H:%M} UTC" if when is not None else str(date)
    return f"commit {short_commit(str(commit))}, {shown}"


def reference_names(
    connection: Any,
    archive: str | os.PathLike[str],
    result: BenchmarkResult,
    levels: Mapping[LevelKey, GateLevel],
    count: int,
) -> list[str]:
    """The names of the ``count`` reference runs of the gate of ``result`` (module
    docstring), over the archive's open :func:`.archive.query` ``connection``."""
    held = [_runs_of(result, levels, k) for k in range(count)]
    wanted: Iterable[str] = sorted(set().union(*held))
    places = {
        str(run): (commit, run_date(micros))
        for run, commit, micros in connection.execute(_PLACES, [list(wanted)]).fetchall()
    }
    where = os.fspath(archive)
    names = []
    for k, runs in enumerate(held):
        known = sorted((places[run] for run in runs if run in places), key=_in_date_order)
        if len(known) == 1:
            names.append(f"{where} ({_named(*known[0])})")
        elif known:
            first, last = _named(*known[0]), _named(*known[-1])
            names.append(
                f"{where} (run {k + 1} of each state's level: {len(known)} archived runs, "
                f"{first} .. {last})"
            )
        else:  # no state of the run has a level: the primary reference of ADDED rows
            names.append(f"{where} (current level, run {k + 1})")
    return names
