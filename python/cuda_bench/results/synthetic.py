"""Synthetic NVBench results with known ground truth, for tests, examples and benchmarks.

Samples follow a simple physical model: every state has a base cost in SM *cycles*; each
sample draws its cycle count (noise shape) and the SM clock it ran at, and its GPU time is
``cycles / clock``. That makes clock effects explicit: with :class:`BimodalClocks` the
cycles stay put while times split into two clusters, and a *throttled* run has lower clocks
and proportionally longer times for the same cycles. CPU times are the GPU time plus a
launch overhead, in whole nanoseconds like NVBench's host timer.

Everything is drawn from numpy ``Generator`` s seeded from one integer, per benchmark and
device in ``(states, samples)`` blocks, so generation is vectorized and the same seed gives
byte-identical files. The base costs depend on the seed only; each run (reference or compare,
run index) gets its own independent noise.

Example::

    pair = write_pair(tmp_path, SyntheticConfig(benchmarks=2, states=8, samples=500),
                      seed=1, random_shifts=2)
    pair.ref[0], pair.cmp[0]          # paths of the NVBench JSON files
    pair.truth.time_factor("bench_00", "Device=0 Elements=1024")  # 1.0 unless shifted
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Final, Literal

import numpy as np

from ._axes import Int64Axis
from ._builder import BenchmarkBuilder, ResultBuilder
from ._devices import DeviceSpec
from ._schema import Document

if TYPE_CHECKING:
    from .._arrays import FloatArray

__all__ = [
    "BimodalClocks",
    "GroundTruth",
    "HeavyTailNoise",
    "LogNormalNoise",
    "NoiseShape",
    "StateKey",
    "SyntheticConfig",
    "SyntheticPair",
    "build_run",
    "sample_cycles_and_clocks",
    "state_keys",
    "write_pair",
    "write_run",
]

#: (benchmark name, state name) of one state, e.g. ``("bench_00", "Device=0 Elements=1024")``.
StateKey = tuple[str, str]


@dataclass(frozen=True)
class LogNormalNoise:
    """Cycles jitter log-normally (``sigma`` = stdev of log cycles); one clock mode."""

    sigma: float = 0.01


@dataclass(frozen=True)
class BimodalClocks:
    """Two clock modes: a ``low_fraction`` share of samples runs at ``low_clock_ratio`` x clock.

    Cycles keep the small log-normal jitter ``sigma``, so times are bimodal while cycles
    (time x clock) are not.
    """

    low_fraction: float = 0.5
    low_clock_ratio: float = 0.85
    sigma: float = 0.005


@dataclass(frozen=True)
class HeavyTailNoise:
    """Log-normal jitter plus outliers: an ``outlier_fraction`` of samples takes
    ``1 + outlier_scale * Pareto(tail_index)`` times the cycles (a heavy right tail)."""

    sigma: float = 0.01
    outlier_fraction: float = 0.02
    outlier_scale: float = 0.1
    tail_index: float = 1.5


NoiseShape = LogNormalNoise | BimodalClocks | HeavyTailNoise


@dataclass(frozen=True)
class SyntheticConfig:
    """Shape and size of a synthetic run.

    ``benchmarks`` benchmarks named ``bench_00`` ..., each with one int64 axis ``Elements``
    of ``states`` values (1024, 2048, ...), run on every device of ``devices`` (or CPU-only
    with ``cpu_only``), ``samples`` cold samples per state. Base times are log-uniform in
    ``time_range`` seconds. ``clock_ratio`` is the typical SM clock as a share of each
    device's default clock, ``clock_jitter`` its relative per-sample jitter.
    ``timer_resolution`` (seconds, e.g. ``0.5e-6`` for CUDA events) quantizes GPU times and
    passes them through float32 milliseconds as CUDA events do; ``None`` keeps them exact.
    """

    benchmarks: int = 2
    states: int = 8
    samples: int = 200
    devices: Sequence[DeviceSpec] = (DeviceSpec.h100(0),)
    cpu_only: bool = False
    shape: NoiseShape = field(default_factory=LogNormalNoise)
    timer_resolution: float | None = None
    time_range: tuple[float, float] = (2e-6, 2e-3)
    clock_ratio: float = 0.9
    clock_jitter: float = 0.001
    cpu_overhead: float = 4e-6
    batch: bool = True

    def __post_init__(self) -> None:
        if self.benchmarks < 0 or self.states < 1 or self.samples < 1:
            raise ValueError("need benchmarks >= 0, states >= 1 and samples >= 1")
        low, high = self.time_range
        if not 0 < low <= high:
            raise ValueError(f"time_range must satisfy 0 < low <= high, got {self.time_range}")
        if self.timer_resolution is not None and not self.timer_resolution > 0:
            raise ValueError("timer_resolution must be positive")
        if not self.cpu_only and not self.devices:
            raise ValueError("a GPU run needs at least one device")
        object.__setattr__(self, "devices", tuple(self.devices))

    def benchmark_names(self) -> tuple[str, ...]:
        return tuple(f"bench_{index:02d}" for index in range(self.benchmarks))

    def elements(self) -> tuple[int, ...]:
        return tuple(1024 * (index + 1) for index in range(self.states))


@dataclass(frozen=True)
class GroundTruth:
    """What the compare runs changed relative to the reference runs.

    ``shifts`` maps states to their cycle factor (time factor at equal clocks; > 1 slower);
    ``throttle`` lowers every compare clock by that fraction, stretching times by
    ``1 / (1 - throttle)`` without changing cycles. ``states`` lists every state.
    """

    states: tuple[StateKey, ...]
    shifts: Mapping[StateKey, float]
    throttle: float = 0.0

    def cycle_factor(self, benchmark: str, state: str) -> float:
        """cmp cycles / ref cycles of a state (1.0 when unshifted)."""
        return self.shifts.get((benchmark, state), 1.0)

    def time_factor(self, benchmark: str, state: str) -> float:
        """cmp time / ref time of a state, throttling included."""
        return self.cycle_factor(benchmark, state) / (1.0 - self.throttle)

    @property
    def unchanged(self) -> tuple[StateKey, ...]:
        return tuple(key for key in self.states if key not in self.shifts)


@dataclass(frozen=True)
class SyntheticPair:
    """Paths of the written reference and compare runs, plus the ground truth."""

    ref: tuple[Path, ...]
    cmp: tuple[Path, ...]
    truth: GroundTruth


# ---------------------------------------------------------------------------------------------
# Generation


_SIDE_CODES: Final = MappingProxyType({"ref": 0, "cmp": 1})


def _skeleton(
    config: SyntheticConfig, argv: Sequence[str] = ("./synthetic_bench",)
) -> tuple[ResultBuilder, list[BenchmarkBuilder]]:
    """A builder with the benchmarks of ``config`` declared but no states yet."""
    builder = ResultBuilder(devices=() if config.cpu_only else config.devices, argv=argv)
    axis = Int64Axis("Elements", config.elements())
    benches = [
        builder.benchmark(name, axes=[axis], devices=None if config.cpu_only else "all")
        for name in config.benchmark_names()
    ]
    return builder, benches


def state_keys(config: SyntheticConfig) -> tuple[StateKey, ...]:
    """Every (benchmark, state name) a run of ``config`` contains, in document order."""
    _, benches = _skeleton(config)
    return tuple((bench.name, point.name) for bench in benches for point in bench.points())


def _base_times(config: SyntheticConfig, seed: int) -> FloatArray:
    """Per (benchmark, state) base GPU time at the nominal clock; shared by every run."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5EED]))
    low, high = config.time_range
    exponent = rng.uniform(math.log(low), math.log(high), size=(config.benchmarks, config.states))
    return np.exp(exponent)


def sample_cycles_and_clocks(
    rng: np.random.Generator,
    shape: NoiseShape,
    base_cycles: FloatArray,
    clock: float | FloatArray,
    samples: int,
    clock_jitter: float,
) -> tuple[FloatArray, FloatArray]:
    """Per-sample cycles and SM clocks, shape ``(states, samples)``, for a noise ``shape``.

    ``base_cycles`` holds one base cost per state; ``clock`` is a clock in Hz, or one per
    state as a ``(states, 1)`` column. Times are ``cycles / clocks``.
    """
    size = (base_cycles.size, samples)
    clocks = clock * (1.0 + clock_jitter * rng.standard_normal(size))
    if isinstance(shape, BimodalClocks):
        low = rng.random(size) < shape.low_fraction
        clocks = np.where(low, clocks * shape.low_clock_ratio, clocks)
        jitter = rng.lognormal(0.0, shape.sigma, size)
    elif isinstance(shape, HeavyTailNoise):
        jitter = rng.lognormal(0.0, shape.sigma, size)
        outlier = rng.random(size) < shape.outlier_fraction
        tail = 1.0 + shape.outlier_scale * rng.pareto(shape.tail_index, size)
        jitter = np.where(outlier, jitter * tail, jitter)
    else:
        jitter = rng.lognormal(0.0, shape.sigma, size)
    return base_cycles[:, None] * jitter, clocks


def _quantize_gpu(times: FloatArray, resolution: float | None) -> FloatArray:
    if resolution is None:
        return times
    ticks = np.maximum(np.rint(times / resolution), 1.0)
    # CUDA events report float32 milliseconds; NVBench divides by 1000 in double.
    milliseconds = (ticks * resolution * 1000.0).astype(np.float32)
    seconds: FloatArray = milliseconds.astype(np.float64) / 1000.0
    return seconds


def _host_times(rng: np.random.Generator, times: FloatArray, overhead: float) -> FloatArray:
    extra = overhead * rng.lognormal(0.0, 0.05, times.shape)
    # The host timer counts whole nanoseconds; NVBench scales them by 1e-9.
    nanoseconds = np.maximum(np.rint((times + extra) * 1e9), 1.0)
    seconds: FloatArray = nanoseconds * 1e-9
    return seconds


def build_run(
    config: SyntheticConfig,
    *,
    seed: int,
    side: Literal["ref", "cmp"] = "ref",
    run: int = 0,
    shifts: Mapping[StateKey, float] | None = None,
    throttle: float = 0.0,
    argv: Sequence[str] = ("./synthetic_bench",),
) -> ResultBuilder:
    """A :class:`ResultBuilder` holding one synthetic run.

    ``shifts`` multiplies the cycles (so the times) of the named states; ``throttle`` lowers
    every clock by that fraction. The noise depends on ``(seed, side, run)`` only.
    """
    if not 0.0 <= throttle < 1.0:
        raise ValueError(f"throttle must be within [0, 1), got {throttle}")
    shifts = dict(shifts or {})
    known = set(state_keys(config))
    unknown = [key for key in shifts if key not in known]
    if unknown:
        raise ValueError(f"shifts name states that do not exist: {unknown[:3]}")
    builder, benches = _skeleton(config, argv)
    base_times = _base_times(config, seed)
    elements = np.array(config.elements(), dtype=np.int64)
    devices: Sequence[DeviceSpec | None] = [None] if config.cpu_only else list(config.devices)
    for bench_index, bench in enumerate(benches):
        points = list(bench.points())
        for device_index, device in enumerate(devices):
            rng = np.random.default_rng(
                np.random.SeedSequence([seed, _SIDE_CODES[side], run, bench_index, device_index])
            )
            device_id = None if device is None else device.id
            mine = [point for point in points if point.device == device_id]
            values = [point.values for point in mine]
            factors = np.array([shifts.get((bench.name, point.name), 1.0) for point in mine])
            default_clock = 1e9 if device is None else float(device.sm_default_clock_rate)
            nominal = default_clock * config.clock_ratio
            clock = nominal * (1.0 - throttle)
            base_cycles = base_times[bench_index] * nominal * factors
            cycles, clocks = sample_cycles_and_clocks(
                rng, config.shape, base_cycles, clock, config.samples, config.clock_jitter
            )
            if device is None:
                # A CPU-only sample is one host-timed call: no events, no launch overhead.
                bench.add_states(
                    values,
                    cpu_times=_host_times(rng, cycles / clocks, 0.0),
                    element_counts=elements,
                    global_memory_bytes=8 * elements,
                )
                continue
            gpu = _quantize_gpu(cycles / clocks, config.timer_resolution)
            cpu = _host_times(rng, gpu, config.cpu_overhead)
            batch_means = batch_counts = None
            if config.batch:
                # Back-to-back launches skip the cache flush: a little faster than cold.
                batch_means = 0.97 * np.median(gpu, axis=1)
                target = np.ceil(0.5 / batch_means)
                batch_counts = np.clip(target, config.samples, 10_000_000).astype(np.int64)
            bench.add_states(
                values,
                device=device_id,
                gpu_times=gpu,
                cpu_times=cpu,
                frequencies=clocks.astype(np.float32),
                batch_means=batch_means,
                batch_counts=batch_counts,
                element_counts=elements,
                global_memory_bytes=8 * elements,
            )
    return builder


def write_run(
    path: str | os.PathLike[str],
    config: SyntheticConfig,
    *,
    seed: int,
    side: Literal["ref", "cmp"] = "ref",
    run: int = 0,
    shifts: Mapping[StateKey, float] | None = None,
    throttle: float = 0.0,
    jsonbin: bool = True,
) -> Document:
    """Generate one run (see :func:`build_run`) and write it, with side files if ``jsonbin``."""
    target = Path(path)
    argv = ["./synthetic_bench", "--jsonbin" if jsonbin else "--json", target.name]
    builder = build_run(
        config, seed=seed, side=side, run=run, shifts=shifts, throttle=throttle, argv=argv
    )
    return builder.write(target, jsonbin=jsonbin)


def write_pair(
    directory: str | os.PathLike[str],
    config: SyntheticConfig | None = None,
    *,
    seed: int = 0,
    ref_runs: int = 1,
    cmp_runs: int = 1,
    shifts: Mapping[StateKey, float] | None = None,
    random_shifts: int = 0,
    shift_factors: Sequence[float] = (0.9, 1.1),
    throttle: float = 0.0,
    jsonbin: bool = True,
    prefix: str = "",
) -> SyntheticPair:
    """Write reference and compare runs into ``directory`` and return paths and truth.

    Files are ``<prefix>ref.json`` / ``<prefix>cmp.json`` for single runs, else
    ``<prefix>ref_<i>.json`` / ``<prefix>cmp_<i>.json``. Compare runs shift the states in
    ``shifts`` plus ``random_shifts`` further states (chosen from the seed, each with a factor
    drawn from ``shift_factors``), and are throttled by ``throttle``.
    """
    config = SyntheticConfig() if config is None else config
    if ref_runs < 1 or cmp_runs < 1:
        raise ValueError("need at least one reference and one compare run")
    keys = state_keys(config)
    chosen: dict[StateKey, float] = dict(shifts or {})
    if random_shifts:
        candidates = [key for key in keys if key not in chosen]
        if random_shifts > len(candidates):
            raise ValueError(f"random_shifts={random_shifts} exceeds the {len(candidates)} states")
        if not shift_factors:
            raise ValueError("shift_factors is empty")
        rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5817]))
        picks = rng.choice(len(candidates), size=random_shifts, replace=False)
        factors = rng.choice(np.asarray(shift_factors, dtype=np.float64), size=random_shifts)
        for pick, factor in zip(sorted(picks.tolist()), factors.tolist(), strict=True):
            chosen[candidates[pick]] = float(factor)
    truth = GroundTruth(states=keys, shifts=chosen, throttle=throttle)
    root = Path(directory)

    def names(side: str, count: int) -> list[Path]:
        if count == 1:
            return [root / f"{prefix}{side}.json"]
        return [root / f"{prefix}{side}_{index}.json" for index in range(count)]

    ref_paths = names("ref", ref_runs)
    cmp_paths = names("cmp", cmp_runs)
    for index, path in enumerate(ref_paths):
        write_run(path, config, seed=seed, side="ref", run=index, jsonbin=jsonbin)
    for index, path in enumerate(cmp_paths):
        write_run(
            path,
            config,
            seed=seed,
            side="cmp",
            run=index,
            shifts=chosen,
            throttle=throttle,
            jsonbin=jsonbin,
        )
    return SyntheticPair(ref=tuple(ref_paths), cmp=tuple(cmp_paths), truth=truth)
