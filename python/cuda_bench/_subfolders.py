"""What to say when a folder given as input holds no run but its subfolders do.

Every tool reads a folder's own ``.json`` files, not its subfolders' (a job's folder of
per-run folders would otherwise mix runs that were never meant to be compared). A folder
that holds none of its own but whose subfolders do is what a user gives first, so the
error names a subfolder to give instead of only saying that the folder is empty.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["subfolder_note"]


def subfolder_note(folder: Path) -> str:
    """``""``, or ``"; its subfolders are not read, and SUB holds .json files (give
    FOLDER/SUB or the files)"`` to append to the error about ``folder``."""
    deeper: list[str] = []
    with contextlib.suppress(OSError):
        for child in sorted(folder.iterdir()):
            with contextlib.suppress(OSError):
                if child.is_dir() and any(item.suffix == ".json" for item in child.iterdir()):
                    deeper.append(child.name)
    if not deeper:
        return ""
    verb = f" and {len(deeper) - 1} more hold" if len(deeper) > 1 else " holds"
    return (
        f"; its subfolders are not read, and {deeper[0]}{verb} .json files "
        f"(give {os.path.join(os.fspath(folder), deeper[0])} or the files)"
    )
