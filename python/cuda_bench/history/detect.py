"""Change points over many series: scan, false-discovery control, confirmation, events.

The steps and their statistics are documented where they live: the calibrated scan in
:mod:`.changepoint`, the two-level bootstrap confirmation, the Benjamini-Hochberg control
and the grouping into events in :mod:`.confirm`. Series of equal length are scanned
together (vectorised); a series' changes are confirmed in run order with the neighbouring
changes of the scan as the limits of each side, and a change that fails is confirmed again
without the neighbours that show no evidence of a change (:func:`confirmed_changes`). A
change too recent for the scan to place is reported as a :class:`~.model.Candidate`
(:mod:`._tail`): it takes part in the false-discovery control like a change, and its change
so far is bootstrapped like one. So
does a change the scan found that took many runs (a :class:`~.model.ConfirmedCreep`): its
new level is bootstrapped against its old one, the runs of its ramp left out.

Runs without a value (a NaN median: a missing run) are left out of the scan and the
confirmation; indices and labels stay those of the series. An infinite or non-positive
median is refused by :class:`~.model.RunSeries` (give a timer's zero as NaN).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Final, NamedTuple

import msgspec.structs
import numpy as np

# At run time too (numpy is loaded here anyway), so that typing.get_type_hints, pydoc and
# inspect.signature resolve the annotations.
from .._arrays import FloatArray, IntArray
from ..compare.bootstrap import RatioDraws
from ..compare.model import Status
from ._cycle_runs import less_cycle
from ._excursions import without_short_excursions
from ._shared_trend import Detrended, less_shared_trend
from .changepoint import ScanConfig, SeriesScan, scan
from .confirm import (
    ConfirmConfig,
    benjamini_hochberg,
    confirm_change,
    confirmation_runs,
    dependence_for,
    group_events,
    status_of,
    with_slope_error,
)
from .model import Candidate, ConfirmedChange, ConfirmedCreep, Detection, RunSeries

__all__ = ["detect"]


def _present(one: RunSeries) -> tuple[RunSeries, IntArray]:
    """``one`` without its missing runs, and the series index of each run kept."""
    medians = np.asarray(one.medians, dtype=np.float64)
    keep = np.flatnonzero(np.isfinite(medians) & (medians > 0))
    return (one if keep.size == medians.size else _subset(one, keep)), keep


def _subset(one: RunSeries, keep: IntArray) -> RunSeries:
    """``one`` with only the runs ``keep`` (their medians, samples, intervals and labels)."""
    lo, hi = one.median_lo, one.median_hi
    return msgspec.structs.replace(
        one,
        medians=np.asarray(one.medians)[keep],
        samples=None if one.samples is None else tuple(one.samples[i] for i in keep),
        median_lo=None if lo is None else np.asarray(lo)[keep],
        median_hi=None if hi is None else np.asarray(hi)[keep],
        labels=tuple(one.label(int(i)) for i in keep),
    )


def adjusted(one: RunSeries, result: SeriesScan) -> RunSeries:
    """``one`` less the cycle its scan took out (:mod:`._seasonal`), so the confirmation
    compares the levels the scan compared; ``one`` itself where there was none."""
    return less_cycle(one, result.seasonal)


def _scans(series: Sequence[RunSeries], config: ScanConfig) -> list[SeriesScan]:
    """Scan every series, those of one length together."""
    by_length: dict[int, list[int]] = {}
    for position, one in enumerate(series):
        by_length.setdefault(one.runs, []).append(position)
    out: list[SeriesScan | None] = [None] * len(series)
    for members in by_length.values():
        logs = np.log(np.stack([series[i].medians for i in members]))
        for position, result in zip(members, scan(logs, config), strict=True):
            out[position] = result
    return [result for result in out if result is not None]


def _checked_arguments(
    series: object, scan_config: object, confirm_config: object
) -> list[RunSeries]:
    """``series`` as a list, refused (with the settings) unless each is what it must be:
    a string or an array failed with an AttributeError on ``missing``, and settings given
    the wrong way round on ``windows``."""
    if isinstance(series, str | bytes | RunSeries) or not isinstance(series, Iterable):
        raise TypeError(f"series must be a sequence of RunSeries, got {series!r:.80}")
    given = list(series)
    for position, one in enumerate(given):
        if not isinstance(one, RunSeries):
            raise TypeError(
                f"series[{position}] must be a RunSeries (RunSeries(key, medians)), got "
                f"{type(one).__name__}"
            )
    for name, value, kind in (
        ("scan_config", scan_config, ScanConfig),
        ("confirm_config", confirm_config, ConfirmConfig),
    ):
        if value is not None and not isinstance(value, kind):
            raise TypeError(f"{name} must be a {kind.__name__} or None, got {value!r:.80}")
    return given


def detect(
    series: Sequence[RunSeries],
    scan_config: ScanConfig | None = None,
    confirm_config: ConfirmConfig | None = None,
) -> Detection:
    """Detect, control and confirm the change points of ``series`` (module docstring).

    Keys must be unique. Deterministic for given seeds. Missing runs (NaN medians) are
    left out of the detection and the changes keep the series' own run indices. Arguments
    of the wrong type raise a TypeError naming the parameter.
    """
    series = _checked_arguments(series, scan_config, confirm_config)
    if any(one.missing for one in series):
        from ._missing import detect_observed

        return detect_observed(detect, series, scan_config, confirm_config)
    scan_config = ScanConfig() if scan_config is None else scan_config
    confirm_config = ConfirmConfig() if confirm_config is None else confirm_config
    keys = [one.key for one in series]
    if len(set(keys)) != len(keys):
        raise ValueError("series keys must be unique")
    present = [_present(one) for one in series]
    compact = [one for one, _ in present]
    scans = _scans(compact, scan_config)
    # Confirmed on the levels the scan compared: less a cycle it took out.
    compact = [adjusted(one, result) for one, result in zip(compact, scans, strict=True)]
    # Hypotheses: each change, creep and candidate, or the largest statistic of a series
    # without; each as (series, kind, number).
    owners: list[tuple[int, str, int]] = []
    p_values: list[float] = []
    for position, result in enumerate(scans):
        for number, change in enumerate(result.changes):
            owners.append((position, "change", number))
            p_values.append(change.p_value)
        for number, creep in enumerate(result.creeps):
            owners.append((position, "creep", number))
            p_values.append(creep.change.p_value)
        if result.candidate is not None:
            owners.append((position, "candidate", 0))
            p_values.append(result.candidate.p_value)
        if not (result.changes or result.creeps or result.candidate is not None):
            owners.append((position, "none", 0))
            p_values.append(result.p_value)
    rejected, q_values = benjamini_hochberg(np.array(p_values), confirm_config.fdr)
    kept: list[ConfirmedChange] = []
    creeps: list[ConfirmedCreep] = []
    candidates: list[Candidate] = []
    draws: list[FloatArray] = []
    # The changes past the false-discovery control, per series, with their q-values.
    passed: dict[int, list[tuple[int, float]]] = {}
    tested = 0
    for (owner, kind, which), reject, q_value in zip(owners, rejected, q_values, strict=True):
        result, runs = scans[owner], present[owner][1]
        if kind == "candidate" and reject:
            found = _candidate(
                compact[owner], result, owner, runs, confirm_config, scan_config.min_segment
            )
            if found is not None:
                candidates.append(msgspec.structs.replace(found, q_value=float(q_value)))
        if kind not in ("change", "creep"):
            continue
        tested += 1
        if not reject:
            continue
        if kind == "creep":
            moved = _confirmed_creep(compact[owner], result, owner, which, runs, confirm_config)
            if moved is not None:
                creeps.append(msgspec.structs.replace(moved, q_value=float(q_value)))
            continue
        passed.setdefault(owner, []).append((which, float(q_value)))
    for owner, changes in passed.items():
        confirmed = confirmed_changes(
            compact[owner],
            scans[owner],
            owner,
            changes,
            present[owner][1],
            confirm_config,
            min_segment=scan_config.min_segment,
        )
        kept += [change for change, _ in confirmed]
        draws += [ratio_draws for _, ratio_draws in confirmed]
    return Detection(
        scans=tuple(zip(keys, scans, strict=True)),
        changes=tuple(kept),
        events=group_events(kept, draws, confirm_config.confidence),
        rejected=tested - len(kept) - len(creeps),
        fdr=confirm_config.fdr,
        tolerance=confirm_config.tolerance,
        candidates=tuple(candidates),
        creeps=tuple(creeps),
        fewest_runs=scan_config.fewest_runs,
    )


def _without_short_excursions(
    one: RunSeries,
    result: SeriesScan,
    runs: IntArray,
    confirmed: list[tuple[ConfirmedChange, FloatArray]],
    min_segment: int,
) -> list[tuple[ConfirmedChange, FloatArray]]:
    """``confirmed`` less the pairs that bracket an excursion shorter than a level."""
    if len(confirmed) < 2:
        return confirmed
    # Confirmed changes carry the series' own run indices; the scan's are of the runs kept.
    places = [int(np.searchsorted(runs, change.index)) for change, _ in confirmed]
    kept = without_short_excursions(
        np.log(np.asarray(one.medians, dtype=np.float64)),
        places,
        result.noise,
        min_segment,
    )
    left = set(kept)
    return [item for item, place in zip(confirmed, places, strict=True) if place in left]


#: The scan's default ``min_segment``, for callers of :func:`confirmed_changes` that scan
#: with the default configuration (the quality benchmarks).
_MIN_SEGMENT: Final = ScanConfig().min_segment


class _Judgement(NamedTuple):
    """A change's confirmation, or ``None``, and whether its interval holds a ratio of 1 (no
    evidence of any change, as against a change inside the tolerance band)."""

    confirmed: tuple[ConfirmedChange, FloatArray] | None
    holds_one: bool


def confirmed_changes(
    one: RunSeries,
    result: SeriesScan,
    owner: int,
    changes: Sequence[tuple[int, float]],
    runs: IntArray,
    config: ConfirmConfig,
    *,
    min_segment: int = _MIN_SEGMENT,
) -> list[tuple[ConfirmedChange, FloatArray]]:
    """The bootstrap confirmations of a series' ``changes`` (numbers into the scan's, with
    their q-values), in run order, ``one`` as the scan saw it (less its cycle:
    :func:`adjusted`), less two that bracket an excursion shorter than ``min_segment`` runs
    (:mod:`._excursions`: judged on confirmed changes, so that a false change beside a true
    one, which its confirmation sets aside, does not take the true one with it). Each is
    confirmed between its neighbouring changes. One that fails is tried again, largest
    statistic first, until none more passes, without the neighbours that show no evidence
    of any change (not confirmed, their interval holding a ratio of 1): they bound no
    level, and a change beside one was judged on the runs between the two (a false change
    5 runs from a true one left it 5 runs a side). A neighbour that moved the level by less
    than the tolerance still bounds one."""
    q_values = dict(changes)
    judged = {which: _judged(one, result, owner, which, runs, config) for which in q_values}
    done = {k: j.confirmed for k, j in judged.items() if j.confirmed is not None}

    def empty(number: int) -> bool:
        if number not in judged:
            judged[number] = _judged(one, result, owner, number, runs, config)
        return judged[number].confirmed is None and judged[number].holds_one

    retried = True
    while retried and len(done) < len(q_values):
        retried = False
        failed = sorted(set(q_values) - set(done), key=lambda k: -result.changes[k].statistic)
        for which in failed:
            others = [k for k in range(len(result.changes)) if k != which and k not in done]
            dropped = {k for k in others if empty(k)}
            if not dropped:
                continue
            numbers = [k for k in range(len(result.changes)) if k not in dropped]
            fewer = msgspec.structs.replace(
                result, changes=tuple(result.changes[k] for k in numbers)
            )
            found = _judged(one, fewer, owner, numbers.index(which), runs, config).confirmed
            if found is not None:
                done[which] = found
                retried = True
                break
    confirmed = [
        (msgspec.structs.replace(done[k][0], q_value=q_values[k]), done[k][1]) for k in sorted(done)
    ]
    return _without_short_excursions(one, result, runs, confirmed, min_segment)


def _judged(
    one: RunSeries,
    result: SeriesScan,
    owner: int,
    which: int,
    runs: IntArray,
    config: ConfirmConfig,
) -> _Judgement:
    """The bootstrap confirmation of change ``which`` of a series (``q_value`` left 0)."""
    change = result.changes[which]
    low, high = _limits(result, change.index, change.index, one.runs, change=which)
    ratio, before, after = change_ratio(
        one, result, change.index, (low, high), config, [owner, change.index]
    )
    status = status_of(ratio, config.tolerance)
    if status is None or ratio.draws is None:
        return _Judgement(None, ratio.ratio_lo <= 1.0 <= ratio.ratio_hi)
    confirmed = ConfirmedChange(
        series=one.key,
        index=int(runs[change.index]),
        commit=one.label(change.index),
        status=status,
        ratio=ratio.ratio,
        ratio_lo=ratio.ratio_lo,
        ratio_hi=ratio.ratio_hi,
        p_value=change.p_value,
        q_value=0.0,
        window=change.window,
        runs_before=before,
        runs_after=after,
    )
    return _Judgement((confirmed, ratio.draws), False)


def change_ratio(
    one: RunSeries,
    result: SeriesScan,
    index: int,
    limits: tuple[int, int],
    config: ConfirmConfig,
    seed: list[int],
) -> tuple[RatioDraws, int, int]:
    """The confirmation of a scanned change at run ``index`` (as :func:`_bootstrap`): on the
    series less the drift its levels share, that estimate's error carried, with the
    dependence of the runs about those levels (:mod:`._shared_trend`)."""
    level = less_shared_trend(one, result)
    return _bootstrap(level.series, result, index, limits, config, seed, detrended=level)


def _bootstrap(
    one: RunSeries,
    result: SeriesScan,
    index: int,
    limits: tuple[int, int],
    config: ConfirmConfig,
    seed: list[int],
    *,
    detrended: Detrended | None = None,
) -> tuple[RatioDraws, int, int]:
    """The after/before ratio at run ``index`` of ``one`` between the runs ``limits``
    (:func:`.confirm.confirm_change`, with the scan's noise and dependence), and how many
    runs each side compared; ``seed`` (after the configured one) names the draw. With
    ``detrended`` (``one`` is its series, less its levels' shared slope) the dependence is
    that about the levels and the slope's error is carried (:mod:`._shared_trend`)."""
    low, high = limits
    rng = np.random.default_rng(np.random.SeedSequence([config.seed, *seed]))
    levels = detrended is not None
    dependence = dependence_for(result, config.side_runs, levels=levels)
    ratio = confirm_change(one, index, low, high, config, rng, result.noise, dependence)
    before, after = confirmation_runs(one, index, low, high, config, result.noise)
    if detrended is not None:
        distance = detrended.error_distance(before, after)
        ratio = with_slope_error(ratio, detrended.slope_error, distance, rng, config.confidence)
    return ratio, len(before), len(after)


def _limits(
    result: SeriesScan,
    first: int,
    end: int,
    runs: int,
    *,
    change: int | None = None,
    creep: int | None = None,
) -> tuple[int, int]:
    """The runs a level change from run ``first`` to run ``end`` is confirmed over: from the
    start of the level before it (the previous change, or the end of the previous creep) to
    the end of the level after it (the next change, or the start of the next creep); the
    series' change number ``change`` or creep number ``creep`` (the one confirmed) apart."""
    starts = [one.index for k, one in enumerate(result.changes) if k != change]
    ends = list(starts)
    starts += [one.end for k, one in enumerate(result.creeps) if k != creep]
    ends += [one.first for k, one in enumerate(result.creeps) if k != creep]
    return (
        max([start for start in starts if start <= first], default=0),
        min([stop for stop in ends if stop >= end], default=runs),
    )


def _confirmed_creep(
    one: RunSeries,
    result: SeriesScan,
    owner: int,
    which: int,
    runs: IntArray,
    config: ConfirmConfig,
) -> ConfirmedCreep | None:
    """The bootstrap confirmation of creep ``which`` of a series (``q_value`` left 0): the
    runs at the new level against those at the old, between the neighbouring changes, with
    the ramp's runs left out (so the creep is a step at ``first`` in what is left)."""
    creep = result.creeps[which]
    ramp = creep.end - creep.first
    low, high = _limits(result, creep.first, creep.end, one.runs, creep=which)
    high -= ramp
    keep = np.concatenate((np.arange(creep.first), np.arange(creep.end, one.runs)))
    ratio, before, after = _bootstrap(
        _subset(one, keep), result, creep.first, (low, high), config, [owner, creep.end, 1]
    )
    status = status_of(ratio, config.tolerance)
    if status is None:
        return None
    return ConfirmedCreep(
        series=one.key,
        first=int(runs[creep.first]),
        end=int(runs[creep.end]),
        first_commit=one.label(creep.first),
        end_commit=one.label(creep.end),
        status=status,
        ratio=ratio.ratio,
        ratio_lo=ratio.ratio_lo,
        ratio_hi=ratio.ratio_hi,
        p_value=creep.change.p_value,
        q_value=0.0,
        runs_before=before,
        runs_after=after,
    )


def _candidate(
    one: RunSeries,
    result: SeriesScan,
    owner: int,
    runs: IntArray,
    config: ConfirmConfig,
    min_segment: int,
) -> Candidate | None:
    """The series' candidate with its change so far, unless that lies within the tolerance."""
    found = result.candidate
    if found is None:
        return None
    low = _limits(result, found.index, found.index, one.runs)[0]
    ratio, before, after = _bootstrap(
        one, result, found.index, (low, one.runs), config, [owner, found.index]
    )
    if abs(math.log(ratio.ratio)) <= math.log1p(config.tolerance):
        return None
    return Candidate(
        series=one.key,
        index=int(runs[found.index]),
        commit=one.label(found.index),
        status=Status.SLOW if ratio.ratio > 1.0 else Status.FAST,
        ratio=ratio.ratio,
        ratio_lo=ratio.ratio_lo,
        ratio_hi=ratio.ratio_hi,
        p_value=found.p_value,
        q_value=0.0,
        runs_before=before,
        runs_after=after,
        runs_to_decide=max(0, min_segment - found.window),
    )
