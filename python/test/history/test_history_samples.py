"""The archive's optional samples table, and the archive tables' documentation."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from cuda.bench.cli.history import main
from cuda.bench.history.archive import (
    _runs_schema,
    _samples_schema,
    _states_schema,
    ingest,
    query,
    subsample_positions,
)
from cuda.bench.history.synthetic import HistoryNoise, generate, write_history
from cuda.bench.results import BenchmarkResult
from cuda.bench.results.synthetic import SyntheticConfig

_DOC = Path(__file__).resolve().parents[3] / "docs" / "history-schema.md"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    history = generate(HistoryNoise("iid"), series=3, runs=2, seed=1)
    config = SyntheticConfig(benchmarks=1, states=3, samples=101)
    return write_history(tmp_path_factory.mktemp("runs"), history, config, seed=2)[0]


def test_positions_are_evenly_spaced_and_capped() -> None:
    assert subsample_positions(5, 8).tolist() == [0, 1, 2, 3, 4]
    picked = subsample_positions(101, 16)
    assert picked.size == 16 and picked[0] == 0 and picked[-1] == 100
    assert (np.diff(picked) >= 6).all() and (np.diff(picked) <= 7).all()


def test_ingest_stores_a_deterministic_capped_subsample(tmp_path: Path, run: Path) -> None:
    archive = tmp_path / "archive"
    assert (
        main(["ingest", "--archive", str(archive), "--commit", "c0", "--samples", "16", str(run)])
        == 0
    )
    rows = (
        query(archive)
        .execute("SELECT state_name, count, times, clocks FROM samples ORDER BY state_name")
        .fetchall()
    )
    result = BenchmarkResult(run)
    states = {state.name(): state for state in result.states()}
    assert len(rows) == 3
    for name, count, times, clocks in rows:
        state = states[name]
        assert count == 101 and len(times) == 16 and len(clocks) == 16
        expected = np.asarray(state.samples, dtype=np.float32)[subsample_positions(101, 16)]
        assert np.array_equal(np.asarray(times, dtype=np.float32), expected)
        assert math.isclose(clocks[0], float(np.float32(state.frequencies[0])), rel_tol=1e-6)
    # A second archive of the same run stores the same bytes: the subsample is deterministic.
    other = tmp_path / "other"
    ingest(other, run, commit="c0", date="2026-01-01", samples=16)
    ingest(archive / ".." / "third", run, commit="c0", date="2026-01-01", samples=16)
    first = sorted((other / "samples").rglob("*.parquet"))
    second = sorted((tmp_path / "third" / "samples").rglob("*.parquet"))
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]


def test_without_samples_the_view_is_empty_and_typed(tmp_path: Path, run: Path) -> None:
    archive = tmp_path / "archive"
    ingest(archive, run, commit="c0")
    assert not (archive / "samples").exists()
    connection = query(archive)
    assert connection.execute("SELECT count(*) FROM samples").fetchone() == (0,)
    columns = [row[0] for row in connection.execute("DESCRIBE samples").fetchall()]
    assert {"run", "machine", "benchmark", "device", "state_name", "times", "clocks"} <= set(
        columns
    )


_ROW = re.compile(r"^\| `([a-z_]+)` \| `([^`]+)` \|")


def _documented(table: str) -> dict[str, str]:
    lines = _DOC.read_text(encoding="utf-8").splitlines()
    start = lines.index(f"### Table `{table}`")
    found: dict[str, str] = {}
    for line in lines[start + 1 :]:
        if line.startswith("#"):
            break
        match = _ROW.match(line)
        if match:
            found[match.group(1)] = match.group(2).strip()
    return found


def test_the_archive_tables_are_documented_as_written() -> None:
    import pyarrow as pa

    for table, schema in (
        ("runs", _runs_schema(pa)),
        ("states", _states_schema(pa)),
        ("samples", _samples_schema(pa)),
    ):
        documented = _documented(table)
        assert documented == {field.name: str(field.type) for field in schema}, table
