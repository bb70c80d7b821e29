"""What an NVBench run must hold before the archive takes it: checks that write nothing.

Each check raises :class:`ArchiveError` with one line naming the file and the problem; the
ingest runs them all before it writes anything, so a refused run leaves the archive as it
was.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Final, TypeGuard

import numpy as np

# The range of the archive's int64 columns (device, sample count, axis values, order).
from .._numbers import INT64_MAX, INT64_MIN, is_int64
from .._untrusted import control_character, shortened_numbers, visible
from ..compare.bootstrap import median_rank
from ..compare.bulk import CLOCK_RANGE
from ..compare.evidence import MeasurementKind, usable_clock, usable_time
from ._state_samples import state_label, usable_samples

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..results._tools_api import BenchmarkResult, SubBenchmarkState

__all__ = [
    "ABSENT",
    "NO_STATE",
    "ArchiveError",
    "check_commit",
    "check_devices",
    "check_keys",
    "check_labels",
    "check_medians",
    "check_states",
    "check_summaries",
    "median_summary",
    "repeated_state",
    "shown_value",
    "state_twice",
    "stored_time",
    "time_space",
    "without_states",
]

#: "No such summary" from ``SubBenchmarkState.get_value`` (``None`` is a ``null`` value).
ABSENT: Final = object()


class ArchiveError(ValueError):
    """A directory that is not an archive, or a run that cannot be ingested."""


def stored_time(state: SubBenchmarkState) -> tuple[str, object]:
    """The time the history reads for a state, and which it is: the median the ingest
    stores (of the samples where there are, else NVBench's), else the mean (NVBench before
    2025 wrote the mean only). A median summary whose value is ``null`` (or not a number)
    gives ``None``: the mean never stands in for a median the file has but could not give."""
    # The samples the archive uses: a side file the comparison does not use (zero or NaN
    # samples) is the side file's fault, never the median's (:mod:`._state_samples`).
    samples = usable_samples(state, clocks=False).times
    if samples is not None:
        ordered = np.sort(samples.astype(np.float64))
        return "median", float(ordered[median_rank(ordered.size)])
    median = median_summary(state)
    if median is not ABSENT:
        return "median", median
    return "mean", state.float_value(f"{time_space(state)}/mean")


def time_space(state: SubBenchmarkState) -> str:
    """The namespace of a state's time summaries: cold GPU, or CPU-only."""
    return (MeasurementKind.CPU_ONLY if state.is_cpu_only else MeasurementKind.GPU).time_prefix


def median_summary(state: SubBenchmarkState) -> object:
    """A state's median summary as the file holds it (``None`` for ``null``), or
    :data:`ABSENT` where it holds none."""
    return state.get_value(f"{time_space(state)}/median", ABSENT)


def shown_value(value: object) -> str:
    """A summary's value as a one-line error shows it: JSON's ``null`` for ``None``."""
    return "null" if value is None else repr(value)


def check_medians(path: Path, result: BenchmarkResult) -> None:
    """Refuse a run with a time that is not one the comparison can use (NaN, infinite,
    zero, negative, or outside the float32 range NVBench's times lie in:
    :func:`~cuda.bench.compare.evidence.usable_time`), with a ``null`` median, or with a
    measured state that holds no time at all (``"summaries"`` null or empty, or neither a
    median nor a mean, and no samples): the archive never stores a value every later
    command would leave out with a warning, nor a state every series would skip (trend
    counted one run fewer without a word), nor the mean in place of a median."""
    for state in result.states():
        if state.is_skipped:
            continue
        recorded = median_summary(state)
        if recorded is not ABSENT and not usable_time(recorded):
            # Samples or not: a file whose median is no time is damaged (the gate calls the
            # state ????, baseline check refuses the run), whatever its samples give.
            raise ArchiveError(
                f"{path}: {state_label(state)} has median {shown_value(recorded)}, not a "
                "time; nothing written"
            )
        name, value = stored_time(state)
        if name == "mean" and value is None:
            space = time_space(state)
            raise ArchiveError(
                f"{path}: {state_label(state)} has no time (no {space}/median or {space}/mean "
                "summary, and no samples); nothing written"
            )
        if not usable_time(value):
            raise ArchiveError(
                f"{path}: {state_label(state)} has {name} {shown_value(value)}, not a time; "
                "nothing written"
            )


def _number(value: object) -> TypeGuard[float | int]:
    return isinstance(value, float | int) and not isinstance(value, bool)


def _noise(value: object) -> bool:
    """A relative standard deviation the comparison reads as one: zero (every sample
    alike), a usable positive number, or +inf, which NVBench writes for fewer than 5
    samples (infinitely noisy). NaN, a negative value and one beyond the float32 range
    (which the comparison reads as +inf) are not one."""
    return _number(value) and (value == 0 or value == math.inf or usable_time(value))


def _count(value: object) -> bool:
    """A sample count the archive's int64 column holds: NVBench measures at least once."""
    return is_int64(value, 1)


def _clock(value: object) -> bool:
    """The comparison's rule for a mean SM clock (``invalid_clock_rate`` otherwise)."""
    return usable_clock(value)


_NOISE: Final = "a relative deviation (0 or more, or inf)"
_COUNT: Final = f"a sample count (an integer from 1 to {INT64_MAX})"
#: Both sample sizes whatever the state's kind: ``SubBenchmarkState.sample_count``, which
#: the archive stores, takes the first integer of either.
_SAMPLE_SIZES: Final = (
    ("nv/cold/sample_size", _count, _COUNT),
    ("nv/cpu_only/sample_size", _count, _COUNT),
)
#: What each stored summary must be (tag, rule, what a value that breaks it is not): the
#: summaries :func:`~.archive._state_row` stores besides the median (checked on its own).
_GPU_STORED: Final = (
    ("nv/cold/time/gpu/mean", usable_time, "a time"),
    ("nv/cold/time/gpu/stdev/relative", _noise, _NOISE),
    *_SAMPLE_SIZES,
    ("nv/cold/sm_clock_rate/mean", _clock, f"a clock rate ({CLOCK_RANGE})"),
)
_CPU_ONLY_STORED: Final = (
    ("nv/cpu_only/time/cpu/mean", usable_time, "a time"),
    ("nv/cpu_only/time/cpu/stdev/relative", _noise, _NOISE),
    *_SAMPLE_SIZES,
)


def check_summaries(path: Path, result: BenchmarkResult) -> None:
    """Refuse a run with a stored summary other than the median that the comparison cannot
    use: the gate rebuilds each archived state from these values, so one NaN mean, negative
    noise, zero sample count or NaN clock made that state's rows AMBG or UNKNOWN for as
    many nights as the gate looks back, in an archive that cannot be corrected. A summary
    that is absent, or ``null`` (which the comparison reads as absent, or for the noise as
    +inf), is fine: older NVBench files lack some. Skipped states are checked too: what
    they hold is stored."""
    for state in result.states():
        for tag, usable, what in _CPU_ONLY_STORED if state.is_cpu_only else _GPU_STORED:
            value = state.get_value(tag, ABSENT)
            if value is not ABSENT and value is not None and not usable(value):
                raise ArchiveError(
                    f"{path}: {state_label(state)} has {tag} {value!r}, not {what}; nothing written"
                )


def check_keys(path: Path, result: BenchmarkResult) -> None:
    """Refuse a run with a device id or an integer axis value beyond the archive's int64
    columns (the table could not be built: a traceback), or with one state twice.

    A state twice (the same benchmark name, state name and device; a benchmark registered
    twice, say) would be two rows of one series in one run: trend and detect counted the
    run twice for it. nvbench_compare keeps the two apart by their order in the file (#1,
    #2), which suits two files compared once; the archive's series are keyed by name, and
    a position that moves when the benchmarks are registered in another order would join
    different states night after night without a word. A nightly archive cannot be
    corrected afterwards, so the run is refused until its states have unique names."""
    repeated = repeated_state(result)
    at = None if repeated is None else repeated[0]
    for position, state in enumerate(result.states()):
        device = state.device
        if device is not None and not INT64_MIN <= device <= INT64_MAX:
            raise ArchiveError(
                f"{path}: {state_label(state)}: its device id is beyond the archive's int64 "
                "ids; nothing written"
            )
        for axis in state.axis_values:
            typed = axis.typed
            if isinstance(typed, int) and not INT64_MIN <= typed <= INT64_MAX:
                raise ArchiveError(
                    f"{path}: {state_label(state)} has axis {axis.name!r} value "
                    f"{shortened_numbers(str(typed))}, "
                    "beyond NVBench's int64 axes; nothing written"
                )
        if position == at:
            raise ArchiveError(f"{path}: {state_twice(state)}; nothing written")


def check_devices(path: Path, result: BenchmarkResult) -> None:
    """Refuse a run with a GPU state whose device is ``null`` or not one of its
    benchmark's devices (:func:`device_problem`); nothing written."""
    problem = device_problem(result)
    if problem is not None:
        raise ArchiveError(f"{path}: {problem}; nothing written")


def device_problem(result: BenchmarkResult) -> str | None:
    """What is wrong with the devices of a run, or ``None``: a benchmark that ran on a
    device its file's device list does not describe, or a GPU state whose device is
    ``null`` or not one of its benchmark's. ``nvbench_compare`` leaves such a state out with
    a warning; the archive stored it with device null, which there means a CPU-only state,
    so every later gate read it as one and warned about it on each night. ``ingest``,
    ``gate`` and ``baseline check`` refuse such a run alike."""
    for benchmark in result.values():
        if benchmark.is_cpu_only:
            continue
        listed = benchmark.devices
        for device in listed:
            if benchmark.device_info.get(device) is None:
                # nvbench_compare refuses such a file; archived, it made every later gate
                # fail on a reference run it could not name ("the device list of 'None'").
                return (
                    f"benchmark {benchmark.name!r} ran on device {device}, but the file's "
                    "device list does not describe it"
                )
        for state in benchmark:
            if state.device not in listed:
                devices = ", ".join(map(str, listed))
                null = " (the archive's null device is a CPU-only state's)"
                return (
                    f"{state_label(state)} ran on device {shown_value(state.device)}"
                    f"{null if state.device is None else ''}, not one of the benchmark's "
                    f"devices ({devices}); nvbench_compare leaves it out"
                )
    return None


def state_twice(state: SubBenchmarkState) -> str:
    """A file holding ``state`` twice (:func:`repeated_state`), in the words of every
    command that refuses one (ingest, gate, baseline check), after the file's name."""
    return (
        f"{state_label(state)} appears twice in the file; states are matched by benchmark, "
        "device and name, so the two cannot be told apart (ingest, gate and baseline check "
        "refuse the file)"
    )


#: A file without a single benchmark state, in the words of every command that refuses
#: one (:func:`check_states`, the gate, baseline check), after the file's name.
NO_STATE: Final = (
    "no benchmark state (the file holds none); check that the benchmark ran and wrote its results"
)


def repeated_state(result: BenchmarkResult) -> tuple[int, SubBenchmarkState] | None:
    """The first state whose benchmark, device and state name an earlier state already
    has, with its position in ``result.states()`` (``None``: every state is one of its
    own): the archive keeps one row per state and run (:func:`check_keys`)."""
    seen: set[tuple[str, int | None, str]] = set()
    for position, state in enumerate(result.states()):
        key = (state.benchmark.name, state.device, state.name())
        if key in seen:
            return position, state
        seen.add(key)
    return None


def check_states(path: Path, result: BenchmarkResult) -> None:
    """Refuse a run without a single benchmark state (``"benchmarks": []``, or every
    benchmark's ``states`` null or empty): archived, it would be a run of no series, which
    no later command could tell from a run that failed to write its results."""
    if not any(len(benchmark) for benchmark in result.values()):
        raise ArchiveError(f"{path}: {NO_STATE}; nothing written")


def without_states(result: BenchmarkResult) -> tuple[str, ...]:
    """The benchmarks of ``result`` that hold no state (``"states": null`` or empty), in
    file order: the ingest archives the others and says which it could not."""
    return tuple(benchmark.name for benchmark in result.values() if not len(benchmark))


def check_labels(
    commit: str,
    branch: str | None,
    tags: Mapping[str, str],
    names: tuple[str, str, str] = ("--commit", "--branch", "--tag"),
) -> None:
    """Refuse a commit, branch or tag holding a control character (C0, DEL, C1, a line or
    paragraph separator, a bidirectional control: :func:`.._untrusted.control_character`):
    the archive keeps its labels for good, and every later page and report showed it
    escaped. The white space around the commit is not stored, so not looked at. ``names``:
    how the refusal names the commit, branch and tags (the command line's options, or a
    library call's parameters)."""
    labels = [(names[0], commit.strip()), (names[1], branch or "")]
    labels += [(names[2], f"{key}={value}") for key, value in tags.items()]
    for option, label in labels:
        char = control_character(label)
        if char is not None:
            raise ArchiveError(
                f"{option} '{visible(label)}': holds a control character ({char}), which the "
                "archive would keep for good; give the value without it; nothing written"
            )
        try:
            label.encode("utf-8")
        except UnicodeEncodeError:
            # A byte of the command line that is no UTF-8 (Python keeps it as a surrogate):
            # Parquet stores text as UTF-8, and pyarrow stopped with a traceback.
            raise ArchiveError(
                f"{option} '{visible(label)}': holds a byte that is no UTF-8 text, which the "
                "archive cannot store; give the value as UTF-8; nothing written"
            ) from None


def check_commit(path: Path, commit: str | None) -> None:
    """A run needs the commit of the benchmarked code. NVBench's file records only the git
    SHA of NVBench itself (``meta.version.nvbench.git_sha``, the same for every run built
    with one NVBench), which would label every run alike."""
    if not (commit and commit.strip()):
        raise ArchiveError(
            f"{path}: give the commit of the benchmarked code with --commit (the file "
            "records only NVBench's own git SHA); nothing written"
        )
