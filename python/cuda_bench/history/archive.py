"""An append-only archive of NVBench runs: plain Parquet files, hive partitions, DuckDB queries.

Layout (pyarrow and DuckDB: ``python -m pip install '.[history]'`` from the nvbench-tools
checkout's root)::

    ARCHIVE/nvbench-archive.json                                   marker and format version
    ARCHIVE/nvbench-archive.lock                                   ingests' lock (empty)
    ARCHIVE/runs/machine=<fingerprint>/month=<YYYY-MM>/<run>.parquet    one row per run
    ARCHIVE/states/machine=<fingerprint>/month=<YYYY-MM>/<run>.parquet  one row per state
    ARCHIVE/samples/machine=<fingerprint>/month=<YYYY-MM>/<run>.parquet optional (--samples)

``<run>`` is the SHA-256 of the run's JSON parsed with its keys sorted, not its side files
(:mod:`._run_ids`), so a run ingested twice lands on the same names and the second ingest
is a no-op. ``machine`` is an
environment fingerprint (GPU name, SM version and count, default SM and memory clocks, ECC,
NVBench version; driver and CUDA versions are not in NVBench's files and can come as tags).

The ``samples`` table is optional (``ingest(samples=N)``): per state with per-sample data,
at most ``N`` sample times and SM clocks as float32, taken at evenly spaced positions of the
measurement order (deterministic, and a run's drift over time stays visible to the
comparison's drift check), with the state's full sample count.

Writes are atomic, and readers take no lock (ingests hold one from their conflict checks
to their last file: :mod:`._archive_lock`): each file is written under a hidden temporary
name in its final directory (readers skip names starting with a dot, and ``*.parquet`` globs do not
match it) and then hard-linked to its final name, which fails if the name exists, so
concurrent ingests of one run keep one file and never expose a partial one. The states and
samples files are committed first and the runs file last; an ingest that fails on the way
(an error, Ctrl-C) removes the files it wrote (:mod:`._archive_write`). Only one killed in
between leaves rows that no run row refers to, which :func:`query` names in a warning but
does not show (its ``states`` and ``samples`` views join ``runs``); the next ingest of that
run completes it.

Readers need nothing of ours: the files are plain Parquet with hive-style partition
directories, readable by ``pyarrow.dataset``, DuckDB, Spark, Trino or an Iceberg catalog's
``add_files``.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from .._archive_marker import ARCHIVE_FORMAT, ARCHIVE_MARKER, archive_containing
from .._deps import require
from .._json_input import loads
from .._special_files import open_regular
from .._untrusted import utf8_text
from ..compare.bootstrap import (
    bootstrap_order_statistic,
    median_rank,
    order_statistic_uniforms,
    percentile_interval,
)
from ..results._sidecar import TIMES_TAGS as _TIMES_TAGS
from ._archive_files import engine_path, readable_files, warn_half_present
from ._archive_files import not_a_file as _not_a_file
from ._archive_lock import archive_lock
from ._archive_schema import runs_schema as _runs_schema
from ._archive_schema import samples_schema as _samples_schema
from ._archive_schema import states_schema as _states_schema
from ._archive_write import commit_bytes, write_tables
from ._ingest_arguments import check_run_labels, checked_ingest_arguments
from ._ingested import Ingested
from ._machine import DEVICE_FIELDS as _DEVICE_FIELDS
from ._machine import machine_fingerprint
from ._order_check import check_order, check_order_range
from ._run_checks import ArchiveError, time_space, without_states
from ._run_checks import check_commit as _check_commit
from ._run_checks import check_devices as _check_devices
from ._run_checks import check_keys as _check_keys
from ._run_checks import check_medians as _check_medians
from ._run_checks import check_states as _check_states
from ._run_checks import check_summaries as _check_summaries
from ._run_ids import already_archived, run_hash, run_hashes
from ._run_ids import archived_run as _archived
from ._run_rows import create_runs_view
from ._state_samples import StateSamples, usable_samples
from ._temporary import only_temporaries, remove_abandoned

if TYPE_CHECKING:
    from ..results._tools_api import BenchmarkResult, SubBenchmarkState

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "ArchiveError",
    "Ingested",
    "check_new_run",
    "ingest",
    "ingest_new_run",
    "machine_fingerprint",
    "median_with_interval",
    "open_archive",
    "query",
    "run_hash",
    "run_hashes",
    "subsample_positions",
]

FORMAT: Final = ARCHIVE_FORMAT
FORMAT_VERSION: Final = 1
_MARKER: Final = ARCHIVE_MARKER
#: The stored dates every time zone can read back (:func:`_parse_date`).
_EARLIEST: Final = dt.datetime(1, 1, 2, tzinfo=dt.timezone.utc)
_LATEST: Final = dt.datetime(9999, 12, 31, tzinfo=dt.timezone.utc)
_RESAMPLES: Final = 1000
_CONFIDENCE: Final = 0.95


def _pyarrow() -> tuple[Any, Any]:
    purpose = "the history archive"
    pa = require("pyarrow", extra="history", purpose=purpose)
    pq = require("pyarrow.parquet", extra="history", purpose=purpose, package="pyarrow")
    return pa, pq


def open_archive(directory: str | os.PathLike[str], *, create: bool = False) -> Path:
    """The archive at ``directory``; with ``create``, an empty or missing directory becomes one.

    Raises :class:`ArchiveError` for a directory that exists but is not an archive.
    """
    root = Path(directory)
    marker = root / _MARKER
    if marker.is_file():
        try:
            with open_regular(marker) as stream:  # a FIFO put there since cannot block
                found = loads(stream.read().decode("utf-8"))
        except (OSError, ValueError) as error:
            raise ArchiveError(f"{marker}: unreadable archive marker ({error})") from error
        if not isinstance(found, dict) or found.get("format") != FORMAT:
            raise ArchiveError(f"{root}: not an nvbench-tools history archive")
        if found.get("version") != FORMAT_VERSION:
            raise ArchiveError(f"{root}: archive version {found.get('version')} is not supported")
        return root
    if os.path.lexists(marker):
        # A named pipe, a folder, a link to no file: never opened (a pipe would hold it).
        problem = _not_a_file(marker)
        raise ArchiveError(f"{marker}: the archive marker is {problem}; not an archive to use")
    if not create:
        if not root.exists():
            raise ArchiveError(f"{root}: no such directory (ingest creates an archive)")
        raise ArchiveError(f"{root}: not an nvbench-tools history archive (no {_MARKER})")
    # Only another ingest's marker on its way in (concurrent first ingests) counts as empty.
    if root.exists() and (not root.is_dir() or not only_temporaries(root, _MARKER)):
        if marker.is_file():
            # Another first ingest made the archive between the two looks (and took its lock).
            return open_archive(root)
        raise ArchiveError(f"{root}: exists and is not an empty directory")
    # The parent: another first ingest of this very archive may commit its marker meanwhile,
    # which makes the directory an archive to open, not one inside another.
    outer = archive_containing(root.parent)
    if outer is not None:
        # Its files would lie in the other's directory tree, which engines read recursively.
        raise ArchiveError(
            f"{root}: inside the archive {outer}; an archive holds no other: start it elsewhere"
        )
    if not root.parent.is_dir():
        # As --output-dir: a mistyped parent is reported, not silently created.
        raise ArchiveError(f"{root}: its directory '{root.parent}' does not exist")
    root.mkdir(exist_ok=True)
    text = json.dumps({"format": FORMAT, "version": FORMAT_VERSION}) + "\n"
    commit_bytes(marker, text.encode())
    return root


# ---------------------------------------------------------------------------------------------
# Reading one run


def median_with_interval(
    samples: np.ndarray[Any, Any], rng: np.random.Generator, resamples: int = _RESAMPLES
) -> tuple[float, float, float]:
    """The nearest-rank median of ``samples`` and its 95 % percentile bootstrap interval."""
    ordered = np.sort(samples.astype(np.float64))
    rank = median_rank(ordered.size)
    uniforms = order_statistic_uniforms(rng, ordered.size, rank, resamples)
    low, high = percentile_interval(bootstrap_order_statistic(ordered, uniforms), _CONFIDENCE)
    return float(ordered[rank]), low, high


def _state_row(
    state: SubBenchmarkState, usable: StateSamples, rng: np.random.Generator
) -> dict[str, Any]:
    space = time_space(state)
    samples = usable.times
    median = state.float_value(f"{space}/median")
    median_lo = median_hi = cycles = None
    if samples is not None:
        median, median_lo, median_hi = median_with_interval(samples, rng)
        if usable.cycles is not None:
            cycles = float(np.sort(usable.cycles)[median_rank(samples.size)])
    axes = [
        {
            "name": axis.name,
            "type": axis.type,
            "value": axis.value,
            "int_value": axis.typed if isinstance(axis.typed, int) else None,
            "float_value": float(axis.typed) if isinstance(axis.typed, (int, float)) else None,
        }
        for axis in state.axis_values
    ]
    return {
        "benchmark": state.benchmark.name,
        "device": state.device,
        "state_name": state.name(),
        "axes": axes,
        "skipped": state.is_skipped,
        "median": median,
        "median_lo": median_lo,
        "median_hi": median_hi,
        "mean": state.float_value(f"{space}/mean"),
        "noise": state.float_value(f"{space}/stdev/relative"),
        "samples": state.sample_count,
        "sm_clock": None if state.is_cpu_only else state.float_value("nv/cold/sm_clock_rate/mean"),
        "cycles_median": cycles,
    }


def subsample_positions(size: int, cap: int) -> np.ndarray[Any, Any]:
    """At most ``cap`` evenly spaced positions of ``size`` samples, in measurement order."""
    if size <= cap:
        return np.arange(size)
    return np.unique(np.linspace(0, size - 1, cap).round().astype(np.int64))


def _samples_row(state: SubBenchmarkState, usable: StateSamples, cap: int) -> dict[str, Any] | None:
    samples, clocks = usable.times, usable.clocks
    if samples is None:
        return None
    picked = subsample_positions(samples.size, cap)
    return {
        "benchmark": state.benchmark.name,
        "device": state.device,
        "state_name": state.name(),
        "count": int(samples.size),
        "times": np.asarray(samples, dtype=np.float32)[picked],
        "clocks": None if clocks is None else np.asarray(clocks, dtype=np.float32)[picked],
    }


# ---------------------------------------------------------------------------------------------
# Ingest


def _parse_date(date: str | None) -> dt.datetime:
    """``date`` in UTC (the archive stores UTC); a date without an offset is UTC.

    Readers get the dates back in their local time zone, and Python's dates end at years 1
    and 9999: a stored date less than a day from either end breaks every later read in
    some time zone, so it is refused."""
    if date is None:
        return dt.datetime.now(dt.timezone.utc)
    try:
        parsed = dt.datetime.fromisoformat(date.replace("Z", "+00:00"))
    except ValueError as error:
        raise ArchiveError(f"--date {date!r} is not an ISO 8601 date") from error
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.timezone.utc)
    try:
        when = parsed.astimezone(dt.timezone.utc)
    except OverflowError:  # its UTC date is in year 0 or 10000
        when = None
    if when is None or not _EARLIEST <= when < _LATEST:
        raise ArchiveError(
            f"--date {date!r} is outside the dates an archive can hold "
            "(0001-01-02 to 9999-12-30, UTC)"
        )
    return when


#: Each state of a run with the side-file data the archive may use (:func:`usable_samples`).
_StatesSamples = list[tuple["SubBenchmarkState", StateSamples]]


def _checked_run(path: Path, result: BenchmarkResult) -> tuple[tuple[str, str], _StatesSamples]:
    """What :func:`check_new_run` and :func:`ingest` refuse in a run's content, in that
    order (:mod:`._run_checks`), then its two names (:func:`._run_ids.run_hashes`) and each
    state's usable side-file data, which the write takes from here."""
    _check_states(path, result)
    _check_keys(path, result)
    _check_devices(path, result)
    # Every side file, the SM-clock files included, read before anything is written: one of
    # the wrong size refuses the run (usable_samples raises, naming the result file and the
    # state). Of several runs given to one ingest, one with a cut SM-clock file was refused
    # only after the runs before it were archived.
    states = [(state, usable_samples(state)) for state in result.states()]
    _check_medians(path, result)
    _check_summaries(path, result)
    return run_hashes(path, result), states


def check_new_run(
    archive: str | os.PathLike[str],
    run: str | os.PathLike[str],
    *,
    commit: str,
    date: str | None = None,
) -> str:
    """Check, writing nothing, that ``run`` can be ingested into ``archive``; its hash.

    Raises :class:`ArchiveError` for a directory that is neither an archive nor empty, a
    run without a commit, a commit holding a control character
    (:func:`._run_checks.check_labels`, which :func:`ingest` applies to the branch and
    tags too), a bad date, a run without a single benchmark state, a median that
    is not a usable time (``null``, or not
    :func:`~cuda.bench.compare.evidence.usable_time`), another stored summary the
    comparison cannot use (:func:`._run_checks.check_summaries`), a state twice or a value
    beyond int64 (:func:`._run_checks.check_keys`) or a run
    the archive already holds; the reader's
    ``ResultFormatError`` for a file that is not an NVBench result.
    """
    return _new_run(archive, run, commit, date)[2][0]


def _new_run(
    archive: str | os.PathLike[str], run: str | os.PathLike[str], commit: str, date: str | None
) -> tuple[Path, BenchmarkResult, tuple[str, str], _StatesSamples]:
    """:func:`check_new_run`'s reading and checks: the run's path, its result, its names
    and its states' side-file data."""
    from ..results._tools_api import BenchmarkResult

    check_run_labels(commit, date)
    _pyarrow()
    root = Path(archive)
    if root.exists() and (not root.is_dir() or not only_temporaries(root, _MARKER)):
        open_archive(root)  # an archive (another ingest's since the look?) or an error
    path = Path(run)
    result = BenchmarkResult(path)
    _check_commit(path, commit)
    _parse_date(date)
    digests, states = _checked_run(path, result)
    existing = _archived(root, digests)
    if existing is not None:
        raise ArchiveError(already_archived(path, root, existing))
    return path, result, digests, states


def _check_order(order: int | None) -> None:
    if order is not None:
        check_order_range(order)


def ingest_new_run(
    archive: str | os.PathLike[str],
    run: str | os.PathLike[str],
    *,
    commit: str,
    date: str | None = None,
    order: int | None = None,
    branch: str | None = None,
    tags: Mapping[str, str] | None = None,
    samples: int = 0,
) -> Ingested:
    """:func:`check_new_run` then :func:`ingest` of ``run``, reading and checking it once.

    What either refuses raises, in check_new_run's order and words (a run the archive
    holds already too), before anything is written; the arguments are ingest's. Checking
    several runs before ingesting any (``nvbench-history ingest A.json B.json``) needs the
    two calls; one run needs one reading of its file and side files.
    """
    order, tags, samples = checked_ingest_arguments(commit, date, order, branch, tags, samples)
    path, result, digests, states = _new_run(archive, run, commit, date)
    _check_order(order)
    return _write_run(
        archive, path, result, digests, states, commit, date, order, branch, tags, samples
    )


def ingest(
    archive: str | os.PathLike[str],
    run: str | os.PathLike[str],
    *,
    commit: str,
    date: str | None = None,
    order: int | None = None,
    branch: str | None = None,
    tags: Mapping[str, str] | None = None,
    samples: int = 0,
) -> Ingested:
    """Append one NVBench run to ``archive`` (created if missing or empty); idempotent.

    ``commit`` (required) is the benchmarked code's commit; ``date`` (ISO 8601) defaults
    to now, in UTC. ``samples`` > 0 also stores up to that many samples per state
    (the ``samples`` table, module docstring). ``order`` is refused where the archive's
    runs all lack one, and its absence where they all have one (:mod:`._order_check`).
    Bad input raises :class:`ArchiveError` (an argument of the wrong type a TypeError) or
    the reader's ``ResultFormatError`` before anything is written; an archive that cannot be
    written (read-only, full) raises :class:`ArchiveError` naming it, the run not added.
    """
    order, tags, samples = checked_ingest_arguments(commit, date, order, branch, tags, samples)
    _check_order(order)
    from ..results._tools_api import BenchmarkResult

    _pyarrow()
    if (Path(archive) / _MARKER).exists():
        open_archive(archive)  # a bad marker fails before the run is read
    path = Path(run)
    result = BenchmarkResult(path)
    _check_commit(path, commit)
    digests, states = _checked_run(path, result)
    return _write_run(
        archive, path, result, digests, states, commit, date, order, branch, tags, samples
    )


def _write_run(
    archive: str | os.PathLike[str],
    path: Path,
    result: BenchmarkResult,
    digests: tuple[str, str],
    states: _StatesSamples,
    commit: str,
    date: str | None,
    order: int | None,
    branch: str | None,
    tags: Mapping[str, str] | None,
    samples: int,
) -> Ingested:
    """The rest of :func:`ingest`, for a run read and checked (:func:`_checked_run`)."""
    pa, pq = _pyarrow()
    digest = digests[0]
    when = _parse_date(date)
    machine = machine_fingerprint(result)
    root = Path(archive)
    month = f"{when.year:04d}-{when.month:02d}"  # of the stored (UTC) date
    partition = Path(f"machine={machine}") / f"month={month}"
    runs_file = root / "runs" / partition / f"{digest}.parquet"
    rng = np.random.default_rng(np.random.SeedSequence([int(digest[:16], 16)]))
    rows = [_state_row(state, usable, rng) for state, usable in states]
    for row in rows:
        row["run"] = digest
    states_table = pa.Table.from_pylist(rows, schema=_states_schema(pa))
    devices = [
        {"id": device.id, **{name: device.get(name) for name in _DEVICE_FIELDS}}
        for device in {
            info.id: info for bench in result.values() for info in bench.device_info.values()
        }.values()
    ]
    meta = result.meta
    run_row = {
        "run": digest,
        "commit": commit.strip(),
        "date": when,
        "order": order,
        "branch": branch,
        "tags": sorted((tags or {}).items()),
        "machine": machine,
        "devices": json.dumps(devices, sort_keys=True, default=str),
        "nvbench_version": meta.nvbench_version,
        # A name byte that is no UTF-8 as the tools show it (u\udcff.json): a Parquet
        # string holds UTF-8 only, and pyarrow stopped the ingest with a traceback.
        "source": utf8_text(path.name),
        "states": len(rows),
    }
    runs_table = pa.Table.from_pylist([run_row], schema=_runs_schema(pa))
    tables = [(states_table, root / "states" / partition)]
    # Side files recorded but missing or empty: with or without --samples, for they give
    # each state's median its interval.
    missing = sum(
        1
        for state, usable in states
        if usable.problem is None
        and usable.times is None
        and any(state.has_summary(tag) for tag in _TIMES_TAGS)
    )
    sample_rows: list[dict[str, Any]] = []
    if samples:
        for state, usable in states:
            picked = _samples_row(state, usable, samples)
            if picked is not None:
                picked["run"] = digest
                sample_rows.append(picked)
        tables.append(
            (
                pa.Table.from_pylist(sample_rows, schema=_samples_schema(pa)),
                root / "samples" / partition,
            )
        )
    tables.append((runs_table, runs_file.parent))  # last: it makes the run visible
    try:
        open_archive(root, create=True)
        # The conflict checks and the write as one step for other ingests (._archive_lock).
        with archive_lock(root):
            existing = _archived(root, digests)
            if existing is not None:
                found = existing.parent
                return Ingested(existing.stem, found.parent.name[8:], found.name[6:], 0, False)
            if any(root.glob("runs/*/*/*.parquet")):
                connection = query(root)
                try:
                    check_order(connection, path, order, commit.strip(), branch)
                finally:
                    connection.close()  # a library call leaves no database open behind it
            remove_abandoned(root)  # what a killed ingest left: never visible, but never cleaned
            # All of the run's files or none (._archive_write).
            added = write_tables(pq, tables, digest)
    except OSError as error:
        # A read-only or full archive: pyarrow's message names a hidden temporary file.
        reason = os.strerror(error.errno) if error.errno else str(error)
        raise ArchiveError(
            f"{root}: cannot write to the archive ({reason}); the run was not added"
        ) from error
    # A concurrent ingest of the same run may have committed it first.
    return Ingested(
        digest,
        machine,
        month,
        len(rows) if added else 0,
        added,
        missing,
        without_states(result),
        tuple(usable.problem for _, usable in states if usable.problem is not None),
        len(sample_rows),
    )


# ---------------------------------------------------------------------------------------------
# Queries


def query(archive: str | os.PathLike[str]) -> Any:
    """An in-process DuckDB connection with views ``runs``, ``states`` and ``samples``.

    ``states`` and ``samples`` hold only rows of committed runs (module docstring) and carry
    the partition columns ``machine`` and ``month``; ``samples`` is empty (its columns
    typed) in an archive ingested without ``samples``. Files the views cannot read, files
    of no table of ours and second copies of a run's file are left out with a warning
    (:mod:`._archive_files`), and so are run rows no ingest writes (:mod:`._run_rows`);
    raises :class:`ArchiveError` when run files exist and none of them is readable.
    """
    duckdb = require("duckdb", extra="history", purpose="querying the history archive")
    root = open_archive(archive)
    if engine_path(root) is None:
        # Every file's name would be none DuckDB can open (._archive_files.engine_path).
        raise ArchiveError(
            f"{root}: the archive's path is not UTF-8, which DuckDB cannot open; rename it "
            "or give it by a path without those bytes"
        )
    connection = duckdb.connect(":memory:")
    empty = {
        "runs": "(SELECT NULL::VARCHAR AS run WHERE false)",
        "states": "(SELECT NULL::VARCHAR AS run WHERE false)",
        "samples": "(SELECT NULL::VARCHAR AS run, NULL::VARCHAR AS machine, "
        "NULL::VARCHAR AS benchmark, NULL::BIGINT AS device, NULL::VARCHAR AS state_name, "
        "NULL::BIGINT AS count, NULL::FLOAT[] AS times, NULL::FLOAT[] AS clocks WHERE false)",
    }
    held = {}
    read_from: Mapping[str, str] = {}
    run_files = False
    for table, nothing in empty.items():
        found = readable_files(connection, root, table)
        files, uniform, held[table] = found.files, found.uniform, found.runs
        if table == "runs":
            read_from, run_files = found.read_from, bool(files)
        # States files all gone (their folder deleted) while runs remain: each run was named
        # in a warning, and the views of no states ended in DuckDB's Binder Error.
        gone = table == "states" and run_files
        if table != "samples" and not files and (gone or any(root.glob(f"{table}/*/*/*.parquet"))):
            kind = "run" if table == "runs" else "state"
            raise ArchiveError(f"{root}: no readable {kind} file is left in the archive")
        listed = ", ".join("'" + one.replace("'", "''") + "'" for one in files)
        united = "false" if uniform else "true"
        source = (
            f"read_parquet([{listed}], hive_partitioning = true, union_by_name = {united})"
            if files
            else nothing
        )
        connection.execute(f"CREATE VIEW all_{table} AS SELECT * FROM {source}")
    # Without the run rows no ingest writes (no commit, a negative order), with a warning.
    create_runs_view(connection, root, read_from)
    for table in ("states", "samples"):
        connection.execute(
            f"CREATE VIEW {table} AS SELECT s.* FROM all_{table} s "
            "WHERE s.run IN (SELECT run FROM runs)"
        )
    warn_half_present(root, held)
    return connection
