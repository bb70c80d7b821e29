"""What ``nvbench_compare ab --aa`` prints and writes: floors, false changes, calibration."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from ..compare.filters import FilterPlan
    from ..compare.model import Comparison
    from ..compare.thresholds import Thresholds

__all__ = ["aa_summary"]

#: States listed by name in the summary (the file has them all).
_LISTED: Final = 5


def aa_summary(
    comparison: Comparison,
    directory: Path,
    target: str,
    thresholds: Thresholds,
    filters: FilterPlan,
) -> str:
    """Write the calibration of the A/A series in ``directory`` to ``target`` and return
    the summary text (floors, the paired test's false-change rate, single-run rates)."""
    from .._io import write_text
    from ..compare.paired_inputs import aa_calibration
    from ..report.calibration_text import describe_rates
    from .calibrate import state_label

    calibration = aa_calibration(directory, comparison, thresholds=thresholds, filters=filters)
    write_text(target, calibration.to_json())
    paired = calibration.rates[0]
    floors = sorted(
        (state for state in calibration.states if state.paired_floor is not None),
        key=lambda state: -(state.paired_floor or 0.0),
    )
    lines = [f"A/A: {paired.pairs} paired rounds of one command, {len(comparison.rows)} state(s)"]
    if paired.false_change_rate is not None:
        lines.append(
            f"  paired test: {paired.false_change_rate:.2%} false changes ({paired.false_changes}"
            f" of {paired.decided} states), SAME {paired.same_rate:.1%}, "
            f"AMBG {paired.ambiguous_rate:.1%}"
        )
    if floors:
        values = sorted(math.expm1(state.paired_floor or 0.0) for state in floors)
        median = values[len(values) // 2]
        lines.append(
            f"  A/A floor (jitter of one round's change): median {median:.2%}, "
            f"largest {values[-1]:.2%}; noisiest:"
        )
        lines += [
            f"    {state_label(state)}: {math.expm1(state.paired_floor or 0.0):.2%}"
            for state in floors[:_LISTED]
        ]
    drift = [state.noise_floor for state in calibration.states]
    if drift:
        ordered = sorted(drift)
        lines.append(
            f"  run-to-run drift (unpaired, one run vs. one run): median "
            f"{math.expm1(ordered[len(ordered) // 2]):.2%}, largest {math.expm1(ordered[-1]):.2%}"
        )
    lines += [f"  single runs, {line}" for line in describe_rates(calibration.rates[1:])]
    lines.append(f"Wrote {target}; use it with --calibration {target}")
    return "\n".join(lines) + "\n"
