"""``detect`` on series that real archives hold and no generator of ours makes: constant
runs, a timer's quantised values (ties, a zero MAD of differences), magnitudes from
nanoseconds to hours, a million-fold step, alternating values, bursts of outliers, random
walks and missing runs, mixed with series of other lengths. Whatever the series, the
detection must finish without an error or a numerical warning and report only what can be
true: indices inside the series, probabilities in [0, 1], finite positive ratios inside
their intervals. It compares levels as ratios, so rescaling a series (seconds to
milliseconds) must not move a finding."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np
import pytest
from cuda.bench.history import RunSeries, detect

Shape = Callable[[np.random.Generator, int], np.ndarray]


def _constant(rng: np.random.Generator, runs: int) -> np.ndarray:
    return np.full(runs, 1.0)


def _nearly_constant(rng: np.random.Generator, runs: int) -> np.ndarray:
    return np.exp(rng.normal(0.0, 1e-12, runs))


def _quantised(rng: np.random.Generator, runs: int) -> np.ndarray:
    # A timer of 0.01 units: a handful of distinct values, most differences zero.
    return np.round(np.exp(rng.normal(0.0, 0.01, runs)) * 100.0) / 100.0


def _huge_step(rng: np.random.Generator, runs: int) -> np.ndarray:
    level = np.where(np.arange(runs) < runs // 2, 1.0, 1e6)
    return level * np.exp(rng.normal(0.0, 0.01, runs))


def _two_values(rng: np.random.Generator, runs: int) -> np.ndarray:
    return rng.choice([1.0, 1.5], runs)


def _alternating(rng: np.random.Generator, runs: int) -> np.ndarray:
    return 1.0 + (np.arange(runs) % 2) * 0.1


def _random_walk(rng: np.random.Generator, runs: int) -> np.ndarray:
    return np.exp(np.cumsum(rng.normal(0.0, 0.05, runs)))


def _heavy_tails(rng: np.random.Generator, runs: int) -> np.ndarray:
    return np.exp(np.clip(rng.standard_cauchy(runs) * 0.01, -7.0, 7.0))


def _outlier_bursts(rng: np.random.Generator, runs: int) -> np.ndarray:
    values = np.exp(rng.normal(0.0, 0.01, runs))
    values[rng.integers(0, runs, max(1, runs // 3))] = 1e3
    return values


SHAPES: tuple[Shape, ...] = (
    _constant,
    _nearly_constant,
    _quantised,
    _huge_step,
    _two_values,
    _alternating,
    _random_walk,
    _heavy_tails,
    _outlier_bursts,
)
LENGTHS = (1, 2, 5, 9, 10, 11, 20, 41, 100, 200)


def _pool(seed: int) -> list[RunSeries]:
    rng = np.random.default_rng(seed)
    shared = int(rng.choice(LENGTHS[4:]))
    pool = []
    for number in range(int(rng.integers(2, 8))):
        runs = shared if rng.random() < 0.7 else int(rng.choice(LENGTHS))
        values = SHAPES[(seed + number) % len(SHAPES)](rng, runs) * 10 ** rng.uniform(-9, 4)
        if rng.random() < 0.4:
            values[rng.random(runs) < rng.uniform(0.0, 0.8)] = np.nan
            if np.isnan(values).all():
                values[-1] = 1.0
        pool.append(RunSeries(f"s{number}", values))
    return pool


def _checked(pool: list[RunSeries]) -> list[tuple[str, int]]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = detect(pool)
    runs = {one.key: one.medians.size for one in pool}
    for change in found.changes:
        assert 0 < change.index < runs[change.series]
        assert 0.0 <= change.p_value <= 1.0 and 0.0 <= change.q_value <= 1.0
        assert math.isfinite(change.ratio) and change.ratio > 0.0
        assert change.ratio_lo <= change.ratio <= change.ratio_hi
    for candidate in found.candidates:
        assert 0 < candidate.index < runs[candidate.series]
        assert candidate.ratio_lo <= candidate.ratio <= candidate.ratio_hi
    for key, scan in found.scans:
        assert 0.0 <= scan.p_value <= 1.0
        assert all(0 < change.index < runs[key] for change in scan.changes)
        if scan.scanned:
            assert math.isfinite(scan.threshold) and scan.threshold > 0.0
            assert math.isfinite(scan.noise)
    return [(one.series, one.index) for one in (*found.changes, *found.candidates)]


@pytest.mark.parametrize("seed", range(9))
def test_hostile_series_give_only_findings_that_can_be_true(seed: int) -> None:
    _checked(_pool(seed))


@pytest.mark.parametrize("seed", [3, 5])
def test_rescaling_a_series_moves_no_finding(seed: int) -> None:
    pool = _pool(seed)
    findings = _checked(pool)
    assert findings, "a pool without findings would make this test vacuous: pick another seed"
    rescaled = [RunSeries(one.key, one.medians * 1e-3) for one in pool]
    assert _checked(rescaled) == findings
