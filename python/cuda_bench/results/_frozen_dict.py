"""A dict that refuses changes: the parts of a loaded result.

NVIDIA's reader hands out plain dicts (``state.summaries``, a summary's or a device's
``data``, ``result.devices``, ``result.subbenches``), and scripts written for it pass them to
``json.dumps`` or test ``isinstance(x, dict)``; a :class:`types.MappingProxyType` fails both.
A change through one of them, though, made the result contradict itself (a summary's value
unlike ``state.value(tag)``, a popped summary that ``state.summary(tag)`` then lacked). So
they are dicts whose mutating methods raise :class:`TypeError`: everything that reads a dict
still does, and ``dict(x)`` is the copy to change.
"""

from __future__ import annotations

import copy
from typing import Any, NoReturn, TypeVar

__all__ = ["FrozenDict"]

_K = TypeVar("_K")
_V = TypeVar("_V")


class FrozenDict(dict[_K, _V]):
    """A :class:`dict` that cannot be changed in place (module docstring)."""

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("a loaded result's parts are read-only; change a copy (dict(...)) instead")

    # Each mutating method of dict (their signatures are typeshed's overloads; every one
    # of them refuses alike).
    __setitem__ = _refuse
    __delitem__ = _refuse
    __ior__ = _refuse
    clear = _refuse
    pop = _refuse
    popitem = _refuse
    setdefault = _refuse
    update = _refuse

    def __reduce__(self) -> tuple[type[FrozenDict[_K, _V]], tuple[dict[_K, _V]]]:
        # pickle rebuilds a dict subclass item by item (through __setitem__): by contents.
        return type(self), (dict(self),)

    # Copies stay read-only, as the result they come from (a deep copy of a whole result
    # with plain dicts inside could be made to contradict itself); dict(x) is the copy to
    # change.
    def __copy__(self) -> FrozenDict[_K, _V]:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict[_K, _V]:
        return FrozenDict(
            (copy.deepcopy(key, memo), copy.deepcopy(value, memo)) for key, value in self.items()
        )
