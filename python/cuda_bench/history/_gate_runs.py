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

Every state any run has gets one row, whatever the runs' order (the runs are taken in the
order of their labels, so argument order changes nothing but the list of inputs):

* a run with unusable input for the state (``????``) makes the row ``????``: broken
  evidence is never outvoted;
* a run that lacks a state of the latest archived run (REMOVED from it) makes the row
  REMOVED, whatever the others measured (named in its message): missing evidence is never
  outvoted either, and ``--fail-on missing`` fails on it;
* every run measured the state against its level and all say the same: that verdict, on
  the row of the run whose change is closest to none (the weakest evidence of the agreeing
  runs);
* some run measured it and the runs do not all say the same, or some run has no row for it
  (a state the latest archived run lacks too): AMBG ``gate_runs_disagree``, on the row of
  the measuring run whose change is largest, so the measured change stays in sight;
* no run measured it: ADDED if a run has a state without history, else SKIP.

Every combined row's message names what each other run said.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar

import msgspec

from ..compare.model import Reason, Status, Verdict
from ._gate_states import DECIDED, with_note
from .archive import ArchiveError

if TYPE_CHECKING:
    from ..compare._status import SuiteSummary
    from ..compare.model import Row
    from ._gate_result import GateResult

__all__ = ["combine", "combine_rows"]

_T = TypeVar("_T")


_RowKey = tuple[str, str, int, int | None]


def _key(row: Row) -> _RowKey:
    # A REMOVED row of a benchmark the run lacks entirely has no compare device: its
    # state's device is the reference's (it was the compare's only, so such a row never
    # met the other runs' rows of the same state).
    device = row.cmp_device if row.cmp_device is not None else row.ref_device
    return (row.benchmark, row.key, row.occurrence, device)


def _change(row: Row) -> float:
    effect = row.verdict.effect
    if effect is None or not effect.ratio > 0:
        return math.inf
    return abs(math.log(effect.ratio))


def _strength(row: Row) -> tuple[bool, float]:
    """Sort key: a measured change before none, larger before smaller."""
    change = _change(row)
    return (math.isfinite(change), change if math.isfinite(change) else 0.0)


def _said(row: Row | None) -> str:
    if row is None:
        return "lacks this state"
    if row.status is Status.REMOVED:
        return "lacks this state (REMOVED: the latest archived run has it)"
    return f"{row.status.value} {row.verdict.text}"


def _positions(per_run: Sequence[Sequence[Row]]) -> list[_RowKey]:
    """Every run's row keys once: the first run's in its order, and a key only later runs
    have right after the key that precedes it in the first run that has it."""
    places: dict[_RowKey, tuple[int, ...]] = {}
    added = 0
    for rows in per_run:
        previous: tuple[int, ...] = (-1,)
        for row in rows:
            key = _key(row)
            if key not in places:
                added += 1
                places[key] = (*previous, added)
            previous = places[key]
    return sorted(places, key=places.__getitem__)


def combine_rows(per_run: Sequence[Sequence[Row]], labels: Sequence[str]) -> tuple[Row, ...]:
    """One row per state of any run, decided by all runs together (module docstring).

    ``per_run[i]`` are the gate's rows for run ``labels[i]``; the result does not depend on
    the order of the runs.
    """
    runs = sorted(range(len(per_run)), key=lambda index: labels[index])
    ordered = [per_run[index] for index in runs]
    names = [labels[index] for index in runs]
    found = [{_key(row): row for row in rows} for rows in ordered]
    return tuple(_combined([one.get(key) for one in found], names) for key in _positions(ordered))


def _combined(rows: list[Row | None], labels: Sequence[str]) -> Row:
    """The combined row of one state; ``rows[i]`` is run ``labels[i]``'s (``None``: none)."""
    present = [row for row in rows if row is not None]
    decided = [row for row in present if row.status in DECIDED]
    statuses = {row.status for row in present}
    unknown = [row for row in present if row.status is Status.UNKNOWN]
    if unknown:
        return _noted(unknown[0], rows, labels)
    removed = [row for row in present if row.status is Status.REMOVED]
    if removed:
        return _noted(removed[0], rows, labels)
    if decided and len(decided) == len(rows) and len(statuses) == 1:
        weakest = min(decided, key=_change)
        said = _others(weakest, rows, labels)
        verdict = weakest.verdict
        message = f"{verdict.text} (every run of {len(rows)} agrees; {said})"
        return msgspec.structs.replace(
            weakest, verdict=msgspec.structs.replace(verdict, message=message)
        )
    if decided:
        strongest = max(decided, key=_strength)
        said = "; ".join(f"{label}: {_said(row)}" for label, row in zip(labels, rows, strict=True))
        verdict = strongest.verdict
        return msgspec.structs.replace(
            strongest,
            verdict=Verdict(
                Status.AMBG,
                Reason.GATE_RUNS_DISAGREE,
                f"the runs disagree: {said}",
                verdict.severity,
                verdict.effect,
                verdict.cycle_effect,
            ),
        )
    added = [row for row in present if row.status is Status.ADDED]
    return _noted(added[0] if added else present[0], rows, labels)


def _others(chosen: Row, rows: list[Row | None], labels: Sequence[str]) -> str:
    return "; ".join(
        f"{label}: {_said(row)}"
        for label, row in zip(labels, rows, strict=True)
        if row is not chosen
    )


def _noted(chosen: Row, rows: list[Row | None], labels: Sequence[str]) -> Row:
    """``chosen`` as it is where every run's row says the same, else with what the other
    runs said added to its message."""
    if all(row is not None and row.verdict == chosen.verdict for row in rows):
        return chosen
    verdict = chosen.verdict
    message = f"{verdict.text} ({_others(chosen, rows, labels)})"
    return msgspec.structs.replace(
        chosen, verdict=msgspec.structs.replace(verdict, message=message)
    )


def _each_once(parts: Iterable[Sequence[_T]]) -> tuple[_T, ...]:
    """The items of ``parts`` in order, each once."""
    return tuple(dict.fromkeys(item for part in parts for item in part))


def combine(
    found: Sequence[GateResult],
    labels: Sequence[str],
    drift: Sequence[Sequence[Reason | None]],
) -> GateResult:
    """The gate of several runs (``labels``) from each run's gate (module docstring).

    ``drift[i]`` holds, for each row of ``found[i]``, its code among that run's drift rows
    (``None``: not one). The suite summary (geometric mean, interval, drift rows) is rebuilt
    from the combined rows (:func:`~..compare.suite.summary_of_rows`: each row's interval
    as a normal term, for the rows no longer carry their draws); a combined row counts as a
    drift row under the code of the first run, in label order, whose row of that state
    drifted."""
    for label, one in zip(labels[1:], found[1:], strict=True):
        if one.machine != found[0].machine:
            raise ArchiveError(
                f"{label}: not the environment of {labels[0]} (machine {one.machine}, not "
                f"{found[0].machine}); gate runs of one machine together"
            )
    # The result is the same whatever the order of the runs: its base is the run whose
    # label sorts first (combine_rows takes the runs in that order too).
    order = sorted(range(len(found)), key=labels.__getitem__)
    ordered = [found[index].comparison for index in order]
    first = found[order[0]]
    rows = combine_rows([one.comparison.rows for one in found], labels)
    inputs = first.comparison.inputs[0]
    comparison = msgspec.structs.replace(
        first.comparison,
        rows=rows,
        inputs=(msgspec.structs.replace(inputs, cmp=tuple(labels)),),
        # What each run's comparison said of its own file (a state name, a side file) is
        # said of the runs gated together: every run's, each line once.
        warnings=_each_once(one.warnings for one in ordered),
        warning_kinds=_each_once(one.warning_kinds for one in ordered),
        unpaired_files=_each_once(one.unpaired_files for one in ordered),
    )
    # Each row shows one run's figures; without this note nothing says whose.
    comparison = with_note(
        comparison,
        f"runs gated together: {', '.join(sorted(labels))}. A state is SAME, FAST or SLOW "
        "only where every run says so; its row shows the figures of the run whose change is "
        "closest to none, or, where the runs disagree, of the run with the largest change "
        "(the geometric mean is over those figures); each row's message (in the JSON, CSV and "
        "HTML reports) says what the other runs found",
    )
    if first.comparison.suite is not None:
        comparison = msgspec.structs.replace(
            comparison, suite=_combined_suite(rows, found, labels, drift)
        )
    return msgspec.structs.replace(
        first,
        comparison=comparison,
        too_short=sum(1 for row in rows if row.reason is Reason.HISTORY_TOO_SHORT),
    )


def _combined_suite(
    rows: Sequence[Row],
    found: Sequence[GateResult],
    labels: Sequence[str],
    drift: Sequence[Sequence[Reason | None]],
) -> SuiteSummary | None:
    """The suite summary of the combined ``rows`` (:func:`combine`)."""
    from ..compare.suite import in_suite, summary_of_rows, with_drift

    summary = summary_of_rows(rows)
    if summary is None:
        return None
    codes: dict[_RowKey, Reason] = {}
    for index in sorted(range(len(found)), key=labels.__getitem__):
        for row, code in zip(found[index].comparison.rows, drift[index], strict=True):
            if code is not None:
                codes.setdefault(_key(row), code)
    drifted = (codes[_key(row)] for row in rows if _key(row) in codes and in_suite(row))
    return with_drift(summary, drifted)
