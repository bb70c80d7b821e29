"""Renderers of the history's findings: trend tables, the detection summary, the JSON report.

The JSON report's fields are documented in ``docs/history-schema.md`` (kept in step with
:func:`detect_report` by the test suite).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final

from .._untrusted import visible
from ..history._names import short_commit
from .format import RATIO_DECIMALS, RATIO_DECIMALS_MOST, distinct_decimals, format_percent
from .intervals import align_compact_intervals, compact_interval
from .table import Align, Table, render_table

if TYPE_CHECKING:
    from ..history.baseline import BaselineCheck
    from ..history.model import Candidate, ConfirmedCreep, Detection
    from ..history.series import ArchiveSeries, HistoryView

__all__ = [
    "SCHEMA",
    "SCHEMA_VERSION",
    "baseline_text",
    "candidate_text",
    "counted",
    "creep_text",
    "detect_report",
    "detect_text",
    "no_change_text",
    "ratio_text",
    "short_commit",
    "too_short_text",
    "trend_text",
]

SCHEMA: Final = "nvbench-tools.history-detect"
#: 4: ``series[].level_lo``/``level_hi`` are ``null`` for a level of fewer runs than a 95 %
#: interval of their median needs (history/_level.py); 3 always gave numbers.
SCHEMA_VERSION: Final = 4


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``1 event``, ``2 events``: ``count`` with ``noun`` in its number (``plural`` where it
    is not ``noun + "s"``: ``series``)."""
    return f"{count} {noun if count == 1 else (plural or noun + 's')}"


def ratio_text(ratio: float, lo: float, hi: float) -> str:
    """A ratio with its interval: ``1.052 [1.041, 1.063]``; with more decimals where three
    would write both ends alike (``1.0002 [1.0001, 1.0004]``)."""
    decimals = distinct_decimals(lo, hi, RATIO_DECIMALS, RATIO_DECIMALS_MOST)
    return f"{ratio:.{decimals}f} [{lo:.{decimals}f}, {hi:.{decimals}f}]"


def candidate_text(candidate: Candidate) -> str:
    """A candidate in one cell: ``candidate SLOW abc123 x1.049 (3 runs, 2 to decide)``."""
    return (
        f"candidate {candidate.status.value} {short_commit(candidate.commit)} "
        f"x{candidate.ratio:.3f} ({candidate.runs_after} runs, "
        f"{candidate.runs_to_decide} to decide)"
    )


def creep_text(creep: ConfirmedCreep) -> str:
    """A creep in one cell: ``creep SLOW abc123..def456 x1.048``."""
    return (
        f"creep {creep.status.value} {short_commit(creep.first_commit)}.."
        f"{short_commit(creep.end_commit)} x{creep.ratio:.3f}"
    )


def trend_text(view: HistoryView) -> str:
    """One table row per series: runs, last run, current level with its interval, changes."""
    last_runs = []
    levels = []
    for one, level in zip(view.series, view.levels, strict=True):
        lo, hi = (None if bounds is None else bounds[-1] for bounds in one.median_bounds())
        # Each cell in one unit, its value's: a level far narrower than its value read
        # ``3.181 us [-0.0, +0.3] ns``.
        last_runs.append(compact_interval(lo, float(one.medians[-1]), hi, same_unit=True))
        # A level of too few runs for an interval (NaN) shows its median alone.
        level_lo, level_hi = level.bounds()
        levels.append(compact_interval(level_lo, level.median, level_hi, same_unit=True))
    last_cells = align_compact_intervals(last_runs)
    level_cells = align_compact_intervals(levels)
    scanned = {key: scan.scanned for key, scan in view.detection.scans}
    rows = []
    for position, one in enumerate(view.series):
        changes = view.changes_of(position)
        latest = changes[-1] if changes else None
        pending = view.candidate_of(position)
        crept = view.creeps_of(position)
        last_creep = crept[-1] if crept else None
        latest_text = (
            ""
            if latest is None
            else f"{latest.status.value} {short_commit(latest.commit)} x{latest.ratio:.3f}"
        )
        if last_creep is not None and (latest is None or last_creep.end > latest.index):
            latest_text = creep_text(last_creep)
        rows.append(
            (
                one.benchmark,
                one.device_text,
                one.state,
                one.machine[:8],
                str(one.runs),
                short_commit(one.commits[-1]),
                last_cells[position],
                f"{level_cells[position]} ({counted(view.levels[position].runs, 'run')})",
                # A series too short to test has no count of changes: "0" would say it
                # was tested and found clean.
                str(len(changes)) if scanned[one.key] else "-",
                candidate_text(pending) if pending is not None else latest_text,
            )
        )
    table = Table(
        headers=(
            "Benchmark",
            "Device",
            "State",
            "Machine",
            "Runs",
            "Last commit",
            "Last run",
            "Current level",
            "Changes",
            "Latest change",
        ),
        rows=tuple(rows),
        align=(Align.LEFT,) * 4 + (Align.RIGHT,) + (Align.LEFT,) * 3 + (Align.RIGHT, Align.LEFT),
    )
    text = render_table(table)
    if not all(level.has_interval for level in view.levels):
        from ..history._level import LEVEL_CONFIDENCE, LEVEL_INTERVAL_RUNS

        text += (
            f"\nCurrent level: no interval for a level of fewer than {LEVEL_INTERVAL_RUNS} "
            f"runs (n runs bound their median with probability at most 1 - 2^(1-n), under "
            f"{LEVEL_CONFIDENCE:.0%} below {LEVEL_INTERVAL_RUNS})"
        )
    short = too_short_text(view)
    if short:
        text += f"\nChanges: - for the {short}"
    return text


def detect_text(view: HistoryView) -> str:
    """Events (largest first), then every reported change, then the counts (of the changes
    from the view's ``since_commit`` on, where ``detect --since`` named one)."""
    detection = view.detection
    since = view.since_commit
    changes = view.reported_changes()
    events = view.reported_events(changes)
    parts = []
    if events:
        parts.append(
            render_table(
                Table(
                    headers=("Commit", "Status", "States", "Median ratio [95% CI]"),
                    rows=tuple(
                        (
                            short_commit(event.commit),
                            event.status.value,
                            str(len(event.series)),
                            ratio_text(event.ratio, event.ratio_lo, event.ratio_hi),
                        )
                        for event in events
                    ),
                    align=(Align.LEFT, Align.LEFT, Align.RIGHT, Align.LEFT),
                )
            )
        )
    if changes:
        parts.append(
            _series_table(
                view,
                ("Commit", "Status", "Ratio [95% CI]"),
                (
                    (
                        position,
                        short_commit(change.commit),
                        change.status.value,
                        ratio_text(change.ratio, change.ratio_lo, change.ratio_hi),
                    )
                    for position, change in changes
                ),
            )
        )
    creeps = view.reported_creeps()
    if creeps:
        parts.append(
            _series_table(
                view,
                ("Creep from", "To", "Status", "Ratio [95% CI]"),
                (
                    (
                        position,
                        short_commit(creep.first_commit),
                        short_commit(creep.end_commit),
                        creep.status.value,
                        ratio_text(creep.ratio, creep.ratio_lo, creep.ratio_hi),
                    )
                    for position, creep in creeps
                ),
            )
        )
    pending = [(p, c) for p, c in enumerate(view.candidates) if c is not None]
    if pending:
        parts.append(
            _series_table(
                view,
                ("Candidate commit", "So far", "Ratio [95% CI]", "Runs", "To decide"),
                (
                    (
                        position,
                        short_commit(one.commit),
                        one.status.value,
                        ratio_text(one.ratio, one.ratio_lo, one.ratio_hi),
                        str(one.runs_after),
                        str(one.runs_to_decide),
                    )
                    for position, one in pending
                ),
                right=2,
            )
        )
    # Over the series the scan tested: an untested series' rate of 0 says nothing.
    tested = {key: scan for key, scan in detection.scans if scan.scanned}
    rates = [scan.false_alarm_rate for scan in tested.values()]
    # The runs the scan tested (those with a value), as the rate is.
    longest = max((scan.runs for scan in tested.values()), default=0)
    alarms = (
        f"false-alarm rate {format_percent(max(rates), decimals=1)} per series "
        f"(of up to {counted(longest, 'run')})"
        if rates
        else "no series long enough to test"
    )
    slow = sum(1 for _, change in changes if change.status.value == "SLOW")
    cycled = sum(1 for _, scan in detection.scans if scan.seasonal)
    parts.append(
        f"{len(view.series)} series, {counted(len(events), 'event')}, "
        f"{counted(len(changes), 'change')}"
        + ("" if since is None else f" from {visible(short_commit(since))} on")
        + f" ({slow} SLOW, {len(changes) - slow} FAST); "
        f"{alarms}, "
        f"false-discovery rate {format_percent(detection.fdr)} across series, "
        f"tolerance {format_percent(detection.tolerance)}"
        + (f"; {counted(len(creeps), 'creep')} over several runs" if creeps else "")
        + (f"; {counted(len(pending), 'candidate')} too recent to confirm" if pending else "")
        + (f"; {counted(cycled, 'series', 'series')} less a cycle" if cycled else "")
    )
    short = too_short_text(view)
    if short:
        parts[-1] += "\n" + short
    return "\n\n".join(parts) + "\n"


def too_short_text(view: HistoryView) -> str:
    """``3 of 20 series too short to test ...``: the series of too few runs for the scan
    to test anything (their false-alarm rate of 0 says nothing), and the runs a series
    needs; ``""`` when every series was tested."""
    detection = view.detection
    count = detection.too_short()
    if not count:
        return ""
    # Runs with a value: those the scan saw.
    longest = max(scan.runs for _, scan in detection.scans if not scan.scanned)
    text = _too_short(count, len(view.series))
    needs = _runs_needed(detection)
    if needs:
        text += f" for changes: {needs}"
    return f"{text}; the longest of them has {counted(longest, 'run')}"


def _too_short(count: int, total: int) -> str:
    return f"{count} of {counted(total, 'series', 'series')} too short to test"


def _runs_needed(detection: Detection) -> str:
    """``a series needs at least 10 runs`` (the scan's fewest); ``""`` where none is set."""
    fewest = detection.fewest_runs
    return f"a series needs at least {counted(fewest, 'run')}" if fewest else ""


def no_change_text(view: HistoryView) -> str:
    """What an empty list of change points means, in one sentence: ``No change points
    confirmed.`` where every series was tested, otherwise how many were not (too few runs):
    an empty list must not read as a clean bill of health for series never tested."""
    detection = view.detection
    short = detection.too_short()
    if not short:
        return "No change points confirmed."
    total = len(view.series)
    needs = _runs_needed(detection)
    if short == total:
        series = counted(total, "series", "series")
        said = f"{series}; {needs}" if needs else series
        return f"No series has enough runs to test for change points ({said})."
    return (
        f"No change points confirmed in the {counted(total - short, 'series', 'series')} "
        f"tested; {_too_short(short, total)}" + (f" ({needs})." if needs else ".")
    )


def _series_table(
    view: HistoryView,
    headers: tuple[str, ...],
    rows: Iterable[tuple[Any, ...]],
    *,
    right: int = 0,
) -> str:
    """A table of findings, one row each: ``(series position, *cells)`` under the columns
    that name the series and then ``headers``, left-aligned but the last ``right`` columns."""
    named = ("Benchmark", "Device", "State", *headers)
    return render_table(
        Table(
            headers=named,
            rows=tuple((*_series_cells(view.series[row[0]]), *row[1:]) for row in rows),
            align=(Align.LEFT,) * (len(named) - right) + (Align.RIGHT,) * right,
        )
    )


def _series_cells(one: ArchiveSeries) -> tuple[str, str, str]:
    """What names a series in a table: benchmark, device, state as ``nvbench_compare``
    shows it."""
    return one.benchmark, one.device_text, one.state


def _finite(value: float) -> float | str:
    if value != value:
        return "nan"
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    return value


def _series_fields(one: ArchiveSeries) -> dict[str, Any]:
    """What names a series in every list of the report."""
    return {
        "benchmark": one.benchmark,
        "device": one.device,
        "device_name": one.device_name,
        "state": one.state,
        "state_name": one.state_name,
        "machine": one.machine,
    }


def detect_report(view: HistoryView, *, tool_version: str) -> dict[str, Any]:
    """The versioned JSON document of a detection (``docs/history-schema.md``); its
    ``since`` is the commit the view was examined from (:attr:`HistoryView.since_commit`)."""
    detection = view.detection
    reported = view.reported_changes()
    events = view.reported_events(reported)
    event_ids = {(event.commit, event.status): number for number, event in enumerate(events)}
    scans = dict(detection.scans)
    changes = []
    for position, change in reported:
        one = view.series[position]
        changes.append(
            {
                **_series_fields(one),
                "commit": change.commit,
                "date": one.dates[change.index].isoformat(),
                "index": change.index,
                "ratio": change.ratio,
                "ratio_lo": change.ratio_lo,
                "ratio_hi": change.ratio_hi,
                "status": change.status.value,
                "event": event_ids[(change.commit, change.status)],
                "p_value": change.p_value,
                "q_value": change.q_value,
                "runs_before": change.runs_before,
                "runs_after": change.runs_after,
            }
        )
    creeps = [
        {
            **_series_fields(view.series[position]),
            "first_commit": creep.first_commit,
            "end_commit": creep.end_commit,
            "first_date": view.series[position].dates[creep.first].isoformat(),
            "end_date": view.series[position].dates[creep.end].isoformat(),
            "first": creep.first,
            "end": creep.end,
            "ratio": creep.ratio,
            "ratio_lo": creep.ratio_lo,
            "ratio_hi": creep.ratio_hi,
            "status": creep.status.value,
            "p_value": creep.p_value,
            "q_value": creep.q_value,
            "runs_before": creep.runs_before,
            "runs_after": creep.runs_after,
        }
        for position, creep in view.reported_creeps()
    ]
    candidates = [
        {
            **_series_fields(view.series[position]),
            "commit": one.commit,
            "date": view.series[position].dates[one.index].isoformat(),
            "index": one.index,
            "ratio": one.ratio,
            "ratio_lo": one.ratio_lo,
            "ratio_hi": one.ratio_hi,
            "status": one.status.value,
            "p_value": one.p_value,
            "q_value": one.q_value,
            "runs_before": one.runs_before,
            "runs_after": one.runs_after,
            "runs_to_decide": one.runs_to_decide,
        }
        for position, one in enumerate(view.candidates)
        if one is not None
    ]
    series = []
    for one, level in zip(view.series, view.levels, strict=True):
        scan = scans[one.key]
        # null: too few runs for an interval (history/_level.py).
        level_lo, level_hi = level.bounds()
        series.append(
            {
                **_series_fields(one),
                "runs": one.runs,
                "scanned": scan.scanned,
                "false_alarm_rate": scan.false_alarm_rate,
                "smallest_change": _finite(scan.smallest_change),
                "noise": _finite(scan.noise),
                "season": len(scan.seasonal),
                "level": level.median,
                "level_lo": level_lo,
                "level_hi": level_hi,
                "level_runs": level.runs,
            }
        )
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "nvbench-history", "version": tool_version},
        # The commit as resolved from a prefix (``--since abc1`` names one whole commit).
        "since": view.since_commit,
        "fdr": detection.fdr,
        "tolerance": detection.tolerance,
        "fewest_runs": detection.fewest_runs,
        "events": [
            {
                "id": number,
                "commit": event.commit,
                "status": event.status.value,
                "states": len(event.series),
                "ratio": event.ratio,
                "ratio_lo": event.ratio_lo,
                "ratio_hi": event.ratio_hi,
            }
            for number, event in enumerate(events)
        ],
        "changes": changes,
        "creeps": creeps,
        "candidates": candidates,
        "series": series,
    }


def baseline_text(check: BaselineCheck) -> str:
    """The states that fail the baseline rule (a table), then one line with the verdict."""
    from ..history.series import display_state_name
    from .format import format_duration

    failures = check.failures
    out = ""
    if failures:
        rows = tuple(
            (
                state.benchmark,
                "" if state.device is None else f"[{state.device}]",
                display_state_name(state.state_name),
                format_percent(state.rsd, decimals=2),
                ", ".join("-" if m is None else format_duration(m) for m in state.medians),
                state.problem,
            )
            for state in failures
        )
        table = Table(
            headers=("Benchmark", "Device", "State", "RSD", "Medians", "Problem"),
            rows=rows,
            align=(Align.LEFT, Align.LEFT, Align.LEFT, Align.RIGHT, Align.LEFT, Align.LEFT),
        )
        out = render_table(table) + "\n"
    verdict = "FAIL" if failures else "PASS"
    skipped = f"; {check.skipped} skipped in every run" if check.skipped else ""
    out += (
        f"{verdict}: {len(check.states) - len(failures)} of {len(check.states)} state(s) agree "
        f"within {check.max_rsd:.2%} relative stdev of their medians over {len(check.runs)} "
        f"runs{skipped}\n"
    )
    return out
