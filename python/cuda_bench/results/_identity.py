"""What makes two result files one run: the measurements, not the bytes.

A run copied through ``git`` with ``autocrlf``, re-indented by a pretty-printer or re-written
by ``json.load`` / ``json.dump`` is byte for byte another file and the same measurements.
Tools that must not count one run twice (an archive that stores each run once, a
calibration or a baseline check that needs separate runs, a gate that must not take
tonight's run as its own reference) compare :func:`measurement_digest` instead of file
hashes: the file parsed as plain JSON, encoded with its keys sorted. It holds every state's
summaries (minimum, quartiles, median, mean, deviation of thousands of times, to 17 digits), which
separate runs never share, so the side files add nothing to tell runs apart, and a copy of
the JSON file whose side files were left behind is the same run too. One list of runs
asks :func:`repeated_run`; a comparison, whether a compare run is one of its reference runs
(:func:`runs_on_both_sides`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import msgspec

from .._special_files import open_regular
from ._parse import MAX_STREAM_BYTES, may_hold_result

if TYPE_CHECKING:
    from ._tools_api import BenchmarkResult

__all__ = [
    "RepeatedRun",
    "measurement_digest",
    "repeated_run",
    "runs_on_both_sides",
    "written_together",
]


def measurement_digest(result: BenchmarkResult, data: bytes | None = None) -> str:
    """The SHA-256 of ``result``'s file parsed as plain JSON, keys sorted: whitespace, line
    ends and key order do not count. Plain JSON, not the reader's typed document: what the
    reader keeps or normalises may change from one version to the next, and the digest names
    runs in archives for good. ``data``: the file's bytes, where the caller has read them
    already. A result without a file (built in memory) digests its document."""
    # Regular files only: a FIFO or a device read again would block or give other bytes.
    if data is None and result.path is not None and os.path.isfile(result.path):
        try:
            with open_regular(result.path) as stream:
                data = stream.read()
        except OSError:
            data = None  # read as the reader could: its document stands in
    digest = None if data is None else _bytes_digest(data)
    if digest is None:
        import hashlib  # here: a comparison that asks no run's identity loads no hashing

        digest = hashlib.sha256(msgspec.json.encode(result.document, order="sorted")).hexdigest()
    return digest


def _bytes_digest(data: bytes) -> str | None:
    """The digest of a file's bytes parsed as plain JSON, keys sorted; ``None`` if not JSON."""
    try:
        encoded = msgspec.json.encode(msgspec.json.decode(data), order="sorted")
    except msgspec.DecodeError:
        return None
    import hashlib  # as in measurement_digest

    return hashlib.sha256(encoded).hexdigest()


class RepeatedRun(NamedTuple):
    """A run given twice (:func:`repeated_run`): ``path`` repeats ``first``'s measurements."""

    path: str
    first: str
    #: ``path`` and ``first`` are one file (the same name, or a link to it); else a copy.
    same_file: bool

    @property
    def relation(self) -> str:
        """``the same file as`` or ``a copy of``: how ``path`` repeats ``first``."""
        return "the same file as" if self.same_file else "a copy of"

    def describe(self) -> str:
        """``B.json: a copy of A.json (the same measurements)``, or ``the same file as``."""
        return f"{self.path}: {self.relation} {self.first} (the same measurements)"


def repeated_run(
    runs: Iterable[BenchmarkResult | str | os.PathLike[str]],
) -> RepeatedRun | None:
    """The first of ``runs`` whose measurements (:func:`measurement_digest`) repeat an
    earlier one's, or ``None``: what every tool that must not count one run twice asks.
    Runs are results read from files or paths of files; a result built in memory, and a
    path that is no regular file or holds no JSON, is passed over (its caller's business,
    or its reader's error). Each is named as the caller gave it (a result by its
    :attr:`~._tools_api.BenchmarkResult.label`), as every other line names files."""
    #: digest → the first run's name as given, and its path (for the same-file test).
    seen: dict[str, tuple[str, str]] = {}
    for run in runs:
        label, path, source = _named(run)
        if path is None:
            continue
        digest = _run_digest(source, path)
        if digest is None:
            continue
        first = seen.get(digest)
        if first is not None:
            same = os.path.realpath(first[1]) == os.path.realpath(path)
            return RepeatedRun(label, first[0], same)
        seen[digest] = (label, path)
    return None


def runs_on_both_sides(
    ref: Sequence[BenchmarkResult | str | os.PathLike[str]],
    cmp: Sequence[BenchmarkResult | str | os.PathLike[str]],
    *,
    copies: bool = True,
) -> list[RepeatedRun]:
    """For each compare run that is one of the reference runs, :class:`RepeatedRun` (its
    ``path`` the compare run, ``first`` the reference run it repeats, named as
    :func:`repeated_run` names them): a comparison that sets a run against itself, whose
    states show no change whatever the builds did. The same file (or a link to it) costs a
    few ``stat`` calls; a copy, looked for only with ``copies`` (a caller's cheap evidence
    may rule copies out), is told by the digests, asked only for files of one size or, for
    results read already, whose first measured states agree (a path not read yet is
    always digested), each file digested once."""
    named = [[_named(run) for run in side] for side in (ref, cmp)]
    digests: dict[str, str | None] = {}

    def digest(source: BenchmarkResult | str, path: str) -> str | None:
        if path not in digests:
            digests[path] = _run_digest(source, path)
        return digests[path]

    found: list[RepeatedRun] = []
    for compared_name, compared_path, compared in named[1]:
        for reference_name, reference_path, reference in named[0]:
            if compared_path is None or reference_path is None:
                continue
            try:
                same_file = os.path.samefile(reference_path, compared_path)
                same_size = os.stat(reference_path).st_size == os.stat(compared_path).st_size
            except OSError:
                continue
            if not same_file:
                if not copies:
                    continue
                if not (same_size or _first_measured(reference) == _first_measured(compared)):
                    continue
                first = digest(reference, reference_path)
                if first is None or first != digest(compared, compared_path):
                    continue
            found.append(RepeatedRun(compared_name, reference_name, same_file))
            break
    return found


def _named(
    run: BenchmarkResult | str | os.PathLike[str],
) -> tuple[str, str | None, BenchmarkResult | str]:
    """A run's name as the caller gave it (a result by its label), its file's path
    (``None`` for a result built in memory) and what digests it (the path, or the result)."""
    if isinstance(run, str | os.PathLike):
        path = os.fspath(run)
        return path, path, path
    if run.path is None:
        return run.label or "", None, run
    path = os.fspath(run.path)
    return run.label or path, path, run


def _run_digest(source: BenchmarkResult | str, path: str) -> str | None:
    """:func:`measurement_digest` of a result, or of the file at a path not read yet."""
    return _file_digest(path) if isinstance(source, str) else measurement_digest(source)


def _first_measured(run: BenchmarkResult | str) -> Any:
    """The first measured state's name and summary values; ``None`` for a path not read
    yet (which is digested) and for a run that measured nothing."""
    if isinstance(run, str):
        return None
    for state in run.states():
        if not state.is_skipped:
            return state.name(), [(tag, state.get_value(tag)) for tag in state.tags]
    return None


def _file_digest(path: str) -> str | None:
    """:func:`measurement_digest` of the JSON file at ``path``, unread; ``None`` for what is
    no regular file, cannot be read or is not JSON."""
    if not os.path.isfile(path):
        return None
    try:
        with open_regular(path) as stream:
            # A sparse file of gigabytes is no run to digest (the reader refuses it unread).
            if not may_hold_result(stream.fileno(), os.fstat(stream.fileno()).st_size):
                return None
            return _bytes_digest(stream.read())
    except OSError:
        return None


def written_together(paths: Sequence[Path]) -> dict[Path, Path]:
    """The files of ``paths`` (one folder's) that repeat another's bytes exactly, each mapped
    to the file read in its place: one run's JSON written by several of NVBench's printers.
    ``--jsonbin X.json --json X_plain.json`` writes the two byte for byte, side-file
    summaries included, whose names lead into ``X.json-bin/`` (nvbench-json-format.md 7.4).
    The file read is the one whose side-file names are its own (``X.json``), else the first
    of ``paths``. Only regular files of equal size are compared, by their hashes, read a
    piece at a time; only the files of a repeated group are read again, one at a time, to
    find the one that names its side files."""
    by_size: dict[int, list[Path]] = {}
    for path in paths:
        try:
            # A file larger than any result is refused unread by the reader: hashing a
            # pair of sparse copies read gigabytes first.
            if path.is_file() and (size := path.stat().st_size) <= MAX_STREAM_BYTES:
                by_size.setdefault(size, []).append(path)
        except OSError:
            continue
    found: dict[Path, Path] = {}
    for group in by_size.values():
        by_hash: dict[bytes, list[Path]] = {}
        for path in group if len(group) > 1 else ():
            digest = _file_hash(path)
            if digest is not None:
                by_hash.setdefault(digest, []).append(path)
        for same in by_hash.values():
            if len(same) > 1:
                kept = next((path for path in same if _own_side_files(path)), same[0])
                found.update((path, kept) for path in same if path != kept)
    return found


def _file_hash(path: Path) -> bytes | None:
    """The SHA-256 of the regular file at ``path``, read a piece at a time; ``None`` when it
    cannot be read (or is no regular file now)."""
    import hashlib  # as in measurement_digest

    digest = hashlib.sha256()
    try:
        with open_regular(path) as stream:
            while piece := stream.read(_PIECE):
                digest.update(piece)
    except OSError:
        return None
    return digest.digest()


#: How much of a file :func:`_file_hash` holds at once.
_PIECE = 1 << 20


def _own_side_files(path: Path) -> bool:
    """:func:`_names_own` of the file at ``path``, read again; ``False`` when it cannot be."""
    try:
        with open_regular(path) as stream:
            return _names_own(path.name, stream.read())
    except OSError:
        return False


def _names_own(name: str, data: bytes) -> bool:
    """Whether the JSON text ``data`` records side files under ``<name>-bin/`` or
    ``<name>-freqs-bin/``: what ``--jsonbin <name>`` writes (the recorded name alone, or
    after a folder in files older than NVBench PR #405). A name with bytes that are no
    UTF-8 (held as lone surrogates) is none NVBench's UTF-8 JSON can record: not its own."""
    try:
        escaped = json.dumps(name, ensure_ascii=False)[1:-1].encode()
    except UnicodeEncodeError:
        return False
    return re.search(rb'["/]' + re.escape(escaped) + rb"-(?:freqs-)?bin/", data) is not None
