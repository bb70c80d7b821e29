"""Paired A/B rounds: each round's change, the estimate, its interval and the A/A floor.

``nvbench_compare ab`` runs the reference and the compare build back to back for ``R``
rounds, the side that goes first alternating (or balanced at random). Round ``r`` gives one
reference run ``a_r`` and one compare run ``b_r`` measured minutes apart, so whatever the
machine did at that time (clocks, temperature, neighbours, memory placement) hits both. The
paired analysis works on the per-round change and never compares runs of different rounds:

* **Per-round change** ``d_r = log c(b_r) - log c(a_r)``, ``c`` the run's center (the
  median of its samples, else of its summaries, as :func:`.methods.ci.run_centers` gives
  it, with its standard error ``s(.)``). In cycle space the center is that of the
  per-sample cycles (time x SM clock) where every run has a frequency side file, else the
  time center times the run's mean SM clock, as the ``ci`` method does.
* **Estimate**: the mean of the ``d_r`` (log space; the reported ratio is its exponential).
  Common-mode drift cancels inside each ``d_r``; the order effect (the second run of a
  round is slower, say) cancels in the mean because each side goes first equally often.
* **Interval**: a two-stage bootstrap over rounds (Kalibera & Jones 2013; Davison & Hinkley
  1997, §3.8): each draw picks ``R`` rounds with replacement, *as pairs* (the ``a_r`` and
  ``b_r`` of a round stay together), and adds to each picked round the within-run sampling
  noise of its change, a normal draw with variance ``s(a_r)^2 + s(b_r)^2`` (the bootstrap
  error of the run's median where side files exist, else its asymptotic error from the
  quartiles). This is :func:`.bootstrap.side_distribution` with the rounds as its runs and
  the round changes as their centers. The rounds' spread already holds that sampling noise
  once, so the round part of each draw is shrunk to the spread beyond sampling
  (``sqrt(max(0, V - W) / V)``, ``V`` the within-slot variance of the ``d_r``, ``W`` the
  mean within-run variance: method-of-moments variance components, as
  :mod:`.calibrate` splits run-to-run noise; Davison & Hinkley §3.8 on the variance
  two-stage resampling adds): the interval's variance is then ``max(V, W) / R`` before
  the ``t`` widening, so rounds that agree better than their sampling noise allows do not
  narrow it, and the noise is not counted twice. Where the order is known the rounds are
  resampled within their slot (stratified resampling, Davison & Hinkley 1997, ch. 3): every draw
  keeps as many ref-first as cmp-first rounds, so a drift trend, whose share of a round's
  change flips sign with the order, cancels in every draw as it does in the estimate.
  The round-level part is widened by ``t_df / z`` with ``df = R - slots``
  (:func:`round_expansion`), as ``[ci] t_correction`` does for few runs: with 8 rounds
  the percentile interval of a plain bootstrap is too narrow.
* **A/A floor**: the round-to-round jitter of ``d_r`` measured between rounds in the same
  slot (rounds where the reference went first with each other, rounds where it went second
  with each other): the pooled within-slot standard deviation. So the slot-order effect,
  which the alternation cancels in the estimate, is not counted as noise. With the order
  unknown (runs given by position) all rounds form one slot, which counts an order effect
  as noise (conservative). A calibration written by ``nvbench_compare ab --aa`` gives a
  lower bound for it per state (:mod:`.paired_inputs`).
* **The floor's upper bound** (:func:`floor_upper_bound`): the floor ``s`` comes from
  ``df`` degrees of freedom (6 for 8 alternated rounds), so the true jitter may be well
  above it; ``df s^2 / sigma^2`` is chi-square with ``df`` degrees of freedom for normal
  round changes, and ``s sqrt(df / chi2_df(alpha))`` is the one-sided upper ``1 - alpha``
  confidence bound of ``sigma`` (e.g. Montgomery, *Design and Analysis of Experiments*,
  §2.4.3). :mod:`.methods.paired` takes ``alpha = (1 - confidence) / 2``, the level of each
  one-sided test of the interval (Schuirmann 1987: a two-sided ``1 - 2 alpha`` interval is
  two one-sided tests at ``alpha``), for the band a SAME may be claimed within.

References: A. Abedi, T. Brecht, ICPE 2017 (randomized multiple interleaved trials);
T. Kalibera, R. Jones, ISMM 2013; A. C. Davison, D. V. Hinkley, *Bootstrap Methods and
their Application*, 1997, §3.8.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, Literal, get_args

import msgspec

from .._argument_checks import whole_number

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:
    from .._lazy import LazyModule
    from .._lazy import numpy as np

    # Annotations of the records' fields name numpy through these, so that
    # ``typing.get_type_hints`` resolves them; numpy stays unimported until one is read.
    npt = LazyModule("numpy.typing")

from .bootstrap import (
    Level,
    chi2_quantile,
    normal_quantile,
    percentile_interval,
    side_distribution,
    student_t_quantile,
)
from .evidence import SideEvidence, usable_clock
from .model import Reason
from .thresholds import Thresholds

if TYPE_CHECKING:
    from .._arrays import FloatArray

__all__ = [
    "FIRST_SIDES",
    "ORDERS",
    "PairedDesign",
    "RoundChanges",
    "RoundInterval",
    "floor_upper_bound",
    "paired_interval",
    "round_changes",
    "round_expansion",
    "slot_floor",
]

#: Which side went first in a round.
First = Literal["ref", "cmp"]
#: Order schemes of the runner.
ORDERS: Final = ("alternate", "random")
#: The values of :data:`First`.
FIRST_SIDES: Final = get_args(First)


class PairedDesign(msgspec.Struct, frozen=True):
    """How the runs of a paired comparison were made: ``rounds`` pairs (an int, at least 1),
    and per round the side that ran first, ``"ref"`` or ``"cmp"`` (``None``: unknown, runs
    paired by position only); ``order`` the runner's scheme (:data:`ORDERS` or ``None``)
    and ``seed`` the int seed of a random order (``None``: none recorded).

    Checked when made, each problem a TypeError (a value of the wrong kind) or ValueError
    naming the field: unchecked, ``rounds=2.0``, ``first=("x", "y")`` and ``order="bogus"``
    were compared and reported as given."""

    rounds: int
    first: tuple[First, ...] | None = None
    order: str | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        rounds = whole_number(self.rounds, "PairedDesign: rounds must be an int")
        if rounds < 1:
            raise ValueError(f"PairedDesign: rounds must be at least 1, got {rounds}")
        msgspec.structs.force_setattr(self, "rounds", rounds)
        if self.first is not None:
            if not isinstance(self.first, list | tuple):
                raise TypeError(
                    "PairedDesign: first must be None or a tuple of 'ref' and 'cmp', one per "
                    f"round; got {self.first!r}"
                )
            for side in self.first:
                if side not in FIRST_SIDES:
                    raise ValueError(
                        f"PairedDesign: first: each round's first side is 'ref' or 'cmp', "
                        f"got {side!r}"
                    )
            if len(self.first) != rounds:
                raise ValueError(f"PairedDesign: {rounds} rounds but {len(self.first)} first sides")
            msgspec.structs.force_setattr(self, "first", tuple(self.first))
        if self.order is not None and (not isinstance(self.order, str) or self.order not in ORDERS):
            raise (ValueError if isinstance(self.order, str) else TypeError)(
                f"PairedDesign: order must be {', '.join(map(repr, ORDERS))} or None, "
                f"got {self.order!r}"
            )
        if self.seed is not None:
            seed = whole_number(self.seed, "PairedDesign: seed must be an int or None")
            msgspec.structs.force_setattr(self, "seed", seed)

    def to_data(self) -> dict[str, object]:
        """The report's ``design`` object (docs/report-schema.md)."""
        return {
            "paired": True,
            "rounds": self.rounds,
            "order": self.order,
            "seed": self.seed,
            "first": None if self.first is None else list(self.first),
        }


class RoundChanges(msgspec.Struct, frozen=True):
    """One state's per-round changes (log) and their within-run standard errors."""

    time: tuple[float, ...]
    errors: tuple[float, ...]
    #: ``None`` unless every run of both sides has a mean SM clock.
    cycles: tuple[float, ...] | None
    #: The cycle changes' errors: of the per-sample cycles' centers, else the time errors.
    cycle_errors: tuple[float, ...] | None = None


def _clock(run: SideEvidence) -> float | None:
    clock = run.clock_rate
    return clock if clock is not None and usable_clock(clock) else None


def round_changes(
    ref: Sequence[SideEvidence], cmp: Sequence[SideEvidence], thresholds: Thresholds
) -> RoundChanges | Reason:
    """The changes of rounds ``(ref[r], cmp[r])`` (module docstring); a reason when the runs
    give no centers (``effect_unavailable``) or record a mean SM clock that is no clock
    (``invalid_clock_rate``, where the cycles would come from the mean clocks)."""
    from .methods.ci import run_centers

    if len(ref) != len(cmp):
        raise ValueError(f"{len(ref)} reference runs but {len(cmp)} compare runs")
    centers = run_centers([*ref, *cmp], thresholds)
    if isinstance(centers, Reason):
        return centers
    rounds = len(ref)
    time = tuple(centers[rounds + r][0] - centers[r][0] for r in range(rounds))
    errors = tuple(math.hypot(centers[r][1], centers[rounds + r][1]) for r in range(rounds))
    cycles = _cycle_changes([*ref, *cmp], centers, thresholds)
    if isinstance(cycles, Reason):
        return cycles
    if cycles is None:
        return RoundChanges(time, errors, None)
    return RoundChanges(time, errors, cycles[0], cycles[1] or errors)


def _cycle_changes(
    runs: Sequence[SideEvidence], centers: Sequence[tuple[float, float]], thresholds: Thresholds
) -> tuple[tuple[float, ...], tuple[float, ...] | None] | Reason | None:
    """Round changes in cycles: of the per-sample cycles' centers where every run has a
    frequency side file (a kernel whose times split into clock modes has unimodal cycles),
    else of the time centers times the runs' mean SM clocks; ``None`` without clocks.
    ``invalid_clock_rate`` where a run records a mean clock that is no clock
    (:func:`~.bulk.usable_clock`): broken evidence, which must not read as an absent clock
    and leave the rounds to their times alone."""
    from .methods.ci import run_centers

    rounds = len(runs) // 2
    values = [run.bulk.cycle_values() if run.bulk.has_frequencies() else None for run in runs]
    if all(value is not None for value in values):
        pseudo = [SideEvidence.from_samples(value) for value in values if value is not None]
        found = run_centers(pseudo, thresholds)
        if not isinstance(found, Reason):
            changes = tuple(found[rounds + r][0] - found[r][0] for r in range(rounds))
            errors = tuple(math.hypot(found[r][1], found[rounds + r][1]) for r in range(rounds))
            return changes, errors
    if any(run.clock_rate is not None and not usable_clock(run.clock_rate) for run in runs):
        return Reason.INVALID_CLOCK_RATE
    clocks = [_clock(run) for run in runs]
    if not all(clock is not None for clock in clocks):
        return None
    logs = [centers[i][0] + math.log(clock) for i, clock in enumerate(clocks) if clock is not None]
    return tuple(logs[rounds + r] - logs[r] for r in range(rounds)), None


def slot_floor(changes: Sequence[float], first: Sequence[First] | None) -> tuple[float, int]:
    """``(floor, degrees of freedom)``: the pooled within-slot standard deviation of the
    round changes (module docstring). Falls back to all rounds as one slot when the slots
    leave no degree of freedom; ``(0.0, 0)`` with fewer than two rounds."""
    if len(changes) < 2:
        return 0.0, 0
    groups: dict[str, list[float]] = {}
    if first is None:
        groups["all"] = list(changes)
    else:
        for value, side in zip(changes, first, strict=True):
            groups.setdefault(side, []).append(value)
    df = len(changes) - len(groups)
    if df < 1:
        groups, df = {"all": list(changes)}, len(changes) - 1
    squares = 0.0
    for values in groups.values():
        mean = math.fsum(values) / len(values)
        squares += math.fsum((value - mean) ** 2 for value in values)
    return math.sqrt(squares / df), df


def _chi2_cdf(x: float, df: int) -> float:
    """``P(chi2_df <= x)`` for a whole ``df``, in closed form (Abramowitz & Stegun
    26.4.4-26.4.5): a Poisson sum for even ``df``; the normal tail plus a finite series
    for odd."""
    if x <= 0.0:
        return 0.0
    if df % 2 == 0:
        term, total = 1.0, 1.0
        for k in range(1, df // 2):
            term *= x / 2.0 / k
            total += term
        return max(0.0, 1.0 - math.exp(-x / 2.0) * total)
    root = math.sqrt(x)
    upper = math.erfc(root / math.sqrt(2.0))
    density = math.exp(-x / 2.0) / math.sqrt(2.0 * math.pi)
    term, total = root, 0.0
    for k in range(1, (df + 1) // 2):
        total += term
        term *= x / (2 * k + 1)
    return max(0.0, 1.0 - upper - 2.0 * density * total)


def _chi2_lower_quantile(alpha: float, df: int) -> float:
    """The ``alpha`` quantile of chi-square with ``df`` degrees of freedom: bisection on
    :func:`_chi2_cdf` (the Wilson & Hilferty approximation of :func:`.bootstrap.chi2_quantile`
    is 2-3 % off in the lower tail at 6 degrees of freedom and goes negative for ``df <= 2``)."""
    lo, hi = 0.0, max(1.0, chi2_quantile(0.999, df) if df > 2 else 20.0)
    for _ in range(100):
        mid = (lo + hi) / 2.0
        if _chi2_cdf(mid, df) < alpha:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def floor_upper_bound(floor: float, degrees_of_freedom: int, alpha: float) -> float:
    """The one-sided upper ``1 - alpha`` confidence bound of the jitter whose estimate is
    ``floor`` on ``degrees_of_freedom`` (module docstring): ``floor sqrt(df / chi2_df(alpha))``;
    ``inf`` without a degree of freedom (nothing bounds it)."""
    if degrees_of_freedom < 1:
        return math.inf
    return floor * math.sqrt(degrees_of_freedom / _chi2_lower_quantile(alpha, degrees_of_freedom))


def round_expansion(degrees_of_freedom: int, confidence: float) -> float:
    """``t_df / z`` at the two-sided ``confidence``: the widening of the round-level part of
    the bootstrap, ``df`` the rounds less the slots (1 for no degree of freedom)."""
    if degrees_of_freedom < 1:
        return 1.0
    p = 0.5 + confidence / 2.0
    return student_t_quantile(p, degrees_of_freedom) / normal_quantile(p)


def _slots(first: Sequence[First] | None, rounds: int) -> list[list[int]]:
    """The rounds of each slot, or all rounds as one where a slot has fewer than two."""
    if first is not None and len(first) == rounds:
        groups = [[r for r in range(rounds) if first[r] == side] for side in ("ref", "cmp")]
        if all(len(group) >= 2 for group in groups):
            return groups
    return [list(range(rounds))]


class RoundInterval(msgspec.Struct, frozen=True):
    """The estimate (mean round change, log), its interval and the draws behind it."""

    estimate: float
    lo: float
    hi: float
    draws: npt.NDArray[np.float64]


def _beyond_sampling(
    changes: Sequence[float], errors: Sequence[float], slots: Sequence[Sequence[int]]
) -> float:
    """The share (standard deviations) of the rounds' within-slot spread that sampling
    noise does not explain: ``sqrt(max(0, V - W) / V)``, ``V`` the pooled within-slot
    variance of the round changes, ``W`` the mean of their within-run variances (method of
    moments, as :mod:`.calibrate` splits run-to-run noise). The round part of a draw is
    scaled by it, so that the within-run noise drawn for each round is not counted twice."""
    squares = 0.0
    for group in slots:
        values = [changes[r] for r in group]
        mean = math.fsum(values) / len(values)
        squares += math.fsum((value - mean) ** 2 for value in values)
    df = len(changes) - len(slots)
    if df < 1 or not squares > 0.0:
        return 1.0
    variance = squares / df
    within = math.fsum(error * error for error in errors) / len(errors)
    return math.sqrt(max(0.0, variance - within) / variance)


def _seeded(seed: int, changes: Sequence[float]) -> np.random.Generator:
    # The row's data pick the stream: the same rounds give the same interval whatever else
    # is compared, and different rows draw independently.
    words = [int(seed) & 0xFFFFFFFF]
    words += [int(np.float64(value).view(np.uint64)) & 0xFFFFFFFF for value in changes]
    return np.random.default_rng(np.random.SeedSequence(words))


def paired_interval(
    changes: Sequence[float],
    errors: Sequence[float],
    *,
    confidence: float,
    resamples: int,
    seed: int,
    first: Sequence[First] | None = None,
    normals: FloatArray | None = None,
    picks: np.ndarray | None = None,
) -> tuple[RoundInterval, FloatArray, np.ndarray | None]:
    """The two-stage bootstrap interval of the mean round change (module docstring).

    With ``first`` (the side that went first in each round) the rounds are resampled within
    their slot (stratified: each draw takes as many ref-first rounds as there are), so the
    order effect that alternation cancels in the estimate does not widen the interval
    either. Returns the interval with the standard normal draws and round picks it used, so
    that the cycle space can be resampled with the same rounds and noise (pass them back).
    """
    rounds = len(changes)
    rng = _seeded(seed, changes)
    if normals is None:
        normals = rng.standard_normal((rounds, resamples))
    slots = _slots(first, rounds)
    if picks is None and rounds > 1:
        picks = np.empty((rounds, resamples), dtype=np.int64)
        for group in slots:
            members = np.array(group, dtype=np.int64)
            chosen = rng.integers(0, len(group), size=(len(group), resamples))
            picks[members] = members[chosen]
    levels = [
        Level(center=change, draws=change + error * normals[index])
        for index, (change, error) in enumerate(zip(changes, errors, strict=True))
    ]
    distribution = side_distribution(levels, picks)
    df = rounds - len(slots)
    # side_distribution scales the round part by sqrt(R / (R - 1)); resampled within G
    # slots the unbiased factor is sqrt(R / (R - G)).
    scale = math.sqrt((rounds - 1) / df) if df >= 1 else 1.0
    expansion = round_expansion(df, confidence) * scale * _beyond_sampling(changes, errors, slots)
    draws = distribution.within_part + expansion * distribution.run_part
    draws += distribution.center
    lo, hi = percentile_interval(draws, confidence)
    estimate = distribution.center
    found = RoundInterval(estimate, min(lo, estimate), max(hi, estimate), draws)
    return found, normals, picks
