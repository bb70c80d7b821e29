"""How a status looks: ANSI colour for terminals, emoji for text that leaves the terminal.

Colour is for people reading a terminal; anything that ends up in a file, a pipe, a PR
comment or a CI log must keep its meaning without escape codes, so there the status text
gets an emoji prefix instead. :func:`color_enabled` decides, :class:`StatusStyle` renders.

>>> from cuda.bench.compare.model import Status
>>> EMOJI.label(Status.SLOW)
'🔴 SLOW'
>>> ANSI.label(Status.SLOW) == "\\x1b[31mSLOW\\x1b[39m"
True
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from enum import Enum
from types import MappingProxyType
from typing import Final, Protocol

import msgspec

from ..compare.model import Status

__all__ = [
    "ANSI",
    "ANSI_RESET",
    "EMOJI",
    "PLAIN",
    "STATUS_ANSI",
    "STATUS_EMOJI",
    "STATUS_MEANING",
    "ColorMode",
    "StatusStyle",
    "color_enabled",
    "status_style",
]


class ColorMode(str, Enum):
    """``--color``: ``auto`` colours a terminal only, ``always`` and ``never`` force it."""

    AUTO = "auto"
    ALWAYS = "always"
    NEVER = "never"

    def __str__(self) -> str:
        return str(self.value)


#: SGR foreground codes per status; ``ANSI_RESET`` restores the default foreground only, so
#: a terminal's own background and bold state survive.
STATUS_ANSI: Final[Mapping[Status, str]] = MappingProxyType(
    {
        Status.SAME: "\x1b[34m",  # blue
        Status.FAST: "\x1b[32m",  # green
        Status.SLOW: "\x1b[31m",  # red
        Status.AMBG: "\x1b[90m",  # grey (bright black)
        Status.UNKNOWN: "\x1b[33m",  # yellow
        Status.ADDED: "\x1b[36m",  # cyan
        Status.REMOVED: "\x1b[35m",  # magenta
        Status.SKIP: "\x1b[37m",  # light grey
    }
)
ANSI_RESET: Final = "\x1b[39m"

#: Emoji prefixes that carry the status colour into markdown and plain text. All are
#: double-width, so tables stay aligned whichever status a row has.
STATUS_EMOJI: Final[Mapping[Status, str]] = MappingProxyType(
    {
        Status.SAME: "🔵",
        Status.FAST: "🟢",
        Status.SLOW: "🔴",
        Status.AMBG: "🤷",
        Status.UNKNOWN: "🟡",
        Status.ADDED: "\u2795",  # heavy plus sign (emoji presentation)
        Status.REMOVED: "\u2796",  # heavy minus sign
        Status.SKIP: "\u26aa",  # medium white circle
    }
)

#: (word, meaning) per status, for summaries and reports.
STATUS_MEANING: Final[Mapping[Status, tuple[str, str]]] = MappingProxyType(
    {
        Status.SAME: ("Unchanged", "no change beyond the tolerance"),
        Status.FAST: ("Improvement", "compare is faster"),
        Status.SLOW: ("Regression", "compare is slower"),
        Status.AMBG: ("Ambiguous", "not enough evidence either way"),
        Status.UNKNOWN: ("Unknown", "unusable input data"),
        Status.ADDED: ("Added", "only in the compare run"),
        Status.REMOVED: ("Removed", "only in the reference run"),
        Status.SKIP: ("Skipped", "skipped by the benchmark in both runs"),
    }
)


class StatusStyle(msgspec.Struct, frozen=True):
    """How :meth:`label` writes a status: ANSI-coloured, emoji-prefixed, both or neither."""

    ansi: bool = False
    emoji: bool = True

    def label(self, status: Status) -> str:
        """The status text for a table cell or a summary line."""
        text = status.value
        if self.emoji:
            text = f"{STATUS_EMOJI[status]} {text}"
        if self.ansi:
            text = f"{STATUS_ANSI[status]}{text}{ANSI_RESET}"
        return text


#: No decoration at all (for machine-readable text).
PLAIN: Final = StatusStyle(ansi=False, emoji=False)
#: Emoji prefixes, no escape codes: markdown, files, pipes, ``--no-color``.
EMOJI: Final = StatusStyle(ansi=False, emoji=True)
#: ANSI colour for a terminal.
ANSI: Final = StatusStyle(ansi=True, emoji=False)


class _Stream(Protocol):
    def isatty(self) -> bool: ...


def color_enabled(
    mode: ColorMode | str,
    stream: _Stream | None = None,
    environ: Mapping[str, str] | None = None,
) -> bool:
    """Whether output to ``stream`` gets ANSI colour.

    ``always`` and ``never`` decide on their own (an explicit option beats the environment).
    ``auto`` colours only a terminal (``stream.isatty()``) and only while ``NO_COLOR`` is
    unset or empty (https://no-color.org). ``environ`` defaults to :data:`os.environ`.
    """
    chosen = ColorMode(mode)
    if chosen is ColorMode.ALWAYS:
        return True
    if chosen is ColorMode.NEVER or stream is None:
        return False
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR"):
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # closed or exotic streams
        return False


def status_style(color: bool) -> StatusStyle:
    """ANSI colour when ``color``, else emoji prefixes so the status keeps its colour."""
    return ANSI if color else EMOJI
