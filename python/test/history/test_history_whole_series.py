"""The whole-series choice (:mod:`cuda.bench.history._whole_series`) and the slope the
penalised segmentation fits within its segments (:mod:`cuda.bench.history._ar1_segment`)."""

from __future__ import annotations

import numpy as np
import pytest
from cuda.bench.history import ScanConfig, detect, scan
from cuda.bench.history._ar1_segment import _within_slope, penalty
from cuda.bench.history._refine import StretchNull, steps_between
from cuda.bench.history._whole_series import (
    SEARCH_PENALTY,
    _every_step_t,
    further_steps,
    kept_by_whole_series,
    step_t,
)
from cuda.bench.history.synthetic import HistoryNoise, generate, generate_multi, run_series

RUNS = 200


def _ar1(rng: np.random.Generator, rho: float, runs: int = RUNS) -> np.ndarray:
    out = np.zeros(runs)
    for t in range(1, runs):
        out[t] = rho * out[t - 1] + rng.standard_normal()
    return out


@pytest.mark.parametrize("rho", [0.0, 0.5, 0.8])
def test_the_step_t_of_no_step_is_standard_in_ar1_noise_on_a_trend(rho: float) -> None:
    # No step at 100 (levels change at 60 and 150 only), a trend, AR(1) noise: t has unit
    # spread. Without the AR(1) transformation it spreads 1.7 and 2.9 times as wide at
    # rho 0.5 and 0.8 (measured), so a step would be kept in plain drift.
    rng = np.random.default_rng(8)
    values = []
    for _ in range(300):
        series = _ar1(rng, rho) + 0.02 * np.arange(RUNS)
        series[60:] += 5.0
        series[150:] -= 7.0
        values.append(step_t(series, [60, 150], 100, rho))
    assert 0.85 < float(np.std(values)) < 1.2
    assert abs(float(np.mean(values))) < 0.25


def _stepped(step: float, rng: np.random.Generator) -> np.ndarray:
    """A steep trend with levels changing at 60, 100 (by ``step``) and 150, light AR(1)."""
    series = 0.15 * np.arange(RUNS) + 0.6 * _ar1(rng, 0.3)
    series[60:] += 6.0
    series[100:] += step
    series[150:] -= 8.0
    return series


def test_the_step_t_sees_a_step_against_the_trend_and_not_the_trend() -> None:
    rng = np.random.default_rng(4)
    against = step_t(_stepped(-3.0, rng), [60, 150], 100, 0.3)
    assert against < -5.0  # the runs after 100 are higher than before: the slope is taken out
    assert abs(step_t(_stepped(0.0, rng), [60, 150], 100, 0.3)) < 3.0
    assert step_t(np.arange(4.0), [], 2, 0.0) == 0.0  # too few runs for the model


def test_a_bend_in_the_trend_is_no_step_of_the_whole_series() -> None:
    # Flat, then rising from run 100: one slope for the whole series misfits the bend, and a
    # step at 140 stands in for it (t 7.5-9.3 here); a broken line fits better, so no step.
    rng = np.random.default_rng(3)
    t = np.arange(float(RUNS))
    for _ in range(5):
        series = 0.5 * rng.standard_normal(RUNS) + 0.08 * np.maximum(t - 100.0, 0.0)
        series[50:] += 4.0
        assert step_t(series, [50], 140, 0.0) ** 2 >= penalty(RUNS)
        assert not kept_by_whole_series(
            series, [50], 140, 0.0, penalty=penalty(RUNS), min_segment=5
        )


#: AR(1) noise of rho 0.5 and unit marginal spread (the generator's ``ar1`` shape).
_UNIT = np.sqrt(1.0 - 0.5 * 0.5)


def test_a_bend_that_is_only_the_noise_takes_no_step_away() -> None:
    # A step of 3 noise scales 20-45 runs into a series with levels at 80 and 150 and a
    # straight trend of up to 5 scales, AR(1) drift (history_draws.py's 3 % steps): where
    # its own t^2 reaches the search's penalty, the noise's best bend fitted the runs as well
    # in 13-16 of about 585 series (seeds 11-13) and the step was lost; the bend must now
    # show evidence of its own beside the step, which a trend that never turns lacks (3-6).
    rng = np.random.default_rng(11)
    strong = lost = 0
    for _ in range(600):
        at = int(rng.integers(20, 46))
        series = _UNIT * _ar1(rng, 0.5) + rng.uniform(-5.0, 5.0) * np.linspace(0.0, 1.0, RUNS)
        series[at:] += 3.0 * rng.choice([-1.0, 1.0])
        series[80:] += 5.0
        series[150:] -= 10.0
        if step_t(series, [80, 150], at, 0.5) ** 2 < SEARCH_PENALTY:
            continue
        strong += 1
        lost += not kept_by_whole_series(
            series, [80, 150], at, 0.5, penalty=SEARCH_PENALTY, min_segment=5
        )
    assert strong > 550
    assert lost <= 9


def test_a_trend_that_turns_still_takes_the_step_that_stands_in_for_it() -> None:
    # Flat, then rising 8 noise scales over the last 100 runs, AR(1) drift, a level shift
    # at 50: the step of largest t^2 beyond run 60 stands in for the bend (t^2 >= 20 in most
    # series); the bend, beside it, carries the rise, so the step goes (seeds 1 and 2: 3 and
    # 8 of about 172 kept before the bend was asked for evidence of its own, 4 and 9 after;
    # with the step's own penalty as that evidence, about half).
    rng = np.random.default_rng(1)
    runs = np.arange(60, RUNS - 4)
    strong = kept = 0
    for _ in range(200):
        series = _UNIT * _ar1(rng, 0.5) + 8.0 * np.maximum(np.arange(RUNS) - 100, 0) / 100.0
        series[50:] += 5.0
        t = _every_step_t(series, [50], 0.5, runs)
        if float(np.max(t * t)) < SEARCH_PENALTY:
            continue
        strong += 1
        at = int(runs[int(np.argmax(t * t))])
        kept += kept_by_whole_series(series, [50], at, 0.5, penalty=SEARCH_PENALTY, min_segment=5)
    assert strong > 100
    assert kept <= 0.06 * strong
    # Without noise the broken line fits exactly: nothing to measure the bend's evidence
    # against, and no step stands in for it.
    line = 0.08 * np.maximum(np.arange(float(RUNS)) - 100.0, 0.0)
    line[50:] += 4.0
    for at in (120, 140, 160):
        assert not kept_by_whole_series(line, [50], at, 0.0, penalty=15.0, min_segment=5)
    assert further_steps(line, [50], [], 0.0, penalty=SEARCH_PENALTY, min_segment=5) == []


def test_a_step_on_a_trend_that_turns_stays_where_both_are_evident() -> None:
    # Flat, then rising 15 noise scales over the last 100 runs, and a true step of 6 scales
    # at 150 on the rise: the best bend, without the step, leaves the smaller sum of squares
    # in 27 of 40 series, which took the step away; beside each other both the hinge and the
    # step are evident, so the data want both and the step stays.
    t = np.arange(float(RUNS))
    kept = 0
    for seed in range(40):
        series = np.random.default_rng(seed).standard_normal(RUNS)
        series += 0.15 * np.maximum(t - 100.0, 0.0)
        series[50:] += 5.0
        series[150:] += 6.0
        kept += kept_by_whole_series(series, [50], 150, 0.0, penalty=SEARCH_PENALTY, min_segment=5)
    assert kept == 40


def test_the_step_t_is_zero_where_nothing_can_be_measured() -> None:
    # A noise-free line with a step: round-off residuals gave t from -27 to 1e13.
    line = 0.1 * np.arange(float(RUNS))
    line[50:] += 2.0
    assert [step_t(line, [50], at, 0.3) for at in (20, 100, 150, 190)] == [0.0] * 4
    assert step_t(line, [], 50, 0.3) == 0.0
    # Outside the series (the slope's column was read as a level).
    noisy = line + np.random.default_rng(1).standard_normal(RUNS)
    assert step_t(noisy, [], 0, 0.3) == 0.0 and step_t(noisy, [], RUNS, 0.3) == 0.0


def _steps(
    series: np.ndarray,
    found: list[tuple[int, int, float]],
    whole: float | None,
    search: float | None = None,
) -> tuple[list[int], dict[int, float]]:
    """``steps_between`` on ``series`` with the scan's changes ``found``, under a null no
    stretch statistic reaches, proposals' p-value 0.01: the changes kept and the p-values."""
    never = StretchNull(1.0, 1e9, lambda statistic: 1.0)

    def around(changes: list[int]) -> StretchNull:
        raise AssertionError("no stretch statistic reaches `least`")

    changes, p_values, creeps = steps_between(
        found,
        series,
        series,
        scanned=never,
        around=around,
        least=1e9,
        rho=0.3,
        reach=40,
        min_segment=5,
        proposal_p_value=0.01,
        whole_series_penalty=whole,
        search_penalty=search,
    )
    assert creeps == []
    return [change[0] for change in changes], p_values


def _kept(series: np.ndarray, penalty_: float | None) -> list[int]:
    return _steps(series, [(60, 40, 12.0), (100, 20, 5.0), (150, 40, 14.0)], penalty_)[0]


def test_steps_a_steep_trend_hides_locally_are_kept_by_the_whole_series() -> None:
    # Within 40 runs a line fits the steep trend with each step better than a level shift
    # does, so the local choice sets all but the largest aside; the model of the whole series
    # (one slope through every segment) keeps them.
    series = _stepped(-3.0, np.random.default_rng(4))
    assert _kept(series, None) == [150]
    assert _kept(series, penalty(RUNS)) == [60, 100, 150]
    # Without the step at 100 the whole series does not make one there.
    assert _kept(_stepped(0.0, np.random.default_rng(4)), penalty(RUNS)) == [60, 150]


@pytest.mark.parametrize("rho", [0.0, 0.5, 0.8])
def test_every_step_t_at_once_is_the_step_t_at_each_run(rho: float) -> None:
    # The search computes the t of a step at every free run in one go (the step's column
    # less its projection on the model); it must be the t the choice computes run by run.
    rng = np.random.default_rng(11)
    series = _ar1(rng, rho) + 0.02 * np.arange(RUNS)
    series[40:] += 4.0
    series[120:] -= 3.0
    runs = np.array([5, 6, 39, 41, 80, 119, 121, 170, RUNS - 5])
    at_once = _every_step_t(series, [40, 120], rho, runs)
    one_by_one = [step_t(series, [40, 120], int(at), rho) for at in runs]
    np.testing.assert_allclose(at_once, one_by_one, rtol=1e-9, atol=1e-9)
    assert np.all(_every_step_t(np.arange(float(RUNS)), [], rho, runs) == 0.0)  # exact fit


def test_every_step_t_takes_a_long_series_in_blocks() -> None:
    # Its arrays are runs x candidates: 5,000 runs at once took 1.4 GB; in blocks of 256
    # candidates the values across a block's edges are still the t run by run.
    rng = np.random.default_rng(5)
    long = _ar1(rng, 0.5, 700)
    long[300:] += 5.0
    runs = np.arange(5, 696)
    at_once = _every_step_t(long, [300], 0.5, runs)
    for index in (0, 254, 255, 256, 257, 511, 512, runs.size - 1):
        assert at_once[index] == pytest.approx(step_t(long, [300], int(runs[index]), 0.5))
    # Too few runs for the stepped model: nothing to measure, as run by run.
    short = rng.standard_normal(6)
    assert _every_step_t(short, [3], 0.5, np.array([1, 2, 4])).tolist() == [0.0, 0.0, 0.0]
    assert [step_t(short, [3], at, 0.5) for at in (1, 2, 4)] == [0.0, 0.0, 0.0]


def test_the_whole_series_adds_the_step_no_stage_proposed() -> None:
    # The scan found the levels at 60 and 150 and nothing proposed the step at 100 against
    # the steep trend: the search in the model of the whole series adds it, and adds nothing
    # where there is no step (the same series without it), nor to a lone series' changes.
    def kept(series: np.ndarray, search: float | None) -> list[int]:
        changes, p_values = _steps(series, [(60, 40, 12.0), (150, 40, 14.0)], penalty(RUNS), search)
        assert all(p_values[at] == 0.01 for at in changes if at not in (60, 150))
        return changes

    assert kept(_stepped(-3.0, np.random.default_rng(4)), SEARCH_PENALTY) == [60, 100, 150]
    assert kept(_stepped(-3.0, np.random.default_rng(4)), None) == [60, 150]
    assert kept(_stepped(0.0, np.random.default_rng(4)), SEARCH_PENALTY) == [60, 150]


def test_the_search_stops_at_a_bend_and_keeps_out_of_ramps() -> None:
    # Flat, then rising from run 100, a level shift at 50: one slope misfits the bend, and a
    # step stands in for it, but a broken line fits better, so the search adds nothing; and
    # it never places a step within a creep's ramp (or within min_segment runs of it).
    rng = np.random.default_rng(3)
    series = 0.5 * _ar1(rng, 0.3) + 0.08 * np.maximum(np.arange(RUNS) - 100, 0)
    series[50:] += 5.0
    assert further_steps(series, [50], [], 0.3, penalty=penalty(RUNS), min_segment=5) == []
    stepped = 0.5 * _ar1(rng, 0.3)
    stepped[50:] += 5.0
    stepped[130:] += 4.0
    assert further_steps(stepped, [50], [], 0.3, penalty=15.0, min_segment=5) == [130]
    assert further_steps(stepped, [50], [(120, 140)], 0.3, penalty=15.0, min_segment=5) == []


def test_the_slope_within_segments_ignores_a_staircase() -> None:
    # Three steps up and no trend: the slope through the series reads the staircase as a
    # trend, the slope within its segments does not.
    rng = np.random.default_rng(2)
    z = 0.3 * rng.standard_normal((4, RUNS))
    z[:, 50:] += 3.0
    z[:, 100:] += 3.0
    z[:, 150:] += 3.0
    z[1] += 0.01 * np.arange(RUNS)
    slopes = _within_slope(z, [[50, 100, 150]] * 4)
    assert abs(slopes[0]) < 0.002 and abs(slopes[1] - 0.01) < 0.002
    assert abs(slopes[2]) < 0.002 and abs(slopes[3]) < 0.002
    whole = np.polyfit(np.arange(RUNS), z[0], 1)[0]
    assert whole > 0.04  # what the segmentation used to take out


def test_steps_against_slow_trends_in_ar1_drift_are_kept_among_many_series() -> None:
    # Three steps a series (3, 5 and 10 %, 20 or more runs apart) on trends of up to 5 % in
    # AR(1) noise, 100 series scanned together, two draws: of the 200 3 % steps, before the
    # whole-series choice 175 found and 14 other changes (before confirmation), with it 184
    # and 14 (2026-11-29; seeds 14 and 15: 86 and 89 -> 90 and 94).
    hits = wrong = 0
    for seed in (14, 15):
        history = generate_multi(
            HistoryNoise("ar1"),
            series=100,
            steps=(0.03, 0.05, 0.10),
            per_series=3,
            trend=0.05,
            seed=seed,
        )
        results = scan(np.log(history.medians), ScanConfig(workers=2))
        for row, result in enumerate(results):
            truth = list(zip(history.step_at[row], history.factor[row], strict=True))
            hits += sum(
                any(abs(change.index - at) <= 5 for change in result.changes)
                for at, factor in truth
                if abs(abs(np.log(factor)) - 0.03) < 0.005
            )
            wrong += sum(
                all(abs(change.index - at) > 5 for at, _ in truth) for change in result.changes
            )
    assert hits >= 180
    assert wrong <= 18


def test_beside_a_lone_step_in_strong_drift_other_changes_keep_the_rate() -> None:
    # A 10 % step in AR(1) drift with rho 0.8 (stronger than the tables'), 3 x 120 series,
    # each 120 through detect: the scan's changes that the local choice sets aside are judged
    # again, so this is where the whole series can add false changes (2026-11-29: 1 before
    # it, 4 with it). Held to the 1 % per series rate: P(Binomial(360, 0.01) >= 8) < 1 %.
    other = found = 0
    for seed in (4, 5, 6):
        history = generate(HistoryNoise("ar1", rho=0.8), series=120, steps=(0.10,), seed=seed)
        steps = {f"s{row:05d}": int(at) for row, at in enumerate(history.step_at)}
        detection = detect(run_series(history, prefix="s"), ScanConfig(workers=2))
        other += sum(abs(change.index - steps[change.series]) > 5 for change in detection.changes)
        found += sum(abs(change.index - steps[change.series]) <= 5 for change in detection.changes)
    assert found >= 350
    assert other <= 7
