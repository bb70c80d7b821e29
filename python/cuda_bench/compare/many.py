"""N-way comparisons: one baseline against several candidates, state by state.

``compare_many(base, {"a": a_json, "b": b_json})`` is the pairwise comparison
(:func:`~.api.compare`) of the baseline with each candidate, lined up into a matrix: one
:class:`MatrixRow` per state, one cell per candidate (the pairwise :class:`~.model.Row`).
The baseline's files are read once and shared by every pair.

Many verdicts, few false alarms. With K candidates a state gets K verdicts, and the chance
that at least one of them flags a change that is not there grows with K. A FAST or SLOW
verdict of the ``ci`` method must therefore also hold at a level that keeps the K change
calls of a state together at the nominal level: the Bonferroni adjustment, each at
``1 - (1 - confidence) / K`` (Dunn, "Multiple comparisons among means", JASA 56 (1961)
52-64; :attr:`~.thresholds.Thresholds.ci_change_confidence`). It needs no assumption on how
the candidates' errors correlate (they share the baseline's). A change the wider intervals
do not confirm is AMBG ``ci_change_not_family_wide``. The correction applies to change
calls only: false alarms are FAST/SLOW verdicts, while SAME claims that the interval lies
inside the band, which no multiplicity makes a false alarm; SAME, AMBG and the reported
intervals stay those of the pairwise comparison at the nominal level, so every candidate's
column shows the pairwise intervals, and its verdicts except for changes the family-wise
level does not confirm. ``correction="none"`` keeps the pairwise verdicts as they are.
Methods with no interval level (``robust``) are unaffected.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, cast

import msgspec

from ..results._errors import check_flag
from ..results._tools_api import BenchmarkResult, StateAxisValue
from ._arguments import (
    DeviceSelection,
    checked_jobs,
    checked_method,
    checked_source,
    device_selection,
    filter_plan,
)
from .api import centers_alike, compare, same_run_warnings
from .config import ComparisonConfig, checked_thresholds, resolve_thresholds
from .errors import CompareError
from .filters import FilterItem, FilterPlan
from .inputs import Source, load_result
from .methods import DEFAULT_METHOD, Method
from .model import Comparison, Row, SideEstimate
from .runs import expand_runs
from .thresholds import Thresholds

if TYPE_CHECKING:
    from . import calibrate
else:
    from .._lazy import LazyModule

    # Named through the module, imported when an annotation is read (typing.get_type_hints):
    # most comparisons have no calibration, and its module loads the ci method's.
    calibrate = LazyModule("cuda.bench.compare.calibrate")

__all__ = [
    "Candidate",
    "Correction",
    "MatrixRow",
    "MultiComparison",
    "StateRef",
    "compare_many",
    "default_names",
    "with_read_once",
]

#: The ``ci`` confidence an adjustment may ask for at most (the ``[ci] confidence`` limit).
_MAX_CONFIDENCE = 0.9999


class Correction(str, Enum):
    """How the level change calls of the K pairs of a state must hold at is adjusted
    (module docstring)."""

    BONFERRONI = "bonferroni"
    NONE = "none"

    def __str__(self) -> str:
        return str(self.value)

    def confidence(self, nominal: float, family_size: int) -> float:
        """The per-pair confidence that keeps a family of ``family_size`` change calls at
        ``nominal``."""
        if self is Correction.NONE or family_size <= 1:
            return nominal
        return min(_MAX_CONFIDENCE, 1.0 - (1.0 - nominal) / family_size)


class Candidate(msgspec.Struct, frozen=True):
    """One candidate: its name and its pairwise comparison with the baseline."""

    name: str
    comparison: Comparison


class StateRef(msgspec.Struct, frozen=True, order=True):
    """A state of the matrix: the baseline input it comes from (its label, ``""`` for a
    state only the candidates have), benchmark, device (the baseline side's, else the
    candidate's), state key and occurrence."""

    input: str
    benchmark: str
    device: int | None
    key: str
    occurrence: int


class MatrixRow(msgspec.Struct, frozen=True):
    """One state against every candidate.

    ``cells`` follow the candidates' order; a cell is ``None`` where that pair has no row
    for the state (a filter or an unpaired file left it out). ``baseline`` is the baseline
    side's estimate. ``best`` names the contenders that may be the fastest (the baseline's
    name among them): one name when the fastest contender's interval overlaps no other's,
    several for a tie, empty when a candidate compared has no interval to rank it by.
    """

    state: StateRef
    axis_values: tuple[StateAxisValue, ...]
    baseline: SideEstimate | None
    cells: tuple[Row | None, ...]
    best: tuple[str, ...] = ()


class MultiComparison(msgspec.Struct, frozen=True, dict=True):
    """A baseline compared with several candidates (:func:`compare_many`).

    ``confidence`` is the nominal interval level (the level of every pair's intervals and
    of its SAME verdicts); ``pair_confidence`` the level each pair's FAST/SLOW verdicts were
    confirmed at, after the ``correction`` over ``family_size`` candidates (the module
    docstring; equal to ``confidence`` without a correction).
    """

    baseline: str
    candidates: tuple[Candidate, ...]
    correction: Correction
    family_size: int
    confidence: float
    pair_confidence: float

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(candidate.name for candidate in self.candidates)

    def __getitem__(self, name: str) -> Comparison:
        for candidate in self.candidates:
            if candidate.name == name:
                return candidate.comparison
        raise KeyError(name)

    def matrix(self) -> tuple[MatrixRow, ...]:
        """Every state, in the first candidate's row order, then the states only later
        candidates have, in their order. Lined up once per comparison: every renderer
        asks for it, some several times."""
        return self._lines

    @functools.cached_property
    def _lines(self) -> tuple[MatrixRow, ...]:
        order: dict[StateRef, int] = {}
        cells: list[list[Row | None]] = []
        count = len(self.candidates)
        for position, candidate in enumerate(self.candidates):
            for row in candidate.comparison.rows:
                state = state_ref(candidate.comparison, row)
                index = order.setdefault(state, len(cells))
                if index == len(cells):
                    cells.append([None] * count)
                cells[index][position] = row
        return tuple(self._matrix_row(state, cells[index]) for state, index in order.items())

    def _matrix_row(self, state: StateRef, cells: list[Row | None]) -> MatrixRow:
        present = [row for row in cells if row is not None]
        baseline = next((row.ref for row in present if row.ref is not None), None)
        return MatrixRow(
            state,
            present[0].axis_values,
            baseline,
            tuple(cells),
            best_of(self.baseline, self.names, cells),
        )


def state_ref(comparison: Comparison, row: Row) -> StateRef:
    """Where ``row`` of a pairwise comparison sits in the matrix."""
    label = ", ".join(comparison.inputs[row.pair].ref) if row.ref is not None else ""
    device = row.ref_device if row.ref_device is not None else row.cmp_device
    return StateRef(label, row.benchmark, device, row.key, row.occurrence)


def best_of(baseline: str, names: Sequence[str], cells: Sequence[Row | None]) -> tuple[str, ...]:
    """The contenders that may be fastest for one state.

    Contenders are the baseline (a ratio of exactly 1) and every candidate whose row has a
    judged effect interval; the fastest is the one of least ratio, and every contender whose
    interval overlaps its own ties with it. Empty when a candidate compared on both sides
    has no interval (it cannot be ranked, so no winner can be named honestly), and for a
    state the baseline does not have.
    """
    if not any(row is not None and row.ref is not None for row in cells):
        return ()  # a state the baseline lacks: nothing to rank against
    contenders: list[tuple[float, float, float, str]] = [(1.0, 1.0, 1.0, baseline)]
    for name, row in zip(names, cells, strict=True):
        if row is None or not row.status.is_matched or row.ref is None or row.cmp is None:
            continue
        effect = row.verdict.judged_effect
        if effect is None:
            return ()
        contenders.append((effect.ratio, effect.lo, effect.hi, name))
    ratio, lo, hi, _ = min(contenders)
    del ratio
    return tuple(
        name for _, other_lo, other_hi, name in contenders if other_lo <= hi and lo <= other_hi
    )


def default_names(sources: Sequence[Source | Sequence[Source]]) -> list[str]:
    """Names for inputs: file stems (a run list: its first run's), made unique by a
    ``-2``, ``-3`` ... suffix in order."""
    names: list[str] = []
    taken: set[str] = set()
    for source in sources:
        first = source[0] if isinstance(source, list | tuple) and source else source
        if isinstance(first, BenchmarkResult):
            stem = Path(first.label).stem if first.label else "result"
        else:
            stem = Path(os.fspath(first)).stem or "input"  # type: ignore[arg-type]
        name, suffix = stem, 2
        while name in taken:
            name, suffix = f"{stem}-{suffix}", suffix + 1
        taken.add(name)
        names.append(name)
    return names


def _read_once(
    source: Source | Sequence[Source], copies: dict[Path, Path]
) -> Source | Sequence[Source]:
    """The baseline with its files loaded, so that every pair shares one read (a directory
    given alone stays a path: it pairs with each candidate's files by name; a directory in
    a list of runs stands for its runs, which are loaded, each once: ``copies`` as
    :func:`~.runs.expand_runs` fills it)."""
    runs = expand_runs(source, "reference", copies)
    if runs is not None:
        return [_loaded(item) for item in runs]
    return _loaded(cast(Source, source))


def _loaded(source: Source) -> Source:
    if isinstance(source, BenchmarkResult) or Path(os.fspath(source)).is_dir():
        return source
    return load_result(source)


def _files_given(source: object) -> list[str | os.PathLike[str]]:
    """The files named in ``source`` for the check of a run on both sides: a path, or a
    list of runs whose folders stand for their ``.json`` files (``--runs``; a folder given
    alone pairs its files by name and is left out, as are results built in memory)."""
    items: Sequence[object]
    if isinstance(source, list | tuple):
        items = expand_runs(list(source), "compare") or ()
    else:
        items = [source]
    return [item for item in items if isinstance(item, str | os.PathLike) and os.path.isfile(item)]


def _check_candidates(
    candidates: object,
    cmp_devices: DeviceSelection | Mapping[str, DeviceSelection],
    baseline: str,
) -> None:
    """Refuse ``candidates`` that map no name to an input, a candidate's name that is not
    text, is empty or is the ``baseline``'s (every matrix row's ``best`` names its
    contenders by name, so two of one name could not be told apart; the command line
    gives a name the baseline has to the baseline's runs), and a ``cmp_devices`` mapping
    that names no candidate (its selection would apply to nothing, silently)."""
    if not isinstance(candidates, Mapping):
        raise TypeError(
            "candidates must map each candidate's name to its input, e.g. "
            f"{{'new': 'new.json'}}; got {candidates!r}"
        )
    if not candidates:
        raise CompareError("compare_many needs at least one candidate")
    for name in candidates:
        if not isinstance(name, str):
            raise TypeError(f"candidates: each name must be text, got {name!r}")
        if not name.strip():
            raise CompareError("candidates: a candidate's name is empty; name each one")
        checked_source(candidates[name], f"candidates[{name!r}]")
        if name == baseline:
            raise CompareError(
                f"candidates: {name!r} is the baseline's name (base_name, by default the "
                "baseline's file stem); give the candidate another name"
            )
    if isinstance(cmp_devices, Mapping):
        unknown = [name for name in cmp_devices if name not in candidates]
        if unknown:
            raise CompareError(
                f"cmp_devices: {unknown[0]!r} is no candidate; the candidates are "
                f"{', '.join(map(str, candidates))}"
            )


def _correction(correction: Correction | str) -> Correction:
    try:
        return Correction(correction)
    except ValueError:
        names = " or ".join(repr(one.value) for one in Correction)
        raise CompareError(f"correction must be {names}, got {correction!r}") from None


def compare_many(
    base: Source | Sequence[Source],
    candidates: Mapping[str, Source | Sequence[Source]],
    *,
    base_name: str | None = None,
    correction: Correction | str = Correction.BONFERRONI,
    method: str | Method = DEFAULT_METHOD,
    preset: str | None = None,
    config: ComparisonConfig | str | os.PathLike[str] | None = None,
    thresholds: Thresholds | None = None,
    filters: FilterPlan | Sequence[FilterItem] | None = None,
    ref_devices: DeviceSelection = None,
    cmp_devices: DeviceSelection | Mapping[str, DeviceSelection] = None,
    ignore_devices: bool = False,
    calibration: calibrate.Calibration | str | os.PathLike[str] | None = None,
    jobs: int | None = 1,
) -> MultiComparison:
    """Compare a baseline with each of several candidates, state by state.

    ``candidates`` maps names to inputs; each input, like ``base``, is anything
    :func:`~.api.compare` takes for one side (a file, a directory, a loaded result, or a
    list of runs). ``base_name`` defaults to the baseline's file stem. ``cmp_devices`` may
    map candidate names to their device selection. ``correction`` adjusts the level the
    ``ci`` method's change calls must hold at over the candidates (module docstring). The
    other arguments are those of :func:`~.api.compare`, applied to every pair.

    Raises :class:`~.errors.CompareError` without candidates, and whatever a pairwise
    comparison raises, for the first pair that raises it.
    """
    checked_source(base, "base")
    if base_name is not None and not isinstance(base_name, str):
        raise TypeError(f"base_name must be text or None, got {base_name!r}")
    if base_name is not None and not base_name.strip():
        raise CompareError("base_name is empty; give the baseline a name, or None")
    baseline = base_name if base_name is not None else default_names([base])[0]
    _check_candidates(candidates, cmp_devices, baseline)
    chosen = checked_method(method)
    adjustment = _correction(correction)
    jobs = checked_jobs(jobs)
    filters = filter_plan(filters)
    device_selection(ref_devices, "ref_devices", "--reference-devices")
    check_flag(ignore_devices, "ignore_devices")
    if thresholds is None:
        preset, thresholds = resolve_thresholds(preset, config)
    else:
        thresholds = checked_thresholds(thresholds)
    nominal = float(thresholds.ci_confidence)
    pair_confidence = adjustment.confidence(nominal, len(candidates))
    adjusted = replace(
        thresholds, ci_change_confidence=pair_confidence if pair_confidence > nominal else 0.0
    )
    base_copies: dict[Path, Path] = {}
    shared_base = _read_once(base, base_copies)
    compared: list[Candidate] = []
    for name, source in candidates.items():
        devices = cmp_devices.get(name) if isinstance(cmp_devices, Mapping) else cmp_devices
        comparison = compare(
            shared_base,
            source,
            method=chosen,
            preset=preset,
            thresholds=adjusted,
            filters=filters,
            ref_devices=ref_devices,
            cmp_devices=devices,
            ignore_devices=ignore_devices,
            calibration=calibration,
            jobs=jobs,
        )
        # The baseline reaches compare() loaded, where it tells no file: asked here, as
        # compare() asks (the same file always; a copy where the runs are several or every
        # decided row has one center on both sides), each such run named.
        several = isinstance(base, list | tuple) or isinstance(source, list | tuple)
        lines = same_run_warnings(
            _files_given(base),
            _files_given(source),
            copies=several or centers_alike(comparison.rows),
        )
        if lines:
            comparison = msgspec.structs.replace(
                comparison, warnings=(*comparison.warnings, *lines)
            )
        compared.append(Candidate(name, comparison))
    # The baseline's runs reach each pair loaded: its files left out are told with each.
    many = MultiComparison(
        baseline=baseline,
        candidates=tuple(compared),
        correction=adjustment,
        family_size=len(candidates),
        confidence=nominal,
        pair_confidence=pair_confidence,
    )
    return with_read_once(many, base_copies)


def with_read_once(many: MultiComparison, copies: Mapping[Path, Path]) -> MultiComparison:
    """``many`` with the files ``copies`` maps (each left out as a copy of the file read in
    its place: :attr:`~.model.Comparison.read_once`) told by every candidate's comparison,
    before those it lists itself: the runs they stand in for reach each pair loaded."""
    if not copies:
        return many
    told = tuple((str(copy), str(kept)) for copy, kept in copies.items())
    candidates = tuple(
        msgspec.structs.replace(
            candidate,
            comparison=msgspec.structs.replace(
                candidate.comparison, read_once=(*told, *candidate.comparison.read_once)
            ),
        )
        for candidate in many.candidates
    )
    return msgspec.structs.replace(many, candidates=candidates)
