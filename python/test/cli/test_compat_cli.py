"""NVIDIA's command names on our engine (issue #28): ``nvbench-compare-robust``,
``nvbench-compare-legacy``, ``nvbench-plot-bwutil`` and ``python -m
cuda.bench.scripts.<tool>``; their statuses and exit codes against NVIDIA's tools where
those are installed (``NVBENCH_UPSTREAM_BIN``)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from _cli_helpers import assert_usage_error, run_main
from conftest import upstream_tool
from cuda.bench.cli import compare_legacy, compare_robust, plot_bwutil

SCRIPTS = (
    "nvbench_compare",
    "nvbench_compare_robust",
    "nvbench_plot_bwutil",
    "nvbench_histogram",
    "nvbench_json_summary",
    "nvbench_walltime",
)
EXAMPLES = Path(__file__).parents[2] / "examples" / "data"
STATUS = re.compile(r"\b(SAME|FAST|SLOW|AMBG|\?\?\?\?)\b")


@pytest.fixture
def gpu_pair(gpu_dir: Path) -> tuple[Path, Path]:
    return gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"


def test_legacy_exits_with_nvidias_failure_count(
    gpu_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # Two states changed on device 0; NVIDIA's script walks the states once per device of
    # the benchmark and so counts each twice: 4 (its exit status on this pair).
    result = run_main(compare_legacy.main, capsys, *gpu_pair, "--color", "never")
    assert result.code == 4, result.err
    assert "| Ref Time | Ref Noise | Cmp Time | Cmp Noise |" in result.out


def test_legacy_exit_status_of_two_failures_is_two(
    gpu_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # Device 0 alone: its two changed states count once each. A count of 2 equals the
    # usage-error status, which the entry point turned into NVIDIA's error status 1.
    options = ("--reference-devices", "0", "--compare-devices", "0", "--color", "never")
    result = run_main(compare_legacy.main, capsys, *gpu_pair, *options)
    assert result.code == 2, result.err
    assert result.err == ""


def test_legacy_counts_nothing_on_an_unchanged_run(
    upstream_2021_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pair = upstream_2021_dir
    result = run_main(compare_legacy.main, capsys, pair / "ref.json", pair / "cmp.json")
    assert result.code == 0, result.err


def test_legacy_and_robust_report_errors_with_nvidias_status(
    tmp_path: Path, gpu_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.json"
    for main in (compare_legacy.main, compare_robust.main):
        result = run_main(main, capsys, gpu_pair[0], missing)
        assert result.code == 1
        assert len(result.err.strip().splitlines()) == 1 and "missing.json" in result.err
        # What argparse rejects exits 2, as NVIDIA's argparse does.
        assert run_main(main, capsys, "--no-such-option", *gpu_pair).code == 2


def test_robust_is_our_robust_method(
    gpu_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    result = run_main(compare_robust.main, capsys, *gpu_pair, "--color", "never")
    assert result.code == 0, result.err
    assert "Method: robust" in result.out


@pytest.mark.parametrize(
    ("main", "name"),
    [
        (compare_robust.main, "nvbench-compare-robust"),
        (compare_legacy.main, "nvbench-compare-legacy"),
        (plot_bwutil.main, "nvbench_plot_bwutil"),
    ],
)
def test_help_says_it_is_the_compatible_entry_point(
    main: object, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    result = run_main(main, capsys, "--help")  # type: ignore[arg-type]
    assert result.code == 0
    assert f"compatible with NVIDIA's {name}" in " ".join(result.out.split())


@pytest.mark.parametrize(
    ("main", "statuses", "missing"),
    [
        (compare_robust.main, "1 for an error found after the arguments were parsed", 1),
        (compare_legacy.main, "the number of failures NVIDIA's original script counts", 1),
    ],
)
def test_help_gives_the_exit_statuses_the_entry_point_uses(
    main: object, statuses: str, missing: int, capsys: pytest.CaptureFixture[str]
) -> None:
    # Both ended with nvbench_compare's "1 when a --fail-on condition holds, 2 for usage
    # or input errors", where a missing file exits 1 and the legacy one counts failures.
    text = " ".join(run_main(main, capsys, "--help").out.split())  # type: ignore[arg-type]
    assert "Exit status (NVIDIA's): " in text and statuses in text
    assert "2 for usage or input errors" not in text
    assert run_main(main, capsys, "no-such.json", "no-such-2.json").code == missing  # type: ignore[arg-type]


def test_robust_help_marks_the_method_it_runs_as_the_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Its --help said "ci (default)" (nvbench_compare's), while it runs robust.
    text = " ".join(run_main(compare_robust.main, capsys, "--help").out.split())
    assert "robust (default):" in text and "ci (default)" not in text
    json_path = tmp_path / "r.json"
    ref, cmp = (EXAMPLES / "ref.json", EXAMPLES / "cmp.json")
    assert run_main(compare_robust.main, capsys, ref, cmp, "--json", json_path).code == 0
    assert json.loads(json_path.read_text())["method"] == "robust"


def test_legacy_help_lists_no_method_and_no_fail_on_exit_status(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Its usage listed --method, which it refuses, and --fail-on "exit with status 1 when
    # any row matches", while the exit status is the legacy failure count whatever it says.
    ref, cmp = (EXAMPLES / "ref.json", EXAMPLES / "cmp.json")
    assert run_main(compare_legacy.main, capsys, ref, cmp, "--method", "ci").code == 1
    failures = run_main(compare_legacy.main, capsys, ref, cmp).code
    assert failures > 0  # one SLOW state: nvbench_compare --fail-on fast would exit 0
    assert run_main(compare_legacy.main, capsys, ref, cmp, "--fail-on", "fast").code == failures
    out = run_main(compare_legacy.main, capsys, "--help").out
    assert "--method" not in out
    text = " ".join(out.split())
    assert "exit with status 1 when any row matches" not in text
    assert "it does not set the exit status here" in text


def test_plot_bwutil_writes_its_picture_and_says_where(
    tmp_path: Path, gpu_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "bw.png"
    result = run_main(plot_bwutil.main, capsys, gpu_pair[0], "-o", out, "-b", "copy_bench")
    assert result.code == 0, result.err
    assert out.read_bytes().startswith(b"\x89PNG")
    assert str(out) in result.err


def test_plot_bwutil_never_writes_over_an_input_or_into_an_archive(
    tmp_path: Path, gpu_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """It checked no output path: ``-o`` could name its input or a file inside an
    nvbench-history archive (every other writing command refuses both)."""
    pytest.importorskip("matplotlib")
    archive = tmp_path / "archive"
    archive.mkdir()
    marker = archive / "nvbench-archive.json"
    marker.write_text('{"format": "nvbench-history-archive", "version": 1}\n')
    result = run_main(plot_bwutil.main, capsys, gpu_pair[0], "-o", archive / "bw.png")
    assert_usage_error(result, "inside the archive")
    assert sorted(path.name for path in archive.iterdir()) == ["nvbench-archive.json"]
    copy = tmp_path / "run.png"
    shutil.copyfile(gpu_pair[0], copy)
    before = copy.read_bytes()
    result = run_main(plot_bwutil.main, capsys, copy, "-o", copy)
    assert result.code == 2, result.err
    assert copy.read_bytes() == before


def test_plot_bwutil_without_inputs_prints_help_and_without_data_says_why(
    cpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    assert run_main(plot_bwutil.main, capsys).code == 0  # NVIDIA's: help, exit 0
    result = run_main(plot_bwutil.main, capsys, cpu_dir / "cpu_run1.json", "-o", "x.png")
    assert result.code == 2 and "nv/cold/bw/global/utilization" in result.err


def test_bwutil_bars_name_each_state_by_device_and_point(gpu_pair: tuple[Path, Path]) -> None:
    from cuda.bench.report.plots.bwutil import bwutil_bars
    from cuda.bench.results import BenchmarkResult

    bars = bwutil_bars([BenchmarkResult(gpu_pair[0])])
    assert len(bars) == 12  # 16 states, 4 skipped
    assert bars[0].label == "copy_bench [0] | T=F32 Elements[pow2]=16 Layout=contiguous"
    assert all(0 < bar.utilization <= 1 for bar in bars)


@pytest.mark.parametrize("module", SCRIPTS)
def test_python_m_cuda_bench_scripts_runs_each_tool(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", f"cuda.bench.scripts.{module}", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage:")


# -- against NVIDIA's tools -------------------------------------------------------------------


def _ours(name: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    module = {
        "nvbench-compare-robust": "compare_robust",
        "nvbench-compare-legacy": "compare_legacy",
        "nvbench-json-summary": "json_summary",
    }[name]
    return subprocess.run(
        [sys.executable, "-m", f"cuda.bench.cli.{module}", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
    )


def _theirs(name: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(upstream_tool(name)), *map(str, args)], capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize("display", ["simple", "intervals", "explain"])
def test_robust_gives_nvidias_statuses_and_exit_code(
    gpu_pair: tuple[Path, Path], display: str
) -> None:
    theirs = _theirs("nvbench-compare-robust", "--no-color", "--display", display, *gpu_pair)
    ours = _ours("nvbench-compare-robust", "--no-color", "--display", display, *gpu_pair)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    table = [line for line in theirs.stdout.splitlines() if line.startswith("|")]
    ours_table = [line for line in ours.stdout.splitlines() if line.startswith("|")]
    assert Counter(STATUS.findall("\n".join(ours_table))) == Counter(
        STATUS.findall("\n".join(table))
    )


def test_legacy_gives_nvidias_exit_code(gpu_pair: tuple[Path, Path]) -> None:
    theirs = _theirs("nvbench-compare-legacy", "--no-color", *gpu_pair)
    ours = _ours("nvbench-compare-legacy", "--no-color", *gpu_pair)
    assert ours.returncode == theirs.returncode == 4


def test_json_summary_gives_nvidias_exit_code_and_states(gpu_dir: Path) -> None:
    path = gpu_dir / "gpu_ref.json"
    theirs = _theirs("nvbench-json-summary", path)
    ours = _ours("nvbench-json-summary", path)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    for line in ("copy_bench", "T=F32"):
        assert (line in ours.stdout) == (line in theirs.stdout)


@pytest.mark.parametrize(
    ("argv0", "expected"),
    [
        ("/venv/bin/nvbench_compare", "nvbench_compare"),
        ("nvbench-compare", "nvbench-compare"),
        ("-c", "fallback"),  # python -c, and pytest-xdist's workers
        ("-m", "fallback"),
        ("/src/python/scripts/nvbench_compare.py", "fallback"),
        ("/site/cuda/bench/compare/__main__.py", "fallback"),
        ("", "fallback"),
    ],
)
def test_program_name_is_what_the_user_typed_or_the_default(
    monkeypatch: pytest.MonkeyPatch, argv0: str, expected: str
) -> None:
    from cuda.bench.cli._common import prog_name

    monkeypatch.setattr("sys.argv", [argv0])
    assert prog_name("fallback") == expected


def _with_utilization(source: Path, target: Path, value: str) -> Path:
    """``source`` with the first state's bandwidth utilisation set to ``value``."""
    import json

    document = json.loads(source.read_text(encoding="utf-8"))
    for summary in document["benchmarks"][0]["states"][0]["summaries"]:
        if summary["tag"] == "nv/cold/bw/global/utilization":
            summary["data"][0]["value"] = value
    target.write_text(json.dumps(document), encoding="utf-8")
    return target


@pytest.mark.parametrize("value", ["1e308", "nan", "inf", "-0.5", "1e6"])
def test_plot_bwutil_warns_of_and_leaves_out_unusable_utilizations(
    tmp_path: Path, gpu_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str], value: str
) -> None:
    # The trial: 1e308 was a matplotlib ValueError traceback and exit 1; NaN was drawn
    # silently (as no bar).
    pytest.importorskip("matplotlib")
    from cuda.bench.report.plots.bwutil import bwutil_bars
    from cuda.bench.results import BenchmarkResult

    path = _with_utilization(gpu_pair[0], tmp_path / "bw_bad.json", value)
    problems: list[str] = []
    bars = bwutil_bars([BenchmarkResult(path)], problems=problems)
    assert len(bars) == 11 and all(0 < bar.utilization <= 1 for bar in bars)
    assert len(problems) == 1 and str(path) in problems[0]
    out = tmp_path / "bw.png"
    result = run_main(plot_bwutil.main, capsys, path, "-o", out)
    assert result.code == 0, result.err
    assert out.read_bytes().startswith(b"\x89PNG")
    warnings = [line for line in result.err.splitlines() if "warning" in line]
    assert len(warnings) == 1, result.err
    assert str(path) in warnings[0] and "T=F32 Elements[pow2]=16 Layout=contiguous" in warnings[0]
    assert "Traceback" not in result.err
