"""Files and directories as the inputs of a comparison, each run read once.

Two files are one pair; two directories pair their non-empty ``.json`` files by name
(:func:`discover_pairs`); a directory in a list of runs stands for its ``.json`` files
(:func:`folder_runs`). Either way the byte-identical files of one directory are one run, as
NVBench's ``--jsonbin X.json --json X_plain.json`` writes them: the one whose side-file names
are its own is read and each other one is left out
(:func:`~cuda.bench.results._identity.written_together`, as ``nvbench-walltime``,
``nvbench-histogram`` and ``nvbench-plot-bwutil`` read a folder), mapped in ``copies`` to the
file read in its place, for the caller to tell. Two directories pair by name first: a copy
is left out only where another file of its run is paired, and pairs where nothing else
stands for its run (``X_plain.json`` against a folder of ``--json X_plain.json`` alone).
Files named one by one are all read. Nothing here prints.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal, NamedTuple, cast

import msgspec

from .._errors import missing_file_problem, stdin_hint
from .._special_files import unread_entry_problem
from .._subfolders import subfolder_note
from .errors import CompareInputError

__all__ = [
    "FilePair",
    "Side",
    "UnpairedFile",
    "discover_pairs",
    "folder_runs",
    "json_files",
]

Side = Literal["reference", "compare"]


class FilePair(msgspec.Struct, frozen=True):
    """A reference file and the compare file it is compared with."""

    ref: Path
    cmp: Path

    @property
    def label(self) -> str:
        return f"{self.ref} vs. {self.cmp}"


class UnpairedFile(msgspec.Struct, frozen=True):
    """A JSON file of a directory input that has no usable counterpart on the other side."""

    side: Side
    path: Path
    reason: str

    def __str__(self) -> str:
        return f"{self.side} file '{self.path}' {self.reason}"


def json_files(directory: Path, side: str) -> dict[str, Path]:
    """``.json`` regular files directly in ``directory``: name → path (empty files too).

    ``side`` ("reference", "compare") names the directory in the error raised when it
    cannot be listed."""
    return _listing(directory, side)[0]


def _listing(directory: Path, side: str) -> tuple[dict[str, Path], dict[Path, str]]:
    """:func:`json_files`, and the ``.json`` entries that are neither regular files nor
    folders (a named pipe, a socket, a device, a link to no file), each with why it is not
    read (:func:`~cuda.bench._special_files.unread_entry_problem`): passed over without a
    word, a FIFO among a side's runs read as if the side had one run fewer, where the other
    tools that read folders say so."""
    try:
        entries = sorted(directory.iterdir())
    except OSError as error:
        raise CompareInputError(
            f"cannot list {side} directory '{directory}': {error.strerror or error}"
        ) from None
    files: dict[str, Path] = {}
    unread: dict[Path, str] = {}
    for entry in entries:
        if not entry.name.endswith(".json") or entry.is_dir():
            continue
        why = unread_entry_problem(entry)
        if why is None:
            files[entry.name] = entry
        else:
            unread[entry] = why
    return files, unread


class _Folder(NamedTuple):
    """One listing of a directory (:func:`_read_once`)."""

    #: Its ``.json`` regular files by name (empty ones too).
    files: dict[str, Path]
    #: Its non-empty files that repeat another's bytes, each mapped to the one read instead.
    copies: dict[Path, Path]
    #: Its ``.json`` entries that are no regular files, with why each is not read.
    unread: dict[Path, str]


def _read_once(directory: Path, side: str) -> _Folder:
    """The directory listed once: its files, those that repeat another's bytes, and the
    entries that are not read."""
    from ..results._identity import written_together

    files, unread = _listing(directory, side)
    usable = [path for _, path in sorted(files.items()) if _usable(path) is not None]
    return _Folder(files, written_together(usable), unread)


def folder_runs(directory: Path, side: str, copies: dict[Path, Path] | None = None) -> list[Path]:
    """The runs a directory in a list of runs stands for: its ``.json`` files sorted by name
    (an empty one too: reading it words the problem), each run once; ``copies`` maps each
    one left out to the file read in its place."""
    folder = _read_once(directory, side)
    if copies is not None:
        copies.update(folder.copies)
    # What is no regular file is a run too, whose reader names the problem (exit 2): left
    # out, a named pipe among a side's runs went unsaid.
    runs = [path for path in folder.files.values() if path not in folder.copies]
    return sorted([*runs, *folder.unread])


def _usable(path: Path | None) -> Path | None:
    """``path`` unless it is absent or empty (or vanished since the listing)."""
    if path is None:
        return None
    try:
        return path if path.stat().st_size > 0 else None
    except OSError:
        return None


def discover_pairs(
    ref: str | os.PathLike[str],
    cmp: str | os.PathLike[str],
    copies: dict[Path, Path] | None = None,
) -> tuple[list[FilePair], list[UnpairedFile]]:
    """The file pairs to compare and the files that have no counterpart.

    Two files → one pair (reading them reports any problem with their content). Two
    directories → their non-empty ``.json`` files (not recursive; the extension is matched
    case-sensitively) paired by name in sorted name order, each pair of runs once (``copies``
    maps each file left out to the one read in its place; :func:`_pair_directories`); a
    file on one side only, or whose counterpart is empty or left out, is returned as
    unpaired; files empty on both sides are
    skipped (NVBench leaves an empty file when a run crashes). Raises
    :class:`CompareInputError` for a missing path, a file against a directory, or
    directories without any pair.
    """
    ref_path, cmp_path = Path(ref), Path(cmp)
    for side, path in (("reference", ref_path), ("compare", cmp_path)):
        if not path.exists():
            said = (
                f"is {missing_file_problem(path)}"
                if os.path.islink(path)
                else f"does not exist{stdin_hint(path)}"
            )
            raise CompareInputError(f"{side} input '{path}' {said}")
    ref_is_dir, cmp_is_dir = ref_path.is_dir(), cmp_path.is_dir()
    if ref_is_dir != cmp_is_dir:
        kinds = ("a directory", "a file") if ref_is_dir else ("a file", "a directory")
        raise CompareInputError(
            f"reference '{ref_path}' is {kinds[0]} but compare '{cmp_path}' is {kinds[1]}; "
            "give two files or two directories"
        )
    if not ref_is_dir:
        return [FilePair(ref_path, cmp_path)], []
    return _pair_directories(ref_path, cmp_path, {} if copies is None else copies)


class _Side:
    """One directory of :func:`_pair_directories`: its files, those that repeat another's
    bytes (each mapped to the file :func:`_read_once` reads in its place) and, as pairs are
    taken, the file read for each run (a run is named by that mapped-to file)."""

    def __init__(self, directory: Path, side: Side) -> None:
        self.directory, self.side = directory, side
        self.files, self.copies, self.unread = _read_once(directory, side)
        self.read: dict[Path, Path] = {}

    def run(self, path: Path) -> Path:
        return self.copies.get(path, path)

    def again(self, path: Path) -> bool:
        """Whether ``path`` is a copy of a run that a pair reads already."""
        return path in self.copies and self.run(path) in self.read


def _pair_directories(
    ref_dir: Path, cmp_dir: Path, copies: dict[Path, Path]
) -> tuple[list[FilePair], list[UnpairedFile]]:
    """Pairs by name, as files named one by one would pair, each pair of runs compared once:
    a pair is left out only where a file of it is a copy of a run that another pair reads
    (``X_plain.json`` beside ``X.json``, on both sides), so that a copy still stands for its
    run where nothing else does (``X_plain.json`` alone on the other side)."""
    ref, cmp = _Side(ref_dir, "reference"), _Side(cmp_dir, "compare")
    names = sorted(ref.files.keys() | cmp.files.keys())
    usable = {name: (_usable(ref.files.get(name)), _usable(cmp.files.get(name))) for name in names}
    paired: set[str] = set()
    # Pairs of no copy first: a copy is what is left out where a pair repeats another.
    both = [name for name in names if None not in usable[name]]
    both.sort(key=lambda name: usable[name][0] in ref.copies or usable[name][1] in cmp.copies)
    for name in both:
        ref_file, cmp_file = cast(tuple[Path, Path], usable[name])
        if ref.again(ref_file) or cmp.again(cmp_file):
            continue
        ref.read.setdefault(ref.run(ref_file), ref_file)
        cmp.read.setdefault(cmp.run(cmp_file), cmp_file)
        paired.add(name)
    pairs = [FilePair(*cast(tuple[Path, Path], usable[name])) for name in names if name in paired]
    unpaired: list[UnpairedFile] = [
        UnpairedFile(one.side, entry, f"is {why}")
        for one in (ref, cmp)
        for entry, why in one.unread.items()
    ]
    for name in names:
        if name in paired:
            continue
        for one, other, index in ((ref, cmp, 0), (cmp, ref, 1)):
            file = usable[name][index]
            if file is None:
                continue
            run = one.run(file)
            if run in one.read or file in one.copies:
                # Its run is read through another file (compared, or unpaired there).
                copies[file] = one.read.get(run, run)
                continue
            reason = _why(other.files.get(name), other)
            unpaired.append(UnpairedFile(one.side, file, reason))
    if not pairs:
        message = f"no matching non-empty .json files in '{ref_dir}' and '{cmp_dir}'"
        for index, folder in enumerate((ref_dir, cmp_dir)):
            if not any(one[index] for one in usable.values()):
                # The first folder without runs of its own whose subfolders hold some.
                note = subfolder_note(Path(folder))
                if note:
                    message += f"; '{folder}' holds none{note}"
                    break
        if any(one[0] for one in usable.values()) and any(one[1] for one in usable.values()):
            # Both hold runs, under other names: say how folders pair, and the other way.
            message += (
                " (folders pair their files by name; --ref DIR --cmp DIR compares the runs "
                "of one folder with those of the other, whatever their names)"
            )
        raise CompareInputError(message)
    return pairs, unpaired


def _why(counterpart: Path | None, side: _Side) -> str:
    if counterpart is None:
        return f"has no counterpart in '{side.directory}'"
    if side.again(counterpart):
        read = side.read[side.run(counterpart)]
        return f"has a counterpart '{counterpart}' left out as the same run as '{read}'"
    return f"has an empty counterpart '{counterpart}'"
