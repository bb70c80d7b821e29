"""One line of text per method and preset of an A/A calibration's false-change rates."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..compare.calibrate import MethodRate

__all__ = ["describe_rates"]


def describe_rates(rates: Iterable[MethodRate]) -> list[str]:
    """One line per method and preset: ``ci/default: 0.4% false changes (2 of 480) ...``."""
    lines = []
    for rate in rates:
        if rate.false_change_rate is None:
            lines.append(f"{rate.method}/{rate.preset}: no decided rows")
            continue
        lines.append(
            f"{rate.method}/{rate.preset}: {rate.false_change_rate:.2%} false changes "
            f"({rate.false_changes} of {rate.decided} row comparisons over {rate.pairs} "
            f"pair(s) of runs), SAME {rate.same_rate:.1%}, AMBG {rate.ambiguous_rate:.1%}"
        )
    return lines
