"""A level held for fewer runs than a segment, then reverted, is no pair of changes: the
scan could only place it as two changes ``min_segment`` runs apart, one of them a run off,
which named the commit before the excursion (or after its end) as a change."""

from __future__ import annotations

import numpy as np
import pytest
from cuda.bench.history import RunSeries, detect
from cuda.bench.history._excursions import CLEAR, without_short_excursions


def _excursion(seed: int, start: int, runs: int, factor: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    values = 1e-3 * np.exp(rng.normal(0.0, 0.01, 200))
    values[start : start + runs] *= factor
    return values


@pytest.mark.parametrize("factor", [1.3, 2.0, 0.7])
def test_a_four_run_excursion_is_no_change(factor: float) -> None:
    # Before: seeds 0, 1 and 3 reported (79, 84) or (80, 85) for every factor.
    for seed in range(6):
        found = detect([RunSeries("s", _excursion(seed, 80, 4, factor))])
        assert [change.index for change in found.changes] == [], seed


@pytest.mark.parametrize("factor", [1.05, 1.3, 0.7])
def test_a_five_run_excursion_keeps_both_changes_on_their_runs(factor: float) -> None:
    for seed in range(6):
        found = detect([RunSeries("s", _excursion(seed, 80, 5, factor))])
        assert [change.index for change in found.changes] == [80, 85], seed


def _found(*indices: int) -> list[int]:
    return list(indices)


def test_only_a_reverting_pair_with_an_edge_run_off_its_level_is_dropped() -> None:
    noise = 0.01
    flat = np.zeros(40)
    four = flat.copy()
    four[20:24] = 0.2  # four runs up: placed as 19..24 or 20..25
    assert without_short_excursions(four, _found(20, 25), noise, 5) == []
    assert without_short_excursions(four, _found(19, 24), noise, 5) == []
    five = flat.copy()
    five[20:25] = 0.2
    assert without_short_excursions(five, _found(20, 25), noise, 5) == _found(20, 25)
    stairs = flat.copy()
    stairs[20:24] = 0.2
    stairs[24:] = 0.4  # up, then up again: no excursion
    assert without_short_excursions(stairs, _found(20, 24), noise, 5) == _found(20, 24)
    assert without_short_excursions(stairs, _found(19, 24), noise, 5) == _found(19, 24)
    # An edge run within CLEAR scales of the runs inside stays part of the level.
    near = five.copy()
    near[20] = 0.2 - 0.9 * CLEAR * noise
    assert without_short_excursions(near, _found(20, 25), noise, 5) == _found(20, 25)
    # Changes farther apart than min_segment, and a third change beside, are untouched.
    assert without_short_excursions(four, _found(20, 30), noise, 5) == _found(20, 30)
    assert without_short_excursions(four, _found(5, 20, 25), noise, 5) == _found(5)
