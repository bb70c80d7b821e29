"""Optional third-party packages, imported only when a feature needs them."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["MissingDependencyError", "require"]


class MissingDependencyError(ImportError):
    """An optional package is not installed; the message says how to install it."""


def require(module: str, *, extra: str, purpose: str, package: str | None = None) -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependencyError` with a one-line install hint.

    Only a missing top-level package becomes the friendly error: an ImportError raised from
    inside an installed but broken package is real information and propagates unchanged.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        top = module.split(".")[0]
        if error.name is None or error.name.split(".")[0] != top:
            raise
        name = package or top
        raise MissingDependencyError(
            f"{name} is needed for {purpose}; install it with: "
            f"python -m pip install 'nvbench-tools[{extra}]' "
            f"(from a checkout: python -m pip install '.[{extra}]')"
        ) from error
