"""What a reader of the archive says of an entry it leaves out (issue #26, item 6): one
line naming it and the problem in words a user can act on, whatever DuckDB's version."""

from __future__ import annotations

import contextlib
import os
import threading
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _history_calls import ingest_days, readers_warnings, run_history, runs_per_series

NAMES = ("gpu_ref.json", "gpu_cmp.json", "gpu_ref_nosidecar.json")


@pytest.mark.parametrize("table", ["runs", "states"])
def test_a_directory_named_like_a_run_file_is_left_out_as_a_directory(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], table: str
) -> None:
    # It was "unreadable as Parquet (IO Error: No files found that match the pattern "" LINE
    # 1: ... FROM parquet_schema(?) ^^^)": DuckDB's words for an empty glob, and its query.
    runs = [(gpu_dir / name, f"{day:x}" * 40) for day, name in enumerate(NAMES, start=1)]
    archive = ingest_days(tmp_path / "archive", runs)
    folder = next(archive.glob(f"{table}/*/*")) / "copied.parquet"
    folder.mkdir()
    line = f"{folder.as_posix()}: a directory, not a file; left out"
    for warned in readers_warnings(archive, gpu_dir / "gpu_cmp_plain.json", tmp_path / "o", capsys):
        assert len(warned) == 1 and warned[0].endswith(line), warned
    assert runs_per_series(tmp_path / "o") == {3}


class _DuckDB10:
    """A connection whose failed queries raise as DuckDB 1.0 did: the error wrapped."""

    def __init__(self, connection: Any) -> None:
        self._connection = connection

    def execute(self, sql: str, parameters: Any = None) -> Any:
        import duckdb

        try:
            return self._connection.execute(sql, parameters)
        except duckdb.Error as error:
            if "pending query result" in str(error):
                raise  # DuckDB 1.0 itself
            raise duckdb.InvalidInputException(
                "Invalid Input Error: Attempting to execute an unsuccessful or closed pending "
                f"query result\nError: {error}"
            ) from None


def test_a_file_left_out_is_worded_alike_on_duckdb_1_0(gpu_dir: Path, tmp_path: Path) -> None:
    # On DuckDB 1.0 every "unreadable as Parquet" line began "(Invalid Input Error:
    # Attempting to execute an unsuccessful or closed pending query result Error: ...".
    import duckdb
    from cuda.bench.history._archive_files import readable_files

    runs = [(gpu_dir / name, f"{day:x}" * 40) for day, name in enumerate(NAMES, start=1)]
    archive = ingest_days(tmp_path / "archive", runs)
    (next(archive.glob("states/*/*")) / ("f" * 64 + ".parquet")).write_bytes(b"PAR1 junk")
    said = []
    for connection in (duckdb.connect(), _DuckDB10(duckdb.connect())):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            readable_files(connection, archive, "states")
        said.append([str(one.message) for one in caught])
    assert len(said[0]) == 1 and "unreadable as Parquet (" in said[0][0], said
    assert said[1] == said[0] and "pending query result" not in said[1][0], said


@contextlib.contextmanager
def _released(fifo: Path) -> Iterator[None]:
    """While the block runs, a thread opens ``fifo`` for writing whenever a reader waits on
    it, and closes it at once: a reader that opens it gets an empty file rather than
    waiting for good (which the test would never end from)."""
    stop = threading.Event()

    def release() -> None:
        while not stop.wait(0.05):
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                continue  # no reader waits

    thread = threading.Thread(target=release, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


@pytest.mark.parametrize("table", ["runs", "states"])
def test_a_named_pipe_in_the_archive_is_left_out_unopened(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], table: str
) -> None:
    """A FIFO named like a file of the archive (a new name, or in place of a run's states
    file) held every command for good: DuckDB's open waits for a writer."""
    runs = [(gpu_dir / name, f"{day:x}" * 40) for day, name in enumerate(NAMES, start=1)]
    archive = ingest_days(tmp_path / "archive", runs)
    folder = next(archive.glob(f"{table}/*/*"))
    fifo = folder / "fifo.parquet"
    os.mkfifo(fifo)
    line = f"{fifo.as_posix()}: not a regular file but a named pipe (FIFO); left out"
    with _released(fifo):
        found = readers_warnings(archive, gpu_dir / "gpu_cmp_plain.json", tmp_path / "o", capsys)
    for warned in found:
        assert len(warned) == 1 and warned[0].endswith(line), warned
    assert runs_per_series(tmp_path / "o") == {3}


def test_a_named_pipe_in_place_of_a_states_file_is_left_out_unopened(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = [(gpu_dir / name, f"{day:x}" * 40) for day, name in enumerate(NAMES, start=1)]
    archive = ingest_days(tmp_path / "archive", runs)
    states = sorted(archive.glob("states/*/*/*.parquet"))[0]
    states.unlink()
    os.mkfifo(states)
    line = f"{states.as_posix()}: not a regular file but a named pipe (FIFO); left out"
    with _released(states):
        found = readers_warnings(archive, gpu_dir / "gpu_cmp_plain.json", tmp_path / "o", capsys)
    for warned in found:
        assert len(warned) == 1 and warned[0].endswith(line), warned
    assert runs_per_series(tmp_path / "o") == {2}


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (os.mkfifo, "not a regular file but a named pipe (FIFO)"),
        (os.mkdir, "a directory, not a file"),
        (lambda path: os.symlink(path.name, path), "a link to no file"),
    ],
)
def test_a_marker_that_is_no_file_is_named(
    gpu_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    make: Callable[[Path], None],
    problem: str,
) -> None:
    """A FIFO (a folder, a link loop) in place of ``nvbench-archive.json`` read as "not an
    nvbench-tools history archive (no nvbench-archive.json)", though ``ls`` shows it."""
    archive = ingest_days(tmp_path / "archive", [(gpu_dir / NAMES[0], "c1" * 20)])
    marker = archive / "nvbench-archive.json"
    marker.unlink()
    make(marker)
    for argv in (["trend"], ["ingest", "--commit", "c2" * 20, gpu_dir / NAMES[1]]):
        code, _, err = run_history(capsys, argv[0], "--archive", archive, *argv[1:])
        assert code == 2
        assert err.startswith(
            f"nvbench-history: error: {marker}: the archive marker is {problem}"
        ), err
        assert len(err.splitlines()) == 1, err


def test_a_loop_of_links_is_named_without_the_query(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A link loop named like a run file was "unreadable as Parquet (IO Error: No files found
    that match the pattern "" LINE 1: ..., name, type, ... FROM parquet_schema(?) ^^^^)"."""
    runs = [(gpu_dir / name, f"{day:x}" * 40) for day, name in enumerate(NAMES, start=1)]
    archive = ingest_days(tmp_path / "archive", runs)
    loop = next(archive.glob("runs/*/*")) / "loop.parquet"
    loop.symlink_to(loop.name)
    line = f"{loop.as_posix()}: a link to no file (dangling, or a loop of links); left out"
    for warned in readers_warnings(archive, gpu_dir / "gpu_cmp_plain.json", tmp_path / "o", capsys):
        assert len(warned) == 1 and warned[0].endswith(line), warned


def test_duckdb_problems_are_told_without_the_query_text(tmp_path: Path) -> None:
    """DuckDB quotes the query after a binder's error (``LINE 1: ... ^^^``): the line about a
    file says what is wrong with it, not where in our query DuckDB stopped."""
    import duckdb
    from cuda.bench.history._archive_files import duckdb_problem

    connection = duckdb.connect()
    with pytest.raises(duckdb.Error) as failed:
        connection.execute("SELECT name FROM parquet_schema(?)", [[str(tmp_path / "x.parquet")]])
    assert "LINE 1" in str(failed.value)  # what DuckDB says
    said = duckdb_problem(failed.value)
    assert "LINE" not in said and "parquet_schema" not in said and "^" not in said, said
    assert said.startswith("IO Error: No files found"), said


@pytest.mark.parametrize("command", ["trend", "detect", "report"])
def test_an_archive_whose_states_are_all_gone_is_one_error_line(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """Its states folder deleted: after a warning per run, every reader ended with DuckDB's
    "Binder Error: Values list "s" does not have a column named "skipped"" (re-trial)."""
    import shutil

    runs = [(gpu_dir / name, f"{day:x}" * 40) for day, name in enumerate(NAMES, start=1)]
    archive = ingest_days(tmp_path / "archive", runs)
    shutil.rmtree(archive / "states")
    argv: tuple[str | Path, ...] = (command, "--archive", archive)
    if command == "report":
        argv += ("--html", tmp_path / "site")
    code, _, err = run_history(capsys, *argv)
    last = err.strip().splitlines()[-1]
    assert code == 2 and "Binder" not in err, err
    assert last.endswith(f"{archive}: no readable state file is left in the archive"), last
