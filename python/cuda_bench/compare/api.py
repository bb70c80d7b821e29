"""``compare()``: the one call behind ``nvbench_compare`` and every library user.

Data flows one way: load → match (files, benchmarks, devices, states) → evidence per side
→ the method's verdict → a frozen :class:`~.model.Comparison`. This module normalises the
arguments, loads and pairs the inputs and assembles the comparison; the rows come from
the engine (:mod:`.engine`), computed by the executor :mod:`.execution` plans. Nothing
here prints; problems worth telling the user are collected as warnings on the comparison.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

import msgspec

from ..results._errors import check_flag
from ..results._tools_api import BenchmarkResult, ReadMode, StateAxisValue
from ._arguments import (
    DeviceSelection,
    checked_jobs,
    checked_method,
    checked_source,
    device_selection,
    filter_plan,
)
from .config import ComparisonConfig, checked_thresholds, resolve_thresholds
from .engine import Run, Unit, Warnings, calibration_coverage
from .errors import CompareInputError
from .execution import job_count, plan_execution, split_jobs, worth_splitting
from .filters import FilterItem, FilterPlan, seen_benchmarks
from .inputs import Source, load_result, read_side_by_side
from .match import (
    UnpairedFile,
    device_differences,
    device_mismatch_is_fatal,
    discover_pairs,
    match_benchmarks,
    pair_devices,
)
from .methods import DEFAULT_METHOD, Method
from .model import Comparison, InputPair, Row
from .runs import open_runs
from .side_warnings import fold_warnings
from .suite import SuiteAccumulator, drift_reasons, drifting
from .thresholds import Thresholds
from .warning_tags import TaggedWarning, WarningKind, kinds_of, reference_side

if TYPE_CHECKING:
    from . import calibrate
else:
    from .._lazy import LazyModule

    # Named through the module, imported when an annotation is read (typing.get_type_hints):
    # most comparisons have no calibration, and its module loads the ci method's.
    calibrate = LazyModule("cuda.bench.compare.calibrate")

__all__ = ["Source", "compare", "job_count", "load_result"]


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
    calibration: calibrate.Calibration | str | os.PathLike[str] | None = None,
    jobs: int | None = 1,
) -> Comparison:
    """Compare a reference run with a compare run, state by state.

        ``ref`` and ``cmp`` are NVBench JSON files, directories of them (paired by file name)
        or loaded :class:`BenchmarkResult` objects. ``method`` names the decision method (or is
    a :class:`~.methods.Method` object of your own);
        thresholds come from ``preset`` and ``config`` (a TOML file) as on the command line,
        or directly from ``thresholds`` (held to a config file's ranges,
        :func:`~.config.checked_thresholds`). ``filters`` are ``-b``/``-a`` items in command-line
        order, e.g. ``[("benchmark", "copy"), ("axis", "T=F32")]``. Device selections are
        ``"all"``, ``"0"``, ``"1,0"`` or sequences of ids; devices pair by position.

        Several runs per side: pass lists, ``compare([a1, a2], [b1, b2])`` (a directory in a
        list stands for its ``.json`` files); states are matched through the first run of
        each side and the other runs join each row (:mod:`.runs`). Only methods that
        resample runs accept several (``ci``; ``robust`` raises). A directory's
        byte-identical files are one run, read once (NVBench's ``--json`` file beside its
        ``--jsonbin`` one): :attr:`~.model.Comparison.read_once` lists those left out.
        ``calibration`` (a
        :class:`~.calibrate.Calibration` or its file) widens the ``ci`` tolerance per state.

        ``jobs``: at most this many processes compare (``None``: one per available CPU,
        up to four). Extra processes are forked children (Linux only), used only where they
        pay: files given by path with several benchmarks and megabytes of JSON per process
        are split by benchmark (the two files' first passes are made side by side, then
        each process takes the next benchmark from a common queue and decodes and compares
        only the benchmarks it takes; the states of rows compared elsewhere are decoded
        here when first used), and otherwise
        rows that read side files are split when each process gets dozens of them. The
        rows, their order and the warnings are those of one process.

        Raises :class:`~.errors.CompareError` subclasses for unusable requests (unknown method,
        bad config, filters that match nothing, incompatible devices) and
        :class:`~cuda.bench.results.ResultFormatError` for unreadable files.
    """
    checked_source(ref, "ref")
    checked_source(cmp, "cmp")
    chosen = checked_method(method)
    jobs = checked_jobs(jobs)
    # Any object counted as true or false: 'yes', 1 and None were taken.
    check_flag(ignore_devices, "ignore_devices")
    if thresholds is None:
        preset_name, thresholds = resolve_thresholds(preset, config)
    else:
        thresholds = checked_thresholds(thresholds)
        preset_name = preset or "custom"
    plan = filter_plan(filters)
    ref_selection = device_selection(ref_devices, "ref_devices", "--reference-devices")
    cmp_selection = device_selection(cmp_devices, "cmp_devices", "--compare-devices")

    copies: dict[Path, Path] = {}
    multi = open_runs(ref, cmp, chosen, load_result, copies)
    if multi is None:
        inputs, unpaired = _input_pairs(cast(Source, ref), cast(Source, cmp), copies)
    else:
        inputs, unpaired = [(multi.ref[0], multi.cmp[0])], []
    if calibration is not None:
        # Imported here: most comparisons have no calibration.
        from .calibrate import Calibration
        from .calibration_file import load_calibration

        if not isinstance(calibration, Calibration):
            calibration = load_calibration(calibration)
    suite = SuiteAccumulator()
    warn = Warnings()
    for item in unpaired:
        # Tagged: the reports list unpaired files apart and leave this line out; its text
        # quotes a file name, which may read like any other warning.
        warn(TaggedWarning(str(item), kind=WarningKind.UNPAIRED_FILE))

    rows: list[Row] = []
    benchmarks: list[tuple[int, str]] = []
    loaded: list[BenchmarkResult] = []
    gathered: dict[int, list[tuple[StateAxisValue, ...]]] = {}
    split_processes = 1 if multi is not None else split_jobs(jobs)
    for pair_index, (ref_source, cmp_source) in enumerate(inputs):
        ref_result, cmp_result = _load_pair(ref_source, cmp_source, plan, split_processes)
        loaded.extend((ref_result, cmp_result))
        _check_devices(ref_result, cmp_result, ref_selection, cmp_selection, ignore_devices, warn)
        run = Run(
            pair_index, chosen, thresholds, warn, runs=multi, calibration=calibration, suite=suite
        )
        units: list[Unit] = []
        for match in match_benchmarks(ref_result, cmp_result, plan.selects_benchmark):
            benchmarks.append((pair_index, match.name))
            if match.note:
                warn(match.note)
            units.append(Unit(match, pair_devices(match, ref_selection, cmp_selection)))
        plan_execution(run, units, plan, jobs, split_processes, gathered).compute(run)
        # A run on both sides? The same file always asked (a few stat calls); a copy, which
        # means parsing both files again, where every decided row has one center on both
        # sides (a run compared with itself always has) or the runs are several.
        for line in same_run_warnings(
            multi.ref if multi is not None else [ref_source],
            multi.cmp if multi is not None else [cmp_source],
            copies=multi is not None or centers_alike(run.rows),
        ):
            warn(line)
        rows.extend(run.rows)
        calibration_coverage(run)
    plan.require_matches(seen_benchmarks(loaded, plan, gathered))
    summary = suite.summary()
    if chosen.name == "ci":
        # Imported here: only ci rows need it (it imports the ci method).
        from .empirical_null import applies, widen_rows

        if applies(chosen.name, multi, calibration is not None):
            # Drift between runs seen across the states of each pair of inputs.
            rows, widenings = widen_rows(rows)
            for pair_index, widening in widenings:
                if widening.applied:
                    warn(widening.summary(pair_index, len(inputs)))
            moved = sum(widening.undecided for _, widening in widenings)
            if moved and summary is not None:
                summary = msgspec.structs.replace(summary, drift_rows=summary.drift_rows + moved)
    if summary is not None and summary.drift_rows:
        # The codes the rows carry, for the summary's words (drifting: the rows counted).
        codes = drift_reasons(row.reason for row in rows if drifting(row))
        summary = msgspec.structs.replace(summary, drift_reasons=codes)
    if multi is not None:
        for line in multi.warnings():
            warn(line)
    told = fold_warnings(warn.messages)
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
        read_once=tuple((str(copy), str(kept)) for copy, kept in copies.items()),
        warnings=tuple(map(str, told)),
        filters=plan.describe(),
        settings={
            "ref_devices": None if ref_selection is None else list(ref_selection),
            "cmp_devices": None if cmp_selection is None else list(cmp_selection),
            "ignore_devices": ignore_devices,
            "runs": [1, 1] if multi is None else list(multi.counts),
            "calibration": None if calibration is None else calibration.source,
        },
        suite=summary,
        reference_warnings=reference_side(told),
        warning_kinds=kinds_of(told),
    )


def _load_pair(
    ref_source: Source, cmp_source: Source, plan: FilterPlan, split_processes: int
) -> tuple[BenchmarkResult, BenchmarkResult]:
    """Both results of a pair, read for a comparison.

    Summaries are read slim: a comparison reads tags and values only (names and
    descriptions are read when asked for). A file is read whole when everything is
    compared in this process, else benchmark by benchmark, each benchmark decoded where it
    is first used: when the comparison may be split over processes
    (:func:`~.execution.worth_splitting`; the two files' first passes are then made side
    by side, :func:`~.inputs.read_side_by_side`), and when ``-b`` leaves benchmarks out.
    """
    if isinstance(ref_source, BenchmarkResult) or isinstance(cmp_source, BenchmarkResult):
        return load_result(ref_source), load_result(cmp_source)
    ref_path, cmp_path = os.fspath(ref_source), os.fspath(cmp_source)
    if worth_splitting(split_processes, _file_size(ref_path) + _file_size(cmp_path)):
        ref, cmp = read_side_by_side([ref_path, cmp_path])
        return ref, cmp
    mode = ReadMode.BY_BENCHMARK if plan.selections else ReadMode.SLIM
    return load_result(ref_path, mode=mode), load_result(cmp_path, mode=mode)


def centers_alike(rows: Sequence[Row]) -> bool:
    """Whether every row with a finite center on both sides has one center on both, to the
    last digit (and there is such a row): what a run compared with itself gives; two
    separate runs rarely do (two runs of NVBench's seeded example data can)."""
    measured = [
        (row.ref.center, row.cmp.center)
        for row in rows
        if row.ref is not None
        and row.cmp is not None
        and row.ref.center is not None
        and row.cmp.center is not None
        and math.isfinite(row.ref.center)
        and math.isfinite(row.cmp.center)
    ]
    return bool(measured) and all(ref == cmp for ref, cmp in measured)


def same_run_warnings(ref: Sequence[object], cmp: Sequence[object], *, copies: bool) -> list[str]:
    """A warning for each compare run that is one of the reference runs: compared with
    itself, its rows show no change whatever the builds did (a script that passes one path
    twice gates nothing). Said, not refused: NVIDIA's tool compares it too, and the rows
    are what they are. Runs given as files only: results passed in memory are the caller's
    own (``--col`` compares projections of one run, the history gate a reference it built;
    N-way, whose baseline reaches :func:`compare` loaded, asks with its files).
    ``copies``: look for copies too (:func:`~cuda.bench.results._identity.runs_on_both_sides`)."""
    from ..results._identity import runs_on_both_sides

    found = runs_on_both_sides(
        [run for run in ref if isinstance(run, str | os.PathLike)],
        [run for run in cmp if isinstance(run, str | os.PathLike)],
        copies=copies,
    )
    return [
        f"compare run {one.path} is {one.relation} reference run {one.first} (the same "
        "measurements): a run compared with itself shows no change; compare separate runs"
        for one in found
    ]


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
    ref: Source, cmp: Source, copies: dict[Path, Path]
) -> tuple[list[tuple[Source, Source]], list[UnpairedFile]]:
    """File pairs to compare; directories pair by file name, each run once (``copies``),
    leftovers reported."""
    if isinstance(ref, BenchmarkResult) or isinstance(cmp, BenchmarkResult):
        return [(ref, cmp)], []
    pairs, unpaired = discover_pairs(Path(ref), Path(cmp), copies)
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
    # Tagged: the Device variants compare different devices on purpose and leave it out.
    warn(
        TaggedWarning(
            f"device sections of {where} differ: {listing}", kind=WarningKind.DEVICE_SECTIONS
        )
    )
