"""The baseline gate: a new run against the current level of each of its series in the archive.

``gate(archive, run)`` answers "is tonight's run within the normal range?" with the
comparison's own verdicts: it rebuilds the recent runs of each series' current level (the
runs since its last confirmed change point or creep, :func:`.series.examine`; where the
series has a candidate change, not yet confirmed, the runs before the candidate: a
candidate is no level yet, so a regression stays flagged until it is confirmed and a level
that creeps is held to the runs before the latest candidate; the row and a note in the
summary say so) as NVBench results and
hands them, as several reference runs, to :func:`cuda.bench.compare.compare` with the ``ci``
method, whose two-level bootstrap resamples the runs and then the samples within them. The
reference side's spread is therefore the measured run-to-run drift of the level, not a
guess, and statuses, reasons, reports and ``--fail-on`` are exactly ``nvbench_compare``'s.

How the reference runs are rebuilt. Reference result ``k`` holds, for every state of the
gated run whose series has at least ``k + 1`` runs in its current level, that series'
``k``-th most recent run of the level (at most ``max_runs``); each state keeps the gated
run's name, axes and device, so the comparison matches them one to one. A state's
summaries come from what the archive stored for that run:

* with the ``samples`` table (``ingest --samples N``): the stored subsample of times (and
  SM clocks), written with side files to a temporary directory and summarised as NVBench
  would, so the comparison bootstraps real samples (and per-sample cycles);
* else the stored median, mean, relative standard deviation, sample count and mean SM
  clock. The archive keeps the median's 95 % bootstrap interval, not the quartiles; the
  rebuilt state carries the quartiles ``median ± h`` whose asymptotic median error
  (:func:`cuda.bench.compare.bootstrap.median_standard_error`, ``2 h / (median sqrt(n))``)
  equals that interval's, so the comparison sees each run's within-run uncertainty as the
  archive measured it. These quartiles exist only inside the gate: a row shows such a
  reference as its runs' median without an interval (:mod:`._gate_shown`).

Drift of the new run. The ``ci`` method's interval with several reference runs and one
new run counts the reference level's uncertainty (its runs' spread over their number) and
the new run's sampling error, but not the run-to-run drift the single new run carries. So
the level's runs, which are repeated runs of one build, are also given to the comparison's
A/A calibration (:func:`cuda.bench.compare.calibrate.calibrate`, as ``nvbench_compare
--calibration``), and each state's tolerance becomes the band that makes FAST/SLOW mean
"outside the level's 99 % prediction interval for one new run, and beyond the ``[ci]
tolerance``", with SAME kept for runs whose prediction interval of the change lies inside
``[ci] max_tolerance`` (the statistics, cited, are in :mod:`._gate_band`). Far-off runs of
the level (outliers that reverted) are left out of the reference runs first (the Hampel
identifier, :func:`._gate_band.typical_runs`), so one of them does not widen the band. A
state whose band exceeds ``[ci] max_tolerance`` is AMBG ``too_noisy_to_judge`` (FAST/SLOW
only beyond it), as in any calibrated comparison.

A run the archive already holds (a job that ingests, then gates) is left out of its
series first: a run is no evidence about itself (a note in the summary says so).

Statuses beyond the comparison's. A state without runs in the archive is ``ADDED`` (the
comparison's own one-sided row), unless the gated run skipped it: then it is ``SKIP``; a
state (or a whole benchmark, CPU-only ones included) of the environment's latest archived
run (the last in series order, :func:`.series.latest_run`) that the gated run lacks is
``REMOVED``, from the primary reference run (states the latest run lacks as well
are discontinued, not removed); a state whose current level has fewer than ``min_runs`` runs
(never fewer than two: one run measures no drift; a series just started, or a change point
among the last runs) cannot have its drift measured: a row the comparison decided (SAME,
FAST, SLOW, AMBG) becomes AMBG ``history_too_short``, never SAME, and its message, the
geometric-mean line and a note name that cause (:mod:`._gate_short`). Rows of unusable input
keep their ``????``. A run sharing no state with the archive (renamed benchmarks) gets only
ADDED and REMOVED rows, a normal gate; a run that measured no (selected) state is refused.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import msgspec
import numpy as np

from ..compare.model import Reason, Status
from ..results._tools_api import BenchmarkResult
from ._gate_band import BandKey, cycle_spreads, equivalent, one_new_run, typical_runs
from ._gate_inputs import (
    from_samples,
    quiet_format_warnings,
    refuse_states_twice,
    relabelled,
    usable_samples,
)
from ._gate_names import reference_names
from ._gate_result import GATE_TOOL, GateResult, PendingCandidate
from ._gate_runs import combine
from ._gate_short import drift_codes, history_notes, too_short
from ._gate_shown import shown_rows, with_shown_note
from ._gate_states import (
    GateLevel,
    LevelKey,
    StoredKey,
    before_candidate,
    from_summaries,
    removed_benchmarks,
    removed_states,
    settled_runs,
)
from ._run_checks import NO_STATE
from ._selection_arguments import checked_selection
from .archive import ArchiveError, machine_fingerprint, query, run_hashes
from .series import examine, latest_run, read_series

if TYPE_CHECKING:
    from ..compare._arguments import DeviceSelection
    from ..compare.calibrate import Calibration
    from ..compare.filters import FilterItem, FilterPlan
    from ..compare.model import Comparison, Row
    from ..compare.thresholds import Thresholds
    from ..results._schema import Document, State
    from .series import ArchiveSeries

__all__ = ["DEFAULT_MAX_RUNS", "DEFAULT_MIN_RUNS", "GateResult", "gate"]

#: Most recent runs of a level used as reference runs.
DEFAULT_MAX_RUNS: Final = 20
#: Fewest runs of a level for a verdict other than AMBG ``history_too_short``.
DEFAULT_MIN_RUNS: Final = 3
#: Rows of states the gated run did not measure.
_UNMEASURED: Final = frozenset({Status.REMOVED, Status.SKIP})


def _levels(
    connection: Any,
    archive: str | os.PathLike[str],
    machine: str,
    filters: FilterPlan | None,
    devices: Sequence[int] | None,
    max_runs: int,
    exclude: frozenset[str],
) -> tuple[dict[LevelKey, GateLevel], frozenset[str]]:
    """Each series' :class:`GateLevel`, and the archive runs left out of the series as
    the gated runs (``exclude``) themselves."""
    read = [
        one
        for one in read_series(connection, archive, filters=filters, devices=devices)
        if one.machine == machine
    ]
    left_out = frozenset(run for one in read for run in exclude.intersection(one.run_ids))
    lost = {
        (one.benchmark, one.device, one.state_name)
        for one in read
        if exclude.intersection(one.run_ids)
    }
    series = [without for without in (_without(one, exclude) for one in read) if without.runs]
    if not series:
        return {}, left_out
    view = examine(series)
    # The latest run in series order (the archive's --order, else date), as every
    # history command orders runs: not by date and hash (runs of one date came out in
    # the order of their hashes).
    latest = latest_run(connection, {one.run_ids[-1] for one in view.series})
    found: dict[LevelKey, GateLevel] = {}
    for position, one in enumerate(view.series):
        first, end, held = settled_runs(view, position)
        recent = one.run_ids[first:end][::-1][:max_runs]
        medians = np.asarray(one.medians[first:end][::-1][:max_runs], dtype=np.float64)
        if recent and np.all(np.isfinite(medians)) and np.all(medians > 0):
            # A far-off run (an outlier that reverted) is no part of the level's range.
            keep = typical_runs(np.log(medians))
            recent = tuple(run for run, kept in zip(recent, keep.tolist(), strict=True) if kept)
        key = (one.benchmark, one.device, one.state_name)
        found[key] = GateLevel(
            recent,
            end - first,
            one.axes,
            one.run_ids[-1] == latest,
            None
            if held is None
            else PendingCandidate(
                one.benchmark,
                one.device,
                one.state_name,
                held.commit,
                one.runs - end,
                # The runs the reference holds: the level's last max_runs before the candidate.
                one.commits[max(first, end - max_runs)],
                one.commits[end - 1],
            ),
            key in lost,
        )
    return found, left_out


def _without(series: ArchiveSeries, runs: frozenset[str]) -> ArchiveSeries:
    """``series`` without the points of archive runs ``runs`` (the gated runs, when the
    archive already holds them: a run is no evidence about itself)."""
    if not runs.intersection(series.run_ids):
        return series
    keep = [i for i, one in enumerate(series.run_ids) if one not in runs]

    def pick(values: Any) -> Any:
        return None if values is None else values[keep]

    return msgspec.structs.replace(
        series,
        commits=tuple(series.commits[i] for i in keep),
        dates=tuple(series.dates[i] for i in keep),
        medians=series.medians[keep],
        median_lo=pick(series.median_lo),
        median_hi=pick(series.median_hi),
        run_ids=tuple(series.run_ids[i] for i in keep),
    )


_STORED = """
SELECT run, benchmark, device, state_name, median, median_lo, median_hi, mean, noise,
       samples, sm_clock
FROM states WHERE machine = ? AND run IN (SELECT unnest(?::VARCHAR[]))
"""
_SAMPLES = """
SELECT run, benchmark, device, state_name, times, clocks
FROM samples WHERE machine = ? AND run IN (SELECT unnest(?::VARCHAR[]))
"""


def _stored(
    connection: Any, machine: str, runs: Sequence[str]
) -> tuple[
    dict[StoredKey, tuple[Any, ...]],
    dict[StoredKey, Any],
]:
    wanted = sorted(set(runs))
    rows = {
        (row[0], row[1], _device(row[2]), row[3]): row[4:]
        for row in connection.execute(_STORED, [machine, wanted]).fetchall()
    }
    samples = {
        (row[0], row[1], _device(row[2]), row[3]): row[4:]
        for row in connection.execute(_SAMPLES, [machine, wanted]).fetchall()
    }
    return rows, samples


def _device(stored: Any) -> int | None:
    return None if stored is None else int(stored)


class _Reference(msgspec.Struct, frozen=True):
    document: Document
    bulk: dict[tuple[int, int], tuple[Any, Any]]


def _references(
    result: BenchmarkResult,
    levels: dict[LevelKey, GateLevel],
    stored: dict[StoredKey, tuple[Any, ...]],
    samples: dict[StoredKey, Any],
) -> list[_Reference]:
    """Reference document ``k`` for each ``k`` below the longest level of a state of the
    run, and always the primary one (``k = 0``), which holds the REMOVED states (module
    docstring): a run sharing no state with the archive (renamed benchmarks) is compared
    with it alone, its states ADDED, not with empty reference runs."""
    template = result.document
    gated = {
        (view.name, state.device, state.name()) for view in result.benchmarks for state in view
    }
    runs = max((len(level.runs) for key, level in levels.items() if key in gated), default=1)
    out = []
    for k in range(runs):
        benchmarks = []
        bulk: dict[tuple[int, int], tuple[Any, Any]] = {}
        for b_index, (raw, view) in enumerate(
            zip(template.benchmarks or (), result.benchmarks, strict=True)
        ):
            states: list[State] = []
            records = raw.states if isinstance(raw.states, list) else []
            for record, state in zip(records, view, strict=False):
                level = levels.get((view.name, state.device, state.name()))
                if level is None and k == 0 and state.is_skipped:
                    states.append(record)  # skipped, no runs measured: SKIP, not ADDED
                if level is None or len(level.runs) <= k:
                    continue
                key = (level.runs[k], view.name, state.device, state.name())
                found = stored.get(key)
                if found is None:
                    continue
                sampled = usable_samples(samples.get(key))
                if sampled is not None:
                    times, clocks = sampled
                    device = result.devices.get(state.device or 0)
                    default = None if device is None else device.data.get("sm_default_clock_rate")
                    summaries = from_samples(times, clocks, view.is_cpu_only, default)
                    bulk[(b_index, len(states))] = (times, None if default is None else clocks)
                else:
                    summaries = from_summaries(found, view.is_cpu_only)
                states.append(
                    msgspec.structs.replace(
                        record, summaries=summaries, is_skipped=False, skip_reason=_unset()
                    )
                )
            if k == 0:
                present = {(state.device, state.name()) for state in view}
                states.extend(removed_states(view.name, present, levels, stored))
            benchmarks.append(msgspec.structs.replace(raw, states=states))
        if k == 0:
            benchmarks.extend(removed_benchmarks(result, levels, stored))
        out.append(_Reference(msgspec.structs.replace(template, benchmarks=benchmarks), bulk))
    return out


def _unset() -> Any:
    from ..results._schema import UNSET

    return UNSET


Source = str | os.PathLike[str] | BenchmarkResult


def gate(
    archive: str | os.PathLike[str],
    run: Source | Sequence[Source],
    *,
    max_runs: int = DEFAULT_MAX_RUNS,
    min_runs: int = DEFAULT_MIN_RUNS,
    filters: FilterPlan | Sequence[FilterItem] | None = None,
    devices: DeviceSelection = None,
    thresholds: Thresholds | None = None,
    workdir: str | os.PathLike[str] | None = None,
) -> GateResult:
    """Compare ``run`` with the current level of each of its series in ``archive``.

    Series are those of the run's environment (:func:`.archive.machine_fingerprint`);
    ``filters`` and ``devices`` narrow both the run and the archive, as for
    ``nvbench_compare``. Raises :class:`.archive.ArchiveError` for a directory that is not an
    archive or holds no run of this environment and for a run that measured no (selected)
    state, the reader's ``ResultFormatError`` for a file that is not an NVBench result, and
    :class:`ValueError` for bad counts. A run sharing no state with the archive (renamed
    benchmarks) is no error: its states are ADDED, the latest archived run's REMOVED.

    ``run`` may be a list of several runs of one build (one environment): each is gated
    against the level, and a state is FAST, SLOW or SAME only where every run says so, else
    AMBG ``gate_runs_disagree`` (:mod:`._gate_runs`): what a single slow run cannot settle.
    Every state of any run gets a row, and the order of the runs changes no verdict.

    Reference runs with stored samples are written, with side files, to ``workdir`` and
    left there, so that reports can read the reference samples of each row; without it
    they go to a temporary directory removed before returning, and the rows then carry no
    reference state (``row.ref_state is None``, as for a comparison read back from a report).
    """
    filters, devices = checked_selection(filters, devices)  # as load_series takes them
    if max_runs < 1 or min_runs < 1:
        raise ValueError(f"need max_runs >= 1 and min_runs >= 1, got {max_runs} and {min_runs}")
    if max_runs < min_runs:
        # The reference would hold fewer runs than a verdict needs while the level, longer
        # than that, passed the check: less evidence would give firmer verdicts.
        raise ValueError(f"need max_runs >= min_runs, got {max_runs} and {min_runs}")
    sources: list[Source] = (
        [run] if isinstance(run, str | os.PathLike | BenchmarkResult) else list(run)
    )
    if not sources:
        raise ValueError("need at least one run to gate")
    results = [one if isinstance(one, BenchmarkResult) else BenchmarkResult(one) for one in sources]
    for position, result in enumerate(results):
        refuse_states_twice(result.label or f"run {position + 1}", result)
    # Runs already ingested (ingest, then gate) must not be their own reference.
    digests = frozenset(
        digest
        for result in results
        if result.path is not None
        for digest in run_hashes(result.path, result)
    )
    found = []
    # Per run, each row's drift code (None: no drift) for the suite of the runs together.
    drift: list[tuple[Reason | None, ...]] = []
    # The levels (the same for every run of one machine: each leaves out all the gated
    # runs, so one detection over the archive serves them all), and the archive runs left
    # out as the gated runs themselves; by machine.
    known: dict[str, tuple[dict[LevelKey, GateLevel], frozenset[str]]] = {}
    levels: dict[LevelKey, GateLevel] = {}
    left_out: frozenset[str] = frozenset()
    # Opening an archive lists and checks every Parquet file in it: once per gate.
    connection = query(archive)
    try:
        for index, result in enumerate(results):
            where = workdir
            if workdir is not None and len(results) > 1:
                where = Path(workdir) / f"run-{index + 1}"
                where.mkdir(exist_ok=True)
            one, codes, levels, left_out = _gate_one(
                (connection, archive),
                result,
                digests,
                max_runs,
                min_runs,
                filters,
                devices,
                thresholds,
                where,
                known,
            )
            found.append(one)
            drift.append(codes)
    finally:
        connection.close()
    first = found[0]
    if len(found) > 1:
        first = combine(found, [result.label or "<memory>" for result in results], drift)
    first = with_shown_note(history_notes(first, levels, max(min_runs, 2), max_runs, left_out))
    # The reports' headline names the gate, not nvbench_compare, and their selection the
    # gate's own device choice (``gate_devices``: None for every device), not the
    # comparison's reference and compare devices; the renderers word it.
    chosen = None if devices is None else [int(device) for device in devices]
    settings = {
        **first.comparison.settings,
        "tool": GATE_TOOL,
        "gate_devices": chosen,
        # Which archive was gated against, for ``report --gate`` to check (the reference's
        # names hold only the path as given): the archive runs its levels hold.
        "archive_runs": sorted(
            {run for held, _ in known.values() for level in held.values() for run in level.runs}
        ),
    }
    first = msgspec.structs.replace(
        first, comparison=msgspec.structs.replace(first.comparison, settings=settings)
    )
    # Once, after combining: each run's rows would otherwise repeat it in the messages.
    return before_candidate(first)


def _gate_one(
    opened: tuple[Any, str | os.PathLike[str]],
    result: BenchmarkResult,
    exclude: frozenset[str],
    max_runs: int,
    min_runs: int,
    filters: FilterPlan | None,
    devices: Sequence[int] | None,
    thresholds: Thresholds | None,
    workdir: str | os.PathLike[str] | None,
    known: dict[str, tuple[dict[LevelKey, GateLevel], frozenset[str]]],
) -> tuple[GateResult, tuple[Reason | None, ...], dict[LevelKey, GateLevel], frozenset[str]]:
    """:func:`gate` of one run, with the archive runs ``exclude`` left out of its levels;
    ``opened`` is the :func:`.archive.query` connection of the archive and its path. With
    it, each row's drift code (:func:`._gate_short.drift_codes`; ``None`` where it did not
    drift), the levels and the archive runs of ``exclude`` that were left out of them.
    ``known`` holds the levels already found, by machine (a detection over the archive's
    series each): filled here for the next run of the gate."""
    from ..compare.api import compare
    from ..compare.calibrate import calibrate
    from ..compare.thresholds import PRESETS

    label = result.label or "<memory>"
    if not any(len(view) for view in result.benchmarks):
        # Checked first: without benchmarks the run names no device, so no environment.
        raise ArchiveError(f"{label}: {NO_STATE}")
    absent = [device for device in dict.fromkeys(devices or ()) if device not in result.devices]
    if absent:
        # Else the comparison names its own option and the gate's rebuilt reference file.
        raise ArchiveError(
            f"{label}: --device {', '.join(map(str, absent))}: not a device of this run "
            f"(it has {', '.join(map(str, sorted(result.devices))) or 'none'})"
        )
    machine = machine_fingerprint(result)
    connection, archive = opened
    if not connection.execute("SELECT count(*) FROM runs").fetchone()[0]:
        # An archive of no run has no columns to ask about its machines (nor a level).
        raise ArchiveError(f"{archive}: the archive holds no runs yet; ingest runs first")
    held = connection.execute("SELECT count(*) FROM runs WHERE machine = ?", [machine]).fetchone()
    if not held or not held[0]:
        raise ArchiveError(
            f"{label}: {archive} holds no run of this environment (machine {machine}); "
            "ingest runs of it first"
        )
    if machine not in known:
        known[machine] = _levels(connection, archive, machine, filters, devices, max_runs, exclude)
    levels, left_out = known[machine]
    stored, samples = _stored(
        connection, machine, [run_id for level in levels.values() for run_id in level.runs]
    )
    references = _references(result, levels, stored, samples)
    with contextlib.ExitStack() as stack:
        scratch = (
            stack.enter_context(tempfile.TemporaryDirectory(prefix="nvbench-gate-"))
            if workdir is None
            else os.fspath(workdir)
        )
        loaded = []
        for k, reference in enumerate(references):
            if reference.bulk:
                path = Path(scratch) / f"level-{k + 1}.json"
                from ..results._tools_api import write_document

                write_document(path, reference.document, _provider(reference.bulk))
                with quiet_format_warnings():
                    loaded.append(BenchmarkResult(path))
            else:
                with quiet_format_warnings():
                    loaded.append(BenchmarkResult.from_document(reference.document))
        # The level's runs are repeated runs of one build: their A/A calibration gives each
        # state the band a single new run is held to (module docstring).
        # One run measures no drift: without a calibration every decided row is AMBG
        # history_too_short below (never fewer than two runs for a verdict).
        base = thresholds if thresholds is not None else PRESETS["default"]
        calibration: Calibration | None = None
        bounds: dict[BandKey, float] = {}
        if len(loaded) > 1:
            calibration, bounds = one_new_run(
                calibrate(loaded, methods=(), presets=(), thresholds=thresholds),
                base,
                cycle_spreads({key: level.runs for key, level in levels.items()}, stored),
            )
        comparison = compare(
            loaded,
            result,
            method="ci",
            calibration=calibration,
            thresholds=thresholds,
            filters=filters,
            cmp_devices=devices,
            ref_devices=devices,
        )
        filtered = (filters is not None and bool(filters.describe())) or devices is not None
        _require_measured(comparison, label, filtered)
        cap = max(base.ci_tolerance, base.ci_max_tolerance)
        rate = 1.0 if calibration is None else calibration.target_rate
        fewest = max(min_runs, 2)
        judged = [equivalent(row, bounds, cap, rate) for row in comparison.rows]
        rows = tuple(_unnamed_files(too_short(row, fewest, max_runs, levels)) for row in judged)
        rows = shown_rows(rows, loaded)  # the centers the Change is made of (._gate_shown)
        codes = drift_codes(judged, rows)
        comparison = _suite_of(comparison, codes)
        if workdir is None and any(reference.bulk for reference in references):
            # Their side files go with the temporary directory.
            rows = tuple(msgspec.structs.replace(row, ref_state=None) for row in rows)
    names = reference_names(connection, archive, result, levels, len(loaded))
    found = GateResult(
        relabelled(comparison, rows, names, label),
        machine,
        len(references),
        sum(1 for row in rows if row.reason is Reason.HISTORY_TOO_SHORT),
        any(reference.bulk for reference in references),
        tuple(level.pending for level in levels.values() if level.pending is not None),
    )
    return found, codes, levels, left_out


def _suite_of(comparison: Comparison, codes: Sequence[Reason | None]) -> Comparison:
    """``comparison`` with its suite's drift rows those of the gate's verdicts (``codes``,
    :func:`._gate_short.drift_codes`)."""
    from ..compare.suite import with_drift

    if comparison.suite is None:
        return comparison
    suite = with_drift(comparison.suite, (code for code in codes if code is not None))
    return msgspec.structs.replace(comparison, suite=suite)


def _require_measured(comparison: Comparison, label: str, filtered: bool) -> None:
    """Raise unless the gated run measured a (selected) state: a row other than REMOVED
    (a state only the archive has) or SKIP. States without history are ADDED rows, a
    normal gate (a run of renamed benchmarks is all ADDED and REMOVED); but a run that
    measured nothing is no evidence, and REMOVED rows alone would pass every gate without
    ``--fail-on missing``. One short line that says what to check, not the reference runs."""
    if any(row.status not in _UNMEASURED and not _skipped(row) for row in comparison.rows):
        return
    selected = " selected by -b/-a/--device" if filtered else ""
    skipped = sum(1 for row in comparison.rows if row.status is Status.SKIP or _skipped(row))
    if skipped:
        raise ArchiveError(
            f"{label}: nothing to gate: the benchmark skipped every state{selected} "
            f"({skipped}); see their skip reasons in the file"
        )
    check = "the filters against the run's benchmarks" if filtered else "that the benchmark ran"
    raise ArchiveError(f"{label}: no benchmark state{selected} to gate; check {check}")


def _skipped(row: Row) -> bool:
    """A state with history that the gated run skipped (``????`` ``state_skipped``)."""
    return row.status is Status.UNKNOWN and row.reason is Reason.STATE_SKIPPED


def _unnamed_files(row: Row) -> Row:
    """``row`` without the reference side's side-file paths: they name the gate's rebuilt
    files (temporary, or in ``workdir``), not files of the user's, so reports show none."""
    ref = row.ref
    if ref is None or (ref.sample_file is None and ref.frequency_file is None):
        return row
    return msgspec.structs.replace(
        row, ref=msgspec.structs.replace(ref, sample_file=None, frequency_file=None)
    )


def _provider(bulk: dict[tuple[int, int], tuple[Any, Any]]) -> Any:
    def provide(bench: int, state: int) -> tuple[Any, Any]:
        return bulk.get((bench, state), (None, None))

    return provide
