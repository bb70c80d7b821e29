"""The N-way HTML report: one row per state, a cell per candidate, the per-candidate summary,
plots bounded over all cells, escaping, the size bound and ``write_html``.

What the page does in a browser is tested in ``test_html_matrix_browser.py``.
"""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from _html_helpers import HOSTILE_BENCHMARK, page_blob, write_hostile_pair
from cuda.bench.compare import compare
from cuda.bench.compare.many import Candidate, Correction, MultiComparison, compare_many
from cuda.bench.compare.model import Comparison, Status
from cuda.bench.compare.suite import suite_summary
from cuda.bench.report.document import suite_change_text
from cuda.bench.report.html import DEFAULT_PLOT_LIMIT, render_html, write_html
from cuda.bench.report.html.matrix_data import CELL_FIELDS, matrix_page_data
from cuda.bench.report.html.matrix_summary import correction_text
from cuda.bench.report.matrix import best_label
from cuda.bench.results.synthetic import SyntheticConfig, write_pair
from test_html_report import _many_rows

HOSTILE_NAME = "</script><b>x</b>"


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return write_hostile_pair(tmp_path_factory.mktemp("matrix"))


@pytest.fixture(scope="module")
def multi(pair: tuple[Path, Path]) -> MultiComparison:
    ref, cmp = pair
    return compare_many(ref, {"a": cmp, "b": ref, HOSTILE_NAME: cmp}, base_name="base")


def test_every_state_is_one_record_with_a_cell_per_candidate(multi: MultiComparison) -> None:
    data = matrix_page_data(multi)
    matrix = multi.matrix()
    assert data["layout"] == "matrix"
    assert [record["id"] for record in data["rows"]] == list(range(len(matrix)))
    assert [c["name"] for c in data["candidates"]] == ["a", "b", HOSTILE_NAME]
    for index, (record, entry) in enumerate(zip(data["rows"], matrix, strict=True)):
        assert record["benchmark"] == entry.state.benchmark
        assert record["best"] == best_label(entry.best, 4)
        statuses = [cells["status"][index] for cells in data["cells"]]
        assert statuses == [None if row is None else row.status.value for row in entry.cells]
    for cells in data["cells"]:
        assert set(cells) == set(CELL_FIELDS)
        assert all(len(values) == len(matrix) for values in cells.values())
        # Only cells that are not SAME keep their message.
        assert all(
            (message is None) == (status == "SAME")
            for status, message in zip(cells["status"], cells["message"], strict=True)
        )
    # Column pairs per candidate read their cell; the baseline's column is named after it.
    labels = [column["label"] for column in data["columns"]]
    assert labels[3:] == [
        "base",
        "a change",
        "a status",
        "b change",
        "b status",
        f"{HOSTILE_NAME} change",
        f"{HOSTILE_NAME} status",
        "Best",
    ]
    assert [column.get("candidate") for column in data["columns"][4:-1]] == [0, 0, 1, 1, 2, 2]
    counts = {s["code"]: s["count"] for s in data["statuses"]}
    assert counts["SAME"] == sum(c.comparison.counts[Status.SAME] for c in multi.candidates)
    assert data["correction"]["pair_confidence"] == multi.pair_confidence


def test_best_label_names_one_winner_a_tie_all_tie_or_undecided() -> None:
    assert best_label(("a",), 3) == "a"
    assert best_label(("base", "b"), 3) == "tie: base, b"
    assert best_label(("base", "a", "b"), 3) == "all tie"
    assert best_label((), 3) == "undecided"


def test_plots_go_to_the_most_changed_cells_of_all_candidates(multi: MultiComparison) -> None:
    data = matrix_page_data(multi, plot_limit=3)
    plotted = [
        (plot, cells["status"][index])
        for cells in data["cells"]
        for index, plot in enumerate(cells["plot"])
        if plot is not None
    ]
    assert len(data["plots"]) == 3
    assert sorted(plot for plot, _ in plotted) == [0, 1, 2]
    assert all(status == "SLOW" for _, status in plotted)
    everything = matrix_page_data(multi, plot_limit=10_000)
    changed = sum(
        c.comparison.counts[s]
        for c in multi.candidates
        for s in (Status.SLOW, Status.FAST, Status.AMBG)
    )
    assert len(everything["plots"]) == changed  # SAME cells (all of b) never get one


def test_summary_has_each_candidates_counts_geomean_and_the_correction(
    multi: MultiComparison,
) -> None:
    page = render_html(multi, fail_on="slow")
    top = page[page.index("<header") : page.index("</header>")]
    for position, candidate in enumerate(multi.candidates):
        counts = candidate.comparison.counts
        for status in (Status.SLOW, Status.FAST, Status.SAME):
            button = re.search(
                f'data-status="{status.value}" data-candidate="{position}"[^>]*>'
                r'<span class="count-n">(\d+)</span>',
                top,
            )
            assert button is not None and int(button.group(1)) == counts[status]
        change = suite_summary(candidate.comparison)
        assert change is not None
        assert html.escape(suite_change_text(change)) in top
    assert f"{multi.pair_confidence * 100:.4g}%" in top and "Bonferroni over 3 candidates" in top
    # a and the third fail, b passes
    assert top.count('class="failed"') == 2 and top.count('class="passed"') == 1


def test_candidate_and_benchmark_names_are_escaped(multi: MultiComparison) -> None:
    page = render_html(multi)
    assert HOSTILE_NAME not in page and HOSTILE_BENCHMARK not in page
    assert html.escape(HOSTILE_NAME) in page
    assert page.count("<script") == 2
    data = page_blob(page)
    assert data["candidates"][2]["name"] == HOSTILE_NAME
    assert HOSTILE_BENCHMARK in {record["benchmark"] for record in data["rows"]}


def test_a_comparison_still_gets_the_pairwise_page(pair: tuple[Path, Path]) -> None:
    data = page_blob(render_html(compare(*pair)))
    assert "layout" not in data and "cells" not in data["rows"][0]


def test_write_html_takes_either_and_replaces_the_file_whole(
    multi: MultiComparison, pair: tuple[Path, Path], tmp_path: Path
) -> None:
    target = tmp_path / "report.html"
    target.write_text("old", encoding="utf-8")
    write_html(multi, target, plots=2)
    assert len(page_blob(target.read_text(encoding="utf-8"))["plots"]) == 2
    write_html(compare(*pair), target, plots=1)
    assert "layout" not in page_blob(target.read_text(encoding="utf-8"))
    assert os.listdir(tmp_path) == ["report.html"]
    with pytest.raises(FileNotFoundError):
        write_html(multi, tmp_path / "missing" / "report.html")


def _data_is_plain_json(data: Any) -> bool:
    return bool(json.loads(json.dumps(data, allow_nan=False)) == data)


def test_data_is_plain_json(multi: MultiComparison) -> None:
    assert _data_is_plain_json(matrix_page_data(multi))


def test_five_thousand_states_of_three_candidates_stay_under_five_megabytes(
    pair: tuple[Path, Path],
) -> None:
    ref, cmp = pair
    changed: Comparison = compare(ref, cmp)
    same: Comparison = compare(ref, ref)
    third = _many_rows(changed, 5000)
    rows = tuple(
        msgspec.structs.replace(
            row, verdict=msgspec.structs.replace(row.verdict, message=f"{row.verdict.message} c")
        )
        for row in third.rows
    )  # messages of its own, as a real third candidate has
    candidates = (
        Candidate("a", _many_rows(changed, 5000)),
        Candidate("b", _many_rows(same, 5000)),
        Candidate("c", msgspec.structs.replace(third, rows=rows)),
    )
    big = MultiComparison("base", candidates, Correction.BONFERRONI, 3, 0.95, 0.983)
    page = render_html(big)
    data = page_blob(page)
    assert len(data["rows"]) == 5000
    assert len(data["plots"]) == DEFAULT_PLOT_LIMIT
    size = len(page.encode("utf-8"))
    assert size < 5_000_000, size


def test_directory_inputs_get_a_file_column(tmp_path: Path) -> None:
    for side in ("before", "after"):
        (tmp_path / side).mkdir()
    for name, seed in (("x", 1), ("y", 2)):
        made = write_pair(
            tmp_path / name, SyntheticConfig(benchmarks=1, states=2), seed=seed, jsonbin=False
        )
        made.ref[0].rename(tmp_path / "before" / f"{name}.json")
        made.cmp[0].rename(tmp_path / "after" / f"{name}.json")
    multi = compare_many(tmp_path / "before", {"a": tmp_path / "after", "b": tmp_path / "after"})
    data = matrix_page_data(multi)
    assert data["columns"][0] == {"key": "file", "label": "File", "type": "text"}
    assert [row["file"] for row in data["rows"]] == ["x.json"] * 2 + ["y.json"] * 2
    assert (
        "file"
        not in matrix_page_data(
            compare_many(tmp_path / "before" / "x.json", {"a": tmp_path / "after" / "x.json"})
        )["rows"][0]
    )


def test_correction_text_says_what_level_each_pair_had(multi: MultiComparison) -> None:
    assert correction_text(multi) == (
        "Bonferroni over 3 candidates: each pair's intervals at 95%, its FAST/SLOW "
        f"confirmed at {multi.pair_confidence * 100:.4g}%, so that the 3 change calls of a "
        "state hold together at 95%"
    )
    plain = msgspec.structs.replace(multi, correction=Correction.NONE, pair_confidence=0.95)
    assert correction_text(plain) == "no correction: each pair's intervals and verdicts at 95%"
    robust = msgspec.structs.replace(
        multi,
        candidates=tuple(
            Candidate(c.name, msgspec.structs.replace(c.comparison, method="robust"))
            for c in multi.candidates
        ),
    )
    assert correction_text(robust).endswith("(the correction applies to the ci method only)")


def test_a_matrix_without_states_renders(multi: MultiComparison) -> None:
    empty = msgspec.structs.replace(
        multi,
        candidates=tuple(
            Candidate(c.name, msgspec.structs.replace(c.comparison, rows=()))
            for c in multi.candidates
        ),
    )
    data = page_blob(render_html(empty))
    assert data["rows"] == [] and data["plots"] == []
    assert all(column == [] for cells in data["cells"] for column in cells.values())
    assert "in 0 states" in render_html(empty)


def test_warnings_in_the_matrix_summary_are_shown_as_text(multi: MultiComparison) -> None:
    # A warning quotes names and paths from the inputs: control characters and bidi
    # overrides must show as escapes, not reach the reader's page.
    hostile = "x\x1b[31m\u202e<i>y</i>\x07"
    warned = msgspec.structs.replace(
        multi,
        baseline=f"base{hostile}",
        candidates=tuple(
            Candidate(
                f"{c.name}{hostile}",
                msgspec.structs.replace(c.comparison, warnings=(f"{hostile} twice",)),
            )
            for c in multi.candidates
        ),
    )
    page = render_html(warned)
    summary = page.split('<section class="warnings">')[0]
    assert summary.count("\\u202e") > len(multi.candidates)
    # The data element keeps the names as they are (the script shows them as escapes).
    markup = page.split('<script type="application/json"')[0]
    assert not any(raw in markup for raw in ("\x1b", "\u202e", "\x07"))
    (section,) = re.findall(r'<section class="warnings">.*?</section>', page, re.S)
    assert section.count("<li>") == len(multi.candidates)
    assert not any(raw in section for raw in ("\x1b", "\u202e", "\x07", "<i>"))
    assert "\\x1b[31m\\u202e&lt;i&gt;" in section
