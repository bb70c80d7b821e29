"""``cuda.bench.adapters.samples``: plain sample lists → NVBench results (no torch needed).

Oracles: the spec's CPU-only and cold summary catalogs (§5.3.1, §5.3.3), nearest-rank
statistics (§6.4), the side-file layout (§7), and the comparison engine on synthetic samples
whose difference is known exactly.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cuda.bench.adapters.samples import StateSamples, add_samples, samples_to_result
from cuda.bench.compare import Reason, Status, compare
from cuda.bench.results import (
    BenchmarkResult,
    DeviceSpec,
    ResultBuilder,
    UserSummary,
    element_count_summary,
)

#: §5.3.3 rows 1-11 and 14-15 (no throughput counts given), in emission order.
CPU_ONLY_TAGS = [
    "nv/cpu_only/sample_size",
    "nv/cpu_only/time/cpu/min",
    "nv/cpu_only/time/cpu/max",
    "nv/cpu_only/time/cpu/mean",
    "nv/cpu_only/time/cpu/stdev/absolute",
    "nv/cpu_only/time/cpu/stdev/relative",
    "nv/cpu_only/time/cpu/q1",
    "nv/cpu_only/time/cpu/median",
    "nv/cpu_only/time/cpu/q3",
    "nv/cpu_only/time/cpu/iqr/absolute",
    "nv/cpu_only/time/cpu/iqr/relative",
    "nv/cpu_only/walltime",
    "nv/json/bin:nv/cpu_only/sample_times",
]


def lognormal(seed: int, center: float, count: int = 40, spread: float = 0.02) -> np.ndarray:
    return center * np.random.default_rng(seed).lognormal(0.0, spread, count)


def raw(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text())
    return document


def nearest_rank(samples: np.ndarray, percent: int) -> float:
    ordered = np.sort(samples)
    return float(ordered[int(np.floor(percent / 100 * (len(ordered) - 1) + 0.5))])


# -- input forms and axes -----------------------------------------------------------------------


def test_mapping_of_benchmarks_without_axes(tmp_path: Path) -> None:
    times = lognormal(1, 1e-3)
    result = samples_to_result({"noop": times, "sort": 2 * times}, tmp_path / "r.json", argv=["x"])
    assert list(result) == ["noop", "sort"]
    state = result["noop"][0]
    assert state.state_name == "" and state.axis_values == ()
    assert state.is_cpu_only and state.device is None
    np.testing.assert_array_equal(state.samples, times.astype(np.float32))
    assert result.meta.argv == ("x",)


def test_triples_declare_typed_axes_in_nvbench_order(tmp_path: Path) -> None:
    samples = [
        ("sort", {"n": 4096, "algo": "radix", "load": 0.5}, lognormal(1, 2e-3)),
        ("sort", {"n": 1024, "algo": "radix", "load": 1}, lognormal(2, 1e-3)),
        ("sort", {"n": 1024, "algo": "merge", "load": 0.5}, lognormal(3, 1e-3)),
    ]
    result = samples_to_result(samples, tmp_path / "r.json")
    bench = result["sort"]
    assert [(a.name, a.type) for a in bench.axes] == [
        ("n", "int64"),
        ("algo", "string"),
        ("load", "float64"),
    ]
    # Numbers ascending, strings in first-seen order.
    assert [v.input_string for v in bench.axis("n").values] == ["1024", "4096"]
    assert [v.input_string for v in bench.axis("algo").values] == ["radix", "merge"]
    assert [v.input_string for v in bench.axis("load").values] == ["0.5", "1"]
    # States in NVBench's odometer order (first axis fastest), only those given.
    assert [s.state_name for s in bench] == [
        "n=4096 algo=radix load=0.5",
        "n=1024 algo=merge load=0.5",
        "n=1024 algo=radix load=1",
    ]
    assert [s.sample_count for s in bench] == [40, 40, 40]


def test_state_samples_carry_counts_walltime_and_summaries(tmp_path: Path) -> None:
    times = lognormal(4, 5e-4, count=10)
    state = StateSamples(
        "copy",
        times,
        axes={"bytes": 1 << 20},
        walltime=1.25,
        element_count=1 << 18,
        global_memory_bytes=1 << 21,
        summaries=(
            element_count_summary(1 << 18, "Items"),
            UserSummary(tag="my/note", value="hello", name="Note", hide="Hidden by default."),
        ),
    )
    result = samples_to_result([state], tmp_path / "r.json")
    loaded = result["copy"][0]
    assert loaded.value("nv/cpu_only/walltime") == 1.25
    mean = float(np.mean(times))
    assert loaded.value("nv/cpu_only/bw/item_rate") == pytest.approx((1 << 18) / mean)
    assert loaded.value("nv/cpu_only/bw/global/bytes_per_second") == pytest.approx((1 << 21) / mean)
    # Extra summaries come after the measurement and its side-file reference.
    assert loaded.tags[-2:] == ("nv/element_count/Items", "my/note")
    assert loaded.summaries["my/note"].is_hidden


# -- NVBench structure --------------------------------------------------------------------------


def test_cpu_only_file_structure_matches_the_spec(tmp_path: Path) -> None:
    times = lognormal(5, 1e-4, count=25)
    path = tmp_path / "cpu.json"
    samples_to_result([("b", {"k": "x"}, times)], path)
    document = raw(path)
    assert document["devices"] is None
    bench = document["benchmarks"][0]
    assert bench["devices"] is None
    state = bench["states"][0]
    assert state["name"] == "k=x" and state["device"] == 0 and state["is_skipped"] is False
    assert [s["tag"] for s in state["summaries"]] == CPU_ONLY_TAGS
    side = state["summaries"][-1]["data"]
    assert side == [
        {"name": "filename", "type": "string", "value": "cpu.json-bin/0.bin"},
        {"name": "size", "type": "int64", "value": "25"},
    ]
    on_disk = np.fromfile(tmp_path / "cpu.json-bin" / "0.bin", dtype="<f4")
    np.testing.assert_array_equal(on_disk, times.astype(np.float32))
    assert not (tmp_path / "cpu.json-freqs-bin").exists()


def test_summaries_are_nvbench_statistics(tmp_path: Path) -> None:
    times = lognormal(6, 3e-5, count=33)
    state = samples_to_result({"s": times}, tmp_path / "r.json")["s"][0]
    assert state.value("nv/cpu_only/sample_size") == 33
    for percent, tag in ((25, "q1"), (50, "median"), (75, "q3")):
        assert state.value(f"nv/cpu_only/time/cpu/{tag}") == nearest_rank(times, percent)
    assert state.value("nv/cpu_only/time/cpu/min") == times.min()
    assert state.value("nv/cpu_only/time/cpu/mean") == pytest.approx(times.mean(), rel=1e-12)
    assert state.value("nv/cpu_only/time/cpu/stdev/absolute") == pytest.approx(
        times.std(ddof=1), rel=1e-9
    )
    assert state.value("nv/cpu_only/walltime") == pytest.approx(times.sum(), rel=1e-12)


def test_few_samples_follow_the_degenerate_rules(tmp_path: Path) -> None:
    state = samples_to_result({"s": [2e-3, 1e-3, 3e-3]}, tmp_path / "r.json")["s"][0]
    assert state.value("nv/cpu_only/time/cpu/stdev/relative") == float("inf")
    assert not state.has_summary("nv/cpu_only/time/cpu/iqr/relative")
    assert state.value("nv/cpu_only/time/cpu/median") == 2e-3


def test_gpu_device_gives_cold_summaries_without_clocks(tmp_path: Path) -> None:
    times = lognormal(7, 2e-5, count=30)
    path = tmp_path / "gpu.json"
    result = samples_to_result({"k": times}, path, device=DeviceSpec.a100(1))
    assert list(result.devices) == [1]
    state = result["k"][0]
    assert state.state_name == "Device=1" and state.device == 1 and not state.is_cpu_only
    tags = state.tags
    assert "nv/cold/time/gpu/median" in tags and "nv/cold/time/cpu/median" in tags
    assert not any(tag.startswith(("nv/cpu_only/", "nv/cold/sm_clock_rate")) for tag in tags)
    assert state.value("nv/cold/time/gpu/median") == state.value("nv/cold/time/cpu/median")
    np.testing.assert_array_equal(state.samples, times.astype(np.float32))
    assert state.frequencies is None
    assert not (tmp_path / "gpu.json-freqs-bin").exists()
    assert raw(path)["benchmarks"][0]["devices"] == [1]


def test_without_jsonbin_no_side_files(tmp_path: Path) -> None:
    result = samples_to_result({"s": lognormal(8, 1e-3)}, tmp_path / "r.json", jsonbin=False)
    state = result["s"][0]
    assert state.samples is None and state.sample_count == 40
    assert not (tmp_path / "r.json-bin").exists()


def test_add_samples_composes_cpu_and_gpu_benchmarks(tmp_path: Path) -> None:
    builder = ResultBuilder(devices=[DeviceSpec.h100(0)], argv=["mixed"])
    add_samples(builder, {"host": lognormal(9, 1e-3)})
    add_samples(builder, [("kernel", {"n": 1}, lognormal(10, 1e-5))], device=0)
    builder.write(tmp_path / "mixed.json")
    result = BenchmarkResult(tmp_path / "mixed.json")
    assert result["host"].is_cpu_only and not result["kernel"].is_cpu_only
    assert result["kernel"][0].state_name == "Device=0 n=1"
    assert all(state.samples is not None for state in result.states())


# -- errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("samples", "error", "match"),
    [
        ([("b", {"a": 1}, [1.0]), ("b", {"a": "x"}, [1.0])], TypeError, "mixes text and numbers"),
        ([("b", {"a": True}, [1.0])], TypeError, "bool"),
        ([("b", {"a": float("nan")}, [1.0])], ValueError, "NaN"),
        ([("b", {"a": 1}, [1.0]), ("b", {"c": 1}, [1.0])], ValueError, "must name the axes"),
        ([("b", {"a": 1}, [1.0]), ("b", {"a": 1.0}, [2.0])], ValueError, "given twice"),
        ({"b": []}, ValueError, "no samples"),
        ({"b": [1.0, float("inf")]}, ValueError, "finite and non-negative"),
        ({"b": [1.0, -1.0]}, ValueError, "finite and non-negative"),
        ({"b": [[1.0, 2.0]]}, ValueError, "flat list"),
        ({"b": ["fast"]}, TypeError, "must be numbers"),
        ([("b", [1.0])], TypeError, "expected StateSamples"),
        ({("b", "a=1"): [1.0]}, TypeError, "mapping keys are benchmark names"),
    ],
)
def test_unusable_input_is_rejected_before_writing(
    tmp_path: Path, samples: Any, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        samples_to_result(samples, tmp_path / "r.json")
    assert list(tmp_path.iterdir()) == []


def test_add_samples_leaves_the_builder_unchanged_on_error() -> None:
    builder = ResultBuilder(devices=[], argv=["x"])
    with pytest.raises(ValueError, match="no samples"):
        add_samples(builder, {"good": [1.0], "bad": []})
    assert builder.build().document.benchmarks is None


# -- comparisons of adapter output --------------------------------------------------------------


def write_pair(
    tmp_path: Path, factor: float, device: DeviceSpec | None = None
) -> tuple[Path, Path]:
    """Two runs of benchmark ``k``: state ``v=a`` unchanged, state ``v=b`` ``factor`` slower."""
    ref, cmp = tmp_path / "ref.json", tmp_path / "cmp.json"
    samples_to_result(
        [("k", {"v": "a"}, lognormal(1, 1e-3)), ("k", {"v": "b"}, lognormal(2, 1e-3))],
        ref,
        device=device,
    )
    samples_to_result(
        [("k", {"v": "a"}, lognormal(1, 1e-3)), ("k", {"v": "b"}, lognormal(3, factor * 1e-3))],
        cmp,
        device=device,
    )
    return ref, cmp


def statuses(ref: Path, cmp: Path, **options: Any) -> dict[str, tuple[Status, Reason]]:
    comparison = compare(ref, cmp, **options)
    return {row.key: (row.status, row.reason) for row in comparison}


def test_identical_samples_compare_same(tmp_path: Path) -> None:
    ref, cmp = write_pair(tmp_path, 1.0)
    comparison = compare(ref, ref, method="robust")
    assert {row.status for row in comparison} == {Status.SAME}
    assert len(comparison) == 2 and cmp.exists()


def test_robust_finds_the_cpu_gap_in_the_right_direction(tmp_path: Path) -> None:
    ref, cmp = write_pair(tmp_path, 3.0)
    comparison = compare(ref, cmp, method="robust")
    rows = {row.key: row for row in comparison}
    assert rows["v=a"].status is Status.SAME
    # robust never confirms a CPU-only gap (no SM clock): AMBG with a reason saying why.
    slow = rows["v=b"]
    assert (slow.status, slow.reason) == (Status.AMBG, Reason.CLEAR_GAP_CPU_ONLY)
    assert "slower" in slow.verdict.text
    assert slow.frac_diff == pytest.approx(2.0, rel=0.1)
    reverse = {row.key: row for row in compare(cmp, ref, method="robust")}["v=b"]
    assert reverse.reason is Reason.CLEAR_GAP_CPU_ONLY and "faster" in reverse.verdict.text


def test_gpu_results_without_clocks_cannot_confirm_a_gap_with_robust(tmp_path: Path) -> None:
    ref, cmp = write_pair(tmp_path, 3.0, device=DeviceSpec.h100(0))
    found = statuses(ref, cmp, method="robust")
    assert found["v=a"][0] is Status.SAME
    assert found["v=b"] == (Status.AMBG, Reason.MISSING_CLOCK_RATE)


def _deciding_methods() -> list[str]:
    from cuda.bench.compare.choices import METHOD_NAMES

    return [name for name in METHOD_NAMES if name != "robust"]


@pytest.mark.parametrize("method", _deciding_methods() or ["(none yet)"])
def test_methods_that_decide_without_clocks_call_slow_and_fast(tmp_path: Path, method: str) -> None:
    if method == "(none yet)":
        pytest.skip("only 'robust' is registered; it leaves unclocked gaps AMBG (tested above)")
    ref, cmp = write_pair(tmp_path, 3.0)
    assert statuses(ref, cmp, method=method)["v=b"][0] is Status.SLOW
    assert statuses(cmp, ref, method=method)["v=b"][0] is Status.FAST
