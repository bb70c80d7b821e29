"""A frozen record whose equality, hash and repr leave some fields out.

The comparison's value types are frozen :class:`msgspec.Struct` records: they are built
for every row, and a struct is much cheaper than a frozen dataclass to build and to define
(which every run pays at import; README, "Speed"). A few of them carry fields that are not part of
their identity, e.g. the states behind a row or bootstrap draws: :class:`PartialRecord`
compares, hashes and shows only the other fields, as ``field(compare=False, repr=False)``
does for a dataclass.
"""

from __future__ import annotations

from typing import ClassVar

import msgspec

__all__ = ["PartialRecord"]


class PartialRecord(msgspec.Struct, frozen=True, eq=False):
    """Base of frozen records that leave :attr:`_ignored` out of ``==``, ``hash`` and repr."""

    #: Field names that do not count for equality, hashing and the repr.
    _ignored: ClassVar[frozenset[str]] = frozenset()

    def _identity(self) -> tuple[object, ...]:
        ignored = self._ignored
        return tuple(getattr(self, name) for name in self.__struct_fields__ if name not in ignored)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, PartialRecord)
        return self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash(self._identity())

    def __repr__(self) -> str:
        ignored = self._ignored
        shown = ", ".join(
            f"{name}={getattr(self, name)!r}"
            for name in self.__struct_fields__
            if name not in ignored
        )
        return f"{type(self).__name__}({shown})"
