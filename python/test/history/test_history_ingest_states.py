"""What ``nvbench-history ingest`` refuses in one state of a run: no time at all, a GPU
state on no device of its benchmark, a side file of the wrong size; and how ``baseline
check`` and ``gate`` name the same problems.

Input: the example runs in ``python/examples/data`` (copied, then edited).
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _ingest_refusal import refused_line
from cuda.bench.cli.history import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "data"
#: The edited state (the second of ref.json), as the one-line errors name it.
STATE = "benchmark 'reduce' device 0 state 'T=F32 Elements=2^20'"
_TIMES = "nv/json/bin:nv/cold/sample_times"


@pytest.fixture
def data(tmp_path: Path) -> Path:
    copied = tmp_path / "data"
    shutil.copytree(EXAMPLES, copied)
    return copied


def _edited(data: Path, name: str, edit: Callable[[dict[str, Any]], None]) -> Path:
    """ref.json with its second state edited, written as ``name`` beside its side files."""
    document = json.loads((data / "ref.json").read_text())
    edit(document["benchmarks"][0]["states"][1])
    out = data / name
    out.write_text(json.dumps(document))
    return out


def _without(*tags: str) -> Callable[[dict[str, Any]], None]:
    def edit(state: dict[str, Any]) -> None:
        state["summaries"] = [one for one in state["summaries"] if one["tag"] not in tags]

    return edit


def _refused(tmp_path: Path, data: Path, bad: Path, capsys: pytest.CaptureFixture[str]) -> str:
    return refused_line(tmp_path, data / "cmp.json", bad, capsys)


# Each was archived (exit 0, no warning) with a null median; every series then left the run
# out, so trend counted one run fewer without a word.
@pytest.mark.parametrize(
    "edit",
    [
        lambda state: state.update(summaries=None),
        lambda state: state.update(summaries=[]),
        _without("nv/cold/time/gpu/median", "nv/cold/time/gpu/mean", _TIMES),
    ],
    ids=["summaries-null", "summaries-empty", "no-median-mean-or-samples"],
)
def test_ingest_refuses_a_measured_state_without_a_time(
    tmp_path: Path,
    data: Path,
    capsys: pytest.CaptureFixture[str],
    edit: Callable[[dict[str, Any]], None],
) -> None:
    line = _refused(tmp_path, data, _edited(data, "bad.json", edit), capsys)
    assert line.startswith(f"nvbench-history: error: {data / 'bad.json'}: {STATE} has no time")
    assert "nv/cold/time/gpu/median" in line and line.endswith("nothing written")


def test_a_state_with_a_mean_and_no_median_is_archived_from_its_mean(
    tmp_path: Path, data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """NVBench before 2025 wrote the mean only: such a state is a time, counted by trend."""
    old = _edited(data, "old.json", _without("nv/cold/time/gpu/median", _TIMES))
    archive = str(tmp_path / "archive")
    assert main(["ingest", "--archive", archive, "--commit", "c0", str(data / "cmp.json")]) == 0
    assert main(["ingest", "--archive", archive, "--commit", "c1", str(old)]) == 0
    capsys.readouterr()
    assert main(["trend", "--archive", archive, "-a", "Elements=2^20", "-a", "T=F32"]) == 0
    (row,) = [line for line in capsys.readouterr().out.splitlines() if "Elements=2^20" in line]
    assert row.split("|")[5].strip() == "2"


def test_baseline_check_says_median_null_as_ingest_does(
    tmp_path: Path, data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It said ``has median None`` where ingest says ``has median null`` (JSON's word)."""

    def edit(state: dict[str, Any]) -> None:
        _without(_TIMES)(state)  # else the samples' median stands in
        for one in state["summaries"]:
            if one["tag"] == "nv/cold/time/gpu/median":
                one["data"][0]["value"] = None

    bad = _edited(data, "bad.json", edit)
    runs = [str(bad), str(data / "ref.json"), str(data / "cmp.json")]
    assert main(["baseline", "check", *runs]) == 2
    err = capsys.readouterr().err
    assert err.strip().endswith(f"{bad}: {STATE} has median null, not a time"), err
    assert main(["ingest", "--archive", str(tmp_path / "a"), "--commit", "c", str(bad)]) == 2
    assert f"{STATE} has median null, not a time" in capsys.readouterr().err


def test_baseline_check_takes_an_integer_median_as_ingest_does(
    tmp_path: Path, data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A median written as ``int64`` (a time of whole seconds) was refused by ``baseline
    check`` ("has median 2, not a time", exit 2) while ``ingest`` and the comparison take
    it: the check now holds a median to the same rule as they do."""

    def edit(state: dict[str, Any]) -> None:
        _without(_TIMES)(state)  # else the samples' median stands in
        for one in state["summaries"]:
            if one["tag"] == "nv/cold/time/gpu/median":
                one["data"][0].update(type="int64", value="2")

    whole = _edited(data, "whole.json", edit)
    runs = [str(whole), str(data / "ref.json"), str(data / "cmp.json")]
    code = main(["baseline", "check", *runs])
    err = capsys.readouterr().err
    assert "not a time" not in err and code != 2, err
    assert main(["ingest", "--archive", str(tmp_path / "a"), "--commit", "c", str(whole)]) == 0
    # The state's runs disagree (2 s against microseconds): the rule names it, exit 1.
    assert code == 1


@pytest.mark.parametrize(("device", "shown"), [(None, "null"), (3, "3")])
def test_ingest_refuses_a_gpu_state_on_no_device_of_its_benchmark(
    tmp_path: Path,
    data: Path,
    capsys: pytest.CaptureFixture[str],
    device: int | None,
    shown: str,
) -> None:
    """nvbench_compare warns and leaves such a state out; ingest archived it (device null
    in the archive is a CPU-only state's), and every later gate warned about it."""
    bad = _edited(data, "bad.json", lambda state: state.update(device=device))
    line = _refused(tmp_path, data, bad, capsys)
    assert f"{bad}: benchmark 'reduce' " in line and "state 'T=F32 Elements=2^20'" in line
    assert f"ran on device {shown}" in line and "not one of the benchmark's devices (0)" in line


def test_ingest_refuses_a_device_the_files_device_list_does_not_describe(
    tmp_path: Path, data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file whose top-level device list lacks a benchmark's device was archived (exit 0);
    nvbench_compare refuses it, and the gate then failed on every night with "the device
    list of 'None' does not describe it"."""
    document = json.loads((data / "ref.json").read_text())
    document["devices"] = []
    bad = data / "undescribed.json"
    bad.write_text(json.dumps(document))
    line = _refused(tmp_path, data, bad, capsys)
    assert f"{bad}: benchmark 'reduce' ran on device 0" in line
    assert "device list does not describe it; nothing written" in line


def test_the_gate_names_no_file_none_for_an_archived_stray_state(
    tmp_path: Path, data: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An archive written before ingest refused a device-null GPU state: every gate
    printed ``warning: None: benchmark 'reduce': state ... ran on device None``, a line
    about the gate's own rebuilt reference run (which has no file) named as a file "None"."""
    bad = _edited(data, "stray.json", lambda state: state.update(device=None))
    archive = str(tmp_path / "archive")
    assert main(["ingest", "--archive", archive, "--commit", "c0", str(data / "ref.json")]) == 0
    archive_module = sys.modules["cuda.bench.history.archive"]
    monkeypatch.setattr(archive_module, "_check_devices", lambda *_: None, raising=False)
    assert main(["ingest", "--archive", archive, "--commit", "c1", str(bad)]) == 0
    monkeypatch.undo()
    capsys.readouterr()
    assert main(["gate", "--archive", archive, str(data / "cmp.json")]) in (0, 1)
    err = capsys.readouterr().err
    assert "None:" not in err and "ran on device None" not in err, err
    # The archive's row is named, with the archive, by every command that reads it.
    row = "1 state row(s) of a GPU benchmark have no device"
    assert f"{archive}: {row}" in err and "reduce 'T=F32 Elements=2^20'" in err, err
    assert main(["trend", "--archive", archive]) == 0
    assert f"warning: {archive}: {row}" in capsys.readouterr().err
    # Tonight's own stray state is refused, as ingest refuses it, naming its file.
    assert main(["gate", "--archive", archive, str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}: benchmark 'reduce' state 'T=F32 Elements=2^20' ran on device null" in err


@pytest.mark.parametrize("folder", ["ref.json-bin", "ref.json-freqs-bin"])
@pytest.mark.parametrize("samples", ["0", "8"])
def test_a_side_file_of_the_wrong_size_is_refused_in_a_line_naming_the_run(
    tmp_path: Path, data: Path, capsys: pytest.CaptureFixture[str], folder: str, samples: str
) -> None:
    """The line named the side file alone (``.../ref.json-bin/2.bin: side file holds 40
    bytes ...``), not the run's JSON file nor its state; a cut SM-clock file also left a
    fresh archive directory behind."""
    side = data / folder / "2.bin"
    side.write_bytes(side.read_bytes()[:40])
    archive = tmp_path / "fresh"
    argv = ["ingest", "--archive", str(archive), "--commit", "c1", "--samples", samples]
    assert main([*argv, str(data / "ref.json")]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    head = f"nvbench-history: error: {data / 'ref.json'}: benchmark 'reduce' device 0 state "
    assert err.startswith(head), err
    assert f"{side} (recorded in {data / 'ref.json'}): side file holds 40 bytes" in err
    assert err.strip().endswith("nothing written")
    assert not archive.exists()


def test_several_runs_are_all_checked_for_cut_side_files_before_any_is_written(
    tmp_path: Path, data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The checks of several runs read the sample times only: a cut SM-clock file of the
    second run was found while writing it, after the first run was archived."""
    side = data / "ref.json-freqs-bin" / "2.bin"
    side.write_bytes(side.read_bytes()[:40])
    archive = tmp_path / "archive"
    argv = ["ingest", "--archive", str(archive), "--commit", "c1"]
    assert main([*argv, str(data / "cmp.json"), str(data / "ref.json")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1, captured
    assert f"{data / 'ref.json'}: benchmark 'reduce'" in captured.err
    assert not archive.exists()


def _undescribed(data: Path) -> Path:
    document = json.loads((data / "ref.json").read_text())
    document["devices"] = []
    bad = data / "undescribed.json"
    bad.write_text(json.dumps(document))
    return bad


@pytest.mark.parametrize("problem", ["undescribed device", "state on no device"])
def test_gate_and_baseline_check_refuse_the_devices_ingest_refuses_naming_the_file(
    tmp_path: Path, data: Path, capsys: pytest.CaptureFixture[str], problem: str
) -> None:
    """The gate stopped with "the device list of 'None' does not describe it" (its
    reference, built from the archive, has no file name) or gated a state on no device of
    its benchmark with a warning, and ``baseline check`` accepted both, though ``ingest``
    refuses the run: each now refuses it as ingest does, naming the file."""
    if problem == "undescribed device":
        bad, said = _undescribed(data), "benchmark 'reduce' ran on device 0, but the file's"
    else:
        bad = _edited(data, "bad.json", lambda state: state.update(device=3))
        said = f"{STATE.replace('device 0', 'device 3')} ran on device 3, not one of"
    archive = tmp_path / "archive"
    ingest = ["ingest", "--archive", str(archive), "--commit", "c1", str(data / "ref.json")]
    assert main(ingest) == 0
    capsys.readouterr()
    assert main(["gate", "--archive", str(archive), str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{bad}: {said}" in err, err
    runs = [str(bad), str(data / "ref.json"), str(data / "cmp.json")]
    assert main(["baseline", "check", *runs]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{bad}: {said}" in err, err
