"""Writing output files without ever replacing what the user pointed at.

A regular file is written atomically: a temporary file beside it, then a rename, so nothing
half-written is ever visible. What is not a regular file is never replaced:

* a symbolic link is followed, and its final target written (atomically when that is a
  regular file or absent); the link itself stays;
* a character device, FIFO or socket, and ``/dev/fd/N``, ``/dev/stdout`` or
  ``/proc/<pid>/fd/N`` (a shell's ``>(cat)``), are opened and written directly: a rename
  there would swap the system's device link or the pipe for a plain file.

A target in a directory that does not exist is an error (:class:`FileNotFoundError` naming
the directory), never a silently created directory. An existing file without any write
permission (mode 0444) is an error too (:class:`PermissionError`), as it would be for a
plain ``open()``: a rename would replace it silently, even for a user who may not write it.

Files a tool names itself inside a folder of its own (``--output-dir``, a history site)
are written with :func:`write_owned`: a symbolic link planted there is replaced, never
written through.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

__all__ = [
    "Destination",
    "atomic_path",
    "check_destination",
    "check_writable",
    "probe_folder",
    "write_bytes",
    "write_owned",
    "write_text",
]

#: Symbolic links followed at most (the kernel's own limit for one path lookup).
_MAX_LINKS = 40


class Destination(NamedTuple):
    """Where an output really goes: the path to write, and whether to write it in place."""

    path: Path
    direct: bool


def _is_descriptor_path(path: str) -> bool:
    """``/dev/fd/N``, ``/dev/std{in,out,err}`` or ``/proc/<pid>/fd/N``: an open descriptor."""
    parts = Path(os.path.normpath(path)).parts
    if parts[:3] == ("/", "dev", "fd"):
        return True
    if len(parts) == 3 and parts[:2] == ("/", "dev"):
        return parts[2] in ("stdin", "stdout", "stderr")
    return len(parts) == 5 and parts[:2] == ("/", "proc") and parts[3] == "fd"


def check_destination(target: str | os.PathLike[str]) -> Destination:
    """Where writing ``target`` goes (see the module doc); raises :class:`FileNotFoundError`
    when the directory it would be created in does not exist, :class:`OSError` for a link
    loop."""
    path = os.path.abspath(os.fspath(target))
    for _ in range(_MAX_LINKS):
        if _is_descriptor_path(path):
            return Destination(Path(path), True)
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            break
        if not stat.S_ISLNK(info.st_mode):
            return Destination(Path(path), not stat.S_ISREG(info.st_mode))
        link = os.readlink(path)
        path = os.path.normpath(os.path.join(os.path.dirname(path), link))
    else:
        raise OSError(errno.ELOOP, "too many levels of symbolic links", os.fspath(target))
    parent = os.path.dirname(path)
    if not os.path.isdir(parent):
        raise FileNotFoundError(
            errno.ENOENT, f"directory '{parent}' does not exist", os.fspath(target)
        )
    return Destination(Path(path), False)


def check_writable(target: str | os.PathLike[str]) -> Destination:
    """:func:`check_destination`, and for a file written by rename whether it can be: not
    a directory, not read-only, and a temporary file can be made beside it (made and
    removed at once). For the checks a command makes before its work, so that an output
    it cannot write (``/proc/x.csv``, a directory without write permission) is found before
    any other output is written: a failed run left a complete-looking report behind."""
    destination = check_destination(target)
    final = destination.path
    if final.is_dir():
        raise IsADirectoryError(errno.EISDIR, "Is a directory", os.fspath(target))
    if destination.direct:
        # A descriptor that is not open (/dev/fd/7; /dev/stdout with stdout closed) is no
        # file to write in place: found now, not after the work.
        with _cannot_be_written(target):
            os.stat(final)
        return destination
    _refuse_read_only(final, target)
    probe_folder(final.parent, target)
    return destination


def probe_folder(
    folder: str | os.PathLike[str], named: str | os.PathLike[str] | None = None
) -> None:
    """Whether a new file can be made in ``folder`` (one is made and removed at once):
    :class:`OSError` ``cannot be written (...)`` naming ``named`` (default: the folder),
    worded as a failed write is (:func:`~cuda.bench.cli._common.writing_output`)."""
    with _cannot_be_written(folder if named is None else named):
        _new_file_beside(Path(folder) / ".nvbench-probe", ".tmp", 0o600).unlink()


@contextlib.contextmanager
def _cannot_be_written(shown: str | os.PathLike[str]) -> Iterator[None]:
    """An :class:`OSError` inside becomes ``cannot be written (reason)`` naming ``shown``."""
    try:
        yield
    except OSError as error:
        reason = error.strerror or str(error)
        raise OSError(error.errno, f"cannot be written ({reason})", os.fspath(shown)) from None


def _refuse_read_only(final: Path, shown: str | os.PathLike[str]) -> int | None:
    """The permission bits of the existing ``final`` (``None`` when there is none); a file
    without any write permission (mode 0444) is refused, as a plain ``open()`` would not
    write it (a rename would replace it, silently)."""
    existing = _existing_mode(final)
    if existing is not None and not existing & 0o222:
        raise PermissionError(errno.EACCES, "is read-only; not replaced", os.fspath(shown))
    return existing


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike[str], suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path to write; on success its content goes to ``target``.

    For a regular (or absent) target, the temporary file sits beside it and is renamed onto
    it: nothing half-written is ever visible, and on an exception the temporary file is
    removed and ``target`` keeps its previous content (or stays absent). A link is followed
    to its target; a device, FIFO or descriptor path gets the content copied in, once
    complete (see the module doc).
    """
    with _atomic(check_destination(target), suffix) as temporary:
        yield temporary


@contextlib.contextmanager
def _atomic(destination: Destination, suffix: str) -> Iterator[Path]:
    """:func:`atomic_path` for a destination already checked."""
    import tempfile  # here: it imports shutil and compression modules a run may not need

    final = destination.path
    if destination.direct:
        with tempfile.TemporaryDirectory(prefix="nvbench-output-") as directory:
            temporary = Path(directory) / f"output{suffix or '.tmp'}"
            yield temporary
            _write_in_place(final, temporary.read_bytes())
        return
    # A new file gets the permissions a plain open() gives; the replacement of an existing
    # one stays private while it is written and then takes the existing file's permissions.
    private = _refuse_read_only(final, final) is not None
    temporary = _new_file_beside(final, suffix or ".tmp", 0o600 if private else 0o666)
    try:
        yield temporary
        mode = _existing_mode(final)
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, final)
    except BaseException as error:
        with contextlib.suppress(OSError):
            temporary.unlink()
        if isinstance(error, OSError) and error.filename == os.fspath(temporary):
            # The hidden temporary's name means nothing to the user: name the output.
            error.filename, error.filename2 = os.fspath(final), None
        raise


def _new_file_beside(final: Path, suffix: str, mode: int) -> Path:
    """Create an empty file with a fresh hidden name beside ``final``.

    Created with ``O_EXCL`` and ``mode``, which the kernel reduces by the umask (or a
    directory's default ACL) as for any new file: the umask is never read, because reading
    it means setting it, process-wide state that other threads would see changed.
    """
    import secrets  # here, as tempfile above: only writing a file needs it

    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        path = final.parent / f".{final.name}.{secrets.token_hex(4)}{suffix}"
        try:
            os.close(os.open(path, flags, mode))
        except FileExistsError:
            continue
        except OSError as error:
            # A directory no one may write (``/proc``, read-only): the error names the
            # output, not the hidden temporary name it was never created under.
            error.filename = os.fspath(final)
            raise
        return path
    raise FileExistsError(errno.EEXIST, "no unused temporary name", os.fspath(final.parent))


def _write_in_place(path: Path, data: bytes) -> None:
    """Write ``data`` into an existing device, FIFO or descriptor (never created, never
    replaced)."""
    try:
        with open(path, "wb") as stream:
            stream.write(data)
    except OSError as error:
        # A write's own error names no file ("No space left on device"): say which output.
        if error.filename is None:
            error.filename = os.fspath(path)
        raise


def _existing_mode(target: Path) -> int | None:
    """The permission bits of the existing ``target``, or ``None`` when there is none."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        return None


def write_bytes(target: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``target`` (see the module doc); ``-`` writes to standard output."""
    if os.fspath(target) == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    destination = check_destination(target)
    if destination.direct:
        _write_in_place(destination.path, data)
        return
    with _atomic(destination, "") as temporary:
        temporary.write_bytes(data)


def write_owned(target: str | os.PathLike[str], text: str) -> None:
    """Write UTF-8 ``text`` to ``target``, a file the tool names inside its own output
    folder: atomically, and a symbolic link found there is replaced by the file rather than
    followed (someone may have planted it to make the tool write elsewhere). Anything there
    that is neither a regular file nor a link is an error."""
    path = Path(os.path.abspath(os.fspath(target)))
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    if info is not None and not (stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)):
        raise IsADirectoryError(errno.EISDIR, "is not a regular file; not replaced", str(path))
    if not path.parent.is_dir():
        raise FileNotFoundError(
            errno.ENOENT, f"directory '{path.parent}' does not exist", os.fspath(target)
        )
    if info is not None and stat.S_ISLNK(info.st_mode):
        path.unlink()  # the link itself, never its target
    with _atomic(Destination(path, False), "") as temporary:
        temporary.write_bytes(text.encode("utf-8"))


def write_text(target: str | os.PathLike[str], text: str) -> None:
    """Write UTF-8 ``text`` to ``target`` (see the module doc); ``-`` writes to standard
    output."""
    if os.fspath(target) == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    write_bytes(target, text.encode("utf-8"))
