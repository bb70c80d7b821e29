"""What makes two result files one run: the measurements, not the bytes.

A run copied through ``git`` with ``autocrlf``, re-indented by a pretty-printer or re-written
by ``json.load`` / ``json.dump`` is byte for byte another file and the same measurements.
Tools that must not count one run twice (an archive that stores each run once, a
calibration or a baseline check that needs separate runs, a gate that must not take
tonight's run as its own reference) compare :func:`measurement_digest` instead of file
hashes: the parsed document, encoded with its keys sorted. It holds every state's summaries
(minimum, quartiles, median, mean, deviation of thousands of times, to 17 digits), which
separate runs never share, so the side files add nothing to tell runs apart, and a copy of
the JSON file whose side files were left behind is the same run too.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from ._tools_api import BenchmarkResult

__all__ = ["measurement_digest"]


def measurement_digest(result: BenchmarkResult) -> str:
    """The SHA-256 of ``result``'s parsed document, keys sorted: whitespace, line ends and
    key order of the file do not count."""
    return hashlib.sha256(msgspec.json.encode(result.document, order="sorted")).hexdigest()
