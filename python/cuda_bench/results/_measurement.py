"""What :class:`~._builder.BenchmarkBuilder` takes and gives per state: a
:class:`Measurement` (sample arrays and :class:`UserSummary` records), the
:class:`StatePoint` it is asked to measure, and the :class:`StateBulk` side-file data a
:class:`BuiltResult` keeps beside the document; :func:`measure` turns a measurement into
summaries, after the checks of what a measurement can record (:func:`sample_array`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

import msgspec
import numpy as np
import numpy.typing as npt

from . import _arithmetic, _stats
from ._axes import check_int64
from ._schema import UNSET, Datum, Document, Summary
from ._values import format_float64, format_int64

if TYPE_CHECKING:
    from ._devices import DeviceSpec

__all__ = [
    "BuiltResult",
    "Measurement",
    "StateBulk",
    "StatePoint",
    "SummaryInput",
    "UserSummary",
    "buffer_size_summary",
    "element_count_summary",
    "global_memory_summary",
    "measure",
    "measured_amount",
    "measured_count",
    "per_state_amounts",
    "per_state_counts",
    "sample_array",
    "sample_block",
    "to_summary",
]

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


def to_summary(item: SummaryInput) -> Summary:
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
    #: (``SummaryInput`` spelled out: public classes' annotations are resolved where they
    #: say they live, ``cuda.bench.results``.)
    summaries_before: Sequence[Summary | UserSummary] = ()
    summaries_after: Sequence[Summary | UserSummary] = ()


@dataclass(frozen=True)
class StatePoint:
    """One point of a benchmark's state grid, as handed to :meth:`BenchmarkBuilder.fill`."""

    benchmark: str
    device: int | None
    #: (``AxisInput`` spelled out, as ``Measurement``'s summaries.)
    values: Mapping[str, int | float | str]
    type_config_index: int
    name: str


@dataclass(frozen=True, eq=False)
class StateBulk:
    """Per-sample data of one state as the side files hold it (float32)."""

    times: npt.NDArray[np.float32]
    frequencies: npt.NDArray[np.float32] | None = None


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


def sample_array(
    values: npt.ArrayLike, what: str, *, allow_empty: bool = False
) -> npt.NDArray[np.float64]:
    """One state's samples as a new 1-D float64 array; ``what`` names them in errors.

    Samples are what a measurement can record: finite, non-negative numbers, at least one
    unless ``allow_empty`` (a cold measurement whose every trial was discarded records
    none, spec §5.3.1). :func:`cuda.bench.adapters.samples.samples_to_result` checks its
    input here too, so both refuse the same samples with the same words.
    """
    try:
        data = np.array(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{what} must be numbers ({error})") from None
    if data.ndim != 1:
        raise ValueError(f"{what} must be a flat list, got shape {data.shape}")
    if data.size == 0 and not allow_empty:
        raise ValueError(f"{what}: no samples")
    _check_samples(data, what)
    return data


def _check_samples(data: npt.NDArray[np.float64], what: str) -> None:
    if not bool(np.all(np.isfinite(data))) or bool(np.any(data < 0)):
        raise ValueError(f"{what} must be finite and non-negative, got {_offender(data)}")


def _offender(data: npt.NDArray[np.float64]) -> str:
    """The first sample no measurement records, with its position, for messages."""
    found = tuple(int(i) for i in np.argwhere(~np.isfinite(data) | (data < 0))[0])
    position = found[0] if len(found) == 1 else found
    return f"{float(data[found])!r} at position {position}"


def sample_block(values: npt.ArrayLike, rows: int, what: str) -> npt.NDArray[np.float64]:
    """The samples of ``rows`` states, one row each, as a float64 array (finite and
    non-negative, as :func:`sample_array` checks them)."""
    try:
        data = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{what} must be numbers ({error})") from None
    if data.ndim != 2 or data.shape[0] != rows:
        raise ValueError(f"{what} must have shape ({rows}, samples), got {data.shape}")
    _check_samples(data, what)
    return data


def measured_amount(value: float, what: str) -> float:
    """A measured time or rate (walltime, batch mean) as a float: finite and non-negative."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise TypeError(f"{what} must be a number, got {value!r}")
    number = float(value)
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"{what} must be finite and non-negative, got {number!r}")
    return number


def measured_count(value: int, what: str) -> int:
    """A recorded count (elements, bytes, launches): an int64 that is not negative."""
    number = check_int64(value, what)
    if number < 0:
        raise ValueError(f"{what} must not be negative, got {number}")
    return number


_T = TypeVar("_T", int, float)


def _per_state(values: npt.ArrayLike, rows: int, what: str, kind: type[_T]) -> list[_T]:
    """One ``kind`` value per state: a scalar repeated, or one entry per row."""
    data = np.asarray(values)
    if data.ndim == 0:
        return [kind(data.item())] * rows
    if data.shape != (rows,):
        raise ValueError(f"{what} must be a scalar or have shape ({rows},), got {data.shape}")
    return [kind(item) for item in data.tolist()]


def per_state_counts(values: npt.ArrayLike, rows: int, what: str) -> list[int]:
    """One recorded count per state (:func:`measured_count`): a scalar repeated, or one
    entry per row."""
    return [measured_count(count, what) for count in _per_state(values, rows, what, int)]


def per_state_amounts(values: npt.ArrayLike, rows: int, what: str) -> list[float]:
    """One measured time or rate per state (:func:`measured_amount`): a scalar repeated,
    or one entry per row."""
    return [measured_amount(amount, what) for amount in _per_state(values, rows, what, float)]


# ---------------------------------------------------------------------------------------------
# Measuring


def measure(
    m: Measurement, device: DeviceSpec | None, benchmark: str
) -> tuple[list[Summary], StateBulk | None]:
    """The summaries and side-file data of what ``m`` recorded in a state of ``benchmark``,
    run on ``device`` (``None``: CPU-only), as NVBench computes them (spec §5.3)."""
    summaries = [to_summary(s) for s in m.summaries_before]
    bulk: StateBulk | None = None
    element_count = measured_count(m.element_count, "element_count")
    memory_bytes = measured_count(m.global_memory_bytes, "global_memory_bytes")
    given_walltime = None if m.walltime is None else measured_amount(m.walltime, "walltime")
    if device is None:
        if m.gpu_times is not None or m.frequencies is not None:
            raise ValueError(f"CPU-only benchmark {benchmark!r} has no GPU times or clocks")
        if m.batch_times is not None or m.batch_mean is not None:
            raise ValueError(f"CPU-only benchmark {benchmark!r} has no batch measurement")
        if m.cpu_times is not None:
            cpu = sample_array(m.cpu_times, "cpu_times")
            walltime = _arithmetic.sequential_sum(cpu) if given_walltime is None else given_walltime
            summaries += _stats.cpu_only_summaries(
                cpu,
                walltime=walltime,
                element_count=element_count,
                global_memory_bytes=memory_bytes,
            )
            bulk = StateBulk(times=cpu.astype(np.float32))
    else:
        if m.gpu_times is not None:
            # A cold measurement may record no samples: every trial was discarded.
            gpu = sample_array(m.gpu_times, "gpu_times", allow_empty=True)
            cpu = (
                gpu
                if m.cpu_times is None
                else sample_array(m.cpu_times, "cpu_times", allow_empty=True)
            )
            freqs = (
                None
                if m.frequencies is None
                else sample_array(m.frequencies, "frequencies", allow_empty=True).astype(np.float32)
            )
            walltime = _arithmetic.sequential_sum(cpu) if given_walltime is None else given_walltime
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
        summaries += _batch(m)
    summaries += [to_summary(s) for s in m.summaries_after]
    return summaries, bulk


def _batch(m: Measurement) -> list[Summary]:
    if m.batch_times is not None:
        if m.batch_mean is not None or m.batch_count is not None:
            raise ValueError("give batch_times or batch_mean/batch_count, not both")
        times = sample_array(m.batch_times, "batch_times")
        total = _arithmetic.sequential_sum(times)
        count, mean = times.size, total / times.size
    elif m.batch_mean is not None or m.batch_count is not None:
        if m.batch_mean is None or m.batch_count is None:
            raise ValueError("batch_mean and batch_count go together")
        count = measured_count(m.batch_count, "batch_count")
        mean = measured_amount(m.batch_mean, "batch_mean")
        total = mean * count
    else:
        if m.batch_walltime is not None:
            raise ValueError("batch_walltime without a batch measurement")
        return []
    walltime = (
        total if m.batch_walltime is None else measured_amount(m.batch_walltime, "batch_walltime")
    )
    return _stats.batch_summaries(sample_size=count, mean=mean, walltime=walltime)
