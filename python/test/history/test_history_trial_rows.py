"""A states file that holds one state of its run twice (no ingest writes one: a foreign
writer's or a hand edit's): the readers keep the first row, and say so in one warning line,
rather than count the run twice in the series (trial of 2026-11-29)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _history_calls import ingest_days, run_history


@pytest.fixture(scope="module")
def archive(gpu_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = [(gpu_dir / "gpu_ref.json", "a" * 40), (gpu_dir / "gpu_cmp.json", "b" * 40)]
    return ingest_days(tmp_path_factory.mktemp("rows") / "archive", runs)


def test_a_state_row_repeated_in_its_run_counts_once(
    archive: Path, gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    doubled = tmp_path / "archive"
    shutil.copytree(archive, doubled)
    stored = sorted(doubled.glob("states/*/*/*.parquet"))[0]
    table = pq.read_table(stored)
    pq.write_table(pa.concat_tables([table, table]), stored)
    report = tmp_path / "d.json"
    for argv in (
        ["trend"],
        ["detect", "--json", report],
        ["gate", gpu_dir / "gpu_ref_nosidecar.json"],
    ):
        code, _, err = run_history(capsys, argv[0], "--archive", doubled, *argv[1:])
        assert code == 0, (argv, err)
        warned = [line for line in err.splitlines() if "warning:" in line]
        assert len(warned) == 1, (argv, err)
        assert "left out 20 state row(s) that repeat a state of their run" in warned[0], warned
    series = json.loads(report.read_text())["series"]
    assert [one["runs"] for one in series] == [2] * 20
