"""Bulk statistics: nearest-rank quartiles, sorted families, overlap, rare filter, coverage
(the reference and the fast path in measurement order)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from cuda.bench.compare import _coverage_fast, bulk
from cuda.bench.compare import coverage as reference
from cuda.bench.compare._coverage_fast import unsorted_coverage
from cuda.bench.compare.bulk import UnusableBulkData, cycle_samples, overlap_fraction, sort_samples
from cuda.bench.compare.coverage import (
    Coverage,
    SideCoverage,
    SupportFilter,
    coverage,
    rare_support_filter,
)
from cuda.bench.compare.model import Interval
from cuda.bench.compare.thresholds import PRESETS, Thresholds
from cuda.bench.results import _arithmetic
from hypothesis import given, settings
from hypothesis import strategies as st

DEFAULT = PRESETS["default"]


def lognormal(seed: int, n: int = 2000, base: float = 1e-5, sigma: float = 0.01) -> Any:
    rng = np.random.default_rng(seed)
    return (base * np.exp(rng.normal(0.0, sigma, n))).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# Nearest-rank quartiles


@pytest.mark.parametrize("size", [*range(1, 64), 999, 1000, 1001, 4095, 4096, 10_000])
@pytest.mark.parametrize("percent", [0, 25, 50, 75, 100])
def test_rank_rule_is_integer_round_half_up(size: int, percent: int) -> None:
    values = np.arange(size, dtype=np.float64) + 1.0
    sorted_samples = sort_samples(values)
    assert sorted_samples.quantile(percent) == values[(percent * (size - 1) + 50) // 100]


def test_quartiles_of_small_samples_follow_nvbench() -> None:
    # N = 4: q1 = s[1], median = s[2], q3 = s[2] (round(0.75) = 1, round(1.5) = 2, round(2.25) = 2)
    four = sort_samples([4.0, 1.0, 3.0, 2.0])
    assert (four.quantile(25), four.median, four.quantile(75)) == (2.0, 3.0, 3.0)
    three = sort_samples([3.0, 1.0, 2.0])
    assert (three.quantile(25), three.median, three.quantile(75)) == (2.0, 2.0, 3.0)


def test_quartiles_agree_with_nvbench_statistics() -> None:
    samples = lognormal(3, 2001).astype(np.float64)
    ours = sort_samples(samples)
    assert (ours.quantile(25), ours.median, ours.quantile(75)) == _arithmetic.quartiles(samples)


def test_interval_noise_and_extremes() -> None:
    values = sort_samples([5.0, 1.0, 4.0, 2.0, 3.0, 9.0, 7.0])
    assert values.interval == Interval(1.0, 4.0, 7.0)  # [min, q3] around the median
    assert values.noise == (7.0 - 3.0) / 4.0  # q1 = s[round(1.5)] = s[2]
    assert (values.minimum, values.maximum, values.size) == (1.0, 9.0, 7)


# ---------------------------------------------------------------------------------------------
# Sorting once: distinct values and counts


def test_sorted_family_matches_numpy_unique() -> None:
    rng = np.random.default_rng(1)
    values = rng.integers(1, 50, 5000).astype(np.float32) * np.float32(1e-6)
    result = sort_samples(values)
    unique, counts = np.unique(values, return_counts=True)
    assert result.values.dtype == np.float32  # times stay float32 while sorting
    assert np.array_equal(result.values, np.sort(values))
    assert result.unique.dtype == np.float64
    assert np.array_equal(result.unique, unique.astype(np.float64))
    assert result.counts is not None
    assert np.array_equal(result.counts, counts)
    assert not result.distinct


def test_distinct_values_need_no_counts_and_no_copy() -> None:
    values = np.array([3.0, 1.0, 2.0])
    result = sort_samples(values)
    assert result.distinct and result.counts is None
    assert result.unique is result.values  # float64 without repeats: one array serves both
    assert np.array_equal(values, [3.0, 1.0, 2.0])  # the input is not touched


def test_in_place_sort_only_when_asked() -> None:
    values = np.array([3.0, 1.0, 2.0])
    sort_samples(values, copy=False)
    assert np.array_equal(values, [1.0, 2.0, 3.0])
    frozen = np.array([3.0, 1.0, 2.0])
    frozen.flags.writeable = False
    assert np.array_equal(sort_samples(frozen, copy=False).values, [1.0, 2.0, 3.0])


def test_results_are_read_only() -> None:
    result = sort_samples([2.0, 2.0, 1.0])
    for array in (result.values, result.unique, result.counts):
        assert array is not None and not array.flags.writeable


@pytest.mark.parametrize(
    ("values", "problem"),
    [
        ([], "holds no values"),
        ([1.0, math.nan], "non-finite"),
        ([1.0, math.inf], "non-finite"),
        ([1.0, -math.inf], "non-positive"),
        ([1.0, 0.0], "non-positive"),
        ([1.0, -2.0], "non-positive"),
        ([[1.0, 2.0]], "one value per sample"),
    ],
)
def test_unusable_values_are_rejected(values: Any, problem: str) -> None:
    with pytest.raises(UnusableBulkData, match=problem):
        sort_samples(values)


def test_cycles_are_float64_products() -> None:
    times = np.array([1.0000001, 1.0000002], dtype=np.float32)
    freqs = np.array([3e9, 3e9], dtype=np.float32)
    cycles = cycle_samples(times, freqs)
    expected = np.sort(times.astype(np.float64) * 3e9)
    assert cycles.values.dtype == np.float64
    assert np.array_equal(cycles.values, expected)
    # float32 products would merge the two; float64 keeps them apart.
    assert (times * freqs).astype(np.float64)[0] != expected[0] or cycles.unique.size == 2


@pytest.mark.parametrize(
    ("times", "freqs", "problem"),
    [
        ([1.0, 2.0], [1.0], "cannot pair"),
        ([-1.0, 2.0], [-1.0, 1.0], "non-positive"),  # (-1) * (-1) would look valid
        ([1.0, 2.0], [0.0, 1.0], "non-positive"),
        ([1.0, 2.0], [math.nan, 1.0], "holds non-finite values"),
        ([1.0, 2.0], [math.inf, 1.0], "non-finite"),
        ([], [], "holds no values"),
    ],
)
def test_unusable_cycles_are_rejected(times: Any, freqs: Any, problem: str) -> None:
    with pytest.raises(UnusableBulkData, match=problem):
        cycle_samples(np.asarray(times, np.float32), np.asarray(freqs, np.float32))


# ---------------------------------------------------------------------------------------------
# Interval overlap


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ((1.0, 2.0, 3.0), (2.0, 3.0, 4.0), 0.5),  # 1 shared / 2 wide
        ((1.0, 2.0, 3.0), (1.5, 2.0, 2.5), 1.0),  # narrower fully inside
        ((1.0, 1.5, 2.0), (1.5, 2.5, 5.5), 0.5 / 1.0),  # normalised by the narrower width
        ((1.0, 1.5, 2.0), (2.0, 2.5, 3.0), 0.0),  # touching is not overlapping
        ((1.0, 1.5, 2.0), (3.0, 3.5, 4.0), 0.0),
        ((2.0, 2.0, 2.0), (2.0, 2.0, 2.0), 1.0),  # equal points
        ((2.0, 2.0, 2.0), (2.1, 2.1, 2.1), 0.0),  # different points
        ((2.0, 2.0, 2.0), (1.0, 2.0, 3.0), 1.0),  # point inside
        ((1.0, 2.0, 3.0), (3.0, 3.0, 3.0), 1.0),  # point on the edge counts as inside
        ((1.0, 2.0, 3.0), (3.5, 3.5, 3.5), 0.0),  # point outside
    ],
)
def test_overlap_fraction(
    a: tuple[float, float, float], b: tuple[float, float, float], expected: float
) -> None:
    assert overlap_fraction(Interval(*a), Interval(*b)) == pytest.approx(expected)
    assert overlap_fraction(Interval(*b), Interval(*a)) == pytest.approx(expected)


# ---------------------------------------------------------------------------------------------
# Rare-support filter


def counts(*values: int) -> Any:
    return np.array(values, dtype=np.int64)


def test_rare_filter_disabled_by_either_threshold() -> None:
    for changes in ({"bulk_rare_sample_fraction": 0.0}, {"bulk_rare_max_removed_fraction": 0.0}):
        info, mask = rare_support_filter(counts(1, 100), DEFAULT.replace(**changes))
        assert (info, mask) == (SupportFilter(False, "disabled"), None)


def test_rare_filter_off_when_every_value_is_unique() -> None:
    assert rare_support_filter(None, DEFAULT)[0].reason == "all values unique"
    assert rare_support_filter(counts(1, 1, 1), DEFAULT)[0].reason == "all values unique"


def test_rare_filter_min_count_is_at_least_two() -> None:
    # 0.001 * 102 = 0.102 -> ceil 1, but a value seen once is always rare: min_count = 2.
    info, mask = rare_support_filter(
        counts(1, 101), DEFAULT.replace(bulk_rare_max_removed_fraction=0.5)
    )
    assert info.applied and mask is not None and mask.tolist() == [False, True]


def test_rare_filter_min_count_scales_with_the_sample_count() -> None:
    # 10,000 samples: min_count = ceil(0.001 * 10000) = 10; 9 is rare, 10 is not.
    base = 10_000 - 9 - 10
    info, mask = rare_support_filter(counts(9, 10, base), DEFAULT)
    assert info.applied and mask is not None and mask.tolist() == [False, True, True]
    assert info.removed_fraction == pytest.approx(9 / 10_000)
    assert str(info) == "on(0.1%)"


def test_rare_filter_off_when_nothing_or_everything_is_rare() -> None:
    assert rare_support_filter(counts(50, 50), DEFAULT)[0].reason == "no rare values"
    # 3000 values seen 3 times each: min_count = ceil(0.001 * 9000) = 9, so all are rare.
    many = np.full(3000, 3, dtype=np.int64)
    assert rare_support_filter(many, DEFAULT)[0].reason == "would remove all support"


def test_rare_filter_off_when_removing_too_much_mass() -> None:
    # 3 of 200 samples are rare: 1.5% > 1% (default) but <= 2% (permissive).
    info, mask = rare_support_filter(counts(1, 1, 1, 197), DEFAULT)
    assert (info.applied, info.reason, mask) == (False, "would remove too much mass", None)
    assert str(info) == "off(would remove too much mass)"
    assert rare_support_filter(counts(1, 1, 1, 197), PRESETS["permissive"])[0].applied


def test_rare_filter_removed_mass_equal_to_the_limit_is_allowed() -> None:
    info, _ = rare_support_filter(
        counts(1, 99), DEFAULT.replace(bulk_rare_max_removed_fraction=0.01)
    )
    assert info.applied


# ---------------------------------------------------------------------------------------------
# Nearest-neighbour coverage


def brute_force_covered(a: Any, b: Any, tolerance: float) -> Any:
    """Reference: distance from every distinct value to every distinct value of the other side."""
    la, lb = np.log(a)[:, None], np.log(b)[None, :]
    return np.abs(la - lb).min(axis=1) <= tolerance


def both_ways(a: Any, b: Any, thresholds: Thresholds) -> tuple[Any, Any]:
    ref, cmp = sort_samples(a), sort_samples(b)
    tolerance = math.log1p(thresholds.same_center_relative)
    certificates = reference._bucket_certificates(ref.unique, cmp.unique, tolerance)
    ref_cert, cmp_cert = (None, None) if certificates is None else certificates
    return (
        reference.covered_by(ref.unique, cmp.unique, ref_cert, tolerance),
        reference.covered_by(cmp.unique, ref.unique, cmp_cert, tolerance),
    )


value_lists = st.lists(
    st.sampled_from([1.0, 1.001, 1.004, 1.005, 1.006, 1.01, 1.02, 1.5, 2.0, 2.01, 3.0]).map(
        lambda v: v * 1e-6
    )
    | st.floats(1e-7, 1e-3),
    min_size=1,
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(
    a=value_lists, b=value_lists, relative=st.sampled_from([0.0, 1e-12, 0.0025, 0.005, 0.01, 0.5])
)
def test_coverage_equals_brute_force_nearest_neighbour(
    a: list[float], b: list[float], relative: float
) -> None:
    thresholds = DEFAULT.replace(same_center_relative=relative)
    ref, cmp = sort_samples(a), sort_samples(b)
    tolerance = math.log1p(relative)
    ours_ref, ours_cmp = both_ways(a, b, thresholds)
    assert np.array_equal(ours_ref, brute_force_covered(ref.unique, cmp.unique, tolerance))
    assert np.array_equal(ours_cmp, brute_force_covered(cmp.unique, ref.unique, tolerance))


def test_bucket_certificates_change_nothing_but_speed() -> None:
    a, b = lognormal(1, 5000), lognormal(2, 5000) * np.float32(1.003)
    ref, cmp = sort_samples(a), sort_samples(b)
    tolerance = math.log1p(0.005)
    certificates = reference._bucket_certificates(ref.unique, cmp.unique, tolerance)
    assert certificates is not None
    # Nearly every value of two overlapping distributions is certified without a search...
    assert certificates[0].mean() > 0.99 and certificates[1].mean() > 0.99
    # ...and certified values are covered by the exact test as well.
    exact_ref = reference.covered_by(ref.unique, cmp.unique, None, tolerance)
    exact_cmp = reference.covered_by(cmp.unique, ref.unique, None, tolerance)
    assert not np.any(certificates[0] & ~exact_ref)
    assert np.array_equal(
        reference.covered_by(ref.unique, cmp.unique, certificates[0], tolerance), exact_ref
    )
    assert np.array_equal(
        reference.covered_by(cmp.unique, ref.unique, certificates[1], tolerance), exact_cmp
    )


def test_widely_spread_values_skip_the_buckets() -> None:
    spread = np.geomspace(1e-9, 1.0, 50)
    assert reference._bucket_certificates(spread, spread * 1.001, math.log1p(0.005)) is None
    assert reference._bucket_certificates(spread, spread, 0.0) is None
    ours = both_ways(spread, spread * 1.001, DEFAULT)
    assert ours[0].all() and ours[1].all()


def test_identical_samples_cover_each_other_fully() -> None:
    values = lognormal(5)
    result = coverage(sort_samples(values), sort_samples(values.copy()), DEFAULT)
    assert result.passed and result.severity == 0.0
    assert (result.ref.sample, result.cmp.support) == (1.0, 1.0)


def test_sample_coverage_weights_by_count_and_support_by_value() -> None:
    # ref: 1.0 x 90, 2.0 x 10; cmp: 1.0 x 100. 2.0 has no neighbour within 0.5 %.
    ref = sort_samples([1.0] * 90 + [2.0] * 10)
    cmp = sort_samples([1.0] * 100)
    result = coverage(ref, cmp, DEFAULT, family="time")
    assert result.ref == SideCoverage(0.9, 0.5, SupportFilter(False, "no rare values"))
    assert (result.cmp.sample, result.cmp.support) == (1.0, 1.0)
    assert not result.passed
    assert result.severity == pytest.approx(0.8 - 0.5)  # support misses by more than samples


def test_rare_values_do_not_decide_support() -> None:
    # 2 outliers among 2000 samples: rare (< 2 each... count 1) and 0.1 % of the mass.
    common = np.repeat(np.array([1.0, 1.001, 1.002]), [700, 700, 598])
    ref = sort_samples(np.concatenate([common, [5.0, 7.0]]))
    cmp = sort_samples(common)
    result = coverage(ref, cmp, DEFAULT)
    assert result.ref.support_filter.applied
    assert result.ref.support == 1.0 and result.ref.sample == pytest.approx(0.999)
    assert result.passed
    disabled = coverage(ref, cmp, DEFAULT.replace(bulk_rare_sample_fraction=0.0))
    assert disabled.ref.support == pytest.approx(3 / 5) and not disabled.passed


def test_coverage_is_symmetric_a_new_mode_on_either_side_fails() -> None:
    base = lognormal(7, 4000).astype(np.float64)
    shifted = base.copy()
    shifted[::3] *= 1.03  # a third of the samples in a new mode 3 % slower
    forward = coverage(sort_samples(base), sort_samples(shifted), DEFAULT)
    backward = coverage(sort_samples(shifted), sort_samples(base), DEFAULT)
    assert not forward.passed and not backward.passed
    assert forward.severity == pytest.approx(backward.severity)
    assert forward.cmp.sample < forward.ref.sample


def test_coverage_message_states_the_requirement() -> None:
    result = Coverage(
        "time",
        SideCoverage(1.0, 1.0, SupportFilter(False, "no rare values")),
        SideCoverage(0.945, 0.849, SupportFilter(False, "no rare values")),
        0.97,
        0.80,
    )
    assert result.message == (
        "sample: min(ref=100.0%, cmp=94.5%) >= 97.0%; support: min(ref=100.0%, cmp=84.9%) >= 80.0%"
    )
    assert not result.passed  # samples fall short
    assert result.severity == pytest.approx(0.97 - 0.945)


def test_thresholds_are_inclusive() -> None:
    side = SideCoverage(0.97, 0.8, SupportFilter(False, "no rare values"))
    assert Coverage("time", side, side, 0.97, 0.8).passed


def test_tolerance_is_the_same_center_tolerance_in_log_space() -> None:
    ref = sort_samples([1.0])
    assert coverage(ref, sort_samples([1.0049]), DEFAULT).passed
    assert not coverage(ref, sort_samples([1.0051]), DEFAULT).passed
    assert coverage(ref, sort_samples([1.0099]), PRESETS["permissive"]).passed
    assert not coverage(ref, sort_samples([1.003]), PRESETS["strict"]).passed


# ---------------------------------------------------------------------------------------------
# Coverage of values in measurement order (no sort unless a side has uncovered values)


def unsorted_times(values: Any, sorts: list[str] | None = None, name: str = "") -> Any:
    data = np.asarray(values)

    def sort() -> Any:
        if sorts is not None:
            sorts.append(name)
        return sort_samples(data)

    return bulk.ordered_times(bulk.checked_values(data), sort)


def unsorted_cycles(times: Any, freqs: Any) -> Any:
    checked = bulk.checked_values(times)
    return bulk.ordered_cycles(
        checked, bulk.checked_frequencies(checked, freqs), lambda: cycle_samples(times, freqs)
    )


def same_numbers(fast: Coverage | None, exact: Coverage) -> None:
    assert fast is not None
    for side in ("ref", "cmp"):
        ours, theirs = getattr(fast, side), getattr(exact, side)
        assert (ours.sample, ours.support) == (theirs.sample, theirs.support), side
    assert fast.passed == exact.passed
    assert fast.message == exact.message
    assert fast.severity == exact.severity


def noise(seed: int, shape: str, n: int, shift: float) -> Any:
    rng = np.random.default_rng(seed)
    if shape == "lognormal":
        values = 5e-5 * np.exp(rng.normal(0.0, 0.02, n))
    elif shape == "bimodal":
        values = 5e-5 * np.where(rng.random(n) < 0.3, 1.04, 1.0) * np.exp(rng.normal(0, 0.004, n))
    elif shape == "tails":
        values = 5e-5 * (1 + rng.pareto(3.0, n) * 0.01)
    else:  # "quantized": few distinct values, many repeats
        values = 5e-5 * (1 + np.round(rng.normal(0.0, 0.01, n), 3))
    return (values * shift).astype(np.float32)


@pytest.mark.parametrize("shape", ["lognormal", "bimodal", "tails", "quantized"])
@pytest.mark.parametrize("shift", [1.0, 1.002, 1.006, 1.03])
@pytest.mark.parametrize("relative", [0.0025, 0.005, 0.01, 0.05])
def test_unsorted_coverage_gives_the_numbers_of_the_sorted_test(
    shape: str, shift: float, relative: float
) -> None:
    thresholds = DEFAULT.replace(same_center_relative=relative)
    for seed in range(3):
        a, b = noise(seed, shape, 3000, 1.0), noise(seed + 100, shape, 2500, shift)
        fa = (1.7e9 * (1 + 0.002 * np.random.default_rng(seed).random(a.size))).astype(np.float32)
        fb = (1.7e9 * (1 + 0.002 * np.random.default_rng(seed + 1).random(b.size))).astype(
            np.float32
        )
        times = unsorted_coverage(unsorted_times(a), unsorted_times(b), thresholds)
        exact_times = coverage(sort_samples(a), sort_samples(b), thresholds)
        cycles = unsorted_coverage(
            unsorted_cycles(a, fa), unsorted_cycles(b, fb), thresholds, family="cycle"
        )
        exact_cycles = coverage(
            cycle_samples(a, fa), cycle_samples(b, fb), thresholds, family="cycle"
        )
        for fast, exact in ((times, exact_times), (cycles, exact_cycles)):
            if fast is None:
                # The sorted test decides widely spread values (heavy tails: more buckets
                # than values) and runs with hundreds of values apart; the typical case of
                # close runs under the default tolerance takes this route.
                assert shape == "tails" or shift > 1.002 or relative > 0.005
                assert shape == "tails" or shift > 1.002 or not exact.passed
            else:
                same_numbers(fast, exact)
                assert fast.family == exact.family


@settings(max_examples=300, deadline=None)
@given(
    a=value_lists,
    b=value_lists,
    relative=st.sampled_from([0.0, 1e-12, 0.001, 0.0025, 0.005, 0.01, 0.5]),
)
def test_unsorted_coverage_equals_the_sorted_test_on_any_values(
    a: list[float], b: list[float], relative: float
) -> None:
    thresholds = DEFAULT.replace(same_center_relative=relative)
    ref, cmp = np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32)
    fast = unsorted_coverage(unsorted_times(ref), unsorted_times(cmp), thresholds)
    if relative < 0.001:
        assert fast is None  # buckets finer than float32 rounding of cycles: not used
        return
    if fast is not None:
        same_numbers(fast, coverage(sort_samples(ref), sort_samples(cmp), thresholds))


def test_runs_that_cover_each_other_are_never_sorted() -> None:
    sorts: list[str] = []
    a, b = lognormal(1, 5000), lognormal(2, 5000)
    b[:] = np.clip(b, a.min(), a.max())  # no tail of one beyond the other's
    result = unsorted_coverage(
        unsorted_times(a, sorts, "ref"), unsorted_times(b, sorts, "cmp"), DEFAULT
    )
    assert result is not None and result.passed
    assert (result.ref.sample, result.ref.support, result.cmp.support) == (1.0, 1.0, 1.0)
    assert sorts == []
    assert result.ref.support_filter == result.cmp.support_filter
    assert not result.ref.support_filter.applied


def test_a_side_with_an_uncovered_value_is_not_sorted_either() -> None:
    sorts: list[str] = []
    a = lognormal(1, 5000)
    b = np.clip(lognormal(2, 5000), a.min(), a.max())
    a[17] = a.max() * np.float32(1.05)  # an outlier the compare run never produced
    result = unsorted_coverage(
        unsorted_times(a, sorts, "ref"), unsorted_times(b, sorts, "cmp"), DEFAULT
    )
    exact = coverage(sort_samples(a), sort_samples(b), DEFAULT)
    same_numbers(result, exact)
    assert sorts == []  # distinct values counted without a sort (_coverage_fast._tally)
    assert result is not None and result.ref.sample == 1 - 1 / a.size


def test_unsorted_coverage_leaves_distant_runs_to_the_sorted_test() -> None:
    a = lognormal(1, 2000)
    assert unsorted_coverage(unsorted_times(a), unsorted_times(a * 1.5), DEFAULT) is None
    spread = np.geomspace(1e-9, 1.0, 50).astype(np.float32)
    assert unsorted_coverage(unsorted_times(spread), unsorted_times(spread), DEFAULT) is None


def test_unsorted_cycles_round_only_the_buckets() -> None:
    # Products that float32 cannot tell apart are still distinct cycle counts: the exact
    # test, and the counts of distinct values, use the float64 products.
    times = np.full(4000, 1e-5, dtype=np.float32)
    times[::2] = np.nextafter(np.float32(1e-5), np.float32(1))
    freqs = np.full(4000, 1.5e9, dtype=np.float32)
    freqs[1::4] = np.nextafter(np.float32(1.5e9), np.float32(0))
    other_freqs = freqs.copy()
    other_freqs[0] = np.float32(1.7e9)  # one sample 13 % apart: uncovered
    fast = unsorted_coverage(
        unsorted_cycles(times, freqs), unsorted_cycles(times, other_freqs), DEFAULT, family="cycle"
    )
    exact = coverage(
        cycle_samples(times, freqs), cycle_samples(times, other_freqs), DEFAULT, family="cycle"
    )
    same_numbers(fast, exact)
    assert exact.cmp.sample < 1.0 and exact.cmp.support_filter.applied  # the rare filter ran
    assert fast is not None and fast.cmp.support_filter == exact.cmp.support_filter


@pytest.mark.parametrize(
    ("times", "freqs", "problem"),
    [
        ([1.0, 2.0], [1.0], "cannot pair"),
        ([], [], "holds no values"),
        ([1.0, 2.0], [1.0, -1.0], "non-positive"),
        # NaN is a non-finite value, for frequencies as for times, unless a non-positive
        # value comes with it.
        ([1.0, 2.0], [1.0, math.nan], "holds non-finite values"),
        ([1.0, 2.0], [math.nan, -1.0], "non-positive"),
        ([1.0, math.nan], [1.0, 1.0], "holds non-finite values"),
        ([1.0, 2.0], [1.0, math.inf], "non-finite"),
    ],
)
def test_paired_frequencies_reject_what_cycle_samples_rejects(
    times: list[float], freqs: list[float], problem: str
) -> None:
    with pytest.raises(UnusableBulkData, match=problem) as paired:
        bulk.paired_frequencies(times, freqs)
    with pytest.raises(UnusableBulkData) as sorted_error:
        cycle_samples(times, freqs)
    assert str(paired.value) == str(sorted_error.value)
    if times:  # checked_frequencies pairs with times already validated
        with pytest.raises(UnusableBulkData) as checked:
            bulk.checked_frequencies(bulk.checked_values(times), freqs)
        assert str(checked.value) == str(sorted_error.value)


@pytest.mark.parametrize(
    "values", [[1.0, math.nan], [math.inf, 1.0], [1.0, -math.inf], [0.0, 1.0], [], [[1.0]]]
)
def test_checked_values_reject_what_sort_samples_rejects(values: list[Any]) -> None:
    with pytest.raises(UnusableBulkData) as unsorted_error:
        bulk.checked_values(values)
    with pytest.raises(UnusableBulkData) as sorted_error:
        sort_samples(values)
    assert str(unsorted_error.value) == str(sorted_error.value)


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(
        st.sampled_from([1.0, 1.0 + 1e-12, 1.0 + 1e-7, 1.5, 2.0, 7.0]) | st.floats(0.5, 9.0),
        max_size=300,
    ),
    missing_count=st.integers(0, 3),
    wide=st.booleans(),
)
def test_tally_counts_distinct_values_as_a_sort_does(
    values: list[float], missing_count: int, wide: bool
) -> None:
    # float64 values that round to one float32 pattern are still distinct.
    data = np.asarray([1.0, *values], dtype=np.float64 if wide else np.float32)
    ordered = sort_samples(data)
    missing = ordered.unique[:missing_count]
    counts, covered = _coverage_fast._tally(unsorted_times(data), missing)
    assert (counts is None) == (ordered.counts is None)
    ours = np.ones(covered.size, dtype=np.int64) if counts is None else counts
    theirs = (
        np.ones(ordered.unique.size, dtype=np.int64) if ordered.counts is None else ordered.counts
    )
    # The same multiset of (count, covered) pairs, in any order.
    assert sorted(zip(ours.tolist(), covered.tolist(), strict=True)) == sorted(
        zip(theirs.tolist(), (~np.isin(ordered.unique, missing)).tolist(), strict=True)
    )


# ---------------------------------------------------------------------------------------------
# Order statistics near given ranks without a full sort


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(
        st.sampled_from([1e-6, 1e-6 + 1e-18, 2e-6, 5e-5, 3.0]) | st.floats(1e-9, 1e3),
        min_size=1,
        max_size=400,
    ),
    wide=st.booleans(),
    data=st.data(),
)
def test_rank_window_is_a_slice_of_the_sorted_values(
    values: list[float], wide: bool, data: st.DataObject
) -> None:
    array = np.asarray(values, dtype=np.float64 if wide else np.float32)
    lo = data.draw(st.integers(0, array.size - 1))
    hi = data.draw(st.integers(lo, array.size - 1))
    window = bulk.rank_window(array, lo, hi)
    assert window.dtype == array.dtype
    assert np.array_equal(window, np.sort(array)[lo : hi + 1])


def test_rank_window_of_many_samples_near_the_median() -> None:
    for shape in ("lognormal", "bimodal", "tails", "quantized"):
        times = noise(7, shape, 10_000, 1.0)
        cycles = times.astype(np.float64) * np.float32(1.7e9)
        for values in (times, cycles):
            assert np.array_equal(bulk.rank_window(values, 4800, 5200), np.sort(values)[4800:5201])
    with pytest.raises(ValueError, match="outside"):
        bulk.rank_window(np.ones(3, dtype=np.float32), 2, 3)
