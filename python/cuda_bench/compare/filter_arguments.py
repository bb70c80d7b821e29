"""``-b/--benchmark`` and ``-a/--axis`` for argparse, in command-line order.

NVBench scopes an ``-a`` by the ``-b`` before it (:mod:`.filters`), so both options append to
one list that keeps their order; :meth:`.filters.FilterPlan.from_args` reads it.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final, Literal

__all__ = ["FilterAction", "FilterItem", "add_filter_arguments"]

#: One ``-b``/``-a`` occurrence in command-line order: ``("benchmark", NAME)`` or
#: ``("axis", SPEC)``.
FilterItem = tuple[str, str]

_KIND_BY_OPTION: Final[Mapping[str, Literal["benchmark", "axis"]]] = MappingProxyType(
    {
        "-b": "benchmark",
        "--benchmark": "benchmark",
        "-a": "axis",
        "--axis": "axis",
    }
)


class FilterAction(argparse.Action):
    """Append ``(kind, value)`` to one shared list so ``-b`` and ``-a`` keep their order.

    ``kind`` is ``const`` when given (``"benchmark"`` or ``"axis"``), else it is taken from
    the option strings ``-b/--benchmark`` or ``-a/--axis``. Give both options the same
    ``dest`` and pass the list to :meth:`FilterPlan.from_args`.
    """

    def __init__(
        self,
        option_strings: Sequence[str],
        dest: str,
        const: str | None = None,
        **kwargs: Any,
    ) -> None:
        kind = const
        if kind is None:
            kinds = {_KIND_BY_OPTION[o] for o in option_strings if o in _KIND_BY_OPTION}
            if len(kinds) == 1:
                kind = kinds.pop()
        if kind not in ("benchmark", "axis"):
            raise ValueError(
                "FilterAction needs const='benchmark' or const='axis' for options "
                f"{list(option_strings)}"
            )
        super().__init__(option_strings, dest, const=kind, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        current = getattr(namespace, self.dest, None)
        # A fresh list each time: argparse shares a mutable default between parses.
        items: list[FilterItem] = [] if current is None else list(current)
        items.append((str(self.const), str(values)))
        setattr(namespace, self.dest, items)


def add_filter_arguments(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup,
    dest: str = "filters",
    *,
    verb: str = "compare",
) -> None:
    """Add ``-b/--benchmark`` and ``-a/--axis`` writing to ``dest`` (a list of items, kept
    in command-line order); ``verb`` names what the tool does with the selection.

    The caller sets the default: ``parser.set_defaults(**{dest: []})``.
    """
    parser.add_argument(
        "-b",
        "--benchmark",
        dest=dest,
        action=FilterAction,
        const="benchmark",
        metavar="NAME",
        help=f"{verb} only this benchmark (repeatable); -a options after it apply to it only",
    )
    parser.add_argument(
        "-a",
        "--axis",
        dest=dest,
        action=FilterAction,
        const="axis",
        metavar="NAME=VALUE",
        help=(
            "keep states whose axis matches: NAME=V, NAME=[V1,V2], NAME[pow2]=E, "
            "NAME[pow2]=[E1,E2] or NAME=2^E (repeatable; before any -b: every benchmark)"
        ),
    )
