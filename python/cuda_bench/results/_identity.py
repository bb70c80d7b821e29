"""What makes two result files one run: the measurements, not the bytes.

A run copied through ``git`` with ``autocrlf``, re-indented by a pretty-printer or re-written
by ``json.load`` / ``json.dump`` is byte for byte another file and the same measurements.
Tools that must not count one run twice (an archive that stores each run once, a
calibration or a baseline check that needs separate runs, a gate that must not take
tonight's run as its own reference) compare :func:`measurement_digest` instead of file
hashes: the file parsed as plain JSON, encoded with its keys sorted. It holds every state's
summaries (minimum, quartiles, median, mean, deviation of thousands of times, to 17 digits), which
separate runs never share, so the side files add nothing to tell runs apart, and a copy of
the JSON file whose side files were left behind is the same run too.
"""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from ._tools_api import BenchmarkResult

__all__ = ["measurement_digest"]


def measurement_digest(result: BenchmarkResult, data: bytes | None = None) -> str:
    """The SHA-256 of ``result``'s file parsed as plain JSON, keys sorted: whitespace, line
    ends and key order do not count. Plain JSON, not the reader's typed document: what the
    reader keeps or normalises may change from one version to the next, and the digest names
    runs in archives for good. ``data``: the file's bytes, where the caller has read them
    already. A result without a file (built in memory) digests its document."""
    # Regular files only: a FIFO or a device read again would block or give other bytes.
    if data is None and result.path is not None and os.path.isfile(result.path):
        try:
            with open(result.path, "rb") as stream:
                data = stream.read()
        except OSError:
            data = None  # read as the reader could: its document stands in
    encoded: bytes | None = None
    if data is not None:
        try:
            encoded = msgspec.json.encode(msgspec.json.decode(data), order="sorted")
        except msgspec.DecodeError:
            encoded = None
    if encoded is None:
        encoded = msgspec.json.encode(result.document, order="sorted")
    return hashlib.sha256(encoded).hexdigest()
