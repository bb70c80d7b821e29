"""Method ``ci``'s effects: the ratio estimates of one row, with their draws.

Per run the levels (median or mean, in time and cycles) come from a seeded bootstrap of
the per-sample side files, or in closed form from the summaries when a run has none; the
ratio of the sides' levels is resampled hierarchically over runs
(:mod:`..bootstrap`). The verdict that holds these effects against a tolerance band, and
the reasons behind every choice made here, are :mod:`.ci`'s.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, Literal

import msgspec

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..._arrays import IntArray
else:
    from ..._lazy import numpy as np

from ..bootstrap import (
    Level,
    RatioDraws,
    batch_standard_error,
    drift_widening,
    mean_standard_error,
    median_rank,
    median_standard_error,
    normal_draws,
    normal_ratio,
    order_statistic_ranks,
    order_statistic_uniforms,
    ratio_draws,
    run_picks,
    side_distribution,
)
from ..bulk import rank_window
from ..drift import sample_spread, slow_drift_sd, spread_drift_sd
from ..evidence import SideEvidence, usable_clock
from ..lattice import tick_widening
from ..model import Reason
from ..runs import side_runs
from ..thresholds import Thresholds
from ._ci_terms import (
    clock_gap,
    largest,
    noised,
    run_summary_spread,
    sample_tick_share,
    summary_tick_share,
    widened,
)

__all__ = ["CycleMode", "Estimand", "RowEffects", "row_effects", "run_centers"]

Estimand = Literal["median", "mean"]
CycleMode = Literal["samples", "clock"]

_BOOTSTRAP: Final = "bootstrap"
_ASYMPTOTIC_MEDIAN: Final = "asymptotic-median"
_ASYMPTOTIC_MEAN: Final = "asymptotic-mean"


# ---------------------------------------------------------------------------------------------
# Effects of a row


class RowEffects(msgspec.Struct, frozen=True):
    """The ratio estimates of one row (log space, with their draws).

    ``time`` always; ``cycles`` where clock data exist; ``mean`` and ``mean_cycles`` (the
    ratio of the means, in time and mean-clock cycles) only when a side has no samples
    and the summaries allow it (the check of the module docstring). ``*_basis`` name how
    the intervals were obtained.
    """

    time: RatioDraws
    time_basis: str
    cycles: RatioDraws | None = None
    cycle_basis: str | None = None
    mean: RatioDraws | None = None
    mean_cycles: RatioDraws | None = None
    runs: tuple[int, int] = (1, 1)
    #: Runs per side whose batch medians showed drift within the run, in the space that
    #: decides a change (cycles where they exist, else time).
    drifted: tuple[int, int] = (0, 0)
    #: One run per side and no calibration: the between-run standard deviation (log units)
    #: added to each side's level (:mod:`..drift`), in the space that decides a change.
    drift_sd: tuple[float, float] = (0.0, 0.0)
    #: The time and cycle intervals without that term (``None`` when none was added):
    #: what the runs alone would say.
    within_time: RatioDraws | None = None
    within_cycles: RatioDraws | None = None
    #: Each side's lattice tick relative to its center (:mod:`..lattice`); 0 where none.
    ticks: tuple[float, float] = (0.0, 0.0)
    #: Per side, the largest slow drift within one run (log sd) in the deciding space.
    wander: tuple[float, float] = (0.0, 0.0)
    #: Cycles from mean clocks: the log gap between the runs' largest and smallest mean
    #: clock, and the largest log spread of a run's times (:func:`..drift.clock_differs`).
    clock_gap: float = 0.0
    time_spread: float | None = None


class _RunLevels(msgspec.Struct, frozen=True):
    time: Level
    cycles: Level | None
    basis: str
    #: The batch medians showed drift within the run (time; cycles) and widened its draws.
    time_drifted: bool = False
    cycles_drifted: bool = False
    #: Between-run standard deviations (log) this run alone suggests (time; cycles).
    time_drift: float = 0.0
    cycles_drift: float = 0.0
    #: The lattice tick of the run's times relative to its center (0: none found).
    tick: float = 0.0
    #: The slow part of the run's drift within itself (:func:`..drift.slow_drift_sd`).
    wander: tuple[float, float] = (0.0, 0.0)
    #: The log spread of the run's times (:func:`..drift.summary_spread`).
    spread: float | None = None


def _drift_checked(
    level: Level, ordered: npt.NDArray[Any] | None, rng: np.random.Generator
) -> tuple[Level, bool, float]:
    """``level`` widened to the batch standard error when the run drifts within itself,
    whether it was, and the level's wander within the run (:func:`..drift.slow_drift_sd`)."""
    if ordered is None:
        return level, False, 0.0
    draws = level.draws
    deviations = draws - np.add.reduce(draws) / draws.size  # .mean(), less overhead
    # np.std's general machinery costs more than the arithmetic on 2,000 draws.
    spread = math.sqrt(float(deviations @ deviations) / deviations.size)
    batches = batch_standard_error(ordered)
    batch = drift_widening(spread, batches)
    if batch is None or batches is None:
        return level, False, 0.0
    # Add the excess variance as normal noise: scaling the draws would leave intervals of
    # tied (timer-quantized) medians at zero width.
    excess = math.sqrt(batch * batch - spread * spread)
    widened = Level(level.center, level.draws + normal_draws(rng, 0.0, excess, level.draws.size))
    return widened, True, slow_drift_sd(excess, batches[1])


def _fingerprint(seed: int, runs: Sequence[SideEvidence]) -> np.random.Generator:
    """A generator seeded by ``seed`` and the row's summaries (module docstring)."""
    parts: list[float | int | None] = []
    for run in runs:
        timing = run.timing
        parts.extend(
            (
                timing.median,
                timing.mean,
                timing.min,
                timing.max,
                timing.q1,
                timing.q3,
                run.sample_count,
                run.clock_rate,
            )
        )
    # Imported here, as numpy is: rows decided from summaries alone never need it.
    import hashlib

    # The numbers' bytes, not their text: repr() of every float costs more than the rest.
    packed = np.array([math.nan if part is None else part for part in parts], dtype=np.float64)
    digest = hashlib.blake2b(packed.tobytes(), digest_size=8).digest()
    return np.random.default_rng(np.random.SeedSequence([seed, int.from_bytes(digest, "little")]))


def _has_samples(run: SideEvidence) -> bool:
    """The run's sample times are available and usable.

    A side file that exists but holds the wrong number of values, or non-finite or
    non-positive ones, is not (one warning names the file and the problem): the run is
    then decided from its summaries, as when the file is missing, so that a corrupt file
    cannot turn a change into AMBG and let it through a gate.
    """
    return run.bulk.has_times() and run.bulk.ordered_times() is not None


def _has_cycle_samples(run: SideEvidence) -> bool:
    """The run's per-sample cycles can be built (usable times and frequencies)."""
    return _has_samples(run) and run.bulk.has_frequencies() and run.bulk.cycle_values() is not None


def _can_median(run: SideEvidence) -> bool:
    if _has_samples(run):
        return True
    timing = run.timing
    return (
        median_standard_error(
            timing.median, timing.q1, timing.q3, run.sample_count, timing.stdev_absolute
        )
        is not None
    )


def _can_mean(run: SideEvidence) -> bool:
    timing = run.timing
    return mean_standard_error(timing.mean, timing.stdev_absolute, run.sample_count) is not None


def _estimand(runs: Sequence[SideEvidence]) -> Estimand | None:
    """The center every run can give: the median, else the mean, else none."""
    if all(_can_median(run) for run in runs):
        return "median"
    if all(_can_mean(run) for run in runs):
        return "mean"
    return None


def _cycle_mode(runs: Sequence[SideEvidence], estimand: Estimand) -> CycleMode | Reason | None:
    """How cycles are estimated for every run of the row, why they cannot be, or ``None``."""
    if any(run.is_cpu_only for run in runs):
        return None
    if estimand == "median" and all(_has_cycle_samples(run) for run in runs):
        return "samples"
    clocks = [run.clock_rate for run in runs]
    # A clock present but no clock is broken evidence, not an absent clock.
    if any(clock is not None and not usable_clock(clock) for clock in clocks):
        return Reason.INVALID_CLOCK_RATE
    if any(clock is None for clock in clocks):
        return None  # time alone, as for files without clocks
    return "clock"


def _bootstrap_level(window: npt.NDArray[Any], lo: int, median: int, ranks: IntArray) -> Level:
    """The log median and the bootstrap draws of the log median from the sorted values of
    ranks ``lo`` and up (``window``), as :func:`bootstrap_order_statistic` would give them
    from all sorted values."""
    return Level(
        math.log(float(window[median - lo])),
        np.log(window.take(ranks - lo).astype(np.float64)),
    )


def _time_spread(run: SideEvidence, ordered: npt.NDArray[Any], tick: float) -> float | None:
    """The log spread of a run's times: from NVBench's summaries of these very samples
    where they hold the quartiles and the minimum (no pass over the samples), else from
    the samples."""
    timing = run.timing
    if None not in (timing.q1, timing.median, timing.q3, timing.min):
        return run_summary_spread(run, tick)
    return sample_spread(ordered, tick)


def _run_levels(
    run: SideEvidence,
    estimand: Estimand,
    cycle_mode: CycleMode | None,
    rng: np.random.Generator,
    resamples: int,
    unmeasured: bool = False,
) -> _RunLevels | Reason:
    """One run's time (and cycle) level: bootstrap draws from samples, else asymptotic.

    ``unmeasured``: nothing else measures drift between runs, so the run's between-run
    terms are estimated (:mod:`..drift`); its spread also when its cycles come from the
    mean clock (:func:`..drift.clock_differs`).
    """
    wants_spread = unmeasured or cycle_mode == "clock"
    if estimand == "median" and _has_samples(run):
        ordered = run.bulk.ordered_times()
        assert ordered is not None  # _has_samples() says so
        size = ordered.size
        median = median_rank(size)
        ranks = order_statistic_ranks(order_statistic_uniforms(rng, size, median, resamples), size)
        # The draws read ranks near the median only: sort just those (bulk.rank_window).
        lo, hi = min(int(ranks.min()), median), max(int(ranks.max()), median)
        time = _bootstrap_level(rank_window(ordered, lo, hi), lo, median, ranks)
        time, time_drifted, time_slow = _drift_checked(time, ordered, rng)
        cycles_drifted, cycles_slow = time_drifted, time_slow  # mean-clock cycles share them
        tick = sample_tick_share(ordered, time.center)
        spread = _time_spread(run, ordered, tick) if wants_spread else None
        cycle_spread = spread
        cycles: Level | None = None
        if cycle_mode == "samples":
            values = run.bulk.cycle_values()
            assert values is not None  # _cycle_mode() checked every run
            # The same order-statistic draws: each space's marginal distribution is exact.
            cycles = _bootstrap_level(rank_window(values, lo, hi), lo, median, ranks)
            # ``values`` are in measurement order too: the drift check reads them as well.
            cycles, cycles_drifted, cycles_slow = _drift_checked(cycles, values, rng)
            cycle_spread = sample_spread(values, tick) if unmeasured else None
        elif cycle_mode == "clock":
            assert run.clock_rate is not None
            shift = math.log(run.clock_rate)
            cycles = Level(time.center + shift, time.draws + shift)
        return _RunLevels(
            time,
            cycles,
            _BOOTSTRAP,
            time_drifted,
            cycles_drifted,
            time_drift=max(spread_drift_sd(spread), time_slow) if unmeasured else 0.0,
            cycles_drift=max(spread_drift_sd(cycle_spread), cycles_slow) if unmeasured else 0.0,
            tick=tick,
            spread=spread,
            wander=(time_slow, cycles_slow),
        )
    normal = _normal_level(run, estimand)
    if normal is None:
        return Reason.EFFECT_UNAVAILABLE
    log_center, se, basis = normal
    time = Level(log_center, normal_draws(rng, log_center, se, resamples))
    cycles = None
    if cycle_mode == "clock":
        assert run.clock_rate is not None
        shift = math.log(run.clock_rate)
        cycles = Level(time.center + shift, time.draws + shift)
    tick = summary_tick_share(run) if estimand == "median" else 0.0
    spread = run_summary_spread(run, tick) if wants_spread else None
    drift = spread_drift_sd(spread) if unmeasured else 0.0
    return _RunLevels(
        time, cycles, basis, time_drift=drift, cycles_drift=drift, tick=tick, spread=spread
    )


def _normal_level(run: SideEvidence, estimand: Estimand) -> tuple[float, float, str] | None:
    """``(log center, standard error, basis)`` of a run decided from its summaries alone."""
    timing = run.timing
    if estimand == "median":
        center, basis = timing.median, _ASYMPTOTIC_MEDIAN
        se = median_standard_error(
            timing.median, timing.q1, timing.q3, run.sample_count, timing.stdev_absolute
        )
    else:
        center, basis = timing.mean, _ASYMPTOTIC_MEAN
        se = mean_standard_error(timing.mean, timing.stdev_absolute, run.sample_count)
    if center is None or se is None:
        return None
    return math.log(center), se, basis


def _normal_ratios(
    ref: SideEvidence,
    cmp: SideEvidence,
    estimand: Estimand,
    cycle_mode: CycleMode | None,
    confidence: float,
    drift: tuple[float, float] = (0.0, 0.0),
) -> tuple[RatioDraws, RatioDraws | None, str] | Reason:
    """Time and mean-clock cycle ratios of one run against one, from summaries alone.

    The closed form of what the draws of :func:`_run_levels` would give (both sides are
    normal in log space); the cycle ratio is the time ratio moved by the clock ratio.
    ``drift``: between-run standard deviations added to each side (:mod:`..drift`).
    """
    ref_level, cmp_level = _normal_level(ref, estimand), _normal_level(cmp, estimand)
    if ref_level is None or cmp_level is None:
        return Reason.EFFECT_UNAVAILABLE
    ref_se, cmp_se = math.hypot(ref_level[1], drift[0]), math.hypot(cmp_level[1], drift[1])
    time = normal_ratio(ref_level[0], ref_se, cmp_level[0], cmp_se, confidence)
    cycles = None
    if cycle_mode == "clock":
        assert ref.clock_rate is not None and cmp.clock_rate is not None
        shift = math.log(cmp.clock_rate) - math.log(ref.clock_rate)
        cycles = RatioDraws(
            time.estimate + shift, time.lo + shift, time.hi + shift, None, 1.0, math.inf
        )
    bases = {ref_level[2], cmp_level[2]}
    return time, cycles, "+".join(sorted(bases))


def _normal_effects(
    ref: SideEvidence,
    cmp: SideEvidence,
    estimand: Estimand,
    cycle_mode: CycleMode | None,
    confidence: float,
    unmeasured: bool,
) -> RowEffects | Reason:
    """:func:`row_effects` for one run per side without per-sample data (closed form)."""
    within = _normal_ratios(ref, cmp, estimand, cycle_mode, confidence)
    if isinstance(within, Reason):
        return within
    ticks = (0.0, 0.0)
    if estimand == "median":
        ticks = (summary_tick_share(ref), summary_tick_share(cmp))
    spreads: tuple[float | None, float | None] = (None, None)
    if unmeasured or cycle_mode == "clock":
        spreads = (run_summary_spread(ref, ticks[0]), run_summary_spread(cmp, ticks[1]))
    drift = (0.0, 0.0)
    if unmeasured:
        drift = (spread_drift_sd(spreads[0]), spread_drift_sd(spreads[1]))
    found = within
    if any(drift):
        drifted = _normal_ratios(ref, cmp, estimand, cycle_mode, confidence, drift)
        assert not isinstance(drifted, Reason)  # the same levels as ``within``
        found = drifted
    by = tick_widening(*ticks)
    time, cycles, basis = found
    cycle_basis = None if cycles is None else basis + "+mean-clock"
    mean = mean_cycles = None
    if estimand == "median" and _can_mean(ref) and _can_mean(cmp):
        mean_mode: CycleMode | None = "clock" if cycle_mode == "clock" else None
        means = _normal_ratios(ref, cmp, "mean", mean_mode, confidence, drift)
        if not isinstance(means, Reason):
            mean, mean_cycles, _ = means
    widened_time = widened(time, by)
    assert widened_time is not None
    return RowEffects(
        time=widened_time,
        time_basis=basis,
        cycles=widened(cycles, by),
        cycle_basis=cycle_basis,
        mean=mean,
        mean_cycles=mean_cycles,
        drift_sd=drift,
        within_time=widened(within[0], by) if any(drift) else None,
        within_cycles=widened(within[1], by) if any(drift) else None,
        ticks=ticks,
        clock_gap=clock_gap((ref, cmp), cycle_mode),
        time_spread=largest(spreads),
    )


def _drifted(levels: Sequence[_RunLevels], cycles: bool) -> int:
    return sum(level.cycles_drifted if cycles else level.time_drifted for level in levels)


def _wander(levels: Sequence[_RunLevels], cycles: bool) -> float:
    return max((level.wander[cycles] for level in levels), default=0.0)


def _basis(bases: set[str], runs: tuple[int, int]) -> str:
    text = "+".join(sorted(bases))
    return f"hierarchical-{text}" if max(runs) > 1 else text


def _side_levels(
    runs: Sequence[SideEvidence],
    estimand: Estimand,
    cycle_mode: CycleMode | None,
    rng: np.random.Generator,
    resamples: int,
    unmeasured: bool = False,
) -> list[_RunLevels] | Reason:
    levels = []
    for run in runs:
        level = _run_levels(run, estimand, cycle_mode, rng, resamples, unmeasured)
        if isinstance(level, Reason):
            return level
        levels.append(level)
    return levels


def _ratio(
    ref: list[_RunLevels],
    cmp: list[_RunLevels],
    rng: np.random.Generator,
    resamples: int,
    confidence: float,
    t_correction: bool,
) -> tuple[RatioDraws, RatioDraws | None]:
    ref_picks = run_picks(rng, len(ref), resamples)
    cmp_picks = run_picks(rng, len(cmp), resamples)
    time = ratio_draws(
        side_distribution([level.time for level in ref], ref_picks),
        side_distribution([level.time for level in cmp], cmp_picks),
        confidence,
        t_correction=t_correction,
    )
    ref_cycles = [level.cycles for level in ref]
    cmp_cycles = [level.cycles for level in cmp]
    if any(level is None for level in ref_cycles + cmp_cycles):
        return time, None
    cycles = ratio_draws(
        side_distribution([lv for lv in ref_cycles if lv is not None], ref_picks),
        side_distribution([lv for lv in cmp_cycles if lv is not None], cmp_picks),
        confidence,
        t_correction=t_correction,
    )
    return time, cycles


def row_effects(
    ref: SideEvidence, cmp: SideEvidence, thresholds: Thresholds
) -> RowEffects | Reason:
    """The time (and cycle) ratio estimates of a row, or the reason there are none.

    Several runs per side come from :class:`~..runs.RunsEvidence`. Reasons:
    ``effect_unavailable``, ``invalid_clock_rate``. Unusable side files count as missing
    (:func:`_has_samples`).
    """
    ref_runs, cmp_runs = side_runs(ref), side_runs(cmp)
    every = (*ref_runs, *cmp_runs)
    estimand = _estimand(every)
    if estimand is None:
        return Reason.EFFECT_UNAVAILABLE
    cycle_mode = _cycle_mode(every, estimand)
    if isinstance(cycle_mode, Reason):
        return cycle_mode
    resamples = int(thresholds.ci_resamples)
    confidence = float(thresholds.ci_confidence)
    single = len(ref_runs) == len(cmp_runs) == 1
    # Nothing measures drift between runs: one run per side and no calibration.
    unmeasured = single and not thresholds.ci_drift_measured
    if single and not (estimand == "median" and any(_has_samples(run) for run in every)):
        return _normal_effects(
            ref_runs[0], cmp_runs[0], estimand, cycle_mode, confidence, unmeasured
        )
    rng = _fingerprint(int(thresholds.ci_seed), every)
    ref_levels = _side_levels(ref_runs, estimand, cycle_mode, rng, resamples, unmeasured)
    if isinstance(ref_levels, Reason):
        return ref_levels
    cmp_levels = _side_levels(cmp_runs, estimand, cycle_mode, rng, resamples, unmeasured)
    if isinstance(cmp_levels, Reason):
        return cmp_levels
    runs = (len(ref_runs), len(cmp_runs))
    t_correction = bool(thresholds.ci_t_correction)
    time, cycles = _ratio(ref_levels, cmp_levels, rng, resamples, confidence, t_correction)
    within_time, within_cycles = time, cycles
    time_noise = cycle_noise = None
    drift = (0.0, 0.0)
    if unmeasured:
        ref_one, cmp_one = ref_levels[0], cmp_levels[0]
        time_sd = math.hypot(ref_one.time_drift, cmp_one.time_drift)
        cycle_sd = math.hypot(ref_one.cycles_drift, cmp_one.cycles_drift)
        if time_sd > 0 or (cycles is not None and cycle_sd > 0):
            # One draw of the runs' drift per bootstrap draw, shared by both spaces.
            shared = rng.standard_normal(resamples)
            time_noise = shared * time_sd if time_sd > 0 else None
            cycle_noise = shared * cycle_sd if cycle_sd > 0 else None
            time = noised(time, time_noise, confidence)
            if cycles is not None:
                cycles = noised(cycles, cycle_noise, confidence)
        if cycles is None:
            drift = (ref_one.time_drift, cmp_one.time_drift)
        else:
            drift = (ref_one.cycles_drift, cmp_one.cycles_drift)
    with_drift = time_noise is not None or cycle_noise is not None
    ticks = (max(lv.tick for lv in ref_levels), max(lv.tick for lv in cmp_levels))
    by = tick_widening(*ticks)
    time_bases = {level.basis for level in (*ref_levels, *cmp_levels)}
    cycle_basis = None
    if cycles is not None:
        cycle_basis = _basis(time_bases, runs)
        if cycle_mode == "clock":
            cycle_basis += "+mean-clock"
    mean = mean_cycles = None
    if _ASYMPTOTIC_MEDIAN in time_bases and all(_can_mean(run) for run in every):
        mean_mode: CycleMode | None = "clock" if cycle_mode == "clock" else None
        ref_means = _side_levels(ref_runs, "mean", mean_mode, rng, resamples)
        cmp_means = _side_levels(cmp_runs, "mean", mean_mode, rng, resamples)
        if not isinstance(ref_means, Reason) and not isinstance(cmp_means, Reason):
            mean, mean_cycles = _ratio(
                ref_means, cmp_means, rng, resamples, confidence, t_correction
            )
            mean = noised(mean, time_noise, confidence)
            if mean_cycles is not None:
                mean_cycles = noised(mean_cycles, time_noise, confidence)
    widened_time = widened(time, by)
    assert widened_time is not None
    return RowEffects(
        time=widened_time,
        time_basis=_basis(time_bases, runs),
        cycles=widened(cycles, by),
        cycle_basis=cycle_basis,
        mean=mean,
        mean_cycles=mean_cycles,
        runs=runs,
        drifted=(
            _drifted(ref_levels, cycles is not None),
            _drifted(cmp_levels, cycles is not None),
        ),
        drift_sd=drift,
        wander=(_wander(ref_levels, cycles is not None), _wander(cmp_levels, cycles is not None)),
        within_time=widened(within_time, by) if with_drift else None,
        within_cycles=widened(within_cycles, by) if with_drift else None,
        ticks=ticks,
        clock_gap=clock_gap(every, cycle_mode),
        time_spread=largest([lv.spread for lv in (*ref_levels, *cmp_levels)]),
    )


def run_centers(
    runs: Sequence[SideEvidence], thresholds: Thresholds
) -> list[tuple[float, float]] | Reason:
    """``(log center, standard error)`` of each run of one state, for A/A calibration.

    The center is the estimand every run can give (median, else mean); the standard
    error is the spread of that run's bootstrap (or asymptotic) draws.
    """
    estimand = _estimand(runs)
    if estimand is None:
        return Reason.EFFECT_UNAVAILABLE
    resamples = int(thresholds.ci_resamples)
    rng = _fingerprint(int(thresholds.ci_seed), runs)
    levels = _side_levels(runs, estimand, None, rng, resamples)
    if isinstance(levels, Reason):
        return levels
    return [(level.time.center, float(np.std(level.time.draws, ddof=1))) for level in levels]
