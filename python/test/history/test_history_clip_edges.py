"""The scores' clip keeps a level shift's edge where an outlying run lies near it.

Each run is clipped to 3 noise scales of a local level. Taken as the median of the 11 runs
around it, that level beside a step is whichever level holds more of the window, and one
outlying run tips it: the last run before the step was clipped toward the new level, and the
step was placed a run early (the re-trial of 2026-11-30: a rerun burst before a 6 % step,
two runs a commit, the step blamed on the commit before it in 12 of 30 series)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from cuda.bench.history import RunSeries, detect
from cuda.bench.history._robust import clip_centres


def test_the_run_before_an_edge_is_clipped_around_its_own_side() -> None:
    values = np.array([[0.0] * 7 + [30.0] * 5])
    values[0, 3] = 40.0  # an outlying run three runs before the step
    centres = clip_centres(values, 5, np.array([[6.0]]))
    assert centres[0, 6] == 0.0  # the centred median of its 11 runs says 30
    assert centres[0, 7] == 30.0
    assert centres[0, 3] == 0.0  # the outlier's own level: both sides agree, far from it


def test_without_an_edge_the_centre_is_the_running_median() -> None:
    rng = np.random.default_rng(1)
    values = rng.normal(0.0, 1.0, (3, 60))
    centres = clip_centres(values, 5, np.full((3, 1), 6.0))
    padded = np.pad(values, ((0, 0), (5, 5)), mode="reflect")
    running = np.median(np.lib.stride_tricks.sliding_window_view(padded, 11, axis=1), axis=2)
    assert np.array_equal(centres, running)


@pytest.mark.parametrize("seed", range(30))
def test_a_step_after_a_rerun_burst_is_placed_on_its_commit(seed: int) -> None:
    """Twelve commits of two runs, a 6 % step at the eighth (30 times the noise), the second
    run of an earlier commit 10 % slow."""
    rng = random.Random(seed)
    burst = rng.choice(range(1, 6))
    values = []
    for commit in range(12):
        for run in range(2):
            value = (1 + rng.gauss(0, 0.002)) * (1.06 if commit >= 7 else 1.0)
            values.append(value * (1.10 if commit == burst and run == 1 else 1.0) * 3e-6)
    found = detect([RunSeries("s", np.array(values))])
    assert [change.index for change in found.changes] == [14], found.changes
