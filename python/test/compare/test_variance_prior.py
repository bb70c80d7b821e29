"""The empirical-Bayes prior of the states' run-to-run variances (Smyth 2004)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from cuda.bench.compare.variance_prior import least_floors, variance_prior


def test_states_that_share_one_noise_share_it_and_others_keep_their_own() -> None:
    rng = np.random.default_rng(1)
    shared = rng.chisquare(3, 200) / 3 * 1e-4
    prior = variance_prior(list(shared), [3] * 200)
    assert prior is not None and prior.degrees_of_freedom > 50
    assert math.sqrt(prior.variance) == pytest.approx(0.01, rel=0.1)
    # A state whose four runs agreed within 0.1 % is lifted to most of the shared 1 %.
    assert math.sqrt(prior.moderated(1e-6, 3)) > 0.009
    spreads = 0.01 * np.exp(rng.normal(0.0, 2.0, 200))
    apart = variance_prior(list(spreads**2 * rng.chisquare(14, 200) / 14), [14] * 200)
    assert apart is not None and apart.degrees_of_freedom < 2
    assert math.sqrt(apart.moderated(1e-8, 14)) < 0.002  # a fifth of the typical 1 %


def test_too_few_or_only_zero_variances_give_no_prior() -> None:
    assert variance_prior([1e-4, 2e-4, 3e-4, 4e-4], [4, 4, 4, 4]) is None
    assert variance_prior([0.0] * 5, [4] * 5) is None
    assert variance_prior([1e-4, math.nan, 2e-4, 3e-4, 1e-4, 2e-4], [4, 4, 4, 0, 4, 4]) is None
    # Zeros among usable variances are raised to 1e-5 of the median, not log(0).
    prior = variance_prior([0.0, 1e-4, 2e-4, 1.5e-4, 1.2e-4], [4] * 5)
    assert prior is not None and math.isfinite(prior.variance)


def test_the_least_floor_is_the_moderated_spread_less_the_within_run_error() -> None:
    assert least_floors([0.01, 0.02], [0.001, 0.0], [4, 4]) == pytest.approx(
        [math.sqrt(0.01**2 - 0.001**2), 0.02]
    )
    shared = 0.01 * np.sqrt(np.random.default_rng(2).chisquare(3, 30) / 3)
    floors = least_floors([*shared, 0.0005], [0.001] * 31, [4] * 31)
    assert floors[-1] > 0.004  # eight times its own


def test_wilson_hilferty_gives_the_chi_square_quartiles() -> None:
    from cuda.bench.compare.variance_prior import _log_chi2_quantile, _prior_spread

    # chi2_3: median 2.366, upper quartile 4.108 (tables); within 0.01 in log from d = 3.
    assert _log_chi2_quantile(0, 3.0) == pytest.approx(math.log(2.366 / 3.0), abs=0.01)
    assert _log_chi2_quantile(1, 3.0) == pytest.approx(math.log(4.108 / 3.0), abs=0.01)
    spreads = [_prior_spread(d) for d in (0.45, 0.6, 1.0, 3.0, 30.0, 3000.0)]
    assert spreads == sorted(spreads, reverse=True) and spreads[-1] < 0.02
    assert _prior_spread(0.3) == math.inf


def test_a_state_without_a_usable_spread_gets_no_floor_to_pass_on() -> None:
    floors = least_floors([0.01, math.nan, -0.01, math.inf, 0.01, 0.012], [0.001] * 6, [4] * 6)
    assert floors[1:4] == [math.inf, math.inf, math.inf]
    assert all(math.isfinite(floor) for floor in (floors[0], *floors[4:]))


def test_a_quarter_of_lucky_states_still_leaves_most_of_the_shared_noise() -> None:
    rng = np.random.default_rng(3)
    shared = list(0.01 * np.sqrt(rng.chisquare(3, 30) / 3))
    floors = least_floors([*shared, *[0.0005] * 10], [0.0] * 40, [3] * 40)
    assert min(floors[30:]) > 0.5 * float(np.median(shared))
