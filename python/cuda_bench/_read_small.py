"""Reading the small files a tool is pointed at besides its results (a comparison config,
a calibration, an ``ab`` manifest, a gate report) without reading forever.

A regular file is read whole, as a result file is. Anything else (``/dev/zero``, a FIFO, a
shell's ``<(...)``) has no size to check first, so it is read up to :data:`MAX_SMALL_BYTES`
and refused beyond that: ``--calibration /dev/zero`` must end with one line, not fill the
memory (docs/security.md, limits).
"""

from __future__ import annotations

import errno
import os
import stat

__all__ = ["MAX_SMALL_BYTES", "read_small"]

#: The most bytes read from such an input that is not a regular file: room for the
#: calibration of a suite of tens of thousands of states (docs/security.md, limits).
MAX_SMALL_BYTES = 16 << 20
_CHUNK = 1 << 20


def read_small(path: str | os.PathLike[str], limit: int = MAX_SMALL_BYTES) -> bytes:
    """The bytes of ``path``: a regular file whole, anything else up to ``limit`` bytes.

    Raises :class:`OSError` as :func:`open` does, and one with ``errno.EFBIG`` whose
    ``strerror`` says why for an input that is not a regular file and longer than ``limit``.
    """
    with open(path, "rb") as handle:
        if stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return handle.read()
        chunks: list[bytes] = []
        total = 0
        while chunk := handle.read(_CHUNK):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise OSError(
                    errno.EFBIG, f"not a regular file, and longer than {limit} bytes; not read"
                )
        return b"".join(chunks)
