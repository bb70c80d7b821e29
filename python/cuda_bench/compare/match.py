"""Pairing a reference with a compare run: files, benchmarks, devices, states.

Everything here is a pure function over paths or loaded results; nothing prints. Rules
(compare.md §5; upstream behaviour in upstream-compare-tools.md §1.1, §1.3, §2):

- Files (:mod:`.folders`): two files are one pair; two directories pair their non-empty
  ``.json`` files by name, sorted, each run once. Files on one side only are returned as
  :class:`UnpairedFile`, never dropped.
- Benchmarks: by name and occurrence (the second ``copy`` of one file pairs with the second
  of the other), in compare-file order, then reference-only benchmarks. Benchmarks on one
  side only come back unpaired (they become ADDED / REMOVED rows). A benchmark that is
  CPU-only on one side and ran on GPUs on the other measures different things, so the two
  are not paired either: each comes back one-sided, with :attr:`BenchmarkMatch.note` saying
  why.
- Devices: by position after ``--reference-devices`` / ``--compare-devices``; repeats and
  reordering are kept on purpose (``0,1`` against ``1,0`` crosses them).
- States: by (state name without ``Device=N``, sorted axis (name, type, stored text)) and
  occurrence; unmatched states are one-sided matches (ADDED / REMOVED), never an error.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import ClassVar

import msgspec

# At run time too (the reader is loaded by then): typing.get_type_hints and msgspec
# resolve the records' annotations.
from ..results._tools_api import (
    BenchmarkResult,
    BenchmarkResultDevice,
    StateAxisValue,
    SubBenchmarkResult,
    SubBenchmarkState,
)
from ._listing import listed
from ._record import PartialRecord
from .errors import CompareInputError
from .folders import FilePair, Side, UnpairedFile, discover_pairs, json_files

__all__ = [
    "BenchmarkMatch",
    "DevicePair",
    "FilePair",
    "Side",
    "StateKey",
    "StateMatch",
    "UnpairedFile",
    "device_differences",
    "device_mismatch_is_fatal",
    "discover_pairs",
    "json_files",
    "match_benchmarks",
    "match_device_states",
    "match_states",
    "names_disagree",
    "names_its_device",
    "pair_devices",
    "states_on_device",
]

_REF_OPTION = "--reference-devices"
_CMP_OPTION = "--compare-devices"


# ---------------------------------------------------------------------------------------------
# Benchmarks


class BenchmarkMatch(msgspec.Struct, frozen=True):
    """A benchmark of the compare run with its reference counterpart (either may be None).

    ``occurrence`` counts benchmarks of the same name in the side's file (0 for the first).
    ``note`` explains why a counterpart of the same name was not paired.
    """

    name: str
    occurrence: int
    ref: SubBenchmarkResult | None
    cmp: SubBenchmarkResult | None
    note: str = ""

    @property
    def is_matched(self) -> bool:
        return self.ref is not None and self.cmp is not None

    @property
    def is_added(self) -> bool:
        """Only the compare run has it."""
        return self.ref is None

    @property
    def is_removed(self) -> bool:
        """Only the reference run has it."""
        return self.cmp is None


def _kind(bench: SubBenchmarkResult) -> str:
    return "CPU-only" if bench.is_cpu_only else "a GPU benchmark"


def match_benchmarks(
    ref: BenchmarkResult,
    cmp: BenchmarkResult,
    select: Callable[[str], bool] | None = None,
) -> list[BenchmarkMatch]:
    """Pair benchmarks by name and occurrence: compare-file order, then reference-only ones.

    ``select(name)`` (e.g. :meth:`FilterPlan.selects_benchmark`) drops benchmarks first.
    """
    ref_by_name: dict[str, list[SubBenchmarkResult]] = {}
    for bench in ref.benchmarks:
        if select is None or select(bench.name):
            ref_by_name.setdefault(bench.name, []).append(bench)
    paired: set[int] = set()
    notes: dict[int, str] = {}
    matches: list[BenchmarkMatch] = []
    seen: Counter[str] = Counter()
    for bench in cmp.benchmarks:
        if select is not None and not select(bench.name):
            continue
        occurrence = seen[bench.name]
        seen[bench.name] += 1
        candidates = ref_by_name.get(bench.name, [])
        counterpart = candidates[occurrence] if occurrence < len(candidates) else None
        if counterpart is None:
            matches.append(BenchmarkMatch(bench.name, occurrence, None, bench))
        elif counterpart.is_cpu_only != bench.is_cpu_only:
            note = (
                f"benchmark '{bench.name}' is {_kind(counterpart)} in the reference run but "
                f"{_kind(bench)} in the compare run; they are not compared"
            )
            notes[counterpart.position] = note
            matches.append(BenchmarkMatch(bench.name, occurrence, None, bench, note))
        else:
            paired.add(counterpart.position)
            matches.append(BenchmarkMatch(bench.name, occurrence, counterpart, bench))
    occurrences = {
        bench.position: occurrence
        for benches in ref_by_name.values()
        for occurrence, bench in enumerate(benches)
    }
    for bench in ref.benchmarks:
        if bench.position in occurrences and bench.position not in paired:
            note = notes.get(bench.position, "")
            matches.append(
                BenchmarkMatch(bench.name, occurrences[bench.position], bench, None, note)
            )
    return matches


# ---------------------------------------------------------------------------------------------
# Devices


class DevicePair(PartialRecord, frozen=True):
    """The ``position``-th device pair of a benchmark.

    Ids are ``None`` on a side that has no such benchmark and for CPU-only benchmarks
    (``is_cpu_only``); ``ref_info``/``cmp_info`` are the devices as the files describe them.
    """

    position: int
    ref_device: int | None
    cmp_device: int | None
    ref_info: BenchmarkResultDevice | None = None
    cmp_info: BenchmarkResultDevice | None = None
    is_cpu_only: bool = False

    # Identity is position and ids; device records hold dicts, which do not hash.
    _ignored: ClassVar[frozenset[str]] = frozenset({"ref_info", "cmp_info"})

    @property
    def ref_name(self) -> str | None:
        return None if self.ref_info is None else self.ref_info.name

    @property
    def cmp_name(self) -> str | None:
        return None if self.cmp_info is None else self.cmp_info.name


def _selected_ids(
    bench: SubBenchmarkResult, selection: Sequence[int] | None, option: str
) -> list[int]:
    if selection is None:
        return bench.devices
    available = set(bench.devices)
    missing = [device for device in dict.fromkeys(selection) if device not in available]
    if missing:
        ids = ", ".join(str(device) for device in missing)
        raise CompareInputError(
            f"benchmark '{bench.name}' does not contain {option} device id(s): {ids} "
            f"(it ran on: {listed(map(str, bench.devices))})"
        )
    return list(selection)


def _device_info(bench: SubBenchmarkResult, device: int) -> BenchmarkResultDevice:
    info = bench.device_info.get(device)
    if info is None:
        raise CompareInputError(
            f"benchmark '{bench.name}' ran on device {device}, but the device list of "
            f"'{bench.source.label}' does not describe it"
        )
    return info


def pair_devices(
    match: BenchmarkMatch,
    ref_selection: Sequence[int] | None = None,
    cmp_selection: Sequence[int] | None = None,
) -> list[DevicePair]:
    """The device pairs of one benchmark, by position after the selections.

    A selection of ``None`` means the benchmark's own device list. CPU-only benchmarks give
    one pair ``(None, None)`` whatever the selections. A one-sided benchmark gives pairs
    with ``None`` on its missing side. Raises :class:`CompareInputError` when a selected id
    is not in the benchmark, when the two sides select different numbers of devices, or
    when a device is missing from its file's device list.
    """
    ref, cmp = match.ref, match.cmp
    if (ref is None or ref.is_cpu_only) and (cmp is None or cmp.is_cpu_only):
        return [DevicePair(0, None, None, is_cpu_only=True)]
    # A device its file does not describe is told first, naming the file (a count that
    # differed because of it named none).
    ref_ids, ref_infos = _described(ref, ref_selection, _REF_OPTION)
    cmp_ids, cmp_infos = _described(cmp, cmp_selection, _CMP_OPTION)
    if ref is None:
        ref_ids, ref_infos = [None] * len(cmp_ids), [None] * len(cmp_ids)
    if cmp is None:
        cmp_ids, cmp_infos = [None] * len(ref_ids), [None] * len(ref_ids)
    if len(ref_ids) != len(cmp_ids):
        raise CompareInputError(
            f"benchmark '{match.name}' has {len(ref_ids)} reference device(s){_of(ref)} but "
            f"{len(cmp_ids)} compare device(s){_of(cmp)}; devices are paired by position, "
            f"select them with {_REF_OPTION}/{_CMP_OPTION}"
        )
    return [
        DevicePair(position, *pair)
        for position, pair in enumerate(zip(ref_ids, cmp_ids, ref_infos, cmp_infos, strict=True))
    ]


def _described(
    bench: SubBenchmarkResult | None, selection: Sequence[int] | None, option: str
) -> tuple[list[int | None], list[BenchmarkResultDevice | None]]:
    """The selected device ids of ``bench`` and the devices its file describes for them."""
    if bench is None:
        return [], []
    ids = _selected_ids(bench, selection, option)
    return list(ids), [_device_info(bench, device) for device in ids]


def _of(bench: SubBenchmarkResult | None) -> str:
    """`` (FILE)``: the file of ``bench`` as the user gave it, or nothing."""
    label = None if bench is None else bench.source.label
    return "" if label is None else f" ({label})"


def _selected_devices(
    result: BenchmarkResult, selection: Sequence[int] | None, option: str
) -> list[BenchmarkResultDevice]:
    if selection is None:
        return list(result.devices.values())
    missing = [device for device in dict.fromkeys(selection) if device not in result.devices]
    if missing:
        ids = ", ".join(str(device) for device in missing)
        name = result.label if result.label is not None else result.path
        where = f" '{name}'" if name is not None else ""
        raise CompareInputError(
            f"{option} device id(s) not present in input{where}: {ids} "
            f"(its devices: {listed(map(str, result.devices))})"
        )
    return [result.devices[device] for device in selection]


_ABSENT = object()


def _show(value: object) -> str:
    return "(absent)" if value is _ABSENT else repr(value)


def device_differences(
    ref: BenchmarkResult,
    cmp: BenchmarkResult,
    ref_selection: Sequence[int] | None = None,
    cmp_selection: Sequence[int] | None = None,
) -> list[str]:
    """Readable differences between the selected device sections, compared by position.

    Each line names the pair by device id (``[0]``, or ``[1 vs. 0]`` when a selection pairs
    different ids) and one differing field: ``[0] name: 'NVIDIA H200' vs. 'NVIDIA H100'``.
    The ``id`` field itself is not compared: pairing different ids is what a selection asks
    for. A count mismatch gives ``device count: 2 vs. 1`` plus one line per extra device.
    Empty when the sections agree.
    """
    ref_devices = _selected_devices(ref, ref_selection, _REF_OPTION)
    cmp_devices = _selected_devices(cmp, cmp_selection, _CMP_OPTION)
    lines: list[str] = []
    if len(ref_devices) != len(cmp_devices):
        lines.append(f"device count: {len(ref_devices)} vs. {len(cmp_devices)}")
    for ref_device, cmp_device in zip(ref_devices, cmp_devices, strict=False):
        lines.extend(_field_differences(ref_device, cmp_device))
    common = min(len(ref_devices), len(cmp_devices))
    lines.extend(f"[{d.id}] only in the reference: {d.name!r}" for d in ref_devices[common:])
    lines.extend(f"[{d.id}] only in the compare run: {d.name!r}" for d in cmp_devices[common:])
    return list(dict.fromkeys(lines))


def _field_differences(ref: BenchmarkResultDevice, cmp: BenchmarkResultDevice) -> list[str]:
    label = f"[{ref.id}]" if ref.id == cmp.id else f"[{ref.id} vs. {cmp.id}]"
    names = list(ref.data) + [name for name in cmp.data if name not in ref.data]
    lines = []
    for name in names:
        if name == "id":
            continue
        ref_value = ref.data.get(name, _ABSENT)
        cmp_value = cmp.data.get(name, _ABSENT)
        if ref_value != cmp_value:
            lines.append(f"{label} {name}: {_show(ref_value)} vs. {_show(cmp_value)}")
    return lines


def device_mismatch_is_fatal(
    differences: Sequence[str],
    ref_selection: Sequence[int] | None,
    cmp_selection: Sequence[int] | None,
    ignore_devices: bool,
) -> bool:
    """Upstream's rule: differing device sections stop the comparison unless the user chose
    devices explicitly (any selection other than ``all``) or passed ``--ignore-devices``;
    then they are a warning."""
    explicit = ref_selection is not None or cmp_selection is not None
    return bool(differences) and not explicit and not ignore_devices


# ---------------------------------------------------------------------------------------------
# States


class StateKey(msgspec.Struct, frozen=True):
    """What identifies a state across runs: name without ``Device=N``, and its axis values.

    ``axes`` holds ``(name, type, stored text)`` sorted, so files that store a value as a
    string or as a native number (older files) give the same key.
    """

    name: str
    axes: tuple[tuple[str, str, str], ...]

    @classmethod
    def of(cls, state: SubBenchmarkState) -> StateKey:
        return cls(state.key, _axis_key(state.axis_values))

    def __str__(self) -> str:
        return self.name


def _axis_key(axis_values: Iterable[StateAxisValue]) -> tuple[tuple[str, str, str], ...]:
    return tuple(sorted((value.name, value.type, value.value) for value in axis_values))


class StateMatch(msgspec.Struct, frozen=True):
    """The ``occurrence``-th state with ``key`` on each side; one side is None when absent."""

    key: StateKey
    occurrence: int
    ref: SubBenchmarkState | None
    cmp: SubBenchmarkState | None

    @property
    def is_matched(self) -> bool:
        return self.ref is not None and self.cmp is not None

    @property
    def is_added(self) -> bool:
        return self.ref is None

    @property
    def is_removed(self) -> bool:
        return self.cmp is None

    @property
    def state(self) -> SubBenchmarkState:
        """The compare state, or the reference state when only it exists."""
        state = self.cmp if self.cmp is not None else self.ref
        assert state is not None
        return state


def match_states(
    ref_states: Iterable[SubBenchmarkState], cmp_states: Iterable[SubBenchmarkState]
) -> list[StateMatch]:
    """Pair states by key and occurrence: compare order, then reference-only states.

    Meant for the states of one device pair (see :func:`states_on_device`).
    """
    ref_by_key: dict[StateKey, list[SubBenchmarkState]] = {}
    ref_order: list[tuple[StateKey, int, SubBenchmarkState]] = []
    for state in ref_states:
        key = StateKey.of(state)
        occurrences = ref_by_key.setdefault(key, [])
        ref_order.append((key, len(occurrences), state))
        occurrences.append(state)
    matches: list[StateMatch] = []
    seen: Counter[StateKey] = Counter()
    for state in cmp_states:
        key = StateKey.of(state)
        occurrence = seen[key]
        seen[key] += 1
        candidates = ref_by_key.get(key, [])
        ref = candidates[occurrence] if occurrence < len(candidates) else None
        matches.append(StateMatch(key, occurrence, ref, state))
    matches.extend(
        StateMatch(key, occurrence, state, None)
        for key, occurrence, state in ref_order
        if occurrence >= seen[key]
    )
    return _paired_by_axes(matches)


def _paired_by_axes(matches: list[StateMatch]) -> list[StateMatch]:
    """``matches`` with a compare-only and a reference-only state paired where the stored
    names disagree but the axis values agree (a state name is free text in the file; the
    device and axis values are what identify a state). Only where exactly one state on each
    side has those axis values, and they are not empty: never a guess. The engine warns
    about each such pair (:func:`names_disagree`)."""
    added = [m for m in matches if m.ref is None and m.key.axes]
    removed = [m for m in matches if m.cmp is None and m.key.axes]
    if not added or not removed:
        return matches
    added_by_axes = Counter(m.key.axes for m in added)
    removed_by_axes: dict[tuple[tuple[str, str, str], ...], list[StateMatch]] = {}
    for m in removed:
        removed_by_axes.setdefault(m.key.axes, []).append(m)
    paired: dict[int, StateMatch] = {}
    dropped: set[int] = set()
    for m in added:
        partners = removed_by_axes.get(m.key.axes, [])
        if added_by_axes[m.key.axes] == 1 and len(partners) == 1:
            paired[id(m)] = StateMatch(m.key, m.occurrence, partners[0].ref, m.cmp)
            dropped.add(id(partners[0]))
    if not paired:
        return matches
    return [paired.get(id(m), m) for m in matches if id(m) not in dropped]


def names_its_device(state: SubBenchmarkState) -> bool:
    """Whether a GPU state's stored name begins with the ``Device=N`` token of its device
    field (CPU-only states name none)."""
    device = state.device
    if device is None:
        return True
    token = f"Device={device}"
    name = state.state_name
    return name == token or name.startswith(token + " ")


def names_disagree(match: StateMatch) -> bool:
    """Whether a matched row's two states were paired by axis values although their stored
    names (without ``Device=``) differ."""
    return match.ref is not None and match.cmp is not None and match.ref.key != match.cmp.key


def states_on_device(
    bench: SubBenchmarkResult | None, device: int | None
) -> list[SubBenchmarkState]:
    """The states of ``bench`` measured on ``device`` (all states of a CPU-only benchmark)."""
    if bench is None:
        return []
    if bench.is_cpu_only:
        return list(bench)
    return [state for state in bench if state.device == device]


def match_device_states(
    match: BenchmarkMatch,
    pair: DevicePair,
    keep: Callable[[SubBenchmarkState], bool] | None = None,
) -> list[StateMatch]:
    """:func:`match_states` over one device pair, after dropping states ``keep`` rejects.

    ``keep`` is typically ``lambda s: plan.selects_state(match.name, s.axis_values)``.
    """
    ref = states_on_device(match.ref, pair.ref_device)
    cmp = states_on_device(match.cmp, pair.cmp_device)
    if keep is not None:
        ref = [state for state in ref if keep(state)]
        cmp = [state for state in cmp if keep(state)]
    return match_states(ref, cmp)
