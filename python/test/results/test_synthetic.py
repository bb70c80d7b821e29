"""Synthetic runs: reproducibility, the intended noise shapes, throttling and ground truth."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cuda.bench.results import _arithmetic
from cuda.bench.results._devices import DeviceSpec
from cuda.bench.results.synthetic import (
    BimodalClocks,
    HeavyTailNoise,
    LogNormalNoise,
    SyntheticConfig,
    build_run,
    state_keys,
    write_pair,
    write_run,
)

Samples = dict[tuple[str, str], tuple[np.ndarray[Any, Any], np.ndarray[Any, Any] | None]]


def read_samples(path: Path) -> Samples:
    """(benchmark, state) -> (times, freqs) from the side files, via the JSON references."""
    with path.open(encoding="utf-8") as stream:
        document = json.load(stream)
    result: Samples = {}
    for benchmark in document["benchmarks"]:
        for state in benchmark["states"]:
            files = {}
            for summary in state["summaries"] or []:
                if summary["tag"].startswith("nv/json/"):
                    data = {d["name"]: d["value"] for d in summary["data"]}
                    files[summary["hint"]] = np.fromfile(path.parent / data["filename"], "<f4")
            key = (benchmark["name"], state["name"])
            result[key] = (files["file/sample_times"], files.get("file/sample_freqs"))
    return result


def listing(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def relative_iqr(values: np.ndarray[Any, Any]) -> float:
    q1, median, q3 = _arithmetic.quartiles(values)
    return (q3 - q1) / median


SMALL = SyntheticConfig(benchmarks=2, states=3, samples=400)


def test_same_seed_gives_identical_bytes(tmp_path: Path) -> None:
    config = SyntheticConfig(benchmarks=2, states=3, samples=50, timer_resolution=0.5e-6)
    first = write_pair(tmp_path / "a", config, seed=42, ref_runs=2, random_shifts=1)
    second = write_pair(tmp_path / "b", config, seed=42, ref_runs=2, random_shifts=1)
    assert listing(tmp_path / "a") == listing(tmp_path / "b")
    assert first.truth == second.truth
    other = write_pair(tmp_path / "c", config, seed=43, ref_runs=2, random_shifts=1)
    assert listing(tmp_path / "c") != listing(tmp_path / "a")
    assert other.truth.states == first.truth.states


def test_runs_share_base_costs_but_not_noise(tmp_path: Path) -> None:
    pair = write_pair(tmp_path, SMALL, seed=3, ref_runs=2, cmp_runs=2)
    assert [p.name for p in pair.ref] == ["ref_0.json", "ref_1.json"]
    assert [p.name for p in pair.cmp] == ["cmp_0.json", "cmp_1.json"]
    runs = [read_samples(p) for p in (*pair.ref, *pair.cmp)]
    for key in pair.truth.states:
        medians = [float(np.median(run[key][0])) for run in runs]
        assert max(medians) / min(medians) < 1.01  # same base time, 1% noise
        assert not np.array_equal(runs[0][key][0], runs[1][key][0])


def test_sizes_and_structure_follow_the_config(tmp_path: Path) -> None:
    config = SyntheticConfig(
        benchmarks=3, states=4, samples=25, devices=(DeviceSpec.h100(0), DeviceSpec.a100(1))
    )
    write_run(tmp_path / "r.json", config, seed=0)
    with (tmp_path / "r.json").open() as stream:
        document = json.load(stream)
    assert [b["name"] for b in document["benchmarks"]] == ["bench_00", "bench_01", "bench_02"]
    for benchmark in document["benchmarks"]:
        assert benchmark["devices"] == [0, 1]
        assert len(benchmark["states"]) == 4 * 2
    samples = read_samples(tmp_path / "r.json")
    assert len(samples) == 3 * 4 * 2 == len(state_keys(config))
    assert all(t.size == 25 and f is not None and f.size == 25 for t, f in samples.values())
    assert list(samples) == list(state_keys(config))


def test_cpu_only_runs(tmp_path: Path) -> None:
    config = SyntheticConfig(benchmarks=1, states=2, samples=30, cpu_only=True)
    write_run(tmp_path / "host.json", config, seed=0)
    with (tmp_path / "host.json").open() as stream:
        document = json.load(stream)
    assert document["devices"] is None and document["benchmarks"][0]["devices"] is None
    state = document["benchmarks"][0]["states"][0]
    assert state["name"] == "Elements=1024"
    assert state["summaries"][0]["tag"] == "nv/cpu_only/sample_size"
    assert not (tmp_path / "host.json-freqs-bin").exists()
    times, freqs = read_samples(tmp_path / "host.json")[("bench_00", "Elements=1024")]
    assert freqs is None
    # Host timer: whole nanoseconds.
    nanoseconds = times.astype(np.float64) * 1e9
    assert np.allclose(nanoseconds, np.rint(nanoseconds), rtol=1e-6, atol=0)


def test_lognormal_shape_has_the_configured_spread() -> None:
    config = SyntheticConfig(benchmarks=1, states=2, samples=4000, shape=LogNormalNoise(0.02))
    built = build_run(config, seed=1).build()
    times, freqs = built.samples(0, 0)
    assert times is not None and freqs is not None
    log_spread = float(np.std(np.log(times.astype(np.float64))))
    assert log_spread == pytest.approx(0.02, rel=0.1)
    # Clock: the configured share of the default clock, small jitter.
    default = DeviceSpec.h100().sm_default_clock_rate
    assert float(np.median(freqs)) == pytest.approx(0.9 * default, rel=1e-3)
    assert relative_iqr(freqs) < 0.003


def test_bimodal_clocks_split_times_but_not_cycles() -> None:
    shape = BimodalClocks(low_fraction=0.3, low_clock_ratio=0.8, sigma=0.002)
    config = SyntheticConfig(benchmarks=1, states=1, samples=5000, shape=shape)
    times, freqs = build_run(config, seed=2).build().samples(0, 0)
    assert times is not None and freqs is not None
    clocks = freqs.astype(np.float64)
    high = float(np.max(clocks))
    low_mode = clocks < 0.9 * high
    assert low_mode.mean() == pytest.approx(0.3, abs=0.03)
    # Two tight clusters, 20% apart.
    assert np.median(clocks[low_mode]) / np.median(clocks[~low_mode]) == pytest.approx(
        0.8, rel=0.01
    )
    cycles = times.astype(np.float64) * clocks
    assert relative_iqr(cycles) < 0.01  # cycles stay unimodal and tight
    assert relative_iqr(times.astype(np.float64)) > 0.1  # times are spread over both modes


def test_heavy_tail_produces_rare_large_outliers() -> None:
    shape = HeavyTailNoise(sigma=0.005, outlier_fraction=0.05, outlier_scale=0.5, tail_index=1.2)
    config = SyntheticConfig(benchmarks=1, states=1, samples=20000, shape=shape)
    times, _ = build_run(config, seed=4).build().samples(0, 0)
    assert times is not None
    ratio = times.astype(np.float64) / np.median(times)
    outliers = ratio > 1.05
    assert outliers.mean() == pytest.approx(0.05 * 0.9, abs=0.02)  # most outliers are > 5%
    assert ratio.max() > 3.0
    assert relative_iqr(times.astype(np.float64)) < 0.02  # the bulk stays tight


def test_timer_quantization_repeats_values() -> None:
    resolution = 0.5e-6
    config = SyntheticConfig(
        benchmarks=1, states=1, samples=2000, timer_resolution=resolution, time_range=(5e-6, 5e-6)
    )
    times, _ = build_run(config, seed=5).build().samples(0, 0)
    assert times is not None
    ticks = times.astype(np.float64) / resolution
    assert np.allclose(ticks, np.rint(ticks), rtol=0, atol=1e-3)
    assert np.unique(times).size < 20  # CUDA-event-like granularity: many repeats
    exact = build_run(SyntheticConfig(benchmarks=1, states=1, samples=2000), seed=5)
    unquantized, _ = exact.build().samples(0, 0)
    assert unquantized is not None and np.unique(unquantized).size > 1900


def test_throttled_compare_run_keeps_cycles(tmp_path: Path) -> None:
    pair = write_pair(tmp_path, SMALL, seed=6, throttle=0.2)
    ref, cmp = read_samples(pair.ref[0]), read_samples(pair.cmp[0])
    for key in pair.truth.states:
        ref_times, ref_freqs = ref[key]
        cmp_times, cmp_freqs = cmp[key]
        assert ref_freqs is not None and cmp_freqs is not None
        assert np.median(cmp_freqs) / np.median(ref_freqs) == pytest.approx(0.8, rel=0.005)
        ref_cycles = np.median(ref_times.astype(np.float64) * ref_freqs)
        cmp_cycles = np.median(cmp_times.astype(np.float64) * cmp_freqs)
        assert cmp_cycles / ref_cycles == pytest.approx(1.0, abs=0.005)
        time_ratio = np.median(cmp_times) / np.median(ref_times)
        assert time_ratio == pytest.approx(pair.truth.time_factor(*key), rel=0.005)
        assert pair.truth.time_factor(*key) == pytest.approx(1.25)


def test_shift_bookkeeping_matches_the_data(tmp_path: Path) -> None:
    keys = state_keys(SMALL)
    explicit = {keys[0]: 1.5}
    pair = write_pair(
        tmp_path, SMALL, seed=8, shifts=explicit, random_shifts=2, shift_factors=(0.8, 1.25)
    )
    truth = pair.truth
    assert len(truth.shifts) == 3 and truth.shifts[keys[0]] == 1.5
    assert all(truth.shifts[k] in (0.8, 1.25) for k in truth.shifts if k != keys[0])
    assert set(truth.unchanged) == set(keys) - set(truth.shifts)
    ref, cmp = read_samples(pair.ref[0]), read_samples(pair.cmp[0])
    for key in keys:
        ratio = float(np.median(cmp[key][0]) / np.median(ref[key][0]))
        assert ratio == pytest.approx(truth.time_factor(*key), rel=0.005), key
        assert truth.cycle_factor(*key) == truth.shifts.get(key, 1.0)


def test_random_shift_choice_depends_on_the_seed(tmp_path: Path) -> None:
    config = SyntheticConfig(benchmarks=4, states=8, samples=5)
    chosen = {
        seed: frozenset(
            write_pair(
                tmp_path / str(seed), config, seed=seed, random_shifts=3, jsonbin=False
            ).truth.shifts
        )
        for seed in range(4)
    }
    assert all(len(keys) == 3 for keys in chosen.values())
    assert len(set(chosen.values())) > 1


def test_invalid_requests_are_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        write_pair(tmp_path, SMALL, random_shifts=100)
    with pytest.raises(ValueError):
        build_run(SMALL, seed=0, shifts={("bench_00", "nope"): 2.0})
    with pytest.raises(ValueError):
        build_run(SMALL, seed=0, throttle=1.0)
    with pytest.raises(ValueError):
        SyntheticConfig(samples=0)
    with pytest.raises(ValueError):
        SyntheticConfig(time_range=(1e-3, 1e-6))


def test_without_side_files(tmp_path: Path) -> None:
    pair = write_pair(tmp_path, SMALL, seed=0, jsonbin=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cmp.json", "ref.json"]
    with pair.ref[0].open() as stream:
        text = stream.read()
    assert "nv/json/bin:" not in text and '"--json"' in text
