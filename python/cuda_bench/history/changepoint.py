"""Change points in series of per-run medians, with a false-alarm rate calibrated per series.

The method, why it fits benchmark histories and its citations are in
``docs/history-detection.md``, its validation on real and synthetic histories and the
experiments behind each stage in ``docs/history-detection-record.md``; this is the map of the
code.

Input
    Each series is the log of its per-run medians in run (commit) order; a change point is
    the index of the first run of a new level. Many series of one length are scanned
    together as an ``(S, N)`` array; every step below is vectorised across series.

A cycle taken out (:mod:`._seasonal`)
    Where the differences correlate at a lag ``P`` beyond what noise gives (a weekly pattern
    of a nightly benchmark), a pattern of ``P`` runs (three harmonics) is subtracted first;
    ``SeriesScan.seasonal`` holds it, and the confirmation compares the same adjusted levels.

Scores (:mod:`._robust`)
    Each series in units of its difference-based noise scale ``1.4826 MAD(diff) / sqrt(2)``
    (which level shifts and trends do not inflate), winsorised at 3 scales around its
    11-run running median (a reverting outlier contributes at most 3 scales to a window),
    or at an edge around the nearer side's 5-run median (an outlier beside a step no longer
    moves the step a run early).

Statistic: multiscale moving sums (MOSUM)
    For each window ``w`` (5, 10, 20, 40 runs) and position ``t``, the difference of the
    mean scores of the ``min(w, t)`` runs before and the ``min(w, N - t)`` after, over
    ``sqrt(1/wl + 1/wr)`` (Eichinger & Kirch 2018, Bernoulli 24:526): local comparisons, so
    a trend or a shift elsewhere in the series does not mask a step. Each window's
    ``|z_w|`` is divided by its standard deviation under the series' own null (below).

Segmentation: bottom-up merging across scales (:mod:`._merge_scales`)
    Per window, the maximum of each run of exceedances of the threshold is a candidate;
    windows are visited from the smallest, and a candidate is kept only if no kept change
    lies within ``w`` runs (Messer et al. 2014; Meier, Kirch & Cho 2021). Kept changes are
    relocated to the CUSUM maximum between their neighbours. Finally a change must be a step,
    not a stretch of a slow trend (a line plus the step is preferred to the line alone by the
    Schwarz criterion) nor a creep (a ramp of ``min_segment`` runs or more does not fit
    significantly better than a step): :func:`._shapes.steps_and_creeps`, :mod:`._gradual`, with
    the AR(1) correlation of the series less the means between its changes (its own steps
    would raise it), pooled across series (:func:`._robust.pooled_correlation`); so every
    chunk of series is segmented before any is judged. A change that fails the choice over
    the full reach is judged again on the runs its placing window compared. Where 20 or
    more series are scanned together (the correlation pooled), a change the choice sets
    aside (no creep) is kept where a model of the whole series (levels, one slope, AR(1)
    noise with the pooled correlation) gives its step the segmentation's penalty and the
    step fits better than a bend of the slope (:mod:`._whole_series`); then a penalised
    segmentation of the decorrelated scores proposes further changes in the series with
    changes, each kept where the choice or that model keeps it (:mod:`._ar1_segment`).
    Then each stretch between the kept changes is searched by binary segmentation
    (:mod:`._refine`); last, where there are 20 or more series, the model of the whole
    series searches each series with changes for further steps, each step's ``t^2`` held
    to a penalty calibrated for a search over every run (the order of
    :func:`._refine.steps_between`). Last, each step is placed at the AR(1) least-squares
    split of the runs within the widest window of it (:mod:`._ar1_place`).

Threshold calibrated to a false-alarm rate per series
    ``alpha_N = 1 - (1 - alpha)^(N / rate_runs)`` for a series of ``N`` runs (1 % per 200).

    1. *Independent null.* The distribution of ``T = max_(w,t) |z_w(t)|`` for independent
       normal noise scored the same way, simulated once per length; its tail beyond the
       95th percentile is extrapolated as exponential (peaks over threshold, Pickands 1975).
    2. *The series' own noise.* Each series' residual scores (around the current
       segmentation) are resampled by the circular block bootstrap (Kunsch 1989; Politis &
       Romano 1992; blocks of ``round(2 N^(1/3))`` runs, the order of Hall, Horowitz & Jing
       1995); from the replicates come each window's null standard deviation (never less
       than that of AR(1) noise with a lower confidence bound of the lag-one correlation
       the differences show, around the changes found once there are some, pooled across
       the series like the step-versus-trend choice's: :func:`._robust.pooled_lower_bound`,
       :func:`._robust.ar1_window_scale`) and the location and scale of ``T``, onto which
       the independent null is moved. The threshold is the
       ``1 - alpha_N`` quantile of that null, never below the independent one.
    3. *Iterated with the segmentation.* The first residuals remove one step at the split
       of largest CUSUM or, where a preliminary segmentation (the independent threshold,
       each window scaled by the AR(1) floor) finds two or more changes, its steps; every
       step soft-thresholded by what stationary noise reaches there (Donoho & Johnstone
       1994; the 95 % point 1.358 of the supremum of a Brownian bridge): several shifts
       are removed, pure noise keeps its spread. Then calibration and segmentation
       alternate around the changes found until they stay put (at most 3 more rounds),
       each round's null fitted around its changes and
       the previous round's, so a change one round loses does not widen the next null (a
       second round that loses every change the first found is calibrated once more with
       the preliminary steps out too, soft-thresholded, as the first null had them, where
       the model of the whole series shows one of them: :mod:`._whole_series`; where
       every change stays lost, those that model keeps come back, :mod:`._refine`). The
       last ``min_segment - 1`` runs are centred apart, so a shift too recent to place does
       not raise its own bar.

Candidates (:mod:`._tail`)
    A shift of the last 2..``min_segment - 1`` runs tested against the same threshold.

Reported per series
    The threshold, its false-alarm rate, the p-value of the largest statistic and of each
    change (from the series' null; what a false-discovery control across series needs),
    the dependence factors ``c_w``, the robust noise ``1.4826 MAD`` of the residual log
    medians, the smallest relative step the best window detects with probability ``power``
    (``(threshold + z_power) * scale_w * s_d * sqrt(2 / w)``, ``s_d`` the difference scale;
    a normal-theory approximation), and the candidate.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Final, TypeVar

import msgspec
import msgspec.structs
import numpy as np

# At run time too (numpy is loaded here anyway), so that typing.get_type_hints, pydoc and
# inspect.signature resolve the annotations.
from .._arrays import FloatArray
from ..compare.bootstrap import MAD_TO_SD
from ._ar1_segment import MIN_SERIES, penalty, proposals
from ._gradual import less_line
from ._merge_scales import changes_across_scales, exceeds_threshold, largest_statistic
from ._moving_sums import (
    MovingWindow,
    normal_scores,
    window_geometry,
    window_statistics,
)
from ._null import (
    Calibration,
    NullDistribution,
    calibrate,
    exchangeable_null,
    series_false_alarm_rate,
)
from ._refine import StretchNull, steps_between
from ._robust import (
    ar1_window_scale,
    correlation_lower_bound,
    difference_correlation,
    difference_scale,
    pooled_correlation,
    pooled_lower_bound,
    robust_scores,
)
from ._scan_config import ScanConfig
from ._scan_result import Change, Creep, SeriesScan
from ._seasonal import seasonal_patterns, without_patterns
from ._shapes import (
    FoundCreep,
    residuals,
    shrunk_split_residuals,
    shrunk_steps_residuals,
)
from ._shared_trend import level_dependence
from ._tail import belongs_to_tail, tail_apart, tail_candidate
from ._whole_series import SEARCH_PENALTY, shows_a_step

__all__ = [
    "Change",
    "Creep",
    "NullDistribution",
    "ScanConfig",
    "SeriesScan",
    "exchangeable_null",
    "normal_scores",
    "scan",
    "series_false_alarm_rate",
]

_T = TypeVar("_T")

#: Further rounds of calibration around the changes found, then segmentation.
_SEGMENT_PASSES: Final = 3


# ---------------------------------------------------------------------------------------------
# The scan


def scan(log_medians: FloatArray, config: ScanConfig | None = None) -> tuple[SeriesScan, ...]:
    """Change points of each row of ``log_medians`` (``(S, N)``, finite), with calibration.

    Deterministic for a given ``config.seed``: series ``i`` draws its resamples from
    ``SeedSequence([seed, i])``, whatever the chunking or the number of workers. The rows
    share their lag-one correlations (off with ``config.pool_correlation``): the one the
    step-versus-trend choice widens its test by, estimated per row around the changes its
    segmentation found, is pooled across them (:func:`._robust.pooled_correlation`); and the
    one the AR(1) floor of each row's null takes is a lower bound pooled across them
    (:func:`._robust.pooled_lower_bound`; in the later calibration rounds across the rows
    of a chunk that have changes, so a result depends on the chunking, which the
    configuration fixes, never on the workers); all else is per row.

    ``config`` of another type (a :class:`.ConfirmConfig`, a dict) raises a TypeError
    naming it, as :func:`.detect` does.
    """
    if config is not None and not isinstance(config, ScanConfig):
        raise TypeError(f"config must be a ScanConfig or None, got {config!r:.80}")
    config = ScanConfig() if config is None else config
    values = np.asarray(log_medians, dtype=np.float64)
    if values.ndim != 2:
        raise ValueError(f"log_medians must be 2-D (series, runs), got shape {values.shape}")
    if not np.isfinite(values).all():
        raise ValueError("log_medians must be finite")
    count, runs = values.shape
    windows = window_geometry(runs, config.windows, config.min_segment)
    if not windows or count == 0:
        empty = SeriesScan(runs, (), math.inf, 0.0, 1.0, math.inf, math.nan, (), ())
        return tuple(empty for _ in range(count))
    # A cycle is neither noise nor a change: out before anything is estimated (:mod:`._seasonal`).
    patterns = seasonal_patterns(values) if config.seasonal else ((),) * count
    values = without_patterns(values, patterns)
    null = exchangeable_null(runs, config)
    chunk = max(1, 8192 // config.null_resamples)
    starts = list(range(0, count, chunk))
    # The floor of each row's null takes a lower confidence bound of its correlation,
    # pooled across the rows like the step-versus-trend choice's (docs/history-detection.md;
    # the measurements in docs/history-detection-record.md, *The calibration's residuals*).
    lower = _floor_correlation(difference_correlation(values, clipped=False), runs, config)

    def segment(start: int) -> _Segmented:
        rows = slice(start, start + chunk)
        return _segment_chunk(values[rows], start, windows, null, config, lower[rows])

    segmented = dict(zip(starts, _each(segment, starts, config.workers), strict=True))
    # The correlation the step-versus-trend choice uses comes from the differences around
    # the changes found: a level shift is one large first difference but two large second
    # differences, so the series' own steps would raise it (docs/history-detection-record.md,
    # *The correlation, around the changes*).
    own = np.concatenate([part.correlation() for part in segmented.values()])
    rho = pooled_correlation(own, runs) if config.pool_correlation else own

    def finish(start: int) -> list[SeriesScan]:
        return _finish_chunk(
            segmented[start], rho[start : start + chunk], windows, null, config, count
        )

    results = (result for part in _each(finish, starts, config.workers) for result in part)
    return tuple(
        msgspec.structs.replace(result, seasonal=pattern) if pattern else result
        for result, pattern in zip(results, patterns, strict=True)
    )


def _each(work: Callable[[int], _T], items: list[int], workers: int) -> list[_T]:
    """``work`` over ``items`` in order, on ``workers`` threads where there are several."""
    if workers == 1 or len(items) <= 1:
        return [work(item) for item in items]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(work, items))


class _Segmented(msgspec.Struct, frozen=True):
    """A chunk of rows after calibration and segmentation, before the step-versus-trend
    choice (which waits for the correlation pooled across every chunk)."""

    values: FloatArray
    scores: FloatArray
    generators: list[np.random.Generator]
    floor: FloatArray
    found: list[list[tuple[int, int, float]]]
    calibrations: list[Calibration]
    #: Each row's largest normalised statistic.
    largest: list[float]
    #: Per row, the first round's changes where a later round's null lost them all (else
    #: empty).
    lost: list[list[int]]

    def correlation(self) -> FloatArray:
        """Each row's lag-one correlation from its values less the means between its changes."""
        return _correlation_around(self.values, self.found)


def _correlation_around(
    values: FloatArray, found: Sequence[Sequence[tuple[int, int, float]]], *, clipped: bool = True
) -> FloatArray:
    """The lag-one correlation of each row of ``values`` less the means between its
    changes (``found``, one list per row)."""
    around = [
        residuals(line, [index for index, _, _ in changes])
        for line, changes in zip(values, found, strict=True)
    ]
    return difference_correlation(np.stack(around), clipped=clipped)


def _floor_correlation(rho: FloatArray, runs: int, config: ScanConfig) -> FloatArray:
    """The correlation the floor of each row's null takes: a lower confidence bound of
    ``rho`` (unclipped estimates), pooled across the rows unless configured not to."""
    if config.pool_correlation:
        return pooled_lower_bound(rho, runs)
    return correlation_lower_bound(np.clip(rho, 0.0, 0.9), runs)


def _segment_chunk(
    values: FloatArray,
    first: int,
    windows: Sequence[MovingWindow],
    null: NullDistribution,
    config: ScanConfig,
    lower: FloatArray,
) -> _Segmented:
    """Calibrate and segment a chunk of rows; ``lower`` is the lower confidence bound of
    their lag-one correlations, which the AR(1) floor of their nulls takes."""
    count, runs = values.shape
    generators = [
        np.random.default_rng(np.random.SeedSequence([config.seed, first + row]))
        for row in range(count)
    ]
    scores = robust_scores(values, config.min_segment)
    # The floor takes the correlation's lower confidence bound: the estimate is noisy, and
    # the floor is convex in it, so the estimate itself would raise the bar on average.
    floor = ar1_window_scale(lower, [w.width for w in windows])
    stats = [np.asarray(z, dtype=np.float64) for z in window_statistics(scores, windows)]
    first_pass = shrunk_split_residuals(scores, config.min_segment)
    # Several level shifts: a preliminary segmentation at the independent threshold, each
    # window scaled by the AR(1) floor, its steps soft-thresholded like the single split's.
    base = null.threshold(config)
    # The preliminary steps the first null was fitted around (soft-thresholded).
    preliminary: dict[int, list[int]] = {}
    for row in range(count):
        # Scores are in units of the difference scale: independent noise has spread 1.
        naive = Calibration(floor[row], np.ones(len(windows)), 0.0, 1.0, base)
        if exceeds_threshold(stats, row, naive):
            rows = [z[row] for z in stats]
            preliminary_changes = changes_across_scales(rows, windows, scores[row], naive, config)
            points = [c[0] for c in preliminary_changes]
            if len(points) > 1:
                first_pass[row] = shrunk_steps_residuals(scores[row], points)
                preliminary[row] = points
    calibrations = calibrate(
        tail_apart(first_pass, config.min_segment), generators, windows, null, config, floor
    )
    found = [
        changes_across_scales(
            [z[row] for z in stats], windows, scores[row], calibrations[row], config
        )
        if exceeds_threshold(stats, row, calibrations[row])
        else []
        for row in range(count)
    ]
    first_found = [[c[0] for c in changes] for changes in found]
    # Iterate calibration and segmentation: the null of the stretches between the changes
    # found, then the changes under that null, until the changes stay put.
    again = [row for row in range(count) if found[row]]
    # Each round's null is fitted around its changes and those the round before had: a
    # change a round loses would otherwise leave its step in the next round's residuals,
    # widen that null, lose more changes, and so on until none is left (a staircase of 3, 5
    # and 10 % steps in independent noise ended with no change; docs/history-detection-record.md).
    before: dict[int, list[int]] = {}
    for round_number in range(_SEGMENT_PASSES):
        if not again:
            break
        around = np.stack(
            [
                residuals(scores[row], _with_lost(found[row], before.get(row, []), config))
                for row in again
            ]
        )
        # The floor too, from the correlation around the changes (see :func:`scan`). A row
        # that then loses every change keeps this floor, which only a lost change that
        # comes back uses (:func:`._refine.steps_between`; the summary reads the
        # calibration). (Pooled across the rows of this chunk that have changes.)
        near = _correlation_around(values[again], [found[row] for row in again], clipped=False)
        floor[again] = ar1_window_scale(
            _floor_correlation(near, runs, config), [w.width for w in windows]
        )
        around = tail_apart(around, config.min_segment)
        second = calibrate(
            around, [generators[r] for r in again], windows, null, config, floor[again]
        )
        moved = []
        for row, calibration in zip(again, second, strict=True):
            calibrations[row] = calibration
            rows = [z[row] for z in stats]
            before[row] = [c[0] for c in found[row]]
            found[row] = changes_across_scales(rows, windows, scores[row], calibration, config)
            lost_all = not found[row] and round_number == 0
            apart = _apart(preliminary.get(row, []), before[row], config) if lost_all else []
            if apart and shows_a_step(
                values[row], scores[row], before[row], apart, penalty=SEARCH_PENALTY
            ):
                # Every change lost at once: the first null had the preliminary steps out
                # (soft-thresholded), this one only the changes found. Where the model of
                # the whole series shows one of those steps, this null holds it: so once
                # more with those steps out as the first null had them
                # (docs/history-detection.md).
                rest = shrunk_steps_residuals(residuals(scores[row], before[row]), apart)
                calibration = calibrate(
                    tail_apart(rest[None, :], config.min_segment),
                    [generators[row]],
                    windows,
                    null,
                    config,
                    floor[[row]],
                )[0]
                calibrations[row] = calibration
                found[row] = changes_across_scales(rows, windows, scores[row], calibration, config)
            if found[row] and [c[0] for c in found[row]] != before[row]:
                moved.append(row)
        again = moved
    peaks = [largest_statistic(stats, row, calibrations[row]) for row in range(count)]
    lost = [first_found[row] if not found[row] else [] for row in range(count)]
    return _Segmented(values, scores, generators, floor, found, calibrations, peaks, lost)


def _apart(preliminary: Sequence[int], changes: Sequence[int], config: ScanConfig) -> list[int]:
    """The ``preliminary`` steps at least ``min_segment`` runs from every one of ``changes``."""
    return [p for p in preliminary if all(abs(p - c) >= config.min_segment for c in changes)]


def _with_lost(
    found: Sequence[tuple[int, int, float]], before: Sequence[int], config: ScanConfig
) -> list[int]:
    """The changes a round's null is fitted around: ``found`` and those of the round
    before (``before``) that lie at least ``min_segment`` runs from every one of them."""
    now = [index for index, _, _ in found]
    lost = [index for index in before if all(abs(index - n) >= config.min_segment for n in now)]
    return sorted([*now, *lost])


def _finish_chunk(
    part: _Segmented,
    rho: FloatArray,
    windows: Sequence[MovingWindow],
    null: NullDistribution,
    config: ScanConfig,
    scanned: int,
) -> list[SeriesScan]:
    """Steps told from trends and creeps, the steps between them, and each row's summary;
    ``rho`` the correlations the step-versus-trend choice uses (pooled, unless configured
    not to); ``scanned`` series scanned together."""
    values, scores, generators, floor = part.values, part.scores, part.generators, part.floor
    count = values.shape[0]
    spread = difference_scale(values)
    reach = max(window.width for window in windows)

    def stretch_null(calibration: Calibration) -> StretchNull:
        return StretchNull(
            float(np.max(calibration.scale)),
            calibration.threshold,
            lambda statistic: calibration.p_value(statistic, null),
        )

    def recalibrated(row: int) -> Callable[[list[int]], StretchNull]:
        def calibrated(changes: list[int]) -> StretchNull:
            # Less their straight line too: the binary segmentation's proposals, like the
            # scan's changes, face the step-versus-trend choice, so a slow trend need not
            # also widen the null of the noise (docs/history-detection.md).
            rest = less_line(shrunk_steps_residuals(scores[row], sorted(changes))[None, :])
            rest = tail_apart(rest, config.min_segment)
            return stretch_null(
                calibrate(rest, [generators[row]], windows, null, config, floor[[row]])[0]
            )

        return calibrated

    # Never below the AR(1) floor's widest scale times the independent null's threshold.
    base = null.threshold(config)
    least = floor.max(axis=1) * base
    proposing = config.penalised_proposals and config.pool_correlation and scanned >= MIN_SERIES
    extra = (
        proposals(
            scores,
            rho,
            part.found,
            [float(np.max(c.scale)) for c in part.calibrations],
            reach=reach,
            min_segment=config.min_segment,
        )
        if proposing
        else [[] for _ in range(count)]
    )
    split = [
        steps_between(
            part.found[row],
            scores[row],
            values[row],
            scanned=stretch_null(part.calibrations[row]),
            around=recalibrated(row),
            least=float(least[row]),
            rho=float(rho[row]),
            reach=reach,
            min_segment=config.min_segment,
            proposals=extra[row],
            # Pure noise gets a proposal only where the scan (its first round, at least) found
            # a change: at most this often.
            proposal_p_value=series_false_alarm_rate(values.shape[1], config),
            # The whole-series model needs the pooled correlation, as the proposals do.
            whole_series_penalty=penalty(values.shape[1]) if proposing else None,
            search_penalty=SEARCH_PENALTY if proposing else None,
            lost=part.lost[row],
        )
        for row in range(count)
    ]
    summaries = [
        _summary(
            values[row],
            part.largest[row],
            windows,
            split[row],
            part.calibrations[row],
            null,
            config,
            float(spread[row]),
        )
        for row in range(count)
    ]
    return [
        msgspec.structs.replace(
            result,
            level_dependence=level_dependence(
                scores[row], result, generators[row], windows, null, config, floor[[row]]
            ),
        )
        if result.changes and not result.creeps
        else result
        for row, result in enumerate(summaries)
    ]


def _summary(
    values: FloatArray,
    largest: float,
    windows: Sequence[MovingWindow],
    split: tuple[list[tuple[int, int, float]], dict[int, float], list[FoundCreep]],
    calibration: Calibration,
    null: NullDistribution,
    config: ScanConfig,
    spread: float,
) -> SeriesScan:
    # Changes binary segmentation added carry the p-value of the null that accepted them.
    found, p_values, creeps = split
    runs = values.size
    # Around the changes and the creeps' levels, their ramps left out (a ramp is no noise).
    bounds = sorted({index for index, _, _ in found} | {i for c in creeps for i in c[:2]})
    rest = residuals(values, bounds, median=True)
    on_ramp = np.zeros(runs, dtype=bool)
    for first, end, _ in creeps:
        on_ramp[first:end] = True
    rest = rest[~on_ramp]
    noise = MAD_TO_SD * float(np.median(np.abs(rest - np.median(rest))))
    reach = calibration.threshold + statistics.NormalDist().inv_cdf(config.power)
    steps = [
        reach * factor * spread * math.sqrt(2.0 / window.width)
        for window, factor in zip(windows, calibration.scale, strict=True)
        if 2 * window.width <= runs
    ]
    changes = tuple(
        Change(index, width, value, p_values.get(index, calibration.p_value(value, null)))
        for index, width, value in found
    )
    if found and belongs_to_tail(values, found, config.min_segment):
        found = found[:-1]
        changes = changes[:-1]
    tail = tail_candidate(
        values,
        # The current level begins at the last change or the end of the last creep.
        max([found[-1][0] if found else 0, *(end for _, end, _ in creeps)]),
        min_segment=config.min_segment,
        reach=max(window.width for window in windows),
        spread=spread,
        dependence=float(calibration.dependence[0]),
        threshold=calibration.threshold,
    )
    candidate = (
        None
        if tail is None
        else Change(tail[0], runs - tail[0], tail[1], calibration.p_value(tail[1], null))
    )
    return SeriesScan(
        runs=runs,
        changes=changes,
        threshold=calibration.threshold,
        false_alarm_rate=series_false_alarm_rate(runs, config),
        p_value=calibration.p_value(largest, null),
        smallest_change=math.expm1(min(steps)) if steps else math.inf,
        noise=noise,
        dependence=tuple(float(c) for c in calibration.dependence),
        windows=tuple(window.width for window in windows),
        candidate=candidate,
        creeps=tuple(
            Creep(first, end, Change(*change, calibration.p_value(change[2], null)))
            for first, end, change in creeps
        ),
    )
