"""Method ``robust``: the decision tree of NVIDIA's ``nvbench-compare-robust``, exactly.

The order of the steps, the tests and the reason codes follow the upstream tool
(reference §3.5, §3.6), so ``--method robust`` gives the same status and reason for every
GPU state. In short:

0. ``????`` for states skipped in one run, states without timing summaries, or a timing
   center that is missing, not finite or not positive; SKIP for states the benchmark
   skipped in both runs (upstream shows them as ``????``: :func:`upstream_status`).
1. Clear gap: the compare interval lies wholly below (FAST) or above (SLOW) the reference
   interval, by at least ``clear_gap.relative`` of the nearer end.
2. A clear gap must be confirmed in cycle space, so that a run at a different SM clock
   does not read as a code change: by the per-sample cycle intervals when both sides
   have sample times and frequencies, else by scaling each interval with its mean SM
   clock. Unconfirmed: AMBG, never SAME.
3. SAME path: finite noise and intervals on both sides, centers close and intervals
   overlapping (the summary gate), then the per-sample nearest-neighbour coverage of
   times and cycles (:mod:`..bulk`). Bulk evidence, when present, decides: it can accept
   noisy states and veto quiet ones. Without it, the noise must stay under the ceiling
   and the clock-scaled intervals must pass the gate too.

Intentional differences from upstream (for the README):

* **CPU-only states** (``nv/cpu_only/...``) are compared. Upstream reads only GPU
  summaries (such states end ``????``), and ``nvbench-compare-robust`` 0.3.0 even stops
  with an error on a CPU-only benchmark. There is no SM clock on a CPU, so a clear gap
  cannot be confirmed in cycle space; the tree treats it like a GPU gap without clock
  summaries: AMBG, with reason ``clear_gap_cpu_only`` (upstream's rule that an
  unconfirmed gap is never FAST/SLOW — a host that changes speed between runs must not
  look like a code change; the ``ci`` method decides such states from confidence
  intervals). The SAME path is the same as for GPU states minus the clock and cycle
  checks: bulk time coverage gives ``bulk_time_same_without_cycles``, and without bulk
  data the noise ceiling gives ``same_without_clock_rate``.
* A GPU state compared with a CPU-only state (a benchmark that changed kind) is ``????``
  with reason ``measurement_kind_mismatch`` instead of being compared across clocks.
* **Side files** follow compare.md §2 everywhere: a recorded side file that is missing
  or empty is *unavailable* and the decision falls back to the summaries (upstream does
  so while confirming a clear gap, but answers AMBG ``bulk_time_data_unusable`` /
  ``bulk_cycle_data_unusable`` on the SAME path). Files of the wrong size (a recorded
  count no file has included: 0 sample times, a negative count, one beyond int64) or with
  non-finite or non-positive values are *unusable*, as upstream: AMBG.
* Messages are our own words and carry the numbers behind the decision (gaps, coverage,
  overlap). The bulk coverage message keeps upstream's format.
"""

from __future__ import annotations

import math
from typing import Final

from ..._numbers import number_text, percent_text
from ..bulk import CLOCK_RANGE, SortedSamples, overlap_fraction
from ..evidence import SideEvidence, usable_clock
from ..model import Interval, Reason, SideEstimate, Status, Verdict
from ..thresholds import Thresholds
from ._row import RowEvidence, row_evidence
from .minimum import too_few_samples

__all__ = ["ROBUST", "RobustMethod", "decide", "decide_row", "upstream_status"]

_SIDES: Final = ("reference", "compare")


def _sides(flags: tuple[bool, bool]) -> str:
    """``"reference"``, ``"compare"`` or ``"reference and compare"`` for the flagged sides."""
    return " and ".join(name for name, flag in zip(_SIDES, flags, strict=True) if flag)


def _usable(noise: float | None) -> bool:
    return noise is not None and math.isfinite(noise) and noise >= 0


def _ambiguous(reason: Reason, message: str, severity: float = 0.0) -> Verdict:
    return Verdict(Status.AMBG, reason, message, severity)


# ---------------------------------------------------------------------------------------------
# Tests shared by several steps


def _clear_gap(ref: Interval, cmp: Interval, relative: float) -> tuple[Status, float] | None:
    """FAST/SLOW and the relative gap when the intervals are separated by at least ``relative``.

    The gap is the ratio of the two facing ends minus one (slower end over faster end), so
    FAST and SLOW are the same log-ratio test and swapping the runs swaps the answer.
    """
    if cmp.hi < ref.lo:
        gap = (ref.lo - cmp.hi) / cmp.hi
        if gap >= relative:
            return Status.FAST, gap
    if cmp.lo > ref.hi:
        gap = (cmp.lo - ref.hi) / ref.hi
        if gap >= relative:
            return Status.SLOW, gap
    return None


def _center_difference(ref: Interval, cmp: Interval) -> float:
    return abs(ref.center - cmp.center) / min(ref.center, cmp.center)


def _same_gate(
    ref: Interval, cmp: Interval, thresholds: Thresholds, space: str
) -> tuple[Reason, str, float] | None:
    """Why the intervals are not close enough for SAME (reason, message, severity), or ``None``."""
    difference = _center_difference(ref, cmp)
    if not difference <= thresholds.same_center_relative:
        return (
            Reason.CENTERS_NOT_CLOSE,
            f"{space} centers differ by {percent_text(difference, 2)}; SAME needs at most "
            f"{thresholds.same_center_relative:.2%}",
            difference - thresholds.same_center_relative,
        )
    overlap = overlap_fraction(ref, cmp)
    if not overlap >= thresholds.same_overlap_fraction:
        return (
            Reason.WEAK_INTERVAL_OVERLAP,
            f"{space} intervals overlap by {overlap:.0%} of the narrower one; SAME needs at "
            f"least {thresholds.same_overlap_fraction:.0%}",
            thresholds.same_overlap_fraction - overlap,
        )
    return None


def _clock_rates(ref: SideEvidence, cmp: SideEvidence) -> tuple[float, float] | Reason:
    """Both mean SM clocks, or why they cannot be used (missing wins over invalid)."""
    ref_clock, cmp_clock = ref.clock_rate, cmp.clock_rate
    if ref_clock is None or cmp_clock is None:
        return Reason.MISSING_CLOCK_RATE
    if not (usable_clock(ref_clock) and usable_clock(cmp_clock)):
        return Reason.INVALID_CLOCK_RATE
    return ref_clock, cmp_clock


def _clock_problem(ref: SideEvidence, cmp: SideEvidence, reason: Reason) -> str:
    if reason is Reason.MISSING_CLOCK_RATE:
        flags = (ref.clock_rate is None, cmp.clock_rate is None)
        return f"no SM clock summary for {_sides(flags)}"
    return (
        f"SM clock summaries are invalid (reference {ref.clock_rate}, compare "
        f"{cmp.clock_rate}; a clock lies from {CLOCK_RANGE})"
    )


def _megahertz(hertz: float) -> str:
    """A clock rate in MHz with one decimal; scientific where that would be ``0.0`` or run
    to many digits (a crafted 1e-300 or 1e300 Hz)."""
    return number_text(hertz / 1e6, 1, keep_small=True)


def _describe_gap(status: Status, gap: float) -> str:
    direction = "faster" if status is Status.FAST else "slower"
    gap_text = percent_text(gap, 2)
    return f"compare is {direction} with a clear gap of {gap_text} between the time intervals"


# ---------------------------------------------------------------------------------------------
# Step 0: unusable input


def upstream_status(status: Status | str) -> str:
    """How NVIDIA's ``nvbench-compare-robust`` shows ``status``: the same text, except SKIP
    (skipped by the benchmark in both runs), which it has no status for and shows as
    ``????``."""
    value = Status(status)
    return Status.UNKNOWN.value if value is Status.SKIP else value.value


def _unusable_input(ref: SideEvidence, cmp: SideEvidence) -> Verdict | None:
    if ref.is_skipped or cmp.is_skipped:
        parts = []
        for name, side in zip(_SIDES, (ref, cmp), strict=True):
            if side.is_skipped:
                reason = f": {side.skip_reason}" if side.skip_reason else ""
                parts.append(f"{name} state skipped{reason}")
        # Skipped in both runs is the benchmark's decision, not bad input; on one side
        # only it is a difference the user must see.
        both = ref.is_skipped and cmp.is_skipped
        status = Status.SKIP if both else Status.UNKNOWN
        return Verdict(status, Reason.STATE_SKIPPED, "; ".join(parts))
    if ref.kind is not cmp.kind:
        return Verdict(
            Status.UNKNOWN,
            Reason.MEASUREMENT_KIND_MISMATCH,
            f"reference is a {ref.kind.label} measurement, compare a {cmp.kind.label} one",
        )
    if not (ref.has_summaries and cmp.has_summaries):
        missing = _sides((not ref.has_summaries, not cmp.has_summaries))
        return Verdict(
            Status.UNKNOWN,
            Reason.GPU_TIMING_SUMMARIES_MISSING,
            f"{missing} {ref.kind.label} timing summaries are missing",
        )
    return None


def _bad_center(ref: SideEstimate, cmp: SideEstimate) -> Verdict | None:
    ref_center, cmp_center = ref.center, cmp.center
    if ref_center is None or cmp_center is None:
        flags = (ref_center is None, cmp_center is None)
        return Verdict(
            Status.UNKNOWN,
            Reason.TIMING_CENTER_MISSING,
            f"{_sides(flags)} timing center is missing",
        )
    flags = (not math.isfinite(ref_center), not math.isfinite(cmp_center))
    if any(flags):
        return Verdict(
            Status.UNKNOWN,
            Reason.TIMING_CENTER_NONFINITE,
            f"{_sides(flags)} timing center is not finite",
        )
    flags = (ref_center <= 0, cmp_center <= 0)
    if any(flags):
        return Verdict(
            Status.UNKNOWN,
            Reason.TIMING_CENTER_NONPOSITIVE,
            f"{_sides(flags)} timing center is not positive",
        )
    return None


# ---------------------------------------------------------------------------------------------
# Step 2: confirm a clear gap in cycle space


def _cycle_intervals(
    ref: SortedSamples | None, cmp: SortedSamples | None
) -> tuple[Interval, Interval] | None:
    if ref is None or cmp is None:
        return None
    ref_interval, cmp_interval = ref.interval, cmp.interval
    if not (ref_interval.is_valid and cmp_interval.is_valid):
        return None
    return ref_interval, cmp_interval


def _confirm_gap(
    ref: SideEvidence,
    cmp: SideEvidence,
    ref_interval: Interval,
    cmp_interval: Interval,
    status: Status,
    gap: float,
    thresholds: Thresholds,
) -> Verdict:
    relative = thresholds.clear_gap_relative
    seen = _describe_gap(status, gap)
    bulk = (ref.bulk, cmp.bulk)
    if all(side.has_times() and side.has_frequencies() for side in bulk):
        cycles = _cycle_intervals(ref.bulk.cycles(), cmp.bulk.cycles())
        if cycles is None:
            return _ambiguous(
                Reason.BULK_CYCLE_DATA_UNUSABLE,
                f"{seen}, but the sample time and frequency files cannot give cycle intervals",
            )
        confirmed = _clear_gap(*cycles, relative)
        if confirmed is not None and confirmed[0] is status:
            return Verdict(
                status,
                Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES,
                f"{seen}; the per-sample cycle intervals confirm it "
                f"({percent_text(confirmed[1], 2)})",
            )
        return _ambiguous(
            Reason.BULK_CYCLE_GAP_NOT_CONFIRMED,
            f"{seen}, but the per-sample cycle intervals "
            + ("point the other way" if confirmed is not None else "are not clearly separated"),
        )
    clocks = _clock_rates(ref, cmp)
    if isinstance(clocks, Reason):
        return _ambiguous(
            clocks, f"{seen}, but it cannot be confirmed: {_clock_problem(ref, cmp, clocks)}"
        )
    ref_clock, cmp_clock = clocks
    confirmed = _clear_gap(ref_interval.scaled(ref_clock), cmp_interval.scaled(cmp_clock), relative)
    clock_text = f"mean SM clocks {_megahertz(ref_clock)} / {_megahertz(cmp_clock)} MHz"
    if confirmed is not None and confirmed[0] is status:
        return Verdict(
            status,
            Reason.CLEAR_GAP_CONFIRMED_BY_SUMMARY_CYCLES,
            f"{seen}; intervals scaled by the {clock_text} confirm it "
            f"({percent_text(confirmed[1], 2)})",
        )
    return _ambiguous(
        Reason.SUMMARY_CYCLE_GAP_NOT_CONFIRMED,
        f"{seen}, but not after scaling the intervals by the {clock_text}",
    )


# ---------------------------------------------------------------------------------------------
# Step 3: SAME


def _summary_clock_same(
    ref: SideEvidence,
    cmp: SideEvidence,
    ref_interval: Interval,
    cmp_interval: Interval,
    thresholds: Thresholds,
    *,
    same: Reason,
    without_clock: Reason,
    seen: str,
) -> Verdict:
    """SAME confirmed (or not) by the summary intervals scaled with the mean SM clocks."""
    clocks = _clock_rates(ref, cmp)
    if clocks is Reason.MISSING_CLOCK_RATE:
        return Verdict(Status.SAME, without_clock, f"{seen}; {_clock_problem(ref, cmp, clocks)}")
    if isinstance(clocks, Reason):
        return _ambiguous(
            Reason.INVALID_CLOCK_RATE,
            f"{seen}, but SAME cannot be confirmed: {_clock_problem(ref, cmp, clocks)}",
        )
    ref_clock, cmp_clock = clocks
    failure = _same_gate(
        ref_interval.scaled(ref_clock), cmp_interval.scaled(cmp_clock), thresholds, "cycle"
    )
    if failure is not None:
        return _ambiguous(
            Reason.CYCLE_SAME_NOT_CONFIRMED,
            f"{seen}, but not after scaling by the mean SM clocks: {failure[1]}",
            failure[2],
        )
    return Verdict(Status.SAME, same, f"{seen}; SM-clock-scaled intervals agree too")


def _bulk_same(
    ref: SideEvidence,
    cmp: SideEvidence,
    ref_interval: Interval,
    cmp_interval: Interval,
    thresholds: Thresholds,
) -> Verdict | None:
    """The per-sample verdict of the SAME path, or ``None`` when there are no sample times."""
    if not (ref.bulk.has_times() and cmp.bulk.has_times()):
        return None
    # Imported here: a comparison without side files never gets this far.
    from .._coverage_fast import ordered_coverage

    ref_times, cmp_times = ref.bulk.unsorted_times(), cmp.bulk.unsorted_times()
    if ref_times is None or cmp_times is None:
        flags = (ref_times is None, cmp_times is None)
        return _ambiguous(
            Reason.BULK_TIME_DATA_UNUSABLE, f"{_sides(flags)} sample times are unusable"
        )
    times = ordered_coverage(ref_times, cmp_times, thresholds, family="time")
    if not times.passed:
        return _ambiguous(Reason.BULK_TIME_SUPPORT_MISMATCH, times.message, times.severity)
    seen = f"per-sample times cover each other ({times.message})"
    if ref.is_cpu_only:
        return Verdict(
            Status.SAME,
            Reason.BULK_TIME_SAME_WITHOUT_CYCLES,
            f"{seen}; CPU-only measurement, no SM clock",
        )
    if not (ref.bulk.has_frequencies() and cmp.bulk.has_frequencies()):
        return _summary_clock_same(
            ref,
            cmp,
            ref_interval,
            cmp_interval,
            thresholds,
            same=Reason.BULK_TIME_SAME_CONFIRMED_BY_SUMMARY_CYCLES,
            without_clock=Reason.BULK_TIME_SAME_WITHOUT_CYCLES,
            seen=f"{seen}; no per-sample SM clocks",
        )
    ref_cycles, cmp_cycles = ref.bulk.unsorted_cycles(), cmp.bulk.unsorted_cycles()
    if ref_cycles is None or cmp_cycles is None:
        flags = (ref_cycles is None, cmp_cycles is None)
        return _ambiguous(
            Reason.BULK_CYCLE_DATA_UNUSABLE,
            f"{_sides(flags)} sample time and frequency files cannot give cycles",
        )
    cycles = ordered_coverage(ref_cycles, cmp_cycles, thresholds, family="cycle")
    if not cycles.passed:
        return _ambiguous(Reason.BULK_CYCLE_SUPPORT_MISMATCH, cycles.message, cycles.severity)
    return Verdict(
        Status.SAME,
        Reason.BULK_SAME,
        f"per-sample times and cycles cover each other (times {times.message}; "
        f"cycles {cycles.message})",
    )


def _same_path(
    ref: SideEvidence,
    cmp: SideEvidence,
    ref_estimate: SideEstimate,
    cmp_estimate: SideEstimate,
    thresholds: Thresholds,
) -> Verdict:
    ref_noise, cmp_noise = ref_estimate.noise, cmp_estimate.noise
    bad = (not _usable(ref_noise), not _usable(cmp_noise))
    if ref_noise is None or cmp_noise is None or any(bad):
        return _ambiguous(
            Reason.NOISE_UNAVAILABLE,
            f"relative dispersion of {_sides(bad)} is unavailable, negative or not finite",
        )
    ref_interval, cmp_interval = ref_estimate.interval, cmp_estimate.interval
    if ref_interval is None or cmp_interval is None:
        flags = (ref_interval is None, cmp_interval is None)
        return _ambiguous(Reason.MISSING_INTERVAL, f"no valid timing interval for {_sides(flags)}")
    failure = _same_gate(ref_interval, cmp_interval, thresholds, "timing")
    if failure is not None:
        return _ambiguous(*failure)
    bulk = _bulk_same(ref, cmp, ref_interval, cmp_interval, thresholds)
    if bulk is not None:
        # Per-sample evidence outranks the summary noise: it may accept a noisy state
        # whose distributions match, and veto a quiet one whose distributions do not.
        return bulk
    noise = max(ref_noise, cmp_noise)
    ceiling = thresholds.same_relative_dispersion_ceiling
    if noise > ceiling:
        return _ambiguous(
            Reason.NOISE_TOO_HIGH,
            f"relative dispersion {percent_text(noise, 2)} exceeds {ceiling:.2%} and there are no "
            "per-sample times to decide",
            noise - ceiling,
        )
    seen = (
        f"timing centers within {_center_difference(ref_interval, cmp_interval):.2%}, "
        f"intervals overlap {overlap_fraction(ref_interval, cmp_interval):.0%}"
    )
    if ref.is_cpu_only:
        return Verdict(
            Status.SAME,
            Reason.SAME_WITHOUT_CLOCK_RATE,
            f"{seen}; CPU-only measurement, no SM clock",
        )
    return _summary_clock_same(
        ref,
        cmp,
        ref_interval,
        cmp_interval,
        thresholds,
        same=Reason.SAME_CONFIRMED_BY_CYCLES,
        without_clock=Reason.SAME_WITHOUT_CLOCK_RATE,
        seen=seen,
    )


# ---------------------------------------------------------------------------------------------
# The method


def decide(ref: SideEvidence, cmp: SideEvidence, thresholds: Thresholds) -> Verdict:
    """Status and reason of one row by upstream's robust decision tree (module docstring)."""
    return decide_row(row_evidence(ref, cmp, thresholds))


def decide_row(row: RowEvidence) -> Verdict:
    """:func:`decide` on a row whose estimates are already made."""
    ref, cmp, thresholds = row.ref, row.cmp, row.thresholds
    verdict = _unusable_input(ref, cmp)
    if verdict is not None:
        return verdict
    verdict = too_few_samples(ref, cmp)  # one place for every method: .minimum
    if verdict is not None:
        return verdict
    ref_estimate, cmp_estimate = row.ref_estimate, row.cmp_estimate
    verdict = _bad_center(ref_estimate, cmp_estimate)
    if verdict is not None:
        return verdict
    ref_interval, cmp_interval = ref_estimate.interval, cmp_estimate.interval
    if ref_interval is not None and cmp_interval is not None:
        gap = _clear_gap(ref_interval, cmp_interval, thresholds.clear_gap_relative)
        if gap is not None:
            status, size = gap
            if ref.is_cpu_only:
                return _ambiguous(
                    Reason.CLEAR_GAP_CPU_ONLY,
                    f"{_describe_gap(status, size)}, but a CPU-only measurement has no SM "
                    "clock to confirm it",
                )
            return _confirm_gap(ref, cmp, ref_interval, cmp_interval, status, size, thresholds)
    return _same_path(ref, cmp, ref_estimate, cmp_estimate, thresholds)


class RobustMethod:
    """NVIDIA's robust decision tree (see the module docstring)."""

    @property
    def name(self) -> str:
        return "robust"

    @property
    def description(self) -> str:
        return (
            "NVIDIA nvbench-compare-robust's decision tree: interval gaps confirmed in "
            "cycle space, SAME from summary overlap and per-sample coverage"
        )

    def decide(self, row: RowEvidence) -> Verdict:
        return decide_row(row)

    def __repr__(self) -> str:
        return "RobustMethod()"


ROBUST: Final = RobustMethod()
