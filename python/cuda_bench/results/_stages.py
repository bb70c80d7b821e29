"""How a result is read (:class:`ReadMode`), and how far each benchmark's states have been
decoded (:class:`BenchmarkStates`).

Each benchmark keeps its states in one :class:`BenchmarkStates`, whose :class:`Stage`
only moves forward, decoding more each time something needs more:

* ``RAW``: nothing of the states decoded; their bytes lie in the file, read again when
  first used, and only while the file is unchanged (:attr:`ReadMode.BY_BENCHMARK`);
* ``SLIM``: records whose summaries hold tags and values only, what a comparison reads;
  names, hints and descriptions are read from the unchanged file when first asked for
  (:attr:`ReadMode.SLIM`, and a benchmark read benchmark by benchmark once used);
* ``FULL``: records with every field. Nothing more is read from the file; a state's
  summaries may still be raw JSON in memory, decoded when the state is first used
  (:attr:`ReadMode.LAZY`).

A later read of the file refuses a file that changed since it was first read
(:mod:`._snapshot`): what a result serves comes from the bytes it read, or it raises
:class:`~._errors.ResultFormatError` naming the file.
"""

from __future__ import annotations

import enum
import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ._deferred import FileOutline, Span, decode_states, read_deferred
from ._errors import ResultFormatError
from ._parse import check_document, read_document, read_whole
from ._snapshot import FileIdentity

if TYPE_CHECKING:
    from . import _schema as s
    from ._source import _Source

__all__ = [
    "BenchmarkStates",
    "FileRead",
    "ReadMode",
    "Stage",
    "changed_states",
    "check_mode",
    "read_file",
    "read_outline",
]


class ReadMode(enum.Enum):
    """How :class:`~cuda.bench.results.BenchmarkResult` reads a file (``mode=``).

    Every mode gives the same contents; they differ in what is decoded when, and in whether
    the file is read again later. A mode that reads the file again refuses a file that
    changed since (:class:`~cuda.bench.results.ResultFormatError` naming it), so its
    states never mix two versions of the file.
    """

    #: The whole file is read; each state's summaries are decoded when the state is first
    #: used. The default: cheapest when only some states are looked at.
    LAZY = "lazy"
    #: The whole file is read and every summary decoded (``lazy=False``): cheapest when
    #: every state is used.
    FULL = "full"
    #: The whole file is read, its summaries' tags and values decoded (what a comparison
    #: reads); names, hints and descriptions are read from the file again when first asked
    #: for.
    SLIM = "slim"
    #: Only each benchmark's name, devices and axes are decoded; a benchmark's states are
    #: read from the file and decoded (slim) when the benchmark is first used, so a
    #: comparison of some benchmarks decodes only those. With ``check_counts`` a
    #: benchmark's states are checked then. A file of one benchmark is read as
    #: :attr:`SLIM` (there is nothing to leave for later). The first pass can be made
    #: apart, in another process too: :class:`~cuda.bench.results.FileOutline`.
    BY_BENCHMARK = "by_benchmark"


def check_mode(mode: object) -> ReadMode | None:
    """``mode`` of a reader call: a :class:`ReadMode` or ``None``; ``TypeError`` otherwise
    (its value ``'slim'`` too, which named no mode and was read as :attr:`ReadMode.FULL`)."""
    if mode is None or isinstance(mode, ReadMode):
        return mode
    known = {member.value: member.name for member in ReadMode}
    hint = f"ReadMode.{known[mode]}" if isinstance(mode, str) and mode in known else None
    instead = f" (for {mode!r}: {hint})" if hint else ""
    names = ", ".join(f"ReadMode.{member.name}" for member in ReadMode)
    raise TypeError(f"mode must be a ReadMode ({names}) or None, got {mode!r}{instead}")


class Stage(enum.IntEnum):
    """How far a benchmark's states are decoded (see the module docstring)."""

    RAW = 0
    SLIM = 1
    FULL = 2


class FileRead(NamedTuple):
    """A file read in one mode: its document (each benchmark's ``states`` left ``None`` at
    stage ``RAW``), the stage its states are at, where each benchmark's states lie in the
    file (stage ``RAW``), the file's identity when read (for modes that read it again), and
    its bytes when it was read into memory whole."""

    document: s.Document
    stage: Stage
    spans: list[Span] | None
    identity: FileIdentity | None
    text: bytes | None


def read_file(path: str | os.PathLike[str], mode: ReadMode) -> FileRead:
    """Read ``path`` in ``mode``. A file that cannot be read slim or benchmark by benchmark
    (not a regular file, malformed, changed while decoded) is read whole instead, which
    words its problem as :class:`~cuda.bench.results.ResultFormatError`."""
    if mode is ReadMode.SLIM:
        slim = read_whole(path, slim=True)
        if slim is not None:
            return FileRead(slim[0], Stage.SLIM, None, slim[1], None)
        mode = ReadMode.FULL
    elif mode is ReadMode.BY_BENCHMARK:
        scanned = read_deferred(path)
        if scanned is not None:
            document, spans, identity = scanned
            stage = Stage.SLIM if spans is None else Stage.RAW
            return FileRead(document, stage, spans, identity, None)
        mode = ReadMode.LAZY
    _, document, text = read_document(Path(path), lazy=mode is ReadMode.LAZY)
    return FileRead(document, Stage.FULL, None, None, text)


def read_outline(outline: FileOutline) -> tuple[str, FileRead]:
    """The file of ``outline`` read benchmark by benchmark, the first pass taken from the
    outline, and the name it goes by: the outline's label while that leads to the file
    from here, else its absolute path.

    The file is read as :func:`read_file` reads it (again, as it is now) when it changed
    since the outline was made, when the outline does not describe it, and when it has one
    benchmark (read whole, as :attr:`ReadMode.BY_BENCHMARK` reads such a file).
    """
    path, label = outline.path, outline.label
    if not (isinstance(path, str) and isinstance(label, str)):
        raise TypeError("from_outline takes a FileOutline made by FileOutline.read")
    path = os.path.abspath(path)
    name = label if os.path.abspath(label) == path else path
    document = outline._document()
    if (
        document is None
        or len(document.benchmarks or ()) < 2
        or FileIdentity.at(path) != outline.identity
    ):
        return name, read_file(name, ReadMode.BY_BENCHMARK)
    check_document(document, name)
    return name, FileRead(document, Stage.RAW, list(outline.spans), outline.identity, None)


class BenchmarkStates:
    """One benchmark's state records and the :class:`Stage` they are decoded to."""

    __slots__ = ("_file", "_index", "_name", "_records", "_span", "stage")

    def __init__(
        self,
        file: _Source,
        index: int,
        name: str,
        stage: Stage,
        records: list[s.State] | None,
        span: Span | None = None,
    ) -> None:
        """The states of the ``index``-th benchmark of ``file``, named ``name``: ``records``
        decoded to ``stage``, or at stage ``RAW`` lying at ``span`` in the file."""
        self._file = file
        self._index = index
        self._name = name
        self.stage = stage
        self._records = records
        #: Where the states lie in the file, while they may have to be decoded from it.
        self._span = span

    def records(self, at_least: Stage) -> list[s.State] | None:
        """The records (``None``: the file's ``states`` is ``null``), decoded first to
        ``at_least`` when they are not that far yet."""
        if self.stage < at_least:
            self._decode(at_least)
        return self._records

    @property
    def raw_size(self) -> int | None:
        """Bytes of the states' JSON at stage ``RAW``; ``None`` once decoded."""
        span = self._span
        return span[1] if self.stage is Stage.RAW and span is not None else None

    def _decode(self, target: Stage) -> None:
        before = None if self.stage is Stage.RAW else len(self._records or ())
        span = self._span
        records: list[s.State] | None
        if span is None:  # read whole and slim: names come from the whole file read again
            records, stage = self._file.full_states(self._index), Stage.FULL
        else:
            records, slim = decode_states(
                self._file.read(*span), self._file.label, self._index, slim=target is Stage.SLIM
            )
            stage = Stage.SLIM if slim else Stage.FULL
        if before is not None and len(records or ()) != before:
            raise changed_states(
                self._file.label, self._name, self._index, before, len(records or ())
            )
        self._records, self.stage = records, stage
        if stage is Stage.FULL:
            self._span = None


def changed_states(
    label: str | None, name: str, index: int, before: int, now: int
) -> ResultFormatError:
    """The error of a benchmark that has ``now`` states where it had ``before``."""
    return ResultFormatError(
        label,
        f"has {now} states in benchmark {name!r} where it had {before} before: "
        "the file changed while it was read",
        f"$.benchmarks[{index}].states",
    )
