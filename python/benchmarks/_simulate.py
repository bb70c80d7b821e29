"""What the verdict-quality studies share: the noise shapes, the nominal clock, the runs of one
simulated side, and the binomial bound of a rate.

:mod:`verdict_quality` and its A/A/A/A study :mod:`_many_study` both use them; they live here
so that the two import one way (``verdict_quality`` runs the study; python/test/test_layers.py).
"""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np
from cuda.bench.results.synthetic import (
    BimodalClocks,
    HeavyTailNoise,
    LogNormalNoise,
    NoiseShape,
    sample_cycles_and_clocks,
)

SHAPES: dict[str, NoiseShape] = {
    "log-normal": LogNormalNoise(sigma=0.01),
    "bimodal clocks": BimodalClocks(),
    "heavy tail": HeavyTailNoise(),
}

NOMINAL_CLOCK = 1.755e9


class Drifts(Protocol):
    """The run-to-run drifts of a study's settings (log-normal sigmas, per run)."""

    @property
    def drift(self) -> float: ...

    @property
    def clock_drift(self) -> float: ...


def simulate_side(
    rng: np.random.Generator,
    shape: NoiseShape,
    base_cycles: np.ndarray,
    runs: int,
    samples: int,
    cycle_factor: float,
    clock_factor: float,
    settings: Drifts,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``runs`` runs of ``len(base_cycles)`` states: (times, clocks), each (states, samples)."""
    count = base_cycles.size
    out = []
    for _ in range(runs):
        run_cycles = np.exp(settings.drift * rng.standard_normal(count))
        run_clock = np.exp(settings.clock_drift * rng.standard_normal(count))
        clock = NOMINAL_CLOCK * clock_factor * run_clock[:, None]
        cycles, clocks = sample_cycles_and_clocks(
            rng, shape, base_cycles * cycle_factor * run_cycles, clock, samples, 0.001
        )
        times = (cycles / clocks).astype(np.float32)
        out.append((times, clocks.astype(np.float32)))
    return out


def upper_bound(events: int, trials: int, confidence: float = 0.95) -> float:
    """One-sided upper confidence bound of a binomial rate (exact for 0 events, else Wilson)."""
    if trials == 0:
        return math.nan
    if events == 0:
        return 1.0 - (1.0 - confidence) ** (1.0 / trials)
    z = 1.6448536269514722  # one-sided 95 %
    p = events / trials
    centre = p + z * z / (2 * trials)
    spread = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    return (centre + spread) / (1 + z * z / trials)
