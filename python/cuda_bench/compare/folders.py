"""Files and directories as the inputs of a comparison, each run read once.

Two files are one pair; two directories pair their non-empty ``.json`` files by name
(:func:`discover_pairs`); a directory in a list of runs stands for its ``.json`` files
(:func:`folder_runs`). Either way the byte-identical files of one directory are one run, as
NVBench's ``--jsonbin X.json --json X_plain.json`` writes them: the one whose side-file names
are its own is read and each other one is left out
(:func:`~cuda.bench.results._identity.written_together`, as ``nvbench-walltime``,
``nvbench-histogram`` and ``nvbench-plot-bwutil`` read a folder), mapped in ``copies`` to the
file read in its place, for the caller to tell. Files named one by one are all read. Nothing
here prints.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

import msgspec

from .._errors import missing_file_problem, stdin_hint
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
    try:
        entries = list(directory.iterdir())
    except OSError as error:
        raise CompareInputError(
            f"cannot list {side} directory '{directory}': {error.strerror or error}"
        ) from None
    return {
        entry.name: entry for entry in entries if entry.name.endswith(".json") and entry.is_file()
    }


def _read_once(directory: Path, side: str) -> tuple[dict[str, Path], dict[Path, Path]]:
    """:func:`json_files` of ``directory``, and its non-empty files that repeat another's
    bytes, each mapped to the file read in its place."""
    from ..results._identity import written_together

    files = json_files(directory, side)
    usable = [path for _, path in sorted(files.items()) if _usable(path) is not None]
    return files, written_together(usable)


def folder_runs(directory: Path, side: str, copies: dict[Path, Path] | None = None) -> list[Path]:
    """The runs a directory in a list of runs stands for: its ``.json`` files sorted by name
    (an empty one too: reading it words the problem), each run once; ``copies`` maps each
    one left out to the file read in its place."""
    files, together = _read_once(directory, side)
    if copies is not None:
        copies.update(together)
    return [path for _, path in sorted(files.items()) if path not in together]


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
    case-sensitively), each run once (``copies`` maps each file left out to the one read in
    its place), paired by name in sorted name order; a file on one side only, or whose
    counterpart is empty or left out, is returned as unpaired; files empty on both sides are
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


def _pair_directories(
    ref_dir: Path, cmp_dir: Path, copies: dict[Path, Path]
) -> tuple[list[FilePair], list[UnpairedFile]]:
    ref_files, ref_copies = _read_once(ref_dir, "reference")
    cmp_files, cmp_copies = _read_once(cmp_dir, "compare")
    copies.update(ref_copies)
    copies.update(cmp_copies)
    pairs: list[FilePair] = []
    unpaired: list[UnpairedFile] = []
    for name in sorted(ref_files.keys() | cmp_files.keys()):
        ref_named, cmp_named = ref_files.get(name), cmp_files.get(name)
        ref_file = None if ref_named in ref_copies else _usable(ref_named)
        cmp_file = None if cmp_named in cmp_copies else _usable(cmp_named)
        if ref_file is not None and cmp_file is not None:
            pairs.append(FilePair(ref_file, cmp_file))
        elif ref_file is not None:
            reason = _why(cmp_named, cmp_dir, cmp_copies)
            unpaired.append(UnpairedFile("reference", ref_file, reason))
        elif cmp_file is not None:
            reason = _why(ref_named, ref_dir, ref_copies)
            unpaired.append(UnpairedFile("compare", cmp_file, reason))
    if not pairs:
        raise CompareInputError(f"no matching non-empty .json files in '{ref_dir}' and '{cmp_dir}'")
    return pairs, unpaired


def _why(counterpart: Path | None, directory: Path, copies: dict[Path, Path]) -> str:
    if counterpart is None:
        return f"has no counterpart in '{directory}'"
    kept = copies.get(counterpart)
    if kept is not None:
        return f"has a counterpart '{counterpart}' left out as the same run as '{kept}'"
    return f"has an empty counterpart '{counterpart}'"
