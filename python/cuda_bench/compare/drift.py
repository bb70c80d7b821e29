"""Run-to-run drift that one run per side cannot measure: how much a single-run verdict allows.

A run's median is a level of its machine at the time of the run, not a property of the
code: real GPUs move it between runs of one binary (on a laptop RTX 4060 under WSL2, by up
to ±6 % while its within-run interval said ±0.5 %; docs/ci-method.md). Several runs per
side or an A/A calibration measure that drift; one run against one run does not, so the
``ci`` method adds to each single run's level a normal term of standard deviation
:func:`run_drift_sd` (log units), the larger of two estimates:

* **Excess spread** (:func:`spread_drift_sd`, from the summaries or the samples): the
  samples' robust log spread ``s`` (the larger of the interquartile spread, ``log(q3/q1) /
  1.349``, and the lower-tail spread, ``log(median/min) / z_n`` with ``z_n`` the expected
  standard normal minimum of ``n`` samples, Blom 1958; on a timer lattice the interquartile
  range counts as at least one tick) beyond :data:`QUIET_SPREAD`, taken
  in quadrature: ``sqrt(s**2 - QUIET_SPREAD**2)``. A quiet GPU's kernel spreads by about
  1 % (sampling jitter that averages out in a median); whatever spreads the samples beyond
  that comes from the environment (clocks, contention, scheduling, interference), and the
  rule assumes that the environment can move a run's level by as much as it spreads the
  samples within the run. The measured facts behind the form and the 2 % are in
  docs/ci-method.md; a lower tail counts because a kernel cannot run faster than its
  hardware lets it, so samples far below the median say the bulk of the run was slowed.
* **The slow part within the run** (:func:`slow_drift_sd`, side files only): the batch
  medians of :func:`..bootstrap.batch_standard_error` (consecutive batches in measurement
  order: the batch-means estimate of the long-run variance, Schmeiser 1982; Flegal & Jones
  2010) spread more than sampling explains when the run wanders. Their excess standard
  deviation is how far the level moved within the run; the next run, started later,
  can sit anywhere in that range, so it is taken as a between-run term too. Applied only
  when the batch test finds drift (its 99.9 % level), so stationary runs keep their
  intervals exactly.

A calibration or several runs per side measure the drift instead, and this term is not
added (:func:`..methods.ci_effects.row_effects`). A side of one run that drifts within itself
still leaves the drift *between* runs unmeasured, and the ``ci`` method refuses FAST/SLOW
for it (``run_not_stationary``), unless a calibration measured the state's run-to-run drift
and the run's slow drift is below what the calibrated band allows for between runs
(:func:`wander_allowed`).

**Clocks.** Scaling a median time by a run's *mean* SM clock assumes that clock describes
every sample. When the mean clocks of the runs differ by more than half the tolerance and
the state's times spread wider than that difference and wider than a quiet state does
(:data:`QUIET_SPREAD`: a wide, often multimodal state, whose mean clock is an average over
samples at different clocks), the cycle estimate is not trustworthy and the row is AMBG
``clock_differs`` (:func:`clock_differs`). A narrow state whose clock moved as a whole
(throttling) keeps ``clock_change_explains_time``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:
    from .._lazy import numpy as np

from .bootstrap import normal_quantile

__all__ = [
    "DEFAULT_TARGET_RATE",
    "QUIET_SPREAD",
    "clock_differs",
    "sample_spread",
    "slow_drift_sd",
    "spread_drift_sd",
    "summary_spread",
    "wander_allowed",
]

#: The log spread of a quiet state (sampling jitter only): drift is assumed beyond it.
QUIET_SPREAD: Final = 0.03
#: Runs longer than twice this have their quartiles read from a strided subsample.
_QUARTILE_SAMPLES: Final = 1024
#: The interquartile range of a standard normal distribution.
_NORMAL_IQR: Final = 1.3489795003921634


def _expected_minimum(count: int) -> float:
    """``-E[min]`` of ``count`` standard normal samples (Blom's plotting position)."""
    return -normal_quantile((1.0 - 0.375) / (count + 0.25))


def summary_spread(
    q1: float | None,
    median: float | None,
    q3: float | None,
    minimum: float | None,
    count: int | None,
    tick: float = 0.0,
) -> float | None:
    """The robust log spread ``s`` of a run from its summaries (module docstring), or
    ``None`` when neither the quartiles nor the minimum with a sample count are known.
    ``tick``: the timer's tick relative to the median (:mod:`.lattice`), 0 if none."""
    if median is None or not (math.isfinite(median) and median > 0):
        return None
    spreads = []
    if q1 is not None and q3 is not None and 0 < q1 <= q3 and math.isfinite(q3):
        # On a timer lattice the quartiles hide up to a tick of spread: never less.
        spreads.append(max(math.log(q3 / q1), tick) / _NORMAL_IQR)
    if (
        minimum is not None
        and count is not None
        and count >= 8
        and math.isfinite(minimum)
        and 0 < minimum <= median
    ):
        spreads.append(math.log(median / minimum) / _expected_minimum(count))
    return max(spreads) if spreads else None


def sample_spread(values: npt.NDArray[Any], tick: float = 0.0) -> float | None:
    """:func:`summary_spread` from a run's samples (positive, finite, any order)."""
    size = int(values.size)
    if size < 8:
        return None
    # The quartiles of an evenly strided subsample of at most ~2,048 values: the spread is
    # a scale, not a test statistic, and a full partition per run and space would cost
    # more than the bootstrap. The minimum is the whole run's.
    step = max(1, size // _QUARTILE_SAMPLES)
    sub = values[::step]
    count = int(sub.size)
    ranks = [count // 4, count // 2, (3 * count) // 4]  # distinct for 8 values and more
    q1, median, q3 = (float(value) for value in np.partition(sub, ranks)[ranks])
    return summary_spread(q1, median, q3, float(values.min()), size, tick)


def spread_drift_sd(spread: float | None) -> float:
    """The between-run standard deviation (log units) the excess spread allows."""
    if spread is None or not spread > QUIET_SPREAD:
        return 0.0
    return math.sqrt(spread * spread - QUIET_SPREAD * QUIET_SPREAD)


def slow_drift_sd(excess_se: float, batches: int) -> float:
    """The level's wander within a run: the excess standard error of the run's median
    (batch over bootstrap, in quadrature) times ``sqrt(batches)``, the excess standard
    deviation of one batch's median."""
    return excess_se * math.sqrt(batches)


def clock_differs(clock_gap: float, spread: float | None, tolerance: float) -> bool:
    """Mean clocks ``clock_gap`` apart (log units, largest over smallest) cannot convert
    the medians of a state of log spread ``spread`` to cycles (module docstring)."""
    if spread is None:
        return False
    return clock_gap > math.log1p(tolerance) / 2.0 and spread > max(clock_gap, QUIET_SPREAD)


#: Default per-state false-change probability a calibrated tolerance allows
#: (:func:`..calibrate.calibrate`'s ``target_rate``), and its two-sided normal quantile,
#: which the drift rule assumes of a calibrated band.
DEFAULT_TARGET_RATE: Final = 0.01
_CALIBRATION_Z: Final = normal_quantile(1.0 - DEFAULT_TARGET_RATE / 2.0)


def wander_allowed(wander: float, tolerance: float, noise_floor: float = 0.0) -> bool:
    """Whether a run's slow drift within itself (``wander``, log standard deviation,
    :func:`slow_drift_sd`) fits in what a calibrated band of ``tolerance`` allows for
    beside the state's run-to-run noise ``noise_floor`` (log; 0 where the calibration did
    not raise the band, which then covers more than the state's noise needs).

    A calibration sets a state's band to about ``expm1(z sqrt(2) s)`` for its run-to-run
    noise floor ``s`` (:mod:`..calibrate`, ``z`` of its default 1 % target rate; the
    calibration uses Student's t, a little wider), so the band covers run-to-run noise up to
    ``b = log1p(tolerance) / (z sqrt 2)``. The run's wander comes on top of the state's
    usual noise, so it may take only what is left: ``wander**2 <= b**2 - s**2``. The batch
    test finds drift of no practical size in runs of thousands of samples; a drift beyond
    that is what an unsettled machine shows, and the run is not trusted for a change. A
    calibration at a stricter target rate than 1 % is held to the 1 % rate here.
    """
    room = math.log1p(tolerance) / (_CALIBRATION_Z * math.sqrt(2.0))
    return wander * wander <= room * room - noise_floor * noise_floor
