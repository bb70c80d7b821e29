"""The N-way HTML report in headless Chromium: every state, sorting and filtering by status,
candidate, benchmark and text, per-candidate plots, and no JavaScript error.

Uses the browser fixture of the pairwise report's browser tests (same skip rules).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _html_helpers import HOSTILE_BENCHMARK, write_hostile_pair
from cuda.bench.compare.many import MatrixRow, MultiComparison, compare_many
from cuda.bench.compare.model import Status
from cuda.bench.report.html import write_html
from cuda.bench.results.synthetic import SyntheticConfig, write_run
from test_html_browser import _header, _ids, browser  # noqa: F401  (browser: the fixture)

PLOTS = 4

#: What a cell shows where a candidate has no row for the state (an en dash).
NO_CELL = "\N{EN DASH}"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[MultiComparison, Path]:
    """Candidate ``a`` has the pair's changes, ``b`` is the baseline again (all SAME)."""
    directory = tmp_path_factory.mktemp("matrix-browser")
    ref, cmp = write_hostile_pair(directory)
    multi = compare_many(ref, {"a": cmp, "b": ref, "<i>c</i>": cmp}, base_name="base")
    page = directory / "matrix.html"
    write_html(multi, page, plots=PLOTS)
    return multi, page


@pytest.fixture
def page(browser: Any, report: tuple[MultiComparison, Path]) -> Iterator[Any]:  # noqa: F811
    """The report freshly loaded; afterwards, the page must have logged no error."""
    browser.get_log("browser")
    browser.get(report[1].as_uri())
    yield browser
    problems = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert problems == [], problems


def _texts(driver: Any, selector: str) -> list[str]:
    texts: list[str] = driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(e => e.textContent)", selector
    )
    return texts


def _column(driver: Any, label: str) -> list[str]:
    """The cells of the column headed ``label``, in the shown order."""
    labels = _texts(driver, "thead th button")
    position = [text.rstrip("▲▼") for text in labels].index(label)
    cells: list[str] = driver.execute_script(
        "return [...document.querySelectorAll('tbody tr.row')].map(r => r.cells[arguments[0]]"
        ".textContent)",
        position,
    )
    return cells


def _status(entry: MatrixRow, candidate: int) -> Status | None:
    cell = entry.cells[candidate]
    return None if cell is None else cell.status


def test_every_state_is_a_row_with_a_column_pair_per_candidate(
    page: Any, report: tuple[MultiComparison, Path]
) -> None:
    multi = report[0]
    matrix = multi.matrix()
    assert _ids(page) == list(range(len(matrix)))
    assert (
        page.find_element("css selector", ".shown").text == f"{len(matrix)} of {len(matrix)} rows"
    )
    assert page.execute_script("return performance.getEntriesByType('resource').length") == 0
    headers = [text.rstrip("▲▼") for text in _texts(page, "thead th button")]
    assert headers == [
        "#",
        "Benchmark",
        "Device",
        "State",
        "base",
        "a change",
        "a status",
        "b change",
        "b status",
        "<i>c</i> change",
        "<i>c</i> status",
        "Best",
    ]
    assert page.execute_script("return document.querySelectorAll('thead i').length") == 0
    assert _column(page, "a status") == [_column_label(_status(entry, 0)) for entry in matrix]
    assert set(_column(page, "b status")) == {"SAME"}
    assert HOSTILE_BENCHMARK in _column(page, "Benchmark")


def _column_label(status: Status | None) -> str:
    return NO_CELL if status is None else status.value


def test_sorting_by_a_candidates_columns_changes_the_row_order(
    page: Any, report: tuple[MultiComparison, Path]
) -> None:
    matrix = report[0].matrix()
    original = list(range(len(matrix)))

    def change(index: int) -> float:
        cell = matrix[index].cells[0]
        assert cell is not None and cell.verdict.judged_effect is not None
        return cell.verdict.judged_effect.ratio

    _header(page, "a change").click()  # largest change of a first
    descending = _ids(page)
    assert sorted(descending) == original and descending != original
    assert [change(i) for i in descending] == sorted(map(change, original), reverse=True)
    _header(page, "a status").click()  # a's regressions first
    ranked = [_status(matrix[i], 0) for i in _ids(page)]
    slow = sum(status is Status.SLOW for status in ranked)
    assert slow >= 2 and ranked[:slow] == [Status.SLOW] * slow
    _header(page, "b status").click()  # every b cell is SAME: the comparison's order
    assert _ids(page) == original
    _header(page, "Best").click()
    best = _column(page, "Best")
    assert best == sorted(best, key=str.lower) and _ids(page) != original
    _header(page, "#").click()
    assert _ids(page) == original


def test_status_filter_reads_any_candidate_or_the_chosen_one(
    page: Any, report: tuple[MultiComparison, Path]
) -> None:
    from selenium.webdriver.support.select import Select

    matrix = report[0].matrix()
    page.find_element("css selector", ".status-filter input[value='SAME']").click()
    changed = [i for i, entry in enumerate(matrix) if _status(entry, 0) is not Status.SAME]
    assert _ids(page) == changed and 0 < len(changed) < len(matrix)
    candidate = Select(page.find_element("css selector", ".toolbar select.candidate"))
    candidate.select_by_visible_text("statuses of b")  # b is SAME everywhere
    assert _ids(page) == []
    assert page.find_element("css selector", ".empty").is_displayed()
    candidate.select_by_visible_text("statuses of a")
    assert _ids(page) == changed
    # A count of a candidate in the summary shows only that status of that candidate.
    page.find_element(
        "css selector", "button.count[data-status='FAST'][data-candidate='0']"
    ).click()
    assert [_status(matrix[i], 0) for i in _ids(page)] == [Status.FAST]
    assert candidate.first_selected_option.text == "statuses of a"
    page.find_element(
        "css selector", "button.count[data-status='SAME'][data-candidate='1']"
    ).click()
    assert _ids(page) == list(range(len(matrix)))


def test_benchmark_and_text_filters_change_the_row_count(
    page: Any, report: tuple[MultiComparison, Path]
) -> None:
    from selenium.webdriver.support.select import Select

    matrix = report[0].matrix()
    Select(
        page.find_element("css selector", ".toolbar select:not(.candidate)")
    ).select_by_visible_text("plain")
    assert {matrix[i].state.benchmark for i in _ids(page)} == {"plain"}
    assert len(_ids(page)) == 8
    search = page.find_element("css selector", ".toolbar input[type='search']")
    search.send_keys("n=2 slow")  # every word must match
    assert [matrix[i].state.key for i in _ids(page)] == ["N=2"]
    search.clear()
    search.send_keys("no such state")
    assert _ids(page) == []


def test_opened_rows_show_a_plot_per_changed_cell(
    page: Any, report: tuple[MultiComparison, Path]
) -> None:
    matrix = report[0].matrix()
    slow = next(i for i, entry in enumerate(matrix) if _status(entry, 0) is Status.SLOW)
    page.find_element("xpath", "//button[.='Open rows with plots']").click()
    assert len(page.find_elements("css selector", "svg.plot")) == PLOTS
    plotted = page.find_elements("css selector", "tr.details section[data-candidate] svg.plot")
    assert len(plotted) == PLOTS
    page.find_element("xpath", "//button[.='Close all']").click()
    page.find_element("css selector", f"#row-{slow} .expander").click()
    details = page.find_element("css selector", f"#details-{slow}")
    sections = details.find_elements("css selector", "section.candidate")
    assert len(sections) == 3
    assert "SLOW" in sections[0].text and "SAME" in sections[1].text
    assert not sections[1].find_elements("css selector", "svg.plot")  # a SAME cell has no plot
    assert "Best:" in details.text


def test_dark_mode_follows_the_system_setting(page: Any) -> None:
    light = page.execute_script("return getComputedStyle(document.body).backgroundColor")
    page.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": "dark"}]},
    )
    try:
        dark = page.execute_script("return getComputedStyle(document.body).backgroundColor")
    finally:
        page.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    assert light == "rgb(255, 255, 255)" and dark != light


def test_states_a_candidate_lacks_show_empty_cells_and_sort_last(
    browser: Any,  # noqa: F811
    tmp_path: Path,
) -> None:
    small = SyntheticConfig(benchmarks=1, states=2, samples=40)
    large = SyntheticConfig(benchmarks=1, states=3, samples=40)
    base, same, more = (tmp_path / f"{name}.json" for name in ("base", "same", "more"))
    write_run(base, small, seed=1, jsonbin=False)
    write_run(same, small, seed=2, side="cmp", jsonbin=False)
    write_run(more, large, seed=3, side="cmp", jsonbin=False)
    page = tmp_path / "gaps.html"
    write_html(compare_many(base, {"same": same, "more": more}), page)
    browser.get_log("browser")
    browser.get(page.as_uri())
    assert _ids(browser) == [0, 1, 2]
    assert _column(browser, "same status")[2] == NO_CELL
    _header(browser, "same change").click()
    assert _ids(browser)[-1] == 2
    _header(browser, "same change").click()  # either direction: a missing cell stays last
    assert _ids(browser)[-1] == 2
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == [], errors


def test_a_matrix_without_states_renders_without_errors(
    browser: Any,  # noqa: F811
    report: tuple[MultiComparison, Path],
) -> None:
    import msgspec
    from cuda.bench.compare.many import Candidate

    multi, path = report
    empty = msgspec.structs.replace(
        multi,
        candidates=tuple(
            Candidate(c.name, msgspec.structs.replace(c.comparison, rows=()))
            for c in multi.candidates
        ),
    )
    target = path.with_name("empty-matrix.html")
    write_html(empty, target)
    browser.get_log("browser")
    browser.get(target.as_uri())
    assert _ids(browser) == []
    assert browser.find_element("css selector", ".shown").text == "0 of 0 rows"
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == [], errors
