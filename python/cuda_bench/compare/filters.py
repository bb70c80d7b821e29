"""``-b/--benchmark`` and ``-a/--axis`` filters, and ``--reference/--compare-devices``.

The filter plan follows NVBench's command-line scoping (compare.md §5, format spec §12.4):
an ``-a`` before any ``-b`` is global, an ``-a`` after ``-b X`` belongs to that occurrence of
``X``; when any ``-b`` is given only the named benchmarks are selected; each ``-b`` occurrence
is one group (global filters + its own), filters in a group are ANDed, the values of one filter
ORed, and a state is selected when any group of its benchmark selects it.

Value grammar: ``NAME=V``, ``NAME=[v1,v2]``, ``NAME[pow2]=E``, ``NAME[pow2]=[E1,E2]`` (upstream)
and ``NAME=2^E`` (ours; also as a list item). Matching is upstream's exact comparison with the
stored text, plus (ours) numeric equality on int64/float64 axes and, on float64 axes, the
``%.5g`` token NVBench prints in state names and tables.

Ours as well: :meth:`FilterPlan.unmatched` finds filters that select nothing, so a typo fails
the comparison instead of producing an empty success. The argparse options live in
:mod:`.filter_arguments` (re-exported here).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

from ._listing import listed
from .errors import FilterError
from .filter_arguments import FilterAction, FilterItem, add_filter_arguments

if TYPE_CHECKING:
    from ..results._tools_api import (
        BenchmarkResult,
        StateAxisValue,
        SubBenchmarkResult,
        SubBenchmarkState,
    )

__all__ = [
    "AxisFilter",
    "BenchmarkSelection",
    "FilterAction",
    "FilterItem",
    "FilterPlan",
    "FilterValue",
    "SeenBenchmark",
    "add_filter_arguments",
    "parse_axis_filter",
    "parse_device_selection",
    "seen_benchmarks",
]

#: What :meth:`FilterPlan.unmatched` inspects: a benchmark name and the axis values of each
#: of its states (one entry per benchmark occurrence and file; names may repeat).
SeenBenchmark = tuple[str, Iterable[Sequence["StateAxisValue"]]]

# NVBench stores pow2 axes as int64, so exponents beyond 63 cannot name a stored value.
_MAX_POW2_EXPONENT = 63
_EXPONENT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_POWER_OF_TWO = re.compile(r"2\^([0-9]+)", re.ASCII)
# Plain decimal numbers only: Python's float()/Decimal() would also take "1_0", "inf",
# "nan" and non-ASCII digits, none of which a person means as a numeric axis value.
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_DEVICE_ID = re.compile(r"[0-9]+", re.ASCII)
# Decimal exponents beyond this cannot name a finite float64 (or any int64) value.
_MAX_NUMBER_EXPONENT = 400
_MAX_FLOAT_POW2 = 1023
_NO_BENCHMARK = "no such benchmark in {where}"


# ---------------------------------------------------------------------------------------------
# Axis filters


def _filter_number(text: str) -> Decimal | None:
    """The number a filter value names, exactly, or ``None`` if it names none.

    Magnitudes no int64 or float64 can hold are not numbers here: they could never match,
    and comparing them would overflow the decimal context.
    """
    power = _POWER_OF_TWO.fullmatch(text)
    if power is not None:
        digits = power[1].lstrip("0") or "0"
        if len(digits) > 4 or int(digits) > _MAX_FLOAT_POW2:
            return None
        return Decimal(2 ** int(digits))
    if not _DECIMAL.fullmatch(text):
        return None
    try:
        number = Decimal(text)
    except InvalidOperation:  # an exponent beyond what decimal itself can represent
        return None
    if number and abs(number.adjusted()) > _MAX_NUMBER_EXPONENT:
        return None
    return number


@dataclass(frozen=True, slots=True)
class FilterValue:
    """One accepted value of an axis filter.

    ``text`` is what the stored axis value must equal (upstream semantics: for
    ``NAME[pow2]=20`` it is ``"1048576"``); ``display`` is how the value is shown (``2^20``).
    ``number`` is the exact number the value names, if any, for matching numeric axes.
    """

    text: str
    display: str = ""
    number: Decimal | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.display:
            object.__setattr__(self, "display", self.text)
        object.__setattr__(self, "number", _filter_number(self.text))

    @classmethod
    def pow2(cls, exponent: int) -> FilterValue:
        """The value ``2**exponent``, shown as ``2^exponent``."""
        return cls(str(2**exponent), f"2^{exponent}")

    def matches(self, value: StateAxisValue) -> bool:
        """Does the stored axis value ``value`` (of the right axis) equal this value?"""
        if value.value == self.text:
            return True
        number = self.number
        if value.type == "int64":
            typed = value.typed
            # Decimal compares exactly with int and float, so 64-bit values stay exact.
            return number is not None and isinstance(typed, int | float) and number == typed
        if value.type == "float64":
            typed = value.typed
            # The %.5g token is what state names and tables show (Ratio=1.2346e+05, and
            # Quality=0.8 for a stored 0.7999999999999999 from an NVBench range).
            token = value.input_string
            if token == self.text:
                return True
            if number is None or not isinstance(typed, float):
                return False
            return float(number) == typed or float(number) == float(token)
        return False


@dataclass(frozen=True, slots=True)
class AxisFilter:
    """``-a NAME=...``: a state passes when its axis ``name`` has one of ``values``."""

    name: str
    values: tuple[FilterValue, ...]
    spec: str = field(default="", compare=False)

    def __str__(self) -> str:
        return self.describe()

    def describe(self) -> str:
        """``NAME=V``, ``NAME=2^E`` or ``NAME=[v1,v2]``."""
        shown = [value.display for value in self.values]
        if len(shown) == 1:
            return f"{self.name}={shown[0]}"
        return f"{self.name}=[{','.join(shown)}]"

    def matches(self, axis_values: Iterable[StateAxisValue]) -> bool:
        """True when some axis value named :attr:`name` equals one of :attr:`values`."""
        return any(
            axis_value.name == self.name and any(v.matches(axis_value) for v in self.values)
            for axis_value in axis_values
        )

    def matched_values(self, axis_values: Iterable[StateAxisValue]) -> set[int]:
        """Positions in :attr:`values` that ``axis_values`` satisfies."""
        hits: set[int] = set()
        for axis_value in axis_values:
            if axis_value.name == self.name:
                hits.update(i for i, v in enumerate(self.values) if v.matches(axis_value))
        return hits

    @property
    def single_value(self) -> FilterValue | None:
        """The value when the filter accepts exactly one, else ``None``."""
        texts = {value.text for value in self.values}
        return self.values[0] if len(texts) == 1 else None


def _split_flags(name: str, spec: str) -> tuple[str, bool]:
    """``NAME[pow2]`` → (``NAME``, True); ``NAME[]`` and ``NAME`` → (``NAME``, False)."""
    if not name.endswith("]") or "[" not in name:
        return name, False
    start = name.rindex("[")
    flag = name[start + 1 : -1].strip()
    base = name[:start].strip()
    if flag not in ("pow2", ""):
        raise FilterError(f"Axis filter flag must be [pow2], got [{flag}]: {spec}")
    if not base:
        raise FilterError(f"Axis filter missing name before [{flag}]: {spec}")
    return base, flag == "pow2"


def _split_values(text: str, spec: str) -> list[str]:
    if text.startswith("["):
        if not text.endswith("]"):
            raise FilterError(f"Axis filter list must end with ']': {spec}")
        items = [item.strip() for item in text[1:-1].split(",")]
        values = [item for item in items if item]
        if not values:
            raise FilterError(f"Axis filter must specify at least one value: {spec}")
        return values
    return [text]


def _pow2_value(text: str, spec: str) -> FilterValue:
    if not _EXPONENT.fullmatch(text):
        raise FilterError(f"Axis filter [pow2] value must be integer: {spec}")
    digits = text.lstrip("+")
    # The length check keeps int() away from absurdly long digit strings.
    if digits.startswith("-") or len(digits.lstrip("0")) > 2 or int(digits) > _MAX_POW2_EXPONENT:
        raise FilterError(
            f"Axis filter [pow2] exponent must be between 0 and {_MAX_POW2_EXPONENT}: {spec}"
        )
    return FilterValue.pow2(int(digits))


def parse_axis_filter(text: str) -> AxisFilter:
    """Parse one ``-a`` value; raise :class:`FilterError` naming ``text`` when malformed."""
    name_part, equals, value_part = text.partition("=")
    name = name_part.strip()
    value_text = value_part.strip()
    if not equals or not name or not value_text:
        raise FilterError(f"Axis filter must be NAME=VALUE: {text}")
    name, pow2 = _split_flags(name, text)
    if pow2:
        values = tuple(_pow2_value(item, text) for item in _split_values(value_text, text))
    else:
        # NAME=2^E keeps its literal text (a string axis may hold "2^10"); on numeric axes
        # FilterValue.number makes it match 2**E.
        values = tuple(FilterValue(item) for item in _split_values(value_text, text))
    return AxisFilter(name=name, values=values, spec=text)


# ---------------------------------------------------------------------------------------------
# The plan


@dataclass(frozen=True, slots=True)
class BenchmarkSelection:
    """One ``-b NAME`` occurrence with the ``-a`` filters that followed it."""

    name: str
    filters: tuple[AxisFilter, ...] = ()


@dataclass(frozen=True, slots=True)
class FilterPlan:
    """Which benchmarks and states a comparison covers. The empty plan selects everything."""

    global_filters: tuple[AxisFilter, ...] = ()
    selections: tuple[BenchmarkSelection, ...] = ()

    @classmethod
    def from_args(cls, items: Sequence[FilterItem] | None) -> FilterPlan:
        """Build the plan from ``("benchmark", NAME)``/``("axis", SPEC)`` in command-line order."""
        global_filters: list[AxisFilter] = []
        selections: list[tuple[str, list[AxisFilter]]] = []
        for kind, value in items or ():
            if kind == "benchmark":
                if not value:
                    raise FilterError("-b/--benchmark needs a non-empty benchmark name")
                selections.append((value, []))
            elif kind == "axis":
                parsed = parse_axis_filter(value)
                (selections[-1][1] if selections else global_filters).append(parsed)
            else:
                raise FilterError(f"unknown filter kind {kind!r}; expected 'benchmark' or 'axis'")
        return cls(
            global_filters=tuple(global_filters),
            selections=tuple(BenchmarkSelection(name, tuple(fs)) for name, fs in selections),
        )

    # -- selection -------------------------------------------------------------------------

    @property
    def is_empty(self) -> bool:
        """No ``-b`` and no ``-a``: everything is selected."""
        return not self.global_filters and not self.selections

    @property
    def has_axis_filters(self) -> bool:
        """Whether any ``-a`` filter is given (only those look at the states' axes)."""
        return bool(self.global_filters) or any(s.filters for s in self.selections)

    @property
    def benchmark_names(self) -> tuple[str, ...]:
        """Names given with ``-b``, first occurrence order, without repeats."""
        return tuple(dict.fromkeys(selection.name for selection in self.selections))

    def groups(self, benchmark: str) -> tuple[tuple[AxisFilter, ...], ...]:
        """The filter groups that apply to ``benchmark``; empty when it is not selected."""
        if not self.selections:
            return (self.global_filters,)
        return tuple(
            self.global_filters + selection.filters
            for selection in self.selections
            if selection.name == benchmark
        )

    def selects_benchmark(self, benchmark: str) -> bool:
        return bool(self.groups(benchmark))

    def selects_state(self, benchmark: str, axis_values: Sequence[StateAxisValue]) -> bool:
        """Does any group of ``benchmark`` accept a state with these axis values?"""
        return any(
            all(axis_filter.matches(axis_values) for axis_filter in group)
            for group in self.groups(benchmark)
        )

    def ran_states(
        self, result: BenchmarkResult
    ) -> Iterator[tuple[SubBenchmarkResult, SubBenchmarkState]]:
        """The states of ``result`` this plan selects that the benchmark ran, in file order,
        with their benchmark: a state skipped on purpose has nothing to plot or say."""
        for bench in result.benchmarks:
            if not self.selects_benchmark(bench.name):
                continue
            for state in bench:
                if not state.is_skipped and self.selects_state(bench.name, state.axis_values):
                    yield bench, state

    # -- display ---------------------------------------------------------------------------

    def describe(self) -> tuple[str, ...]:
        """The plan as options in command-line order, e.g. ``("-b copy", "-a T=F32")``."""
        parts = [f"-a {axis_filter.describe()}" for axis_filter in self.global_filters]
        for selection in self.selections:
            parts.append(f"-b {selection.name}")
            parts.extend(f"-a {axis_filter.describe()}" for axis_filter in selection.filters)
        return tuple(parts)

    def single_valued_axes(self, benchmark: str | None = None) -> dict[str, str]:
        """Axes that the filters pin to one value: axis name → value as displayed.

        For plot titles and labels. With ``benchmark`` every group of that benchmark must pin
        the axis to the same value; without it only the global filters count.
        """
        groups = self.groups(benchmark) if benchmark is not None else (self.global_filters,)
        pinned: dict[str, FilterValue] | None = None
        for group in groups:
            current = _pinned_axes(group)
            if pinned is None:
                pinned = current
            else:
                pinned = {
                    name: value
                    for name, value in pinned.items()
                    if name in current and current[name].text == value.text
                }
        return {name: value.display for name, value in (pinned or {}).items()}

    # -- coverage --------------------------------------------------------------------------

    def unmatched(
        self, seen: Iterable[SeenBenchmark], where: str = "the inputs"
    ) -> tuple[str, ...]:
        """Every filter that selects nothing in ``seen``, as display text with the cause.

        Reported, in command-line order: a ``-b`` name no input has (``-b nope: no such
        benchmark``); an ``-a`` filter, or some values of a list filter, that no state of its
        scope has (``-a T=F128: no state has T=F128``; the scope of a global filter is every
        selected benchmark, of a scoped one its ``-b`` benchmark); a ``-b`` occurrence whose
        filters (global ones included) select no state of that benchmark, and, without ``-b``,
        global filters that each match something but never all in one state. An empty tuple
        means every filter selects something. ``where`` names what ``seen`` came from
        (``-b nope: no such benchmark in the inputs``; ``the archive``).
        """
        states = _group_states(seen)
        present = [name for name in states if self.selects_benchmark(name)]
        if self.selections and not present:
            # No -b benchmark exists at all; the -b lines say everything.
            missing = _NO_BENCHMARK.format(where=where)
            return tuple(f"-b {name}: {missing}" for name in self.benchmark_names)
        in_scope = [axes for name in present for axes in states[name]]
        global_problems = _filter_problems(self.global_filters, in_scope, "")
        problems = list(global_problems)
        if not self.selections:
            group = self.global_filters
            if group and in_scope and not problems and not _selects_any(group, in_scope):
                problems.append(f"{_options(group)}: selects no state")
            return _unique(problems)
        for selection in self.selections:
            inherit = not global_problems
            problems.extend(self._selection_problems(selection, states, inherit, where))
        return _unique(problems)

    def _selection_problems(
        self,
        selection: BenchmarkSelection,
        states: Mapping[str, Sequence[Sequence[StateAxisValue]]],
        inherit: bool,
        where: str,
    ) -> list[str]:
        """Problems of one ``-b`` occurrence; ``inherit``: the global filters are not yet
        blamed, so check whether they rule this benchmark out."""
        name = selection.name
        if name not in states:
            return [f"-b {name}: {_NO_BENCHMARK.format(where=where)}"]
        bench_states = states[name]
        problems = _filter_problems(selection.filters, bench_states, f" (after -b {name})")
        if problems or not inherit or not bench_states:
            return problems
        # A global filter that fits other benchmarks may still rule this one out.
        inherited = _filter_problems(self.global_filters, bench_states, " (global)")
        if inherited:
            return [f"-b {name}: {problem}" for problem in inherited]
        group = self.global_filters + selection.filters
        if group and not _selects_any(group, bench_states):
            return [f"-b {name} {_options(group)}: selects no state of '{name}'"]
        return []

    def unmatched_text(
        self, seen: Iterable[SeenBenchmark], where: str = "the inputs"
    ) -> str | None:
        """``filter(s) matched nothing: ...`` of the :meth:`unmatched` filters; ``None`` when
        every filter matched (one wording for ``nvbench_compare`` and the history commands)."""
        problems = self.unmatched(seen, where=where)
        if not problems:
            return None
        noun = "filter" if len(problems) == 1 else "filters"
        return f"{noun} matched nothing: {'; '.join(problems)}"

    def require_matches(self, seen: Iterable[SeenBenchmark]) -> None:
        """Raise :class:`FilterError` listing :meth:`unmatched` filters, if any."""
        seen = list(seen)
        text = self.unmatched_text(seen)
        if text is not None:
            # A -b name no input has: known from the names, never from the problems' text,
            # which quotes the filters' values.
            present = _group_states(seen)
            missing = [name for name in self.benchmark_names if name not in present]
            if missing:
                text += f" (benchmarks in the inputs: {listed(present)})"
            if any(name.isascii() and name.isdigit() for name in missing):
                # NVBench's own -b also takes an index; a result file's indices are its own.
                text += "; -b takes a benchmark's name here, not the index NVBench's --list shows"
            raise FilterError(text)


def _pinned_axes(group: Sequence[AxisFilter]) -> dict[str, FilterValue]:
    pinned: dict[str, FilterValue] = {}
    conflicting: set[str] = set()
    for axis_filter in group:
        value = axis_filter.single_value
        if value is None:
            continue
        previous = pinned.setdefault(axis_filter.name, value)
        if previous.text != value.text:
            conflicting.add(axis_filter.name)
    return {name: value for name, value in pinned.items() if name not in conflicting}


def _group_states(seen: Iterable[SeenBenchmark]) -> dict[str, list[Sequence[StateAxisValue]]]:
    states: dict[str, list[Sequence[StateAxisValue]]] = {}
    for name, axis_values in seen:
        states.setdefault(name, []).extend(axis_values)
    return states


def _filter_problems(
    filters: Sequence[AxisFilter], states: Sequence[Sequence[StateAxisValue]], scope: str
) -> list[str]:
    problems: list[str] = []
    for axis_filter in filters:
        hits: set[int] = set()
        has_axis = False
        for axes in states:
            has_axis = has_axis or any(value.name == axis_filter.name for value in axes)
            hits |= axis_filter.matched_values(axes)
        shown = f"-a {axis_filter.describe()}{scope}"
        if not has_axis:
            names = [value.name for state in states for value in state]
            known = f" (axes: {listed(names)})" if names else ""
            problems.append(f"{shown}: no state has an axis named '{axis_filter.name}'{known}")
            continue
        missing = [v.display for i, v in enumerate(axis_filter.values) if i not in hits]
        if missing:
            values = ", ".join(
                f"{axis_filter.name}={display}" for display in dict.fromkeys(missing)
            )
            present = listed(
                _shown_value(value)
                for state in states
                for value in state
                if value.name == axis_filter.name
            )
            # A list whose other values match: said, as "matched nothing" alone read as if
            # the whole filter did (a value that matches nothing is refused: often a typo).
            some = (
                f"its other values match; list only values the runs have: {present}"
                if len(missing) < len(axis_filter.values)
                else f"values of {axis_filter.name}: {present}"
            )
            problems.append(f"{shown}: no state has {values} ({some})")
    return problems


def _shown_value(value: StateAxisValue) -> str:
    """An axis value as ``-a`` takes it and the tables show it (``2^16`` for pow2)."""
    return f"2^{value.input_string}" if value.is_pow2 else value.value


def _selects_any(group: Sequence[AxisFilter], states: Iterable[Sequence[StateAxisValue]]) -> bool:
    return any(all(f.matches(axes) for f in group) for axes in states)


def _options(filters: Sequence[AxisFilter]) -> str:
    return " ".join(f"-a {axis_filter.describe()}" for axis_filter in filters)


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def seen_benchmarks(
    results: Iterable[BenchmarkResult],
    plan: FilterPlan | None = None,
    known: Mapping[int, Sequence[Sequence[StateAxisValue]]] | None = None,
) -> list[SeenBenchmark]:
    """What :meth:`FilterPlan.unmatched` needs from loaded results: every benchmark's name
    and its states' axis values.

    Given the ``plan``, states are only read where it can look at them: those of the
    benchmarks it selects, when it has ``-a`` filters. ``known`` holds axis values already
    gathered, by ``id`` of the benchmark (a comparison split over processes gathers them
    where each benchmark was decoded).
    """
    known = known or {}

    def states(bench: SubBenchmarkResult) -> Sequence[Sequence[StateAxisValue]]:
        if plan is not None and not (plan.has_axis_filters and plan.selects_benchmark(bench.name)):
            return ()
        gathered = known.get(id(bench))
        return [state.axis_values for state in bench] if gathered is None else gathered

    return [(bench.name, states(bench)) for result in results for bench in result.benchmarks]


# ---------------------------------------------------------------------------------------------
# Device selections


def parse_device_selection(text: str, option: str) -> tuple[int, ...] | None:
    """``all`` → ``None``; ``"1"`` → ``(1,)``; ``"1,0,1"`` → ``(1, 0, 1)`` (order, repeats kept).

    ``option`` (``--reference-devices``) names the option in the error message.
    """
    stripped = text.strip()
    if stripped.lower() == "all":
        return None
    items = [item.strip() for item in stripped.split(",")]
    if not all(_DEVICE_ID.fullmatch(item) for item in items):
        raise FilterError(
            f"{option} must be 'all', a non-negative integer, or comma-separated "
            f"non-negative integers, got {text!r}"
        )
    return tuple(int(item) for item in items)
