"""``cuda.bench.adapters.torch`` with real ``torch.utils.benchmark`` measurements.

Timings are tiny CPU statements measured with few runs; the comparison tests use sleeps that
differ sixfold, so their verdicts do not depend on how busy the machine is.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from conftest import import_torch

torch = import_torch()

from cuda.bench.adapters.torch import (  # noqa: E402
    MISSING_AXIS_VALUE,
    device_spec_from_properties,
    group_by_env,
    measurement_samples,
    measurements_to_result,
)
from cuda.bench.compare import Reason, Status, compare  # noqa: E402
from cuda.bench.compare.choices import METHOD_NAMES  # noqa: E402
from cuda.bench.results import BenchmarkResult, DeviceSpec  # noqa: E402
from torch.utils import benchmark  # noqa: E402

Timer = benchmark.Timer
Measurement = benchmark.Measurement


def add_timer(**task: Any) -> Any:
    x = torch.ones(8)
    return Timer("x + x", globals={"x": x}, **task)


def replicates(timer: Any, count: int, number: int = 20) -> list[Any]:
    return [timer.timeit(number) for _ in range(count)]


def sleeper(seconds: float, **task: Any) -> Any:
    return Timer("time.sleep(d)", globals={"time": time, "d": seconds}, **task)


# -- samples, replicates, metadata ---------------------------------------------------------------


def test_timeit_replicates_become_the_samples_of_one_state(tmp_path: Path) -> None:
    timer = add_timer(label="add", sub_label="small", description="f32")
    measurements = replicates(timer, 6, number=20)
    result = measurements_to_result(measurements, tmp_path / "add.json", argv=["bench.py"])
    assert isinstance(result, BenchmarkResult) and list(result) == ["add"]
    bench = result["add"]
    assert [(a.name, a.type) for a in bench.axes] == [
        ("sub_label", "string"),
        ("description", "string"),
        ("num_threads", "int64"),
    ]
    (state,) = bench
    assert state.state_name == "sub_label=small description=f32 num_threads=1"
    assert state.is_cpu_only and result.devices == {}
    # raw_times are per-run totals of number_per_run executions: one sample per run.
    raw = np.array([m.raw_times[0] for m in measurements])
    np.testing.assert_array_equal(state.samples, (raw / 20).astype(np.float32))
    assert state.sample_count == 6
    assert state.value("nv/cpu_only/walltime") == pytest.approx(raw.sum(), rel=1e-12)
    assert state.value("torch/stmt") == "x + x"
    assert state.value("torch/setup") == "pass"
    assert state.value("torch/number_per_run") == 20
    assert state.value("torch/replicates") == 6
    assert state.value("torch/version") == str(torch.__version__)
    assert not state.has_summary("torch/env") and not state.has_summary("torch/global_setup")
    assert all(state.summaries[tag].is_hidden for tag in state.tags if tag.startswith("torch/"))
    assert result.meta.argv == ("bench.py",)


def test_blocked_autorange_runs_are_samples(tmp_path: Path) -> None:
    measurement = sleeper(2e-4, label="nap").blocked_autorange(min_run_time=0.02)
    state = measurements_to_result(measurement, tmp_path / "nap.json")["nap"][0]
    assert state.sample_count == len(measurement.raw_times) >= 1
    expected = np.array(measurement.raw_times) / measurement.number_per_run
    np.testing.assert_array_equal(state.samples, expected.astype(np.float32))
    assert state.value("torch/number_per_run") == measurement.number_per_run
    # The per-execution times are what torch itself reports.
    assert float(np.median(state.samples)) == pytest.approx(measurement.median, rel=1e-3)


def test_merge_output_gives_the_same_samples(tmp_path: Path) -> None:
    timer = add_timer(label="add")
    measurements = replicates(timer, 3, number=10) + replicates(timer, 2, number=30)
    (merged,) = Measurement.merge(measurements)
    ours = measurements_to_result(measurements, tmp_path / "ours.json")["add"][0]
    theirs = measurements_to_result(merged, tmp_path / "merged.json")["add"][0]
    np.testing.assert_array_equal(ours.samples, theirs.samples)
    # Mixed block sizes have no single number_per_run; torch's merge normalizes to 1.
    assert not ours.has_summary("torch/number_per_run")
    assert theirs.value("torch/number_per_run") == 1
    assert (ours.value("torch/replicates"), theirs.value("torch/replicates")) == (5, 1)


def test_optional_axes_appear_only_where_used(tmp_path: Path) -> None:
    measurements = [
        add_timer(label="op", sub_label="a").timeit(5),
        add_timer(label="op").timeit(5),
        add_timer(label="op", sub_label="a", num_threads=2).timeit(5),
        add_timer(label="plain").timeit(5),
    ]
    result = measurements_to_result(measurements, tmp_path / "r.json")
    op = result["op"]
    assert [a.name for a in op.axes] == ["sub_label", "num_threads"]
    assert [v.input_string for v in op.axis("sub_label").values] == ["a", MISSING_AXIS_VALUE]
    assert [v.value for v in op.axis("num_threads").values] == [1, 2]
    assert sorted(s.state_name for s in op) == [
        "sub_label=- num_threads=1",
        "sub_label=a num_threads=1",
        "sub_label=a num_threads=2",
    ]
    assert [a.name for a in result["plain"].axes] == ["num_threads"]


def test_unlabelled_measurements_are_named_by_their_statement(tmp_path: Path) -> None:
    result = measurements_to_result(add_timer().timeit(5), tmp_path / "r.json")
    assert list(result) == ["x + x"]
    multi_line = Timer("y = 1\ny + 1").timeit(5)
    with pytest.raises(ValueError, match="label="):
        measurement_samples([multi_line])


def test_replicates_must_be_the_same_task() -> None:
    a = add_timer(label="op", env="A").timeit(5)
    b = add_timer(label="op", env="B").timeit(5)
    with pytest.raises(ValueError, match=r"differ in env.*group_by_env"):
        measurement_samples([a, b])
    other = Timer("x * x", globals={"x": torch.ones(2)}, label="op").timeit(5)
    with pytest.raises(ValueError, match=r"differ in stmt.*sub_label or description"):
        measurement_samples([add_timer(label="op").timeit(5), other])


def test_group_by_env_splits_an_ab_experiment(tmp_path: Path) -> None:
    measurements = [add_timer(label="op", env=env).timeit(5) for env in ("A", "B", "A")]
    groups = group_by_env(measurements)
    assert list(groups) == ["A", "B"] and [len(g) for g in groups.values()] == [2, 1]
    for env, group in groups.items():
        state = measurements_to_result(group, tmp_path / f"{env}.json")["op"][0]
        assert state.value("torch/env") == env
        assert state.sample_count == len(group)
    # The two files hold the same state, so they compare row by row.
    assert len(compare(tmp_path / "A.json", tmp_path / "B.json")) == 1


def test_measurement_metadata_that_replicates_share_is_kept(tmp_path: Path) -> None:
    first, second = replicates(add_timer(label="op"), 2, number=5)
    first.metadata = {"commit": "abc", "batch": 32, "ratio": 0.5, "flag": True, 3: "x", "n": 1}
    second.metadata = {"commit": "abc", "batch": 32, "ratio": 0.5, "flag": True, "n": 2}
    state = measurements_to_result([first, second], tmp_path / "r.json")["op"][0]
    kept = {tag: state.value(tag) for tag in state.tags if tag.startswith("torch/metadata/")}
    assert kept == {
        "torch/metadata/commit": "abc",
        "torch/metadata/batch": 32,
        "torch/metadata/ratio": 0.5,
    }


def test_everything_in_the_file_is_read_back_by_the_reader(tmp_path: Path) -> None:
    timer = add_timer(label="add", sub_label="s")
    result = measurements_to_result(replicates(timer, 8, number=5), tmp_path / "r.json")
    frame = result.to_dataframe()
    assert frame.loc[0, "torch/stmt"] == "x + x"
    assert frame.loc[0, "nv/cpu_only/sample_size"] == 8
    assert list(result.centers(np.median)) == ["add"]
    # Reading the file again from disk gives the same samples.
    again = BenchmarkResult(tmp_path / "r.json")["add"][0]
    np.testing.assert_array_equal(again.samples, result["add"][0].samples)


# -- devices -------------------------------------------------------------------------------------


def test_cpu_device_names_mean_cpu_only(tmp_path: Path) -> None:
    measurement = add_timer(label="op").timeit(5)
    for device in (None, "cpu", torch.device("cpu")):
        result = measurements_to_result(measurement, tmp_path / "r.json", device=device)
        assert result["op"].is_cpu_only


def test_a_device_spec_marks_gpu_timings(tmp_path: Path) -> None:
    measurements = replicates(add_timer(label="op"), 5, number=5)
    result = measurements_to_result(measurements, tmp_path / "g.json", device=DeviceSpec.h100(0))
    state = result["op"][0]
    assert state.state_name == "Device=0 num_threads=1" and state.device == 0
    assert state.value("nv/cold/sample_size") == 5
    assert state.value("nv/cold/time/gpu/median") == state.value("nv/cold/time/cpu/median")
    assert not state.has_summary("nv/cold/sm_clock_rate/mean") and state.frequencies is None
    assert state.value("torch/replicates") == 5


@pytest.mark.parametrize(
    ("device", "error", "match"),
    [
        ("mps", ValueError, "CUDA devices"),
        (torch.device("meta"), ValueError, "CUDA devices"),
        ("cuda:x", ValueError, "not a device"),
        (-1, ValueError, "non-negative"),
        (True, TypeError, "device must be"),
    ],
)
def test_unusable_devices_are_rejected(
    tmp_path: Path, device: Any, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        measurements_to_result(add_timer(label="op").timeit(5), tmp_path / "r.json", device=device)
    assert not (tmp_path / "r.json").exists()


@pytest.mark.skipif(torch.cuda.is_available(), reason="tests the machine without CUDA")
@pytest.mark.parametrize("device", [0, "cuda", "cuda:1", torch.device("cuda")])
def test_cuda_without_a_gpu_says_so(tmp_path: Path, device: Any) -> None:
    with pytest.raises(RuntimeError, match=r"no CUDA device.*DeviceSpec"):
        measurements_to_result(add_timer(label="op").timeit(5), tmp_path / "r.json", device=device)
    assert not (tmp_path / "r.json").exists()


def test_device_fields_from_torch_properties() -> None:
    properties = SimpleNamespace(
        name="NVIDIA GeForce RTX 3080",
        major=8,
        minor=6,
        multi_processor_count=68,
        total_memory=10 * 2**30,
        max_threads_per_multi_processor=1536,
        L2_cache_size=5 * 2**20,
        clock_rate=1_710_000,  # kHz, as cudaDeviceProp reports it
        memory_clock_rate=9_501_000,
        memory_bus_width=320,
        shared_memory_per_block=49152,
        shared_memory_per_multiprocessor=102400,
    )
    spec = device_spec_from_properties(1, properties)
    assert (spec.id, spec.name, spec.sm_version) == (1, "NVIDIA GeForce RTX 3080", 860)
    assert spec.sm_default_clock_rate == 1_710_000_000
    assert spec.global_memory_bus_peak_clock_rate == 9_501_000_000
    assert spec.peak_bandwidth == 2 * 9_501_000_000 * 40
    assert (spec.number_of_sms, spec.l2_cache_size, spec.ptx_version) == (68, 5 * 2**20, -1)
    assert spec.registers_per_sm == 65536  # not reported by these properties


def test_not_a_measurement_is_a_type_error(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="Measurement"):
        measurements_to_result([add_timer(label="op")], tmp_path / "r.json")
    with pytest.raises(TypeError, match="Measurement"):
        measurements_to_result("x + x", tmp_path / "r.json")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no measurements"):
        measurements_to_result([], tmp_path / "r.json")


# -- comparisons of real timings -----------------------------------------------------------------


@pytest.fixture(scope="module")
def sleep_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """CPU and GPU-marked files of one state: a 0.5 ms sleep (fast) and a 3 ms one (slow)."""
    directory = tmp_path_factory.mktemp("sleeps")
    paths: dict[str, Path] = {}
    for name, seconds in (("fast", 5e-4), ("slow", 3e-3)):
        measurements = replicates(sleeper(seconds, label="sleep", sub_label="op"), 12, number=2)
        paths[name] = directory / f"{name}.json"
        measurements_to_result(measurements, paths[name])
        paths[f"gpu_{name}"] = directory / f"gpu_{name}.json"
        measurements_to_result(measurements, paths[f"gpu_{name}"], device=DeviceSpec.h100(0))
    return paths


def only_row(ref: Path, cmp: Path, method: str) -> Any:
    (row,) = compare(ref, cmp, method=method).rows
    return row


def test_robust_sees_the_sixfold_gap_but_cannot_confirm_it(sleep_runs: dict[str, Path]) -> None:
    slower = only_row(sleep_runs["fast"], sleep_runs["slow"], "robust")
    assert (slower.status, slower.reason) == (Status.AMBG, Reason.CLEAR_GAP_CPU_ONLY)
    assert "slower" in slower.verdict.text and slower.frac_diff > 2
    faster = only_row(sleep_runs["slow"], sleep_runs["fast"], "robust")
    assert faster.reason is Reason.CLEAR_GAP_CPU_ONLY and "faster" in faster.verdict.text
    gpu = only_row(sleep_runs["gpu_fast"], sleep_runs["gpu_slow"], "robust")
    assert (gpu.status, gpu.reason) == (Status.AMBG, Reason.MISSING_CLOCK_RATE)


@pytest.mark.parametrize("method", [m for m in METHOD_NAMES if m != "robust"] or ["(none yet)"])
@pytest.mark.parametrize("kind", ["", "gpu_"])
def test_methods_deciding_without_clocks_call_slow_and_fast(
    sleep_runs: dict[str, Path], method: str, kind: str
) -> None:
    if method == "(none yet)":
        pytest.skip("only 'robust' is registered; it leaves unclocked gaps AMBG (tested above)")
    fast, slow = sleep_runs[f"{kind}fast"], sleep_runs[f"{kind}slow"]
    assert only_row(fast, slow, method).status is Status.SLOW
    assert only_row(slow, fast, method).status is Status.FAST


def test_nvbench_compare_gates_on_the_adapter_files(sleep_runs: dict[str, Path]) -> None:
    command = [sys.executable, "-m", "cuda.bench.compare", "--method", "robust", "--no-color"]
    files = [str(sleep_runs["fast"]), str(sleep_runs["slow"])]
    caught = subprocess.run(
        [*command, *files, "--fail-on", "ambiguous"], capture_output=True, text=True, check=False
    )
    assert caught.returncode == 1, caught.stderr
    assert "sleep" in caught.stdout and "sub_label" in caught.stdout
    same = subprocess.run(
        [*command, files[0], files[0], "--fail-on", "slow,ambiguous"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert same.returncode == 0, same.stdout + same.stderr
