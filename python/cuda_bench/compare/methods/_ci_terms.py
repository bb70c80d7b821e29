"""Method ``ci``'s adjustments of a row's intervals for what one run cannot show.

Timer lattices (:mod:`..lattice`: half a tick of each side in quadrature with the
interval), drift between runs (:mod:`..drift`: a normal term added to the ratio's draws)
and the mean clocks a cycle conversion used (:func:`..drift.clock_differs`); applied by
:func:`.ci_effects.row_effects`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import msgspec

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..._arrays import FloatArray
else:
    from ..._lazy import numpy as np

from ..bootstrap import RatioDraws, percentile_interval
from ..drift import summary_spread
from ..evidence import SideEvidence
from ..lattice import sample_tick, summary_tick

__all__ = [
    "clock_gap",
    "largest",
    "noised",
    "run_summary_spread",
    "run_tick_share",
    "sample_tick_share",
    "summary_tick_share",
    "widened",
]


def sample_tick_share(ordered: npt.NDArray[Any], center: float) -> float:
    """The run's lattice tick relative to its (log) center, 0 where none."""
    # Continuous times are all distinct: a few hundred of them without a tie say so
    # without sorting the run.
    head = ordered[:256]
    if np.unique(head).size == head.size:
        return 0.0
    tick = sample_tick(ordered)
    return 0.0 if tick is None else tick / math.exp(center)


def summary_tick_share(run: SideEvidence) -> float:
    timing = run.timing
    tick = summary_tick(timing.min, timing.q1, timing.median, timing.q3, timing.max)
    return 0.0 if tick is None or timing.median is None else tick / timing.median


def run_tick_share(run: SideEvidence) -> float:
    """The run's lattice tick relative to its median: from its samples where they are
    usable, else from its summaries; 0 where none is found (the paired method's rounds)."""
    ordered = run.bulk.ordered_times() if run.bulk.has_times() else None
    if ordered is not None and ordered.size:
        return sample_tick_share(ordered, math.log(float(np.median(ordered))))
    return summary_tick_share(run)


def run_summary_spread(run: SideEvidence, tick: float) -> float | None:
    timing = run.timing
    return summary_spread(timing.q1, timing.median, timing.q3, timing.min, run.sample_count, tick)


def widened(ratio: RatioDraws | None, by: float) -> RatioDraws | None:
    """``ratio`` with the rounding bound ``by`` (log units, :func:`..lattice.tick_widening`)
    added in quadrature to both half-widths: never less than ``by`` from the estimate (a
    change of one tick reaches zero), little more where sampling spans many ticks."""
    if ratio is None or not by > 0:
        return ratio
    estimate = ratio.estimate
    below = math.hypot(estimate - ratio.lo, by)
    above = math.hypot(ratio.hi - estimate, by)
    return msgspec.structs.replace(ratio, lo=estimate - below, hi=estimate + above)


def noised(ratio: RatioDraws, noise: FloatArray | None, confidence: float) -> RatioDraws:
    """Bootstrap ratio draws with a between-run term added (``noise``: one value a draw)."""
    if noise is None or ratio.draws is None:
        return ratio
    draws = ratio.draws + noise
    lo, hi = percentile_interval(draws, confidence)
    estimate = ratio.estimate
    return msgspec.structs.replace(ratio, lo=min(lo, estimate), hi=max(hi, estimate), draws=draws)


def clock_gap(
    runs: Sequence[SideEvidence], cycle_mode: Literal["samples", "clock"] | None
) -> float:
    """The log gap between the largest and the smallest mean clock of ``runs``."""
    if cycle_mode != "clock":
        return 0.0
    clocks = [math.log(run.clock_rate) for run in runs if run.clock_rate is not None]
    return max(clocks) - min(clocks) if clocks else 0.0


def largest(values: Sequence[float | None]) -> float | None:
    known = [value for value in values if value is not None]
    return max(known) if known else None
