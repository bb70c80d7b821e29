"""NVIDIA's legacy rule: the statuses of its original ``nvbench_compare`` script.

That script (``nvbench-compare-legacy`` in cuda-bench 0.3.0) reads, per state, NVBench's
mean GPU time and its relative standard deviation ("Noise") from both runs, and nothing
else. Its rule, as facts (checked against the script on real files by
python/test/cli/test_compat_cli.py):

1. The difference is ``frac = (cmp mean - ref mean) / ref mean``.
2. The noise it compares with is the smaller relative standard deviation of the runs that
   record one. NVBench writes summary values as JSON strings and an infinite deviation as
   ``null``: a ``null`` side is left out, a recorded ``"0"`` is kept (so the smaller one is
   then 0).
3. No noise left, or a smaller one of 0: ``????``. Else ``|frac| <= noise``: SAME; else
   FAST when the compare mean is the smaller, SLOW otherwise. FAST and SLOW are its
   failures.

It is no statistical test: SAME is not evidence that nothing changed and FAST/SLOW not
evidence beyond run-to-run variation (the reasons say so). It is here so that
``nvbench-compare-legacy`` shows the statuses users of that script expect; it is not one of
the ``--method`` choices of ``nvbench_compare`` (:data:`..METHODS`), whose methods must meet
the project's evidence rules. :data:`LEGACY` is a :class:`~.Method` object for
:func:`~..api.compare` all the same.

Where the script gives no status, this module gives one of its own (never FAST or SLOW):

- a state without the mean or the deviation summary (the script leaves it out): ``????``
  ``legacy_summaries_missing``;
- a reference mean that is zero (the script stops with ``ZeroDivisionError``), negative or
  not finite, or a compare mean that is not finite: ``????`` with the timing-center reasons;
- states skipped in one run: ``????``; in both: SKIP (the script leaves them out);
- CPU-only states (the script stops on CPU-only files): the same rule on NVBench's CPU-only
  mean and relative standard deviation, the numbers the legacy table shows;
- a GPU state against a CPU-only one: ``????`` ``measurement_kind_mismatch``.
"""

from __future__ import annotations

import math
from typing import Final

from ..model import SideEstimate, Status, Verdict
from ..reasons import Reason
from ._row import RowEvidence

__all__ = ["LEGACY", "LEGACY_REASONS", "LegacyMethod", "legacy_noise", "legacy_verdict"]

#: The reasons only this rule gives.
LEGACY_REASONS: Final = frozenset(
    {
        Reason.LEGACY_WITHIN_NOISE,
        Reason.LEGACY_BEYOND_NOISE,
        Reason.LEGACY_NOISE_UNKNOWN,
        Reason.LEGACY_SUMMARIES_MISSING,
    }
)


def legacy_noise(ref: float | None, cmp: float | None) -> float | None:
    """The noise the legacy rule compares the difference with: the smaller of the recorded
    relative standard deviations (``+inf``, NVBench's ``null``, is not recorded), ``None``
    when neither run records one."""
    recorded = [value for value in (ref, cmp) if value is not None and math.isfinite(value)]
    return min(recorded) if recorded else None


def _percent(value: float) -> str:
    return f"{value * 100:+.2f}%"


def legacy_verdict(ref: SideEstimate | None, cmp: SideEstimate | None) -> Verdict:
    """The legacy rule's verdict on one state from NVBench's mean and relative standard
    deviation of each run (``SideEstimate.mean``, ``SideEstimate.stdev_relative``)."""
    if ref is None or cmp is None:
        raise ValueError("the legacy rule compares a state present in both runs")
    if ref.is_skipped or cmp.is_skipped:
        status = Status.SKIP if ref.is_skipped and cmp.is_skipped else Status.UNKNOWN
        side = (
            "both runs" if status is Status.SKIP else ("reference" if ref.is_skipped else "compare")
        )
        return Verdict(status, Reason.STATE_SKIPPED, f"state skipped in the {side} run")
    if (
        ref.mean is None
        or cmp.mean is None
        or ref.stdev_relative is None
        or cmp.stdev_relative is None
    ):
        return Verdict(Status.UNKNOWN, Reason.LEGACY_SUMMARIES_MISSING)
    if not (math.isfinite(ref.mean) and math.isfinite(cmp.mean)):
        return Verdict(Status.UNKNOWN, Reason.TIMING_CENTER_NONFINITE, "a mean is not finite")
    if ref.mean <= 0:
        return Verdict(
            Status.UNKNOWN,
            Reason.TIMING_CENTER_NONPOSITIVE,
            f"the reference mean is {ref.mean:g}: no relative difference",
        )
    frac = (cmp.mean - ref.mean) / ref.mean
    noise = legacy_noise(ref.stdev_relative, cmp.stdev_relative)
    if noise is None or noise == 0:
        told = "neither run records one" if noise is None else "the smaller is 0"
        message = f"{Reason.LEGACY_NOISE_UNKNOWN.message}: {told}"
        return Verdict(Status.UNKNOWN, Reason.LEGACY_NOISE_UNKNOWN, message)
    numbers = f"mean {_percent(frac)} against noise {noise * 100:.2f}%"
    if abs(frac) <= noise:
        return Verdict(Status.SAME, Reason.LEGACY_WITHIN_NOISE, numbers)
    status = Status.FAST if frac < 0 else Status.SLOW
    return Verdict(status, Reason.LEGACY_BEYOND_NOISE, numbers, severity=abs(frac) - noise)


class LegacyMethod:
    """:func:`legacy_verdict` as a decision method for :func:`~..api.compare`."""

    name: Final = "legacy"
    description: Final = (
        "NVIDIA's legacy rule: the difference of the means against the smaller relative "
        "standard deviation"
    )

    def decide(self, row: RowEvidence) -> Verdict:
        if row.ref.kind is not row.cmp.kind and not (row.ref.is_skipped or row.cmp.is_skipped):
            return Verdict(
                Status.UNKNOWN,
                Reason.MEASUREMENT_KIND_MISMATCH,
                f"reference is a {row.ref.kind.label} measurement, compare a "
                f"{row.cmp.kind.label} one",
            )
        return legacy_verdict(row.ref_estimate, row.cmp_estimate)

    def __repr__(self) -> str:
        return "LegacyMethod()"


#: NVIDIA's legacy rule as a method object (not a ``--method`` choice; module docstring).
LEGACY: Final = LegacyMethod()
