"""The history dashboard in headless Chromium: the index lists the events of a generated
history, a benchmark page draws its series' points, and nothing logs an error.

Uses the browser fixture of the comparison report's browser tests (same skip rules).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from cuda.bench.cli.history import main
from cuda.bench.history.synthetic import HistoryNoise, commit_ids, generate, write_history
from cuda.bench.results.synthetic import SyntheticConfig
from test_html_browser import browser  # noqa: F401  (the fixture)

RUNS = 24
STEP_AT = 14
COMMITS = commit_ids(RUNS, seed=4)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two benchmarks of two states; the first state of each 10 % slower from run 14 on."""
    directory = tmp_path_factory.mktemp("history-site")
    history = generate(
        HistoryNoise("iid", run_sigma=0.004),
        series=4,
        runs=RUNS,
        steps=(0.10, 0.0, 0.10, 0.0),
        step_at=STEP_AT,
        seed=8,
    )
    config = SyntheticConfig(benchmarks=2, states=2, samples=48)
    paths = write_history(directory / "runs", history, config, seed=1)
    archive = directory / "archive"
    for order, path in enumerate(paths):
        argv = ["ingest", "--archive", str(archive), "--commit", COMMITS[order], "--order"]
        argv += [str(order), "--date", f"2026-05-{1 + order:02d}", str(path)]
        assert main(argv) == 0
    out = directory / "site"
    assert main(["report", "--archive", str(archive), "--html", str(out)]) == 0
    return out


@pytest.fixture
def driver(browser: Any) -> Iterator[Any]:  # noqa: F811
    browser.get_log("browser")
    yield browser
    problems = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert problems == [], problems


def test_the_index_lists_the_events(driver: Any, site: Path) -> None:
    driver.get((site / "index.html").as_uri())
    rows = driver.execute_script(
        "return [...document.querySelectorAll('table.events tbody tr')]"
        ".map(r => [...r.cells].map(c => c.textContent))"
    )
    assert [row[:3] for row in rows] == [[COMMITS[STEP_AT][:12], "SLOW", "2"]]
    assert rows[0][4] == "bench_00, bench_01"
    regressions = driver.execute_script(
        "return document.querySelectorAll('table.regressions tbody tr').length"
    )
    assert regressions == 2
    links = driver.execute_script(
        "return [...document.querySelectorAll('table.benchmarks a')].map(a => a.textContent)"
    )
    assert links == ["bench_00", "bench_01"]


def test_a_benchmark_page_draws_its_points_and_changes(driver: Any, site: Path) -> None:
    driver.get((site / "index.html").as_uri())
    driver.find_element("link text", "bench_00").click()
    assert driver.current_url.endswith("bench/0000.html")
    panels = driver.execute_script("return document.querySelectorAll('section.series').length")
    assert panels == 2
    # Charts are drawn when they scroll into view (both fit the window), by an
    # IntersectionObserver's callback, which runs later: a loaded machine must wait.
    driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    from selenium.webdriver.support.ui import WebDriverWait  # the fixture skipped without it

    WebDriverWait(driver, 20).until(
        lambda d: d.execute_script(
            "const c = [...document.querySelectorAll('svg.chart')];"
            "return c.length === 2 && c.every(s => s.querySelector('text.ytick'))"
        )
    )
    counts = driver.execute_script(
        "return [...document.querySelectorAll('svg.chart')].map(s => "
        "[s.querySelectorAll('circle.point').length, s.querySelectorAll('line.change').length])"
    )
    assert counts == [[RUNS, 1], [RUNS, 0]]
    titles = driver.execute_script(
        "return [...document.querySelectorAll('svg.chart')][0].querySelectorAll('title').length"
    )
    assert titles == RUNS + 1
    facts = driver.find_element("css selector", "section.series p.facts").text
    assert re.search(rf"{RUNS} runs; current level .* over {RUNS - STEP_AT} runs; SLOW at", facts)


def test_names_from_the_archive_are_escaped(tmp_path: Path) -> None:
    """Benchmark and state names reach the index escaped and the data files as JSON
    that cannot close its script element."""
    import datetime as dt

    import numpy as np
    from cuda.bench.history.series import ArchiveSeries, examine
    from cuda.bench.report.html.history_site import write_site

    # Control characters too: the site wrote them raw, which a browser hides (a terminal
    # escape in a name showed as nothing, unlike every other output).
    hostile = "</script><img src=x onerror=alert(1)> & co \x1b[31mred\x1b]8;;http://x\x07"
    rng = np.random.default_rng(3)
    medians = (
        1e-5
        * np.exp(0.004 * rng.standard_normal(RUNS))
        * np.where(np.arange(RUNS) >= STEP_AT, 1.1, 1.0)
    )
    one = ArchiveSeries(
        machine="m",
        benchmark=hostile,
        device=0,
        state_name=hostile,
        axes=(),
        commits=COMMITS,
        dates=tuple(dt.datetime(2026, 5, 1 + i, tzinfo=dt.timezone.utc) for i in range(RUNS)),
        medians=medians,
        median_lo=None,
        median_hi=None,
    )
    index = write_site(examine([one]), tmp_path / "site", tool_version="t")
    page = index.read_text()
    assert hostile not in page and "&lt;/script&gt;&lt;img" in page
    assert "SLOW" in page
    data = (tmp_path / "site" / "bench" / "0000.js").read_text()
    assert "</script>" not in data and "<img" not in data and "\\u003c/script\\u003e" in data
    for written in (page, (tmp_path / "site" / "bench" / "0000.html").read_text(), data):
        assert "\x1b" not in written and "\x07" not in written
    assert "\\x1b[31mred" in page


def test_charts_label_commits_and_tick_the_times_between(driver: Any, site: Path) -> None:
    driver.get((site / "index.html").as_uri())
    devices = driver.execute_script(
        "return [...document.querySelectorAll('table.regressions tbody tr')]"
        ".map(r => r.cells[2].textContent)"
    )
    assert len(devices) == 2 and all(device.startswith("[0] ") for device in devices)
    driver.get((site / "bench" / "0000.html").as_uri())
    driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    from selenium.webdriver.support.ui import WebDriverWait  # the fixture skipped without it

    # A chart is drawn when it scrolls into view (an IntersectionObserver's callback, which
    # runs later): wait for both, or a loaded machine reads them before they are drawn.
    WebDriverWait(driver, 20).until(
        lambda d: d.execute_script(
            "const c = [...document.querySelectorAll('svg.chart')];"
            "return c.length === 2 && c.every(s => s.querySelector('text.ytick'))"
        )
    )
    labels = driver.execute_script(
        "return [...document.querySelectorAll('svg.chart')].map(s => "
        "[...s.querySelectorAll('text.xtick')].map(t => t.textContent))"
    )
    assert labels == [[COMMITS[i][:8] for i in range(0, RUNS, 3)]] * 2
    ticks = driver.execute_script(
        "return [...document.querySelectorAll('svg.chart')].map(s => "
        "[...s.querySelectorAll('text.ytick')].map(t => +t.getAttribute('y')))"
    )
    for positions in ticks:
        # Ticks inside the plot area (top 10, bottom 200 - 36), more than its two ends.
        assert len(positions) >= 3 and all(10 < y < 168 for y in positions)


def test_the_dashboard_names_devices_the_last_run_and_the_latest_gate(
    driver: Any, tmp_path: Path, gpu_dir: Path
) -> None:
    archive = tmp_path / "archive"
    for order, name in enumerate(("gpu_ref.json", "gpu_cmp.json")):
        argv = ["ingest", "--archive", str(archive), "--commit", f"c{order + 1}", "--date"]
        assert main([*argv, f"2026-01-0{order + 1}", str(gpu_dir / name)]) == 0
    gate = tmp_path / "gate.json"
    cmp = str(gpu_dir / "gpu_cmp.json")
    assert main(["gate", "--archive", str(archive), cmp, "--json", str(gate)]) == 0
    out = tmp_path / "site"
    argv = ["report", "--archive", str(archive), "--html", str(out), "--gate", str(gate)]
    assert main(argv) == 0
    driver.get((out / "index.html").as_uri())
    last = driver.find_element("css selector", "p.last-run").text
    assert last == "Last run: 2026-01-02, commit c2."
    # A badge is an inline flex box (its shape beside its code), whose items the text of a
    # page puts on lines of their own: compare the words.
    latest = " ".join(driver.find_element("css selector", "p.latest-gate").text.split())
    assert latest.startswith("Latest gate (gate.json: ") and "gpu_cmp.json" in latest
    assert "SKIP 4" in latest
    driver.get((out / "bench" / "0000.html").as_uri())
    titles = driver.execute_script(
        "return [...document.querySelectorAll('section.series h2')].map(h => h.textContent)"
    )
    assert titles[0] == "T=F32 Elements=2^16 Layout=contiguous \u2014 [0] NVIDIA H100 80GB HBM3"
    assert "T=F32 Elements=2^16 Layout=contiguous \u2014 [1] NVIDIA A100-SXM4-80GB" in titles
    assert len(set(titles)) == len(titles) == 12


def test_report_refuses_a_file_that_is_not_a_gate_report(
    tmp_path: Path, site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bogus = tmp_path / "g.json"
    bogus.write_text('{"schema": "something else"}')
    archive = site.parent / "archive"
    capsys.readouterr()
    argv = ["report", "--archive", str(archive), "--html", str(tmp_path / "s"), "--gate"]
    assert main([*argv, str(bogus)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "g.json: not a gate report" in err[0]
    # nvbench_compare's own JSON report has the same schema, but gated no archive: the
    # index showed it as the latest gate of this one.
    from cuda.bench.cli.compare import main as compare_main

    examples = Path(__file__).resolve().parents[2] / "examples" / "data"
    plain = tmp_path / "compare.json"
    compare_main([str(examples / "ref.json"), str(examples / "cmp.json"), "--json", str(plain)])
    capsys.readouterr()
    assert main([*argv, str(plain)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert (
        len(err) == 1
        and "compare.json: not a gate report" in err[0]
        and "nvbench_compare" in err[0]
    )
    # A file that is not there was "not a gate report ([Errno 2] ...)".
    assert main([*argv, str(tmp_path / "missing.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "missing.json: cannot read the gate report (No such file" in err[0]


def test_a_state_without_axes_is_titled_by_its_device(driver: Any, tmp_path: Path) -> None:
    # NVBench stores a GPU state without axes as "Device=0"; like nvbench_compare, the
    # dashboard shows no name for it (the device has its own place), and a CPU-only one
    # "(no axes)" rather than an empty or dangling title.
    import datetime as dt

    import numpy as np
    from cuda.bench.history.series import ArchiveSeries, examine
    from cuda.bench.report.html.history_site import write_site

    dates = tuple(dt.datetime(2026, 5, 1 + i, tzinfo=dt.timezone.utc) for i in range(RUNS))
    medians = 1e-5 * np.exp(0.004 * np.random.default_rng(5).standard_normal(RUNS))
    common = dict(machine="m", benchmark="plain", axes=(), commits=COMMITS, dates=dates)
    gpu = ArchiveSeries(
        **common, device=0, device_name="NVIDIA H200", state_name="Device=0", medians=medians,
        median_lo=None, median_hi=None,
    )  # fmt: skip
    cpu = ArchiveSeries(
        **common, device=None, state_name="", medians=medians, median_lo=None, median_hi=None
    )
    index = write_site(examine([gpu, cpu]), tmp_path / "site", tool_version="t")
    driver.get((index.parent / "bench" / "0000.html").as_uri())
    from selenium.webdriver.support.ui import WebDriverWait  # the fixture skipped without it

    # On a loaded machine the titles were once read as none (a fresh clone's suite on two
    # cores, 2026-12-01): wait for the page's two sections before reading them.
    WebDriverWait(driver, 20).until(
        lambda d: (
            d.execute_script("return document.querySelectorAll('section.series h2').length") == 2
        )
    )
    titles = driver.execute_script(
        "return [...document.querySelectorAll('section.series h2')].map(h => h.textContent)"
    )
    assert sorted(titles) == ["(no axes)", "[0] NVIDIA H200"]


def test_a_creep_is_shaded_on_its_series_chart(driver: Any, tmp_path: Path) -> None:
    # A level that rose 8 % over runs 80-110: the chart shades the ramp, the facts name it.
    import datetime as dt

    import numpy as np
    from cuda.bench.history.series import ArchiveSeries, examine
    from cuda.bench.report.html.history_site import write_site

    runs = 200
    logs = np.random.default_rng(0).normal(0.0, 0.01, runs)
    logs += np.clip((np.arange(runs) - 80) / 30, 0.0, 1.0) * 0.08
    start = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    series = ArchiveSeries(
        machine="m", benchmark="<b>creep</b>", device=0, device_name="NVIDIA H200",
        state_name="Elements=1024", axes=(), commits=commit_ids(runs, seed=2),
        dates=tuple(start + dt.timedelta(days=i) for i in range(runs)),
        medians=1e-5 * np.exp(logs), median_lo=None, median_hi=None,
    )  # fmt: skip
    view = examine([series])
    (creep,) = view.detection.creeps
    index = write_site(view, tmp_path / "site", tool_version="t")
    _open_first_chart(driver, index)
    shaded = driver.execute_script(
        "return [...document.querySelectorAll('svg.chart rect.creep')]"
        ".map(r => [r.getAttribute('class'), r.querySelector('title').textContent])"
    )
    assert len(shaded) == 1 and shaded[0][0] == "creep slow", shaded
    assert shaded[0][1].startswith(f"creep SLOW from {series.commits[creep.first]}")
    facts = driver.find_element("css selector", "section.series p.facts").text
    assert f"creep SLOW from {series.commits[creep.first][:12]}" in facts
    assert driver.find_element("css selector", "h1").text == "<b>creep</b>"


def test_a_run_without_an_interval_loses_only_its_own_bar(driver: Any, tmp_path: Path) -> None:
    # One run stored without an interval (ingested without side files) among runs with one:
    # the others keep their bars, and its null neither draws a bar nor stretches the axis
    # down to zero.
    import datetime as dt

    import numpy as np
    from cuda.bench.history.series import ArchiveSeries, examine
    from cuda.bench.report.html.history_site import write_site

    dates = tuple(dt.datetime(2026, 5, 1 + i, tzinfo=dt.timezone.utc) for i in range(RUNS))
    medians = 1e-5 * np.exp(0.004 * np.random.default_rng(5).standard_normal(RUNS))
    lo, hi = medians * 0.99, medians * 1.01
    lo[3] = hi[3] = np.nan
    one = ArchiveSeries(
        machine="m", benchmark="gap", axes=(), commits=COMMITS, dates=dates, device=0,
        state_name="Device=0", medians=medians, median_lo=lo, median_hi=hi,
    )  # fmt: skip
    index = write_site(examine([one]), tmp_path / "site", tool_version="t")
    _open_first_chart(driver, index)
    bars = driver.execute_script(
        "return [...document.querySelectorAll('svg.chart line.bar')]"
        ".map(l => [l.getAttribute('y1'), l.getAttribute('y2')].map(Number))"
    )
    assert len(bars) == RUNS - 1
    assert all(np.isfinite(end) for bar in bars for end in bar)
    ticks = driver.execute_script(
        "return [...document.querySelectorAll('svg.chart text.ytick')].map(t => t.textContent)"
    )
    # The axis spans the runs (about 10 us), not down to a null read as 0.
    assert ticks and all(tick.endswith("us") and not tick.startswith("0 ") for tick in ticks), ticks


def _three_run_site(tmp_path: Path, benchmark: str, *, with_intervals: bool) -> Path:
    """The site of one series of three runs (too few to scan or to give its level an
    interval), its runs' median intervals stored or not; the index page's path."""
    import datetime as dt

    import numpy as np
    from cuda.bench.history.series import ArchiveSeries, examine
    from cuda.bench.report.html.history_site import write_site

    runs = 3
    dates = tuple(dt.datetime(2026, 5, 1 + i, tzinfo=dt.timezone.utc) for i in range(runs))
    medians = 1e-5 * np.exp(0.004 * np.random.default_rng(5).standard_normal(runs))
    one = ArchiveSeries(
        machine="m", benchmark=benchmark, axes=(), commits=COMMITS[:runs], dates=dates,
        device=0, state_name="Device=0", medians=medians,
        median_lo=medians * 0.99 if with_intervals else None,
        median_hi=medians * 1.01 if with_intervals else None,
    )  # fmt: skip
    return write_site(examine([one]), tmp_path / "site", tool_version="t")


def test_a_series_too_short_to_test_says_so(driver: Any, tmp_path: Path) -> None:
    # Three runs: the scan tests nothing, so "no change; false-alarm rate 0.00%" would claim
    # what was never tested.
    index = _three_run_site(tmp_path, "short", with_intervals=False)
    driver.get((index.parent / "bench" / "0000.html").as_uri())
    facts = driver.find_element("css selector", "section.series p.facts").text
    assert "too short to test for changes (a series needs at least 10 runs)" in facts, facts
    assert "no change" not in facts and "false-alarm" not in facts, facts


def test_a_level_of_too_few_runs_draws_no_band(driver: Any, tmp_path: Path) -> None:
    # Three runs: too few for an interval of the level (nulls), so no level band, and the
    # nulls do not stretch the axis down to zero.
    index = _three_run_site(tmp_path, "few", with_intervals=True)
    _open_first_chart(driver, index)
    assert (
        driver.execute_script("return document.querySelectorAll('svg.chart rect.level').length")
        == 0
    )
    assert (
        driver.execute_script("return document.querySelectorAll('svg.chart line.bar').length") == 3
    )
    ticks = driver.execute_script(
        "return [...document.querySelectorAll('svg.chart text.ytick')].map(t => t.textContent)"
    )
    assert ticks and all(tick.endswith("us") and not tick.startswith("0 ") for tick in ticks), ticks


@pytest.mark.parametrize(
    ("center", "spread", "unit"), [(1.23e-10, 0.004, " ns"), (1.0, 4e-5, " s")]
)
def test_tick_labels_of_a_narrow_range_are_distinct(
    driver: Any, tmp_path: Path, center: float, spread: float, unit: str
) -> None:
    # A state of about 0.123 ns varying by 1 % (misc Ratio=1e-07 of the real example
    # files): ticks 0.0005 ns apart were all written with 3 decimals, "0.123 ns" twice.
    # About 1 s: one axis read "999.950 ms", "1000.000 ms", "1.00005 s" (found by review).
    import datetime as dt

    import numpy as np
    from cuda.bench.history.series import ArchiveSeries, examine
    from cuda.bench.report.html.history_site import write_site

    dates = tuple(dt.datetime(2026, 5, 1 + i, tzinfo=dt.timezone.utc) for i in range(RUNS))
    medians = center * np.exp(spread * np.random.default_rng(5).standard_normal(RUNS))
    one = ArchiveSeries(
        machine="m", benchmark="tiny", axes=(), commits=COMMITS, dates=dates, device=0,
        state_name="Device=0", medians=medians, median_lo=None, median_hi=None,
    )  # fmt: skip
    _open_first_chart(driver, write_site(examine([one]), tmp_path / "site", tool_version="t"))
    ticks = driver.execute_script(
        "return [...document.querySelectorAll('svg.chart text.ytick')].map(t => t.textContent)"
    )
    assert len(ticks) >= 3 and len(set(ticks)) == len(ticks), ticks
    assert all(tick.endswith(unit) for tick in ticks), ticks


def _open_first_chart(driver: Any, index: Path) -> None:
    """The site's first series page, scrolled down until its chart is drawn (an
    IntersectionObserver's callback draws it when it comes into view, which runs later)."""
    driver.get((index.parent / "bench" / "0000.html").as_uri())
    driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    from selenium.webdriver.support.ui import WebDriverWait  # the fixture skipped without it

    WebDriverWait(driver, 20).until(
        lambda d: d.execute_script("return !!document.querySelector('svg.chart text.ytick')")
    )


def test_the_index_says_when_no_series_could_be_tested(driver: Any, tmp_path: Path) -> None:
    # A new user's first archive of three runs: the index said "No change points confirmed"
    # and "No regressions", a clean bill of health for series of which nothing was tested.
    import datetime as dt

    import numpy as np
    from cuda.bench.history.series import ArchiveSeries, examine
    from cuda.bench.report.html.history_site import write_site

    def series(name: str, runs: int) -> ArchiveSeries:
        dates = tuple(dt.datetime(2026, 5, 1 + i, tzinfo=dt.timezone.utc) for i in range(runs))
        medians = 1e-5 * np.exp(0.004 * np.random.default_rng(5).standard_normal(runs))
        return ArchiveSeries(
            machine="m", benchmark=name, axes=(), commits=COMMITS[:runs], dates=dates,
            device=0, state_name="Device=0", medians=medians, median_lo=None, median_hi=None,
        )  # fmt: skip

    def said(chosen: list[ArchiveSeries], name: str) -> tuple[str, str]:
        index = write_site(examine(chosen), tmp_path / name, tool_version="t")
        driver.get(index.as_uri())
        events, regressions = (
            driver.find_element("xpath", f"//h2[text()='{title}']/following-sibling::p[1]").text
            for title in ("Events", "Recent regressions")
        )
        return events, regressions

    untested = said([series("a", 3), series("b", 9)], "short")
    none = (
        "No series has enough runs to test for change points (2 series; a series needs at "
        "least 10 runs)."
    )
    assert untested == (none, none), untested
    # Some tested: nothing confirmed in those, and the others named.
    partly = said([series("a", 3), series("b", RUNS)], "partly")
    assert partly == (
        "No change points confirmed in the 1 series tested; 1 of 2 series too short to test "
        "(a series needs at least 10 runs).",
        "No regressions.",
    ), partly
    assert said([series("b", RUNS)], "tested") == ("No change points confirmed.", "No regressions.")
