"""Every example in ``python/examples`` runs, on small sizes, as a user would run it.

Each runs as a subprocess of this interpreter from a temporary working directory, so an
example that wrote next to itself or into the shared data would be noticed.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import import_torch
from cuda.bench.results import BenchmarkResult

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run_example(
    name: str, *args: str | Path, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLES / name), *map(str, args)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        cwd=cwd,
        env=env,
        timeout=120,
    )


def snapshot(directory: Path) -> dict[str, float]:
    return {str(p): p.stat().st_mtime for p in sorted(directory.rglob("*"))}


def needs(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed")


# -- benchmark_result_autotune.py ----------------------------------------------------------------


def test_autotune_quick_times_candidates_and_reports_a_verdict(tmp_path: Path) -> None:
    torch = import_torch()

    out_dir = tmp_path / "results"
    done = run_example(
        "benchmark_result_autotune.py",
        "--quick",
        "--chunks",
        "1024,16384,262144",
        "--output-dir",
        out_dir,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    if not torch.cuda.is_available():
        assert "timing on the CPU" in done.stdout
    assert "candidate" in done.stdout and "verdict vs best" in done.stdout
    assert ("Winner: chunk=" in done.stdout) != ("No clear winner: " in done.stdout)
    files = sorted(p.name for p in out_dir.glob("*.json"))
    assert files == ["chunk_1024.json", "chunk_16384.json", "chunk_262144.json"]
    for name in files:
        result = BenchmarkResult(out_dir / name)
        (state,) = result["chunked_sq_dist"]
        assert state.is_cpu_only == (not torch.cuda.is_available())
        assert state.samples is not None
        assert state.sample_count is not None and state.sample_count >= 8  # 8 quick rounds
        assert state.value("torch/env") == "chunk=" + name.removesuffix(".json").split("_")[1]
    # 1024-element chunks of a 2^18 vector cost 256 rounds of Python overhead: never best.
    table = done.stdout[done.stdout.index("candidate") :]
    assert not table.splitlines()[1].startswith("chunk=1024 ")


# -- read_results.py -----------------------------------------------------------------------------


def test_read_results_digests_a_real_nvbench_file(gpu_dir: Path, tmp_path: Path) -> None:
    needs("pandas")
    needs("matplotlib")
    source = gpu_dir / "gpu_ref.json"
    before = snapshot(gpu_dir)
    plot, csv = tmp_path / "plot.png", tmp_path / "states.csv"
    done = run_example("read_results.py", source, "-o", plot, "--csv", csv, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "device [0] NVIDIA H100 80GB HBM3" in out
    assert "copy_bench: 16 states (4 skipped)" in out
    assert "Device=0 T=F32 Elements[pow2]=16 Layout=contiguous: median" in out
    assert "2000 samples" in out and "skipped: " in out
    assert "to_dataframe(): 24 rows" in out
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert csv.read_text().startswith("benchmark,device,device_name,state")
    assert snapshot(gpu_dir) == before  # read in place, nothing written there


def test_read_results_without_plot_and_on_a_cpu_file(cpu_dir: Path, tmp_path: Path) -> None:
    needs("pandas")
    done = run_example("read_results.py", cpu_dir / "cpu_run1.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "no GPU devices (CPU-only run)" in done.stdout
    assert "tiny: 1 states" in done.stdout and "(no axes): median" in done.stdout
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("content", [None, "# Benchmark Results\n"])
def test_read_results_on_a_missing_or_markdown_file_says_one_line(
    tmp_path: Path, content: str | None
) -> None:
    """It ended in a traceback: the example is what a new user runs first on their file."""
    target = tmp_path / ("results.md" if content else "nope.json")
    if content is not None:
        target.write_text(content, encoding="utf-8")
    done = run_example("read_results.py", target, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("read_results.py: error: ") and target.name in done.stderr


# -- ci_gate.py ----------------------------------------------------------------------------------


def test_ci_gate_catches_the_example_regression(tmp_path: Path) -> None:
    report = tmp_path / "report.md"
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    done = run_example("ci_gate.py", "--markdown", report, cwd=tmp_path, env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "10 SAME, 1 FAST, 1 SLOW" in done.stdout
    assert "FAILED --fail-on slow: reduce [T=F64 Elements=2^24] (+6.0%)" in done.stdout
    text = report.read_text(encoding="utf-8")
    assert "#### Regressions" in text and "T=F64 Elements=2^24" in text
    assert "**Failed**" in text


def test_ci_gate_passes_and_appends_to_the_step_summary(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    ref = EXAMPLES / "data" / "ref.json"
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary)}
    done = run_example("ci_gate.py", ref, ref, "--fail-on", "slow,missing", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "12 SAME" in done.stdout and "passed --fail-on slow,missing" in done.stdout
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n") and "Passed `--fail-on slow,missing`" in text


def test_ci_gate_fast_condition_and_input_errors(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    fast = run_example("ci_gate.py", "--fail-on", "fast", cwd=tmp_path, env=env)
    assert fast.returncode == 1 and "FAILED --fail-on fast: scan" in fast.stdout
    missing = run_example("ci_gate.py", "nope.json", "cmp.json", cwd=tmp_path, env=env)
    assert missing.returncode == 2
    assert missing.stderr.count("\n") == 1 and "nope.json" in missing.stderr
    bad = run_example("ci_gate.py", "--fail-on", "sometimes", cwd=tmp_path, env=env)
    assert bad.returncode == 2 and "sometimes" in bad.stderr
    assert list(tmp_path.iterdir()) == []


# -- history_nightly.py ----------------------------------------------------------------------


@pytest.mark.slow
def test_history_nightly_walks_through_ingest_detect_gate_baseline_and_publish(
    tmp_path: Path,
) -> None:
    needs("pyarrow")
    needs("duckdb")
    work = tmp_path / "work"
    done = run_example("history_nightly.py", work, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    # detect: the three states stepped on the 42nd night, as one event
    assert "6 series, 1 event, 3 changes (3 SLOW, 0 FAST)" in out
    # gate: tonight's one regression fails --fail-on slow (exit 1), the rest is SAME
    gate = out[out.index("$ nvbench-history gate") : out.index("$ nvbench-history baseline")]
    assert "Regression  (🔴 SLOW, compare is slower): 1" in gate
    assert "Unchanged   (🔵 SAME, no change beyond the tolerance): 5" in gate
    assert "(exit status 1)" in gate and (work / "gate.md").is_file()
    assert "PASS: 6 of 6 state(s)" in out
    assert (work / "site" / "index.html").is_file() and (work / "changes.json").is_file()
    # One numbering: the night the script names is the shown run's --order and file number,
    # and tonight, gated, is the next one.
    said = re.search(r"night (\d+):\n\$ nvbench-history ingest .*", out)
    assert said is not None, out
    night = int(said.group(1))
    assert f"--order {night} " in said.group(0) and f"runs/run_{night:04d}.json" in said.group(0)
    assert f"# tonight: night {night + 1}, runs/run_{night + 1:04d}.json" in out
    assert f"runs/run_{night + 1:04d}.json --fail-on slow" in gate
    # A second run into the same directory refuses to mix histories.
    again = run_example("history_nightly.py", work, cwd=tmp_path)
    assert again.returncode == 2 and "not an empty directory" in again.stderr


@pytest.mark.slow
def test_history_nightly_piped_into_head_ends_quietly_and_writes_its_files(
    tmp_path: Path,
) -> None:
    """``history_nightly.py DIR | head -3`` ended in a BrokenPipeError traceback, exit 1,
    before the site was written (a new user's trial)."""
    needs("pyarrow")
    needs("duckdb")
    work = tmp_path / "work"
    process = subprocess.Popen(
        [sys.executable, str(EXAMPLES / "history_nightly.py"), str(work)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline().startswith(b"# nights 0-")
    process.stdout.close()  # as head does once it has its lines
    errors = process.stderr.read()
    assert process.wait(timeout=120) == 0, errors
    assert b"Traceback" not in errors, errors
    assert (work / "site" / "index.html").is_file() and (work / "gate.md").is_file()


def test_history_nightly_into_a_used_directory_says_what_to_do(tmp_path: Path) -> None:
    # Running README's command twice said only "nightly: not an empty directory".
    work = tmp_path / "nightly"
    work.mkdir()
    (work / "runs").mkdir()
    again = run_example("history_nightly.py", work, cwd=tmp_path)
    assert again.returncode == 2 and again.stderr.count("\n") == 1
    assert "not an empty directory" in again.stderr
    assert "remove it, or name a new directory" in again.stderr
    assert sorted(path.name for path in work.iterdir()) == ["runs"]
