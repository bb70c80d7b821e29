"""Single-run verdicts on real-GPU-like runs: drift between runs, timer lattices, mean clocks."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from cuda.bench.compare.api import compare
from cuda.bench.compare.drift import (
    QUIET_SPREAD,
    clock_differs,
    spread_drift_sd,
    summary_spread,
)
from cuda.bench.compare.evidence import SideEvidence
from cuda.bench.compare.lattice import sample_tick, summary_tick, tick_widening
from cuda.bench.compare.methods.ci import decide
from cuda.bench.compare.model import Reason, Status
from cuda.bench.compare.thresholds import PRESETS

DEFAULT = PRESETS["default"]
#: As if a calibration had measured the drift: no drift term, other rules only.
MEASURED = DEFAULT.replace(ci_drift_measured=1.0)
TICK = 1.024e-6
CLOCK = 2.58e9


def lattice_run(seed: int, ticks: float, *, sigma: float = 0.01, bulk: bool = True) -> SideEvidence:
    """Times on a 1.024 µs timer around ``ticks`` ticks; steady clock."""
    rng = np.random.default_rng(seed)
    times = ticks * TICK * np.exp(sigma * rng.standard_normal(1000))
    times = (np.rint(times / TICK) * TICK).astype(np.float32)
    clocks = (CLOCK * (1.0 + 0.001 * rng.standard_normal(1000))).astype(np.float32)
    return SideEvidence.from_samples(times, clocks, bulk=bulk)


# ---------------------------------------------------------------------------------------------
# Lattice detection


def test_sample_tick_finds_the_timer_lattice_and_nothing_in_continuous_times() -> None:
    rng = np.random.default_rng(1)
    continuous = (75e-6 * np.exp(0.05 * rng.standard_normal(1000))).astype(np.float32)
    assert sample_tick(continuous) is None
    on_lattice = (np.rint(continuous / TICK) * TICK).astype(np.float32)
    assert sample_tick(on_lattice) == pytest.approx(TICK, rel=1e-5)
    # An offset does not hide the lattice; a tick far below the median is ignored.
    assert sample_tick(on_lattice + np.float32(0.3e-6)) == pytest.approx(TICK, rel=1e-4)
    fine = (np.rint(continuous / 1e-9) * 1e-9).astype(np.float64)
    assert sample_tick(fine) is None
    # A CPU timer of 1 ns under 40-50 ns states, with outliers thousands of ticks long
    # stored as float32 (the real `tiny` state of the CPU example files).
    cpu = np.array([40] * 900 + [49] * 50 + [50] * 40 + [60] * 5 + [23660, 24940] * 2 + [39])
    assert sample_tick((cpu * 1e-9).astype(np.float32)) == pytest.approx(1e-9, rel=1e-4)


def test_sample_tick_finds_a_fine_lattice_with_outliers_far_out() -> None:
    # An H200 run (2026-11-28): samples of a 6.5 us kernel on the 32 ns timer stored as
    # float32, with a few outliers 40 to 120 ticks out. The smallest spacing carries the
    # float32 rounding of two values, which a hundred ticks out puts a point more than a
    # thousandth of a tick off: the lattice was missed on one side of a comparison
    # ("timer ticks 0.00% / 0.50%").
    ticks = np.random.default_rng(0).integers(195, 210, 3000).astype(np.float64)
    ticks[:3] = (236, 290, 330)
    samples = (ticks * 32e-9).astype(np.float32)
    assert sample_tick(samples) == pytest.approx(32e-9, rel=1e-5)


def test_summary_tick_needs_every_summary_on_one_lattice() -> None:
    values = [52 * TICK, 71 * TICK, 74 * TICK, 78 * TICK, 120 * TICK]
    assert summary_tick(*values) == pytest.approx(TICK)
    # Whole microseconds are a lattice of 1 µs; a tick that is a fraction of the spacing
    # is found too (spacings of 2 and 3 ticks).
    assert summary_tick(10 * TICK, 12 * TICK, 15 * TICK, 18 * TICK, None) == (pytest.approx(TICK))
    rng = np.random.default_rng(3)
    for _ in range(200):
        noisy = sorted(float(v) for v in 75e-6 * np.exp(0.05 * rng.standard_normal(5)))
        assert summary_tick(*noisy) is None
    # Three distinct values are not evidence enough (round test numbers would pass) ...
    assert summary_tick(None, 0.99e-5, 1e-5, 1.01e-5, None) is None
    # ... unless the median ties a quartile: a narrow state on a coarse timer.
    assert summary_tick(19 * TICK, 20 * TICK, 20 * TICK, 20 * TICK, 21 * TICK) == (
        pytest.approx(TICK)
    )


def test_medians_one_tick_apart_are_never_a_confident_change() -> None:
    """20 and 21 ticks: +5 % in the medians, one tick of a 1.024 µs timer."""
    for bulk in (True, False):
        ref, cmp = lattice_run(1, 20, bulk=bulk), lattice_run(2, 21, bulk=bulk)
        assert ref.timing.median == pytest.approx(20 * TICK, rel=1e-6)
        assert cmp.timing.median == pytest.approx(21 * TICK, rel=1e-6)
        for thresholds in (DEFAULT, MEASURED):
            verdict = decide(ref, cmp, thresholds)
            assert verdict.status is Status.AMBG, (bulk, verdict.message)
            assert verdict.effect is not None and verdict.effect.lo <= 1.0
            assert "timer ticks" in verdict.message


def test_a_change_of_several_ticks_is_still_found() -> None:
    ref, cmp = lattice_run(1, 80, sigma=0.005), lattice_run(2, 88, sigma=0.005)
    assert decide(ref, cmp, MEASURED).status is Status.SLOW


def test_tick_widening_reaches_zero_for_one_tick() -> None:
    for ticks in (5, 20, 75):
        relative = 1.0 / ticks
        change = math.log((ticks + 1) / ticks)
        assert change - tick_widening(relative, 1.0 / (ticks + 1)) <= 0.0


# ---------------------------------------------------------------------------------------------
# The between-run term


def test_spread_rule_is_zero_for_quiet_states_and_grows_beyond() -> None:
    assert spread_drift_sd(None) == 0.0
    assert spread_drift_sd(QUIET_SPREAD) == 0.0
    assert spread_drift_sd(0.05) == pytest.approx(math.sqrt(0.05**2 - QUIET_SPREAD**2))
    # RTX 4060 state: median 75 µs, IQR 10 %, minimum 53 µs, 1,000 samples.
    spread = summary_spread(71e-6, 75e-6, 78.5e-6, 53e-6, 1000)
    assert spread is not None and spread > 0.07
    # The lower tail counts: the same quartiles without a distant minimum spread less.
    tight_tail = summary_spread(71e-6, 75e-6, 78.5e-6, 65e-6, 1000)
    assert tight_tail is not None and tight_tail < spread


def wide_run(seed: int, scale: float, iqr: float = 0.2, *, bulk: bool = True) -> SideEvidence:
    rng = np.random.default_rng(seed)
    times = 50e-6 * scale * np.exp(iqr / 1.349 * rng.standard_normal(1000))
    clocks = CLOCK * (1.0 + 0.001 * rng.standard_normal(1000))
    return SideEvidence.from_samples(times, clocks, bulk=bulk)


@pytest.mark.parametrize("bulk", [True, False])
def test_a_wide_state_cannot_show_a_change_run_to_run_drift_could_make(bulk: bool) -> None:
    """IQR 20 %, medians 4 % apart: the runs alone say SLOW, one run per side cannot."""
    ref, cmp = wide_run(1, 1.0, bulk=bulk), wide_run(2, 1.04, bulk=bulk)
    alone = decide(ref, cmp, MEASURED)
    assert alone.status is Status.SLOW
    verdict = decide(ref, cmp, DEFAULT)
    assert (verdict.status, verdict.reason) == (Status.AMBG, Reason.RUN_DRIFT_UNMEASURED)
    assert "nvbench_compare ab" in verdict.message and "run-to-run drift" in verdict.message
    assert verdict.effect is not None and alone.effect is not None
    assert verdict.effect.hi - verdict.effect.lo > 4 * (alone.effect.hi - alone.effect.lo)
    # A change far beyond the drift a 20 % IQR allows is still found.
    assert decide(ref, wide_run(3, 1.6, bulk=bulk), DEFAULT).status is Status.SLOW


def test_quiet_states_keep_their_intervals_exactly() -> None:
    ref, cmp = lattice_run(1, 1000.0, sigma=0.01), lattice_run(2, 1000.0, sigma=0.01)
    one, two = decide(ref, cmp, DEFAULT), decide(ref, cmp, MEASURED)
    assert (one.status, one.message) == (two.status, two.message)
    assert one.effect == two.effect


def slow_wander_run(seed: int, *, shuffled: bool) -> SideEvidence:
    rng = np.random.default_rng(seed)
    n = 2000
    phase = rng.uniform(0, 2 * math.pi)
    wander = 0.03 * np.sin(np.linspace(0, 2 * math.pi, n) + phase)
    times = 40e-6 * np.exp(wander + 0.01 * rng.standard_normal(n))
    if shuffled:
        times = rng.permutation(times)
    clocks = CLOCK * (1.0 + 0.001 * rng.standard_normal(n))
    return SideEvidence.from_samples(times, clocks)


def test_slow_drift_inside_a_run_widens_more_than_the_same_samples_shuffled() -> None:
    ordered = decide(
        slow_wander_run(1, shuffled=False), slow_wander_run(2, shuffled=False), DEFAULT
    )
    shuffled = decide(slow_wander_run(1, shuffled=True), slow_wander_run(2, shuffled=True), DEFAULT)
    assert ordered.effect is not None and shuffled.effect is not None
    # The same samples (so the same spread and the same medians) in another order.
    assert ordered.effect.ratio == pytest.approx(shuffled.effect.ratio)
    width = ordered.effect.hi - ordered.effect.lo
    assert width > 3 * (shuffled.effect.hi - shuffled.effect.lo)
    # The level wanders by ±3 % (sd 2.1 %) within each run: the next run may sit anywhere
    # in that range, so the ratio's interval covers it (the batch standard error of the
    # median alone gave 2.8 % here).
    assert width > 0.06
    assert (ordered.status, ordered.reason) == (Status.AMBG, Reason.RUN_DRIFT_UNMEASURED)
    assert shuffled.status is Status.SAME


# ---------------------------------------------------------------------------------------------
# Mean clocks


def dip_run(seed: int, *, dip: bool, bulk: bool = False) -> SideEvidence:
    """A 16 µs state with an IQR of 45 %; ``dip``: 40 % of the samples at 78 % clock, a
    mean clock 2.35 GHz instead of 2.58 and the median 4.7 % slower (the RTX 4060 run)."""
    rng = np.random.default_rng(seed)
    n = 1000
    level = 1.047 if dip else 1.0
    times = 16e-6 * level * np.exp(0.45 / 1.349 * rng.standard_normal(n))
    times = (np.maximum(1.0, np.rint(times / TICK)) * TICK).astype(np.float32)
    clocks = CLOCK * (1.0 + 0.001 * rng.standard_normal(n))
    if dip:
        clocks[rng.random(n) < 0.4] *= 0.78
    return SideEvidence.from_samples(times, clocks.astype(np.float32), bulk=bulk)


def test_a_clock_dip_on_a_wide_state_is_clock_differs_not_a_cycles_verdict() -> None:
    ref, cmp = dip_run(1, dip=False), dip_run(2, dip=True)
    assert ref.clock_rate is not None and cmp.clock_rate is not None
    assert cmp.clock_rate / ref.clock_rate == pytest.approx(0.912, abs=0.01)
    for thresholds in (DEFAULT, MEASURED):
        verdict = decide(ref, cmp, thresholds)
        assert (verdict.status, verdict.reason) == (Status.AMBG, Reason.CLOCK_DIFFERS)
        assert "mean SM clocks" in verdict.message


def test_a_throttled_narrow_state_still_blames_the_clock() -> None:
    """A uniform 5 % clock drop on a 1 %-wide state: the mean clock describes every sample."""
    rng = np.random.default_rng(4)

    def run(clock: float) -> SideEvidence:
        cycles = 2e-5 * CLOCK * rng.lognormal(0.0, 0.01, 2000)
        clocks = clock * (1.0 + 0.001 * rng.standard_normal(2000))
        return SideEvidence.from_samples(cycles / clocks, clocks, bulk=False)

    verdict = decide(run(CLOCK), run(0.95 * CLOCK), DEFAULT)
    assert verdict.reason is Reason.CLOCK_CHANGE_EXPLAINS_TIME
    assert not clock_differs(0.05, 0.01, 0.01)
    assert clock_differs(0.09, 0.33, 0.01)
    assert not clock_differs(0.003, 0.33, 0.01)


# ---------------------------------------------------------------------------------------------
# Real NVBench files


def test_real_cpu_aa_pair_does_not_cry_wolf(cpu_dir: Path) -> None:
    result = compare(cpu_dir / "cpu_run1.json", cpu_dir / "cpu_run2.json", method="ci")
    assert result.rows
    assert not result.rows_with([Status.FAST, Status.SLOW])
    # The `tiny` state sits on the CPU timer's 1 ns lattice (40-51 ns medians).
    tiny = next(row for row in result if row.verdict.effect is not None and "tiny" in str(row))
    assert "timer ticks" in tiny.verdict.message


def test_real_gpu_known_changes_still_found_without_drift_terms(gpu_dir: Path) -> None:
    """Quiet states (1 % spread): no drift term, the known 5 % and 10 % changes found."""
    result = compare(gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json", method="ci")
    assert sum(1 for row in result if row.status.is_change) == 2
    assert not any("run-to-run drift" in row.verdict.message for row in result)
