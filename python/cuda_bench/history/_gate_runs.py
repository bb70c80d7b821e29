"""Several new runs of one build gated together: a verdict only where every run agrees.

One new run cannot tell a regression from a slow run of an unchanged build: where a level's
runs are slow now and then (outliers that revert, skewed noise), some unchanged runs lie
beyond any band that still catches real steps. Two or more runs of the new build, each
gated against the level, settle it: a state is FAST, SLOW or SAME only when every run says
so, else AMBG ``gate_runs_disagree``. This is an intersection-union test (Berger 1982,
"Multiparameter hypothesis testing and acceptance sampling", Technometrics 24; Berger &
Hsu 1996, Statistical Science 11): each run's verdict holds its false-change rate, so
requiring all of them keeps the rate at most that of one run, and for runs whose noise is
independent it is about the product (an outlier that reverts rarely strikes twice in a
row). The price is recall: a step is caught when every run catches it (for a 5-sigma step,
about the square of one run's recall).

The combined row is the one of the run whose change is closest to none (the weakest
evidence of the agreeing runs), with every run's verdict in the message.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import msgspec

from ..compare.model import Reason, Status, Verdict
from .archive import ArchiveError

if TYPE_CHECKING:
    from ..compare.model import Row
    from ._gate_result import GateResult

__all__ = ["combine", "combine_rows"]

_DECIDED: Final = frozenset({Status.SAME, Status.FAST, Status.SLOW, Status.AMBG})

_RowKey = tuple[str, str, int, int | None]


def _key(row: Row) -> _RowKey:
    return (row.benchmark, row.key, row.occurrence, row.cmp_device)


def _change(row: Row) -> float:
    effect = row.verdict.effect
    if effect is None or not effect.ratio > 0:
        return math.inf
    return abs(math.log(effect.ratio))


def combine_rows(per_run: Sequence[Sequence[Row]], labels: Sequence[str]) -> tuple[Row, ...]:
    """The rows of the first run, each decided by all runs together (module docstring).

    ``per_run[i]`` are the gate's rows for run ``labels[i]``. Rows the comparison did not
    decide (ADDED, REMOVED, ``????``) are the first run's.
    """
    others = [{_key(row): row for row in rows} for rows in per_run[1:]]
    out = []
    for first in per_run[0]:
        if first.status not in _DECIDED:
            out.append(first)
            continue
        rows = [first] + [found.get(_key(first)) for found in others]
        present = [row for row in rows if row is not None]
        statuses = {row.status for row in present}
        if len(present) == len(rows) and len(statuses) == 1:
            weakest = min(present, key=_change)
            said = "; ".join(
                f"{label}: {row.status.value} {row.verdict.text}"
                for label, row in zip(labels, rows, strict=True)
                if row is not None and row is not weakest
            )
            verdict = weakest.verdict
            message = f"{verdict.text} (every run of {len(rows)} agrees; {said})"
            out.append(
                msgspec.structs.replace(
                    weakest, verdict=msgspec.structs.replace(verdict, message=message)
                )
            )
            continue
        said = "; ".join(
            f"{label}: "
            + ("lacks this state" if row is None else f"{row.status.value} {row.verdict.text}")
            for label, row in zip(labels, rows, strict=True)
        )
        verdict = first.verdict
        out.append(
            msgspec.structs.replace(
                first,
                verdict=Verdict(
                    Status.AMBG,
                    Reason.GATE_RUNS_DISAGREE,
                    f"the runs disagree: {said}",
                    verdict.severity,
                    verdict.effect,
                    verdict.cycle_effect,
                ),
            )
        )
    return tuple(out)


def combine(found: Sequence[GateResult], labels: Sequence[str]) -> GateResult:
    """The gate of several runs (``labels``) from each run's gate (module docstring)."""
    first = found[0]
    for label, one in zip(labels[1:], found[1:], strict=True):
        if one.machine != first.machine:
            raise ArchiveError(
                f"{label}: not the environment of {labels[0]} (machine {one.machine}, not "
                f"{first.machine}); gate runs of one machine together"
            )
    rows = combine_rows([one.comparison.rows for one in found], labels)
    inputs = first.comparison.inputs[0]
    comparison = msgspec.structs.replace(
        first.comparison,
        rows=rows,
        inputs=(msgspec.structs.replace(inputs, cmp=tuple(labels)),),
    )
    return msgspec.structs.replace(
        first,
        comparison=comparison,
        too_short=sum(1 for row in rows if row.reason is Reason.HISTORY_TOO_SHORT),
    )
