"""Small JSON files that may come from elsewhere (an ``ab`` manifest, a calibration, a gate
report): decoded with nesting too deep for the decoder as a plain :class:`ValueError`.

Python's ``json`` decoder recurses once per nesting level, so a crafted file of a few
hundred kilobytes of ``[`` raises :class:`RecursionError`, which every caller's
``except ValueError`` let through as a traceback. The result readers have their own limit
(``results/_parse.py``); these files are small and decoded whole.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["TOO_DEEP", "loads"]

#: The problem a too deeply nested document is reported with.
TOO_DEEP = "JSON nested too deeply"


def loads(text: str) -> Any:
    """``json.loads(text)``; :class:`ValueError` (:data:`TOO_DEEP`) instead of
    :class:`RecursionError` for a document nested deeper than the decoder allows."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(TOO_DEEP) from None
