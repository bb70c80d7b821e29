"""A run given twice is refused naming both files as the user typed them. nvbench-walltime,
nvbench-histogram and nvbench-plot-bwutil (and ``nvbench_compare calibrate`` and a
candidate's runs) named them by their absolute paths ("/home/me/ref/run.json: the same file
as /home/me/ref/run.json ..."), where every other line names files as typed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from _cli_helpers import assert_usage_error, run_main

_TWICE = "(the same measurements): a run is given twice; give distinct runs"


@pytest.fixture
def typed(cpu_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``runs/run.json`` and its byte copy ``runs/copy.json``, under the working directory."""
    folder = tmp_path / "runs"
    folder.mkdir()
    shutil.copyfile(cpu_dir / "cpu_run1.json", folder / "run.json")
    shutil.copyfile(cpu_dir / "cpu_run1.json", folder / "copy.json")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("command", ["walltime", "histogram", "plot_bwutil"])
@pytest.mark.parametrize(
    ("second", "relation"), [("runs/run.json", "the same file as"), ("runs/copy.json", "a copy of")]
)
def test_the_tools_name_a_run_given_twice_as_typed(
    command: str, second: str, relation: str, typed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib

    if command != "walltime":
        pytest.importorskip("matplotlib")
    main = importlib.import_module(f"cuda.bench.cli.{command}").main
    output = [] if command == "walltime" else ["-o", "figure.png"]
    result = run_main(main, capsys, "runs/run.json", second, *output)
    assert_usage_error(result)
    prog = f"nvbench-{command.replace('_', '-')}"
    assert result.err == f"{prog}: error: {second}: {relation} runs/run.json {_TWICE}\n"


def test_a_calibration_names_a_run_given_twice_as_typed(
    typed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cuda.bench.cli.compare import main

    result = run_main(main, capsys, "calibrate", "runs/run.json", "runs/copy.json")
    assert_usage_error(result, "runs/copy.json: the same run as runs/run.json")
    assert str(typed) not in result.err


def test_a_candidates_runs_name_a_run_given_twice_as_typed(
    typed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cuda.bench.cli.compare import main

    result = run_main(
        main,
        capsys,
        "base=runs/run.json",
        "base=runs/copy.json",
        "a=runs/run.json",
        "b=runs/run.json",
    )
    assert_usage_error(result, "runs/copy.json: a copy of runs/run.json", "given twice")
    assert str(typed) not in result.err
