"""A current level of too few runs for a 95 % interval of their median has none: no
zero-width or one-sided bootstrap interval of one to five values (a new user's first
nights), ``null`` in the detect report, no band in the plots, "no interval" in the trend
table; from six runs on, the percentile bootstrap interval as before."""

from __future__ import annotations

import datetime as dt
import json
import math
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _history_calls import ingest_on_day, run_history
from cuda.bench.history.series import ArchiveSeries, current_level


def _series(runs: int) -> ArchiveSeries:
    """``runs`` runs about 10 us apart by 1 %, each with its own stored interval."""
    medians = 1e-5 * np.exp(0.01 * np.random.default_rng(runs).standard_normal(runs))
    return ArchiveSeries(
        machine="m", benchmark="b", device=0, state_name="Device=0", axes=(),
        commits=tuple(f"c{i}" for i in range(runs)),
        dates=tuple(dt.datetime(2026, 5, 1 + i, tzinfo=dt.timezone.utc) for i in range(runs)),
        medians=medians, median_lo=medians * 0.999, median_hi=medians * 1.001,
    )  # fmt: skip


@pytest.mark.parametrize("runs", [1, 2, 3, 4, 5])
def test_fewer_runs_than_a_median_interval_needs_give_none(runs: int) -> None:
    one = _series(runs)
    level = current_level(one, [])
    assert level.runs == runs
    # NVBench's nearest-rank median: one of the runs.
    assert level.median == np.sort(one.medians)[runs // 2]
    assert math.isnan(level.lo) and math.isnan(level.hi), level


def test_six_runs_get_a_bootstrap_interval_around_the_level() -> None:
    level = current_level(_series(6), [])
    assert level.lo < level.median < level.hi, level


def test_the_threshold_is_the_order_statistic_bound() -> None:
    from cuda.bench.history.series import LEVEL_INTERVAL_RUNS

    # [min, max] of n runs covers their population median with probability 1 - 2^(1-n):
    # below 95 % up to 5 runs, 96.9 % at 6.
    assert LEVEL_INTERVAL_RUNS == 6
    assert 1 - 2.0 ** (1 - (LEVEL_INTERVAL_RUNS - 1)) < 0.95 <= 1 - 2.0 ** (1 - LEVEL_INTERVAL_RUNS)


@pytest.fixture(scope="module")
def one_run(gpu_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    archive = tmp_path_factory.mktemp("level") / "archive"
    ingest_on_day(archive, gpu_dir / "gpu_ref.json", "a" * 40, 1)
    return archive


def test_trend_after_one_ingest_shows_no_interval_for_the_level(
    one_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_history(capsys, "trend", "--archive", one_run, "-b", "copy_bench")
    assert code == 0, err
    rows = [line for line in out.splitlines() if line.startswith("| copy_bench")]
    assert len(rows) == 12
    for row in rows:
        cells = [cell.strip() for cell in row.split("|")]
        last, level = cells[7], cells[8]
        assert "[" in last, row  # the run's own interval
        assert "[" not in level and level.endswith(" us (1 run)"), row
    assert "[-0.000, +0.000]" not in out and "[0.000, 0.000]" not in out
    # Below the table, with the note on the Changes column of series too short to test.
    assert any(line.startswith("Current level: no interval") for line in out.splitlines()), out


def test_detect_reports_no_level_interval_as_null(one_run: Path, tmp_path: Path) -> None:
    from cuda.bench.cli.history import main

    report = tmp_path / "detect.json"
    assert main(["detect", "--archive", str(one_run), "--json", str(report)]) == 0
    data = json.loads(report.read_text())
    assert data["schema_version"] == 4
    assert data["series"] and all(
        one["level_lo"] is None and one["level_hi"] is None and one["level_runs"] == 1
        for one in data["series"]
    )
