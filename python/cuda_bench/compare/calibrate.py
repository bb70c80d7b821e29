"""A/A calibration: the run-to-run noise floor of each state, and real false-change rates.

Run one build several times (ideally on the machine and at the time of day CI uses, with
other work in between, as real comparisons see it) and give the runs to :func:`calibrate`
(``nvbench_compare calibrate run1.json run2.json run3.json ...``). Nothing changed between
these runs, so every FAST or SLOW verdict between two of them is a false change. Two things
come out:

**The false-change rate** of each method and preset on this data: every pair of runs is
compared (``R (R - 1) / 2`` pairs; one direction suffices since both methods are symmetric)
and the rate is ``(FAST + SLOW) / decided rows`` over all pairs and states (``????`` rows
do not count). Pairs share runs, so the pairs are not independent; the rate is unbiased
but its uncertainty is larger than a binomial count suggests.

**A noise floor and a tolerance per state.** Per run, the state's log center ``m_r`` and
its within-run standard error ``se_r`` (:func:`.methods.ci.run_centers`: the bootstrap of
the median, or the asymptotic error from summaries). The run-to-run (between-run)
standard deviation beyond what sampling explains is the method-of-moments estimate

    ``noise_floor^2 = max(0, var(m_r) - mean(se_r^2))``  with ``R - 1`` degrees of freedom.

A comparison of two single runs then differs by ``d ~ N(0, 2 noise_floor^2)`` from drift
alone, which a single run's interval cannot see. The state's tolerance is the half-width
that such a ``d`` exceeds with probability ``target_rate`` (default 1 %), a prediction
bound that accounts for estimating the floor from few runs:

    ``tolerance = exp(t_(R-1)(1 - target_rate / 2) * sqrt(2) * noise_floor) - 1``.

``nvbench_compare --calibration FILE`` compares with ``max([ci] tolerance, tolerance)`` for
each state found in the file (the ``ci`` method; ``robust`` ignores calibrations), up to
``[ci] max_tolerance``: a state that needs more is too noisy to be judged on this machine
(AMBG ``too_noisy_to_judge``, never SAME; FAST/SLOW only beyond the tolerance it needs). Few runs
give wide tolerances on purpose: with 2 runs ``t_1(0.995) = 63.7``, 3 runs give 9.9, 5 give
4.6, 10 give 3.25; use five or more. Tolerances are capped at 100 % (a factor of two).
States whose runs agree within sampling noise keep the preset tolerance.

**The least floor.** A state's own floor from few runs can come out near zero by chance
(all four runs in one mode of a two-speed machine), so no state's tolerance is computed
from less than its moderated floor (:func:`.variance_prior.least_floors`, Smyth 2004):
states that share one noise lift a lucky one to it, states whose noise truly differs keep
close to their own (``docs/calibration.md``; the median floor it replaced, still written as
``machine_noise_floor``, gave every quiet state of a real H200 ±7.4 %).

The calibration file is JSON (schema ``nvbench-tools.calibration``, version 1; see
``docs/calibration.md``). States are identified by benchmark name and occurrence, device
id (``null`` for CPU-only), state key (the state name without ``Device=``) and occurrence.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Any, Final

import msgspec

if TYPE_CHECKING:
    import numpy as np
else:
    from .._lazy import numpy as np

from ._arguments import checked_source, run_list
from .bootstrap import student_t_quantile
from .config import checked_thresholds, resolve_thresholds
from .drift import DEFAULT_TARGET_RATE
from .errors import CompareInputError, ConfigError
from .evidence import SideEvidence, side_evidence
from .filters import FilterItem, FilterPlan, seen_benchmarks
from .inputs import load_result
from .methods import RowEvidence, get_method, row_evidence
from .methods.ci import run_centers
from .model import Reason, Status
from .runs import StateIdentity, state_index
from .thresholds import MAX_CALIBRATED_TOLERANCE, PRESET_NAMES, PRESETS, Thresholds
from .variance_prior import least_floors

if TYPE_CHECKING:
    from ..results._tools_api import BenchmarkResult, SubBenchmarkState

__all__ = [
    "CALIBRATION_SCHEMA",
    "CALIBRATION_VERSION",
    "Calibration",
    "MethodRate",
    "StateFloor",
    "calibrate",
]

CALIBRATION_SCHEMA: Final = "nvbench-tools.calibration"
CALIBRATION_VERSION: Final = 1


@dataclass(frozen=True, slots=True)
class StateFloor:
    """The run-to-run noise of one state (log units, i.e. relative for small values).

    ``center`` is the geometric mean of the run centers (seconds); ``spread`` the
    standard deviation of the run log centers; ``within`` the root mean square of the
    runs' sampling errors; ``noise_floor`` the between-run part; ``tolerance`` the
    calibrated band half-width (module docstring).
    """

    benchmark: str
    benchmark_occurrence: int
    device: int | None
    key: str
    occurrence: int
    runs: int
    center: float
    spread: float
    within: float
    noise_floor: float
    degrees_of_freedom: int
    tolerance: float
    #: The jitter of one paired round's change (log), measured by ``nvbench_compare ab
    #: --aa`` (:mod:`.paired`); ``None`` in calibrations from unpaired runs.
    paired_floor: float | None = None

    @property
    def identity(self) -> StateIdentity[str]:
        return StateIdentity(
            self.benchmark, self.benchmark_occurrence, self.device, self.key, self.occurrence
        )


@dataclass(frozen=True, slots=True)
class MethodRate:
    """How one method and preset classified every pair of A/A runs (all states)."""

    method: str
    preset: str
    pairs: int
    same: int = 0
    fast: int = 0
    slow: int = 0
    ambiguous: int = 0
    unknown: int = 0

    @property
    def decided(self) -> int:
        """Rows with a usable verdict (everything but ``????``)."""
        return self.same + self.fast + self.slow + self.ambiguous

    @property
    def false_changes(self) -> int:
        return self.fast + self.slow

    @property
    def false_change_rate(self) -> float | None:
        return self.false_changes / self.decided if self.decided else None

    @property
    def same_rate(self) -> float | None:
        return self.same / self.decided if self.decided else None

    @property
    def ambiguous_rate(self) -> float | None:
        return self.ambiguous / self.decided if self.decided else None


@dataclass(frozen=True, slots=True)
class Calibration:
    """A calibration: the runs it came from, per-state floors and per-method rates."""

    runs: tuple[str, ...]
    target_rate: float
    states: tuple[StateFloor, ...]
    rates: tuple[MethodRate, ...] = ()
    source: str | None = None
    #: The median noise floor over the states (for information); ``None`` in files without.
    machine_floor: float | None = None
    _index: dict[StateIdentity[str], StateFloor] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )
    _least: dict[StateIdentity[str], float] | None = field(
        init=False, repr=False, compare=False, default=None
    )

    def __post_init__(self) -> None:
        # A lookup table built once; the value stays immutable from the outside.
        object.__setattr__(self, "_index", {state.identity: state for state in self.states})

    def floor_for(self, identity: StateIdentity[str]) -> StateFloor | None:
        """The calibrated floor of a state (:attr:`StateFloor.identity`), or ``None`` when
        the file lacks it."""
        return self._index.get(identity)

    def least_floor(self, state: StateFloor) -> float:
        """The floor ``state``'s tolerance was computed from: the one its tolerance implies
        (whichever rule wrote the file), or where the cap hid it, the larger of its own and
        the moderated floor of the states (module docstring, *The least floor*)."""
        if 0.0 < state.tolerance < MAX_TOLERANCE and state.degrees_of_freedom >= 1:
            t = student_t_quantile(1.0 - self.target_rate / 2.0, state.degrees_of_freedom)
            return max(state.noise_floor, math.log1p(state.tolerance) / (t * math.sqrt(2.0)))
        if self._least is None:
            # Computed on first use: most comparisons never need it.
            least = _least_floors(self.states)
            object.__setattr__(
                self, "_least", {s.identity: f for s, f in zip(self.states, least, strict=True)}
            )
        assert self._least is not None
        return max(state.noise_floor, self._least.get(state.identity, 0.0))

    def tolerance_for(
        self,
        benchmark: str,
        benchmark_occurrence: int,
        device: int | None,
        key: str,
        occurrence: int,
    ) -> float | None:
        """The calibrated tolerance of a state, or ``None`` when the file lacks it."""
        found = self.floor_for(
            StateIdentity(benchmark, benchmark_occurrence, device, key, occurrence)
        )
        return None if found is None else found.tolerance

    def widened(self, thresholds: Thresholds, state: StateFloor | None) -> Thresholds:
        """``thresholds`` for a state: its calibrated tolerance and noise floor, when the
        tolerance is above ``[ci] tolerance``. The ``ci`` method holds the state to that
        tolerance up to ``[ci] max_tolerance``, and cannot judge it beyond."""
        if state is None:
            return thresholds
        # The calibration measured this state's run-to-run drift: single-run verdicts use
        # its band instead of a drift term of their own (:mod:`.drift`).
        measured = thresholds.replace(ci_drift_measured=1.0)
        if state.tolerance <= thresholds.ci_tolerance:
            return measured
        return measured.replace(
            ci_calibrated_tolerance=state.tolerance, ci_noise_floor=self.least_floor(state)
        )

    def covers(self, state: StateFloor | None) -> bool:
        """Whether :meth:`widened` has an entry for this state (``None``: none in the file)."""
        return state is not None

    def coverage_warning(self, method: str, compared: int, covered: int) -> str | None:
        """What a comparison by ``method`` warns about this calibration, having looked up
        ``compared`` states and found ``covered`` of them (:meth:`covers`): a method that
        ignores it, or states it lacks; ``None`` when nothing is amiss."""
        where = self.source or "the calibration"
        if method != "ci":
            return f"{where} widens only the ci method's tolerance; '{method}' ignores it"
        if covered < compared:
            return (
                f"{where} has no entry for {compared - covered} of {compared} compared "
                "state(s); they use the preset tolerance"
            )
        return None

    def beyond(self, max_tolerance: float) -> tuple[StateFloor, ...]:
        """The states whose calibrated tolerance exceeds ``max_tolerance``, noisiest first:
        they cannot be judged on the calibrated machine."""
        found = [state for state in self.states if state.tolerance > max_tolerance]
        return tuple(sorted(found, key=lambda state: -state.tolerance))

    def to_data(self) -> dict[str, Any]:
        """The calibration file as plain data (JSON-ready)."""
        from .._tools_version import __version__

        return {
            "schema": CALIBRATION_SCHEMA,
            "schema_version": CALIBRATION_VERSION,
            "tool": {"name": "nvbench_compare", "version": __version__},
            "runs": list(self.runs),
            "target_false_change_rate": self.target_rate,
            "machine_noise_floor": self.machine_floor,
            "rates": [
                {
                    "method": rate.method,
                    "preset": rate.preset,
                    "pairs": rate.pairs,
                    "same": rate.same,
                    "fast": rate.fast,
                    "slow": rate.slow,
                    "ambiguous": rate.ambiguous,
                    "unknown": rate.unknown,
                    "false_change_rate": rate.false_change_rate,
                }
                for rate in self.rates
            ],
            "states": [
                {
                    "benchmark": state.benchmark,
                    "benchmark_occurrence": state.benchmark_occurrence,
                    "device": state.device,
                    "key": state.key,
                    "occurrence": state.occurrence,
                    "runs": state.runs,
                    "center": state.center,
                    "spread": state.spread,
                    "within": state.within,
                    "noise_floor": state.noise_floor,
                    "degrees_of_freedom": state.degrees_of_freedom,
                    "tolerance": state.tolerance,
                    "paired_floor": state.paired_floor,
                }
                for state in self.states
            ],
        }

    def to_json(self) -> str:
        """The calibration file's text (ends with a newline)."""
        return json.dumps(self.to_data(), indent=2, allow_nan=False) + "\n"


# ---------------------------------------------------------------------------------------------
# Computing


#: Largest calibrated tolerance (:data:`~.thresholds.MAX_CALIBRATED_TOLERANCE`).
MAX_TOLERANCE: Final = MAX_CALIBRATED_TOLERANCE


def uncapped_tolerance(noise_floor: float, degrees_of_freedom: int, target_rate: float) -> float:
    """The tolerance of the module docstring's formula before the cap of
    :data:`MAX_TOLERANCE` (reports say what the cap hid)."""
    if noise_floor <= 0.0:
        return 0.0
    t = student_t_quantile(1.0 - target_rate / 2.0, degrees_of_freedom)
    return math.expm1(min(t * math.sqrt(2.0) * noise_floor, 50.0))


def _tolerance(noise_floor: float, degrees_of_freedom: int, target_rate: float) -> float:
    return min(MAX_TOLERANCE, uncapped_tolerance(noise_floor, degrees_of_freedom, target_rate))


def state_floor(
    identity: StateIdentity[str],
    runs: Sequence[SideEvidence],
    thresholds: Thresholds,
    target_rate: float,
) -> StateFloor | None:
    """The noise floor of one state from its runs (``None`` with fewer than two usable)."""
    centers = run_centers(runs, thresholds)
    if isinstance(centers, Reason) or len(centers) < 2:
        return None
    logs = np.array([center for center, _ in centers])
    errors = np.array([error for _, error in centers])
    variance = float(np.var(logs, ddof=1))
    within = float(np.mean(errors * errors))
    floor = math.sqrt(max(0.0, variance - within))
    df = len(centers) - 1
    return StateFloor(
        benchmark=identity.benchmark,
        benchmark_occurrence=identity.benchmark_occurrence,
        device=identity.device,
        key=identity.key,
        occurrence=identity.occurrence,
        runs=len(centers),
        center=math.exp(float(np.mean(logs))),
        spread=math.sqrt(variance),
        within=math.sqrt(within),
        noise_floor=floor,
        degrees_of_freedom=df,
        tolerance=_tolerance(floor, df, target_rate),
    )


def machine_floor(floors: Sequence[StateFloor]) -> float:
    """The median of the states' floors (written to the file for information)."""
    if not floors:
        return 0.0
    return float(np.median([state.noise_floor for state in floors]))


def _least_floors(floors: Sequence[StateFloor]) -> list[float]:
    return least_floors(
        [state.spread for state in floors],
        [state.within for state in floors],
        [state.degrees_of_freedom for state in floors],
    )


def pooled_floors(
    floors: Sequence[StateFloor], target_rate: float
) -> tuple[tuple[StateFloor, ...], float]:
    """The states' floors with no tolerance below their moderated floor, and the median
    floor (module docstring: a state's own floor from few runs can come out near zero by
    chance)."""
    pooled = tuple(
        state
        if state.noise_floor >= least
        else dataclasses.replace(
            state, tolerance=_tolerance(least, state.degrees_of_freedom, target_rate)
        )
        for state, least in zip(floors, _least_floors(floors), strict=True)
    )
    return pooled, machine_floor(floors)


def calibrate(
    runs: Sequence[str | os.PathLike[str] | BenchmarkResult],
    *,
    methods: Sequence[str] = ("robust", "ci"),
    presets: Sequence[str] = PRESET_NAMES,
    thresholds: Thresholds | None = None,
    target_rate: float = DEFAULT_TARGET_RATE,
    filters: FilterPlan | Sequence[FilterItem] | None = None,
    warn: Callable[[str], None] | None = None,
) -> Calibration:
    """Calibrate from repeated runs of one build (module docstring).

    ``runs`` are NVBench JSON files (or loaded results), at least two. ``methods`` and
    ``presets`` choose the false-change rates to measure; ``thresholds`` (default: the
    ``default`` preset) give the bootstrap settings of the noise floors. ``filters`` are
    ``-b``/``-a`` items as for :func:`~.api.compare`.
    """
    runs = run_list(runs, "runs", "NVBench JSON files or loaded results of one build")
    checked_source(runs, "runs")
    if len(runs) < 2:
        raise CompareInputError(
            f"calibration needs at least two runs of one build, got {len(runs)}"
        )
    if not 0.0 < target_rate < 1.0:
        raise ConfigError(f"target false-change rate must lie in (0, 1), got {target_rate}")
    chosen = [get_method(name) for name in methods]
    for name in presets:
        resolve_thresholds(name)  # unknown presets fail before any work
    base = checked_thresholds(thresholds) if thresholds is not None else PRESETS["default"]
    plan = filters if isinstance(filters, FilterPlan) else FilterPlan.from_args(filters)
    sink: Callable[[str], None] = warn if warn is not None else (lambda message: None)
    results = [load_result(run) for run in runs]
    _refuse_copies(results)
    plan.require_matches(seen_benchmarks(results))
    indexes = [state_index(result) for result in results]
    # Runs named by path only: those a caller built in memory (the gate's levels) are its own.
    if all(isinstance(run, str | os.PathLike) for run in runs):
        _refuse_strangers(results, indexes, plan)

    counts: dict[tuple[str, str], dict[Status, int]] = {
        (method.name, preset): {} for method in chosen for preset in presets
    }
    pair_list = list(combinations(range(len(results)), 2))
    floors: list[StateFloor] = []
    for key, primary in indexes[0].items():
        if not _selected(plan, key.benchmark, primary):
            continue
        states = [index.get(key) for index in indexes]
        evidence = [None if state is None else side_evidence(state, warn=sink) for state in states]
        # A pair's estimates are made once, when first needed, for every method and preset.
        rows: dict[tuple[int, int], RowEvidence] = {}
        for method in chosen:
            for preset in presets:
                tally = counts[(method.name, preset)]
                for i, j in pair_list:
                    ref, cmp = evidence[i], evidence[j]
                    if ref is None or cmp is None:
                        continue
                    row = rows.get((i, j))
                    if row is None:
                        row = rows[(i, j)] = row_evidence(ref, cmp, base)
                    with_preset = msgspec.structs.replace(row, thresholds=PRESETS[preset])
                    status = method.decide(with_preset).status
                    tally[status] = tally.get(status, 0) + 1
        usable = [
            item
            for item, state in zip(evidence, states, strict=True)
            if item is not None and state is not None and not state.is_skipped and state.tags
        ]
        if len(usable) >= 2:
            floor = state_floor(key.named(), usable, base, target_rate)
            if floor is not None:
                floors.append(floor)
        for item in evidence:
            if item is not None:
                item.bulk.release()
    rates = tuple(
        MethodRate(
            method=method,
            preset=preset,
            pairs=len(pair_list),
            same=tally.get(Status.SAME, 0),
            fast=tally.get(Status.FAST, 0),
            slow=tally.get(Status.SLOW, 0),
            ambiguous=tally.get(Status.AMBG, 0),
            unknown=tally.get(Status.UNKNOWN, 0),
        )
        for (method, preset), tally in counts.items()
    )
    labels = tuple(_label(result, run) for result, run in zip(results, runs, strict=True))
    pooled, machine = pooled_floors(floors, target_rate)
    return Calibration(labels, target_rate, pooled, rates, machine_floor=machine)


def _refuse_copies(results: Sequence[BenchmarkResult]) -> None:
    """Two copies of one run agree exactly and would calibrate every floor to 0 (tolerances
    of 0 that flag the next run's noise); separate runs never measure the same times. A
    copy is told by its measurements, not its bytes (:mod:`..results._identity`)."""
    from ..results._identity import repeated_run

    # Files only: runs a caller built in memory (the gate's, from the archive) are its own
    # business, as they were before (repeated_run passes them over).
    repeat = repeated_run(results)
    if repeat is not None:
        raise CompareInputError(
            f"{repeat.path}: the same run as {repeat.first} (the same measurements); a "
            "calibration needs separate runs of one build"
        )


def _refuse_strangers(
    results: Sequence[BenchmarkResult], indexes: Sequence[dict[Any, Any]], plan: FilterPlan
) -> None:
    """Runs that fall into groups sharing no compared state (another benchmark, CPU runs
    beside GPU ones, another machine's devices) are no repeats of one build: each floor
    comes from one group only, but the runs, pairs and degrees of freedom counted them all
    ("4 runs give 3 degrees of freedom" where every floor had 1). Refused, naming a run of
    a smaller group and one of the largest."""
    keys = [
        {
            key
            for key, state in index.items()
            if _selected(plan, key.benchmark, state) and not state.is_skipped
        }
        for index in indexes
    ]
    # Runs joined when they share a state (union-find on run positions).
    parent = list(range(len(keys)))

    def root(position: int) -> int:
        while parent[position] != position:
            parent[position] = parent[parent[position]]
            position = parent[position]
        return position

    for first in range(len(keys)):
        for second in range(first + 1, len(keys)):
            if keys[first] & keys[second]:
                parent[root(second)] = root(first)
    groups: dict[int, list[int]] = {}
    for position, own in enumerate(keys):
        if own:
            groups.setdefault(root(position), []).append(position)
    if len(groups) < 2:
        return
    ordered = sorted(groups.values(), key=lambda members: (-len(members), members[0]))
    stranger, other = results[ordered[-1][0]], results[ordered[0][0]]
    raise CompareInputError(
        f"{stranger.label}: holds none of the compared states of {other.label}"
        f"{' or the runs that share its states' if len(ordered[0]) > 1 else ''} (another "
        "benchmark or machine?); a calibration needs repeated runs of one build"
    )


def _selected(plan: FilterPlan, benchmark: str, state: SubBenchmarkState) -> bool:
    return plan.selects_benchmark(benchmark) and plan.selects_state(benchmark, state.axis_values)


def _label(result: BenchmarkResult, source: object) -> str:
    if isinstance(source, str | os.PathLike):
        return os.fspath(source)
    return result.label or "<memory>"
