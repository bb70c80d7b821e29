"""``nvbench-json-summary`` end to end: installed entry point, ``-m``, script, exit codes."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from _cli_helpers import console_command, run_command
from cuda.bench.cli.json_summary import main
from cuda.bench.results import BenchmarkResult

_REPO = Path(__file__).resolve().parents[3]
_SCRIPT = _REPO / "python" / "scripts" / "nvbench_json_summary.py"


def _command() -> list[str]:
    return console_command("nvbench-json-summary", "cuda.bench.cli.json_summary")


def _run(*args: str | Path, command: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_command(command or _command(), *args)


def _results_section(markdown_file: Path) -> str:
    text = markdown_file.read_text(encoding="utf-8")
    return text[text.index("# Benchmark Results\n") :]


def _assert_one_line_error(process: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert process.returncode == 2
    assert process.stdout == ""
    lines = process.stderr.splitlines()
    assert len(lines) == 1, process.stderr
    assert "Traceback" not in process.stderr
    for needle in needles:
        assert needle in lines[0]


# --------------------------------------------------------------------------------------
# Installed entry point, python -m, the script
# --------------------------------------------------------------------------------------


def test_entry_point_prints_nvbench_markdown(gpu_dir: Path) -> None:
    process = _run(gpu_dir / "gpu_ref.json")
    assert process.returncode == 0, process.stderr
    assert process.stderr == ""
    assert process.stdout == _results_section(gpu_dir / "gpu_ref.md")


def test_entry_point_csv_and_output_file(cpu_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "new" / "dir" / "run.csv"
    out.parent.mkdir(parents=True)
    process = _run(cpu_dir / "cpu_run2.json", "--format", "csv", "-o", out)
    assert process.returncode == 0, process.stderr
    assert process.stdout == ""
    assert out.read_text(encoding="utf-8") == (cpu_dir / "cpu_run2.csv").read_text()
    assert [path.name for path in out.parent.iterdir()] == ["run.csv"]  # no temporary left


def test_python_dash_m_works(cpu_dir: Path) -> None:
    process = _run(
        cpu_dir / "cpu_run1.json", command=[sys.executable, "-m", "cuda.bench.cli.json_summary"]
    )
    assert process.returncode == 0, process.stderr
    assert process.stdout == _results_section(cpu_dir / "cpu_run1.md")


def test_script_runs_as_a_file(gpu_dir: Path) -> None:
    process = _run(gpu_dir / "gpu_cmp.json", command=[sys.executable, str(_SCRIPT)])
    assert process.returncode == 0, process.stderr
    assert process.stdout == _results_section(gpu_dir / "gpu_cmp.md")
    failed = _run(gpu_dir / "nope.json", command=[sys.executable, str(_SCRIPT)])
    _assert_one_line_error(failed, "nvbench-json-summary: error:", "nope.json")


def test_script_keeps_nvidias_function_names(gpu_dir: Path) -> None:
    spec = importlib.util.spec_from_file_location("nvbench_json_summary_script", _SCRIPT)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    result = BenchmarkResult(gpu_dir / "gpu_ref.json")
    assert script.format_result(result) == _results_section(gpu_dir / "gpu_ref.md")
    bench = result["copy_bench"]
    state = bench[1]
    axes_by_name = {axis.name: axis for axis in bench.axes}
    elements = state.axis_values[1]
    assert script.format_axis_value(elements, axes_by_name) == "2^20 = 1048576"
    assert script.format_axis_value(elements, {}) == "1048576"  # no axis metadata, no pow2
    assert script.format_summary(state.summaries["nv/cold/sample_size"]) == "500x"
    assert script.main([str(gpu_dir / "missing.json")]) == 2


# --------------------------------------------------------------------------------------
# Options (in process: same code as the entry point, much faster)
# --------------------------------------------------------------------------------------


def test_filters_select_states(gpu_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [str(gpu_dir / "gpu_ref.json"), "-a", "T=F64", "-b", "copy_bench", "-a", "Elements=2^20"]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "## misc" not in out
    rows = [line for line in out.splitlines() if line.startswith("| F")]
    assert rows and all(line.startswith("| F64 | 2^20 = 1048576 |") for line in rows)
    assert len(rows) == 2  # one contiguous state per device; strided F64 was skipped


def test_global_filter_drops_benchmarks_without_matches(
    gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(gpu_dir / "gpu_ref.json"), "-a", "Ratio=[1e-07, 0.25]"]) == 0
    out = capsys.readouterr().out
    assert "## copy_bench" not in out and "No data" not in out
    ratios = [line.split("|")[1].strip() for line in out.splitlines() if line.startswith("| ")]
    assert sorted(ratios) == ["0.25", "0.25", "1e-07", "1e-07", "Ratio", "Ratio"]


def test_devices_and_show_hidden(gpu_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(gpu_dir / "gpu_ref.json"), "--devices", "1", "--show-hidden"]) == 0
    out = capsys.readouterr().out
    assert "### [0]" not in out and "### [1] NVIDIA A100-SXM4-80GB" in out
    assert "Min GPU Time" in out and "Sample Times File" not in out


def _exit_code(argv: list[str]) -> int:
    """``main(argv)``, with argparse's ``SystemExit`` turned into its status."""
    try:
        return main(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["-b", "nope"], ["-b nope", "copy_bench"]),
        (["-a", "Elements=2^21"], ["Elements=2^21"]),
        (["-a", "Elements"], ["NAME=VALUE", "Elements"]),
        (["-a", "E[pow2]=x"], ["E[pow2]=x"]),
        (["--devices", "0,x"], ["--devices"]),
        (["--devices", "7"], ["device 7"]),
        (["--format", "html"], ["--format"]),
        (["--no-such-option"], ["--no-such-option"]),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(
    gpu_dir: Path, capsys: pytest.CaptureFixture[str], args: list[str], needles: list[str]
) -> None:
    code = _exit_code([str(gpu_dir / "gpu_ref.json"), *args])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    for needle in needles:
        assert needle in lines[0]


def test_bad_input_files(tmp_path: Path) -> None:
    missing = _run(tmp_path / "missing.json")
    _assert_one_line_error(missing, "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"benchmarks": [', encoding="utf-8")
    _assert_one_line_error(_run(broken), "broken.json")
    empty = tmp_path / "empty.json"
    empty.write_text("", encoding="utf-8")
    _assert_one_line_error(_run(empty), "empty.json")
    _assert_one_line_error(_run(tmp_path), str(tmp_path))


def test_unknown_benchmark_through_the_entry_point(gpu_dir: Path) -> None:
    _assert_one_line_error(_run(gpu_dir / "gpu_ref.json", "-b", "nope"), "-b nope")


def _rows_per_benchmark(markdown: str) -> dict[str, int]:
    """Table body rows under each ``## benchmark`` heading."""
    counts: dict[str, int] = {}
    bench = ""
    previous = ""
    for line in markdown.splitlines():
        if line.startswith("## "):
            bench = line[3:]
            counts[bench] = 0
        elif line.startswith("| ") and previous.startswith("|"):
            counts[bench] += 1
        previous = line
    return counts


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["-b", "copy_bench", "-a", "T=F32"], {"copy_bench": 8}),
        (["-a", "Layout=[strided, contiguous]", "-a", "T=F64"], {"copy_bench": 4}),
        (["-a", "Elements[pow2]=[16,20]", "-a", "T=F64"], {"copy_bench": 4}),
        (["-a", "Elements[pow2]=16"], {"copy_bench": 6}),
        (["-a", "Elements=65536"], {"copy_bench": 6}),
        (["-a", "Elements=2^16"], {"copy_bench": 6}),
        (["-b", "misc", "-a", "Ratio=1e-07"], {"misc": 2}),
        (
            ["-b", "misc", "-a", "Ratio=1e-07", "-b", "copy_bench", "-a", "T=F64"],
            {"misc": 2, "copy_bench": 4},
        ),
        (["-b", "misc", "-b", "copy_bench"], {"misc": 8, "copy_bench": 12}),
    ],
)
def test_filter_syntax_and_scoping(
    gpu_dir: Path, capsys: pytest.CaptureFixture[str], args: list[str], expected: dict[str, int]
) -> None:
    # gpu_ref (README): copy_bench has T x Elements x Layout on 2 devices with the 4
    # F64/strided states skipped; misc has 4 Ratio values on 2 devices.
    assert main([str(gpu_dir / "gpu_ref.json"), *args]) == 0
    assert _rows_per_benchmark(capsys.readouterr().out) == expected
