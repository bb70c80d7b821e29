"""Optional third-party packages, imported only when a feature needs them."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["MissingDependencyError", "install_hint", "require"]


def install_hint(extra: str) -> str:
    """The command that installs ``extra``: from a checkout, as the package is not on PyPI
    (a PyPI name could be anyone's)."""
    return f"python -m pip install '.[{extra}]' (from the nvbench-tools checkout's root)"


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
            f"{name} is needed for {purpose}; install it with: {install_hint(extra)}"
        ) from error
