"""Variants within one run: the values of one axis compared with one of them (``--col``).

``compare_variants("run.json", "T")`` answers "is ``T=F64`` faster or slower than
``T=F32``, state by state?" inside one file (or one side's runs). It is an N-way
comparison (:func:`~.many.compare_many`) of projections of the same input: per value of
the axis, a result holding the states with that value, the axis taken out of their
identity (its value from their axis values and its token from their names, its
declaration from their benchmark). States that differ only in the axis then match as the
same state across the projections, and the engine compares them as it compares two
runs: same matching, evidence, methods and correction of change calls, no code of its own.

``Device`` is not an axis of the states but the column of the device sections: it needs
no projection, only a device selection per side (the baseline's device for the
reference, each candidate's for its compare side), which the pairwise engine already
pairs by position.

A variant the benchmark skipped where the baseline (or another variant) ran is SKIP,
not ``????``: within one run that is the benchmark's decision, not unusable input.

Benchmarks without the axis have no variants and are left out. ``-b``/``-a`` filters
select states before the projection, so a filter may name the axis itself
(``-a T=[F32,F64]``); the filters on other axes are passed on to the comparisons, where
they select the same states again and are shown with the results.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import msgspec

from ..results import _schema as schema
from ..results._tools_api import (
    BenchmarkAxis,
    BenchmarkResult,
    StateAxisValue,
    SubBenchmarkResult,
    SubBenchmarkState,
)
from ._arguments import checked_source, filter_plan
from .errors import CompareInputError, FilterError
from .filters import FilterItem, FilterPlan, parse_axis_filter, seen_benchmarks
from .inputs import Source, load_result
from .many import MultiComparison, compare_many, with_read_once
from .model import Comparison, Row, Status
from .reasons import Reason
from .runs import expand_runs
from .warning_tags import WarningKind

__all__ = ["DEVICE_AXIS", "AxisVariant", "axis_variants", "compare_variants"]

#: The ``--col`` name that compares the devices of one file.
DEVICE_AXIS = "Device"


@dataclass(frozen=True)
class AxisVariant:
    """One value of the compared axis: its column ``label`` (``T=F64``, ``Elements=2^20``,
    ``Device=1``) and what identifies it (stored type and text; the device id)."""

    label: str
    type: str
    text: str
    device: int | None = None


def _label(axis: str, value: StateAxisValue) -> str:
    shown = value.input_string
    return f"{axis}=2^{shown}" if value.is_pow2 else f"{axis}={shown}"


def _axis_value(state: SubBenchmarkState, axis: str) -> StateAxisValue | None:
    return next((value for value in state.axis_values if value.name == axis), None)


def _selected(result: BenchmarkResult, plan: FilterPlan) -> list[SubBenchmarkResult]:
    return [bench for bench in result.benchmarks if plan.selects_benchmark(bench.name)]


def axis_variants(
    result: BenchmarkResult, axis: str, plan: FilterPlan | None = None
) -> tuple[AxisVariant, ...]:
    """The values of ``axis`` among the states ``plan`` selects, in the order the
    benchmarks declare them (first declaring benchmark first); for ``Device``, the device
    ids of those states in the order of the device sections.

    Raises :class:`~.errors.CompareInputError` when no selected benchmark has the axis.
    """
    plan = plan or FilterPlan()
    where = result.label or "<memory>"
    benches = _selected(result, plan)
    if axis == DEVICE_AXIS:
        # A state on a device its benchmark does not list is in no device section: the
        # comparison leaves it out with a warning, and it makes no variant (it made one
        # that then failed on "--compare-devices", an option the user never gave).
        used = {
            state.device
            for bench in benches
            for state in bench
            if state.device in bench.devices and plan.selects_state(bench.name, state.axis_values)
        }
        order = [*result.devices, *sorted(device for device in used if device is not None)]
        return tuple(
            AxisVariant(f"{axis}={device}", "device", str(device), device)
            for device in dict.fromkeys(order)
            if device in used
        )
    declared = [bench for bench in benches if bench.axis(axis) is not None]
    if not declared:
        names = sorted({a.name for bench in benches for a in bench.axes} | {DEVICE_AXIS})
        raise CompareInputError(
            f"{where}: no compared benchmark has an axis '{axis}' (axes: {', '.join(names)})"
        )
    found: dict[tuple[str, str], tuple[tuple[int, int, int], AxisVariant]] = {}
    for bench_order, bench in enumerate(declared):
        declaration = bench.axis(axis)
        assert declaration is not None
        for state in bench:
            value = _axis_value(state, axis)
            if value is None or not plan.selects_state(bench.name, state.axis_values):
                continue
            key = (value.type, value.value)
            if key not in found:
                rank = (bench_order, _declared_position(declaration, value), len(found))
                found[key] = (rank, AxisVariant(_label(axis, value), value.type, value.value))
    return tuple(variant for _, variant in sorted(found.values(), key=lambda item: item[0]))


def _declared_position(declaration: BenchmarkAxis, value: StateAxisValue) -> int:
    """Where the benchmark's declaration lists ``value`` (after all of them if it does not)."""
    for position, info in enumerate(declaration.values):
        if info.input_string == value.input_string or (
            info.value is not None and info.value == value.typed
        ):
            return position
    return len(declaration.values)


def _baseline(
    variants: Sequence[AxisVariant], axis: str, wanted: str | None, where: str
) -> AxisVariant:
    if wanted is None:
        return variants[0]
    for variant in variants:
        if wanted in (variant.label, variant.text, variant.label.partition("=")[2]):
            return variant
    variant_type = next((v.type for v in variants if v.type != "device"), None)
    try:
        accepted = parse_axis_filter(f"{axis}={wanted}").values if variant_type else ()
    except FilterError:
        accepted = ()  # not a value in the -a grammar: it names no variant
    if variant_type and accepted:
        for variant in variants:
            stored = StateAxisValue(axis, variant_type, variant.text, _typed(variant))
            if any(value.matches(stored) for value in accepted):
                return variant
    shown = ", ".join(variant.label.partition("=")[2] for variant in variants)
    raise CompareInputError(
        f"{where}: --baseline {wanted} is not a value of {axis} among the compared states "
        f"(values: {shown})"
    )


def _typed(variant: AxisVariant) -> Any:
    try:
        if variant.type == "int64":
            return int(variant.text)
        if variant.type == "float64":
            return float(variant.text)
    except ValueError:
        return None
    return variant.text


def _without_token(name: str, axis: str, label: str) -> str:
    """``name`` without the axis's ``AXIS=value`` token (the state names of NVBench)."""
    tokens = name.split(" ")
    for position, token in enumerate(tokens):
        if token == label:
            return " ".join(tokens[:position] + tokens[position + 1 :])
    for position, token in enumerate(tokens):
        if token.startswith(f"{axis}="):
            return " ".join(tokens[:position] + tokens[position + 1 :])
    return name


def _projected_benchmark(
    bench: SubBenchmarkResult,
    raw: schema.Benchmark,
    axis: str,
    variant: AxisVariant,
    plan: FilterPlan,
) -> schema.Benchmark:
    states: list[schema.State] = []
    for view, state in zip(bench, raw.states or (), strict=True):
        assert isinstance(state, schema.State)
        value = _axis_value(view, axis)
        if value is None or (value.type, value.value) != (variant.type, variant.text):
            continue
        if not plan.selects_state(bench.name, view.axis_values):
            continue
        states.append(
            msgspec.structs.replace(
                state,
                name=_without_token(state.name, axis, variant.label),
                axis_values=[item for item in state.axis_values or () if item.name != axis],
            )
        )
    axes = raw.axes
    if isinstance(axes, list):
        axes = [declaration for declaration in axes if declaration.name != axis]
    elif isinstance(axes, dict):
        axes = {name: declaration for name, declaration in axes.items() if name != axis}
    return msgspec.structs.replace(raw, axes=axes, states=states)


def project(
    result: BenchmarkResult, axis: str, variant: AxisVariant, plan: FilterPlan
) -> BenchmarkResult:
    """The states of ``result`` with ``variant``'s value of ``axis`` (and selected by
    ``plan``), the axis taken out of their identity; benchmarks without the axis left out."""
    document = result.document
    benchmarks = [
        _projected_benchmark(bench, raw, axis, variant, plan)
        for bench, raw in zip(result.benchmarks, document.benchmarks or (), strict=True)
        if bench.axis(axis) is not None and plan.selects_benchmark(bench.name)
    ]
    projected = msgspec.structs.replace(document, benchmarks=benchmarks)
    return BenchmarkResult.from_document(projected, _anchor(result))


def _anchor(result: BenchmarkResult) -> str | Path | None:
    """Where the projection finds the side files: the path as the caller gave it, so
    that messages name the file as they do for a comparison of files, unless it no longer
    leads to the same file (the caller changed directory): then the absolute path."""
    label, path = result.label, result.path
    if path is None:
        return None
    if label is not None and Path(label).absolute() == path:
        return label
    return path


def _without_axis(plan: FilterPlan, axis: str, kept: set[str]) -> FilterPlan:
    """``plan`` without its filters on ``axis`` (applied before the projection) and
    without ``-b`` selections of benchmarks the projection left out (not in ``kept``)."""
    return FilterPlan(
        global_filters=tuple(f for f in plan.global_filters if f.name != axis),
        selections=tuple(
            dataclasses.replace(
                selection, filters=tuple(f for f in selection.filters if f.name != axis)
            )
            for selection in plan.selections
            if selection.name in kept
        ),
    )


def _without_device_warnings(many: MultiComparison) -> MultiComparison:
    """``many`` without the warnings that the device sections differ: comparing different
    devices is what the Device variants were asked for. Which lines those are the engine
    says (never the text: a benchmark's warnings begin with its name, which may read like
    that warning)."""

    def without(comparison: Comparison) -> Comparison:
        told = comparison.warnings_of(WarningKind.DEVICE_SECTIONS)
        return msgspec.structs.replace(
            comparison,
            warnings=tuple(line for line in comparison.warnings if line not in told),
            warning_kinds=tuple(
                (line, kind)
                for line, kind in comparison.warning_kinds
                if kind is not WarningKind.DEVICE_SECTIONS
            ),
        )

    candidates = tuple(
        msgspec.structs.replace(candidate, comparison=without(candidate.comparison))
        for candidate in many.candidates
    )
    return msgspec.structs.replace(many, candidates=candidates)


def _benchmark_skips(many: MultiComparison) -> MultiComparison:
    """``many`` with the variants the benchmark skipped as SKIP, not ``????``: within one
    run, a variant skipped next to a measured one is the benchmark's decision (a type or
    device it does not support), not unusable input, as a state skipped in both runs of
    a two-run comparison is."""

    def recast(row: Row) -> Row:
        if row.status is Status.UNKNOWN and row.reason is Reason.STATE_SKIPPED:
            verdict = msgspec.structs.replace(row.verdict, status=Status.SKIP)
            return msgspec.structs.replace(row, verdict=verdict)
        return row

    candidates = tuple(
        msgspec.structs.replace(
            candidate,
            comparison=msgspec.structs.replace(
                candidate.comparison, rows=tuple(recast(row) for row in candidate.comparison)
            ),
        )
        for candidate in many.candidates
    )
    return msgspec.structs.replace(many, candidates=candidates)


def _runs(source: Source | Sequence[Source], copies: dict[Path, Path]) -> list[BenchmarkResult]:
    listed = expand_runs(source, "input", copies)
    items: list[Source] = list(listed) if listed is not None else [cast(Source, source)]
    runs: list[BenchmarkResult] = []
    for item in items:
        if not isinstance(item, BenchmarkResult) and os.path.isdir(os.fspath(item)):
            raise CompareInputError(
                f"{os.fspath(item)}: is a directory; variants are compared within a file "
                "(pass its runs as a list)"
            )
        runs.append(load_result(item))
    return runs


def compare_variants(
    source: Source | Sequence[Source],
    axis: str,
    *,
    baseline: str | None = None,
    filters: FilterPlan | Sequence[FilterItem] | None = None,
    **options: Any,
) -> MultiComparison:
    """Compare, inside one input, the states that differ only in ``axis`` with the state
    whose ``axis`` has the ``baseline`` value (default: the axis's first value).

    ``source`` is one file or loaded result, or a list of runs of the same build (each
    projected alike; :mod:`.runs` joins them). ``axis`` is an axis name, or ``Device`` for
    the devices of the file. ``baseline`` is a value as NVBench's ``--axis`` takes it or as
    state names show it (``F32``, ``2^20``, ``1048576``; a device id). Candidates are named
    ``AXIS=value``, the baseline too. ``options`` are those of
    :func:`~.many.compare_many` (``method``, ``preset``, ``thresholds``, ``correction``,
    ...), except the device selections with ``Device`` (they are the variants).

    Raises :class:`~.errors.CompareInputError` for an axis no compared benchmark has, a
    baseline that is not one of its values, or an axis with a single value;
    :class:`~.errors.FilterError` for filters that select nothing.
    """
    checked_source(source, "source")
    copies: dict[Path, Path] = {}
    runs = _runs(source, copies)
    return with_read_once(_compare_runs(runs, axis, baseline, filters, options), copies)


def _compare_runs(
    runs: list[BenchmarkResult],
    axis: str,
    baseline: str | None,
    filters: FilterPlan | Sequence[FilterItem] | None,
    options: dict[str, Any],
) -> MultiComparison:
    """:func:`compare_variants` of the runs read."""
    plan = filter_plan(filters)
    plan.require_matches(seen_benchmarks(runs[:1], plan))
    where = runs[0].label or "<memory>"
    variants = axis_variants(runs[0], axis, plan)
    if not variants:
        raise CompareInputError(
            f"{where}: no compared state ran on a device (CPU-only); --col Device has "
            "nothing to compare"
        )
    if len(variants) < 2:
        raise CompareInputError(
            f"{where}: {axis} has one value among the compared states ({variants[0].label}); "
            "nothing to compare it with"
        )
    chosen = _baseline(variants, axis, baseline, where)
    others = [variant for variant in variants if variant != chosen]
    if axis == DEVICE_AXIS:
        for option in ("ref_devices", "cmp_devices"):
            if options.get(option) is not None:
                raise CompareInputError(f"{option} cannot be given with the Device variants")
        base_runs: Sequence[BenchmarkResult] = runs
        devices = _without_device_warnings(
            compare_many(
                base_runs if len(runs) > 1 else runs[0],
                {variant.label: base_runs if len(runs) > 1 else runs[0] for variant in others},
                base_name=chosen.label,
                filters=plan,
                ref_devices=[chosen.device] if chosen.device is not None else None,
                cmp_devices={
                    variant.label: [variant.device]
                    for variant in others
                    if variant.device is not None
                },
                **options,
            )
        )
        return _benchmark_skips(devices)

    def side(variant: AxisVariant) -> BenchmarkResult | list[BenchmarkResult]:
        projected = [project(run, axis, variant, plan) for run in runs]
        return projected if len(projected) > 1 else projected[0]

    kept = {bench.name for bench in runs[0].benchmarks if bench.axis(axis) is not None}
    many = _benchmark_skips(
        compare_many(
            side(chosen),
            {variant.label: side(variant) for variant in others},
            base_name=chosen.label,
            filters=_without_axis(plan, axis, kept),
            **options,
        )
    )
    # The selected benchmarks the axis does not split are not compared: said, not silent.
    left = [bench for bench in _selected(runs[0], plan) if bench.name not in kept]
    if not left:
        return many
    names = ", ".join(f"'{bench.name}' ({len(bench.states)} states)" for bench in left)
    line = f"{where}: no axis '{axis}' in benchmark(s) {names}: not compared"
    return msgspec.structs.replace(
        many,
        candidates=tuple(
            msgspec.structs.replace(
                candidate,
                comparison=msgspec.structs.replace(
                    candidate.comparison, warnings=(*candidate.comparison.warnings, line)
                ),
            )
            for candidate in many.candidates
        ),
    )
