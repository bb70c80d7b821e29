"""Warnings about one side of a comparison alone, the side held as data.

A warning about a state quotes its benchmark and state names from the file (``bench:
reference state 'x' does not begin with ...``), so its text cannot tell which side it
concerns: a name may read like the other side's wording. The engine makes each warning
that concerns one side alone a :class:`OneSideWarning`, a string that carries its side,
and :func:`.api.compare` lists the reference side's apart
(:attr:`.model.Comparison.reference_warnings`) without reading any text back. A caller that
built the reference runs from the compare run (the history gate) leaves those out.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NoReturn

from .match import Side

__all__ = ["OneSideWarning", "reference_side"]


class OneSideWarning(str):
    """One warning line (the string itself) about the runs or states of ``side`` alone.

    A string, so that every warning sink and list takes it as it is; immutable like the
    string, and pickled with its side (the split comparison sends its rows' warnings back
    from child processes).
    """

    side: Side

    def __new__(cls, text: str, *, side: Side) -> OneSideWarning:
        self = super().__new__(cls, text)
        object.__setattr__(self, "side", side)
        return self

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (str(self), self.side))


def _rebuild(text: str, side: Side) -> OneSideWarning:
    return OneSideWarning(text, side=side)


def reference_side(messages: Iterable[str]) -> tuple[str, ...]:
    """The lines of ``messages`` the engine told about the reference side alone, as plain
    strings (the reports' encoders take no string subclass)."""
    return tuple(
        str(message)
        for message in messages
        if isinstance(message, OneSideWarning) and message.side == "reference"
    )
