"""The mapping API over an NVBench result: benchmarks → states → summaries and samples.

Everything here is a thin, read-only view over the decoded :mod:`._schema` records. Views
are cheap to create; what costs time is done on first use and cached: the per-state
summary index, typed summary values and, above all, the side-file samples.
"""

from __future__ import annotations

import math
import operator
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast, overload

import msgspec

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .._arrays import Float32Array
    from ._deferred import Span
    from ._snapshot import FileIdentity
else:
    from .._lazy import numpy as np

from . import _schema as s
from ._errors import NVBenchFormatWarning, ResultFormatError, SideFileError
from ._parse import decode_document, decode_summaries, read_document
from ._sidecar import (
    FREQS_TAG,
    TIMES_TAGS,
    load_float32,
    recorded_counts,
    resolve_side_file,
    resolve_side_file_in,
)
from ._values import SummaryValue, parse_typed

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "AxisValueInfo",
    "BenchmarkAxis",
    "BenchmarkResult",
    "BenchmarkResultDevice",
    "BenchmarkResultSummary",
    "ResultMeta",
    "StateAxisValue",
    "SubBenchmarkResult",
    "SubBenchmarkState",
]

ResultT = TypeVar("ResultT")
BenchmarkResultT = TypeVar("BenchmarkResultT", bound="BenchmarkResult")

_CPU_ONLY_PREFIX = "nv/cpu_only/"
_FREQS_BYTES = FREQS_TAG.encode()
_TAG = operator.attrgetter("tag")
_UTILIZATION_TAGS = ("nv/cold/bw/global/utilization",)


class _ItemAccess:
    """``obj["field"]`` for frozen dataclasses whose upstream counterparts were dicts."""

    __slots__ = ()

    def __getitem__(self, key: str) -> Any:
        try:
            return getattr(self, key)
        except AttributeError:
            raise KeyError(key) from None

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key, default)


@dataclass(frozen=True, slots=True)
class BenchmarkResultDevice:
    """A CUDA device of the run: ``id``, ``name`` and every recorded field in ``data``."""

    id: int
    name: str
    data: Mapping[str, Any] = field(repr=False, compare=True)

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)


@dataclass(frozen=True, slots=True)
class ResultMeta:
    """``meta`` of a result file: the command line and the versions that wrote it."""

    argv: tuple[str, ...] = ()
    json_version: str | None = None
    nvbench_version: str | None = None
    git_branch: str | None = None
    git_sha: str | None = None
    git_version: str | None = None
    git_is_dirty: bool | None = None


@dataclass(frozen=True, slots=True)
class BenchmarkResultSummary:
    """One summary of a state: metadata plus ``data`` (value name → typed value)."""

    tag: str
    name: str | None
    hint: str | None
    hide: str | None
    description: str | None
    data: Mapping[str, SummaryValue]

    @property
    def value(self) -> SummaryValue:
        """The entry named ``value`` (NVBench's measurements have exactly that one)."""
        return self.data.get("value")

    @property
    def is_hidden(self) -> bool:
        """NVBench hides a summary from tables when the ``hide`` key is present at all."""
        return self.hide is not None

    def __getitem__(self, key: str) -> SummaryValue:
        return self.data[key]

    def get(self, key: str, default: SummaryValue = None) -> SummaryValue:
        return self.data.get(key, default)


@dataclass(frozen=True, slots=True)
class AxisValueInfo(_ItemAccess):
    """One declared value of an axis (``axes[].values[]``)."""

    input_string: str
    description: str
    value: SummaryValue
    is_active: bool = True


@dataclass(frozen=True, slots=True)
class BenchmarkAxis(_ItemAccess):
    """An axis declared by a benchmark (``axes[]``)."""

    name: str
    type: str
    flags: str
    values: tuple[AxisValueInfo, ...]

    @property
    def is_pow2(self) -> bool:
        return self.flags == "pow2"

    @property
    def key(self) -> str:
        """Name with flags as NVBench's ``--axis`` writes it, e.g. ``Elements[pow2]``."""
        return f"{self.name}[{self.flags}]" if self.flags else self.name


@dataclass(frozen=True, slots=True)
class StateAxisValue(_ItemAccess):
    """One axis value of a state: ``value`` is the stored text, ``typed`` the Python value."""

    name: str
    type: str
    value: str
    typed: SummaryValue
    flags: str = ""
    axis_type: str = ""

    @property
    def is_pow2(self) -> bool:
        return self.flags == "pow2"

    @property
    def input_string(self) -> str:
        """The value as NVBench's CLI takes it: exponent for pow2, ``%.5g`` for floats."""
        typed = self.typed
        if self.flags == "pow2" and isinstance(typed, int) and typed > 0:
            return str(typed.bit_length() - 1)
        if isinstance(typed, float):
            return f"{typed:.5g}"
        return self.value

    def __reduce__(self) -> tuple[Callable[..., StateAxisValue], tuple[Any, ...]]:
        # Rows computed in another process come back pickled with their axis values: the
        # constructor and the fields pickle in a third of the time of a slotted dataclass's
        # default state.
        return self.__class__, (
            self.name,
            self.type,
            self.value,
            self.typed,
            self.flags,
            self.axis_type,
        )


class _Source:
    """Where a result came from; shared by all of its states for side-file lookups.

    ``identity`` is that of the file when it was read, for results that read parts of it
    later (benchmark by benchmark, or slim): those reads refuse a changed file
    (:func:`~._snapshot.read_unchanged`).
    """

    __slots__ = ("_full", "directory", "identity", "label", "path")

    def __init__(
        self,
        path: Path | None,
        label: str | None,
        identity: FileIdentity | None = None,
        *,
        directory: Path | None = None,
    ) -> None:
        self.path = path
        self.label = label
        self.identity = identity
        #: Where side files are looked up for a benchmark made without a file
        #: (``SubBenchmarkResult(bench, json_dir)``).
        self.directory = directory
        self._full: s.Document | None = None

    def side_file(self, filename: str) -> Path | None:
        """The side file recorded as ``filename``, or ``None`` when it is nowhere found."""
        if self.path is not None:
            return resolve_side_file(self.path, filename)
        if self.directory is not None:
            return resolve_side_file_in(self.directory, filename)
        return None

    def read(self, offset: int = 0, length: int | None = None) -> bytes:
        """Bytes of the file as it was first read (all from ``offset`` without ``length``)."""
        if self.path is None or self.identity is None:  # pragma: no cover - never asked
            raise ResultFormatError(self.label, "cannot be read again: no file")
        from ._snapshot import read_unchanged

        return read_unchanged(self.path, self.identity, self.label, offset, length)

    def full_states(self, index: int) -> list[s.State] | None:
        """The states of the ``index``-th benchmark with every summary field, from the
        file read again in full (once): for a result read slim (:meth:`BenchmarkResult.
        _read_slim`) when something asks for summary names or descriptions."""
        if self._full is None:
            self._full = decode_document(self.read(), self.label, lazy=False)
        benchmarks = self._full.benchmarks or []
        states = benchmarks[index].states if index < len(benchmarks) else None
        return cast("list[s.State] | None", states)


class SubBenchmarkState:
    """One state: a point of (device, type configuration, axis values)."""

    __slots__ = (
        "_axis_values",
        "_bench",
        "_cpu_only",
        "_frequencies",
        "_index",
        "_raw",
        "_samples",
        "_summaries",
        "_summary_index",
        "_summary_list",
    )

    def __init__(self, bench: SubBenchmarkResult, index: int, raw: s.State | None) -> None:
        self._bench = bench
        self._index = index
        if raw is not None:  # None: a state of a benchmark not decoded yet (see __getattr__)
            self._raw = raw
        self._summary_list: list[s.Summary] | bool | None = False
        self._summary_index: dict[str, s.Summary] | None = None
        self._summaries: dict[str, BenchmarkResultSummary] | None = None
        self._samples: Float32Array | bool | None = False
        self._frequencies: Float32Array | bool | None = False
        self._axis_values: tuple[StateAxisValue, ...] | None = None
        self._cpu_only: bool | None = None

    def __repr__(self) -> str:
        return f"SubBenchmarkState({self._bench.name!r}, {self.state_name!r})"

    def _adopt_record(self, record: s.State) -> None:
        """Take ``record`` as this state's record (its benchmark decoded its states, first
        or again in full), forgetting what was read from the previous one."""
        self._raw = record
        self._summary_list = False
        self._summary_index = None
        self._summaries = None

    def __getattr__(self, name: str) -> Any:
        # Only called for a slot that was never set: the record of a state handed out
        # before its benchmark was decoded (SubBenchmarkResult._state_at). Decoding the
        # benchmark sets it; every other state reads its record without this detour.
        if name != "_raw":
            raise AttributeError(name)
        self._bench._decoded_states()
        return object.__getattribute__(self, name)

    # -- identity -------------------------------------------------------------------------

    @property
    def benchmark(self) -> SubBenchmarkResult:
        return self._bench

    @property
    def position(self) -> int:
        """Position of the state in its benchmark's ``states`` array."""
        return self._index

    @property
    def json_path(self) -> str:
        return f"{self._bench.json_path}.states[{self._index}]"

    @property
    def state_name(self) -> str:
        """The state name exactly as stored, e.g. ``Device=0 T=F32 Elements=2^20``."""
        return self._raw.name

    @property
    def key(self) -> str:
        """The state name without its leading ``Device=<id>`` token (for matching)."""
        name = self._raw.name
        if name.startswith("Device="):
            _, _, rest = name.partition(" ")
            return rest
        return name

    @property
    def is_cpu_only(self) -> bool:
        # Asked for every state by device pairing, matching and evidence, and fixed for
        # the life of the state: worked out once.
        cpu_only = self._cpu_only
        if cpu_only is None:
            cpu_only = self._cpu_only = self._find_cpu_only()
        return cpu_only

    def _find_cpu_only(self) -> bool:
        if not self._bench._raw.devices:
            return True
        if not self._raw.name.startswith("Device="):
            return True
        index = self._index_summaries()
        # A tag that starts with the prefix contains it: one substring search over all tags
        # rules out the common case (GPU states) about four times faster than testing
        # each tag; only a hit needs the exact test.
        return _CPU_ONLY_PREFIX in "\n".join(index) and any(
            tag.startswith(_CPU_ONLY_PREFIX) for tag in index
        )

    @property
    def device(self) -> int | None:
        """The device id, or ``None`` for CPU-only states (whose stored value is garbage)."""
        device = self._raw.device
        if device is s.UNSET or device is None or self.is_cpu_only:
            return None
        return device

    @property
    def type_config_index(self) -> int | None:
        value = self._raw.type_config_index
        return None if value is s.UNSET else value

    @property
    def is_skipped(self) -> bool:
        return self._raw.is_skipped

    @property
    def skip_reason(self) -> str | None:
        reason = self._raw.skip_reason
        return None if reason is s.UNSET else reason

    # -- axes -----------------------------------------------------------------------------

    @property
    def axis_values(self) -> tuple[StateAxisValue, ...]:
        if self._axis_values is None:
            self._axis_values = tuple(
                self._axis_value(position, value)
                for position, value in enumerate(self._raw.axis_values or ())
            )
        return self._axis_values

    def _axis_value(self, position: int, raw: s.AxisValue) -> StateAxisValue:
        axis = self._bench.axis(raw.name)
        text = raw.value if isinstance(raw.value, str) else _text(raw.value)
        try:
            typed = parse_typed(raw.type, raw.value)
        except ValueError:
            raise ResultFormatError(
                self._bench.source.label,
                f"invalid NVBench JSON: axis value {raw.value!r} is not a valid {raw.type}",
                f"{self.json_path}.axis_values[{position}].value",
            ) from None
        # Positional, in field order: one per axis of every state a comparison matches.
        return StateAxisValue(
            raw.name,
            raw.type,
            text,
            typed,
            axis.flags if axis is not None else "",
            axis.type if axis is not None else raw.type,
        )

    @property
    def point(self) -> dict[str, str]:
        """Axis name (with ``[flags]``) → value as NVBench's CLI takes it: the input string
        the axis declares for the state's value (found by typed value, else by the stored
        text), else one worked out from the value (:attr:`StateAxisValue.input_string`)."""
        input_string = self._bench._input_string
        return {
            (f"{value.name}[{value.flags}]" if value.flags else value.name): input_string(value)
            for value in self.axis_values
        }

    def name(self) -> str:
        """``Axis[flags]=value`` tokens joined by spaces, or the stored state name
        (``Device=0``) for a state without axis values, as NVIDIA's reader names states."""
        point = self.point
        if not point:
            return self._raw.name
        return " ".join(f"{key}={value}" for key, value in point.items())

    @property
    def center_key(self) -> str:
        """This state's key in its benchmark's :meth:`~SubBenchmarkResult.centers`:
        :meth:`name`, prefixed ``Device=<id>`` when a state of another device has the
        same name."""
        return self._bench._center_keys()[self._index]

    # -- summaries ------------------------------------------------------------------------

    def _decoded_summaries(self) -> list[s.Summary] | None:
        """The state's summary records, decoded from raw JSON on first use (``None`` = null)."""
        decoded = self._summary_list
        if decoded is False:
            raw = self._raw.summaries
            if isinstance(raw, msgspec.Raw):
                decoded = decode_summaries(
                    raw, self._bench.source.label, f"{self.json_path}.summaries"
                )
            else:
                decoded = raw
            self._summary_list = decoded
        return decoded  # type: ignore[return-value]

    def _summary_position(self, summary: s.Summary) -> int:
        return (self._decoded_summaries() or []).index(summary)

    def _index_summaries(self) -> dict[str, s.Summary]:
        index = self._summary_index
        if index is None:
            summaries = self._decoded_summaries() or []
            # Built in C for every state of a comparison; tags rarely repeat.
            index = dict(zip(map(_TAG, summaries), summaries, strict=True))
            if len(index) != len(summaries):
                index = {}
                for summary in summaries:
                    # The first of duplicated tags wins (two --jsonbin printers repeat tags).
                    index.setdefault(summary.tag, summary)
            self._summary_index = index
        return index

    @property
    def summaries(self) -> dict[str, BenchmarkResultSummary]:
        """Tag → summary, in file order. Built on first access."""
        if self._summaries is None:
            self._bench._complete_summaries()
            self._summaries = {
                tag: self._make_summary(raw) for tag, raw in self._index_summaries().items()
            }
        return self._summaries

    @property
    def tags(self) -> tuple[str, ...]:
        return tuple(self._index_summaries())

    def has_summary(self, tag: str) -> bool:
        return tag in self._index_summaries()

    def summary(self, tag: str) -> BenchmarkResultSummary | None:
        raw = self._index_summaries().get(tag)
        return None if raw is None else self.summaries[tag]

    def value(self, tag: str, key: str = "value") -> SummaryValue:
        """The typed entry ``key`` of summary ``tag``, or ``None`` when either is absent."""
        index = self._summary_index
        raw = (self._index_summaries() if index is None else index).get(tag)
        if raw is None:
            return None
        if key == "value":
            return self._value_entry(raw)
        if not raw.data:
            return None
        for position, datum in enumerate(raw.data):
            if datum.name == key:
                return self._typed(raw, position, datum)
        return None

    def get_value(self, tag: str, default: Any = None) -> Any:
        """The typed ``value`` entry of summary ``tag``; ``default`` when there is no such
        summary. A summary whose value is ``null``, or that has no ``value`` entry, gives
        ``None``, so a sentinel ``default`` tells "absent" from "null" in one lookup."""
        index = self._summary_index
        raw = (self._index_summaries() if index is None else index).get(tag)
        return default if raw is None else self._value_entry(raw)

    def get_values(self, tags: Iterable[str], default: Any = None) -> list[Any]:
        """:meth:`get_value` of each of ``tags``, in order (a comparison reads a dozen
        values of every state; one call for all of them costs a fraction of a call each)."""
        index = self._summary_index
        if index is None:
            index = self._index_summaries()
        values: list[Any] = []
        append = values.append
        for tag in tags:
            raw = index.get(tag)
            if raw is None:
                append(default)
                continue
            data = raw.data
            if data:
                # The common case of _value_entry, inlined: one float64 ``value`` as text.
                first = data[0]
                text = first.value
                if type(text) is str and first.name == "value" and first.type == "float64":
                    try:
                        append(float(text))
                        continue
                    except ValueError:
                        pass
            append(self._value_entry(raw))
        return values

    def _value_entry(self, raw: s.Summary) -> SummaryValue:
        """The typed ``value`` entry of one of this state's summaries; ``None`` without one."""
        data = raw.data
        if not data:  # None, UNSET or []
            return None
        # NVBench writes one entry, ``value``, mostly a float64 or int64 as text: parsed here
        # without the general parser's calls (which say the same, and report bad text below).
        first = data[0]
        text = first.value
        if type(text) is str and first.name == "value":
            try:
                if first.type == "float64":
                    return float(text)
                if first.type == "int64":
                    return int(text)
            except ValueError:
                pass
        for position, datum in enumerate(data):
            if datum.name == "value":
                return self._typed(raw, position, datum)
        return None

    def float_value(self, tag: str) -> float | None:
        """``value(tag)`` as a float; ``None`` when absent, null or not a number."""
        value = self.value(tag)
        if value is None or isinstance(value, str):
            return None
        return float(value)

    def _typed(self, raw: s.Summary, position: int, datum: s.Datum) -> SummaryValue:
        try:
            return parse_typed(datum.type, datum.value)
        except ValueError:
            summary_position = self._summary_position(raw)
            raise ResultFormatError(
                self._bench.source.label,
                f"invalid NVBench JSON: {datum.value!r} is not a valid {datum.type}",
                f"{self.json_path}.summaries[{summary_position}].data[{position}].value",
            ) from None

    def _make_summary(self, raw: s.Summary) -> BenchmarkResultSummary:
        data = {
            datum.name: self._typed(raw, position, datum)
            for position, datum in enumerate(raw.data or ())
        }
        return BenchmarkResultSummary(
            tag=raw.tag,
            name=_optional(raw.name),
            hint=_optional(raw.hint),
            hide=_optional(raw.hide),
            description=_optional(raw.description),
            data=data,
        )

    @property
    def bw(self) -> float | None:
        """Global memory bandwidth utilization (fraction of the device's peak)."""
        for tag in _UTILIZATION_TAGS:
            value = self.float_value(tag)
            if value is not None:
                return value
        return None

    @property
    def sample_count(self) -> int | None:
        """Samples of the isolated (cold or CPU-only) measurement, from the summaries."""
        for tag in ("nv/cold/sample_size", "nv/cpu_only/sample_size"):
            value = self.value(tag)
            if isinstance(value, int):
                return value
        return None

    # -- side files -----------------------------------------------------------------------

    def _side_file(self, tags: Sequence[str]) -> tuple[str, int] | None:
        index = self._index_summaries()
        for tag in tags:
            raw = index.get(tag)
            if raw is None:
                continue
            filename = self._side_file_field(raw, "filename")
            size = self._side_file_field(raw, "size")
            if filename is None and size is None:
                return None  # NVBench omits both when writing the side file failed.
            if not isinstance(filename, str) or not filename:
                raise self._bad_side_file_field(raw, "filename", "a file name", filename)
            if not isinstance(size, int) or size < 0:
                raise self._bad_side_file_field(raw, "size", "a count (int64)", size)
            return filename, size
        return None

    def _side_file_field(self, raw: s.Summary, key: str) -> SummaryValue:
        for position, datum in enumerate(raw.data or ()):
            if datum.name == key:
                try:
                    return parse_typed(datum.type, datum.value)
                except ValueError:
                    expected = f"a valid {datum.type}"
                    where = f".data[{position}].value"
                    raise self._bad_side_file_field(
                        raw, key, expected, datum.value, where
                    ) from None
        return None

    def _bad_side_file_field(
        self, raw: s.Summary, key: str, expected: str, found: object, where: str = ""
    ) -> ResultFormatError:
        return ResultFormatError(
            self._bench.source.label,
            f"invalid NVBench JSON: field {key!r} of side-file summary {raw.tag} is not "
            f"{expected}: {found!r}",
            f"{self.json_path}.summaries[{self._summary_position(raw)}]{where}",
        )

    def _check_recorded_counts(self) -> None:
        """Raise when this state records different sample and frequency counts, read from
        its JSON alone (NVIDIA's reader refuses such a file when loading it). A ``--profile``
        run records 0 frequencies: no data, not a mismatch. Summaries that cannot be read
        are left to be reported when first used."""
        raw = self._raw.summaries
        counts = recorded_counts(bytes(raw)) if isinstance(raw, msgspec.Raw) else None
        if counts is None:
            try:
                times = self._side_file(TIMES_TAGS[:1])
                frequencies = self._side_file((FREQS_TAG,))
            except ResultFormatError:
                # Malformed summaries are reported when first read, as for other states.
                return
            counts = (
                0 if times is None else times[1],
                0 if frequencies is None else frequencies[1],
            )
        if 0 in counts or counts[0] == counts[1]:
            return
        raise ResultFormatError(
            self._bench.source.label,
            f"sample count ({counts[0]}) does not match frequency count ({counts[1]}) "
            f"recorded for state {self.state_name!r}",
            f"{self.json_path}.summaries",
        )

    @property
    def sample_file(self) -> Path | None:
        """The resolved sample-times side file, or ``None`` when none is recorded or found."""
        return self._resolve(TIMES_TAGS)

    @property
    def frequency_file(self) -> Path | None:
        """The resolved SM-clock side file, or ``None`` when none is recorded or found."""
        return self._resolve((FREQS_TAG,))

    def _resolve(self, tags: Sequence[str]) -> Path | None:
        recorded = self._side_file(tags)
        return None if recorded is None else self._bench.source.side_file(recorded[0])

    def _load(self, tags: Sequence[str]) -> Float32Array | None:
        recorded = self._side_file(tags)
        if recorded is None or recorded[1] == 0:
            return None
        path = self._bench.source.side_file(recorded[0])
        if path is None:
            return None
        values = load_float32(path, recorded[1])
        if values is not None:
            values.flags.writeable = False
        return values

    @property
    def samples(self) -> Float32Array | None:
        """Per-sample times in seconds (float32), read from the side file on first access.

        ``None`` when the run wrote no side file or it cannot be found. A side file of the
        wrong size, or one whose count differs from the frequency file's, raises
        :class:`SideFileError` naming the file.
        """
        if self._samples is False:
            samples = self._load(TIMES_TAGS)
            if samples is not None and self._frequencies is not False:
                self._check_counts(samples, self._frequencies)  # type: ignore[arg-type]
            self._samples = samples
        return self._samples  # type: ignore[return-value]

    @property
    def frequencies(self) -> Float32Array | None:
        """Per-sample SM clock rates in Hz (float32), read lazily like :attr:`samples`."""
        if self._frequencies is False:
            frequencies = self._load((FREQS_TAG,))
            if frequencies is not None:
                self._check_counts(self.samples, frequencies)
            self._frequencies = frequencies
        return self._frequencies  # type: ignore[return-value]

    def _check_counts(self, samples: Float32Array | None, frequencies: Float32Array | None) -> None:
        if samples is None or frequencies is None or samples.size == frequencies.size:
            return
        raise SideFileError(
            str(self.frequency_file),
            f"holds {frequencies.size} frequencies but the sample file {self.sample_file} "
            f"holds {samples.size} samples",
        )

    def center(self, estimator: Callable[[Float32Array], ResultT]) -> ResultT | None:
        """``estimator(samples)``, or ``None`` without samples."""
        samples = self.samples
        return None if samples is None else estimator(samples)

    def center_with_frequencies(
        self, estimator: Callable[[Float32Array, Float32Array], ResultT]
    ) -> ResultT | None:
        """``estimator(samples, frequencies)``, or ``None`` unless both exist."""
        samples, frequencies = self.samples, self.frequencies
        if samples is None or frequencies is None:
            return None
        return estimator(samples, frequencies)


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

        record = benchmark_record(bench)
        source = _Source(None, None, directory=Path(json_dir).absolute())
        self._setup(source, 0, record, {})
        _check_recorded_counts(self)

    @classmethod
    def _of_record(
        cls,
        source: _Source,
        index: int,
        raw: s.Benchmark,
        devices: Mapping[int, Any],
        span: Span | None = None,
    ) -> SubBenchmarkResult:
        """The ``index``-th benchmark of a result read from ``source``; ``span``: where its
        states lie in the file, for a benchmark read benchmark by benchmark (its states
        are read and decoded when first used)."""
        bench = cls.__new__(cls)
        bench._setup(source, index, raw, devices, span)
        return bench

    def _setup(
        self,
        source: _Source,
        index: int,
        raw: s.Benchmark,
        devices: Mapping[int, Any],
        span: Span | None = None,
    ) -> None:
        self.source = source
        self._index = index
        self._raw = raw
        self._device_info = devices
        self._input_strings: dict[str, tuple[dict[Any, str], dict[str, str]]] | None = None
        self._center_key_list: list[str] | None = None
        # The parser rewrote the legacy map layout, so only lists remain here.
        axes = cast("list[s.AxisDef]", raw.axes or [])
        self._axes = tuple(_axis(axis) for axis in axes)
        self._axes_by_name = {axis.name: axis for axis in self._axes}
        #: Where the states lie in the file while they are undecoded or slim (decoded
        #: without summary names and descriptions), for a benchmark read benchmark by
        #: benchmark.
        self._states_span = span
        #: Whether the states' summaries are slim: tags and values only.
        self._slim = isinstance(raw, s.SlimBenchmark)
        if span is not None:
            # Read benchmark by benchmark: the states are decoded on first use.
            self._pending: dict[int, SubBenchmarkState] = {}
            return
        states = cast("list[s.State]", raw.states or [])
        self._states = tuple(
            SubBenchmarkState(self, position, state) for position, state in enumerate(states)
        )

    def __getattr__(self, name: str) -> Any:
        # ``_states`` is only missing while a benchmark read benchmark by benchmark has not
        # been decoded; every other benchmark has it from the start.
        if name != "_states":
            raise AttributeError(name)
        return self._decoded_states()

    def _decoded_states(self, *, slim: bool = True) -> tuple[SubBenchmarkState, ...]:
        """The states, read from the file and decoded first if they are not yet
        (``slim``: tags and values of the summaries only, see
        :meth:`_complete_summaries`)."""
        if "_states" in self.__dict__:
            return self._states
        # Imported here: only results read benchmark by benchmark come here.
        from ._deferred import decode_states

        span = self._states_span
        assert span is not None
        # Slim: a comparison reads tags and values only; _complete_summaries decodes the
        # rest when something asks for it.
        records, slim = decode_states(
            self.source.read(*span), self.source.label, self._index, slim=slim
        )
        self._slim = slim
        if not slim:
            self._states_span = None
        self._raw.states = records
        pending = self._pending
        states: list[SubBenchmarkState] = []
        for position, record in enumerate(records or ()):
            state = pending.pop(position, None)
            if state is None:
                state = SubBenchmarkState(self, position, record)
            else:
                state._adopt_record(record)
            states.append(state)
        if pending:
            raise self._changed(len(states), max(pending) + 1)
        self._states = tuple(states)
        return self._states

    def _changed(self, now: int, before: int) -> ResultFormatError:
        return ResultFormatError(
            self.source.label,
            f"has {now} states in benchmark {self.name!r} where it had {before} before: "
            "the file changed while it was read",
            f"{self.json_path}.states",
        )

    def _complete_summaries(self) -> None:
        """Decode the states again with every summary field (names, hints, descriptions)
        where they were decoded slim; the states keep their identity."""
        span = self._states_span
        if "_states" not in self.__dict__:
            if span is not None:  # not decoded yet: decoded in full straight away
                self._decoded_states(slim=False)
            return
        if not self._slim:
            return
        if span is None:
            records = self.source.full_states(self._index)
        else:
            from ._deferred import decode_states

            records, _ = decode_states(self.source.read(*span), self.source.label, self._index)
        if len(records or ()) != len(self._states):
            raise self._changed(len(records or ()), len(self._states))
        self._slim = False
        self._states_span = None
        self._raw.states = records
        for state, record in zip(self._states, records or (), strict=True):
            state._adopt_record(record)

    def _state_at(self, position: int) -> SubBenchmarkState:
        """The ``position``-th state, without decoding the benchmark when it is not yet:
        a state handed out before decodes its benchmark when first used. Rows computed
        in another process link to their states this way."""
        if "_states" in self.__dict__:
            return self._states[position]
        state = self._pending.get(position)
        if state is None:
            state = self._pending[position] = SubBenchmarkState(self, position, None)
        return state

    def _raw_states_size(self) -> int | None:
        """Bytes of the raw ``states`` JSON while not decoded, else ``None``."""
        span = self._states_span
        return None if span is None or self._is_decoded else span[1]

    @property
    def _is_decoded(self) -> bool:
        """Whether the states have been decoded (always, but for a result read benchmark by
        benchmark whose states nobody has used yet)."""
        return "_states" in self.__dict__

    def __repr__(self) -> str:
        return f"SubBenchmarkResult({self.name!r}, {len(self._states)} states)"

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
        return list(self._states)

    @property
    def settings(self) -> dict[str, int | float | None]:
        """Run settings recorded for the benchmark (``timeout``, ``min_samples``, ...)."""
        return {
            name: getattr(self._raw, name)
            for name in s.SETTING_FIELDS
            if getattr(self._raw, name) is not s.UNSET
        }

    def __len__(self) -> int:
        return len(self._states)

    @overload
    def __getitem__(self, index: int) -> SubBenchmarkState: ...

    @overload
    def __getitem__(self, index: slice) -> list[SubBenchmarkState]: ...

    def __getitem__(self, index: int | slice) -> SubBenchmarkState | list[SubBenchmarkState]:
        if isinstance(index, slice):
            return list(self._states[index])
        return self._states[index]

    def __iter__(self) -> Iterator[SubBenchmarkState]:
        return iter(self._states)

    def _center_keys(self) -> list[str]:
        keys = self._center_key_list
        if keys is None:
            keys = self._center_key_list = self._find_center_keys()
        return keys

    def _find_center_keys(self) -> list[str]:
        names = [state.name() for state in self._states]
        if len(set(names)) == len(names):
            return names
        # Several devices give the same axis point; keep them apart rather than let the
        # last device overwrite the others.
        return [
            name if state.device is None else f"Device={state.device} {name}".rstrip()
            for name, state in zip(names, self._states, strict=False)
        ]

    def _input_string(self, value: StateAxisValue) -> str:
        """The input string the axis of ``value`` declares for it (see
        :attr:`SubBenchmarkState.point`)."""
        tables = self._input_strings
        if tables is None:
            tables = self._input_strings = {axis.name: _input_strings(axis) for axis in self._axes}
        by_value, by_text = tables.get(value.name) or ({}, {})
        typed = value.typed
        found = by_value.get(typed) if typed is not None else None
        if found is None:
            found = by_text.get(value.value)
        return value.input_string if found is None else found

    def centers(self, estimator: Callable[[Float32Array], ResultT]) -> dict[str, ResultT | None]:
        """``state.name()`` → ``estimator(samples)`` (``None`` without samples).

        When a benchmark ran on several devices the keys carry a ``Device=<id>`` prefix,
        so no state is lost.
        """
        return {
            key: state.center(estimator)
            for key, state in zip(self._center_keys(), self._states, strict=True)
        }

    def centers_with_frequencies(
        self, estimator: Callable[[Float32Array, Float32Array], ResultT]
    ) -> dict[str, ResultT | None]:
        """Like :meth:`centers`, with ``estimator(samples, frequencies)``."""
        return {
            key: state.center_with_frequencies(estimator)
            for key, state in zip(self._center_keys(), self._states, strict=False)
        }

    def summary_values(self, tag: str) -> npt.NDArray[np.float64]:
        """``value`` of ``tag`` for every state as float64, NaN where absent or not numeric."""
        out = np.full(len(self._states), math.nan)
        for position, state in enumerate(self._states):
            value = state.float_value(tag)
            if value is not None:
                out[position] = value
        return out


class BenchmarkResult(Mapping[str, SubBenchmarkResult]):
    """A whole NVBench result: a read-only mapping of benchmark name → benchmark.

    ``BenchmarkResult(path)`` or ``BenchmarkResult.from_json(path)`` reads a file;
    ``BenchmarkResult.empty()`` makes an empty result. Side files are not read here:
    :attr:`SubBenchmarkState.samples` reads them on first access.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        metadata: Any = None,
        lazy: bool = True,
        check_counts: bool = True,
    ) -> None:
        """Read ``path`` (or make an empty result).

        With ``lazy`` (the default) each state's summaries are decoded when the state is
        first looked at, which is cheapest when only some are. ``lazy=False`` decodes every
        summary while reading: about a third cheaper in total when all states are used
        (comparisons, exports). Either way problems in a state's summaries are reported
        when that state is first used, but for the side-file summaries that
        ``check_counts`` reads.

        A missing file raises :class:`FileNotFoundError` (which is also a
        :class:`ResultFormatError`), any other problem :class:`ResultFormatError`. With
        ``check_counts`` (the default, as NVIDIA's reader) a state that records different
        sample and frequency counts is a :class:`ResultFormatError` (a
        :class:`ValueError`) here; ``check_counts=False`` reads it, and its side files
        then raise :class:`SideFileError` when read (a comparison reads files so and
        treats such side files as unavailable).
        """
        self.metadata = metadata
        if path is None:
            self._adopt(s.Document(benchmarks=None), None, None)
            return
        file, document, text = read_document(path, lazy=lazy)
        # Side files are looked up next to the JSON; an absolute anchor keeps that working
        # after the caller changes directory.
        self._adopt(document, file.absolute(), os.fspath(path))
        # One search of the text rules out a file without frequency side files (most).
        if check_counts and (text is None or _FREQS_BYTES in text):
            for bench in self.benchmarks:
                _check_recorded_counts(bench)

    @classmethod
    def from_json(
        cls: type[BenchmarkResultT],
        json_path: str | os.PathLike[str],
        *,
        metadata: Any = None,
        lazy: bool = True,
        check_counts: bool = True,
    ) -> BenchmarkResultT:
        """Read an NVBench JSON file (``--json`` or ``--jsonbin`` output); ``lazy`` and
        ``check_counts`` as for the constructor."""
        return cls(json_path, metadata=metadata, lazy=lazy, check_counts=check_counts)

    @classmethod
    def empty(cls: type[BenchmarkResultT], *, metadata: Any = None) -> BenchmarkResultT:
        """A result without benchmarks or devices; reads nothing and keeps ``metadata``
        as given (``result.metadata is metadata``)."""
        return cls(None, metadata=metadata)

    @classmethod
    def from_document(
        cls: type[BenchmarkResultT],
        document: s.Document,
        path: str | os.PathLike[str] | None = None,
        *,
        metadata: Any = None,
    ) -> BenchmarkResultT:
        """Wrap an already decoded document; ``path`` anchors side-file lookups."""
        result = cls(None, metadata=metadata)
        if path is None:
            result._adopt(document, None, None)
        else:
            result._adopt(document, Path(path).absolute(), os.fspath(path))
        return result

    @classmethod
    def _read_by_benchmark(
        cls: type[BenchmarkResultT], path: str | os.PathLike[str]
    ) -> BenchmarkResultT | None:
        """``path`` read with each benchmark's states read and decoded on first use (a
        comparison split over processes decodes each benchmark in the process that
        compares it); ``None`` when the file cannot be read that way: read it as usual
        instead. A state read after the file changed raises :class:`ResultFormatError`."""
        from ._deferred import read_deferred

        found = read_deferred(path)
        return None if found is None else cls._from_read(path, *found)

    @classmethod
    def _read_slim(
        cls: type[BenchmarkResultT], path: str | os.PathLike[str]
    ) -> BenchmarkResultT | None:
        """``path`` read whole with slim summaries (tags and values: what a comparison
        reads); names and descriptions are read from the file again when first asked for,
        unless it changed since (then :class:`ResultFormatError`). ``None`` when the file
        cannot be read that way: read it as usual instead."""
        from ._deferred import read_slim

        found = read_slim(path)
        return None if found is None else cls._from_read(path, found[0], None, found[1])

    @classmethod
    def _from_read(
        cls: type[BenchmarkResultT],
        path: str | os.PathLike[str],
        document: s.Document,
        spans: Sequence[Span] | None,
        identity: FileIdentity,
    ) -> BenchmarkResultT:
        """A result of ``document`` read from ``path`` when it had ``identity``; ``spans``:
        where each benchmark's states lie in the file, for a file read benchmark by
        benchmark."""
        result = cls(None)
        result._adopt(document, Path(path).absolute(), os.fspath(path), identity, spans)
        return result

    def _adopt(
        self,
        document: s.Document,
        path: Path | None,
        label: str | None,
        identity: FileIdentity | None = None,
        spans: Sequence[Span] | None = None,
    ) -> None:
        self._document = document
        self._source = _Source(path, label, identity)
        devices = document.devices if document.devices is not s.UNSET else None
        self.devices: dict[int, BenchmarkResultDevice] = {
            int(device["id"]): BenchmarkResultDevice(
                id=int(device["id"]), name=str(device["name"]), data=dict(device)
            )
            for device in devices or ()
        }
        self.benchmarks: tuple[SubBenchmarkResult, ...] = tuple(
            SubBenchmarkResult._of_record(
                self._source,
                position,
                bench,
                self.devices,
                None if spans is None else spans[position],
            )
            for position, bench in enumerate(document.benchmarks or ())
        )
        by_name: dict[str, SubBenchmarkResult] = {}
        for bench in self.benchmarks:
            if bench.name in by_name:
                warnings.warn(
                    f"{label}: benchmark {bench.name!r} appears more than once; the mapping "
                    "holds the first, BenchmarkResult.benchmarks holds all",
                    NVBenchFormatWarning,
                    stacklevel=3,
                )
                continue
            by_name[bench.name] = bench
        self.subbenches: dict[str, SubBenchmarkResult] = by_name

    def __repr__(self) -> str:
        where = self._source.label or "<memory>"
        return f"BenchmarkResult({where!r}, benchmarks={list(self.subbenches)})"

    @property
    def path(self) -> Path | None:
        """The JSON file this result was read from (absolute)."""
        return self._source.path

    @property
    def label(self) -> str | None:
        """The path as the caller gave it, for messages."""
        return self._source.label

    @property
    def document(self) -> s.Document:
        """The whole document as schema records, every summary decoded (for writers)."""
        document = self._document
        benchmarks = None
        for bench in self.benchmarks:
            bench._complete_summaries()
        if document.benchmarks is not None:
            benchmarks = [
                _full_record(
                    s.Benchmark,
                    raw,
                    states=None if raw.states is None else [_full_state(state) for state in view],
                )
                for view, raw in zip(self.benchmarks, document.benchmarks, strict=False)
            ]
        return _full_record(s.Document, document, benchmarks=benchmarks)

    @property
    def meta(self) -> ResultMeta:
        meta = self._document.meta
        if meta is s.UNSET:
            return ResultMeta()
        argv = tuple(meta.argv or ()) if meta.argv is not s.UNSET else ()
        version = meta.version
        if version is s.UNSET:
            return ResultMeta(argv=argv)
        json_version = version.json
        nvbench = version.nvbench
        return ResultMeta(
            argv=argv,
            json_version=_optional(json_version.string) if json_version is not s.UNSET else None,
            nvbench_version=_optional(nvbench.string) if nvbench is not s.UNSET else None,
            git_branch=_optional(nvbench.git_branch) if nvbench is not s.UNSET else None,
            git_sha=_optional(nvbench.git_sha) if nvbench is not s.UNSET else None,
            git_version=_optional(nvbench.git_version) if nvbench is not s.UNSET else None,
            git_is_dirty=_optional(nvbench.git_is_dirty) if nvbench is not s.UNSET else None,
        )

    def __len__(self) -> int:
        return len(self.subbenches)

    def __iter__(self) -> Iterator[str]:
        return iter(self.subbenches)

    def __contains__(self, name: object) -> bool:
        return name in self.subbenches

    def __getitem__(self, name: str) -> SubBenchmarkResult:
        return self.subbenches[name]

    def states(self) -> Iterator[SubBenchmarkState]:
        """Every state of every benchmark, in file order."""
        for bench in self.benchmarks:
            yield from bench

    def centers(
        self, estimator: Callable[[Float32Array], ResultT]
    ) -> dict[str, dict[str, ResultT | None]]:
        """Benchmark name → :meth:`SubBenchmarkResult.centers`."""
        return {name: bench.centers(estimator) for name, bench in self.subbenches.items()}

    def centers_with_frequencies(
        self, estimator: Callable[[Float32Array, Float32Array], ResultT]
    ) -> dict[str, dict[str, ResultT | None]]:
        """Benchmark name → :meth:`SubBenchmarkResult.centers_with_frequencies`."""
        return {
            name: bench.centers_with_frequencies(estimator)
            for name, bench in self.subbenches.items()
        }

    def write(self, path: str | os.PathLike[str], *, jsonbin: bool = True) -> BenchmarkResult:
        """Write this result as NVBench JSON (plus side files with ``jsonbin``) and read it back.

        Samples and frequencies are carried over from this result's side files, read one
        state at a time. The round trip keeps everything the format defines.
        """
        from ._writer import write_document

        def bulk(bench_index: int, state_index: int) -> tuple[Any, Any]:
            state = self.benchmarks[bench_index][state_index]
            return state.samples, state.frequencies

        write_document(path, self.document, bulk, jsonbin=jsonbin)
        return type(self)(path, metadata=self.metadata)

    def to_dataframe(self) -> pd.DataFrame:
        """One tidy row per state (needs pandas: ``pip install 'nvbench-tools[pandas]'``)."""
        from ._frame import states_frame

        return states_frame(self)

    def samples_dataframe(
        self, states: Callable[[SubBenchmarkState], bool] | None = None
    ) -> pd.DataFrame:
        """Long form: one row per sample of the chosen states (all with samples by default)."""
        from ._frame import samples_frame

        return samples_frame(self, states)


RecordT = TypeVar("RecordT", bound=msgspec.Struct)


def _full_record(kind: type[RecordT], raw: msgspec.Struct, **changes: Any) -> RecordT:
    """A record of the plain schema type ``kind`` with ``raw``'s fields and ``changes``."""
    fields = {name: getattr(raw, name) for name in kind.__struct_fields__}
    fields.update(changes)
    return kind(**fields)


def _full_state(view: SubBenchmarkState) -> s.State:
    """A plain :class:`~._schema.State` with decoded summaries from a (lazy) state view."""
    return _full_record(s.State, view._raw, summaries=view._decoded_summaries())


def _optional(value: Any) -> Any:
    return None if value is s.UNSET else value


def _text(value: int | float | None) -> str:
    if value is None:
        return ""
    from ._values import format_raw

    return format_raw(value)


def _check_recorded_counts(bench: SubBenchmarkResult) -> None:
    """:meth:`SubBenchmarkState._check_recorded_counts` of every state of ``bench``."""
    for state in bench._states:
        state._check_recorded_counts()


def _input_strings(axis: BenchmarkAxis) -> tuple[dict[Any, str], dict[str, str]]:
    """An axis's declared input strings by typed value and by input string (the first of
    values declared twice wins)."""
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
        if value is not None:
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
