"""States the benchmark skipped on purpose in both runs (status SKIP), by skip reason.

NVBench records why a benchmark skipped a state (``skip_reason``); such a state was not
measured in either run, so there is nothing to compare and nothing wrong with the input.
The summaries count them per distinct reason.
"""

from __future__ import annotations

from collections import Counter

from .model import Comparison, Row, Status

__all__ = ["skip_reason_text", "skip_reasons"]


def skip_reason_text(row: Row) -> str:
    """Why the benchmark skipped the state of ``row`` (both sides' reasons when they differ)."""
    ref = (row.ref.skip_reason if row.ref is not None else None) or ""
    cmp = (row.cmp.skip_reason if row.cmp is not None else None) or ""
    if ref == cmp or not cmp:
        return ref or "no reason given"
    if not ref:
        return cmp
    return f"{ref} (reference); {cmp} (compare)"


def skip_reasons(comparison: Comparison) -> list[tuple[str, int]]:
    """``(skip reason, rows)`` of the states skipped in both runs (status SKIP), most
    frequent first; two different reasons of one state read ``A (reference); B
    (compare)``."""
    counts: Counter[str] = Counter()
    for row in comparison.rows:
        if row.status is Status.SKIP:
            counts[skip_reason_text(row)] += 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))
