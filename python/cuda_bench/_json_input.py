"""JSON that may come from elsewhere (an ``ab`` manifest, a calibration, a gate report, an
archive's marker, or any JSON file the output guard reads for the side files it records):
decoded with nesting too deep for the decoder as a plain :class:`ValueError`.

Python's ``json`` decoder recurses once per nesting level, so a crafted file of a few
hundred kilobytes of ``[`` raises :class:`RecursionError`, which every caller's
``except ValueError`` let through as a traceback. The result readers have their own limit
(``results/_parse.py``); these files are decoded whole, here and only here.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["TOO_DEEP", "loads"]

#: The problem a too deeply nested document is reported with.
TOO_DEEP = "JSON nested too deeply"


def loads(data: str | bytes) -> Any:
    """``json.loads(data)``; :class:`ValueError` (:data:`TOO_DEEP`) instead of
    :class:`RecursionError` for a document nested deeper than the decoder allows.

    Every problem is a :class:`ValueError`: malformed JSON, nesting too deep, and for
    ``bytes`` an encoding that does not decode (:class:`UnicodeDecodeError`)."""
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError(TOO_DEEP) from None
