"""What a gate row shows of its two sides: the centers its Change is the ratio of.

The comparison shows a row's sides from the estimates it pairs
(:func:`cuda.bench.compare.estimates.estimates`): from the median and the interval minimum
to third quartile where both sides have those summaries, else from the means (mean ± stdev,
its low end held at 1/1000 of the mean). A reference run that the gate rebuilt from the
archive's stored summaries (a run ingested without ``--samples``) has a median, its
interval, a mean and a relative stdev, but no minimum and no quartiles: the archive keeps
none (:mod:`._gate_states`). So every row whose reference held such a run was shown, on
both sides, as means, and the JSON report gave ``ref_source``/``cmp_source`` ``"mean"``,
mean centers and a low end of the reference at ``center / 1000``, while its Change, the
``ci`` method's, is the ratio of the medians (the geometric mean of the reference runs'
medians against the new run's): the shown centers disagreed with the Change beside them.

:func:`shown_rows` therefore shows such a row as the ``ci`` method decided it:

* the reference: the geometric mean of its runs' medians (the ``ci`` reference center),
  source ``summary``, with no interval and no spread: what the archive does not hold is
  shown as unknown, never made up from the mean (a low end of ``center / 1000`` for a state
  whose minimum is far above);
* the new run: its own estimate from its median and quartiles (its summaries, else its
  side files), as ``nvbench_compare`` shows the file.

A row whose new run has no median-based estimate (a file without quartiles or samples) is
left as the comparison paired it (both sides' means). :func:`with_shown_note` says in the
summary how many rows show a reference without an interval, and why.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from ..compare.model import EvidenceSource, Status

if TYPE_CHECKING:
    from ..compare.model import Row, SideEstimate
    from ..results._tools_api import BenchmarkResult, SubBenchmarkState
    from ._gate_result import GateResult

__all__ = ["shown_rows", "with_shown_note"]

#: Estimates of a median (with an interval or not), as the comparison's sources name them.
_MEDIAN_BASED = frozenset({EvidenceSource.SUMMARY, EvidenceSource.SAMPLES})
#: Rows with no reference figures to show.
_NO_REFERENCE = frozenset({Status.ADDED, Status.SKIP})

#: ``(benchmark, device, state name)``, as :mod:`.gate` keys a series.
_Key = tuple[str, Any, str]
#: One run's (median, whether its summaries hold a minimum and quartiles).
_RunEstimate = tuple[float, bool]


def _quiet(_: str) -> None:
    """What reading a state again would say, it said when the comparison read it."""


def _index(result: BenchmarkResult) -> dict[_Key, SubBenchmarkState]:
    return {
        (view.name, state.device, state.name()): state
        for view in result.benchmarks
        for state in view
    }


def _run_estimate(state: SubBenchmarkState) -> _RunEstimate | None:
    """One reference run's median, and whether its summaries hold the minimum and quartiles
    the comparison pairs; ``None`` without a median that is a time."""
    from ..compare.evidence import side_evidence, usable_time

    timing = side_evidence(state, warn=_quiet).timing
    robust = timing.robust()
    if robust is not None:
        return robust[0], True
    if not usable_time(timing.median):
        return None
    assert timing.median is not None  # usable_time
    return float(timing.median), False


def _reference(medians: Sequence[float], shown: SideEstimate) -> SideEstimate:
    """``shown`` (the comparison's reference estimate) as the geometric mean of the runs'
    medians, without an interval or spread: called only where a run has neither (a run
    without quartiles), and what the archive does not hold is not made up."""
    center = math.exp(math.fsum(math.log(median) for median in medians) / len(medians))
    return msgspec.structs.replace(
        shown, center=center, noise=None, interval=None, source=EvidenceSource.SUMMARY
    )


def _compared(state: SubBenchmarkState, shown: SideEstimate) -> SideEstimate | None:
    """``shown`` (the comparison's estimate of the new run) with the run's own
    median-based estimate; ``None`` where it has none."""
    from ..compare.estimates import estimates
    from ..compare.evidence import side_evidence

    evidence = side_evidence(state, warn=_quiet)
    try:
        alone = estimates(evidence, evidence)[1]
    finally:
        evidence.bulk.release()
    if alone.source not in _MEDIAN_BASED or alone.center is None:
        return None
    return msgspec.structs.replace(
        shown,
        center=alone.center,
        noise=alone.noise,
        interval=alone.interval,
        source=alone.source,
    )


def shown_rows(rows: Iterable[Row], references: Sequence[BenchmarkResult]) -> tuple[Row, ...]:
    """``rows`` (of one gated run against the reference runs ``references``, primary
    first) with each row whose reference holds a run without a minimum and quartiles shown
    by its medians (module docstring)."""
    indexes: list[dict[_Key, SubBenchmarkState]] = []
    out = []
    for row in rows:
        if row.ref is None or row.status in _NO_REFERENCE:
            out.append(row)
            continue
        state = row.cmp_state if row.cmp_state is not None else row.ref_state
        if state is None:
            out.append(row)
            continue
        if not indexes:
            indexes.extend(_index(result) for result in references)
        key = (row.benchmark, state.device, state.name())
        # A REMOVED row's reference is the primary run's alone.
        held = indexes[:1] if row.cmp is None else indexes
        found = [index[key] for index in held if key in index]
        runs = [run for run in map(_run_estimate, found) if run is not None]
        if not found or len(runs) < len(found):
            out.append(row)
            continue
        if all(quartiles for _, quartiles in runs):
            out.append(row)  # every run has its quartiles: the comparison paired them
            continue
        ref = _reference([median for median, _ in runs], row.ref)
        cmp = row.cmp
        if cmp is not None and cmp.center is not None and row.cmp_state is not None:
            cmp = _compared(row.cmp_state, cmp)
            if cmp is None:
                out.append(row)  # the new run has means alone: both sides' means
                continue
        out.append(msgspec.structs.replace(row, ref=ref, cmp=cmp))
    return tuple(out)


def with_shown_note(result: GateResult) -> GateResult:
    """``result`` with a note in its summary on the rows whose reference is shown without
    an interval (its runs were archived without samples), where there are such rows."""
    from ._gate_states import with_note

    count = sum(
        1
        for row in result.comparison.rows
        if row.ref is not None
        and row.status not in _NO_REFERENCE
        and row.ref.center is not None
        and row.ref.source is EvidenceSource.SUMMARY
        and row.ref.interval is None
    )
    if not count:
        return result
    note = (
        f"the reference of {count} state(s) is shown as the geometric mean of its runs' "
        "medians (the center the Change is measured from) without an interval or spread: "
        "the archive keeps no minimum or quartiles of runs ingested without --samples "
        "(nvbench-history ingest --samples N stores samples the gate summarises and "
        "bootstraps)"
    )
    return msgspec.structs.replace(result, comparison=with_note(result.comparison, note))
