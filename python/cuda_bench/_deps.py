"""Optional third-party packages, imported only when a feature needs them."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["BrokenDependencyError", "MissingDependencyError", "install_hint", "require"]


def install_hint(extra: str) -> str:
    """The command that installs ``extra``: from a checkout, as the package is not on PyPI
    (a PyPI name could be anyone's)."""
    return f"python -m pip install '.[{extra}]' (from the nvbench-tools checkout's root)"


class MissingDependencyError(ImportError):
    """An optional package is not installed; the message says how to install it."""


class BrokenDependencyError(MissingDependencyError):
    """An optional package is installed but its import fails (a version conflict: pyarrow
    built for NumPy 2 under NumPy 1, a dependency of its own missing); the message names the
    package and carries its own reason, which says what to mend."""


def require(module: str, *, extra: str, purpose: str, package: str | None = None) -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependencyError` with a one-line install hint.

    A missing top-level package gets the install hint. An ImportError raised inside an
    installed package (``pyarrow requires NumPy 2.0 or newer``, a module of its own
    dependencies missing) is :class:`BrokenDependencyError`, its reason kept: installing the
    extra again would not mend it, and the command-line tools turn both into one line and
    exit status 2 where the bare ImportError was a traceback and the 1 CI reads as a
    regression.
    """
    top = module.split(".")[0]
    name = package or top
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name is None or error.name.split(".")[0] != top:
            raise _broken(name, purpose, error) from error
        raise MissingDependencyError(
            f"{name} is needed for {purpose}; install it with: {install_hint(extra)}"
        ) from error
    except ImportError as error:
        raise _broken(name, purpose, error) from error


def _broken(name: str, purpose: str, error: ImportError) -> BrokenDependencyError:
    reason = " ".join(str(error).split()) or type(error).__name__
    return BrokenDependencyError(
        f"{name} is needed for {purpose} and is installed, but importing it failed: {reason}"
    )
