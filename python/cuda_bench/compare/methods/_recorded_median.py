"""A state whose file records a median that is no time is unusable input (``????``).

The ``ci`` and ``paired`` methods take a state's center from its sample times, else its
median summary, else its mean; so a damaged median (NaN, infinite, zero, negative, null,
beyond the float32 range) once let the mean or the samples stand in without a word, and a
nightly gate called such a state SAME where ``nvbench-history ingest`` refused the same
file. A file that contradicts itself says nothing trustworthy about the state: it is
``????`` whatever else the file holds. (``robust`` follows NVIDIA's decision tree as it
is; ``legacy`` reads only the mean.)
"""

from __future__ import annotations

from collections.abc import Sequence

from ..evidence import SideEvidence
from ..model import Status, Verdict
from ..reasons import Reason

__all__ = ["recorded_median_verdict"]


def recorded_median_verdict(
    ref: Sequence[SideEvidence], cmp: Sequence[SideEvidence]
) -> Verdict | None:
    """``????`` for the first run of either side whose median summary is no time, else
    ``None``."""
    for side, runs in (("reference", ref), ("compare", cmp)):
        for number, run in enumerate(runs, start=1):
            text = run.timing.median_not_a_time
            if text is None:
                continue
            which = side if len(runs) == 1 else f"{side} run {number}"
            return Verdict(
                Status.UNKNOWN,
                _reason(text),
                f"{which} records median {text}, not a time: a damaged file, for which "
                "neither its mean nor its samples stand in",
            )
    return None


def _reason(text: str) -> Reason:
    try:
        value = float(text)
    except ValueError:
        return Reason.TIMING_CENTER_MISSING  # null or text
    if value <= 0:
        return Reason.TIMING_CENTER_NONPOSITIVE
    return Reason.TIMING_CENTER_NONFINITE  # NaN, infinite, or beyond the float32 range
