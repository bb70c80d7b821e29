"""Suite-level statistics: the typical change over all rows, its interval, expected false flags.

**Geometric mean of the ratios.** Over the rows whose verdict carries a time effect
(matched rows, not ``????``), ``G = exp(mean_i log r_i)`` of the per-row ratios. Its
interval combines the per-row bootstrap draws: draw ``b`` of the suite is the mean over
rows of each row's draw ``b`` of its log ratio, so the ``B`` suite draws follow the
distribution of the mean of independent row estimates, and the percentile interval of
those draws is the interval of ``G`` (Efron & Tibshirani 1993, ch. 13, applied to a sum of
independent bootstrap statistics). Rows draw from independent streams
(:mod:`.methods.ci`), which this relies on. Rows whose interval came in closed form (one
run per side, summaries only: a normal log ratio, no draws) add their estimate and their
variance ``se_i^2`` (read back from the interval as below); with only such rows the suite
interval is normal too, otherwise their sum joins the draws as one normal term. It is the
*measurement* uncertainty of this suite's geometric mean, not the spread of changes between
benchmarks: a suite where one state doubled and the rest stood still gets a narrow interval
around that one doubling divided over the rows. The draws are summed as rows are produced
(:class:`SuiteAccumulator`, O(B) memory), then dropped from the rows.

**What the interval covers.** With one run per side, the sampling noise within the runs
(``interval_covers = "sampling"``): drift between runs is in no row's interval. Only when
every row had several runs per side does it cover run-to-run drift too
(``"sampling+runs"``). Rows that are AMBG because their runs drift (``run_not_stationary``:
a run drifts within itself; ``run_drift_unmeasured``: one run per side cannot tell a change
from the drift its spread allows; ``run_drift_across_states``: the states of a single-run
comparison scatter more than their runs explain, :mod:`.empirical_null`;
``too_noisy_to_judge``: a calibration measured more drift between runs than the band allows)
are counted (``drift_rows``): their levels depend on when they were measured, so with any
of them the geometric mean is no suite-wide change, whatever its interval (the renderers
say so instead of a confidence claim).

When no row has draws (``--method robust``) the summary is the plain geometric mean of the
center ratios of the rows that have both centers, without an interval.

**Expected false flags.** If no state had truly changed, how many rows would the verdict
flag FAST or SLOW by chance? Each row with an effect and a tolerance band contributes
``P_i = 2 * Phi(-L_i / se_i - z)``: the probability that an estimate drawn from
``N(0, se_i^2)`` (log space; ``se_i`` read back from the row's interval as
``(log hi - log lo) / (2 z)``) has its interval wholly beyond the band edge
``L_i = log(1 + tolerance_i)``. The sum ``E = sum_i P_i`` is the expected number of false
flags at the chosen settings. It counts the uncertainty the intervals describe (sampling
noise; run-to-run drift only when several runs per side or a calibration put it there)
and uses the time interval alone, which over-counts slightly for the ``ci`` method (a flag
also needs the cycles to agree). The verdict-quality benchmark measures the false-change
rate including drift (``docs/verdict-quality.md``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Final

import msgspec

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:
    from .._lazy import numpy as np

from ._status import Status, SuiteSummary
from .bootstrap import normal_quantile, percentile_interval
from .reasons import Reason

if TYPE_CHECKING:
    from .model import Comparison, Effect, Row, Verdict

__all__ = [
    "DRIFT_REASONS",
    "SuiteAccumulator",
    "SuiteSummary",
    "drift_reasons",
    "drifting",
    "in_suite",
    "null_flag_probability",
    "suite_summary",
    "summary_of_rows",
    "with_drift",
]


#: AMBG reasons that say a row's level depends on when its runs were measured.
DRIFT_REASONS: Final = frozenset(
    {
        Reason.RUN_NOT_STATIONARY,
        Reason.RUN_DRIFT_UNMEASURED,
        Reason.RUN_DRIFT_ACROSS_STATES,
        Reason.TOO_NOISY_TO_JUDGE,
    }
)


def in_suite(row: Row) -> bool:
    """Whether ``row`` is one the suite summary can count: matched, decided and with an
    effect (:class:`SuiteAccumulator` takes the same rows)."""
    verdict = row.verdict
    return (
        verdict.effect is not None
        and verdict.status.is_matched
        and verdict.status is not Status.UNKNOWN
    )


def drifting(row: Row) -> bool:
    """Whether the suite counts ``row`` among its rows AMBG for drift (:class:`SuiteAccumulator`
    counts the same rows)."""
    return in_suite(row) and row.verdict.reason in DRIFT_REASONS


def drift_reasons(reasons: Iterable[Reason]) -> tuple[tuple[str, int], ...]:
    """``(code, count)`` of the drift rows' ``reasons``, most frequent first, then by code."""
    counted = Counter(reason.value for reason in reasons)
    return tuple(sorted(counted.items(), key=lambda item: (-item[1], item[0])))


def with_drift(summary: SuiteSummary, codes: Iterable[Reason]) -> SuiteSummary:
    """``summary`` with its drift rows those of ``codes`` (one code per drift row)."""
    counted = list(codes)
    return msgspec.structs.replace(
        summary, drift_rows=len(counted), drift_reasons=drift_reasons(counted)
    )


def null_flag_probability(effect: Effect) -> float | None:
    """``P(flag | no change)`` of one row (module docstring); ``None`` without a tolerance."""
    if effect.tolerance is None or not (effect.lo > 0 and effect.hi > 0):
        return None
    z = normal_quantile(0.5 + effect.confidence / 2.0)
    se = (math.log(effect.hi) - math.log(effect.lo)) / (2.0 * z)
    if not math.isfinite(se):
        return None
    if se <= 0.0:
        return 0.0
    edge = math.log1p(effect.tolerance)
    return 2.0 * (1.0 - _normal_cdf(edge / se + z))


def _normal_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


class SuiteAccumulator:
    """Collects the suite statistics row by row, in O(B) memory.

    :meth:`absorb` takes a row's verdict and returns it without its draws, so that a
    comparison of many rows does not keep ``B`` floats per row.
    """

    def __init__(self) -> None:
        self._sum: npt.NDArray[np.float64] | None = None
        self._estimates: list[float] = []
        self._confidence: float | None = None
        self._mixed = False
        self._flags = 0.0
        self._flag_rows = 0
        # Rows with a closed-form (normal) interval: their estimates' sum and variances'.
        self._normal_sum = 0.0
        self._normal_variance = 0.0
        # Rows with one run on a side (their intervals hold no run-to-run drift), and rows
        # AMBG because their runs drift.
        self._single_run_rows = 0
        self._drift_rows = 0

    def absorb(self, verdict: Verdict) -> Verdict:
        """Count ``verdict`` (a matched row's) and return it without bootstrap draws."""
        effect = verdict.effect
        if effect is None or not verdict.status.is_matched or verdict.status is Status.UNKNOWN:
            return verdict
        self._single_run_rows += not effect.basis.startswith("hierarchical")
        self._drift_rows += verdict.reason in DRIFT_REASONS
        probability = null_flag_probability(effect)
        if probability is not None:
            self._flags += probability
            self._flag_rows += 1
        draws = effect.draws
        if draws is not None:
            self._add(effect, draws)
        else:
            self._add_normal(effect)
        cycle = verdict.cycle_effect
        if draws is None and (cycle is None or cycle.draws is None):
            return verdict
        return msgspec.structs.replace(
            verdict,
            effect=msgspec.structs.replace(effect, draws=None),
            cycle_effect=None if cycle is None else msgspec.structs.replace(cycle, draws=None),
        )

    def merge(self, other: SuiteAccumulator) -> None:
        """Absorb everything ``other`` absorbed, as if its rows had come after this one's.

        Rows computed apart (another process) bring their own accumulator. The summed
        draws add in another order than row by row, so the interval may differ in its
        last bits; everything else is exact.
        """
        if other._confidence is not None:
            if self._confidence is None:
                self._confidence = other._confidence
            elif self._confidence != other._confidence:
                self._mixed = True
        if other._sum is not None:
            if self._sum is None:
                self._sum = other._sum.copy()
            elif self._sum.shape != other._sum.shape:
                self._mixed = True
            else:
                self._sum += other._sum
        self._mixed = self._mixed or other._mixed
        self._estimates.extend(other._estimates)
        self._flags += other._flags
        self._flag_rows += other._flag_rows
        self._normal_sum += other._normal_sum
        self._normal_variance += other._normal_variance
        self._single_run_rows += other._single_run_rows
        self._drift_rows += other._drift_rows

    def _add(self, effect: Effect, draws: npt.NDArray[np.float64]) -> None:
        if effect.ratio <= 0 or not math.isfinite(effect.ratio):
            return
        if self._sum is None:
            self._sum = np.array(draws, dtype=np.float64, copy=True)
            self._confidence = effect.confidence
        elif self._sum.shape != draws.shape or self._confidence != effect.confidence:
            self._mixed = True  # draws that cannot be combined: no interval
        else:
            self._sum += draws
        self._estimates.append(math.log(effect.ratio))

    def _add_normal(self, effect: Effect) -> None:
        """A row whose interval is normal in log space and came without draws."""
        if not (effect.ratio > 0 and effect.lo > 0 and effect.hi > 0):
            return
        if not math.isfinite(effect.ratio):
            return
        if self._confidence is None:
            self._confidence = effect.confidence
        elif self._confidence != effect.confidence:
            self._mixed = True
        z = normal_quantile(0.5 + effect.confidence / 2.0)
        se = (math.log(effect.hi) - math.log(effect.lo)) / (2.0 * z)
        estimate = math.log(effect.ratio)
        self._normal_sum += estimate
        self._normal_variance += se * se if math.isfinite(se) else math.inf
        self._estimates.append(estimate)

    def summary(self) -> SuiteSummary | None:
        """The suite statistics, or ``None`` when no row had a ratio with an interval."""
        if not self._estimates:
            return None
        count = len(self._estimates)
        ratio = math.exp(math.fsum(self._estimates) / count)
        flags = self._flags if self._flag_rows else None
        confidence = self._confidence
        if self._mixed or confidence is None or not math.isfinite(self._normal_variance):
            return SuiteSummary(
                ratio,
                count,
                expected_false_flags=flags,
                flag_rows=self._flag_rows,
                drift_rows=self._drift_rows,
            )
        if self._sum is None:
            half = normal_quantile(0.5 + confidence / 2.0) * math.sqrt(self._normal_variance)
            lo, hi = (self._normal_sum - half) / count, (self._normal_sum + half) / count
        else:
            draws = self._sum + self._normal_sum
            if self._normal_variance > 0.0:
                # The closed-form rows' sum is one normal term; a fixed seed keeps the
                # suite interval reproducible.
                noise = np.random.default_rng(0).standard_normal(draws.size)
                draws = draws + noise * math.sqrt(self._normal_variance)
            lo, hi = percentile_interval(draws / count, confidence)
        log_ratio = math.log(ratio)
        return SuiteSummary(
            ratio=ratio,
            rows=count,
            lo=math.exp(min(lo, log_ratio)),
            hi=math.exp(max(hi, log_ratio)),
            confidence=self._confidence,
            basis="bootstrap",
            expected_false_flags=flags,
            flag_rows=self._flag_rows,
            interval_covers="sampling" if self._single_run_rows else "sampling+runs",
            drift_rows=self._drift_rows,
        )


def _center_log_ratio(row: Row) -> float | None:
    if not row.status.is_matched or row.status is Status.UNKNOWN:
        return None
    ref, cmp = row.ref_center, row.cmp_center
    if ref is None or cmp is None or not (ref > 0 and cmp > 0):
        return None
    if not (math.isfinite(ref) and math.isfinite(cmp)):
        return None
    return math.log(cmp / ref)


def suite_summary(comparison: Comparison | Iterable[Row]) -> SuiteSummary | None:
    """The comparison's :attr:`~.model.Comparison.suite`, else the plain geometric mean of
    the center ratios (``????``, ADDED and REMOVED rows excluded); ``None`` without rows."""
    # A Comparison is the one msgspec value accepted (rows come as a plain iterable); its
    # class is not imported at run time: Comparison.to_dataframe reaches this module (through
    # records), and imports run one way (python/test/test_layers.py).
    if isinstance(comparison, msgspec.Struct):
        if comparison.suite is not None:
            return comparison.suite
        rows: Iterable[Row] = comparison.rows
    else:
        rows = comparison
    logs = [value for value in map(_center_log_ratio, rows) if value is not None]
    if not logs:
        return None
    return SuiteSummary(ratio=math.exp(math.fsum(logs) / len(logs)), rows=len(logs))


def summary_of_rows(rows: Iterable[Row]) -> SuiteSummary | None:
    """The suite summary of ``rows`` whose verdicts no longer carry their draws (rows of
    several comparisons put together): each row with an interval joins as a closed-form
    (normal, log space) term read back from its interval, as :meth:`SuiteAccumulator.absorb`
    takes a row without draws; without such rows, the plain :func:`suite_summary`. Its
    drift rows are the rows :func:`drifting` counts, with their codes."""
    rows = tuple(rows)
    accumulator = SuiteAccumulator()
    for row in rows:
        accumulator.absorb(row.verdict)
    summary = accumulator.summary()
    if summary is None:
        return suite_summary(rows)
    codes = drift_reasons(row.reason for row in rows if drifting(row))
    return msgspec.structs.replace(summary, drift_reasons=codes)
