"""Change points over many series: scan, false-discovery control, confirmation, events.

The steps and their statistics are documented where they live: the calibrated scan in
:mod:`.changepoint`, the two-level bootstrap confirmation, the Benjamini-Hochberg control
and the grouping into events in :mod:`.confirm`. Series of equal length are scanned
together (vectorised); a series' changes are confirmed in run order with the neighbouring
changes of the scan as the limits of each side.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .changepoint import ScanConfig, SeriesScan, scan
from .confirm import (
    ConfirmConfig,
    benjamini_hochberg,
    confirm_change,
    confirmation_runs,
    dependence_for,
    group_events,
    status_of,
)
from .model import ConfirmedChange, Detection, RunSeries

if TYPE_CHECKING:
    from .._arrays import FloatArray

__all__ = ["detect"]


def _scans(series: Sequence[RunSeries], config: ScanConfig) -> list[SeriesScan]:
    """Scan every series, those of one length together."""
    by_length: dict[int, list[int]] = {}
    for position, one in enumerate(series):
        by_length.setdefault(one.runs, []).append(position)
    out: list[SeriesScan | None] = [None] * len(series)
    for members in by_length.values():
        logs = np.log(np.stack([series[i].medians for i in members]))
        for position, result in zip(members, scan(logs, config), strict=True):
            out[position] = result
    return [result for result in out if result is not None]


def detect(
    series: Sequence[RunSeries],
    scan_config: ScanConfig | None = None,
    confirm_config: ConfirmConfig | None = None,
) -> Detection:
    """Detect, control and confirm the change points of ``series`` (module docstring).

    Keys must be unique. Deterministic for given seeds. Missing runs (NaN medians) are
    left out of the detection and the changes keep the series' own run indices.
    """
    if any(one.missing for one in series):
        from ._missing import detect_observed

        return detect_observed(detect, series, scan_config, confirm_config)
    scan_config = ScanConfig() if scan_config is None else scan_config
    confirm_config = ConfirmConfig() if confirm_config is None else confirm_config
    keys = [one.key for one in series]
    if len(set(keys)) != len(keys):
        raise ValueError("series keys must be unique")
    scans = _scans(series, scan_config)
    # Hypotheses: each change, or the largest statistic of a series without one.
    owners: list[tuple[int, int | None]] = []
    p_values: list[float] = []
    for position, result in enumerate(scans):
        if result.changes:
            for number, change in enumerate(result.changes):
                owners.append((position, number))
                p_values.append(change.p_value)
        else:
            owners.append((position, None))
            p_values.append(result.p_value)
    rejected, q_values = benjamini_hochberg(np.array(p_values), confirm_config.fdr)
    kept: list[ConfirmedChange] = []
    draws: list[FloatArray] = []
    candidates = 0
    for (owner, which), reject, q_value in zip(owners, rejected, q_values, strict=True):
        if which is None:
            continue
        candidates += 1
        if not reject:
            continue
        one, result = series[owner], scans[owner]
        indices = [change.index for change in result.changes]
        low = indices[which - 1] if which else 0
        high = indices[which + 1] if which + 1 < len(indices) else one.runs
        change = result.changes[which]
        rng = np.random.default_rng(
            np.random.SeedSequence([confirm_config.seed, owner, change.index])
        )
        dependence = dependence_for(result, confirm_config.side_runs)
        ratio = confirm_change(
            one, change.index, low, high, confirm_config, rng, result.noise, dependence
        )
        before, after = confirmation_runs(
            one, change.index, low, high, confirm_config, result.noise
        )
        status = status_of(ratio, confirm_config.tolerance)
        if status is None or ratio.draws is None:
            continue
        kept.append(
            ConfirmedChange(
                series=one.key,
                index=change.index,
                commit=one.label(change.index),
                status=status,
                ratio=ratio.ratio,
                ratio_lo=ratio.ratio_lo,
                ratio_hi=ratio.ratio_hi,
                p_value=change.p_value,
                q_value=float(q_value),
                window=change.window,
                runs_before=len(before),
                runs_after=len(after),
            )
        )
        draws.append(ratio.draws)
    return Detection(
        scans=tuple(zip(keys, scans, strict=True)),
        changes=tuple(kept),
        events=group_events(kept, draws, confirm_config.confidence),
        rejected=candidates - len(kept),
        fdr=confirm_config.fdr,
        tolerance=confirm_config.tolerance,
    )
