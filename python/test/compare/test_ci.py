"""Method ``ci``: ratio intervals held against a tolerance band, in time and cycles."""

from __future__ import annotations

import math
import re
from pathlib import Path

import msgspec
import numpy as np
import pytest
from cuda.bench.compare.api import compare
from cuda.bench.compare.evidence import (
    BulkData,
    MeasurementKind,
    SideEvidence,
    TimingSummaries,
)
from cuda.bench.compare.methods import METHODS, get_method
from cuda.bench.compare.methods.ci import (
    CI_REASONS,
    Band,
    _verdict,
    classify,
    decide,
    row_effects,
)
from cuda.bench.compare.model import Reason, Status
from cuda.bench.compare.thresholds import PRESETS, Thresholds

DEFAULT = PRESETS["default"]
CLOCK = 1.755e9


def side(
    seed: int,
    *,
    scale: float = 1.0,
    clock: float = CLOCK,
    n: int = 2000,
    sigma: float = 0.01,
    bulk: str = "all",
) -> SideEvidence:
    """One run: cycles ``scale`` x base with log-normal jitter, at ``clock``.

    ``bulk``: ``all`` (times and frequencies), ``times`` (sample times, mean clock summary
    only), ``none`` (summaries and mean clock only).
    """
    rng = np.random.default_rng(seed)
    cycles = 2e-5 * CLOCK * scale * rng.lognormal(0.0, sigma, n)
    clocks = clock * (1.0 + 0.001 * rng.standard_normal(n))
    times = cycles / clocks
    evidence = SideEvidence.from_samples(times, clocks, bulk=bulk == "all")
    if bulk == "times":
        evidence = msgspec.structs.replace(evidence, bulk=BulkData.from_arrays(times))
    return evidence


def test_registered_under_its_name() -> None:
    assert get_method("ci") is METHODS["ci"]
    assert getattr(METHODS["ci"], "supports_runs", False)


# ---------------------------------------------------------------------------------------------
# The band


def test_classify_at_the_band_edges() -> None:
    edge = math.log1p(0.01)
    assert classify(-edge, edge, 0.01) is Band.INSIDE  # inclusive
    assert classify(-0.001, 0.001, 0.01) is Band.INSIDE
    assert classify(edge, edge + 0.01, 0.01) is Band.EDGE  # touching is not beyond
    assert classify(edge + 1e-12, 0.05, 0.01) is Band.ABOVE
    assert classify(-0.05, -edge - 1e-12, 0.01) is Band.BELOW
    assert classify(0.005, 0.015, 0.01) is Band.EDGE
    assert classify(-0.015, -0.005, 0.01) is Band.EDGE
    assert classify(-0.02, 0.02, 0.01) is Band.WIDE
    # Across one edge but wider than the band: too noisy to tell, not "near the edge".
    assert classify(0.0, 0.02, 0.01) is Band.WIDE
    assert classify(0.0, 2 * edge, 0.01) is Band.EDGE  # exactly the band's width
    # Log-symmetric: the lower edge of +1 % is 1/1.01, not 0.99.
    assert classify(-math.log1p(0.01), 0.0, 0.01) is Band.INSIDE
    assert classify(math.log(0.99), 0.0, 0.01) is Band.EDGE


@pytest.mark.parametrize(
    ("time", "cycles", "status", "reason"),
    [
        (Band.INSIDE, Band.INSIDE, Status.SAME, Reason.CI_SAME),
        (Band.INSIDE, None, Status.SAME, Reason.CI_SAME_WITHOUT_CYCLES),
        (Band.INSIDE, Band.WIDE, Status.SAME, Reason.CI_SAME_IN_TIME),
        (Band.WIDE, Band.INSIDE, Status.SAME, Reason.CI_SAME_IN_CYCLES),
        (Band.ABOVE, Band.ABOVE, Status.SLOW, Reason.CI_CHANGE_CONFIRMED_BY_CYCLES),
        (Band.BELOW, Band.BELOW, Status.FAST, Reason.CI_CHANGE_CONFIRMED_BY_CYCLES),
        (Band.ABOVE, None, Status.SLOW, Reason.CI_CHANGE_WITHOUT_CYCLES),
        (Band.BELOW, None, Status.FAST, Reason.CI_CHANGE_WITHOUT_CYCLES),
        (Band.WIDE, Band.ABOVE, Status.SLOW, Reason.CI_CHANGE_IN_CYCLES),
        (Band.WIDE, Band.BELOW, Status.FAST, Reason.CI_CHANGE_IN_CYCLES),
        (Band.ABOVE, Band.INSIDE, Status.AMBG, Reason.CLOCK_CHANGE_EXPLAINS_TIME),
        (Band.BELOW, Band.INSIDE, Status.AMBG, Reason.CLOCK_CHANGE_EXPLAINS_TIME),
        (Band.ABOVE, Band.BELOW, Status.AMBG, Reason.CI_CYCLES_DISAGREE),
        (Band.INSIDE, Band.ABOVE, Status.AMBG, Reason.CI_CYCLES_DISAGREE),
        (Band.ABOVE, Band.EDGE, Status.AMBG, Reason.CI_CYCLES_UNCONFIRMED),
        (Band.ABOVE, Band.WIDE, Status.AMBG, Reason.CI_CYCLES_UNCONFIRMED),
        (Band.INSIDE, Band.EDGE, Status.AMBG, Reason.CI_CYCLES_UNCONFIRMED),
        (Band.EDGE, Band.INSIDE, Status.AMBG, Reason.CI_STRADDLES_TOLERANCE),
        (Band.EDGE, None, Status.AMBG, Reason.CI_STRADDLES_TOLERANCE),
        (Band.WIDE, None, Status.AMBG, Reason.CI_WIDER_THAN_TOLERANCE),
        (Band.WIDE, Band.WIDE, Status.AMBG, Reason.CI_WIDER_THAN_TOLERANCE),
        (Band.WIDE, Band.EDGE, Status.AMBG, Reason.CI_WIDER_THAN_TOLERANCE),
    ],
)
def test_time_and_cycle_bands_combine(
    time: Band, cycles: Band | None, status: Status, reason: Reason
) -> None:
    assert _verdict(time, cycles) == (status, reason)


def test_a_wide_time_interval_must_reach_the_way_the_cycles_point() -> None:
    assert _verdict(Band.WIDE, Band.ABOVE, True) == (Status.SLOW, Reason.CI_CHANGE_IN_CYCLES)
    assert _verdict(Band.WIDE, Band.ABOVE, False) == (Status.AMBG, Reason.CI_CYCLES_DISAGREE)


def test_a_time_change_is_never_called_without_cycle_confirmation() -> None:
    for cycles in Band:
        if cycles not in (Band.ABOVE,):
            assert _verdict(Band.ABOVE, cycles)[0] is not Status.SLOW


# ---------------------------------------------------------------------------------------------
# Decisions on simulated runs


def test_a_real_slowdown_is_slow_and_carries_effects() -> None:
    verdict = decide(side(1), side(2, scale=1.05), DEFAULT)
    assert (verdict.status, verdict.reason) == (Status.SLOW, Reason.CI_CHANGE_CONFIRMED_BY_CYCLES)
    effect, cycles = verdict.effect, verdict.cycle_effect
    assert effect is not None and cycles is not None
    assert effect.lo < effect.ratio < effect.hi
    assert effect.lo > 1.04 and effect.hi < 1.06
    assert (effect.space, effect.basis, effect.confidence) == ("time", "bootstrap", 0.95)
    assert (cycles.space, cycles.basis) == ("cycles", "bootstrap")
    assert effect.tolerance == 0.01
    assert effect.draws is not None and effect.draws.shape == (2000,)
    assert verdict.message.startswith("time +4.9") and "band ±1.00%" in verdict.message


def test_swapping_the_sides_swaps_fast_and_slow() -> None:
    ref, cmp = side(1), side(2, scale=0.95)
    forward, backward = decide(ref, cmp, DEFAULT), decide(cmp, ref, DEFAULT)
    assert (forward.status, backward.status) == (Status.FAST, Status.SLOW)
    assert forward.effect is not None and backward.effect is not None
    assert forward.effect.ratio * backward.effect.ratio == pytest.approx(1.0)


def test_unchanged_runs_are_same() -> None:
    verdict = decide(side(1), side(2), DEFAULT)
    assert (verdict.status, verdict.reason) == (Status.SAME, Reason.CI_SAME)


def test_a_throttled_run_is_a_clock_change_not_a_regression() -> None:
    for bulk in ("all", "none"):
        verdict = decide(side(1, bulk=bulk), side(2, clock=0.95 * CLOCK, bulk=bulk), DEFAULT)
        assert verdict.status is Status.AMBG
        assert verdict.reason is Reason.CLOCK_CHANGE_EXPLAINS_TIME
        assert verdict.cycle_effect is not None
        assert verdict.cycle_effect.lo < 1.0 < verdict.cycle_effect.hi


def test_mean_clock_summaries_give_the_cycle_space_without_frequency_files() -> None:
    verdict = decide(side(1, bulk="times"), side(2, scale=1.05, bulk="times"), DEFAULT)
    assert verdict.status is Status.SLOW
    assert verdict.cycle_effect is not None
    assert verdict.cycle_effect.basis == "bootstrap+mean-clock"


def test_a_clock_change_that_hides_a_code_change_is_not_same() -> None:
    # 5 % more cycles at a 5 % faster clock: time unchanged, cycles slower.
    verdict = decide(side(1), side(2, scale=1.05, clock=1.05 * CLOCK), DEFAULT)
    assert (verdict.status, verdict.reason) == (Status.AMBG, Reason.CI_CYCLES_DISAGREE)


def test_a_change_near_the_tolerance_straddles_it() -> None:
    verdict = decide(side(1, sigma=0.02), side(2, scale=1.01, sigma=0.02), DEFAULT)
    assert (verdict.status, verdict.reason) == (Status.AMBG, Reason.CI_STRADDLES_TOLERANCE)
    assert verdict.severity > 0


def test_too_few_noisy_samples_are_wider_than_the_band() -> None:
    # Drift measured (as by a calibration): the sampling noise alone is too wide here.
    measured = DEFAULT.replace(ci_drift_measured=1.0)
    verdict = decide(side(1, n=20, sigma=0.2), side(2, n=20, sigma=0.2), measured)
    assert (verdict.status, verdict.reason) == (Status.AMBG, Reason.CI_WIDER_THAN_TOLERANCE)
    # One run per side without a calibration: the drift such a spread allows dominates.
    verdict = decide(side(1, n=20, sigma=0.2), side(2, n=20, sigma=0.2), DEFAULT)
    assert (verdict.status, verdict.reason) == (Status.AMBG, Reason.RUN_DRIFT_UNMEASURED)


def test_summaries_only_use_the_asymptotic_median_interval() -> None:
    verdict = decide(side(1, bulk="none"), side(2, scale=1.05, bulk="none"), DEFAULT)
    assert verdict.status is Status.SLOW
    assert verdict.effect is not None and verdict.effect.basis == "asymptotic-median"
    assert verdict.cycle_effect is not None
    assert verdict.cycle_effect.basis == "asymptotic-median+mean-clock"
    same = decide(side(1, bulk="none"), side(2, bulk="none"), DEFAULT)
    assert same.status is Status.SAME


def bimodal(seed: int, low_fraction: float, *, scale: float = 1.0) -> SideEvidence:
    """Times split into two SM clock modes (85 % clock for ``low_fraction``); no side files."""
    rng = np.random.default_rng(seed)
    n = 2000
    clocks = np.where(rng.random(n) < low_fraction, 0.85 * CLOCK, CLOCK)
    cycles = 2e-5 * CLOCK * scale * rng.lognormal(0.0, 0.005, n)
    return SideEvidence.from_samples(cycles / clocks, clocks, bulk=False)


def test_summaries_only_need_the_mean_to_agree_with_a_change() -> None:
    # The medians fall into different clock modes (+17.6 % apparent change); the means
    # (and the mean clocks) know better. Mean clocks closer than half the band (no
    # ``clock_differs``) and drift measured (as by a calibration: no drift term).
    ref, cmp = bimodal(1, 0.485), bimodal(2, 0.515)
    verdict = decide(ref, cmp, DEFAULT.replace(ci_drift_measured=1.0))
    assert verdict.effect is not None and verdict.effect.ratio > 1.1
    assert (verdict.status, verdict.reason) == (Status.AMBG, Reason.CI_MEDIAN_MEAN_DISAGREE)
    assert "mean time" in verdict.message


def test_a_mean_interval_beyond_floats_is_shown_not_raised() -> None:
    """A standard deviation of 5e8 s beside a 20 us mean (one digit of a real file's
    ``5.98e-08`` overwritten: ``50985870588976369e-08``; both inside the float32 range the
    comparison accepts) puts the means' interval end near e^(7e12): its text raised
    OverflowError (math.expm1), a traceback for a damaged file; then it read ``+inf%``,
    and now the finite end is written from its logarithm, in scientific notation."""
    ref, cmp = bimodal(1, 0.485), bimodal(2, 0.515)
    timing = msgspec.structs.replace(ref.timing, stdev_absolute=509858705.88976369)
    verdict = decide(msgspec.structs.replace(ref, timing=timing), cmp, DEFAULT)
    assert verdict.status is Status.AMBG
    assert "mean time" in verdict.message and "inf" not in verdict.message, verdict.message
    assert re.search(r"\+\d\.\d\de\+\d{12}%\]", verdict.message), verdict.message


def test_per_sample_cycles_decide_when_times_split_into_clock_modes() -> None:
    rng = np.random.default_rng(5)

    def run(scale: float) -> SideEvidence:
        n = 2000
        clocks = np.where(rng.random(n) < 0.5, 0.85 * CLOCK, CLOCK)
        cycles = 2e-5 * CLOCK * scale * rng.lognormal(0.0, 0.005, n)
        return SideEvidence.from_samples(cycles / clocks, clocks)

    same = decide(run(1.0), run(1.0), DEFAULT)
    slow = decide(run(1.0), run(1.05), DEFAULT)
    assert same.status is Status.SAME and same.reason in (Reason.CI_SAME_IN_CYCLES, Reason.CI_SAME)
    assert slow.status is Status.SLOW
    assert slow.reason in (Reason.CI_CHANGE_IN_CYCLES, Reason.CI_CHANGE_CONFIRMED_BY_CYCLES)


def test_old_files_with_mean_and_stdev_only_can_change() -> None:
    def old(mean: float) -> SideEvidence:
        timing = TimingSummaries(mean=mean, stdev_relative=0.01, stdev_absolute=0.01 * mean)
        return SideEvidence(timing=timing, sample_count=1000)

    verdict = decide(old(1e-5), old(1.2e-5), DEFAULT)
    assert (verdict.status, verdict.reason) == (Status.SLOW, Reason.CI_CHANGE_WITHOUT_CYCLES)
    assert verdict.effect is not None and verdict.effect.basis == "asymptotic-mean"
    assert verdict.effect.ratio == pytest.approx(1.2)


def test_cpu_only_measurements_have_no_cycle_space() -> None:
    rng = np.random.default_rng(9)
    times = 1e-5 * rng.lognormal(0.0, 0.01, 500)
    ref = SideEvidence.from_samples(times, kind=MeasurementKind.CPU_ONLY)
    cmp = SideEvidence.from_samples(times * 1.1, kind=MeasurementKind.CPU_ONLY)
    verdict = decide(ref, cmp, DEFAULT)
    assert (verdict.status, verdict.reason) == (Status.SLOW, Reason.CI_CHANGE_WITHOUT_CYCLES)
    assert verdict.cycle_effect is None


def test_unusable_inputs() -> None:
    skipped = msgspec.structs.replace(side(1), is_skipped=True, skip_reason="no")
    assert decide(skipped, side(2), DEFAULT).reason is Reason.STATE_SKIPPED
    missing = SideEvidence(has_summaries=False)
    assert decide(side(1), missing, DEFAULT).status is Status.UNKNOWN
    bad_clock = msgspec.structs.replace(side(2, bulk="none"), clock_rate=-1.0)
    verdict = decide(side(1, bulk="none"), bad_clock, DEFAULT)
    assert (verdict.status, verdict.reason) == (Status.AMBG, Reason.INVALID_CLOCK_RATE)
    bare = SideEvidence(timing=TimingSummaries(median=1e-5, mean=1e-5))
    verdict = decide(bare, bare, DEFAULT)
    assert (verdict.status, verdict.reason) == (Status.AMBG, Reason.EFFECT_UNAVAILABLE)
    assert verdict.effect is None


@pytest.mark.parametrize("problem", ["nan", "negative", "inf"])
def test_unusable_side_files_fall_back_to_the_summaries(problem: str) -> None:
    """A present but broken side file counts as missing: the run is decided from its
    summaries (one warning names the problem), so a change is still found."""
    slower = side(2, scale=1.05)
    broken = np.array(slower.bulk.ordered_times(), dtype=np.float32)
    if problem == "nan":
        broken[7] = np.nan
    elif problem == "negative":
        broken[7] = -1.0
    else:
        broken[7] = np.inf
    clocks = np.full(2000, CLOCK, dtype=np.float32)
    warnings: list[str] = []
    bulk = BulkData.from_arrays(broken, clocks, warn=warnings.append)
    verdict = decide(side(1), msgspec.structs.replace(slower, bulk=bulk), DEFAULT)
    assert verdict.status is Status.SLOW
    assert verdict.effect is not None and verdict.effect.ratio == pytest.approx(1.05, abs=0.005)
    assert "asymptotic-median" in verdict.effect.basis
    assert verdict.cycle_effect is not None
    assert verdict.cycle_effect.basis.endswith("+mean-clock")
    assert len(warnings) == 1 and "per-sample data are not used" in warnings[0]


def test_unusable_frequencies_fall_back_to_the_mean_clock() -> None:
    bad_freqs = msgspec.structs.replace(
        side(2), bulk=BulkData.from_arrays(np.full(2000, 2e-5), np.full(1999, CLOCK))
    )
    verdict = decide(side(1), bad_freqs, DEFAULT)
    assert verdict.reason is not Reason.BULK_CYCLE_DATA_UNUSABLE
    assert verdict.cycle_effect is not None
    assert verdict.cycle_effect.basis == "bootstrap+mean-clock"


def test_every_ci_reason_is_reachable() -> None:
    seen: set[Reason] = set()
    for time in Band:
        for cycles in (*Band, None):
            seen.add(_verdict(time, cycles)[1])
    # Tested above and below.
    seen |= {
        Reason.CI_MEDIAN_MEAN_DISAGREE,
        Reason.CI_CHANGE_NOT_FAMILY_WIDE,
        Reason.EFFECT_UNAVAILABLE,
        Reason.RUN_NOT_STATIONARY,
        Reason.TOO_NOISY_TO_JUDGE,
        Reason.RUN_DRIFT_UNMEASURED,  # test_drift.py
        Reason.CLOCK_DIFFERS,  # test_drift.py
        Reason.RUN_DRIFT_ACROSS_STATES,  # test_empirical_null.py
    }
    assert seen >= CI_REASONS


# ---------------------------------------------------------------------------------------------
# Change calls at a family-wise level (N-way comparisons)


def summaries_only(median: float) -> SideEvidence:
    """A CPU-only run known by its quartiles alone: its interval is in closed form (no
    draws), log standard error ``2 * 1 % / sqrt(400) = 0.001``."""
    timing = TimingSummaries(median=median, mean=median, q1=median * 0.99, q3=median * 1.01)
    return SideEvidence(timing=timing, sample_count=400, kind=MeasurementKind.CPU_ONLY)


@pytest.mark.parametrize("direction", [1.0, -1.0])
def test_a_change_must_also_hold_at_the_change_confidence(direction: float) -> None:
    """The ratio's log standard error is 0.00141: a change 0.0032 beyond the band's edge is
    beyond it at 95 % (z 1.96) and 97.5 % (z 2.24), not at 99 % (z 2.58)."""
    shift = direction * (math.log1p(0.01) + 0.0032)
    ref, cmp = summaries_only(1e-5), summaries_only(1e-5 * math.exp(shift))
    change = Status.SLOW if direction > 0 else Status.FAST
    nominal = decide(ref, cmp, DEFAULT)
    assert (nominal.status, nominal.reason) == (change, Reason.CI_CHANGE_WITHOUT_CYCLES)
    held = decide(ref, cmp, DEFAULT.replace(ci_change_confidence=0.975))
    assert (held.status, held.reason) == (change, Reason.CI_CHANGE_WITHOUT_CYCLES)
    assert held.message.startswith(nominal.message)
    assert held.message.endswith(
        "change confirmed at the family-wise 97.5% level over the candidates"
    )
    lost = decide(ref, cmp, DEFAULT.replace(ci_change_confidence=0.99))
    assert (lost.status, lost.reason) == (Status.AMBG, Reason.CI_CHANGE_NOT_FAMILY_WIDE)
    assert "not confirmed at the family-wise 99% level" in lost.message
    assert "across an edge of the band" in lost.message
    assert lost.severity > 0
    # The reported interval stays the nominal one, whatever level the change is held to.
    assert held.effect == lost.effect == nominal.effect
    assert nominal.effect is not None and nominal.effect.confidence == 0.95


def test_the_change_confidence_leaves_same_and_ambiguous_rows_alone() -> None:
    strict = DEFAULT.replace(ci_change_confidence=0.9999)
    for shift in (0.0, math.log1p(0.01)):  # SAME; AMBG across an edge
        ref, cmp = summaries_only(1e-5), summaries_only(1e-5 * math.exp(shift))
        assert decide(ref, cmp, strict) == decide(ref, cmp, DEFAULT)
    # A level below the nominal one (or 0, the default) never checks anything.
    ref, cmp = side(1), side(2, scale=1.05)
    assert decide(ref, cmp, DEFAULT.replace(ci_change_confidence=0.9)) == decide(ref, cmp, DEFAULT)


def test_a_bootstrapped_change_is_held_to_the_wider_quantiles_of_its_draws() -> None:
    ref, cmp = side(1), side(2, scale=1.05)
    nominal = decide(ref, cmp, DEFAULT)
    family = decide(ref, cmp, DEFAULT.replace(ci_change_confidence=0.9999))
    assert family.status is nominal.status is Status.SLOW
    assert family.effect == nominal.effect and family.cycle_effect == nominal.cycle_effect
    wide = row_effects(ref, cmp, DEFAULT.replace(ci_confidence=0.9999))
    assert not isinstance(wide, Reason) and nominal.effect is not None
    assert wide.time.estimate == pytest.approx(math.log(nominal.effect.ratio))
    assert wide.time.lo < math.log(nominal.effect.lo) < math.log(nominal.effect.hi) < wide.time.hi


# ---------------------------------------------------------------------------------------------
# Calibrated tolerances and their cap


def calibrated(tolerance: float, floor: float = 0.1, **changes: float) -> Thresholds:
    return DEFAULT.replace(ci_calibrated_tolerance=tolerance, ci_noise_floor=floor, **changes)


def test_a_calibrated_tolerance_within_the_cap_is_the_band() -> None:
    verdict = decide(side(1), side(2, scale=1.03), calibrated(0.04, 0.01))
    assert (verdict.status, verdict.reason) == (Status.SAME, Reason.CI_SAME)
    assert verdict.effect is not None and verdict.effect.tolerance == 0.04
    assert verdict.effect.calibrated_tolerance == 0.04
    assert "band ±4.00% calibrated" in verdict.message


@pytest.mark.parametrize("scale", [1.0, 1.03, 1.536, 2.5])
def test_a_state_noisier_than_the_cap_is_never_same(scale: float) -> None:
    """A calibration asking for ±100 % once made a +53.6 % change SAME. ±100 % is the
    calibration's ceiling ("at least"): even a 2.5x change is not judged against it (a
    machine with a 2x slower mode flips states by exactly that much)."""
    verdict = decide(side(1), side(2, scale=scale), calibrated(1.0, 0.45))
    assert (verdict.status, verdict.reason) == (Status.AMBG, Reason.TOO_NOISY_TO_JUDGE)
    assert verdict.effect is not None and verdict.effect.tolerance == 0.05  # the cap
    assert verdict.effect.calibrated_tolerance == 1.0
    assert "noise floor 45.00%" in verdict.message
    assert "needs a tolerance of ±100.00% or more" in verdict.message
    assert "above the cap ±5.00%" in verdict.message
    assert "more runs per side" in verdict.message and "quieter machine" in verdict.message


def test_a_change_beyond_even_the_needed_tolerance_is_still_flagged() -> None:
    verdict = decide(side(1), side(2, scale=1.5), calibrated(0.2))
    assert verdict.status is Status.SLOW
    assert verdict.effect is not None and verdict.effect.tolerance == 0.2
    assert "band ±20.00% calibrated" in verdict.message


def test_the_cap_is_a_setting_and_never_below_the_tolerance() -> None:
    loose = decide(side(1), side(2, scale=1.03), calibrated(0.2, ci_max_tolerance=0.3))
    assert loose.status is Status.SAME
    assert loose.effect is not None and loose.effect.tolerance == 0.2
    # An explicit [ci] tolerance above the cap is the user's band: no state is "too noisy".
    wide = DEFAULT.replace(ci_tolerance=0.1)
    verdict = decide(side(1), side(2, scale=1.03), wide)
    assert verdict.status is Status.SAME
    assert verdict.effect is not None and verdict.effect.tolerance == 0.1


def test_a_same_row_has_its_point_estimate_inside_its_band() -> None:
    for seed in range(30):
        scale = 1.0 + 0.002 * (seed - 15)
        for thresholds in (DEFAULT, calibrated(0.04, 0.01), calibrated(0.5)):
            verdict = decide(side(seed), side(seed + 100, scale=scale), thresholds)
            if verdict.status is not Status.SAME:
                continue
            assert verdict.effect is not None and verdict.effect.tolerance is not None
            edge = math.log1p(verdict.effect.tolerance)
            assert abs(math.log(verdict.effect.ratio)) <= edge


def drifting(seed: int, *, step: float, scale: float = 1.0, sigma: float = 0.01) -> SideEvidence:
    """A run whose second half is ``step`` slower (cycles): drift within the run."""
    rng = np.random.default_rng(seed)
    n = 4000
    level = np.where(np.arange(n) < n // 2, 1.0, 1.0 + step)
    cycles = 2e-5 * CLOCK * scale * level * rng.lognormal(0.0, sigma, n)
    clocks = CLOCK * (1.0 + 0.001 * rng.standard_normal(n))
    return SideEvidence.from_samples(cycles / clocks, clocks)


def test_a_run_drifting_within_itself_widens_and_blocks_a_change() -> None:
    steady = decide(side(1), side(2, scale=1.06), DEFAULT)
    assert steady.status is Status.SLOW and "drift within" not in steady.message
    moving = decide(side(1), drifting(2, step=0.04, scale=1.06), DEFAULT)
    assert (moving.status, moving.reason) == (Status.AMBG, Reason.RUN_NOT_STATIONARY)
    assert "drift within 0 reference and 1 compare run(s)" in moving.message
    assert steady.effect is not None and moving.effect is not None
    assert moving.effect.hi - moving.effect.lo > 3 * (steady.effect.hi - steady.effect.lo)
    # Several runs per side measure the drift between runs: a change may be called.
    from cuda.bench.compare.runs import with_runs

    ref = with_runs(side(1), [side(3), side(4)])
    cmp = with_runs(drifting(5, step=0.01, scale=1.10), [side(6, scale=1.10), side(7, scale=1.1)])
    assert decide(ref, cmp, DEFAULT).status is Status.SLOW


def test_a_calibrated_run_may_drift_by_less_than_its_band_allows() -> None:
    # With thousands of quiet samples the batch test finds drift of no practical size: a
    # run whose second half is 0.2 % slower. Without a calibration nothing measured the
    # drift between runs and the change is refused; a calibration measured it, and a drift
    # well inside the band (±1 % covers run-to-run noise up to 0.27 %) no longer blocks a
    # clear 3 % change (real H200 nightly runs: docs/history-quality.md).
    small = drifting(2, step=0.002, scale=1.03, sigma=0.001)
    plain = decide(side(1), small, DEFAULT)
    assert (plain.status, plain.reason) == (Status.AMBG, Reason.RUN_NOT_STATIONARY)
    assert "drift within 0 reference and 1 compare" in plain.message
    measured = DEFAULT.replace(ci_drift_measured=1.0)
    assert decide(side(1), small, measured).status is Status.SLOW
    # A drift of practical size (a 4 % step between the halves) still blocks the change
    # under a calibration, unless the calibrated band is wide enough to cover it.
    large = drifting(2, step=0.04, scale=1.3)
    verdict = decide(side(1), large, measured)
    assert (verdict.status, verdict.reason) == (Status.AMBG, Reason.RUN_NOT_STATIONARY)
    wide = calibrated(0.2, 0.02, ci_drift_measured=1.0, ci_max_tolerance=0.3)
    assert decide(side(1), large, wide).status is Status.SLOW
    # The wander comes on top of the state's own run-to-run noise: a band its noise fills
    # (±20 % covers up to 5.0 %, the floor 4.9 %) leaves no room for it.
    full = calibrated(0.2, 0.049, ci_drift_measured=1.0, ci_max_tolerance=0.3)
    assert decide(side(1), large, full).reason is Reason.RUN_NOT_STATIONARY


def test_ordered_times_keep_the_measurement_order() -> None:
    run = drifting(1, step=0.5)
    ordered = run.bulk.ordered_times()
    assert ordered is not None
    assert float(np.median(ordered[:2000])) < float(np.median(ordered[2000:]))
    assert run.bulk.cycles() is not None  # drops the cached order ...
    again = run.bulk.ordered_times()  # ... which is read again, unchanged
    assert again is not None and np.array_equal(again, ordered)
    frequencies = run.bulk.ordered_frequencies()
    assert frequencies is not None and frequencies.shape == ordered.shape
    assert side(1, bulk="none").bulk.ordered_times() is None


# ---------------------------------------------------------------------------------------------
# Settings and reproducibility


def test_same_seed_same_interval_different_seed_different() -> None:
    ref, cmp = side(1), side(2, scale=1.01)
    first = decide(ref, cmp, DEFAULT).effect
    again = decide(side(1), side(2, scale=1.01), DEFAULT).effect
    other = decide(ref, cmp, DEFAULT.replace(ci_seed=1)).effect
    assert first is not None and again is not None and other is not None
    assert (first.lo, first.hi) == (again.lo, again.hi)
    assert (first.lo, first.hi) != (other.lo, other.hi)
    assert first.ratio == other.ratio  # the estimate does not depend on the draws
    assert other.lo == pytest.approx(first.lo, abs=0.002)


def test_rows_with_different_data_draw_independently() -> None:
    a = row_effects(side(1), side(2), DEFAULT)
    b = row_effects(side(3), side(4), DEFAULT)
    assert not isinstance(a, Reason) and not isinstance(b, Reason)
    correlation = np.corrcoef(a.time.draws, b.time.draws)[0, 1]
    assert abs(correlation) < 0.1


def test_tolerance_confidence_and_resamples_come_from_the_thresholds() -> None:
    ref, cmp = side(1), side(2, scale=1.03)
    assert decide(ref, cmp, DEFAULT).status is Status.SLOW
    wide = decide(ref, cmp, DEFAULT.replace(ci_tolerance=0.05))
    assert wide.status is Status.SAME and wide.effect is not None
    assert wide.effect.tolerance == 0.05
    strict = decide(ref, cmp, PRESETS["strict"]).effect
    default = decide(ref, cmp, DEFAULT).effect
    assert strict is not None and default is not None
    assert strict.confidence == 0.99 and strict.hi - strict.lo > default.hi - default.lo
    few = decide(ref, cmp, DEFAULT.replace(ci_resamples=100)).effect
    assert few is not None and few.draws is not None and few.draws.size == 100


# ---------------------------------------------------------------------------------------------
# Real NVBench files


def test_real_gpu_files_flag_exactly_the_two_known_changes(gpu_dir: Path) -> None:
    result = compare(gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json", method="ci")
    changed = {(row.ref_device, row.key): row.status for row in result if row.status.is_change}
    assert changed == {
        (0, "T=F32 Elements=2^20 Layout=contiguous"): Status.SLOW,
        (0, "T=F64 Elements=2^16 Layout=contiguous"): Status.FAST,
    }
    assert result.counts[Status.SAME] == 18 and result.counts[Status.AMBG] == 0
    slow = next(row for row in result if row.status is Status.SLOW)
    assert slow.verdict.effect is not None
    assert slow.verdict.effect.lo < 1.05 < slow.verdict.effect.hi


def test_real_gpu_files_without_side_files_still_decide(gpu_dir: Path) -> None:
    result = compare(gpu_dir / "gpu_ref_nosidecar.json", gpu_dir / "gpu_cmp.json", method="ci")
    assert not result.rows_with([Status.FAST, Status.SLOW]) or all(
        row.key
        in ("T=F32 Elements=2^20 Layout=contiguous", "T=F64 Elements=2^16 Layout=contiguous")
        for row in result.rows_with([Status.FAST, Status.SLOW])
    )


def test_files_from_2021_without_quartiles_or_clocks(upstream_2021_dir: Path) -> None:
    result = compare(upstream_2021_dir / "ref.json", upstream_2021_dir / "cmp.json", method="ci")
    bases = {row.verdict.effect.basis for row in result if row.verdict.effect is not None}
    assert bases == {"asymptotic-mean"}
    reasons = {row.reason for row in result if row.status.is_change}
    assert reasons <= {Reason.CI_CHANGE_WITHOUT_CYCLES}


# ---------------------------------------------------------------------------------------
# SAME rows: the change the verdict rests on, and the one displayed, lie inside the band


def _shapes() -> list[object]:
    from cuda.bench.results.synthetic import BimodalClocks, HeavyTailNoise, LogNormalNoise

    return [
        BimodalClocks(low_fraction=0.5, low_clock_ratio=0.8),
        BimodalClocks(low_fraction=0.3, low_clock_ratio=0.9),
        LogNormalNoise(sigma=0.02),
        HeavyTailNoise(),
    ]


@pytest.mark.parametrize("shape_index", range(4))
def test_same_rows_show_a_change_inside_their_band(tmp_path: Path, shape_index: int) -> None:
    """A kernel whose times split into clock modes can show +20 % in time while its cycles
    did not move: its SAME rests on the cycles, and the Change cell must show those (marked
    ``cyc``), never a time change beyond the band under a SAME."""
    from cuda.bench.report.tables import change_text, effect_text, judged_effect
    from cuda.bench.results.synthetic import SyntheticConfig, write_pair

    shape = _shapes()[shape_index]
    same = in_cycles = 0
    for seed in range(4):
        config = SyntheticConfig(benchmarks=1, states=8, samples=60, shape=shape)  # type: ignore[arg-type]
        pair = write_pair(tmp_path / f"{seed}", config, seed=seed, random_shifts=2)
        comparison = compare(str(pair.ref[0]), str(pair.cmp[0]), method="ci")
        for row in comparison.rows:
            if row.status is not Status.SAME:
                continue
            same += 1
            effect = judged_effect(row)
            assert effect is not None
            edge = math.log1p(effect.tolerance)
            assert abs(math.log(effect.ratio)) <= edge + 1e-12, (row.key, row.verdict.message)
            if row.reason is Reason.CI_SAME_IN_CYCLES:
                in_cycles += 1
                assert effect is row.verdict.cycle_effect
                assert change_text(row) == effect_text(effect) + " cyc"
            else:
                assert change_text(row) == effect_text(effect)
    assert same > 0
    if shape_index == 0:  # the reviewer's case: half the samples at 0.8 of the clock
        assert in_cycles > 0
