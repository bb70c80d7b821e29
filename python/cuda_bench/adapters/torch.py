"""NVBench results from ``torch.utils.benchmark`` measurements.

>>> import torch                                                        # doctest: +SKIP
>>> from torch.utils.benchmark import Timer                             # doctest: +SKIP
>>> from cuda.bench.adapters.torch import measurements_to_result        # doctest: +SKIP
>>> x = torch.randn(256, 256)                                           # doctest: +SKIP
>>> timer = Timer("x @ x", globals={"x": x}, label="matmul", sub_label="256")  # doctest: +SKIP
>>> result = measurements_to_result(timer.blocked_autorange(), "mm.json")  # doctest: +SKIP

The file is an NVBench ``--jsonbin`` result: ``nvbench_compare before.json after.json`` compares
it, :class:`cuda.bench.results.BenchmarkResult` reads it. This module imports without torch;
its functions that need torch raise :class:`cuda.bench._deps.MissingDependencyError` with a
one-line install hint when it is missing.

How a :class:`torch.utils.benchmark.Measurement` maps to NVBench
------------------------------------------------------------------

* **Benchmark** = ``label``. A measurement without a label is named by its ``stmt`` when that
  is one line (as torch's own ``title`` does); a multi-line ``stmt`` without a label is an
  error.
* **Axes**, in this order: ``sub_label`` (string), ``description`` (string), ``num_threads``
  (int64). ``sub_label`` and ``description`` appear only in benchmarks where at least one
  measurement sets them; there, measurements without one get the value ``"-"``.
  ``num_threads`` is always an axis (torch always records it).
* **Samples**: ``raw_times[i]`` is the wall-clock time of *run* ``i``, one timed block of
  ``number_per_run`` back-to-back executions of ``stmt`` (``timeit.Timer.timeit(number)``), in
  seconds. Each run becomes one NVBench sample of ``raw_times[i] / number_per_run``: the mean
  time of one execution within that block (what ``Measurement.times`` holds). NVBench's own
  samples are single executions, so these spread less: a block mean averages out
  per-execution jitter. The walltime summary is the total timed time, ``sum(raw_times)``.
* **Replicates**: measurements with the same benchmark and axis values are replicates of one
  state (e.g. several ``blocked_autorange`` calls, or ``Measurement.merge`` output); their
  samples are concatenated in input order. They must agree on ``stmt``, ``setup``,
  ``global_setup`` and ``env``; different ``env`` values mean an A/B experiment, which
  belongs in two files (:func:`group_by_env`), compared with ``nvbench_compare``.
* **CPU or GPU**: ``torch.utils.benchmark`` records neither the device a statement used nor
  the timer, so nothing is guessed. By default (``device=None``) the results are CPU-only
  benchmarks (``nv/cpu_only/*`` summaries, ``devices: null``). Pass ``device=`` (a CUDA
  index, ``"cuda:N"``, a ``torch.device`` or a :class:`~cuda.bench.results.DeviceSpec`) when
  the statements ran CUDA work timed with ``Timer``'s default timer, which synchronizes the
  device around every run: the results are then GPU benchmarks on that device with cold
  summaries, whose GPU and CPU times are both these host wall-clock samples (including the
  synchronization; NVBench would use CUDA events). There are no SM clock samples, so no
  clock summaries and no frequency side files. NVIDIA's ``robust`` decision confirms every
  FAST/SLOW in SM-clock cycles, so for such files it answers AMBG (``missing_clock_rate``)
  where a clear gap exists; SAME is still possible.
* **Metadata** goes into hidden per-state summaries (``hide`` set, so tables do not show
  them; ``to_dataframe()`` gets one column each), after the measurement summaries:
  ``torch/stmt``, ``torch/setup``, ``torch/global_setup`` (if not empty), ``torch/env`` (if
  set), ``torch/number_per_run`` (if the same for all replicates), ``torch/replicates``
  (measurements merged into the state), ``torch/version`` and ``torch/metadata/<key>`` for
  ``Measurement.metadata`` entries with ``str`` keys and ``int``/``float``/``str`` values
  that all replicates agree on. ``meta.argv`` is the measuring script's command line.
  The file stays a valid NVBench result: user summaries with any tag are part of the format
  (spec §5.3.5).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeAlias, TypeVar

from .._deps import require
from .samples import AxisInput, StateSamples, samples_to_result

if TYPE_CHECKING:
    from types import ModuleType

    from ..results._tools_api import BenchmarkResult, DeviceSpec, UserSummary

__all__ = [
    "MISSING_AXIS_VALUE",
    "DeviceArg",
    "DeviceLike",
    "MeasurementLike",
    "TaskSpecLike",
    "cuda_device_spec",
    "device_spec_from_properties",
    "group_by_env",
    "measurement_samples",
    "measurements_to_result",
]

#: Axis value for a measurement without ``sub_label``/``description`` in a benchmark where
#: other measurements have one.
MISSING_AXIS_VALUE: Final = "-"

_SUB_LABEL: Final = "sub_label"
_DESCRIPTION: Final = "description"
_NUM_THREADS: Final = "num_threads"
_TAG_PREFIX: Final = "torch/"
_HIDDEN: Final = "Hidden by default."

# ---------------------------------------------------------------------------------------------
# The parts of torch's types this module reads. Typing against these protocols instead of
# torch keeps mypy (and this module's import) independent of whether torch is installed.


class TaskSpecLike(Protocol):
    """What is read of ``torch.utils.benchmark.utils.common.TaskSpec``."""

    @property
    def stmt(self) -> str: ...
    @property
    def setup(self) -> str: ...
    @property
    def global_setup(self) -> str: ...
    @property
    def label(self) -> str | None: ...
    @property
    def sub_label(self) -> str | None: ...
    @property
    def description(self) -> str | None: ...
    @property
    def env(self) -> str | None: ...
    @property
    def num_threads(self) -> int: ...


class MeasurementLike(Protocol):
    """What is read of ``torch.utils.benchmark.Measurement``."""

    @property
    def number_per_run(self) -> int: ...
    @property
    def raw_times(self) -> Sequence[float]: ...
    @property
    def task_spec(self) -> TaskSpecLike: ...
    @property
    def metadata(self) -> Mapping[Any, Any] | None: ...


class DeviceLike(Protocol):
    """A ``torch.device``."""

    @property
    def type(self) -> str: ...
    @property
    def index(self) -> int | None: ...


MeasurementT = TypeVar("MeasurementT", bound=MeasurementLike)

#: What ``device=`` accepts: ``None``/``"cpu"`` for CPU timings, else the CUDA device.
DeviceArg: TypeAlias = "int | str | DeviceLike | DeviceSpec | None"


def _torch() -> ModuleType:
    return require("torch", extra="torch", purpose="converting torch.utils.benchmark results")


# ---------------------------------------------------------------------------------------------
# Measurements → states


def _as_list(measurements: MeasurementT | Iterable[MeasurementT]) -> list[MeasurementT]:
    if hasattr(measurements, "raw_times"):
        items: list[Any] = [measurements]
    elif isinstance(measurements, Iterable) and not isinstance(measurements, str | bytes):
        items = list(measurements)
    else:
        raise TypeError(
            f"expected torch.utils.benchmark.Measurement objects, got {measurements!r:.200}"
        )
    for item in items:
        if not all(hasattr(item, name) for name in ("raw_times", "number_per_run", "task_spec")):
            raise TypeError(
                f"expected a torch.utils.benchmark.Measurement, got {type(item).__name__}: "
                f"{item!r:.200}"
            )
    return items


def _benchmark_name(spec: TaskSpecLike) -> str:
    if spec.label:
        return spec.label
    if spec.stmt and "\n" not in spec.stmt:
        return spec.stmt
    raise ValueError(
        "a measurement has no label and its stmt is empty or spans several lines, so it "
        "cannot be named; "
        f"give the Timer a label= (stmt: {spec.stmt!r:.80})"
    )


@dataclass(frozen=True)
class _StateKey:
    benchmark: str
    sub_label: str | None
    description: str | None
    num_threads: int

    def describe(self) -> str:
        parts = [f"{_SUB_LABEL}={self.sub_label}"] if self.sub_label is not None else []
        if self.description is not None:
            parts.append(f"{_DESCRIPTION}={self.description}")
        parts.append(f"{_NUM_THREADS}={self.num_threads}")
        return f"{self.benchmark} [{' '.join(parts)}]"


def _state_key(spec: TaskSpecLike) -> _StateKey:
    threads = spec.num_threads
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"num_threads must be a positive int, got {threads!r}")
    # torch treats an empty sub_label or description like a missing one (TaskSpec.title).
    return _StateKey(
        benchmark=_benchmark_name(spec),
        sub_label=spec.sub_label or None,
        description=spec.description or None,
        num_threads=threads,
    )


#: The task fields replicates of one state must agree on, in the order errors name them.
_TASK_FIELDS: Final = ("env", "stmt", "setup", "global_setup")


def _check_replicates(key: _StateKey, group: Sequence[MeasurementLike]) -> None:
    first = group[0].task_spec
    for other in group[1:]:
        spec = other.task_spec
        for name in _TASK_FIELDS:
            ours, theirs = getattr(first, name), getattr(spec, name)
            if ours == theirs:
                continue
            if name == "env":
                hint = (
                    "different env values are an A/B experiment: write one file per env "
                    "(cuda.bench.adapters.torch.group_by_env) and compare the files"
                )
            else:
                hint = "give them different sub_label or description values"
            raise ValueError(
                f"measurements of {key.describe()} differ in {name} "
                f"({ours!r:.60} vs {theirs!r:.60}); {hint}"
            )


def _samples(group: Sequence[MeasurementLike]) -> tuple[list[float], float]:
    """Per-execution seconds of every run, in input order, and the total timed seconds."""
    times: list[float] = []
    total = 0.0
    for measurement in group:
        number = measurement.number_per_run
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            raise ValueError(f"number_per_run must be a positive int, got {number!r}")
        for raw in measurement.raw_times:
            times.append(float(raw) / number)
            total += float(raw)
    return times, total


def _summary(key: str, value: int | float | str, description: str) -> UserSummary:
    from ..results._tools_api import UserSummary

    return UserSummary(
        tag=_TAG_PREFIX + key, value=value, name=key, description=description, hide=_HIDDEN
    )


def _scalar(value: object) -> int | float | str | None:
    """A metadata value NVBench can store (int64, float64, string), else ``None``."""
    if isinstance(value, bool):
        return None  # NVBench has no boolean summary type; str(True) would be a guess.
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**63 else None
    if isinstance(value, float | str):
        return value
    return None


def _user_metadata(group: Sequence[MeasurementLike]) -> list[UserSummary]:
    tables = [m.metadata if isinstance(m.metadata, Mapping) else {} for m in group]
    summaries: list[UserSummary] = []
    for name, value in tables[0].items():
        scalar = _scalar(value)
        if not isinstance(name, str) or scalar is None:
            continue
        # Replicates with different metadata cannot be told apart after the merge; keep
        # only what describes all of them (torch's Measurement.merge drops it all).
        if all(name in table and table[name] == value for table in tables[1:]):
            summaries.append(
                _summary(f"metadata/{name}", scalar, "Measurement.metadata entry (torch)")
            )
    return summaries


def _metadata(group: Sequence[MeasurementLike], version: str) -> list[UserSummary]:
    spec = group[0].task_spec
    summaries = [
        _summary("stmt", spec.stmt, "Timed statement (torch.utils.benchmark)"),
        _summary("setup", spec.setup, "Setup code run before timing (torch.utils.benchmark)"),
    ]
    if spec.global_setup:
        summaries.append(
            _summary("global_setup", spec.global_setup, "C++ global setup (torch.utils.benchmark)")
        )
    if spec.env is not None:
        summaries.append(_summary("env", spec.env, "Environment tag (torch.utils.benchmark)"))
    numbers = {m.number_per_run for m in group}
    if len(numbers) == 1:
        summaries.append(
            _summary(
                "number_per_run",
                numbers.pop(),
                "Executions of stmt per run; each sample is one run's time divided by it",
            )
        )
    summaries.append(
        _summary("replicates", len(group), "torch Measurements merged into this state")
    )
    summaries.append(_summary("version", version, "torch version that converted the results"))
    return summaries + _user_metadata(group)


def group_by_env(measurements: Iterable[MeasurementT]) -> dict[str | None, list[MeasurementT]]:
    """Measurements by their ``env`` tag, in order of first appearance (``None``: no env).

    torch uses ``env`` to tell apart otherwise identical tasks run in different environments
    (an A/B experiment). NVBench compares environments as separate files::

        for env, group in group_by_env(measurements).items():
            measurements_to_result(group, f"{env}.json")
    """
    groups: dict[str | None, list[MeasurementT]] = {}
    for measurement in _as_list(measurements):
        groups.setdefault(measurement.task_spec.env, []).append(measurement)
    return groups


def measurement_samples(
    measurements: MeasurementLike | Iterable[MeasurementLike],
) -> list[StateSamples]:
    """The NVBench states of ``measurements`` (module docstring), replicates merged.

    For composing files with :func:`cuda.bench.adapters.samples.add_samples`, e.g. CPU-only
    and GPU benchmarks in one result. States come in order of first appearance.
    """
    torch = _torch()
    items = _as_list(measurements)
    if not items:
        raise ValueError("no measurements given")
    groups: dict[_StateKey, list[MeasurementLike]] = {}
    for item in items:
        groups.setdefault(_state_key(item.task_spec), []).append(item)
    has_sub_label: set[str] = set()
    has_description: set[str] = set()
    for key in groups:
        if key.sub_label is not None:
            has_sub_label.add(key.benchmark)
        if key.description is not None:
            has_description.add(key.benchmark)
    version = str(torch.__version__)
    states: list[StateSamples] = []
    for key, group in groups.items():
        _check_replicates(key, group)
        axes: dict[str, AxisInput] = {}
        if key.benchmark in has_sub_label:
            axes[_SUB_LABEL] = key.sub_label or MISSING_AXIS_VALUE
        if key.benchmark in has_description:
            axes[_DESCRIPTION] = key.description or MISSING_AXIS_VALUE
        axes[_NUM_THREADS] = key.num_threads
        times, walltime = _samples(group)
        states.append(
            StateSamples(
                benchmark=key.benchmark,
                times=times,
                axes=axes,
                walltime=walltime,
                summaries=_metadata(group, version),
            )
        )
    return states


# ---------------------------------------------------------------------------------------------
# Devices


def _int_attribute(properties: object, name: str, default: int, scale: int = 1) -> int:
    value = getattr(properties, name, None)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return default
    return value * scale


def device_spec_from_properties(index: int, properties: object) -> DeviceSpec:
    """NVBench's device fields (spec §3.3) from ``torch.cuda.get_device_properties(index)``.

    torch reports clocks in kHz (converted to Hz here, as NVBench does). Fields torch does not
    report get fixed values: 1024 threads and 65536 registers per block, 32 blocks per SM,
    ``ptx_version`` -1 (NVBench's "not found") and ``ecc_state`` false; registers per SM and
    unknown clocks or sizes fall back to 65536 and 0. Both runs of a comparison made on one
    machine therefore describe the device identically.
    """
    from ..results._tools_api import DeviceSpec

    major = _int_attribute(properties, "major", 0)
    minor = _int_attribute(properties, "minor", 0)
    sm_version = major * 100 + minor * 10
    return DeviceSpec(
        id=index,
        name=str(getattr(properties, "name", f"CUDA device {index}")),
        sm_version=sm_version,
        ptx_version=-1,
        sm_default_clock_rate=_int_attribute(properties, "clock_rate", 0, 1000),
        number_of_sms=_int_attribute(properties, "multi_processor_count", 0),
        max_blocks_per_sm=32,
        max_threads_per_sm=_int_attribute(properties, "max_threads_per_multi_processor", 0),
        max_threads_per_block=1024,
        registers_per_sm=_int_attribute(properties, "regs_per_multiprocessor", 65536),
        registers_per_block=65536,
        global_memory_size=_int_attribute(properties, "total_memory", 0),
        global_memory_bus_peak_clock_rate=_int_attribute(properties, "memory_clock_rate", 0, 1000),
        global_memory_bus_width=_int_attribute(properties, "memory_bus_width", 0),
        l2_cache_size=_int_attribute(properties, "L2_cache_size", 0),
        shared_memory_per_sm=_int_attribute(properties, "shared_memory_per_multiprocessor", 0),
        shared_memory_per_block=_int_attribute(properties, "shared_memory_per_block", 0),
        ecc_state=False,
    )


def _parse_device(device: int | str | DeviceLike) -> tuple[bool, int | None]:
    """``(is_cuda, index)`` of ``device``; index ``None`` means the current CUDA device."""
    if isinstance(device, bool):
        raise TypeError(f"device must be an index, a device name or a torch.device, not {device!r}")
    if isinstance(device, int):
        if device < 0:
            raise ValueError(f"CUDA device index must be non-negative, got {device}")
        return True, device
    index: int | None = None
    if isinstance(device, str):
        kind, _, number = device.partition(":")
        if number:
            if not number.isdigit():
                raise ValueError(f"not a device: {device!r}")
            index = int(number)
    else:
        kind, index = device.type, device.index
    if kind == "cpu":
        return False, None
    if kind != "cuda":
        raise ValueError(
            f"NVBench results describe CUDA devices; {kind!r} timings can only be written as "
            "CPU-only (device=None)"
        )
    return True, index


def cuda_device_spec(device: int | str | DeviceLike = 0) -> DeviceSpec:
    """The :class:`~cuda.bench.results.DeviceSpec` of a CUDA device, as torch reports it.

    ``device`` is an index, ``"cuda"``/``"cuda:N"`` or a ``torch.device`` (``"cuda"``: the
    current device). Needs torch with CUDA and that device present; raises ``RuntimeError``
    otherwise.
    """
    torch = _torch()
    is_cuda, index = _parse_device(device)
    if not is_cuda:
        raise ValueError("the CPU is not a CUDA device; use device=None for CPU timings")
    if not torch.cuda.is_available():
        raise RuntimeError(
            f"no CUDA device is available to describe (torch {torch.__version__}); pass a "
            "cuda.bench.results.DeviceSpec to describe the device the results came from"
        )
    if index is None:
        index = int(torch.cuda.current_device())
    if index >= torch.cuda.device_count():
        raise RuntimeError(f"CUDA device {index} does not exist")
    return device_spec_from_properties(index, torch.cuda.get_device_properties(index))


def _resolve_device(device: DeviceArg) -> DeviceSpec | None:
    from ..results._tools_api import DeviceSpec

    if device is None or isinstance(device, DeviceSpec):
        return device
    is_cuda, _ = _parse_device(device)
    return cuda_device_spec(device) if is_cuda else None


# ---------------------------------------------------------------------------------------------
# The one-call API


def measurements_to_result(
    measurements: MeasurementLike | Iterable[MeasurementLike],
    path: str | os.PathLike[str],
    *,
    device: DeviceArg = None,
    argv: Sequence[str] | None = None,
    jsonbin: bool = True,
) -> BenchmarkResult:
    """Write ``measurements`` to ``path`` as an NVBench result; returns it, read back.

    ``measurements`` is one ``torch.utils.benchmark.Measurement`` or many (replicates of a
    state are merged). ``device``: ``None`` or ``"cpu"`` for CPU timings (CPU-only
    benchmarks); a CUDA index, ``"cuda[:N]"``, ``torch.device`` or
    :class:`~cuda.bench.results.DeviceSpec` for CUDA work (GPU benchmarks; see the module
    docstring for what that means). ``argv`` is recorded as ``meta.argv`` (default
    ``sys.argv``); ``jsonbin`` writes the ``--jsonbin`` side files next to ``path``.
    """
    states = measurement_samples(measurements)
    spec = _resolve_device(device)
    return samples_to_result(states, path, device=spec, argv=argv, jsonbin=jsonbin)
