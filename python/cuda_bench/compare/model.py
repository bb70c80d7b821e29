"""Values that flow through a comparison: statuses, reasons, estimates, verdicts, rows.

Everything here is frozen. The engine produces them, renderers and the CLI only read them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar

import msgspec

# The annotations name these at run time too, so that ``typing.get_type_hints`` and
# ``msgspec.inspect`` can resolve them; numpy stays unimported until an annotation is read.
from ..results._tools_api import StateAxisValue, SubBenchmarkState
from ._record import PartialRecord
from ._status import Status, SuiteSummary, as_status, as_statuses
from .reasons import Reason
from .thresholds import Thresholds
from .warning_tags import WarningKind

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import pandas as pd
else:
    from .._lazy import LazyModule
    from .._lazy import numpy as np

    npt = LazyModule("numpy.typing")

__all__ = [
    "Comparison",
    "Effect",
    "EvidenceSource",
    "InputPair",
    "Interval",
    "Reason",
    "Row",
    "Section",
    "SideEstimate",
    "Status",
    "SuiteSummary",
    "Verdict",
    "reason_description",
    "symmetric_difference",
]


class EvidenceSource(str, Enum):
    """Where a side's estimate came from."""

    SUMMARY = "summary"  # robust summaries written by NVBench (median, quartiles, min)
    SAMPLES = "samples"  # computed from the --jsonbin sample times
    MEAN = "mean"  # mean/stdev fallback (older files)
    NONE = "none"

    def __str__(self) -> str:
        return str(self.value)


class Interval(msgspec.Struct, frozen=True):
    """A timing interval ``[lo, hi]`` around ``center`` (seconds, or cycles)."""

    lo: float
    center: float
    hi: float

    @property
    def is_valid(self) -> bool:
        """``0 < lo <= center <= hi`` and all finite."""
        return (
            math.isfinite(self.lo)
            and math.isfinite(self.hi)
            and 0 < self.lo <= self.center <= self.hi
        )

    @property
    def width(self) -> float:
        return self.hi - self.lo

    def scaled(self, factor: float) -> Interval:
        return Interval(self.lo * factor, self.center * factor, self.hi * factor)


class SideEstimate(msgspec.Struct, frozen=True):
    """What one side (reference or compare) of a row measured.

    ``center``/``noise``/``interval`` are the estimate the decision used (see ``source``);
    ``mean``/``stdev_relative`` are NVBench's mean and relative standard deviation, kept for
    the legacy display. Times are seconds; ``clock_rate`` is the mean SM clock in Hz.
    """

    center: float | None = None
    noise: float | None = None
    interval: Interval | None = None
    source: EvidenceSource = EvidenceSource.NONE
    mean: float | None = None
    stdev_relative: float | None = None
    sample_count: int | None = None
    clock_rate: float | None = None
    is_skipped: bool = False
    skip_reason: str | None = None
    sample_file: str | None = None
    frequency_file: str | None = None
    #: Why a side file that exists was not used (wrong size, non-finite values, ...), so
    #: that an estimate from the summaries after a rejected file is told apart from one
    #: without side files; ``None`` when every side file read was used.
    side_file_problem: str | None = None


class Effect(PartialRecord, frozen=True):
    """Change as a ratio compare/reference of the centers, with a confidence interval.

    ``ratio`` 1.05 means compare takes 5 % longer. ``space`` is ``"time"`` or ``"cycles"``;
    ``basis`` says how the interval was obtained (``"bootstrap"``, ``"summary"``, ...).
    ``tolerance`` is the half-width of the equivalence band the verdict held the interval
    against (SAME inside ``[1/(1+t), 1+t]``), when the method uses one;
    ``calibrated_tolerance`` the tolerance an A/A calibration asked for the state, when it
    raised the band (before the ``[ci] max_tolerance`` cap). ``draws`` are the
    bootstrap draws of the log ratio behind the interval (for suite statistics; the
    comparison drops them once it has used them).
    """

    ratio: float
    lo: float
    hi: float
    confidence: float
    space: str = "time"
    basis: str = "bootstrap"
    tolerance: float | None = None
    calibrated_tolerance: float | None = None
    draws: npt.NDArray[np.float64] | None = None

    _ignored: ClassVar[frozenset[str]] = frozenset({"draws"})

    @property
    def percent(self) -> float:
        return (self.ratio - 1.0) * 100.0


#: Verdicts that rest on the cycle interval alone (the time interval was too wide).
_DECIDED_IN_CYCLES: frozenset[Reason] = frozenset(
    {Reason.CI_SAME_IN_CYCLES, Reason.CI_CHANGE_IN_CYCLES}
)


class Verdict(msgspec.Struct, frozen=True):
    """A decision: status, the one reason behind it, and a human message.

    ``severity`` orders instances of the same reason (bigger = further from passing);
    ``effect``/``cycle_effect`` are set by methods that estimate the change.
    """

    status: Status
    reason: Reason
    message: str = ""
    severity: float = 0.0
    effect: Effect | None = None
    cycle_effect: Effect | None = None

    def __post_init__(self) -> None:
        if self.reason.internal:
            raise ValueError(f"internal reason {self.reason.value} cannot end a decision")

    @property
    def text(self) -> str:
        return self.message or self.reason.message

    @property
    def judged_effect(self) -> Effect | None:
        """The effect the verdict was decided on: the cycles' for verdicts that rest on them
        alone (the time interval was too wide), else the time effect (``None`` without an
        estimate)."""
        if self.cycle_effect is not None and self.reason in _DECIDED_IN_CYCLES:
            return self.cycle_effect
        return self.effect


def symmetric_difference(a: float, b: float) -> float:
    """``(a - b) / min(a, b)``: flips sign, keeps magnitude when ``a`` and ``b`` swap."""
    return (a - b) / min(a, b)


class InputPair(msgspec.Struct, frozen=True):
    """One reference/compare pair of inputs (files; several per side for multi-run)."""

    ref: tuple[str, ...]
    cmp: tuple[str, ...]

    @property
    def label(self) -> str:
        return f"{', '.join(self.ref)} vs. {', '.join(self.cmp)}"


class Row(PartialRecord, frozen=True):
    """One compared state (or a state present on one side only)."""

    benchmark: str
    key: str
    occurrence: int
    axis_values: tuple[StateAxisValue, ...]
    verdict: Verdict
    ref: SideEstimate | None
    cmp: SideEstimate | None
    pair: int = 0
    device_pair: int = 0
    ref_device: int | None = None
    cmp_device: int | None = None
    ref_device_name: str | None = None
    cmp_device_name: str | None = None
    ref_state_name: str | None = None
    cmp_state_name: str | None = None
    ref_state: SubBenchmarkState | None = None
    cmp_state: SubBenchmarkState | None = None

    #: The states are where the row came from, not what it says.
    _ignored: ClassVar[frozenset[str]] = frozenset({"ref_state", "cmp_state"})

    @property
    def status(self) -> Status:
        return self.verdict.status

    @property
    def reason(self) -> Reason:
        return self.verdict.reason

    @property
    def center_key(self) -> str | None:
        """The key of this row's state in ``centers()`` of its benchmark (the compare
        side's state; the reference side's for a removed row; ``row.ref_state.center_key``
        for the reference side's): ``result.centers(f)[row.benchmark][row.center_key]``.
        ``None`` for a row without states (read back from a report)."""
        state = self.cmp_state if self.cmp_state is not None else self.ref_state
        return None if state is None else state.center_key

    @property
    def ref_center(self) -> float | None:
        return None if self.ref is None else self.ref.center

    @property
    def cmp_center(self) -> float | None:
        return None if self.cmp is None else self.cmp.center

    @property
    def frac_diff(self) -> float | None:
        """Plain relative change of the centers, ``(cmp - ref) / ref``."""
        ref, cmp = self.ref_center, self.cmp_center
        if ref is None or cmp is None or not ref > 0 or not math.isfinite(cmp):
            return None
        return (cmp - ref) / ref

    @property
    def center_change(self) -> float | None:
        """Symmetric relative change of the centers, ``(cmp - ref) / min(cmp, ref)``."""
        ref, cmp = self.ref_center, self.cmp_center
        if ref is None or cmp is None or not ref > 0 or not cmp > 0:
            return None
        if not (math.isfinite(ref) and math.isfinite(cmp)):
            return None
        return symmetric_difference(cmp, ref)

    @property
    def change_bounds(self) -> tuple[float, float] | None:
        """Least and most change the two intervals allow (symmetric differences)."""
        if self.ref is None or self.cmp is None:
            return None
        ref, cmp = self.ref.interval, self.cmp.interval
        if ref is None or cmp is None or not (ref.is_valid and cmp.is_valid):
            return None
        return symmetric_difference(cmp.lo, ref.hi), symmetric_difference(cmp.hi, ref.lo)

    @property
    def least_change(self) -> float | None:
        """The least change of the time ratio the two intervals allow, for FAST and SLOW
        rows: ``cmp hi / ref lo - 1`` (FAST: the compare run at least that much faster,
        never below -1) and ``cmp lo / ref hi - 1`` (SLOW); ``None`` for other rows and
        without valid intervals. A ratio minus one, as the effect estimates are (a state
        twice as fast is at most -50 %, not the -100 % of a symmetric difference)."""
        status = self.verdict.status
        if status is not Status.FAST and status is not Status.SLOW:
            return None
        if self.ref is None or self.cmp is None:
            return None
        ref, cmp = self.ref.interval, self.cmp.interval
        if ref is None or cmp is None or not (ref.is_valid and cmp.is_valid):
            return None
        if status is Status.FAST:
            return cmp.hi / ref.lo - 1.0
        return cmp.lo / ref.hi - 1.0

    @property
    def same_devices(self) -> bool:
        return self.ref_device == self.cmp_device and self.ref_device_name == self.cmp_device_name


class Section(msgspec.Struct, frozen=True):
    """Rows of one benchmark on one device pair of one input pair, in output order."""

    pair: int
    benchmark: str
    device_pair: int
    ref_device: int | None
    cmp_device: int | None
    ref_device_name: str | None
    cmp_device_name: str | None
    rows: tuple[Row, ...]

    @property
    def title(self) -> str:
        """``[0] NAME`` or ``[0] A vs. [1] B``; one side only for a one-sided benchmark;
        empty for CPU-only benchmarks."""
        if self.ref_device is None and self.cmp_device is None:
            return ""
        ref = f"[{self.ref_device}] {self.ref_device_name or ''}".rstrip()
        cmp = f"[{self.cmp_device}] {self.cmp_device_name or ''}".rstrip()
        if self.ref_device is None:
            return cmp
        if self.cmp_device is None:
            return ref
        return ref if ref == cmp else f"{ref} vs. {cmp}"


def reason_description(reason: Reason, count: int, worst: Row) -> str:
    """A reason of ``count`` rows (``worst`` the most severe, as :meth:`Comparison.reason_counts`
    gives them) in words true of every one (:meth:`Comparison.reason_summaries`)."""
    if count == 1 or reason is Reason.STATE_SKIPPED:
        return worst.verdict.text
    return reason.message


class Comparison(msgspec.Struct, frozen=True):
    """The result of comparing a reference with a compare run.

    ``rows`` are in output order: input pair, then benchmark (compare-file order, removed
    benchmarks after), then device pair, then state order. ``benchmarks`` lists every
    selected benchmark per input pair, including those whose rows were all filtered out.
    ``suite`` holds the suite-level statistics of methods that estimate effects (geometric
    mean with an interval, expected false flags; :mod:`.suite`).
    """

    rows: tuple[Row, ...]
    method: str
    preset: str
    thresholds: Thresholds
    inputs: tuple[InputPair, ...]
    benchmarks: tuple[tuple[int, str], ...] = ()
    unpaired_files: tuple[tuple[str, str], ...] = ()
    warnings: tuple[str, ...] = ()
    filters: tuple[str, ...] = ()
    settings: Mapping[str, Any] = msgspec.field(default_factory=dict)
    suite: SuiteSummary | None = None
    #: The lines of ``warnings`` about the reference side's runs or states alone, as the
    #: engine told them (:mod:`.warning_tags`; never read back from the text, which quotes
    #: names from the files). Not a report field: a comparison read back from a report has none.
    reference_warnings: tuple[str, ...] = ()
    #: ``(line, kind)`` for the lines of ``warnings`` the engine told with a kind of their
    #: own (:mod:`.warning_tags`: an unpaired file, differing device sections), never read
    #: back from the text, which quotes names. Not a report field, as above.
    warning_kinds: tuple[tuple[str, WarningKind], ...] = ()
    #: ``(copy, kept)`` for each file of a directory input left out as a byte-identical copy
    #: of ``kept``, which was read in its place (NVBench's ``--json`` file beside its
    #: ``--jsonbin`` one; :mod:`.folders`). Not a report field, as above.
    read_once: tuple[tuple[str, str], ...] = ()

    def __iter__(self) -> Iterator[Row]:
        return iter(self.rows)

    def warnings_of(self, kind: WarningKind) -> frozenset[str]:
        """The lines of ``warnings`` the engine told as ``kind`` (not for ``OTHER``)."""
        return frozenset(line for line, told in self.warning_kinds if told is kind)

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def counts(self) -> Counter[Status]:
        """Rows per status (every row, whatever a display threshold hides)."""
        return Counter(row.status for row in self.rows)

    def rows_with(self, statuses: Status | str | Iterable[Status | str]) -> tuple[Row, ...]:
        """The rows whose status is one of ``statuses``: one status (``Status.SLOW`` or its
        text, ``"SLOW"``) or several (``[Status.FAST, "SLOW"]``), in row order."""
        wanted = as_statuses(statuses, "statuses")
        return tuple(row for row in self.rows if row.status in wanted)

    def reason_counts(self, status: Status | str = Status.AMBG) -> list[tuple[Reason, int, Row]]:
        """Reasons of rows with ``status``, most frequent first, with the most severe row.

        Skipped states are counted per distinct message (the benchmark's skip reasons
        differ), so ``state_skipped`` may appear once per message.
        """
        status = as_status(status)
        worst: dict[tuple[Reason, str], Row] = {}
        counts: Counter[tuple[Reason, str]] = Counter()
        for row in self.rows:
            if row.status is not status:
                continue
            group = (row.reason, row.verdict.text if row.reason is Reason.STATE_SKIPPED else "")
            counts[group] += 1
            current = worst.get(group)
            if current is None or row.verdict.severity > current.verdict.severity:
                worst[group] = row
        return [
            (group[0], count, worst[group])
            for group, count in sorted(
                counts.items(), key=lambda item: (-item[1], item[0][0].value, item[0][1])
            )
        ]

    def reason_summaries(self, status: Status | str = Status.AMBG) -> list[tuple[Reason, int, str]]:
        """:meth:`reason_counts` with each reason in words true of every row it counts.

        A reason of several rows is told by its catalogue message: the message of its most
        severe row carries that row's own figures, which the other rows do not share (they
        are in each row's ``reason_message``). A reason of one row keeps that row's message,
        and ``state_skipped`` the skip message its rows share (they are counted by message).
        """
        return [
            (reason, count, reason_description(reason, count, row))
            for reason, count, row in self.reason_counts(status)
        ]

    def sections(self) -> list[Section]:
        """Rows grouped by input pair, benchmark and device pair, in output order."""
        sections: list[Section] = []
        current: list[Row] = []
        group: tuple[int, str, int] | None = None
        for row in self.rows:
            key = (row.pair, row.benchmark, row.device_pair)
            if key != group and current:
                sections.append(_section(current))
                current = []
            group = key
            current.append(row)
        if current:
            sections.append(_section(current))
        return sections

    def to_dataframe(self) -> pd.DataFrame:
        """One row per compared state (needs pandas)."""
        from .records import comparison_frame

        return comparison_frame(self)


def _section(rows: list[Row]) -> Section:
    first = rows[0]
    return Section(
        pair=first.pair,
        benchmark=first.benchmark,
        device_pair=first.device_pair,
        ref_device=first.ref_device,
        cmp_device=first.cmp_device,
        ref_device_name=first.ref_device_name,
        cmp_device_name=first.cmp_device_name,
        rows=tuple(rows),
    )
