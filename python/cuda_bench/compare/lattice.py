"""Quantised timers: the tick of a lattice that a run's samples, or its summaries, sit on.

A GPU timer that counts in steps of ``h`` (``1.024e-6`` s on some consumer GPUs under
WSL2, ``32e-9`` s on others; CPU clocks of ``1e-8`` s and more) puts every sample time, and
so every median and quartile, on the lattice ``k * h``. The median of such data is not a
continuous quantity: it moves between runs by whole ticks, and the normal (or bootstrap)
interval of a sample quantile, built for continuous data, does not describe it (Ma,
Genton & Parzen 2011, *Asymptotic properties of sample quantiles of discrete
distributions*, Ann. Inst. Stat. Math. 63: the sample quantile of a discrete distribution
is not asymptotically normal, and sits on the support). What the lattice does say is that
a lattice median stands for an underlying level known only to within half a tick: the
rounding bound of grouped data (Sheppard 1898 derived the matching variance correction
``h**2 / 12`` for moments).
:mod:`.methods.ci_effects` adds half a tick of each side (:func:`tick_widening`) to a
change's interval, in quadrature with its half-widths: an interval of tied medians
(zero width) grows by the whole bound, so a change of one tick or less is never a
confident change, while one whose sampling already spans many ticks grows little (the
rounding variance ``h**2 / 12`` is then small beside the sampling variance, as Sheppard's
correction says).

Detection is deliberately strict, so that continuous data never widen:

* from samples (:func:`sample_tick`): the distinct values, after merging those that differ
  only by float32 rounding, are few (ties are the rule) and their spacings are all whole
  multiples of the smallest one;
* from summaries (:func:`summary_tick`): the minimum, quartiles, median and maximum are all
  whole multiples (within 1/1000 of a tick) of one tick ``h`` that is a whole fraction of
  their smallest spacing and at least 1/1000 of the median: four distinct random real
  numbers pass that by chance with probability ~1e-9. Three suffice when the median ties
  a quartile (a narrow state on a coarse timer), which continuous samples never do.

A tick below :data:`MIN_RELATIVE_TICK` of the median is ignored either way: it cannot
matter against a tolerance band of 1 %.
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:
    from .._lazy import numpy as np

__all__ = ["MIN_RELATIVE_TICK", "sample_tick", "summary_tick", "tick_widening"]

#: Ticks smaller than this share of the median are ignored (they cannot matter).
MIN_RELATIVE_TICK: Final = 1e-3
#: Values closer than this (relative) are one value: float32 rounding of ``k * h``.
_SAME_VALUE: Final = 1e-6
#: A value is on the lattice when it lies within this share of a tick of a multiple.
_ON_LATTICE: Final = 1e-3
#: Samples are quantised only when at most this share of them are distinct values.
_MAX_DISTINCT_SHARE: Final = 0.5
#: Summaries: the tick is tried as the smallest spacing divided by 1 .. this.
_MAX_DIVISOR: Final = 64


def _off_lattice_limit(value: float, tick: float) -> float:
    """How far (in ticks) ``value`` may lie from a multiple of ``tick`` and count as on it:
    1/1000 of a tick, or the float32 rounding of a large value (an outlier thousands of
    ticks long is stored to about a millionth of itself)."""
    return max(_ON_LATTICE, _SAME_VALUE * abs(value) / tick)


def _on_lattice(values: npt.NDArray[Any], tick: float) -> bool:
    units = values / tick
    limit = np.maximum(_ON_LATTICE, _SAME_VALUE * np.abs(units))
    return bool(np.all(np.abs(units - np.rint(units)) <= limit))


def sample_tick(values: npt.NDArray[Any]) -> float | None:
    """The tick of the lattice a run's sample times sit on, or ``None`` (module docstring).

    ``values`` are positive and finite, in any order. Offsets are allowed (the spacings
    are checked, not the values).
    """
    size = int(values.size)
    if size < 4:
        return None
    distinct = np.unique(values.astype(np.float64))
    if distinct.size < 2 or distinct.size > _MAX_DISTINCT_SHARE * size:
        return None
    # Merge values that differ only by float32 rounding of one lattice point.
    gaps = np.diff(distinct)
    keep = gaps > _SAME_VALUE * distinct[1:]
    points = np.concatenate((distinct[:1], distinct[1:][keep]))
    if points.size < 2:
        return None
    spacings = np.diff(points)
    tick = float(spacings.min())
    median = float(np.median(values))
    if not tick >= MIN_RELATIVE_TICK * median:
        return None
    offsets = points - points[0]
    # The smallest spacing, a difference of two float32 values, carries their rounding:
    # a relative error that grows, in ticks, with a point's distance (an outlier a hundred
    # ticks out lands a thousandth of a tick off). The least-squares tick of all points on
    # their nearest multiples removes it before the lattice is checked.
    units = np.rint(offsets / tick)
    tick = float(offsets @ units / (units @ units))
    return tick if _on_lattice(offsets, tick) else None


def summary_tick(
    minimum: float | None,
    q1: float | None,
    median: float | None,
    q3: float | None,
    maximum: float | None,
) -> float | None:
    """The tick that a run's summaries all sit on as whole multiples, or ``None`` (module
    docstring). Needs four distinct values, or three with tied quartiles (a sample
    quantile of continuous data never ties another)."""
    if median is None or not (math.isfinite(median) and median > 0):
        return None
    values = (minimum, q1, median, q3, maximum)
    known = sorted({v for v in values if v is not None and math.isfinite(v) and v > 0})
    tied = median in (q1, q3)
    if len(known) < (3 if tied else 4):
        return None
    # Five numbers: plain floats (a comparison from summaries alone never loads numpy).
    smallest = min(high - low for low, high in itertools.pairwise(known))
    for divisor in range(1, _MAX_DIVISOR + 1):
        tick = smallest / divisor
        if tick < MIN_RELATIVE_TICK * median:
            return None
        if all(
            abs(value / tick - round(value / tick)) <= _off_lattice_limit(value, tick)
            for value in known
        ):
            return tick
    return None


def tick_widening(ref_tick: float, cmp_tick: float) -> float:
    """How far (log units) a change's interval widens on each side for lattice medians.

    ``ref_tick`` and ``cmp_tick`` are each side's tick relative to its center (0 where no
    lattice was found). Each center is known to within half its tick; ``h/(2m)`` per side
    bounds the log ratio's rounding from above (``log(1 + x) <= x/2 + x/(2 (1 + x))``), so
    medians one tick apart always give an interval that reaches zero.
    """
    return (ref_tick + cmp_tick) / 2.0
