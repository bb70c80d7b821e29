"""Errors about a run's devices name the file, as typed: a state on device 99 that the file's
``devices`` list does not describe stopped the comparison with "benchmark 'copy_bench' has 3
reference device(s) but 2 compare device(s)", which names no file (with directories, the
user could not tell which pair of files it meant)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _cli_helpers import assert_usage_error, run_main


def _run_on_device_99(source: Path, target: Path, *, described: bool) -> Path:
    """``source`` with the states of its device 1 run on device 99. Described: device 1 is
    renamed 99 in the file's ``devices`` list and the benchmark's. Else the benchmark lists
    99 after 0 and 1, and the file's ``devices`` list does not describe it."""
    document: dict[str, Any] = json.loads(source.read_text(encoding="utf-8"))
    bench = document["benchmarks"][0]
    if described:
        for device in document["devices"]:
            if device["id"] == 1:
                device["id"] = 99
        bench["devices"] = [99 if device == 1 else device for device in bench["devices"]]
    else:
        bench["devices"] = [*bench["devices"], 99]
    for state in bench["states"]:
        if state["device"] == 1:
            state["device"] = 99
            state["name"] = state["name"].replace("Device=1 ", "Device=99 ")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(document), encoding="utf-8")
    return target


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("as_directories", [False, True])
def test_a_device_the_file_does_not_describe_names_the_file(
    as_directories: bool, gpu_dir: Path, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cuda.bench.cli.compare import main

    source = gpu_dir / "gpu_ref_nosidecar.json"
    _run_on_device_99(source, workdir / "before" / "run.json", described=False)
    cmp = workdir / "after" / "run.json"
    cmp.parent.mkdir()
    cmp.write_bytes(source.read_bytes())
    given = ("before", "after") if as_directories else ("before/run.json", "after/run.json")
    result = run_main(main, capsys, *given, "--no-color")
    assert_usage_error(
        result,
        "benchmark 'copy_bench' ran on device 99, but the device list of 'before/run.json' "
        "does not describe it",
    )
    assert str(workdir) not in result.err


def test_a_device_count_mismatch_names_both_files(
    gpu_dir: Path, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both files well-formed, one benchmark on other devices: the pairing error names them."""
    from cuda.bench.cli.compare import main

    source = gpu_dir / "gpu_ref_nosidecar.json"
    document: dict[str, Any] = json.loads(source.read_text(encoding="utf-8"))
    bench = document["benchmarks"][0]
    bench["devices"] = [0]
    bench["states"] = [state for state in bench["states"] if state["device"] == 0]
    ref = workdir / "one.json"
    ref.write_text(json.dumps(document), encoding="utf-8")
    result = run_main(main, capsys, "one.json", source, "--no-color")
    assert_usage_error(
        result,
        "benchmark 'copy_bench' has 1 reference device(s) (one.json) but 2 compare device(s) "
        f"({source})",
    )


def test_a_selected_device_not_in_the_file_names_it_as_typed(
    gpu_dir: Path, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cuda.bench.cli.compare import main

    ref = _run_on_device_99(
        gpu_dir / "gpu_ref_nosidecar.json", workdir / "r" / "run.json", described=True
    )
    result = run_main(
        main, capsys, "r/run.json", ref, "--reference-devices", "7", "--compare-devices", "0"
    )
    assert_usage_error(result, "--reference-devices device id(s) not present in input 'r/run.json'")
