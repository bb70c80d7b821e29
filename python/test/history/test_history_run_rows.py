"""Run rows of the archive edited by hand (or written by another tool) that break what
ingest requires of a run's labels: a row without a commit, or with a negative ``order``, is
left out with one warning line naming its file, by every command that reads the archive;
an ``order`` two commits of one branch share, and a commit at two orders of one branch, are
named in one warning line each and their runs kept. Before, all were read in silence: a
commit-less run was labelled "None" in every series (``detect --since None`` found it), a
run of ``order`` -1 was every series' first run, and a commit at two places was at both."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _history_calls import THREE_RUNS as RUNS
from _history_calls import readers_warnings, run_history, runs_per_series, three_runs


@pytest.fixture(scope="module")
def whole(gpu_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The three runs ordered 1, 2, 3."""
    return three_runs(gpu_dir, tmp_path_factory.mktemp("runrows"))


def _edited(whole: Path, tmp_path: Path, commit: str, column: str, value: object) -> Path:
    """A copy of ``whole`` whose run of ``commit`` has ``value`` in ``column``; the path of
    its runs file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    archive = tmp_path / "archive"
    shutil.copytree(whole, archive)
    for stored in sorted(archive.glob("runs/*/*/*.parquet")):
        table = pq.read_table(stored)
        if table.column("commit")[0].as_py() == commit:
            field = table.schema.get_field_index(column)
            typed = pa.array([value], table.schema.field(column).type)
            pq.write_table(table.set_column(field, column, typed), stored)
            return stored
    raise AssertionError(f"no run of {commit}")


def _warned(
    archive: Path, gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> list[list[str]]:
    return readers_warnings(archive, gpu_dir / "gpu_cmp_plain.json", tmp_path / "out", capsys)


def _runs_per_series(tmp_path: Path) -> set[int]:
    return runs_per_series(tmp_path / "out")


@pytest.mark.parametrize("commit", [None, "", "  "], ids=["null", "empty", "blank"])
def test_a_run_row_without_a_commit_is_left_out_naming_its_file(
    whole: Path,
    gpu_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    commit: str | None,
) -> None:
    stored = _edited(whole, tmp_path, RUNS[0][1], "commit", commit)
    for warned in _warned(stored.parents[3], gpu_dir, tmp_path, capsys):
        assert len(warned) == 1, warned
        assert "left out 1 run(s) without a commit" in warned[0], warned
        assert stored.as_posix() in warned[0], warned
    assert _runs_per_series(tmp_path) == {2}
    # "None" was the commit of a point of every series.
    code, _, err = run_history(capsys, "detect", "--archive", stored.parents[3], "--since", "None")
    assert code == 2 and "--since None: no run of the selected series has it" in err, err


def test_a_run_row_of_a_negative_order_is_left_out_naming_its_file(
    whole: Path, gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # No first-parent position is negative (ingest refuses one); the run sorted first.
    stored = _edited(whole, tmp_path, RUNS[2][1], "order", -1)
    for warned in _warned(stored.parents[3], gpu_dir, tmp_path, capsys):
        assert len(warned) == 1, warned
        assert "left out 1 run(s) whose --order is negative" in warned[0], warned
        assert f"{stored.as_posix()} (--order -1)" in warned[0], warned
    assert _runs_per_series(tmp_path) == {2}


def test_an_order_two_commits_share_is_named_and_its_runs_kept(
    whole: Path, gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Which of the two holds the place is unknown: both stay, in date order, as before.
    stored = _edited(whole, tmp_path, RUNS[2][1], "order", 2)
    other = [path for path in stored.parent.glob("*.parquet") if path != stored]
    for warned in _warned(stored.parents[3], gpu_dir, tmp_path, capsys):
        assert len(warned) == 1, warned
        assert "--order 2 is held by 2 commits" in warned[0], warned
        assert stored.as_posix() in warned[0], warned
        assert sum(path.as_posix() in warned[0] for path in other) == 1, warned
    assert _runs_per_series(tmp_path) == {3}


def test_a_commit_at_two_places_of_its_branch_is_named_and_its_runs_kept(
    whole: Path, gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The third run's commit made the first's (ingest refuses a commit's second place):
    # read in silence before, the commit at --order 1 and 3 of every series.
    stored = _edited(whole, tmp_path, RUNS[2][1], "commit", RUNS[0][1])
    first = [path for path in stored.parent.glob("*.parquet") if path != stored]
    for warned in _warned(stored.parents[3], gpu_dir, tmp_path, capsys):
        assert len(warned) == 1, warned
        assert f"commit {RUNS[0][1][:12]} is at --order 1 and 3" in warned[0], warned
        assert f"--order 3 ({stored.as_posix()})" in warned[0], warned
        assert sum(f"--order 1 ({path.as_posix()})" in warned[0] for path in first) == 1, warned
        assert "kept at the places they were given" in warned[0], warned
    assert _runs_per_series(tmp_path) == {3}


def test_a_library_ingest_refuses_a_negative_order(gpu_dir: Path, tmp_path: Path) -> None:
    # As the command line does (its --order takes no negative number): the readers would
    # leave the run out.
    from cuda.bench.history.archive import ArchiveError, ingest

    with pytest.raises(ArchiveError, match=r"^order -1 is no first-parent position"):
        ingest(tmp_path / "archive", gpu_dir / "gpu_ref.json", commit="c1", order=-1)
    assert not (tmp_path / "archive").exists()


@pytest.mark.parametrize("second", ["a", "b"])
def test_a_commit_has_one_place_per_branch(second: str) -> None:
    # Each branch has its own first-parent order: one commit at a place on each is no fault.
    import warnings

    import duckdb
    from cuda.bench.history._run_rows import ArchiveRowWarning, create_runs_view

    connection = duckdb.connect(":memory:")
    connection.execute(
        "CREATE VIEW all_runs AS SELECT * FROM (VALUES ('r1', 'c1', 1, 'a'), "
        f"('r2', 'c1', 5, '{second}'), ('r3', 'c2', 2, 'a')) AS t(run, commit, \"order\", branch)"
    )
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        create_runs_view(connection, "archive", {"r1": "one.parquet"})
    lines = [str(one.message) for one in said if one.category is ArchiveRowWarning]
    if second == "b":
        assert not lines, lines
    else:
        assert lines == [
            "archive: commit c1 on branch 'a' is at --order 1 and 5, which ingest refuses (a "
            "commit has one place): --order 1 (one.parquet); --order 5 (run r2); its runs are "
            "kept at the places they were given, so the series show the commit at each"
        ]
    assert connection.execute("SELECT count(*) FROM runs").fetchone() == (3,)
