"""``compare()``: the one call behind ``nvbench_compare`` and every library user.

Data flows one way: load → match (files, benchmarks, devices, states) → evidence per side
→ the method's verdict → a frozen :class:`~.model.Comparison`. Nothing here prints;
problems worth telling the user are collected as warnings on the comparison.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

import msgspec

from ..results import BenchmarkResult, StateAxisValue, SubBenchmarkResult, SubBenchmarkState
from .config import ComparisonConfig, resolve_thresholds
from .errors import CompareError, CompareInputError
from .estimates import estimates
from .evidence import SideEvidence, records_sample_times, side_evidence
from .filters import FilterItem, FilterPlan, parse_device_selection, seen_benchmarks
from .inputs import Source, load_result
from .match import (
    BenchmarkMatch,
    DevicePair,
    StateMatch,
    UnpairedFile,
    device_differences,
    device_mismatch_is_fatal,
    discover_pairs,
    match_benchmarks,
    match_device_states,
    pair_devices,
)
from .methods import DEFAULT_METHOD, Method, get_method
from .model import (
    Comparison,
    InputPair,
    Reason,
    Row,
    SideEstimate,
    Status,
    Verdict,
)
from .runs import MultiRun, StateIdentity, open_runs, run_estimates
from .suite import SuiteAccumulator
from .thresholds import Thresholds
from .workers import available_cpus, can_fork, fork_dispatch, fork_map, split_evenly

if TYPE_CHECKING:
    from ..results._deferred import Scanned
    from .calibrate import Calibration

__all__ = ["Source", "compare", "job_count", "load_result"]

DeviceSelection = str | Sequence[int] | None


def _device_selection(selection: DeviceSelection, option: str) -> tuple[int, ...] | None:
    if selection is None:
        return None
    if isinstance(selection, str):
        return parse_device_selection(selection, option)
    return tuple(int(device) for device in selection)


def _filter_plan(filters: FilterPlan | Sequence[FilterItem] | None) -> FilterPlan:
    if isinstance(filters, FilterPlan):
        return filters
    return FilterPlan.from_args(filters)


class _Warnings:
    """A warning sink that keeps each message once, in the order first told."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self._seen: set[str] = set()

    def __call__(self, message: str) -> None:
        if message not in self._seen:
            self._seen.add(message)
            self.messages.append(message)


class _Run(msgspec.Struct):
    """What the row builder needs while walking one input pair."""

    pair: int
    method: Method
    thresholds: Thresholds
    warn: Callable[[str], None]
    rows: list[Row] = msgspec.field(default_factory=list)
    #: Several runs per side (``compare(ref=[...], cmp=[...])``).
    runs: MultiRun | None = None
    #: Per-state tolerances from an A/A calibration, and how many rows found theirs.
    calibration: Calibration | None = None
    calibrated: list[int] = msgspec.field(default_factory=lambda: [0, 0])
    #: Suite statistics, fed row by row.
    suite: SuiteAccumulator = msgspec.field(default_factory=SuiteAccumulator)


def compare(
    ref: Source | Sequence[Source],
    cmp: Source | Sequence[Source],
    *,
    method: str | Method = DEFAULT_METHOD,
    preset: str | None = None,
    config: ComparisonConfig | str | os.PathLike[str] | None = None,
    thresholds: Thresholds | None = None,
    filters: FilterPlan | Sequence[FilterItem] | None = None,
    ref_devices: DeviceSelection = None,
    cmp_devices: DeviceSelection = None,
    ignore_devices: bool = False,
    calibration: Calibration | str | os.PathLike[str] | None = None,
    jobs: int | None = 1,
) -> Comparison:
    """Compare a reference run with a compare run, state by state.

        ``ref`` and ``cmp`` are NVBench JSON files, directories of them (paired by file name)
        or loaded :class:`BenchmarkResult` objects. ``method`` names the decision method (or is
    a :class:`~.methods.Method` object of your own);
        thresholds come from ``preset`` and ``config`` (a TOML file) as on the command line,
        or directly from ``thresholds``. ``filters`` are ``-b``/``-a`` items in command-line
        order, e.g. ``[("benchmark", "copy"), ("axis", "T=F32")]``. Device selections are
        ``"all"``, ``"0"``, ``"1,0"`` or sequences of ids; devices pair by position.

        Several runs per side: pass lists, ``compare([a1, a2], [b1, b2])`` (a directory in a
        list stands for its ``.json`` files); states are matched through the first run of
        each side and the other runs join each row (:mod:`.runs`). Only methods that
        resample runs accept several (``ci``; ``robust`` raises). ``calibration`` (a
        :class:`~.calibrate.Calibration` or its file) widens the ``ci`` tolerance per state.

        ``jobs``: at most this many processes compare (``None``: one per available CPU,
        up to four). Extra processes are forked children (Linux only), used only where they
        pay: files given by path with several benchmarks and megabytes of JSON per process
        are split by benchmark (each process takes the next benchmark from a common queue
        and decodes and compares only the benchmarks it takes; the states of rows compared
        elsewhere are decoded here when first used), and otherwise
        rows that read side files are split when each process gets dozens of them. The
        rows, their order and the warnings are those of one process.

        Raises :class:`~.errors.CompareError` subclasses for unusable requests (unknown method,
        bad config, filters that match nothing, incompatible devices) and
        :class:`~cuda.bench.results.ResultFormatError` for unreadable files.
    """
    chosen = get_method(method) if isinstance(method, str) else method
    if jobs is not None and jobs < 1:
        raise CompareError(f"jobs must be at least 1, got {jobs}")
    if thresholds is None:
        preset_name, thresholds = resolve_thresholds(preset, config)
    else:
        preset_name = preset or "custom"
    plan = _filter_plan(filters)
    ref_selection = _device_selection(ref_devices, "--reference-devices")
    cmp_selection = _device_selection(cmp_devices, "--compare-devices")

    multi = open_runs(ref, cmp, chosen, load_result)
    if multi is None:
        inputs, unpaired = _input_pairs(cast(Source, ref), cast(Source, cmp))
    else:
        inputs, unpaired = [(multi.ref[0], multi.cmp[0])], []
    if calibration is not None:
        # Imported here: most comparisons have no calibration.
        from .calibrate import Calibration, load_calibration

        if not isinstance(calibration, Calibration):
            calibration = load_calibration(calibration)
    suite = SuiteAccumulator()
    warn = _Warnings()
    for item in unpaired:
        warn(str(item))

    rows: list[Row] = []
    benchmarks: list[tuple[int, str]] = []
    loaded: list[BenchmarkResult] = []
    gathered: dict[int, list[tuple[StateAxisValue, ...]]] = {}
    split_jobs = 1 if multi is not None else _split_jobs(jobs)
    for pair_index, (ref_source, cmp_source) in enumerate(inputs):
        ref_result, cmp_result = _load_pair(ref_source, cmp_source, plan, split_jobs)
        loaded.extend((ref_result, cmp_result))
        _check_devices(ref_result, cmp_result, ref_selection, cmp_selection, ignore_devices, warn)
        run = _Run(
            pair_index, chosen, thresholds, warn, runs=multi, calibration=calibration, suite=suite
        )
        units: list[_Unit] = []
        for match in match_benchmarks(ref_result, cmp_result, plan.selects_benchmark):
            benchmarks.append((pair_index, match.name))
            if match.note:
                warn(match.note)
            units.append((match, pair_devices(match, ref_selection, cmp_selection)))
        workers = _split_count(split_jobs, units)
        if workers > 1:
            _compute_split(run, units, plan, workers, gathered)
        else:
            _compute_rows(run, _unit_tasks(units, plan), jobs)
        rows.extend(run.rows)
        _calibration_coverage(run)
    plan.require_matches(seen_benchmarks(loaded, plan, gathered))
    if multi is not None:
        for line in multi.warnings():
            warn(line)
    return Comparison(
        rows=tuple(rows),
        method=chosen.name,
        preset=preset_name,
        thresholds=thresholds,
        inputs=tuple(
            InputPair((_label(ref_source),), (_label(cmp_source),))
            for ref_source, cmp_source in inputs
        )
        if multi is None
        else (InputPair(tuple(map(_label, multi.ref)), tuple(map(_label, multi.cmp))),),
        benchmarks=tuple(benchmarks),
        unpaired_files=tuple((item.side, str(item.path)) for item in unpaired),
        warnings=tuple(warn.messages),
        filters=plan.describe(),
        settings={
            "ref_devices": None if ref_selection is None else list(ref_selection),
            "cmp_devices": None if cmp_selection is None else list(cmp_selection),
            "ignore_devices": ignore_devices,
            "runs": [1, 1] if multi is None else list(multi.counts),
            "calibration": None if calibration is None else calibration.source,
        },
        suite=suite.summary(),
    )


def _load_pair(
    ref_source: Source, cmp_source: Source, plan: FilterPlan, split_jobs: int
) -> tuple[BenchmarkResult, BenchmarkResult]:
    """Both results of a pair, read for a comparison: summaries slim (tags and values; a
    comparison never reads names or descriptions, which are read when asked for), whole
    when everything is compared in this process, else benchmark by benchmark, each
    decoded where first used: when the comparison may be split over processes, and when
    ``-b`` leaves benchmarks out. A child makes the compare file's first pass while this
    process makes the reference file's where the file is large."""
    if isinstance(ref_source, BenchmarkResult) or isinstance(cmp_source, BenchmarkResult):
        return load_result(ref_source), load_result(cmp_source)
    ref_path, cmp_path = os.fspath(ref_source), os.fspath(cmp_source)
    cmp_size = _file_size(cmp_path)
    splittable = split_jobs > 1 and _file_size(ref_path) + cmp_size >= 2 * _MIN_SPLIT_BYTES
    ref: BenchmarkResult | None
    cmp: BenchmarkResult | None
    if splittable and cmp_size >= _MIN_PARALLEL_FIRST_PASS_BYTES:
        ref, cmp = _first_passes(ref_path, cmp_path)
    else:
        read = (
            BenchmarkResult._read_by_benchmark
            if splittable or plan.selections
            else BenchmarkResult._read_slim
        )
        ref = read(ref_path)
        cmp = None if ref is None else read(cmp_path)
    # Files that cannot be read that way (not regular files, malformed) are read as usual,
    # which also words their problems. Every state of a selected benchmark is read then
    # (device pairing looks at each state's summaries), so decoding all summaries in the
    # reading pass is cheaper, unless -b leaves benchmarks out.
    lazy = bool(plan.selections)
    return (
        load_result(ref_path, lazy=lazy) if ref is None else ref,
        load_result(cmp_path, lazy=lazy) if cmp is None else cmp,
    )


def _first_passes(
    ref_path: str, cmp_path: str
) -> tuple[BenchmarkResult | None, BenchmarkResult | None]:
    """Both files read benchmark by benchmark, the compare file's first pass made by a child
    process while this one makes the reference file's; ``None`` for a file that cannot be
    read that way."""
    # Imported here: only comparisons split over processes send documents around.
    from ..results._deferred import scan

    def first_pass(sides: Sequence[str]) -> BenchmarkResult | Scanned | None:
        if sides[0] == "ref":  # here
            return BenchmarkResult._read_by_benchmark(ref_path)
        return scan(cmp_path)  # checked here once attached, as the reference file is

    ref, scanned = fork_map(first_pass, [["ref"], ["cmp"]])
    if not isinstance(ref, BenchmarkResult):
        return None, None
    cmp = BenchmarkResult._attach_read(cmp_path, *scanned) if isinstance(scanned, tuple) else None
    return ref, cmp if cmp is not None else BenchmarkResult._read_by_benchmark(cmp_path)


def _file_size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0  # the readers word the problem


def _label(source: Source) -> str:
    if isinstance(source, BenchmarkResult):
        return source.label or "<memory>"
    return os.fspath(source)


def _input_pairs(
    ref: Source, cmp: Source
) -> tuple[list[tuple[Source, Source]], list[UnpairedFile]]:
    """File pairs to compare; directories pair by file name, leftovers reported."""
    if isinstance(ref, BenchmarkResult) or isinstance(cmp, BenchmarkResult):
        return [(ref, cmp)], []
    pairs, unpaired = discover_pairs(Path(ref), Path(cmp))
    return [(pair.ref, pair.cmp) for pair in pairs], unpaired


def _check_devices(
    ref: BenchmarkResult,
    cmp: BenchmarkResult,
    ref_selection: tuple[int, ...] | None,
    cmp_selection: tuple[int, ...] | None,
    ignore_devices: bool,
    warn: Callable[[str], None],
) -> None:
    differences = device_differences(ref, cmp, ref_selection, cmp_selection)
    if not differences:
        return
    where = f"{ref.label} and {cmp.label}"
    listing = "; ".join(differences)
    if device_mismatch_is_fatal(differences, ref_selection, cmp_selection, ignore_devices):
        raise CompareInputError(
            f"device sections of {where} differ ({listing}); pass --ignore-devices to "
            "compare anyway, or pick devices with --reference-devices/--compare-devices"
        )
    warn(f"device sections of {where} differ: {listing}")


#: One row to compute: the benchmark pair, the device pair and the matched states.
_Task = tuple[BenchmarkMatch, DevicePair, StateMatch]
#: One benchmark pair and its device pairs: what a comparison split by benchmark hands out.
_Unit = tuple[BenchmarkMatch, list[DevicePair]]

#: Fewest rows with per-sample data worth a process of their own. Rows decided from
#: summaries alone never are: sending one back to the parent costs about as much as
#: computing it.
_MIN_ROWS_PER_JOB = 64
#: Most processes ``jobs=None`` uses.
_MAX_AUTO_JOBS = 4
#: Least JSON in the compare file (bytes) worth a child process making its first pass
#: while this process makes the reference file's: the pass reads 1.5 GB/s, a fork and
#: sending the benchmarks' headers back cost a few milliseconds.
_MIN_PARALLEL_FIRST_PASS_BYTES = 32 << 20
#: Least JSON per process (bytes, both inputs) worth splitting a comparison by benchmark.
#: Reading the files' structure first, forking and sending rows back cost a few tens of
#: milliseconds: two processes took 1.10 of one process's time on 2 x 2.9 MB of JSON, 0.94
#: on 2 x 11.6 MB and 0.86 on 2 x 23 MB (interleaved pairs, 2 CPUs).
_MIN_SPLIT_BYTES = 8 << 20


def _device_pair_tasks(
    match: BenchmarkMatch, device_pair: DevicePair, plan: FilterPlan
) -> list[_Task]:
    def keep(state: SubBenchmarkState) -> bool:
        return plan.selects_state(match.name, state.axis_values)

    # Without -b/-a every state is kept: no filter call per state.
    return [
        (match, device_pair, state_match)
        for state_match in match_device_states(match, device_pair, None if plan.is_empty else keep)
    ]


def _unit_tasks(units: Sequence[_Unit], plan: FilterPlan) -> list[_Task]:
    """The rows to compute of ``units``: their states matched per device pair."""
    return [
        task
        for match, device_pairs in units
        for device_pair in device_pairs
        for task in _device_pair_tasks(match, device_pair, plan)
    ]


def job_count(jobs: int | None, rows: int) -> int:
    """Processes that compute rows of which ``rows`` read side files, for ``jobs``
    (see :func:`compare`)."""
    if jobs is None:
        jobs = min(available_cpus(), _MAX_AUTO_JOBS)
    if jobs < 1:
        raise CompareError(f"jobs must be at least 1, got {jobs}")
    return max(1, min(jobs, rows // _MIN_ROWS_PER_JOB))


def _split_jobs(jobs: int | None) -> int:
    """Processes a comparison may be split over by benchmark, for ``jobs``."""
    if jobs is None:
        jobs = min(available_cpus(), _MAX_AUTO_JOBS)
    return jobs if jobs > 1 and can_fork() else 1


def _split_count(split_jobs: int, units: Sequence[_Unit]) -> int:
    """Processes to split ``units`` over: one unless they come from results read
    benchmark by benchmark, and only as many as the JSON of their states is worth."""
    if split_jobs < 2 or len(units) < 2:
        return 1
    sizes = [_unit_bytes(unit) for unit in units]
    if None in sizes:
        return 1
    total = sum(cast("list[int]", sizes))
    return max(1, min(split_jobs, len(units), total // _MIN_SPLIT_BYTES))


def _unit_bytes(unit: _Unit) -> int | None:
    """Bytes of raw JSON states of a unit's benchmarks; ``None`` when one is decoded."""
    total = 0
    for bench in (unit[0].ref, unit[0].cmp):
        if bench is None:
            continue
        size = bench._raw_states_size()
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
    suite: SuiteAccumulator
    calibrated: list[int]
    seen: dict[tuple[int, int], list[tuple[StateAxisValue, ...]]]


def _compute_split(
    run: _Run,
    units: list[_Unit],
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
    for match, _ in units:
        for side, bench in enumerate((match.ref, match.cmp)):
            if bench is not None:
                benches[side, bench.position] = bench
    done = dict(zip(order, fork_dispatch(work, order, workers), strict=True))
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


def _split_rows(
    run: _Run, units: Sequence[_Unit], plan: FilterPlan, *, detach: bool
) -> _SplitChunk:
    """The rows of ``units`` computed in this process; ``detach``: for another process."""
    warn = _Warnings()
    part = _Run(run.pair, run.method, run.thresholds, warn, calibration=run.calibration)
    _compute_rows(part, _unit_tasks(units, plan), 1)
    seen: dict[tuple[int, int], list[tuple[StateAxisValue, ...]]] = {}
    if plan.has_axis_filters:
        for match, _ in units:
            for side, bench in enumerate((match.ref, match.cmp)):
                if bench is not None and plan.selects_benchmark(bench.name):
                    seen[side, bench.position] = [state.axis_values for state in bench]
    rows = part.rows
    links = None
    if detach:
        links = [(_link(row.ref_state), _link(row.cmp_state)) for row in rows]
        rows = [msgspec.structs.replace(row, ref_state=None, cmp_state=None) for row in rows]
    return _SplitChunk(rows, links, warn.messages, part.suite, part.calibrated, seen)


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
        ref_state=None if ref is None else benches[0, ref[0]]._state_at(ref[1]),
        cmp_state=None if cmp is None else benches[1, cmp[0]]._state_at(cmp[1]),
    )


class _Prepared(msgspec.Struct):
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


class _Outcome(msgspec.Struct):
    """A row's decision: the verdict, both sides' estimates and the row's warnings."""

    verdict: Verdict
    ref: SideEstimate | None
    cmp: SideEstimate | None
    messages: list[str]


class _ChunkOutcomes(msgspec.Struct):
    """The decisions of one chunk of rows; ``suite`` is ``None`` for the chunk decided on
    the run itself, a chunk decided apart (in a child process) brings its own."""

    outcomes: list[_Outcome]
    suite: SuiteAccumulator | None = None


def _compute_rows(run: _Run, tasks: list[_Task], jobs: int | None) -> None:
    """Append the rows of ``tasks`` to ``run``, in order, in one or more processes.

    With several processes the parent gathers every row's evidence first and children
    fork only then: a child's decisions read that evidence and the side files, not the
    decoded documents, so the pages the documents fill stay shared with the parent
    instead of being copied into each child as its work touches them.
    """
    workers = 1
    if run.runs is None and jobs != 1:
        workers = job_count(jobs, sum(map(_reads_samples, tasks)))
    if workers == 1:
        for task in tasks:
            prepared = _prepare(run, *task, warn=run.warn)
            run.rows.append(_row(run, task, _decide(run, prepared, run.suite)))
        return
    prepared_rows = [_prepare(run, *task, warn=None) for task in tasks]
    # Imported once, here: each child importing it for its first side file would hold a
    # private copy of numpy's modules (about 15 MiB) instead of sharing this process's.
    import numpy  # noqa: F401

    chunks = split_evenly(prepared_rows, workers)
    first = chunks[0]

    def work(chunk: Sequence[_Prepared]) -> _ChunkOutcomes:
        if chunk is first:
            return _ChunkOutcomes([_decide(run, item, run.suite) for item in chunk])
        suite = SuiteAccumulator()
        return _ChunkOutcomes([_decide(run, item, suite) for item in chunk], suite)

    outcomes: list[_Outcome] = []
    for result in fork_map(work, chunks):
        outcomes.extend(result.outcomes)
        if result.suite is not None:
            run.suite.merge(result.suite)
    for task, outcome in zip(tasks, outcomes, strict=True):
        for message in outcome.messages:
            run.warn(message)
        run.rows.append(_row(run, task, outcome))


def _reads_samples(task: _Task) -> bool:
    states = task[2]
    return any(
        state is not None and records_sample_times(state) for state in (states.ref, states.cmp)
    )


def _prepare(
    run: _Run,
    match: BenchmarkMatch,
    devices: DevicePair,
    states: StateMatch,
    *,
    warn: Callable[[str], None] | None,
) -> _Prepared:
    """A row's evidence; its warnings go to ``warn``, or (``None``) into the row's list."""
    messages: list[str] = []
    tell = messages.append if warn is None else warn
    ref_state, cmp_state = states.ref, states.cmp
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
    return _Prepared(match, ref_evidence, cmp_evidence, thresholds, messages)


def _decide(run: _Run, prepared: _Prepared, suite: SuiteAccumulator) -> _Outcome:
    """The verdict and estimates of a prepared row (``suite`` counts the verdict)."""
    ref_evidence, cmp_evidence = prepared.ref, prepared.cmp
    ref_estimate: SideEstimate | None
    cmp_estimate: SideEstimate | None
    if ref_evidence is not None and cmp_evidence is not None:
        assert prepared.thresholds is not None  # set for every matched row
        verdict = suite.absorb(run.method.decide(ref_evidence, cmp_evidence, prepared.thresholds))
        ref_estimate, cmp_estimate = run_estimates(ref_evidence, cmp_evidence)
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
    return _Outcome(verdict, ref_estimate, cmp_estimate, prepared.messages)


def _row(run: _Run, task: _Task, outcome: _Outcome) -> Row:
    match, devices, states = task
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
    run: _Run, match: BenchmarkMatch, devices: DevicePair, states: StateMatch
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
    run.calibrated[1] += found is not None
    return run.calibration.widened(run.thresholds, found)


def _calibration_coverage(run: _Run) -> None:
    if run.calibration is None:
        return
    where = run.calibration.source or "the calibration"
    if run.method.name != "ci":
        run.warn(f"{where} widens only the ci method's tolerance; '{run.method.name}' ignores it")
        return
    compared, found = run.calibrated
    if found < compared:
        run.warn(
            f"{where} has no entry for {compared - found} of {compared} compared state(s); "
            "they use the preset tolerance"
        )


def _alone(evidence: SideEvidence) -> SideEstimate:
    """The estimate of a state that has no counterpart (paired with itself)."""
    return estimates(evidence, evidence)[0]


def _one_sided_message(match: BenchmarkMatch, side: str) -> str:
    if match.ref is None or match.cmp is None:
        where = "benchmark" if not match.note else "benchmark kind"
        return f"{where} '{match.name}' exists only in the {side} run"
    return f"state exists only in the {side} run"
