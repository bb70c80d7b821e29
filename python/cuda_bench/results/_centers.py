"""What :meth:`SubBenchmarkResult.centers` returns: estimates keyed by ``state.name()``.

NVIDIA's result scripts look a state up by its name (``medians[state.name()]``), and its
reader keys ``centers()`` the same way. A state's name has no device in it, so in a file
where the benchmark ran on several devices the states of one axis point share a name.
NVIDIA's reader then keeps the last device's value under it and loses the others. Ours
keeps the same key and value, so such scripts run unchanged and print what NVIDIA's
prints, but loses nothing:

* ``centers[f"Device={id} {name}"]`` (the state's :attr:`~SubBenchmarkState.center_key`)
  gives each device's value;
* :meth:`Centers.by_device` gives every device's values, keyed by device id;
* a warning, once per call, says that names were shared and where the others are.

Iteration, ``len`` and ``in`` see the names only, as NVIDIA's dictionary does.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from typing import TypeVar

__all__ = ["Centers", "SharedStateNamesWarning", "make_centers"]

ResultT = TypeVar("ResultT")


class SharedStateNamesWarning(UserWarning):
    """States of several devices share names: a name keys the last device's value."""


class Centers(dict[str, "ResultT | None"]):
    """``state.name()`` → estimate; see the module doc for several devices."""

    __slots__ = ("_by_device", "_device_keys")

    def __init__(
        self,
        items: Sequence[tuple[str, ResultT | None]],
        by_device: Mapping[int | None, Mapping[str, ResultT | None]],
        device_keys: Mapping[str, ResultT | None],
    ) -> None:
        super().__init__(items)
        self._by_device = {device: dict(values) for device, values in by_device.items()}
        self._device_keys = dict(device_keys)

    def __missing__(self, key: str) -> ResultT | None:
        # ``Device=<id> <name>``: one device's value where devices share the name.
        if key in self._device_keys:
            return self._device_keys[key]
        raise KeyError(key)

    def by_device(self) -> dict[int | None, dict[str, ResultT | None]]:
        """Device id (``None`` for CPU-only states) → ``state.name()`` → estimate."""
        return {device: dict(values) for device, values in self._by_device.items()}


def make_centers(
    entries: Sequence[tuple[str, int | None, ResultT | None]], benchmark: str
) -> Centers[ResultT]:
    """The :class:`Centers` of one benchmark's states, given as (name, device, estimate)."""
    by_device: dict[int | None, dict[str, ResultT | None]] = {}
    for name, device, value in entries:
        by_device.setdefault(device, {})[name] = value
    items = [(name, value) for name, _, value in entries]
    shared = len({name for name, _, _ in entries}) < len(entries)
    device_keys: dict[str, ResultT | None] = {}
    if shared:
        device_keys = {
            f"Device={device} {name}".rstrip(): value
            for name, device, value in entries
            if device is not None
        }
        devices = ", ".join(str(d) for d in by_device if d is not None)
        warnings.warn(
            f"benchmark {benchmark!r}: states of devices {devices} share names; "
            "centers()[state.name()] holds the last device's value, as NVIDIA's reader "
            "does; centers()[state.center_key] or centers().by_device() give every device's",
            SharedStateNamesWarning,
            stacklevel=_caller_level(),
        )
    return Centers(items, by_device, device_keys)


def _caller_level() -> int:
    """The ``stacklevel`` that points a warning made in this package at the code that
    called into it: ``BenchmarkResult.centers`` calls ``SubBenchmarkResult.centers``, so
    a fixed level named library code for one of the two entry points."""
    import sys

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    level, frame = 1, sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        level += 1
        frame = frame.f_back  # type: ignore[assignment]
    return level
