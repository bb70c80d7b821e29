"""The gate's reference runs moved to tonight's place in a cycle (:mod:`.gate`).

Where the detection took a cycle of ``P`` runs out of a series (a weekly schedule of
machines or load, :mod:`._seasonal`), the level's runs spread over the whole cycle, and
the gate's band, the A/A calibration of those runs, read the cycle as noise: a 4 % weekend
in 0.5 % noise made every night AMBG ``too_noisy_to_judge`` (a band of ±5.2 %, above the
±5 % cap), and a run's distance from the level's middle depended on its weekday. So each
reference run of such a series is moved by the pattern's difference between tonight's
phase and its own (tonight's run follows the series' last run): its stored median,
interval and mean, and its stored samples, are multiplied by
``exp(pattern[tonight] - pattern[run])``, the relative noise and the clocks kept. The band
is then the noise about the cycle, and tonight's run is compared with the level as it
stands on tonight's phase. The pattern is an estimate; its error moves every reference
run of one phase alike, which the band does not see (docs/history-detection.md, Limits).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ._gate_states import with_note

if TYPE_CHECKING:
    from ..compare.model import Comparison
    from ._gate_states import GateLevel, LevelKey, StoredKey

__all__ = ["phase_offsets", "phased", "phased_note"]


def phase_offsets(
    pattern: Sequence[float], indices: Sequence[int], tonight: int
) -> tuple[float, ...]:
    """Per run index, the log offset that moves it to run ``tonight``'s phase of
    ``pattern`` (phase ``t mod P`` from run 0); ``()`` without a pattern."""
    if not pattern:
        return ()
    period = len(pattern)
    there = pattern[tonight % period]
    return tuple(float(there - pattern[index % period]) for index in indices)


def phased(
    levels: Mapping[LevelKey, GateLevel],
    stored: Mapping[StoredKey, tuple[Any, ...]],
    samples: Mapping[StoredKey, Any],
) -> tuple[dict[StoredKey, tuple[Any, ...]], dict[StoredKey, Any]]:
    """``stored`` and ``samples`` with each reference run of a level with offsets moved to
    tonight's phase (module docstring); the others as they are."""
    moved = dict(stored)
    drawn = dict(samples)
    for (benchmark, device, state), level in levels.items():
        for run, offset in zip(level.runs, level.offsets, strict=False):
            key = (run, benchmark, device, state)
            factor = math.exp(offset)
            found = moved.get(key)
            if found is not None:
                median, lo, hi, mean, *rest = found
                moved[key] = (
                    *(
                        None if value is None else float(value) * factor
                        for value in (median, lo, hi, mean)
                    ),
                    *rest,
                )
            times = drawn.get(key)
            if times is not None and times[0] is not None:
                drawn[key] = (np.asarray(times[0], dtype=np.float64) * factor, *times[1:])
    return moved, drawn


def phased_note(comparison: Comparison, levels: Mapping[LevelKey, GateLevel]) -> Comparison:
    """``comparison`` with a note naming how many states were compared at tonight's place
    in a cycle; ``comparison`` itself where none was."""
    periods = sorted({level.period for level in levels.values() if level.offsets})
    if not periods:
        return comparison
    count = sum(1 for level in levels.values() if level.offsets)
    shown = ", ".join(str(period) for period in periods)
    return with_note(
        comparison,
        f"{count} state(s) follow a cycle (of {shown} runs; nvbench-history detect): their "
        "reference runs are moved to tonight's place in it before the comparison, so the band "
        "is the noise about the cycle and the reference centres are those of tonight's phase",
    )
