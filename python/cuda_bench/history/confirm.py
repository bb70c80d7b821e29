"""Confirmation of change points, false-discovery control across series, and events.

Confirmation: the two-level bootstrap of the ratio across a change
    A change at run ``t`` between its neighbouring changes ``low`` and ``high`` compares the
    level before (runs ``max(low, t - k)`` .. ``t - 1``) with the level after (``t`` ..
    ``min(high, t + k) - 1``), ``k = side_runs`` (40) runs a side at most, as the
    comparison compares a reference with a compare side measured in several runs (with 10
    runs a side the interval of a 2 % step in 1 % noise excluded the 1 % band for 64 % of
    the steps the scan found, with 40 for 98 %). Each
    draw resamples the runs of a side, then the samples within each chosen run: the
    hierarchical bootstrap of :mod:`cuda.bench.compare.bootstrap` (Davison & Hinkley 1997,
    §3.8; Kalibera & Jones 2013), reused as it is: per-run medians drawn exactly by the
    beta order-statistic method when samples are given, as normal draws from the median's
    interval when only that is, and no within-run part when neither is. The run-level part
    assumes independent runs; for autocorrelated runs it is widened by the dependence
    factor ``c_w`` of the widest window within ``side_runs`` (``c_w^2`` is the variance of a
    window's mean relative to independent runs'; :func:`dependence_for`): for a change, that
    of the runs about their levels and the slope the levels share, which the change is
    confirmed less, that slope's error added to the draws (:func:`with_slope_error`,
    :mod:`._shared_trend`); for a creep or a candidate, the scan's. A run further than
    ``outlier_sigmas`` (5) robust standard deviations of the series' residual noise (from the
    scan) from the median of its side is an outlier and left out, as the scan leaves a single
    outlying run out of a change (a 20 % slow run among ten would move the geometric mean by
    2 % and hide a real 5 % change; at 1 % noise such runs hid 23 of 200 confirmed 5 % steps
    before). The change is kept
    when the percentile interval of the after/before ratio lies wholly outside the band
    ``[1/(1 + tolerance), 1 + tolerance]`` (the ``ci`` method's band, symmetric in log
    space: :func:`cuda.bench.compare.methods.ci.classify`): SLOW above, FAST below.

False-discovery control across series
    Over many series even a 1 % false-alarm rate per series finds about a hundred false
    changes in 10,000 series. Every series contributes its changes' p-values (from its own
    calibrated null; :mod:`.changepoint`), or, without a change, the p-value of its largest
    statistic; the Benjamini-Hochberg step-up procedure at level ``fdr`` keeps the changes
    it rejects (Benjamini & Hochberg 1995, JRSS B 57:289; valid under the positive
    dependence that shared causes give series of one grid, Benjamini & Yekutieli 2001, Ann.
    Statist. 29:1165). q-values are the step-up adjusted p-values.

Events
    Confirmed changes with the same commit and the same direction form one event. Its ratio
    is the median of the changes' ratios; its interval is the percentile interval of the
    per-draw medians of the changes' bootstrap draws (each change's ``b``-th draw is
    independent of the others', so this carries the changes' own uncertainty into the
    median; it does not treat the series as a sample of a larger grid).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import msgspec
import msgspec.structs
import numpy as np

# At run time too (numpy is loaded here anyway), so that typing.get_type_hints, pydoc and
# inspect.signature resolve the annotations.
from .._arrays import BoolArray, FloatArray
from ..compare.bootstrap import (
    Level,
    RatioDraws,
    bootstrap_order_statistic,
    median_rank,
    normal_draws,
    normal_quantile,
    order_statistic_uniforms,
    percentile_interval,
    ratio_draws,
    run_picks,
    side_distribution,
)
from ..compare.methods.ci import Band, classify
from ..compare.model import Status
from ._scan_result import SeriesScan
from ._settings import checked_int, checked_real
from .model import ConfirmedChange, Event, RunSeries

__all__ = [
    "ConfirmConfig",
    "benjamini_hochberg",
    "confirm_change",
    "confirmation_runs",
    "dependence_for",
    "group_events",
    "run_levels",
    "status_of",
    "with_slope_error",
]


class ConfirmConfig(msgspec.Struct, frozen=True):
    """Settings of the confirmation and the false-discovery control (module docstring)."""

    tolerance: float = 0.01
    confidence: float = 0.95
    resamples: int = 2000
    side_runs: int = 40
    #: Runs this many robust standard deviations from their side's median are outliers.
    outlier_sigmas: float = 5.0
    fdr: float = 0.05
    seed: int = 0

    def __post_init__(self) -> None:
        # Types and finite values first (:mod:`._settings`): `outlier_sigmas > 0` took inf.
        for name in ("tolerance", "confidence", "outlier_sigmas", "fdr"):
            checked_real("ConfirmConfig", name, getattr(self, name))
        for name, least in (("resamples", 100), ("side_runs", 2), ("seed", 0)):
            checked_int("ConfirmConfig", name, getattr(self, name), least)
        if not 0.0 <= self.tolerance < 1.0 or not 0.5 < self.confidence < 1.0:
            raise ValueError("need 0 <= tolerance < 1 and 0.5 < confidence < 1")
        if self.resamples < 100 or self.side_runs < 2 or not 0.0 < self.fdr < 1.0:
            raise ValueError("need resamples >= 100, side_runs >= 2 and 0 < fdr < 1")
        if not self.outlier_sigmas > 0:
            raise ValueError("outlier_sigmas must be positive")


def run_levels(
    series: RunSeries, runs: Sequence[int], rng: np.random.Generator, resamples: int
) -> list[Level]:
    """Each run's log median and ``resamples`` within-run draws of it (module docstring)."""
    levels = []
    half = 0.5 + series.interval_confidence / 2.0
    for run in runs:
        center = math.log(float(series.medians[run]))
        if series.samples is not None and np.asarray(series.samples[run]).size:
            ordered = np.sort(np.asarray(series.samples[run], dtype=np.float64))
            rank = median_rank(ordered.size)
            uniforms = order_statistic_uniforms(rng, ordered.size, rank, resamples)
            draws = np.log(bootstrap_order_statistic(ordered, uniforms))
            draws += center - math.log(float(ordered[rank]))
        elif (
            series.median_lo is not None
            and series.median_hi is not None
            and math.isfinite(float(series.median_lo[run]))
        ):
            width = math.log(float(series.median_hi[run]) / float(series.median_lo[run]))
            draws = normal_draws(rng, center, width / (2.0 * normal_quantile(half)), resamples)
        else:
            draws = np.full(resamples, center)
        levels.append(Level(center, draws))
    return levels


def confirmation_runs(
    series: RunSeries,
    index: int,
    low: int,
    high: int,
    config: ConfirmConfig,
    noise: float | None = None,
) -> tuple[list[int], list[int]]:
    """The runs before and after a change that its confirmation compares (module docstring).

    With the series' robust ``noise`` (log standard deviation), runs further than
    ``outlier_sigmas`` of it from their side's median are left out, one run a side at least.
    """
    if not low < index < high:
        raise ValueError(f"change {index} must lie strictly between {low} and {high}")
    sides = []
    for runs in (
        range(max(low, index - config.side_runs), index),
        range(index, min(high, index + config.side_runs)),
    ):
        chosen = list(runs)
        if noise is not None and noise > 0 and len(chosen) > 1:
            logs = np.log(series.medians[chosen])
            far = np.abs(logs - np.median(logs)) > config.outlier_sigmas * noise
            if not far.all():
                chosen = [run for run, out in zip(chosen, far, strict=True) if not out]
        sides.append(chosen)
    return sides[0], sides[1]


def confirm_change(
    series: RunSeries,
    index: int,
    low: int,
    high: int,
    config: ConfirmConfig,
    rng: np.random.Generator,
    noise: float | None = None,
    dependence: float = 1.0,
) -> RatioDraws:
    """The after/before log ratio at ``index`` between neighbouring changes ``low``, ``high``.

    ``noise`` enables the exclusion of outlying runs (:func:`confirmation_runs`);
    ``dependence`` (>= 1) widens the run-level part for autocorrelated runs (module
    docstring).
    """
    sides = []
    for runs in confirmation_runs(series, index, low, high, config, noise):
        levels = run_levels(series, runs, rng, config.resamples)
        side = side_distribution(levels, run_picks(rng, len(levels), config.resamples))
        if dependence > 1.0:
            side = msgspec.structs.replace(side, run_part=side.run_part * dependence)
        sides.append(side)
    return ratio_draws(sides[0], sides[1], config.confidence)


def dependence_for(scan: SeriesScan, side_runs: int, *, levels: bool = False) -> float:
    """The scan's dependence factor ``c_w`` of the widest window within ``side_runs``; with
    ``levels``, that of the runs less their levels and shared slope where the scan has it
    (``SeriesScan.level_dependence``: for a change confirmed less that slope)."""
    factors = scan.level_dependence if levels and scan.level_dependence else scan.dependence
    fitting = [c for w, c in zip(scan.windows, factors, strict=True) if w <= side_runs]
    return max(1.0, fitting[-1]) if fitting else 1.0


def with_slope_error(
    ratio: RatioDraws,
    slope_error: float,
    distance: float,
    rng: np.random.Generator,
    confidence: float,
) -> RatioDraws:
    """``ratio`` of a series less an estimated slope, with that estimate's error carried
    into its draws: the levels' difference is off by the slope's error times ``distance``
    (runs between the centres of the two sides), drawn as a normal of standard deviation
    ``slope_error * distance`` added to each draw (:mod:`._shared_trend`)."""
    spread = abs(slope_error * distance)
    if ratio.draws is None or not spread > 0.0:
        return ratio
    draws = ratio.draws + spread * rng.standard_normal(ratio.draws.size)
    lo, hi = percentile_interval(draws, confidence)
    return msgspec.structs.replace(
        ratio, draws=draws, lo=min(lo, ratio.estimate), hi=max(hi, ratio.estimate)
    )


def status_of(ratio: RatioDraws, tolerance: float) -> Status | None:
    """SLOW or FAST when the interval lies wholly outside the tolerance band, else ``None``."""
    band = classify(ratio.lo, ratio.hi, tolerance)
    if band is Band.ABOVE:
        return Status.SLOW
    if band is Band.BELOW:
        return Status.FAST
    return None


def benjamini_hochberg(p_values: FloatArray, fdr: float) -> tuple[BoolArray, FloatArray]:
    """Rejections of the step-up procedure at level ``fdr`` and the q-values."""
    p = np.asarray(p_values, dtype=np.float64)
    count = p.size
    if count == 0:
        return np.zeros(0, dtype=bool), np.zeros(0)
    order = np.argsort(p, kind="stable")
    scaled = p[order] * count / np.arange(1, count + 1)
    adjusted = np.minimum(np.minimum.accumulate(scaled[::-1])[::-1], 1.0)
    q_values = np.empty(count)
    q_values[order] = adjusted
    rejected: BoolArray = q_values <= fdr
    return rejected, q_values


def group_events(
    changes: Sequence[ConfirmedChange],
    draws: Sequence[FloatArray],
    confidence: float,
) -> tuple[Event, ...]:
    """One event per (commit, status); ``draws[i]`` are the log-ratio draws of ``changes[i]``."""
    groups: dict[tuple[str, Status], list[int]] = {}
    for position, change in enumerate(changes):
        groups.setdefault((change.commit, change.status), []).append(position)
    events = []
    for (commit, status), members in groups.items():
        logs = np.array([math.log(changes[i].ratio) for i in members])
        medians = np.median(np.stack([draws[i] for i in members]), axis=0)
        lo, hi = percentile_interval(medians, confidence)
        center = float(np.median(logs))
        events.append(
            Event(
                commit=commit,
                status=status,
                series=tuple(changes[i].series for i in members),
                ratio=math.exp(center),
                ratio_lo=math.exp(min(lo, center)),
                ratio_hi=math.exp(max(hi, center)),
            )
        )
    events.sort(key=lambda event: (-len(event.series), event.commit, event.status.value))
    return tuple(events)
