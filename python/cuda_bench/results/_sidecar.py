"""``--jsonbin`` side files: where they are and how to read them (spec §7, compare.md §2)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ._errors import SideFileError

__all__ = ["FREQS_TAG", "SideFileRef", "load_float32", "resolve_side_file"]

#: Summary tags that point at side files. Times have one tag per measurement kind.
TIMES_TAGS = ("nv/json/bin:nv/cold/sample_times", "nv/json/bin:nv/cpu_only/sample_times")
FREQS_TAG = "nv/json/freqs-bin:nv/cold/sample_freqs"

Float32Array = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class SideFileRef:
    """A side file as recorded in the JSON: the raw ``filename`` and the value count."""

    filename: str
    size: int


def resolve_side_file(json_path: Path, filename: str) -> Path | None:
    """Locate a recorded side file, or ``None`` when it is nowhere to be found.

    Order (compare.md §2): an absolute path as is; relative to the JSON file's directory
    (current NVBench); the legacy layout, where the recorded path was relative to the
    benchmark's working directory and contains a ``<json name>-bin`` or
    ``<json name>-freqs-bin`` component that is re-anchored at the JSON's directory;
    relative to the parent of the JSON's directory. Never the current working directory:
    a file found there could belong to another run.
    """
    recorded = Path(filename)
    if recorded.is_absolute():
        return recorded if recorded.is_file() else None
    json_dir = json_path.parent
    candidate = json_dir / recorded
    if candidate.is_file():
        return candidate
    parts = recorded.parts
    anchors = {f"{json_path.name}-bin", f"{json_path.name}-freqs-bin"}
    for position, part in enumerate(parts):
        if part in anchors:
            candidate = json_dir.joinpath(*parts[position:])
            if candidate.is_file():
                return candidate
    candidate = json_dir.parent / recorded
    if candidate.is_file():
        return candidate
    return None


def load_float32(path: Path, expected: int) -> Float32Array | None:
    """Read a side file of ``expected`` little-endian float32 values.

    An empty file is "no data" (``None``), as NVBench writes empty files for ``--profile``
    frequency side files. A file of any other wrong size, or one that cannot be read, is
    an error naming the file.
    """
    try:
        actual_bytes = os.path.getsize(path)
    except OSError as error:
        raise SideFileError(str(path), f"cannot read side file: {error.strerror}") from error
    if actual_bytes == 0:
        return None
    if actual_bytes != 4 * expected:
        raise SideFileError(
            str(path),
            f"side file holds {actual_bytes} bytes, expected {4 * expected} "
            f"({expected} float32 values as recorded in the JSON)",
        )
    try:
        values = np.fromfile(path, dtype="<f4")
    except OSError as error:
        raise SideFileError(str(path), f"cannot read side file: {error}") from error
    # A big-endian host would otherwise carry a non-native dtype into every computation.
    return values.astype(np.float32, copy=False)
