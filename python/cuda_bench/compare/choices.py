"""Names the command line offers, importable without loading the engine (for ``--help``)."""

from __future__ import annotations

from typing import Final

__all__ = ["DEFAULT_METHOD", "METHOD_NAMES"]

#: Decision methods in ``cuda.bench.compare.methods`` (a test keeps the two in step).
METHOD_NAMES: Final = ("robust", "ci")

#: The method used when none is named, chosen by measurement (``docs/verdict-quality.md``,
#: ``python/benchmarks/verdict_quality.py``); ``robust`` stays available by name.
DEFAULT_METHOD: Final = "ci"
