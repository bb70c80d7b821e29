"""The statistics behind effect sizes: order-statistic bootstrap, hierarchy, quantiles."""

from __future__ import annotations

import math

import numpy as np
import pytest
from cuda.bench.compare.bootstrap import (
    MAD_TO_SD,
    NORMAL_MAD,
    Level,
    batch_standard_error,
    bootstrap_order_statistic,
    chi2_quantile,
    drift_widening,
    expansion_factor,
    mean_standard_error,
    median_rank,
    median_standard_error,
    normal_quantile,
    order_statistic_uniforms,
    percentile_interval,
    ratio_draws,
    run_picks,
    side_distribution,
    student_t_quantile,
)
from cuda.bench.compare.bulk import sort_samples

# ---------------------------------------------------------------------------------------------
# Quantiles


def test_normal_quantile_is_the_standard_librarys_to_the_last_bit() -> None:
    # Intervals and z-scores in every report are built on it: any other rounding would
    # change the reports' bytes.
    import statistics

    standard = statistics.NormalDist()
    for p in (1e-12, 0.0005, 0.025, 0.05, 0.1, 0.3, 0.5, 0.8, 0.95, 0.975, 0.9995, 1 - 1e-12):
        assert normal_quantile(p) == standard.inv_cdf(p)
    for outside in (0.0, 1.0, -0.5, 1.5, math.nan):
        with pytest.raises(ValueError, match=r"0\.0 < p < 1\.0"):
            normal_quantile(outside)


def test_the_mad_to_sd_factor_is_one_over_the_normal_upper_quartile() -> None:
    """Every robust scale (the history's noise, the gate's Hampel screen, the empirical
    null) uses this one definition; a normal sample's MAD times it estimates its sd."""
    assert normal_quantile(0.75) == NORMAL_MAD
    assert 1.0 / normal_quantile(0.75) == MAD_TO_SD
    assert f"{MAD_TO_SD:.6f}" == "1.482602"
    values = np.random.default_rng(3).normal(0.0, 2.5, 200_001)
    mad = float(np.median(np.abs(values - np.median(values))))
    assert MAD_TO_SD * mad == pytest.approx(2.5, rel=0.01)


@pytest.mark.parametrize(
    ("p", "df", "expected"),
    [
        (0.975, 1, 12.7062),
        (0.975, 2, 4.3027),
        (0.975, 3, 3.1824),
        (0.975, 4, 2.7764),
        (0.975, 10, 2.2281),
        (0.995, 5, 4.0321),
        (0.995, 30, 2.7500),
        (0.95, 7, 1.8946),
    ],
)
def test_student_t_quantiles_match_tables(p: float, df: int, expected: float) -> None:
    assert student_t_quantile(p, df) == pytest.approx(expected, abs=1e-4)


def test_t_quantile_rounds_fractional_df_down_and_tends_to_normal() -> None:
    assert student_t_quantile(0.975, 4.9) == student_t_quantile(0.975, 4)
    assert student_t_quantile(0.975, math.inf) == pytest.approx(1.959964, abs=1e-6)
    assert student_t_quantile(0.975, 5000) == pytest.approx(normal_quantile(0.975))
    with pytest.raises(ValueError):
        student_t_quantile(0.4, 3)


def test_percentile_interval_equals_numpy_linear_quantiles() -> None:
    rng = np.random.default_rng(7)
    for size in (1, 2, 3, 10, 1999, 2000):
        draws = rng.standard_normal(size)
        for confidence in (0.5, 0.9, 0.95, 0.99):
            tail = (1 - confidence) / 2
            expected = np.quantile(draws, [tail, 1 - tail])
            assert percentile_interval(draws, confidence) == pytest.approx(tuple(expected))


# ---------------------------------------------------------------------------------------------
# The order-statistic shortcut


def test_median_rank_is_nvbench_nearest_rank() -> None:
    for size in range(1, 50):
        values = np.arange(size, dtype=np.float64)
        assert values[median_rank(size)] == sort_samples(values + 1).median - 1


def test_order_statistic_maps_uniforms_onto_the_sorted_samples() -> None:
    values = np.array([1.0, 2.0, 3.0, 4.0])
    # F_n^-1(u) = sorted[ceil(n u) - 1]; u = 0 cannot occur but must stay in range.
    uniforms = np.array([0.0, 0.1, 0.25, 0.2500001, 0.5, 0.75, 0.76, 1.0])
    expected = [1.0, 1.0, 1.0, 2.0, 2.0, 3.0, 4.0, 4.0]
    assert bootstrap_order_statistic(values, uniforms).tolist() == expected
    single = bootstrap_order_statistic(np.array([5.0]), np.array([0.3, 0.9]))
    assert single.tolist() == [5.0, 5.0]


@pytest.mark.parametrize("size", [7, 200, 1001])
def test_beta_shortcut_matches_a_brute_force_bootstrap(size: int) -> None:
    """Same distribution as medians of real resamples: quantiles and variance agree."""
    rng = np.random.default_rng(size)
    data = np.sort(rng.lognormal(0.0, 0.05, size)).astype(np.float32)
    rank = median_rank(size)
    brute_count = 6000
    picks = rng.integers(0, size, size=(brute_count, size))
    brute = np.sort(data[picks], axis=1)[:, rank].astype(np.float64)
    fast = bootstrap_order_statistic(data, order_statistic_uniforms(rng, size, rank, 60_000))
    # Compare the distributions on the support: P(median* <= x_(j)) for every sample j.
    grid = data.astype(np.float64)
    brute_cdf = np.searchsorted(np.sort(brute), grid, side="right") / brute.size
    fast_cdf = np.searchsorted(np.sort(fast), grid, side="right") / fast.size
    # Kolmogorov-Smirnov two-sample bound at 99.9 %: 1.95 * sqrt((n + m) / (n m)).
    bound = 1.95 * math.sqrt((brute.size + fast.size) / (brute.size * fast.size))
    assert np.max(np.abs(brute_cdf - fast_cdf)) < bound
    assert np.std(fast) == pytest.approx(np.std(brute), rel=0.08)


def test_beta_shortcut_equals_the_exact_bootstrap_probabilities() -> None:
    """P(median* = x_(j)) from the binomial formula (Efron 1979; Maritz & Jarrett 1978)."""
    size, rank = 9, median_rank(9)
    data = np.arange(1.0, size + 1)
    rng = np.random.default_rng(3)
    draws = bootstrap_order_statistic(data, order_statistic_uniforms(rng, size, rank, 400_000))
    k = rank + 1

    def at_most(j: int) -> float:  # P(at least k of n draws <= x_(j)) = P(Bin(n, j/n) >= k)
        p = j / size
        return sum(math.comb(size, i) * p**i * (1 - p) ** (size - i) for i in range(k, size + 1))

    exact = [at_most(j) - at_most(j - 1) for j in range(1, size + 1)]
    observed = [float(np.mean(draws == value)) for value in data]
    assert observed == pytest.approx(exact, abs=0.004)


# ---------------------------------------------------------------------------------------------
# Standard errors from summaries


def test_median_standard_error_bounds_the_asymptotic_error_of_unimodal_data() -> None:
    count = 2500
    # Normal: exact sqrt(pi/2) sigma/sqrt(n) = 0.929 IQR/sqrt(n); the bound is 7.6 % above.
    sigma, median = 0.01, 1.0
    q1, q3 = median - 0.6745 * sigma, median + 0.6745 * sigma
    bound = median_standard_error(median, q1, q3, count)
    exact = math.sqrt(math.pi / 2) * sigma / math.sqrt(count)
    assert bound is not None and bound / exact == pytest.approx(1.0764, abs=1e-3)
    # Skewed (right tail longer): the wider half decides.
    skewed = median_standard_error(1.0, 0.99, 1.05, 100)
    assert skewed == pytest.approx(2 * 0.05 / 10)


def test_median_standard_error_falls_back_and_refuses() -> None:
    tied = median_standard_error(2.0, 2.0, 2.0, 400, stdev=0.1)
    assert tied == pytest.approx(1.2533141 * 0.1 / (2.0 * 20))
    assert median_standard_error(2.0, 2.0, 2.0, 400) is None
    assert median_standard_error(1.0, 1.1, 1.2, 100) is None  # unordered
    assert median_standard_error(1.0, 0.9, 1.1, 1) is None
    assert median_standard_error(None, 0.9, 1.1, 10) is None
    assert median_standard_error(1.0, -0.9, 1.1, 10) is None
    assert mean_standard_error(2.0, 0.2, 100) == pytest.approx(0.01)
    assert mean_standard_error(2.0, math.inf, 100) is None
    assert mean_standard_error(0.0, 0.2, 100) is None


# ---------------------------------------------------------------------------------------------
# Drift within a run: batch medians


def test_chi2_quantiles_match_tables() -> None:
    for df, p, expected in [(19, 0.99, 36.191), (19, 0.999, 43.820), (9, 0.95, 16.919)]:
        assert chi2_quantile(p, df) == pytest.approx(expected, rel=0.01)


def test_batch_standard_error_agrees_with_the_bootstrap_for_independent_samples() -> None:
    rng = np.random.default_rng(8)
    raised = 0
    for trial in range(200):
        values = rng.lognormal(0.0, 0.01, 2000)
        batch = batch_standard_error(values)
        assert batch is not None and batch[1] == 20
        uniforms = order_statistic_uniforms(rng, 2000, median_rank(2000), 2000)
        boot = float(np.std(np.log(bootstrap_order_statistic(np.sort(values), uniforms))))
        assert 0.3 < batch[0] / boot < 2.0, trial
        raised += drift_widening(boot, batch) is not None
    assert raised <= 3  # a 99.9 % test: about one false alarm in a thousand runs


def test_batch_standard_error_sees_a_level_shift_within_the_run() -> None:
    rng = np.random.default_rng(9)
    values = rng.lognormal(0.0, 0.01, 2000) * np.where(np.arange(2000) < 1000, 1.0, 1.03)
    batch = batch_standard_error(values)
    assert batch is not None and batch[0] > 0.003  # ~1.5 % per half / sqrt(20)
    assert drift_widening(0.0003, batch) == batch[0]
    assert batch_standard_error(np.ones(100)) is None  # too short to check
    assert drift_widening(0.001, (0.0, 20)) is None


# ---------------------------------------------------------------------------------------------
# Several runs


def _level(rng: np.random.Generator, center: float, se: float, resamples: int) -> Level:
    return Level(center, center + se * rng.standard_normal(resamples))


def test_one_run_is_the_one_level_bootstrap() -> None:
    rng = np.random.default_rng(1)
    level = _level(rng, 0.3, 0.01, 1000)
    side = side_distribution([level], run_picks(rng, 1, 1000))
    assert side.runs == 1 and side.run_variance == 0.0
    assert np.all(side.run_part == 0.0)
    assert np.allclose(side.center + side.within_part, level.draws)


def test_run_level_variance_is_unbiased_and_drift_widens_the_interval() -> None:
    rng = np.random.default_rng(2)
    resamples = 20_000
    centers = [0.00, 0.02, -0.01, 0.03, 0.01]
    levels = [_level(rng, c, 1e-4, resamples) for c in centers]
    side = side_distribution(levels, run_picks(rng, len(levels), resamples))
    expected = np.var(centers, ddof=1) / len(centers)
    assert side.run_variance == pytest.approx(expected)
    # c_R = sqrt(R/(R-1)) makes the run-level draws' variance s^2/R, not (R-1)/R of it.
    assert np.var(side.run_part) == pytest.approx(expected, rel=0.05)
    assert side.center == pytest.approx(np.mean(centers))
    quiet = side_distribution(
        [_level(rng, 0.01, 1e-4, resamples) for _ in centers],
        run_picks(rng, len(centers), resamples),
    )
    reference = side_distribution([_level(rng, 0.0, 1e-4, resamples)], None)
    drifting = ratio_draws(reference, side, 0.95)
    steady = ratio_draws(reference, quiet, 0.95)
    assert drifting.hi - drifting.lo > 10 * (steady.hi - steady.lo)


def test_repeated_picks_of_a_run_use_distinct_draws() -> None:
    resamples = 8
    draws = np.arange(resamples, dtype=np.float64)
    levels = [Level(0.0, draws), Level(0.0, np.zeros(resamples))]
    picks = np.zeros((2, resamples), dtype=np.int64)  # every pick takes run 0
    side = side_distribution(levels, picks)
    # Draw b averages run 0's draws b and b+1 (mod B), not draw b twice.
    expected = (draws + np.roll(draws, -1)) / 2
    assert side.within_part.tolist() == expected.tolist()


def test_expansion_factor_is_t_over_z_with_satterthwaite_df() -> None:
    rng = np.random.default_rng(4)
    levels = [_level(rng, c, 1e-5, 100) for c in (0.0, 0.01, 0.02)]
    side = side_distribution(levels, run_picks(rng, 3, 100))
    single = side_distribution([_level(rng, 0.0, 1e-5, 100)], None)
    k, nu = expansion_factor(single, side, 0.95)
    assert nu == pytest.approx(2.0)
    assert k == pytest.approx(4.302653 / 1.959964, rel=1e-5)
    k2, nu2 = expansion_factor(side, side, 0.95)
    assert nu2 == pytest.approx(4.0)
    assert k2 == pytest.approx(2.776445 / 1.959964, rel=1e-5)
    assert expansion_factor(single, single, 0.95) == (1.0, math.inf)


def test_ratio_interval_contains_the_estimate_even_when_draws_do_not() -> None:
    ref = side_distribution([Level(0.0, np.full(50, 0.1))], None)
    cmp = side_distribution([Level(0.0, np.zeros(50))], None)
    ratio = ratio_draws(ref, cmp, 0.95)
    assert ratio.estimate == 0.0
    assert ratio.lo <= 0.0 <= ratio.hi
    assert ratio.ratio == 1.0 and ratio.ratio_lo == pytest.approx(math.exp(-0.1))


def test_normal_ratio_is_the_limit_of_normal_draws() -> None:
    from cuda.bench.compare.bootstrap import normal_ratio, percentile_interval

    closed = normal_ratio(0.1, 0.02, 0.15, 0.01, 0.95)
    assert closed.draws is None and closed.estimate == pytest.approx(0.05)
    rng = np.random.default_rng(3)
    draws = 0.05 + rng.standard_normal(400_000) * math.hypot(0.02, 0.01)
    lo, hi = percentile_interval(draws, 0.95)
    assert closed.lo == pytest.approx(lo, abs=5e-4)
    assert closed.hi == pytest.approx(hi, abs=5e-4)


def test_order_statistic_ranks_are_what_the_bootstrap_reads() -> None:
    from cuda.bench.compare.bootstrap import order_statistic_ranks

    rng = np.random.default_rng(4)
    values = np.sort(rng.lognormal(0.0, 0.1, 1001))
    uniforms = np.concatenate(([0.0, 1e-12, 1.0], rng.random(500)))
    ranks = order_statistic_ranks(uniforms, values.size)
    assert ranks.min() >= 0 and ranks.max() <= values.size - 1
    assert (ranks[0], ranks[2]) == (0, values.size - 1)
    assert np.array_equal(bootstrap_order_statistic(values, uniforms), values[ranks])
