"""Comparisons of many states for the empirical null (``compare.empirical_null``).

The simulations decide each state on its own; the empirical null needs the states of one
comparison together. These helpers put decided single-run ``ci`` verdicts into
comparisons of :data:`COMPARISON_STATES` states (the real ``gpu/`` example pair has 20)
and return the verdicts after :func:`~cuda.bench.compare.empirical_null.widen_rows`:

* unchanged states (A/A) in comparisons of unchanged states only;
* each scenario with a real change in comparisons where it is a minority:
  :data:`CHANGED_PER_COMPARISON` of its states joined by unchanged ones (``mixed``), or
  every state of the comparison changed alike (``whole``: a common shift).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cuda.bench.compare.empirical_null import widen_rows
from cuda.bench.compare.model import Row, Verdict

COMPARISON_STATES = 20
CHANGED_PER_COMPARISON = 4  # 20 % of a comparison's states changed


def _widened(verdicts: Sequence[Verdict]) -> list[Verdict]:
    rows = [Row("b", f"s{i}", 0, (), verdict, None, None) for i, verdict in enumerate(verdicts)]
    return [row.verdict for row in widen_rows(rows)[0]]


def in_comparisons(verdicts: Sequence[Verdict]) -> list[Verdict]:
    """``verdicts`` (one scenario, in state order) in comparisons of their own; a remainder
    too small for a comparison is left as it is."""
    out: list[Verdict] = []
    for start in range(0, len(verdicts), COMPARISON_STATES):
        out += _widened(verdicts[start : start + COMPARISON_STATES])
    return out


def with_unchanged(changed: Sequence[Verdict], unchanged: Sequence[Verdict]) -> list[Verdict]:
    """Each run of :data:`CHANGED_PER_COMPARISON` ``changed`` verdicts in a comparison with
    the next unchanged ones (cycling through ``unchanged``); the changed ones come back."""
    filler = COMPARISON_STATES - CHANGED_PER_COMPARISON
    out: list[Verdict] = []
    cursor = 0
    for start in range(0, len(changed), CHANGED_PER_COMPARISON):
        group = list(changed[start : start + CHANGED_PER_COMPARISON])
        others = [unchanged[(cursor + i) % len(unchanged)] for i in range(filler)]
        cursor += filler
        out += _widened(group + others)[: len(group)]
    return out


def grouped(
    by_scenario: Mapping[str, Sequence[Verdict]], null: str = "A/A"
) -> dict[str, dict[str, list[Verdict]]]:
    """``{"mixed": {scenario: verdicts}, "whole": {...}}`` after the empirical null."""
    unchanged = by_scenario.get(null, ())
    mixed: dict[str, list[Verdict]] = {}
    whole: dict[str, list[Verdict]] = {}
    for name, verdicts in by_scenario.items():
        whole[name] = in_comparisons(verdicts)
        if name == null or not unchanged:
            mixed[name] = whole[name]
        else:
            mixed[name] = with_unchanged(verdicts, unchanged)
    return {"mixed": mixed, "whole": whole}
