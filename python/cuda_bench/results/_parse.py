"""Reading an NVBench JSON file into a validated, normalized :class:`Document`."""

from __future__ import annotations

import enum
import errno
import functools
import os
import re
import stat
import warnings
from collections.abc import Mapping
from pathlib import Path
from types import GenericAlias
from typing import Any, Final, TypeVar, cast

import msgspec

from .._errors import EMPTY_RESULT_WHY
from .._read_small import read_small
from .._special_files import SpecialFileError, open_nonblocking, special_file_problem
from . import _schema as s
from ._errors import (
    NVBenchFormatWarning,
    ResultFileNotFoundError,
    ResultFormatError,
    check_path,
)
from ._snapshot import FileIdentity

RecordT = TypeVar("RecordT", bound=msgspec.Struct)

__all__ = [
    "Summaries",
    "benchmark_record",
    "check_document",
    "decode_document",
    "decode_summaries",
    "document_type",
    "read_document",
    "read_file",
    "read_whole",
    "refuse_special_file",
    "states_type",
]


class Summaries(enum.Enum):
    """How the reader decodes each state's ``summaries``: the one field of a state that read
    modes decode differently."""

    #: As the schema says: every field of every summary.
    FULL = "full"
    #: Kept as raw JSON (``msgspec.Raw``), decoded when the state is first used.
    RAW = "raw"
    #: Tags and values only (:class:`~._schema.SlimSummary`).
    SLIM = "slim"


@functools.cache
def states_type(summaries: Summaries) -> Any:
    """The type a benchmark's ``states`` decode as, with ``summaries`` decoded so.

    The state record is :class:`~._schema.State` with its ``summaries`` field's type
    replaced: derived from the schema rather than declared a second time, so the two cannot
    drift apart (and every other field, and its checks, is the schema's)."""
    state: type[s.State] = s.State
    if summaries is Summaries.RAW:
        state = _replaced(s.State, "summaries", "raw", msgspec.Raw, msgspec.Raw(b"null"))
    elif summaries is Summaries.SLIM:
        state = _replaced(s.State, "summaries", "slim", tuple[s.SlimSummary, ...] | None, None)
    return GenericAlias(list, (state,)) | dict[str, s.LegacyState] | None


@functools.cache
def document_type(states: Any) -> type[s.Document]:
    """The document type whose benchmarks' ``states`` decode as ``states``: a
    :func:`states_type`, ``msgspec.Raw`` to leave them as raw JSON, or ``None`` (each
    benchmark's ``states`` ``null``: an outline's header)."""
    kind = _states_kind(states)
    benchmark = _replaced(s.Benchmark, "states", kind, states)
    return _replaced(s.Document, "benchmarks", kind, GenericAlias(list, (benchmark,)) | None)


def _states_kind(states: Any) -> str:
    """The word naming the variants :func:`document_type` makes for ``states``."""
    if states is None:
        return "null"
    if states is msgspec.Raw:
        return "raw"
    for summaries in Summaries:
        if states == states_type(summaries):
            return f"{summaries.value}_summaries"
    raise ValueError(f"no document type for states of {states!r}")


def _replaced(
    record: type[RecordT], field: str, kind: str, annotation: Any, *default: Any
) -> type[RecordT]:
    """``record`` with the type of ``field`` replaced by ``annotation`` (and its default by
    ``default``, if given); every other field, and the key order, as ``record``'s.

    The variant is named ``<record>_<field>_<kind>`` and kept in this module under that
    name, so that its records pickle (pickle finds a class by its module and name): the
    records of a result read in any mode but :attr:`~._stages.ReadMode.FULL` are of these
    variants. Each is made once (:func:`states_type` and :func:`document_type` are
    cached), all when this module is imported (below)."""
    name = f"{record.__name__}_{field}_{kind}"
    variant = msgspec.defstruct(
        name,
        [(field, annotation, *default)],
        bases=(record,),
        gc=False,
        kw_only=True,
        module=__name__,
    )
    if name in globals():  # pragma: no cover - the makers are cached
        raise RuntimeError(f"{__name__}.{name} is made twice")
    globals()[name] = variant
    return cast("type[RecordT]", variant)


# Every variant a reader uses, made now: an unpickled record finds its class here whichever
# reader made the pickled one (an outline's header and the deferred reader's too).
for _states in (None, msgspec.Raw, *map(states_type, Summaries)):
    document_type(_states)
del _states

_DECODER = msgspec.json.Decoder(document_type(states_type(Summaries.RAW)))
_FULL_DECODER = msgspec.json.Decoder(s.Document)
_SLIM_DECODER = msgspec.json.Decoder(document_type(states_type(Summaries.SLIM)))
_SUMMARIES_DECODER: msgspec.json.Decoder[list[s.Summary] | None] = msgspec.json.Decoder(
    list[s.Summary] | None
)
_AT_PATH = re.compile(r"^(?P<problem>.*?) - at `(?P<path>\$[^`]*)`$", re.DOTALL)
_AT_BYTE = re.compile(r"\(byte (?P<offset>\d+)\)")
_LEGACY_NAME_KEYS = ("name", "description", "hint", "hide")
#: The problem of a file nested more deeply than the decoder's recursion allows (about a
#: thousand levels; NVBench writes eight): one line instead of a RecursionError.
TOO_DEEP = "JSON nested too deeply (NVBench writes at most 8 levels); not read"


def read_document(
    path: str | os.PathLike[str], *, lazy: bool = True
) -> tuple[Path, s.Document, bytes | None]:
    """Read and validate ``path``; raise :class:`ResultFormatError` on any problem. Also
    returns the file's text when the bytes reader read it (``None``: decoded in one pass by
    :func:`read_whole`).

    ``lazy``: see :func:`decode_document`.
    """
    file = Path(path)
    label = os.fspath(path)
    if not file.exists():
        raise ResultFileNotFoundError(label)
    if file.is_dir():
        raise ResultFormatError(label, "is a directory, expected an NVBench JSON file")
    refuse_special_file(file, label)
    if not lazy:
        found = read_whole(file)
        if found is not None:
            return file, found[0], None
    try:
        raw = _read_bounded(file, label)
    except FileNotFoundError:  # went away since the check above
        raise ResultFileNotFoundError(label) from None
    except OSError as error:
        raise ResultFormatError(label, f"cannot read file: {error.strerror}") from error
    # Also after a failed one-pass decode: the bytes reader words the problem (or, for a
    # file that is not a regular file, decodes it).
    return file, decode_document(raw, label, lazy=lazy), raw


def refuse_special_file(file: Path, label: str) -> None:
    """Refuse (:class:`ResultFormatError`, without opening it) an input that exists and is
    no regular file or directory: a named pipe that nothing writes to blocked ``open`` for
    good, a socket cannot be opened, and a device (``/dev/null``, a terminal through
    ``/dev/stdin``) holds no result. A pipe handed over by the shell or a parent process
    (``/dev/stdin``, ``/dev/fd/N``, ``<(command)``) is no file in a folder and is read
    (:func:`_read_bounded`): its writer holds it open already, so it cannot block
    (:mod:`cuda.bench._special_files`)."""
    problem = special_file_problem(file)
    if problem is not None:
        raise ResultFormatError(label, problem)


#: The most bytes read from a result file: a pipe is refused once it passes this (it has
#: no size to check first, and a writer may never stop), a regular file larger than this
#: unread (a crafted sparse file of gigabytes was read whole before). NVBench writes its
#: samples to side files, so its JSON holds summaries only: several times the largest real
#: result files (docs/security.md).
MAX_STREAM_BYTES = 1 << 30


#: The bytes a JSON text may begin with (RFC 8259: a value after blanks; a file beginning
#: with a UTF-8 byte-order mark is left to the decoder, which words it): where the first is
#: none of these, nothing after it can make the file JSON, and the decoder is left to word
#: every other problem.
_JSON_STARTS: Final = frozenset(b'{["-0123456789tfn')


def could_start_json(chunk: bytes) -> bool:
    """Whether a file's first ``chunk`` may begin a JSON text (a chunk of blanks alone may
    still be followed by one): a sparse file of zeros, a binary, NVBench's markdown or CSV
    output cannot, and is refused on that chunk instead of read whole."""
    rest = chunk.lstrip(b"\xef\xbb\xbf \t\r\n")
    return not rest or rest[0] in _JSON_STARTS


def may_hold_result(descriptor: int, size: int) -> bool:
    """Whether the open regular file of ``size`` bytes may be a result worth reading whole:
    no larger than :data:`MAX_STREAM_BYTES`, and its first chunk may begin JSON
    (:func:`could_start_json`). Reads that chunk only, without moving the file's offset."""
    return size <= MAX_STREAM_BYTES and could_start_json(os.pread(descriptor, 1 << 16, 0))


def _read_bounded(file: Path, label: str, limit: int = MAX_STREAM_BYTES) -> bytes:
    """The bytes of ``file``: a regular file whole, a pipe up to ``limit`` bytes, beyond
    which it is refused (:class:`ResultFormatError`); one whose first byte that is not
    blank cannot start a JSON object is refused at once. :func:`~cuda.bench._read_small.
    read_small` reads it (without blocking, the kind of file checked again), its refusals
    worded as the reader's."""

    def starts_json(chunk: bytes) -> None:
        if not could_start_json(chunk):
            raise ResultFormatError(
                label,
                "not an NVBench JSON file (it does not start with '{'); not read"
                + _other_format(chunk),
            )

    try:
        return read_small(file, limit, first_chunk=starts_json, regular_limit=limit)
    except SpecialFileError as error:
        raise ResultFormatError(label, error.strerror or str(error)) from None
    except OSError as error:
        if error.errno != errno.EFBIG:
            raise
        raise ResultFormatError(label, error.strerror or str(error)) from None


def read_file(path: str | os.PathLike[str]) -> tuple[bytes, FileIdentity] | None:
    """The bytes of ``path`` and the identity of the file they were read from; ``None``
    when it is not a non-empty regular file or cannot be read.

    Read into memory, not mapped: a map of a file that is truncated while it is decoded
    (a benchmark rewriting its output) ends the process with ``SIGBUS``; bytes only ever
    hold what was read, and a change shows in the identity. ``TypeError`` for a ``path``
    that is no ``str`` or ``os.PathLike``: ``open`` would take an ``int`` as a file
    descriptor and close it.
    """
    check_path(path, "path")
    try:
        # Without blocking: a named pipe is no regular file, and its open waited for a writer.
        with open(path, "rb", opener=open_nonblocking) as handle:
            identity = FileIdentity.of(handle.fileno())
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode) or identity.size <= 0:
                return None
            if not may_hold_result(handle.fileno(), identity.size):
                return None  # the bytes reader refuses it, having read no more
            return handle.read(), identity
    except OSError:
        return None


def read_whole(
    path: str | os.PathLike[str], *, slim: bool = False
) -> tuple[s.Document, FileIdentity] | None:
    """The whole document of ``path`` decoded in one pass and checked, every summary
    decoded (with ``slim``, tags and values only), and the identity of the file decoded;
    ``None`` when the file cannot be read that way (:func:`read_file`), does not decode,
    or changed while read: the bytes reader then reads it as it is now and words its
    problem."""
    found = read_file(path)
    if found is None:
        return None
    raw, identity = found
    try:
        document = (_SLIM_DECODER if slim else _FULL_DECODER).decode(raw)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):  # ValidationError too
        return None
    finally:
        del raw
    if FileIdentity.at(path) != identity:
        return None
    check_document(document, os.fspath(path))
    return document, identity


def decode_document(raw: bytes, label: str | None, *, lazy: bool = True) -> s.Document:
    """Decode JSON text (bytes) into a normalized document, naming ``label`` in errors.

    With ``lazy`` (the default) states come back with their summaries as raw JSON
    (:attr:`Summaries.RAW`) until :func:`decode_summaries` is called for them, which is
    cheapest when few states are looked at. Without it every summary is decoded in the
    same pass, which is cheaper when all of them are needed (a comparison reads every
    state). Problems are reported exactly as the lazy reader reports them, when it reports
    them: a document that fails to decode that way is decoded again lazily.
    """
    if not lazy:
        try:
            document = _FULL_DECODER.decode(raw)
        except (msgspec.ValidationError, msgspec.DecodeError, UnicodeDecodeError, RecursionError):
            document = None
        if document is not None:
            check_document(document, label)
            return document
    # isspace() stops at the first non-blank byte; strip() would copy the whole file.
    if not raw or raw.isspace():
        raise ResultFormatError(label, f"file is empty ({EMPTY_RESULT_WHY})")
    try:
        document = _DECODER.decode(raw)
    except msgspec.ValidationError as error:
        other = _other_tool(raw)
        if other:
            raise ResultFormatError(label, other) from None
        problem, json_path = _split_validation_message(str(error))
        raise ResultFormatError(label, f"invalid NVBench JSON: {problem}", json_path) from None
    except msgspec.DecodeError as error:
        raise ResultFormatError(label, _describe_decode_error(str(error), raw)) from None
    except UnicodeDecodeError as error:
        raise ResultFormatError(label, f"not valid UTF-8 text: {error.reason}") from None
    except RecursionError:
        raise ResultFormatError(label, TOO_DEEP) from None
    check_document(document, label)
    return document


def decode_summaries(raw: msgspec.Raw, label: str | None, where: str) -> list[s.Summary] | None:
    """Decode one state's raw ``summaries`` array; ``where`` is the array's JSON path."""
    try:
        return _SUMMARIES_DECODER.decode(raw)
    except msgspec.ValidationError as error:
        problem, json_path = _split_validation_message(str(error))
        at = where if json_path is None else where + json_path[1:]
        raise ResultFormatError(label, f"invalid NVBench JSON: {problem}", at) from None
    except msgspec.DecodeError as error:
        # Invalid UTF-8 inside a skipped raw array, with msgspec 0.23 and later.
        raise ResultFormatError(label, decode_problem(str(error)), where) from None
    except UnicodeDecodeError as error:
        # A raw summaries array is skipped, not checked, when the document is decoded:
        # invalid UTF-8 inside it shows only now (found by test_mutated_files.py).
        raise ResultFormatError(label, f"not valid UTF-8 text: {error.reason}", where) from None
    except RecursionError:
        raise ResultFormatError(label, TOO_DEEP, where) from None


def benchmark_record(bench: Mapping[str, Any] | s.Benchmark) -> s.Benchmark:
    """One benchmark object of a decoded document (as ``json.load`` gives it) as a schema
    record, the unversioned map layout rewritten; :class:`ResultFormatError` when it is
    not a benchmark object."""
    record = bench
    if not isinstance(record, s.Benchmark):
        try:
            record = msgspec.convert(bench, s.Benchmark)
        except msgspec.ValidationError as error:
            problem, json_path = _split_validation_message(str(error))
            raise ResultFormatError(
                None, f"invalid NVBench benchmark: {problem}", json_path
            ) from None
    _normalize_legacy_layout(s.Document(benchmarks=[record]), None)
    return record


def _split_validation_message(message: str) -> tuple[str, str | None]:
    match = _AT_PATH.match(message)
    if match is None:
        return _lower_first(message.replace("`", "")), None
    return _lower_first(match["problem"].replace("`", "")), match["path"]


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def decode_problem(message: str) -> str:
    """msgspec's decode error worded for a reader: invalid UTF-8 as such (msgspec 0.23
    reports it as a decode error, ``Invalid UTF-8 encoded string``, where earlier versions
    raised :class:`UnicodeDecodeError`), anything else as JSON that is not valid."""
    if "utf-8" in message.lower():
        return f"not valid UTF-8 text: {_lower_first(message)}"
    return f"not valid JSON: {_lower_first(message)}"


def _describe_decode_error(message: str, raw: bytes) -> str:
    if "utf-8" in message.lower():
        return decode_problem(message)
    if "truncated" in message:
        return "truncated JSON: the file ends before the document does"
    match = _AT_BYTE.search(message)
    if match is None:
        return f"not valid JSON: {_lower_first(message)}"
    offset = int(match["offset"])
    line = raw.count(b"\n", 0, offset) + 1
    column = offset - (raw.rfind(b"\n", 0, offset) + 1) + 1
    problem = _AT_BYTE.sub("", message).replace("JSON is malformed:", "").strip()
    return f"not valid JSON: {problem} at line {line}, column {column}{_other_format(raw)}"


def _other_format(raw: bytes) -> str:
    """A hint when ``raw`` starts like another of NVBench's outputs (``--md``, ``--csv``)
    or no JSON at all, since the tools read only what ``--json`` writes."""
    first = raw[:4096].lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
    if first.startswith((b"{", b"[")):
        return ""
    if first.startswith((b"#", b"|", b"* ")):
        kind = "NVBench's markdown output (--md)"
    elif first.count(b",") >= 2 and first.startswith(b"Benchmark,"):
        kind = "NVBench's CSV output (--csv)"
    else:
        return "; an NVBench result is the JSON file a benchmark writes with --json PATH"
    return f"; it looks like {kind}: give the file the benchmark writes with --json PATH"


def _other_tool(raw: bytes) -> str:
    """What a JSON document that is no NVBench result is, where its opening says so: one of
    our own reports, or Google Benchmark's output (``""`` when neither). The schema's own
    words ("expected array | null, got object at $.devices") tell a reader nothing about
    which file to give instead."""
    head = raw[:8192]
    if b'"schema": "nvbench-tools.' in head or b'"schema":"nvbench-tools.' in head:
        kind = "a report of nvbench-tools (nvbench_compare or nvbench-history --json)"
    elif b'"context"' in head and (b'"library_build_type"' in head or b'"num_cpus"' in head):
        kind = "Google Benchmark's JSON output"
    else:
        return ""
    return (
        f"not an NVBench result: it looks like {kind}; give the file an NVBench benchmark "
        "writes with --json PATH"
    )


def check_document(document: s.Document, label: str | None) -> None:
    """What the reader checks of a decoded document (devices, version) and the rewrite of
    the unversioned map layout, in place; warns as the reader does."""
    _check_devices(document, label)
    _normalize_legacy_layout(document, label)
    _check_version(document, label)


def _check_devices(document: s.Document, label: str | None) -> None:
    devices = document.devices
    if devices is s.UNSET or devices is None:
        return
    for position, device in enumerate(devices):
        where = f"$.devices[{position}]"
        device_id = device.get("id")
        if not isinstance(device_id, int) or isinstance(device_id, bool):
            raise ResultFormatError(
                label, "invalid NVBench JSON: device `id` must be an integer", where
            )
        if not isinstance(device.get("name"), str):
            raise ResultFormatError(
                label, "invalid NVBench JSON: device `name` must be a string", where
            )


def _check_version(document: s.Document, label: str | None) -> None:
    meta = document.meta
    version = None
    if meta is not s.UNSET and meta.version is not s.UNSET:
        json_version = meta.version.json
        if json_version is not s.UNSET:
            version = json_version.string if json_version.string is not s.UNSET else None
    if version is None:
        warnings.warn(
            f"{label}: no JSON format version recorded (meta.version.json); reading it as "
            "an older NVBench file",
            NVBenchFormatWarning,
            stacklevel=4,
        )
    elif not version.startswith("1."):
        warnings.warn(
            f"{label}: JSON format version {version} is newer than 1.x; reading it anyway",
            NVBenchFormatWarning,
            stacklevel=4,
        )


def _normalize_legacy_layout(document: s.Document, label: str | None) -> None:
    """Rewrite the unversioned map layout (spec §11.3) into the array layout, in place."""
    for bench_index, bench in enumerate(document.benchmarks or ()):
        if isinstance(bench.axes, dict):
            bench.axes = [
                s.AxisDef(name=name, type=axis.type, flags=axis.flags, values=axis.values)
                for name, axis in bench.axes.items()
            ]
        if isinstance(bench.states, dict):
            where = f"$.benchmarks[{bench_index}].states"
            # Fully decoded states: the model accepts them beside lazy ones.
            bench.states = [
                _legacy_state(name, state, label, f"{where}.{name}")
                for name, state in bench.states.items()
            ]


def _legacy_state(name: str, old: s.LegacyState, label: str | None, where: str) -> s.State:
    axis_values = None
    if old.axis_values is not None:
        axis_values = [
            s.AxisValue(name=axis, type=value.type, value=value.value)
            for axis, value in old.axis_values.items()
        ]
    summaries = None
    if old.summaries is not None:
        summaries = [
            _legacy_summary(tag, entries, label, f"{where}.summaries.{tag}")
            for tag, entries in old.summaries.items()
        ]
    state = s.State(
        name=name,
        min_samples=old.min_samples,
        min_time=old.min_time,
        max_noise=old.max_noise,
        skip_time=old.skip_time,
        timeout=old.timeout,
        device=old.device,
        type_config_index=old.type_config_index,
        axis_values=axis_values,
        summaries=summaries,
        is_skipped=old.is_skipped,
    )
    if old.skip_reason is not s.UNSET:
        state.skip_reason = old.skip_reason
    return state


def _legacy_summary(tag: str, entries: dict[str, Any], label: str | None, where: str) -> s.Summary:
    summary = s.Summary(tag=tag)
    data: list[s.Datum] = []
    for key, entry in entries.items():
        if key in _LEGACY_NAME_KEYS and isinstance(entry, str):
            setattr(summary, key, entry)
            continue
        if not isinstance(entry, dict):
            raise ResultFormatError(
                label, "invalid NVBench JSON: expected a {type, value} object", f"{where}.{key}"
            )
        type_name, value = entry.get("type"), entry.get("value")
        if not isinstance(type_name, str) or not (
            value is None or (isinstance(value, (str, int, float)) and not isinstance(value, bool))
        ):
            raise ResultFormatError(
                label, "invalid NVBench JSON: malformed {type, value} entry", f"{where}.{key}"
            )
        data.append(s.Datum(name=key, type=type_name, value=value))
    if data:
        summary.data = data
    return summary
