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

__all__ = ["ARCHIVE_MARKER", "archive_containing"]

#: The file at the root of every archive.
ARCHIVE_MARKER: Final = "nvbench-archive.json"


def archive_containing(path: str | os.PathLike[str]) -> str | None:
    """The archive directory that ``path`` is, or lies under (links resolved), found by
    walking up from it to the first directory holding :data:`ARCHIVE_MARKER`; ``None``
    when there is none. ``path`` itself need not exist."""
    folder = os.path.realpath(path)
    while True:
        if os.path.isfile(os.path.join(folder, ARCHIVE_MARKER)):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
