"""What a gate found (:class:`GateResult`; :mod:`.gate` makes it and re-exports it).

Its own module so that :mod:`._gate_runs`, which :mod:`.gate` calls to combine several runs'
gates, can name it without importing :mod:`.gate` back: the imports of the package run one way
(python/test/test_layers.py).
"""

from __future__ import annotations

import msgspec

from ..compare.model import Comparison

__all__ = ["GateResult", "PendingCandidate"]

#: A series held to the level before its candidate change: benchmark, device (``None``:
#: CPU-only), state name, the candidate's commit, and the archived runs since it.
PendingCandidate = tuple[str, int | None, str, str, int]


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
