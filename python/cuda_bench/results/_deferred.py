"""Reading a result benchmark by benchmark (:attr:`~._stages.ReadMode.BY_BENCHMARK`): each
benchmark's ``states`` are read from the file and decoded when the benchmark is first used,
slim (tags and values: no decision reads names, hints or descriptions, and skipping them
makes decoding cheaper).

A comparison of some benchmarks (``-b``) or split over processes (``compare(...,
jobs=N)``) reads files this way: the first pass only checks the JSON and decodes each
benchmark's header (name, devices, axes), much less than decoding everything, and notes
where each benchmark's states lie in the file; each process then reads and decodes just
the benchmarks it compares.

The first pass is also a value of its own, :class:`FileOutline`: it pickles, so a program
can make the outlines of several files in processes of their own, side by side, and the
results from them where they are used (:meth:`~._model.BenchmarkResult.from_outline`).

The first pass reads the file into memory (never a map, which a file truncated while it is
decoded answers with ``SIGBUS``); later reads go through a file object and refuse a file
that changed since the first pass (:mod:`._snapshot`), so a state's data always comes
from the bytes that were read.
"""

from __future__ import annotations

import os
from types import MappingProxyType
from typing import cast

import msgspec

from . import _schema as s
from ._errors import ResultFormatError, check_path, refuse_empty_path
from ._parse import (
    _SLIM_DECODER,
    TOO_DEEP,
    Summaries,
    _legacy_state,
    _split_validation_message,
    check_document,
    decode_problem,
    document_type,
    read_file,
    states_type,
)
from ._snapshot import FileIdentity
from ._views import shortened

__all__ = ["FileOutline", "Scanned", "Span", "decode_states", "read_deferred", "scan"]

#: How many of a benchmark's first raw bytes are searched for before a full comparison.
_PREFIX = 256
#: Where a benchmark's raw states lie in its file: (offset, length) in bytes.
Span = tuple[int, int]
#: A file's first pass: the document (each benchmark's ``states`` left ``None``), where
#: each benchmark's states lie, and the identity of the file that was read. Spans are
#: ``None`` for a file of fewer than two benchmarks, whose document is decoded whole (slim)
#: unless asked not to (:func:`scan`'s ``whole_if_single``).
Scanned = tuple[s.Document, list[Span] | None, FileIdentity]

_DEFERRED_DECODER = msgspec.json.Decoder(document_type(msgspec.Raw))
#: An outline's header: the document with every benchmark's ``states`` ``null``.
_HEADER_DECODER = msgspec.json.Decoder(document_type(None))


class FileOutline(msgspec.Struct, frozen=True, gc=False):
    """The first pass over a result file read benchmark by benchmark
    (:attr:`~._stages.ReadMode.BY_BENCHMARK`): each benchmark's header, where its states lie
    in the file, and the identity of the file that was read.

    A value that pickles, made by :meth:`read` in any process: a program reading several
    large files can make their outlines in processes of their own, side by side, and the
    results from them here (:meth:`~cuda.bench.results.BenchmarkResult.from_outline`). No
    check is made and no warning given until then: those belong to the process that uses
    the result.
    """

    #: The file, absolute: the outline describes this file wherever it is used.
    path: str
    #: The file as the caller named it: errors name it so while that name leads to it.
    label: str
    #: The file's identity when it was read: its states are read from it later only while
    #: it is unchanged.
    identity: FileIdentity
    #: The document as JSON, every benchmark's ``states`` ``null``.
    header: bytes
    #: Where each benchmark's states lie in the file, in file order: (offset, length) in
    #: bytes (spelled out, not ``Span``: the annotation is resolved where the class says it
    #: lives, ``cuda.bench.results``).
    spans: tuple[tuple[int, int], ...]

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> FileOutline | None:
        """The outline of ``path``; ``None`` when the file cannot be read benchmark by
        benchmark (not a non-empty regular file, not valid NVBench JSON, or changed while
        it was read): :class:`~cuda.bench.results.BenchmarkResult` reads it then, or words
        its problem. ``path`` is a ``str`` or ``os.PathLike`` (:class:`TypeError`
        otherwise: an ``int`` is no file descriptor to read here), and not empty
        (:class:`~cuda.bench.results.ResultFormatError`)."""
        refuse_empty_path(check_path(path, "path"), "path")
        scanned = scan(path, whole_if_single=False)
        if scanned is None:
            return None
        document, spans, identity = scanned
        if spans is None:  # pragma: no cover - whole_if_single=False always gives spans
            return None
        label = os.fspath(path)
        header = msgspec.json.encode(document)
        return cls(os.path.abspath(label), label, identity, header, tuple(spans))

    def __repr__(self) -> str:
        # Not the header's bytes and every span: a file of thousands of benchmarks made a
        # repr of megabytes. The fields keep them.
        label = self.label
        shown = shortened(label, 120, keep_end=True) if isinstance(label, str) else repr(label)
        count = len(self.spans) if isinstance(self.spans, tuple) else "?"
        size = len(self.header) if isinstance(self.header, bytes) else "?"
        return f"FileOutline({shown}, {count} benchmarks, header of {size} bytes)"

    def _document(self) -> s.Document | None:
        """The header decoded, each benchmark's ``states`` ``None``; ``None`` when this
        outline does not describe a file of its identity as :meth:`read` makes one: fields
        of other types, a header that does not decode, or spans that are not one per
        benchmark, in file order, without overlap, within the file."""
        spans, identity = self.spans, self.identity
        if not (
            isinstance(identity, FileIdentity)
            and isinstance(self.header, bytes)
            and isinstance(spans, tuple)
        ):
            return None
        end = 0
        for span in spans:
            if not (
                isinstance(span, tuple) and len(span) == 2 and all(type(n) is int for n in span)
            ):
                return None
            offset, length = span
            if offset < end or length <= 0:
                return None
            end = offset + length
        if end > identity.size:
            return None
        try:
            document = _HEADER_DECODER.decode(self.header)
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):  # ValidationError too
            return None
        return document if len(document.benchmarks or ()) == len(spans) else None


_STATES_DECODERS = MappingProxyType(
    {summaries: msgspec.json.Decoder(states_type(summaries)) for summaries in Summaries}
)


def scan(path: str | os.PathLike[str], *, whole_if_single: bool = True) -> Scanned | None:
    """``path``'s first pass: each benchmark's header decoded, its ``states`` left in the
    file (``None`` in the document, their byte range in the spans); the document is not
    checked yet (:func:`~._parse.check_document`). ``None`` when the file cannot be read
    this way (see :func:`~._parse.read_file`, malformed, or changed while it was read):
    the usual reader then reads it or words the problem.

    A file of one benchmark has nothing to leave for later: reading its states again from
    the file would only repeat what the bytes in hand hold, so with ``whole_if_single`` it
    is decoded whole, slim (summaries' tags and values), and comes without spans.
    """
    found = read_file(path)
    if found is None:
        return None
    raw, identity = found
    spans: list[Span] | None
    try:
        document = _DEFERRED_DECODER.decode(raw)
        if whole_if_single and len(document.benchmarks or ()) < 2:
            document, spans = _SLIM_DECODER.decode(raw), None
        else:
            spans = _spans(document, raw)
            if spans is None:  # pragma: no cover - the states are a piece of the file's bytes
                return None
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):  # ValidationError too
        return None  # the usual reader words the problem
    finally:
        del raw  # the states are read again from the file, span by span, when used
    if FileIdentity.at(path) != identity:
        return None  # changed while decoded: read as it is now by the usual reader
    return document, spans, identity


def read_deferred(path: str | os.PathLike[str]) -> Scanned | None:
    """:func:`scan` and the usual reader's checks: a document ready to be used."""
    scanned = scan(path)
    if scanned is not None:
        check_document(scanned[0], os.fspath(path))
    return scanned


def _spans(document: s.Document, text: bytes) -> list[Span] | None:
    """Where each benchmark's raw states lie in ``text``; the document is left without
    them (``states`` set to ``None``). ``None`` when a benchmark's states cannot be found
    (not expected: each is a piece of the file's bytes).

    Each benchmark's raw states are looked up in the file's bytes, starting where the
    previous benchmark's ended (benchmarks lie in the file in order), so no buffer address
    is needed. The first match may lie before the states themselves (an earlier field with
    the very same text); its bytes are the same, so decoding them later gives the same
    states, and the next search still starts no later than the next benchmark's states.
    """
    benchmarks = document.benchmarks or []
    spans: list[Span] = []
    position = 0
    for bench in benchmarks:
        raw = bench.states
        bench.states = None
        if raw is None:  # pragma: no cover - msgspec.Raw always decodes
            return None
        with memoryview(cast("msgspec.Raw", raw)) as view:
            found = _find(text, view, position)
            length = len(view)
        del raw
        if found < 0:  # pragma: no cover - the states are a piece of the file's bytes
            return None
        spans.append((found, length))
        position = found + length
    return spans


def _find(text: bytes, view: memoryview, start: int) -> int:
    """Where ``view``'s bytes first occur in ``text`` from ``start`` on, or -1.

    A search for the whole text costs more than decoding the file when the text is long,
    and so does a search bounded to the text's length, which still prepares the whole text
    as a pattern (python/benchmarks/deferred_scan.py); so its first bytes are searched for,
    and each place they occur is checked by comparing the bytes there (``startswith``).
    """
    with view[:_PREFIX] as prefix:
        found = text.find(prefix, start)
        while found >= 0 and not text.startswith(view, found):
            found = text.find(prefix, found + 1)
    return found


def decode_states(
    raw: bytes, label: str | None, bench_index: int, *, slim: bool = False
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
    decoder = _STATES_DECODERS[Summaries.SLIM if slim else Summaries.FULL]
    decoded: list[s.State] | dict[str, s.LegacyState] | None
    try:
        try:
            decoded = decoder.decode(raw)
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
            decoded = _STATES_DECODERS[Summaries.RAW].decode(raw)
            slim = False
    except msgspec.ValidationError as error:
        problem, json_path = _split_validation_message(str(error))
        at = where if json_path is None else where + json_path[1:]
        raise ResultFormatError(label, f"invalid NVBench JSON: {problem}", at) from None
    except UnicodeDecodeError as error:
        raise ResultFormatError(label, f"not valid UTF-8 text: {error.reason}", where) from None
    except msgspec.DecodeError as error:
        raise ResultFormatError(label, decode_problem(str(error)), where) from None
    except RecursionError:
        raise ResultFormatError(label, TOO_DEEP, where) from None
    if isinstance(decoded, dict):  # the unversioned map layout: rewritten in full
        states = [
            _legacy_state(name, state, label, f"{where}.{name}") for name, state in decoded.items()
        ]
        return states, False
    return cast("list[s.State] | None", decoded), slim
