"""Independent chunks of work spread over forked worker processes.

A comparison's rows are independent of each other, and with side files each costs
milliseconds of sorting and resampling, which threads cannot share: the work is many
small numpy calls with Python in between, which holds the GIL (two threads measured
slower than one). :func:`fork_map` runs the first chunk in the calling
process and each other chunk in a child made by ``fork``, so the children start with
everything the parent has loaded, without pickling it; only their results come back,
pickled through a pipe. :func:`fork_dispatch` shares items out through a common queue
instead, so that a process on a slower CPU takes fewer of them.

The answer is the one a serial loop gives: the same function runs on the same chunks and
the results come back in chunk order. An exception is re-raised in the parent in chunk
order too (a chunk whose child fails in any other way, whose result cannot be pickled,
or whose child could not be forked at all, is simply run in the parent). Forking is only
done where it is safe and cheap: on Linux, from a process without other Python threads;
elsewhere, and for one chunk, everything runs in the calling process.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import BinaryIO, TypeVar, cast

__all__ = ["available_cpus", "can_fork", "fork_dispatch", "fork_map", "split_evenly"]

_T = TypeVar("_T")
_R = TypeVar("_R")


def available_cpus(cgroup_root: str = "/sys/fs/cgroup") -> int:
    """CPUs this process may use: its affinity mask (where the platform has one), capped by
    a container's CPU quota (cgroup v2 ``cpu.max``, v1 ``cpu.cfs_quota_us``), which the
    affinity mask does not show: a container limited to two CPUs of a 64-CPU host would
    otherwise fork for 64."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - platforms without affinity
        cpus = os.cpu_count() or 1
    quota = _cgroup_cpu_quota(cgroup_root)
    if quota is not None:
        cpus = min(cpus, max(1, int(quota)))
    return cpus


def _cgroup_cpu_quota(root: str) -> float | None:
    """CPUs' worth of time per period the cgroup allows, or ``None`` without a limit."""
    for quota_file, period_file in (
        ("cpu.max", None),  # v2: "<quota|max> <period>"
        ("cpu/cpu.cfs_quota_us", "cpu/cpu.cfs_period_us"),  # v1: "-1" means none
    ):
        try:
            with open(os.path.join(root, quota_file)) as handle:
                fields = handle.read().split()
            if period_file is not None:
                with open(os.path.join(root, period_file)) as handle:
                    fields.append(handle.read().strip())
        except (OSError, UnicodeDecodeError):
            continue
        try:
            quota, period = float(fields[0]), float(fields[1])
        except (IndexError, ValueError):  # "max": no limit
            return None
        return quota / period if quota > 0 and period > 0 else None
    return None


def can_fork() -> bool:
    """Whether :func:`fork_map` and :func:`fork_dispatch` would use child processes here."""
    # fork() copies only the calling thread: with other threads alive, a lock one of them
    # holds stays locked in the child forever. macOS system libraries are not fork-safe.
    if not sys.platform.startswith("linux"):
        return False
    import threading  # here, like pickle and signal below: most comparisons never fork

    return threading.active_count() == 1


def split_evenly(items: Sequence[_T], parts: int) -> list[Sequence[_T]]:
    """``items`` cut into at most ``parts`` contiguous, non-empty chunks of near-equal size."""
    parts = max(1, min(parts, len(items)))
    size, extra = divmod(len(items), parts)
    chunks: list[Sequence[_T]] = []
    start = 0
    for index in range(parts):
        end = start + size + (index < extra)
        chunks.append(items[start:end])
        start = end
    return chunks


def fork_map(
    work: Callable[[Sequence[_T]], _R],
    chunks: Sequence[Sequence[_T]],
) -> list[_R]:
    """``[work(chunk) for chunk in chunks]``, with every chunk but the first in a child process."""
    if len(chunks) <= 1 or not can_fork():
        return [work(chunk) for chunk in chunks]
    # Children not reaped yet, in chunk order: only these are stopped if the parent fails
    # (a reaped child's pid may already belong to another process).
    children: list[tuple[int, BinaryIO] | None] = []
    try:
        for chunk in chunks[1:]:
            children.append(_spawn(work, chunk))
        results = [work(chunks[0])]
        for chunk in chunks[1:]:
            child = children[0]
            payload = None if child is None else _collect(*child)
            del children[0]
            results.append(_settled(payload, functools.partial(work, chunk)))
        return results
    finally:
        for child in children:
            if child is not None:
                _abandon(*child)


#: Entries of :func:`fork_dispatch`'s queue: their numbers (4 bytes each) are written into
#: a pipe before any process reads, so they must fit the smallest pipe buffer Linux gives
#: (one page); more items are handed out in runs of consecutive items.
_MAX_ENTRIES = 1024
_ENTRY_BYTES = 4


def fork_dispatch(work: Callable[[_T, bool], _R], items: Sequence[_T], processes: int) -> list[_R]:
    """``[work(item, False) for item in items]``, shared out among this process and
    ``processes - 1`` forked children: each takes the next item from a common queue until
    none is left, so a process that runs slower (a busier CPU) simply takes fewer.

    A child calls ``work(item, True)`` (``True``: the result leaves the process, see
    :func:`fork_map` for what may be sent) and sends its results back when the queue is
    empty. As in a serial loop, the first failing item in item order raises, and items a
    child took but did not deliver (it died, or its result could not be pickled) are
    computed here.
    """
    count = len(items)
    if processes <= 1 or count <= 1 or not can_fork():
        return [work(item, False) for item in items]
    run = -(-count // _MAX_ENTRIES)  # items per entry
    entries = -(-count // run)
    try:
        queue, feed = os.pipe()
    except OSError:  # no descriptors left: no queue to share, everything here
        return [work(item, False) for item in items]
    try:
        os.write(feed, b"".join(e.to_bytes(_ENTRY_BYTES, "little") for e in range(entries)))
    finally:
        os.close(feed)  # readers see the end of the queue once it is empty
    children: list[tuple[int, BinaryIO]] = []
    outcomes: dict[int, tuple[bool, object]] = {}
    try:
        for _ in range(min(processes, entries) - 1):
            child = _spawn_taker(work, items, queue, run)
            if child is not None:  # else this process takes its share
                children.append(child)
        outcomes.update(_take_all(work, items, queue, run))
        os.close(queue)
        queue = -1
        while children:
            pid, pipe = children[0]
            payload = _collect(pid, pipe)
            del children[0]
            if isinstance(payload, tuple) and payload[0] and isinstance(payload[1], dict):
                outcomes.update(_unpickled(payload[1]))
    finally:
        if queue >= 0:
            os.close(queue)
        for pid, pipe in children:
            _abandon(pid, pipe)
    return [
        _settled(outcomes.get(index), functools.partial(work, item, False))
        for index, item in enumerate(items)
    ]


def _settled(outcome: tuple[bool, object] | None, here: Callable[[], _R]) -> _R:
    """What a serial loop would have got from one piece of work done in a child: its value,
    its exception raised, or, when the child delivered nothing (it died, or its result could
    not be pickled), the work done ``here``."""
    if outcome is None:
        return here()
    succeeded, value = outcome
    if not succeeded:
        raise cast(BaseException, value)
    return cast(_R, value)


def _take_all(
    work: Callable[[_T, bool], _R], items: Sequence[_T], queue: int, run: int
) -> dict[int, tuple[bool, object]]:
    """Take items from ``queue`` here until it is empty or one fails; outcomes by index."""
    outcomes: dict[int, tuple[bool, object]] = {}
    for index in _taken(queue, run, len(items)):
        try:
            outcomes[index] = (True, work(items[index], False))
        except Exception as error:
            outcomes[index] = (False, error)
            break  # a serial loop would stop here; later items are not needed
    return outcomes


def _taken(queue: int, run: int, count: int) -> Iterator[int]:
    """Indices of the items this process takes from ``queue``, entry by entry (``run``
    consecutive items each) until it is empty. A read of a few bytes from a pipe is atomic:
    every entry goes to exactly one process."""
    while len(taken := os.read(queue, _ENTRY_BYTES)) == _ENTRY_BYTES:
        start = int.from_bytes(taken, "little") * run
        yield from range(start, min(start + run, count))


def _spawn_taker(
    work: Callable[[_T, bool], _R], items: Sequence[_T], queue: int, run: int
) -> tuple[int, BinaryIO] | None:
    """A child that takes items from ``queue`` until it is empty or one fails, and sends
    their outcomes back: each pickled as soon as it is known, so that pickling counts in
    the child's share of the queue instead of keeping the parent waiting at the end."""
    import pickle

    def take(_: Sequence[None]) -> dict[int, bytes]:
        delivered: dict[int, bytes] = {}
        for index in _taken(queue, run, len(items)):
            try:
                outcome: tuple[bool, object] = (True, work(items[index], True))
            except Exception as error:
                outcome = (False, error)
            # What cannot be pickled is left out: the parent computes it again.
            with contextlib.suppress(Exception):
                delivered[index] = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
            if not outcome[0]:
                break
        return delivered

    return _spawn(take, [None])


def _unpickled(delivered: dict[object, object]) -> dict[int, tuple[bool, object]]:
    """A child's outcomes by index; what does not unpickle is left out (computed here)."""
    import pickle

    outcomes: dict[int, tuple[bool, object]] = {}
    for index, data in delivered.items():
        try:
            outcome = pickle.loads(cast(bytes, data))
        except Exception:
            continue
        if isinstance(index, int) and isinstance(outcome, tuple) and len(outcome) == 2:
            outcomes[index] = (bool(outcome[0]), outcome[1])
    return outcomes


def _spawn(work: Callable[[Sequence[_T]], _R], chunk: Sequence[_T]) -> tuple[int, BinaryIO] | None:
    """A child computing ``work(chunk)``: its pid and the pipe its outcome comes through;
    ``None`` when no child could be made (no pipe, or ``fork`` refused: too many
    processes, too little memory), and the work is then this process's."""
    import pickle  # before the fork: the child then has it

    try:
        read_fd, write_fd = os.pipe()
    except OSError:
        return None
    try:
        with warnings.catch_warnings():
            # Python 3.12+ warns about fork() in a process with native threads (numpy's
            # BLAS pool); the child never calls into them.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return None
    if pid == 0:  # pragma: no cover - runs in the child, which leaves through os._exit
        status = 1
        try:
            os.close(read_fd)
            try:
                payload: tuple[bool, object] = (True, work(chunk))
            except Exception as error:
                payload = (False, error)
            data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_fd, "wb") as out:
                out.write(data)
            status = 0
        except BaseException:
            status = 1
        finally:
            # No atexit handlers, no flushing of buffers the parent owns.
            os._exit(status)
    os.close(write_fd)
    # A file object from the start: closing it twice is harmless, unlike a bare descriptor
    # whose number may have been reused meanwhile.
    return pid, os.fdopen(read_fd, "rb")


def _collect(pid: int, pipe: BinaryIO) -> tuple[bool, object] | None:
    """The child's pickled payload, or ``None`` when it did not deliver one; reaps it."""
    import pickle

    chunks: list[bytes] = []
    with pipe:
        while block := pipe.read(1 << 20):
            chunks.append(block)
    _, status = os.waitpid(pid, 0)
    if status != 0 or not chunks:
        return None
    try:
        payload = pickle.loads(b"".join(chunks))
    except Exception:
        return None
    if not (isinstance(payload, tuple) and len(payload) == 2):
        return None
    succeeded, value = payload
    if not succeeded and not isinstance(value, BaseException):
        return None
    return bool(succeeded), value


def _abandon(pid: int, pipe: BinaryIO) -> None:
    """Stop and reap a child whose result is no longer wanted (the parent failed)."""
    import signal

    with contextlib.suppress(OSError):
        pipe.close()
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.waitpid(pid, 0)
