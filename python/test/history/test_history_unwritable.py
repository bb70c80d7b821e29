"""``nvbench-history ingest`` and :func:`cuda.bench.history.archive.ingest` where an output
cannot be written: standard output (``> /dev/full``) or the archive directory itself."""

from __future__ import annotations

import errno
import os
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from cuda.bench.cli.history import main
from cuda.bench.history.archive import query
from cuda.bench.history.synthetic import HistoryNoise, commit_ids, generate, write_history
from cuda.bench.results.synthetic import SyntheticConfig

COMMITS = commit_ids(2, seed=4)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ...]:
    """Two runs of one benchmark of two states."""
    history = generate(HistoryNoise("iid", run_sigma=0.005), series=2, runs=2, seed=1)
    config = SyntheticConfig(benchmarks=1, states=2, samples=32)
    return write_history(tmp_path_factory.mktemp("runs"), history, config, seed=3)


class _FullDisk:
    """A stdout whose writes fail as a full disk's do (no file name on the error)."""

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def flush(self) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _archived(archive: Path) -> int:
    connection = query(archive)
    try:
        found = connection.execute("SELECT count(*) FROM runs").fetchone()[0]
    finally:
        connection.close()
    assert isinstance(found, int)
    return found


def test_ingest_with_stdout_unwritable_says_the_runs_were_archived(
    tmp_path: Path,
    runs: tuple[Path, ...],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``nvbench-history ingest ... > /dev/full`` archived the runs, then exited 2 saying
    only "standard output: No space left on device": nothing told that the runs were in
    the archive (an ingest again is refused: "already in the archive")."""
    archive = tmp_path / "archive"
    monkeypatch.setattr(sys, "stdout", _FullDisk())
    code = main(
        [
            *("ingest", "--archive", str(archive), "--commit", COMMITS[0]),
            *map(str, runs),
        ]
    )
    monkeypatch.undo()
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1, err
    assert "standard output could not be written" in err[0]
    assert "No space left on device" in err[0]
    assert "all 2 runs were archived all the same" in err[0], err
    assert _archived(archive) == 2


def _refuse_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parquet writes fail as pyarrow's do in a read-only archive directory (the tests may
    run as root, whom file modes do not stop)."""
    import pyarrow.parquet

    def write_table(table: object, where: object, **options: object) -> None:
        raise PermissionError(
            errno.EACCES,
            f"Failed to open local file '{where}'. Detail: [errno 13] Permission denied",
        )

    monkeypatch.setattr(pyarrow.parquet, "write_table", write_table)


def test_ingest_into_a_read_only_archive_raises_an_archive_error(
    tmp_path: Path, runs: tuple[Path, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ingest into an archive directory it may not write raised pyarrow's bare
    PermissionError naming a hidden temporary file (``Failed to open local file
    '.../.<run>.<host>-<pid>.<random>.tmp'``), not the library's ArchiveError."""
    from cuda.bench.history.archive import ArchiveError, ingest

    archive = tmp_path / "archive"
    ingest(archive, runs[0], commit=COMMITS[0])
    _refuse_writes(monkeypatch)
    with pytest.raises(ArchiveError) as refused:
        ingest(archive, runs[1], commit=COMMITS[1])
    message = str(refused.value)
    assert message.startswith(f"{archive}: cannot write to the archive (Permission denied)")
    assert ".tmp" not in message
    monkeypatch.undo()
    assert _archived(archive) == 1


def test_the_cli_names_a_read_only_archive_in_one_line(
    tmp_path: Path,
    runs: tuple[Path, ...],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    archive = tmp_path / "archive"
    _refuse_writes(monkeypatch)
    code = main(["ingest", "--archive", str(archive), "--commit", COMMITS[0], str(runs[0])])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err == [
        f"nvbench-history: error: {archive}: cannot write to the archive (Permission denied); "
        "the run was not added"
    ]


#: A directory that exists and that no one may create files in, root included.
_UNWRITABLE = Path("/proc")


@pytest.mark.skipif(not _UNWRITABLE.is_dir(), reason="needs Linux's /proc")
@pytest.mark.parametrize(
    ("command", "option", "name"),
    [
        ("report", "--html", "site"),
        ("detect", "--json", "d.json"),
        ("trend", "--plot", "t.png"),
        ("gate", "--json", "g.json"),
        ("gate", "--csv", "g.csv"),
        ("gate", "--markdown", "g.md"),
        ("gate", "--html", "g.html"),
    ],
)
def test_an_output_that_cannot_be_written_is_named_by_its_option(
    tmp_path: Path,
    runs: tuple[Path, ...],
    capsys: pytest.CaptureFixture[str],
    command: str,
    option: str,
    name: str,
) -> None:
    """``report --html /proc/site`` said "/proc/site: No such file or directory", and the
    file outputs named a hidden temporary file (``/proc/.d.json.f0821097.tmp: No such file
    or directory``), neither the option nor the path given."""
    if option == "--plot":
        pytest.importorskip("matplotlib", reason="--plot needs matplotlib")
    archive = tmp_path / "archive"
    argv = ["ingest", "--archive", str(archive), "--commit", COMMITS[0], str(runs[0])]
    assert main(argv) == 0
    target = str(_UNWRITABLE / name)
    inputs = [str(runs[1])] if command == "gate" else []
    capsys.readouterr()
    code = main([command, "--archive", str(archive), *inputs, option, target])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2, err
    assert len(err) == 1, err
    expected = f"nvbench-history: error: {option}: {target}: cannot be written ("
    assert err[0].startswith(expected), err
    assert ".tmp" not in err[0], err


def _fail_under(monkeypatch: pytest.MonkeyPatch, table: str, error: BaseException) -> None:
    """Parquet writes of ``table``'s folder write a few bytes and then fail with ``error``
    (a read-only ``runs/`` beside a writable ``states/``, as for another account; Ctrl-C in
    the middle of a write); the other tables' writes are pyarrow's own."""
    import pyarrow.parquet

    real = pyarrow.parquet.write_table

    def write_table(table_: object, where: Any, **options: object) -> None:
        opened = hasattr(where, "write")  # an open file, else a path
        name = os.fspath(where.name if opened else where)
        if f"/{table}/" not in name:
            real(table_, where, **options)
            return
        if opened:
            where.write(b"PAR1")
        else:
            Path(name).write_bytes(b"PAR1")
        raise error

    monkeypatch.setattr(pyarrow.parquet, "write_table", write_table)


def _files(archive: Path) -> set[str]:
    return {str(one.relative_to(archive)) for one in archive.rglob("*")}


@pytest.mark.parametrize(
    "error",
    [PermissionError(errno.EACCES, "Permission denied"), KeyboardInterrupt()],
    ids=["read-only runs", "ctrl-c"],
)
def test_an_ingest_that_fails_leaves_nothing_of_the_run(
    tmp_path: Path,
    runs: tuple[Path, ...],
    monkeypatch: pytest.MonkeyPatch,
    error: BaseException,
) -> None:
    """With ``runs/`` read-only and ``states/`` writable, the ingest said "cannot write to
    the archive (Permission denied); the run was not added", but left its states file,
    which every later command named ("run ... has no runs file (... an ingest that did not
    finish ...)"); an interrupted one left its hidden ``.tmp`` file in the archive."""
    from cuda.bench.history.archive import ArchiveError, ingest

    archive = tmp_path / "archive"
    ingest(archive, runs[0], commit=COMMITS[0], date="2026-01-01")
    before = _files(archive)
    _fail_under(monkeypatch, "runs", error)
    expected = KeyboardInterrupt if isinstance(error, KeyboardInterrupt) else ArchiveError
    with pytest.raises(expected):
        # Another month: the partition folders this ingest makes go with its files.
        ingest(archive, runs[1], commit=COMMITS[1], date="2026-02-01", samples=4)
    monkeypatch.undo()
    assert _files(archive) == before
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "run ... has no runs file"
        assert _archived(archive) == 1
