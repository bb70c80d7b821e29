"""Decision methods: each turns the evidence of one row into a :class:`~..model.Verdict`.

A method is any object with a ``name``, a one-line ``description`` and
``decide(ref, cmp, thresholds) -> Verdict`` (:class:`Method`). Matching, rendering and the
CLI only ever look methods up here by name, so a new method is one module plus one
:func:`register_method` call below; its thresholds go into
:class:`~..thresholds.Thresholds` and its TOML keys into :data:`..config.SCHEMA`.

>>> from cuda.bench.compare.methods import get_method
>>> get_method("robust").name
'robust'
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Protocol, runtime_checkable

from ..errors import ConfigError
from ..evidence import SideEvidence
from ..model import Verdict
from ..thresholds import Thresholds

__all__ = ["DEFAULT_METHOD", "METHODS", "Method", "get_method", "register_method"]


@runtime_checkable
class Method(Protocol):
    """A decision method. ``decide`` must be a pure function of its arguments.

    It may read the per-sample data of the evidence (loaded lazily and cached there) and
    must return a verdict whose reason is not internal.
    """

    @property
    def name(self) -> str:
        """The name users select it by (``--method NAME``)."""

    @property
    def description(self) -> str:
        """One line for ``--help`` and reports."""

    def decide(self, ref: SideEvidence, cmp: SideEvidence, thresholds: Thresholds) -> Verdict:
        """The verdict on one row from its reference and compare evidence."""


_REGISTRY: dict[str, Method] = {}

#: Registered methods by name, in registration order (read-only view).
METHODS: Final[Mapping[str, Method]] = MappingProxyType(_REGISTRY)

#: The method used when none is named.
DEFAULT_METHOD: Final = "robust"


def register_method(method: Method, *, replace: bool = False) -> Method:
    """Make ``method`` available under ``method.name``; returns it.

    Registering a second method under a taken name is an error unless ``replace``.
    """
    name = method.name
    if not name or not name.replace("-", "_").isidentifier():
        raise ValueError(f"method name must be a simple identifier, got {name!r}")
    if name in _REGISTRY and not replace and _REGISTRY[name] is not method:
        raise ValueError(f"a comparison method named {name!r} is already registered")
    _REGISTRY[name] = method
    return method


def get_method(name: str) -> Method:
    """The registered method called ``name``; :class:`ConfigError` names the known ones."""
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(_REGISTRY)
        raise ConfigError(f"unknown comparison method {name!r} (known: {known})") from None


def _register_builtin() -> None:
    from .robust import ROBUST

    register_method(ROBUST)


_register_builtin()
