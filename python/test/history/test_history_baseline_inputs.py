"""What ``nvbench-history baseline check`` refuses as bad input (exit 2, one line naming the
file) rather than reporting as states that fail the rule (exit 1, which CI reads as a
regression): runs of another environment, a run sharing no state with the others, a file
holding a state twice. A run that lacks some states is evidence, and stays exit 1.

Real input: ``nvbench-format-examples/gpu`` and ``/cpu`` (edited copies in ``tmp_path``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _history_calls import ingest_days, run_history


def _copy(source: Path, target: Path, edit: Any = None) -> Path:
    """``source`` written to ``target`` without its side-file summaries (the copy has no
    side files; the medians NVBench stored stand), after ``edit(document)``."""
    document = json.loads(source.read_text())
    for benchmark in document["benchmarks"]:
        for state in benchmark["states"] or ():
            if state["summaries"]:
                state["summaries"] = [
                    one for one in state["summaries"] if not one["tag"].startswith("nv/json/")
                ]
    if edit is not None:
        edit(document)
    target.write_text(json.dumps(document))
    return target


def _renamed(prefix: str) -> Any:
    def edit(document: dict[str, Any]) -> None:
        for benchmark in document["benchmarks"]:
            benchmark["name"] = f"{prefix}_{benchmark['name']}"

    return edit


def _refusal(capsys: pytest.CaptureFixture[str], *runs: Path) -> str:
    code, out, err = run_history(capsys, "baseline", "check", *runs)
    lines = [line for line in err.splitlines() if ": warning: " not in line]
    assert (code, out, len(lines)) == (2, "", 1), (code, out, err)
    assert "Traceback" not in err
    return lines[0]


def test_baseline_check_refuses_a_run_of_another_environment(
    gpu_dir: Path, cpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A CPU-only run beside two GPU runs was exit 1, "29 of 29 state(s) fail the rule":
    the gate refuses runs of two machines gated together, and so does the check now,
    naming the run apart from the others wherever it stands."""
    gpu = (gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json")
    cpu = cpu_dir / "cpu_run1.json"
    for runs in ((*gpu, cpu), (cpu, *gpu)):
        line = _refusal(capsys, *runs)
        assert line.startswith(f"nvbench-history: error: {cpu}: not the environment of ")
        assert f"{gpu[0]}, {gpu[1]} (machine " in line
        assert "check runs of one build on one machine" in line


def test_baseline_check_refuses_a_run_sharing_no_state(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One machine, another binary: no state of the third run is one of the others'."""
    other = _copy(gpu_dir / "gpu_ref_nosidecar.json", tmp_path / "other.json", _renamed("other"))
    runs = (gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json", other)
    line = _refusal(capsys, *runs)
    assert line == (
        f"nvbench-history: error: {other}: shares no state with {runs[0]}, {runs[1]} "
        "(other benchmarks or states: another binary?); check runs of one build together"
    )
    # Three runs none of which shares a state with another.
    apart = _copy(gpu_dir / "gpu_cmp.json", tmp_path / "apart.json", _renamed("apart"))
    line = _refusal(capsys, runs[0], other, apart)
    assert line == (
        f"nvbench-history: error: {runs[0]}, {other}, {apart}: no two of these runs share a "
        "state (other benchmarks or states: other binaries?); check runs of one build together"
    )

    # Two groups of runs, each of one binary: the smaller named (the first on a tie).
    more = _copy(gpu_dir / "gpu_cmp.json", tmp_path / "more.json", _renamed("other"))
    line = _refusal(capsys, runs[0], other, runs[1], more)
    assert line.startswith(
        f"nvbench-history: error: {other}, {more}: share no state with {runs[0]}, {runs[1]} ("
    )


def test_baseline_check_refuses_a_run_without_states(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run that wrote no state made every state "missing" in it (exit 1)."""

    def emptied(document: dict[str, Any]) -> None:
        document["benchmarks"] = []

    empty = _copy(gpu_dir / "gpu_ref_nosidecar.json", tmp_path / "empty.json", emptied)
    line = _refusal(capsys, gpu_dir / "gpu_ref.json", empty, gpu_dir / "gpu_cmp.json")
    assert line == (
        f"nvbench-history: error: {empty}: no benchmark state (the file holds none); check "
        "that the benchmark ran and wrote its results"
    )


def test_baseline_check_still_fails_a_run_that_lacks_some_states(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run without one benchmark shares the other's states: missing evidence, exit 1."""

    def drop_misc(document: dict[str, Any]) -> None:
        document["benchmarks"] = [b for b in document["benchmarks"] if b["name"] != "misc"]

    fewer = _copy(gpu_dir / "gpu_ref_nosidecar.json", tmp_path / "fewer.json", drop_misc)
    code, out, _ = run_history(
        capsys, "baseline", "check", gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json", fewer
    )
    assert code == 1
    assert out.count(f"missing or without a median in {fewer}") == 8


def test_baseline_check_refuses_a_state_twice_as_ingest_and_gate_do(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A benchmark listed twice gave exit 1 with false "missing or without a median in"
    rows (the copies' second occurrences lack in the other runs); ingest and gate refuse
    the file, exit 2."""

    def twice(document: dict[str, Any]) -> None:
        document["benchmarks"].append(document["benchmarks"][0])

    dup = _copy(gpu_dir / "gpu_ref_nosidecar.json", tmp_path / "dup.json", twice)
    line = _refusal(capsys, gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json", dup)
    assert line == (
        f"nvbench-history: error: {dup}: benchmark 'copy_bench' device 0 state "
        "'T=F32 Elements=2^16 Layout=contiguous' appears twice in the file; states are matched "
        "by benchmark, device and name, so the two cannot be told apart (ingest, gate and "
        "baseline check refuse the file)"
    )


@pytest.mark.parametrize("problem", ["twice", "none"])
def test_ingest_gate_and_baseline_check_word_a_broken_file_alike(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], problem: str
) -> None:
    """One file, three wordings: a state twice was "...; the archive keeps one row per
    state and run and could not tell the two apart" (ingest), "...; the archive's series
    hold one row per state and run, and ingest refuses the file too" (gate) and "...; the
    check matches each state across the runs by name ..." (baseline check); a file without
    states "no benchmark state to archive", "no benchmark state to gate" and "no benchmark
    state". Each problem has one wording now (ingest adds its "nothing written")."""
    pytest.importorskip("pyarrow", reason="ingest and gate need pyarrow")
    pytest.importorskip("duckdb", reason="gate needs DuckDB")

    def edit(document: dict[str, Any]) -> None:
        if problem == "twice":
            document["benchmarks"].append(document["benchmarks"][0])
        else:
            document["benchmarks"] = []

    bad = _copy(gpu_dir / "gpu_ref_nosidecar.json", tmp_path / "bad.json", edit)
    archive = ingest_days(tmp_path / "archive", [(gpu_dir / "gpu_ref.json", "c1" * 20)])
    said = []
    for argv in (
        ["ingest", "--archive", tmp_path / "new", "--commit", "c2" * 20, bad],
        ["gate", "--archive", archive, bad],
        ["baseline", "check", gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json", bad],
    ):
        capsys.readouterr()
        code, _, err = run_history(capsys, *argv)
        lines = [line for line in err.splitlines() if ": warning: " not in line]
        assert (code, len(lines)) == (2, 1), (argv, err)
        head = f"nvbench-history: error: {bad}: "
        assert lines[0].startswith(head), lines
        said.append(lines[0][len(head) :].removesuffix("; nothing written"))
    assert len(set(said)) == 1, said


def test_a_baseline_of_one_run_given_alone_is_refused_as_such(gpu_dir: Path) -> None:
    # The path as text was read as a list of one-character runs ('/: is a directory').
    from cuda.bench.history.baseline import check_baseline

    for alone in (str(gpu_dir / "gpu_ref.json"), gpu_dir / "gpu_ref.json"):
        with pytest.raises(TypeError, match=r"^runs must be a list of runs"):
            check_baseline(alone)  # type: ignore[arg-type]
