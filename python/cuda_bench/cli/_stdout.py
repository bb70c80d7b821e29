"""Standard output named in its own write errors, for the command-line entry points.

``nvbench-history trend > /dev/full`` failed with ``error: No space left on device``: a
write error on a stream carries no file name, so the one line on stderr could not say which
output failed. While a command runs, :func:`named_stdout` puts a thin stand-in on
``sys.stdout`` whose ``write`` and ``flush`` give such an error the name "standard output",
and flushes before it returns, so that the error surfaces inside the command (exit status 2,
one line), not in the interpreter's last flush. A broken pipe (the reader left early) stays
as it is: the callers treat it apart.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any, TextIO

__all__ = ["STDOUT_NAME", "named_stdout"]

#: How an error message names standard output.
STDOUT_NAME = "standard output"


def _named(error: OSError) -> OSError:
    if error.filename is not None or isinstance(error, BrokenPipeError):
        return error
    return OSError(error.errno, error.strerror, STDOUT_NAME)


class _Named:
    """``stream`` with its write errors named (module docstring); all else passes through."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as error:
            named = _named(error)
            if named is error:
                raise
            raise named from error

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as error:
            named = _named(error)
            if named is error:
                raise
            raise named from error

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def named_stdout() -> Iterator[None]:
    """Run the body with ``sys.stdout`` naming its write errors, flushed at the end."""
    original = sys.stdout
    if original is None:
        yield
        return
    sys.stdout = _Named(original)
    try:
        yield
        sys.stdout.flush()
    finally:
        sys.stdout = original
