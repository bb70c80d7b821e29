"""Inputs that are no regular files: named pipes, sockets, devices, and the pipes a shell or
a parent process hands over.

A named pipe (FIFO) that nothing writes to holds ``open`` for good, a socket cannot be
opened, and a device (``/dev/null``, ``/dev/zero``, a terminal behind ``/dev/stdin``) holds
no input. The readers refuse such a file unopened (:func:`special_file_problem`), except a
pipe handed over (``/dev/stdin``, ``/dev/fd/N``, ``<(command)``), whose writer holds it open
already, and they open without blocking (:func:`open_nonblocking`): what took the place of a
checked file since cannot hold a read up either. Shared by the result reader, the side-file
reader and the reader of small inputs (:mod:`._read_small`) alike.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from typing import BinaryIO

__all__ = [
    "SpecialFileError",
    "handed_over_pipe",
    "open_nonblocking",
    "open_regular",
    "special_file_problem",
]

#: What :func:`special_file_problem` calls each kind of file it refuses.
_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)
#: The folders of a process's open descriptors, links resolved: ``/proc/PID/fd`` (a
#: thread's ``/proc/PID/task/TID/fd``), and ``/dev/fd`` where it is a folder of its own.
_DESCRIPTORS = re.compile(r"/proc/\d+(?:/task/\d+)?/fd|/dev/fd")
#: The most links followed (the system's own limit on a path's links is 40).
_MAX_LINKS = 40


def special_file_problem(path: str | os.PathLike[str]) -> str | None:
    """Why the input at ``path`` is not read, found without opening it: ``not a regular file
    but a named pipe (FIFO); not read`` (``a socket``, ``a character device``, ...) for what
    exists and is no regular file or folder, unless a pipe handed over
    (:func:`handed_over_pipe`); ``None`` for anything else (gone, or no path at all: the
    read words it)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    if stat.S_ISFIFO(mode) and handed_over_pipe(path):
        return None
    what = next((name for test, name in _SPECIAL_KINDS if test(mode)), "a special file")
    return f"not a regular file but {what}; not read"


def unread_entry_problem(path: str | os.PathLike[str]) -> str | None:
    """Why a folder's entry named like a result file is not read, found without opening
    it: a link to no file, or what is no regular file (:func:`special_file_problem`);
    ``None`` for a regular file or a folder. What every reader of a folder of runs says of
    such an entry, rather than passing it over."""
    from ._errors import missing_file_problem

    if not os.path.exists(path):
        return f"{missing_file_problem(path)}; left out"
    if os.path.isfile(path) or os.path.isdir(path):
        return None
    return special_file_problem(path) or "not a regular file; not read"


def handed_over_pipe(path: str | os.PathLike[str]) -> bool:
    """Whether the pipe at ``path`` is one a descriptor already holds open: its links lead
    through a folder of open descriptors (``/dev/stdin`` is ``/proc/self/fd/0``;
    ``/dev/fd/N``, ``<(command)``), where the shell or a parent process opened it, an
    unnamed pipe or a named one alike (``cmd /dev/stdin < fifo``: the shell's open waited
    for the writer). Where the links end on a named pipe in a folder, nothing opened it."""
    current = os.path.abspath(path)
    for _ in range(_MAX_LINKS):
        folder = os.path.dirname(current)
        try:
            if _DESCRIPTORS.fullmatch(os.path.realpath(folder)):
                return True
            target = os.readlink(current)
        except (OSError, ValueError):
            return False  # no link (or none left): the chain ends outside such a folder
        current = os.path.join(folder, target)
    return False


def open_nonblocking(path: str, flags: int) -> int:
    """``os.open`` that returns at once for a named pipe without a writer (an ``opener``
    for :func:`open`). A regular file reads as ever; a pipe reads without waiting, unless
    the caller sets its descriptor blocking again."""
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0))


class SpecialFileError(OSError):
    """An input that is no regular file, refused: its ``strerror`` says why
    (:func:`special_file_problem`), and names no file (the caller's line does)."""

    def __init__(self, problem: str) -> None:
        super().__init__(errno.EINVAL, problem)


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for reading, without blocking, as long as it is a regular file:
    for reads after a check that it was one, which what took its place since (a named
    pipe, a device) cannot hold up. :class:`SpecialFileError` for what is none, else
    :class:`OSError` as :func:`open` raises it."""
    handle = open(path, "rb", opener=open_nonblocking)  # noqa: SIM115 (returned open)
    try:
        mode = os.fstat(handle.fileno()).st_mode
    except OSError:
        handle.close()
        raise
    if not stat.S_ISREG(mode):
        handle.close()
        raise SpecialFileError(special_file_problem(path) or "not a regular file; not read")
    return handle
