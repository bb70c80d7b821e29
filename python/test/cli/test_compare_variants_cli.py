"""``nvbench_compare RUN --col AXIS [--baseline VALUE]``: variants within one run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from _cli_helpers import Result, assert_usage_error, run_main
from cuda.bench.cli.compare import main


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Result:
    return run_main(main, capsys, *args)


@pytest.fixture
def gpu_ref(gpu_dir: Path) -> Path:
    return gpu_dir / "gpu_ref.json"


def test_col_t_compares_f64_with_f32(capsys: pytest.CaptureFixture[str], gpu_ref: Path) -> None:
    result = run(capsys, gpu_ref, "--col", "T", "--color", "never", "--json", "-")
    assert result.code == 0, result.err
    report = result.json()
    rows = report["rows"] if "rows" in report else report["results"]
    assert len(rows) == 8
    statuses = sorted(row["status"] for row in rows)
    assert statuses == ["SKIP"] * 4 + ["SLOW"] * 4  # F64 strided: skipped by the benchmark
    assert all("T=" not in json.dumps(row.get("axis_values", row.get("axes", ""))) for row in rows)


def test_col_t_table_and_baseline(capsys: pytest.CaptureFixture[str], gpu_ref: Path) -> None:
    result = run(
        capsys, gpu_ref, "--col", "T", "--baseline", "F64", "-a", "Layout=contiguous",
        "--color", "never",
    )  # fmt: skip
    assert result.code == 0, result.err
    assert result.out.count("FAST") >= 4
    assert "SLOW" not in result.out.split("# Summary")[0]


def test_col_device_pairs_the_devices_of_one_file(
    capsys: pytest.CaptureFixture[str], gpu_ref: Path
) -> None:
    result = run(capsys, gpu_ref, "--col", "Device", "--json", "-")
    assert result.code == 0, result.err
    rows = result.json()["rows"]
    assert len(rows) == 12  # every state of device 0 against its twin on device 1
    assert {(row["ref_device"], row["cmp_device"]) for row in rows} == {(0, 1)}


def test_several_values_print_one_matrix(capsys: pytest.CaptureFixture[str], gpu_ref: Path) -> None:
    result = run(capsys, gpu_ref, "--col", "Ratio", "--baseline", "1", "--color", "never")
    assert result.code == 0, result.err
    header = next(line for line in result.out.splitlines() if line.startswith("| Plain"))
    cells = [cell.strip() for cell in header.strip("|").split("|")]
    assert cells == [
        "Plain", "Ratio=1",
        "Ratio=0.25", "Ratio=0.25 status",
        "Ratio=1.2346e+05", "Ratio=1.2346e+05 status",
        "Ratio=1e-07", "Ratio=1e-07 status",
        "Best",
    ]  # fmt: skip
    assert "3 candidates together" in result.out


def test_fail_on_holds_for_any_candidate(capsys: pytest.CaptureFixture[str], gpu_ref: Path) -> None:
    result = run(capsys, gpu_ref, "--col", "T", "--fail-on", "slow")
    assert result.code == 1
    assert "T=F64: --fail-on slow: 4" in result.err


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--col", "Nope"], "no compared benchmark has an axis 'Nope'"),
        (["--col", "T", "--baseline", "F16"], "--baseline F16 is not a value of T"),
        (["--col", "Plain"], "Plain has one value"),
        (["--col", "T", "-a", "T=F32"], "T has one value"),
        (["--baseline", "F32"], "--baseline needs --col"),
        (["--col", "Device", "--compare-devices", "1"], "leave --reference-devices"),
        (["--col", "T", "--bulk-debug-python", "-"], "--bulk-debug-python is for a comparison"),
        (["--col", "T", "--display", "legacy"], "--display legacy"),
        (["--col", "T", "--gate", "T=F16"], "T=F16"),
    ],
)
def test_bad_requests(
    capsys: pytest.CaptureFixture[str], gpu_ref: Path, args: list[str], needle: str
) -> None:
    assert_usage_error(run(capsys, gpu_ref, *args), needle)


def test_two_inputs_with_col_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], gpu_ref: Path
) -> None:
    assert_usage_error(run(capsys, gpu_ref, gpu_ref, "--col", "T"), "within one input")


def test_abbreviation_of_color_is_not_col(
    capsys: pytest.CaptureFixture[str], gpu_ref: Path
) -> None:
    """``--col`` is its own option, never ``--color`` abbreviated."""
    result = run(capsys, gpu_ref, "--col", "T", "--color", "never")
    assert result.code == 0, result.err
    assert "\x1b[" not in result.out


def test_col_plots_along_and_heatmap(
    capsys: pytest.CaptureFixture[str], gpu_ref: Path, tmp_path: Path
) -> None:
    pytest.importorskip("matplotlib")
    heat = tmp_path / "heat.svg"
    template = str(tmp_path / "along_{benchmark}_{device}.png")
    result = run(
        capsys, gpu_ref, "--col", "T", "--plot-along", "Elements",
        "--plot-along-output", template, "--heatmap", heat,
    )  # fmt: skip
    assert result.code == 0, result.err
    assert heat.read_text().lstrip().startswith("<?xml")
    along = sorted(path.name for path in tmp_path.glob("along_*.png"))
    assert along == ["along_copy_bench_0.png", "along_copy_bench_1.png"]
    for name in along:
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--heatmap", "out.txt"], "--heatmap"),
        (["--col", "T", "--heatmap", "same.svg", "--markdown", "same.svg"], "both write"),
        (["--col", "Ratio", "--plot"], "--plot with --col needs an axis of two values"),
    ],
)
def test_bad_plot_requests(
    capsys: pytest.CaptureFixture[str],
    gpu_ref: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    needle: str,
) -> None:
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    assert_usage_error(run(capsys, gpu_ref, *args), needle)
    assert list(tmp_path.iterdir()) == []


def test_heatmap_in_a_pairwise_comparison_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], gpu_dir: Path, tmp_path: Path
) -> None:
    pytest.importorskip("matplotlib")
    result = run(
        capsys, gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json", "--heatmap", tmp_path / "h.png"
    )
    assert_usage_error(result, "--heatmap draws several candidates")


def test_col_over_several_runs_of_one_build(
    capsys: pytest.CaptureFixture[str], gpu_ref: Path, tmp_path: Path
) -> None:
    # A second run: the same measurements under another command line (the file again is
    # refused as a run given twice), beside copies of the side files it records.
    document = json.loads(gpu_ref.read_text())
    document["meta"]["argv"].append("--run=2")
    second = tmp_path / gpu_ref.name
    second.write_text(json.dumps(document))
    for suffix in ("-bin", "-freqs-bin"):
        side = f"{gpu_ref.name}{suffix}"
        shutil.copytree(gpu_ref.parent / side, tmp_path / side)
    result = run(
        capsys, "--ref", gpu_ref, "--ref", second, "--col", "T", "--method", "ci",
        "--json", "-",
    )  # fmt: skip
    assert result.code == 0, result.err
    report = result.json()
    (candidate,) = report["candidates"]
    assert candidate["name"] == "T=F64"
    assert len(candidate["inputs"][0]["ref"]) == 2
    assert candidate["counts"]["SLOW"] == 4
    assert_usage_error(
        run(capsys, "--ref", gpu_ref, "--cmp", gpu_ref, "--col", "T"), "--cmp is for a second"
    )


def test_several_candidates_plot_along_and_heatmap(
    capsys: pytest.CaptureFixture[str], gpu_dir: Path, tmp_path: Path
) -> None:
    pytest.importorskip("matplotlib")
    ref, cmp = gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"
    heat = tmp_path / "heat.png"
    template = str(tmp_path / "along_{benchmark}_{device}.png")
    result = run(
        capsys, ref, f"a={cmp}", f"b={cmp}", "--plot-along", "Elements",
        "--plot-along-output", template, "--heatmap", heat,
    )  # fmt: skip
    assert result.code == 0, result.err
    assert heat.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.glob("along_*.png")) == [
        "along_copy_bench_0.png",
        "along_copy_bench_1.png",
    ]


def test_col_device_leaves_out_a_state_on_an_unlisted_device(
    capsys: pytest.CaptureFixture[str], gpu_ref: Path, tmp_path: Path
) -> None:
    """A state on device 7, which its benchmark does not list, made a variant Device=7 and
    then failed on "--compare-devices device id(s) not present", an option never given; the
    plain comparison leaves such a state out with a warning."""
    import shutil

    for folder in ("gpu_ref.json-bin", "gpu_ref.json-freqs-bin"):
        shutil.copytree(gpu_ref.parent / folder, tmp_path / folder)
    document = json.loads(gpu_ref.read_text())
    document["benchmarks"][0]["states"][0]["device"] = 7
    stray = tmp_path / "gpu_ref.json"
    stray.write_text(json.dumps(document))
    result = run(capsys, stray, "--col", "Device", "--json", "-")
    assert result.code == 0, result.err
    assert "compare-devices" not in result.err
    assert "ran on device 7" in result.err and "left out" in result.err, result.err
    rows = result.json()["rows"]
    assert {(row["ref_device"], row["cmp_device"]) for row in rows} <= {
        (0, 1),
        (None, 1),
        (0, None),
    }
