"""Build NVBench result documents from raw per-state samples.

:class:`ResultBuilder` assembles what an NVBench run would have written: the ``meta`` block,
the device list, and per benchmark its axes and states. States can be added in any order;
:meth:`ResultBuilder.build` emits them in NVBench's normative order (spec §3.5) with NVBench's
state names (§4.3), ``type_config_index`` (§4.4), axis encodings (§4.1, §4.2) and summaries
(§5.3, computed by :mod:`._stats`). The per-sample arrays are kept beside the document as the
bulk data that :func:`._writer.write_document` turns into ``--jsonbin`` side files. The axis
declarations (:class:`~._axes.Int64Axis`, :class:`~._axes.TypeAxis`, ...) are :mod:`._axes`.

Example::

    builder = ResultBuilder(devices=[DeviceSpec.h100(0)], argv=["./bench"])
    bench = builder.benchmark("copy", axes=[TypeAxis("T", ["F32", "F64"]),
                                            Pow2Axis("Elements", [16, 20])])
    bench.state({"T": "F32", "Elements": 2**16}, gpu_times=times, frequencies=clocks)
    builder.write("results/copy.json")
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

import msgspec
import numpy as np
import numpy.typing as npt

from . import _stats
from ._axes import Axis, AxisInput, TypeAxis, check_int64, native_float
from ._schema import (
    UNSET,
    Benchmark,
    Datum,
    Document,
    JsonVersion,
    Meta,
    MetaVersion,
    NvbenchVersion,
    State,
    Summary,
)
from ._values import format_float64, format_int64

__all__ = [
    "BenchmarkBuilder",
    "BuiltResult",
    "DeviceSpec",
    "Measurement",
    "ResultBuilder",
    "StateBulk",
    "StatePoint",
    "UserSummary",
    "VersionInfo",
    "buffer_size_summary",
    "element_count_summary",
    "global_memory_summary",
]

# ---------------------------------------------------------------------------------------------
# Devices and version


@dataclass(frozen=True)
class DeviceSpec:
    """The 19 device fields of §3.3. Defaults describe an H100 80GB HBM3 (spec Example A).

    ``global_memory_bus_bandwidth=None`` derives it as NVBench does:
    ``2 * global_memory_bus_peak_clock_rate * (global_memory_bus_width // 8)``.
    """

    id: int = 0
    name: str = "NVIDIA H100 80GB HBM3"
    sm_version: int = 900
    ptx_version: int = 900
    sm_default_clock_rate: int = 1_980_000_000
    number_of_sms: int = 132
    max_blocks_per_sm: int = 32
    max_threads_per_sm: int = 2048
    max_threads_per_block: int = 1024
    registers_per_sm: int = 65536
    registers_per_block: int = 65536
    global_memory_size: int = 84_929_347_584
    global_memory_bus_peak_clock_rate: int = 2_619_000_000
    global_memory_bus_width: int = 5120
    global_memory_bus_bandwidth: int | None = None
    l2_cache_size: int = 52_428_800
    shared_memory_per_sm: int = 233_472
    shared_memory_per_block: int = 49_152
    ecc_state: bool = True

    @classmethod
    def h100(cls, id: int = 0) -> DeviceSpec:
        """An NVIDIA H100 80GB HBM3 (SM 9.0, 132 SMs, 1980 MHz, 3.35 TB/s)."""
        return cls(id=id)

    @classmethod
    def a100(cls, id: int = 0) -> DeviceSpec:
        """An NVIDIA A100-SXM4-80GB (SM 8.0, 108 SMs, 1410 MHz, 2.04 TB/s)."""
        return cls(
            id=id,
            name="NVIDIA A100-SXM4-80GB",
            sm_version=800,
            ptx_version=800,
            sm_default_clock_rate=1_410_000_000,
            number_of_sms=108,
            global_memory_size=84_974_239_744,
            global_memory_bus_peak_clock_rate=1_593_000_000,
            l2_cache_size=41_943_040,
            shared_memory_per_sm=167_936,
        )

    @property
    def peak_bandwidth(self) -> int:
        """Bytes/s: the stored bandwidth, or NVBench's formula when none was given."""
        if self.global_memory_bus_bandwidth is not None:
            return self.global_memory_bus_bandwidth
        return 2 * self.global_memory_bus_peak_clock_rate * (self.global_memory_bus_width // 8)

    def to_json(self) -> dict[str, Any]:
        """The device object in NVBench's key order."""
        return {
            "id": self.id,
            "name": self.name,
            "sm_version": self.sm_version,
            "ptx_version": self.ptx_version,
            "sm_default_clock_rate": self.sm_default_clock_rate,
            "number_of_sms": self.number_of_sms,
            "max_blocks_per_sm": self.max_blocks_per_sm,
            "max_threads_per_sm": self.max_threads_per_sm,
            "max_threads_per_block": self.max_threads_per_block,
            "registers_per_sm": self.registers_per_sm,
            "registers_per_block": self.registers_per_block,
            "global_memory_size": self.global_memory_size,
            "global_memory_bus_peak_clock_rate": self.global_memory_bus_peak_clock_rate,
            "global_memory_bus_width": self.global_memory_bus_width,
            "global_memory_bus_bandwidth": self.peak_bandwidth,
            "l2_cache_size": self.l2_cache_size,
            "shared_memory_per_sm": self.shared_memory_per_sm,
            "shared_memory_per_block": self.shared_memory_per_block,
            "ecc_state": self.ecc_state,
        }


@dataclass(frozen=True)
class VersionInfo:
    """``meta.version.nvbench``; defaults name the NVBench build the spec describes."""

    major: int = 0
    minor: int = 1
    patch: int = 0
    git_branch: str = "main"
    git_sha: str = "66212f1da71cc9afb2894a46fa8f234cbdd6c0d8"
    git_version: str = "66212f1"
    git_is_dirty: bool = False

    def to_schema(self) -> NvbenchVersion:
        return NvbenchVersion(
            major=self.major,
            minor=self.minor,
            patch=self.patch,
            string=f"{self.major}.{self.minor}.{self.patch}",
            git_branch=self.git_branch,
            git_sha=self.git_sha,
            git_version=self.git_version,
            git_is_dirty=self.git_is_dirty,
        )


# ---------------------------------------------------------------------------------------------
# User summaries


def _datum(name: str, value: int | float | str) -> Datum:
    if isinstance(value, bool):
        raise TypeError(f"summary value {name!r}: bool is not an NVBench value type")
    if isinstance(value, int | np.integer):
        return Datum(name=name, type="int64", value=format_int64(check_int64(int(value), name)))
    if isinstance(value, float | np.floating):
        return Datum(name=name, type="float64", value=format_float64(float(value)))
    if isinstance(value, str):
        return Datum(name=name, type="string", value=value)
    raise TypeError(f"summary value {name!r} must be int, float or str, got {value!r}")


@dataclass(frozen=True)
class UserSummary:
    """A summary added by benchmark code (``state.add_summary``), §5.3.5.

    ``value`` becomes the ``value`` datum (omitted when ``None``), ``extra`` further data
    entries in order. int → int64, float → float64, str → string.
    """

    tag: str
    value: int | float | str | None = None
    name: str | None = None
    description: str | None = None
    hint: str | None = None
    hide: str | None = None
    extra: Mapping[str, int | float | str] = field(default_factory=dict)

    def to_summary(self) -> Summary:
        data = [] if self.value is None else [_datum("value", self.value)]
        data += [_datum(key, value) for key, value in self.extra.items()]
        return Summary(
            tag=self.tag,
            name=UNSET if self.name is None else self.name,
            description=UNSET if self.description is None else self.description,
            hint=UNSET if self.hint is None else self.hint,
            hide=UNSET if self.hide is None else self.hide,
            # NVBench writes "data" only when some value exists (§5.1).
            data=data if data else UNSET,
        )


def element_count_summary(count: int, column: str) -> UserSummary:
    """``state.add_element_count(count, column)``: the ``nv/element_count/<column>`` summary."""
    return UserSummary(
        tag=f"nv/element_count/{column}",
        value=check_int64(count, "element count"),
        name=column,
        description=f"Number of elements: {column}",
    )


def global_memory_summary(size_bytes: int, column: str, *, writes: bool = False) -> UserSummary:
    """``add_global_memory_reads/writes<T>(n, column)``: ``nv/gmem/{reads,writes}/<column>``."""
    kind = "writes" if writes else "reads"
    return UserSummary(
        tag=f"nv/gmem/{kind}/{column}",
        value=check_int64(size_bytes, "byte count"),
        name=column,
        hint="bytes",
    )


def buffer_size_summary(
    size_bytes: int, tag: str, column: str = "", description: str = ""
) -> UserSummary:
    """``state.add_buffer_size(bytes, tag, column, description)`` (§5.3.5)."""
    return UserSummary(
        tag=tag,
        value=check_int64(size_bytes, "buffer size"),
        name=column if column else "None",
        description=description if description else None,
        hint="bytes",
        hide=None if column else "No column name provided.",
    )


SummaryInput = Summary | UserSummary


def _to_summary(item: SummaryInput) -> Summary:
    if isinstance(item, UserSummary):
        return item.to_summary()
    if not isinstance(item, Summary):
        raise TypeError(f"not a summary: {item!r}")
    # Copy so that later edits to the caller's record cannot reach the built document.
    data = item.data
    return msgspec.structs.replace(
        item,
        data=[msgspec.structs.replace(d) for d in data] if isinstance(data, list) else data,
    )


# ---------------------------------------------------------------------------------------------
# States


@dataclass(frozen=True, eq=False)
class Measurement:
    """What one state recorded. All arrays are samples in sample order.

    GPU benchmarks: ``gpu_times`` (seconds, CUDA events) make the cold summaries;
    ``cpu_times`` default to ``gpu_times``; ``frequencies`` (Hz per sample) add the clock
    summaries and the freqs side file. CPU-only benchmarks: ``cpu_times`` only.
    Batch (GPU only): either ``batch_times`` (one duration per launch) or ``batch_mean`` and
    ``batch_count``. Walltimes default to the summed sample times.
    ``skip_reason`` marks the state skipped; a skipped state normally has no measurement.
    """

    gpu_times: npt.ArrayLike | None = None
    cpu_times: npt.ArrayLike | None = None
    frequencies: npt.ArrayLike | None = None
    walltime: float | None = None
    batch_times: npt.ArrayLike | None = None
    batch_mean: float | None = None
    batch_count: int | None = None
    batch_walltime: float | None = None
    element_count: int = 0
    global_memory_bytes: int = 0
    skip_reason: str | None = None
    summaries_before: Sequence[SummaryInput] = ()
    summaries_after: Sequence[SummaryInput] = ()


@dataclass(frozen=True)
class StatePoint:
    """One point of a benchmark's state grid, as handed to :meth:`BenchmarkBuilder.fill`."""

    benchmark: str
    device: int | None
    values: Mapping[str, AxisInput]
    type_config_index: int
    name: str


@dataclass(frozen=True, eq=False)
class StateBulk:
    """Per-sample data of one state as the side files hold it (float32)."""

    times: npt.NDArray[np.float32]
    frequencies: npt.NDArray[np.float32] | None = None


@dataclass(frozen=True, eq=False)
class _StateRecord:
    state: State
    bulk: StateBulk | None


@dataclass(frozen=True, eq=False)
class BuiltResult:
    """A built document plus its bulk data, keyed by (benchmark index, state index)."""

    document: Document
    bulk: Mapping[tuple[int, int], StateBulk]

    def samples(
        self, benchmark_index: int, state_index: int
    ) -> tuple[npt.NDArray[np.float32] | None, npt.NDArray[np.float32] | None]:
        """(times, frequencies) of a state, ``(None, None)`` without bulk data.

        Matches the bulk-provider signature of :func:`._writer.write_document`.
        """
        item = self.bulk.get((benchmark_index, state_index))
        if item is None:
            return None, None
        return item.times, item.frequencies


def _samples(values: npt.ArrayLike, what: str) -> npt.NDArray[np.float64]:
    data = np.array(values, dtype=np.float64)
    if data.ndim != 1:
        raise ValueError(f"{what} must be 1-D, got shape {data.shape}")
    return data


def _block(values: npt.ArrayLike, rows: int, what: str) -> npt.NDArray[np.float64]:
    data = np.asarray(values, dtype=np.float64)
    if data.ndim != 2 or data.shape[0] != rows:
        raise ValueError(f"{what} must have shape ({rows}, samples), got {data.shape}")
    return data


_T = TypeVar("_T", int, float)


def _per_state(values: npt.ArrayLike, rows: int, what: str, kind: type[_T]) -> list[_T]:
    data = np.asarray(values)
    if data.ndim == 0:
        return [kind(data.item())] * rows
    if data.shape != (rows,):
        raise ValueError(f"{what} must be a scalar or have shape ({rows},), got {data.shape}")
    return [kind(item) for item in data.tolist()]


@dataclass(frozen=True)
class _Slot:
    """Where a state goes: its sort key (device position, type config, odometer) and names."""

    key: tuple[int, int, int]
    device_id: int | None
    device_position: int
    type_config_index: int
    indices: tuple[int, ...]


class BenchmarkBuilder:
    """Collects the states of one benchmark. Create it with :meth:`ResultBuilder.benchmark`."""

    def __init__(
        self,
        *,
        name: str,
        axes: Sequence[Axis],
        devices: Sequence[DeviceSpec] | None,
        settings: Mapping[str, int | float | None],
    ) -> None:
        self._name = name
        self._axes = tuple(axes)
        self._devices = None if devices is None else tuple(devices)
        self._settings = dict(settings)
        self._records: dict[tuple[int, int, int], _StateRecord] = {}
        names = [axis.name for axis in self._axes]
        if len(set(names)) != len(names):
            raise ValueError(f"benchmark {name!r} declares an axis name twice: {names}")
        seen_value_axis = False
        for axis in self._axes:
            if not isinstance(axis, Axis):
                raise TypeError(f"not an axis declaration: {axis!r}")
            if isinstance(axis, TypeAxis) and seen_value_axis:
                raise ValueError(
                    f"type axis {axis.name!r} follows a value axis; NVBench lists type axes first"
                )
            seen_value_axis = seen_value_axis or not isinstance(axis, TypeAxis)
        self._type_axes = tuple(a for a in self._axes if isinstance(a, TypeAxis))
        self._value_axes = tuple(a for a in self._axes if not isinstance(a, TypeAxis))

    @property
    def name(self) -> str:
        return self._name

    @property
    def axes(self) -> tuple[Axis, ...]:
        return self._axes

    @property
    def is_cpu_only(self) -> bool:
        return self._devices is None

    @property
    def device_ids(self) -> tuple[int, ...] | None:
        return None if self._devices is None else tuple(d.id for d in self._devices)

    # -- grid ---------------------------------------------------------------------------------

    def _type_config_index(self, indices: Sequence[int]) -> int:
        # Row-major over the type axes: the last type axis varies fastest (§4.4).
        result = 0
        for axis, index in zip(self._type_axes, indices, strict=True):
            result = result * axis.size + index
        return result

    def _odometer(self, indices: Sequence[int]) -> int:
        # The first declared value axis varies fastest (§3.5).
        result = 0
        for axis, index in zip(reversed(self._value_axes), reversed(indices), strict=True):
            result = result * axis.size + index
        return result

    def _device_position(self, device: int | None) -> tuple[int | None, int]:
        if self._devices is None:
            if device is not None:
                raise ValueError(f"CPU-only benchmark {self._name!r} takes no device")
            return None, 0
        ids = [d.id for d in self._devices]
        if device is None:
            if len(ids) != 1:
                raise ValueError(f"benchmark {self._name!r} runs on devices {ids}: pass device=")
            return ids[0], 0
        if device not in ids:
            raise ValueError(f"device {device} is not one of benchmark {self._name!r}'s {ids}")
        return device, ids.index(device)

    def _state_name(self, device: int | None, indices: Sequence[int]) -> str:
        tokens = [] if device is None else [f"Device={device}"]
        tokens += [f"{a.name}={a.name_token(i)}" for a, i in zip(self._axes, indices, strict=True)]
        return " ".join(tokens)

    def _point(self, device: int | None, indices: Sequence[int]) -> StatePoint:
        n_types = len(self._type_axes)
        return StatePoint(
            benchmark=self._name,
            device=device,
            values={a.name: a.value_at(i) for a, i in zip(self._axes, indices, strict=True)},
            type_config_index=self._type_config_index(indices[:n_types]),
            name=self._state_name(device, indices),
        )

    def points(self) -> Iterator[StatePoint]:
        """Every state of the grid in NVBench's order; inactive type values are left out."""
        devices: Sequence[int | None] = (
            [None] if self._devices is None else [d.id for d in self._devices]
        )
        type_ranges = [range(a.size) for a in self._type_axes]
        value_ranges = [range(a.size) for a in reversed(self._value_axes)]
        for device in devices:
            for type_indices in itertools.product(*type_ranges):
                active = all(
                    axis.type_values[i].active
                    for axis, i in zip(self._type_axes, type_indices, strict=True)
                )
                if not active:
                    continue
                for reversed_indices in itertools.product(*value_ranges):
                    yield self._point(device, (*type_indices, *reversed(reversed_indices)))

    def _indices(self, values: Mapping[str, AxisInput] | None) -> tuple[int, ...]:
        given = dict(values or {})
        missing = [a.name for a in self._axes if a.name not in given]
        extra = [key for key in given if key not in {a.name for a in self._axes}]
        if missing or extra:
            raise ValueError(
                f"benchmark {self._name!r}: axis values must name exactly its axes "
                f"(missing {missing}, unknown {extra})"
            )
        return tuple(axis.index_of(given[axis.name]) for axis in self._axes)

    # -- states -------------------------------------------------------------------------------

    def state(
        self,
        values: Mapping[str, AxisInput] | None = None,
        *,
        device: int | None = None,
        gpu_times: npt.ArrayLike | None = None,
        cpu_times: npt.ArrayLike | None = None,
        frequencies: npt.ArrayLike | None = None,
        walltime: float | None = None,
        batch_times: npt.ArrayLike | None = None,
        batch_mean: float | None = None,
        batch_count: int | None = None,
        batch_walltime: float | None = None,
        element_count: int = 0,
        global_memory_bytes: int = 0,
        skip_reason: str | None = None,
        summaries_before: Sequence[SummaryInput] = (),
        summaries_after: Sequence[SummaryInput] = (),
    ) -> BenchmarkBuilder:
        """Add the state at ``values`` (axis name → value) on ``device``; see :class:`Measurement`.

        ``device`` may be omitted when the benchmark runs on one device; CPU-only benchmarks
        take none. Adding the same state twice raises ``ValueError``. Returns ``self``.
        """
        measurement = Measurement(
            gpu_times=gpu_times,
            cpu_times=cpu_times,
            frequencies=frequencies,
            walltime=walltime,
            batch_times=batch_times,
            batch_mean=batch_mean,
            batch_count=batch_count,
            batch_walltime=batch_walltime,
            element_count=element_count,
            global_memory_bytes=global_memory_bytes,
            skip_reason=skip_reason,
            summaries_before=summaries_before,
            summaries_after=summaries_after,
        )
        return self.add(values, measurement, device=device)

    def add(
        self,
        values: Mapping[str, AxisInput] | None,
        measurement: Measurement,
        *,
        device: int | None = None,
    ) -> BenchmarkBuilder:
        """Add a state from a :class:`Measurement`; :meth:`state` with a value object."""
        slot = self._slot(values, device)
        summaries, bulk = self._measure(slot.device_position, measurement)
        self._insert(slot, summaries, bulk, measurement.skip_reason)
        return self

    def add_states(
        self,
        values: Sequence[Mapping[str, AxisInput] | None],
        *,
        device: int | None = None,
        gpu_times: npt.ArrayLike | None = None,
        cpu_times: npt.ArrayLike | None = None,
        frequencies: npt.ArrayLike | None = None,
        walltimes: npt.ArrayLike | None = None,
        batch_means: npt.ArrayLike | None = None,
        batch_counts: npt.ArrayLike | None = None,
        batch_walltimes: npt.ArrayLike | None = None,
        element_counts: npt.ArrayLike = 0,
        global_memory_bytes: npt.ArrayLike = 0,
    ) -> BenchmarkBuilder:
        """Add many measured states of one device at once, with vectorized statistics.

        Row ``i`` of the 2-D ``(states, samples)`` arrays ``gpu_times``, ``cpu_times`` and
        ``frequencies`` belongs to ``values[i]``; all rows share one sample count. GPU
        benchmarks need ``gpu_times`` (``cpu_times`` default to them), CPU-only benchmarks
        ``cpu_times``. The 1-D per-state arrays (or scalars for ``element_counts`` and
        ``global_memory_bytes``) mean what the singular arguments of :meth:`state` mean;
        batch summaries need both ``batch_means`` and ``batch_counts``. The result equals
        calling :meth:`state` once per row.
        """
        rows = len(values)
        slots = [self._slot(v, device) for v in values]
        keys = [slot.key for slot in slots]
        if len(set(keys)) != len(keys):
            raise ValueError(f"benchmark {self._name!r}: a state appears twice in the block")
        main = gpu_times if self._devices is not None else cpu_times
        if main is None:
            what = "gpu_times" if self._devices is not None else "cpu_times"
            raise ValueError(f"add_states needs {what}")
        if self._devices is None and (gpu_times is not None or frequencies is not None):
            raise ValueError(f"CPU-only benchmark {self._name!r} has no GPU times or clocks")
        if self._devices is None and (batch_means is not None or batch_counts is not None):
            raise ValueError(f"CPU-only benchmark {self._name!r} has no batch measurement")
        times = _block(main, rows, "times")
        if self._devices is None or cpu_times is None:
            cpu = times
        else:
            cpu = _block(cpu_times, rows, "cpu_times")
        if cpu.shape != times.shape:
            raise ValueError(f"cpu_times shape {cpu.shape} differs from {times.shape}")
        freqs = None
        clocks: list[float | None] = [None] * rows
        if frequencies is not None:
            freqs = np.asarray(frequencies, dtype=np.float32)
            if freqs.shape != times.shape:
                raise ValueError(f"frequencies shape {freqs.shape} differs from {times.shape}")
            totals = _stats.sequential_sum_along(freqs.astype(np.float64))
            clocks = [None if t == 0 else t / times.shape[1] for t in totals.tolist()]
        walltime_values = (
            _stats.sequential_sum_along(cpu).tolist()
            if walltimes is None
            else _per_state(walltimes, rows, "walltimes", float)
        )
        counts = _per_state(element_counts, rows, "element_counts", int)
        memory = _per_state(global_memory_bytes, rows, "global_memory_bytes", int)
        batches: list[list[Summary]] = [[] for _ in range(rows)]
        if (batch_means is None) != (batch_counts is None):
            raise ValueError("batch_means and batch_counts go together")
        if batch_means is not None and batch_counts is not None:
            means = _per_state(batch_means, rows, "batch_means", float)
            launches = _per_state(batch_counts, rows, "batch_counts", int)
            walls = (
                [m * c for m, c in zip(means, launches, strict=True)]
                if batch_walltimes is None
                else _per_state(batch_walltimes, rows, "batch_walltimes", float)
            )
            batches = [
                _stats.batch_summaries(sample_size=c, mean=m, walltime=w)
                for m, c, w in zip(means, launches, walls, strict=True)
            ]
        elif batch_walltimes is not None:
            raise ValueError("batch_walltimes without a batch measurement")
        if self._devices is None:
            stats = _stats.describe_rows(cpu)
            for row, slot in enumerate(slots):
                summaries = _stats.cpu_only_summaries_from_stats(
                    stats[row],
                    walltime=walltime_values[row],
                    element_count=counts[row],
                    global_memory_bytes=memory[row],
                )
                self._insert(slot, summaries, StateBulk(cpu[row].astype(np.float32)), None)
            return self
        stats = _stats.describe_rows(np.concatenate([times, cpu]))
        for row, slot in enumerate(slots):
            spec = self._devices[slot.device_position]
            summaries = _stats.cold_summaries_from_stats(
                stats[row],
                stats[rows + row],
                walltime=walltime_values[row],
                sm_clock_mean=clocks[row],
                element_count=counts[row],
                global_memory_bytes=memory[row],
                peak_bandwidth=spec.peak_bandwidth,
                default_clock_rate=spec.sm_default_clock_rate,
            )
            bulk = StateBulk(
                times=times[row].astype(np.float32),
                frequencies=None if freqs is None else freqs[row].copy(),
            )
            self._insert(slot, summaries + batches[row], bulk, None)
        return self

    def fill(self, measure: Callable[[StatePoint], Measurement | None]) -> BenchmarkBuilder:
        """Add every grid point (in NVBench order) for which ``measure`` returns a measurement.

        Points already added are left alone; ``None`` leaves a point out.
        """
        for point in self.points():
            if self._slot(point.values, point.device).key in self._records:
                continue
            measurement = measure(point)
            if measurement is not None:
                self.add(point.values, measurement, device=point.device)
        return self

    def _slot(self, values: Mapping[str, AxisInput] | None, device: int | None) -> _Slot:
        device_id, device_position = self._device_position(device)
        indices = self._indices(values)
        n_types = len(self._type_axes)
        type_config = self._type_config_index(indices[:n_types])
        return _Slot(
            key=(device_position, type_config, self._odometer(indices[n_types:])),
            device_id=device_id,
            device_position=device_position,
            type_config_index=type_config,
            indices=indices,
        )

    def _insert(
        self,
        slot: _Slot,
        summaries: list[Summary],
        bulk: StateBulk | None,
        skip_reason: str | None,
    ) -> None:
        name = self._state_name(slot.device_id, slot.indices)
        if slot.key in self._records:
            raise ValueError(f"benchmark {self._name!r} already has state {name!r}")
        axis_values = [
            axis.state_value(i) for axis, i in zip(self._axes, slot.indices, strict=True)
        ]
        state = State(
            name=name,
            **self._settings,
            # CPU-only states have no device; NVBench writes garbage there, 0 is recommended.
            device=0 if slot.device_id is None else slot.device_id,
            type_config_index=slot.type_config_index,
            axis_values=axis_values or None,
            summaries=summaries or None,
            is_skipped=skip_reason is not None,
            skip_reason=UNSET if skip_reason is None else skip_reason,
        )
        self._records[slot.key] = _StateRecord(state, bulk)

    def _measure(
        self, device_position: int, m: Measurement
    ) -> tuple[list[Summary], StateBulk | None]:
        summaries = [_to_summary(s) for s in m.summaries_before]
        bulk: StateBulk | None = None
        element_count = check_int64(m.element_count, "element_count")
        memory_bytes = check_int64(m.global_memory_bytes, "global_memory_bytes")
        if self._devices is None:
            if m.gpu_times is not None or m.frequencies is not None:
                raise ValueError(f"CPU-only benchmark {self._name!r} has no GPU times or clocks")
            if m.batch_times is not None or m.batch_mean is not None:
                raise ValueError(f"CPU-only benchmark {self._name!r} has no batch measurement")
            if m.cpu_times is not None:
                cpu = _samples(m.cpu_times, "cpu_times")
                walltime = _stats.sequential_sum(cpu) if m.walltime is None else m.walltime
                summaries += _stats.cpu_only_summaries(
                    cpu,
                    walltime=walltime,
                    element_count=element_count,
                    global_memory_bytes=memory_bytes,
                )
                bulk = StateBulk(times=cpu.astype(np.float32))
        else:
            device = self._devices[device_position]
            if m.gpu_times is not None:
                gpu = _samples(m.gpu_times, "gpu_times")
                cpu = gpu if m.cpu_times is None else _samples(m.cpu_times, "cpu_times")
                freqs = (
                    None
                    if m.frequencies is None
                    else np.array(m.frequencies, dtype=np.float32).reshape(-1)
                )
                walltime = _stats.sequential_sum(cpu) if m.walltime is None else m.walltime
                summaries += _stats.cold_summaries(
                    gpu,
                    cpu,
                    walltime=walltime,
                    frequencies=freqs,
                    element_count=element_count,
                    global_memory_bytes=memory_bytes,
                    peak_bandwidth=device.peak_bandwidth,
                    default_clock_rate=device.sm_default_clock_rate,
                )
                bulk = StateBulk(times=gpu.astype(np.float32), frequencies=freqs)
            elif m.cpu_times is not None or m.frequencies is not None:
                raise ValueError("a GPU state needs gpu_times for its cold measurement")
            summaries += self._batch(m)
        summaries += [_to_summary(s) for s in m.summaries_after]
        return summaries, bulk

    @staticmethod
    def _batch(m: Measurement) -> list[Summary]:
        if m.batch_times is not None:
            if m.batch_mean is not None or m.batch_count is not None:
                raise ValueError("give batch_times or batch_mean/batch_count, not both")
            times = _samples(m.batch_times, "batch_times")
            if times.size == 0:
                raise ValueError("batch_times is empty")
            total = _stats.sequential_sum(times)
            count, mean = times.size, total / times.size
        elif m.batch_mean is not None or m.batch_count is not None:
            if m.batch_mean is None or m.batch_count is None:
                raise ValueError("batch_mean and batch_count go together")
            count, mean = check_int64(m.batch_count, "batch_count"), float(m.batch_mean)
            total = mean * count
        else:
            if m.batch_walltime is not None:
                raise ValueError("batch_walltime without a batch measurement")
            return []
        walltime = total if m.batch_walltime is None else m.batch_walltime
        return _stats.batch_summaries(sample_size=count, mean=mean, walltime=walltime)

    # -- output -------------------------------------------------------------------------------

    def _build(self, index: int) -> tuple[Benchmark, list[StateBulk | None]]:
        records = [self._records[key] for key in sorted(self._records)]
        benchmark = Benchmark(
            name=self._name,
            index=index,
            **self._settings,
            devices=None if self._devices is None else [d.id for d in self._devices],
            axes=[axis.definition() for axis in self._axes] or None,
            states=[record.state for record in records] or None,
        )
        return benchmark, [record.bulk for record in records]


class ResultBuilder:
    """Builds a whole NVBench result document (one run) benchmark by benchmark.

    ``devices`` lists every device of the machine (the top-level ``devices``; ``[]`` writes
    ``null`` as on a machine without GPUs); default one :meth:`DeviceSpec.h100`.
    """

    def __init__(
        self,
        *,
        devices: Sequence[DeviceSpec] | None = None,
        argv: Sequence[str] = ("./bench",),
        version: VersionInfo | None = None,
    ) -> None:
        specs = (DeviceSpec.h100(0),) if devices is None else tuple(devices)
        ids = [d.id for d in specs]
        if len(set(ids)) != len(ids):
            raise ValueError(f"device ids must be unique, got {ids}")
        self._devices = tuple(sorted(specs, key=lambda d: d.id))
        self._argv = [str(arg) for arg in argv]
        self._version = VersionInfo() if version is None else version
        self._benchmarks: list[BenchmarkBuilder] = []

    @property
    def devices(self) -> tuple[DeviceSpec, ...]:
        return self._devices

    def benchmark(
        self,
        name: str,
        *,
        axes: Sequence[Axis] = (),
        devices: Sequence[int] | Literal["all"] | None = "all",
        min_samples: int = 10,
        cold_warmup_runs: int = 1,
        cold_max_warmup_walltime: float = -1.0,
        batch_target_time: float = 0.5,
        skip_time: float = -1.0,
        timeout: float = 15.0,
    ) -> BenchmarkBuilder:
        """Declare the next benchmark (run order = call order) and return its builder.

        ``devices``: ids it ran on, in run order; ``"all"`` (default) for every device;
        ``None`` for a CPU-only benchmark. Settings are NVBench's defaults (§3.4).
        """
        by_id = {d.id: d for d in self._devices}
        specs: Sequence[DeviceSpec] | None
        if devices is None:
            specs = None
        elif devices == "all":
            specs = self._devices
            if not specs:
                raise ValueError("no devices declared; pass devices=None for CPU-only")
        else:
            unknown = [d for d in devices if d not in by_id]
            if unknown:
                raise ValueError(f"unknown device ids {unknown}; declared {sorted(by_id)}")
            if len(set(devices)) != len(devices) or not devices:
                raise ValueError(f"devices must be distinct and non-empty, got {devices}")
            specs = [by_id[d] for d in devices]
        settings: dict[str, int | float | None] = {
            "min_samples": check_int64(min_samples, "min_samples"),
            "cold_warmup_runs": check_int64(cold_warmup_runs, "cold_warmup_runs"),
            "cold_max_warmup_walltime": native_float(cold_max_warmup_walltime),
            "batch_target_time": native_float(batch_target_time),
            "skip_time": native_float(skip_time),
            "timeout": native_float(timeout),
        }
        builder = BenchmarkBuilder(name=name, axes=axes, devices=specs, settings=settings)
        self._benchmarks.append(builder)
        return builder

    def build(self) -> BuiltResult:
        """The document (without side-file summaries) and the per-state bulk data."""
        benchmarks: list[Benchmark] = []
        bulk: dict[tuple[int, int], StateBulk] = {}
        for index, builder in enumerate(self._benchmarks):
            benchmark, state_bulk = builder._build(index)
            benchmarks.append(benchmark)
            for state_index, item in enumerate(state_bulk):
                if item is not None:
                    bulk[(index, state_index)] = item
        document = Document(
            meta=Meta(
                argv=list(self._argv) or None,
                version=MetaVersion(
                    json=JsonVersion(major=1, minor=0, patch=0, string="1.0.0"),
                    nvbench=self._version.to_schema(),
                ),
            ),
            devices=[d.to_json() for d in self._devices] or None,
            benchmarks=benchmarks or None,
        )
        return BuiltResult(document=document, bulk=bulk)

    def write(self, path: str | os.PathLike[str], *, jsonbin: bool = True) -> Document:
        """Build and write ``path`` (plus side files with ``jsonbin``); returns what was written."""
        from ._writer import write_document

        built = self.build()
        return write_document(Path(path), built.document, built.samples, jsonbin=jsonbin)
