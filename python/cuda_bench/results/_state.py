"""One state of a benchmark (:class:`SubBenchmarkState`): a view over its record, with
summaries indexed, typed values and side-file samples loaded on first use.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import msgspec

if TYPE_CHECKING:
    from .._arrays import Float32Array

from .._numbers import as_float
from . import _schema as s
from ._errors import ResultFormatError, SideFileError
from ._frozen_dict import FrozenDict
from ._parse import decode_summaries
from ._sidecar import (
    FREQS_TAG,
    TIMES_TAGS,
    load_float32,
    recorded_counts,
)
from ._values import SummaryValue, parse_typed
from ._views import BenchmarkResultSummary, StateAxisValue, _optional, _text, shortened

if TYPE_CHECKING:
    # The public name, as the annotations are resolved at run time (in the package): the
    # module defining it imports this one.
    from ._benchmark import SubBenchmarkResult

__all__ = ["SubBenchmarkState"]

ResultT = TypeVar("ResultT")
_CPU_ONLY_PREFIX = "nv/cpu_only/"
_TAG = operator.attrgetter("tag")
_UTILIZATION_TAGS = ("nv/cold/bw/global/utilization",)


def check_tag(tag: object, name: str = "tag") -> bool:
    """``True`` for a summary ``tag`` that is a str; ``TypeError`` naming ``name``
    otherwise (``None``, ``3`` and ``b"tag"`` were looked up and found in no state)."""
    if not isinstance(tag, str):
        raise TypeError(
            f"{name} must be a str (a summary tag), got {type(tag).__name__} {tag!r:.60}"
        )
    return True


class _DeclaredTypeError(ResultFormatError):
    """A side-file summary's field declares another type than NVBench writes for it."""


class SubBenchmarkState:
    """One state: a point of (device, type configuration, axis values)."""

    __slots__ = (
        "__dict__",  # for the cached properties (samples, frequencies)
        "_axis_values",
        "_bench",
        "_cpu_only",
        "_index",
        "_record",
        "_summaries",
        "_summary_index",
    )

    def __init__(self, bench: SubBenchmarkResult, index: int, raw: s.State | None) -> None:
        self._bench = bench
        self._index = index
        #: ``None`` for a state handed out before its benchmark's states were decoded
        #: (:meth:`SubBenchmarkResult.state_at`): :attr:`_raw` decodes them.
        self._record = raw
        self._summary_index: dict[str, s.Summary] | None = None
        self._summaries: dict[str, BenchmarkResultSummary] | None = None
        self._axis_values: tuple[StateAxisValue, ...] | None = None
        self._cpu_only: bool | None = None

    def __repr__(self) -> str:
        # Bounded, and never decoding: a state handed out before its benchmark's states
        # were read (``state_at``) shows its position instead of its name.
        bench = shortened(self._bench.name)
        record = self._record
        if record is None:
            return f"SubBenchmarkState({bench}, position {self._index}, not read yet)"
        return f"SubBenchmarkState({bench}, {shortened(record.name, 120)})"

    @property
    def _raw(self) -> s.State:
        """The state's record."""
        record = self._record
        if record is None:
            self._bench._states()  # decoding the benchmark gives this state its record
            record = self._record
            assert record is not None
        return record

    def _adopt_record(self, record: s.State) -> None:
        """Take ``record`` as this state's record (its benchmark decoded its states, first
        or again in full), forgetting what was read from the previous one."""
        self._record = record
        self._summary_index = None
        self._summaries = None

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
        # Not the name: it is free text in the file, and a GPU state named otherwise than
        # ``Device=N ...`` was dropped from every device's comparison. CPU-only states
        # carry their own summary tags.
        index = self._index_summaries()
        # A tag that starts with the prefix contains it: one substring search over all tags
        # rules out the common case (GPU states) more cheaply than testing each tag; only
        # a hit needs the exact test.
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
        value = raw.value
        if value is None and isinstance(raw.input_string, str):
            # Named by its input string: the value the axis declares for it, else the text.
            declared = [
                v.value for v in (axis.values if axis else ()) if v.input_string == raw.input_string
            ]
            value = declared[0] if declared and declared[0] is not None else raw.input_string
        text = value if isinstance(value, str) else _text(value)
        try:
            typed = parse_typed(raw.type, value)
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
        """The state's summary records (``None`` = null); summaries read as raw JSON
        (:attr:`ReadMode.LAZY`) are decoded into the record on first use."""
        record = self._raw
        summaries: object = record.summaries
        if isinstance(summaries, msgspec.Raw):
            summaries = record.summaries = decode_summaries(
                summaries, self._bench.source.label, f"{self.json_path}.summaries"
            )
        return cast("list[s.Summary] | None", summaries)

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
        """Tag → summary, in file order (a dict that refuses changes: :mod:`._frozen_dict`).
        Built on first access."""
        summaries = self._summaries
        if summaries is None:
            self._bench._full_records()
            summaries = self._summaries = FrozenDict(
                {tag: self._make_summary(raw) for tag, raw in self._index_summaries().items()}
            )
        return summaries

    @property
    def tags(self) -> tuple[str, ...]:
        return tuple(self._index_summaries())

    # A tag or key that is no str is found in no state: refused (TypeError) where a look-up
    # finds nothing, so the look-ups that find a summary pay nothing for the check.

    def has_summary(self, tag: str) -> bool:
        if tag in self._index_summaries():
            return True
        check_tag(tag)
        return False

    def summary(self, tag: str) -> BenchmarkResultSummary | None:
        raw = self._index_summaries().get(tag)
        if raw is None:
            check_tag(tag)
            return None
        return self.summaries[tag]

    def value(self, tag: str, key: str = "value") -> SummaryValue:
        """The typed entry ``key`` of summary ``tag``, or ``None`` when either is absent;
        :class:`TypeError` for a ``tag`` or ``key`` that is no str."""
        index = self._summary_index
        raw = (self._index_summaries() if index is None else index).get(tag)
        if raw is None:
            check_tag(tag)
            if not isinstance(key, str):
                check_tag(key, "key")
            return None
        if key == "value":
            return self._value_entry(raw)
        for position, datum in enumerate(raw.data or ()):
            if datum.name == key:
                return self._typed(raw, position, datum)
        check_tag(key, "key")
        return None

    def get_value(self, tag: str, default: Any = None) -> Any:
        """The typed ``value`` entry of summary ``tag``; ``default`` when there is no such
        summary. A summary whose value is ``null``, or that has no ``value`` entry, gives
        ``None``, so a sentinel ``default`` tells "absent" from "null" in one lookup."""
        index = self._summary_index
        raw = (self._index_summaries() if index is None else index).get(tag)
        if raw is None:
            check_tag(tag)
            return default
        return self._value_entry(raw)

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
                check_tag(tag, "each of tags")
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
        return as_float(value)

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
        data = FrozenDict(
            {
                datum.name: self._typed(raw, position, datum)
                for position, datum in enumerate(raw.data or ())
            }
        )
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
                # The types NVBench declares for a side-file summary's two fields.
                expected_type = "string" if key == "filename" else "int64"
                if datum.type != expected_type:
                    # NVIDIA's reader's words, so scripts matching them keep working.
                    raise _DeclaredTypeError(
                        self._bench.source.label,
                        f"summary {raw.tag!r} field {key!r} has type {datum.type!r}; "
                        f"expected {expected_type!r}",
                        f"{self.json_path}.summaries[{self._summary_position(raw)}]"
                        f".data[{position}].type",
                    )
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
            except _DeclaredTypeError:
                raise  # a side-file field declared with the wrong type: refused at load
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
        source = self._bench.source
        values = load_float32(path, recorded[1], label=source.named(source.shown(path)))
        if values is not None:
            values.flags.writeable = False
        return values

    @cached_property
    def samples(self) -> Float32Array | None:
        """Per-sample times in seconds (float32), read from the side file on first access.

        ``None`` when the run wrote no side file or it cannot be found. A side file of the
        wrong size, or one whose count differs from the frequency file's, raises
        :class:`SideFileError` naming the file.
        """
        samples = self._load(TIMES_TAGS)
        if samples is not None and "frequencies" in self.__dict__:  # read first
            self._check_counts(samples, self.frequencies)
        return samples

    @cached_property
    def frequencies(self) -> Float32Array | None:
        """Per-sample SM clock rates in Hz (float32), read lazily like :attr:`samples`."""
        frequencies = self._load((FREQS_TAG,))
        if frequencies is not None:
            self._check_counts(self.samples, frequencies)
        return frequencies

    def _check_counts(self, samples: Float32Array | None, frequencies: Float32Array | None) -> None:
        if samples is None or frequencies is None or samples.size == frequencies.size:
            return
        source = self._bench.source
        shown = source.shown
        frequency_file, sample_file = self.frequency_file, self.sample_file
        raise SideFileError(
            str(frequency_file) if frequency_file is None else source.named(shown(frequency_file)),
            f"holds {frequencies.size} frequencies but the sample file "
            f"{sample_file if sample_file is None else shown(sample_file)} "
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
