"""Binary segmentation between the scan's changes, and the correlation pooled across series."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from cuda.bench.history import ScanConfig, changepoint
from cuda.bench.history._refine import _widening
from cuda.bench.history._robust import (
    CORRELATION_SPREAD,
    correlation_variance,
    pooled_correlation,
)
from cuda.bench.history.changepoint import scan
from cuda.bench.history.synthetic import HistoryNoise, generate, generate_multi


def _between_two_changes(seeds: range) -> np.ndarray:
    """1 % noise with steps of +10 % at 60 and -10 % at 130, and +1.25 % at 95 between them:
    35 runs from either neighbour, so a window of 40 runs straddles one of them and one of
    20 runs sees the small step only about 4 standard deviations strong."""
    rows = []
    for seed in seeds:
        logs = 0.01 * np.random.default_rng(seed).standard_normal(200)
        logs[60:] += np.log(1.10)
        logs[95:] += np.log(1.0125)
        logs[130:] -= np.log(1.10)
        rows.append(logs)
    return np.stack(rows)


def test_a_step_between_two_close_changes_is_found() -> None:
    # The stretch's CUSUM sees all 35 runs a side. The scan's windows alone found 10 of 30.
    results = scan(_between_two_changes(range(30)))
    found = sum(any(abs(change.index - 95) <= 5 for change in one.changes) for one in results)
    assert found >= 14
    for one in results:
        indices = [change.index for change in one.changes]
        assert 60 in indices and 130 in indices


@pytest.mark.parametrize("rho", [0.5, 0.8])
def test_binary_segmentation_adds_nothing_to_a_lone_step_in_noise(rho: float) -> None:
    # The stretches beside the step are long (up to 180 runs) and, in strongly correlated
    # drift, wander; no change may be added there (without the AR(1) widening of the null,
    # 2 were at rho 0.8).
    history = generate(HistoryNoise("ar1", rho=rho), series=120, steps=(0.10,), seed=4)
    # The binary segmentation alone: the proposals and the whole-series choice, which also
    # run among 20 or more series, are held to the rate in test_history_whole_series.py.
    results = scan(np.log(history.medians), ScanConfig(penalised_proposals=False))
    extra = sum(
        sum(abs(change.index - int(at)) > 5 for change in one.changes)
        for one, at in zip(results, history.step_at, strict=True)
    )
    # At 1 % per series, 120 series: 1.2 false reports expected, 5 or more < 1 %.
    assert extra <= 4


def test_the_sampling_variance_grows_with_the_correlation() -> None:
    # Simulated: the difference-based estimate scatters about 0.064 for independent noise
    # and about 0.128 at rho 0.5 over 200 runs (CORRELATION_SPREAD / sqrt(N) bounds both).
    low, high = correlation_variance(0.0, 200), correlation_variance(0.5, 200)
    assert 0.05**2 < low < 0.08**2 < 0.11**2 < high < (CORRELATION_SPREAD**2) / 200
    assert correlation_variance(0.5, 200) == high


def test_a_long_stretch_widens_the_null_of_correlated_noise_only() -> None:
    assert _widening(0.5, 40, 20) == 1.0
    assert _widening(0.0, 40, 100) == pytest.approx(1.0, abs=1e-9)
    assert 1.0 < _widening(0.5, 40, 100) < _widening(0.9, 40, 100)


def test_pooling_shrinks_correlations_that_differ_only_by_sampling_noise() -> None:
    runs = 200
    rng = np.random.default_rng(3)
    same = 0.5 + CORRELATION_SPREAD / np.sqrt(runs) * rng.standard_normal(50) * 0.8
    pooled = pooled_correlation(same, runs)
    assert np.allclose(pooled, same.mean())


def test_pooling_leaves_truly_different_correlations_nearly_alone() -> None:
    runs = 200
    rng = np.random.default_rng(4)
    noise = CORRELATION_SPREAD / np.sqrt(runs) * rng.standard_normal(100)
    apart = np.where(np.arange(100) < 50, 0.05, 0.75) + noise
    pooled = pooled_correlation(apart, runs)
    # Each moves toward the mean by the sampling variance's share of the whole spread:
    # 0.128^2 / (0.35^2 + 0.134^2), about 11 %.
    moved = np.abs(pooled - apart) / np.abs(apart - apart.mean())
    assert moved == pytest.approx(np.full(100, 0.11), abs=0.03)
    # Three series are too few to estimate a spread between them.
    assert np.array_equal(pooled_correlation(apart[:3], runs), apart[:3])


def test_pooling_finds_steps_that_one_series_noisy_correlation_would_reject(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """3 % steps in AR(1) drift (rho 0.5, 1 % noise): each series' own correlation estimate
    scatters by about 0.13, and the step-versus-trend choice, whose long-run factor is
    convex in it, rejects more steps than the shared correlation does. (Pooling also raises
    the floor of the null to the pooled bound, which costs a little of that recall and is
    judged in ``test_history_pooled_floor.py``; here each series keeps its own floor.)"""
    logs = np.concatenate(
        [
            np.log(
                generate(
                    HistoryNoise("ar1"), series=120, steps=(0.03,), seed=seed, both_directions=True
                ).medians
            )
            for seed in (21, 22)
        ]
    )
    at = np.concatenate(
        [
            generate(
                HistoryNoise("ar1"), series=120, steps=(0.03,), seed=seed, both_directions=True
            ).step_at
            for seed in (21, 22)
        ]
    )

    def recall(config: ScanConfig) -> float:
        results = scan(logs, config)
        hits = [
            any(abs(change.index - int(a)) <= 5 for change in one.changes)
            for one, a in zip(results, at, strict=True)
        ]
        return float(np.mean(hits))

    by_default = recall(ScanConfig())
    monkeypatch.setattr(
        changepoint,
        "pooled_lower_bound",
        lambda rho, runs: changepoint.correlation_lower_bound(np.clip(rho, 0.0, 0.9), runs),
    )
    pooled = recall(ScanConfig())
    alone = recall(ScanConfig(pool_correlation=False))
    assert pooled >= alone + 0.02
    assert pooled >= 0.94
    assert by_default >= 0.94


def _without_and_with_steps(
    monkeypatch: pytest.MonkeyPatch,
    where: str,
    read: Callable[[tuple[Any, ...], dict[str, Any]], Any],
) -> tuple[float, float]:
    """The mean of what ``read`` takes from each call of ``changepoint.<where>`` while 60
    series of AR(1) noise (rho 0.5) are scanned each on its own: without steps, and the same
    noise with three steps of 3, 5 and 10 %."""
    seen: list[np.ndarray] = []
    real = getattr(changepoint, where)

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(np.atleast_1d(read(args, kwargs)))
        return real(*args, **kwargs)

    monkeypatch.setattr(changepoint, where, spy)
    means = []
    for per_series in (0, 3):
        history = generate_multi(
            HistoryNoise("ar1"), series=60, steps=(0.03, 0.05, 0.10), per_series=per_series, seed=5
        )
        seen.clear()
        scan(np.log(history.medians), ScanConfig(pool_correlation=False))
        means.append(float(np.concatenate(seen).mean()))
    return means[0], means[1]


def test_a_series_own_steps_do_not_raise_the_correlation_its_choice_uses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A level shift is one large first difference but two large second differences, so
    estimated from the values themselves the lag-one correlation of AR(1) noise (rho 0.5)
    with three steps of 3, 5 and 10 % reads about 0.64; around the changes the scan found,
    it reads what the same noise without the steps gives."""
    plain, stepped = _without_and_with_steps(
        monkeypatch, "steps_between", lambda args, kwargs: kwargs["rho"]
    )
    assert 0.4 < plain < 0.6
    assert abs(stepped - plain) < 0.05


def test_a_series_own_steps_do_not_raise_the_floor_of_its_null(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The AR(1) floor under each window's null standard deviation takes the correlation too:
    once the segmentation has found changes, around them (the widest window's floor of AR(1)
    noise with rho 0.5 read about 2.05 with three steps instead of 1.55)."""
    plain, stepped = _without_and_with_steps(
        monkeypatch, "_finish_chunk", lambda args, kwargs: args[0].floor[:, -1]
    )
    assert abs(stepped - plain) < 0.1 * plain


def test_pool_correlation_must_be_a_bool() -> None:
    with pytest.raises(ValueError, match="pool_correlation"):
        ScanConfig(pool_correlation="no")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="penalised_proposals"):
        ScanConfig(penalised_proposals=np.array([True]))  # type: ignore[arg-type]


def test_the_scan_s_flags_take_numpy_s_bool() -> None:
    # A flag read from an array or a DataFrame is NumPy's bool scalar: it was refused as
    # "not a bool"; it is taken, and kept as a plain bool (the settings compare and print
    # as bools).
    config = ScanConfig(pool_correlation=np.False_, penalised_proposals=np.True_)  # type: ignore[arg-type]
    assert config.pool_correlation is False
    assert config.penalised_proposals is True
    assert config == ScanConfig(pool_correlation=False)


def test_the_null_a_proposed_step_is_tested_against_leaves_a_slow_trend_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where a stretch's largest CUSUM falls short of the scan's null, the null is fitted
    again around the changes with the proposed one; a slow trend left in those residuals
    would widen it, although the step-versus-trend choice that the proposal then faces
    already tells a trend from a step."""
    fitted: list[np.ndarray] = []
    real_finish, real_calibrate = changepoint._finish_chunk, changepoint.calibrate
    finishing = [False]

    def finish(*args: Any, **kwargs: Any) -> Any:
        finishing[0] = True
        try:
            return real_finish(*args, **kwargs)
        finally:
            finishing[0] = False

    def calibrate(rows: np.ndarray, *args: Any, **kwargs: Any) -> Any:
        if finishing[0]:
            fitted.append(np.array(rows[0], copy=True))
        return real_calibrate(rows, *args, **kwargs)

    monkeypatch.setattr(changepoint, "_finish_chunk", finish)
    monkeypatch.setattr(changepoint, "calibrate", calibrate)
    history = generate_multi(
        HistoryNoise("ar1"), series=60, steps=(0.03, 0.05, 0.10), per_series=3, seed=3
    )
    runs = history.medians.shape[1]
    trend = np.log(1.06) * np.linspace(0.0, 1.0, runs)  # +6 % over the series
    scan(np.log(history.medians) + trend, ScanConfig(pool_correlation=False))
    assert len(fitted) >= 5
    x = np.arange(runs) - (runs - 1) / 2.0
    trend_in_scores = float(np.median([abs(row @ x) / (x @ x) for row in fitted]))
    # In scores (difference-scale units, about 0.7 % for this noise) the trend rises about
    # 0.04 per run; the soft-thresholded steps took up most of it, but about 0.008 per run
    # was left in the residuals before they were fitted less their line.
    assert trend_in_scores < 0.004
