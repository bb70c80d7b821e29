"""The mapping API over an NVBench result: benchmarks → states → summaries and samples.

Everything here is a thin, read-only view over the decoded :mod:`._schema` records. Views
are cheap to create; what costs time is done on first use and cached: the per-state
summary index, typed summary values and, above all, the side-file samples.

This module holds the whole result (:class:`BenchmarkResult`); its parts live in
:mod:`._benchmark`, :mod:`._state`, :mod:`._views`, :mod:`._source` and :mod:`._stages`
(how a file is read), and the public ones are named here too.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

if TYPE_CHECKING:
    import pandas as pd

    from .._arrays import Float32Array
    from ._centers import Centers

from . import _schema as s
from ._benchmark import SubBenchmarkResult, _check_recorded_counts
from ._deferred import FileOutline
from ._errors import (
    NVBenchFormatWarning,
    SideFileError,
    check_flag,
    check_path,
    refuse_empty_path,
)
from ._frozen_dict import FrozenDict
from ._sidecar import FREQS_TAG, TIMES_TAGS
from ._source import _Source
from ._stages import FileRead, ReadMode, Stage, check_mode, read_file, read_outline
from ._state import SubBenchmarkState
from ._views import (
    AxisValueInfo,
    BenchmarkAxis,
    BenchmarkResultDevice,
    BenchmarkResultSummary,
    ResultMeta,
    StateAxisValue,
    _optional,
    shortened,
)

__all__ = [
    "AxisValueInfo",
    "BenchmarkAxis",
    "BenchmarkResult",
    "BenchmarkResultDevice",
    "BenchmarkResultSummary",
    "FileOutline",
    "ReadMode",
    "ResultMeta",
    "StateAxisValue",
    "SubBenchmarkResult",
    "SubBenchmarkState",
]

ResultT = TypeVar("ResultT")
BenchmarkResultT = TypeVar("BenchmarkResultT", bound="BenchmarkResult")
_FREQS_BYTES = FREQS_TAG.encode()
#: How many benchmark names a result's ``repr`` shows.
_REPR_NAMES = 3


class BenchmarkResult(Mapping[str, SubBenchmarkResult]):
    """A whole NVBench result: a read-only mapping of benchmark name → benchmark.

    ``BenchmarkResult(path)`` or ``BenchmarkResult.from_json(path)`` reads a file (how:
    ``mode=``, a :class:`ReadMode`);
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
        mode: ReadMode | None = None,
        side_files_anywhere: bool | None = None,
    ) -> None:
        """Read ``path`` (or make an empty result): a ``str`` or an ``os.PathLike`` giving
        one (:class:`TypeError` otherwise: an ``int`` is no file descriptor to read, and
        ``bytes`` are refused), not empty (:class:`ResultFormatError`).

        ``mode`` says how (:class:`ReadMode`); without it ``lazy`` does:
        :attr:`ReadMode.LAZY` (the default: each state's summaries are decoded when the
        state is first looked at, cheapest when only some are) or, with ``lazy=False``,
        :attr:`ReadMode.FULL` (every summary decoded while reading: cheaper in total when
        all states are used, as by comparisons and exports). In every mode problems in a
        state's summaries are reported when that state is first used, but for the
        side-file summaries that ``check_counts`` reads.

        A missing file raises :class:`FileNotFoundError` (which is also a
        :class:`ResultFormatError`), any other problem :class:`ResultFormatError`. With
        ``check_counts`` (the default, as NVIDIA's reader) a state that records different
        sample and frequency counts is a :class:`ResultFormatError` (a
        :class:`ValueError`) here; ``check_counts=False`` reads it, and its side files
        then raise :class:`SideFileError` when read (a comparison reads files so and
        treats such side files as unavailable).

        Side files are read only from inside the JSON file's directory tree (links
        resolved): one recorded elsewhere raises :class:`SideFileError` when read, unless
        ``side_files_anywhere`` (``None``: unless the environment variable
        ``NVBENCH_SIDE_FILES_ANYWHERE`` is set, as ``--side-files-anywhere`` sets it).
        """
        if path is not None:
            refuse_empty_path(check_path(path, "path"), "path")
        check_flag(lazy, "lazy")
        check_flag(check_counts, "check_counts")
        if side_files_anywhere is not None:
            check_flag(side_files_anywhere, "side_files_anywhere")
        mode = check_mode(mode)
        self.metadata = metadata
        self._side_files_anywhere = side_files_anywhere
        if path is None:
            self._adopt(s.Document(benchmarks=None), None, None)
            return
        if mode is None:
            mode = ReadMode.LAZY if lazy else ReadMode.FULL
        self._take(path, read_file(path, mode), check_counts)

    def _take(self, path: str | os.PathLike[str], read: FileRead, check_counts: bool) -> None:
        """Take the file ``path`` as ``read`` read it as this result."""
        # Side files are looked up next to the JSON; an absolute anchor keeps that working
        # after the caller changes directory.
        self._adopt(
            read.document,
            Path(path).absolute(),
            os.fspath(path),
            read,
            check_counts=check_counts and read.stage is Stage.RAW,
        )
        # One search of the text rules out a file without frequency side files (most); the
        # others have their side-file summaries checked: counts that pair, fields of
        # NVBench's declared types. (A search for the sample-times tag as well would cost
        # the load of a file without side files several percent: docs/coinstall.md.)
        # States read benchmark by benchmark are checked when decoded.
        text = read.text
        if check_counts and read.stage is not Stage.RAW and (text is None or _FREQS_BYTES in text):
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
        mode: ReadMode | None = None,
        side_files_anywhere: bool | None = None,
    ) -> BenchmarkResultT:
        """Read an NVBench JSON file (``--json`` or ``--jsonbin`` output); ``lazy``,
        ``check_counts``, ``mode`` and ``side_files_anywhere`` as for the constructor."""
        refuse_empty_path(check_path(json_path, "json_path"), "json_path")
        return cls(
            json_path,
            metadata=metadata,
            lazy=lazy,
            check_counts=check_counts,
            mode=mode,
            side_files_anywhere=side_files_anywhere,
        )

    @classmethod
    def from_outline(
        cls: type[BenchmarkResultT],
        outline: FileOutline,
        *,
        metadata: Any = None,
        check_counts: bool = True,
    ) -> BenchmarkResultT:
        """The result ``BenchmarkResult(outline.label, mode=ReadMode.BY_BENCHMARK)`` gives,
        its first pass taken from ``outline`` (:meth:`FileOutline.read`, made here or in
        another process) instead of made again. The file is checked here, and read again
        as it is now when it changed since the outline was made. It is always the file the
        outline describes: where the label no longer leads to it (another working
        directory), the result is labelled with its absolute path. ``check_counts`` as for
        the constructor; :class:`TypeError` for an outline not made by
        :meth:`FileOutline.read`."""
        if not isinstance(outline, FileOutline):
            raise TypeError(
                "outline must be a FileOutline made by FileOutline.read, got "
                f"{type(outline).__name__}"
            )
        result = cls(None, metadata=metadata)
        check_flag(check_counts, "check_counts")
        name, read = read_outline(outline)
        result._take(name, read, check_counts)
        return result

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
        """Wrap an already decoded document (a :class:`Document`, as :attr:`document`
        gives one; :class:`TypeError` otherwise); ``path`` anchors side-file lookups."""
        if not isinstance(document, s.Document):
            raise TypeError(
                "document must be a cuda.bench.results.Document (as BenchmarkResult.document "
                f"gives), got {type(document).__name__}"
            )
        if path is not None:
            refuse_empty_path(check_path(path, "path"), "path")
        result = cls(None, metadata=metadata)
        if path is None:
            result._adopt(document, None, None)
        else:
            result._adopt(document, Path(path).absolute(), os.fspath(path))
        return result

    def _adopt(
        self,
        document: s.Document,
        path: Path | None,
        label: str | None,
        read: FileRead | None = None,
        *,
        check_counts: bool = False,
    ) -> None:
        """Take ``document`` (read from ``path`` as ``read`` says) as this result's."""
        self._source = _Source(
            path,
            label,
            None if read is None else read.identity,
            anywhere=getattr(self, "_side_files_anywhere", None),
        )
        stage = Stage.FULL if read is None else read.stage
        spans = None if read is None else read.spans
        devices = document.devices if document.devices is not s.UNSET else None
        #: Device id → device, read-only (as every part of a result).
        self.devices: dict[int, BenchmarkResultDevice] = FrozenDict(
            {
                int(device["id"]): BenchmarkResultDevice(
                    id=int(device["id"]),
                    name=str(device["name"]),
                    data=FrozenDict(device),
                )
                for device in devices or ()
            }
        )
        #: Every benchmark in file order, those of a repeated name too.
        self.benchmarks: tuple[SubBenchmarkResult, ...] = tuple(
            SubBenchmarkResult._of_record(
                self._source,
                position,
                bench,
                self.devices,
                stage,
                None if spans is None else spans[position],
                check_counts=check_counts,
            )
            for position, bench in enumerate(document.benchmarks or ())
        )
        # The document's header: each benchmark's states live in its stages.
        self._document = msgspec.structs.replace(
            document,
            benchmarks=None
            if document.benchmarks is None
            else [bench._raw for bench in self.benchmarks],
        )
        by_name: dict[str, SubBenchmarkResult] = {}
        for bench in self.benchmarks:
            if bench.name in by_name:
                warnings.warn(
                    # Said for a command-line user; in the library's terms, the mapping
                    # (subbenches) holds the first and BenchmarkResult.benchmarks holds all.
                    f"{label}: benchmark {bench.name!r} appears more than once; every "
                    "occurrence is read (a look-up by its name finds the first)",
                    NVBenchFormatWarning,
                    stacklevel=3,
                )
                continue
            by_name[bench.name] = bench
        #: Benchmark name → benchmark (the first of a repeated name), read-only.
        self.subbenches: dict[str, SubBenchmarkResult] = FrozenDict(by_name)

    def __repr__(self) -> str:
        # Bounded whatever the file holds: a count, the first few names, each shortened.
        label = self._source.label
        where = "<memory>" if label is None else shortened(label, 120, keep_end=True)
        benchmarks = self.benchmarks
        count = f"{len(benchmarks)} benchmark{'' if len(benchmarks) == 1 else 's'}"
        if not benchmarks:
            return f"BenchmarkResult({where}, {count})"
        names = [shortened(bench.name, 40) for bench in benchmarks[:_REPR_NAMES]]
        more = ", ..." if len(benchmarks) > _REPR_NAMES else ""
        return f"BenchmarkResult({where}, {count}: [{', '.join(names)}{more}])"

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
        if document.benchmarks is not None:
            benchmarks = [_full_benchmark(bench) for bench in self.benchmarks]
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

    def centers(self, estimator: Callable[[Float32Array], ResultT]) -> dict[str, Centers[ResultT]]:
        """Benchmark name → :meth:`SubBenchmarkResult.centers`."""
        return {name: bench.centers(estimator) for name, bench in self.subbenches.items()}

    def centers_with_frequencies(
        self, estimator: Callable[[Float32Array, Float32Array], ResultT]
    ) -> dict[str, Centers[ResultT]]:
        """Benchmark name → :meth:`SubBenchmarkResult.centers_with_frequencies`."""
        return {
            name: bench.centers_with_frequencies(estimator)
            for name, bench in self.subbenches.items()
        }

    def write(self, path: str | os.PathLike[str], *, jsonbin: bool = True) -> BenchmarkResult:
        """Write this result as NVBench JSON (plus side files with ``jsonbin``) and read it back.

        Samples and frequencies are carried over from this result's side files, read one
        state at a time. The round trip keeps everything the format defines. With
        ``jsonbin``, a side file this result records but that is not found raises
        :class:`SideFileError` naming it, as one of the wrong size does: the write would
        drop the samples it records (``jsonbin=False`` writes the result without samples).
        Nothing is written then.
        """
        from ._writer import write_document

        check_path(path, "path")

        def bulk(bench_index: int, state_index: int) -> tuple[Any, Any]:
            return _carried_samples(self.benchmarks[bench_index][state_index])

        write_document(path, self.document, bulk, jsonbin=jsonbin)
        return type(self)(path, metadata=self.metadata)

    def to_dataframe(self) -> pd.DataFrame:
        """One tidy row per state (needs pandas: ``python -m pip install '.[pandas]'`` from
        the nvbench-tools checkout's root)."""
        from ._frame import states_frame

        return states_frame(self.benchmarks, self.devices)

    def samples_dataframe(
        self, states: Callable[[SubBenchmarkState], bool] | None = None
    ) -> pd.DataFrame:
        """Long form: one row per sample of the chosen states (all with samples by default)."""
        from ._frame import samples_frame

        return samples_frame(self.benchmarks, states)


RecordT = TypeVar("RecordT", bound=msgspec.Struct)


def _full_record(kind: type[RecordT], raw: msgspec.Struct, **changes: Any) -> RecordT:
    """A record of the plain schema type ``kind`` with ``raw``'s fields and ``changes``."""
    fields = {name: getattr(raw, name) for name in kind.__struct_fields__}
    fields.update(changes)
    return kind(**fields)


def _full_benchmark(bench: SubBenchmarkResult) -> s.Benchmark:
    """A plain :class:`~._schema.Benchmark` of ``bench``, its states with every summary."""
    records = bench._full_records()
    states = None
    if records is not None:
        states = [
            _full_record(s.State, state._raw, summaries=state._decoded_summaries())
            for state in bench
        ]
    return _full_record(s.Benchmark, bench._raw, states=states)


def _carried_samples(state: SubBenchmarkState) -> tuple[Any, Any]:
    """The samples and frequencies :meth:`BenchmarkResult.write` carries over for ``state``;
    :class:`SideFileError` for a side file the state records with values that is nowhere
    found (an empty one is NVBench's "no data", as a ``--profile`` run writes)."""
    samples, frequencies = state.samples, state.frequencies
    source = state.benchmark.source
    for tags, found in ((TIMES_TAGS, samples), ((FREQS_TAG,), frequencies)):
        recorded = None if found is not None else state._side_file(tags)
        if recorded is None or recorded[1] == 0 or source.side_file(recorded[0]) is not None:
            continue
        raise SideFileError(
            source.named(source.recorded(recorded[0])),
            f"side file not found: writing without it would drop the {recorded[1]} values "
            "it records (write(..., jsonbin=False) writes the result without samples)",
        )
    return samples, frequencies
