"""Synthetic run histories with known change points, for tests and the quality benchmark.

A history is ``S`` series of ``N`` runs: each series' per-run median is a base time times
``exp(noise)`` times a known step factor from a known run on. Noise shapes
(:class:`HistoryNoise`), all with run-to-run standard deviation ``run_sigma`` in log space:

``iid``
    normal;
``lognormal``
    a standardised log-normal (shape 1, so skewness about 6): rare slow runs, no fast ones;
``ar1``
    AR(1) with coefficient ``rho``: drift from run to run (marginal sd ``run_sigma``);
``bimodal``
    two SM clock modes: each run's median falls in the slow mode (``clock_gap`` slower) or
    the fast one with equal probability, plus small normal noise: the per-run median of a
    run whose samples split between two clock clusters lands in one of them;
``outliers``
    normal, plus a share ``outlier_rate`` of single runs slower by a Pareto-tailed
    ``outlier_scale``: outliers that revert at the next run.

Histories come out as arrays (fast, for benchmarks), as :class:`~.model.RunSeries` with
per-run samples, or as NVBench JSON runs written by :mod:`cuda.bench.results.synthetic`
(one file per run, the series being its states), for end-to-end use. Everything is drawn
from generators seeded from one integer, so a seed gives the same history.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import msgspec
import numpy as np

# At run time too (numpy is loaded here anyway), so that typing.get_type_hints, pydoc and
# inspect.signature resolve the annotations.
from .._arrays import FloatArray, IntArray
from ..results.synthetic import SyntheticConfig, state_keys, write_run
from .model import RunSeries

__all__ = [
    "NOISE_KINDS",
    "HistoryNoise",
    "MultiStepHistory",
    "SyntheticHistory",
    "commit_ids",
    "generate",
    "generate_multi",
    "run_samples",
    "run_series",
    "write_history",
]

NoiseKind = Literal["iid", "lognormal", "ar1", "bimodal", "outliers"]
NOISE_KINDS: tuple[NoiseKind, ...] = ("iid", "lognormal", "ar1", "bimodal", "outliers")


class HistoryNoise(msgspec.Struct, frozen=True):
    """Run-to-run noise of a synthetic history (module docstring)."""

    kind: NoiseKind = "iid"
    run_sigma: float = 0.01
    rho: float = 0.5
    clock_gap: float = 0.03
    outlier_rate: float = 0.02
    outlier_scale: float = 0.1
    #: Within-run log standard deviation of the samples of :func:`run_samples`.
    sample_sigma: float = 0.02

    def __post_init__(self) -> None:
        if self.kind not in NOISE_KINDS:
            raise ValueError(f"unknown noise kind {self.kind!r}; known: {', '.join(NOISE_KINDS)}")
        if self.run_sigma < 0 or self.sample_sigma < 0 or not -1.0 < self.rho < 1.0:
            raise ValueError("need run_sigma >= 0, sample_sigma >= 0 and -1 < rho < 1")
        if not 0.0 <= self.outlier_rate <= 1.0 or self.clock_gap < 0 or self.outlier_scale < 0:
            raise ValueError("need 0 <= outlier_rate <= 1, clock_gap >= 0, outlier_scale >= 0")

    def draw(self, rng: np.random.Generator, series: int, runs: int) -> FloatArray:
        """Log-space noise, shape ``(series, runs)``."""
        size = (series, runs)
        sigma = self.run_sigma
        if self.kind == "lognormal":
            raw = rng.lognormal(0.0, 1.0, size)
            mean, sd = math.exp(0.5), math.sqrt((math.e - 1.0) * math.e)
            out: FloatArray = sigma * (raw - mean) / sd
            return out
        if self.kind == "ar1":
            shocks = rng.standard_normal(size) * sigma * math.sqrt(1.0 - self.rho * self.rho)
            out = np.empty(size)
            out[:, 0] = rng.standard_normal(series) * sigma
            for run in range(1, runs):
                out[:, run] = self.rho * out[:, run - 1] + shocks[:, run]
            return out
        if self.kind == "bimodal":
            slow = rng.random(size) < 0.5
            return np.where(slow, math.log1p(self.clock_gap), 0.0) + sigma * rng.standard_normal(
                size
            )
        out = sigma * rng.standard_normal(size)
        if self.kind == "outliers":
            hit = rng.random(size) < self.outlier_rate
            jump = np.log1p(self.outlier_scale * (1.0 + rng.pareto(2.0, size)))
            out = np.where(hit, out + jump, out)
        return out

    @property
    def spread(self) -> float:
        """Run-to-run standard deviation of the log medians (the mixture's, for bimodal)."""
        if self.kind == "bimodal":
            return math.hypot(self.run_sigma, 0.5 * math.log1p(self.clock_gap))
        return self.run_sigma


class SyntheticHistory(msgspec.Struct, frozen=True):
    """Per-run medians ``(S, N)`` and the truth: each series' step run and factor."""

    medians: FloatArray
    #: First run of the new level, ``-1`` for a series without a step.
    step_at: IntArray
    #: Median factor from ``step_at`` on (1.0 without a step; > 1 slower).
    factor: FloatArray
    noise: HistoryNoise
    seed: int

    @property
    def series(self) -> int:
        return int(self.medians.shape[0])

    @property
    def runs(self) -> int:
        return int(self.medians.shape[1])


def generate(
    noise: HistoryNoise,
    *,
    series: int,
    runs: int = 200,
    steps: Sequence[float] = (),
    step_at: int | None = None,
    margin: int = 20,
    both_directions: bool = False,
    base_range: tuple[float, float] = (2e-6, 2e-3),
    seed: int = 0,
) -> SyntheticHistory:
    """A synthetic history of ``series`` series of ``runs`` runs.

    ``steps`` are relative step sizes (0.01 for 1 %); series ``i`` gets ``steps[i % len]``
    (no steps when empty). The step lands at ``step_at``, or at a run drawn uniformly from
    ``margin`` .. ``runs - margin``. Steps slow down (factor ``1 + s``) unless
    ``both_directions``, which makes every other series faster (factor ``1 / (1 + s)``).
    """
    if series < 0 or runs < 2:
        raise ValueError("need series >= 0 and runs >= 2")
    if step_at is not None and not 0 < step_at < runs:
        raise ValueError(f"step_at must lie in 1..{runs - 1}")
    if step_at is None and steps and not 0 < margin < runs - margin:
        raise ValueError(f"margin {margin} leaves no run for a step in {runs} runs")
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x4157]))
    low, high = base_range
    base = np.exp(rng.uniform(math.log(low), math.log(high), series))
    logs = noise.draw(rng, series, runs)
    at = np.full(series, -1, dtype=np.int64)
    factor = np.ones(series)
    if steps:
        sizes = np.resize(np.asarray(steps, dtype=np.float64), series)
        factor = 1.0 + sizes
        if both_directions:
            factor[1::2] = 1.0 / factor[1::2]
        where = rng.integers(margin, runs - margin + 1, series) if step_at is None else step_at
        at = np.broadcast_to(np.asarray(where, dtype=np.int64), (series,)).copy()
        after = np.arange(runs)[None, :] >= at[:, None]
        logs = logs + np.where(after, np.log(factor)[:, None], 0.0)
    medians = base[:, None] * np.exp(logs)
    return SyntheticHistory(medians, at, factor, noise, seed)


class MultiStepHistory(msgspec.Struct, frozen=True):
    """Per-run medians ``(S, N)`` with several steps per series, a slow trend and creep."""

    medians: FloatArray
    #: Each series' steps: first run of the new level ``(S, K)`` and factor ``(S, K)``.
    step_at: IntArray
    factor: FloatArray
    #: Total log drift of each series' linear trend over all its runs.
    trend: FloatArray
    #: Start of each series' creep (a ramp of ``creep`` in log over ``creep_runs`` runs).
    creep_at: IntArray
    noise: HistoryNoise


def generate_multi(
    noise: HistoryNoise,
    *,
    series: int,
    runs: int = 200,
    steps: Sequence[float] = (),
    per_series: int = 3,
    min_gap: int = 20,
    trend: float = 0.0,
    creep: float = 0.0,
    creep_runs: int = 40,
    seed: int = 0,
) -> MultiStepHistory:
    """Series with ``per_series`` steps each (sizes cycling through ``steps``, directions
    at random, at least ``min_gap`` runs apart and from the ends), on top of a linear trend
    of total size drawn uniformly from ``[-trend, trend]`` and a creep: a ramp of ``creep``
    (log, either direction) over ``creep_runs`` runs starting at a random run. Real nightly
    histories show all three (see ``docs/history-detection.md``)."""
    if per_series and not steps:
        raise ValueError("steps are needed for per_series > 0")
    if (per_series + 1) * min_gap > runs:
        raise ValueError(f"{per_series} steps {min_gap} runs apart do not fit {runs} runs")
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x3A17]))
    logs = noise.draw(rng, series, runs)
    at = np.zeros((series, per_series), dtype=np.int64)
    factor = np.ones((series, per_series))
    sizes = np.asarray(steps, dtype=np.float64) if steps else np.zeros(1)
    # Positions: per_series + 1 gaps of at least min_gap, the slack spread at random.
    slack = runs - (per_series + 1) * min_gap
    for row in range(series):
        cuts = np.sort(rng.integers(0, slack + 1, per_series))
        at[row] = min_gap * np.arange(1, per_series + 1) + cuts
        size = sizes[(row * per_series + np.arange(per_series)) % sizes.size]
        factor[row] = np.where(rng.random(per_series) < 0.5, 1.0 + size, 1.0 / (1.0 + size))
    after = np.arange(runs)[None, None, :] >= at[:, :, None]
    logs = logs + np.sum(np.where(after, np.log(factor)[:, :, None], 0.0), axis=1)
    drift = rng.uniform(-trend, trend, series)
    logs = logs + drift[:, None] * np.linspace(0.0, 1.0, runs)[None, :]
    start = rng.integers(0, max(1, runs - creep_runs), series)
    ramp = np.clip((np.arange(runs)[None, :] - start[:, None]) / creep_runs, 0.0, 1.0)
    sign = np.where(rng.random(series) < 0.5, 1.0, -1.0)
    logs = logs + (creep * sign)[:, None] * ramp
    return MultiStepHistory(np.exp(logs), at, factor, drift, start, noise)


def commit_ids(runs: int, *, seed: int = 0) -> tuple[str, ...]:
    """Deterministic 40-hex-digit commit ids, one per run."""
    return tuple(
        hashlib.sha1(f"synthetic-{seed}-{run}".encode()).hexdigest() for run in range(runs)
    )


def run_samples(
    history: SyntheticHistory, index: int, samples: int, *, seed: int = 0
) -> tuple[FloatArray, ...]:
    """Per-run samples of series ``index`` whose nearest-rank median is the run's median."""
    if samples < 1:
        raise ValueError("need samples >= 1")
    rng = np.random.default_rng(np.random.SeedSequence([history.seed, seed, index, 0x5A3]))
    jitter = np.exp(history.noise.sample_sigma * rng.standard_normal((history.runs, samples)))
    rank = samples // 2  # NVBench's nearest-rank median of ``samples`` values
    centers = np.partition(jitter, rank, axis=1)[:, rank]
    rows = history.medians[index][:, None] * jitter / centers[:, None]
    return tuple(rows)


def run_series(
    history: SyntheticHistory,
    *,
    samples: int | None = None,
    labels: Sequence[str] | None = None,
    prefix: str = "series",
) -> list[RunSeries]:
    """The history as :class:`RunSeries`, with ``samples`` per run when given."""
    labels = tuple(labels) if labels is not None else None
    return [
        RunSeries(
            key=f"{prefix}{index:05d}",
            medians=history.medians[index],
            samples=None if samples is None else run_samples(history, index, samples),
            labels=labels,
        )
        for index in range(history.series)
    ]


def write_history(
    directory: str | os.PathLike[str],
    history: SyntheticHistory,
    config: SyntheticConfig,
    *,
    seed: int = 0,
    jsonbin: bool = True,
) -> tuple[Path, ...]:
    """Write each run of ``history`` as an NVBench JSON file ``run_<k>.json``.

    The series are the states of ``config`` in document order (there must be as many); run
    ``k`` multiplies each state's cycles by its series' ``medians[:, k]`` relative to the
    series' first-run base, so the runs' medians follow the history up to the within-run
    noise of ``config.shape``. Returns the paths in run order.
    """
    keys = state_keys(config)
    if len(keys) != history.series:
        raise ValueError(f"config has {len(keys)} states but the history {history.series} series")
    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    relative = history.medians / np.exp(np.mean(np.log(history.medians), axis=1, keepdims=True))
    paths = []
    for run in range(history.runs):
        path = root / f"run_{run:04d}.json"
        shifts = {key: float(relative[i, run]) for i, key in enumerate(keys)}
        write_run(path, config, seed=seed, run=run, shifts=shifts, jsonbin=jsonbin)
        paths.append(path)
    return tuple(paths)
