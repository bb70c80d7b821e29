"""Comparison tables: layouts per display mode, cells, axis formatting, escaping, widths."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest
from cuda.bench.compare import compare
from cuda.bench.compare.model import (
    Effect,
    EvidenceSource,
    Interval,
    Reason,
    Row,
    SideEstimate,
    Status,
    Verdict,
)
from cuda.bench.report.colors import ANSI, EMOJI, PLAIN
from cuda.bench.report.table import display_width, strip_ansi
from cuda.bench.report.tables import (
    DISPLAY_NAMES,
    LAYOUTS,
    Display,
    axis_names,
    change_text,
    comparison_table,
    effect_text,
    is_visible,
    judged_change,
    order_rows,
    render_comparison_table,
    row_label,
    visible_rows,
)
from cuda.bench.results import StateAxisValue

US = 1e-6


def side(
    center: float | None,
    lo: float | None = None,
    hi: float | None = None,
    *,
    noise: float | None = 0.01,
    mean: float | None = None,
    stdev: float | None = 0.01,
) -> SideEstimate:
    interval = None if lo is None or hi is None or center is None else Interval(lo, center, hi)
    return SideEstimate(
        center=center,
        noise=noise,
        interval=interval,
        source=EvidenceSource.SUMMARY if center is not None else EvidenceSource.NONE,
        mean=center if mean is None else mean,
        stdev_relative=stdev,
        sample_count=100,
    )


def axis(
    name: str, value: str, typed: object, kind: str = "int64", flags: str = ""
) -> StateAxisValue:
    return StateAxisValue(name, kind, value, typed, flags, kind)  # type: ignore[arg-type]


ELEMENTS_20 = axis("Elements", "1048576", 1048576, flags="pow2")
F32 = axis("T", "F32", "F32", kind="string")


def make_row(
    status: Status,
    reason: Reason,
    ref: SideEstimate | None,
    cmp: SideEstimate | None,
    *,
    axes: tuple[StateAxisValue, ...] = (F32, ELEMENTS_20),
    key: str = "T=F32 Elements=2^20",
    effect: Effect | None = None,
    benchmark: str = "copy",
    device: int | None = 0,
    cmp_device: int | None = None,
    occurrence: int = 0,
) -> Row:
    return Row(
        benchmark=benchmark,
        key=key,
        occurrence=occurrence,
        axis_values=axes,
        verdict=Verdict(status, reason, effect=effect),
        ref=ref,
        cmp=cmp,
        ref_device=device,
        cmp_device=device if cmp_device is None else cmp_device,
        ref_device_name="GPU",
        cmp_device_name="GPU",
    )


SLOW_ROW = make_row(
    Status.SLOW,
    Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES,
    side(100 * US, 99 * US, 101 * US),
    side(110 * US, 109 * US, 111 * US),
)
FAST_ROW = make_row(
    Status.FAST,
    Reason.CLEAR_GAP_CONFIRMED_BY_SUMMARY_CYCLES,
    side(100 * US, 99 * US, 101 * US),
    side(80 * US, 79 * US, 81 * US),
)
SAME_ROW = make_row(
    Status.SAME,
    Reason.BULK_SAME,
    side(100 * US, 99 * US, 101 * US),
    side(100.1 * US, 99 * US, 101 * US),
)


def cells(line: str) -> list[str]:
    """Cells of a pipe-table line, splitting only on unescaped pipes."""
    parts = re.split(r"(?<!\\)\|", line)
    return [part.strip() for part in parts[1:-1]]


def header(rows: list[Row], display: str) -> list[str]:
    return cells(render_comparison_table(rows, display).splitlines()[0])


# ---------------------------------------------------------------------------------------
# Layouts
# ---------------------------------------------------------------------------------------


def test_display_names_default_first() -> None:
    assert DISPLAY_NAMES == ("intervals", "simple", "explain", "legacy")
    assert set(LAYOUTS) == set(Display)


@pytest.mark.parametrize(
    ("display", "columns"),
    [
        ("intervals", ["Ref", "Cmp", "Change", "Status"]),
        ("simple", ["Ref", "Ref Span", "Cmp", "Cmp Span", "%C Diff", "Change", "Status"]),
        (
            "explain",
            [
                "Ref [Lo / Ce / Hi]",
                "Cmp [Lo / Ce / Hi]",
                "Ref Spread",
                "Cmp Spread",
                "Reason",
                "Change",
                "Status",
            ],
        ),
        (
            "legacy",
            ["Ref Time", "Ref Noise", "Cmp Time", "Cmp Noise", "Diff", "%Diff", "Status"],
        ),
    ],
)
def test_headers_per_display_mode_follow_axis_columns(display: str, columns: list[str]) -> None:
    assert header([SLOW_ROW, SAME_ROW], display) == ["T", "Elements", *columns]


def test_intervals_cells() -> None:
    lines = render_comparison_table([SLOW_ROW, FAST_ROW, SAME_ROW]).splitlines()
    assert len(lines) == 5
    slow, fast, same = (cells(line) for line in lines[2:])
    assert slow == [
        "F32",
        "2^20",
        "100.000 [-1.000, +1.000] us",
        "110.000 [-1.000, +1.000] us",
        ">= +7.9%",
        "🔴 SLOW",
    ]
    assert fast[4] == "<= -18.2%"
    assert same[4] == ""
    assert same[5] == "🔵 SAME"


def test_alignment_axis_centered_numbers_right_status_centered() -> None:
    wide = make_row(
        Status.SAME,
        Reason.BULK_SAME,
        side(1.5, 1.4, 1.6),
        side(1.5, 1.4, 1.6),
        axes=(axis("T", "F32", "F32", "string"), ELEMENTS_20),
    )
    text = render_comparison_table([SLOW_ROW, wide], "explain")
    line = text.splitlines()[2]
    raw = re.split(r"(?<!\\)\|", line)[1:-1]
    # Axis: centred ("Elements" is wider than "2^20").
    assert raw[1] == "   2^20   "
    # Numbers: right aligned ("Ref Spread" is wider than "1.00%").
    assert raw[4] == "      1.00% "
    # Reason: left aligned.
    assert raw[6].startswith(" bc-gap ") and raw[6].endswith("  ")
    # Status: centred in the column.
    assert raw[-1].strip() == "🔴 SLOW"


def test_all_lines_have_the_same_display_width_with_emoji_and_ansi() -> None:
    rows = [SLOW_ROW, FAST_ROW, SAME_ROW]
    for style in (EMOJI, ANSI, PLAIN):
        for display in Display:
            lines = render_comparison_table(rows, display, style).splitlines()
            assert len({display_width(line) for line in lines}) == 1, (style, display)


def test_ansi_only_in_the_status_cell() -> None:
    text = render_comparison_table([SLOW_ROW, SAME_ROW], "intervals", ANSI)
    for line in text.splitlines()[2:]:
        parts = cells(line)
        assert all("\x1b" not in part for part in parts[:-1])
        assert parts[-1].startswith("\x1b[")
    assert "\x1b[31mSLOW\x1b[39m" in text
    assert "🔴" not in text


def test_plain_style_has_neither_emoji_nor_ansi() -> None:
    text = render_comparison_table([SLOW_ROW], "simple", PLAIN)
    assert cells(text.splitlines()[2])[-1] == "SLOW"


def test_simple_cells() -> None:
    line = render_comparison_table([SLOW_ROW], "simple").splitlines()[2]
    assert cells(line)[2:] == [
        "100.000 us",
        "2.0%",
        "110.000 us",
        "1.8%",
        "+10.0%",
        ">= +7.9%",
        "🔴 SLOW",
    ]


def test_explain_cells_and_alias() -> None:
    line = render_comparison_table([SLOW_ROW], "explain").splitlines()[2]
    assert cells(line)[2:] == [
        "[99.000 / 100.000 / 101.000] us",
        "[109.000 / 110.000 / 111.000] us",
        "1.00%",
        "1.00%",
        "bc-gap",
        ">= +7.9%",
        "🔴 SLOW",
    ]


def test_explain_band_column_shows_the_tolerance_of_rows_that_have_one() -> None:
    def band(tolerance: float, calibrated: float | None = None) -> Row:
        effect = Effect(1.0, 0.99, 1.01, 0.95, tolerance=tolerance, calibrated_tolerance=calibrated)
        return make_row(Status.SAME, Reason.CI_SAME, SAME_ROW.ref, SAME_ROW.cmp, effect=effect)

    rows = [band(0.01), band(0.032, 0.032), band(0.05, 0.4), SLOW_ROW]
    table = render_comparison_table(rows, "explain").splitlines()
    assert cells(table[0])[7] == "Band"
    assert [cells(line)[7] for line in table[2:]] == [
        "±1.00%",
        "±3.20% cal.",
        "±5.00% (needs ±40.00%)",
        "",
    ]
    # Rows without a band (robust) keep the explain layout they always had.
    assert "Band" not in render_comparison_table([SLOW_ROW], "explain")


def test_legacy_uses_means_and_relative_stdevs() -> None:
    row = make_row(
        Status.SLOW,
        Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES,
        side(100 * US, 99 * US, 101 * US, mean=0.026, stdev=0.02),
        side(110 * US, 109 * US, 111 * US, mean=0.013, stdev=float("inf")),
    )
    assert cells(render_comparison_table([row], "legacy").splitlines()[2])[2:] == [
        "26.000 ms",
        "2.00%",
        "13.000 ms",
        "inf",
        "-13.000 ms",
        "-50.00%",
        "🔴 SLOW",
    ]


def test_added_and_removed_rows_show_the_existing_side() -> None:
    added = make_row(Status.ADDED, Reason.STATE_ADDED, None, side(5 * US, 4 * US, 6 * US))
    removed = make_row(Status.REMOVED, Reason.STATE_REMOVED, side(5 * US, 4 * US, 6 * US), None)
    lines = render_comparison_table([added, removed]).splitlines()
    added_cells, removed_cells = cells(lines[2]), cells(lines[3])
    assert added_cells[2:] == ["n/a", "5.000 [-1.000, +1.000] us", "", "\u2795 ADDED"]
    assert removed_cells[2:] == ["5.000 [-1.000, +1.000] us", "n/a", "", "\u2796 REMOVED"]
    simple = cells(render_comparison_table([added], "simple").splitlines()[2])
    assert simple[2:7] == ["n/a", "n/a", "5.000 us", "40.0%", "n/a"]
    legacy = cells(render_comparison_table([removed], "legacy").splitlines()[2])
    assert legacy[2:8] == ["5.000 us", "1.00%", "n/a", "n/a", "n/a", "n/a"]


def test_center_without_interval_is_still_shown() -> None:
    row = make_row(Status.AMBG, Reason.MISSING_INTERVAL, side(2e-3), side(2.1e-3))
    intervals = cells(render_comparison_table([row]).splitlines()[2])
    assert intervals[2:4] == ["2.000 ms", "2.100 ms"]
    explain = cells(render_comparison_table([row], "explain").splitlines()[2])
    assert explain[2:4] == ["2.000 ms", "2.100 ms"]


# ---------------------------------------------------------------------------------------
# Change column
# ---------------------------------------------------------------------------------------


def test_change_text_bounds_for_fast_and_slow_only() -> None:
    assert change_text(SLOW_ROW) == ">= +7.9%"  # 109 / 101 - 1
    assert change_text(FAST_ROW) == "<= -18.2%"  # 81 / 99 - 1
    assert change_text(SAME_ROW) == ""
    ambiguous = make_row(Status.AMBG, Reason.NOISE_TOO_HIGH, SLOW_ROW.ref, SLOW_ROW.cmp)
    assert change_text(ambiguous) == ""


@pytest.mark.parametrize("factor", [0.5, 1e-9])
def test_least_change_of_a_fast_row_is_a_ratio_like_a_slow_rows(factor: float) -> None:
    # The least change is the ratio of the facing interval ends minus one on both sides:
    # a state twice as fast is at most -50 % (it read -92.9 %, the symmetric difference,
    # and a state 1e9 times as fast read -96439057971.5 %, a drop beyond 100 %).
    ref = side(100 * US, 97 * US, 101 * US)
    faster = side(100 * US * factor, 97 * US * factor, 101 * US * factor)
    fast = make_row(Status.FAST, Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES, ref, faster)
    least = fast.least_change
    assert least is not None and -1.0 < least < 0.0
    assert least == pytest.approx(101 * factor / 97 - 1.0)
    assert change_text(fast) == f"<= {(101 * factor / 97 - 1.0) * 100:+.1f}%"
    # Swapping the runs gives the SLOW row the same ratio the other way round.
    slow = make_row(Status.SLOW, Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES, faster, ref)
    assert slow.least_change == pytest.approx(1.0 / (1.0 + least) - 1.0)


def test_change_text_prefers_the_effect_estimate() -> None:
    effect = Effect(ratio=1.049, lo=1.043, hi=1.056, confidence=0.95)
    assert effect_text(effect) == "+4.9% [+4.3, +5.6]"
    slow = make_row(Status.SLOW, Reason.BULK_SAME, SLOW_ROW.ref, SLOW_ROW.cmp, effect=effect)
    assert change_text(slow) == "+4.9% [+4.3, +5.6]"
    # A SAME row with an effect shows how small the change is.
    same_effect = Effect(ratio=0.999, lo=0.995, hi=1.004, confidence=0.95)
    same = make_row(Status.SAME, Reason.BULK_SAME, SAME_ROW.ref, SAME_ROW.cmp, effect=same_effect)
    assert change_text(same) == "-0.1% [-0.5, +0.4]"
    assert cells(render_comparison_table([same]).splitlines()[2])[4] == "-0.1% [-0.5, +0.4]"


def test_sort_change_orders_by_the_change_the_cell_shows() -> None:
    """A row decided in cycles shows (and must sort by) its cycle change, not the time
    change that its clock modes made large."""
    time_effect = Effect(ratio=1.20, lo=0.90, hi=1.60, confidence=0.95)
    cycle_effect = Effect(ratio=1.002, lo=0.998, hi=1.006, confidence=0.95, space="cycles")
    in_cycles = msgspec.structs.replace(
        SAME_ROW,
        verdict=Verdict(
            Status.SAME, Reason.CI_SAME_IN_CYCLES, effect=time_effect, cycle_effect=cycle_effect
        ),
    )
    slower = make_row(
        Status.SLOW,
        Reason.CI_CHANGE_CONFIRMED_BY_CYCLES,
        SLOW_ROW.ref,
        SLOW_ROW.cmp,
        key="T=F32 Elements=2^21",
        effect=Effect(ratio=1.05, lo=1.04, hi=1.06, confidence=0.95),
    )
    assert change_text(in_cycles) == "+0.2% [-0.2, +0.6] cyc"
    assert judged_change(in_cycles) == pytest.approx(0.002)
    assert judged_change(slower) == pytest.approx(0.05)
    assert order_rows([in_cycles, slower], "change") == (slower, in_cycles)
    table = render_comparison_table(order_rows([in_cycles, slower], "change"))
    changes = [cells(line)[4] for line in table.splitlines()[2:]]
    assert changes == ["+5.0% [+4.0, +6.0]", "+0.2% [-0.2, +0.6] cyc"]


# ---------------------------------------------------------------------------------------
# Axes, escaping, labels
# ---------------------------------------------------------------------------------------


def test_axis_formatting_pow2_float_type_and_string() -> None:
    axes = (
        axis("T", "F64", "F64", "string"),
        axis("Elements", "65536", 65536, flags="pow2"),
        axis("Ratio", "123456.789", 123456.789, "float64"),
        axis("Small", "1e-07", 1e-07, "float64"),
        axis("Plain", "7", 7),
    )
    row = make_row(Status.SAME, Reason.BULK_SAME, SAME_ROW.ref, SAME_ROW.cmp, axes=axes)
    line = cells(render_comparison_table([row]).splitlines()[2])
    assert line[:5] == ["F64", "2^16", "1.2346e+05", "1e-07", "7"]


def test_pipes_in_cells_are_escaped() -> None:
    axes = (axis("Layout|Mode", "a|b", "a|b", "string"),)
    row = make_row(Status.SAME, Reason.BULK_SAME, SAME_ROW.ref, SAME_ROW.cmp, axes=axes, key="")
    text = render_comparison_table([row])
    head, _, body = text.splitlines()
    assert "Layout\\|Mode" in head
    assert "a\\|b" in body
    # The escaped pipes do not add columns.
    assert len(cells(head)) == len(cells(body)) == 5


def test_axis_names_follow_the_benchmark_definition(gpu_dir: Path) -> None:
    result = compare(gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json", method="robust")
    copy_rows = [row for row in result.rows if row.benchmark == "copy_bench"]
    misc_rows = [row for row in result.rows if row.benchmark == "misc"]
    assert axis_names(copy_rows) == ("T", "Elements", "Layout")
    assert axis_names(misc_rows) == ("Ratio", "Plain")
    # Rows without states fall back to their own axis values.
    assert axis_names([SLOW_ROW]) == ("T", "Elements")


def test_rows_without_axes_have_no_axis_columns() -> None:
    row = make_row(Status.SAME, Reason.BULK_SAME, SAME_ROW.ref, SAME_ROW.cmp, axes=(), key="")
    assert header([row], "intervals") == ["Ref", "Cmp", "Change", "Status"]


def test_identity_columns_replace_axes() -> None:
    other = make_row(
        Status.SLOW,
        Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES,
        SLOW_ROW.ref,
        SLOW_ROW.cmp,
        benchmark="misc",
        axes=(axis("Ratio", "0.25", 0.25, "float64"),),
        key="Ratio=0.25",
        device=1,
        cmp_device=0,
    )
    table = comparison_table([SLOW_ROW, other], identity=True)
    assert table.headers[:3] == ("Benchmark", "Device", "State")
    assert table.rows[0][:3] == ("copy", "[0]", "T=F32 Elements=2^20")
    assert table.rows[1][:3] == ("misc", "[1] vs. [0]", "Ratio=0.25")


def test_row_label() -> None:
    assert row_label(SLOW_ROW) == "copy [0] T=F32 Elements=2^20"
    duplicate = make_row(
        Status.SAME, Reason.BULK_SAME, None, None, occurrence=1, device=None, key="A=1"
    )
    assert row_label(duplicate) == "copy A=1 #2"


# ---------------------------------------------------------------------------------------
# --threshold-diff
# ---------------------------------------------------------------------------------------


def test_threshold_hides_small_changes_but_keeps_unknown_and_one_sided_rows() -> None:
    unknown = make_row(Status.UNKNOWN, Reason.STATE_SKIPPED, side(None), side(None))
    added = make_row(Status.ADDED, Reason.STATE_ADDED, None, side(5 * US))
    rows = [SLOW_ROW, SAME_ROW, FAST_ROW, unknown, added]
    assert visible_rows(rows, 0.0) == tuple(rows)
    assert visible_rows(rows, 0.05) == (SLOW_ROW, FAST_ROW, unknown, added)
    assert visible_rows(rows, 0.15) == (FAST_ROW, unknown, added)
    assert visible_rows(rows, 10.0) == (unknown, added)
    # The boundary is kept: |frac_diff| >= threshold.
    assert is_visible(SLOW_ROW, 0.1)


def test_real_gpu_table_has_the_known_changes(gpu_dir: Path) -> None:
    result = compare(gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json", method="robust")
    section = result.sections()[0]
    text = render_comparison_table(section.rows, "intervals", PLAIN)
    lines = text.splitlines()
    assert cells(lines[0]) == ["T", "Elements", "Layout", "Ref", "Cmp", "Change", "Status"]
    by_state = {tuple(cells(line)[:3]): cells(line) for line in lines[2:]}
    assert by_state[("F32", "2^20", "contiguous")][5:] == [">= +1.4%", "SLOW"]
    assert by_state[("F64", "2^16", "contiguous")][5:] == ["<= -6.1%", "FAST"]
    assert by_state[("F64", "2^16", "strided")][3:] == ["n/a", "n/a", "", "SKIP"]
    assert by_state[("F32", "2^16", "contiguous")][3] == "3.182 [-0.092, +0.022] us"
    assert all(strip_ansi(line) == line for line in lines)
