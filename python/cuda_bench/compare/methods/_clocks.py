"""Runs of a row that record a mean SM clock where others do not (methods ``ci`` and
``paired``).

Runs without clocks on both sides (older NVBench files, ``--profile`` runs) are decided in
time alone, as documented. A clock on some runs only is a mismatch: the runs were measured
differently (clock sampling off in one), or a summary was removed, and the runs that record
a clock show that cycles could have told a clock change from a code change. So a FAST/SLOW
found in time alone is AMBG ``missing_clock_rate`` there, as ``robust`` answers for a clear
gap without both clocks; SAME needs no cycles (``robust``'s ``same_without_clock_rate``).
"""

from __future__ import annotations

from ..evidence import SideEvidence
from ..runs import side_runs

__all__ = ["clocks_on_one_side"]


def clocks_on_one_side(ref: SideEvidence, cmp: SideEvidence) -> str | None:
    """The runs of a GPU row that record no mean SM clock where others record one, in words
    (``"the compare run"``, ``"reference run 2, compare run 1"``); ``None`` where every run
    or none has one, and for CPU-only rows (which have no clock)."""
    runs = {"reference": side_runs(ref), "compare": side_runs(cmp)}
    if any(run.is_cpu_only for side in runs.values() for run in side):
        return None
    missing = [
        f"the {side} run" if len(found) == 1 else f"{side} run {number}"
        for side, found in runs.items()
        for number, run in enumerate(found, 1)
        if run.clock_rate is None
    ]
    total = sum(len(found) for found in runs.values())
    return None if not missing or len(missing) == total else ", ".join(missing)
