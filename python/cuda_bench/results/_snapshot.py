"""A result file as it was when read: its identity then, and reads that refuse a changed file.

Some results read part of their file later: a benchmark read benchmark by benchmark
decodes its states when first used, and slim summaries get their names and descriptions
from the file when first asked for. Such a later read must give the bytes the first read
saw, or the states would answer with numbers other than those a comparison judged. The
file's identity (device, inode, size, modification time) is recorded when it is first
read, and a later read that finds another identity raises instead of reading. Reads go
through a file object, never a memory map: a map of a file that another process
truncates kills the reading process with ``SIGBUS``.
"""

from __future__ import annotations

import os

import msgspec

from .._special_files import open_nonblocking
from ._errors import ResultFileNotFoundError, ResultFormatError

__all__ = ["FileIdentity", "read_unchanged"]


class FileIdentity(msgspec.Struct, frozen=True, gc=False):
    """What tells one version of a file from another: replaced (``os.replace``) gives
    another inode, rewritten in place another size or modification time."""

    device: int
    inode: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, descriptor: int) -> FileIdentity:
        """The identity of the open file ``descriptor``."""
        return cls._of_stat(os.fstat(descriptor))

    @classmethod
    def at(cls, path: str | os.PathLike[str]) -> FileIdentity | None:
        """The identity of the file now at ``path``; ``None`` when there is none."""
        try:
            return cls._of_stat(os.stat(path))
        except OSError:
            return None

    @classmethod
    def _of_stat(cls, stat: os.stat_result) -> FileIdentity:
        return cls(stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)


def read_unchanged(
    path: str | os.PathLike[str],
    identity: FileIdentity,
    label: str | None,
    offset: int = 0,
    length: int | None = None,
) -> bytes:
    """``length`` bytes of ``path`` from ``offset`` (to the end without ``length``), as
    long as the file still has ``identity``; :class:`ResultFormatError` naming ``label``
    when it changed (checked before and after reading) or went away."""
    name = label if label is not None else os.fspath(path)
    try:
        # Without blocking: a named pipe put in the file's place would hold ``open`` up;
        # opened, it has another identity.
        with open(path, "rb", opener=open_nonblocking) as handle:
            if FileIdentity.of(handle.fileno()) != identity:
                raise _changed(name)
            handle.seek(offset)
            wanted = identity.size - offset if length is None else length
            data = handle.read(wanted)
            if len(data) != wanted or FileIdentity.of(handle.fileno()) != identity:
                raise _changed(name)
    except FileNotFoundError:
        raise ResultFileNotFoundError(name) from None
    except OSError as error:
        raise ResultFormatError(name, f"cannot read file: {error.strerror}") from error
    return data


def _changed(label: str) -> ResultFormatError:
    return ResultFormatError(
        label, "changed since it was read; read it again to use what it holds now"
    )
