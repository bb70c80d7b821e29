"""The summary's AMBG/???? reason list describes each reason in words true of every row it
counts, in every format; the geometric-mean line names the reasons its drift rows have."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cuda.bench.compare import compare
from cuda.bench.compare.model import (
    Comparison,
    InputPair,
    Reason,
    Row,
    Status,
    SuiteSummary,
    Verdict,
)
from cuda.bench.compare.thresholds import Thresholds
from cuda.bench.report.document import render_summary, suite_change_text
from cuda.bench.report.html.page import render_html
from cuda.bench.report.json_report import report_data
from cuda.bench.report.markdown_report import render_markdown_report


def _row(key: str, reason: Reason, message: str, severity: float) -> Row:
    return Row(
        benchmark="copy",
        key=key,
        occurrence=0,
        axis_values=(),
        verdict=Verdict(Status.AMBG, reason, message, severity),
        ref=None,
        cmp=None,
        ref_device=0,
        cmp_device=0,
    )


def _comparison() -> Comparison:
    rows = (
        # Three rows of one reason, each with its own figures in its message.
        _row("N=1", Reason.RUN_DRIFT_UNMEASURED, "time -47.34% [-85.59%, +87.86%] N1", 0.2),
        _row("N=2", Reason.RUN_DRIFT_UNMEASURED, "time -2.20% [-29.50%, +34.90%] N2", 0.9),
        _row("N=3", Reason.RUN_DRIFT_UNMEASURED, "time -18.40% [-41.00%, +14.40%] N3", 0.5),
        # One row of another: its own message is true of every row the reason counts.
        _row("N=4", Reason.RUN_NOT_STATIONARY, "time -49.98% [-55.46%, -43.55%] N4", 0.1),
    )
    return Comparison(
        rows=rows,
        method="ci",
        preset="default",
        thresholds=Thresholds(),
        inputs=(InputPair(("ref.json",), ("cmp.json",)),),
        benchmarks=((0, "copy"),),
    )


def _no_row_figures(text: str) -> None:
    for key in ("N1", "N2", "N3", "-47.34%", "-2.20%", "-18.40%"):
        assert key not in text, key


def test_text_reason_line_describes_the_reason_not_one_row() -> None:
    summary = render_summary(_comparison())
    line = next(item for item in summary.splitlines() if "run_drift_unmeasured: 3" in item)
    assert Reason.RUN_DRIFT_UNMEASURED.message in line
    _no_row_figures(line)
    # A reason of one row keeps that row's own message: it is true of the row it counts.
    assert "run_not_stationary: 1 (time -49.98% [-55.46%, -43.55%] N4)" in summary


def test_markdown_reason_line_describes_the_reason_not_one_row() -> None:
    text = render_markdown_report(_comparison())
    line = next(item for item in text.splitlines() if "`run_drift_unmeasured`" in item)
    assert ": 3 — " in line
    _no_row_figures(line)
    assert "N4" in next(item for item in text.splitlines() if "`run_not_stationary`" in item)


def test_html_reason_list_describes_the_reason_not_one_row() -> None:
    page = render_html(_comparison())
    section = page[page.index('<section class="reasons">') :]
    section = section[: section.index("</section>")]
    item = next(part for part in section.split("<li>") if "run_drift_unmeasured" in part)
    _no_row_figures(item)
    assert "N4" in section


def test_json_reasons_carry_a_description_true_of_every_row() -> None:
    reasons = {entry["code"]: entry for entry in report_data(_comparison())["reasons"]}
    drift = reasons["run_drift_unmeasured"]
    assert drift["description"] == Reason.RUN_DRIFT_UNMEASURED.message
    # ``message`` stays what the schema says: the most severe such row's message.
    assert drift["message"] == "time -2.20% [-29.50%, +34.90%] N2"
    assert reasons["run_not_stationary"]["description"] == "time -49.98% [-55.46%, -43.55%] N4"


def test_real_cpu_pair_reason_line_holds_no_one_rows_figures(cpu_dir: Path) -> None:
    result = compare(cpu_dir / "cpu_run1.json", cpu_dir / "cpu_run2.json")
    found = {reason: count for reason, count, _ in result.reason_counts(Status.AMBG)}
    assert found.get(Reason.RUN_DRIFT_UNMEASURED, 0) > 1, found
    summary = render_summary(result)
    line = next(item for item in summary.splitlines() if "run_drift_unmeasured:" in item)
    assert "time " not in line and "%" not in line, line
    assert json.dumps(Reason.RUN_DRIFT_UNMEASURED.message)[1:-1] in line


@pytest.mark.parametrize(
    ("reasons", "needle"),
    [
        ((("history_too_short", 11),), "history_too_short"),
        ((("run_drift_unmeasured", 3), ("run_not_stationary", 1)), "run_not_stationary"),
        ((("history_too_short", 5), ("too_noisy_to_judge", 2)), "too_noisy_to_judge: 2"),
    ],
)
def test_geometric_mean_line_names_the_reasons_of_its_drift_rows(
    reasons: tuple[tuple[str, int], ...], needle: str
) -> None:
    rows = sum(count for _, count in reasons)
    change = SuiteSummary(0.99, rows + 1, drift_rows=rows, drift_reasons=reasons)
    text = suite_change_text(change)
    assert f"{rows} of {rows + 1} row(s) are AMBG" in text
    assert needle in text
    if needle == "history_too_short":
        assert "because their runs drift" not in text
    if any(code == "history_too_short" for code, _ in reasons):
        # The gate's cause in words, not a vaguer claim.
        assert "too few runs of their current level" in text, text
