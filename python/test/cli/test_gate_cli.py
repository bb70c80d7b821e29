"""A gate that never hides a regression: noisy calibrated states, corrupt side files, and
a suite summary that claims only what it knows (real NVBench files, copied before any
change; the shared files are never modified)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from _cli_helpers import Result, assert_usage_error, run_main
from cuda.bench.cli import compare as cli

SLOW_KEY = "T=F32 Elements=2^20 Layout=contiguous"


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Result:
    return run_main(cli.main, capsys, *args)


def _copy_gpu_pair(gpu_dir: Path, destination: Path) -> Path:
    for name in ("gpu_ref.json", "gpu_cmp.json"):
        shutil.copy(gpu_dir / name, destination / name)
        for suffix in ("-bin", "-freqs-bin"):
            shutil.copytree(gpu_dir / f"{name}{suffix}", destination / f"{name}{suffix}")
    for path in destination.rglob("*"):
        path.chmod(0o644 if path.is_file() else 0o755)
    return destination


def _slow_side_file(pair: Path) -> Path:
    """The reference sample file of the row that is 5 % slower in the compare run."""
    from cuda.bench.results import BenchmarkResult

    for bench in BenchmarkResult(pair / "gpu_ref.json").benchmarks:
        for state in bench:
            if state.state_name == f"Device=0 {SLOW_KEY}":
                assert state.sample_file is not None
                return Path(state.sample_file)
    raise AssertionError("the slow state is missing")


# ---------------------------------------------------------------------------------------
# A corrupt side file does not hide a regression


@pytest.mark.parametrize("problem", ["truncated", "nan"])
def test_a_corrupt_side_file_does_not_hide_the_regression(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], problem: str
) -> None:
    pair = _copy_gpu_pair(gpu_dir, tmp_path)
    target = _slow_side_file(pair)
    values = np.fromfile(target, dtype="<f4")
    if problem == "truncated":
        values[: values.size // 2].tofile(target)
    else:
        values[3] = np.nan
        values.tofile(target)
    ref, cmp = pair / "gpu_ref.json", pair / "gpu_cmp.json"

    result = run(capsys, ref, cmp, "--fail-on", "slow", "--json", tmp_path / "r.json")
    assert result.code == 1, result.err
    warning = [line for line in result.err.splitlines() if "warning" in line]
    assert len(warning) == 1 and str(target) in warning[0]
    assert ("bytes, expected" if problem == "truncated" else "non-finite") in warning[0]
    rows = json.loads((tmp_path / "r.json").read_text())["rows"]
    row = next(row for row in rows if row["key"] == SLOW_KEY and row["ref_device"] == 0)
    assert row["status"] == "SLOW"
    assert row["effect_ratio"] == pytest.approx(1.049, abs=0.003)
    assert row["effect_basis"] == "asymptotic-median+bootstrap"  # the reference: summaries
    # The evidence source tells a rejected side file from a missing one.
    assert row["evidence_source"].startswith("summary (reference side file rejected: ")
    assert ("bytes, expected" if problem == "truncated" else "non-finite") in row["evidence_source"]
    assert row["ref_sample_file"] == str(target)
    others = [r["evidence_source"] for r in rows if r is not row and r["status"] != "SKIP"]
    assert others and all("rejected" not in source for source in others)
    statuses = [row["status"] for row in rows]
    assert statuses.count("SLOW") == 1 and statuses.count("FAST") == 1

    # robust keeps NVIDIA's answer: unusable per-sample data are AMBG.
    robust = run(capsys, ref, cmp, "--method", "robust", "--json", "-")
    row = next(r for r in robust.json()["rows"] if r["key"] == SLOW_KEY and r["ref_device"] == 0)
    assert row["status"] == "AMBG"
    assert row["reason_code"] in ("bulk_time_data_unusable", "bulk_cycle_data_unusable")


# ---------------------------------------------------------------------------------------
# SAME means "no change of practical size", never "too noisy to tell"


@pytest.fixture
def cpu_calibration(
    cpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[Result, Path]:
    output = tmp_path / "cal.json"
    runs = [cpu_dir / "cpu_run1.json", cpu_dir / "cpu_run2.json"]
    return run(capsys, "calibrate", *runs, "-o", output), output


def test_calibrate_lists_the_states_it_cannot_judge(cpu_calibration: tuple[Result, Path]) -> None:
    result, _ = cpu_calibration
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    start = next(i for i, line in enumerate(lines) if "Cannot be judged on this machine" in line)
    assert "4 state(s) need a tolerance above the cap ±5.00% ([ci] max_tolerance)" in lines[start]
    listed = lines[start + 1 : start + 5]
    assert all(line.startswith("  ") and "-> tolerance ±100.00%" in line for line in listed)
    assert any("tiny (no axes)" in line for line in listed)
    # What a comparison then does with them, as it does it (methods/ci.py): a change only
    # beyond the tolerance each needs, never at the ceiling, not "beyond the cap".
    assert "unless they change by more than the tolerance listed for each" in lines[start]
    assert "listed at ±100.00%, the largest, is never FAST/SLOW" in lines[start]


def test_a_noisy_calibrated_state_is_never_same(
    cpu_dir: Path, cpu_calibration: tuple[Result, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The real A/A pair of a machine switching speed modes, calibrated from its two runs:
    every state needs a ±100 % band, so none may be SAME (-18.4 % was, before the cap)."""
    _, calibration = cpu_calibration
    runs = [cpu_dir / "cpu_run1.json", cpu_dir / "cpu_run2.json"]
    result = run(capsys, *runs, "--calibration", calibration, "--json", "-")
    assert result.code == 0, result.err
    rows = [row for row in result.json()["rows"] if row["status"] not in ("????", "SKIP")]
    assert len(rows) == 4
    for row in rows:
        assert (row["status"], row["reason_code"]) == ("AMBG", "too_noisy_to_judge")
        assert row["effect_tolerance"] == 0.05 and row["calibrated_tolerance"] == 1.0
        assert "needs a tolerance of ±100.00%" in row["reason_message"]
    # A looser cap is a setting: then the ±100 % bands apply again.
    loose = run(
        capsys, *runs, "--calibration", calibration, "--max-tolerance", "100", "--json", "-"
    )
    assert "too_noisy_to_judge" not in {row["reason_code"] for row in loose.json()["rows"]}

    explain = run(capsys, *runs, "--calibration", calibration, "--display", "explain")
    assert "±5.00% (needs ±100.00%)" in explain.out
    plain = run(capsys, *runs, "--display", "explain")
    assert "±1.00%" in plain.out


def test_tolerance_options_set_the_ci_keys(
    cpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dump = run(capsys, "--tolerance", "2.5", "--max-tolerance", "8", "--dump-config")
    assert "tolerance = 0.025\nmax_tolerance = 0.08\n" in dump.out
    default = run(capsys, "--dump-config")
    assert "tolerance = 0.01\nmax_tolerance = 0.05\n" in default.out
    runs = [cpu_dir / "cpu_run1.json", cpu_dir / "cpu_run2.json"]
    wide = run(capsys, *runs, "--tolerance", "60", "--json", "-").json()
    assert wide["thresholds"]["ci.tolerance"] == 0.6
    assert {
        row["effect_tolerance"] for row in wide["rows"] if row["status"] not in ("????", "SKIP")
    } == {0.6}
    assert_usage_error(run(capsys, *runs, "--tolerance", "150"), "--tolerance", "at most 100")
    assert_usage_error(run(capsys, *runs, "--max-tolerance", "-1"), "--max-tolerance")


# ---------------------------------------------------------------------------------------
# The suite summary claims only what it knows


def test_the_summary_claims_no_suite_wide_change_when_runs_drift(
    cpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Same build, every row AMBG because its runs drift (within a run, or more between runs
    than one run per side can rule out): a geometric mean of -32 % "at 95 % confidence"
    would be a false claim."""
    runs = [cpu_dir / "cpu_run1.json", cpu_dir / "cpu_run2.json"]
    text = run(capsys, *runs).out
    line = next(line for line in text.splitlines() if "Geometric mean" in line)
    assert "confidence" not in line
    assert "not a suite-wide change: 4 of 4 row(s) are AMBG because their runs drift" in line
    assert "covers sampling noise within the runs only, not drift between runs" in line
    markdown = run(capsys, *runs, "--markdown", "-").out
    line = next(line for line in markdown.splitlines() if "Geometric mean" in line)
    assert "confidence" not in line and "not a suite-wide change" in line
    geomean = run(capsys, *runs, "--json", "-").json()["geomean"]
    assert geomean["drift_rows"] == 4 and geomean["interval_covers"] == "sampling"


def test_a_clean_pair_keeps_its_confidence_claim(
    gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = run(capsys, gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json").out
    line = next(line for line in text.splitlines() if "Geometric mean" in line)
    assert "at 95% confidence over 20 rows" in line
