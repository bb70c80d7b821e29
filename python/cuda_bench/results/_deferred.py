"""Reading a result for a comparison: summaries slim (tags and values: no decision reads
names, hints or descriptions, and skipping them makes decoding a fifth cheaper), and, for
a comparison split over processes, benchmark by benchmark: each benchmark's ``states``
stay raw JSON in a read-only map of the file until the benchmark is first used.

A comparison split over processes reads files this way (``compare(..., jobs=N)``): the
first pass only checks the JSON and decodes each benchmark's header (name, devices,
axes), a third of the cost of decoding everything, and each process then decodes just the
benchmarks it compares. Two processes can each make the first pass over one file: the one
that did not read a file gets its benchmarks as byte ranges (:func:`detach`,
:func:`attach`), since raw JSON cannot be sent between processes more cheaply than it can
be read again from the file.
"""

from __future__ import annotations

import contextlib
import mmap
import os
from collections.abc import Sequence
from typing import cast

import msgspec

from . import _schema as s
from ._errors import ResultFormatError
from ._parse import (
    _legacy_state,
    _lower_first,
    _split_validation_message,
    check_document,
)

__all__ = [
    "Span",
    "attach",
    "decode_states",
    "detach",
    "map_file",
    "read_deferred",
    "read_slim",
    "release_pages",
    "scan",
]

#: Where a benchmark's raw states lie in its file: (offset, length) in bytes.
Span = tuple[int, int]

_DEFERRED_DECODER = msgspec.json.Decoder(s.DeferredDocument)
_SLIM_DECODER = msgspec.json.Decoder(s.SlimDocument)
_STATES_DECODER: msgspec.json.Decoder[list[s.State] | dict[str, s.LegacyState] | None] = (
    msgspec.json.Decoder(list[s.State] | dict[str, s.LegacyState] | None)
)
_SLIM_STATES_DECODER: msgspec.json.Decoder[list[s.SlimState] | dict[str, s.LegacyState] | None] = (
    msgspec.json.Decoder(list[s.SlimState] | dict[str, s.LegacyState] | None)
)
_LAZY_STATES_DECODER: msgspec.json.Decoder[list[s.LazyState] | dict[str, s.LegacyState] | None] = (
    msgspec.json.Decoder(list[s.LazyState] | dict[str, s.LegacyState] | None)
)


def map_file(path: str | os.PathLike[str]) -> mmap.mmap | None:
    """A read-only map of ``path``; ``None`` when it cannot be mapped (missing, empty, not
    a regular file)."""
    try:
        with open(path, "rb") as handle:
            return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None


def scan(path: str | os.PathLike[str]) -> tuple[s.Document, mmap.mmap] | None:
    """``path`` decoded with each benchmark's ``states`` as raw JSON pointing into the
    returned map, which must outlive the document; the document is not checked yet
    (:func:`~._parse.check_document`). ``None`` when the file cannot be read this way
    (see :func:`map_file`, or malformed): the usual reader then reads it or words the
    problem."""
    mapped = map_file(path)
    if mapped is None:
        return None
    try:
        document = _DEFERRED_DECODER.decode(mapped)
    except msgspec.DecodeError:  # ValidationError too
        with contextlib.suppress(BufferError):
            mapped.close()
        return None
    release_pages(mapped)
    return document, mapped


def read_slim(path: str | os.PathLike[str]) -> s.Document | None:
    """``path`` decoded whole, with slim summaries (:class:`~._schema.SlimDocument`) and
    the usual reader's checks; ``None`` when the file cannot be read this way (see
    :func:`map_file`, malformed or invalid): the usual reader then words the problem."""
    mapped = map_file(path)
    if mapped is None:
        return None
    try:
        with mapped:
            document = _SLIM_DECODER.decode(mapped)
    except (msgspec.DecodeError, BufferError):  # ValidationError too
        return None
    check_document(document, os.fspath(path))
    return document


def read_deferred(path: str | os.PathLike[str]) -> tuple[s.Document, mmap.mmap] | None:
    """:func:`scan` and the usual reader's checks: a document ready to be used."""
    scanned = scan(path)
    if scanned is not None:
        check_document(scanned[0], os.fspath(path))
    return scanned


def detach(document: s.Document, mapped: mmap.mmap) -> list[Span] | None:
    """Where each benchmark's raw states lie in ``mapped``; the document is left without
    them (``states`` set to ``None``), ready to be pickled. ``None`` (and the document
    untouched) when the interpreter cannot tell buffer addresses."""
    benchmarks = document.benchmarks or []
    raws = [bench.states for bench in benchmarks]
    if not all(isinstance(raw, msgspec.Raw) for raw in raws):
        return None
    addresses = _addresses([mapped, *raws])
    if addresses is None:
        return None
    base = addresses[0]
    spans: list[Span] = [
        (start - base, len(memoryview(cast("msgspec.Raw", raw))))
        for start, raw in zip(addresses[1:], raws, strict=True)
    ]
    for bench in benchmarks:
        bench.states = None
    return spans


def attach(document: s.Document, mapped: mmap.mmap, spans: Sequence[Span]) -> bool:
    """Point a detached document's benchmarks at their raw states in ``mapped`` (the same
    file mapped again); ``False`` when the spans do not fit the document or the map."""
    benchmarks = document.benchmarks or []
    if len(spans) != len(benchmarks):
        return False
    view = memoryview(mapped)
    for bench, span in zip(benchmarks, spans, strict=True):
        offset, length = span
        if offset < 0 or offset + length > len(mapped):
            return False
        bench.states = msgspec.Raw(view[offset : offset + length])  # type: ignore[assignment]
    return True


def release_pages(mapped: mmap.mmap) -> None:
    """Drop this process's pages of ``mapped``; they stay in the system's file cache.

    A map puts each page read into the process's memory until the map is closed, and the
    raw states of a deferred document keep the map open: released after each benchmark is
    decoded, only the benchmark at hand is held. Reading a page maps it in again from the
    cache.
    """
    advice = getattr(mmap, "MADV_DONTNEED", None)
    if advice is not None:
        with contextlib.suppress(OSError, ValueError):
            mapped.madvise(advice)


def decode_states(
    raw: msgspec.Raw, label: str | None, bench_index: int, *, slim: bool = False
) -> tuple[list[s.State] | None, bool]:
    """Decode the raw ``states`` of the ``bench_index``-th benchmark of a deferred document,
    and whether the records are slim.

    Every summary is decoded in the same pass; with ``slim`` as :class:`~._schema.
    SlimSummary` records (tags and values only). Problems are reported as the usual reader
    reports them: a state's own fields now; when only a summary is wrong, the states come
    back with raw summaries (not slim) and the problem is reported when that state is first
    used. Slim records skip the fields they lack, whose problems therefore only show when
    the states are decoded again in full.
    """
    where = f"$.benchmarks[{bench_index}].states"
    decoder = _SLIM_STATES_DECODER if slim else _STATES_DECODER
    decoded: list[s.State] | list[s.SlimState] | list[s.LazyState] | dict[str, s.LegacyState] | None
    try:
        try:
            decoded = decoder.decode(raw)
        except (msgspec.DecodeError, UnicodeDecodeError):
            decoded = _LAZY_STATES_DECODER.decode(raw)
            slim = False
    except msgspec.ValidationError as error:
        problem, json_path = _split_validation_message(str(error))
        at = where if json_path is None else where + json_path[1:]
        raise ResultFormatError(label, f"invalid NVBench JSON: {problem}", at) from None
    except (msgspec.DecodeError, UnicodeDecodeError) as error:
        raise ResultFormatError(
            label, f"not valid JSON: {_lower_first(str(error))}", where
        ) from None
    if isinstance(decoded, dict):  # the unversioned map layout: rewritten in full
        states = [
            _legacy_state(name, state, label, f"{where}.{name}") for name, state in decoded.items()
        ]
        return states, False
    return cast("list[s.State] | None", decoded), slim


def _addresses(objects: Sequence[object]) -> list[int] | None:
    """The addresses of the buffers of ``objects`` (the stable ABI's buffer protocol,
    through ctypes), or ``None`` where the interpreter cannot tell."""
    try:
        import ctypes  # here: only a comparison split over processes needs it

        get_buffer = ctypes.pythonapi.PyObject_GetBuffer
        release_buffer = ctypes.pythonapi.PyBuffer_Release
    except (ImportError, AttributeError):  # pragma: no cover - not CPython
        return None

    class PyBuffer(ctypes.Structure):
        _fields_ = (
            ("buf", ctypes.c_void_p),
            ("obj", ctypes.c_void_p),
            ("len", ctypes.c_ssize_t),
            ("itemsize", ctypes.c_ssize_t),
            ("readonly", ctypes.c_int),
            ("ndim", ctypes.c_int),
            ("format", ctypes.c_char_p),
            ("shape", ctypes.c_void_p),
            ("strides", ctypes.c_void_p),
            ("suboffsets", ctypes.c_void_p),
            ("internal", ctypes.c_void_p),
        )

    get_buffer.argtypes = (ctypes.py_object, ctypes.POINTER(PyBuffer), ctypes.c_int)
    get_buffer.restype = ctypes.c_int
    release_buffer.argtypes = (ctypes.POINTER(PyBuffer),)
    release_buffer.restype = None
    addresses: list[int] = []
    for obj in objects:
        view = PyBuffer()
        if get_buffer(obj, ctypes.byref(view), 0) != 0:  # pragma: no cover - raises instead
            return None
        try:
            address = view.buf
        finally:
            release_buffer(ctypes.byref(view))
        if address is None:
            return None
        addresses.append(address)
    return addresses
