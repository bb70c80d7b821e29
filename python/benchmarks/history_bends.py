"""A slope-change (bend) report beside the detector's changes, on the real histories: why
it was not taken (docs/history-detection-record.md, *TCPD F1 >= 0.75 and cover >= 0.70*).

    python python/benchmarks/history_bends.py                  # penalties 25, 40, 60
    python python/benchmarks/history_bends.py --penalty 30
    python python/benchmarks/history_bends.py --curvature 1 --null 400   # a quadratic null


A prototype, not the tool's method. On each series' logarithm it fits a line plus the
bends kept so far plus one more hinge ``max(0, t - tau)`` by least squares after the
Cochrane-Orcutt transformation (Cochrane & Orcutt 1949) with the lag-one correlation of
the residuals of the fit without the new hinge (clipped to 0-0.95), and keeps, greedily,
the ``tau`` of largest hinge ``t^2`` while it reaches the penalty (segments of at least 10
runs, at most 6 bends; series of fewer than 40 runs get none). Its bends join
:func:`cuda.bench.history.detect`'s confirmed changes. ``--curvature K`` adds powers 2 to
``K + 1`` of the centred run index to the line, so that a bend must beat a smooth curve,
not only a straight line; ``--null N`` first prints the largest hinge ``t^2`` that ``N``
pure-noise series of 200 runs of each of the synthetic noise shapes reach (the penalty a
false-alarm rate would call for).

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
from cuda.bench.history.synthetic import NOISE_KINDS, HistoryNoise
from history_real import _published_names

#: Fewest runs a segment between bends holds, most bends a series gets, fewest runs to try.
SEGMENT = 10
MOST = 6
FEWEST = 40


def _design(runs: int, bends: Sequence[int], curvature: int) -> np.ndarray[Any, Any]:
    t = np.arange(runs, dtype=np.float64)
    centred = (t - t.mean()) / max(1.0, float(t.std()))
    smooth = [centred**power for power in range(2, 2 + curvature)]
    hinges = [np.maximum(t - b, 0.0) for b in bends]
    return np.column_stack([np.ones(runs), t, *smooth, *hinges])


def _best_bend(
    y: np.ndarray[Any, Any], bends: Sequence[int], curvature: int
) -> tuple[float, int | None]:
    runs = len(y)
    base = _design(runs, bends, curvature)
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


def bends(values: Sequence[float], penalty: float, curvature: int = 0) -> list[int]:
    """The bends of ``values`` (positive, finite) at ``penalty``, in run order."""
    y = np.log(np.asarray(values, dtype=np.float64))
    kept: list[int] = []
    while len(y) >= FEWEST and len(kept) < MOST:
        t2, tau = _best_bend(y, kept, curvature)
        if tau is None or t2 < penalty:
            break
        kept.append(tau)
    return sorted(kept)


def _changes(values: Sequence[float]) -> list[int]:
    found = detect([RunSeries("s", np.asarray(values, dtype=np.float64))])
    return sorted(change.index for change in found.changes)


def print_null(series: int, curvature: int) -> None:
    """Quantiles of the largest hinge ``t^2`` of pure noise, per synthetic noise shape."""
    rng = np.random.default_rng(900)
    for kind in NOISE_KINDS:
        shapes = [0.5, 0.8] if kind == "ar1" else [0.5]
        for rho in shapes:
            logs = HistoryNoise(kind, rho=rho).draw(rng, series, 200)
            largest = np.array([_best_bend(row, [], curvature)[0] for row in logs])
            q99, q995 = np.quantile(largest, [0.99, 0.995])
            label = f"{kind} rho {rho:g}" if kind == "ar1" else kind
            print(
                f"null {label}: 99 % {q99:.1f}, 99.5 % {q995:.1f}, largest {largest.max():.1f}, "
                f"reaching 30 {np.mean(largest >= 30):.2%}"
            )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--penalty", type=float, action="append", help="(repeatable)")
    parser.add_argument("--curvature", type=int, default=0, help="powers beyond the line")
    parser.add_argument("--null", type=int, default=0, help="pure-noise series a shape")
    args = parser.parse_args(argv)
    if args.null:
        print_null(args.null, args.curvature)
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
            found = bends(values[name], penalty, args.curvature)
            with_bends = sorted({*changes[name], *found})
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
            found = bends(series.values, penalty, args.curvature)
            near = [*series.changes, *series.neutral]
            other = sum(1 for b in found if all(abs(b - p) > MARGIN for p in near))
            print(f"  {series.name}: bends {found}, {other} other")
    return 0


if __name__ == "__main__":
    sys.exit(main())
