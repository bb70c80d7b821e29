"""NVBench's statistics (spec §6): nearest-rank quartiles, sequential sums, noise rules.

Oracles: slow references written from the spec text, Python ``+=`` loops, and the values
NVBench itself wrote into the real result files next to their ``--jsonbin`` samples.
"""

from __future__ import annotations

import json
import math
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest
from cuda.bench.results import _arithmetic, _stats
from hypothesis import given, settings
from hypothesis import strategies as st

# -- slow references written from the spec text ---------------------------------------------


def spec_rank(size: int, percent: float) -> int:
    """§6.4: rank(p) = round(p/100 * (N-1)), round half away from zero, of the double value."""
    position = percent / 100.0 * (size - 1)
    return int(Decimal(position).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def spec_quartiles(values: list[float]) -> tuple[float, float, float]:
    """§6.4: sort a copy, pick sorted[rank(p)]; NaN for empty input or any NaN sample."""
    if not values or any(math.isnan(v) for v in values):
        return (math.nan, math.nan, math.nan)
    ordered = sorted(values)
    q1, median, q3 = (ordered[spec_rank(len(ordered), p)] for p in (25, 50, 75))
    return (q1, median, q3)


def loop_sum(values: Any) -> float:
    total = 0.0
    for value in values:
        total += float(value)
    return total


def loop_stdev(values: list[float]) -> float:
    """§6.2 as written: inf for N < 5, else Bessel-corrected, summed in order."""
    if len(values) < 5:
        return math.inf
    mean = loop_sum(values) / len(values)
    total = 0.0
    for value in values:
        total += (value - mean) * (value - mean)
    return math.sqrt(total / (len(values) - 1))


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
times = st.floats(min_value=1e-9, max_value=10.0, allow_nan=False)


def test_the_arithmetic_has_one_home() -> None:
    """The summary catalog does not re-export the arithmetic it is built on: one name, one
    module to import it from."""
    assert not set(_stats.__all__) & set(_arithmetic.__all__)
    assert all(hasattr(_stats, name) for name in _stats.__all__)


# -- ranks and quartiles ----------------------------------------------------------------------


@given(size=st.integers(1, 100_000), percent=st.sampled_from([25.0, 50.0, 75.0]))
def test_rank_of_quartiles_matches_spec(size: int, percent: float) -> None:
    assert _arithmetic.rank_index(size, percent) == spec_rank(size, percent)
    # The spec's "equivalently floor(x + 0.5)" holds for the quartile percentages.
    assert _arithmetic.rank_index(size, percent) == math.floor(percent / 100 * (size - 1) + 0.5)


@given(size=st.integers(1, 10**9), percent=st.floats(0, 100))
def test_rank_of_any_percentage_is_round_half_away(size: int, percent: float) -> None:
    assert _arithmetic.rank_index(size, percent) == spec_rank(size, percent)


def test_rank_is_half_away_not_bankers_rounding() -> None:
    # 25% of N-1 = 2 is exactly 0.5: C++ std::round gives 1, Python's round() would give 0.
    assert _arithmetic.rank_index(3, 25.0) == 1
    # 75% of N-1 = 6 is 4.5: std::round gives 5, round() gives 4 (banker's rounding).
    assert _arithmetic.rank_index(7, 75.0) == 5


def test_rank_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        _arithmetic.rank_index(0, 50.0)
    with pytest.raises(ValueError):
        _arithmetic.rank_index(5, 100.5)


@given(st.lists(finite, max_size=200))
def test_quartiles_match_spec_reference(values: list[float]) -> None:
    got = _arithmetic.quartiles(values)
    want = spec_quartiles(values)
    assert all(same(g, w) for g, w in zip(got, want, strict=True))
    if values:
        assert all(g in values for g in got)  # no interpolation: every quartile is a sample


@given(st.lists(st.one_of(finite, st.just(math.nan)), min_size=1, max_size=50))
def test_quartiles_with_nan_samples(values: list[float]) -> None:
    got = _arithmetic.quartiles(values)
    want = spec_quartiles(values)
    assert all(same(g, w) for g, w in zip(got, want, strict=True))


@given(st.lists(st.lists(finite, min_size=7, max_size=7), min_size=1, max_size=20))
def test_quartiles_along_rows_equal_per_row_results(rows: list[list[float]]) -> None:
    matrix = np.array(rows)
    q1, median, q3 = _arithmetic.quartiles_along(matrix, axis=1)
    for index, row in enumerate(rows):
        assert (q1[index], median[index], q3[index]) == spec_quartiles(row)
    # The same along axis 0 of the transposed matrix.
    t1, t2, t3 = _arithmetic.quartiles_along(matrix.T, axis=0)
    assert np.array_equal(t1, q1) and np.array_equal(t2, median) and np.array_equal(t3, q3)


@given(st.lists(finite, min_size=1, max_size=200), st.floats(0, 100))
def test_nearest_rank_on_sorted_and_quantile_on_unsorted(
    values: list[float], percent: float
) -> None:
    ordered = sorted(values)
    want = ordered[spec_rank(len(values), percent)]
    assert _arithmetic.nearest_rank(ordered, percent) == want
    assert _arithmetic.quantile(values, percent) == want


def test_selection_equals_sorting_for_large_inputs() -> None:
    # NVBench switches to nth_element at 4096 samples; the picked samples must not change.
    rng = np.random.default_rng(7)
    values = rng.lognormal(0, 1, 10_001)
    ordered = np.sort(values)
    assert _arithmetic.quartiles(values) == _arithmetic.quartiles(ordered, presorted=True)
    assert _arithmetic.quartiles(values) == spec_quartiles(values.tolist())


def test_quartile_special_cases_from_spec() -> None:
    # §6.4: N = 1 -> all x1; N = 3 -> s[1], s[1], s[2]; N = 4 -> s[1], s[2], s[2].
    assert _arithmetic.quartiles([4.5]) == (4.5, 4.5, 4.5)
    assert _arithmetic.quartiles([30.0, 10.0, 20.0]) == (20.0, 20.0, 30.0)
    assert _arithmetic.quartiles([40.0, 10.0, 30.0, 20.0]) == (20.0, 30.0, 30.0)
    assert all(math.isnan(q) for q in _arithmetic.quartiles([]))
    assert all(math.isnan(q) for q in _arithmetic.quartiles([1.0, math.nan, 2.0]))


# -- sequential sums, mean, stdev -------------------------------------------------------------


@given(st.lists(finite, max_size=300))
def test_sequential_sum_equals_python_loop(values: list[float]) -> None:
    assert same(_arithmetic.sequential_sum(values), loop_sum(values))


@given(st.lists(st.lists(times, min_size=9, max_size=9), min_size=1, max_size=10))
def test_sequential_sum_along_rows(rows: list[list[float]]) -> None:
    sums = _arithmetic.sequential_sum_along(np.array(rows))
    assert sums.tolist() == [loop_sum(row) for row in rows]


def test_sequential_sum_is_not_pairwise() -> None:
    # 1e16 + 1 rounds back to 1e16 each time when added in order; a pairwise sum adds the
    # ones first and gets a larger total. NVBench adds in order.
    values = np.array([1e16] + [1.0] * 1000)
    assert _arithmetic.sequential_sum(values) == 1e16 == loop_sum(values)
    assert float(np.sum(values)) != 1e16  # numpy's pairwise sum really differs here


@given(st.lists(times, max_size=60))
def test_mean_and_stdev_follow_spec(values: list[float]) -> None:
    stats = _arithmetic.describe(values)
    assert stats.size == len(values)
    if not values:
        assert math.isnan(stats.mean)
        return
    mean = loop_sum(values) / len(values)
    assert stats.mean == mean
    assert stats.stdev == loop_stdev(values)
    assert stats.min == min(values) and stats.max == max(values)
    if len(values) < 5:
        assert stats.stdev == math.inf and stats.relative_stdev == math.inf
        assert stats.relative_iqr is None
    else:
        assert stats.relative_stdev == stats.stdev / mean


def test_relative_stdev_rules() -> None:
    assert _arithmetic.relative_stdev(1.0, 10.0, 5) == 0.1
    assert _arithmetic.relative_stdev(1.0, 10.0, 4) == math.inf  # N < 5
    assert _arithmetic.relative_stdev(math.inf, 10.0, 9) == math.inf  # stdev not finite
    assert _arithmetic.relative_stdev(math.nan, 10.0, 9) == math.inf
    assert _arithmetic.relative_stdev(1.0, 0.0, 9) == math.inf  # mean <= 0
    assert _arithmetic.relative_stdev(1.0, -2.0, 9) == math.inf
    assert _arithmetic.relative_stdev(1.0, math.inf, 9) == math.inf  # mean not finite
    assert _arithmetic.relative_stdev(-1.0, 2.0, 9) == math.inf  # stdev < 0


def test_relative_iqr_emission_conditions() -> None:
    assert _arithmetic.relative_iqr(1.0, 2.0, 3.0, 5) == 1.0
    assert _arithmetic.relative_iqr(1.0, 2.0, 3.0, 4) is None  # N < 5
    assert _arithmetic.relative_iqr(1.0, 0.0, 3.0, 9) is None  # median not > 0
    assert _arithmetic.relative_iqr(-3.0, -2.0, -1.0, 9) is None
    assert _arithmetic.relative_iqr(1.0, math.inf, 3.0, 9) is None  # median not finite
    assert _arithmetic.relative_iqr(1.0, 2.0, math.inf, 9) is None  # IQR not finite
    assert _arithmetic.relative_iqr(math.nan, 2.0, 3.0, 9) is None
    assert _arithmetic.relative_iqr(3.0, 2.0, 1.0, 9) is None  # IQR < 0


def test_nan_samples_follow_degenerate_case_table() -> None:
    # §6.8: quartiles, IQR, mean and stdev become NaN; stdev/relative is inf; no rel IQR.
    stats = _arithmetic.describe([1.0, 2.0, math.nan, 4.0, 5.0, 6.0])
    assert math.isnan(stats.mean) and math.isnan(stats.stdev)
    assert math.isnan(stats.q1) and math.isnan(stats.median) and math.isnan(stats.q3)
    assert math.isnan(stats.iqr)
    assert stats.relative_stdev == math.inf
    assert stats.relative_iqr is None
    # A running std::min/max never picks NaN.
    assert (stats.min, stats.max) == (1.0, 6.0)


def test_divide_behaves_like_c() -> None:
    assert _arithmetic.divide(1, 0.0) == math.inf
    assert _arithmetic.divide(-1, 0.0) == -math.inf
    assert math.isnan(_arithmetic.divide(0, 0.0))
    assert _arithmetic.divide(10, 4.0) == 2.5


def test_clock_mean_rounds_to_float32_and_needs_nonzero_sum() -> None:
    values = [1.7551234567e9, 1.7559876543e9, 1.7554444444e9]
    rounded = [float(np.float32(v)) for v in values]
    assert rounded != values  # these are not float32 numbers
    assert _arithmetic.clock_mean(values) == loop_sum(rounded) / 3
    assert _arithmetic.clock_mean([0.0, 0.0]) is None
    assert _arithmetic.clock_mean([]) is None


# -- summaries ---------------------------------------------------------------------------------


def tags(summaries: list[Any]) -> list[str]:
    return [s.tag for s in summaries]


def test_cold_summaries_conditional_rows() -> None:
    samples = np.linspace(1e-5, 2e-5, 9)
    full = _stats.cold_summaries(
        samples,
        samples + 1e-6,
        walltime=1.0,
        frequencies=np.full(9, 1.5e9),
        element_count=10,
        global_memory_bytes=80,
        peak_bandwidth=1e12,
        default_clock_rate=2e9,
    )
    bare = _stats.cold_summaries(samples, samples, walltime=1.0)
    optional = {
        "nv/cold/bw/item_rate",
        "nv/cold/bw/global/bytes_per_second",
        "nv/cold/bw/global/utilization",
        "nv/cold/sm_clock_rate/mean",
        "nv/cold/sm_clock_rate/scaling/percent",
    }
    assert [t for t in tags(full) if t not in optional] == tags(bare)
    assert set(tags(full)) - set(tags(bare)) == optional
    values = {s.tag: s.data[0].value for s in full}
    mean = loop_sum(samples) / 9
    assert float(values["nv/cold/bw/item_rate"]) == 10 / mean
    assert float(values["nv/cold/bw/global/utilization"]) == (80 / mean) / 1e12
    assert float(values["nv/cold/sm_clock_rate/scaling/percent"]) == 1.5e9 / 2e9
    # Clock samples that sum to zero mean "not sampled" (--profile): no clock rows.
    zero_clock = _stats.cold_summaries(samples, samples, walltime=1.0, frequencies=np.zeros(9))
    assert tags(zero_clock) == tags(bare)


def test_cold_summaries_small_and_empty_measurements() -> None:
    one = _stats.cold_summaries([3e-6], [5e-6], walltime=1.0)
    values = {s.tag: s.data[0].value for s in one}
    assert "nv/cold/time/gpu/iqr/relative" not in values
    assert values["nv/cold/time/gpu/stdev/absolute"] == "inf"
    assert values["nv/cold/time/gpu/stdev/relative"] == "inf"
    assert values["nv/cold/time/gpu/iqr/absolute"] == "0"
    assert values["nv/cold/sample_size"] == "1"
    empty = _stats.cold_summaries([], [], walltime=0.25)
    assert tags(empty) == ["nv/cold/sample_size", "nv/cold/walltime"]
    assert [s.data[0].value for s in empty] == ["0", "0.25"]


def test_cold_summaries_reject_inconsistent_input() -> None:
    with pytest.raises(ValueError):
        _stats.cold_summaries([1.0, 2.0], [1.0], walltime=1.0)
    with pytest.raises(ValueError):
        _stats.cold_summaries([1.0, 2.0], [1.0, 2.0], walltime=1.0, frequencies=[1e9])
    with pytest.raises(ValueError):  # bandwidth rows need the device's peak bandwidth
        _stats.cold_summaries([1.0], [1.0], walltime=1.0, global_memory_bytes=8)


# -- real NVBench files -----------------------------------------------------------------------


def load(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as stream:
        result: dict[str, Any] = json.load(stream)
    return result


def summary_map(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["tag"]: s for s in state["summaries"]}


def value_of(summaries: dict[str, dict[str, Any]], tag: str) -> float:
    return float(summaries[tag]["data"][0]["value"])


def side_file(json_path: Path, summary: dict[str, Any]) -> np.ndarray[Any, Any]:
    data = {d["name"]: d["value"] for d in summary["data"]}
    values = np.fromfile(json_path.parent / data["filename"], "<f4")
    assert values.size == int(data["size"])
    return values


def active_states(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for b in document["benchmarks"] for s in b["states"] if s["summaries"]]


@pytest.mark.parametrize(
    ("directory", "name", "prefix"),
    [("gpu_dir", "gpu_ref.json", "nv/cold"), ("cpu_dir", "cpu_run1.json", "nv/cpu_only")],
)
def test_quartiles_of_real_side_files_match_nvbench(
    request: pytest.FixtureRequest, directory: str, name: str, prefix: str
) -> None:
    path = request.getfixturevalue(directory) / name
    document = load(path)
    states = active_states(document)
    assert states
    clock = "gpu" if prefix == "nv/cold" else "cpu"
    for state in states:
        summaries = summary_map(state)
        samples = side_file(path, summaries[f"nv/json/bin:{prefix}/sample_times"])
        assert samples.size == int(summaries[f"{prefix}/sample_size"]["data"][0]["value"])
        # NVBench computed from float64 samples, then rounded them to float32 for the file;
        # rounding is monotonic, so the nearest-rank picks agree at float32.
        got = _arithmetic.quartiles(samples)
        for stat, value in zip(("q1", "median", "q3"), got, strict=True):
            want = value_of(summaries, f"{prefix}/time/{clock}/{stat}")
            assert np.float32(value) == np.float32(want), (state["name"], stat)
        stats = _arithmetic.describe(samples)
        assert np.float32(stats.min) == np.float32(
            value_of(summaries, f"{prefix}/time/{clock}/min")
        )
        assert np.float32(stats.max) == np.float32(
            value_of(summaries, f"{prefix}/time/{clock}/max")
        )
        mean = value_of(summaries, f"{prefix}/time/{clock}/mean")
        assert stats.mean == pytest.approx(mean, rel=1e-6)


def test_clock_mean_of_real_freqs_files_is_exact(gpu_dir: Path) -> None:
    path = gpu_dir / "gpu_ref.json"
    document = load(path)
    default_clock = {d["id"]: d["sm_default_clock_rate"] for d in document["devices"]}
    for state in active_states(document):
        summaries = summary_map(state)
        freqs = side_file(path, summaries["nv/json/freqs-bin:nv/cold/sample_freqs"])
        # The freqs file holds NVBench's own float32 estimates, unrounded: float64 sum in
        # order / N reproduces NVBench's value to the last bit.
        mean = _arithmetic.clock_mean(freqs)
        assert mean == value_of(summaries, "nv/cold/sm_clock_rate/mean"), state["name"]
        scaling = value_of(summaries, "nv/cold/sm_clock_rate/scaling/percent")
        assert mean is not None and mean / default_clock[state["device"]] == scaling


def test_cpu_only_summaries_reproduce_real_run_exactly(cpu_dir: Path) -> None:
    """CPU times are whole nanoseconds x 1e-9, so the float32 side file pins down each exact
    double; from them every statistic NVBench wrote is reproduced bit for bit."""
    path = cpu_dir / "cpu_run1.json"
    document = load(path)
    for benchmark in document["benchmarks"]:
        for state in benchmark["states"]:
            if not state["summaries"]:
                continue
            summaries = summary_map(state)
            stored = side_file(path, summaries["nv/json/bin:nv/cpu_only/sample_times"])
            nanoseconds = np.rint(stored.astype(np.float64) * 1e9)
            samples = nanoseconds * 1e-9
            assert np.array_equal(samples.astype(np.float32), stored)
            axis = {a["name"]: a["value"] for a in state["axis_values"] or []}
            elements = int(axis.get("Elements", 0))
            rebuilt = _stats.cpu_only_summaries(
                samples,
                walltime=value_of(summaries, "nv/cpu_only/walltime"),
                element_count=elements,
                # host_sort reads 4 bytes per element (README); tiny records none.
                global_memory_bytes=4 * elements,
            )
            written = [s for s in state["summaries"] if not s["tag"].startswith("nv/json/")]
            assert msgspec.to_builtins(rebuilt) == written, state["name"]
            # The mean really depends on the summation order for this data.
            if state["name"] == "":
                assert float(np.sum(samples)) / samples.size != value_of(
                    summaries, "nv/cpu_only/time/cpu/mean"
                )


@settings(max_examples=25)
@given(st.integers(0, 2**32 - 1))
def test_cold_summary_metadata_matches_real_file(gpu_dir: Path, seed: int) -> None:
    """Tags, names, descriptions, hints and hide strings in NVBench's order, from the file."""
    document = load(gpu_dir / "gpu_ref.json")
    state = active_states(document)[seed % len(active_states(document))]
    written = [s for s in state["summaries"] if s["tag"].startswith("nv/cold/")]
    samples = np.random.default_rng(seed).lognormal(-10, 0.01, 50)
    rebuilt = _stats.cold_summaries(
        samples,
        samples,
        walltime=1.0,
        frequencies=np.full(50, 1.7e9),
        element_count=1000,
        global_memory_bytes=8000 if "nv/cold/bw/global/utilization" in summary_map(state) else 0,
        peak_bandwidth=1e12,
        default_clock_rate=2e9,
    )

    def metadata(summary: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in summary.items() if k != "data"}

    assert [metadata(s) for s in msgspec.to_builtins(rebuilt)] == [metadata(s) for s in written]


def test_batch_summary_metadata_matches_real_file(gpu_dir: Path) -> None:
    state = active_states(load(gpu_dir / "gpu_ref.json"))[0]
    written = [s for s in state["summaries"] if s["tag"].startswith("nv/batch/")]
    values = [s["data"][0]["value"] for s in written]
    rebuilt = _stats.batch_summaries(
        sample_size=int(values[0]), mean=float(values[1]), walltime=float(values[2])
    )
    assert msgspec.to_builtins(rebuilt) == written
