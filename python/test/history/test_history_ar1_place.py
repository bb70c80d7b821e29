"""A step's run in correlated noise: the AR(1) least-squares split (``_ar1_place``)."""

from __future__ import annotations

import numpy as np
import pytest
from cuda.bench.history._ar1_place import ar1_split, placed_in_ar1
from cuda.bench.history._refine import cusum_peak
from cuda.bench.history.changepoint import scan
from cuda.bench.history.synthetic import HistoryNoise


def _ar1(rng: np.random.Generator, series: int, runs: int, rho: float) -> np.ndarray:
    return HistoryNoise("ar1", rho=rho).draw(rng, series, runs)


def test_without_correlation_the_split_is_the_cusum_maximum() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        values = rng.standard_normal(int(rng.integers(12, 90)))
        values[int(rng.integers(3, values.size - 3)) :] += rng.normal(0.0, 2.0)
        sums = np.concatenate(([0.0], np.cumsum(values)))
        first, last = 5, values.size - 5
        assert (
            ar1_split(values, 0.0, first, last) == cusum_peak(sums, 0, values.size, first, last)[0]
        )
        # A negative correlation is clipped to none, as the scan's estimate is.
        assert ar1_split(values, -0.3, first, last) == ar1_split(values, 0.0, first, last)


def test_in_drifting_noise_it_places_a_step_at_its_run_more_often_than_the_cusum() -> None:
    # 3 % steps in 1 % AR(1) noise (rho 0.5), 25 runs a side: the CUSUM's argmax is pulled
    # by the wander (82 % at the run in 20,000 simulated; the split 90 %).
    rng = np.random.default_rng(11)
    logs = _ar1(rng, 2000, 50, 0.5)
    logs[:, 25:] += np.log(1.03)
    split = cusum = 0
    for row in logs:
        sums = np.concatenate(([0.0], np.cumsum(row)))
        split += ar1_split(row, 0.5, 5, 45) == 25
        cusum += cusum_peak(sums, 0, 50, 5, 45)[0] == 25
    assert split >= cusum + 100  # about 160 more expected; the binomial spread is ~25
    assert split >= 0.86 * 2000


def test_the_split_stays_in_the_runs_it_is_given() -> None:
    values = np.zeros(40)
    values[30:] = 5.0  # the clear split, outside first .. last
    assert ar1_split(values, 0.5, 5, 20) in range(5, 21)
    assert ar1_split(values, 0.5, 5, 35) == 30
    with pytest.raises(ValueError, match="first"):
        ar1_split(values, 0.5, 0, 20)
    with pytest.raises(ValueError, match="first"):
        ar1_split(values, 0.5, 10, 40)


def test_the_split_is_the_least_squares_fit_of_the_decorrelated_runs() -> None:
    # Against the regression itself: the Prais-Winsten rows (first run scaled by
    # sqrt(1 - rho^2)), a level and a step at each allowed run, the smallest residual sum
    # of squares; the correlation clipped to [0, 0.9].
    rng = np.random.default_rng(8)
    for rho, used in ((0.3, 0.3), (0.9, 0.9), (0.97, 0.9), (-0.4, 0.0)):
        for _ in range(50):
            values = rng.standard_normal(int(rng.integers(12, 60)))
            values[int(rng.integers(2, values.size - 2)) :] += rng.normal(0.0, 1.5)
            n = values.size
            transform = np.eye(n) - used * np.eye(n, k=-1)
            transform[0, 0] = np.sqrt(1.0 - used * used)
            best, best_rss = -1, np.inf
            for t in range(3, n - 2):
                design = transform @ np.stack([np.ones(n), (np.arange(n) >= t) * 1.0], axis=1)
                fit = np.linalg.lstsq(design, transform @ values, rcond=None)
                rss = float(np.sum((transform @ values - design @ fit[0]) ** 2))
                if rss < best_rss - 1e-9:
                    best, best_rss = t, rss
            assert ar1_split(values, rho, 3, n - 3) == best


def test_a_step_in_a_flat_stretch_stays_where_it_is() -> None:
    # Every split explains nothing: the step keeps its run (it went to the first allowed,
    # or, at a level other than 0, wherever rounding put the largest).
    for level in (0.0, 0.1, 3.7, -250.0):
        flat = np.full(100, level)
        for rho in (0.0, 0.3, 0.5):
            assert ar1_split(flat, rho, 5, 95, at=70) == 70
            assert placed_in_ar1([(70, 20, 5.0)], [], flat, rho, 5, 40) == [(70, 20, 5.0)]


def test_steps_must_come_in_run_order() -> None:
    # Two entries for one run made a step at 20 where there was none.
    scores = np.r_[np.zeros(33), np.ones(67)]
    with pytest.raises(ValueError, match="increasing"):
        placed_in_ar1([(30, 10, 1.0), (30, 10, 1.0)], [], scores, 0.0, 5, 40)


def test_each_step_stays_between_its_neighbours_as_already_placed() -> None:
    scores = np.zeros(100)
    scores[30:] += 4.0
    scores[38:] -= 4.0
    # Found at 34 and 42, the steps lie at 30 and 38: once the first has moved to 30, the
    # second may come to 38 (its old neighbour at 34 would have held it at 39 or later).
    moved = placed_in_ar1([(34, 10, 5.0), (42, 10, 5.0)], [(60, 70)], scores, 0.5, 5, 40)
    assert [m[0] for m in moved] == [30, 38]
    assert [m[1:] for m in moved] == [(10, 5.0), (10, 5.0)]


def test_a_step_keeps_more_than_min_segment_runs_from_a_creep_s_ramp() -> None:
    # As a step added beside a creep must (steps_between's free runs): the step at 75, 5
    # runs after the ramp's end at 70, found at 80, is held at 76; a step before the ramp
    # likewise. One the scan found 5 runs from the ramp, where it lies, stays there.
    scores = np.zeros(120)
    scores[75:] += 4.0
    assert placed_in_ar1([(80, 10, 5.0)], [(60, 70)], scores, 0.5, 5, 40)[0][0] == 76
    assert placed_in_ar1([(75, 10, 5.0)], [(60, 70)], scores, 0.5, 5, 40)[0][0] == 75
    scores = np.zeros(120)
    scores[55:] += 4.0
    assert placed_in_ar1([(50, 10, 5.0)], [(60, 70)], scores, 0.5, 5, 40)[0][0] == 54
    assert placed_in_ar1([(55, 10, 5.0)], [(60, 70)], scores, 0.5, 5, 40)[0][0] == 55


def test_the_last_runs_are_left_to_the_candidate() -> None:
    # With the last 10 runs the candidate's, a step found after run 90 stays; one before
    # may move up to run 90 and no further; without them it goes to the split.
    scores = np.zeros(100)
    scores[93:] += 4.0
    assert placed_in_ar1([(95, 5, 5.0)], [], scores, 0.5, 3, 40)[0][0] == 93
    assert placed_in_ar1([(95, 5, 5.0)], [], scores, 0.5, 3, 40, tail=10)[0][0] == 95
    assert placed_in_ar1([(91, 5, 5.0)], [], scores, 0.5, 3, 40, tail=10)[0][0] == 91
    assert placed_in_ar1([(88, 5, 5.0)], [], scores, 0.5, 3, 40, tail=10)[0][0] == 90
    scores = np.zeros(100)
    scores[88:] += 4.0
    assert placed_in_ar1([(90, 5, 5.0)], [], scores, 0.5, 3, 40, tail=10)[0][0] == 88


def test_a_shift_of_the_last_runs_stays_the_candidate_s() -> None:
    # 400 series of AR(1) drift (rho 0.6) with a 3 % step at 100 and a 3-8 % shift of the
    # last 4 runs. The scan pulls that shift to its last place (runs - 5), where the
    # candidate takes it; moved to the split short of the shift (the first version of the
    # placement), 11 series reported a change in the last 20 runs beside the candidate (1
    # before the placement, 1 after).
    rng = np.random.default_rng(9)
    logs = _ar1(rng, 400, 200, 0.6)
    logs[:, 100:] += 0.03
    logs[:, -4:] += rng.choice([0.03, 0.05, 0.08], (400, 1))
    results = scan(logs)
    both = sum(
        one.candidate is not None and any(c.index >= 180 for c in one.changes) for one in results
    )
    assert both <= 3
    assert sum(one.candidate is not None for one in results) >= 300


def test_the_slope_the_levels_share_is_taken_out_first() -> None:
    # A steep drift (0.2 a run, 10 noise units over 50 runs) with steps of 3 at 60, 100 and
    # 150, found where they are: a level-only split of 60..140 read the drift as the step at
    # 100 and moved it 10 runs; less the slope of its two levels it stays.
    rng = np.random.default_rng(4)
    runs = np.arange(200)
    scores = -0.2 * runs + 0.5 * rng.standard_normal(200)
    for at in (60, 100, 150):
        scores[at:] += 3.0
    steps = [(60, 40, 9.0), (100, 20, 5.0), (150, 40, 9.0)]
    assert [m[0] for m in placed_in_ar1(steps, [], scores, 0.3, 5, 40)] == [60, 100, 150]


def test_steps_the_scan_did_not_keep_elsewhere_are_no_slope() -> None:
    # A kept step at 74 and two steps beyond its reach (145, 175) the scan did not keep:
    # fitted between the kept steps over the whole series, the slope took them in and moved
    # the step more than 5 runs in 9 of 10 series; from the runs beside it, none.
    off = 0
    for seed in range(100):
        scores = np.random.default_rng(seed).standard_normal(200)
        scores[74:] -= 3.0
        scores[145:] -= 5.0
        scores[175:] -= 3.0
        off += abs(placed_in_ar1([(74, 40, 7.0)], [], scores, 0.0, 5, 40)[0][0] - 74) > 5
    assert off <= 5


def test_structure_beyond_the_widest_window_does_not_pull_a_step() -> None:
    # A step of 20 at 130 that the scan did not keep, then a step of 10 at 178 found by a
    # window of 25 runs. Split over all the runs between its neighbours (here the series'
    # ends) the step went to the edge of its window, 153; within the widest window (40
    # runs) it stays on its run.
    rng = np.random.default_rng(2)
    scores = 0.3 * rng.standard_normal(200)
    scores[130:] -= 20.0
    scores[178:] -= 10.0
    assert placed_in_ar1([(178, 25, 6.0)], [], scores, 0.0, 5, 200)[0][0] == 153
    assert placed_in_ar1([(178, 25, 6.0)], [], scores, 0.0, 5, 40)[0][0] == 178


def test_the_scan_places_steps_in_drifting_noise_at_their_run() -> None:
    # 3 % steps in AR(1) drift (rho 0.5), back by 5 % 25 runs later, 300 series: the step at
    # 100 was placed at its run in 240 (the scan's CUSUM placement), now in 260.
    rng = np.random.default_rng(5)
    logs = _ar1(rng, 300, 200, 0.5)
    logs[:, 100:] += np.log(1.03)
    logs[:, 125:] -= np.log(1.05)
    near = exact = 0
    for one in scan(logs):
        indices = [c.index for c in one.changes]
        near += any(abs(i - 100) <= 5 for i in indices)
        exact += 100 in indices
    assert near >= 290
    assert exact >= 250
