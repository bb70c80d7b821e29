"""Which Parquet files of an archive a query reads: one per run and table, each readable.

An archive directory is shared storage that many jobs write and people copy into; what
lies in it is input, not trusted. A file the queries cannot read (truncated, not Parquet),
that is not a table of ours (a foreign Parquet file, another table's file) or whose column
of ours has another type than the ingest writes (a hand edit or another tool's rewrite:
``order`` as a float or text, ``axes`` as a list of text) is left out with one warning naming it
(:class:`ArchiveFileWarning`), so that the commands go on with the rest instead of failing
on the first bad file, or reading every file as a mistyped one types its column. A second
file of a run's rows in one table is read once too: the same ``<run>.parquet`` under
another partition (a manual copy), or a copy under another name in any folder
(``<run> (1).parquet``, as sync tools write them), found by the run ids the file holds,
not by its name. The file named after its run is the one read; among others, the first in
path order.

A run whose rows are in the ``runs`` table and not the ``states`` table, or the reverse (a
file deleted by hand, or an ingest that did not finish: it commits the states first and the
runs file last), is in no series, or in every series without its states; one warning names
it and the file that is there (:func:`warn_half_present`), so that a command does not go on
with fewer runs in silence. A run whose missing file is there but was left out (unreadable,
foreign, mistyped) is not named again.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final, NamedTuple

from .._errors import missing_file_problem
from .._special_files import special_file_problem

__all__ = [
    "ArchiveFileWarning",
    "ReadableFiles",
    "duckdb_problem",
    "engine_path",
    "not_a_file",
    "readable_files",
    "warn_half_present",
]

_AXES: Final = (
    "LIST of GROUP (name BYTE_ARRAY (UTF8), type BYTE_ARRAY (UTF8), value BYTE_ARRAY (UTF8), "
    "int_value INT64, float_value DOUBLE)"
)
_FLOATS: Final = "LIST of FLOAT"
#: Every column the ingest writes, per table (the schema doc's tables), with its type as
#: :func:`_described` words what ``parquet_schema`` says of it, a nested column's whole: a
#: list of another element or a struct lacking a field passed a check of the top level
#: alone, and ended the commands with a traceback (``axes`` as ``list<string>``) or failed
#: on the whole archive (``times`` as ``list<string>`` in a later file), 2026-11-30.
WRITTEN: Final[Mapping[str, Mapping[str, str]]] = MappingProxyType(
    {
        "runs": MappingProxyType(
            {
                "run": "BYTE_ARRAY (UTF8)",
                "commit": "BYTE_ARRAY (UTF8)",
                "date": "INT64 (TIMESTAMP_MICROS)",
                "order": "INT64",
                "branch": "BYTE_ARRAY (UTF8)",
                "tags": "MAP of BYTE_ARRAY (UTF8) to BYTE_ARRAY (UTF8)",
                "machine": "BYTE_ARRAY (UTF8)",
                "devices": "BYTE_ARRAY (UTF8)",
                "nvbench_version": "BYTE_ARRAY (UTF8)",
                "source": "BYTE_ARRAY (UTF8)",
                "states": "INT64",
            }
        ),
        "states": MappingProxyType(
            {
                "run": "BYTE_ARRAY (UTF8)",
                "benchmark": "BYTE_ARRAY (UTF8)",
                "device": "INT64",
                "state_name": "BYTE_ARRAY (UTF8)",
                "axes": _AXES,
                "skipped": "BOOLEAN",
                "median": "DOUBLE",
                "median_lo": "DOUBLE",
                "median_hi": "DOUBLE",
                "mean": "DOUBLE",
                "noise": "DOUBLE",
                "samples": "INT64",
                "sm_clock": "DOUBLE",
                "cycles_median": "DOUBLE",
            }
        ),
        "samples": MappingProxyType(
            {
                "run": "BYTE_ARRAY (UTF8)",
                "benchmark": "BYTE_ARRAY (UTF8)",
                "device": "INT64",
                "state_name": "BYTE_ARRAY (UTF8)",
                "count": "INT64",
                "times": _FLOATS,
                "clocks": _FLOATS,
            }
        ),
    }
)
#: The columns of :data:`WRITTEN` a file of each table must have: those without which the
#: queries cannot read it. The others may be missing (an older ingest wrote fewer).
REQUIRED: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {
        "runs": ("run", "commit", "date"),
        "states": ("run", "benchmark", "device", "state_name", "skipped", "median"),
        "samples": ("run", "benchmark", "device", "state_name"),
    }
)
# Every row, nested leaves too (a tree in preorder, each row with its count of children):
# on 2,000 files of states this took 0.35 s for 0.30 s of the top-level rows alone, where a
# DESCRIBE of each file's nested columns took 1.4 s (2026-11-30).
_SCHEMA: Final = (
    "SELECT file_name, name, type, converted_type, logical_type, num_children "
    "FROM parquet_schema(?)"
)
# The runs each file holds, from its rows (a footer's statistics are the writer's word).
_RUNS: Final = (
    "SELECT DISTINCT filename, run FROM read_parquet(?, filename = true, union_by_name = true)"
)
# One file alone, its name given (a file with a column of its own named ``filename`` makes
# DuckDB refuse the option above).
_RUNS_OF_ONE: Final = "SELECT DISTINCT ?::VARCHAR AS filename, run FROM read_parquet(?)"


class ArchiveFileWarning(UserWarning):
    """A file of the archive that the queries leave out, and why."""


def _schemas(connection: Any, files: Sequence[str], table: str) -> dict[str, dict[str, str]]:
    """``file -> {column of ours: its type in words}`` (:func:`_described`); a file whose
    footer DuckDB cannot read is missing from the answer (each is then tried alone)."""
    found: dict[str, dict[str, str]] = {one: {} for one in files}
    per_file: dict[str, list[Any]] = {}
    for row in _rows_per_file(connection, _SCHEMA, files, found):
        per_file.setdefault(str(row[0]), []).append(row[1:])
    # The files one ingest wrote have one schema: it is described once.
    described: dict[tuple[Any, ...], dict[str, str]] = {}
    for file_name, rows in per_file.items():
        key = tuple(rows)
        if key not in described:
            columns = described[key] = {}
            for column in _tree(iter(rows)).children:  # the root's: the file's columns
                if column.name in WRITTEN[table]:
                    columns.setdefault(column.name, _described(column))
        found[file_name] = dict(described[key])
    return found


class _Node(NamedTuple):
    """A node of a file's Parquet schema: a column, or a part of a nested one."""

    name: str
    physical: str | None
    note: str | None
    children: list[_Node]


def _tree(rows: Iterator[Any]) -> _Node:
    """The next node of ``rows`` (``parquet_schema`` rows from ``name``, in preorder), its
    children read with it. Its annotation: the converted type (``UTF8``,
    ``TIMESTAMP_MICROS``, ``UINT_64``, ``LIST``, ``MAP``), else the logical type's name (a
    timestamp in nanoseconds has no converted type)."""
    name, physical, converted, logical, count = next(rows)
    note = converted or (str(logical).split("(", 1)[0] if logical else None)
    children = [_tree(rows) for _ in range(count or 0)]
    return _Node(str(name), None if physical is None else str(physical), note, children)


def _described(node: _Node) -> str:
    """A column's type in the words of :data:`WRITTEN`: its Parquet physical type and its
    annotation (:func:`_tree`); a list's ``LIST of`` its element, a map's ``MAP of`` its key
    ``to`` its value, a struct's ``GROUP`` and its fields' names and types."""
    if node.physical is not None:
        return f"{node.physical} ({node.note})" if node.note else node.physical
    if node.note == "LIST" and len(node.children) == 1:
        # The repeated group between holds the element (three levels); a repeated leaf or
        # a group of several fields is the element itself (the older two levels).
        (level,) = node.children
        one = level.physical is None and len(level.children) == 1
        return f"LIST of {_described(level.children[0] if one else level)}"
    if node.note == "MAP" and len(node.children) == 1 and len(node.children[0].children) == 2:
        key, value = node.children[0].children
        return f"MAP of {_described(key)} to {_described(value)}"
    fields = ", ".join(f"{child.name} {_described(child)}" for child in node.children)
    return f"{node.note or 'GROUP'} ({fields})"


def _rows_per_file(
    connection: Any,
    sql: str,
    files: Sequence[str],
    found: dict[str, Any],
    alone: tuple[str, bool] | None = None,
) -> list[Any]:
    """The rows of ``sql`` over ``files`` at once or, if that fails, one file at a time
    (``alone``: another query for that, and whether it takes the file's name first): a file
    DuckDB cannot read is left out with a warning and deleted from ``found``."""
    import duckdb

    single, named = alone if alone is not None else (sql, False)
    try:
        rows: list[Any] = connection.execute(sql, [list(files)]).fetchall()
    except duckdb.Error:
        rows = []
        for one in files:
            try:
                parameters: list[Any] = [one, [one]] if named else [[one]]
                rows.extend(connection.execute(single, parameters).fetchall())
            except duckdb.Error as error:
                # DuckDB's message names the file again: the warning names it once, first.
                said = duckdb_problem(error).replace(f"'{one}'", "").replace(one, "")
                said = " ".join(said.split())
                _warn(one, f"unreadable as Parquet ({said[:200]})")
                del found[one]
    return rows


# DuckDB 1.0's wrapper of an error raised while a query ran (2.0 raises it as it is).
_WRAPPED: Final = re.compile(
    r"^Invalid Input Error: Attempting to execute an unsuccessful or closed pending query "
    r"result\s*Error:\s*"
)


# The query text DuckDB quotes after a binder's or parser's error, with a caret under
# the place: ours, not the file's problem.
_QUOTED_QUERY: Final = re.compile(r"\n\s*LINE \d+:.*", re.DOTALL)


def duckdb_problem(error: BaseException) -> str:
    """DuckDB's message of ``error`` on one line, as DuckDB 2.0 words it: without the
    wrapper DuckDB 1.0 put before every error of a query that failed while it ran
    (``Invalid Input Error: Attempting to execute an unsuccessful or closed pending query
    result Error: ``), which began every line about an unreadable file, and without the
    query text DuckDB quotes after some errors (``LINE 1: ... FROM parquet_schema(?)``),
    which says nothing of the file."""
    return " ".join(_QUOTED_QUERY.sub("", _WRAPPED.sub("", str(error))).split())


def _warn(path: str, problem: str) -> None:
    warnings.warn(ArchiveFileWarning(f"{path}: {problem}; left out"), stacklevel=4)


def _runs_of(connection: Any, files: Sequence[str]) -> dict[str, set[str]]:
    """``file -> the run ids its rows hold``; a file whose rows DuckDB cannot read is
    missing from the answer, with a warning (each is then tried alone)."""
    found: dict[str, set[str]] = {one: set() for one in files}
    rows = _rows_per_file(connection, _RUNS, files, found, (_RUNS_OF_ONE, True))
    for file_name, run in rows:
        if run is not None and str(file_name) in found:
            found[str(file_name)].add(str(run))
    return found


def _one_file_per_run(connection: Any, files: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """``files`` less each file holding a run that another file of the table holds already
    (module docstring), sorted, and the file each run they hold is read from."""
    runs = _runs_of(connection, files)
    # The file the ingest wrote (named after its run) first, so that a copy is what is left out.
    ordered = sorted(runs, key=lambda one: (runs[one] != {Path(one).stem}, one))
    read_from: dict[str, str] = {}
    kept = []
    for one in ordered:
        again = sorted(run for run in runs[one] if run in read_from)
        if again:
            run = again[0]
            # A file of several runs (not the ingest's) goes whole: say what goes with it.
            others = len(runs[one]) - len(again)
            also = f", with {others} other run(s) it holds" if others else ""
            _warn(one, f"a second file of run {run[:16]} (read from {read_from[run]}){also}")
            continue
        read_from.update(dict.fromkeys(runs[one], one))
        kept.append(one)
    return sorted(kept), read_from


def _foreign(table: str, columns: Mapping[str, str]) -> str | None:
    """Why a file of ``table`` with ``columns`` (:func:`_schemas`) is no file of the
    ingest's, or ``None``: a column the queries cannot do without is missing, or a column
    of ours has another type than the ingest writes. DuckDB reads every file as the first
    in path order types it: another type there retyped the column of every run in silence
    (text orders sort "10" before "2"); in a later file, a value the first one's type cannot
    hold ended every command on the whole archive."""
    lacking = [name for name in REQUIRED[table] if name not in columns]
    if lacking:
        return f"not a file of the archive's {table} table (no {', '.join(lacking)})"
    written = WRITTEN[table]
    mistyped = [
        f"column {name} is {kind}, not {written[name]}"
        for name, kind in columns.items()
        if kind != written[name]
    ]
    return f"{', '.join(mistyped)} as the ingest writes" if mistyped else None


class ReadableFiles(NamedTuple):
    """What :func:`readable_files` found of one table."""

    #: The files a query may read, sorted.
    files: list[str]
    #: Whether they all have the same columns of ours (else the read must unite them by
    #: name: an archive written by versions with fewer columns).
    uniform: bool
    #: The runs their rows hold (read to find second copies; :func:`warn_half_present`
    #: compares the tables' with no further reading).
    runs: frozenset[str]
    #: The file each run is read from (warnings about its rows name it).
    read_from: Mapping[str, str] = MappingProxyType({})


def engine_path(path: str | os.PathLike[str]) -> str | None:
    """The text DuckDB must be given to open ``path``: its bytes on disk read as UTF-8,
    which DuckDB takes every path for; ``None`` where they are no UTF-8. Python's text of a
    path is in the locale's encoding: under ``LC_ALL=en_US.ISO-8859-1`` an archive whose
    path is not ASCII was given as text naming other bytes ("No files found that match the
    pattern"), and every file of it left out."""
    try:
        return os.fsencode(path).decode("utf-8")
    except UnicodeDecodeError:
        return None


def shown_path(path: str | os.PathLike[str]) -> str:
    """``path`` as the warnings name it: as DuckDB reads it (:func:`engine_path`) where it
    can, else as Python does."""
    return engine_path(path) or Path(path).as_posix()


def not_a_file(path: Path) -> str | None:
    """Why ``path``, found by its name, is no file to give DuckDB, looked at without
    opening it: a folder (which DuckDB took for a pattern matching nothing), a named pipe
    (which DuckDB's open waited on for good), a socket or a device, a link to no file (a
    loop of links, whose error quoted the query); ``None`` for a regular file."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        if error.errno in (errno.ENOENT, errno.ELOOP):
            return missing_file_problem(path)
        return f"cannot be read ({error.strerror or error})"
    if stat.S_ISDIR(mode):
        return "a directory, not a file"
    if not stat.S_ISREG(mode):
        problem = special_file_problem(path) or "not a regular file"
        return problem.removesuffix("; not read")
    return None


def readable_files(connection: Any, root: Path, table: str) -> ReadableFiles:
    """The files of ``table`` in ``root`` that a query may read (module docstring)."""
    chosen: dict[str, str] = {}
    for path in sorted(root.glob(f"{table}/*/*/*.parquet")):
        text = engine_path(path)
        if text is None:
            _warn(path.as_posix(), "a name that is not UTF-8, which DuckDB cannot open")
            continue
        problem = not_a_file(path)
        if problem is not None:
            _warn(text, problem)
            continue
        first = chosen.get(path.name)
        if first is not None:
            # The same name: the same run, without reading the file.
            _warn(text, f"a second file of run {path.stem[:16]} (read from {first})")
            continue
        chosen[path.name] = text
    files = list(chosen.values())
    if not files:
        return ReadableFiles([], True, frozenset())
    schemas = _schemas(connection, files, table)
    usable = []
    for one in files:
        columns = schemas.get(one)
        if columns is None:
            continue  # warned by _schemas
        problem = _foreign(table, columns)
        if problem:
            _warn(one, problem)
            continue
        usable.append(one)
    out, read_from = _one_file_per_run(connection, usable) if usable else ([], {})
    uniform = len({frozenset(schemas[one]) for one in out}) <= 1
    return ReadableFiles(out, uniform, frozenset(read_from), MappingProxyType(read_from))


# (the table that holds the run, the table that lacks it, what to do)
_HALF_PRESENT: Final = (
    (
        "states",
        "runs",
        # The ingest commits the runs file last, and completes a run that lacks it.
        "deleted, or an ingest that did not finish: ingest the run again); its states are in "
        "no series",
    ),
    (
        "runs",
        "states",
        "deleted: restore it, or delete this file and ingest the run again); it is in no series",
    ),
)


def warn_half_present(root: Path, runs_of: Mapping[str, frozenset[str]]) -> None:
    """One warning per run whose rows are in one of the ``runs`` and ``states`` tables of
    the archive at ``root`` and not the other (module docstring), naming the file that
    holds it (the ingest's ``<run>.parquet``; else the run alone). ``runs_of``: each table's
    runs (:attr:`ReadableFiles.runs`), so that no table is read again (a second reading of
    the states took a quarter of a second of every command on an archive of 300,000 state
    rows, 2026-11-29)."""
    for there, lacking, advice in _HALF_PRESENT:
        for run in sorted(runs_of[there] - runs_of[lacking]):
            if any(root.glob(f"{lacking}/*/*/{run}.parquet")):
                continue  # its file there was left out, with a warning of its own
            held = sorted(root.glob(f"{there}/*/*/{run}.parquet"))
            where = shown_path(held[0]) if held else f"{there} rows of run {str(run)[:16]}"
            warnings.warn(
                ArchiveFileWarning(f"{where}: run {str(run)[:16]} has no {lacking} file ({advice}"),
                stacklevel=3,
            )
