"""``--fail-on``: which outcomes of a comparison make it fail, and which rows caused that.

The policy is a pure function of a :class:`~.model.Comparison` and the chosen conditions,
so a CI script, a notebook and ``nvbench_compare`` all gate on exactly the same rows::

    from cuda.bench.compare.exit_policy import evaluate, parse_fail_on

    outcome = evaluate(comparison, parse_fail_on("slow,missing"))
    if outcome.failed:
        for failure in outcome.failures:
            print(failure.condition, [row.key for row in failure.rows])

Conditions (compare.md §7): ``slow`` (SLOW rows), ``fast`` (FAST rows), ``ambiguous``
(AMBG rows), ``unknown`` (``????`` rows), ``missing`` (ADDED/REMOVED rows, or input files
without a counterpart). No condition is the default, so a comparison never fails on its
own, as upstream.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import Enum
from types import MappingProxyType
from typing import TYPE_CHECKING, Final

import msgspec

from ._status import Status
from .errors import ConfigError

if TYPE_CHECKING:
    from . import model as _model
    from .model import Comparison, Row
else:
    from .._lazy import LazyModule

    # Failure's rows are named through the module, imported when the annotation is read
    # (typing.get_type_hints): the model's records import this module.
    _model = LazyModule("cuda.bench.compare.model")

__all__ = [
    "EXIT_FAILED",
    "EXIT_OK",
    "FAIL_ON_NAMES",
    "FailOn",
    "Failure",
    "PolicyOutcome",
    "evaluate",
    "failing_rows",
    "normalize_conditions",
    "parse_fail_on",
    "row_conditions",
]

EXIT_OK = 0
#: The exit status when a ``--fail-on`` condition holds.
EXIT_FAILED = 1


class FailOn(str, Enum):
    """One ``--fail-on`` condition."""

    SLOW = "slow"
    FAST = "fast"
    AMBIGUOUS = "ambiguous"
    UNKNOWN = "unknown"
    MISSING = "missing"

    def __str__(self) -> str:
        return str(self.value)

    @property
    def statuses(self) -> frozenset[Status]:
        """The row statuses this condition fails on."""
        return _STATUSES[self]

    @property
    def option(self) -> str:
        """How the condition reads on the command line: ``--fail-on slow``."""
        return f"--fail-on {self.value}"


_STATUSES: Final[Mapping[FailOn, frozenset[Status]]] = MappingProxyType(
    {
        FailOn.SLOW: frozenset({Status.SLOW}),
        FailOn.FAST: frozenset({Status.FAST}),
        FailOn.AMBIGUOUS: frozenset({Status.AMBG}),
        FailOn.UNKNOWN: frozenset({Status.UNKNOWN}),
        FailOn.MISSING: frozenset({Status.ADDED, Status.REMOVED}),
    }
)

#: Accepted condition names, in documentation order.
FAIL_ON_NAMES: tuple[str, ...] = tuple(condition.value for condition in FailOn)


def parse_fail_on(values: str | Iterable[str]) -> tuple[FailOn, ...]:
    """Conditions from ``"slow,missing"`` or several such strings (one per ``--fail-on``).

    Names are case-insensitive and may be repeated; the result keeps first-mention order
    without repeats. An unknown or empty name raises :class:`~.errors.ConfigError` naming
    the accepted ones.
    """
    items = [values] if isinstance(values, str) else list(values)
    chosen: dict[FailOn, None] = {}
    for item in items:
        for part in item.split(","):
            name = part.strip().lower()
            try:
                chosen[FailOn(name)] = None
            except ValueError:
                shown = (
                    f"unknown condition {part.strip()!r}" if part.strip() else "an empty condition"
                )
                raise ConfigError(
                    f"--fail-on: {shown} in {item!r}; "
                    f"expected a comma list of {', '.join(FAIL_ON_NAMES)}"
                ) from None
    return tuple(chosen)


class Failure(msgspec.Struct, frozen=True):
    """A condition that holds, with the rows (and, for ``missing``, the files) behind it."""

    condition: FailOn
    rows: tuple[_model.Row, ...] = ()
    unpaired_files: tuple[tuple[str, str], ...] = ()

    @property
    def count(self) -> int:
        """How many rows and unpaired files caused it."""
        return len(self.rows) + len(self.unpaired_files)


class PolicyOutcome(msgspec.Struct, frozen=True):
    """The verdict of a ``--fail-on`` policy on one comparison."""

    conditions: tuple[FailOn, ...]
    failures: tuple[Failure, ...]

    @property
    def failed(self) -> bool:
        return bool(self.failures)

    @property
    def exit_status(self) -> int:
        """``1`` when some condition holds, else ``0``."""
        return EXIT_FAILED if self.failures else EXIT_OK


def normalize_conditions(conditions: str | Iterable[FailOn | str]) -> tuple[FailOn, ...]:
    """Conditions as values without repeats; strings are parsed like ``--fail-on`` values."""
    if isinstance(conditions, str):
        conditions = [conditions]
    chosen: dict[FailOn, None] = {}
    for condition in conditions:
        parsed = (condition,) if isinstance(condition, FailOn) else parse_fail_on(condition)
        chosen.update(dict.fromkeys(parsed))
    return tuple(chosen)


def evaluate(comparison: Comparison, conditions: str | Iterable[FailOn | str]) -> PolicyOutcome:
    """Which of ``conditions`` hold for ``comparison``; failures keep the conditions' order.

    Every row counts, whatever a display threshold hides, like the status counts.
    """
    chosen = normalize_conditions(conditions)
    failures: list[Failure] = []
    for condition in chosen:
        rows = comparison.rows_with(condition.statuses)
        unpaired = comparison.unpaired_files if condition is FailOn.MISSING else ()
        if rows or unpaired:
            failures.append(Failure(condition, rows, tuple(unpaired)))
    return PolicyOutcome(chosen, tuple(failures))


def failing_rows(
    comparison: Comparison, conditions: str | Iterable[FailOn | str]
) -> tuple[Row, ...]:
    """The rows that make ``conditions`` fail, each once, in comparison order."""
    chosen = normalize_conditions(conditions)
    statuses = frozenset().union(*(condition.statuses for condition in chosen))
    return comparison.rows_with(statuses)


def row_conditions(row: Row, conditions: str | Iterable[FailOn | str]) -> tuple[FailOn, ...]:
    """The conditions among ``conditions`` that ``row`` triggers."""
    return tuple(
        condition
        for condition in normalize_conditions(conditions)
        if row.status in condition.statuses
    )
