"""The lock that makes an ingest's checks and its write one step for other ingests.

An ingest refuses a run that conflicts with what the archive holds (``--order`` another
commit holds, a commit at another place: :mod:`._order_check`), then writes it. Two
ingests started at once both checked an archive without the other's run and both wrote:
two commits at one place, ordered by their dates without a word. Each ingest therefore
holds an exclusive advisory lock (``flock``) on ``ARCHIVE/nvbench-archive.lock`` from its
conflict checks to its last file; a second ingest waits for it, then checks an archive
that holds the first's run.

The lock file is empty, lies beside the marker outside the table folders (``runs/``,
``states/``, ``samples/``), so readers of the tables (DuckDB, pyarrow, Spark, an Iceberg
``add_files``) never see it; it is created by the first ingest that locks and never
removed (removing it would let a later ingest lock a new file while an earlier one holds
the old). Readers take no lock: each file appears whole (:mod:`.archive`).

The lock is released when the ingest ends, also when it is killed. Where ``fcntl`` is
missing (Windows) no lock is taken: concurrent ingests of one run stay safe (each file is
linked into place once), but two runs given one ``--order`` at once may both be taken;
run such ingests one after another. A file system whose ``flock`` does not reach other
machines (some network mounts) gives the same guarantee only among ingests of one host.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from ._run_checks import ArchiveError

__all__ = ["LOCK_FILE", "archive_lock"]

#: The lock file's name in the archive's top directory.
LOCK_FILE: Final = "nvbench-archive.lock"


@contextlib.contextmanager
def archive_lock(root: Path) -> Iterator[bool]:
    """Hold the archive's exclusive ingest lock (module docstring) while the block runs;
    yields whether a lock is held (``False`` where ``fcntl`` is missing)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield False
        return
    path = root / LOCK_FILE
    # Read-only is enough for flock, so that an archive shared by several accounts locks
    # with a file another account created. Never through a link (whoever may write the
    # archive could otherwise make an ingest create a file anywhere), and never blocking
    # on a FIFO put in its place (the open itself would wait for a writer forever).
    flags = os.O_RDONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        descriptor = os.open(path, flags, 0o666)
    except OSError as error:
        raise ArchiveError(
            f"{path}: cannot open the archive's lock file ({error.strerror or error}); "
            "nothing written"
        ) from error
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise ArchiveError(
            f"{path}: the archive's lock file is not a regular file; nothing written"
        )
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield True
    finally:
        os.close(descriptor)  # closing releases the lock
