"""An empirical-Bayes prior for the run-to-run variances of the states of one machine.

Each state's run-to-run variance comes from few runs (``d`` degrees of freedom, ``R - 1``
for ``R`` runs), so by chance it can come out far below the state's true variance: on a
machine that switches between two speeds, all of four runs of a state land in one mode with
probability ``2 / 2^4``. Borrowing from the other states helps only as far as they share
the state's noise, and real machines do not share one noise across states: on an NVIDIA
H200 (2026-11-28; ``docs/history-quality.md``, *A real GPU history*) the run-to-run spread
of the log medians of one benchmark's states ran from 0.01 % (134M elements, memory-bound)
to 2 % (4K elements, launch-bound), and 20 % for a reduction with two clock modes. A median
over the states (the former rule) gave the quiet states a band of ±4.6 % in the gate and a
tolerance of ±7.4 % in a calibration, and a clean 3 % regression passed.

Smyth's moderated variances (Smyth 2004, *Linear models and empirical Bayes methods for
assessing differential expression in microarray experiments*, Statistical Applications in
Genetics and Molecular Biology 3(1), article 3, section 6.2) take the states' sample
variances ``s_g^2`` as scaled chi-square draws around variances that follow a scaled
inverse chi-square prior with ``d0`` degrees of freedom and scale ``s0^2``; the posterior
(moderated) variance of a state is ``(d0 s0^2 + d_g s_g^2) / (d0 + d_g)``. Smyth matches
``d0`` and ``s0^2`` to the mean and variance of the ``log s_g^2``; here they are matched to
their median and the distance from the median up to the upper quartile (robust, in the
spirit of Phipson, Lee, Majewski, Alexander & Smyth 2016, *Robust hyperparameter estimation
protects against hypervariable genes*, Annals of Applied Statistics 10:946). Callers lift
only the states below the prior, so the prior must not be set by them: on a two-speed
machine the one in eight states whose four runs all landed in one mode (or more, where
short states do not switch). Up to an eighth of the states sitting low barely move it; a
quarter lowers a lucky state's lifted floor by about a sixth against the median rule (1 %
shared noise, 40 states: 0.61 % against 0.73 %), a third by about 40 %, and from half on
it no longer lifts them (the median rule failed there too). With Wilson-Hilferty's quantiles of
``chi2_d`` (``q_p(d) = d (1 - 2/(9d) + z_p sqrt(2/(9d)))^3``), ``m(d) = log(q_0.5(d) / d)``
and ``e_g = log s_g^2 - m(d_g)``, the spread of the ``e_g`` above their median,
``Q_0.75(e) - Q_0.5(e)``, is matched (in quadrature, as for normal spreads) by the sampling
part, the mean over the states of ``log q_0.75(d_g) - log q_0.5(d_g)``, and the prior's
part ``log q_0.5(d0) - log q_0.25(d0)``, solved for ``d0``; ``s0^2 = exp(median(e) +
m(d0))``. When the sampling part explains the spread, ``d0`` is infinite and every state
takes at least ``s0^2`` (the states share one noise); when the states spread widely,
``d0`` is small and each keeps close to its own.
Zero variances (quantised timers repeat a value) are raised to ``1e-5`` times the median
first, as limma does.

Callers use the moderated variance as a least variance only, never to narrow a state's own
(trust before speed: a state noisier than the prior keeps its own noise).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from .bootstrap import NORMAL_MAD

__all__ = ["VariancePrior", "least_floors", "moderated_spreads", "variance_prior"]

#: Fewest states the prior is estimated from (their quartiles need a few).
MIN_STATES: Final = 5
#: Smallest prior degrees of freedom searched (Wilson-Hilferty's lower quartile is positive).
_LEAST_PRIOR_DF: Final = 0.44
#: The standard normal's upper quartile, ``Phi^-1(3/4)`` (which is also its MAD).
_NORMAL_QUARTILE: Final = NORMAL_MAD

#: Zero variances are raised to this fraction of the median variance (limma's rule).
_ZERO_VARIANCE: Final = 1e-5


@dataclass(frozen=True, slots=True)
class VariancePrior:
    """The prior of the states' variances: scale ``variance`` (``s0^2``) and
    ``degrees_of_freedom`` (``d0``, ``math.inf`` when the states share one variance)."""

    variance: float
    degrees_of_freedom: float

    def moderated(self, variance: float, degrees_of_freedom: float) -> float:
        """The posterior variance of a state whose own is ``variance`` on
        ``degrees_of_freedom``."""
        if math.isinf(self.degrees_of_freedom):
            return self.variance
        weight = self.degrees_of_freedom
        return (weight * self.variance + degrees_of_freedom * variance) / (
            weight + degrees_of_freedom
        )


def variance_prior(
    variances: Sequence[float], degrees_of_freedom: Sequence[float]
) -> VariancePrior | None:
    """The prior (module docstring) of states with sample ``variances`` on
    ``degrees_of_freedom`` each; ``None`` with fewer than :data:`MIN_STATES` usable states
    (finite, non-negative, at least one degree of freedom) or when half of them or more are
    0 (their median says nothing of the others)."""
    pairs = [
        (float(v), float(d))
        for v, d in zip(variances, degrees_of_freedom, strict=True)
        if math.isfinite(v) and v >= 0.0 and math.isfinite(d) and d >= 1.0
    ]
    if len(pairs) < MIN_STATES:
        return None
    median = _quantile(sorted(v for v, _ in pairs), 0.5)
    if not median > 0.0:
        return None
    least = _ZERO_VARIANCE * median
    centred = sorted(math.log(max(v, least)) - _log_chi2_quantile(0, d) for v, d in pairs)
    center = _quantile(centred, 0.5)
    upper = _quantile(centred, 0.75) - center
    sampling = sum(_log_chi2_quantile(1, d) - _log_chi2_quantile(0, d) for _, d in pairs) / len(
        pairs
    )
    if upper <= sampling:
        return VariancePrior(math.exp(center), math.inf)
    wanted = math.sqrt(upper * upper - sampling * sampling)
    # The prior's part falls as d0 grows: bisect on log d0, from where Wilson-Hilferty's
    # lower quartile still holds (a smaller d0 shrinks a state by under 3 % anyway).
    low, high = math.log(_LEAST_PRIOR_DF), math.log(1e6)
    for _ in range(80):
        middle = 0.5 * (low + high)
        d0 = math.exp(middle)
        if _prior_spread(d0) > wanted:
            low = middle
        else:
            high = middle
    prior_df = math.exp(0.5 * (low + high))
    return VariancePrior(math.exp(center + _log_chi2_quantile(0, prior_df)), prior_df)


def _prior_spread(degrees_of_freedom: float) -> float:
    """``log q_0.5(d0) - log q_0.25(d0)``, falling in ``d0``; infinite where Wilson-Hilferty's
    lower quartile is no longer positive (``d0`` below 0.431). It overstates the spread
    below ``d0 = 1`` (4.97 at 0.5 against 2.80 simulated), so a prior that weak comes out
    weaker still: the state keeps nearer its own variance, the side of caution here."""
    third = 2.0 / (9.0 * degrees_of_freedom)
    lower = 1.0 - third - _NORMAL_QUARTILE * math.sqrt(third)
    if lower <= 0.0:
        return math.inf
    return 3.0 * (math.log(1.0 - third) - math.log(lower))


def _log_chi2_quantile(quartile: int, degrees_of_freedom: float) -> float:
    """``log(q(d) / d)``, Wilson-Hilferty's quantile of ``chi2_d`` over ``d``
    (``quartile`` 0 or 1: the median or the upper quartile; 0.04 off at ``d = 1``, 0.01 from
    ``d = 3``)."""
    third = 2.0 / (9.0 * degrees_of_freedom)
    base = 1.0 - third + quartile * _NORMAL_QUARTILE * math.sqrt(third)
    return 3.0 * math.log(max(base, 1e-6))


def _quantile(ordered: Sequence[float], q: float) -> float:
    """The ``q`` quantile of sorted values, linearly interpolated (numpy's default)."""
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (position - low) * (ordered[high] - ordered[low])


def moderated_spreads(spreads: Sequence[float], degrees_of_freedom: Sequence[float]) -> list[float]:
    """Each state's moderated standard deviation: the posterior of its sample standard
    deviation ``spreads`` (on ``degrees_of_freedom``) under the prior of them all; its own
    where there is no prior, and infinite for a state without a usable spread (NaN,
    infinite, negative: nothing it could be judged against)."""
    prior = variance_prior([s * s for s in spreads], degrees_of_freedom)
    out = []
    for spread, df in zip(spreads, degrees_of_freedom, strict=True):
        if not (math.isfinite(spread) and spread >= 0.0):
            out.append(math.inf)
        elif prior is None:
            out.append(spread)
        else:
            out.append(math.sqrt(prior.moderated(spread * spread, df)))
    return out


def least_floors(
    spreads: Sequence[float], withins: Sequence[float], degrees_of_freedom: Sequence[float]
) -> list[float]:
    """Each state's least run-to-run noise floor: the moderated variance of its log centers
    (:func:`moderated_spreads` of their sample standard deviations ``spreads``) less its
    within-run variance (``withins``, a standard deviation), at least 0. The variances of the
    centers are moderated rather than the floors, which are often exactly 0 (runs that agree
    within their sampling error) and would make the states look far more different than
    they are."""
    return [
        math.sqrt(max(0.0, total * total - within * within))
        for total, within in zip(
            moderated_spreads(spreads, degrees_of_freedom), withins, strict=True
        )
    ]
