"""What :class:`~._builder.BenchmarkBuilder` takes and gives per state: a
:class:`Measurement` (sample arrays and :class:`UserSummary` records), the
:class:`StatePoint` it is asked to measure, and the :class:`StateBulk` side-file data a
:class:`BuiltResult` keeps beside the document."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import msgspec
import numpy as np
import numpy.typing as npt

from ._axes import check_int64
from ._schema import UNSET, Datum, Document, Summary
from ._values import format_float64, format_int64

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
    "per_state",
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


def sample_array(values: npt.ArrayLike, what: str) -> npt.NDArray[np.float64]:
    """One state's samples as a new 1-D float64 array; ``what`` names them in errors."""
    data = np.array(values, dtype=np.float64)
    if data.ndim != 1:
        raise ValueError(f"{what} must be 1-D, got shape {data.shape}")
    return data


def sample_block(values: npt.ArrayLike, rows: int, what: str) -> npt.NDArray[np.float64]:
    """The samples of ``rows`` states, one row each, as a float64 array."""
    data = np.asarray(values, dtype=np.float64)
    if data.ndim != 2 or data.shape[0] != rows:
        raise ValueError(f"{what} must have shape ({rows}, samples), got {data.shape}")
    return data


_T = TypeVar("_T", int, float)


def per_state(values: npt.ArrayLike, rows: int, what: str, kind: type[_T]) -> list[_T]:
    """One ``kind`` value per state: a scalar repeated, or one entry per row."""
    data = np.asarray(values)
    if data.ndim == 0:
        return [kind(data.item())] * rows
    if data.shape != (rows,):
        raise ValueError(f"{what} must be a scalar or have shape ({rows},), got {data.shape}")
    return [kind(item) for item in data.tolist()]
