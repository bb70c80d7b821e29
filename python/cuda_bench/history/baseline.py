"""The acceptance rule of a committed-baseline workflow: do these runs agree well enough?

Teams that keep a ``baseline.json`` in git refresh it from a run of the new baseline build.
One run may have landed in a slow or fast mode of the machine; :func:`check_baseline`
accepts a refresh only from at least three runs of one build whose per-state medians
agree: the relative standard deviation of each state's medians across the runs (sample
standard deviation over the mean, ``ddof = 1``) must not exceed ``max_rsd`` (3 % by
default). States are matched across runs as the comparison matches several runs
(:func:`cuda.bench.compare.runs.state_index`: benchmark and occurrence, device, state key
and occurrence). A state's median is NVBench's median summary of its isolated
measurement (``nv/cold/time/gpu/median``, or the CPU-only one), else the nearest-rank
median of its samples.

A state fails when its medians disagree, when a run lacks it or has no usable median for it
(NaN, infinite, not positive or beyond the float32 range of NVBench's times), or
when some runs skipped it and others did not; a state every run skipped is left out. A
failing state names the runs that disagree: those whose median lies farther than
``max_rsd`` from the median of the runs' medians (with three or more runs the median
stays with the agreeing majority), else the farthest one.

Bad input is refused before the rule, not failed by it (exit 2 from ``nvbench-history
baseline check``, never 1, which CI reads as a regression): a file holding no state, a
state twice or a median that is no time, runs of different environments
(:func:`._machine.machine_fingerprint`, as the gate refuses runs of two machines gated
together) and runs that share no state with the others (another binary). A run that lacks
some of the others' states is evidence: those states fail the rule.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

import msgspec
import numpy as np

from .._errors import CompareError, ResultFormatError
from ..compare._arguments import run_list
from ..compare.bootstrap import median_rank
from ..compare.evidence import usable_time
from ..compare.runs import state_index
from ..results._tools_api import BenchmarkResult
from ._machine import machine_fingerprint
from ._run_checks import (
    ABSENT,
    NO_STATE,
    device_problem,
    median_summary,
    repeated_state,
    shown_value,
    state_twice,
    time_space,
)
from ._state_samples import state_label

if TYPE_CHECKING:
    from ..results._tools_api import SubBenchmarkState

__all__ = ["DEFAULT_MAX_RSD", "MIN_RUNS", "BaselineCheck", "StateAgreement", "check_baseline"]

DEFAULT_MAX_RSD: Final = 0.03
MIN_RUNS: Final = 3


class StateAgreement(msgspec.Struct, frozen=True):
    """One state across the runs: its medians (``None`` where a run has none) and verdict."""

    benchmark: str
    device: int | None
    state_name: str
    medians: tuple[float | None, ...]
    #: Relative standard deviation of the medians; ``None`` when some run has none.
    rsd: float | None
    passed: bool
    problem: str = ""
    #: Runs whose medians disagree (failing states only): ``(run label, median / median of
    #: the runs' medians - 1)``, farthest first.
    disagreeing: tuple[tuple[str, float], ...] = ()


class BaselineCheck(msgspec.Struct, frozen=True):
    """Every state's agreement across the runs, and the rule it was held to."""

    runs: tuple[str, ...]
    max_rsd: float
    states: tuple[StateAgreement, ...]
    #: States every run skipped (left out).
    skipped: int

    @property
    def failures(self) -> tuple[StateAgreement, ...]:
        return tuple(state for state in self.states if not state.passed)

    @property
    def passed(self) -> bool:
        return bool(self.states) and not self.failures


def _refuse_broken_medians(label: str, result: BenchmarkResult) -> None:
    """A median summary the file holds with a value that is no time (null, NaN, zero,
    negative, beyond float32) is broken input, not a state that fails the rule: one line
    and exit 2, as ``ingest`` refuses the same run. A state without a median is left to
    the rule ("missing or without a median")."""
    for state in result.states():
        if state.is_skipped:
            continue
        value = median_summary(state)
        if value is ABSENT:
            continue
        if not usable_time(value):
            raise ResultFormatError(
                label, f"{state_label(state)} has median {shown_value(value)}, not a time"
            )


def _refuse_states_twice(label: str, result: BenchmarkResult) -> None:
    """A file holding one state twice (a benchmark listed twice, say) is broken input, as
    ``ingest`` and ``gate`` refuse it (:func:`._run_checks.repeated_state`), not states
    that fail the rule: each second occurrence, which the other runs lack, read "missing"."""
    repeated = repeated_state(result)
    if repeated is not None:
        raise ResultFormatError(label, state_twice(repeated[1]))
    # The runs a baseline accepts are ingested next, and ingest refuses these.
    problem = device_problem(result)
    if problem is not None:
        raise ResultFormatError(label, problem)


def _refuse_other_environments(labels: Sequence[str], results: Sequence[BenchmarkResult]) -> None:
    """Runs of another environment (:func:`._machine.machine_fingerprint`: other devices or
    another NVBench) are no runs of one build on one machine: bad input, as the gate refuses
    runs of two machines gated together, not states that all fail the rule. The run named
    is the first outside the largest group of one environment (the first run's on a tie)."""
    machines = [machine_fingerprint(result) for result in results]
    common = Counter(machines).most_common(1)[0][0]
    for label, machine in zip(labels, machines, strict=True):
        if machine != common:
            same = ", ".join(
                one for one, its in zip(labels, machines, strict=True) if its == common
            )
            raise CompareError(
                f"{label}: not the environment of {same} (machine {machine}, not {common}); "
                "check runs of one build on one machine together"
            )


def _refuse_runs_apart(labels: Sequence[str], keys: Sequence[set[Any]]) -> None:
    """Runs that share no state with the others (another binary on the same machine) are
    bad input, not states every run but one lacks. Runs are grouped by shared states (a run
    sharing one state with a run of the group is in it); a run lacking some of the others'
    states is evidence the rule judges ("missing"). With more than one group, the runs
    named are the first group outside the largest (the first run's on a tie)."""
    groups: list[tuple[list[int], set[Any]]] = []  # a group's runs (ascending), its states
    for run, own in enumerate(keys):
        joined = [group for group in groups if group[1] & own]
        merged = ([*sorted(i for group in joined for i in group[0]), run], set(own))
        for group in joined:
            merged[1].update(group[1])
            groups.remove(group)
        groups.append(merged)
    if len(groups) == 1:
        return
    if all(len(members) == 1 for members, _ in groups):
        raise CompareError(
            f"{', '.join(labels)}: no two of these runs share a state (other benchmarks or "
            "states: other binaries?); check runs of one build together"
        )
    groups.sort(key=lambda group: (-len(group[0]), group[0][0]))
    largest = groups[0][0]
    apart = min((group[0] for group in groups[1:]), key=lambda members: members[0])
    verb = "shares" if len(apart) == 1 else "share"
    raise CompareError(
        f"{', '.join(labels[i] for i in apart)}: {verb} no state with "
        f"{', '.join(labels[i] for i in largest)} (other benchmarks or states: another "
        "binary?); check runs of one build together"
    )


def _median(state: SubBenchmarkState) -> float | None:
    value = state.float_value(f"{time_space(state)}/median")
    if value is None:
        samples = state.samples
        if samples is not None and samples.size:
            ordered = np.sort(samples.astype(np.float64))
            value = float(ordered[median_rank(ordered.size)])
    # A median beyond the float32 range NVBench's times lie in is unusable, as a NaN is:
    # 1e300 s overflowed the squares of the standard deviation.
    if not usable_time(value):
        return None
    return value


def _agreement(
    states: Sequence[SubBenchmarkState | None], labels: Sequence[str], max_rsd: float
) -> StateAgreement | None:
    present = next(state for state in states if state is not None)
    name = (present.benchmark.name, present.device, present.name())
    skipped = [state is not None and state.is_skipped for state in states]
    if all(skipped):
        return None
    medians = tuple(
        None if state is None or state.is_skipped else _median(state) for state in states
    )
    lacking = [
        label
        for label, state, median in zip(labels, states, medians, strict=True)
        if state is None or state.is_skipped or median is None
    ]
    if lacking:
        what = "skipped by" if any(skipped) else "missing or without a median in"
        return StateAgreement(*name, medians, None, False, f"{what} {', '.join(lacking)}")
    values = np.array(medians, dtype=np.float64)
    rsd = float(np.std(values, ddof=1) / np.mean(values))
    if rsd <= max_rsd:
        return StateAgreement(*name, medians, rsd, True)
    apart = _disagreeing(values, labels, max_rsd)
    named = ", ".join(f"{label} {offset:+.2%}" for label, offset in apart)
    problem = (
        f"medians vary by {rsd:.2%} (relative stdev), above {max_rsd:.2%}; "
        f"from the runs' median: {named}"
    )
    return StateAgreement(*name, medians, rsd, False, problem, apart)


def _disagreeing(
    values: np.ndarray[Any, Any], labels: Sequence[str], max_rsd: float
) -> tuple[tuple[str, float], ...]:
    """The runs that make a state fail: those farther than ``max_rsd`` from the median of
    the runs' medians (the median stays with the agreeing majority), else the farthest."""
    offsets = values / float(np.median(values)) - 1.0
    order = np.argsort(-np.abs(offsets), kind="stable")
    far = [int(i) for i in order if abs(offsets[i]) > max_rsd] or [int(order[0])]
    return tuple((labels[i], float(offsets[i])) for i in far)


def check_baseline(
    runs: Sequence[str | os.PathLike[str] | BenchmarkResult],
    *,
    max_rsd: float = DEFAULT_MAX_RSD,
) -> BaselineCheck:
    """Hold ``runs`` (at least :data:`MIN_RUNS` of one build) to the acceptance rule.

    Raises :class:`ValueError` for fewer than three runs or a bad ``max_rsd``, and
    ``ResultFormatError`` for a file that is not an NVBench result, holds no state, holds a
    state twice or holds a median that is no time (null, NaN, zero, negative, beyond
    float32); ``CompareError`` (a ``ValueError``) for runs of different environments or a
    run that shares no state with the others (other binaries).
    """
    runs = run_list(runs, "runs", "several runs of one build")
    if len(runs) < MIN_RUNS:
        raise ValueError(
            f"a baseline needs at least {MIN_RUNS} runs of one build whose medians agree, "
            f"got {len(runs)}"
        )
    if not (math.isfinite(max_rsd) and max_rsd >= 0):
        raise ValueError(f"max_rsd must be a finite non-negative fraction, got {max_rsd}")
    results = [run if isinstance(run, BenchmarkResult) else BenchmarkResult(run) for run in runs]
    labels = [
        result.label or (os.fspath(run) if not isinstance(run, BenchmarkResult) else f"#{i + 1}")
        for i, (result, run) in enumerate(zip(results, runs, strict=True))
    ]
    for label, result in zip(labels, results, strict=True):
        _refuse_states_twice(label, result)
        _refuse_broken_medians(label, result)
    for label, result in zip(labels, results, strict=True):
        if not any(len(benchmark) for benchmark in result.values()):
            raise ResultFormatError(label, NO_STATE)
    _refuse_other_environments(labels, results)
    indexes = [state_index(result) for result in results]
    _refuse_runs_apart(labels, [set(index) for index in indexes])
    keys = list(dict.fromkeys(key for index in indexes for key in index))
    found = []
    skipped = 0
    for key in keys:
        agreement = _agreement([index.get(key) for index in indexes], labels, max_rsd)
        if agreement is None:
            skipped += 1
        else:
            found.append(agreement)
    return BaselineCheck(tuple(labels), max_rsd, tuple(found), skipped)
