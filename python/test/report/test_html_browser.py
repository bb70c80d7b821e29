"""The HTML report in a real browser: headless Chromium driven through Selenium.

The driver is Debian's ``chromedriver`` (``chromium-driver``, the same version as the
browser), given by path so that Selenium never tries to download one. Without Chromium,
its driver or Selenium the tests skip with the reason; with ``NVBENCH_TOOLS_REQUIRE_BROWSER=1``
(CI sets it after installing Chromium) they fail instead, so a CI run cannot pass without
having run them. ``NVBENCH_TOOLS_CHROMIUM`` / ``NVBENCH_TOOLS_CHROMEDRIVER`` override the
paths.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _html_helpers import HOSTILE_BENCHMARK, write_hostile_pair
from cuda.bench._untrusted import visible
from cuda.bench.compare import compare
from cuda.bench.compare.model import Comparison, Status
from cuda.bench.report.html import render_html

#: What Chromium needs here: no sandbox (root, containers), no GPU, and nothing that
#: reaches the network on its own.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,900",
)


def _unavailable(reason: str) -> None:
    if os.environ.get("NVBENCH_TOOLS_REQUIRE_BROWSER") == "1":
        pytest.fail(f"NVBENCH_TOOLS_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


def _executable(variable: str, names: tuple[str, ...]) -> str | None:
    given = os.environ.get(variable)
    if given:
        return given if os.access(given, os.X_OK) else None
    return next((found for name in names if (found := shutil.which(name))), None)


def launch_chromium(
    scratch: Path,
    *,
    flags: tuple[str, ...] = (),
    prepare_env: Callable[[Path], dict[str, str]] | None = None,
) -> Iterator[Any]:
    """Headless Chromium with its profile in ``scratch`` (removed afterwards), ``flags``
    added, and the driver's environment from ``prepare_env(scratch)``; the test skips (or,
    with NVBENCH_TOOLS_REQUIRE_BROWSER, fails) where it cannot start."""
    try:
        from selenium import webdriver
        from selenium.common.exceptions import WebDriverException
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _unavailable("selenium is not installed (pip install -e '.[test]')")
    chromium = _executable("NVBENCH_TOOLS_CHROMIUM", ("chromium", "chromium-browser"))
    driver_path = _executable("NVBENCH_TOOLS_CHROMEDRIVER", ("chromedriver",))
    if chromium is None or driver_path is None:
        _unavailable("no chromium/chromedriver (apt-get install chromium chromium-driver)")
    assert chromium is not None and driver_path is not None
    try:
        env = None if prepare_env is None else prepare_env(scratch)
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for flag in (*CHROMIUM_FLAGS, *flags):
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={scratch / 'profile'}")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        try:
            service = Service(executable_path=driver_path, env=env)
            driver = webdriver.Chrome(service=service, options=options)
        except WebDriverException as error:
            _unavailable(f"chromium did not start: {error.msg}")
        try:
            yield driver
        finally:
            driver.quit()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch_chromium(Path(tempfile.mkdtemp(prefix="nvbench-chromium-")))


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Comparison, Path]:
    directory = tmp_path_factory.mktemp("browser")
    comparison = compare(*write_hostile_pair(directory))
    page = directory / "report.html"
    page.write_text(render_html(comparison, plot_limit=3), encoding="utf-8")
    return comparison, page


@pytest.fixture
def page(browser: Any, report: tuple[Comparison, Path]) -> Iterator[Any]:
    """The report freshly loaded; afterwards, the page must have logged no error."""
    browser.get_log("browser")  # what earlier pages logged does not count
    browser.get(report[1].as_uri())
    yield browser
    problems = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert problems == [], problems


def _ids(driver: Any) -> list[int]:
    ids: list[int] = driver.execute_script(
        "return [...document.querySelectorAll('tbody tr.row')].map(r => Number(r.id.slice(4)))"
    )
    return ids


def _header(driver: Any, label: str) -> Any:
    return driver.find_element("xpath", f"//thead//button[normalize-space(text()[1])='{label}']")


def _cells(driver: Any, column: int) -> list[str]:
    cells: list[str] = driver.execute_script(
        "return [...document.querySelectorAll('tbody tr.row')].map(r => r.cells[arguments[0]]"
        ".textContent)",
        column,
    )
    return cells


def test_page_loads_offline_with_every_row_and_no_errors(
    browser: Any, report: tuple[Comparison, Path]
) -> None:
    comparison, path = report
    browser.get(path.as_uri())
    assert _ids(browser) == list(range(len(comparison.rows)))
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    # The hostile name is shown as text, and no script or handler came from the data.
    assert HOSTILE_BENCHMARK in _cells(browser, 1)
    assert browser.execute_script("return document.scripts.length") == 2
    assert browser.execute_script("return document.querySelectorAll('[onmouseover]').length") == 0
    shown = browser.find_element("css selector", ".shown").text
    assert shown == f"{len(comparison.rows)} of {len(comparison.rows)} rows"
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == [], errors


def test_sorting_changes_the_row_order(page: Any, report: tuple[Comparison, Path]) -> None:
    comparison = report[0]
    original = list(range(len(comparison.rows)))
    change = [
        None if row.verdict.effect is None else row.verdict.effect.ratio for row in comparison.rows
    ]
    _header(page, "Change").click()  # largest change first
    descending = _ids(page)
    assert sorted(descending) == original and descending != original
    assert descending[0] == max(original, key=lambda i: change[i] or 0.0)
    values = [change[i] for i in descending if change[i] is not None]
    assert values == sorted(values, reverse=True)
    _header(page, "Change").click()
    assert [i for i in _ids(page) if change[i] is not None] == [
        i for i in reversed(descending) if change[i] is not None
    ]
    _header(page, "Status").click()  # regressions first
    assert [comparison.rows[i].status for i in _ids(page)][:3] == [Status.SLOW] * 3
    _header(page, "Benchmark").click()
    assert _cells(page, 1) == [HOSTILE_BENCHMARK] * 6 + ["plain"] * 8  # '<' sorts first
    _header(page, "#").click()
    assert _ids(page) == original


def test_filters_change_the_row_count(page: Any, report: tuple[Comparison, Path]) -> None:
    comparison = report[0]
    same = page.find_element("css selector", ".status-filter input[value='SAME']")
    same.click()
    not_same = [i for i, row in enumerate(comparison.rows) if row.status is not Status.SAME]
    assert _ids(page) == not_same
    same.click()
    search = page.find_element("css selector", ".toolbar input[type='search']")
    search.send_keys("onmouseover n=2")  # every word must match
    assert [comparison.rows[i].key for i in _ids(page)] == ["Mode=x' onmouseover='alert(1) N=2"]
    search.clear()
    search.send_keys("no such row")
    assert _ids(page) == []
    assert page.find_element("css selector", ".empty").is_displayed()
    search.clear()
    search.send_keys(" ")  # 'input' fires; blank matches everything
    assert len(_ids(page)) == len(comparison.rows)
    from selenium.webdriver.support.select import Select

    Select(page.find_element("css selector", ".toolbar select")).select_by_visible_text("plain")
    assert {comparison.rows[i].benchmark for i in _ids(page)} == {"plain"}
    assert len(_ids(page)) == 8
    # A count in the summary shows only its status.
    page.find_element("css selector", "button.count[data-status='FAST']").click()
    assert [comparison.rows[i].status for i in _ids(page)] == [Status.FAST]


def test_opened_rows_show_their_plot(page: Any, report: tuple[Comparison, Path]) -> None:
    comparison = report[0]
    slow = next(i for i, row in enumerate(comparison.rows) if row.status is Status.SLOW)
    page.find_element("css selector", f"#row-{slow} .expander").click()
    details = page.find_element("css selector", f"#details-{slow}")
    assert details.find_elements("css selector", "svg.plot path.ref")
    assert details.find_elements("css selector", "svg.plot path.cmp")
    assert details.find_elements("css selector", "svg.plot rect.band")
    assert "ci_change_confirmed_by_cycles" in details.text
    same = next(i for i, row in enumerate(comparison.rows) if row.status is Status.SAME)
    page.find_element("css selector", f"#row-{same} .expander").click()
    assert not page.find_elements("css selector", f"#details-{same} svg")
    # Every plotted row opens at once; the plot limit (3) holds.
    page.find_element("xpath", "//button[.='Open rows with plots']").click()
    assert len(page.find_elements("css selector", "svg.plot")) == 3


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


def test_an_empty_comparison_renders_without_errors(
    browser: Any, report: tuple[Comparison, Path]
) -> None:
    import msgspec

    comparison, path = report
    empty = path.with_name("empty.html")
    empty.write_text(render_html(msgspec.structs.replace(comparison, rows=())), encoding="utf-8")
    browser.get_log("browser")
    browser.get(empty.as_uri())
    assert _ids(browser) == []
    assert browser.find_element("css selector", ".shown").text == "0 of 0 rows"
    assert browser.find_element("css selector", ".empty").text == "The comparison has no rows."
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == [], errors


def test_control_and_bidi_characters_in_names_show_as_escapes(
    browser: Any, report: tuple[Comparison, Path]
) -> None:
    # A right-to-left override in a name would reorder what the reader sees, and the
    # text reaches the table through textContent: the page shows escapes, as the terminal.
    import msgspec

    comparison, path = report
    sneaky = "copy\u202eftel\x1b[2J\x07\ufeff\u200b\U000e0020\u3164"
    rows = tuple(
        msgspec.structs.replace(row, benchmark=sneaky, key=f"{row.key}\u2066")
        for row in comparison.rows
    )
    page = path.with_name("sneaky.html")
    page.write_text(render_html(msgspec.structs.replace(comparison, rows=rows)), encoding="utf-8")
    browser.get_log("browser")
    browser.get(page.as_uri())
    shown: str = browser.execute_script(
        "return document.body.innerText + [...document.querySelectorAll('[title]')]"
        ".map(e => e.title).join(' ') + [...document.querySelectorAll('option')]"
        ".map(e => e.textContent).join(' ')"
    )
    hidden = ("\u202e", "\u2066", "\x1b", "\x07", "\ufeff", "\u200b", "\U000e0020", "\u3164")
    assert not any(raw in shown for raw in hidden)
    # As the terminal shows the name (_untrusted.visible): the script and Python agree.
    assert visible(sneaky) in _cells(browser, 1)
    assert all(cell.endswith("\\u2066") for cell in _cells(browser, 3))
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == [], errors
