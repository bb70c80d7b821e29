"""What pooling the AR(1) correlation across series does to the history's detection.

    python python/benchmarks/history_pooling.py            # under a minute on two cores
    python python/benchmarks/history_pooling.py --quick    # a smoke test

The step-versus-trend choice of :mod:`cuda.bench.history.changepoint` widens its test by the
AR(1) long-run factor of each series' lag-one correlation. By default the correlation is
pooled across the series scanned together (:func:`cuda.bench.history._robust.pooled_correlation`,
positive-part James-Stein toward their mean); ``ScanConfig(pool_correlation=False)`` uses
each series' own estimate; pooling also sets the floor of each series' null
(:func:`cuda.bench.history._robust.pooled_lower_bound`). Both are run on three populations
of 200-run series with 1 % AR(1) noise: one where every series has rho 0.5 (what
``history_quality.py`` draws); one where every series has rho 0.8, a drift stronger than any
the other benchmarks draw; and a mixed one with rho 0, 0.3, 0.5 and 0.7 in equal shares,
scanned together, so that pooling pulls the correlations of unlike series toward each other.
Per rho and method: ``R3%`` the
share of 3 % steps (random run in 20..180, both directions) found within 5 runs, ``FA
trend`` the share of pure-noise series on a slow linear trend of up to +-5 % with any change
reported, ``FA`` the same without the trend; each change confirmed as in
``history_quality.py`` (``ours``).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

import numpy as np
from cuda.bench.history.synthetic import (
    HistoryNoise,
    MultiStepHistory,
    SyntheticHistory,
    generate,
    generate_multi,
)
from history_quality import ours_per_series, print_markdown

MIXED = (0.0, 0.3, 0.5, 0.7)
#: One correlation throughout (the tables' 0.5, and a drift stronger than any of theirs),
#: and the mixed population.
POPULATIONS = (("rho 0.5", (0.5,)), ("rho 0.8", (0.8,)), ("mixed", MIXED))


def _interleave(parts: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Rows of ``parts`` interleaved (so every chunk of the scan mixes them) and each row's
    part number."""
    stacked = np.concatenate(parts)
    groups = np.repeat(np.arange(len(parts)), [len(part) for part in parts])
    order = np.argsort(np.arange(stacked.shape[0]) % len(parts[0]), kind="stable")
    return stacked[order], groups[order]


def _shares(
    rhos: Sequence[float], series: int, trend_series: int, workers: int, pool: bool, seed: int
) -> list[tuple[float, float, float]]:
    stepped = [
        generate(
            HistoryNoise("ar1", rho=rho),
            series=series,
            steps=(0.03,),
            both_directions=True,
            seed=seed + i,
        )
        for i, rho in enumerate(rhos)
    ]
    medians, groups = _interleave([history.medians for history in stepped])
    at, _ = _interleave([history.step_at[:, None] for history in stepped])
    history = SyntheticHistory(medians, at[:, 0], np.ones(len(at)), stepped[0].noise, seed)
    found = ours_per_series(history, workers, pool_correlation=pool)
    truth = at[:, 0]
    hits = np.array(
        [any(abs(i - a) <= 5 for i, _ in one.changes) for one, a in zip(found, truth, strict=True)]
    )
    alarms = []
    for trend in (0.05, 0.0):
        drifting = [
            generate_multi(
                HistoryNoise("ar1", rho=rho),
                series=trend_series,
                per_series=0,
                trend=trend,
                seed=seed + 100 + i,
            )
            for i, rho in enumerate(rhos)
        ]
        medians, trend_groups = _interleave([history.medians for history in drifting])
        one = drifting[0]
        mixed = MultiStepHistory(
            medians, one.step_at, one.factor, one.trend, one.creep_at, one.noise
        )
        reported = np.array(
            [bool(x.changes) for x in ours_per_series(mixed, workers, pool_correlation=pool)]
        )
        alarms.append([float(reported[trend_groups == g].mean()) for g in range(len(rhos))])
    return [(float(hits[groups == g].mean()), alarms[0][g], alarms[1][g]) for g in range(len(rhos))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, allow_abbrev=False)
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke test")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args(argv)
    series, trend_series = (20, 20) if args.quick else (200, 500)
    rows = []
    for population, rhos in POPULATIONS:
        for pool in (True, False):
            shares = _shares(rhos, series, trend_series, args.workers, pool, args.seed)
            for rho, (recall, trend, noise) in zip(rhos, shares, strict=True):
                rows.append(
                    [
                        population,
                        f"{rho:.1f}",
                        "pooled" if pool else "own",
                        f"{recall:.1%}",
                        f"{trend:.1%}",
                        f"{noise:.1%}",
                    ]
                )
    print(
        f"{series} series with a 3 % step and {trend_series} without, per rho; "
        "200 runs, 1 % AR(1) noise"
    )
    print_markdown(["population", "rho", "correlation", "R3%", "FA trend", "FA"], rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
