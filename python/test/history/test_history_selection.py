"""The history commands' one line for a selection that matches nothing: each warning of the
archive said once, and what a mixed archive (GPU and CPU-only series) holds."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _history_calls import ingest_on_day, run_history


def test_a_corrupt_file_is_warned_of_once_when_the_selection_is_empty(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = tmp_path / "archive"
    ingest_on_day(archive, gpu_dir / "gpu_ref.json", "a" * 40, 1)
    ingest_on_day(archive, gpu_dir / "gpu_cmp.json", "b" * 40, 2)
    broken = sorted((archive / "states").rglob("*.parquet"))[0]
    broken.write_bytes(b"not parquet")
    capsys.readouterr()
    code, out, err = run_history(capsys, "detect", "--archive", archive, "-b", "nope")
    assert code == 2 and out == "", (code, out, err)
    lines = err.splitlines()
    assert len(lines) == 2, err
    assert "warning" in lines[0] and broken.name in lines[0], lines[0]
    assert "-b nope: no such benchmark in the archive" in lines[1], lines[1]


def test_a_device_no_series_is_on_names_the_cpu_only_series_too(
    gpu_dir: Path, cpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = tmp_path / "archive"
    ingest_on_day(archive, gpu_dir / "gpu_ref.json", "a" * 40, 1)
    ingest_on_day(archive, cpu_dir / "cpu_run1.json", "b" * 40, 2)
    capsys.readouterr()
    code, out, err = run_history(capsys, "detect", "--archive", archive, "--device", "7")
    assert code == 2 and out == "", (code, out, err)
    assert err.splitlines() == [
        f"nvbench-history: error: {archive}: --device 7: no series on device 7 "
        "(devices in the archive: 0, 1 and CPU-only series)"
    ], err
