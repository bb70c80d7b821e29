"""-b/-a filter grammar, NVBench scoping, matching, coverage, device selections, argparse."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import pytest
from cuda.bench.compare.errors import FilterError
from cuda.bench.compare.filters import (
    AxisFilter,
    FilterAction,
    FilterItem,
    FilterPlan,
    FilterValue,
    SeenBenchmark,
    add_filter_arguments,
    parse_axis_filter,
    parse_device_selection,
    seen_benchmarks,
)
from cuda.bench.results import BenchmarkResult, StateAxisValue
from cuda.bench.results._values import format_float64
from hypothesis import given
from hypothesis import strategies as st


def axis(name: str, value: str, kind: str = "string", **extra: str) -> StateAxisValue:
    """A state axis value as the reader makes it (stored text plus typed value)."""
    typed: int | float | str = value
    if kind == "int64":
        typed = int(value)
    elif kind == "float64":
        typed = float(value)
    axis_type = "type" if kind == "type" else kind
    stored_type = "string" if kind == "type" else kind
    return StateAxisValue(
        name=name,
        type=stored_type,
        value=value,
        typed=typed,
        flags=extra.get("flags", ""),
        axis_type=axis_type,
    )


def texts(axis_filter: AxisFilter) -> list[str]:
    return [value.text for value in axis_filter.values]


# ---------------------------------------------------------------------------------------------
# Grammar


def test_single_value() -> None:
    parsed = parse_axis_filter("Layout=contiguous")
    assert parsed.name == "Layout"
    assert texts(parsed) == ["contiguous"]
    assert parsed.describe() == "Layout=contiguous"
    assert parsed.spec == "Layout=contiguous"


def test_list_items_are_trimmed_and_empty_items_dropped() -> None:
    parsed = parse_axis_filter(" T = [ F32 , , F64 ,] ")
    assert parsed.name == "T"
    assert texts(parsed) == ["F32", "F64"]
    assert parsed.describe() == "T=[F32,F64]"


def test_bracketed_single_value_is_single() -> None:
    parsed = parse_axis_filter("T=[F32]")
    assert texts(parsed) == ["F32"]
    assert parsed.describe() == "T=F32"


def test_value_is_split_at_the_first_equals_sign() -> None:
    assert texts(parse_axis_filter("Mode=a=b")) == ["a=b"]


def test_comma_without_brackets_is_one_literal_value() -> None:
    # Upstream behaviour: only a bracketed list is a list.
    assert texts(parse_axis_filter("T=F32,F64")) == ["F32,F64"]


def test_pow2_exponent_becomes_power_of_two() -> None:
    parsed = parse_axis_filter("Elements{io}[pow2]=20")
    assert parsed.name == "Elements{io}"
    assert texts(parsed) == ["1048576"]
    assert parsed.describe() == "Elements{io}=2^20"


def test_pow2_list_and_spaces_around_flag() -> None:
    parsed = parse_axis_filter(" Elements [ pow2 ] = [16, 20] ")
    assert parsed.name == "Elements"
    assert texts(parsed) == ["65536", "1048576"]
    assert parsed.describe() == "Elements=[2^16,2^20]"


def test_empty_flags_mean_no_flags() -> None:
    parsed = parse_axis_filter("Elements[]=20")
    assert parsed.name == "Elements"
    assert texts(parsed) == ["20"]


def test_caret_form_keeps_text_and_names_the_number() -> None:
    parsed = parse_axis_filter("Elements=2^20")
    assert parsed.describe() == "Elements=2^20"
    assert parsed.values[0].number == 1048576


def test_caret_form_inside_lists() -> None:
    parsed = parse_axis_filter("Elements=[2^16, 4096]")
    assert parsed.describe() == "Elements=[2^16,4096]"
    assert [value.number for value in parsed.values] == [65536, 4096]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("X", "Axis filter must be NAME=VALUE: X"),
        ("=3", "Axis filter must be NAME=VALUE: =3"),
        ("X=", "Axis filter must be NAME=VALUE: X="),
        ("X=  ", "Axis filter must be NAME=VALUE: X=  "),
        ("[pow2]=3", "Axis filter missing name before [pow2]: [pow2]=3"),
        (" [ pow2 ]=3", "Axis filter missing name before [pow2]:  [ pow2 ]=3"),
        ("X[pow2]=a", "Axis filter [pow2] value must be integer: X[pow2]=a"),
        ("X[pow2]=1.0", "Axis filter [pow2] value must be integer: X[pow2]=1.0"),
        ("X[pow2]=2^3", "Axis filter [pow2] value must be integer: X[pow2]=2^3"),
        ("X[pow2]=[1,b]", "Axis filter [pow2] value must be integer: X[pow2]=[1,b]"),
        ("X[pow2]=1_0", "Axis filter [pow2] value must be integer: X[pow2]=1_0"),
        ("X[pow2]=-1", "Axis filter [pow2] exponent must be between 0 and 63: X[pow2]=-1"),
        ("X[pow2]=64", "Axis filter [pow2] exponent must be between 0 and 63: X[pow2]=64"),
        ("X=[]", "Axis filter must specify at least one value: X=[]"),
        ("X=[ , ]", "Axis filter must specify at least one value: X=[ , ]"),
        ("X[pow2]=[]", "Axis filter must specify at least one value: X[pow2]=[]"),
        ("X=[a,b", "Axis filter list must end with ']': X=[a,b"),
        ("X[foo]=1", "Axis filter flag must be [pow2], got [foo]: X[foo]=1"),
    ],
)
def test_malformed_filters_are_rejected_with_the_spec(spec: str, message: str) -> None:
    with pytest.raises(FilterError) as caught:
        parse_axis_filter(spec)
    assert str(caught.value) == message


def test_pow2_exponent_bounds_are_accepted() -> None:
    assert texts(parse_axis_filter("X[pow2]=[0,63]")) == ["1", str(2**63)]
    assert texts(parse_axis_filter("X[pow2]=+3")) == ["8"]


# ---------------------------------------------------------------------------------------------
# Matching one filter


def matches(spec: str, *values: StateAxisValue) -> bool:
    return parse_axis_filter(spec).matches(values)


def test_exact_stored_text_matches() -> None:
    assert matches("Layout=contiguous", axis("Layout", "contiguous"))
    assert not matches("Layout=Contiguous", axis("Layout", "contiguous"))
    assert not matches("layout=contiguous", axis("Layout", "contiguous"))


def test_one_of_the_list_values_suffices() -> None:
    assert matches("T=[F32,F64]", axis("T", "F64", "type"))
    assert not matches("T=[F32,F64]", axis("T", "I32", "type"))


def test_type_axes_match_their_input_string() -> None:
    assert matches("T=F32", axis("T", "F32", "type"))
    assert not matches("T=float", axis("T", "F32", "type"))


def test_state_without_the_axis_fails() -> None:
    assert not matches("T=F32", axis("Layout", "F32"))
    assert not matches("T=F32")


def test_other_axes_do_not_interfere() -> None:
    assert matches("Elements=1024", axis("T", "F32", "type"), axis("Elements", "1024", "int64"))


def test_pow2_filter_matches_stored_power() -> None:
    elements = axis("Elements", "1048576", "int64", flags="pow2")
    assert matches("Elements[pow2]=20", elements)
    assert matches("Elements[pow2]=[16,20]", elements)
    assert not matches("Elements[pow2]=16", elements)


def test_caret_value_matches_int64_axis_numerically() -> None:
    # Upstream compares text, so Elements=2^20 never matched the stored "1048576".
    assert matches("Elements=2^20", axis("Elements", "1048576", "int64", flags="pow2"))
    assert matches("Elements=[2^16,2^20]", axis("Elements", "1048576", "int64"))
    assert not matches("Elements=2^19", axis("Elements", "1048576", "int64"))


def test_exponent_alone_does_not_match_pow2_axis() -> None:
    assert not matches("Elements=20", axis("Elements", "1048576", "int64", flags="pow2"))


def test_caret_value_matches_a_string_axis_literally() -> None:
    assert matches("Size=2^10", axis("Size", "2^10"))
    assert not matches("Size=2^10", axis("Size", "1024"))


def test_int64_axes_match_numerically_equal_text() -> None:
    plain = axis("Plain", "7", "int64")
    assert matches("Plain=7", plain)
    assert matches("Plain=7.0", plain)
    assert matches("Plain=+7", plain)
    assert matches("Plain=0.7e1", plain)
    assert not matches("Plain=7.5", plain)
    assert not matches("Plain=8", plain)


def test_int64_matching_is_exact_beyond_float_precision() -> None:
    big = axis("N", str(2**53 + 1), "int64")
    assert matches(f"N={2**53 + 1}", big)
    assert not matches(f"N={2**53}", big)


def test_float64_axes_match_numerically_equal_text() -> None:
    assert matches("Ratio=1.0", axis("Ratio", "1", "float64"))
    assert matches("Ratio=1", axis("Ratio", "1", "float64"))
    assert matches("Ratio=0.25", axis("Ratio", "0.25", "float64"))
    assert matches("Ratio=2.5e-1", axis("Ratio", "0.25", "float64"))
    assert matches("Ratio=0.0000001", axis("Ratio", "1e-07", "float64"))
    assert matches("Ratio=0.1", axis("Ratio", "0.1", "float64"))
    assert not matches("Ratio=0.5", axis("Ratio", "0.25", "float64"))


def test_float64_range_values_match_what_nvbench_prints() -> None:
    # NVBench's range [0.5:1:0.1] stores 0.7999999999999999 but names the state Quality=0.8;
    # upstream needed the 16-digit text, we take the printed one as well.
    stored = axis("Quality", "0.7999999999999999", "float64")
    assert matches("Quality=0.8", stored)
    assert matches("Quality=0.7999999999999999", stored)
    assert not matches("Quality=0.9", stored)


def test_float64_axes_match_the_table_token() -> None:
    # State names and tables show %.5g: Ratio=1.2346e+05 for 123456.789.
    stored = axis("Ratio", "123456.789", "float64")
    assert matches("Ratio=1.2346e+05", stored)
    assert matches("Ratio=123456.789", stored)
    assert not matches("Ratio=123457", stored)


def test_string_axes_do_not_match_numerically() -> None:
    assert not matches("Mode=1.0", axis("Mode", "1"))
    assert not matches("Mode=01", axis("Mode", "1"))


def test_absurd_numbers_are_literal_text_only() -> None:
    assert FilterValue("1e99999999999999999999").number is None
    assert FilterValue("2^99999999").number is None
    assert FilterValue("2^1023").number == 2**1023
    assert not matches("N=1e99999999999999999999", axis("N", "1", "int64"))
    assert not matches("R=1e-99999999999999999999", axis("R", "0", "float64"))
    assert matches("R=0.0", axis("R", "0", "float64"))
    assert matches("R=-0", axis("R", "0", "float64"))
    with pytest.raises(FilterError, match="between 0 and 63"):
        parse_axis_filter("X[pow2]=" + "9" * 5000)
    assert texts(parse_axis_filter("X[pow2]=007")) == ["128"]


def test_an_absurd_exponent_is_shortened_in_the_message() -> None:
    """``-a X[pow2]=<400 digits>`` printed its 400 digits in the one error line."""
    with pytest.raises(FilterError) as raised:
        parse_axis_filter("X[pow2]=" + "9" * 400)
    assert str(raised.value) == (
        f"Axis filter [pow2] exponent must be between 0 and 63: X[pow2]={'9' * 20}… (400 digits)"
    )


def test_words_python_would_parse_as_numbers_are_not_numbers() -> None:
    assert FilterValue("1_000").number is None
    assert FilterValue("inf").number is None
    assert FilterValue("nan").number is None
    assert not matches("N=1_000", axis("N", "1000", "int64"))
    # ... but the stored text still matches literally.
    assert matches("R=inf", axis("R", "inf", "float64"))


@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_int64_values_match_their_decimal_text(number: int) -> None:
    stored = axis("N", str(number), "int64")
    assert matches(f"N={number}", stored)
    assert matches(f"N={number}.0", stored)
    assert not matches(f"N={number + 1}", stored)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float64_values_match_their_repr_and_stored_text(number: float) -> None:
    stored = axis("R", format_float64(number), "float64")
    assert matches(f"R={number!r}", stored)
    assert matches(f"R={format_float64(number)}", stored)


@given(st.integers(min_value=0, max_value=63))
def test_pow2_and_caret_forms_agree(exponent: int) -> None:
    stored = axis("E", str(2**exponent), "int64", flags="pow2")
    assert matches(f"E[pow2]={exponent}", stored)
    assert matches(f"E=2^{exponent}", stored)
    assert parse_axis_filter(f"E[pow2]={exponent}").describe() == f"E=2^{exponent}"


@given(
    st.lists(
        st.text(alphabet=st.characters(blacklist_characters=",[]", categories=("L", "N", "P")))
        .map(str.strip)
        .filter(bool),
        min_size=2,
        max_size=5,
    )
)
def test_list_display_round_trips(items: list[str]) -> None:
    parsed = parse_axis_filter(f"Name=[{', '.join(items)}]")
    assert texts(parsed) == items
    assert parse_axis_filter(parsed.describe()) == parsed


# ---------------------------------------------------------------------------------------------
# Scoping


COPY_F32 = (axis("T", "F32", "type"), axis("Elements", "65536", "int64", flags="pow2"))
COPY_F64 = (axis("T", "F64", "type"), axis("Elements", "1048576", "int64", flags="pow2"))
MISC = (axis("Ratio", "0.25", "float64"),)


def plan(*items: FilterItem) -> FilterPlan:
    return FilterPlan.from_args(items)


def test_empty_plan_selects_everything() -> None:
    empty = plan()
    assert empty.is_empty
    assert FilterPlan.from_args(None).is_empty
    assert empty.selects_benchmark("anything")
    assert empty.selects_state("anything", COPY_F32)
    assert empty.selects_state("anything", ())
    assert empty.describe() == ()


def test_global_filter_applies_to_every_benchmark() -> None:
    p = plan(("axis", "T=F32"))
    assert p.selects_benchmark("copy") and p.selects_benchmark("misc")
    assert p.selects_state("copy", COPY_F32)
    assert not p.selects_state("copy", COPY_F64)
    # A benchmark without the axis has no state that passes.
    assert not p.selects_state("misc", MISC)


def test_benchmark_selection_is_exact_and_exclusive() -> None:
    p = plan(("benchmark", "copy"))
    assert p.selects_benchmark("copy")
    assert not p.selects_benchmark("Copy")
    assert not p.selects_benchmark("copy ")
    assert not p.selects_benchmark("misc")
    assert p.selects_state("copy", COPY_F64)
    assert not p.selects_state("misc", MISC)


def test_axis_after_benchmark_is_scoped_to_it() -> None:
    p = plan(("benchmark", "copy"), ("axis", "T=F32"), ("benchmark", "misc"))
    assert p.selects_state("copy", COPY_F32)
    assert not p.selects_state("copy", COPY_F64)
    assert p.selects_state("misc", MISC)


def test_global_and_scoped_filters_are_anded() -> None:
    p = plan(("axis", "T=[F32,F64]"), ("benchmark", "copy"), ("axis", "Elements[pow2]=20"))
    assert p.global_filters[0].describe() == "T=[F32,F64]"
    assert p.selects_state("copy", COPY_F64)
    assert not p.selects_state("copy", COPY_F32)  # T ok, Elements not


def test_global_filter_reaches_every_benchmark_occurrence() -> None:
    p = plan(("axis", "T=F64"), ("benchmark", "copy"), ("benchmark", "other"))
    assert not p.selects_state("copy", COPY_F32)
    assert p.selects_state("other", COPY_F64)
    assert not p.selects_state("other", COPY_F32)


def test_repeated_benchmark_occurrences_are_alternatives() -> None:
    p = plan(
        ("benchmark", "copy"),
        ("axis", "T=F32"),
        ("benchmark", "copy"),
        ("axis", "Elements[pow2]=20"),
    )
    assert len(p.groups("copy")) == 2
    assert p.selects_state("copy", COPY_F32)  # first occurrence
    assert p.selects_state("copy", COPY_F64)  # second occurrence
    neither = (axis("T", "F64", "type"), axis("Elements", "65536", "int64"))
    assert not p.selects_state("copy", neither)


def test_filters_within_a_group_are_anded() -> None:
    p = plan(("axis", "T=F32"), ("axis", "Elements=65536"))
    assert p.selects_state("copy", COPY_F32)
    assert not p.selects_state("copy", (axis("T", "F32", "type"),))


def test_bare_repeat_of_a_benchmark_widens_a_filtered_one() -> None:
    p = plan(("benchmark", "copy"), ("axis", "T=F32"), ("benchmark", "copy"))
    assert p.selects_state("copy", COPY_F64)


def test_plan_errors() -> None:
    with pytest.raises(FilterError, match="non-empty benchmark name"):
        plan(("benchmark", ""))
    with pytest.raises(FilterError, match="unknown filter kind 'device'"):
        plan(("device", "0"))
    with pytest.raises(FilterError, match=r"^Axis filter must be NAME=VALUE: T$"):
        plan(("benchmark", "copy"), ("axis", "T"))


def test_describe_keeps_command_line_order() -> None:
    p = plan(
        ("axis", "T=F32"),
        ("benchmark", "copy"),
        ("axis", "Elements[pow2]=[16,20]"),
        ("benchmark", "misc"),
        ("axis", "Ratio=0.25"),
    )
    assert p.describe() == (
        "-a T=F32",
        "-b copy",
        "-a Elements=[2^16,2^20]",
        "-b misc",
        "-a Ratio=0.25",
    )
    assert p.benchmark_names == ("copy", "misc")


def test_single_valued_axes() -> None:
    p = plan(
        ("axis", "T=F32"),
        ("axis", "Layout=[a,b]"),
        ("benchmark", "copy"),
        ("axis", "Elements[pow2]=20"),
        ("benchmark", "misc"),
    )
    assert p.single_valued_axes() == {"T": "F32"}
    assert p.single_valued_axes("copy") == {"T": "F32", "Elements": "2^20"}
    assert p.single_valued_axes("misc") == {"T": "F32"}
    assert p.single_valued_axes("unselected") == {}


def test_single_valued_axes_need_agreement_across_occurrences() -> None:
    p = plan(
        ("benchmark", "copy"),
        ("axis", "T=F32"),
        ("axis", "Elements=2^20"),
        ("benchmark", "copy"),
        ("axis", "T=F64"),
        ("axis", "Elements=2^20"),
    )
    assert p.single_valued_axes("copy") == {"Elements": "2^20"}


def test_conflicting_single_values_pin_nothing() -> None:
    p = plan(("axis", "T=F32"), ("axis", "T=F64"), ("axis", "X=[1,1]"))
    assert p.single_valued_axes() == {"X": "1"}


# ---------------------------------------------------------------------------------------------
# Filters that match nothing


SEEN: list[SeenBenchmark] = [
    ("copy", [COPY_F32, COPY_F64]),
    ("misc", [MISC]),
]


def test_everything_matched_reports_nothing() -> None:
    assert plan().unmatched(SEEN) == ()
    assert plan(("axis", "T=F32")).unmatched(SEEN) == ()
    assert plan(("benchmark", "copy"), ("axis", "T=[F32,F64]")).unmatched(SEEN) == ()
    plan(("benchmark", "misc")).require_matches(SEEN)


def test_unknown_benchmark_is_reported() -> None:
    p = plan(("benchmark", "copy"), ("benchmark", "nope"), ("benchmark", "nope"))
    assert p.unmatched(SEEN) == ("-b nope: no such benchmark in the inputs",)


def test_unknown_axis_is_reported() -> None:
    assert plan(("axis", "Typ=F32")).unmatched(SEEN) == (
        "-a Typ=F32: no state has an axis named 'Typ' (axes: T, Elements, Ratio)",
    )


def test_unknown_value_is_reported() -> None:
    assert plan(("axis", "T=F128")).unmatched(SEEN) == (
        "-a T=F128: no state has T=F128 (values of T: F32, F64)",
    )


def test_unknown_value_in_a_list_is_reported() -> None:
    # Its other values matching is said: "filter matched nothing" alone read as if the
    # whole list had (first-hour trial, -a 'Elements[pow2]=[16,24]' on a run of 2^16, 2^20).
    assert plan(("axis", "T=[F32,F128,I8]")).unmatched(SEEN) == (
        "-a T=[F32,F128,I8]: no state has T=F128, T=I8 (its other values match; list only "
        "values the runs have: F32, F64)",
    )
    assert plan(("axis", "T=[F128,I8]")).unmatched(SEEN) == (
        "-a T=[F128,I8]: no state has T=F128, T=I8 (values of T: F32, F64)",
    )


def test_upstream_caret_pitfall_now_matches() -> None:
    assert plan(("axis", "Elements=2^20")).unmatched(SEEN) == ()
    assert plan(("axis", "Elements=2^21")).unmatched(SEEN) == (
        "-a Elements=2^21: no state has Elements=2^21 (values of Elements: 2^16, 2^20)",
    )


def test_scoped_filter_is_checked_against_its_benchmark_only() -> None:
    p = plan(("benchmark", "misc"), ("axis", "T=F32"))
    assert p.unmatched(SEEN) == (
        "-a T=F32 (after -b misc): no state has an axis named 'T' (axes: Ratio)",
    )


def test_global_filter_is_checked_against_selected_benchmarks_only() -> None:
    p = plan(("axis", "Ratio=0.25"), ("benchmark", "copy"))
    assert p.unmatched(SEEN) == (
        "-a Ratio=0.25: no state has an axis named 'Ratio' (axes: T, Elements)",
    )


def test_global_filter_that_rules_out_a_selected_benchmark_is_reported() -> None:
    p = plan(("axis", "T=F32"), ("benchmark", "copy"), ("benchmark", "misc"))
    assert p.unmatched(SEEN) == (
        "-b misc: -a T=F32 (global): no state has an axis named 'T' (axes: Ratio)",
    )


def test_each_occurrence_is_checked_after_an_earlier_problem() -> None:
    p = plan(("axis", "T=F32"), ("benchmark", "nope"), ("benchmark", "copy"), ("benchmark", "misc"))
    assert p.unmatched(SEEN) == (
        "-b nope: no such benchmark in the inputs",
        "-b misc: -a T=F32 (global): no state has an axis named 'T' (axes: Ratio)",
    )


def test_global_filter_may_fit_only_some_benchmarks_without_b() -> None:
    assert plan(("axis", "T=F32")).unmatched(SEEN) == ()


def test_group_that_matches_no_single_state_is_reported() -> None:
    p = plan(("benchmark", "copy"), ("axis", "T=F32"), ("axis", "Elements=2^20"))
    assert p.unmatched(SEEN) == ("-b copy -a T=F32 -a Elements=2^20: selects no state of 'copy'",)
    q = plan(("axis", "T=F32"), ("axis", "Elements=2^20"))
    assert q.unmatched(SEEN) == ("-a T=F32 -a Elements=2^20: selects no state",)


def test_one_good_occurrence_does_not_excuse_a_bad_one() -> None:
    p = plan(
        ("benchmark", "copy"),
        ("axis", "T=F32"),
        ("benchmark", "copy"),
        ("axis", "T=F16"),
    )
    assert p.unmatched(SEEN) == (
        "-a T=F16 (after -b copy): no state has T=F16 (values of T: F32, F64)",
    )


def test_require_matches_names_every_problem_in_one_line() -> None:
    p = plan(("axis", "T=F128"), ("benchmark", "copy"), ("benchmark", "nope"))
    with pytest.raises(FilterError) as caught:
        p.require_matches(SEEN)
    message = str(caught.value)
    assert message == (
        "filters matched nothing: -a T=F128: no state has T=F128 (values of T: F32, F64); "
        "-b nope: no such benchmark in the inputs (benchmarks in the inputs: copy, misc)"
    )
    assert "\n" not in message


def test_the_benchmark_list_follows_a_missing_benchmark_not_a_value_worded_like_one() -> None:
    """Whether a -b benchmark is missing is known from the names, never from the problems'
    text, which quotes the filters' values."""
    value = "no such benchmark in the inputs"
    p = plan(("axis", f"T={value}"))
    with pytest.raises(FilterError) as caught:
        p.require_matches(SEEN)
    assert str(caught.value) == (
        f"filter matched nothing: -a T={value}: no state has T={value} (values of T: F32, F64)"
    )


def test_the_values_present_are_listed_bounded_and_as_text() -> None:
    # "-a T=F16: no state has T=F16" named none of the values there were to choose from.
    many = [[axis("T", f"V{index:02}")] for index in range(25)]
    hostile = [[axis("T", "\x1b]0;title\x07" + "x" * 100)]]
    (problem,) = plan(("axis", "T=F16")).unmatched([("b", [*hostile, *many])])
    listed = problem.split("(values of T: ", 1)[1]
    assert listed.endswith(", V18 and 6 more)")  # 20 of 26 shown
    assert "\x1b" not in problem and "\x07" not in problem
    assert "\\x1b]0;title\\x07" in problem
    assert max(len(item) for item in listed.split(", ")) <= 40


def test_global_filter_is_not_blamed_when_no_benchmark_is_there() -> None:
    p = plan(("axis", "T=F128"), ("benchmark", "nope"))
    assert p.unmatched(SEEN) == ("-b nope: no such benchmark in the inputs",)


def test_filters_over_inputs_without_states() -> None:
    assert plan(("axis", "T=F32")).unmatched([]) == ("-a T=F32: no state has an axis named 'T'",)
    assert plan(("benchmark", "copy")).unmatched([("copy", [])]) == ()


def test_states_seen_in_either_input_count() -> None:
    # The same benchmark may come from both files (and from several file pairs).
    seen = [("copy", [COPY_F32]), ("copy", [COPY_F64])]
    assert plan(("axis", "T=[F32,F64]")).unmatched(seen) == ()


def test_unmatched_on_real_files(gpu_dir: Path) -> None:
    results = [BenchmarkResult(gpu_dir / "gpu_ref.json"), BenchmarkResult(gpu_dir / "gpu_cmp.json")]
    seen = seen_benchmarks(results)
    good = plan(
        ("benchmark", "copy_bench"),
        ("axis", "T=F32"),
        ("axis", "Elements=2^20"),
        ("benchmark", "misc"),
        ("axis", "Ratio=[1.0, 1.2346e+05, 1e-7]"),
    )
    assert good.unmatched(seen) == ()
    bad = plan(("axis", "Elements=20"), ("benchmark", "copy_bench"), ("benchmark", "copy"))
    assert bad.unmatched(seen) == (
        "-a Elements=20: no state has Elements=20 (values of Elements: 2^16, 2^20)",
        "-b copy: no such benchmark in the inputs",
    )


def test_selection_on_real_files(gpu_dir: Path) -> None:
    result = BenchmarkResult(gpu_dir / "gpu_ref.json")
    p = plan(
        ("benchmark", "copy_bench"),
        ("axis", "T=F32"),
        ("axis", "Elements[pow2]=20"),
        ("benchmark", "misc"),
        ("axis", "Ratio=1.0"),
    )
    chosen = [
        state.state_name
        for bench in result.benchmarks
        for state in bench
        if p.selects_benchmark(bench.name) and p.selects_state(bench.name, state.axis_values)
    ]
    assert chosen == [
        "Device=0 T=F32 Elements=2^20 Layout=contiguous",
        "Device=0 T=F32 Elements=2^20 Layout=strided",
        "Device=1 T=F32 Elements=2^20 Layout=contiguous",
        "Device=1 T=F32 Elements=2^20 Layout=strided",
        "Device=0 Ratio=1 Plain=7",
        "Device=1 Ratio=1 Plain=7",
    ]


def test_float_axis_on_old_files(upstream_2021_dir: Path) -> None:
    result = BenchmarkResult(upstream_2021_dir / "ref.json")
    p = plan(("benchmark", "single_float64_axis"), ("axis", "Duration=[0.00010, 1e-3]"))
    chosen = [
        state.key
        for state in result["single_float64_axis"]
        if p.selects_state("single_float64_axis", state.axis_values)
    ]
    assert sorted(set(chosen)) == ["Duration=0.0001", "Duration=0.001"]
    assert p.unmatched(seen_benchmarks([result])) == ()


# ---------------------------------------------------------------------------------------------
# Device selections


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("all", None),
        ("ALL", None),
        (" all ", None),
        ("0", (0,)),
        (" 1 ", (1,)),
        ("1,0", (1, 0)),
        ("0,0,1", (0, 0, 1)),
        (" 2 , 3 ", (2, 3)),
        ("10", (10,)),
    ],
)
def test_device_selection(text: str, expected: tuple[int, ...] | None) -> None:
    assert parse_device_selection(text, "--reference-devices") == expected


@pytest.mark.parametrize("text", ["", " ", "1,", ",1", "-1", "a", "1.0", "0x1", "1_0", "٣", "1;2"])
def test_bad_device_selection_names_the_option(text: str) -> None:
    with pytest.raises(FilterError) as caught:
        parse_device_selection(text, "--compare-devices")
    assert str(caught.value) == (
        "--compare-devices must be 'all', a non-negative integer, or comma-separated "
        f"non-negative integers, got {text!r}"
    )


# ---------------------------------------------------------------------------------------------
# argparse


def parser() -> argparse.ArgumentParser:
    result = argparse.ArgumentParser(prog="t", exit_on_error=False)
    add_filter_arguments(result)
    return result


def test_action_keeps_relative_order() -> None:
    args = parser().parse_args(
        ["-a", "T=F32", "-b", "copy", "--axis", "Elements[pow2]=20", "--benchmark", "misc"]
    )
    assert args.filters == [
        ("axis", "T=F32"),
        ("benchmark", "copy"),
        ("axis", "Elements[pow2]=20"),
        ("benchmark", "misc"),
    ]
    assert FilterPlan.from_args(args.filters).describe() == (
        "-a T=F32",
        "-b copy",
        "-a Elements=2^20",
        "-b misc",
    )


def test_action_default_is_none_and_parses_do_not_share_lists() -> None:
    p = parser()
    assert p.parse_args([]).filters is None
    first = p.parse_args(["-b", "x"]).filters
    second = p.parse_args(["-b", "y"]).filters
    assert first == [("benchmark", "x")]
    assert second == [("benchmark", "y")]


def test_action_with_explicit_kind_and_custom_options() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--bench", dest="items", action=FilterAction, const="benchmark")
    p.add_argument("--ax", dest="items", action=FilterAction, const="axis")
    items: Sequence[FilterItem] = p.parse_args(["--ax", "X=1", "--bench", "b"]).items
    assert list(items) == [("axis", "X=1"), ("benchmark", "b")]


def test_action_without_a_known_kind_is_a_programming_error() -> None:
    p = argparse.ArgumentParser()
    with pytest.raises(ValueError, match="const='benchmark' or const='axis'"):
        p.add_argument("--filter", action=FilterAction)
