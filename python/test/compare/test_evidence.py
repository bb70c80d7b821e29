"""Evidence per side: summaries, lazy side files (available / unusable), pairwise estimates."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cuda.bench.compare import bulkdata as bulkdata_module
from cuda.bench.compare.estimates import estimates
from cuda.bench.compare.evidence import (
    BulkData,
    MeasurementKind,
    SideEvidence,
    TimingSummaries,
    side_evidence,
)
from cuda.bench.compare.model import EvidenceSource, Interval
from cuda.bench.results import BenchmarkResult, SubBenchmarkState, _arithmetic, _sidecar
from cuda.bench.results._builder import ResultBuilder
from cuda.bench.results._devices import DeviceSpec

GPU = "nv/cold/time/gpu"
TIMES_TAG = "nv/json/bin:nv/cold/sample_times"
FREQS_TAG = "nv/json/freqs-bin:nv/cold/sample_freqs"

Edit = Callable[[dict[str, Any], Path], None]


def lognormal(seed: int, n: int = 500, base: float = 1e-5, sigma: float = 0.01) -> Any:
    rng = np.random.default_rng(seed)
    return base * np.exp(rng.normal(0.0, sigma, n))


def clocks(seed: int, n: int = 500) -> Any:
    return np.random.default_rng(seed + 100).normal(1.755e9, 2e6, n)


def write_state(
    directory: Path,
    *,
    times: Any = None,
    freqs: Any = None,
    cpu_times: Any = None,
    skip_reason: str | None = None,
    edits: tuple[Edit, ...] = (),
    name: str = "run.json",
) -> SubBenchmarkState:
    """One benchmark with one state written as NVBench would (plus ``edits`` to the JSON)."""
    builder = ResultBuilder(devices=[DeviceSpec.h100(0)])
    cpu_only = cpu_times is not None
    bench = builder.benchmark("bench", devices=None if cpu_only else "all")
    if cpu_only:
        bench.state(None, cpu_times=cpu_times)
    else:
        bench.state(None, gpu_times=times, frequencies=freqs, skip_reason=skip_reason)
    path = directory / name
    builder.write(path)
    if edits:
        document = json.loads(path.read_text(encoding="utf-8"))
        for edit in edits:
            edit(document["benchmarks"][0]["states"][0], directory)
        path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    # Read as a comparison reads (differing sample and frequency counts are its to judge).
    return BenchmarkResult(path, check_counts=False)["bench"][0]


def summary(state: dict[str, Any], tag: str) -> dict[str, Any]:
    return next(s for s in state["summaries"] if s["tag"] == tag)


def set_value(tag: str, value: Any, key: str = "value") -> Edit:
    def edit(state: dict[str, Any], directory: Path) -> None:
        for datum in summary(state, tag)["data"]:
            if datum["name"] == key:
                datum["value"] = value

    return edit


def drop(*tags: str) -> Edit:
    def edit(state: dict[str, Any], directory: Path) -> None:
        state["summaries"] = [s for s in state["summaries"] if s["tag"] not in tags]

    return edit


def side_file(state: dict[str, Any], directory: Path, tag: str) -> Path:
    data = {d["name"]: d["value"] for d in summary(state, tag)["data"]}
    return directory / str(data["filename"])


def rewrite_file(tag: str, change: Callable[[bytes], bytes]) -> Edit:
    def edit(state: dict[str, Any], directory: Path) -> None:
        path = side_file(state, directory, tag)
        path.write_bytes(change(path.read_bytes()))

    return edit


def remove_file(tag: str) -> Edit:
    def edit(state: dict[str, Any], directory: Path) -> None:
        side_file(state, directory, tag).unlink()

    return edit


class Warnings(list[str]):
    def __call__(self, message: str) -> None:
        self.append(message)


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every side file read through the evidence layer."""
    seen: list[Path] = []
    original = _sidecar.load_float32

    def counting(path: Path, expected: int) -> Any:
        seen.append(Path(path))
        return original(path, expected)

    monkeypatch.setattr(bulkdata_module, "load_float32", counting)
    return seen


# ---------------------------------------------------------------------------------------------
# Summaries


def test_gpu_state_of_a_real_file(gpu_dir: Path, loads: list[Path]) -> None:
    state = BenchmarkResult(gpu_dir / "gpu_ref.json")["copy_bench"][0]
    warnings = Warnings()
    side = side_evidence(state, warn=warnings)
    assert side.kind is MeasurementKind.GPU and not side.is_cpu_only
    assert side.has_summaries and not side.is_skipped
    for field in ("min", "max", "mean", "q1", "median", "q3"):
        assert getattr(side.timing, field) == state.value(f"{GPU}/{field}")
    assert side.timing.iqr_relative == state.value(f"{GPU}/iqr/relative")
    assert side.timing.stdev_absolute == state.value(f"{GPU}/stdev/absolute")
    assert side.clock_rate == state.value("nv/cold/sm_clock_rate/mean")
    assert side.sample_count == 2000
    assert loads == []  # nothing is read to build evidence
    ref, _ = estimates(side, side)
    assert ref.source is EvidenceSource.SUMMARY and loads == []  # nor for summary estimates
    assert (
        ref.sample_file is not None and Path(ref.sample_file) == gpu_dir / "gpu_ref.json-bin/0.bin"
    )
    assert ref.frequency_file is not None and ref.frequency_file.endswith(
        "gpu_ref.json-freqs-bin/0.bin"
    )
    times = side.bulk.times()
    assert times is not None and times.size == 2000 and len(loads) == 1
    assert side.bulk.times() is times and len(loads) == 1  # cached
    cycles = side.bulk.cycles()
    assert cycles is not None and len(loads) == 2 and side.bulk.cycles() is cycles
    assert warnings == []


def test_skipped_state(gpu_dir: Path) -> None:
    states = BenchmarkResult(gpu_dir / "gpu_ref.json")["copy_bench"]
    skipped = next(s for s in states if s.is_skipped)
    side = side_evidence(skipped, warn=Warnings())
    assert side.is_skipped and not side.has_summaries
    assert side.skip_reason == skipped.skip_reason and side.skip_reason
    assert side.timing == TimingSummaries()
    assert not side.bulk.has_times()


def test_cpu_only_state_uses_cpu_only_tags(cpu_dir: Path) -> None:
    state = BenchmarkResult(cpu_dir / "cpu_run1.json")["host_sort"][0]
    side = side_evidence(state, warn=Warnings())
    assert side.kind is MeasurementKind.CPU_ONLY and side.is_cpu_only
    assert side.timing.mean == state.value("nv/cpu_only/time/cpu/mean")
    assert side.timing.median == state.value("nv/cpu_only/time/cpu/median")
    assert side.clock_rate is None  # a CPU has no SM clock
    assert side.sample_count == state.value("nv/cpu_only/sample_size")
    assert side.bulk.has_times() and not side.bulk.has_frequencies()
    assert side.bulk.frequency_file is None
    times = side.bulk.times()
    assert times is not None and times.size == side.sample_count
    assert side.bulk.cycles() is None


def test_null_dispersions_are_infinite_and_absent_ones_none(tmp_path: Path) -> None:
    state = write_state(
        tmp_path,
        times=lognormal(1),
        edits=(
            set_value(f"{GPU}/stdev/relative", None),
            set_value(f"{GPU}/iqr/absolute", None),
            drop(f"{GPU}/iqr/relative"),
            set_value(f"{GPU}/min", None),
        ),
    )
    timing = side_evidence(state, warn=Warnings()).timing
    assert timing.stdev_relative == math.inf
    assert timing.iqr_absolute == math.inf
    assert timing.iqr_relative is None
    assert timing.min is None  # null outside the dispersions is just missing


def test_legacy_ir_tags_stand_in_for_iqr(tmp_path: Path) -> None:
    def add_ir(state: dict[str, Any], directory: Path) -> None:
        for key, value in (("absolute", "1.5e-7"), ("relative", "0.015")):
            state["summaries"].append(
                {
                    "tag": f"{GPU}/ir/{key}",
                    "data": [{"name": "value", "type": "float64", "value": value}],
                }
            )

    edits = (drop(f"{GPU}/iqr/absolute", f"{GPU}/iqr/relative"), add_ir)
    timing = side_evidence(
        write_state(tmp_path, times=lognormal(1), edits=edits), warn=Warnings()
    ).timing
    assert (timing.iqr_absolute, timing.iqr_relative) == (1.5e-7, 0.015)


def test_missing_stdev_absolute_is_derived(tmp_path: Path) -> None:
    state = write_state(tmp_path, times=lognormal(1), edits=(drop(f"{GPU}/stdev/absolute"),))
    timing = side_evidence(state, warn=Warnings()).timing
    assert timing.stdev_relative is not None and timing.mean is not None
    assert timing.stdev_absolute == timing.stdev_relative * timing.mean


def test_non_numeric_values_are_missing(tmp_path: Path) -> None:
    def as_string(state: dict[str, Any], directory: Path) -> None:
        summary(state, f"{GPU}/median")["data"][0].update(type="string", value="fast")

    timing = side_evidence(
        write_state(tmp_path, times=lognormal(1), edits=(as_string,)), warn=Warnings()
    ).timing
    assert timing.median is None


def test_from_samples_matches_nvbench_statistics() -> None:
    times, freqs = lognormal(2, 101), clocks(2, 101)
    side = SideEvidence.from_samples(times, freqs)
    stats = _arithmetic.describe(times)
    assert side.timing.median == stats.median and side.timing.q3 == stats.q3
    assert side.timing.iqr_relative == stats.relative_iqr
    assert side.clock_rate == _arithmetic.clock_mean(freqs)
    assert side.sample_count == 101 and side.bulk.has_times() and side.bulk.has_frequencies()
    assert not SideEvidence.from_samples(times, bulk=False).bulk.has_times()
    cpu = SideEvidence.from_samples(times, freqs, kind=MeasurementKind.CPU_ONLY)
    assert cpu.clock_rate is None and not cpu.bulk.has_frequencies()


# ---------------------------------------------------------------------------------------------
# Side files: available, unavailable, unusable


def test_missing_side_file_is_unavailable_with_a_warning(tmp_path: Path) -> None:
    state = write_state(
        tmp_path, times=lognormal(1), freqs=clocks(1), edits=(remove_file(TIMES_TAG),)
    )
    warnings = Warnings()
    side = side_evidence(state, warn=warnings)
    assert not side.bulk.has_times() and side.bulk.times() is None
    assert len(warnings) == 1 and "run.json-bin/0.bin" in warnings[0] and "not found" in warnings[0]
    # Which run lacks it: the recorded name is the same in every run of the benchmark.
    assert f"(recorded in {tmp_path / 'run.json'})" in warnings[0]
    assert side.bulk.has_frequencies()  # the other file is still there
    assert side.bulk.cycles() is None and len(warnings) == 1


def test_empty_side_file_is_unavailable(tmp_path: Path) -> None:
    state = write_state(
        tmp_path,
        times=lognormal(1),
        freqs=clocks(1),
        edits=(rewrite_file(FREQS_TAG, lambda b: b""),),
    )
    warnings = Warnings()
    side = side_evidence(state, warn=warnings)
    assert side.bulk.has_times() and not side.bulk.has_frequencies()
    assert len(warnings) == 1 and "freqs-bin/0.bin" in warnings[0] and "empty" in warnings[0]


def test_wrong_size_side_file_is_unusable(tmp_path: Path, loads: list[Path]) -> None:
    state = write_state(
        tmp_path, times=lognormal(1), edits=(rewrite_file(TIMES_TAG, lambda b: b[:-4]),)
    )
    warnings = Warnings()
    side = side_evidence(state, warn=warnings)
    assert side.bulk.has_times()  # it exists...
    assert side.bulk.times() is None  # ...but cannot be used
    assert side.bulk.times() is None and len(loads) == 1  # tried once
    assert len(warnings) == 1
    assert str(tmp_path / "run.json-bin/0.bin") in warnings[0] and "bytes" in warnings[0]


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf])
def test_non_positive_or_non_finite_samples_are_unusable(tmp_path: Path, bad: float) -> None:
    def poke(data: bytes) -> bytes:
        values = np.frombuffer(data, "<f4").copy()
        values[3] = bad
        return bytes(values.tobytes())

    state = write_state(tmp_path, times=lognormal(1), edits=(rewrite_file(TIMES_TAG, poke),))
    warnings = Warnings()
    side = side_evidence(state, warn=warnings)
    assert side.bulk.has_times() and side.bulk.times() is None
    assert len(warnings) == 1 and "run.json-bin/0.bin" in warnings[0]


def test_unusable_frequencies_spoil_only_the_cycles(tmp_path: Path) -> None:
    def zero(data: bytes) -> bytes:
        values = np.frombuffer(data, "<f4").copy()
        values[0] = 0.0
        return bytes(values.tobytes())

    state = write_state(
        tmp_path, times=lognormal(1), freqs=clocks(1), edits=(rewrite_file(FREQS_TAG, zero),)
    )
    warnings = Warnings()
    side = side_evidence(state, warn=warnings)
    assert side.bulk.times() is not None
    assert side.bulk.has_frequencies() and side.bulk.cycles() is None
    assert len(warnings) == 1 and "freqs-bin/0.bin" in warnings[0]


def test_recorded_counts_that_differ_drop_both_files(tmp_path: Path) -> None:
    edits = (set_value(FREQS_TAG, "499", "size"), rewrite_file(FREQS_TAG, lambda b: b[:-4]))
    warnings = Warnings()
    side = side_evidence(
        write_state(tmp_path, times=lognormal(1), freqs=clocks(1), edits=edits), warn=warnings
    )
    assert not side.bulk.has_times() and not side.bulk.has_frequencies()
    assert len(warnings) == 1 and "500 sample times but 499" in warnings[0]


def test_profile_runs_without_frequencies_fall_back_silently(tmp_path: Path) -> None:
    # NVBench --profile records an empty frequency file of size 0.
    edits = (set_value(FREQS_TAG, "0", "size"), rewrite_file(FREQS_TAG, lambda b: b""))
    warnings = Warnings()
    side = side_evidence(
        write_state(tmp_path, times=lognormal(1), freqs=clocks(1), edits=edits), warn=warnings
    )
    assert not side.bulk.has_times() and not side.bulk.has_frequencies()
    assert warnings == []


def test_zero_recorded_samples_of_an_empty_file_are_unavailable(tmp_path: Path) -> None:
    edits = (set_value(TIMES_TAG, "0", "size"), rewrite_file(TIMES_TAG, lambda b: b""))
    warnings = Warnings()
    side = side_evidence(write_state(tmp_path, times=lognormal(1), edits=edits), warn=warnings)
    assert not side.bulk.has_times() and side.bulk.times() is None
    assert len(warnings) == 1, warnings
    assert warnings[0].endswith(": recorded with 0 values; using its summaries"), warnings[0]


def test_release_drops_and_reloads(loads: list[Path], gpu_dir: Path) -> None:
    side = side_evidence(
        BenchmarkResult(gpu_dir / "gpu_ref.json")["copy_bench"][0], warn=Warnings()
    )
    first = side.bulk.cycles()
    side.bulk.release()
    second = side.bulk.cycles()
    assert first is not None and second is not None and first is not second
    assert np.array_equal(first.values, second.values)
    assert len(loads) == 4


def test_in_memory_bulk_data() -> None:
    data = BulkData.from_arrays(np.array([2.0, 1.0]), np.array([1e9, 1e9]))
    assert data.has_times() and data.has_frequencies()
    assert data.sample_file is None
    cycles = data.cycles()
    assert cycles is not None and cycles.values.tolist() == [1e9, 2e9]
    assert not BulkData.from_arrays(np.array([])).has_times()
    assert not BulkData().has_times() and BulkData().times() is None


# ---------------------------------------------------------------------------------------------
# Estimates (reference §3.2)


def timing(**values: float | None) -> TimingSummaries:
    base: dict[str, float | None] = {
        "min": 0.95e-5,
        "max": 1.2e-5,
        "mean": 1.01e-5,
        "stdev_absolute": 0.02e-5,
        "stdev_relative": 0.02,
        "q1": 0.99e-5,
        "median": 1.0e-5,
        "q3": 1.02e-5,
        "iqr_absolute": 0.03e-5,
        "iqr_relative": 0.03,
    }
    base.update(values)
    return TimingSummaries(**base)


NO_QUARTILES = {"q1": None, "median": None, "q3": None, "iqr_absolute": None, "iqr_relative": None}


def test_robust_from_summaries() -> None:
    side = SideEvidence(timing=timing(), clock_rate=1.7e9, sample_count=500)
    ref, _cmp = estimates(side, side)
    assert ref.source is EvidenceSource.SUMMARY
    assert (ref.center, ref.noise) == (1.0e-5, 0.03)
    assert ref.interval == Interval(0.95e-5, 1.0e-5, 1.02e-5)  # [min, q3], not symmetric
    assert (ref.mean, ref.stdev_relative, ref.sample_count, ref.clock_rate) == (
        1.01e-5,
        0.02,
        500,
        1.7e9,
    )


def test_robust_noise_from_absolute_iqr() -> None:
    side = SideEvidence(timing=timing(iqr_relative=None))
    assert estimates(side, side)[0].noise == pytest.approx(0.03)


@pytest.mark.parametrize(
    "broken",
    [
        {"q1": 1.005e-5},  # q1 > median
        {"min": 1.0e-4},  # min > q1
        {"q3": None},
        {"min": 0.0},
        {"median": math.inf, "q3": math.inf},
        {"iqr_absolute": None, "iqr_relative": None},
    ],
)
def test_robust_needs_complete_ordered_positive_quartiles(broken: dict[str, float | None]) -> None:
    assert timing(**broken).robust() is None


def test_robust_from_samples_when_quartiles_are_missing() -> None:
    samples = lognormal(4, 501).astype(np.float32)
    side = SideEvidence(timing=timing(**NO_QUARTILES), bulk=BulkData.from_arrays(samples))
    ref, cmp = estimates(side, SideEvidence(timing=timing()))
    ordered = np.sort(samples).astype(np.float64)
    assert ref.source is EvidenceSource.SAMPLES and cmp.source is EvidenceSource.SUMMARY
    assert ref.center == ordered[250]
    assert ref.interval == Interval(ordered[0], ordered[250], ordered[375])
    assert ref.noise == (ordered[375] - ordered[125]) / ordered[250]


def test_mean_fallback_interval_and_clamps() -> None:
    plain = SideEvidence(timing=timing(**NO_QUARTILES, min=None, max=None))
    ref, _ = estimates(plain, plain)
    assert ref.source is EvidenceSource.MEAN and ref.center == 1.01e-5 and ref.noise == 0.02
    assert ref.interval == Interval(1.01e-5 - 0.02e-5, 1.01e-5, 1.01e-5 + 0.02e-5)
    clamped = SideEvidence(timing=timing(**NO_QUARTILES, min=1.0e-5, max=1.02e-5))
    assert estimates(clamped, plain)[0].interval == Interval(1.0e-5, 1.01e-5, 1.02e-5)
    # min/max clamp only when positive and finite
    ignored = SideEvidence(timing=timing(**NO_QUARTILES, min=math.nan, max=0.0))
    assert estimates(ignored, plain)[0].interval == ref.interval
    # a huge stdev is floored at 0.001 * mean
    wide = SideEvidence(timing=timing(**NO_QUARTILES, min=None, max=None, stdev_absolute=1.0))
    assert estimates(wide, plain)[0].interval == Interval(1.01e-8, 1.01e-5, 1.01e-5 + 1.0)


def test_mean_fallback_only_when_both_sides_allow_it() -> None:
    plain = SideEvidence(timing=timing(**NO_QUARTILES))
    for bad in ({"stdev_absolute": math.inf}, {"stdev_absolute": -1e-7}, {"min": 2e-5}):
        broken = SideEvidence(timing=timing(**NO_QUARTILES, **bad))
        ref, cmp = estimates(broken, plain)
        assert ref.interval is None and cmp.interval is None, bad
        assert (ref.center, cmp.center) == (1.01e-5, 1.01e-5)
        assert ref.source is cmp.source is EvidenceSource.MEAN


def test_one_robust_side_is_not_enough() -> None:
    ref, cmp = estimates(SideEvidence(timing=timing()), SideEvidence(timing=timing(**NO_QUARTILES)))
    assert ref.source is cmp.source is EvidenceSource.MEAN
    assert ref.center == 1.01e-5 and ref.interval is not None


def test_median_estimates_without_intervals() -> None:
    # Quartiles incomplete and no usable stdev: medians and IQR noise, no intervals.
    incomplete = SideEvidence(
        timing=timing(q1=None, stdev_absolute=math.inf, stdev_relative=math.inf)
    )
    ref, cmp = estimates(incomplete, SideEvidence(timing=timing()))
    assert (ref.center, ref.noise, ref.interval) == (1.0e-5, 0.03, None)
    assert (cmp.center, cmp.interval) == (1.0e-5, None)
    assert ref.source is EvidenceSource.SUMMARY


def test_means_when_nothing_else_works() -> None:
    broken = SideEvidence(
        timing=timing(**NO_QUARTILES, stdev_absolute=math.inf, stdev_relative=0.05)
    )
    ref, cmp = estimates(broken, SideEvidence(timing=timing()))
    assert (ref.center, ref.noise, ref.interval) == (1.01e-5, 0.05, None)
    assert (cmp.center, cmp.noise) == (1.01e-5, 0.02)
    # Without a mean on one side, the other side's noise is stdev / mean.
    nothing = SideEvidence(timing=TimingSummaries())
    ref, cmp = estimates(nothing, SideEvidence(timing=timing(**NO_QUARTILES, stdev_relative=0.5)))
    assert (ref.center, ref.noise, ref.source) == (None, None, EvidenceSource.NONE)
    assert cmp.noise == pytest.approx(0.02e-5 / 1.01e-5)


def test_samples_are_not_read_when_the_other_side_cannot_be_robust() -> None:
    class Never:
        path = None

        def available(self) -> bool:
            return True

        def load(self) -> Any:
            raise AssertionError("loaded")

    lazy = SideEvidence(timing=timing(**NO_QUARTILES), bulk=BulkData(Never()))
    meanish = SideEvidence(timing=timing(**NO_QUARTILES))
    _ref, cmp = estimates(meanish, lazy)
    assert cmp.source is EvidenceSource.MEAN


def test_skipped_side_estimate() -> None:
    skipped = SideEvidence(is_skipped=True, skip_reason="no", has_summaries=False)
    ref, cmp = estimates(skipped, SideEvidence(timing=timing()))
    assert ref.is_skipped and ref.skip_reason == "no" and ref.center is None
    # The table still shows the other side, with the best estimate it gives alone (its
    # interval too: the baseline cell of --col keeps it beside a skipped variant).
    alone = SideEvidence(timing=timing())
    assert cmp == estimates(alone, alone)[0]
    assert cmp.center is not None and cmp.interval is not None


def test_mean_noise_falls_back_to_stdev_over_mean() -> None:
    assert TimingSummaries(mean=2.0, stdev_absolute=0.1).mean_noise == 0.05
    assert TimingSummaries(mean=0.0, stdev_absolute=0.1).mean_noise is None
    assert TimingSummaries(mean=2.0, stdev_absolute=0.1, stdev_relative=0.2).mean_noise == 0.2
    plain = SideEvidence(timing=timing(**NO_QUARTILES, stdev_relative=None))
    assert estimates(plain, plain)[0].noise == pytest.approx(0.02e-5 / 1.01e-5)


def test_median_estimates_use_the_absolute_iqr_too() -> None:
    incomplete = SideEvidence(
        timing=timing(q1=None, iqr_relative=None, stdev_absolute=math.inf, stdev_relative=math.inf)
    )
    ref, _ = estimates(incomplete, SideEvidence(timing=timing()))
    assert ref.noise == pytest.approx(0.03) and ref.interval is None


def test_sample_estimates_lose_their_interval_when_the_other_side_has_none() -> None:
    samples = lognormal(4, 501).astype(np.float32)
    from_samples = SideEvidence(
        timing=timing(**NO_QUARTILES, stdev_absolute=math.inf), bulk=BulkData.from_arrays(samples)
    )
    incomplete = SideEvidence(timing=timing(q1=None, stdev_absolute=math.inf))
    ref, cmp = estimates(from_samples, incomplete)
    assert ref.source is EvidenceSource.SAMPLES and ref.interval is None
    assert ref.center == float(np.sort(samples)[250])
    assert cmp.center == 1.0e-5 and cmp.interval is None


def test_failed_side_file_writes_record_no_data(tmp_path: Path) -> None:
    def no_data(state: dict[str, Any], directory: Path) -> None:
        del summary(state, TIMES_TAG)["data"]  # what NVBench writes when the write failed

    warnings = Warnings()
    side = side_evidence(write_state(tmp_path, times=lognormal(1), edits=(no_data,)), warn=warnings)
    assert not side.bulk.has_times() and side.bulk.sample_file is None and warnings == []


@pytest.mark.parametrize("count", ["-3", "0", str(2**70)])
def test_a_count_no_file_has_makes_a_file_with_values_unusable(tmp_path: Path, count: str) -> None:
    """The file keeps its 500 values under a recorded count of -3, 0 or 2^70: present with
    the wrong size, it is unusable (compare.md 2), in one warning; it was passed over as
    unavailable ("using its summaries"), on which robust said SAME."""
    warnings = Warnings()
    state = write_state(tmp_path, times=lognormal(1), edits=(set_value(TIMES_TAG, count, "size"),))
    side = side_evidence(state, warn=warnings)
    assert side.bulk.has_times() and side.bulk.times() is None
    assert (
        side.bulk.rejected == f"sample times: recorded with {count} values, but it holds 2000 bytes"
    )
    assert warnings == [
        f"{tmp_path / 'run.json-bin/0.bin'} (recorded in {tmp_path / 'run.json'}): recorded with "
        f"{count} values, but it holds 2000 bytes; its per-sample data are not used"
    ]


def test_a_count_no_file_has_of_a_missing_file_is_unavailable(tmp_path: Path) -> None:
    warnings = Warnings()
    edits = (set_value(TIMES_TAG, "-3", "size"), remove_file(TIMES_TAG))
    side = side_evidence(write_state(tmp_path, times=lognormal(1), edits=edits), warn=warnings)
    assert not side.bulk.has_times()
    assert warnings == [
        f"{tmp_path / 'run.json-bin/0.bin'} (recorded in {tmp_path / 'run.json'}): recorded with "
        "-3 values; using its summaries"
    ]


def test_a_negative_count_of_sm_clocks_makes_a_file_with_values_unusable(tmp_path: Path) -> None:
    """0 clocks is what --profile writes (unavailable, silent); -2 is no count: the file that
    holds 500 clocks under it is unusable, and no cycles are built from it."""
    warnings = Warnings()
    edits = (set_value(FREQS_TAG, "-2", "size"),)
    state = write_state(tmp_path, times=lognormal(1), freqs=clocks(1), edits=edits)
    side = side_evidence(state, warn=warnings)
    assert side.bulk.times() is not None and side.bulk.has_frequencies()
    assert side.bulk.cycles() is None
    assert len(warnings) == 1 and warnings[0].endswith(
        ": recorded with -2 values, but it holds 2000 bytes; its per-sample data are not used"
    ), warnings
