"""The floor of each series' null takes a lower confidence bound of its AR(1) correlation
pooled across the series scanned together: one series' bound lies far below a strong
correlation, and the drift then passed for steps."""

from __future__ import annotations

import numpy as np
from cuda.bench.history._robust import (
    correlation_lower_bound,
    difference_correlation,
    pooled_lower_bound,
)
from cuda.bench.history.changepoint import ScanConfig, scan
from cuda.bench.history.synthetic import HistoryNoise, generate


def _noise(rho: float, series: int, seed: int) -> np.ndarray:
    return np.log(generate(HistoryNoise("ar1", rho=rho), series=series, seed=seed).medians)


def test_fewer_than_four_series_keep_their_own_bound() -> None:
    rho = difference_correlation(_noise(0.5, 3, 1))
    assert np.array_equal(pooled_lower_bound(rho, 200), correlation_lower_bound(rho, 200))


def test_pooling_raises_the_bound_of_series_that_share_a_correlation() -> None:
    # One series' bound sits 1.645 x 1.9 / sqrt(200) = 0.22 below its estimate; pooled over
    # 200 series of one correlation the estimate is shrunk to their mean and so is the spread.
    rho = difference_correlation(_noise(0.8, 200, 2))
    alone = correlation_lower_bound(rho, 200)
    pooled = pooled_lower_bound(rho, 200)
    assert float(alone.mean()) < 0.65
    assert float(pooled.mean()) > float(rho.mean()) - 0.05
    # Never above the pooled estimate itself.
    assert np.all(pooled <= rho.mean() + (rho - rho.mean()) + 1e-12) or np.all(pooled <= 0.9)


def test_pure_drift_with_a_strong_correlation_keeps_the_false_alarm_rate() -> None:
    # AR(1) noise with rho 0.8, 480 series of 200 runs: 11 reported a change with each
    # series' own bound (2.3 %, against 1 % per series); about 5 are expected at 1 %.
    logs = np.concatenate([_noise(0.8, 240, 54), _noise(0.8, 240, 55)])
    alarms = sum(bool(one.changes) for one in scan(logs))
    assert alarms <= 6
    alone = sum(bool(one.changes) for one in scan(logs, ScanConfig(pool_correlation=False)))
    assert alarms < alone
