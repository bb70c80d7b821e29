"""A slope-change (bend) report beside the detector's changes, on the real histories: why
it was not taken (docs/history-detection-record.md, *TCPD F1 >= 0.75 and cover >= 0.70*).

    python python/benchmarks/history_bends.py                  # penalties 25, 40, 60
    python python/benchmarks/history_bends.py --penalty 30

A prototype, not the tool's method. On each series' logarithm it fits a line plus the
bends kept so far plus one more hinge ``max(0, t - tau)`` by least squares after the
Cochrane-Orcutt transformation (Cochrane & Orcutt 1949) with the lag-one correlation of
the residuals of the fit without the new hinge (clipped to 0-0.95), and keeps, greedily,
the ``tau`` of largest hinge ``t^2`` while it reaches the penalty (segments of at least 10
runs, at most 6 bends; series of fewer than 40 runs get none). Its bends join
:func:`cuda.bench.history.detect`'s confirmed changes.

Printed per penalty: TCPD cover and F1 of the changes alone and with the bends (30
univariate series, the benchmark's definitions, margin 5: :mod:`_real_history`), the series
whose cover moves most, and the bends on TigerBeetle and the Firefox series with how many
lie farther than 5 runs from every annotated change (other reports).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
from _real_history import MARGIN, cover, data_root, f1_score, firefox, tcpd, tigerbeetle
from cuda.bench.history import RunSeries, detect
from history_real import _published_names

#: Fewest runs a segment between bends holds, most bends a series gets, fewest runs to try.
SEGMENT = 10
MOST = 6
FEWEST = 40


def _design(runs: int, bends: Sequence[int]) -> np.ndarray[Any, Any]:
    t = np.arange(runs, dtype=np.float64)
    return np.column_stack([np.ones(runs), t, *(np.maximum(t - b, 0.0) for b in bends)])


def _best_bend(y: np.ndarray[Any, Any], bends: Sequence[int]) -> tuple[float, int | None]:
    runs = len(y)
    base = _design(runs, bends)
    beta = np.linalg.lstsq(base, y, rcond=None)[0]
    residual = y - base @ beta
    centred = residual - residual.mean()
    rho = float(np.clip((centred[1:] @ centred[:-1]) / (centred @ centred), 0.0, 0.95))
    best: tuple[float, int | None] = (0.0, None)
    for tau in range(SEGMENT, runs - SEGMENT):
        if any(abs(tau - b) < SEGMENT for b in bends):
            continue
        x = np.column_stack([base, np.maximum(np.arange(runs) - tau, 0.0)])
        xw, yw = x[1:] - rho * x[:-1], y[1:] - rho * y[:-1]
        coef = np.linalg.lstsq(xw, yw, rcond=None)[0]
        rest = yw - xw @ coef
        variance = rest @ rest / (len(yw) - x.shape[1])
        t2 = float(coef[-1] ** 2 / (variance * np.linalg.inv(xw.T @ xw)[-1, -1]))
        if t2 > best[0]:
            best = (t2, tau)
    return best


def bends(values: Sequence[float], penalty: float) -> list[int]:
    """The bends of ``values`` (positive, finite) at ``penalty``, in run order."""
    y = np.log(np.asarray(values, dtype=np.float64))
    kept: list[int] = []
    while len(y) >= FEWEST and len(kept) < MOST:
        t2, tau = _best_bend(y, kept)
        if tau is None or t2 < penalty:
            break
        kept.append(tau)
    return sorted(kept)


def _changes(values: Sequence[float]) -> list[int]:
    found = detect([RunSeries("s", np.asarray(values, dtype=np.float64))])
    return sorted(change.index for change in found.changes)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--penalty", type=float, action="append", help="(repeatable)")
    args = parser.parse_args(argv)
    root = data_root()
    if root is None:
        print("history-real data not found (../shared/data/history-real): nothing to measure")
        return 0
    values, notes = tcpd(root)
    names = _published_names(root, list(values))
    changes = {name: _changes(values[name]) for name in names}
    histories = [tigerbeetle(root), *firefox(root)]
    for penalty in args.penalty or [25.0, 40.0, 60.0]:
        moved = []
        before_cover, after_cover, before_f1, after_f1 = [], [], [], []
        for name in names:
            runs = len(values[name])
            with_bends = sorted({*changes[name], *bends(values[name], penalty)})
            before_cover.append(cover(changes[name], notes[name], runs))
            after_cover.append(cover(with_bends, notes[name], runs))
            before_f1.append(f1_score(changes[name], notes[name]))
            after_f1.append(f1_score(with_bends, notes[name]))
            moved.append((after_cover[-1] - before_cover[-1], name))
        print(
            f"penalty {penalty:g}: TCPD cover {statistics.mean(before_cover):.3f} -> "
            f"{statistics.mean(after_cover):.3f}, F1 {statistics.mean(before_f1):.3f} -> "
            f"{statistics.mean(after_f1):.3f}"
        )
        for change, name in sorted(moved)[:3] + sorted(moved)[-4:]:
            if change:
                print(f"  {name}: cover {change:+.3f}")
        for series in histories:
            found = bends(series.values, penalty)
            near = [*series.changes, *series.neutral]
            other = sum(1 for b in found if all(abs(b - p) > MARGIN for p in near))
            print(f"  {series.name}: bends {found}, {other} other")
    return 0


if __name__ == "__main__":
    sys.exit(main())
