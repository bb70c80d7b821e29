"""Detection over series with missing runs: the detector sees the observed runs only.

A missing run (a NaN median of :class:`.model.RunSeries`) carries no evidence about a
level, so the scan and the confirmation run on each series without its missing runs, and
every change, creep and candidate is then placed back at the index its first run has in the
full series (its commit label is that run's in both). A series' scan describes its observed
runs (``SeriesScan.runs`` counts them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from .._arrays import IntArray
    from .changepoint import ScanConfig, SeriesScan
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
    """``detector`` over the observed runs of ``series``, its findings at the full indices."""
    compact: list[RunSeries] = []
    positions: dict[str, IntArray] = {}
    for one in series:
        kept, where = one.observed()
        compact.append(kept)
        positions[one.key] = where
    found = detector(compact, scan_config, confirm_config)
    return _placed(found, positions)


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
