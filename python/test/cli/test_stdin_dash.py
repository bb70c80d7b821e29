"""``-`` as an input: ``nvbench-json-summary -`` said "-: no such file", which tells a user who
meant standard input nothing of what to do; ``/dev/stdin`` reads a pipe. The tools take no
``-`` for standard input (it is what ``-`` means for their outputs): every reader refuses it
(exit 2, one line) with the hint. A file really named ``-`` is still read."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _cli_helpers import assert_usage_error, run_main

HINT = "(to read standard input, give /dev/stdin)"

_RUN = "nvbench-format-examples/cpu/cpu_run1.json"


def _commands(run: Path, tmp_path: Path) -> dict[str, tuple[str, list[str | Path]]]:
    """Each reader with ``-`` where it takes a file: (module, arguments)."""
    return {
        "json-summary": ("json_summary", ["-"]),
        "walltime": ("walltime", ["-"]),
        "histogram": ("histogram", ["-", "-o", tmp_path / "h.png"]),
        "plot-bwutil": ("plot_bwutil", ["-", "-o", tmp_path / "b.png"]),
        "compare REF": ("compare", ["-", run]),
        "compare CMP": ("compare", [run, "-"]),
        "compare --ref": ("compare", ["--ref", "-", "--cmp", run]),
        "compare candidates": ("compare", [run, run, "-"]),
        "compare --config": ("compare", [run, run, "--config", "-"]),
        "compare --calibration": ("compare", [run, run, "--calibration", "-"]),
        "calibrate": ("compare", ["calibrate", "-", run, "-o", tmp_path / "c.json"]),
        "history ingest": (
            "history",
            ["ingest", "--archive", tmp_path / "a", "--commit", "c0", "-"],
        ),
        "history gate": ("history", ["gate", "--archive", tmp_path / "a", "-"]),
    }


_NAMES = list(_commands(Path("x"), Path("y")))


@pytest.mark.parametrize("name", _NAMES)
def test_a_dash_is_refused_with_the_way_to_read_standard_input(
    name: str, shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib

    if name in ("histogram", "plot-bwutil"):
        pytest.importorskip("matplotlib")
    if name.startswith("history"):
        pytest.importorskip("pyarrow")
    module, args = _commands(shared_data / _RUN, tmp_path)[name]
    main = importlib.import_module(f"cuda.bench.cli.{module}").main
    result = run_main(main, capsys, *args)
    assert_usage_error(result, HINT)
    assert "'-'" in result.err or " -: " in result.err, result.err


def test_a_file_named_dash_is_read(
    shared_data: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from cuda.bench.cli.json_summary import main

    shutil.copyfile(shared_data / _RUN, tmp_path / "-")
    monkeypatch.chdir(tmp_path)
    result = run_main(main, capsys, "-")
    assert result.code == 0, result.err
    assert "host_sort" in result.out


def test_the_hint_works(shared_data: Path) -> None:
    """``nvbench-json-summary /dev/stdin < run.json``, what the hint says, reads the run."""
    with (shared_data / _RUN).open("rb") as stream:
        done = subprocess.run(
            [sys.executable, "-m", "cuda.bench.cli.json_summary", "/dev/stdin"],
            stdin=stream,
            capture_output=True,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert b"host_sort" in done.stdout


def test_the_hint_works_for_the_gate_through_a_pipe(shared_data: Path, tmp_path: Path) -> None:
    """``nvbench-history gate`` says what every reader says of ``-``; ``/dev/stdin`` must
    then read a pipe there too (``ci-run | nvbench-history gate --archive A /dev/stdin``),
    not refuse it as "not a file"."""
    pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
    pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")
    from cuda.bench.history.archive import ingest

    run = shared_data / "nvbench-format-examples/gpu/gpu_ref.json"
    archive = tmp_path / "archive"
    ingest(archive, run, commit="c1" * 20, date="2026-01-01T02:00:00Z")
    command = ["gate", "--archive", str(archive), "/dev/stdin", "--json", str(tmp_path / "g.json")]
    done = subprocess.run(
        [sys.executable, "-m", "cuda.bench.cli.history", *command],
        # Bytes given as input reach the command through a pipe, not as a file.
        input=(shared_data / "nvbench-format-examples/gpu/gpu_cmp.json").read_bytes(),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "g.json").stat().st_size > 0


def test_a_report_to_dev_stdout_is_a_report_on_stdout(gpu_dir: Path) -> None:
    # --json /dev/stdout wrote the JSON, then the terminal tables after it on the same
    # stream (stdout no JSON: `| jq` failed), and a second report on stdout ('-') was let
    # through where two '-' are refused.
    if not Path("/dev/stdout").exists():
        pytest.skip("no /dev/stdout")
    files = [str(gpu_dir / "gpu_ref.json"), str(gpu_dir / "gpu_cmp.json")]
    command = [sys.executable, "-m", "cuda.bench.compare", *files]
    done = subprocess.run([*command, "--json", "/dev/stdout"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["schema"] == "nvbench-tools.compare"
    both = subprocess.run(
        [*command, "--json", "/dev/stdout", "--markdown", "-"], capture_output=True, text=True
    )
    assert both.returncode == 2 and both.stdout == ""
    assert "only one report can go to standard output" in both.stderr
