"""A cycle taken out of a :class:`.model.RunSeries` at its runs' own places.

The scan takes a cycle out of the log medians it is given (:mod:`._seasonal`). Where a
series has missing runs, :func:`.detect` scans the runs with a value, and a cycle read from
those alone would slip a phase at every gap: a step beside a weekly cycle was found in 30,
25 and 2 of 30 series with one, two and four missing runs (docs/history-detection-record.md).
So there the cycle is looked for in the whole series at the runs' own phases, and taken out
of every run at its phase before the runs with a value are scanned. A filled value is never
evidence of a cycle: the test compares only differences of two observed runs, the periods
are bounded by the observed runs (eight cycles of them), and each phase's median is of its
observed runs (:func:`._seasonal.seasonal_patterns` with ``observed``); only the running
level the pattern is measured from runs over the gaps, each missing run filled by linear
interpolation between its observed neighbours.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
import numpy as np

from .._arrays import BoolArray, FloatArray
from ._seasonal import pattern_over, seasonal_patterns
from .model import RunSeries

__all__ = ["less_cycle", "run_cycles"]


def run_cycles(series: Sequence[RunSeries]) -> list[tuple[float, ...]]:
    """Per series, the pattern of its cycle (phase ``t mod P`` from its run 0, missing runs
    counted; ``()`` where it shows none), series of one length tested together."""
    by_length: dict[int, list[int]] = {}
    for position, one in enumerate(series):
        by_length.setdefault(one.runs, []).append(position)
    out: list[tuple[float, ...]] = [() for _ in series]
    for members in by_length.values():
        observed = {i: ~np.isnan(series[i].medians) for i in members}
        filled = {
            i: row
            for i in members
            if (row := _filled_logs(series[i].medians, observed[i])) is not None
        }
        if not filled:
            continue
        logs = np.stack(list(filled.values()))
        marks = np.stack([observed[i] for i in filled])
        for position, pattern in zip(filled, seasonal_patterns(logs, marks), strict=True):
            out[position] = pattern
    return out


def _filled_logs(medians: FloatArray, observed: BoolArray) -> FloatArray | None:
    """The log medians with each missing run (``~observed``; :class:`.model.RunSeries`
    holds no other value without a logarithm) filled by linear interpolation, the end
    values held beyond the first and last; ``None`` with fewer than two values."""
    present = np.flatnonzero(observed)
    if present.size < 2:
        return None
    logs = np.log(np.asarray(medians, dtype=np.float64)[present])
    filled: FloatArray = np.interp(np.arange(observed.size), present, logs)
    return filled


def less_cycle(one: RunSeries, pattern: Sequence[float]) -> RunSeries:
    """``one`` with every run divided by the cycle at its phase (medians, samples and
    intervals; a missing run stays missing); ``one`` itself without a pattern."""
    if not pattern:
        return one
    factor = np.exp(pattern_over(pattern, one.runs))
    lo, hi = one.median_lo, one.median_hi
    return msgspec.structs.replace(
        one,
        medians=np.asarray(one.medians) / factor,
        samples=None
        if one.samples is None
        else tuple(run / factor[i] for i, run in enumerate(one.samples)),
        median_lo=None if lo is None else np.asarray(lo) / factor,
        median_hi=None if hi is None else np.asarray(hi) / factor,
    )
