"""``nvbench_compare``: --method ci, several runs per side, calibrate, --calibration."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _cli_helpers import Result, assert_usage_error, run_main
from cuda.bench.cli import compare as cli
from cuda.bench.compare.config import loads_config
from cuda.bench.compare.thresholds import PRESETS
from cuda.bench.results.synthetic import SyntheticConfig, SyntheticPair, write_pair

SLOW_STATE = ("bench_00", "Device=0 Elements=2048")


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Result:
    return run_main(cli.main, capsys, *args)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> SyntheticPair:
    root = tmp_path_factory.mktemp("cli_runs")
    return write_pair(
        root,
        SyntheticConfig(benchmarks=1, states=3, samples=400),
        seed=21,
        ref_runs=3,
        cmp_runs=3,
        shifts={SLOW_STATE: 1.08},
    )


def _copy_runs(paths: tuple[Path, ...], directory: Path) -> Path:
    directory.mkdir()
    for path in paths:
        shutil.copy(path, directory / path.name)
        for suffix in ("-bin", "-freqs-bin"):
            side = path.parent / f"{path.name}{suffix}"
            if side.exists():
                shutil.copytree(side, directory / side.name)
    return directory


def test_method_ci_single_runs_and_fail_on(
    capsys: pytest.CaptureFixture[str], runs: SyntheticPair
) -> None:
    result = run(capsys, runs.ref[0], runs.cmp[0], "--method", "ci", "--json", "-")
    assert result.code == 0, result.err
    data = result.json()
    assert data["method"] == "ci"
    assert data["counts"]["SLOW"] == 1 and data["counts"]["SAME"] == 2
    assert data["geomean"]["basis"] == "bootstrap"
    assert data["thresholds"]["ci.tolerance"] == 0.01
    slow = next(row for row in data["rows"] if row["status"] == "SLOW")
    assert slow["effect_ci_lo"] < 1.08 < slow["effect_ci_hi"]
    failed = run(capsys, runs.ref[0], runs.cmp[0], "--method", "ci", "--fail-on", "slow")
    assert failed.code == 1
    assert "| SLOW" in failed.out or "SLOW" in failed.out


def test_repeated_ref_and_cmp_options(
    capsys: pytest.CaptureFixture[str], runs: SyntheticPair
) -> None:
    args: list[str | Path] = ["--method", "ci", "--json", "-"]
    for path in runs.ref:
        args += ["--ref", path]
    for path in runs.cmp:
        args += ["--cmp", path]
    result = run(capsys, *args)
    assert result.code == 0, result.err
    data = result.json()
    assert data["inputs"] == [
        {"ref": [str(p) for p in runs.ref], "cmp": [str(p) for p in runs.cmp]}
    ]
    assert data["counts"]["SLOW"] == 1
    bases = {row["effect_basis"] for row in data["rows"]}
    assert bases == {"hierarchical-bootstrap"}


def test_ref_directory_of_runs(
    capsys: pytest.CaptureFixture[str], runs: SyntheticPair, tmp_path: Path
) -> None:
    ref_dir = _copy_runs(runs.ref, tmp_path / "ref")
    cmp_dir = _copy_runs(runs.cmp, tmp_path / "cmp")
    result = run(
        capsys, "--ref", ref_dir, "--cmp", cmp_dir, "--method", "ci", "--display", "explain"
    )
    assert result.code == 0, result.err
    assert "ci-gap-cyc" in result.out or "ci-gap" in result.out
    assert "runs 3 vs. 3" not in result.out  # messages live in reports, not the table


def test_multirun_usage_errors(
    capsys: pytest.CaptureFixture[str], runs: SyntheticPair, tmp_path: Path
) -> None:
    assert_usage_error(
        run(capsys, runs.ref[0], runs.cmp[0], "--ref", runs.ref[1], "--cmp", runs.cmp[1]),
        "not both",
    )
    assert_usage_error(run(capsys, "--ref", runs.ref[0], "--method", "ci"), "--cmp is missing")
    many = ["--ref", runs.ref[0], "--ref", runs.ref[1], "--cmp", runs.cmp[0]]
    assert_usage_error(
        run(capsys, *many, "--method", "robust"), "method 'robust' compares one run per side"
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    assert_usage_error(
        run(capsys, "--ref", empty, "--cmp", runs.cmp[0], "--method", "ci"), "no .json runs"
    )


def test_calibrate_subcommand_and_calibration_option(
    capsys: pytest.CaptureFixture[str], runs: SyntheticPair, tmp_path: Path
) -> None:
    output = tmp_path / "cal.json"
    result = run(capsys, "calibrate", *runs.ref, "-o", output, "--methods", "robust,ci")
    assert result.code == 0, result.err
    assert "A/A calibration from 3 runs (3 pair(s))" in result.out
    assert "ci/default: 0.00% false changes (0 of 9 row comparisons" in result.out
    assert f"Wrote {output}" in result.out
    assert "five or more runs" in result.err  # 3 runs: a warning about wide tolerances
    data = json.loads(output.read_text())
    assert data["schema"] == "nvbench-tools.calibration" and len(data["states"]) == 3
    compared = run(
        capsys, runs.ref[0], runs.cmp[0], "--method", "ci", "--calibration", output, "--json", "-"
    )
    assert compared.code == 0, compared.err
    report = compared.json()
    assert all(row["effect_tolerance"] >= 0.01 for row in report["rows"])
    missing = run(capsys, runs.ref[0], runs.cmp[0], "--calibration", tmp_path / "absent.json")
    assert_usage_error(missing, "failed to read calibration")


def test_calibrate_usage_errors(
    capsys: pytest.CaptureFixture[str], runs: SyntheticPair, tmp_path: Path
) -> None:
    assert_usage_error(run(capsys, "calibrate", runs.ref[0]), "at least two runs")
    assert_usage_error(
        run(capsys, "calibrate", *runs.ref, "--methods", "nope"), "unknown comparison method"
    )
    assert_usage_error(run(capsys, "calibrate", *runs.ref, "--target-rate", "0"), "between 0")
    help_text = run(capsys, "calibrate", "--help")
    assert help_text.code == 0 and "A/A calibration" in help_text.out


def test_dump_config_lists_the_ci_table(capsys: pytest.CaptureFixture[str]) -> None:
    result = run(capsys, "--dump-config", "--preset", "strict")
    assert result.code == 0
    assert "\n[ci]\ntolerance = 0.01\nmax_tolerance = 0.05\nconfidence = 0.99\n" in result.out
    assert "t_correction = 1\n" in result.out
    config = loads_config(result.out)
    assert config.apply(PRESETS["default"]) == PRESETS["strict"]


def test_version_1_configs_without_ci_keys_stay_valid(
    capsys: pytest.CaptureFixture[str], runs: SyntheticPair, tmp_path: Path
) -> None:
    config = tmp_path / "old.toml"
    config.write_text("version = 1\n[same]\ncenter_relative = 0.004\n")
    result = run(capsys, runs.ref[0], runs.cmp[0], "--config", config, "--method", "ci")
    assert result.code == 0, result.err
    tuned = tmp_path / "ci.toml"
    tuned.write_text("version = 1\n[ci]\ntolerance = 0.2\nresamples = 500\n")
    same = run(capsys, runs.ref[0], runs.cmp[0], "--config", tuned, "--method", "ci")
    assert same.code == 0 and "SLOW" not in same.out.split("# Summary")[0]


def test_installed_entry_point_runs_calibrate(runs: SyntheticPair, tmp_path: Path) -> None:
    script = shutil.which("nvbench_compare", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.skip("nvbench_compare is not installed beside this Python")
    done = subprocess.run(
        [script, "calibrate", *map(str, runs.ref[:2]), "-o", str(tmp_path / "c.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "c.json").is_file()
