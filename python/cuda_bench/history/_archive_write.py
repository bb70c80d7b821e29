"""The files an ingest adds to an archive: each whole or not at all, and all of a run's or
none of them.

Each file is written under a hidden temporary name in its final folder (:mod:`._temporary`)
and then hard-linked to its final name, which fails if the name exists, so that concurrent
ingests of one run keep one file and never expose a partial one. The temporary file goes
whatever happens, an interrupt (Ctrl-C) included: an interrupted ingest left it behind
until the next ingest cleaned it up.

A run's files go in one after another, its runs file last (:mod:`.archive`). An ingest that
fails on the way (``runs/`` read-only, a full disk, Ctrl-C) removes the files and the
folders it added: its states file left behind made every later command warn of a run
without a runs file, "an ingest that did not finish".
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ._temporary import temporary_path

__all__ = ["commit_bytes", "write_tables"]


@contextlib.contextmanager
def _temporary_file(directory: Path, stem: str) -> Iterator[Path]:
    """A fresh temporary name in ``directory`` for the body to write; the file is gone at
    the end, whatever happened (linked into place, it is left under its final name)."""
    temporary = temporary_path(directory, stem)
    try:
        yield temporary
    finally:
        with contextlib.suppress(OSError):
            temporary.unlink()


def _link_into_place(temporary: Path, target: Path) -> bool:
    """Give ``temporary`` the name ``target`` unless that exists; ``True`` if it did."""
    try:
        os.link(temporary, target)
    except FileExistsError:
        return False
    return True


def commit_bytes(target: Path, data: bytes) -> bool:
    """Write ``data`` to ``target`` atomically unless it exists; ``True`` if written."""
    with _temporary_file(target.parent, target.name) as temporary:
        with open(temporary, "xb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        return _link_into_place(temporary, target)


def _new_folders(folder: Path) -> list[Path]:
    """The folders ``folder.mkdir(parents=True)`` would make, the deepest first."""
    missing = []
    while not os.path.lexists(folder) and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    return missing


def write_tables(pq: Any, tables: Sequence[tuple[Any, Path]], name: str) -> bool:
    """Write each ``(table, folder)`` of ``tables`` as ``folder/name.parquet`` (zstd), in
    order, a file that exists left as it is; whether the last one was written. On any
    failure the files and folders written so far are removed and the error raised.

    pyarrow is given an open file, not a path: it takes a path's text for UTF-8, and an
    archive under a non-UTF-8 locale (``LC_ALL=en_US.ISO-8859-1``) whose path is not ASCII
    was written to a path that does not exist."""
    added = False
    written: list[Path] = []
    made: list[Path] = []
    last = len(tables) - 1
    try:
        for number, (table, folder) in enumerate(tables):
            made[:0] = _new_folders(folder)  # the deepest first, the latest first
            folder.mkdir(parents=True, exist_ok=True)
            final = folder / f"{name}.parquet"
            with _temporary_file(folder, name) as temporary:
                with open(temporary, "xb") as handle:
                    pq.write_table(table, handle, compression="zstd")
                added = _link_into_place(temporary, final)
                # Noted at once, inside the block: a Ctrl-C while the temporary name is
                # removed must still find the file among those to take back.
                if added:
                    written.append(final)
                if number == last:
                    # The last file linked is the commit point (the runs file, which makes
                    # the run visible): past it the run is archived, nothing is taken back
                    # (taking back its states left a run without states).
                    written.clear()
                    made.clear()
    except BaseException:
        for one in written:
            with contextlib.suppress(OSError):
                one.unlink()
        for one in made:
            with contextlib.suppress(OSError):
                one.rmdir()  # only while empty: what another ingest put there stays
        raise
    return added
