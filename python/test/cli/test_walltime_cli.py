"""``nvbench-walltime`` end to end: installed entry point, ``-m``, script, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from _cli_helpers import console_command, run_command
from cuda.bench.cli.walltime import main

_REPO = Path(__file__).resolve().parents[3]
_SCRIPT = _REPO / "python" / "scripts" / "nvbench_walltime.py"


def _command() -> list[str]:
    return console_command("nvbench-walltime", "cuda.bench.cli.walltime")


def _run(*args: str | Path, command: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_command(command or _command(), *args)


def _assert_one_line_error(process: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert process.returncode == 2
    assert process.stdout == ""
    lines = process.stderr.splitlines()
    assert len(lines) == 1, process.stderr
    assert "Traceback" not in process.stderr
    for needle in needles:
        assert needle in lines[0]


def test_entry_point_on_a_directory_with_skipped_states(upstream_2021_dir: Path) -> None:
    process = _run(upstream_2021_dir)
    assert process.returncode == 0, process.stderr
    assert process.stderr == ""
    assert process.stdout.startswith("# Walltime Overview\n\n")
    assert f"In {upstream_2021_dir}/\n" in process.stdout  # said once, names relative
    assert "## File: cmp.json\n" in process.stdout
    assert process.stdout.index("cmp.json") < process.stdout.index("ref.json")


def test_files_of_several_kinds_and_output_file(
    gpu_dir: Path, cpu_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "walltime.md"
    process = _run(gpu_dir / "gpu_ref.json", cpu_dir / "cpu_run1.json", "-o", out)
    assert process.returncode == 0, process.stderr
    assert process.stdout == ""
    text = out.read_text(encoding="utf-8")
    assert "seconds" in text.splitlines()[2]  # the unit of every time column
    header = text.splitlines()[4]
    assert "| Isolated |" in header and "| Batch |" in header and "| CPU-only |" in header


def test_python_dash_m_and_script(cpu_dir: Path) -> None:
    by_module = _run(
        cpu_dir / "cpu_run2.json", command=[sys.executable, "-m", "cuda.bench.cli.walltime"]
    )
    by_script = _run(cpu_dir / "cpu_run2.json", command=[sys.executable, str(_SCRIPT)])
    assert by_module.returncode == 0 and by_script.returncode == 0, by_script.stderr
    assert by_module.stdout == by_script.stdout
    assert "### Benchmark: host_sort" in by_script.stdout


def test_errors_exit_2_with_one_line(tmp_path: Path) -> None:
    _assert_one_line_error(_run(), "no input")
    _assert_one_line_error(_run(tmp_path / "missing.json"), "missing.json")
    _assert_one_line_error(_run(tmp_path), str(tmp_path), ".json")
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    _assert_one_line_error(_run(broken), "broken.json")


def test_a_folder_of_run_folders_names_the_subfolder_to_give(gpu_dir: Path, tmp_path: Path) -> None:
    # NVBench jobs often write one folder per run: the folder above them read as empty,
    # without a word that subfolders are not searched.
    (tmp_path / "run1").mkdir()
    (tmp_path / "run1" / "ref.json").write_bytes((gpu_dir / "gpu_ref.json").read_bytes())
    (tmp_path / "notes").mkdir()
    _assert_one_line_error(
        _run(tmp_path),
        "holds no non-empty .json file; its subfolders are not read, and run1 holds .json",
        f"(give {tmp_path / 'run1'} or the files)",
    )
    (tmp_path / "run2").mkdir()
    (tmp_path / "run2" / "cmp.json").write_bytes((gpu_dir / "gpu_cmp.json").read_bytes())
    _assert_one_line_error(_run(tmp_path), "run1 and 1 more hold .json files")
    assert _run(tmp_path / "run1").returncode == 0


def test_unknown_option_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--bogus"])
    assert exit_.value.code == 2
    assert len(capsys.readouterr().err.splitlines()) == 1


def test_unusable_walltime_warns_and_is_left_out(tmp_path: Path) -> None:
    # 1e308 s was an OverflowError traceback and exit 1 ("regression" to CI).
    version = {"json": {"major": 1, "minor": 0, "patch": 0, "string": "1.0.0"}}
    summary = {"tag": "nv/cold/walltime", "data": [{"name": "value", "type": "float64"}]}
    states = [
        {"name": name, "device": 0, "is_skipped": False,
         "summaries": [{**summary, "data": [{**summary["data"][0], "value": value}]}]}
        for name, value in (("T=A", "2.5"), ("T=B", "1e308"))
    ]  # fmt: skip
    document = {
        "meta": {"argv": ["./bench"], "version": version},
        "devices": [{"id": 0, "name": "GPU"}],
        "benchmarks": [{"name": "b", "devices": [0], "axes": None, "states": states}],
    }
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(document))
    process = _run(path)
    assert process.returncode == 0, process.stderr
    lines = process.stderr.splitlines()
    assert len(lines) == 1, process.stderr
    assert "warning" in lines[0] and str(path) in lines[0] and "T=B" in lines[0]
    assert "| Isolated |" in process.stdout and "2.500" in process.stdout


def test_a_run_given_twice_is_refused(gpu_dir: Path, tmp_path: Path) -> None:
    # The trial: `nvbench-walltime X.json X.json` (or a directory and a file in it)
    # counted the run twice. As history gate and baseline check: exit 2, one line.
    run = tmp_path / "runs" / "ref.json"
    run.parent.mkdir()
    run.write_bytes((gpu_dir / "gpu_ref.json").read_bytes())
    _assert_one_line_error(_run(run, run), "the same file as", "given twice", str(run))
    _assert_one_line_error(_run(run.parent, run), "the same file as", "given twice")
    copy = tmp_path / "copy.json"
    copy.write_bytes(run.read_bytes().replace(b"\n", b"\r\n"))
    _assert_one_line_error(_run(run, copy), "a copy of", "given twice", str(copy))
    ok = _run(run, gpu_dir / "gpu_cmp.json")
    assert ok.returncode == 0, ok.stderr
