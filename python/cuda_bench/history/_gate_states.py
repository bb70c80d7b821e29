"""States the gate rebuilds from what the archive stored (:mod:`.gate` uses them).

A series' current level as the gate sees it (:class:`GateLevel`; the runs of it,
:func:`settled_runs`, end before a candidate change, which a row then names,
:func:`before_candidate`), a state's summaries from
one archived run's stored values (:func:`from_summaries`), and the states and benchmarks of
the environment's latest archived run that the gated run lacks (:func:`removed_states`,
:func:`removed_benchmarks`), which the comparison reports as REMOVED rows. A CPU-only
series (device ``None``) is rebuilt as NVBench writes a CPU-only state: no ``Device=``
token, ``nv/cpu_only`` summaries, in a benchmark without devices.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Final

import msgspec

from ..compare.model import Status
from ..results._tools_api import BenchmarkResult, StateAxisValue
from ._gate_result import PendingCandidate
from ._names import display_state_name

if TYPE_CHECKING:
    from ..compare.model import Comparison
    from ..results._schema import Benchmark, State, Summary
    from ._gate_result import GateResult
    from .model import Candidate
    from .series import HistoryView

__all__ = [
    "DECIDED",
    "GateLevel",
    "LevelKey",
    "StoredKey",
    "before_candidate",
    "from_summaries",
    "removed_benchmarks",
    "removed_states",
    "settled_runs",
    "with_note",
]

#: Statuses of rows the comparison decided.
DECIDED: Final = frozenset({Status.SAME, Status.FAST, Status.SLOW, Status.AMBG})
#: States a summary note names before it says "and N more".
_LISTED: Final = 8
#: z of the archive's 95 % median intervals (two-sided normal quantile).
_Z95: Final = 1.959963984540054

#: ``(benchmark, device, state name)`` of a series (device ``None``: CPU-only).
LevelKey = tuple[str, int | None, str]
#: ``(run, benchmark, device, state name)`` of one stored state row.
StoredKey = tuple[str, str, int | None, str]


class GateLevel(msgspec.Struct, frozen=True):
    """A series' current level as the gate uses it."""

    runs: tuple[str, ...]  # most recent first, at most max_runs
    size: int  # runs in the level
    axes: tuple[StateAxisValue, ...] = ()
    #: The series has a point in the environment's latest archived run (a run without
    #: the state is then REMOVED on it).
    current: bool = False
    #: The series' candidate, not yet confirmed, which the level ends before.
    pending: PendingCandidate | None = None
    #: A gated run was among the series' runs, left out as its own reference.
    left_out: bool = False


def _datum_summary(tag: str, value: float | int) -> Summary:
    from ..results._schema import Datum, Summary
    from ..results._values import format_float64, format_int64

    if isinstance(value, int):
        return Summary(tag=tag, data=[Datum(name="value", type="int64", value=format_int64(value))])
    return Summary(tag=tag, data=[Datum(name="value", type="float64", value=format_float64(value))])


def from_summaries(stored: tuple[Any, ...], cpu_only: bool) -> list[Summary]:
    """A state's summaries from the stored per-run values (:mod:`.gate`'s docstring)."""
    median, lo, hi, mean, noise, count, clock = stored
    space = "nv/cpu_only" if cpu_only else "nv/cold"
    time = f"{space}/time/cpu" if cpu_only else f"{space}/time/gpu"
    out = [_datum_summary(f"{space}/sample_size", int(count or 0))]
    if mean is not None:
        out.append(_datum_summary(f"{time}/mean", float(mean)))
    if noise is not None:
        out.append(_datum_summary(f"{time}/stdev/relative", float(noise)))
    if median is not None:  # older NVBench wrote the mean only
        out.append(_datum_summary(f"{time}/median", float(median)))
    if median and lo and hi is not None and count and count > 1 and 0 < lo <= median <= hi:
        error = (math.log(hi) - math.log(lo)) / (2.0 * _Z95)
        half = error * median * math.sqrt(count) / 2.0
        if half < median:
            out.append(_datum_summary(f"{time}/q1", float(median - half)))
            out.append(_datum_summary(f"{time}/q3", float(median + half)))
    if clock is not None and not cpu_only:
        out.append(_datum_summary("nv/cold/sm_clock_rate/mean", float(clock)))
    return out


def removed_states(
    benchmark: str,
    present: set[tuple[int | None, str]],
    levels: dict[LevelKey, GateLevel],
    stored: dict[StoredKey, tuple[Any, ...]],
) -> list[State]:
    """States of ``benchmark`` in the environment's latest archived run that the gated run
    lacks (``present``: its ``(device, state name)`` pairs), for the primary reference run
    only: the comparison makes them REMOVED rows."""
    from ..results._schema import AxisValue, State

    out = []
    for (name, device, state_name), level in levels.items():
        if name != benchmark or not level.current or (device, state_name) in present:
            continue
        found = stored.get((level.runs[0], name, device, state_name))
        if found is None:
            continue
        # Named as NVBench names the state in a file (``Elements=2^16``, not the stored
        # ``Elements[pow2]=16``), so that its row has the key the state has where a run
        # measured it.
        shown = display_state_name(state_name)
        out.append(
            State(
                name=shown if device is None else f"Device={device} {shown}".rstrip(),
                device=device,
                axis_values=[
                    AxisValue(name=a.name, type=a.type, value=a.value) for a in level.axes
                ],
                summaries=from_summaries(found, device is None),
            )
        )
    return out


def removed_benchmarks(
    result: BenchmarkResult,
    levels: dict[LevelKey, GateLevel],
    stored: dict[StoredKey, tuple[Any, ...]],
) -> list[Benchmark]:
    """Benchmarks of the latest archived run that the gated run lacks altogether (a
    CPU-only one without devices, as NVBench writes it)."""
    from ..results._schema import Benchmark

    missing = sorted({name for (name, _, _), level in levels.items() if level.current})
    out = []
    for name in missing:
        if name in result:
            continue
        states = removed_states(name, set(), levels, stored)
        devices = sorted({state.device for state in states if isinstance(state.device, int)})
        if states:
            out.append(Benchmark(name=name, devices=devices or None, axes=None, states=states))
    return out


def settled_runs(view: HistoryView, position: int) -> tuple[int, int, Candidate | None]:
    """The runs ``[first, end)`` of series ``position``'s settled level, and the candidate
    it ends before (``None``: it ends at the last run): from its last confirmed change or
    the end of its last creep to its candidate, if it has one, else to its last run. A
    candidate is no level yet (it is confirmed or rejected only runs later): tonight's run
    is held to the level before it, never to the candidate's few runs, so a level that moves
    a little every night (a creep, which the detector follows with one candidate after
    another) is held to the runs before the latest candidate, and a regression stays
    flagged until the detector confirms it (:mod:`.gate`)."""
    one = view.series[position]
    first = max(
        [change.index for change in view.changes_of(position)]
        + [creep.end for creep in view.creeps_of(position)],
        default=0,
    )
    candidate = view.candidate_of(position)
    # The scan places a candidate at least min_segment runs after the last change; were
    # one ever at or before it, the whole level is better than a level of no run.
    if candidate is None or candidate.index <= first:
        return first, one.runs, None
    return first, candidate.index, candidate


def before_candidate(result: GateResult) -> GateResult:
    """``result`` with each decided row of a series held to the level before a candidate
    (:func:`settled_runs`) saying so, once, after the runs' gates are combined; and a note
    in the summary listing those states (a message alone shows in few of the reports)."""
    pending = {(one.benchmark, one.device, one.state_name): one for one in result.pending}
    if not pending:
        return result
    rows = []
    held = []
    for row in result.comparison.rows:
        state = row.cmp_state
        found = None if state is None else pending.get((row.benchmark, state.device, state.name()))
        if found is None or row.status not in DECIDED:
            rows.append(row)
            continue
        held.append(
            f"{row.benchmark} {row.key} (runs {found.since}..{found.until}; candidate at "
            f"{found.commit}, {found.runs} run(s) since)"
        )
        note = (
            f"; judged against the runs {found.since}..{found.until}, the level before a "
            f"candidate change at {found.commit} ({found.runs} archived run(s) since, not "
            "yet confirmed)"
        )
        verdict = msgspec.structs.replace(row.verdict, message=row.verdict.message + note)
        rows.append(msgspec.structs.replace(row, verdict=verdict))
    comparison = msgspec.structs.replace(result.comparison, rows=tuple(rows))
    if held:
        shown = "; ".join(held[:_LISTED]) + (
            f"; and {len(held) - _LISTED} more" if len(held) > _LISTED else ""
        )
        comparison = with_note(
            comparison,
            f"{len(held)} state(s) judged against the level before a candidate change, a "
            "shift of their last runs that nvbench-history detect cannot confirm yet (so a "
            "regression stays flagged until it is confirmed; on a slow creep the candidate "
            f"moves night by night and need not be where the change began): {shown}",
        )
    return msgspec.structs.replace(result, comparison=comparison)


def with_note(comparison: Comparison, note: str) -> Comparison:
    """``comparison`` with ``note`` added to the notes its summaries show
    (``settings["notes"]``, :func:`cuda.bench.report.document.comparison_notes`)."""
    notes = comparison.settings.get("notes", ())
    kept = tuple(notes) if isinstance(notes, tuple | list) else ()
    return msgspec.structs.replace(
        comparison, settings={**comparison.settings, "notes": (*kept, note)}
    )
