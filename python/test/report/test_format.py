"""Formatting helpers: NVBench cells (spec §8.4), axis values, durations, intervals, tables."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from conftest import real_path
from cuda.bench.report.format import (
    AxisStyle,
    DurationUnit,
    c_fixed,
    c_general,
    duration_unit,
    format_axis_value,
    format_duration,
    format_noise,
    format_percent,
    format_summary,
    format_summary_value,
    format_walltime,
)
from cuda.bench.report.intervals import (
    align_compact_intervals,
    align_explicit_intervals,
    compact_interval,
    explicit_interval,
    format_interval_compact,
    format_interval_explicit,
)
from cuda.bench.report.table import (
    COLOURED,
    GITHUB,
    Align,
    Table,
    TableFormat,
    coloured_cell,
    display_width,
    escape_cell,
    render_nvbench_table,
    render_table,
    strip_ansi,
    visible_cell,
)
from cuda.bench.results import BenchmarkResult, BenchmarkResultSummary, StateAxisValue
from hypothesis import given
from hypothesis import strategies as st

INF = math.inf
NAN = math.nan

# --------------------------------------------------------------------------------------
# C printf text
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1.5, "1.500"), (-0.0, "-0.000"), (INF, "inf"), (-INF, "-inf"), (NAN, "nan")],
)
def test_c_fixed_prints_like_printf(value: float, expected: str) -> None:
    assert c_fixed(value) == expected


def test_c_fixed_keeps_the_sign_of_a_negative_nan_like_glibc() -> None:
    assert c_fixed(-NAN) == "-nan"
    assert c_general(-NAN) == "-nan"


@pytest.mark.parametrize(
    ("value", "expected"),
    # The %.5g examples of spec §2 and §4.1.
    [(0.25, "0.25"), (1.0, "1"), (123456.789, "1.2346e+05"), (1e-7, "1e-07"), (INF, "inf")],
)
def test_c_general_matches_the_spec_examples(value: float, expected: str) -> None:
    assert c_general(value) == expected


# --------------------------------------------------------------------------------------
# NVBench summary cells by hint (spec §8.4)
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "hint", "expected"),
    [
        # The examples column of spec §8.4.
        (1.1732390257847518e-05, "duration", "11.732 us"),
        (0.0012440, "duration", "1.244 ms"),
        (152.30291, "duration", "152.303 s"),
        (1.2236e-10, "duration", "0.122 ns"),
        (INF, "duration", "inf s"),
        (NAN, "duration", "nan ns"),
        (186423168842.7216, "item_rate", "186.423G"),
        (806583.0, "item_rate", "806.583K"),
        (6.5659, "item_rate", "6.566"),
        (1491385350741.7727, "byte_rate", "1.491 TB/s"),
        (995552000.0, "byte_rate", "995.552 MB/s"),
        (4096, "bytes", "4.000 KiB"),
        (1754902870.5162332, "frequency", "1.755 GHz"),
        (89200, "sample_size", "89200x"),
        (0.018133493709267402, "percentage", "1.81%"),
        (0.44488155985758304, "percentage", "44.49%"),
        (INF, "percentage", "inf%"),
        (1 / 3, None, "0.33333"),
        (1000, None, "1000"),
        ("hello", None, "hello"),
    ],
)
def test_summary_cells_match_spec_examples(
    value: float | str, hint: str | None, expected: str
) -> None:
    assert format_summary_value(value, hint) == expected


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (0.0, "0.000 ns"),
        (1.0, "1.000 s"),
        (1e-3, "1.000 ms"),
        (1e-6, "1.000 us"),
        (1e-7, "100.000 ns"),
        (152.0, "152.000 s"),
        # NVBench picks the unit before rounding, so it prints 1000.000 of the smaller unit.
        (0.9999999, "1000.000 ms"),
        (0.0009999999, "1000.000 us"),
        # A negative duration fails every ">=" test and lands in ns, as in the C++ printer.
        (-0.5, "-500000000.000 ns"),
        (-INF, "-inf ns"),
    ],
)
def test_duration_cells_at_the_unit_boundaries(seconds: float, expected: str) -> None:
    assert format_summary_value(seconds, "duration") == expected


@pytest.mark.parametrize(
    ("value", "hint", "expected"),
    [
        (999.9, "item_rate", "999.900"),
        (1e3, "item_rate", "1.000K"),
        (1e15, "item_rate", "1.000P"),
        (-5.0, "item_rate", "-5.000"),
        (999.0, "byte_rate", "999.000 B/s"),
        (1e15, "byte_rate", "1.000 PB/s"),
        (1023, "bytes", "1023.000 B"),
        (1024, "bytes", "1.000 KiB"),
        (2**20, "bytes", "1.000 MiB"),
        (3 * 2**30, "bytes", "3.000 GiB"),
        (999.0, "frequency", "999.000 Hz"),
        (1e3, "frequency", "1.000 KHz"),
        (1.41e6, "frequency", "1.410 MHz"),
        (0.0, "percentage", "0.00%"),
        (-0.5, "percentage", "-50.00%"),
        (NAN, "percentage", "nan%"),
        (123456.789, None, "1.2346e+05"),
        (1e-7, None, "1e-07"),
        (0.5, "no-such-hint", "0.5"),
        # A value whose type does not fit the hint is shown as it is.
        ("fast", "duration", "fast"),
        (None, "duration", ""),
    ],
)
def test_summary_cells_for_other_values(
    value: float | str | None, hint: str | None, expected: str
) -> None:
    assert format_summary_value(value, hint) == expected


def test_format_summary_uses_the_value_entry_and_hint() -> None:
    summary = BenchmarkResultSummary(
        tag="my/str",
        name="Str",
        hint=None,
        hide=None,
        description=None,
        data={"value": "hello", "extra": 42},
    )
    assert format_summary(summary) == "hello"


# --------------------------------------------------------------------------------------
# Axis values
# --------------------------------------------------------------------------------------


def _axis(
    value: str, typed: int | float | str | None, *, kind: str = "int64", flags: str = ""
) -> StateAxisValue:
    return StateAxisValue(
        name="X", type=kind, value=value, typed=typed, flags=flags, axis_type=kind
    )


@pytest.mark.parametrize(
    ("axis_value", "table", "compact"),
    [
        (_axis("1048576", 1048576, flags="pow2"), "2^20 = 1048576", "2^20"),
        (_axis("1", 1, flags="pow2"), "2^0 = 1", "2^0"),
        (_axis("7", 7), "7", "7"),
        (_axis("-3", -3), "-3", "-3"),
        (_axis("0.25", 0.25, kind="float64"), "0.25", "0.25"),
        (_axis("1", 1.0, kind="float64"), "1", "1"),
        (_axis("123456.789", 123456.789, kind="float64"), "1.2346e+05", "1.2346e+05"),
        (_axis("1e-07", 1e-7, kind="float64"), "1e-07", "1e-07"),
        (_axis("x y", "x y", kind="string"), "x y", "x y"),
        (_axis("", None), "", ""),
    ],
)
def test_axis_value_styles(axis_value: StateAxisValue, table: str, compact: str) -> None:
    assert format_axis_value(axis_value) == table
    assert format_axis_value(axis_value, AxisStyle.TABLE) == table
    assert format_axis_value(axis_value, AxisStyle.COMPACT) == compact


def test_axis_flags_argument_overrides_the_value_flags() -> None:
    plain = _axis("65536", 65536)
    assert format_axis_value(plain, AxisStyle.COMPACT, flags="pow2") == "2^16"
    pow2 = _axis("65536", 65536, flags="pow2")
    assert format_axis_value(pow2, AxisStyle.COMPACT, flags="") == "65536"


def _real_files() -> list[Path]:
    return [
        real_path("nvbench-format-examples/gpu/gpu_ref.json"),
        real_path("nvbench-format-examples/cpu/cpu_run1.json"),
        real_path("upstream-2021-two-gpus/ref.json"),
    ]


def test_compact_axis_values_rebuild_nvbench_state_names() -> None:
    # Spec §4.3: NVBench writes state names with exactly the compact axis style.
    checked = 0
    for path in _real_files():
        for state in BenchmarkResult(path).states():
            tokens = [
                f"{value.name}={format_axis_value(value, AxisStyle.COMPACT)}"
                for value in state.axis_values
            ]
            assert " ".join(tokens) == state.key
            checked += 1
    assert checked > 100


# --------------------------------------------------------------------------------------
# Durations, percentages, noise
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (-0.026219, "-26.219 ms"),  # the legacy tool printed -26219.000 us
        (0.026219, "26.219 ms"),
        (1e-7, "100.000 ns"),
        (-1e-7, "-100.000 ns"),
        (152.0, "152.000 s"),
        (1e-3, "1.000 ms"),
        (1.0, "1.000 s"),
        (1e-6, "1.000 us"),
        (0.9999996, "1.000 s"),
        (999.9996e-6, "1.000 ms"),
        (0.0, "0.000 ns"),
        (6e-13, "0.001 ns"),
        # Below half a picosecond (0.000 ns) and from a million seconds on: scientific, in
        # seconds (3e-15 s read "0.000 ns", 3e24 s "3000000000000000000000000.000 s").
        (-1e-13, "-1.000e-13 s"),
        (3e-15, "3.000e-15 s"),
        (5e-324, "4.941e-324 s"),
        (999999.0, "999999.000 s"),
        (1e6, "1.000e+06 s"),
        (3.1816e24, "3.182e+24 s"),
        (1.7976931348623157e308, "1.798e+308 s"),
        (None, "n/a"),
        (NAN, "n/a"),
        (INF, "inf"),
        (-INF, "-inf"),
    ],
)
def test_format_duration(seconds: float | None, expected: str) -> None:
    assert format_duration(seconds) == expected


def test_format_duration_signed_and_fixed_unit() -> None:
    assert format_duration(2.5e-6, signed=True) == "+2.500 us"
    assert format_duration(-2.5e-6, signed=True) == "-2.500 us"
    assert format_duration(0.0, signed=True) == "+0.000 ns"
    assert format_duration(2.5e-6, unit=DurationUnit.MS) == "0.003 ms"
    assert format_duration(2.5e-6, unit=DurationUnit.NS, decimals=0) == "2500 ns"


_DURATION = re.compile(r"(?P<number>[+-]?\d+\.\d{3}(?P<exponent>e[+-]\d+)?) (?P<unit>s|ms|us|ns)")


# Up to 1e300: the four digits of the largest floats read back as an overflow.
@given(st.floats(min_value=-1e300, max_value=1e300))
def test_format_duration_reads_back_as_the_value(seconds: float) -> None:
    text = format_duration(seconds)
    match = _DURATION.fullmatch(text)
    assert match is not None, text
    unit = {unit.symbol: unit for unit in DurationUnit}[match["unit"]]
    number = float(match["number"])
    if match["exponent"]:
        # Scientific notation only for extreme magnitudes, in seconds, 4 digits.
        assert abs(seconds) >= 1e6 or 0 < abs(seconds) < 5e-13
        assert unit is DurationUnit.S
        assert number == pytest.approx(seconds, rel=5e-4)
        return
    assert abs(seconds) < 1e6 and (seconds == 0 or abs(seconds) >= 5e-13)
    resolution = 0.000501 / unit.per_second  # half the last decimal, and rounding
    assert number * (1.0 / unit.per_second) == pytest.approx(seconds, abs=resolution)
    if number != 0.0:
        assert (number < 0) == (seconds < 0)
    # The unit fits the magnitude: no "1000.000 us", nothing below 1 except in ns.
    assert abs(number) < 1000.0 or unit is DurationUnit.S
    assert abs(number) >= 1.0 or unit is DurationUnit.NS


def test_duration_unit_ignores_sign() -> None:
    for magnitude in (3.0, 3e-3, 3e-6, 3e-9):
        assert duration_unit(magnitude) is duration_unit(-magnitude)


@pytest.mark.parametrize(
    ("ratio", "signed", "expected"),
    [
        (0.103, False, "10.3%"),
        (0.103, True, "+10.3%"),
        (-0.111, True, "-11.1%"),
        (-0.0001, True, "+0.0%"),
        (-0.0001, False, "0.0%"),
        (INF, False, "inf%"),
        (INF, True, "+inf%"),
        (-INF, True, "-inf%"),
        (NAN, True, "n/a"),
        (None, False, "n/a"),
        # A million percent and more: scientific ("+99999999999999771178981581127680.0%").
        (9999.0, True, "+999900.0%"),
        (1e30, True, "+1.0e+32%"),
        (-1e30, False, "-1.0e+32%"),
        (1e307, True, "+1.0e+309%"),  # the percentage overflows the floats: not "inf%"
    ],
)
def test_format_percent(ratio: float | None, signed: bool, expected: str) -> None:
    assert format_percent(ratio, signed=signed) == expected


def test_format_percent_decimals() -> None:
    assert format_percent(0.123456, decimals=2) == "12.35%"
    assert format_percent(1.0, decimals=2) == "100.00%"


@pytest.mark.parametrize(
    ("ratio", "expected"),
    [
        (0.0045, "0.45%"),
        (0.0, "0.00%"),
        (INF, "inf"),
        (NAN, "n/a"),
        (-0.1, "n/a"),
        (None, "n/a"),
        (1e30, "1.00e+32%"),
    ],
)
def test_format_noise(ratio: float | None, expected: str) -> None:
    assert format_noise(ratio) == expected


# --------------------------------------------------------------------------------------
# Intervals
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lower", "center", "upper", "expected"),
    [
        # Layouts from upstream-compare-tools.md §4.2/§4.3.
        (2.300e-3 - 63e-6, 2.300e-3, 2.300e-3 + 89e-6, "2.300 ms [-63, +89] us"),
        (19.944e-6 - 0.564e-6, 19.944e-6, 19.944e-6 + 0.564e-6, "19.944 [-0.564, +0.564] us"),
        (1.018e-3, 1.024e-3, 1.025e-3, "1.024 ms [-6, +1] us"),
        (16.384e-3 - 950e-6, 16.384e-3, 16.384e-3 + 229e-6, "16.384 ms [-950, +229] us"),
        (262.144e-3 - 1.835e-3, 262.144e-3, 262.144e-3 + 0.262e-3, "262.144 [-1.835, +0.262] ms"),
        (64e-6 - 0.512e-6, 64e-6, 64e-6 + 0.064e-6, "64.000 [-0.512, +0.064] us"),
    ],
)
def test_compact_interval_layouts(lower: float, center: float, upper: float, expected: str) -> None:
    assert format_interval_compact(lower, center, upper) == expected


def test_compact_interval_never_shows_zero_deltas_for_a_real_spread() -> None:
    # Upstream printed "[-0, +0] us" for sub-microsecond spreads on millisecond centers.
    text = format_interval_compact(1.024e-3 - 0.3e-6, 1.024e-3, 1.024e-3 + 0.2e-6)
    assert "[-0, +0]" not in text
    assert text.startswith("1.024 ms [")
    deltas = re.search(r"\[-(\S+), \+(\S+)\] (\w+)$", text)
    assert deltas is not None
    assert float(deltas[1]) > 0 and float(deltas[2]) > 0
    unit = {unit.symbol: unit for unit in DurationUnit}[deltas[3]]
    assert float(deltas[1]) / unit.per_second == pytest.approx(0.3e-6, rel=0.01)


@given(
    st.floats(min_value=1e-9, max_value=100.0),
    st.floats(min_value=0.0, max_value=0.5),
    st.floats(min_value=0.0, max_value=0.5),
)
def test_compact_interval_shows_the_larger_delta(center: float, below: float, above: float) -> None:
    lower, upper = center * (1 - below), center * (1 + above)
    parts = compact_interval(lower, center, upper)
    assert parts is not None and parts.lower is not None and parts.upper is not None
    # The lower delta reads "-a", the upper "+b"; a delta that rounds to zero has no sign.
    for text, sign in ((parts.lower, "-"), (parts.upper, "+")):
        assert text.startswith(sign) or (text[0].isdigit() and float(text) == 0), text
    larger = max(abs(float(parts.lower)), abs(float(parts.upper)))
    # Anything from a femtosecond up shows a digit (nanoseconds with up to 6 decimals).
    if max(center - lower, upper - center) >= 1e-15:
        assert larger > 0


@pytest.mark.parametrize(
    ("lower", "center", "upper", "expected"),
    [
        # From a million seconds and below half a picosecond: all in seconds, scientific
        # ("3181608294734859985747968.000 [-92116460307767432839168.000, ...] s", "0.000 ns").
        (3.09e24, 3.182e24, 3.204e24, "3.182e+24 [-9.200e+22, +2.200e+22] s"),
        (3.09e-15, 3.182e-15, 3.204e-15, "3.182e-15 [-9.200e-17, +2.200e-17] s"),
        (3.182e-15, 3.182e-15, 3.182e-15, "3.182e-15 [0.000, 0.000] s"),
        (None, 3e-15, None, "3.000e-15 s"),
        (2e6 - 10.0, 2e6, 2e6 + 0.5, "2.000e+06 [-10.000, +0.500] s"),
    ],
)
def test_compact_interval_of_extreme_centers(
    lower: float | None, center: float, upper: float | None, expected: str
) -> None:
    assert format_interval_compact(lower, center, upper) == expected


def test_compact_interval_without_bounds_and_unusable_input() -> None:
    assert format_interval_compact(None, 5e-6, None) == "5.000 us"
    assert format_interval_compact(2.0, 1.0, 3.0) == "n/a"  # lower above center
    assert format_interval_compact(1.0, 2.0, INF) == "n/a"
    assert format_interval_compact(1.0, None, 2.0) == "n/a"
    assert format_interval_compact(None, NAN, None) == "n/a"


@pytest.mark.parametrize(
    ("lower", "center", "upper", "expected"),
    [
        # The nearer bound sets the decimals where 6 show it: "[-0.001, 0.000] s" read
        # as an interval ending at its median.
        (152.4 - 607e-6, 152.4, 152.4 + 298e-6, "152.400 [-0.0006, +0.0003] s"),
        (1.2303e-10 - 3.3e-13, 1.2303e-10, 1.2303e-10 + 6.2e-13, "0.123 [-0.0003, +0.0006] ns"),
        (3.1807e-6 - 1e-14, 3.1807e-6, 3.1807e-6 + 3e-11, "3.181 [0.00000, +0.00003] us"),
        (3.1807e-6 - 1e-14, 3.1807e-6, 3.1807e-6 + 3e-13, "3.181 [0.000, 0.000] us"),
        (2.3e-3 - 63e-6, 2.3e-3, 2.3e-3 + 89e-6, "2.300 [-0.063, +0.089] ms"),
        (1e-3, 1e-3, 1e-3, "1.000 [0.000, 0.000] ms"),
    ],
)
def test_compact_interval_in_the_center_unit(
    lower: float, center: float, upper: float, expected: str
) -> None:
    """``same_unit``: one unit a cell, decimals added (up to 6) before a spread reads zero."""
    assert str(compact_interval(lower, center, upper, same_unit=True)) == expected


def test_align_compact_intervals_lines_up_centers_and_units() -> None:
    items = [
        compact_interval(2.3e-3 - 63e-6, 2.3e-3, 2.3e-3 + 89e-6),
        compact_interval(19.944e-6 - 0.564e-6, 19.944e-6, 19.944e-6 + 0.564e-6),
        compact_interval(None, 5e-6, None),
        compact_interval(308.603e-6 - 6.28e-6, 308.603e-6, 308.603e-6 + 2.209e-6),
        None,
    ]
    cells = align_compact_intervals(items)
    assert cells[4] == "n/a"
    # A center whose deltas take another unit keeps its unit next to it.
    assert cells[0] == "2.300 ms [-63, +89] us"
    same_unit = cells[1:4]
    assert len(cells[1]) == len(cells[3])
    # The center numbers end in the same column.
    ends = {cell.index(".") for cell in same_unit}
    assert len(ends) == 1
    assert [cell.split()[-1] for cell in cells[:4]] == ["us", "us", "us", "us"]


def test_align_compact_intervals_leaves_scientific_cells_unpadded() -> None:
    items = [
        compact_interval(3.09e-15, 3.182e-15, 3.204e-15),
        compact_interval(3.09e-6, 3.182e-6, 3.204e-6),
    ]
    cells = align_compact_intervals(items)
    assert cells[0] == str(items[0])
    assert "  " not in cells[1].strip()


def test_explicit_interval() -> None:
    assert format_interval_explicit(98.816e-6, 99.968e-6, 100.224e-6) == (
        "[98.816 / 99.968 / 100.224] us"
    )
    assert format_interval_explicit(1.018e-3, 1.024e-3, 1.025e-3, factor_prefix=True) == (
        "1.0[18 / 24 / 25] ms"
    )
    # Nothing worth factoring: shown in full.
    assert format_interval_explicit(0.9e-3, 1.024e-3, 2.5e-3, factor_prefix=True) == (
        "[0.900 / 1.024 / 2.500] ms"
    )
    assert format_interval_explicit(None, 2e-3, None) == "2.000 ms"
    # Extreme magnitudes: scientific, in seconds, never factored into a shared prefix.
    assert format_interval_explicit(3.082e24, 3.089e24, 3.095e24, factor_prefix=True) == (
        "[3.082e+24 / 3.089e+24 / 3.095e+24] s"
    )
    assert format_interval_explicit(3.082e-15, 3.089e-15, 3.095e-15) == (
        "[3.082e-15 / 3.089e-15 / 3.095e-15] s"
    )
    assert format_interval_explicit(3.0, 2.0, 1.0) == "n/a"
    assert format_interval_explicit(None, 2.0, 3.0) == "n/a"


def test_align_explicit_intervals_pads_each_part() -> None:
    cells = align_explicit_intervals(
        [
            explicit_interval(98.816e-6, 99.968e-6, 100.224e-6),
            explicit_interval(99.072e-6, 100.160e-6, 100.909e-6),
            "n/a",
            None,
        ]
    )
    assert cells[0] == "[98.816 /  99.968 / 100.224] us"
    assert cells[1] == "[99.072 / 100.160 / 100.909] us"
    assert cells[2:] == ["n/a", "n/a"]


# --------------------------------------------------------------------------------------
# Wall-clock times
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (0.0, "0.000"),
        (0.606, "0.606"),
        (2.6, "2.600"),
        (48.703, "48.703"),
        (188.374, "03:08.374"),
        (59.9996, "01:00.000"),
        (3600.0, "01:00:00.000"),
        (2 * 3600 + 5.5, "02:00:05.500"),
        (-2.5, "-2.500"),
    ],
)
def test_format_walltime(seconds: float, expected: str) -> None:
    assert format_walltime(seconds) == expected


@given(st.floats(min_value=0.0, max_value=1e6))
def test_format_walltime_reads_back(seconds: float) -> None:
    parts = format_walltime(seconds).split(":")
    total = 0.0
    for part in parts:
        total = total * 60 + float(part)
    assert total == pytest.approx(seconds, abs=0.0006)


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_format_walltime_never_raises(seconds: float) -> None:
    # 1e308 s raised OverflowError (milliseconds overflow to inf) in nvbench-walltime.
    text = format_walltime(seconds)
    assert 0 < len(text) <= 20


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [(1e308, "1e+308"), (-1e308, "-1e+308"), (1e300, "1e+300"), (1e12, "1e+12")],
)
def test_format_walltime_of_absurd_spans_is_short(seconds: float, expected: str) -> None:
    # Not a 300-digit hours field: beyond a plausible span the value is shown as C's %g.
    assert format_walltime(seconds) == expected


# --------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "width"),
    [
        ("abc", 3),
        ("🔵", 2),
        ("🔵 SAME", 7),
        ("\x1b[34m🔵 SAME\x1b[39m", 7),
        ("\x1b[38;2;255;0;0mred\x1b[0m", 3),
        ("e\u0301", 1),
        ("é", 1),
        ("日本", 4),
        ("❘", 1),
        ("", 0),
    ],
)
def test_display_width(text: str, width: int) -> None:
    assert display_width(text) == width


def test_strip_ansi() -> None:
    assert strip_ansi("\x1b[31mSLOW\x1b[39m") == "SLOW"


def test_github_table_layout() -> None:
    table = Table.of(
        ["Name", "Ref", "Status"],
        [["a", "1.000 us", "SAME"], ["long name", "10.000 us", "SLOW"]],
        [Align.LEFT, Align.RIGHT, Align.CENTER],
    )
    assert render_table(table) == (
        "| Name      |       Ref | Status |\n"
        "|-----------|-----------|--------|\n"
        "| a         |  1.000 us |  SAME  |\n"
        "| long name | 10.000 us |  SLOW  |\n"
    )


def test_centering_puts_the_smaller_half_on_the_left() -> None:
    table = Table.of(["ab"], [["abcde"]], Align.CENTER)
    assert render_table(table).splitlines()[0] == "|  ab   |"


def test_pipes_are_escaped_and_columns_stay_intact() -> None:
    table = Table.of(["a|b", "c"], [["x|y", "multi\nline"]], Align.LEFT)
    text = render_table(table)
    for line in text.splitlines():
        cells = re.split(r"(?<!\\)\|", line)
        assert len(cells) == 4, line  # leading and trailing empties around 2 cells
    # A line break shows as its escape: a name cannot start a line of its own.
    assert "a\\|b" in text and "x\\|y" in text and "multi\\nline" in text


def test_emoji_and_ansi_cells_are_padded_by_display_width() -> None:
    table = Table.of(
        ["Status", "N"],
        [["\x1b[34m🔵 SAME\x1b[39m", "1"], ["🔴 SLOW", "22"], ["ok", "3"]],
        [Align.CENTER, Align.RIGHT],
    )
    lines = render_table(table, COLOURED).splitlines()
    assert {display_width(line) for line in lines} == {len(lines[1])}
    assert lines[3] == "| 🔴 SLOW | 22 |"
    assert lines[4] == "|   ok    |  3 |"


def test_short_rows_are_padded_and_long_rows_rejected() -> None:
    table = Table.of(["a", "b"], [["1"]], Align.LEFT)
    assert render_table(table).splitlines()[2] == "| 1 |   |"
    with pytest.raises(ValueError):
        Table.of(["a"], [["1", "2"]])
    with pytest.raises(ValueError):
        Table(headers=("a", "b"), rows=(), align=(Align.LEFT,))


def _reference_table(table: Table, fmt: TableFormat) -> str:
    """The table laid out cell by cell, the obvious way (what render_table must write)."""
    measure = display_width if fmt.measure.value == "display" else (lambda t: len(t.encode()))
    clean = (coloured_cell if fmt.colours else escape_cell) if fmt.escape else visible_cell
    columns = len(table.headers)
    headers = [clean(h) for h in table.headers]
    rows = [[clean(c) for c in row] + [""] * (columns - len(row)) for row in table.rows]
    widths = [max(measure(line[c]) for line in [headers, *rows]) for c in range(columns)]

    def pad(text: str, width: int, align: Align) -> str:
        gap = width - measure(text)
        left = {Align.LEFT: 0, Align.RIGHT: gap, Align.CENTER: gap // 2}[align]
        return " " * left + text + " " * (gap - left)

    def line(cells: list[str], aligns: tuple[Align, ...]) -> str:
        padded = (pad(c, w, a) for c, w, a in zip(cells, widths, aligns, strict=True))
        return "|" + "".join(f" {cell} |" for cell in padded) + "\n"

    divider = "|" + "".join("-" * (w + 2) + "|" for w in widths) + "\n"
    body = "".join(line(row, table.align) for row in rows)
    return line(headers, table.header_align or table.align) + divider + body


_CELL_TEXT = st.sampled_from(
    ["", "a", "1.000 us", "x|y", "🔵 SAME", "\x1b[31mSLOW\x1b[39m", "é", "a\nb"]
)


@given(
    st.integers(1, 4).flatmap(
        lambda columns: st.tuples(
            st.lists(_CELL_TEXT, min_size=columns, max_size=columns),
            st.lists(st.lists(_CELL_TEXT, min_size=0, max_size=columns), max_size=6),
            st.lists(st.sampled_from(list(Align)), min_size=columns, max_size=columns),
        )
    ),
    st.sampled_from([GITHUB, COLOURED, TableFormat(escape=False)]),
)
def test_tables_match_a_cell_by_cell_layout(
    parts: tuple[list[str], list[list[str]], list[Align]], fmt: TableFormat
) -> None:
    # Plain ASCII columns take a faster route than the others: both must lay out alike.
    headers, rows, aligns = parts
    table = Table.of(headers, rows, aligns)
    assert render_table(table, fmt) == _reference_table(table, fmt)


def test_alignment_markers() -> None:
    table = Table.of(["l", "r", "c"], [["1", "2", "3"]], [Align.LEFT, Align.RIGHT, Align.CENTER])
    divider = render_table(table, TableFormat(alignment_markers=True)).splitlines()[1]
    assert divider == "|:--|--:|:-:|"
    assert render_table(table, GITHUB).splitlines()[1] == "|---|---|---|"


def test_table_without_columns_renders_nothing() -> None:
    assert render_table(Table.of([], [])) == ""
    assert render_nvbench_table([], []) == ""


def test_nvbench_table_reproduces_the_spec_example() -> None:
    # Spec §8.5, device 0 of Example A.
    headers = ["T", "Elements", "Layout", "Samples", "CPU Time", "Noise", "GPU Time", "Noise",
               "Elem/s", "GlobalMem BW", "BWUtil", "Samples", "Batch GPU"]  # fmt: skip
    row = ["F32", "2^20 = 1048576", "contiguous", "89200x", "11.732 us", "2.74%", "5.625 us",
           "1.81%", "186.423G", "1.491 TB/s", "44.49%", "92160x", "5.431 us"]  # fmt: skip
    expected = (
        "|  T  |    Elements    |   Layout   | Samples | CPU Time  | Noise | GPU Time | Noise "
        "|  Elem/s  | GlobalMem BW | BWUtil | Samples | Batch GPU |\n"
        "|-----|----------------|------------|---------|-----------|-------|----------|-------"
        "|----------|--------------|--------|---------|-----------|\n"
        "| F32 | 2^20 = 1048576 | contiguous |  89200x | 11.732 us | 2.74% | 5.625 us | 1.81% "
        "| 186.423G |   1.491 TB/s | 44.49% |  92160x |  5.431 us |\n"
    )
    assert render_nvbench_table(headers, [row]) == expected


def test_nvbench_table_measures_utf8_bytes_and_does_not_escape() -> None:
    # "é" is two bytes, so NVBench pads it with one space less than a terminal would need.
    assert render_nvbench_table(["x"], [["é"], ["a|b"]]) == ("|  x  |\n|-----|\n|  é |\n| a|b |\n")


@pytest.mark.parametrize("sign", [1, -1])
def test_an_integer_beyond_the_floats_is_an_infinite_cell(sign: int) -> None:
    """An int64 summary written with 400 digits is kept by the reader as a Python int;
    nvbench-json-summary stopped on it with an OverflowError traceback."""
    huge = sign * int("9" * 400)
    expected = "inf" if sign > 0 else "-inf"
    assert format_summary_value(huge, "duration").startswith(expected)
    assert format_summary_value(huge, "percentage") == f"{expected}%"
