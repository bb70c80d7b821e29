"""Status badges for web pages: an inline SVG shape and the status code, no emoji.

Markdown and the terminal mark a status with an emoji (:data:`..colors.STATUS_EMOJI`), but
a browser without an emoji font (a headless CI server, many Linux desktops) draws those as
empty boxes. The pages draw each status as a small inline SVG shape in the status colour
followed by its code (``SLOW``), so it reads without any font beyond text, and without
colour: every status has its own shape as well as its own word.

Shapes (16 x 16 view box, filled with ``currentColor``): SAME a filled circle, FAST a
triangle pointing down (the time went down), SLOW a triangle pointing up, AMBG a ring,
UNKNOWN a diamond, ADDED a plus, REMOVED a minus, SKIP a hollow square. ``--fail-on``
outcomes get a cross (failed) and a check mark (passed).
"""

from __future__ import annotations

from html import escape
from types import MappingProxyType
from typing import Final

from ...compare.model import Status

__all__ = ["FAILED_SHAPE", "PASSED_SHAPE", "STATUS_SHAPES", "icon_svg", "status_badge"]

#: SVG path data of each status's shape in a 16 x 16 view box (even-odd fill).
STATUS_SHAPES: Final = MappingProxyType(
    {
        Status.SAME: "M8 2a6 6 0 1 0 0.01 0z",
        Status.FAST: "M1.5 3.5h13L8 14z",
        Status.SLOW: "M8 2l6.5 10.5h-13z",
        Status.AMBG: "M8 1.5a6.5 6.5 0 1 0 0.01 0zM8 4.5a3.5 3.5 0 1 1-0.01 0z",
        Status.UNKNOWN: "M8 1l7 7-7 7-7-7z",
        Status.ADDED: "M6.25 2h3.5v4.25H14v3.5H9.75V14h-3.5V9.75H2v-3.5h4.25z",
        Status.REMOVED: "M2 6.25h12v3.5H2z",
        Status.SKIP: "M2 2h12v12H2zM4.5 4.5v7h7v-7z",
    }
)

#: A cross, for a ``--fail-on`` condition that holds.
FAILED_SHAPE: Final = (
    "M3.5 1.75 8 6.25l4.5-4.5 1.75 1.75L9.75 8l4.5 4.5-1.75 1.75L8 9.75l-4.5 4.5-1.75-1.75"
    "L6.25 8l-4.5-4.5z"
)
#: A check mark, for ``--fail-on`` conditions that all pass.
PASSED_SHAPE: Final = "M1.5 8.5 3.25 6.75 6.5 10l6.25-6.25L14.5 5.5l-8 8z"


def icon_svg(shape: str, css: str = "icon") -> str:
    """An inline SVG element that draws ``shape`` (path data) in the current text colour;
    hidden from screen readers, whose text comes from the words beside it."""
    return (
        f'<svg class="{escape(css)}" viewBox="0 0 16 16" width="16" height="16" '
        'aria-hidden="true" focusable="false">'
        f'<path fill="currentColor" fill-rule="evenodd" d="{escape(shape)}"/></svg>'
    )


def status_badge(status: Status, text: str | None = None) -> str:
    """``status`` as HTML: its shape, then ``text`` (its code unless given, escaped here),
    in a ``span.badge.st-<status>`` that takes the status colour."""
    label = status.value if text is None else text
    return (
        f'<span class="badge st-{status.name.lower()}">{icon_svg(STATUS_SHAPES[status])}'
        f'<span class="badge-text">{escape(label)}</span></span>'
    )
