"""Writing output files atomically: a temporary file beside the target, then a rename."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

__all__ = ["atomic_path", "write_bytes", "write_text"]


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike[str], suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``target``; rename it onto ``target`` on success.

    Nothing half-written is ever visible under ``target``: on an exception the temporary
    file is removed and ``target`` keeps its previous content (or stays absent). Missing
    parent directories are created.
    """
    import tempfile  # here: it imports shutil and compression modules a run may not need

    final = Path(target)
    final.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(
        prefix=f".{final.name}.", suffix=suffix or ".tmp", dir=final.parent
    )
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
        # mkstemp makes the file private (0600) and the rename would carry that over: give
        # it the permissions a plain open() would (an existing file keeps its own).
        os.chmod(temporary, _file_mode(final))
        os.replace(temporary, final)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


def _file_mode(target: Path) -> int:
    """The mode of the existing ``target``, else ``0o666`` less the process umask."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        pass
    # The only portable way to read the umask is to set it; restore it at once.
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def _write(target: str | os.PathLike[str], writer: Callable[[IO[bytes]], None]) -> None:
    with atomic_path(target) as temporary, open(temporary, "wb") as stream:
        writer(stream)


def write_bytes(target: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``target`` atomically; ``-`` writes to standard output."""
    if os.fspath(target) == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return

    def dump(stream: IO[bytes]) -> None:
        stream.write(data)

    _write(target, dump)


def write_text(target: str | os.PathLike[str], text: str) -> None:
    """Write UTF-8 ``text`` to ``target`` atomically; ``-`` writes to standard output."""
    if os.fspath(target) == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    write_bytes(target, text.encode("utf-8"))
