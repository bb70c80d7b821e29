"""Method ``paired``: the interval of the mean per-round change against the tolerance band.

Used by ``nvbench_compare --paired`` and ``nvbench_compare ab`` (:mod:`...paired` has the
statistics and their references). Each side of a row holds one run per round, in round
order (:mod:`..paired_inputs` checks that every run holds the same states). The verdict:

* unusable primary runs: the ``????`` rows of ``robust`` and ``ci``;
* a run with fewer samples than any 95 % interval needs: AMBG ``too_few_samples``, the
  bound every method keeps (:mod:`.minimum`);
* a run missing the state in some round: AMBG ``paired_rounds_incomplete``; fewer than two
  rounds: AMBG ``paired_too_few_rounds``;
* a run whose mean SM clock is no clock (:func:`..bulk.usable_clock`) where the cycles
  would come from the mean clocks: AMBG ``invalid_clock_rate`` (:func:`..paired.round_changes`);
* otherwise the time interval (and the cycle interval where every run has a mean SM clock)
  (widened by half a tick of each side where the runs' times sit on a timer lattice, as
  ``ci`` widens its intervals: :mod:`..lattice`)
  is held against the band ``[1/(1+t), 1+t]`` of ``[ci] tolerance`` with the same table
  as the ``ci`` method (SAME inside, FAST/SLOW wholly beyond and confirmed by cycles, AMBG
  across an edge, a time change the cycles do not show is a clock change);
* a FAST/SLOW whose estimate does not clear the A/A floor (the within-slot jitter of one
  round's change, or a calibration's paired floor when larger) is AMBG
  ``paired_change_within_floor``;
* an AMBG whose interval only failed to fit the tolerance band (across an edge, wider than
  it, or a change inside the floor) is SAME ``paired_same_within_floor`` when its estimate
  does not clear the A/A floor (the counterpart of the FAST/SLOW rule above) and both
  intervals lie inside the state's own floor band ``max(tolerance, F)``, ``F`` the larger of the
  calibration's paired floor and the one-sided upper ``1 - alpha`` confidence bound of the
  measured floor (``alpha = (1 - confidence) / 2``, :func:`..paired.floor_upper_bound`), and
  that band is within ``[ci] max_tolerance``. The message and ``effect_tolerance`` name the
  band. Why: SAME is an equivalence claim, shown by the interval lying inside a band
  (Schuirmann's two one-sided tests, 1987); a state whose rounds jitter by 1.5 % cannot be
  shown inside ±1 % with 8 rounds (the interval alone is about ±1.3 % wide) but it can be
  shown inside its own floor, the smallest change one round can tell from noise, which is
  also the floor a FAST/SLOW must clear. The claim holds whenever the interval covers the
  change, whatever the band, so a band taken from the data does not weaken it; the upper
  bound (not the estimate) is what a floor from 6 degrees of freedom can vouch for, and the
  ``max_tolerance`` cap keeps, as calibrations do, a state too noisy to judge from being
  SAME in a wide band. FAST/SLOW keep the tolerance band and take precedence: a change
  found against ``±tolerance`` is never turned into SAME.

A calibration does not widen the band here: the paired design cancels the run-to-run drift
a calibrated tolerance guards single runs against. What it gives a paired comparison is a
lower bound for each state's A/A floor (``paired_floor``, written by ``ab --aa``), which
:mod:`..paired_inputs` passes as ``[ci]``'s calibrated noise floor.
"""

from __future__ import annotations

import math
import sys
from typing import ClassVar, Final

import msgspec

from ..lattice import tick_widening
from ..model import Effect, Reason, Status, Verdict
from ..paired import (
    PairedDesign,
    RoundChanges,
    RoundInterval,
    floor_upper_bound,
    paired_interval,
    slot_floor,
)
from ..runs import side_runs
from ..thresholds import Thresholds
from . import RowEvidence
from ._ci_terms import run_tick_share
from ._recorded_median import recorded_median_verdict

# The ``ci`` method's table, wording and severity, so that the two methods cannot drift apart.
from .ci import _percent, _severity, _verdict, classify
from .minimum import too_few_samples
from .robust import _bad_center, _unusable_input

__all__ = ["PAIRED_REASONS", "PairedMethod"]

#: Reasons only this method gives.
PAIRED_REASONS: Final = frozenset(
    {
        Reason.PAIRED_TOO_FEW_ROUNDS,
        Reason.PAIRED_ROUNDS_INCOMPLETE,
        Reason.PAIRED_CHANGE_WITHIN_FLOOR,
        Reason.PAIRED_SAME_WITHIN_FLOOR,
    }
)

#: The largest log of a ratio ``math.expm1`` takes (``log`` of the largest double).
_LARGEST_LOG: Final = math.log(sys.float_info.max)

#: AMBG reasons that only say the interval does not fit the tolerance band; the floor band
#: may still hold it (module docstring). Clock and cycle disagreements are not among them.
_BAND_TOO_NARROW: Final = frozenset(
    {
        Reason.CI_STRADDLES_TOLERANCE,
        Reason.CI_WIDER_THAN_TOLERANCE,
        Reason.PAIRED_CHANGE_WITHIN_FLOOR,
    }
)

#: The interval's basis as reports show it (``effect_basis``).
BASIS: Final = "paired-rounds"


def _effect(found: RoundInterval, confidence: float, space: str, tolerance: float) -> Effect:
    return Effect(
        ratio=math.exp(found.estimate),
        lo=math.exp(found.lo),
        hi=math.exp(found.hi),
        confidence=confidence,
        space=space,
        basis=BASIS,
        tolerance=tolerance,
        draws=found.draws,
    )


def _widened(found: RoundInterval, by: float) -> RoundInterval:
    """``found`` with the lattice's rounding bound ``by`` (log) added in quadrature to both
    half-widths, as the ``ci`` method widens its intervals (:func:`._ci_terms.widened`)."""
    if not by > 0:
        return found
    lo = found.estimate - math.hypot(found.estimate - found.lo, by)
    hi = found.estimate + math.hypot(found.hi - found.estimate, by)
    return msgspec.structs.replace(found, lo=lo, hi=hi)


class PairedMethod(msgspec.Struct, frozen=True):
    """The paired A/B decision for runs made in ``design``'s rounds (module docstring)."""

    design: PairedDesign

    #: Every round's runs join the row (one per round and side).
    supports_runs: ClassVar[bool] = True

    @property
    def name(self) -> str:
        return "paired"

    @property
    def description(self) -> str:
        return (
            "bootstrap interval of the mean per-round change of interleaved A/B rounds "
            "(resampled as pairs) held against a tolerance band and the A/A floor"
        )

    def decide(self, row: RowEvidence) -> Verdict:
        ref_runs, cmp_runs = side_runs(row.ref), side_runs(row.cmp)
        verdict = (
            _unusable_input(ref_runs[0], cmp_runs[0])
            or recorded_median_verdict(ref_runs, cmp_runs)
            or _bad_center(row.ref_estimate, row.cmp_estimate)
        )
        if verdict is not None:
            return verdict
        rounds = self.design.rounds
        if len(ref_runs) != rounds or len(cmp_runs) != rounds:
            missing = rounds - min(len(ref_runs), len(cmp_runs))
            return Verdict(
                Status.AMBG,
                Reason.PAIRED_ROUNDS_INCOMPLETE,
                f"{missing} of {rounds} round(s) lack the state in a run "
                f"({len(ref_runs)} reference, {len(cmp_runs)} compare runs hold it)",
            )
        if rounds < 2:
            return Verdict(Status.AMBG, Reason.PAIRED_TOO_FEW_ROUNDS, f"{rounds} round(s)")
        for number, (ref_run, cmp_run) in enumerate(zip(ref_runs, cmp_runs, strict=True), 1):
            short = too_few_samples(ref_run, cmp_run)  # one place for every method: .minimum
            if short is not None:
                return Verdict(short.status, short.reason, f"round {number}: {short.message}")
        from ..paired import round_changes

        changes = round_changes(ref_runs, cmp_runs, row.thresholds)
        if isinstance(changes, Reason):
            return Verdict(Status.AMBG, changes, changes.message)
        # Lattice medians are known to within half a tick, however many rounds agree.
        ticks = (max(map(run_tick_share, ref_runs)), max(map(run_tick_share, cmp_runs)))
        return self._judge(changes, row, tick_widening(*ticks))

    def _judge(self, changes: RoundChanges, row: RowEvidence, by: float) -> Verdict:
        thresholds = row.thresholds
        confidence = float(thresholds.ci_confidence)
        tolerance = float(thresholds.ci_tolerance)
        resamples, seed = int(thresholds.ci_resamples), int(thresholds.ci_seed)
        first = self.design.first
        time, normals, picks = paired_interval(
            changes.time,
            changes.errors,
            confidence=confidence,
            resamples=resamples,
            seed=seed,
            first=first,
        )
        cycles = None
        if changes.cycles is not None:
            cycles, _, _ = paired_interval(
                changes.cycles,
                changes.cycle_errors or changes.errors,
                confidence=confidence,
                resamples=resamples,
                seed=seed,
                first=first,
                normals=normals,
                picks=picks,
            )
        time = _widened(time, by)
        cycles = None if cycles is None else _widened(cycles, by)
        time_band = classify(time.lo, time.hi, tolerance)
        cycle_band = None if cycles is None else classify(cycles.lo, cycles.hi, tolerance)
        status, reason = _verdict(time_band, cycle_band)
        judged = cycles if reason is Reason.CI_CHANGE_IN_CYCLES and cycles is not None else time
        judged_changes = (
            changes.cycles if judged is cycles and changes.cycles is not None else changes.time
        )
        own, df = slot_floor(judged_changes, self.design.first)
        floor = max(own, float(thresholds.ci_noise_floor))
        parts = [f"time {_percent(time.estimate)} [{_percent(time.lo)}, {_percent(time.hi)}]"]
        if cycles is not None:
            parts.append(
                f"cycles {_percent(cycles.estimate)} [{_percent(cycles.lo)}, {_percent(cycles.hi)}]"
            )
        calibrated = " (calibration)" if floor > own else ""
        floor_text = f"A/A floor {math.expm1(floor):.2%}{calibrated}, {df} df"
        if status.is_change and abs(judged.estimate) <= floor:
            status, reason = Status.AMBG, Reason.PAIRED_CHANGE_WITHIN_FLOOR
            floor_text = f"inside the {floor_text}"
        band = tolerance
        if status is Status.AMBG and reason in _BAND_TOO_NARROW:
            wider = _floor_band(own, df, thresholds)
            fits = wider is not None and (
                _verdict(
                    classify(time.lo, time.hi, wider),
                    None if cycles is None else classify(cycles.lo, cycles.hi, wider),
                )[0]
                is Status.SAME
            )
            if wider is not None and fits and abs(judged.estimate) <= floor:
                status, reason, band = Status.SAME, Reason.PAIRED_SAME_WITHIN_FLOOR, wider
                source = (
                    "the calibration's paired floor"
                    if wider > math.expm1(floor_upper_bound(own, df, (1.0 - confidence) / 2.0))
                    else f"the A/A floor {math.expm1(own):.2%} ({df} df) at its "
                    f"{1.0 - (1.0 - confidence) / 2.0:.1%} upper bound"
                )
                floor_text = f"within its ±{wider:.2%} floor: {source}"
            elif wider is not None and fits:
                floor_text += (
                    f"; inside its ±{wider:.2%} floor band, but the estimate "
                    f"{_percent(judged.estimate)} clears the floor"
                )
        rounds = len(changes.time)
        message = (
            f"{'; '.join(parts)} over {rounds} paired rounds (band ±{tolerance:.2%}, "
            f"{confidence:.0%} intervals, {floor_text})"
        )
        severity = _severity(time.lo, time.hi, tolerance) if status is Status.AMBG else 0.0
        return Verdict(
            status,
            reason,
            message,
            severity,
            effect=_effect(time, confidence, "time", band),
            cycle_effect=None if cycles is None else _effect(cycles, confidence, "cycles", band),
        )


def _floor_band(own: float, df: int, thresholds: Thresholds) -> float | None:
    """The half-width (fraction) of the band a SAME may be claimed within (module
    docstring): ``max(tolerance, F)``, or ``None`` where it is no wider than the tolerance
    band or wider than ``[ci] max_tolerance``."""
    confidence = float(thresholds.ci_confidence)
    tolerance = float(thresholds.ci_tolerance)
    upper = max(
        floor_upper_bound(own, df, (1.0 - confidence) / 2.0), float(thresholds.ci_noise_floor)
    )
    # Rounds some 700 apart in log (a damaged or foreign file) overflow exp: such a floor
    # is wider than any band, as an infinite one is.
    width = math.expm1(upper) if upper < _LARGEST_LOG else math.inf
    if not math.isfinite(width) or width <= tolerance:
        return None
    return width if width <= float(thresholds.ci_max_tolerance) else None
