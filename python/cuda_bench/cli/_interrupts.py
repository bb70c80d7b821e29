"""Whether Ctrl-C came while a command ran, whoever caught it.

Python turns SIGINT into :class:`KeyboardInterrupt`, which :func:`._common.run` reports as
``interrupted`` with exit status 130. But a library in the middle of its own work may catch
it: DuckDB stops the query and raises ``RuntimeError: Query interrupted`` in its place
(``nvbench-history gate`` ended with that traceback and exit status 1, which CI reads as a
regression found), or drops it when the query ends anyway (the command then went on and
exited 0). While a command runs, :func:`watching_interrupts` puts a handler on SIGINT that
notes the interrupt before it raises Python's :class:`KeyboardInterrupt`, so that ``run``
can end the command as interrupted whatever became of the exception.

Where SIGINT is not Python's default (ignored, as for a job started in the background, or
a handler of the caller's) it is left as it is; so it is outside the main thread, where no
handler can be set.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from types import FrameType

__all__ = ["Interrupts", "watching_interrupts"]


class Interrupts:
    """Whether SIGINT came (:attr:`seen`) while :func:`watching_interrupts` watched."""

    def __init__(self) -> None:
        self.seen = False


@contextlib.contextmanager
def watching_interrupts() -> Iterator[Interrupts]:
    """Note every SIGINT while the body runs (module docstring); the handler before is put
    back at the end."""
    watch = Interrupts()
    previous = signal.getsignal(signal.SIGINT)
    installed = False
    if previous is signal.default_int_handler:

        def noted(signum: int, frame: FrameType | None) -> None:
            watch.seen = True
            signal.default_int_handler(signum, frame)

        try:
            signal.signal(signal.SIGINT, noted)
            installed = True
        except ValueError:  # not the main thread: no handler can be set there
            pass
    try:
        yield watch
    finally:
        if installed:
            signal.signal(signal.SIGINT, previous)
