"""Detection over series with missing runs: the detector sees the observed runs only.

A missing run (a NaN median of :class:`.model.RunSeries`) carries no evidence about a
level, so the scan and the confirmation run on each series without its missing runs, and
every change, creep and candidate is then placed back at the index its first run has in the
full series (its commit label is that run's in both). A series' scan describes its observed
runs (``SeriesScan.runs`` counts them). In a series with missing runs a cycle is looked for
and taken out first, in the whole series at its runs' own phases (:mod:`._cycle_runs`), and
where one is, the scan's
``SeriesScan.seasonal`` is that pattern, from run 0 of the whole series; the scan of the
observed runs may still find one of its own (runs with a value evenly spread, of which no
two are adjacent), whose phases count those runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import msgspec
import msgspec.structs

from ._cycle_runs import less_cycle, run_cycles
from ._scan_config import ScanConfig

if TYPE_CHECKING:
    from .._arrays import IntArray
    from .changepoint import SeriesScan
    from .confirm import ConfirmConfig
    from .model import Detection, RunSeries

__all__ = ["detect_observed"]

Detector = Callable[
    ["Sequence[RunSeries]", "ScanConfig | None", "ConfirmConfig | None"], "Detection"
]


def _placed_scan(scan: SeriesScan, positions: IntArray) -> SeriesScan:
    changes = tuple(
        msgspec.structs.replace(change, index=int(positions[change.index]))
        for change in scan.changes
    )
    candidate = scan.candidate
    if candidate is not None:
        candidate = msgspec.structs.replace(candidate, index=int(positions[candidate.index]))
    creeps = tuple(
        msgspec.structs.replace(
            creep,
            first=int(positions[creep.first]),
            end=int(positions[creep.end]),
            change=msgspec.structs.replace(creep.change, index=int(positions[creep.change.index])),
        )
        for creep in scan.creeps
    )
    return msgspec.structs.replace(scan, changes=changes, candidate=candidate, creeps=creeps)


def detect_observed(
    detector: Detector,
    series: Sequence[RunSeries],
    scan_config: ScanConfig | None,
    confirm_config: ConfirmConfig | None,
) -> Detection:
    """``detector`` over the observed runs of ``series``, its findings at the full indices;
    a cycle taken out first at the runs' own phases (module docstring), where one shows."""
    config = ScanConfig() if scan_config is None else scan_config
    # A series without a missing run is left to the scan's own cycle stage, as it is where
    # no series of the call has one.
    gapped = [one for one in series if one.missing] if config.seasonal else []
    cycles = dict(zip((one.key for one in gapped), run_cycles(gapped), strict=True))
    compact: list[RunSeries] = []
    positions: dict[str, IntArray] = {}
    for one in series:
        kept, where = less_cycle(one, cycles.get(one.key, ())).observed()
        compact.append(kept)
        positions[one.key] = where
    # The scan of the observed runs still looks for a cycle of its own: where the runs with
    # a value are evenly spread (every second or third run), no two of them are adjacent,
    # the whole series gives the test no difference to compare, and a cycle shows in them.
    found = _placed(detector(compact, config, confirm_config), positions)
    scans = tuple(
        (key, msgspec.structs.replace(scan, seasonal=cycles[key]) if cycles.get(key) else scan)
        for key, scan in found.scans
    )
    return msgspec.structs.replace(found, scans=scans)


def _placed(found: Detection, positions: Mapping[str, IntArray]) -> Detection:
    changes = tuple(
        msgspec.structs.replace(change, index=int(positions[change.series][change.index]))
        for change in found.changes
    )
    candidates = tuple(
        msgspec.structs.replace(one, index=int(positions[one.series][one.index]))
        for one in found.candidates
    )
    creeps = tuple(
        msgspec.structs.replace(
            one,
            first=int(positions[one.series][one.first]),
            end=int(positions[one.series][one.end]),
        )
        for one in found.creeps
    )
    scans = tuple((key, _placed_scan(scan, positions[key])) for key, scan in found.scans)
    return msgspec.structs.replace(
        found, changes=changes, scans=scans, candidates=candidates, creeps=creeps
    )
