"""Interpreter tuning for a command-line program that owns its process.

The library never changes process-wide state: :func:`cuda.bench.compare.compare` and every
``main(argv)`` leave the garbage collector as they found it. A program run from the console
owns its process until it exits, so its entry points (the console scripts,
``python -m cuda.bench.compare`` and ``python/scripts``) wrap the run in
:func:`tuned_process`; a caller of ``main(argv)`` in its own process does not get it.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["tuned_process"]


@contextlib.contextmanager
def tuned_process() -> Iterator[None]:
    """The cycle collector paused for the run, and what the run built frozen at its end.

    A comparison builds millions of objects that are never garbage (decoded records, rows,
    table cells); collector passes over them find nothing and only cost time. When the
    program ends, the interpreter's final collection would walk everything still alive and
    free it object by object; frozen, it is left for the operating system to reclaim with
    the process. Hence for an entry point whose process exits next, never for a library
    call: the collector is enabled again as it was, but the objects stay frozen.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if collecting:
            gc.enable()
