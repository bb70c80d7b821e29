"""Decision methods: each turns the evidence of one row into a :class:`~..model.Verdict`.

A method is any object with a ``name``, a one-line ``description`` and
``decide(row) -> Verdict`` (:class:`Method`), where ``row`` is the :class:`RowEvidence` of
one row: both sides' evidence, the thresholds and the row's estimates, computed once for
the method and the row's display (:func:`row_evidence`). Matching, rendering and the
CLI only ever look methods up here by name, so a new method is one module plus one entry
in ``_BuiltinMethods`` below (and its name in :mod:`..choices`); its thresholds go into
:class:`~..thresholds.Thresholds` and its TOML keys into :data:`..config.SCHEMA`.

>>> from cuda.bench.compare.methods import get_method
>>> get_method("robust").name
'robust'
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Final, Protocol, runtime_checkable

from ..choices import DEFAULT_METHOD, METHOD_NAMES
from ..errors import ConfigError
from ..model import Verdict
from ._row import RowEvidence, row_evidence

__all__ = [
    "DEFAULT_METHOD",
    "METHODS",
    "Method",
    "RowEvidence",
    "get_method",
    "row_evidence",
]


@runtime_checkable
class Method(Protocol):
    """A decision method. ``decide`` must be a pure function of its argument.

    It may read the per-sample data of the evidence (loaded lazily and cached there) and
    must return a verdict whose reason is not internal.
    """

    @property
    def name(self) -> str:
        """The name users select it by (``--method NAME``)."""

    @property
    def description(self) -> str:
        """One line for ``--help`` and reports."""

    def decide(self, row: RowEvidence) -> Verdict:
        """The verdict on one row from its evidence (:func:`row_evidence` makes one)."""


class _BuiltinMethods(Mapping[str, Method]):
    """The built-in methods by name, read-only; each module is imported when its method is
    first looked up, so that a ``robust`` comparison never loads the ``ci`` method's
    statistics (and the reverse)."""

    def __getitem__(self, name: str) -> Method:
        if name == "robust":
            from .robust import ROBUST

            return ROBUST
        if name == "ci":
            from .ci import CI

            return CI
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter(METHOD_NAMES)

    def __len__(self) -> int:
        return len(METHOD_NAMES)

    def __repr__(self) -> str:
        return f"<decision methods: {', '.join(METHOD_NAMES)}>"


#: The decision methods by name (read-only). Adding a method: one module, one branch in
#: ``_BuiltinMethods`` and its name in :data:`..choices.METHOD_NAMES`.
METHODS: Final[Mapping[str, Method]] = _BuiltinMethods()


def get_method(name: str) -> Method:
    """The method called ``name``; :class:`ConfigError` names the known ones."""
    try:
        return METHODS[name]
    except KeyError:
        known = ", ".join(METHODS)
        raise ConfigError(f"unknown comparison method {name!r} (known: {known})") from None
