"""One benchmark of a result (:class:`SubBenchmarkResult`): a sequence of states in file
order, over the records its :class:`~._stages.BenchmarkStates` decode (when first used, for
a result read benchmark by benchmark).
"""

from __future__ import annotations

import math
import operator
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast, overload

import msgspec

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .._arrays import Float32Array
    from ._deferred import Span
else:
    from .._lazy import numpy as np

from . import _schema as s
from ._centers import Centers, make_centers
from ._errors import check_path
from ._source import _Source
from ._stages import BenchmarkStates, Stage, changed_states
from ._state import SubBenchmarkState, check_tag
from ._values import parse_typed
from ._views import (
    AxisValueInfo,
    BenchmarkAxis,
    BenchmarkResultDevice,
    StateAxisValue,
    _optional,
    shortened,
)

__all__ = ["SubBenchmarkResult"]

ResultT = TypeVar("ResultT")


class SubBenchmarkResult(Sequence[SubBenchmarkState]):
    """One benchmark of a result: a sequence of states in file order."""

    def __init__(
        self, bench: Mapping[str, Any] | s.Benchmark, json_dir: str | os.PathLike[str] = ""
    ) -> None:
        """One benchmark object of an NVBench JSON document (``name``, ``axes``,
        ``states``, optionally ``devices``), as decoded JSON or a schema record, as NVIDIA's
        ``SubBenchmarkResult(bench, json_dir)``: recorded side files are looked up
        relative to ``json_dir`` (``""``: the current directory, taken when called) and
        its parent. Raises :class:`ResultFormatError` when ``bench`` is not such an object,
        and as reading a file with it does when a state records different sample and
        frequency counts."""
        from ._parse import benchmark_record

        check_path(json_dir, "json_dir")
        record = benchmark_record(bench)
        source = _Source(None, None, directory=Path(json_dir).absolute())
        self._setup(source, 0, record, {}, check_counts=True)

    @classmethod
    def _of_record(
        cls,
        source: _Source,
        index: int,
        raw: s.Benchmark,
        devices: Mapping[int, Any],
        stage: Stage,
        span: Span | None = None,
        *,
        check_counts: bool = False,
    ) -> SubBenchmarkResult:
        """The ``index``-th benchmark of a result read from ``source``, its states decoded
        to ``stage`` (at ``RAW``: lying at ``span`` in the file, decoded when first used,
        and then checked as the reader checks them with ``check_counts``)."""
        bench = cls.__new__(cls)
        bench._setup(source, index, raw, devices, stage, span, check_counts=check_counts)
        return bench

    def _setup(
        self,
        source: _Source,
        index: int,
        raw: s.Benchmark,
        devices: Mapping[int, Any],
        stage: Stage = Stage.FULL,
        span: Span | None = None,
        *,
        check_counts: bool = False,
    ) -> None:
        self.source = source
        self._index = index
        # The header only: the records live in the stages, which replace them as they
        # decode further (and a caller's record is left as it was given).
        self._raw = msgspec.structs.replace(raw, states=None)
        self._device_info = devices
        self._input_strings: dict[str, tuple[dict[Any, str], dict[str, str]]] | None = None
        self._center_key_list: list[str] | None = None
        # The parser rewrote the legacy map layout, so only lists remain here.
        axes = cast("list[s.AxisDef]", raw.axes or [])
        self._axes = tuple(_axis(axis) for axis in axes)
        self._axes_by_name = {axis.name: axis for axis in self._axes}
        records = None if stage is Stage.RAW else cast("list[s.State] | None", raw.states)
        self._stages = BenchmarkStates(source, index, raw.name, stage, records, span)
        self._check_counts = check_counts
        #: The state views, made when the states are first decoded (``None`` before).
        self._views: tuple[SubBenchmarkState, ...] | None = None
        #: Views handed out by :meth:`state_at` before the states were decoded.
        self._pending: dict[int, SubBenchmarkState] = {}
        if stage is not Stage.RAW:
            self._states()

    def _states(self) -> tuple[SubBenchmarkState, ...]:
        """The state views, the states decoded (slim) first if they are not yet."""
        views = self._views
        if views is not None:
            return views
        records = self._stages.records(Stage.SLIM) or ()
        pending = self._pending
        made: list[SubBenchmarkState] = []
        for position, record in enumerate(records):
            state = pending.pop(position, None)
            if state is None:
                state = SubBenchmarkState(self, position, record)
            else:
                state._adopt_record(record)
            made.append(state)
        if pending:
            raise changed_states(
                self.source.label, self.name, self._index, max(pending) + 1, len(made)
            )
        views = self._views = tuple(made)
        if self._check_counts:
            _check_recorded_counts(self)
        return views

    def _full_records(self) -> list[s.State] | None:
        """The records with every summary field (names, hints, descriptions): states
        decoded slim are decoded again in full, their views keeping their identity."""
        was_slim = self._stages.stage is Stage.SLIM
        records = self._stages.records(Stage.FULL)
        if was_slim and self._views is not None:
            for state, record in zip(self._views, records or (), strict=True):
                state._adopt_record(record)
        return records

    def state_at(self, position: int) -> SubBenchmarkState:
        """The ``position``-th state, as ``self[position]``, but without decoding the
        states of a benchmark read benchmark by benchmark (:attr:`ReadMode.BY_BENCHMARK`)
        that are not decoded yet: the state decodes them when first used. Then a
        ``position`` the benchmark does not have raises :class:`ResultFormatError` (the
        file changed) instead of :class:`IndexError`. A comparison split over processes
        links the rows computed elsewhere to their states so. A negative ``position``
        counts from the end, as for a sequence (the states are decoded to count them);
        :class:`TypeError` for anything but an int (a bool too)."""
        position = _index(position, "position")
        if self._views is not None or position < 0:
            return self._states()[position]
        state = self._pending.get(position)
        if state is None:
            state = self._pending[position] = SubBenchmarkState(self, position, None)
        return state

    @property
    def raw_states_size(self) -> int | None:
        """Bytes of the benchmark's ``states`` JSON while they are not decoded yet (a result
        read benchmark by benchmark, :attr:`ReadMode.BY_BENCHMARK`); ``None`` once they are,
        and for results read otherwise."""
        return self._stages.raw_size

    def __repr__(self) -> str:
        # Never decodes (a benchmark read benchmark by benchmark reads its file for that).
        name = shortened(self.name)
        views = self._views
        if views is None:
            return f"SubBenchmarkResult({name}, states not read yet)"
        return f"SubBenchmarkResult({name}, {len(views)} state{'' if len(views) == 1 else 's'})"

    @property
    def name(self) -> str:
        return self._raw.name

    @property
    def position(self) -> int:
        """Position of the benchmark in the file's ``benchmarks`` array."""
        return self._index

    @property
    def json_path(self) -> str:
        return f"$.benchmarks[{self._index}]"

    @property
    def devices(self) -> list[int]:
        """Ids of the devices this benchmark ran on; empty for CPU-only benchmarks."""
        return list(self._raw.devices or ())

    @property
    def device_info(self) -> dict[int, BenchmarkResultDevice]:
        """The devices of :attr:`devices` that the file describes."""
        return {
            device: self._device_info[device]
            for device in self._raw.devices or ()
            if device in self._device_info
        }

    @property
    def is_cpu_only(self) -> bool:
        return not self._raw.devices

    @property
    def axes(self) -> list[BenchmarkAxis]:
        return list(self._axes)

    def axis(self, name: str) -> BenchmarkAxis | None:
        return self._axes_by_name.get(name)

    @property
    def states(self) -> list[SubBenchmarkState]:
        return list(self._states())

    @property
    def settings(self) -> dict[str, int | float | None]:
        """Run settings recorded for the benchmark (``timeout``, ``min_samples``, ...)."""
        return {
            name: getattr(self._raw, name)
            for name in s.SETTING_FIELDS
            if getattr(self._raw, name) is not s.UNSET
        }

    def __len__(self) -> int:
        return len(self._states())

    @overload
    def __getitem__(self, index: int) -> SubBenchmarkState: ...

    @overload
    def __getitem__(self, index: slice) -> list[SubBenchmarkState]: ...

    def __getitem__(self, index: int | slice) -> SubBenchmarkState | list[SubBenchmarkState]:
        if isinstance(index, slice):
            return list(self._states()[index])
        return self._states()[_index(index, "index")]

    def __iter__(self) -> Iterator[SubBenchmarkState]:
        return iter(self._states())

    def _center_keys(self) -> list[str]:
        keys = self._center_key_list
        if keys is None:
            keys = self._center_key_list = self._find_center_keys()
        return keys

    def _find_center_keys(self) -> list[str]:
        names = [state.name() for state in self._states()]
        if len(set(names)) == len(names):
            return names
        # Several devices give the same axis point; keep them apart rather than let the
        # last device overwrite the others.
        return [
            name if state.device is None else f"Device={state.device} {name}".rstrip()
            for name, state in zip(names, self._states(), strict=False)
        ]

    def _input_string(self, value: StateAxisValue) -> str:
        """The input string the axis of ``value`` declares for it (see
        :attr:`SubBenchmarkState.point`)."""
        tables = self._input_strings
        if tables is None:
            tables = self._input_strings = {axis.name: _input_strings(axis) for axis in self._axes}
        by_value, by_text = tables.get(value.name) or ({}, {})
        typed = value.typed
        # A null value (stored text "") is named by the input string declared for null
        # (``"default"``, say), as NVIDIA's reader names it.
        found = by_value.get(typed) if typed is not None or value.value == "" else None
        if found is None:
            found = by_text.get(value.value)
        return value.input_string if found is None else found

    def centers(self, estimator: Callable[[Float32Array], ResultT]) -> Centers[ResultT]:
        """``state.name()`` → ``estimator(samples)`` (``None`` without samples).

        Keyed as NVIDIA's reader keys it. Where the benchmark ran on several devices and
        their states share names, a name holds the last device's value (NVIDIA's), each
        state's :attr:`~SubBenchmarkState.center_key` (``Device=<id> <name>``) its own, and
        :meth:`Centers.by_device` all of them; a :class:`SharedStateNamesWarning` says so.
        """
        return make_centers(
            [(state.name(), state.device, state.center(estimator)) for state in self._states()],
            self.name,
        )

    def centers_with_frequencies(
        self, estimator: Callable[[Float32Array, Float32Array], ResultT]
    ) -> Centers[ResultT]:
        """Like :meth:`centers`, with ``estimator(samples, frequencies)``."""
        return make_centers(
            [
                (state.name(), state.device, state.center_with_frequencies(estimator))
                for state in self._states()
            ],
            self.name,
        )

    def summary_values(self, tag: str) -> npt.NDArray[np.float64]:
        """``value`` of ``tag`` for every state as float64, NaN where absent or not numeric;
        :class:`TypeError` for a ``tag`` that is no str."""
        check_tag(tag)
        out = np.full(len(self._states()), math.nan)
        for position, state in enumerate(self._states()):
            value = state.float_value(tag)
            if value is not None:
                out[position] = value
        return out


def _index(value: object, name: str) -> int:
    """``value`` of the state index ``name``: an int (numpy's too), never a bool, which is
    an ``int`` to Python (``bench[True]`` was the state at 1); ``TypeError`` otherwise."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an int, got a bool ({value!r})")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{name} must be an int, got {type(value).__name__}") from None


def _check_recorded_counts(bench: SubBenchmarkResult) -> None:
    """:meth:`SubBenchmarkState._check_recorded_counts` of every state of ``bench``."""
    for state in bench._states():
        state._check_recorded_counts()


def _input_strings(axis: BenchmarkAxis) -> tuple[dict[Any, str], dict[str, str]]:
    """An axis's declared input strings by typed value (``None`` for a value declared
    null) and by input string (the first of values declared twice wins)."""
    by_value: dict[Any, str] = {}
    by_text: dict[str, str] = {}
    for declared in axis.values:
        by_text.setdefault(declared.input_string, declared.input_string)
        value = declared.value
        if isinstance(value, str) and axis.type != "string":
            try:
                value = parse_typed(axis.type, value)
            except ValueError:
                continue
        if value is not None or axis.type != "type":
            by_value.setdefault(value, declared.input_string)
    return by_value, by_text


def _axis(raw: s.AxisDef) -> BenchmarkAxis:
    values = tuple(
        AxisValueInfo(
            input_string=value.input_string,
            description=_optional(value.description) or "",
            value=None if value.value is s.UNSET else value.value,
            is_active=True if value.is_active is s.UNSET else value.is_active,
        )
        for value in raw.values or ()
    )
    flags = _optional(raw.flags) or ""
    return BenchmarkAxis(name=raw.name, type=raw.type, flags=flags, values=values)
