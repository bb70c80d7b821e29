"""Reading the small files a tool is pointed at besides its results (a comparison config,
a calibration, an ``ab`` manifest, a gate report) without reading forever or waiting for good.

A regular file is read whole, as a result file is, up to a size (that of a pipe, unless
the caller gives another). A named pipe, a socket or a device is
refused unopened, as a result file is (:mod:`._special_files`): a FIFO that nothing writes
to held ``--config`` and ``--calibration`` in ``open`` for good, and ``/dev/zero`` holds no
config. A pipe the shell hands over (``/dev/stdin``, ``/dev/fd/N``, ``<(...)``) has no size
to check first, so it is read up to :data:`MAX_SMALL_BYTES` and refused beyond that
(docs/security.md, limits).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable

from ._special_files import SpecialFileError, open_nonblocking, special_file_problem

__all__ = ["MAX_SMALL_BYTES", "read_small"]

#: The most bytes read from such an input that is not a regular file: room for the
#: calibration of a suite of tens of thousands of states (docs/security.md, limits).
MAX_SMALL_BYTES = 16 << 20
_CHUNK = 1 << 20


def read_small(
    path: str | os.PathLike[str],
    limit: int = MAX_SMALL_BYTES,
    *,
    first_chunk: Callable[[bytes], None] | None = None,
    regular_limit: int | None = None,
) -> bytes:
    """The bytes of ``path``: a regular file whole, a pipe handed over up to ``limit`` bytes.

    Raises :class:`OSError` as :func:`open` does; :class:`~._special_files.SpecialFileError`
    for a named pipe, socket or device, unopened; and one with ``errno.EFBIG`` for a pipe
    longer than ``limit``. Each one's ``strerror`` says why, naming no file.
    ``first_chunk`` sees the first chunk (of a regular file or a pipe) before more is read,
    and may raise to refuse it at once (the result reader: no JSON object starts there; a
    sparse file of gigabytes of zeros was read whole first). A regular file larger than
    ``regular_limit`` (default ``limit``) is refused too (``errno.EFBIG``), unread, and
    one that grows past it while read is refused when it does.
    """
    problem = special_file_problem(path)
    if problem is not None:
        raise SpecialFileError(problem)
    # Without blocking: what took the place of the checked file since cannot hold it up.
    with open(path, "rb", opener=open_nonblocking) as handle:
        status = os.fstat(handle.fileno())
        if stat.S_ISREG(status.st_mode):
            cap = limit if regular_limit is None else regular_limit
            if status.st_size > cap:
                raise _too_large(status.st_size, cap)
            if first_chunk is not None:
                first_chunk(os.pread(handle.fileno(), _CHUNK, 0))
            # Its size, then what it grew by since (in pieces: read(n) makes room for n
            # bytes first, so a read of up to the cap would take the cap for every file).
            pieces = [handle.read(status.st_size)]
            total = len(pieces[0])
            while piece := handle.read(_CHUNK):
                pieces.append(piece)
                total += len(piece)
                if total > cap:
                    raise _too_large(total, cap)
            return pieces[0] if len(pieces) == 1 else b"".join(pieces)
        problem = special_file_problem(path)  # checked again: it may have changed since
        if problem is not None:
            raise SpecialFileError(problem)
        os.set_blocking(handle.fileno(), True)  # a pipe with a writer: wait for its data
        chunks: list[bytes] = []
        total = 0
        while chunk := handle.read(_CHUNK):
            if not chunks and first_chunk is not None:
                first_chunk(chunk)
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise OSError(
                    errno.EFBIG, f"not a regular file, and longer than {limit} bytes; not read"
                )
        return b"".join(chunks)


def _too_large(size: int, cap: int) -> OSError:
    return OSError(
        errno.EFBIG,
        f"{size / 2**20:.1f} MiB, more than the {cap / 2**20:g} MiB such an input may hold; "
        "not read",
    )
