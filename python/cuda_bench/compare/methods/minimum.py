"""The fewest samples a side needs before any method may call a row FAST, SLOW or SAME.

One sample per side gives every method a zero-width interval (``+2.5% [+2.5, +2.5]``), and
a build would fail on it. The bound is the same for every method and for the summary-only
path, because it is a property of the data, not of a method: with ``n`` samples the widest
distribution-free interval for a median, from the smallest to the largest sample, covers
it with probability ``1 - 2 ** (1 - n)`` (the sign-test argument; Conover, *Practical
Nonparametric Statistics*, 3rd ed., §3.2). At 95 % that needs ``n >= 6``: with fewer, no
interval from the samples — a bootstrap's, a quartile interval's, mean ± stdev — can claim
95 % coverage, so the row is AMBG ``too_few_samples``.

A side whose sample count is unknown (no ``nv/cold/sample_size``, no side file) is left to
the method, which already treats missing evidence as such.
"""

from __future__ import annotations

import math
from typing import Final

from ..evidence import SideEvidence
from ..model import Status, Verdict
from ..reasons import Reason

__all__ = ["MIN_SAMPLES", "minimum_samples", "too_few_samples"]


def minimum_samples(confidence: float = 0.95) -> int:
    """The fewest samples for a distribution-free ``confidence`` interval of a median:
    the least ``n`` with ``1 - 2 ** (1 - n) >= confidence``."""
    return max(2, math.ceil(1.0 + math.log2(1.0 / (1.0 - confidence)) - 1e-12))


#: :func:`minimum_samples` at the 95 % every method's intervals are made at by default.
MIN_SAMPLES: Final = minimum_samples(0.95)


def too_few_samples(ref: SideEvidence, cmp: SideEvidence) -> Verdict | None:
    """AMBG ``too_few_samples`` when a side records fewer than :data:`MIN_SAMPLES`
    samples, else ``None``."""
    counts = (ref.sample_count, cmp.sample_count)
    short = [
        f"{side} {count}"
        for side, count in zip(("reference", "compare"), counts, strict=True)
        if count is not None and count < MIN_SAMPLES
    ]
    if not short:
        return None
    return Verdict(
        Status.AMBG,
        Reason.TOO_FEW_SAMPLES,
        f"too few samples ({', '.join(short)}): any 95% interval needs at least "
        f"{MIN_SAMPLES} per side",
    )
