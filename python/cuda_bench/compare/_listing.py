"""What the inputs hold, listed in one line of an error message (:func:`listed`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from .._untrusted import visible

__all__ = ["listed"]

#: Items a message lists before "and N more", and the characters shown of each.
LISTED: Final = 20
_WIDTH: Final = 40


def listed(items: Iterable[str], limit: int = LISTED) -> str:
    """``a, b, c``: ``items`` once each, in their order, the first ``limit`` of them and
    ``and N more``; ``none`` when empty. Items come from result files: control characters
    are shown as escapes (``\\x1b``), and an item over 40 characters is cut (``…``)."""
    unique = list(dict.fromkeys(items))
    shown = [_short(visible(item)) for item in unique[:limit]]
    text = ", ".join(shown) or "none"
    if len(unique) > limit:
        text += f" and {len(unique) - limit} more"
    return text


def _short(text: str) -> str:
    return text if len(text) <= _WIDTH else f"{text[: _WIDTH - 1]}…"
