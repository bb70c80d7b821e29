"""Where a result came from: its file (read again for the parts read later) and the
directory its side files are looked up in.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from ._snapshot import FileIdentity

from . import _schema as s
from ._errors import ResultFormatError
from ._parse import decode_document
from ._sidecar import (
    named_side_file,
    recorded_name,
    resolve_side_file,
    resolve_side_file_in,
    side_file_directory,
)


class _Source:
    """Where a result came from; shared by all of its states for side-file lookups.

    ``identity`` is that of the file when it was read, for results that read parts of it
    later (benchmark by benchmark, or slim): those reads refuse a changed file
    (:func:`~._snapshot.read_unchanged`).
    """

    __slots__ = ("_full", "anywhere", "directory", "identity", "label", "path")

    def __init__(
        self,
        path: Path | None,
        label: str | None,
        identity: FileIdentity | None = None,
        *,
        directory: Path | None = None,
        anywhere: bool | None = None,
    ) -> None:
        self.path = path
        self.label = label
        self.identity = identity
        #: Where side files are looked up for a benchmark made without a file
        #: (``SubBenchmarkResult(bench, json_dir)``).
        self.directory = directory
        #: Whether side files outside the JSON file's directory tree are read (``None``:
        #: as :func:`~._sidecar.anywhere_by_default` says).
        self.anywhere = anywhere
        self._full: s.Document | None = None

    def side_file(self, filename: str) -> Path | None:
        """The side file recorded as ``filename``, or ``None`` when it is nowhere found;
        :class:`~._errors.SideFileError` when it lies outside the JSON file's directory
        tree and reading it there was not asked for."""
        if self.path is not None:
            return resolve_side_file(self.path, filename, anywhere=self.anywhere, label=self.label)
        if self.directory is not None:
            return resolve_side_file_in(self.directory, filename, anywhere=self.anywhere)
        return None

    def recorded(self, filename: str) -> str:
        """The side file ``filename`` as this result's JSON file records it, resolved against
        that file's folder as given (:func:`~._sidecar.recorded_name`:
        ``r/run.json-bin/0.bin`` for ``r/run.json``), or against the folder of a benchmark
        made without a file; the recorded name alone without either."""
        if self.label is not None:
            return recorded_name(self.label, filename)
        if self.directory is not None:
            return recorded_name(os.path.join(self.directory, ""), filename)
        return recorded_name("", filename)

    def named(self, side: str) -> str:
        """A side file of this result (:meth:`recorded`, or :meth:`shown` for one found) as
        every message names it: ``r/run.json-bin/0.bin (recorded in r/run.json)``
        (:func:`~._sidecar.named_side_file`)."""
        return named_side_file(side, self.label)

    def shown(self, found: str | os.PathLike[str]) -> str:
        """A side file ``found`` for this result (a path its JSON file's directory was
        joined to) as the user would spell it: the JSON file's path as given (:attr:`label`),
        its folder joined to the rest of ``found`` (``r/run.json-bin/0.bin`` for
        ``r/run.json``, as warnings name the JSON file ``r/run.json``). A path below neither
        that folder nor its parent (one recorded absolute), or a result without a label, is
        shown as it is."""
        text = os.fspath(found)
        if self.path is None or self.label is None:
            return text
        folder = self.path.parent
        try:
            rest = Path(text).relative_to(folder)
        except ValueError:
            try:  # the legacy rule's parent folder (spec 7.5, rule 4), or a name with ".."
                rest = Path(os.pardir, Path(text).relative_to(folder.parent))
            except ValueError:
                return text
        return os.path.join(os.path.dirname(self.label), rest)

    def side_directory(self, filename: str) -> Path | None:
        """The directory (or FIFO, socket, device) that stands where the side file
        ``filename`` was looked for and not found (:func:`~._sidecar.side_file_directory`),
        or ``None``."""
        if self.path is None:
            return None
        return side_file_directory(self.path, filename, anywhere=self.anywhere)

    def read(self, offset: int = 0, length: int | None = None) -> bytes:
        """Bytes of the file as it was first read (all from ``offset`` without ``length``)."""
        if self.path is None or self.identity is None:  # pragma: no cover - never asked
            raise ResultFormatError(self.label, "cannot be read again: no file")
        from ._snapshot import read_unchanged

        return read_unchanged(self.path, self.identity, self.label, offset, length)

    def full_states(self, index: int) -> list[s.State] | None:
        """The states of the ``index``-th benchmark with every summary field, from the
        file read again in full (once): for a result read slim (:attr:`~._stages.ReadMode.
        SLIM`) when something asks for summary names or descriptions."""
        if self._full is None:
            self._full = decode_document(self.read(), self.label, lazy=False)
        benchmarks = self._full.benchmarks or []
        states = benchmarks[index].states if index < len(benchmarks) else None
        return cast("list[s.State] | None", states)
