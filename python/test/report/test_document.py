"""The comparison document: sections, summary block, colour policy."""

from __future__ import annotations

import io
import math
import re
from pathlib import Path

import msgspec
import pytest
from cuda.bench.compare import compare
from cuda.bench.compare.exit_policy import FailOn
from cuda.bench.compare.model import (
    Comparison,
    Effect,
    EvidenceSource,
    InputPair,
    Interval,
    Reason,
    Row,
    SideEstimate,
    Status,
    Verdict,
)
from cuda.bench.compare.suite import suite_summary
from cuda.bench.compare.thresholds import Thresholds
from cuda.bench.compare.warning_tags import WarningKind
from cuda.bench.report.colors import (
    ANSI,
    EMOJI,
    STATUS_EMOJI,
    ColorMode,
    StatusStyle,
    color_enabled,
    status_style,
)
from cuda.bench.report.document import (
    DocumentOptions,
    reason_legend,
    render_document,
    render_summary,
    worst_regressions,
)
from cuda.bench.report.table import display_width
from cuda.bench.report.tables import Display

US = 1e-6


def side(center: float | None, spread: float = 0.01) -> SideEstimate:
    if center is None:
        return SideEstimate(is_skipped=True, skip_reason="skipped")
    return SideEstimate(
        center=center,
        noise=spread,
        interval=Interval(center * (1 - spread), center, center * (1 + spread)),
        source=EvidenceSource.SUMMARY,
        mean=center,
        stdev_relative=spread,
        sample_count=100,
    )


def row(
    status: Status,
    reason: Reason,
    ref: float | None,
    cmp: float | None,
    *,
    benchmark: str = "copy",
    key: str = "N=1",
    message: str = "",
    severity: float = 0.0,
    device: int | None = 0,
    cmp_device: int | None = None,
    effect: Effect | None = None,
    one_sided: bool = False,
) -> Row:
    ref_side = None if one_sided and status is Status.ADDED else side(ref)
    cmp_side = None if one_sided and status is Status.REMOVED else side(cmp)
    return Row(
        benchmark=benchmark,
        key=key,
        occurrence=0,
        axis_values=(),
        verdict=Verdict(status, reason, message, severity, effect=effect),
        ref=ref_side,
        cmp=cmp_side,
        ref_device=device,
        cmp_device=device if cmp_device is None else cmp_device,
        ref_device_name=None if device is None else "GPU A",
        cmp_device_name=None if device is None else ("GPU A" if cmp_device is None else "GPU B"),
    )


def comparison(
    rows: list[Row],
    *,
    benchmarks: tuple[tuple[int, str], ...] | None = None,
    warnings: tuple[str, ...] = (),
    unpaired: tuple[tuple[str, str], ...] = (),
    filters: tuple[str, ...] = (),
) -> Comparison:
    if benchmarks is None:
        benchmarks = tuple(dict.fromkeys((r.pair, r.benchmark) for r in rows))
    return Comparison(
        rows=tuple(rows),
        method="robust",
        preset="default",
        thresholds=Thresholds(),
        inputs=(InputPair(("ref.json",), ("cmp.json",)),),
        benchmarks=benchmarks,
        unpaired_files=unpaired,
        warnings=warnings,
        filters=filters,
    )


SLOW_BIG = row(Status.SLOW, Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES, 1e-3, 1.5e-3, key="N=1")
SLOW_MID = row(Status.SLOW, Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES, 1e-3, 1.2e-3, key="N=2")
SLOW_SMALL = row(Status.SLOW, Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES, 1e-3, 1.1e-3, key="N=3")
SLOW_TINY = row(Status.SLOW, Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES, 1e-3, 1.05e-3, key="N=4")
FAST = row(Status.FAST, Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES, 1e-3, 0.5e-3, key="N=5")
SAME = row(Status.SAME, Reason.BULK_SAME, 1e-3, 1.001e-3, key="N=6")


def ambiguous(reason: Reason, severity: float, key: str) -> Row:
    message = f"{reason.value} with severity {severity}"
    return row(Status.AMBG, reason, 1e-3, 1.01e-3, key=key, message=message, severity=severity)


# ---------------------------------------------------------------------------------------
# Sections
# ---------------------------------------------------------------------------------------


def test_document_layout_and_blank_lines() -> None:
    rows = [SAME, SLOW_BIG, row(Status.SAME, Reason.BULK_SAME, 1e-3, 1e-3, benchmark="misc")]
    text = render_document(comparison(rows), DocumentOptions(style=EMOJI))
    lines = text.splitlines()
    assert lines[:4] == ["# copy", "", "## [0] GPU A", ""]
    assert lines[4].startswith("|") and lines[5].startswith("|--")
    copy_end = lines.index("# misc")
    assert lines[copy_end - 1] == ""  # blank line after a table
    assert lines[copy_end + 1 : copy_end + 3] == ["", "## [0] GPU A"]
    assert lines[lines.index("# Summary") + 1] == ""
    assert text.endswith("\n") and not text.endswith("\n\n")


def test_device_heading_names_both_devices_when_they_differ() -> None:
    crossed = row(Status.SAME, Reason.BULK_SAME, 1e-3, 1e-3, device=0, cmp_device=1)
    text = render_document(comparison([crossed]))
    assert "## [0] GPU A vs. [1] GPU B\n\n|" in text


def test_no_device_heading_for_cpu_only_benchmarks(cpu_dir: Path) -> None:
    result = compare(cpu_dir / "cpu_run1.json", cpu_dir / "cpu_run2.json", method="robust")
    text = render_document(result)
    assert "\n## " not in text
    assert text.startswith("# host_sort\n\n| Elements | Mode  |")
    # The axis-less benchmark gets a table without axis columns.
    tiny = text[text.index("# tiny\n") :]
    assert tiny.splitlines()[2].startswith("|") and "Ref" in tiny.splitlines()[2]
    assert "| Elements" not in tiny.split("# Summary")[0]


def test_a_benchmark_whose_rows_are_all_hidden_gets_no_empty_heading() -> None:
    rows = [SAME, row(Status.SAME, Reason.BULK_SAME, 1e-3, 1e-3, benchmark="misc")]
    options = DocumentOptions(min_change=0.05)
    text = render_document(comparison(rows), options)
    body = text.split("# Summary")[0]
    assert body == ""
    only = render_document(comparison([SLOW_BIG, *rows]), DocumentOptions(only_changed=True))
    assert "# misc" not in only and only.startswith("# copy\n\n")
    # A benchmark that was selected but has no rows at all still gets its heading.
    empty = comparison([SAME], benchmarks=((0, "copy"), (0, "filtered_out")))
    assert "# filtered_out\n\n# Summary" in render_document(empty)


def test_threshold_hides_rows_without_changing_counts() -> None:
    rows = [SAME, SLOW_BIG, FAST]
    full = render_document(comparison(rows))
    hidden = render_document(comparison(rows), DocumentOptions(min_change=0.05))
    assert "N=6" not in hidden.split("# Summary")[0].replace("| N", "")
    table_rows = [line for line in hidden.split("# Summary")[0].splitlines() if "🔵" in line]
    assert table_rows == []
    summary_full = full[full.index("# Summary") :]
    summary_hidden = hidden[hidden.index("# Summary") :]
    for status_line in ("Unchanged", "Improvement", "Regression"):
        line = next(item for item in summary_full.splitlines() if status_line in item)
        assert line in summary_hidden
    assert "- Hidden: 1 row(s) changed less than 5.00% (--threshold-diff)" in summary_hidden


# ---------------------------------------------------------------------------------------
# Summary block
# ---------------------------------------------------------------------------------------


def test_summary_counts_with_meanings() -> None:
    rows = [
        SAME,
        FAST,
        SLOW_BIG,
        ambiguous(Reason.NOISE_TOO_HIGH, 1, "N=7"),
        row(Status.UNKNOWN, Reason.STATE_SKIPPED, None, None, key="N=8", message="skipped!"),
        row(Status.ADDED, Reason.STATE_ADDED, None, 1e-3, key="N=9", one_sided=True),
    ]
    summary = render_summary(comparison(rows), DocumentOptions(style=EMOJI))
    lines = summary.splitlines()
    assert lines[:3] == ["# Summary", "", "- Total Matches: 5"]
    assert "  - Unchanged   (🔵 SAME, no change beyond the tolerance): 1" in lines
    assert "  - Improvement (🟢 FAST, compare is faster): 1" in lines
    assert "  - Regression  (🔴 SLOW, compare is slower): 1" in lines
    assert "  - Ambiguous   (🤷 AMBG, not enough evidence either way): 1" in lines
    assert "  - Unknown     (🟡 ????, unusable input data): 1" in lines
    assert "- Added   (\u2795 ADDED, only in the compare run): 1" in lines
    assert "- Removed (\u2796 REMOVED, only in the reference run): 0" in lines
    # ???? rows get their reasons too (ours).
    unknown_at = lines.index("  - Unknown     (🟡 ????, unusable input data): 1")
    assert lines[unknown_at + 1 : unknown_at + 3] == [
        "    - Reasons:",
        "      - state_skipped: 1 (skipped!)",
    ]
    assert "- Method: robust (preset default)" in lines


def test_ambiguous_reasons_by_frequency_in_words_true_of_every_row() -> None:
    rows = [
        ambiguous(Reason.NOISE_TOO_HIGH, 1.0, "a"),
        ambiguous(Reason.BULK_TIME_SUPPORT_MISMATCH, 0.2, "b"),
        ambiguous(Reason.BULK_TIME_SUPPORT_MISMATCH, 0.9, "c"),
        ambiguous(Reason.BULK_TIME_SUPPORT_MISMATCH, 0.5, "d"),
        ambiguous(Reason.CENTERS_NOT_CLOSE, 0.1, "e"),
        ambiguous(Reason.CENTERS_NOT_CLOSE, 0.3, "f"),
    ]
    lines = render_summary(comparison(rows)).splitlines()
    start = lines.index("    - Reasons:")
    # A reason of several rows in the catalogue's words, not its most severe row's message
    # (whose figures the other rows do not share); a reason of one row keeps that row's.
    assert lines[start + 1 : start + 4] == [
        f"      - bulk_time_support_mismatch: 3 ({Reason.BULK_TIME_SUPPORT_MISMATCH.message})",
        f"      - centers_not_close: 2 ({Reason.CENTERS_NOT_CLOSE.message})",
        "      - noise_too_high: 1 (noise_too_high with severity 1.0)",
    ]


def test_reason_legend_only_in_explain_mode_and_only_for_shown_rows() -> None:
    rows = [SAME, SLOW_BIG]
    plain = render_summary(comparison(rows))
    assert "- Reason codes in the tables:" not in plain
    explain = render_summary(comparison(rows), DocumentOptions(display=Display.EXPLAIN))
    # Each short code the table shows, with what it means (it used to give the canonical
    # code alone, which explained nothing).
    slow, same = SLOW_BIG.reason, SAME.reason
    assert (
        f"- Reason codes in the tables:\n  - {slow.alias}: {slow.message} ({slow.value})\n"
        f"  - {same.alias}: {same.message} ({same.value})\n"
    ) in explain
    # SAME changes by 0.1% and is hidden: its alias is not in the legend.
    hidden = render_summary(
        comparison(rows), DocumentOptions(display=Display.EXPLAIN, min_change=0.01)
    )
    assert (
        f"- Reason codes in the tables:\n  - {slow.alias}: {slow.message} ({slow.value})\n- "
        in hidden
    )
    assert reason_legend([SAME]) == [(same.alias, same.value, same.message)]


def test_geometric_mean() -> None:
    rows = [
        row(Status.SLOW, Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES, 1.0, 2.0),
        row(Status.FAST, Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES, 1.0, 0.5),
        row(Status.SAME, Reason.BULK_SAME, 1.0, 1.0),
        row(Status.AMBG, Reason.NOISE_TOO_HIGH, 2.0, 2.5),
        # Not counted: unusable and one-sided rows.
        row(Status.UNKNOWN, Reason.STATE_SKIPPED, None, None),
        row(Status.ADDED, Reason.STATE_ADDED, None, 9.0, one_sided=True),
    ]
    change = suite_summary(comparison(rows))
    assert change is not None
    assert change.rows == 4
    assert change.ratio == pytest.approx(1.25**0.25)
    assert change.lo is None and change.hi is None
    summary = render_summary(comparison(rows))
    assert "- Geometric mean compare/reference: 1.057 (+5.7%) over 4 rows" in summary
    assert suite_summary(comparison([rows[4]])) is None
    assert "Geometric mean" not in render_summary(comparison([rows[4]]))


def test_worst_regressions_top_three_by_change() -> None:
    rows = [SLOW_SMALL, SLOW_BIG, SAME, SLOW_TINY, SLOW_MID]
    result = comparison(rows)
    assert worst_regressions(result) == (SLOW_BIG, SLOW_MID, SLOW_SMALL)
    lines = render_summary(result).splitlines()
    start = lines.index("- Worst regressions:")
    assert lines[start + 1].startswith("  - copy [0] N=1: +50.0% (>= +")
    assert lines[start + 2].startswith("  - copy [0] N=2: +20.0%")
    assert lines[start + 3].startswith("  - copy [0] N=3: +10.0%")
    assert not lines[start + 4].startswith("  - ")
    assert "Worst regressions" not in render_summary(comparison([SAME, FAST]))


def test_worst_regressions_use_the_effect_when_present() -> None:
    effect = Effect(ratio=3.0, lo=2.5, hi=3.5, confidence=0.95)
    boosted = row(
        Status.SLOW, Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES, 1e-3, 1.01e-3, effect=effect
    )
    result = comparison([SLOW_BIG, boosted])
    assert worst_regressions(result)[0] is boosted
    assert "  - copy [0] N=1: +200.0% [+150.0, +250.0]" in render_summary(result)


def test_warnings_and_unpaired_files() -> None:
    unpaired = (("reference", "ref/only.json"),)
    warnings = (
        "reference file 'ref/only.json' has no counterpart in 'cmp'",
        "device sections of a and b differ: [0] name: 'X' vs.\n 'Y'",
    )
    # The engine tags the line it told about the unpaired file (never read from the text).
    tagged = msgspec.structs.replace(
        comparison([SAME], warnings=warnings, unpaired=unpaired),
        warning_kinds=((warnings[0], WarningKind.UNPAIRED_FILE),),
    )
    summary = render_summary(tagged)
    lines = summary.splitlines()
    assert lines[lines.index("- Unpaired files:") + 1] == "  - reference: ref/only.json"
    warning_at = lines.index("- Warnings:")
    # The unpaired-file warning is not repeated; a line break in it (a device name's) is
    # shown as its escape, as the tables show the name, never folded into a space.
    assert lines[warning_at + 1] == (
        "  - device sections of a and b differ: [0] name: 'X' vs.\\n 'Y'"
    )
    assert not lines[warning_at + 2].startswith("  - ")


def test_filters_and_fail_on_lines() -> None:
    result = comparison([SAME, SLOW_BIG], filters=("-b copy", "-a N=1"))
    summary = render_summary(result, DocumentOptions(fail_on=(FailOn.SLOW, FailOn.FAST)))
    assert "- Filters: -b copy -a N=1" in summary
    assert "- Failed: --fail-on slow: 1 row(s): copy [0] N=1\n" in summary
    assert "--fail-on fast" not in summary
    passed = render_summary(comparison([SAME]), DocumentOptions(fail_on=(FailOn.SLOW,)))
    assert "- Passed: --fail-on slow" in passed
    assert "Failed" not in render_summary(result)


def test_failed_line_names_at_most_ten_rows() -> None:
    rows = [
        row(Status.SLOW, Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES, 1e-3, 2e-3, key=f"N={i}")
        for i in range(12)
    ]
    summary = render_summary(comparison(rows), DocumentOptions(fail_on=(FailOn.SLOW,)))
    failed = next(line for line in summary.splitlines() if line.startswith("- Failed"))
    assert failed.startswith("- Failed: --fail-on slow: 12 row(s): copy [0] N=0; ")
    assert failed.endswith("copy [0] N=9; and 2 more")


def test_missing_condition_names_unpaired_files() -> None:
    result = comparison([SAME], unpaired=(("compare", "cmp/new.json"),))
    summary = render_summary(result, DocumentOptions(fail_on=(FailOn.MISSING,)))
    assert (
        "- Failed: --fail-on missing: 1 unpaired file(s): compare file cmp/new.json (unpaired)"
        in summary
    )


def test_options_validate_min_change() -> None:
    with pytest.raises(ValueError):
        DocumentOptions(min_change=-0.1)
    with pytest.raises(ValueError):
        DocumentOptions(min_change=math.nan)
    assert DocumentOptions(display="explain").display is Display.EXPLAIN  # type: ignore[arg-type]


def test_real_upstream_files_summary(upstream_2021_dir: Path) -> None:
    result = compare(
        upstream_2021_dir / "ref.json", upstream_2021_dir / "cmp.json", method="robust"
    )
    text = render_document(result, DocumentOptions(display=Display.EXPLAIN))
    assert text.count("\n## [0] Quadro GV100\n") == 5
    assert text.count("\n## [1] Quadro GP100\n") == 5
    summary = text[text.index("# Summary") :]
    # 38 states are skipped by the benchmark in both runs, for two different reasons:
    # counted apart from the matches, each message with its own count, and not in the
    # tables.
    assert "- Total Matches: 88" in summary
    assert "  - Unknown     (🟡 ????, unusable input data): 0" in summary
    assert (
        "- Skipped: 38 states skipped by the benchmark in both runs (not in the tables; "
        "--show-skipped lists them)\n"
        "  - 26: Narrowing conversion: sizeof(InputType) > sizeof(OutputType).\n"
        "  - 12: Not a conversion: InputType == OutputType.\n"
    ) in summary
    assert "state-skip" not in text[: text.index("# Summary")]
    shown = render_document(result, DocumentOptions(display=Display.EXPLAIN, show_skipped=True))
    assert shown.count("| state-skip ") == 38
    assert "(listed in the tables)" in shown
    assert "      - noise_too_high: 6 (" in summary
    assert (
        "  - same-no-clk: timing centers are close and the intervals overlap well; no SM clock "
        "summaries (same_without_clock_rate)\n"
    ) in summary


# ---------------------------------------------------------------------------------------
# Colour policy
# ---------------------------------------------------------------------------------------


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


@pytest.mark.parametrize(
    ("mode", "tty", "environ", "expected"),
    [
        ("auto", True, {}, True),
        ("auto", False, {}, False),
        ("auto", True, {"NO_COLOR": "1"}, False),
        ("auto", True, {"NO_COLOR": ""}, True),  # no-color.org: only a non-empty value
        ("always", False, {"NO_COLOR": "1"}, True),
        ("never", True, {}, False),
        (ColorMode.ALWAYS, False, {}, True),
    ],
)
def test_color_enabled(mode: str, tty: bool, environ: dict[str, str], expected: bool) -> None:
    assert color_enabled(mode, _Stream(tty), environ) is expected


def test_color_enabled_rejects_unknown_mode_and_handles_missing_stream() -> None:
    with pytest.raises(ValueError):
        color_enabled("sometimes", _Stream(True), {})
    assert color_enabled("auto", None, {}) is False


def test_status_styles() -> None:
    assert status_style(True) == ANSI
    assert status_style(False) == EMOJI
    expected = {
        Status.SAME: ("\x1b[34m", "🔵"),
        Status.FAST: ("\x1b[32m", "🟢"),
        Status.SLOW: ("\x1b[31m", "🔴"),
        Status.AMBG: ("\x1b[90m", "🤷"),
        Status.UNKNOWN: ("\x1b[33m", "🟡"),
    }
    for status, (code, emoji) in expected.items():
        assert ANSI.label(status) == f"{code}{status.value}\x1b[39m"
        assert EMOJI.label(status) == f"{emoji} {status.value}"
    assert StatusStyle(ansi=True, emoji=True).label(Status.SLOW) == "\x1b[31m🔴 SLOW\x1b[39m"
    # Every emoji is double width, so tables line up whatever the status.
    assert {display_width(STATUS_EMOJI[status]) for status in Status} == {2}


def test_colored_document_colours_status_cells_only() -> None:
    text = render_document(comparison([SAME, SLOW_BIG]), DocumentOptions(style=ANSI))
    table_lines = [line for line in text.splitlines() if line.startswith("| ")][1:]
    for line in table_lines:
        cells = line.split("|")[1:-1]
        assert all("\x1b" not in cell for cell in cells[:-1])
        assert re.search(r"\x1b\[\d+m(SAME|SLOW)\x1b\[39m", cells[-1])
    assert "🔵" not in text
    # The summary names statuses without escape codes.
    assert "\x1b" not in text[text.index("# Summary") :]
    assert "  - Regression  (SLOW, compare is slower): 1" in text


def test_several_file_pairs_name_their_files() -> None:
    first = row(Status.SLOW, Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES, 1e-3, 2e-3)
    second = msgspec.structs.replace(first, pair=1)
    result = Comparison(
        rows=(first, second),
        method="robust",
        preset="default",
        thresholds=Thresholds(),
        inputs=(
            InputPair(("r/a.json",), ("c/a.json",)),
            InputPair(("r/b.json",), ("c/b2.json",)),
        ),
        benchmarks=((0, "copy"), (1, "copy")),
    )
    text = render_document(result, DocumentOptions(fail_on=(FailOn.SLOW,)))
    assert "# copy (a.json)\n\n## [0] GPU A" in text
    assert "# copy (b.json vs. b2.json)\n\n## [0] GPU A" in text
    assert "- Failed: --fail-on slow: 2 row(s): a.json: copy [0] N=1; b2.json: copy [0] N=1" in text


def test_notes_are_shown_as_text_in_every_summary() -> None:
    # The gate's notes quote commits and file names from the archive: untrusted text.
    from cuda.bench.report.html.summary import render_summary as html_summary
    from cuda.bench.report.markdown_report import render_markdown_report

    hostile = "x\x1b[31m<script>alert(1)</script>|**bold**`code`\nnext"
    noted = msgspec.structs.replace(
        comparison([SAME, SLOW_BIG]), settings={"notes": (f"held: {hostile}", "y" * 5000)}
    )
    text = render_summary(noted)
    (line,) = [one for one in text.splitlines() if one.startswith("- Note: held")]
    assert "\x1b" not in text and "\\x1b[31m<script>" in line and "next" in line
    capped = [one for one in text.splitlines() if one.startswith("- Note: yyy")]
    assert len(capped) == 1 and capped[0].endswith("…") and len(capped[0]) < 2100
    markdown = render_markdown_report(noted)
    (line,) = [one for one in markdown.splitlines() if one.startswith("**Note:** held")]
    assert "<script>" not in line and "\x1b" not in line and "**bold**" not in line
    page = html_summary(noted)
    assert "<script>" not in page and "\x1b" not in page
    assert "&lt;script&gt;" in page and '<section class="notes">' in page


def test_warnings_are_shown_as_text_in_every_summary() -> None:
    # Warnings quote file paths and names from the inputs: untrusted text, like the notes.
    from cuda.bench.report.html.summary import render_summary as html_summary
    from cuda.bench.report.markdown_report import render_markdown_report

    hostile = "x\x1b[31m\u202e<script>alert(1)</script>\x07"
    warned = comparison(
        [SAME, SLOW_BIG],
        warnings=(f"state {hostile} is listed twice",),
        unpaired=(("compare", f"dir/{hostile}.json"),),
    )
    warned = msgspec.structs.replace(warned, inputs=(InputPair((f"{hostile}.json",), ("b.json",)),))
    for page in (render_summary(warned), render_markdown_report(warned), html_summary(warned)):
        assert not any(raw in page for raw in ("\x1b", "\u202e", "\x07"))
    page = html_summary(warned)
    assert "<script>" not in page
    (section,) = re.findall(r'<section class="warnings">.*?</section>', page)
    assert section.count("<li>") == 2 and "\\x1b[31m" in section and "&lt;script&gt;" in section


def test_line_breaks_and_tabs_in_warnings_and_notes_are_escapes_not_spaces() -> None:
    # Every summary folded white space, so a name "a\nFAKE: ok" read "a FAKE: ok" in the
    # warnings and notes while the tables showed "a\\nFAKE: ok".
    from cuda.bench.report.html.summary import render_summary as html_summary
    from cuda.bench.report.markdown_report import render_markdown_report

    forged = "misc\nFAKE: all good\r\tend"
    shown = "misc\\nFAKE: all good\\r\\tend"
    told = msgspec.structs.replace(
        comparison([SAME, SLOW_BIG], warnings=(f"state '{forged}' is listed twice",)),
        settings={"notes": (f"held: {forged}",)},
    )
    summary = render_summary(told)
    assert f"  - state '{shown}' is listed twice" in summary.splitlines()
    assert f"- Note: held: {shown}" in summary.splitlines()
    markdown = render_markdown_report(told).replace("\\\\", "\\")
    assert f"state '{shown}' is listed twice" in markdown
    assert f"**Note:** held: {shown}" in markdown
    page = html_summary(told)
    assert f"<li>state &#x27;{shown}&#x27; is listed twice</li>" in page
    assert f"<li>held: {shown}</li>" in page


def test_the_markdown_report_never_exceeds_its_limit() -> None:
    # It wrote one character more than --markdown-limit at some limits (1,095 at 1,094),
    # and a comment of GitHub's hard cap plus one is refused.
    from cuda.bench.report.markdown_report import render_markdown_report

    rows = [
        row(
            Status.SLOW if n % 7 == 0 else Status.SAME,
            Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES if n % 7 == 0 else Reason.BULK_SAME,
            1e-3,
            (1.2 if n % 7 == 0 else 1.001) * 1e-3,
            benchmark=f"bench_{n % 3}",
            key=f"N={n}",
        )
        for n in range(1, 90)
    ]
    whole = comparison(rows)
    full = len(render_markdown_report(whole, limit=None))
    over = [
        (limit, size)
        for limit in range(600, min(full, 4000) + 50, 7)
        if (size := len(render_markdown_report(whole, limit=limit))) > limit
    ]
    assert over == []


def test_reason_legend_leaves_out_the_skipped_rows_the_tables_leave_out() -> None:
    """A new user's trial: ``--display explain`` listed ``state-skip`` under "Reason codes
    in the tables" while the tables left the skipped states out (``--show-skipped`` lists
    them, and then the legend explains the code)."""
    skipped = row(Status.SKIP, Reason.STATE_SKIPPED, None, None, key="N=2")
    rows = [SAME, skipped]
    code = skipped.reason
    hidden = render_summary(comparison(rows), DocumentOptions(display=Display.EXPLAIN))
    assert "- Reason codes in the tables:" in hidden and f"  - {code.alias}:" not in hidden
    listed = render_summary(
        comparison(rows), DocumentOptions(display=Display.EXPLAIN, show_skipped=True)
    )
    assert f"  - {code.alias}: {code.message} ({code.value})" in listed
