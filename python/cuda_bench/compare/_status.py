"""What a comparison concludes: a row's :class:`Status` and the suite's :class:`SuiteSummary`.

They live below :mod:`.model` (which re-exports both) so that the modules a
:class:`~.model.Comparison`'s own methods call (:mod:`.records`, :mod:`.exit_policy`,
:mod:`.suite`) can use them without importing :mod:`.model` back: the imports of the package
run one way (python/test/test_layers.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum

import msgspec

__all__ = ["Status", "SuiteSummary", "as_status", "as_statuses"]


class Status(str, Enum):
    """The verdict on one row. ``ADDED``/``REMOVED`` mark states present on one side only;
    ``SKIP`` a state the benchmark skipped on purpose in both runs (nothing to compare, and
    nothing wrong with the input: a state skipped on one side only is ``????``)."""

    SAME = "SAME"
    FAST = "FAST"
    SLOW = "SLOW"
    AMBG = "AMBG"
    UNKNOWN = "????"
    ADDED = "ADDED"
    REMOVED = "REMOVED"
    SKIP = "SKIP"

    def __str__(self) -> str:
        return str(self.value)

    @property
    def is_change(self) -> bool:
        return self in (Status.FAST, Status.SLOW)

    @property
    def is_matched(self) -> bool:
        """Both sides exist (every status but ADDED/REMOVED)."""
        return self not in (Status.ADDED, Status.REMOVED)


def as_status(value: object, parameter: str = "status") -> Status:
    """``value`` as a :class:`Status`: a status, or its value or name as text in any case
    (``"SLOW"``, ``"slow"``, ``"????"``, ``"UNKNOWN"``). Anything else raises a TypeError
    or ValueError naming ``parameter``: a status compared by identity with text would
    match no row, and a check written so would never fail."""
    if isinstance(value, Status):
        return value
    if not isinstance(value, str):
        raise TypeError(f"{parameter} must be a Status or its name, got {value!r}")
    wanted = value.strip().upper()
    for status in Status:
        if wanted in (status.value, status.name):
            return status
    names = ", ".join(status.value for status in Status)
    raise ValueError(f"{parameter}: unknown status {value!r}; the statuses are {names}")


def as_statuses(value: object, parameter: str = "statuses") -> frozenset[Status]:
    """``value`` as a set of statuses: one status (or its text, :func:`as_status`), or an
    iterable of them. Text is one status, never a set of its characters."""
    if isinstance(value, str):
        return frozenset({as_status(value, parameter)})
    # Bytes are no text and iterate as numbers: "got 83" named the letter S of b"SLOW".
    if isinstance(value, bytes | bytearray | memoryview) or not isinstance(value, Iterable):
        raise TypeError(f"{parameter} must be a Status or an iterable of them, got {value!r}")
    return frozenset(as_status(one, parameter) for one in value)


class SuiteSummary(msgspec.Struct, frozen=True):
    """Suite-level statistics of a comparison (:mod:`.suite`, which computes it).

    ``ratio`` is the geometric mean of compare/reference over ``rows`` rows; ``lo``/``hi``
    bound it at ``confidence`` when the rows carried bootstrap draws (``basis``
    ``"bootstrap"``; ``"centers"`` for the plain geometric mean of the center ratios).
    ``expected_false_flags`` is the expected number of FAST/SLOW rows if nothing had
    changed, over the ``flag_rows`` rows that have a tolerance band. ``interval_covers``
    says what the interval accounts for (``"sampling"`` or ``"sampling+runs"``), and
    ``drift_rows`` counts the rows AMBG for drift (:mod:`.suite`), ``drift_reasons`` those
    rows' drift codes with their counts, most frequent first (empty where no one told them):
    in a comparison the codes the rows carry; in a gate also ``too_noisy_to_judge`` for a
    SAME row its band made AMBG, and ``history_too_short`` for every row it made so (its
    level holds too few runs to measure the drift).
    """

    ratio: float
    rows: int
    lo: float | None = None
    hi: float | None = None
    confidence: float | None = None
    basis: str = "centers"
    expected_false_flags: float | None = None
    flag_rows: int = 0
    interval_covers: str | None = None
    drift_rows: int = 0
    drift_reasons: tuple[tuple[str, int], ...] = ()

    @property
    def percent(self) -> float:
        return (self.ratio - 1.0) * 100.0

    @property
    def claims_change(self) -> bool:
        """Whether the geometric mean may be read as a suite-wide change: no row is AMBG
        because its runs drift."""
        return self.drift_rows == 0
