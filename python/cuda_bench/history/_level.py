"""A series' current level: the median of its per-run medians since its last change, and
a 95 % interval of that median when its runs are enough for one (:func:`current_level`).

**The interval, and when there is none.** The level is NVBench's nearest-rank median of
the level's ``n`` per-run medians; its interval is their percentile bootstrap (the
comparison's order-statistic bootstrap, as the archive's per-run medians:
:func:`.archive.median_with_interval`). Every bootstrap median is one of the ``n`` values,
so the interval lies within ``[x_(1), x_(n)]``, and that range covers the median of the
runs' distribution with probability ``1 - 2^(1-n)`` whatever the distribution (each run
falls on either side of the median with probability 1/2: the distribution-free interval
of a median, Conover, *Practical Nonparametric Statistics*, 3rd ed., 1999, section 3.4;
Hahn & Meeker, *Statistical Intervals*, 1991, section 5.2). Below :data:`LEVEL_INTERVAL_RUNS`
(6) runs that is under 95 % (5 runs: 93.8 %; 1 run: 0), so no interval of the runs' spread
is a 95 % one: the bootstrap of one value is ``[x, x]`` and of two a one-sided
``[x_(1), x_(2)]`` around the upper one. Such a level has no interval (NaN; ``null`` in the
detect report, no band in the plots). The runs' own stored intervals are not used in its
place: they cover each run's sampling error, not the drift between runs, which the level's
uncertainty is mostly made of and which so few runs cannot measure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, Protocol

import msgspec
import numpy as np

from ..compare.bootstrap import median_rank
from .archive import median_with_interval

if TYPE_CHECKING:
    from .._arrays import FloatArray

__all__ = ["LEVEL_CONFIDENCE", "LEVEL_INTERVAL_RUNS", "Level", "current_level"]

_LEVEL_RESAMPLES: Final = 2000
#: Confidence of a level's interval.
LEVEL_CONFIDENCE: Final = 0.95
#: Fewest runs of a level with an interval: the least ``n`` with ``1 - 2^(1-n) >= 0.95``
#: (module docstring).
LEVEL_INTERVAL_RUNS: Final = math.ceil(1.0 + math.log2(1.0 / (1.0 - LEVEL_CONFIDENCE)))


class _Series(Protocol):
    """What a level reads of a series (:class:`.series.ArchiveSeries`, which imports this
    module: named here by what it has, not imported back)."""

    @property
    def medians(self) -> FloatArray: ...


class Level(msgspec.Struct, frozen=True):
    """A series' current level: runs since its last change, their median and its interval
    (``lo`` and ``hi`` NaN for fewer than :data:`LEVEL_INTERVAL_RUNS` runs)."""

    since: int
    runs: int
    median: float
    lo: float
    hi: float

    @property
    def has_interval(self) -> bool:
        return math.isfinite(self.lo) and math.isfinite(self.hi)

    def bounds(self) -> tuple[float | None, float | None]:
        """``(lo, hi)`` for a report: ``(None, None)`` where the level has no interval."""
        return (self.lo, self.hi) if self.has_interval else (None, None)


def current_level(series: _Series, change_indices: Sequence[int], *, seed: int = 0) -> Level:
    """The level of ``series`` from its last change (``change_indices``, run indices) on."""
    since = max(change_indices, default=0)
    values = series.medians[since:]
    if values.size < LEVEL_INTERVAL_RUNS:
        ordered = np.sort(values.astype(np.float64))
        median = float(ordered[median_rank(ordered.size)]) if ordered.size else math.nan
        return Level(since, int(values.size), median, math.nan, math.nan)
    rng = np.random.default_rng(np.random.SeedSequence([seed, values.size]))
    median, lo, hi = median_with_interval(values, rng, _LEVEL_RESAMPLES)
    return Level(since, int(values.size), median, lo, hi)
