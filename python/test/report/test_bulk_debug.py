"""--bulk-debug-python: the upstream-compatible snippet of displayed rows and side files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cuda.bench.cli.compare import main
from cuda.bench.compare.api import compare
from cuda.bench.report.bulk_debug import BEGIN_MARKER, END_MARKER, render_bulk_debug


def _run_snippet(text: str) -> dict[str, Any]:
    start, end = text.index(BEGIN_MARKER), text.index(END_MARKER)
    scope: dict[str, Any] = {}
    exec(compile(text[start:end], "<bulk-debug>", "exec"), scope)
    return scope


def test_snippet_lists_rows_and_loads_their_side_files(gpu_dir: Path) -> None:
    comparison = compare(gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json", method="robust")
    scope = _run_snippet(render_bulk_debug(comparison))
    rows = scope["bulk_rows"]
    assert len(rows) == len(comparison.rows) == 24
    assert scope["method"] == "robust" and scope["thresholds"]["clear_gap.relative"] == 0.005
    slow = next(row for row in rows if row["status"] == "SLOW")
    assert slow["state_key"] == "T=F32 Elements=2^20 Layout=contiguous"
    assert slow["reason"] == "clear_gap_confirmed_by_bulk_cycles"
    assert Path(slow["reference_sample_filename"]).is_absolute()
    data = scope["load_bulk_data"](slow)
    assert data["reference_samples"].size == slow["reference_sample_count"] == 500
    assert data["compare_frequencies"].size == 500
    ratio = np.median(data["compare_samples"]) / np.median(data["reference_samples"])
    assert ratio == pytest.approx(1.05, abs=0.01)
    skipped = next(row for row in rows if row["status"] == "SKIP")
    assert skipped["reference_sample_filename"] is None
    assert scope["load_bulk_data"](skipped)["compare_samples"] is None
    assert [row["table_row_index"] for row in rows[:3]] == [0, 1, 2]


def test_threshold_keeps_only_displayed_rows(gpu_dir: Path) -> None:
    comparison = compare(gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json", method="robust")
    rows = _run_snippet(render_bulk_debug(comparison, min_change=0.03))["bulk_rows"]
    assert {row["status"] for row in rows} == {"SLOW", "FAST", "SKIP"}


def test_cli_appends_to_stdout_or_writes_a_file(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, cmp = str(gpu_dir / "gpu_ref.json"), str(gpu_dir / "gpu_cmp.json")
    assert main([ref, cmp, "--no-color", "--bulk-debug-python", "STDOUT"]) == 0
    out = capsys.readouterr().out
    assert out.index("# Summary") < out.index(BEGIN_MARKER) < out.index(END_MARKER)
    target = tmp_path / "bulk.py"
    assert main([ref, cmp, "--bulk-debug-python", str(target)]) == 0
    assert BEGIN_MARKER not in capsys.readouterr().out
    done = subprocess.run(
        [sys.executable, str(target)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def test_two_reports_on_stdout_are_a_usage_error(
    gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, cmp = str(gpu_dir / "gpu_ref.json"), str(gpu_dir / "gpu_cmp.json")
    assert main([ref, cmp, "--json", "-", "--bulk-debug-python", "-"]) == 2
    assert "only one report can go to standard output" in capsys.readouterr().err
