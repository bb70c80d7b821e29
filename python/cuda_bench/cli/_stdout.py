"""Standard output named in its own write errors, for the command-line entry points.

``nvbench-history trend > /dev/full`` failed with ``error: No space left on device``: a
write error on a stream carries no file name, so the one line on stderr could not say which
output failed. While a command runs, :func:`named_stdout` puts a thin stand-in on
``sys.stdout`` whose ``write`` and ``flush`` give such an error the name "standard output",
and flushes before it returns, so that the error surfaces inside the command (exit status 2,
one line), not in the interpreter's last flush. A broken pipe (the reader left early) stays
as it is: the callers treat it apart.

``--help > /dev/full`` exited 0 without a word: argparse drops the write errors of its help
(``ArgumentParser._print_message``) and ends the run with ``SystemExit``, past the final
flush. The stand-in therefore remembers the first write error it named, and a run that
ends, by ``SystemExit`` too, after one was dropped raises it all the same.

A closed standard output (``nvbench-history trend >&-``) leaves Python's ``sys.stdout``
``None``: ``print`` then writes nothing without a word, and ``sys.stdout.write`` ended the
run with an ``AttributeError`` traceback and exit status 1, which CI reads as a regression
found. While a command runs, such a stdout is a stand-in too, whose writes fail as a
closed descriptor's do, named: a command that has something to print exits 2 with one line
("standard output: closed"), as for a full disk.
"""

from __future__ import annotations

import contextlib
import errno
import sys
from collections.abc import Iterator
from typing import Any, TextIO

__all__ = ["STDOUT_NAME", "named_stdout"]

#: How an error message names standard output.
STDOUT_NAME = "standard output"


def _closed() -> OSError:
    return OSError(errno.EBADF, "closed (Bad file descriptor)", STDOUT_NAME)


class _Closed:
    """What stands for a closed standard output: every write fails as a closed
    descriptor's (``EBADF``), named; nothing is a terminal, and there is nothing to flush."""

    def write(self, text: object) -> int:
        raise _closed()

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise _closed()

    @property
    def buffer(self) -> _Closed:
        """The binary stream under it (``_io.write_bytes``): closed as well."""
        return self


def _named(error: OSError) -> OSError:
    if error.filename is not None or isinstance(error, BrokenPipeError):
        return error
    return OSError(error.errno, error.strerror, STDOUT_NAME)


class _Named:
    """``stream`` with its write errors named (module docstring); all else passes through."""

    def __init__(self, stream: TextIO | _Closed) -> None:
        self._stream = stream
        #: The first write error named (module docstring), whoever caught it.
        self.failed: OSError | None = None

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as error:
            named = self._name(error)
            if named is error:
                raise
            raise named from error

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as error:
            named = self._name(error)
            if named is error:
                raise
            raise named from error

    def _name(self, error: OSError) -> OSError:
        named = _named(error)
        if named.filename == STDOUT_NAME and self.failed is None:
            self.failed = named
        return named

    def finish(self) -> None:
        """Flush, and raise the first named write error, also one a caller dropped."""
        self.flush()
        if self.failed is not None:
            raise self.failed

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def named_stdout() -> Iterator[None]:
    """Run the body with ``sys.stdout`` naming its write errors, flushed at the end; a
    closed one (``None``) fails every write (module docstring)."""
    original = sys.stdout
    stand_in = _Named(_Closed() if original is None else original)
    sys.stdout = stand_in
    try:
        try:
            yield
        except SystemExit:
            # --help, --version: argparse may have dropped a write error (module docstring).
            with contextlib.suppress(BrokenPipeError):
                stand_in.finish()
            raise
        stand_in.finish()
    finally:
        sys.stdout = original
