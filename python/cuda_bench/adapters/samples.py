"""NVBench results from plain per-sample times, whatever measured them.

A timing tool that is not NVBench still produces the same raw material: for each benchmark
state, a list of sample times in seconds. :func:`samples_to_result` turns those lists into a
result file that NVBench's tools, ``nvbench_compare`` and :mod:`cuda.bench.results` read like
an NVBench ``--jsonbin`` run: the summaries are computed by
:class:`~cuda.bench.results.ResultBuilder` exactly as NVBench computes them (spec §5.3, §6),
and the samples go to ``--jsonbin`` side files so comparisons can use the per-sample evidence.

>>> from cuda.bench.adapters.samples import samples_to_result
>>> result = samples_to_result(                                   # doctest: +SKIP
...     [("sort", {"n": 1024, "algo": "radix"}, [1.2e-3, 1.1e-3, 1.3e-3]),
...      ("sort", {"n": 1024, "algo": "merge"}, [2.0e-3, 2.1e-3, 1.9e-3])],
...     "sort.json",
... )

Conventions:

* Input forms: ``{benchmark: times}`` for benchmarks without axes; an iterable of
  ``(benchmark, {axis: value}, times)`` triples; or :class:`StateSamples` objects, which can
  also carry walltime, element and byte counts and extra summaries. Forms can be mixed in an
  iterable.
* Axes are declared from the values: all ``int`` → int64 axis, ``int``/``float`` mixed or all
  ``float`` → float64 axis, all ``str`` → string axis; anything else (``bool``, mixed text and
  numbers, NaN) is an error. Numeric axis values are listed in ascending order, string values
  in first-seen order; axes in the order they first appear. Every state of a benchmark must
  name the same axes, and a state may appear only once: merge replicate samples before.
* ``device=None`` writes CPU-only benchmarks (``nv/cpu_only/*`` summaries, ``devices: null``,
  spec §5.3.3). A :class:`~cuda.bench.results.DeviceSpec` writes GPU benchmarks on that
  device: the times become the cold GPU (and CPU) times (§5.3.1). No SM clocks exist for them,
  so there are no clock summaries and no frequency side files.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias

import numpy as np
import numpy.typing as npt

from ..results._tools_api import BenchmarkResult

if TYPE_CHECKING:
    from ..results._axes import Axis
    from ..results._tools_api import BenchmarkBuilder, DeviceSpec, ResultBuilder, UserSummary

__all__ = [
    "AxisInput",
    "SamplesInput",
    "StateSamples",
    "add_samples",
    "samples_to_result",
]

#: One axis value: ``int`` (int64 axis), ``float`` (float64 axis) or ``str`` (string axis).
AxisInput: TypeAlias = int | float | str

#: A triple ``(benchmark, {axis: value}, times)``.
StateTriple: TypeAlias = tuple[str, Mapping[str, AxisInput], npt.ArrayLike]

#: What :func:`samples_to_result` and :func:`add_samples` accept (see the module docstring).
SamplesInput: TypeAlias = Mapping[str, npt.ArrayLike] | Iterable["StateSamples | StateTriple"]


@dataclass(frozen=True, eq=False)
class StateSamples:
    """The samples of one benchmark state.

    ``times`` are seconds, one value per sample, in sample order. ``walltime`` is the time the
    whole measurement took (default: the sum of the samples). ``element_count`` and
    ``global_memory_bytes`` add NVBench's throughput summaries. ``summaries`` (e.g. from
    :func:`cuda.bench.results.element_count_summary` or
    :class:`cuda.bench.results.UserSummary`) are appended after the measurement summaries;
    use hidden ones (``hide=...``) for metadata so tables stay unchanged.
    """

    benchmark: str
    times: npt.ArrayLike
    axes: Mapping[str, AxisInput] = field(default_factory=dict)
    walltime: float | None = None
    element_count: int = 0
    global_memory_bytes: int = 0
    summaries: Sequence[UserSummary] = ()

    def describe(self) -> str:
        """``benchmark [axis=value ...]`` for messages."""
        point = " ".join(f"{name}={value}" for name, value in self.axes.items())
        return f"{self.benchmark} [{point}]"


def _as_states(samples: SamplesInput) -> list[StateSamples]:
    if isinstance(samples, Mapping):
        states: list[StateSamples] = []
        for key, times in samples.items():
            if not isinstance(key, str):
                raise TypeError(
                    f"mapping keys are benchmark names, got {key!r}; for axes pass "
                    "(benchmark, {axis: value}, times) triples or StateSamples"
                )
            states.append(StateSamples(key, times))
        return states
    states = []
    for item in samples:
        if isinstance(item, StateSamples):
            states.append(item)
        elif isinstance(item, tuple) and len(item) == 3:
            benchmark, axes, times = item
            if not isinstance(benchmark, str) or not isinstance(axes, Mapping):
                raise TypeError(
                    f"expected (benchmark: str, axes: mapping, times), got {item!r:.200}"
                )
            states.append(StateSamples(benchmark, times, axes=dict(axes)))
        else:
            raise TypeError(
                f"expected StateSamples or a (benchmark, axes, times) triple, got {item!r:.200}"
            )
    return states


def _times(state: StateSamples) -> npt.NDArray[np.float64]:
    # The builder's own check of a measurement's samples: what it refuses, refused alike.
    from ..results._measurement import sample_array

    return sample_array(state.times, f"{state.describe()}: times")


def _axis_kind(name: str, values: Sequence[AxisInput], benchmark: str) -> str:
    kinds = set()
    for value in values:
        if isinstance(value, bool | np.bool_):
            raise TypeError(f"benchmark {benchmark!r} axis {name!r}: bool values are not allowed")
        if isinstance(value, int | np.integer):
            kinds.add("int64")
        elif isinstance(value, float | np.floating):
            if math.isnan(value):
                raise ValueError(f"benchmark {benchmark!r} axis {name!r}: NaN is not a value")
            kinds.add("float64")
        elif isinstance(value, str):
            kinds.add("string")
        else:
            raise TypeError(
                f"benchmark {benchmark!r} axis {name!r}: values must be int, float or str, "
                f"got {value!r}"
            )
    if kinds == {"int64", "float64"}:
        return "float64"
    if len(kinds) != 1:
        raise TypeError(
            f"benchmark {benchmark!r} axis {name!r} mixes text and numbers: "
            f"{sorted(map(repr, values))[:4]}"
        )
    return kinds.pop()


def _declare_axes(benchmark: str, states: Sequence[StateSamples]) -> list[Axis]:
    from ..results._tools_api import Float64Axis, Int64Axis, StringAxis

    names = list(dict.fromkeys(name for state in states for name in state.axes))
    for state in states:
        if set(state.axes) != set(names):
            raise ValueError(
                f"benchmark {benchmark!r}: every state must name the axes {names}, "
                f"but {state.describe()} names {list(state.axes)}"
            )
    axes: list[Axis] = []
    for name in names:
        # The kind comes from every value: deduplicating first would let 1 hide 1.0.
        given = [state.axes[name] for state in states]
        kind = _axis_kind(name, given, benchmark)
        values = list(dict.fromkeys(given))
        if kind == "int64":
            axes.append(Int64Axis(name, sorted({int(v) for v in values})))
        elif kind == "float64":
            axes.append(Float64Axis(name, sorted({float(v) for v in values})))
        else:
            axes.append(StringAxis(name, [str(v) for v in values]))
    return axes


def _plan(name: str, members: Sequence[StateSamples]) -> _PlannedBenchmark:
    axes = _declare_axes(name, members)
    seen: set[tuple[int, ...]] = set()
    states: list[tuple[StateSamples, npt.NDArray[np.float64]]] = []
    for state in members:
        # Positions, not raw values: the axis normalizes them (1 and 1.0 are one value).
        key = tuple(axis.index_of(state.axes[axis.name]) for axis in axes)
        if key in seen:
            raise ValueError(
                f"{state.describe()} is given twice; put replicate samples of a state into one list"
            )
        seen.add(key)
        states.append((state, _times(state)))
    return _PlannedBenchmark(name, tuple(axes), tuple(states))


@dataclass(frozen=True, eq=False)
class _PlannedBenchmark:
    """A benchmark checked in full before anything is added to a builder."""

    name: str
    axes: tuple[Axis, ...]
    states: tuple[tuple[StateSamples, npt.NDArray[np.float64]], ...]


def add_samples(
    builder: ResultBuilder, samples: SamplesInput, *, device: int | None = None
) -> list[BenchmarkBuilder]:
    """Declare the benchmarks of ``samples`` on ``builder`` and add their states.

    For composing files, e.g. CPU-only and GPU benchmarks in one result. ``device`` is the id
    of one of the builder's devices (GPU benchmarks) or ``None`` (CPU-only). Benchmarks are
    declared in order of first appearance; returns their builders. All input is checked
    before the builder is touched, so an error leaves it unchanged.
    """
    groups: dict[str, list[StateSamples]] = {}
    for state in _as_states(samples):
        groups.setdefault(state.benchmark, []).append(state)
    plans = [_plan(name, members) for name, members in groups.items()]
    declared: list[BenchmarkBuilder] = []
    for plan in plans:
        bench = builder.benchmark(
            plan.name, axes=plan.axes, devices=None if device is None else [device]
        )
        for state, times in plan.states:
            bench.state(
                dict(state.axes),
                device=device,
                # A GPU benchmark's host times are the same wall-clock samples: nothing else
                # measured them separately.
                gpu_times=None if device is None else times,
                cpu_times=times,
                walltime=state.walltime,
                element_count=state.element_count,
                global_memory_bytes=state.global_memory_bytes,
                summaries_after=tuple(state.summaries),
            )
        declared.append(bench)
    return declared


def _default_argv() -> list[str]:
    # NVBench records the command line that produced the file (spec §3.2); here that is the
    # script that measured the samples.
    argv = [str(arg) for arg in sys.argv]
    return argv if argv and argv[0] else ["python", *argv[1:]]


def samples_to_result(
    samples: SamplesInput,
    path: str | os.PathLike[str],
    *,
    device: DeviceSpec | None = None,
    argv: Sequence[str] | None = None,
    jsonbin: bool = True,
) -> BenchmarkResult:
    """Write ``samples`` to ``path`` as an NVBench result and return it, read back.

    ``device=None`` makes CPU-only benchmarks; a :class:`~cuda.bench.results.DeviceSpec`
    makes GPU benchmarks on that device (cold summaries without clock data). ``argv`` is
    recorded as ``meta.argv`` (default: ``sys.argv``). ``jsonbin`` writes the per-sample side
    files next to ``path`` (``<name>-bin/<k>.bin``), as NVBench's ``--jsonbin`` does.
    Raises ``ValueError``/``TypeError`` naming the offending state for unusable input;
    nothing is written then.
    """
    from ..results._tools_api import ResultBuilder

    builder = ResultBuilder(
        devices=[] if device is None else [device],
        argv=_default_argv() if argv is None else argv,
    )
    add_samples(builder, samples, device=None if device is None else device.id)
    builder.write(path, jsonbin=jsonbin)
    return BenchmarkResult(path)
