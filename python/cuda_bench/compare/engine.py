"""The comparison engine: the rows of one input pair, from matched states to verdicts.

Pure steps on values (nothing here prints or forks): :func:`unit_tasks` lists the rows of
matched benchmarks, :func:`prepare` gathers a row's evidence, :func:`decide` makes the
row's estimates and asks the method for its verdict on them, :func:`make_row` builds the
row. How the rows of a pair are spread over processes is :mod:`.execution`'s business;
:func:`~.api.compare` normalises the arguments and walks the input pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import msgspec

from .estimates import estimates
from .evidence import SideEvidence, records_sample_times, side_evidence
from .filters import FilterPlan
from .match import (
    BenchmarkMatch,
    DevicePair,
    Side,
    StateMatch,
    match_device_states,
    names_disagree,
    names_its_device,
)
from .methods import Method, row_evidence
from .model import Reason, Row, SideEstimate, Status, Verdict
from .runs import MultiRun, StateIdentity, run_estimates
from .suite import SuiteAccumulator
from .thresholds import Thresholds
from .warning_tags import RepeatedStateWarning, TaggedWarning

if TYPE_CHECKING:
    from ..results._tools_api import SubBenchmarkState
    from . import calibrate
else:
    from .._lazy import LazyModule

    # Named through the module, imported when an annotation is read (typing.get_type_hints):
    # most comparisons have no calibration, and its module loads the ci method's.
    calibrate = LazyModule("cuda.bench.compare.calibrate")

__all__ = [
    "Outcome",
    "Prepared",
    "Run",
    "Task",
    "Unit",
    "Warnings",
    "calibration_coverage",
    "decide",
    "make_row",
    "prepare",
    "reads_samples",
    "stray_state_warnings",
    "unit_tasks",
]


class Warnings:
    """A warning sink that keeps each message once, in the order first told."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self._seen: set[str] = set()

    def __call__(self, message: str) -> None:
        if message not in self._seen:
            self._seen.add(message)
            self.messages.append(message)


class Run(msgspec.Struct):
    """What the row builder needs while walking one input pair."""

    pair: int
    method: Method
    thresholds: Thresholds
    warn: Callable[[str], None]
    rows: list[Row] = msgspec.field(default_factory=list)
    #: Several runs per side (``compare(ref=[...], cmp=[...])``).
    runs: MultiRun | None = None
    #: Per-state tolerances from an A/A calibration, and how many rows found theirs.
    calibration: calibrate.Calibration | None = None
    calibrated: list[int] = msgspec.field(default_factory=lambda: [0, 0])
    #: Suite statistics, fed row by row.
    suite: SuiteAccumulator = msgspec.field(default_factory=SuiteAccumulator)


class Task(msgspec.Struct, frozen=True):
    """One row to compute: the benchmark pair, the device pair and the matched states."""

    match: BenchmarkMatch
    devices: DevicePair
    states: StateMatch


class Unit(msgspec.Struct, frozen=True):
    """One benchmark pair and its device pairs: what a comparison split by benchmark hands
    out."""

    match: BenchmarkMatch
    devices: list[DevicePair]


def _device_pair_tasks(
    match: BenchmarkMatch, device_pair: DevicePair, plan: FilterPlan
) -> list[Task]:
    def keep(state: SubBenchmarkState) -> bool:
        return plan.selects_state(match.name, state.axis_values)

    # Without -b/-a every state is kept: no filter call per state.
    return [
        Task(match, device_pair, state_match)
        for state_match in match_device_states(match, device_pair, None if plan.is_empty else keep)
    ]


def stray_state_warnings(units: Sequence[Unit], plan: FilterPlan) -> list[str]:
    """One line per selected GPU state whose device is not in its benchmark's device list:
    no device pair holds it, so no row could show it (a crafted or damaged file). Each
    line is about one side's file (:class:`.warning_tags.TaggedWarning`): a caller that built
    the reference runs itself (the history gate, whose rebuilt runs have no file name: the
    line named the file "None") leaves the reference side's out."""
    messages: list[str] = []
    sides: tuple[Side, Side] = ("reference", "compare")
    for unit in units:
        for side, bench in zip(sides, (unit.match.ref, unit.match.cmp), strict=True):
            if bench is None or bench.is_cpu_only:
                continue
            listed = set(bench.devices)
            for state in bench:
                if state.device in listed or not (
                    plan.is_empty or plan.selects_state(bench.name, state.axis_values)
                ):
                    continue
                devices = ", ".join(str(device) for device in bench.devices)
                text = (
                    f"{bench.source.label}: benchmark {bench.name!r}: state "
                    f"{state.state_name!r} ran on device {state.device}, which is not in the "
                    f"benchmark's device list ({devices}); it is left out of the comparison"
                )
                messages.append(TaggedWarning(text, side=side))
    return messages


def unit_tasks(units: Sequence[Unit], plan: FilterPlan) -> list[Task]:
    """The rows to compute of ``units``: their states matched per device pair."""
    return [
        task
        for unit in units
        for device_pair in unit.devices
        for task in _device_pair_tasks(unit.match, device_pair, plan)
    ]


class Prepared(msgspec.Struct):
    """A row's evidence and thresholds, gathered before its decision.

    ``messages`` are the row's warnings in the order told, its evidence's first: the
    evidence keeps telling this list (a decision may load side files that turn out
    unusable), so the warnings of rows decided apart come back in row order.
    """

    match: BenchmarkMatch
    ref: SideEvidence | None
    cmp: SideEvidence | None
    thresholds: Thresholds | None
    messages: list[str]


class Outcome(msgspec.Struct):
    """A row's decision: the verdict, both sides' estimates and the row's warnings."""

    verdict: Verdict
    ref: SideEstimate | None
    cmp: SideEstimate | None
    messages: list[str]


def reads_samples(task: Task) -> bool:
    states = task.states
    return any(
        state is not None and records_sample_times(state) for state in (states.ref, states.cmp)
    )


def prepare(run: Run, task: Task, *, warn: Callable[[str], None] | None) -> Prepared:
    """A row's evidence; its warnings go to ``warn``, or (``None``) into the row's list."""
    match, devices, states = task.match, task.devices, task.states
    messages: list[str] = []
    tell = messages.append if warn is None else warn
    ref_state, cmp_state = states.ref, states.cmp
    sides: tuple[tuple[Side, SubBenchmarkState | None], ...] = (
        ("reference", ref_state),
        ("compare", cmp_state),
    )
    # Warnings about one side's state carry their side (.warning_tags): the text quotes names
    # from the file, which may read like either side's wording.
    for side, state in sides:
        if state is not None and not names_its_device(state):
            text = (
                f"{match.name}: {side} state {state.state_name!r} does not begin with "
                f"'Device={state.device}' as its device field says; matched by device and "
                "axis values"
            )
            tell(TaggedWarning(text, side=side))
    if states.occurrence and (ref_state is None) != (cmp_state is None):
        # A name listed twice in one file pairs by order; the one left over is ADDED or
        # REMOVED, which reads like a state that came or went unless it is said.
        side, state = sides[1] if ref_state is None else sides[0]
        assert state is not None
        tell(RepeatedStateWarning(match.name, side, state.state_name, states.occurrence + 1))
    if ref_state is not None and cmp_state is not None and names_disagree(states):
        tell(
            f"{match.name}: state names differ ({ref_state.state_name!r} in the reference, "
            f"{cmp_state.state_name!r} in the compare run); matched by device and axis values"
        )
    ref_evidence = None if ref_state is None else side_evidence(ref_state, warn=tell)
    cmp_evidence = None if cmp_state is None else side_evidence(cmp_state, warn=tell)
    if run.runs is not None:
        ref_evidence, cmp_evidence = run.runs.evidence(
            match.name,
            match.occurrence,
            (devices.ref_device, devices.cmp_device),
            states.key,
            states.occurrence,
            ref_evidence,
            cmp_evidence,
            tell,
        )
    thresholds = None
    if ref_evidence is not None and cmp_evidence is not None:
        thresholds = _row_thresholds(run, match, devices, states)
    return Prepared(match, ref_evidence, cmp_evidence, thresholds, messages)


def decide(run: Run, prepared: Prepared, suite: SuiteAccumulator) -> Outcome:
    """The verdict and estimates of a prepared row (``suite`` counts the verdict)."""
    ref_evidence, cmp_evidence = prepared.ref, prepared.cmp
    ref_estimate: SideEstimate | None
    cmp_estimate: SideEstimate | None
    if ref_evidence is not None and cmp_evidence is not None:
        assert prepared.thresholds is not None  # set for every matched row
        row = row_evidence(ref_evidence, cmp_evidence, prepared.thresholds)
        verdict = suite.absorb(run.method.decide(row))
        ref_estimate, cmp_estimate = run_estimates(
            ref_evidence, cmp_evidence, (row.ref_estimate, row.cmp_estimate)
        )
    elif cmp_evidence is not None:
        message = _one_sided_message(prepared.match, "compare")
        verdict = Verdict(Status.ADDED, Reason.STATE_ADDED, message)
        ref_estimate, cmp_estimate = None, _alone(cmp_evidence)
    else:
        assert ref_evidence is not None
        message = _one_sided_message(prepared.match, "reference")
        verdict = Verdict(Status.REMOVED, Reason.STATE_REMOVED, message)
        ref_estimate, cmp_estimate = _alone(ref_evidence), None
    # The loaded samples are not needed again: prepared rows live until the last one is
    # decided, and would otherwise keep every row's arrays.
    for evidence in (ref_evidence, cmp_evidence):
        if evidence is not None:
            evidence.bulk.release()
    return Outcome(verdict, ref_estimate, cmp_estimate, prepared.messages)


def make_row(run: Run, task: Task, outcome: Outcome) -> Row:
    match, devices, states = task.match, task.devices, task.states
    ref_state, cmp_state = states.ref, states.cmp
    state = states.state
    return Row(
        benchmark=match.name,
        key=state.key,
        occurrence=states.occurrence,
        axis_values=state.axis_values,
        verdict=outcome.verdict,
        ref=outcome.ref,
        cmp=outcome.cmp,
        pair=run.pair,
        device_pair=devices.position,
        ref_device=devices.ref_device,
        cmp_device=devices.cmp_device,
        ref_device_name=devices.ref_name,
        cmp_device_name=devices.cmp_name,
        ref_state_name=None if ref_state is None else ref_state.state_name,
        cmp_state_name=None if cmp_state is None else cmp_state.state_name,
        ref_state=ref_state,
        cmp_state=cmp_state,
    )


def _row_thresholds(
    run: Run, match: BenchmarkMatch, devices: DevicePair, states: StateMatch
) -> Thresholds:
    """The run's thresholds, with the ``ci`` tolerance widened by a calibration."""
    if run.calibration is None:
        return run.thresholds
    if any(state is None or state.is_skipped for state in (states.ref, states.cmp)):
        return run.thresholds  # a ???? row: no tolerance to look up
    found = run.calibration.floor_for(
        StateIdentity(
            match.name, match.occurrence, devices.ref_device, states.key.name, states.occurrence
        )
    )
    run.calibrated[0] += 1
    run.calibrated[1] += run.calibration.covers(found)
    return run.calibration.widened(run.thresholds, found)


def calibration_coverage(run: Run) -> None:
    """Warn where the calibration is not used: by the method, or for some states (the
    calibration says which: :meth:`.calibrate.Calibration.coverage_warning`)."""
    if run.calibration is None:
        return
    message = run.calibration.coverage_warning(run.method.name, *run.calibrated)
    if message is not None:
        run.warn(message)


def _alone(evidence: SideEvidence) -> SideEstimate:
    """The estimate of a state that has no counterpart (paired with itself)."""
    return estimates(evidence, evidence)[0]


def _one_sided_message(match: BenchmarkMatch, side: str) -> str:
    if match.ref is None or match.cmp is None:
        where = "benchmark" if not match.note else "benchmark kind"
        return f"{where} '{match.name}' exists only in the {side} run"
    return f"state exists only in the {side} run"
