"""What ``nvbench-history`` tells a new user on the real NVBench example files: the gate's
reason list and geometric-mean line follow its rows' reasons."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from cuda.bench.cli.history import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    """``nvbench-history argv`` in process: exit status, stdout, stderr."""
    try:
        code = main([str(arg) for arg in argv])
    except SystemExit as stop:
        code = int(stop.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _ingest(archive: Path, path: Path, commit: str, day: int) -> None:
    argv = ["ingest", "--archive", str(archive), "--commit", commit]
    assert main([*argv, "--date", f"2026-01-{day:02d}T02:00:00Z", str(path)]) == 0


@pytest.fixture(scope="module")
def two_runs(gpu_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An archive whose copy_bench level holds two runs (gpu_ref, then gpu_cmp): too few for
    the gate's verdicts, and their 5 % and 10 % steps are run-to-run drift to its
    calibration."""
    archive = tmp_path_factory.mktemp("two") / "archive"
    _ingest(archive, gpu_dir / "gpu_ref.json", "a" * 40, 1)
    _ingest(archive, gpu_dir / "gpu_cmp.json", "b" * 40, 2)
    return archive


def test_gate_summary_names_the_reasons_its_rows_show(
    two_runs: Path, gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "gate.json"
    argv = ["gate", "--archive", two_runs, gpu_dir / "gpu_ref_nosidecar.json", "-b", "copy_bench"]
    code, out, err = _run(capsys, *argv, "--json", report)
    assert code == 0, err
    lines = out.splitlines()
    reason = next(line for line in lines if "history_too_short: 12" in line)
    # The reason in words true of all 12 rows, not one row's figures.
    assert "%" not in reason and "the comparison said" not in reason, reason
    mean = next(line for line in lines if "Geometric mean" in line)
    assert "history_too_short: 12" in mean, mean
    assert "because their runs drift" not in mean, mean
    data = json.loads(report.read_text())
    assert data["geomean"]["drift_reasons"] == {"history_too_short": 12}
    assert data["geomean"]["drift_rows"] == 12
