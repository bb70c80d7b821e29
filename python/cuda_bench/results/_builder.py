"""Build NVBench result documents from raw per-state samples.

:class:`ResultBuilder` assembles what an NVBench run would have written: the ``meta`` block,
the device list, and per benchmark its axes and states. States can be added in any order;
:meth:`ResultBuilder.build` emits them in NVBench's normative order (spec §3.5) with NVBench's
state names (§4.3), ``type_config_index`` (§4.4), axis encodings (§4.1, §4.2) and summaries
(§5.3, computed by :mod:`._stats`). The per-sample arrays are kept beside the document as the
bulk data that :func:`._writer.write_document` turns into ``--jsonbin`` side files. Axis
declarations are :mod:`._axes`, devices and versions :mod:`._devices`, what a state
recorded (:class:`~._measurement.Measurement`) and the result :mod:`._measurement`.

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
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from . import _arithmetic, _stats
from ._axes import Axis, AxisInput, TypeAxis, check_int64, native_float
from ._devices import DeviceSpec, VersionInfo
from ._measurement import (
    BuiltResult,
    Measurement,
    StateBulk,
    StatePoint,
    SummaryInput,
    measure,
    per_state_amounts,
    per_state_counts,
    sample_block,
)
from ._schema import UNSET, Benchmark, Document, JsonVersion, Meta, MetaVersion, State, Summary

__all__ = ["BenchmarkBuilder", "ResultBuilder"]


@dataclass(frozen=True, eq=False)
class _StateRecord:
    state: State
    bulk: StateBulk | None


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
        what = "gpu_times" if self._devices is not None else "cpu_times"
        if main is None:
            raise ValueError(f"add_states needs {what}")
        if self._devices is None and (gpu_times is not None or frequencies is not None):
            raise ValueError(f"CPU-only benchmark {self._name!r} has no GPU times or clocks")
        if self._devices is None and (batch_means is not None or batch_counts is not None):
            raise ValueError(f"CPU-only benchmark {self._name!r} has no batch measurement")
        times = sample_block(main, rows, what)
        if self._devices is None or cpu_times is None:
            cpu = times
        else:
            cpu = sample_block(cpu_times, rows, "cpu_times")
        if cpu.shape != times.shape:
            raise ValueError(f"cpu_times shape {cpu.shape} differs from {times.shape}")
        freqs = None
        clocks: list[float | None] = [None] * rows
        if frequencies is not None:
            freqs = sample_block(frequencies, rows, "frequencies").astype(np.float32)
            if freqs.shape != times.shape:
                raise ValueError(f"frequencies shape {freqs.shape} differs from {times.shape}")
            totals = _arithmetic.sequential_sum_along(freqs.astype(np.float64))
            clocks = [None if t == 0 else t / times.shape[1] for t in totals.tolist()]
        walltime_values = (
            _arithmetic.sequential_sum_along(cpu).tolist()
            if walltimes is None
            else per_state_amounts(walltimes, rows, "walltimes")
        )
        counts = per_state_counts(element_counts, rows, "element_counts")
        memory = per_state_counts(global_memory_bytes, rows, "global_memory_bytes")
        batches: list[list[Summary]] = [[] for _ in range(rows)]
        if (batch_means is None) != (batch_counts is None):
            raise ValueError("batch_means and batch_counts go together")
        if batch_means is not None and batch_counts is not None:
            means = per_state_amounts(batch_means, rows, "batch_means")
            launches = per_state_counts(batch_counts, rows, "batch_counts")
            walls = (
                [m * c for m, c in zip(means, launches, strict=True)]
                if batch_walltimes is None
                else per_state_amounts(batch_walltimes, rows, "batch_walltimes")
            )
            batches = [
                _stats.batch_summaries(sample_size=c, mean=m, walltime=w)
                for m, c, w in zip(means, launches, walls, strict=True)
            ]
        elif batch_walltimes is not None:
            raise ValueError("batch_walltimes without a batch measurement")
        if self._devices is None:
            stats = _arithmetic.describe_rows(cpu)
            for row, slot in enumerate(slots):
                summaries = _stats.cpu_only_summaries_from_stats(
                    stats[row],
                    walltime=walltime_values[row],
                    element_count=counts[row],
                    global_memory_bytes=memory[row],
                )
                self._insert(slot, summaries, StateBulk(cpu[row].astype(np.float32)), None)
            return self
        stats = _arithmetic.describe_rows(np.concatenate([times, cpu]))
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
        device = None if self._devices is None else self._devices[device_position]
        return measure(m, device, self._name)

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
    ``null`` as on a machine without GPUs); default one :meth:`DeviceSpec.h100`. ``argv`` is
    the command line recorded as ``meta.argv``, a list of words (a string is a ``TypeError``).
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
        if isinstance(argv, str):
            # A string is a sequence of its characters: meta.argv would list them one by one.
            raise TypeError(
                f"argv must be a list of command-line words, not a string: pass a list "
                f"such as {argv.split()!r}"
            )
        if isinstance(argv, bytes) or not isinstance(argv, Iterable):
            raise TypeError(f"argv must be a list of command-line words (text), got {argv!r}")
        words = list(argv)
        for word in words:
            if not isinstance(word, str):
                # str() would record "None" or "b'./bench'" as a word of the command line.
                raise TypeError(f"argv: each word must be text, got {word!r}")
        self._argv = words
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
        ``None`` for a CPU-only benchmark. Settings are NVBench's defaults (§3.4). Names are
        unique in a file: declaring one twice raises ``ValueError``.
        """
        if any(declared.name == name for declared in self._benchmarks):
            # NVIDIA's reader keeps one of two benchmarks of a name; ours warns on reading.
            raise ValueError(f"benchmark {name!r} is already declared; names must be unique")
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
        return write_document(path, built.document, built.samples, jsonbin=jsonbin)
