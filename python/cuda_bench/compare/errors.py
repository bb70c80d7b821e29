"""Errors a comparison reports to its caller (defined in :mod:`cuda.bench._errors`)."""

from __future__ import annotations

from .._errors import CompareError, CompareInputError, ConfigError, FilterError

__all__ = ["CompareError", "CompareInputError", "ConfigError", "FilterError"]
