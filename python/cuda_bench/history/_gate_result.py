"""What a gate found (:class:`GateResult`; :mod:`.gate` makes it and re-exports it).

Its own module so that :mod:`._gate_runs`, which :mod:`.gate` calls to combine several runs'
gates, can name it without importing :mod:`.gate` back: the imports of the package run one way
(python/test/test_layers.py).
"""

from __future__ import annotations

from typing import Final

import msgspec

from ..compare.model import Comparison

__all__ = ["GATE_TOOL", "GateResult", "PendingCandidate"]

#: The name a gate's reports give as their program (``settings["tool"]``, the JSON report's
#: ``tool.name``): what ``nvbench-history report --gate`` checks.
GATE_TOOL: Final = "nvbench-history gate"


class PendingCandidate(msgspec.Struct, frozen=True):
    """A series the gate held to the level before its candidate change (a shift of its
    last runs that the detector cannot confirm yet)."""

    benchmark: str
    #: ``None``: a CPU-only series.
    device: int | None
    state_name: str
    #: The commit of the candidate's first run, and the archived runs since it.
    commit: str
    runs: int
    #: The first and last commits of the runs the gate held the series to.
    since: str
    until: str


class GateResult(msgspec.Struct, frozen=True):
    """What a gate found: the comparison (reports and ``--fail-on`` read it as they read
    ``nvbench_compare``'s) and how much history stood behind it."""

    comparison: Comparison
    machine: str
    #: Reference runs given to the comparison (the longest level of a state of the run, up
    #: to ``max_runs``; 1 when no state of the run has history).
    reference_runs: int
    #: Rows made AMBG ``history_too_short``.
    too_short: int
    #: Whether the reference runs carried stored samples (else summaries only).
    with_samples: bool
    #: The series held to the level before a candidate change not yet confirmed.
    pending: tuple[PendingCandidate, ...] = ()
