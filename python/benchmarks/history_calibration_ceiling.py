"""How much of the missed AR(1)-on-a-trend recall a perfect calibration would recover.

    python python/benchmarks/history_calibration_ceiling.py            # 240 series (minutes)
    python python/benchmarks/history_calibration_ceiling.py --series 60

Histories of 200 runs: AR(1) noise (rho 0.5, 1 % marginal standard deviation), a linear
trend of up to +-5 % over the series, and three steps of 3, 5 and 10 % (random signs) at
least 20 runs apart. Each series is scanned on its own (no pooling) three ways, and the
share of the 3 % steps found within 5 runs is printed:

* ``scan``: as shipped, calibrated on the residuals around the changes it finds;
* ``oracle: noise``: calibrated on the series' noise alone (no trend, no steps), scored in
  the series' own units: what a perfect calibration could reach;
* ``oracle: noise + trend``: calibrated on the noise and the trend (no steps).

and, for where the rest is lost, the share of those steps where the plain multiscale MOSUM
(windows 10, 20, 40; scores in difference-scale units), in a window that does not reach
another step, exceeds within 5 runs of the step the threshold that holds pure AR(1) noise
(or AR(1) noise with such a trend) to 1 % false alarms per series, simulated with the true
model: detection alone, before any segmentation, step-versus-trend choice or confirmation.

The oracles replace the calibration step the scan looks up as ``changepoint.calibrate`` for the
duration of their run; this is an experiment on the method, not a use of the library.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from cuda.bench.compare.bootstrap import MAD_TO_SD
from cuda.bench.history import ScanConfig, changepoint, scan
from cuda.bench.history._robust import difference_scale

RUNS = 200
RHO = 0.5


def _ar1(rng: np.random.Generator) -> np.ndarray:
    innovations = rng.normal(0.0, 0.01 * math.sqrt(1.0 - RHO**2), RUNS)
    out = np.empty(RUNS)
    out[0] = rng.normal(0.0, 0.01)
    for t in range(1, RUNS):
        out[t] = RHO * out[t - 1] + innovations[t]
    return out


def _history(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
    """Noise, trend, steps (all log) and the runs of the 3 % step."""
    noise = _ar1(rng)
    trend = np.linspace(0.0, rng.uniform(-0.05, 0.05), RUNS)
    while True:
        at = np.sort(rng.choice(np.arange(20, RUNS - 19), 3, replace=False))
        if np.all(np.diff(at) >= 20):
            break
    sizes = rng.permutation([0.03, 0.05, 0.10]) * rng.choice([-1.0, 1.0], 3)
    steps = np.zeros(RUNS)
    for first, size in zip(at, sizes, strict=True):
        steps[first:] += math.copysign(math.log1p(abs(size)), size)
    return noise, trend, steps, [int(a) for a, s in zip(at, sizes, strict=True) if abs(s) == 0.03]


def _recall(histories: Sequence[Any], calibrate_on: Callable[[Any], np.ndarray] | None) -> float:
    shipped = changepoint.calibrate
    found = total = 0
    for history in histories:
        noise, trend, steps, small = history
        series = noise + trend + steps
        if calibrate_on is not None:
            pure = calibrate_on(history)
            scale = float(difference_scale(series[None, :])[0])
            residual = ((pure - np.median(pure)) / scale)[None, :]
            residual -= residual.mean()

            def oracle(scores: np.ndarray, *rest: Any, residual: np.ndarray = residual) -> Any:
                # Only the one-row calls of this scan (every call here is one series).
                return shipped(residual if scores.shape[0] == 1 else scores, *rest)

            changepoint.calibrate = oracle
        try:
            result = scan(series[None, :], ScanConfig(pool_correlation=False))[0]
        finally:
            changepoint.calibrate = shipped
        indices = [change.index for change in result.changes]
        for first in small:
            total += 1
            found += any(abs(index - first) <= 5 for index in indices)
    return found / total


_WINDOWS = (10, 20, 40)


def _moving_sums(values: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(positions, |z_w|)`` per window, in units of the difference scale."""
    diffs = np.diff(values)
    scale = MAD_TO_SD * float(np.median(np.abs(diffs - np.median(diffs)))) / math.sqrt(2.0)
    sums = np.concatenate(([0.0], np.cumsum(values / scale)))
    out = []
    for width in _WINDOWS:
        at = np.arange(width, RUNS - width + 1)
        after, before = sums[at + width] - sums[at], sums[at] - sums[at - width]
        out.append((at, np.abs(after - before) / width / math.sqrt(2.0 / width)))
    return out


def _exceedance_recall(histories: Sequence[Any], with_trend: bool, seed: int) -> float:
    """Share of the 3 % steps near which some window exceeds the oracle threshold."""
    rng = np.random.default_rng(seed)
    nulls = []
    for _ in range(2000):
        trend = np.linspace(0.0, rng.uniform(-0.05, 0.05), RUNS) if with_trend else 0.0
        nulls.append(_moving_sums(_ar1(rng) + trend))
    spread = [
        math.sqrt(float(np.mean(np.concatenate([null[i][1] for null in nulls]) ** 2)))
        for i in range(len(_WINDOWS))
    ]
    peaks = [
        max(float(z.max()) / s for (_, z), s in zip(null, spread, strict=True)) for null in nulls
    ]
    threshold = float(np.quantile(peaks, 0.99))
    found = total = 0
    for noise, trend, steps, small in histories:
        sums = _moving_sums(noise + trend + steps)
        edges = np.flatnonzero(np.diff(steps)) + 1
        for first in small:
            total += 1
            others = [int(edge) for edge in edges if abs(edge - first) > 5]
            # Only windows that do not reach another step: a wider one near this step
            # exceeds for its neighbour's sake.
            found += any(
                bool((z[np.abs(at - first) <= 5] / s > threshold).any())
                for (at, z), s, width in zip(sums, spread, _WINDOWS, strict=True)
                if all(abs(edge - first) >= width + 5 for edge in others)
            )
    return found / total


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--series", type=int, default=240)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    histories = [_history(rng) for _ in range(args.series)]
    print(
        f"{args.series} series of {RUNS} runs, AR(1) rho {RHO}, trend up to +-5 %, 3/5/10 % steps"
    )
    print("| setting | 3 % steps found |")
    print("|---|---|")
    for name, calibrate_on in (
        ("scan", None),
        ("oracle: noise", lambda h: h[0]),
        ("oracle: noise + trend", lambda h: h[0] + h[1]),
    ):
        print(f"| {name} | {_recall(histories, calibrate_on):.1%} |")
    for name, with_trend in (("AR(1)", False), ("AR(1) with trends", True)):
        recall = _exceedance_recall(histories, with_trend, args.seed + 4)
        print(f"| MOSUM in windows clear of other steps, 1 % threshold of {name} | {recall:.1%} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
