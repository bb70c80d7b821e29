"""Warnings that carry what they are about as data: their kind, and the side they concern.

A warning quotes names from the input: benchmark and state names from the files
(``bench: reference state 'x' does not begin with ...``), the file names the user gave
(``reference file 'x.json' has no counterpart``). Its text therefore cannot tell what it is
about: a name may read like any other warning's wording. The engine makes each warning that
a consumer must single out a :class:`TaggedWarning`, a string that carries its
:class:`WarningKind` and, for a warning about one side alone, that side; :func:`.api.compare`
lists them apart on the :class:`~.model.Comparison` (``reference_warnings``,
``warning_kinds``) without reading any text back. So the history gate leaves out the
reference side's warnings (it built the reference runs from the compare run), the Device
variants leave out that the device sections differ (the point of them), and the reports
leave out the warning an unpaired file listed apart already repeats.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Any, NoReturn, cast

from .match import Side

__all__ = [
    "FrozenText",
    "RepeatedStateWarning",
    "TaggedWarning",
    "WarningKind",
    "kinds_of",
    "reference_side",
]


class WarningKind(enum.Enum):
    """What a warning is about, where a consumer treats it apart."""

    #: Anything else (states, runs, side files, ...).
    OTHER = "other"
    #: A file of a directory input with no usable counterpart (``Comparison.unpaired_files``).
    UNPAIRED_FILE = "unpaired_file"
    #: The two results' device sections differ (expected when devices are compared).
    DEVICE_SECTIONS = "device_sections"


class FrozenText(str):
    """A string whose subclass carries attributes: set once in ``__new__`` (through
    ``object.__setattr__``), never again, so a warning's tags stay what its teller said."""

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is immutable")


class TaggedWarning(FrozenText):
    """One warning line (the string itself) of ``kind``; ``side`` is the side whose runs or
    states alone it concerns, ``None`` for one about both or neither.

    A string, so that every warning sink and list takes it as it is; immutable like the
    string, and pickled with its tags (the split comparison sends its rows' warnings back
    from child processes).
    """

    kind: WarningKind
    side: Side | None

    def __new__(
        cls, text: str, *, kind: WarningKind = WarningKind.OTHER, side: Side | None = None
    ) -> TaggedWarning:
        self = super().__new__(cls, text)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "side", side)
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (str(self), self.kind, self.side))


def _rebuild(text: str, kind: WarningKind, side: Side | None) -> TaggedWarning:
    return TaggedWarning(text, kind=kind, side=side)


class RepeatedStateWarning(TaggedWarning):
    """A state name listed more than once in one side's run, whose ``occurrence``-th
    (from 1) has no counterpart in the other run: one line per such occurrence, which
    :func:`~.side_warnings.fold_warnings` folds into one line per state (a file listing
    its states 50 times told 49 lines for each)."""

    benchmark: str
    state: str
    occurrence: int

    def __new__(
        cls, benchmark: str, side: Side, state: str, occurrence: int
    ) -> RepeatedStateWarning:
        text = (
            f"{benchmark}: {side} state {state!r} appears more than once in the {side} run; "
            f"states of one name pair by their order, and its #{occurrence} has no counterpart"
        )
        self = cast("RepeatedStateWarning", TaggedWarning.__new__(cls, text, side=side))
        object.__setattr__(self, "benchmark", benchmark)
        object.__setattr__(self, "state", state)
        object.__setattr__(self, "occurrence", occurrence)
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (RepeatedStateWarning, (self.benchmark, self.side, self.state, self.occurrence))

    @staticmethod
    def folded(members: list[RepeatedStateWarning]) -> TaggedWarning:
        """One line for the warnings of one state (the same benchmark, side and name)."""
        first = members[0]
        side = first.side
        numbers = sorted({member.occurrence for member in members})
        # The occurrences without counterpart are the last ones: the highest is the count.
        return TaggedWarning(
            f"{first.benchmark}: {side} state {first.state!r} appears {numbers[-1]} times in "
            f"the {side} run; states of one name pair by their order, and {len(numbers)} of "
            f"them (#{numbers[0]} ... #{numbers[-1]}) have no counterpart",
            side=side,
        )


def reference_side(messages: Iterable[str]) -> tuple[str, ...]:
    """The lines of ``messages`` the engine told about the reference side alone, as plain
    strings (the reports' encoders take no string subclass)."""
    return tuple(
        str(message)
        for message in messages
        if isinstance(message, TaggedWarning) and message.side == "reference"
    )


def kinds_of(messages: Iterable[str]) -> tuple[tuple[str, WarningKind], ...]:
    """``(line, kind)`` for each line of ``messages`` told with a kind other than
    :attr:`WarningKind.OTHER`, the line as a plain string."""
    return tuple(
        (str(message), message.kind)
        for message in messages
        if isinstance(message, TaggedWarning) and message.kind is not WarningKind.OTHER
    )
