"""The Parquet archive: ingest, idempotence, atomic commits, second readers, bad input."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
duckdb = pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from cuda.bench.history._archive_files import ArchiveFileWarning  # noqa: E402
from cuda.bench.history.archive import ArchiveError, ingest, open_archive, query  # noqa: E402
from cuda.bench.history.synthetic import HistoryNoise, commit_ids, generate, write_history  # noqa: E402
from cuda.bench.results import ResultFormatError  # noqa: E402
from cuda.bench.results.synthetic import SyntheticConfig  # noqa: E402

RUNS = 6


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[tuple[Path, ...], np.ndarray]:
    history = generate(HistoryNoise("iid"), series=4, runs=RUNS, steps=(0.2,), step_at=3, seed=1)
    config = SyntheticConfig(benchmarks=1, states=4, samples=101)
    paths = write_history(tmp_path_factory.mktemp("runs"), history, config, seed=2)
    return paths, history.medians


def _ingest_all(archive: Path, paths: tuple[Path, ...]) -> None:
    commits = commit_ids(len(paths))
    for order, (path, commit) in enumerate(zip(paths, commits, strict=True)):
        day = f"2026-0{1 + order // 4}-{10 + order:02d}T03:00:00+00:00"
        done = ingest(archive, path, commit=commit, date=day, order=order, tags={"ci": "nightly"})
        assert done.added and done.states == 4


def _files(root: Path) -> list[Path]:
    return sorted(path for path in root.rglob("*") if path.is_file())


def test_ingest_and_query_with_duckdb(
    tmp_path: Path, runs: tuple[tuple[Path, ...], np.ndarray]
) -> None:
    paths, medians = runs
    archive = tmp_path / "archive"
    _ingest_all(archive, paths)
    connection = query(archive)
    rows = connection.execute(
        'SELECT r."order", r.commit, r.month, r.tags, s.state_name, s.median, s.median_lo, '
        "s.median_hi, s.samples, s.cycles_median FROM states s JOIN runs r USING (run) "
        'ORDER BY s.state_name, r."order"'
    ).fetchall()
    assert len(rows) == 4 * RUNS
    assert {row[2] for row in rows} == {"2026-01", "2026-02"}  # hive partition column
    # DuckDB 1.0 gives a map to Python as its key and value lists.
    tags = rows[0][3]
    if set(tags) == {"key", "value"}:
        tags = dict(zip(tags["key"], tags["value"], strict=True))
    assert tags == {"ci": "nightly"}
    stored = np.array([row[5] for row in rows]).reshape(4, RUNS)
    # Each state's stored medians follow its series (relative to its first run).
    expected = medians / medians[:, :1]
    order = np.argsort([f"Device=0 Elements={1024 * (i + 1)}" for i in range(4)])
    assert stored / stored[:, :1] == pytest.approx(expected[order], rel=0.01)
    for row in rows:
        assert row[6] <= row[5] <= row[7] and row[8] == 101 and row[9] > 0
    axes = connection.execute("SELECT axes FROM states LIMIT 1").fetchone()[0]
    assert axes[0]["name"] == "Elements" and axes[0]["int_value"] >= 1024


def test_a_second_engine_reads_the_files(
    tmp_path: Path, runs: tuple[tuple[Path, ...], np.ndarray]
) -> None:
    import pyarrow.dataset as ds

    archive = tmp_path / "archive"
    _ingest_all(archive, runs[0])
    states = ds.dataset(archive / "states", format="parquet", partitioning="hive").to_table()
    assert states.num_rows == 4 * RUNS
    assert set(states.column("machine").to_pylist()) == {
        path.name[len("machine=") :] for path in (archive / "states").iterdir()
    }
    table = ds.dataset(archive / "runs", format="parquet", partitioning="hive").to_table()
    assert sorted(table.column("order").to_pylist()) == list(range(RUNS))


def test_ingesting_a_run_twice_is_a_no_op(
    tmp_path: Path, runs: tuple[tuple[Path, ...], np.ndarray]
) -> None:
    archive = tmp_path / "archive"
    first = ingest(archive, runs[0][0], commit="a" * 40, date="2026-01-01")
    before = [(path, path.read_bytes()) for path in _files(archive)]
    again = ingest(archive, runs[0][0], commit="b" * 40, date="2027-05-05")
    assert not again.added and again.run == first.run and again.month == "2026-01"
    assert [(path, path.read_bytes()) for path in _files(archive)] == before


def test_concurrent_ingests_of_one_run_commit_it_once(
    tmp_path: Path, runs: tuple[tuple[Path, ...], np.ndarray]
) -> None:
    archive = tmp_path / "archive"
    open_archive(archive, create=True)
    results = []

    def work() -> None:
        results.append(ingest(archive, runs[0][1], commit="c" * 40, date="2026-03-03"))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(result.added for result in results) >= 1
    assert len(list(archive.glob("runs/*/*/*.parquet"))) == 1
    assert not [path for path in _files(archive) if path.name.startswith(".")]
    assert query(archive).execute("SELECT count(*) FROM states").fetchone()[0] == 4


def test_an_uncommitted_run_is_invisible(
    tmp_path: Path, runs: tuple[tuple[Path, ...], np.ndarray]
) -> None:
    # A crash between the states file and the runs file: the states have no run row.
    archive = tmp_path / "archive"
    ingest(archive, runs[0][2], commit="c" * 40, date="2026-01-01")
    (run_file,) = archive.glob("runs/*/*/*.parquet")
    run_file.unlink()
    stray = run_file.parent / f".{run_file.name}.0123.tmp"
    stray.write_bytes(b"partial")  # a temporary file left behind is ignored too
    # Invisible, but not in silence: one warning names the states file and what to do.
    with pytest.warns(ArchiveFileWarning, match="has no runs file") as said:
        assert query(archive).execute("SELECT count(*) FROM states").fetchone()[0] == 0
    assert len(said) == 1 and "ingest the run again" in str(said[0].message)
    redo = ingest(archive, runs[0][2], commit="c" * 40, date="2026-01-01")
    assert redo.added
    assert query(archive).execute("SELECT count(*) FROM states").fetchone()[0] == 4


def test_not_an_archive_and_bad_runs_write_nothing(
    tmp_path: Path, runs: tuple[tuple[Path, ...], np.ndarray]
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(ArchiveError, match="not an empty directory"):
        ingest(other, runs[0][0], commit="c0")
    assert [path.name for path in other.iterdir()] == ["notes.txt"]
    with pytest.raises(ArchiveError, match=r"no nvbench-archive\.json"):
        query(other)
    broken = tmp_path / "broken.json"
    broken.write_text('{"meta": {')
    fresh = tmp_path / "fresh"
    with pytest.raises(ResultFormatError):
        ingest(fresh, broken, commit="c0")
    assert not fresh.exists()
    with pytest.raises(ArchiveError, match="ISO 8601"):
        ingest(fresh, runs[0][0], commit="c0", date="last tuesday")
    assert not fresh.exists()
    marked = tmp_path / "marked"
    marked.mkdir()
    (marked / "nvbench-archive.json").write_text('{"format": "something-else"}')
    with pytest.raises(ArchiveError, match="not an nvbench-tools"):
        ingest(marked, runs[0][0], commit="c0")


def test_an_empty_archive_queries_empty(tmp_path: Path) -> None:
    archive = open_archive(tmp_path / "empty", create=True)
    assert query(archive).execute("SELECT count(*) FROM states").fetchone()[0] == 0


def test_series_come_in_the_natural_order_of_their_state_names(tmp_path: Path) -> None:
    """Twelve sizes 1024 .. 12288: trend, detect and the site listed 10240, 11264 and 12288
    before 2048 (a plain string sort); now in the order nvbench_compare shows them."""
    from cuda.bench.history.archive import ingest
    from cuda.bench.history.series import load_series
    from cuda.bench.history.synthetic import HistoryNoise, generate, write_history
    from cuda.bench.results.synthetic import SyntheticConfig

    history = generate(HistoryNoise("iid"), series=12, runs=2, seed=4)
    paths = write_history(tmp_path / "runs", history, SyntheticConfig(benchmarks=1, states=12))
    archive = tmp_path / "archive"
    for order, path in enumerate(paths):
        ingest(archive, path, commit=f"c{order}", date=f"2026-03-0{order + 1}T03:00:00Z",
               order=order)  # fmt: skip
    sizes = [int(series.state_name.split("=")[-1]) for series in load_series(archive)]
    assert sizes == [1024 * k for k in range(1, 13)]


def test_the_natural_order_survives_any_state_name() -> None:
    """Names are untrusted: a non-ASCII digit ("2²") and a 5,000-digit run made trend and
    detect fail with a traceback (int() of them); equal numbers spelt differently tie-break
    on the name."""
    from cuda.bench.history.series import _natural

    names = ["N=2²", "N=" + "9" * 5000, "N=07", "N=7", "N=10", "N=", "N=2", "x"]
    ordered = sorted(names, key=_natural)
    assert ordered.index("N=2") < ordered.index("N=7") < ordered.index("N=10")
    assert ordered.index("N=10") < ordered.index("N=" + "9" * 5000)
    assert sorted(reversed(names), key=_natural) == ordered
