"""How the rows of one input pair are computed: in this process, or spread over forked
processes where that pays (Linux only, :mod:`.workers`).

:func:`plan_execution` picks one :class:`Executor`: :class:`Serial` (one process),
:class:`ByRow` (the rows' evidence gathered here, their decisions split over processes:
rows that read side files) or :class:`ByBenchmark` (each process decodes and compares the
benchmarks it takes from a common queue: large files read benchmark by benchmark). The
rows, their order and the warnings are those of one process whichever runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, cast

import msgspec

from ..results._tools_api import StateAxisValue, SubBenchmarkResult, SubBenchmarkState
from .engine import (
    Outcome,
    Prepared,
    Run,
    Task,
    Unit,
    Warnings,
    decide,
    make_row,
    prepare,
    reads_samples,
    stray_state_warnings,
    unit_tasks,
)
from .errors import CompareError
from .filters import FilterPlan
from .model import Row
from .suite import SuiteAccumulator
from .workers import available_cpus, can_fork, fork_dispatch, fork_map, split_evenly

__all__ = [
    "ByBenchmark",
    "ByRow",
    "Executor",
    "Serial",
    "job_count",
    "plan_execution",
    "split_jobs",
    "worth_splitting",
]


#: Fewest rows with per-sample data worth a process of their own. Rows decided from
#: summaries alone never are: sending one back to the parent costs about as much as
#: computing it.
_MIN_ROWS_PER_JOB = 64


#: Most processes ``jobs=None`` uses.
_MAX_AUTO_JOBS = 4


#: Least JSON per process (bytes, both inputs) worth splitting a comparison by benchmark:
#: reading the files' structure first, forking and sending rows back have a fixed cost that
#: only megabytes of work per process repay (measured: README, speed section).
_MIN_SPLIT_BYTES = 8 << 20


def _auto_jobs(jobs: int | None) -> int:
    """``jobs`` as asked, or for ``None`` (auto) one per available CPU, at most a few."""
    return min(available_cpus(), _MAX_AUTO_JOBS) if jobs is None else jobs


def job_count(jobs: int | None, rows: int) -> int:
    """Processes that compute rows of which ``rows`` read side files, for ``jobs``
    (see :func:`compare`)."""
    jobs = _auto_jobs(jobs)
    if jobs < 1:
        raise CompareError(f"jobs must be at least 1, got {jobs}")
    return max(1, min(jobs, rows // _MIN_ROWS_PER_JOB))


def worth_splitting(processes: int, json_bytes: int) -> bool:
    """Whether a pair of files with ``json_bytes`` of JSON together may be split over
    ``processes`` by benchmark (:func:`split_jobs`): read benchmark by benchmark, then."""
    return processes > 1 and json_bytes >= 2 * _MIN_SPLIT_BYTES


def split_jobs(jobs: int | None) -> int:
    """Processes a comparison may be split over by benchmark, for ``jobs``."""
    jobs = _auto_jobs(jobs)
    return jobs if jobs > 1 and can_fork() else 1


def _split_count(processes: int, units: Sequence[Unit]) -> int:
    """Processes to split ``units`` over: one unless they come from results read
    benchmark by benchmark, and only as many as the JSON of their states is worth."""
    if processes < 2 or len(units) < 2:
        return 1
    sizes = [_unit_bytes(unit) for unit in units]
    if None in sizes:
        return 1
    total = sum(cast("list[int]", sizes))
    return max(1, min(processes, len(units), total // _MIN_SPLIT_BYTES))


def _unit_bytes(unit: Unit) -> int | None:
    """Bytes of raw JSON states of a unit's benchmarks; ``None`` when one is decoded."""
    total = 0
    for bench in (unit.match.ref, unit.match.cmp):
        if bench is None:
            continue
        size = bench.raw_states_size
        if size is None:
            return None
        total += size
    return total


class _SplitChunk(msgspec.Struct):
    """The rows of some benchmarks compared by one process of a split comparison.

    A child's rows come without their states (which only it decoded), with ``links``
    holding each row's (benchmark position, state position) per side instead; ``seen``
    maps (side, benchmark position) to the benchmark's states' axis values, for the
    filter check, when ``-a`` filters are given.
    """

    rows: list[Row]
    links: list[tuple[tuple[int, int] | None, tuple[int, int] | None]] | None
    warnings: list[str]
    #: :func:`.engine.stray_state_warnings` of its benchmarks, told before any row's.
    strays: list[str]
    suite: SuiteAccumulator
    calibrated: list[int]
    seen: dict[tuple[int, int], list[tuple[StateAxisValue, ...]]]


def _compute_split(
    run: Run,
    units: list[Unit],
    plan: FilterPlan,
    workers: int,
    gathered: dict[int, list[tuple[StateAxisValue, ...]]],
) -> None:
    """Append the rows of ``units`` to ``run``, each of ``workers`` processes taking the
    next benchmark (largest first) until none is left and decoding only those it takes.

    The rows, their order and the warnings are those of one process; rows computed in a
    child link to states this process has not decoded, which decode when first used.
    """
    # Largest first: the last benchmarks handed out are small, so the processes finish
    # close together.
    order = sorted(range(len(units)), key=lambda i: -cast("int", _unit_bytes(units[i])))

    def work(position: int, remote: bool) -> _SplitChunk:
        return _split_rows(run, [units[position]], plan, detach=remote)

    benches: dict[tuple[int, int], SubBenchmarkResult] = {}
    for unit in units:
        for side, bench in enumerate((unit.match.ref, unit.match.cmp)):
            if bench is not None:
                benches[side, bench.position] = bench
    done = dict(zip(order, fork_dispatch(work, order, workers), strict=True))
    # As one process tells them: every benchmark's strays, then the rows' warnings.
    for position in range(len(units)):
        for message in done[position].strays:
            run.warn(message)
    for position in range(len(units)):
        result = done[position]
        for message in result.warnings:
            run.warn(message)
        if result.links is None:
            run.rows.extend(result.rows)
        else:
            run.rows.extend(
                _relinked(row, link, benches)
                for row, link in zip(result.rows, result.links, strict=True)
            )
        run.suite.merge(result.suite)
        run.calibrated[0] += result.calibrated[0]
        run.calibrated[1] += result.calibrated[1]
        for key, axis_values in result.seen.items():
            gathered[id(benches[key])] = axis_values


def _split_rows(run: Run, units: Sequence[Unit], plan: FilterPlan, *, detach: bool) -> _SplitChunk:
    """The rows of ``units`` computed in this process; ``detach``: for another process."""
    warn = Warnings()
    part = Run(run.pair, run.method, run.thresholds, warn, calibration=run.calibration)
    strays = stray_state_warnings(units, plan)
    Serial(unit_tasks(units, plan)).compute(part)
    seen: dict[tuple[int, int], list[tuple[StateAxisValue, ...]]] = {}
    if plan.has_axis_filters:
        for unit in units:
            for side, bench in enumerate((unit.match.ref, unit.match.cmp)):
                if bench is not None and plan.selects_benchmark(bench.name):
                    seen[side, bench.position] = [state.axis_values for state in bench]
    rows = part.rows
    links = None
    if detach:
        links = [(_link(row.ref_state), _link(row.cmp_state)) for row in rows]
        rows = [msgspec.structs.replace(row, ref_state=None, cmp_state=None) for row in rows]
    return _SplitChunk(rows, links, warn.messages, strays, part.suite, part.calibrated, seen)


def _link(state: SubBenchmarkState | None) -> tuple[int, int] | None:
    return None if state is None else (state.benchmark.position, state.position)


def _relinked(
    row: Row,
    link: tuple[tuple[int, int] | None, tuple[int, int] | None],
    benches: dict[tuple[int, int], SubBenchmarkResult],
) -> Row:
    """A row from a child, linked to the parent's (not yet decoded) states."""
    ref, cmp = link
    return msgspec.structs.replace(
        row,
        ref_state=None if ref is None else benches[0, ref[0]].state_at(ref[1]),
        cmp_state=None if cmp is None else benches[1, cmp[0]].state_at(cmp[1]),
    )


class _ChunkOutcomes(msgspec.Struct):
    """The decisions of one chunk of rows; ``suite`` is ``None`` for the chunk decided on
    the run itself, a chunk decided apart (in a child process) brings its own."""

    outcomes: list[Outcome]
    suite: SuiteAccumulator | None = None


class Executor(Protocol):
    """A way of computing the rows of one input pair."""

    def compute(self, run: Run) -> None:
        """Append the rows to ``run``, in order, with their warnings and suite statistics."""


class Serial(msgspec.Struct, frozen=True):
    """Every row in this process, one after the other."""

    tasks: list[Task]

    def compute(self, run: Run) -> None:
        for task in self.tasks:
            prepared = prepare(run, task, warn=run.warn)
            run.rows.append(make_row(run, task, decide(run, prepared, run.suite)))


class ByRow(msgspec.Struct, frozen=True):
    """The rows' evidence gathered here, their decisions split over ``workers`` processes.

    The parent gathers every row's evidence first and children fork only then: a child's
    decisions read that evidence and the side files, not the decoded documents, so the
    pages the documents fill stay shared with the parent instead of being copied into each
    child as its work touches them.
    """

    tasks: list[Task]
    workers: int

    def compute(self, run: Run) -> None:
        tasks = self.tasks
        prepared_rows = [prepare(run, task, warn=None) for task in tasks]
        # Imported once, here: each child importing it for its first side file would hold a
        # private copy of numpy's modules instead of sharing this process's.
        import numpy  # noqa: F401

        chunks = split_evenly(prepared_rows, self.workers)
        first = chunks[0]

        def work(chunk: Sequence[Prepared]) -> _ChunkOutcomes:
            if chunk is first:
                return _ChunkOutcomes([decide(run, item, run.suite) for item in chunk])
            suite = SuiteAccumulator()
            return _ChunkOutcomes([decide(run, item, suite) for item in chunk], suite)

        outcomes: list[Outcome] = []
        for result in fork_map(work, chunks):
            outcomes.extend(result.outcomes)
            if result.suite is not None:
                run.suite.merge(result.suite)
        for task, outcome in zip(tasks, outcomes, strict=True):
            for message in outcome.messages:
                run.warn(message)
            run.rows.append(make_row(run, task, outcome))


class ByBenchmark(msgspec.Struct, frozen=True):
    """Each of ``workers`` processes takes the next benchmark of ``units`` and decodes and
    compares only the benchmarks it takes (:func:`_compute_split`); ``gathered`` receives
    the axis values of the benchmarks compared in children, for the filter check."""

    units: list[Unit]
    plan: FilterPlan
    workers: int
    gathered: dict[int, list[tuple[StateAxisValue, ...]]]

    def compute(self, run: Run) -> None:
        _compute_split(run, self.units, self.plan, self.workers, self.gathered)


def plan_execution(
    run: Run,
    units: list[Unit],
    plan: FilterPlan,
    jobs: int | None,
    split_processes: int,
    gathered: dict[int, list[tuple[StateAxisValue, ...]]],
) -> Executor:
    """The executor for the rows of ``units`` (``jobs`` as for :func:`~.api.compare`;
    ``split_processes``: :func:`split_jobs`, or 1 for results not read benchmark by
    benchmark)."""
    workers = _split_count(split_processes, units)
    if workers > 1:
        return ByBenchmark(units, plan, workers, gathered)
    for message in stray_state_warnings(units, plan):
        run.warn(message)
    tasks = unit_tasks(units, plan)
    if run.runs is None and jobs != 1:
        workers = job_count(jobs, sum(map(reads_samples, tasks)))
        if workers > 1:
            return ByRow(tasks, workers)
    return Serial(tasks)
