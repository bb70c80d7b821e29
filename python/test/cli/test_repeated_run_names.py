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


_ITSELF = "(the same measurements): a run compared with itself shows no change"


@pytest.fixture
def other(typed: Path, cpu_dir: Path) -> Path:
    """``typed``, with a separate run beside ``runs/run.json``: ``runs/other.json``."""
    shutil.copyfile(cpu_dir / "cpu_run2.json", typed / "runs" / "other.json")
    return typed


def _compare(capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    """``nvbench_compare args`` (exit 0): its lines saying a run is compared with itself."""
    from cuda.bench.cli.compare import main

    result = run_main(main, capsys, *args)
    assert result.code == 0, result.err
    return [line for line in result.err.splitlines() if "compared with itself" in line]


@pytest.mark.parametrize(
    ("second", "relation"), [("runs/run.json", "the same file as"), ("runs/copy.json", "a copy of")]
)
def test_a_run_compared_with_itself_is_said(
    second: str, relation: str, typed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # One path passed twice (a script's slip) compared the run with itself: every row SAME,
    # exit 0, nothing said, so a gate on it passed whatever the builds did.
    said = f"compare run {second} is {relation} reference run runs/run.json {_ITSELF}"
    assert any(said in line for line in _compare(capsys, "runs/run.json", second))


def test_a_run_on_both_sides_of_several_runs_is_said(
    other: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _compare(capsys, "--ref", "runs/other.json", "--ref", "runs/run.json", "--cmp",
                     "runs/copy.json")  # fmt: skip
    said = f"compare run runs/copy.json is a copy of reference run runs/run.json {_ITSELF}"
    assert any(said in line for line in lines), lines


def test_separate_runs_are_not_said_to_be_one(
    other: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The same size as run.json: the sizes alone do not make one run of two.
    files = [other / "runs" / "other.json", other / "runs" / "run.json"]
    size = max(path.stat().st_size for path in files)
    for path in files:
        path.write_bytes(path.read_bytes().ljust(size))
    assert files[0].stat().st_size == files[1].stat().st_size
    assert _compare(capsys, "runs/run.json", "runs/other.json") == []


def test_a_rewritten_copy_on_both_sides_is_said(
    typed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Told by its measurements, not its size: a copy with CRLF line ends has more bytes.
    crlf = typed / "runs" / "crlf.json"
    crlf.write_bytes((typed / "runs" / "run.json").read_bytes().replace(b"\n", b"\r\n"))
    said = f"compare run runs/crlf.json is a copy of reference run runs/run.json {_ITSELF}"
    assert any(said in line for line in _compare(capsys, "runs/run.json", "runs/crlf.json"))


def test_an_n_way_candidate_that_is_the_baseline_is_said(
    other: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # compare_many hands the baseline to each pairwise comparison loaded, where it names no
    # file: the guide's own `base=ref.json new=cmp.json again=ref.json` said nothing.
    lines = _compare(capsys, "base=runs/run.json", "new=runs/other.json", "again=runs/copy.json")
    assert len(lines) == 1 and "again: compare run runs/copy.json is a copy of" in lines[0]


def test_each_run_on_both_sides_is_said(other: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Only the first was named: the sides of --ref a --ref b --cmp b --cmp a are one set.
    runs = ["--ref", "runs/run.json", "--ref", "runs/other.json"]
    lines = _compare(capsys, *runs, "--cmp", "runs/other.json", "--cmp", "runs/run.json")
    assert [line.split(" is ")[0].split("compare run ")[1] for line in lines] == [
        "runs/other.json",
        "runs/run.json",
    ]


def test_an_n_way_candidates_runs_on_the_baseline_are_each_said(
    other: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Several runs an input: checked only where every row's centers agreed, and only the
    # first such run named (the pairwise --ref/--cmp names each).
    lines = _compare(
        capsys,
        *("base=runs/run.json", "base=runs/other.json", "new=runs/other.json"),
        *("again=runs/other.json", "again=runs/copy.json"),
    )
    assert any("again: compare run runs/copy.json is a copy of" in line for line in lines), lines
    assert any("compare run runs/other.json is the same file as" in line for line in lines)


def test_an_n_way_folder_of_runs_on_both_sides_is_said(
    typed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --runs folders stood for their files in the comparison but not in the check.
    shutil.copytree(typed / "runs", typed / "again")
    lines = _compare(capsys, "--runs", "runs", "runs", "again")
    assert any(
        line.startswith("nvbench_compare: warning: runs-2: compare run runs/") for line in lines
    ), lines
    assert any("again: compare run again/" in line for line in lines), lines
