"""NVBench's summary catalog, reproduced exactly (spec §5.3, §6).

The summary builders return :class:`~cuda.bench.results._schema.Summary` records with the
exact tags, names, descriptions, hints and hide strings NVBench writes, values string-encoded
as in §2.3. The statistics they hold come from NVBench's arithmetic, :mod:`._arithmetic`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .._arrays import FloatArray
else:
    from .._lazy import numpy as np

from ._arithmetic import (
    SampleStats,
    _as_float_array,
    clock_mean,
    describe,
    describe_rows,
    divide,
)
from ._schema import UNSET, Datum, Summary
from ._values import format_float64, format_int64

__all__ = [
    "BATCH_SUMMARY_KINDS",
    "COLD_SUMMARY_KINDS",
    "CPU_ONLY_SUMMARY_KINDS",
    "HIDDEN",
    "SummaryKind",
    "batch_summaries",
    "cold_summaries",
    "cold_summaries_from_stats",
    "cpu_only_summaries",
    "cpu_only_summaries_from_stats",
]


#: The ``hide`` text of NVBench's hidden-by-default summaries.
HIDDEN = "Hidden by default."


@dataclass(frozen=True)
class SummaryKind:
    """The fixed metadata of one NVBench summary: everything except its value."""

    tag: str
    name: str
    hint: str
    description: str
    hide: str | None = None

    def summary(self, value_type: str, value: str) -> Summary:
        """A summary of this kind holding one ``value`` datum (already string-encoded)."""
        return Summary(
            tag=self.tag,
            name=self.name,
            description=self.description,
            hint=self.hint,
            hide=UNSET if self.hide is None else self.hide,
            data=[Datum(name="value", type=value_type, value=value)],
        )

    def float64(self, value: float) -> Summary:
        return self.summary("float64", format_float64(value))

    def int64(self, value: int) -> Summary:
        return self.summary("int64", format_int64(value))


def _time_kinds(prefix: str, unit: str, texts: Sequence[str]) -> tuple[SummaryKind, ...]:
    """The ten time rows (min .. iqr/relative) of one clock, from their descriptions."""
    names = (
        f"Min {unit} Time",
        f"Max {unit} Time",
        f"{unit} Time",
        "Noise",
        "Noise",
        f"Q1 {unit} Time",
        f"Median {unit} Time",
        f"Q3 {unit} Time",
        "IQR",
        "Rel IQR",
    )
    suffixes = (
        "min",
        "max",
        "mean",
        "stdev/absolute",
        "stdev/relative",
        "q1",
        "median",
        "q3",
        "iqr/absolute",
        "iqr/relative",
    )
    hints = ("duration",) * 4 + ("percentage",) + ("duration",) * 4 + ("percentage",)
    # Only the two headline columns (mean and relative stdev) are visible.
    visible = {"mean", "stdev/relative"}
    return tuple(
        SummaryKind(
            tag=f"{prefix}/{suffix}",
            name=name,
            hint=hint,
            description=text,
            hide=None if suffix in visible else HIDDEN,
        )
        for suffix, name, hint, text in zip(suffixes, names, hints, texts, strict=True)
    )


_COLD_CPU = _time_kinds(
    "nv/cold/time/cpu",
    "CPU",
    (
        "Fastest isolated kernel execution time (measured on host CPU)",
        "Slowest isolated kernel execution time (measured on host CPU)",
        "Mean isolated kernel execution time (measured on host CPU)",
        "Standard deviation of isolated kernel execution CPU times",
        "Relative standard deviation of isolated kernel execution CPU times",
        "First quartile of isolated kernel execution CPU times",
        "Median of isolated kernel execution CPU times",
        "Third quartile of isolated kernel execution CPU times",
        "Interquartile range of isolated kernel execution CPU times",
        "Relative interquartile range of isolated kernel execution CPU times",
    ),
)
_COLD_GPU = _time_kinds(
    "nv/cold/time/gpu",
    "GPU",
    (
        "Fastest isolated kernel execution time (measured with CUDA events)",
        "Slowest isolated kernel execution time (measured with CUDA events)",
        "Mean isolated kernel execution time (measured with CUDA events)",
        "Standard deviation of isolated kernel execution GPU times",
        "Relative standard deviation of isolated kernel execution GPU times",
        "First quartile of isolated kernel execution GPU times",
        "Median of isolated kernel execution GPU times",
        "Third quartile of isolated kernel execution GPU times",
        "Interquartile range of isolated kernel execution GPU times",
        "Relative interquartile range of isolated kernel execution GPU times",
    ),
)
_CPU_ONLY = _time_kinds(
    "nv/cpu_only/time/cpu",
    "CPU",
    (
        "Fastest CPU time of isolated kernel executions",
        "Slowest CPU time of isolated kernel executions",
        "Mean CPU time of isolated kernel executions",
        "Standard deviation of isolated CPU times",
        "Relative standard deviation of isolated CPU times",
        "First quartile of CPU times of isolated kernel executions",
        "Median of CPU times of isolated kernel executions",
        "Third quartile of CPU times of isolated kernel executions",
        "Interquartile range of CPU times of isolated kernel executions",
        "Relative interquartile range of CPU times of isolated kernel executions",
    ),
)

_COLD_SAMPLE_SIZE = SummaryKind(
    "nv/cold/sample_size", "Samples", "sample_size", "Number of isolated kernel executions"
)
_COLD_WALLTIME = SummaryKind(
    "nv/cold/walltime", "Walltime", "duration", "Walltime used for isolated measurements", HIDDEN
)
_COLD_ITEM_RATE = SummaryKind(
    "nv/cold/bw/item_rate",
    "Elem/s",
    "item_rate",
    "Number of input elements processed per second",
)
_COLD_BYTE_RATE = SummaryKind(
    "nv/cold/bw/global/bytes_per_second",
    "GlobalMem BW",
    "byte_rate",
    "Number of bytes read/written per second to the CUDA device's global memory",
)
_COLD_UTILIZATION = SummaryKind(
    "nv/cold/bw/global/utilization",
    "BWUtil",
    "percentage",
    "Global device memory utilization as a percentage of the device's peak bandwidth",
)
_COLD_CLOCK = SummaryKind(
    "nv/cold/sm_clock_rate/mean", "Clock Rate", "frequency", "Mean SM clock rate", HIDDEN
)
_COLD_CLOCK_SCALING = SummaryKind(
    "nv/cold/sm_clock_rate/scaling/percent",
    "Clock Scaling",
    "percentage",
    "Mean SM clock rate as a percentage of default clock rate.",
    HIDDEN,
)

#: §5.3.1 rows 1-27 in emission order.
COLD_SUMMARY_KINDS: tuple[SummaryKind, ...] = (
    _COLD_SAMPLE_SIZE,
    _COLD_WALLTIME,
    *_COLD_CPU,
    *_COLD_GPU,
    _COLD_ITEM_RATE,
    _COLD_BYTE_RATE,
    _COLD_UTILIZATION,
    _COLD_CLOCK,
    _COLD_CLOCK_SCALING,
)

_BATCH_SAMPLE_SIZE = SummaryKind(
    "nv/batch/sample_size", "Samples", "sample_size", "Number of batch kernel executions"
)
_BATCH_MEAN = SummaryKind(
    "nv/batch/time/gpu/mean",
    "Batch GPU",
    "duration",
    "Mean batch kernel execution time (measured by CUDA events)",
)
_BATCH_WALLTIME = SummaryKind(
    "nv/batch/walltime", "Walltime", "duration", "Walltime used for batch measurements", HIDDEN
)

#: §5.3.2 in emission order.
BATCH_SUMMARY_KINDS: tuple[SummaryKind, ...] = (_BATCH_SAMPLE_SIZE, _BATCH_MEAN, _BATCH_WALLTIME)

_CPU_ONLY_SAMPLE_SIZE = SummaryKind(
    "nv/cpu_only/sample_size", "Samples", "sample_size", "Number of isolated kernel executions"
)
_CPU_ONLY_ITEM_RATE = SummaryKind(
    "nv/cpu_only/bw/item_rate",
    "Elem/s",
    "item_rate",
    "Number of input elements processed per second",
)
_CPU_ONLY_BYTE_RATE = SummaryKind(
    "nv/cpu_only/bw/global/bytes_per_second",
    "GlobalMem BW",
    "byte_rate",
    "Number of bytes read/written per second.",
)
_CPU_ONLY_WALLTIME = SummaryKind(
    "nv/cpu_only/walltime",
    "Walltime",
    "duration",
    "Walltime used for isolated measurements",
    HIDDEN,
)

#: §5.3.3 rows 1-14 in emission order.
CPU_ONLY_SUMMARY_KINDS: tuple[SummaryKind, ...] = (
    _CPU_ONLY_SAMPLE_SIZE,
    *_CPU_ONLY,
    _CPU_ONLY_ITEM_RATE,
    _CPU_ONLY_BYTE_RATE,
    _CPU_ONLY_WALLTIME,
)


def _time_summaries(kinds: Sequence[SummaryKind], stats: SampleStats) -> list[Summary]:
    values = (
        stats.min,
        stats.max,
        stats.mean,
        stats.stdev,
        stats.relative_stdev,
        stats.q1,
        stats.median,
        stats.q3,
        stats.iqr,
    )
    rows = [kind.float64(value) for kind, value in zip(kinds[:9], values, strict=True)]
    if stats.relative_iqr is not None:
        rows.append(kinds[9].float64(stats.relative_iqr))
    return rows


def _samples(values: npt.ArrayLike, what: str) -> FloatArray:
    data = _as_float_array(values)
    if data.ndim != 1:
        raise ValueError(f"{what} must be 1-D, got shape {data.shape}")
    return data


def cold_summaries_from_stats(
    gpu: SampleStats,
    cpu: SampleStats,
    *,
    walltime: float,
    sm_clock_mean: float | None = None,
    element_count: int = 0,
    global_memory_bytes: int = 0,
    peak_bandwidth: float | None = None,
    default_clock_rate: float | None = None,
) -> list[Summary]:
    """Cold rows 1-27 (§5.3.1) from precomputed statistics; see :func:`cold_summaries`."""
    if gpu.size != cpu.size:
        raise ValueError(f"GPU and CPU sample counts differ: {gpu.size} != {cpu.size}")
    rows = [_COLD_SAMPLE_SIZE.int64(gpu.size), _COLD_WALLTIME.float64(walltime)]
    if gpu.size == 0:
        # Every trial was discarded: NVBench stops after sample count and walltime.
        return rows
    rows += _time_summaries(_COLD_CPU, cpu)
    rows += _time_summaries(_COLD_GPU, gpu)
    if element_count != 0:
        rows.append(_COLD_ITEM_RATE.float64(divide(element_count, gpu.mean)))
    if global_memory_bytes != 0:
        if peak_bandwidth is None:
            raise ValueError("peak_bandwidth is needed for the BWUtil summary")
        byte_rate = divide(global_memory_bytes, gpu.mean)
        rows.append(_COLD_BYTE_RATE.float64(byte_rate))
        rows.append(_COLD_UTILIZATION.float64(divide(byte_rate, peak_bandwidth)))
    if sm_clock_mean is not None:
        if default_clock_rate is None:
            raise ValueError("default_clock_rate is needed for the Clock Scaling summary")
        rows.append(_COLD_CLOCK.float64(sm_clock_mean))
        rows.append(_COLD_CLOCK_SCALING.float64(divide(sm_clock_mean, default_clock_rate)))
    return rows


def cold_summaries(
    gpu_times: npt.ArrayLike,
    cpu_times: npt.ArrayLike,
    *,
    walltime: float,
    frequencies: npt.ArrayLike | None = None,
    element_count: int = 0,
    global_memory_bytes: int = 0,
    peak_bandwidth: float | None = None,
    default_clock_rate: float | None = None,
) -> list[Summary]:
    """The cold-measurement summaries of a GPU state (§5.3.1 rows 1-27), in emission order.

    ``gpu_times`` and ``cpu_times`` are the accepted samples in seconds, in sample order.
    ``frequencies`` are the per-sample SM clock estimates in Hz (rounded to float32 as
    NVBench stores them); without them, or when they sum to 0, the clock rows are omitted.
    ``peak_bandwidth`` (the device's ``global_memory_bus_bandwidth``) is required when
    ``global_memory_bytes`` is non-zero, ``default_clock_rate`` when clock rows are emitted.
    """
    gpu = _samples(gpu_times, "gpu_times")
    cpu = _samples(cpu_times, "cpu_times")
    if gpu.size != cpu.size:
        raise ValueError(f"GPU and CPU sample counts differ: {gpu.size} != {cpu.size}")
    clock: float | None = None
    if frequencies is not None:
        freqs = np.asarray(frequencies)
        if freqs.size not in (0, gpu.size):
            raise ValueError(f"{freqs.size} frequencies for {gpu.size} samples")
        clock = clock_mean(freqs)
    if gpu.size == 0:
        return cold_summaries_from_stats(
            describe(gpu), describe(cpu), walltime=walltime, sm_clock_mean=None
        )
    gpu_stats, cpu_stats = describe_rows(np.stack([gpu, cpu]))
    return cold_summaries_from_stats(
        gpu_stats,
        cpu_stats,
        walltime=walltime,
        sm_clock_mean=clock,
        element_count=element_count,
        global_memory_bytes=global_memory_bytes,
        peak_bandwidth=peak_bandwidth,
        default_clock_rate=default_clock_rate,
    )


def cpu_only_summaries_from_stats(
    cpu: SampleStats,
    *,
    walltime: float,
    element_count: int = 0,
    global_memory_bytes: int = 0,
) -> list[Summary]:
    """CPU-only rows 1-14 (§5.3.3) from precomputed statistics."""
    if cpu.size == 0:
        raise ValueError("a CPU-only measurement always has at least one sample")
    rows = [_CPU_ONLY_SAMPLE_SIZE.int64(cpu.size)]
    rows += _time_summaries(_CPU_ONLY, cpu)
    if element_count != 0:
        rows.append(_CPU_ONLY_ITEM_RATE.float64(divide(element_count, cpu.mean)))
    if global_memory_bytes != 0:
        rows.append(_CPU_ONLY_BYTE_RATE.float64(divide(global_memory_bytes, cpu.mean)))
    # Unlike cold, NVBench emits the CPU-only walltime last.
    rows.append(_CPU_ONLY_WALLTIME.float64(walltime))
    return rows


def cpu_only_summaries(
    cpu_times: npt.ArrayLike,
    *,
    walltime: float,
    element_count: int = 0,
    global_memory_bytes: int = 0,
) -> list[Summary]:
    """The summaries of a CPU-only state (§5.3.3 rows 1-14), in emission order."""
    return cpu_only_summaries_from_stats(
        describe(_samples(cpu_times, "cpu_times")),
        walltime=walltime,
        element_count=element_count,
        global_memory_bytes=global_memory_bytes,
    )


def batch_summaries(*, sample_size: int, mean: float, walltime: float) -> list[Summary]:
    """The batch summaries (§5.3.2): total launches, mean time per launch, walltime."""
    return [
        _BATCH_SAMPLE_SIZE.int64(sample_size),
        _BATCH_MEAN.float64(mean),
        _BATCH_WALLTIME.float64(walltime),
    ]
