"""What makes a directory an ``nvbench-history`` archive, and the archive a path lies in.

The marker file names the archive (:mod:`cuda.bench.history.archive` writes it); every
command that writes reports refuses a path inside an archive (the archive holds only what
``nvbench-history ingest`` writes: a report written as ``ARCHIVE/nvbench-archive.json``
would replace the marker and break it). Here, below every layer and importing nothing
heavy, so that the commands check their output paths before any work.
"""

from __future__ import annotations

import os
from typing import Final

from ._json_input import loads
from ._special_files import open_regular

__all__ = ["ARCHIVE_FORMAT", "ARCHIVE_MARKER", "archive_containing"]

#: The file at the root of every archive.
ARCHIVE_MARKER: Final = "nvbench-archive.json"
#: Its ``format`` field.
ARCHIVE_FORMAT: Final = "nvbench-history-archive"
#: A marker is a line of JSON; a larger file of that name is something else.
_MARKER_BYTES: Final = 4096


def _is_marker(path: str) -> bool:
    """Whether the file ``path`` marks an archive: a JSON object whose ``format`` is the
    archive's. A file of that name that is something else (a report once written there)
    marks nothing; one that cannot be read is taken for a marker, to be safe."""
    try:
        with open_regular(path) as handle:  # a FIFO put there since the check cannot block
            data = handle.read(_MARKER_BYTES + 1)
    except OSError:
        return True
    if len(data) > _MARKER_BYTES:
        return False
    try:
        # Not UTF-8, or nested too deeply: a ValueError, as other files that are no marker.
        found = loads(data.decode("utf-8"))
    except ValueError:
        return False
    return isinstance(found, dict) and found.get("format") == ARCHIVE_FORMAT


def archive_containing(path: str | os.PathLike[str]) -> str | None:
    """The archive directory that ``path`` is, or lies under (links resolved), found by
    walking up from it to the first directory holding an :data:`ARCHIVE_MARKER` that is
    one; ``None`` when there is none. ``path`` itself need not exist."""
    folder = os.path.realpath(path)
    while True:
        marker = os.path.join(folder, ARCHIVE_MARKER)
        if os.path.isfile(marker) and _is_marker(marker):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
