"""The HTML pages in Chromium with no emoji font: every status badge still draws.

Chromium finds fonts through fontconfig; here it gets a fontconfig setup that loads the
system's fonts but rejects every colour font and every font file named like an emoji or
symbol font, and the test first checks with ``fc-list`` that no font it can then see has a
glyph for any of the emoji the terminal and markdown reports use. On that browser each
badge of the compare report (title, counts, filter checkboxes, Status cells, reasons) and
of the history site (event statuses) must have a box of real size, its status code as
text, and an icon whose pixels are not all background: drawn, not merely in the DOM.

With ``NVBENCH_TOOLS_SCREENSHOTS=DIR`` the screenshots are written to ``DIR`` as well
(the docs' ``docs/screenshots/html_report.png``, ``html_matrix.png`` and ``history_site.png``
come from here:
``NVBENCH_TOOLS_SCREENSHOTS=docs/screenshots pytest`` this file).
Skip rules as in :mod:`test_html_browser`.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cuda.bench.compare import compare
from cuda.bench.compare.model import Comparison, Status
from cuda.bench.report.colors import STATUS_EMOJI
from cuda.bench.report.html import render_html
from cuda.bench.results import DeviceSpec, Int64Axis, ResultBuilder
from test_html_browser import _unavailable, launch_chromium

Image = pytest.importorskip("PIL.Image", reason="the pixel checks need Pillow (matplotlib's)")

#: Loads the system's fonts, then rejects colour fonts and emoji/symbol font files.
_FONTCONFIG = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <cachedir>{cache}</cachedir>
  <selectfont>
    <rejectfont>
      <glob>*[Ee]moji*</glob>
      <glob>*[Ss]ymbola*</glob>
      <glob>*[Tt]wemoji*</glob>
      <pattern><patelt name="color"><bool>true</bool></patelt></pattern>
    </rejectfont>
  </selectfont>
</fontconfig>
"""

#: The emoji among the markdown/terminal marks (the others are dingbats text fonts have).
_PICTOGRAPHS = [mark for mark in STATUS_EMOJI.values() if ord(mark) >= 0x1F000]


def _fontconfig_without_emoji(directory: Path) -> dict[str, str]:
    """The environment that gives fontconfig users (Chromium) no emoji font, checked."""
    config = directory / "fonts.conf"
    config.write_text(_FONTCONFIG.format(cache=directory / "cache"), encoding="utf-8")
    env = dict(os.environ, FONTCONFIG_FILE=str(config))
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        _unavailable("fc-list is missing, so the absence of emoji fonts cannot be checked")
    assert fc_list is not None
    for mark in _PICTOGRAPHS:
        pattern = f":charset={ord(mark):x}"
        found = subprocess.run(
            [fc_list, pattern, "family"], env=env, capture_output=True, text=True, check=True
        ).stdout.strip()
        assert found == "", f"a font still draws {mark!r}: {found}"
    return env


@pytest.fixture(scope="module")
def bare_browser() -> Iterator[Any]:
    """Headless Chromium that sees no emoji font."""
    yield from launch_chromium(
        Path(tempfile.mkdtemp(prefix="nvbench-noemoji-")),
        flags=("--force-device-scale-factor=1",),
        prepare_env=_fontconfig_without_emoji,
    )


def _write_every_status(directory: Path) -> tuple[Path, Path]:
    """A pair whose comparison has a row of each of the eight statuses."""
    rng = np.random.default_rng(5)
    paths = []
    for side in ("ref", "cmp"):
        after = side == "cmp"
        builder = ResultBuilder(devices=[DeviceSpec.h100(0)])
        kernel = builder.benchmark("kernel", axes=[Int64Axis("Case", [1, 2, 3, 4, 5, 6])])

        def add(
            case: int, factor: float, sigma: float = 0.004, count: int = 300, kernel: Any = kernel
        ) -> None:
            times = 1e-6 * factor * rng.lognormal(0.0, sigma, count)
            kernel.state({"Case": case}, device=0, gpu_times=times, frequencies=[1.7e9] * count)

        add(1, 1.0)  # SAME
        add(2, 0.8 if after else 1.0)  # FAST
        add(3, 1.25 if after else 1.0)  # SLOW
        add(4, 1.03 if after else 1.0, sigma=0.3, count=12)  # AMBG: 12 noisy samples
        if after:  # ????: compare skipped a state reference measured
            kernel.state({"Case": 5}, device=0, skip_reason="out of memory")
        else:
            add(5, 1.0)
        kernel.state({"Case": 6}, device=0, skip_reason="not supported")  # SKIP
        alone = builder.benchmark("only_cmp" if after else "only_ref", axes=[])  # ADDED/REMOVED
        alone.state({}, device=0, gpu_times=1e-6 * rng.lognormal(0.0, 0.004, 300))
        path = directory / f"{side}.json"
        builder.write(path)
        paths.append(path)
    return paths[0], paths[1]


@contextmanager
def _inside(directory: Path) -> Iterator[None]:
    """Work in ``directory`` (the pages then name ``ref.json``, not a temporary path)."""
    before = Path.cwd()
    os.chdir(directory)
    try:
        yield
    finally:
        os.chdir(before)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Comparison, Path]:
    directory = tmp_path_factory.mktemp("no-emoji")
    _write_every_status(directory)
    page = directory / "report.html"
    with _inside(directory):
        comparison = compare("ref.json", "cmp.json")
        page.write_text(render_html(comparison, plot_limit=3, fail_on="slow"), encoding="utf-8")
    assert {row.status for row in comparison.rows} == set(Status)
    return comparison, page


#: Per badge: where it is, its status class, its text, its box and its icon's box and path.
_BADGES_SCRIPT = """
return [...document.querySelectorAll('.badge')].map((badge, index) => {
  badge.setAttribute('data-probe', index);
  const icon = badge.querySelector('svg.icon');
  const path = icon && icon.querySelector('path');
  const box = badge.getBoundingClientRect();
  const iconBox = icon ? icon.getBoundingClientRect() : null;
  const place = badge.closest('h1') ? 'title' : badge.closest('button.count') ? 'count'
    : badge.closest('.status-filter') ? 'filter' : badge.closest('td.status') ? 'cell'
    : badge.closest('.reasons') ? 'reason' : badge.closest('table.events') ? 'event' : 'other';
  return {
    index: index, place: place,
    status: [...badge.classList].find((c) => c.startsWith('st-')) || '',
    text: badge.textContent.trim(),
    box: [box.width, box.height],
    icon: iconBox ? [iconBox.width, iconBox.height] : null,
    path: path ? path.getAttribute('d') : '',
    drawn: path ? [path.getBBox().width, path.getBBox().height] : null,
  };
});
"""


def _inked(driver: Any, probe: int) -> float:
    """The share of the badge icon's pixels that differ from its background."""
    icon = driver.find_element("css selector", f'[data-probe="{probe}"] svg.icon')
    image = Image.open(io.BytesIO(icon.screenshot_as_png)).convert("RGB")
    pixels = np.asarray(image, dtype=np.int32)
    corners = [pixels[0, 0], pixels[0, -1], pixels[-1, 0], pixels[-1, -1]]
    background = max(corners, key=lambda c: sum(np.array_equal(c, d) for d in corners))
    differs = np.abs(pixels - background).sum(axis=2) > 60
    return float(differs.mean())


def _check_badges(driver: Any, places: set[str]) -> list[dict[str, Any]]:
    badges: list[dict[str, Any]] = driver.execute_script(_BADGES_SCRIPT)
    assert {badge["place"] for badge in badges} >= places
    seen: set[tuple[str, str]] = set()
    for badge in badges:
        code = next(s.value for s in Status if f"st-{s.name.lower()}" == badge["status"])
        assert code in badge["text"], badge
        assert badge["box"][0] > 20 and badge["box"][1] >= 10, badge
        assert badge["icon"] is not None and min(badge["icon"]) >= 10, badge
        assert badge["path"] and min(badge["drawn"]) > 1, badge
        if (badge["place"], badge["status"]) not in seen:  # pixels: one of each kind
            seen.add((badge["place"], badge["status"]))
            assert _inked(driver, badge["index"]) > 0.15, badge
    return badges


def _save(driver: Any, name: str) -> Path | None:
    """A screenshot of the viewport, also under ``$NVBENCH_TOOLS_SCREENSHOTS`` when set
    (a 64-colour PNG, to keep the docs small)."""
    target = os.environ.get("NVBENCH_TOOLS_SCREENSHOTS")
    driver.execute_script("window.scrollTo(0, 0)")
    image = Image.open(io.BytesIO(driver.get_screenshot_as_png())).convert("RGB")
    assert len(image.getcolors(1 << 20) or ()) > 8  # the page drew something
    if not target:
        return None
    path = Path(target) / name
    image.quantize(colors=64).save(path, optimize=True)
    return path


def test_every_status_badge_of_the_compare_report_draws_without_emoji_fonts(
    bare_browser: Any, report: tuple[Comparison, Path]
) -> None:
    comparison, path = report
    bare_browser.get_log("browser")
    bare_browser.get(path.as_uri())
    badges = _check_badges(bare_browser, {"title", "count", "filter", "cell", "reason"})
    every = {f"st-{status.name.lower()}" for status in Status}
    for place in ("count", "filter", "cell"):
        assert {badge["status"] for badge in badges if badge["place"] == place} == every, place
    cells = [badge for badge in badges if badge["place"] == "cell"]
    assert len(cells) == len(comparison.rows)
    assert [badge["status"] for badge in badges if badge["place"] == "title"] == ["st-slow"]
    # The page's text holds no emoji at all, so no glyph is left to a missing font.
    text = bare_browser.execute_script("return document.title + document.body.innerText")
    assert not any(mark in text for mark in STATUS_EMOJI.values()), text
    assert not any(ord(char) >= 0x1F000 for char in text)
    failed = bare_browser.find_element("css selector", ".failed svg.icon")
    assert min(failed.size.values()) >= 10
    _save(bare_browser, "html_report.png")
    errors = [e for e in bare_browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], errors


def test_the_history_site_status_badges_draw_without_emoji_fonts(
    bare_browser: Any, tmp_path: Path
) -> None:
    pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
    pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")
    from cuda.bench.cli.history import main
    from cuda.bench.history.synthetic import HistoryNoise, commit_ids, generate, write_history
    from cuda.bench.results.synthetic import SyntheticConfig

    runs, step_at = 24, 14
    commits = commit_ids(runs, seed=4)
    history = generate(
        HistoryNoise("iid", run_sigma=0.004),
        series=4,
        runs=runs,
        steps=(0.10, 0.0, 0.0, -0.15),  # one state slower, one faster from run 14 on
        step_at=step_at,
        seed=8,
    )
    paths = write_history(
        tmp_path / "runs", history, SyntheticConfig(benchmarks=2, states=2, samples=48), seed=1
    )
    archive = tmp_path / "archive"
    for order, path in enumerate(paths):
        argv = ["ingest", "--archive", str(archive), "--commit", commits[order], "--order"]
        argv += [str(order), "--date", f"2026-05-{1 + order:02d}", str(path)]
        assert main(argv) == 0
    site = tmp_path / "site"
    assert main(["report", "--archive", str(archive), "--html", str(site)]) == 0
    bare_browser.get_log("browser")
    bare_browser.get((site / "index.html").as_uri())
    badges = _check_badges(bare_browser, {"event"})
    assert {badge["status"] for badge in badges if badge["place"] == "event"} == {
        "st-slow",
        "st-fast",
    }
    _save(bare_browser, "history_site.png")
    errors = [e for e in bare_browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], errors


def test_the_n_way_page_status_badges_draw_without_emoji_fonts(
    bare_browser: Any, tmp_path: Path
) -> None:
    from cuda.bench.compare.many import compare_many

    _write_every_status(tmp_path)
    page = tmp_path / "matrix.html"
    with _inside(tmp_path):
        multi = compare_many("ref.json", {"a": "cmp.json", "b": "ref.json"}, base_name="base")
        page.write_text(render_html(multi, plot_limit=2, fail_on="slow"), encoding="utf-8")
    bare_browser.get_log("browser")
    bare_browser.get(page.as_uri())
    badges = _check_badges(bare_browser, {"title", "count", "filter", "cell"})
    cells = {badge["status"] for badge in badges if badge["place"] == "cell"}
    assert cells >= {"st-same", "st-fast", "st-slow", "st-ambg", "st-unknown", "st-skip"}
    assert [badge["status"] for badge in badges if badge["place"] == "title"] == [
        "st-slow",
        "st-fast",
    ]
    text = bare_browser.execute_script("return document.title + document.body.innerText")
    assert not any(ord(char) >= 0x1F000 for char in text)
    _save(bare_browser, "html_matrix.png")
    errors = [e for e in bare_browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], errors
