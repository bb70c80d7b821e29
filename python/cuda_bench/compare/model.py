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
from ..results import StateAxisValue, SubBenchmarkState
from ._record import PartialRecord
from .thresholds import Thresholds

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
    "symmetric_difference",
]


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


class Reason(str, Enum):
    """Why a row got its status: canonical code, short display alias, message.

    The codes of the ``robust`` method are NVIDIA's canonical reason codes, so scripts
    written against ``nvbench-compare-robust`` output keep working. ``internal`` reasons are
    intermediate steps of a decision and never end up on a row.
    """

    alias: str
    message: str
    internal: bool

    def __new__(cls, code: str, alias: str, message: str, internal: bool = False) -> Reason:
        member = str.__new__(cls, code)
        member._value_ = code
        member.alias = alias
        member.message = message
        member.internal = internal
        return member

    def __str__(self) -> str:
        return str(self.value)

    # -- unusable input (????) --------------------------------------------------------------
    #: SKIP when both runs skipped the state, ``????`` when one did (NVIDIA's tool shows
    #: both as ``????``).
    STATE_SKIPPED = ("state_skipped", "state-skip", "state was skipped")
    GPU_TIMING_SUMMARIES_MISSING = (
        "gpu_timing_summaries_missing",
        "summ-miss",
        "timing summaries are missing",
    )
    TIMING_CENTER_MISSING = ("timing_center_missing", "center-miss", "timing center is missing")
    TIMING_CENTER_NONFINITE = (
        "timing_center_nonfinite",
        "center-nonfin",
        "timing center is not finite",
    )
    TIMING_CENTER_NONPOSITIVE = (
        "timing_center_nonpositive",
        "center-nonpos",
        "timing center is not positive",
    )
    # -- clear gap (FAST/SLOW) and its confirmation ----------------------------------------
    MISSING_INTERVAL = (
        "missing_interval",
        "int-miss",
        "comparable timing intervals could not be built",
    )
    NO_CLEAR_GAP = (
        "no_clear_gap",
        "no-gap",
        "timing intervals are not separated by a clear gap",
        True,
    )
    CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES = (
        "clear_gap_confirmed_by_bulk_cycles",
        "bc-gap",
        "clear timing gap, confirmed by the per-sample cycle intervals",
    )
    BULK_CYCLE_GAP_NOT_CONFIRMED = (
        "bulk_cycle_gap_not_confirmed",
        "bc-gap-miss",
        "clear timing gap, but the per-sample cycle intervals do not confirm it",
    )
    BULK_CYCLE_DATA_UNUSABLE = (
        "bulk_cycle_data_unusable",
        "bc-bad",
        "sample time and frequency files are present but unusable for cycles",
    )
    CLEAR_GAP_CONFIRMED_BY_SUMMARY_CYCLES = (
        "clear_gap_confirmed_by_summary_cycles",
        "sc-gap",
        "clear timing gap, confirmed by intervals scaled with the mean SM clock",
    )
    SUMMARY_CYCLE_GAP_NOT_CONFIRMED = (
        "summary_cycle_gap_not_confirmed",
        "sc-gap-miss",
        "clear timing gap, but intervals scaled with the mean SM clock do not confirm it",
    )
    MISSING_CLOCK_RATE = (
        "missing_clock_rate",
        "clk-miss",
        "clear timing gap, but no SM clock summaries to confirm it",
    )
    INVALID_CLOCK_RATE = (
        "invalid_clock_rate",
        "clk-bad",
        "SM clock summaries are invalid, so the decision cannot be confirmed",
    )
    # -- SAME path --------------------------------------------------------------------------
    NOISE_UNAVAILABLE = (
        "noise_unavailable",
        "noise-miss",
        "relative dispersion is unavailable, negative or not finite",
    )
    CENTERS_NOT_CLOSE = (
        "centers_not_close",
        "centers-far",
        "timing centers are too far apart to call them the same",
    )
    WEAK_INTERVAL_OVERLAP = (
        "weak_interval_overlap",
        "weak-overlap",
        "timing intervals overlap too little to call them the same",
    )
    NOISE_TOO_HIGH = (
        "noise_too_high",
        "noise-high",
        "relative dispersion is too high to call them the same",
    )
    SAME_SUMMARY = (
        "same_summary",
        "sum-same",
        "timing centers are close and the intervals overlap well",
        True,
    )
    SAME_WITHOUT_CLOCK_RATE = (
        "same_without_clock_rate",
        "same-no-clk",
        "timing centers are close and the intervals overlap well; no SM clock summaries",
    )
    SAME_CONFIRMED_BY_CYCLES = (
        "same_confirmed_by_cycles",
        "sc-same",
        "timing and SM-clock-scaled intervals both support same",
    )
    CYCLE_SAME_NOT_CONFIRMED = (
        "cycle_same_not_confirmed",
        "sc-same-miss",
        "intervals scaled with the mean SM clock do not support same",
    )
    BULK_DATA_UNAVAILABLE = (
        "bulk_data_unavailable",
        "bulk-miss",
        "per-sample time data are unavailable",
        True,
    )
    BULK_TIME_DATA_UNUSABLE = (
        "bulk_time_data_unusable",
        "bt-bad",
        "per-sample time data are empty or unusable",
    )
    BULK_TIME_SAME = (
        "bulk_time_same",
        "bt-same",
        "per-sample times cover each other (nearest-neighbour test)",
        True,
    )
    BULK_CYCLE_SAME = (
        "bulk_cycle_same",
        "bc-same",
        "per-sample cycles cover each other (nearest-neighbour test)",
        True,
    )
    BULK_TIME_SUPPORT_MISMATCH = (
        "bulk_time_support_mismatch",
        "bt-sup-miss",
        "per-sample times do not cover each other",
    )
    BULK_CYCLE_SUPPORT_MISMATCH = (
        "bulk_cycle_support_mismatch",
        "bc-sup-miss",
        "per-sample cycles do not cover each other",
    )
    BULK_TIME_SAME_WITHOUT_CYCLES = (
        "bulk_time_same_without_cycles",
        "bt-same-no-cyc",
        "per-sample times cover each other; no cycle data",
    )
    BULK_TIME_SAME_CONFIRMED_BY_SUMMARY_CYCLES = (
        "bulk_time_same_confirmed_by_summary_cycles",
        "bt-same-sc",
        "per-sample times cover each other and SM-clock-scaled intervals confirm same",
    )
    BULK_SAME = (
        "bulk_same",
        "bulk-same",
        "per-sample times and cycles both cover each other",
    )
    # -- ours: matching -------------------------------------------------------------------
    STATE_ADDED = ("state_added", "added", "state exists only in the compare run")
    STATE_REMOVED = ("state_removed", "removed", "state exists only in the reference run")
    # -- ours: CPU-only measurements (robust method) ---------------------------------------
    CLEAR_GAP_CPU_ONLY = (
        "clear_gap_cpu_only",
        "cpu-gap",
        "clear timing gap, but a CPU-only measurement has no SM clock to confirm it",
    )
    MEASUREMENT_KIND_MISMATCH = (
        "measurement_kind_mismatch",
        "kind-diff",
        "one side is a GPU measurement and the other CPU-only; they cannot be compared",
    )
    # -- ours: method ci (confidence interval of the ratio against a tolerance band) --------
    CI_SAME = (
        "ci_same",
        "ci-same",
        "time and cycle ratio intervals lie inside the tolerance band",
    )
    CI_SAME_WITHOUT_CYCLES = (
        "ci_same_without_cycles",
        "ci-same-no-cyc",
        "time ratio interval lies inside the tolerance band; no SM clock data",
    )
    CI_SAME_IN_TIME = (
        "ci_same_in_time",
        "ci-same-t",
        "time ratio interval lies inside the band; the cycle interval is too wide to tell",
    )
    CI_SAME_IN_CYCLES = (
        "ci_same_in_cycles",
        "ci-same-c",
        "cycle ratio interval lies inside the band; the time interval is too wide to tell",
    )
    CI_CHANGE_CONFIRMED_BY_CYCLES = (
        "ci_change_confirmed_by_cycles",
        "ci-gap-cyc",
        "time and cycle ratio intervals lie beyond the tolerance band, same direction",
    )
    CI_CHANGE_WITHOUT_CYCLES = (
        "ci_change_without_cycles",
        "ci-gap-no-cyc",
        "time ratio interval lies beyond the tolerance band; no SM clock data",
    )
    CI_CHANGE_IN_CYCLES = (
        "ci_change_in_cycles",
        "ci-gap-c",
        "cycle ratio interval lies beyond the band; the time interval is too wide to tell",
    )
    CLOCK_CHANGE_EXPLAINS_TIME = (
        "clock_change_explains_time",
        "clk-explains",
        "time changed beyond the band but cycles did not: an SM clock change, not the code",
    )
    CI_CYCLES_DISAGREE = (
        "ci_cycles_disagree",
        "ci-cyc-diff",
        "time and cycle ratio intervals reach different verdicts",
    )
    CI_CYCLES_UNCONFIRMED = (
        "ci_cycles_unconfirmed",
        "ci-cyc-edge",
        "the time verdict is not confirmed: the cycle interval crosses a band edge",
    )
    CI_STRADDLES_TOLERANCE = (
        "ci_straddles_tolerance",
        "ci-edge",
        "the ratio interval crosses one edge of the tolerance band",
    )
    CI_WIDER_THAN_TOLERANCE = (
        "ci_wider_than_tolerance",
        "ci-wide",
        "the ratio interval is wider than the tolerance band: too noisy to tell",
    )
    CI_MEDIAN_MEAN_DISAGREE = (
        "ci_median_mean_disagree",
        "ci-mean-diff",
        "from summaries only, the median and mean ratio intervals reach different verdicts",
    )
    RUN_NOT_STATIONARY = (
        "run_not_stationary",
        "run-drift",
        "a single run drifts within itself, so drift between runs cannot be told from a "
        "change; use several interleaved runs or a calibration",
    )
    TOO_NOISY_TO_JUDGE = (
        "too_noisy_to_judge",
        "too-noisy",
        "the calibrated run-to-run noise of this state needs a tolerance above [ci] "
        "max_tolerance, so it cannot be judged on this machine; more runs per side, more "
        "samples per run or a quieter machine help",
    )
    EFFECT_UNAVAILABLE = (
        "effect_unavailable",
        "eff-miss",
        "no ratio interval: no sample times, and no quartiles or stdev with a sample count",
    )


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


class SuiteSummary(msgspec.Struct, frozen=True):
    """Suite-level statistics of a comparison (:mod:`.suite`, which computes it).

    ``ratio`` is the geometric mean of compare/reference over ``rows`` rows; ``lo``/``hi``
    bound it at ``confidence`` when the rows carried bootstrap draws (``basis``
    ``"bootstrap"``; ``"centers"`` for the plain geometric mean of the center ratios).
    ``expected_false_flags`` is the expected number of FAST/SLOW rows if nothing had
    changed, over the ``flag_rows`` rows that have a tolerance band. ``interval_covers``
    says what the interval accounts for (``"sampling"`` or ``"sampling+runs"``), and
    ``drift_rows`` counts the rows AMBG for drift (:mod:`.suite`).
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

    @property
    def percent(self) -> float:
        return (self.ratio - 1.0) * 100.0

    @property
    def claims_change(self) -> bool:
        """Whether the geometric mean may be read as a suite-wide change: no row is AMBG
        because its runs drift."""
        return self.drift_rows == 0


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

    def __iter__(self) -> Iterator[Row]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def counts(self) -> Counter[Status]:
        """Rows per status (every row, whatever a display threshold hides)."""
        return Counter(row.status for row in self.rows)

    def rows_with(self, statuses: Iterable[Status]) -> tuple[Row, ...]:
        wanted = frozenset(statuses)
        return tuple(row for row in self.rows if row.status in wanted)

    def reason_counts(self, status: Status = Status.AMBG) -> list[tuple[Reason, int, Row]]:
        """Reasons of rows with ``status``, most frequent first, with the most severe row.

        Skipped states are counted per distinct message (the benchmark's skip reasons
        differ), so ``state_skipped`` may appear once per message.
        """
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
