"""Errors a comparison reports to its caller (the CLI turns them into exit status 2)."""

from __future__ import annotations

__all__ = ["CompareError", "CompareInputError", "ConfigError", "FilterError"]


class CompareError(ValueError):
    """A comparison cannot be carried out as asked; the message says why in one line."""


class CompareInputError(CompareError):
    """The inputs do not fit together (devices, directories, missing files, ...)."""


class ConfigError(CompareError):
    """A threshold configuration (preset name, TOML file) is invalid."""


class FilterError(CompareError):
    """A ``-b``/``-a`` filter or a device selection is malformed or matches nothing."""
