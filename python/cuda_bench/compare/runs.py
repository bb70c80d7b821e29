"""Several runs per side: inputs, state matching across runs, and the evidence of a side.

``compare(ref=[a1, a2, a3], cmp=[b1, b2, b3])`` (``nvbench_compare --ref a1.json --ref a2.json
--cmp b1.json ...``, or ``--ref DIR`` for every ``.json`` file in ``DIR``) compares repeated
runs of the same binaries. The first run of each side is the *primary* run: benchmarks,
devices and states are matched between the two primary runs exactly as for one run per
side (ADDED / REMOVED included). Every other run of a side contributes the state with the
same benchmark (name and occurrence), device id, state key (name without ``Device=`` and
axis values) and occurrence; a run that lacks the state, skipped it or has no timing
summaries for it is left out of that row (the comparison warns once per run with a count).

A side's evidence is then a :class:`RunsEvidence`: the primary run's evidence (so methods
that know nothing of runs see one run) with every usable run in :attr:`RunsEvidence.runs`.
The ``ci`` method resamples the runs and then the samples within them
(:mod:`.bootstrap`): the center of a side is the geometric mean of its per-run medians.
The ``robust`` method decides on one run per side only (it reproduces NVIDIA's tool, which
has no notion of runs): asking it to compare several runs is an error that says so.

For display (:func:`run_estimates`) a side measured in several runs shows the geometric
mean of the runs' centers, the envelope of their intervals (lowest low end, highest high
end), the largest relative dispersion, the total sample count and the mean SM clock.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

import msgspec

from .._subfolders import subfolder_note
from ..results._tools_api import BenchmarkResult, SubBenchmarkState
from .errors import CompareInputError
from .estimates import estimates
from .evidence import SideEvidence, side_evidence
from .folders import folder_runs
from .match import Side, StateKey
from .model import Interval, SideEstimate
from .warning_tags import TaggedWarning

__all__ = [
    "MultiRun",
    "RunSet",
    "RunsEvidence",
    "StateIdentity",
    "expand_runs",
    "open_runs",
    "run_estimates",
    "side_runs",
    "state_index",
    "with_runs",
]


class RunsEvidence(SideEvidence, frozen=True):
    """The evidence of one side measured in several runs.

    The inherited fields are those of the primary (first) run; :attr:`runs` holds every
    usable run of the state, the primary first.
    """

    runs: tuple[SideEvidence, ...] = ()


def side_runs(evidence: SideEvidence) -> tuple[SideEvidence, ...]:
    """The runs behind ``evidence``: its :attr:`RunsEvidence.runs`, else ``(evidence,)``."""
    if isinstance(evidence, RunsEvidence) and evidence.runs:
        return evidence.runs
    return (evidence,)


def with_runs(primary: SideEvidence, others: Sequence[SideEvidence]) -> SideEvidence:
    """``primary`` with further runs of the same state (itself when there are none)."""
    if not others:
        return primary
    base = side_runs(primary)[0]
    values = {name: getattr(base, name) for name in SideEvidence.__struct_fields__}
    return RunsEvidence(**values, runs=(base, *others))


# ---------------------------------------------------------------------------------------------
# Inputs


def _json_runs(directory: Path, side: str, copies: dict[Path, Path] | None) -> list[Path]:
    files = folder_runs(directory, side, copies)
    if not files:
        raise CompareInputError(
            f"{side} directory '{directory}' holds no .json runs{subfolder_note(directory)}"
        )
    return files


def expand_runs(
    source: object, side: str, copies: dict[Path, Path] | None = None
) -> tuple[Any, ...] | None:
    """The runs of one side, or ``None`` for a single source (not a list or tuple).

    A list or tuple lists runs; a directory in it stands for every ``.json`` file directly
    inside (sorted by name), each run once: ``copies`` maps each byte-identical copy left
    out to the file read in its place (:func:`~.folders.folder_runs`). Loaded results are
    kept as they are.
    """
    if not isinstance(source, list | tuple):
        return None
    if not source:
        raise CompareInputError(f"no {side} runs given")
    runs: list[Any] = []
    for item in source:
        if isinstance(item, str | os.PathLike) and Path(item).is_dir():
            runs.extend(_json_runs(Path(item), side, copies))
        else:
            runs.append(item)
    return tuple(runs)


# ---------------------------------------------------------------------------------------------
# Matching states across runs

KeyT = TypeVar("KeyT", StateKey, str)


class StateIdentity(msgspec.Struct, Generic[KeyT], frozen=True):
    """A state's identity across runs of one build: benchmark name and occurrence, device
    id (``None`` for CPU-only), state key and occurrence.

    Runs are matched by the full :class:`~.match.StateKey` (``StateIdentity[StateKey]``); a
    calibration file stores only the key's name (``StateIdentity[str]``, :meth:`named`).
    """

    benchmark: str
    benchmark_occurrence: int
    device: int | None
    key: KeyT
    occurrence: int

    def named(self) -> StateIdentity[str]:
        """This identity with the state key reduced to its name."""
        key = self.key if isinstance(self.key, str) else self.key.name
        return StateIdentity(
            self.benchmark, self.benchmark_occurrence, self.device, key, self.occurrence
        )


def state_index(result: BenchmarkResult) -> dict[StateIdentity[StateKey], SubBenchmarkState]:
    """Every state of ``result`` by its identity across runs (:class:`StateIdentity`)."""
    index: dict[StateIdentity[StateKey], SubBenchmarkState] = {}
    bench_seen: Counter[str] = Counter()
    for bench in result.benchmarks:
        bench_occurrence = bench_seen[bench.name]
        bench_seen[bench.name] += 1
        state_seen: Counter[tuple[int | None, StateKey]] = Counter()
        for state in bench:
            device = None if bench.is_cpu_only else state.device
            key = StateKey.of(state)
            occurrence = state_seen[(device, key)]
            state_seen[(device, key)] += 1
            identity = StateIdentity(bench.name, bench_occurrence, device, key, occurrence)
            index[identity] = state
    return index


class RunSet:
    """The further runs of one side (beyond the primary), indexed lazily, with a tally of
    the rows each run could not contribute to."""

    def __init__(self, side: Side, results: Sequence[BenchmarkResult]) -> None:
        self.side = side
        self._results = tuple(results)
        self._indexes: list[dict[StateIdentity[StateKey], SubBenchmarkState] | None] = [None] * len(
            results
        )
        self._missing: Counter[int] = Counter()

    def __len__(self) -> int:
        return len(self._results)

    def _index(self, position: int) -> dict[StateIdentity[StateKey], SubBenchmarkState]:
        index = self._indexes[position]
        if index is None:
            index = self._indexes[position] = state_index(self._results[position])
        return index

    def evidence(
        self,
        primary: SideEvidence,
        key: StateIdentity[StateKey],
        warn: Callable[[str], None],
    ) -> SideEvidence:
        """``primary`` together with this state's usable evidence from the further runs."""
        if not self._results:
            return primary
        others: list[SideEvidence] = []
        for position in range(len(self._results)):
            state = self._index(position).get(key)
            if state is None or state.is_skipped or not state.tags:
                self._missing[position] += 1
                continue
            others.append(side_evidence(state, warn=warn))
        return with_runs(primary, others)

    def warnings(self) -> list[str]:
        """One line per run that lacked states, e.g. ``compare run 'b2.json' lacks 3 ...``."""
        lines: list[str] = []
        for position, count in sorted(self._missing.items()):
            label = self._results[position].label or f"#{position + 2}"
            text = (
                f"{self.side} run '{label}' lacks, skipped or has no timings for {count} "
                "compared state(s); those rows use the other runs"
            )
            lines.append(TaggedWarning(text, side=self.side))
        return lines


# ---------------------------------------------------------------------------------------------
# Display estimates


def _combined(primary: SideEstimate, parts: Sequence[SideEstimate]) -> SideEstimate:
    centers = [p.center for p in parts if p.center is not None and p.center > 0]
    center = primary.center
    if centers and all(math.isfinite(c) for c in centers):
        center = math.exp(math.fsum(math.log(c) for c in centers) / len(centers))
    intervals = [p.interval for p in parts if p.interval is not None]
    interval = primary.interval
    if center is not None and len(intervals) == len(parts):
        candidate = Interval(min(i.lo for i in intervals), center, max(i.hi for i in intervals))
        interval = candidate if candidate.is_valid else None
    noises = [p.noise for p in parts if p.noise is not None]
    counts = [p.sample_count for p in parts if p.sample_count is not None]
    clocks = [p.clock_rate for p in parts if p.clock_rate is not None]
    return msgspec.structs.replace(
        primary,
        center=center,
        interval=interval,
        noise=max(noises) if len(noises) == len(parts) else primary.noise,
        sample_count=sum(counts) if len(counts) == len(parts) else primary.sample_count,
        clock_rate=_mean(clocks) if len(clocks) == len(parts) else None,
        side_file_problem=next((p.side_file_problem for p in parts if p.side_file_problem), None),
    )


def _mean(values: Sequence[float]) -> float:
    """The mean of ``values`` without an error for any float: a sum of finite values can
    pass the largest float (two clocks of 1e308 Hz, which :func:`math.fsum` refuses with an
    OverflowError) while their mean cannot, so such values are divided first; NaN, or
    +inf against -inf (which fsum refuses with a ValueError), have no mean: NaN."""
    if not all(math.isfinite(value) for value in values):
        total = sum(values)  # plain float sums give inf or NaN, never an error
        return total / len(values)
    try:
        return math.fsum(values) / len(values)
    except OverflowError:
        return math.fsum(value / len(values) for value in values)


def run_estimates(
    ref: SideEvidence, cmp: SideEvidence, primary: tuple[SideEstimate, SideEstimate]
) -> tuple[SideEstimate, SideEstimate]:
    """The estimates a row shows: ``primary``, the :func:`~.estimates.estimates` of the
    primary runs (made for the decision), combined over runs (module docstring)."""
    ref_runs, cmp_runs = side_runs(ref), side_runs(cmp)
    ref_estimate = _rejection_noted(primary[0], ref_runs[0])
    cmp_estimate = _rejection_noted(primary[1], cmp_runs[0])
    if len(ref_runs) > 1:
        parts = [
            ref_estimate,
            *(_rejection_noted(estimates(run, run)[0], run) for run in ref_runs[1:]),
        ]
        ref_estimate = _combined(ref_estimate, parts)
    if len(cmp_runs) > 1:
        parts = [
            cmp_estimate,
            *(_rejection_noted(estimates(run, run)[0], run) for run in cmp_runs[1:]),
        ]
        cmp_estimate = _combined(cmp_estimate, parts)
    return ref_estimate, cmp_estimate


def _rejection_noted(estimate: SideEstimate, run: SideEvidence) -> SideEstimate:
    """``estimate`` naming the side file ``run`` rejected, if any. Checked once the row is
    decided: a method may load (and reject) a side file after the estimates were made."""
    problem = run.bulk.rejected
    if problem is None or estimate.side_file_problem is not None:
        return estimate
    return msgspec.structs.replace(estimate, side_file_problem=problem)


# ---------------------------------------------------------------------------------------------
# What compare() needs


class MultiRun:
    """The runs of both sides of a multi-run comparison (:func:`open_runs`)."""

    def __init__(
        self,
        ref: tuple[Any, ...],
        cmp: tuple[Any, ...],
        load: Callable[[Any], BenchmarkResult],
    ) -> None:
        self.ref = ref
        self.cmp = cmp
        self._ref_set = RunSet("reference", [load(source) for source in ref[1:]])
        self._cmp_set = RunSet("compare", [load(source) for source in cmp[1:]])

    @property
    def counts(self) -> tuple[int, int]:
        """Runs per side (reference, compare)."""
        return len(self.ref), len(self.cmp)

    def evidence(
        self,
        benchmark: str,
        benchmark_occurrence: int,
        devices: tuple[int | None, int | None],
        key: StateKey,
        occurrence: int,
        ref: SideEvidence | None,
        cmp: SideEvidence | None,
        warn: Callable[[str], None],
    ) -> tuple[SideEvidence | None, SideEvidence | None]:
        """Both sides' evidence of a matched state with their further runs.

        One-sided rows (ADDED / REMOVED) and rows a primary run skipped are returned
        unchanged.
        """
        if ref is None or cmp is None:
            return ref, cmp
        if ref.is_skipped or cmp.is_skipped:
            # The primary run skipped the state: the row is decided on that (SKIP or
            # ????), so no further run is asked for it, nor blamed for lacking it.
            return ref, cmp
        ref_key = StateIdentity(benchmark, benchmark_occurrence, devices[0], key, occurrence)
        cmp_key = StateIdentity(benchmark, benchmark_occurrence, devices[1], key, occurrence)
        return (
            self._ref_set.evidence(ref, ref_key, warn),
            self._cmp_set.evidence(cmp, cmp_key, warn),
        )

    def warnings(self) -> list[str]:
        return self._ref_set.warnings() + self._cmp_set.warnings()


def open_runs(
    ref: object,
    cmp: object,
    method: object,
    load: Callable[[Any], BenchmarkResult],
    copies: dict[Path, Path] | None = None,
) -> MultiRun | None:
    """A :class:`MultiRun` when either side is a list or tuple of runs, else ``None``;
    ``copies`` as :func:`expand_runs` fills it.

    Raises :class:`CompareInputError` when a side has several runs and ``method`` cannot
    use them (it lacks ``supports_runs = True``, as ``robust`` does).
    """
    ref_runs = expand_runs(ref, "reference", copies)
    cmp_runs = expand_runs(cmp, "compare", copies)
    if ref_runs is None and cmp_runs is None:
        return None
    ref_all = ref_runs if ref_runs is not None else expand_runs([ref], "reference", copies)
    cmp_all = cmp_runs if cmp_runs is not None else expand_runs([cmp], "compare", copies)
    assert ref_all is not None and cmp_all is not None
    _refuse_repeated(ref_all, "reference")
    _refuse_repeated(cmp_all, "compare")
    if max(len(ref_all), len(cmp_all)) > 1 and not getattr(method, "supports_runs", False):
        name = getattr(method, "name", repr(method))
        raise CompareInputError(
            f"method '{name}' compares one run per side (got {len(ref_all)} reference and "
            f"{len(cmp_all)} compare runs); use --method ci, which resamples runs, or pass "
            "one run per side"
        )
    return MultiRun(ref_all, cmp_all, load)


def _refuse_repeated(runs: Sequence[Any], side: str) -> None:
    """Two copies of one run on a side agree exactly: the side would show no drift between
    runs and every change would look decided (FAST or SLOW where one run of each is AMBG).
    A copy is told by its measurements, not its bytes, as the calibration and the history
    gate tell it (:func:`~cuda.bench.results._identity.repeated_run`)."""
    if len(runs) < 2:
        return
    from ..results._identity import repeated_run

    repeat = repeated_run(runs)
    if repeat is not None:
        raise CompareInputError(
            f"{repeat.describe()}: a {side} run is given twice; give separate runs of a side"
        )
