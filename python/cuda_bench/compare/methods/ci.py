"""Method ``ci``: a confidence interval of the compare/reference ratio against a tolerance band.

Per row the method estimates the ratio ``r`` of the compare to the reference center (time,
and cycles where clock data exist) with a confidence interval (:mod:`..bootstrap`: a
seeded bootstrap of the medians from the per-sample side files, hierarchical over runs
when a side has several; asymptotic normal draws from the summaries when a side has no
samples), and holds the interval against the band ``[1/(1+t), 1+t]`` of the tolerance
``t`` (``[ci] tolerance``), an equivalence test in the spirit of TOST (Schuirmann 1987)
and of criterion.rs's noise threshold:

* inside the band: SAME (positive evidence that the change is below the tolerance);
* wholly above: SLOW; wholly below: FAST;
* across an edge: AMBG, either ``ci_straddles_tolerance`` (the interval is narrower than
  the band: the change is close to the tolerance) or ``ci_wider_than_tolerance`` (wider
  than the band: too noisy to tell), with the interval in the message.

The band is symmetric in log space, so swapping the runs swaps FAST and SLOW exactly.

**Cycle space.** A GPU kernel's time moves with its SM clock; its cycle count (time x
clock) does not. Where clock data exist, the ratio is estimated in cycle space too: from
per-sample cycles when every run of both sides has a frequency side file, else by scaling
each run's time center with its mean SM clock (``nv/cold/sm_clock_rate/mean``). The two
spaces must agree (rows: the time interval; columns: the cycle interval):

==========  ==========================  ==========================  ======================
time        cycles inside               cycles beyond               cycles edge / wide
==========  ==========================  ==========================  ======================
inside      SAME ``ci_same``            AMBG ``ci_cycles_disagree`` edge: AMBG
                                                                    ``ci_cycles_unconfirmed``;
                                                                    wide: SAME
                                                                    ``ci_same_in_time``
beyond      AMBG ``clock_change_        same way: FAST/SLOW         AMBG
            explains_time``             ``ci_change_confirmed_by_   ``ci_cycles_unconfirmed``
                                        cycles``; other way: AMBG
                                        ``ci_cycles_disagree``
edge        AMBG ``ci_straddles_tolerance``, whatever the cycles say
wide        SAME ``ci_same_in_cycles``  FAST/SLOW                   AMBG
                                        ``ci_change_in_cycles`` (if ``ci_wider_than_
                                        the time interval reaches   tolerance``
                                        that way, else AMBG
                                        ``ci_cycles_disagree``)
==========  ==========================  ==========================  ======================

A time change that the cycles do not show is an SM clock change, not a code change: AMBG
``clock_change_explains_time`` (the runs are not comparable as they stand; rerun with
equal clocks), never SLOW; nor is a time change whose cycle interval cannot confirm it.
An interval wider than the band says nothing in its space, so the other space decides
alone: that is how a kernel whose times split into SM clock modes (and whose median time
jumps between them) still gets a verdict from its unimodal cycles. Without clock data
(older files, CPU-only benchmarks) the time interval decides alone
(``..._without_cycles``): unlike ``robust``, old files can be FAST or SLOW, also against
new ones that record a clock (an NVBench upgrade must not silence a regression: a rule that
made such a change AMBG let ``--fail-on slow`` pass it, and a gate's reference window of
twenty runs would have held that for twenty nights).

**Summaries only.** The asymptotic interval of a median from quartiles assumes unimodal,
independent samples (:func:`..bootstrap.median_standard_error`); a median between two SM
clock modes breaks that. So when a side has no samples, a change (or SAME) must not be
contradicted by the ratio of the *means* (``stdev / sqrt(n)`` interval), else AMBG
``ci_median_mean_disagree``.

**Drift within a run.** With side files each run is checked for drift within itself (the
medians of consecutive batches, :func:`..bootstrap.batch_standard_error`); a drifting run
gets a wider interval, and when a side has a single run, a change that rests on a drifting
run is AMBG ``run_not_stationary``: that run's level depends on when it was measured, and
with one run per side drift between runs cannot be told from a change. A calibration that
measured the state's drift between runs lifts that for a run whose slow drift is within the
run-to-run noise the calibrated band allows for (:func:`..drift.wander_allowed`).

**Drift between runs.** One run per side without a calibration measures no drift between
runs, so each side's level gets a term for it (:mod:`..drift`: the excess of the run's
spread over a quiet state's, and the level's wander within the run); a row that term
leaves AMBG (the runs alone would have decided it, or the term at least doubles the
interval) is AMBG ``run_drift_unmeasured``, whose message names what would measure the
drift. Timer lattices widen a change by half a tick of each side (:mod:`..lattice`), so
medians one tick apart are never FAST/SLOW. Cycles from mean clocks that differ on a wide
state are AMBG ``clock_differs`` (:func:`..drift.clock_differs`).

**Unusable input** gives the ``robust`` method's ``????`` rows (skipped states, missing
timing summaries, bad centers); invalid clock summaries give AMBG ``invalid_clock_rate``,
and a row without samples, quartiles or a standard deviation with a sample count AMBG
``effect_unavailable``. A side file that is present but unusable (wrong size, non-finite
or non-positive values; a warning names the file and the problem) counts as missing, as
in the summaries-only case: the run is decided from its summaries (basis
``asymptotic-median``), its cycles from the mean SM clock, so a corrupt file never hides
a change behind an AMBG row (``robust`` answers AMBG ``bulk_time_data_unusable`` there,
as NVIDIA's tool does).

**The tolerance.** ``[ci] tolerance`` (1 %) is the change of practical size. A calibration
(:mod:`..calibrate`) raises it per state to that state's run-to-run noise, up to ``[ci]
max_tolerance`` (5 %). SAME always means "no change beyond a band of at most the cap": a
state that needs a wider band cannot be judged (AMBG ``too_noisy_to_judge``, its message
gives the floor, the tolerance needed and what helps); only a change beyond even the
tolerance it needs is FAST/SLOW. Intervals contain their estimate, so a SAME row's point
estimate always lies inside the band it was held to.

**Change calls in an N-way comparison.** With ``ci_change_confidence`` above ``[ci]
confidence`` (set by :func:`~..many.compare_many` to the family-wise level over its
candidates), a FAST/SLOW must also hold with the row's intervals at that level, else it is
AMBG ``ci_change_not_family_wide``; the message says at which level the change was
confirmed or which wider interval fails. SAME, the other AMBG rows and the reported
effects stay at ``[ci] confidence``.

**Reproducibility.** Draws come from ``numpy.random.default_rng`` seeded with ``[ci] seed``
mixed with a fingerprint of the row's summaries: the same inputs and seed give the same
intervals whatever else is compared, and different rows draw independently (which the
suite statistics rely on).
"""

from __future__ import annotations

import math
from enum import Enum
from types import MappingProxyType
from typing import Final

import msgspec

from ..._numbers import log_ratio_percent
from ..bootstrap import RatioDraws
from ..bulk import CLOCK_RANGE
from ..drift import clock_differs, wander_allowed
from ..evidence import SideEvidence, usable_clock
from ..model import Effect, Reason, Status, Verdict
from ..runs import side_runs
from ..thresholds import MAX_CALIBRATED_TOLERANCE, Thresholds
from ._recorded_median import recorded_median_verdict
from ._row import RowEvidence, row_evidence
from ._tolerance import RowTolerance, row_tolerance, too_noisy_text
from .ci_effects import RowEffects, row_effects, run_centers
from .minimum import too_few_samples

# The ``????`` rules are shared with robust on purpose: both methods call the same inputs
# unusable.
from .robust import _bad_center, _unusable_input

__all__ = [
    "CI",
    "CI_REASONS",
    "Band",
    "CIMethod",
    "RowEffects",
    "classify",
    "decide",
    "decide_row",
    "row_effects",
    "run_centers",
]

#: Verdicts that only say where the intervals lie against the band. For a state too noisy
#: to be judged they become ``too_noisy_to_judge``; the other AMBG reasons (clock changes,
#: disagreeing spaces or estimands) say more and stay.
_BAND_REASONS: Final = frozenset(
    {
        Reason.CI_SAME,
        Reason.CI_SAME_WITHOUT_CYCLES,
        Reason.CI_SAME_IN_TIME,
        Reason.CI_SAME_IN_CYCLES,
        Reason.CI_CHANGE_CONFIRMED_BY_CYCLES,
        Reason.CI_CHANGE_WITHOUT_CYCLES,
        Reason.CI_CHANGE_IN_CYCLES,
        Reason.CI_STRADDLES_TOLERANCE,
        Reason.CI_WIDER_THAN_TOLERANCE,
    }
)

#: The reasons only this method gives (beyond the shared ``????`` and side-file reasons).
CI_REASONS: Final = _BAND_REASONS | {
    Reason.CLOCK_CHANGE_EXPLAINS_TIME,
    Reason.CI_CYCLES_DISAGREE,
    Reason.CI_CYCLES_UNCONFIRMED,
    Reason.CI_CHANGE_NOT_FAMILY_WIDE,
    Reason.CI_MEDIAN_MEAN_DISAGREE,
    Reason.RUN_NOT_STATIONARY,
    Reason.RUN_DRIFT_UNMEASURED,
    Reason.RUN_DRIFT_ACROSS_STATES,  # set over all rows of a comparison: ..empirical_null
    Reason.CLOCK_DIFFERS,
    Reason.TOO_NOISY_TO_JUDGE,
    Reason.EFFECT_UNAVAILABLE,
}


class Band(str, Enum):
    """Where a ratio interval lies relative to the tolerance band."""

    INSIDE = "inside"
    BELOW = "below"  # wholly faster than the band: FAST
    ABOVE = "above"  # wholly slower than the band: SLOW
    EDGE = "edge"  # crosses an edge, narrower than the band: a change near the tolerance
    WIDE = "wide"  # crosses an edge and is wider than the band: too noisy to tell

    @property
    def is_change(self) -> bool:
        return self in (Band.BELOW, Band.ABOVE)

    @property
    def status(self) -> Status:
        return {Band.BELOW: Status.FAST, Band.ABOVE: Status.SLOW}.get(self, Status.SAME)


def classify(lo: float, hi: float, tolerance: float) -> Band:
    """Place the log-ratio interval ``[lo, hi]`` against the band ``|log r| <= log1p(tolerance)``.

    Inside is inclusive (an interval ending exactly on an edge is inside); beyond is strict.
    An interval across an edge is *wide* when it is wider than the band itself (no
    position of it could be inside: this space cannot tell), else *edge*.
    """
    edge = math.log1p(tolerance)
    if lo > edge:
        return Band.ABOVE
    if hi < -edge:
        return Band.BELOW
    if lo >= -edge and hi <= edge:
        return Band.INSIDE
    if hi - lo > 2.0 * edge:
        return Band.WIDE
    return Band.EDGE


def _severity(lo: float, hi: float, tolerance: float) -> float:
    """How far (log units) the interval is from any decision: 0 when decided."""
    edge = math.log1p(tolerance)
    to_same = max(0.0, -edge - lo) + max(0.0, hi - edge)
    to_change = min(max(0.0, edge - lo), max(0.0, hi + edge))
    return min(to_same, to_change)


# ---------------------------------------------------------------------------------------------
# The verdict


def _percent(log_value: float) -> str:
    # The means' interval (stdev / sqrt(n), from the file's summaries) has no bound: a
    # corrupt stdev many orders above the mean puts its upper end beyond exp's range, which
    # log_ratio_percent writes from the logarithm (never "+inf%" for a finite one).
    return log_ratio_percent(log_value, 2)


def _interval_text(space: str, ratio: RatioDraws) -> str:
    return f"{space} {_percent(ratio.estimate)} [{_percent(ratio.lo)}, {_percent(ratio.hi)}]"


def _effect(
    ratio: RatioDraws,
    confidence: float,
    space: str,
    basis: str,
    tolerance: float,
    band: RowTolerance,
) -> Effect:
    return Effect(
        ratio=ratio.ratio,
        lo=ratio.ratio_lo,
        hi=ratio.ratio_hi,
        confidence=confidence,
        space=space,
        basis=basis,
        tolerance=tolerance,
        calibrated_tolerance=band.calibrated,
        draws=ratio.draws,
    )


_WHERE: Final = MappingProxyType(
    {
        Band.INSIDE: "inside the band",
        Band.BELOW: "below the band (faster)",
        Band.ABOVE: "above the band (slower)",
        Band.EDGE: "across an edge of the band",
        Band.WIDE: "across the band and wider than it",
    }
)


def _verdict(
    time: Band, cycles: Band | None, time_reaches: bool | None = None
) -> tuple[Status, Reason]:
    """Status and reason from where the intervals lie (module docstring table).

    ``time_reaches``: whether a wide time interval reaches beyond the band in the
    direction the cycles point (``None``: assume it does); a cycle change against it is
    a disagreement.
    """
    if time is Band.EDGE:
        return Status.AMBG, Reason.CI_STRADDLES_TOLERANCE
    if cycles is None:
        if time is Band.INSIDE:
            return Status.SAME, Reason.CI_SAME_WITHOUT_CYCLES
        if time.is_change:
            return time.status, Reason.CI_CHANGE_WITHOUT_CYCLES
        return Status.AMBG, Reason.CI_WIDER_THAN_TOLERANCE
    if time is Band.WIDE:
        if cycles is Band.INSIDE:
            return Status.SAME, Reason.CI_SAME_IN_CYCLES
        if cycles.is_change and time_reaches is not False:
            return cycles.status, Reason.CI_CHANGE_IN_CYCLES
        if cycles.is_change:
            return Status.AMBG, Reason.CI_CYCLES_DISAGREE
        return Status.AMBG, Reason.CI_WIDER_THAN_TOLERANCE
    # time is INSIDE, BELOW or ABOVE
    if cycles is time:
        if time is Band.INSIDE:
            return Status.SAME, Reason.CI_SAME
        return time.status, Reason.CI_CHANGE_CONFIRMED_BY_CYCLES
    if cycles is Band.WIDE and time is Band.INSIDE:
        return Status.SAME, Reason.CI_SAME_IN_TIME
    if cycles in (Band.EDGE, Band.WIDE):
        # A time change that cycles cannot confirm may be a clock change: never FAST/SLOW.
        return Status.AMBG, Reason.CI_CYCLES_UNCONFIRMED
    if cycles is Band.INSIDE:  # time changed, cycles did not
        return Status.AMBG, Reason.CLOCK_CHANGE_EXPLAINS_TIME
    return Status.AMBG, Reason.CI_CYCLES_DISAGREE


class _Judged(msgspec.Struct, frozen=True):
    """Status and reason of a row's effects against one band, and where each interval lies."""

    status: Status
    reason: Reason
    time: Band
    cycles: Band | None
    mean: Band | None


def _stationary_enough(found: RowEffects, thresholds: Thresholds, tolerance: float) -> bool:
    """A single run that drifts within itself leaves drift between runs unmeasured, unless
    a calibration measured the state's drift and the run's slow drift is below what the
    calibrated band allows for (:func:`..drift.wander_allowed`)."""
    measured = float(thresholds.ci_drift_measured) > 0.0
    return not any(
        drifted
        and count == 1
        and not (measured and wander_allowed(wander, tolerance, thresholds.ci_noise_floor))
        for drifted, count, wander in zip(found.drifted, found.runs, found.wander, strict=True)
    )


def _judged(found: RowEffects, tolerance: float) -> _Judged:
    """The verdict of ``found`` against the band of ``tolerance`` (module docstring table and
    the summaries-only check of the means)."""
    time_band = classify(found.time.lo, found.time.hi, tolerance)
    cycle_band = (
        None if found.cycles is None else classify(found.cycles.lo, found.cycles.hi, tolerance)
    )
    reaches = None
    if cycle_band is not None and cycle_band.is_change:
        edge = math.log1p(tolerance)
        reaches = found.time.hi > edge if cycle_band is Band.ABOVE else found.time.lo < -edge
    status, reason = _verdict(time_band, cycle_band, reaches)
    mean_band = None if found.mean is None else classify(found.mean.lo, found.mean.hi, tolerance)
    if found.mean is not None and mean_band is not None:
        # Summaries only: the asymptotic median interval assumes unimodal samples, so the
        # verdict of the means must agree with a change and must not contradict SAME.
        mean_cycle_band = (
            None
            if found.mean_cycles is None
            else classify(found.mean_cycles.lo, found.mean_cycles.hi, tolerance)
        )
        mean_status, _ = _verdict(mean_band, mean_cycle_band)
        disagree = mean_status is not status if status.is_change else mean_status.is_change
        if disagree:
            status, reason = Status.AMBG, Reason.CI_MEDIAN_MEAN_DISAGREE
    return _Judged(status, reason, time_band, cycle_band, mean_band)


def decide(ref: SideEvidence, cmp: SideEvidence, thresholds: Thresholds) -> Verdict:
    """The ``ci`` verdict of one row (module docstring)."""
    return decide_row(row_evidence(ref, cmp, thresholds))


def decide_row(row: RowEvidence) -> Verdict:
    """:func:`decide` on a row whose estimates are already made."""
    ref, cmp, thresholds = row.ref, row.cmp, row.thresholds
    verdict = _unusable_input(side_runs(ref)[0], side_runs(cmp)[0]) or recorded_median_verdict(
        side_runs(ref), side_runs(cmp)
    )
    if verdict is not None:
        return verdict
    verdict = too_few_samples(ref, cmp)  # one place for every method: .minimum
    if verdict is not None:
        return verdict
    verdict = _bad_center(row.ref_estimate, row.cmp_estimate)
    if verdict is not None:
        return verdict
    found = row_effects(ref, cmp, thresholds)
    if isinstance(found, Reason):
        return Verdict(Status.AMBG, found, _problem_text(found, ref, cmp))
    band = row_tolerance(thresholds)
    tolerance = band.used
    confidence = float(thresholds.ci_confidence)
    judged = _judged(found, tolerance)
    prefix = ""
    if band.too_noisy:
        # Never SAME for a state noisier than the cap allows; a change only where it lies
        # beyond even the tolerance the state needs (drift alone rarely goes that far) and
        # that tolerance is known: one at the calibration's ceiling means "at least".
        beyond = _judged(found, band.needed)
        if beyond.status.is_change and band.needed < MAX_CALIBRATED_TOLERANCE:
            judged, tolerance = beyond, band.needed
        elif judged.reason in _BAND_REASONS:
            judged = msgspec.structs.replace(
                judged, status=Status.AMBG, reason=Reason.TOO_NOISY_TO_JUDGE
            )
            prefix = too_noisy_text(band) + "; "
    status, reason = judged.status, judged.reason
    suffix = ""
    if clock_differs(found.clock_gap, found.time_spread, tolerance):
        status, reason = Status.AMBG, Reason.CLOCK_DIFFERS
        suffix = (
            f"; mean SM clocks {math.expm1(found.clock_gap):.1%} apart, times spread "
            f"±{found.time_spread or 0.0:.1%}: cycles from a mean clock are not trustworthy"
        )
    elif found.within_time is not None:
        status, reason, suffix = _drift_attributed(found, judged, tolerance)
    parts = [f"{_interval_text('time', found.time)} {_WHERE[judged.time]}"]
    if found.cycles is not None and judged.cycles is not None:
        parts.append(f"{_interval_text('cycles', found.cycles)} {_WHERE[judged.cycles]}")
    if found.mean is not None and judged.mean is not None:
        parts.append(f"{_interval_text('mean time', found.mean)} {_WHERE[judged.mean]}")
    runs = "" if found.runs == (1, 1) else f"; runs {found.runs[0]} vs. {found.runs[1]}"
    if any(found.drift_sd):
        runs += (
            f"; one run per side: run-to-run drift ±{found.drift_sd[0]:.2%} / "
            f"±{found.drift_sd[1]:.2%} (1 sd) allowed for"
        )
    if any(found.ticks):
        runs += f"; timer ticks {found.ticks[0]:.2%} / {found.ticks[1]:.2%} of the medians"
    if any(found.drifted):
        runs += (
            f"; drift within {found.drifted[0]} reference and {found.drifted[1]} compare "
            "run(s) widened their intervals"
        )
    if status.is_change and not _stationary_enough(found, thresholds, tolerance):
        status, reason = Status.AMBG, Reason.RUN_NOT_STATIONARY
    calibrated = ""
    if band.calibrated is not None:
        calibrated = " calibrated" if tolerance == band.needed else " capped"
    message = (
        f"{prefix}{'; '.join(parts)} (band ±{tolerance:.2%}{calibrated}, "
        f"{confidence:.0%} intervals{runs}){suffix}"
    )
    severity_interval = found.time
    change_confidence = float(thresholds.ci_change_confidence)
    if status.is_change and change_confidence > confidence:
        family = _family_wide(row, found.time, change_confidence, tolerance, status)
        severity_interval = family.time
        message += f"; {family.text}"
        if not family.confirmed:
            status, reason = Status.AMBG, Reason.CI_CHANGE_NOT_FAMILY_WIDE
    severity = 0.0
    if status is Status.AMBG:
        severity = _severity(severity_interval.lo, severity_interval.hi, tolerance)
    return Verdict(
        status,
        reason,
        message,
        severity,
        effect=_effect(found.time, confidence, "time", found.time_basis, tolerance, band),
        cycle_effect=None
        if found.cycles is None or found.cycle_basis is None
        else _effect(found.cycles, confidence, "cycles", found.cycle_basis, tolerance, band),
    )


#: AMBG reasons that a between-run drift term can cause by widening an interval.
_WIDENED_REASONS: Final = frozenset(
    {
        Reason.CI_STRADDLES_TOLERANCE,
        Reason.CI_WIDER_THAN_TOLERANCE,
        Reason.CI_CYCLES_UNCONFIRMED,
    }
)


def _drift_attributed(
    found: RowEffects, judged: _Judged, tolerance: float
) -> tuple[Status, Reason, str]:
    """``judged`` renamed ``run_drift_unmeasured`` when the drift that one run per side
    cannot measure (the between-run term, :mod:`..drift`) is what keeps the row AMBG:
    the runs alone would have decided it, or the term at least doubles the interval of
    the space that decides. The message says what would decide it."""
    if judged.status is not Status.AMBG or judged.reason not in _WIDENED_REASONS:
        return judged.status, judged.reason, ""
    assert found.within_time is not None
    deciding, within = found.time, found.within_time
    if found.cycles is not None and found.within_cycles is not None:
        deciding, within = found.cycles, found.within_cycles
    doubled = deciding.hi - deciding.lo >= 2.0 * (within.hi - within.lo)
    alone = _judged(
        msgspec.structs.replace(
            found,
            time=found.within_time,
            cycles=found.within_cycles,
            mean=None,
            mean_cycles=None,
        ),
        tolerance,
    )
    if alone.status is Status.AMBG and not doubled:
        return judged.status, judged.reason, ""
    said = "nothing either" if alone.status is Status.AMBG else alone.status.name
    return (
        Status.AMBG,
        Reason.RUN_DRIFT_UNMEASURED,
        f"; the runs alone would say {said} but cannot tell a change from drift between "
        "runs: paired runs (nvbench_compare ab), several runs per side or a calibration "
        "would decide it",
    )


class _FamilyCheck(msgspec.Struct, frozen=True):
    """A nominal change held against the family-wise level (:func:`_family_wide`)."""

    confirmed: bool
    time: RatioDraws
    text: str


def _family_wide(
    row: RowEvidence, nominal: RatioDraws, level: float, tolerance: float, status: Status
) -> _FamilyCheck:
    """Whether the change ``status`` found at ``[ci] confidence`` holds at ``level``, the
    family-wise level of an N-way comparison (:attr:`~..thresholds.Thresholds.
    ci_change_confidence`).

    Many candidates make many chances of a false FAST/SLOW, so a change call must hold at
    the corrected level; SAME is a claim of equivalence (the interval inside the band) that
    adds no false alarm and is decided at the nominal level alone. The row's effects are
    recomputed at ``level``: the bootstrap is seeded by the row's data, so the draws are
    the nominal ones and only the quantiles (and a t correction's factor) differ. Only
    changed rows pay for it.
    """
    wide = row_effects(row.ref, row.cmp, row.thresholds.replace(ci_confidence=level))
    where = f"family-wise {level * 100:.4g}% level over the candidates"
    if isinstance(wide, Reason):  # the nominal effects exist, so these do too; never a pass
        return _FamilyCheck(False, nominal, f"not confirmed at the {where}: {wide.message}")
    judged = _judged(wide, tolerance)
    if judged.status is status:
        return _FamilyCheck(True, wide.time, f"change confirmed at the {where}")
    parts = [f"{_interval_text('time', wide.time)} {_WHERE[judged.time]}"]
    if wide.cycles is not None and judged.cycles is not None:
        parts.append(f"{_interval_text('cycles', wide.cycles)} {_WHERE[judged.cycles]}")
    return _FamilyCheck(False, wide.time, f"not confirmed at the {where}: {'; '.join(parts)}")


def _problem_text(reason: Reason, ref: SideEvidence, cmp: SideEvidence) -> str:
    if reason is Reason.INVALID_CLOCK_RATE:
        # The runs whose clock is invalid, by side (and run where a side has several).
        shown = [
            f"{side}{'' if len(runs) == 1 else f' run {number}'} {run.clock_rate}"
            for side, runs in (("reference", side_runs(ref)), ("compare", side_runs(cmp)))
            for number, run in enumerate(runs, 1)
            if run.clock_rate is not None and not usable_clock(run.clock_rate)
        ]
        return (
            f"SM clock summaries are invalid ({', '.join(shown)}; a clock lies from {CLOCK_RANGE})"
        )
    return reason.message


class CIMethod:
    """Confidence interval of the ratio against a tolerance band (module docstring)."""

    #: Several runs per side are resampled (hierarchical bootstrap), not refused.
    supports_runs: Final = True

    @property
    def name(self) -> str:
        return "ci"

    @property
    def description(self) -> str:
        return (
            "bootstrap confidence interval of the compare/reference ratio (time and "
            "cycles, hierarchical over runs) held against a tolerance band"
        )

    def decide(self, row: RowEvidence) -> Verdict:
        return decide_row(row)

    def __repr__(self) -> str:
        return "CIMethod()"


CI: Final = CIMethod()
