"""The gate's geometric-mean line describes the gate's rows: those of several runs gated
together (not the first run's alone)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from cuda.bench.cli.history import main


def _ingest(archive: Path, path: Path, commit: str, day: int) -> None:
    argv = ["ingest", "--archive", str(archive), "--commit", commit]
    assert main([*argv, "--date", f"2026-01-{day:02d}T02:00:00Z", str(path)]) == 0


def _gate(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[str, dict[str, Any]]:
    """``nvbench-history gate argv`` in process: its stdout and JSON report."""
    report = Path(str(argv[0])).parent / "gate.json"
    try:
        code = main(["gate", "--archive", *(str(arg) for arg in argv), "--json", str(report)])
    except SystemExit as stop:
        code = int(stop.code or 0)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, json.loads(report.read_text())


@pytest.fixture(scope="module")
def one_run(gpu_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An archive of gpu_ref_nosidecar alone: every gated row is too short a history."""
    archive = tmp_path_factory.mktemp("one") / "archive"
    _ingest(archive, gpu_dir / "gpu_ref_nosidecar.json", "a" * 40, 1)
    return archive


def _row_geomean(data: dict[str, Any]) -> tuple[float, int]:
    """The geometric mean of the report's matched rows' effect ratios, and their count."""
    ratios = [
        row["effect_ratio"]
        for row in data["rows"]
        if row["effect_ratio"] is not None and row["status"] not in ("????", "ADDED", "REMOVED")
    ]
    return math.exp(math.fsum(map(math.log, ratios)) / len(ratios)), len(ratios)


def test_runs_gated_together_get_the_geometric_mean_of_their_combined_rows(
    one_run: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # gpu_cmp alone: about 0.997; gpu_ref alone: 1.000 (the archive's run). Together each
    # row is the run closest to no change, so the rows' mean is 1.000, and so is the line.
    out, data = _gate(capsys, one_run, gpu_dir / "gpu_cmp.json", gpu_dir / "gpu_ref.json")
    ratio, rows = _row_geomean(data)
    geomean = data["geomean"]
    assert geomean["rows"] == rows == 20
    assert geomean["ratio"] == pytest.approx(ratio, rel=1e-12)
    assert geomean["lo"] <= ratio <= geomean["hi"]
    mean = next(line for line in out.splitlines() if "Geometric mean" in line)
    assert mean.split(": ", 1)[1].startswith("1.000 (+0.0%)"), mean
