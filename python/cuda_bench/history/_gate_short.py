"""What a gate says where a level holds too few runs to measure its drift (:mod:`.gate`).

A row whose current level holds fewer than the runs a verdict needs becomes AMBG
``history_too_short`` (:func:`too_short`). Its message leads with that cause: how many runs
the level has, how many the gate needs, and whether the gated run itself was left out of
them (a run the archive already holds is no evidence about itself). What the comparison
said from those few runs follows, without the advice of a ``too_noisy_to_judge`` verdict
(a quieter machine): from two runs the prediction interval of one new run is wide because
Student's ``t`` with one degree of freedom is (63.7 at 99 %), not because the machine is
noisy.

Such a row is also the suite's drift row under ``history_too_short`` (:func:`drift_codes`):
the drift of its level is not measured, so the geometric mean is no suite-wide change,
and the line names the cause the rows show rather than the drift that too few runs
suggested. A note in the summary (:func:`history_notes`) gives the numbers once, and says
when the gated run was left out as its own reference.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Final

import msgspec

from ..compare.methods._tolerance import TOO_NOISY_ADVICE
from ..compare.model import Reason, Status, Verdict
from ._gate_states import DECIDED, GateLevel, LevelKey, with_note
from ._names import brief_names

if TYPE_CHECKING:
    from ..compare.model import Row
    from ._gate_result import GateResult

__all__ = ["drift_codes", "history_notes", "too_short"]

#: Run ids a note names before it says "and N more".
_LISTED: Final = 4


def _left_out_text(level: GateLevel) -> str:
    return " (the gated run, which it already holds, left out)" if level.left_out else ""


def too_short(row: Row, min_runs: int, max_runs: int, levels: Mapping[LevelKey, GateLevel]) -> Row:
    """``row`` made AMBG ``history_too_short`` when its level holds fewer than ``min_runs``
    of the reference runs (at most ``max_runs``) the gate gives the comparison."""
    state = row.cmp_state
    if row.status not in DECIDED or state is None:
        return row
    level = levels.get((row.benchmark, state.device, state.name()))
    # What the reference holds: the level's last max_runs runs, not the whole level.
    if level is None or min(level.size, max_runs) >= min_runs:
        return row
    verdict = row.verdict
    held = (
        f"{level.size} run(s) of the current level in the archive{_left_out_text(level)}"
        if level.size <= max_runs
        else f"{max_runs} reference run(s) (--max-runs)"
    )
    said = verdict.text
    if verdict.reason is Reason.TOO_NOISY_TO_JUDGE:
        # The band is that wide for want of runs (module docstring), not for the machine.
        said = said.replace(": " + TOO_NOISY_ADVICE, " with so few runs")
    message = (
        f"{held}, the gate needs {min_runs} to measure the drift between runs; "
        f"from these the comparison said {verdict.status}: {said}"
    )
    return msgspec.structs.replace(
        row,
        verdict=Verdict(
            Status.AMBG,
            Reason.HISTORY_TOO_SHORT,
            message,
            verdict.severity,
            verdict.effect,
            verdict.cycle_effect,
        ),
    )


def drift_codes(judged: Sequence[Row], rows: Sequence[Row]) -> tuple[Reason | None, ...]:
    """Each row's code among the suite's drift rows (``None``: not one). ``judged`` are the
    rows before the history check (the comparison's verdicts after the band), ``rows`` the
    gate's: a row made ``history_too_short`` counts under that code (its level's drift is
    not measured), any other under the code that made it drift
    (:func:`cuda.bench.compare.suite.drifting`: the comparison's, or ``too_noisy_to_judge``
    for a SAME row the band made AMBG)."""
    from ..compare.suite import drifting, in_suite

    return tuple(
        Reason.HISTORY_TOO_SHORT
        if row.reason is Reason.HISTORY_TOO_SHORT and in_suite(row)
        else (before.reason if drifting(before) else None)
        for before, row in zip(judged, rows, strict=True)
    )


def history_notes(
    result: GateResult,
    levels: Mapping[LevelKey, GateLevel],
    min_runs: int,
    max_runs: int,
    left_out: Collection[str],
) -> GateResult:
    """``result`` with a note on its ``history_too_short`` rows (how many runs their levels
    hold, how many the gate needs) and one naming the archive runs ``left_out`` of the
    levels because they are the gated runs."""
    comparison = result.comparison
    sizes = []
    for row in comparison.rows:
        state = row.cmp_state
        if row.reason is not Reason.HISTORY_TOO_SHORT or state is None:
            continue
        level = levels.get((row.benchmark, state.device, state.name()))
        if level is not None:
            sizes.append(min(level.size, max_runs))
    if sizes:
        fewest, most = min(sizes), max(sizes)
        held = f"{fewest}" if fewest == most else f"{fewest} to {most}"
        # Every state with a verdict to give is too short: the gate judged nothing, which
        # --fail-on slow reads as a pass.
        decided = sum(1 for row in comparison.rows if row.status in DECIDED)
        nothing = (
            "; no state was judged: --fail-on slow passes this gate, --fail-on ambiguous fails it"
            if decided == len(sizes)
            else ""
        )
        comparison = with_note(
            comparison,
            f"history_too_short: the current level of {len(sizes)} state(s) holds {held} "
            f"run(s) in the archive, the gate needs {min_runs} to measure the "
            f"drift between runs; ingest more runs of an unchanged build{nothing}",
        )
    if left_out:
        # Shortened as ingest names a run.
        shown = brief_names((run[:16] for run in left_out), _LISTED)
        runs, its = ("run", "its") if len(left_out) == 1 else ("runs", "their")
        comparison = with_note(
            comparison,
            f"the archive already holds the gated {runs} ({runs} {shown}), left out as "
            f"{its} own reference: the levels hold the other runs only",
        )
    return msgspec.structs.replace(result, comparison=comparison)
