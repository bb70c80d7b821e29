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
the method, which already treats missing evidence as such. A run that records a count that
is no count (beyond int64, negative, text, a fraction:
:attr:`~..evidence.SideEvidence.sample_count_not_a_count`) is a damaged file, which
``nvbench-history ingest`` refuses: ``????`` ``invalid_sample_count`` in every method but
``legacy`` (which reads the means alone), checked before the count is compared (2^70 samples
made the standard error of a mean vanish: a 1.1 % change was SLOW [+1.1, +1.1]).
"""

from __future__ import annotations

import math
from typing import Final

from ..._numbers import INT64_MAX
from ..evidence import SideEvidence
from ..model import Status, Verdict
from ..reasons import Reason
from ..runs import side_runs

__all__ = ["MIN_SAMPLES", "invalid_sample_count", "minimum_samples", "too_few_samples"]


def minimum_samples(confidence: float = 0.95) -> int:
    """The fewest samples for a distribution-free ``confidence`` interval of a median:
    the least ``n`` with ``1 - 2 ** (1 - n) >= confidence``."""
    return max(2, math.ceil(1.0 + math.log2(1.0 / (1.0 - confidence)) - 1e-12))


#: :func:`minimum_samples` at the 95 % every method's intervals are made at by default.
MIN_SAMPLES: Final = minimum_samples(0.95)


def too_few_samples(ref: SideEvidence, cmp: SideEvidence) -> Verdict | None:
    """``????`` ``invalid_sample_count`` when a run of either side records a sample count
    that is no count (:func:`invalid_sample_count`), else AMBG ``too_few_samples`` when a
    side records fewer than :data:`MIN_SAMPLES` samples, else ``None``."""
    invalid = invalid_sample_count(ref, cmp)
    if invalid is not None:
        return invalid
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


def invalid_sample_count(ref: SideEvidence, cmp: SideEvidence) -> Verdict | None:
    """``????`` ``invalid_sample_count`` for the first run of either side (every run of a
    side measured several times) that records a sample count that is no count (beyond
    int64, negative, text, a fraction), naming the side, the run and the value; else
    ``None``."""
    for side, evidence in (("reference", ref), ("compare", cmp)):
        runs = side_runs(evidence)
        for number, run in enumerate(runs, start=1):
            text = run.sample_count_not_a_count
            count = run.sample_count
            if text is None and count is not None and not 0 <= count <= INT64_MAX:
                text = repr(count)[:40]  # evidence built by hand
            if text is None:
                continue
            which = side if len(runs) == 1 else f"{side} run {number}"
            return Verdict(
                Status.UNKNOWN,
                Reason.INVALID_SAMPLE_COUNT,
                f"{which} records sample count {text}, not a count (an integer from 0 to "
                f"{INT64_MAX}): a damaged file, on which no interval may rest",
            )
    return None
