"""The archive's series: one state on one environment, its runs in order, ready for detection.

A series is a (machine fingerprint, benchmark, device, state name) of the archive's
``states`` view, its runs ordered by the run's ``order`` when every run has one, else by
date (then content hash, so ties come out the same every time). A run whose NVBench wrote
no median (older NVBench, such as NVBench 0.1.0's runs of 2021, summarised a state by its
mean only) enters by its mean. Skipped states and states without either are left out; a
row whose value is not a finite positive time (written by an ingest older than its check)
is left out with a warning (:class:`ArchiveRowWarning`)
instead of failing the detection. Each point keeps its run's commit and date and the
median's bootstrap interval the ingest stored.

A series shows its state as ``nvbench_compare`` does (:attr:`ArchiveSeries.state`:
``Elements=2^16``, where the archive's key says ``Elements[pow2]=16``) and its device
by id and name (:attr:`ArchiveSeries.device_text`: ``[0] NVIDIA H100 80GB HBM3``).

The current level of a series is the median of the per-run medians since its last
confirmed change, with a percentile bootstrap interval of that median from
:data:`LEVEL_INTERVAL_RUNS` (6) runs on, and none before (:mod:`._level`).
"""

from __future__ import annotations

import bisect
import datetime as dt
import math
import os
import re
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final, TypeVar

import msgspec
import numpy as np

from .._arrays import FloatArray  # at run time too: typing.get_type_hints resolves it
from .._json_input import loads
from ..compare._arguments import DeviceSelection
from ..compare.evidence import usable_time
from ..compare.filters import FilterItem, FilterPlan
from ..results._tools_api import StateAxisValue
from ._dates import DATE_MICROS, date_problem, run_date
from ._level import LEVEL_INTERVAL_RUNS, Level, current_level
from ._names import brief_names, display_state_name
from ._run_rows import ArchiveRowWarning, first_shown
from ._selection_arguments import checked_selection
from .archive import query
from .changepoint import ScanConfig
from .confirm import ConfirmConfig
from .detect import detect
from .model import Candidate, ConfirmedChange, ConfirmedCreep, Detection, Event, RunSeries

__all__ = [
    "LEVEL_INTERVAL_RUNS",
    "ArchiveRowWarning",
    "ArchiveSeries",
    "HistoryView",
    "Level",
    "UnknownCommitError",
    "current_level",
    "display_state_name",
    "examine",
    "latest_run",
    "load_series",
    "read_series",
]


class ArchiveSeries(msgspec.Struct, frozen=True):
    """One series of the archive, its runs in order (module docstring)."""

    machine: str
    benchmark: str
    #: Device id; ``None`` for a CPU-only benchmark.
    device: int | None
    state_name: str
    axes: tuple[StateAxisValue, ...]
    commits: tuple[str, ...]
    dates: tuple[dt.datetime, ...]
    medians: FloatArray
    #: The stored bootstrap interval of each run's median: NaN for a run stored without one,
    #: ``None`` when no run has one (reports take :meth:`median_bounds`).
    median_lo: FloatArray | None
    median_hi: FloatArray | None
    #: The archive's run (content hash) of each point.
    run_ids: tuple[str, ...] = ()
    #: The device's name as the runs recorded it (``None``: CPU-only or not recorded).
    device_name: str | None = None
    #: Each point's place in the run order of the runs read with it (every series of one
    #: read shares it), so that a commit can be placed in a series that has no run of it.
    positions: tuple[int, ...] = ()

    @property
    def state(self) -> str:
        """The state's name as ``nvbench_compare`` shows it (:func:`display_state_name`)."""
        return display_state_name(self.state_name)

    @property
    def device_text(self) -> str:
        """``[0] NVIDIA H100 80GB HBM3`` (``[0]`` without a name), ``""`` for CPU-only."""
        if self.device is None:
            return ""
        return f"[{self.device}] {self.device_name or ''}".rstrip()

    @property
    def key(self) -> str:
        """Unique within an archive: ``machine/benchmark/device/state name``."""
        return f"{self.machine}/{self.benchmark}/{self.device}/{self.state_name}"

    @property
    def runs(self) -> int:
        return int(self.medians.size)

    def median_bounds(self) -> tuple[list[float | None] | None, list[float | None] | None]:
        """Each run's stored interval of its median as numbers for a report, ``(lo, hi)``:
        ``None`` for a run stored without one (NaN), a list ``None`` when no run has one."""
        return _report_bounds(self.median_lo), _report_bounds(self.median_hi)

    def run_series(self) -> RunSeries:
        """The series as detection input, labelled by commit."""
        return RunSeries(
            key=self.key,
            medians=self.medians,
            median_lo=self.median_lo,
            median_hi=self.median_hi,
            labels=self.commits,
        )


def _axis_value(stored: dict[str, Any], state_name: str = "") -> StateAxisValue:
    typed: int | float | str = stored["value"]
    if stored["int_value"] is not None:
        typed = int(stored["int_value"])
    elif stored["float_value"] is not None:
        typed = float(stored["float_value"])
    # The archive keeps no axis flags; NVBench's state name marks a pow2 axis.
    flags = "pow2" if f"{stored['name']}[pow2]=" in state_name else ""
    return StateAxisValue(stored["name"], stored["type"], stored["value"], typed, flags)


_QUERY = f"""
SELECT s.machine, s.benchmark, s.device, s.state_name, s.axes, r.commit,
       {DATE_MICROS.format(column="r.date")},
       coalesce(s.median, s.mean), s.median_lo, s.median_hi, r."order", r.run
FROM states s JOIN runs r USING (run)
WHERE NOT s.skipped AND coalesce(s.median, s.mean) IS NOT NULL
"""
_DEVICES = "SELECT DISTINCT machine, devices FROM runs"


def _device_names(connection: Any) -> dict[tuple[str, int], str]:
    """``(machine, device id) -> name`` from the runs' device lists."""
    names: dict[tuple[str, int], str] = {}
    for machine, devices in connection.execute(_DEVICES).fetchall():
        try:
            listed = loads(devices) if devices else []
        except ValueError:
            continue
        for device in listed if isinstance(listed, list) else ():
            if isinstance(device, dict) and isinstance(device.get("id"), int):
                name = device.get("name")
                if isinstance(name, str) and name:
                    names.setdefault((str(machine), device["id"]), name)
    return names


#: What makes a state row unusable, by the field at fault: its column in the rows read, and
#: the problem as the warning says it.
_UNUSABLE: Final[Mapping[str, tuple[int, str]]] = MappingProxyType(
    {
        "median": (7, "whose median is not a finite positive time within the float32 range"),
        "date": (6, "whose run's date is out of Python's range"),
        "name": (1, "without a benchmark or state name"),
        # No ingest writes one (it refuses a file holding a state twice): a row repeated as
        # it is is read once; where they differ, none is (which is right is unknown).
        "twice": (1, "that repeat a state of their run (where they differ, none is read)"),
    }
)


def _warn_unusable(
    archive: str | os.PathLike[str], rows: Sequence[tuple[Any, ...]], name: str = "median"
) -> None:
    column, problem = _UNUSABLE[name]
    # A date is read as microseconds since 1970 (._dates): shown by where it lies.
    stored = date_problem if name == "date" else repr
    shown = first_shown(
        rows,
        lambda row: (
            f"run {str(row[11])[:16]} {row[1]} device {row[2]} "
            f"{display_state_name(row[3]) if isinstance(row[3], str) else None!r}"
            + ("" if name in ("name", "twice") else f": {name} {stored(row[column])}")
        ),
    )
    warnings.warn(
        ArchiveRowWarning(
            f"{os.fspath(archive)}: left out {len(rows)} state row(s) {problem}: {shown}"
        ),
        stacklevel=3,
    )


def _warn_deviceless(archive: str | os.PathLike[str], rows: Sequence[tuple[Any, ...]]) -> None:
    """Say which rows hold a GPU state without a device (null beside states of the same run
    and benchmark that have one): an ingest before 2026-11-29 archived them, the archive
    reads a null device as a CPU-only state's, and a gate leaves them out."""
    if not rows:
        return
    shown = first_shown(
        rows, lambda row: f"run {str(row[11])[:16]} {row[1]} {display_state_name(row[3])!r}"
    )
    warnings.warn(
        ArchiveRowWarning(
            f"{os.fspath(archive)}: {len(rows)} state row(s) of a GPU benchmark have no "
            f"device (ingest refuses such runs now); read as CPU-only states, which a gate "
            f"leaves out: {shown}"
        ),
        stacklevel=3,
    )


_RUN_PLACES = (
    f'SELECT run, "order", {DATE_MICROS.format(column="date")} FROM runs '
    "WHERE run IN (SELECT unnest(?::VARCHAR[]))"
)


def _run_key(
    connection: Any, archive: str | os.PathLike[str] | None = None
) -> Callable[[Any, Any, Any], tuple[Any, ...]]:
    """The sort key of a run in every series (module docstring): ``(order, date, run)``
    when every run of the archive has an order, else ``(date, run)``. With ``archive``,
    warns when some runs have an order and some do not: one run ingested without
    ``--order`` reorders every series by date, silently otherwise."""
    total, ordered = connection.execute('SELECT count(*), count("order") FROM runs').fetchone()
    if total == ordered:
        return lambda order, date, run: (order, date, run)
    if ordered and archive is not None:
        warnings.warn(
            ArchiveRowWarning(
                f"{os.fspath(archive)}: {total - ordered} of {total} runs have no --order, "
                "so every series follows the runs' dates (--order orders the series only "
                "when every run has one)"
            ),
            stacklevel=3,
        )
    return lambda order, date, run: (date, run)


def latest_run(connection: Any, runs: Iterable[str]) -> str | None:
    """The last of the archive runs ``runs`` in series order (module docstring), over an
    open :func:`.archive.query` connection; ``None`` when the archive holds none of them."""
    wanted = sorted(set(runs))
    if not wanted:
        return None
    key = _run_key(connection)
    places = connection.execute(_RUN_PLACES, [wanted]).fetchall()
    if not places:
        return None
    return str(max(places, key=lambda place: key(place[1], place[2], place[0]))[0])


def load_series(
    archive: str | os.PathLike[str],
    *,
    filters: FilterPlan | Sequence[FilterItem] | None = None,
    devices: DeviceSelection = None,
) -> list[ArchiveSeries]:
    """Every series of ``archive`` that ``filters`` and ``devices`` (in the forms
    :func:`~cuda.bench.compare.compare` takes them) select, sorted by key."""
    filters, devices = checked_selection(filters, devices)
    connection = query(archive)
    try:
        return read_series(connection, archive, filters=filters, devices=devices)
    finally:
        connection.close()


def read_series(
    connection: Any,
    archive: str | os.PathLike[str],
    *,
    filters: FilterPlan | Sequence[FilterItem] | None = None,
    devices: DeviceSelection = None,
) -> list[ArchiveSeries]:
    """:func:`load_series` over an open :func:`.archive.query` connection of ``archive``
    (a command that reads the archive more than once opens and checks it once)."""
    filters, devices = checked_selection(filters, devices)
    if not connection.execute("SELECT count(*) FROM runs").fetchone()[0]:
        return []
    run_key = _run_key(connection, archive)
    grouped: dict[tuple[str, str, int | None, str], list[tuple[Any, ...]]] = {}
    axes: dict[tuple[str, str, int | None, str], tuple[StateAxisValue, ...]] = {}
    wanted = None if devices is None else set(devices)
    # -b names and devices narrow the read in DuckDB; axis filters need the typed values.
    sql = _QUERY
    parameters: list[str | int] = []
    if filters is not None and filters.selections:
        names = list(filters.benchmark_names)
        sql += f" AND s.benchmark IN ({', '.join('?' * len(names))})"
        parameters.extend(names)
    if devices is not None:
        sql += f" AND s.device IN ({', '.join('?' * len(devices))})"
        parameters.extend(int(device) for device in devices)
    unusable = []
    undated = []
    unnamed = []
    twice = []
    # (series, run) -> its row's place in the series; a repeat that differs voids both.
    read: dict[tuple[tuple[str, str, int | None, str], str], int] = {}
    voided: set[tuple[tuple[str, str, int | None, str], int]] = set()
    deviceless = []
    with_device = set()
    for row in connection.execute(sql, parameters).fetchall():
        machine, benchmark, device, state_name, stored_axes = row[:5]
        if wanted is not None and device not in wanted:
            continue
        if device is None:
            deviceless.append(row)
        else:
            with_device.add((row[11], benchmark))
        if not isinstance(benchmark, str) or not isinstance(state_name, str):
            # Only a crafted or foreign writer leaves them null: no series can hold the row.
            unnamed.append(row)
            continue
        if not usable_time(row[7]):
            unusable.append(row)
            continue
        when = run_date(row[6])
        if when is None:
            # An older ingest stored dates Python cannot hold (year 10000 in UTC).
            undated.append(row)
            continue
        row = (*row[:6], when, *row[7:])
        key = (machine, benchmark, None if device is None else int(device), state_name)
        if key not in axes:
            values = tuple(_axis_value(item, state_name) for item in stored_axes or ())
            if filters is not None and not filters.selects_state(benchmark, values):
                axes[key] = ()
                continue
            axes[key] = values
            grouped[key] = []
        elif key not in grouped:
            continue
        if (key, row[11]) in read:
            twice.append(row)
            if grouped[key][read[key, row[11]]] != row[5:]:
                voided.add((key, read[key, row[11]]))
            continue
        read[key, row[11]] = len(grouped[key])
        grouped[key].append(row[5:])
    for key, at in sorted(voided, key=lambda one: -one[1]):  # later places first
        del grouped[key][at]
    if unusable:
        _warn_unusable(archive, unusable)
    if undated:
        _warn_unusable(archive, undated, "date")
    if unnamed:
        _warn_unusable(archive, unnamed, "name")
    if twice:
        _warn_unusable(archive, twice, "twice")
    _warn_deviceless(archive, [row for row in deviceless if (row[11], row[1]) in with_device])
    device_names = _device_names(connection)
    # Where each run lies among all runs read: a series' runs keep their order in it.
    places = {p[6]: p for points in grouped.values() for p in points}
    place = {
        run: rank
        for rank, run in enumerate(
            sorted(places, key=lambda r: run_key(places[r][5], places[r][1], r))
        )
    }
    out = []
    # CPU-only series (device None) sort before the device ids.
    # State names in natural order: Elements=4096 before Elements=2097152, as nvbench_compare
    # lists them (a plain string sort put 134217728 first).
    for key in sorted(
        grouped, key=lambda k: (k[0], k[1], -1 if k[2] is None else k[2], _natural(k[3]))
    ):
        points = grouped[key]
        points.sort(key=lambda p: run_key(p[5], p[1], p[6]))
        # Each run keeps its own interval; a run stored without one (no side files, no
        # samples) is NaN in both, and the series has None only when no run has one.
        lo, hi = _intervals(points)
        out.append(
            ArchiveSeries(
                machine=key[0],
                benchmark=key[1],
                device=key[2],
                state_name=key[3],
                axes=axes[key],
                commits=tuple(str(p[0]) for p in points),
                dates=tuple(p[1] for p in points),
                medians=np.array([p[2] for p in points], dtype=np.float64),
                median_lo=lo,
                median_hi=hi,
                run_ids=tuple(str(p[6]) for p in points),
                device_name=None if key[2] is None else device_names.get((key[0], key[2])),
                positions=tuple(place[p[6]] for p in points),
            )
        )
    return out


def _intervals(points: Sequence[Sequence[Any]]) -> tuple[FloatArray | None, FloatArray | None]:
    """Each point's stored median interval (``p[3]``, ``p[4]``), NaN where a run has none;
    ``(None, None)`` when no run has one."""
    pairs = [(p[3], p[4]) if p[3] is not None and p[4] is not None else None for p in points]
    if all(pair is None for pair in pairs):
        return None, None
    nan = (math.nan, math.nan)
    lo, hi = zip(*(nan if pair is None else pair for pair in pairs), strict=True)
    return np.array(lo, dtype=np.float64), np.array(hi, dtype=np.float64)


def _report_bounds(bounds: FloatArray | None) -> list[float | None] | None:
    return None if bounds is None else [b if math.isfinite(b) else None for b in bounds.tolist()]


class HistoryView(msgspec.Struct, frozen=True):
    """Series of an archive with what a detection found in them.

    ``since`` is the first run index per series whose changes are reported (``0``: all);
    ``changes`` the detection's changes of each series, in its order.
    """

    series: tuple[ArchiveSeries, ...]
    detection: Detection
    levels: tuple[Level, ...]
    since: tuple[int, ...]
    changes: tuple[tuple[ConfirmedChange, ...], ...]
    #: Each series' candidate (a change too recent to confirm), or ``None``; the current
    #: level then starts at the candidate, so it never mixes the two levels.
    candidates: tuple[Candidate | None, ...] = ()
    #: The detection's creeps of each series, in its order.
    creeps: tuple[tuple[ConfirmedCreep, ...], ...] = ()
    #: The commit ``since`` named, whole (a prefix resolved); ``None`` without ``since``.
    since_commit: str | None = None

    def candidate_of(self, position: int) -> Candidate | None:
        return self.candidates[position] if self.candidates else None

    def changes_of(self, position: int) -> list[ConfirmedChange]:
        return list(self.changes[position])

    def creeps_of(self, position: int) -> list[ConfirmedCreep]:
        return list(self.creeps[position]) if self.creeps else []

    def reported_changes(self) -> list[tuple[int, ConfirmedChange]]:
        """``(series position, change)`` in series order, run order, after ``since``."""
        found = [
            (position, change)
            for position, changes in enumerate(self.changes)
            for change in changes
            if change.index >= self.since[position]
        ]
        found.sort(key=lambda item: (item[0], item[1].index))
        return found

    def reported_creeps(self) -> list[tuple[int, ConfirmedCreep]]:
        """``(series position, creep)`` in series order, run order, for the creeps that end
        at or after ``since``."""
        found = [
            (position, creep)
            for position, creeps in enumerate(self.creeps)
            for creep in creeps
            if creep.end >= self.since[position]
        ]
        found.sort(key=lambda item: (item[0], item[1].first))
        return found

    def reported_events(
        self, reported_changes: Sequence[tuple[int, ConfirmedChange]] | None = None
    ) -> list[Event]:
        """The events of the reported changes (``reported_changes``: when already at hand)."""
        if reported_changes is None:
            reported_changes = self.reported_changes()
        reported = {(change.commit, change.status) for _, change in reported_changes}
        return [
            event for event in self.detection.events if (event.commit, event.status) in reported
        ]


class UnknownCommitError(ValueError):
    """``since`` names a commit no selected series has."""


def examine(
    series: Sequence[ArchiveSeries],
    *,
    since: str | None = None,
    scan_config: ScanConfig | None = None,
    confirm_config: ConfirmConfig | None = None,
) -> HistoryView:
    """Detect the change points of ``series`` and each one's current level.

    With ``since`` (a commit, or a prefix of one) only changes from the first run of that
    commit on, in the archive's run order, are reported, in every series (one without a
    run of it too); detection still sees every run, so the levels before it count.
    """
    detection = detect([one.run_series() for one in series], scan_config, confirm_config)
    changes = _per_series(series, detection.changes)
    creeps = _per_series(series, detection.creeps)
    pending = {candidate.series: candidate for candidate in detection.candidates}
    candidates = tuple(pending.get(one.key) for one in series)
    levels = tuple(
        current_level(
            one,
            # A creep's new level starts where its ramp ends: the level leaves the ramp out.
            [change.index for change in found]
            + [creep.end for creep in crept]
            + ([] if maybe is None else [maybe.index]),
        )
        for one, found, crept, maybe in zip(series, changes, creeps, candidates, strict=True)
    )
    commit = None if since is None else _since_commit(series, since)
    starts = [0] * len(series) if commit is None else _since_starts(series, commit)
    return HistoryView(
        tuple(series), detection, levels, tuple(starts), changes, candidates, creeps, commit
    )


_Finding = TypeVar("_Finding", ConfirmedChange, ConfirmedCreep)


def _per_series(
    series: Sequence[ArchiveSeries], found: Sequence[_Finding]
) -> tuple[tuple[_Finding, ...], ...]:
    """``found`` (changes or creeps, each naming its series) grouped by series, in the
    order of ``series``."""
    by_key: dict[str, list[_Finding]] = {}
    for one in found:
        by_key.setdefault(one.series, []).append(one)
    return tuple(tuple(by_key.get(one.key, ())) for one in series)


def _since_starts(series: Sequence[ArchiveSeries], since: str) -> list[int]:
    """Each series' first run at or after the first run of commit ``since`` in the run
    order: a series with no run of that commit (a state the run lacked, one added later)
    still reports its later changes. Series without :attr:`ArchiveSeries.positions` start
    at their own first run of the commit (``since``, as :func:`_since_commit` resolved it)."""
    hits = [
        one.positions[i]
        for one in series
        if one.positions
        for i, commit in enumerate(one.commits)
        if commit == since
    ]
    first = min(hits, default=None)
    starts = []
    found = first is not None
    for one in series:
        if one.positions and first is not None:
            starts.append(bisect.bisect_left(one.positions, first))
            continue
        own = [i for i, commit in enumerate(one.commits) if commit == since]
        found = found or bool(own)
        starts.append(own[0] if own else one.runs)
    if series and not found:
        raise UnknownCommitError(f"--since {since}: no run of the selected series has it")
    return starts


#: Commits an ambiguous ``--since`` names before it says "and N more".
_SINCE_LISTED: Final = 4


def _since_commit(series: Sequence[ArchiveSeries], since: str) -> str:
    """The commit ``since`` names among the runs of ``series``, as git takes one: itself
    when a run has it whole, else the one commit it begins (none: returned as given, for
    the caller's "no run has it"). Refused as git refuses them: an empty value, which
    begins every commit, and a prefix of several commits (the earliest would be a guess)."""
    if not since:
        raise UnknownCommitError("--since: empty; give a commit or a prefix of one")
    commits = {commit for one in series for commit in one.commits if commit.startswith(since)}
    if since in commits or not commits:
        return since
    if len(commits) == 1:
        return next(iter(commits))
    listed = brief_names(commits, _SINCE_LISTED)
    raise UnknownCommitError(
        f"--since {since}: ambiguous, the prefix of {len(commits)} commits ({listed}); "
        "give more of the commit"
    )


def _natural(name: str) -> tuple[tuple[int, str], ...]:
    """A sort key reading the runs of ASCII digits of ``name`` as numbers ("2^16" and
    "65536" as 2, 16 and 65536), compared by length and then digits (no ``int()``: names are
    untrusted, and "2²" or 5,000 digits must not fail), the name itself last so that two
    names never tie ("N=07" and "N=7")."""
    parts = []
    for part in re.split(r"([0-9]+)", name):
        if part.isascii() and part.isdigit():
            digits = part.lstrip("0") or "0"
            parts.append((1, f"{len(digits):08d}{digits}"))
        elif part:
            parts.append((0, part))
    return (*parts, (2, name))
