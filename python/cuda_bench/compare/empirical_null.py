"""Drift between runs seen across the states of one comparison: an empirical null.

One run per side measures no drift between runs (:mod:`.drift` allows for what each
state's own spread and wander suggest). A quiet state can still move between runs by
more than its samples show: nothing inside the state's run says so. But a comparison has
many states, and under the null hypothesis (no state changed) their estimated log changes
``x_i`` scatter around a common value with the variance of their within-run intervals,
``se_i**2``, plus whatever drift between runs adds, ``tau**2``. Efron (2004, "Large-scale
simultaneous hypothesis testing: the choice of a null hypothesis", JASA 99:96-104) showed
that this *empirical null* can be estimated from the central part of the statistics of
many simultaneous tests, which most cases follow, instead of being assumed (the
*theoretical null*); Efron (2007, "Size, power and false discovery rates", Ann. Statist.
35:1351-1377) uses the central part of the histogram ("central matching") so that a
minority of non-null cases does not inflate it. Here:

1. **Center and a robust scale**: ``c = median(x_i)``, and ``tau0`` solves
   ``median(|x_i - c| / sqrt(se_i**2 + tau0**2)) = 0.6745`` (the MAD of the standardised
   changes is that of a standard normal; ``tau0 = 0`` if it is already below), with the
   states beyond ``3.5`` null standard deviations left out until the set is stable (the
   ``X84`` rule of Hampel 1985, "The breakdown points of the mean combined with some
   rejection rules", Technometrics 27:95-107).
2. **Central matching**: ``tau`` solves ``mean((x_i - c)**2 / (se_i**2 + tau**2)) =
   0.9112`` over the states within ``2.5`` null standard deviations of the center (the
   variance of a standard normal truncated at ``±2.5``), recomputed with the new ``c`` and
   ``tau`` until the kept set is stable: a moment estimator of a random-effects variance
   (DerSimonian & Laird 1986, "Meta-analysis in clinical trials", Control. Clin. Trials
   7:177-188, use the same model between the studies of a meta-analysis)
   fitted to the central part only, as Efron's central matching fits the center of the
   histogram. Genuinely changed states lie outside it and do not widen anybody's
   intervals; a one-sided cluster of them, which inflates step 1's MAD, is cut by the
   narrower window. Its relative standard error is about ``1 / sqrt(2 n)``.

**How much the band absorbs.** The tolerance band ``±L`` (``L = log1p(tolerance)``)
already absorbs a small scatter: an unchanged state whose change scatters by ``tau``
lands beyond the band with probability ``2 Phi(-L / tau)``, at most 1 % (the false-change
target) while ``tau <= L / z_0.995`` (:func:`absorbed_scatter`; 0.39 % for the 1 % band,
about 0.27 % drift per run). Only the excess ``sqrt(tau**2 - tau*^2)`` is added, so the
rule is continuous and the false-change rate of an unchanged state stays at or below 1 %
whatever the scatter: the excess is taken at the 99 % two-sided quantile of Student's t
with ``kept - 1`` degrees of freedom (a prediction interval for one more state, since the
scatter is estimated from the kept states) and added in quadrature to both sides of each
row's interval, time and cycles alike. Nothing is narrowed; a decided row that the wider
intervals no longer decide becomes AMBG ``run_drift_across_states``, and its message says
what would decide it.

**How many states.** The estimate must tell a scatter that needs widening from one the
band absorbs: at ``tau = 1.5 tau*`` (8.6 % false changes without widening) the estimate
must exceed ``tau*`` with 95 % probability, ``1.5 (1 - 1.645 / sqrt(2 n)) >= 1``, which
needs ``n >= 13`` states with a usable interval (:data:`MIN_STATES`); with fewer, nothing
changes.

**A common shift** (every state slower by the same factor: a real global change, or a
machine whose whole second run was slower) moves the center ``c``, not the scatter, so
it neither triggers nor changes the term: one run per side cannot tell these apart, and
the verdicts stay what the intervals say (the suite summary's geometric mean shows the
shift; where the term applies, the comparison's warning line names the center too).
**What it cannot see:** a machine whose states jump between speed modes so that *most*
states stay put and a minority jumps far (a two-speed machine): central matching treats
that minority as changed, by design (it is what keeps real changes findable). A
calibration or several runs per side measure such drift.

**Nor can it tell drift from a change that moves most states by different amounts** (a
compiler upgrade, another GPU model): Efron's premise is that most cases are null. Such a
comparison gets AMBG ``run_drift_across_states`` rows and a warning; paired runs or
several runs per side confirm the change. Comparisons of two different device models
(both named, names differ) are left alone for that reason.

Applied only where drift between runs is not measured: the ``ci`` method, one run per
side, no calibration (:func:`applies`), per pair of input files and device pair.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Final

import msgspec

from .bootstrap import NORMAL_MAD, normal_quantile, student_t_quantile

# The band logic of the ci method, reused so that a widened row is judged by the same
# table (methods.ci module docstring).
from .methods.ci import Band, _severity, _verdict, classify
from .model import Effect, Reason, Row, Status, Verdict

__all__ = [
    "MIN_STATES",
    "NullFit",
    "Widening",
    "absorbed_scatter",
    "applies",
    "fit_null",
    "widen_rows",
]

#: Fewest states with a usable interval for a stable estimate (module docstring).
MIN_STATES: Final = 13
#: States farther than this many null standard deviations from the center are taken as
#: changed and left out of the scale (Hampel's X84 rule uses 3.5 MADs).
REJECT_AT: Final = 3.5
#: The refined scale keeps the states within this many null standard deviations.
TRIM_AT: Final = 2.5
#: The variance of a standard normal truncated at ``±TRIM_AT``.
_TRUNCATED_VARIANCE: Final = 0.9112
#: The level of the added term and of the band's absorbed scatter: the 1 % target.
_LEVEL: Final = 0.995


class NullFit(msgspec.Struct, frozen=True):
    """The empirical null of one comparison: the center of the log changes, the scatter
    ``tau`` (log units, 1 sd) beyond the rows' own intervals, and how many states it was
    estimated from and kept."""

    center: float
    scatter: float
    states: int
    kept: int


def absorbed_scatter(tolerance: float) -> float:
    """The scatter (log sd) the band of ``tolerance`` absorbs at a 1 % false-change rate."""
    return math.log1p(tolerance) / normal_quantile(_LEVEL)


def _solve(ratio_at: Callable[[float], float], upper: float) -> float:
    """The smallest ``t`` in ``[0, upper]`` with ``ratio_at(t) <= 1`` (decreasing in ``t``)."""
    if ratio_at(0.0) <= 1.0:
        return 0.0
    lo, hi = 0.0, upper
    for _ in range(64):
        mid = 0.5 * (lo + hi)
        if ratio_at(mid) > 1.0:
            lo = mid
        else:
            hi = mid
    return hi


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return 0.5 * (ordered[middle - 1] + ordered[middle])


def _mad_ratio(dev: Sequence[float], var: Sequence[float]) -> Callable[[float], float]:
    """The MAD of the standardised deviations over a standard normal's, as a function of
    ``tau``."""
    return lambda t: (
        _median([d / math.sqrt(v + t * t) for d, v in zip(dev, var, strict=True)]) / NORMAL_MAD
    )


def _moment_ratio(dev2: Sequence[float], var: Sequence[float]) -> Callable[[float], float]:
    """The mean squared standardised deviation over a truncated standard normal's."""
    return lambda t: (
        math.fsum(d / (v + t * t) for d, v in zip(dev2, var, strict=True))
        / len(dev2)
        / _TRUNCATED_VARIANCE
    )


def _within(
    x: Sequence[float], variance: Sequence[float], center: float, scale: float, limit: float
) -> list[bool]:
    return [
        abs(value - center) <= limit * math.sqrt(v + scale * scale)
        for value, v in zip(x, variance, strict=True)
    ]


def fit_null(estimates: Sequence[float], errors: Sequence[float]) -> NullFit | None:
    """The empirical null of the log changes ``estimates`` with within-run standard errors
    ``errors`` (module docstring); ``None`` with fewer than :data:`MIN_STATES`.

    Plain Python: a comparison from summaries loads no numpy."""
    pairs = [
        (x, se * se)
        for x, se in zip(estimates, errors, strict=True)
        if math.isfinite(x) and math.isfinite(se) and se >= 0.0
    ]
    if len(pairs) < MIN_STATES:
        return None
    x = [value for value, _ in pairs]
    variance = [v for _, v in pairs]
    keep = [True] * len(x)

    def kept(values: Sequence[float], mask: Sequence[bool]) -> list[float]:
        return [value for value, chosen in zip(values, mask, strict=True) if chosen]

    center, scale = 0.0, 0.0
    for _ in range(10):
        center = _median(kept(x, keep))
        dev = [abs(value - center) for value in kept(x, keep)]
        scale = _solve(_mad_ratio(dev, kept(variance, keep)), max(dev) + 1e-12)
        within = _within(x, variance, center, scale, REJECT_AT)
        if within == keep or sum(within) < MIN_STATES:
            break
        keep = within
    # Refine: the moment scale of the states within TRIM_AT of the null (from step 1's
    # scale on), corrected for the truncation, until the kept set is stable.
    scatter = scale
    for _ in range(10):
        within = _within(x, variance, center, scatter, TRIM_AT)
        if sum(within) < MIN_STATES:
            break
        stable = within == keep
        keep = within
        center = _median(kept(x, keep))
        dev2 = [(value - center) ** 2 for value in kept(x, keep)]
        scatter = _solve(_moment_ratio(dev2, kept(variance, keep)), math.sqrt(max(dev2)) + 1e-12)
        if stable:
            break
    return NullFit(center, scatter, len(x), sum(keep))


def applies(method: str, runs: object, calibrated: bool) -> bool:
    """Whether a comparison leaves drift between runs unmeasured: ``ci``, one run per side
    (``runs`` is ``None``), no calibration."""
    return method == "ci" and runs is None and not calibrated


def _log_interval(effect: Effect) -> tuple[float, float, float] | None:
    if effect.tolerance is None or not (effect.ratio > 0 and effect.lo > 0 and effect.hi > 0):
        return None
    values = (math.log(effect.ratio), math.log(effect.lo), math.log(effect.hi))
    return values if all(map(math.isfinite, values)) else None


def _standard_error(verdict: Verdict) -> tuple[float, float] | None:
    """The log change and its standard error from the deciding space's interval (cycles
    where present: drift of the clocks is not the code's)."""
    effect = verdict.cycle_effect or verdict.effect
    if effect is None or effect.basis.startswith("hierarchical"):
        return None
    found = _log_interval(effect)
    if found is None:
        return None
    x, lo, hi = found
    return x, (hi - lo) / (2.0 * normal_quantile(0.5 + effect.confidence / 2.0))


def _widened(effect: Effect, extra: float) -> Effect:
    found = _log_interval(effect)
    if found is None:
        return effect
    x, lo, hi = found
    return msgspec.structs.replace(
        effect,
        lo=math.exp(x - math.hypot(x - lo, extra)),
        hi=math.exp(x + math.hypot(hi - x, extra)),
    )


def _status(effect: Effect, cycles: Effect | None) -> Status:
    """The status the band table gives the (widened) intervals."""
    tolerance = effect.tolerance or 0.0
    lo, hi = math.log(effect.lo), math.log(effect.hi)
    time_band = classify(lo, hi, tolerance)
    cycle_band = (
        None if cycles is None else classify(math.log(cycles.lo), math.log(cycles.hi), tolerance)
    )
    reaches = None
    if cycle_band is not None and cycle_band.is_change:
        edge = math.log1p(tolerance)
        reaches = hi > edge if cycle_band is Band.ABOVE else lo < -edge
    return _verdict(time_band, cycle_band, reaches)[0]


def _percent(value: float) -> str:
    return f"{math.expm1(value) * 100:+.2f}%"


class Widening(msgspec.Struct, frozen=True):
    """What :func:`widen_rows` did to one pair of inputs."""

    fit: NullFit
    absorbed: float
    extra_sd: float
    undecided: int

    @property
    def applied(self) -> bool:
        return self.extra_sd > 0.0

    def summary(self, pair: int, pairs: int) -> str:
        """One line for the comparison's warnings."""
        where = f"input pair {pair + 1}: " if pairs > 1 else ""
        return (
            f"{where}the {self.fit.states} states of this comparison scatter ±"
            f"{math.expm1(self.fit.scatter):.2%} (1 sd of their changes around the common "
            f"{_percent(self.fit.center)}) beyond their within-run intervals, more than the "
            f"band absorbs (±{math.expm1(self.absorbed):.2%}): one run per side does not "
            f"measure this drift between runs, so every interval allows ±"
            f"{math.expm1(self.extra_sd):.2%} more and {self.undecided} row(s) are AMBG "
            "run_drift_across_states; paired runs (nvbench_compare ab), several runs per side "
            "or a calibration would decide them. A common shift of every state (the "
            f"{_percent(self.fit.center)}) cannot be told from a whole run that was faster or "
            "slower"
        )


def _widen_row(row: Row, extra: float, excess: float, fit: NullFit) -> tuple[Row, bool]:
    verdict = row.verdict
    assert verdict.effect is not None
    effect = _widened(verdict.effect, extra)
    cycles = None if verdict.cycle_effect is None else _widened(verdict.cycle_effect, extra)
    note = (
        f"; the states of this comparison scatter ±{math.expm1(fit.scatter):.2%} between the "
        f"runs: ±{math.expm1(excess):.2%} (1 sd) more allowed for"
    )
    undecided = verdict.status is not Status.AMBG and _status(effect, cycles) is not verdict.status
    if not undecided:
        replaced = msgspec.structs.replace(
            verdict, effect=effect, cycle_effect=cycles, message=verdict.message + note
        )
        return msgspec.structs.replace(row, verdict=replaced), False
    tolerance = effect.tolerance or 0.0
    interval = (
        f"time {_percent(math.log(effect.ratio))} [{_percent(math.log(effect.lo))}, "
        f"{_percent(math.log(effect.hi))}]"
    )
    message = (
        f"{verdict.message}{note}: {interval}; the runs alone said {verdict.status.name}, but "
        "the states of this comparison scatter more than their runs explain: paired runs "
        "(nvbench_compare ab), several runs per side or a calibration would decide it"
    )
    replaced = Verdict(
        Status.AMBG,
        Reason.RUN_DRIFT_ACROSS_STATES,
        message,
        _severity(math.log(effect.lo), math.log(effect.hi), tolerance),
        effect=effect,
        cycle_effect=cycles,
    )
    return msgspec.structs.replace(row, verdict=replaced), True


def _different_devices(row: Row) -> bool:
    """Whether ``row`` compares two different device models (both named, names differ)."""
    ref, cmp = row.ref_device_name, row.cmp_device_name
    return ref is not None and cmp is not None and ref != cmp


def widen_rows(rows: Sequence[Row]) -> tuple[list[Row], list[tuple[int, Widening]]]:
    """``rows`` (one comparison, one run per side, no calibration) with the empirical-null
    term of each input pair and device pair added where it applies (module docstring), and
    what was done per group that had enough states. Rows that compare two different device
    models are left alone: there every state is expected to change by its own amount, and
    the premise of an empirical null (most states unchanged) does not hold."""
    groups: dict[tuple[int, int], list[int]] = {}
    found: dict[int, tuple[float, float]] = {}
    across_devices = {(row.pair, row.device_pair) for row in rows if _different_devices(row)}
    for index, row in enumerate(rows):
        if (row.pair, row.device_pair) in across_devices:
            continue
        verdict = row.verdict
        if verdict.effect is None or verdict.status is Status.UNKNOWN:
            continue
        if not verdict.status.is_matched:
            continue
        estimate = _standard_error(verdict)
        if estimate is None or _log_interval(verdict.effect) is None:
            continue
        found[index] = estimate
        groups.setdefault((row.pair, row.device_pair), []).append(index)
    out = list(rows)
    done: list[tuple[int, Widening]] = []
    for (pair, _), members in groups.items():
        fit = fit_null([found[i][0] for i in members], [found[i][1] for i in members])
        if fit is None:
            continue
        tolerance = rows[members[0]].verdict.effect.tolerance  # type: ignore[union-attr]
        absorbed = absorbed_scatter(tolerance or 0.0)
        excess = math.sqrt(max(0.0, fit.scatter**2 - absorbed**2))
        undecided = 0
        if excess > 0.0:
            # The scatter is estimated from the kept states: Student's quantile makes the
            # term a prediction interval for one more state (the 1 % target holds with the
            # estimate's own error; 2.95 instead of 2.58 at 16 kept states).
            extra = student_t_quantile(_LEVEL, fit.kept - 1) * excess
            for index in members:
                out[index], changed = _widen_row(rows[index], extra, excess, fit)
                undecided += changed
        done.append((pair, Widening(fit, absorbed, excess, undecided)))
    return out, done
