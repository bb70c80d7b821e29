"""The HTML report (``--html``): self-contained, escaped, every row, bounded plots and size.

What the page does in a browser is tested in ``test_html_browser.py``.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest
from _html_helpers import HOSTILE_BENCHMARK, HOSTILE_MODES, page_blob, write_hostile_pair
from cuda.bench.compare import compare
from cuda.bench.compare.model import Comparison, Row, Status
from cuda.bench.report.html import DEFAULT_PLOT_LIMIT, page_data, render_html
from cuda.bench.report.html.distributions import plot_order
from cuda.bench.report.html.page import embed_json
from cuda.bench.results.synthetic import SyntheticConfig, write_pair


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Comparison:
    ref, cmp = write_hostile_pair(tmp_path_factory.mktemp("hostile"))
    return compare(ref, cmp)


class _Elements(HTMLParser):
    """Every start tag with its attributes, and the text of each ``<script>``/``<style>``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.raw: dict[str, list[str]] = {"script": [], "style": []}
        self._inside: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag in self.raw:
            self._inside = tag
            self.raw[tag].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == self._inside:
            self._inside = None

    def handle_data(self, data: str) -> None:
        if self._inside is not None:
            self.raw[self._inside][-1] += data


def _elements(page: str) -> _Elements:
    parser = _Elements()
    parser.feed(page)
    parser.close()
    return parser


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


# ---------------------------------------------------------------------------------------
# Self-contained and escaped


def test_page_fetches_nothing_and_allows_only_its_own_script_and_style(
    hostile: Comparison,
) -> None:
    page = render_html(hostile)
    found = _elements(page)
    tags = [tag for tag, _ in found.tags]
    assert "link" not in tags and "iframe" not in tags and "img" not in tags
    for tag, attrs in found.tags:
        for name in ("src", "href", "action", "srcset"):
            value = attrs.get(name)
            assert value is None or value.startswith("#"), (tag, name, value)
    policy = next(
        attrs["content"]
        for tag, attrs in found.tags
        if tag == "meta" and attrs.get("http-equiv") == "Content-Security-Policy"
    )
    assert policy is not None and "default-src 'none'" in policy
    # One executable script and one stylesheet, each allowed by its hash only.
    scripts = [attrs for tag, attrs in found.tags if tag == "script"]
    assert [attrs.get("type") for attrs in scripts] == ["application/json", None]
    assert f"script-src 'sha256-{_sha256(found.raw['script'][1])}'" in policy
    assert f"style-src 'sha256-{_sha256(found.raw['style'][0])}'" in policy
    assert "unsafe-inline" not in policy


def test_names_and_axis_values_are_escaped_everywhere(hostile: Comparison) -> None:
    page = render_html(hostile, fail_on="slow")
    found = _elements(page)
    # Nothing from the data became an element: the tags are the page's own.
    assert sum(tag == "script" for tag, _ in found.tags) == 2
    assert not any(tag == "b" for tag, _ in found.tags)
    assert not any(name.startswith("on") for _, attrs in found.tags for name in attrs)
    # The data element holds no markup and decodes to the exact names.
    data_text = found.raw["script"][0]
    assert "<" not in data_text and ">" not in data_text and "&" not in data_text
    data = json.loads(data_text)
    assert HOSTILE_BENCHMARK in {row["benchmark"] for row in data["rows"]}
    states = {row["state"] for row in data["rows"] if row["benchmark"] == HOSTILE_BENCHMARK}
    assert states == {f"Mode={mode} N={n}" for mode in HOSTILE_MODES for n in (1, 2)}
    # The summary names the hostile rows (worst regressions, --fail-on), escaped.
    summary = page[page.index("<header") : page.index("</header>")]
    assert html.escape(HOSTILE_BENCHMARK) in summary
    assert HOSTILE_BENCHMARK not in summary
    title = page[page.index("<title>") + 7 : page.index("</title>")]
    assert html.unescape(title).startswith("nvbench_compare: ")


def test_embedded_json_round_trips_script_breaking_text() -> None:
    value = {"a": "</script><!-- & -->\u2028", "b": [1.5, None]}
    text = embed_json(value)
    assert "</" not in text and "<!--" not in text and "&" not in text
    assert json.loads(text) == value


# ---------------------------------------------------------------------------------------
# Data: every row, summary values reused


def test_every_row_is_in_the_data_with_a_candidate(hostile: Comparison) -> None:
    data = page_data(hostile)
    rows = data["rows"]
    assert [row["id"] for row in rows] == list(range(len(hostile.rows)))
    assert {row["candidate"] for row in rows} == {data["candidates"][0]["name"]} == {"cmp"}
    assert data["reference"]["name"] == "ref"
    assert [row["status"] for row in rows] == [row.status.value for row in hostile.rows]
    counts = {entry["code"]: entry["count"] for entry in data["statuses"]}
    assert counts == {status.value: hostile.counts[status] for status in Status}
    assert (counts["SLOW"], counts["FAST"], counts["AMBG"], counts["SAME"]) == (3, 1, 1, 9)
    slow = next(row for row in rows if row["benchmark"] == "plain" and row["state"] == "N=2")
    assert slow["status"] == "SLOW"
    assert slow["change"] == pytest.approx(0.2, abs=0.01)
    assert slow["change_text"].startswith("+")
    assert slow["ref_text"].endswith(" us") and slow["ref"] == pytest.approx(2e-6, rel=0.01)


def test_summary_shows_the_suite_values(hostile: Comparison) -> None:
    page = render_html(hostile, fail_on="slow")
    summary = html.unescape(page[page.index("<header") : page.index("</header>")])
    assert "nvbench_compare: 3 regressions, 1 improvement, 1 ambiguous (14 states)" in summary
    assert hostile.suite is not None
    assert f"{hostile.suite.ratio:.3f}" in summary
    assert "Worst regressions" in summary
    assert "--fail-on slow: 3 row(s)" in summary and 'class="failed"' in summary
    assert "run_not_stationary" in summary  # the ambiguous row's reason
    for code, count in (("SLOW", 3), ("FAST", 1), ("AMBG", 1), ("SAME", 9)):
        assert re.search(rf'data-status="{re.escape(code)}"[^>]*>.*?>{count}<', page)


def test_summary_names_a_paired_design(tmp_path: Path, hostile: Comparison) -> None:
    from cuda.bench.compare import PairedDesign, compare_paired
    from cuda.bench.results.synthetic import write_run

    small = SyntheticConfig(benchmarks=1, states=2, samples=100)
    ref, cmp = (
        [tmp_path / f"ref{r}.json" for r in range(4)],
        [tmp_path / f"cmp{r}.json" for r in range(4)],
    )
    for r in range(4):
        write_run(ref[r], small, seed=2, run=r)
        write_run(cmp[r], small, seed=2, side="cmp", run=r)
    design = PairedDesign(4, ("ref", "cmp", "cmp", "ref"), order="random", seed=5)
    page = render_html(compare_paired(ref, cmp, design=design))
    facts = re.search(r'<dl class="facts">(.*?)</dl>', page)
    assert facts is not None
    text = html.unescape(re.sub(r"<[^>]+>", " ", facts.group(1)))
    assert re.search(
        r"Design\s+4 paired rounds, order random, seed 5; first: ref, cmp, cmp, ref", text
    ), text
    plain = render_html(hostile)
    assert "paired rounds" not in plain and "<dt>Design</dt>" not in plain


# ---------------------------------------------------------------------------------------
# Plots


def test_plots_go_to_changed_rows_largest_change_first(hostile: Comparison) -> None:
    rows = hostile.rows
    order = plot_order(rows, 10)
    statuses = [rows[index].status for index in order]
    assert statuses == [Status.SLOW] * 3 + [Status.FAST, Status.AMBG]
    sizes = [abs(rows[index].verdict.effect.ratio - 1) for index in order[:3]]  # type: ignore[union-attr]
    assert sizes == sorted(sizes, reverse=True)
    assert plot_order(rows, 2) == order[:2]
    assert plot_order(rows, 0) == []


def test_plot_limit_bounds_the_plots_not_the_rows(hostile: Comparison) -> None:
    for limit in (0, 3, DEFAULT_PLOT_LIMIT):
        data = page_blob(render_html(hostile, plot_limit=limit))
        assert len(data["rows"]) == len(hostile.rows)
        plotted = [row for row in data["rows"] if "plot" in row]
        assert len(plotted) == len(data["plots"]) == min(limit, 5)
        assert sorted(row["plot"] for row in plotted) == list(range(len(plotted)))


def test_plot_holds_thinned_samples_of_both_sides_and_the_effect(hostile: Comparison) -> None:
    data = page_data(hostile, plot_points=40)
    row = next(r for r in data["rows"] if r["benchmark"] == "plain" and r["state"] == "N=2")
    plot = data["plots"][row["plot"]]
    for side in ("ref", "cmp"):
        dist = plot[side]
        assert dist["n"] == 300
        assert len(dist["x"]) == len(dist["y"]) <= 40
        assert dist["x"] == sorted(dist["x"]) and dist["y"][-1] == 1.0
    # The compare samples sit about 20 % above the reference ones.
    assert np.median(plot["cmp"]["x"]) / np.median(plot["ref"]["x"]) == pytest.approx(1.2, rel=0.02)
    effect = plot["effect"]
    assert effect["lo"] <= effect["ratio"] <= effect["hi"] and effect["tolerance"] > 0
    assert plot["cycles"]["space"] == "cycles"
    assert len(plot["ref_interval"]) == 3


def test_rows_without_side_files_still_get_intervals(tmp_path: Path) -> None:
    pair = write_pair(
        tmp_path, SyntheticConfig(benchmarks=1, states=4), seed=2, random_shifts=2, jsonbin=False
    )
    comparison = compare(pair.ref[0], pair.cmp[0])
    data = page_data(comparison)
    assert data["plots"], "the shifted states should be plotted"
    for plot in data["plots"]:
        assert plot["ref"] is None and plot["cmp"] is None
        assert plot["ref_interval"] is not None and plot["cmp_interval"] is not None


def test_unusable_side_file_means_no_samples_not_a_crash(tmp_path: Path) -> None:
    ref, cmp = write_hostile_pair(tmp_path)
    comparison = compare(ref, cmp)
    for side_file in (tmp_path / "cmp.json-bin").iterdir():
        side_file.write_bytes(b"\x00\x00\xc0\x7f" * 3)  # NaNs, and the wrong count
    data = page_data(comparison)
    assert data["plots"] and all(plot["cmp"] is None for plot in data["plots"])
    assert all(plot["ref"] is not None for plot in data["plots"])


# ---------------------------------------------------------------------------------------
# Size


def _many_rows(template: Comparison, count: int) -> Comparison:
    """``count`` rows made from ``template``'s, each with its own name and message (as a
    real comparison of the ci method has), long benchmark names included."""
    rows: list[Row] = []
    for index in range(count):
        row = template.rows[index % len(template.rows)]
        verdict = msgspec.structs.replace(row.verdict, message=f"{row.verdict.text} (row {index})")
        rows.append(
            msgspec.structs.replace(
                row,
                benchmark=f"templated_kernel_benchmark_{index // 100:03d}",
                key=f"{row.key} Block={index % 100}",
                verdict=verdict,
            )
        )
    return msgspec.structs.replace(template, rows=tuple(rows))


def test_five_thousand_rows_stay_under_five_megabytes(hostile: Comparison) -> None:
    big = _many_rows(hostile, 5000)
    page = render_html(big)
    size = len(page.encode("utf-8"))
    assert len(page_blob(page)["rows"]) == 5000
    assert len(page_blob(page)["plots"]) == DEFAULT_PLOT_LIMIT
    assert size < 5_000_000, size


def test_render_rejects_impossible_limits(hostile: Comparison) -> None:
    with pytest.raises(ValueError):
        render_html(hostile, plot_limit=-1)
    with pytest.raises(ValueError):
        render_html(hostile, plot_points=1)


def test_data_is_plain_json(hostile: Comparison) -> None:
    data: Any = page_data(hostile)
    assert json.loads(json.dumps(data, allow_nan=False)) == data


def test_directory_inputs_get_a_file_column(tmp_path: Path) -> None:
    for side in ("before", "after"):
        (tmp_path / side).mkdir()
    for name, seed in (("a", 1), ("b", 2)):
        made = write_pair(
            tmp_path / name, SyntheticConfig(benchmarks=1, states=2), seed=seed, jsonbin=False
        )
        made.ref[0].rename(tmp_path / "before" / f"{name}.json")
        made.cmp[0].rename(tmp_path / "after" / f"{name}.json")
    comparison = compare(tmp_path / "before", tmp_path / "after")
    data = page_data(comparison)
    assert data["columns"][0] == {"key": "file", "label": "File", "type": "text"}
    assert [row["file"] for row in data["rows"]] == ["a.json"] * 2 + ["b.json"] * 2
    assert data["reference"]["name"] == "before" and data["candidates"][0]["name"] == "after"
    assert {row["candidate"] for row in data["rows"]} == {"after"}


def test_rows_decided_in_cycles_sort_by_the_change_they_show(tmp_path: Path) -> None:
    """A kernel whose times split into clock modes is SAME from its cycles: its Change text
    shows the cycle change (``cyc``), and the column must sort by that, not the time."""
    from cuda.bench.compare.model import Reason
    from cuda.bench.results.synthetic import BimodalClocks

    config = SyntheticConfig(
        benchmarks=1,
        states=8,
        samples=60,
        shape=BimodalClocks(low_fraction=0.5, low_clock_ratio=0.8),
    )
    pair = write_pair(tmp_path, config, seed=5)
    comparison = compare(str(pair.ref[0]), str(pair.cmp[0]), method="ci")
    records = page_data(comparison)["rows"]
    in_cycles = 0
    for row, record in zip(comparison.rows, records, strict=True):
        if row.reason is not Reason.CI_SAME_IN_CYCLES:
            continue
        in_cycles += 1
        cycles = row.verdict.cycle_effect
        assert cycles is not None and record["change_text"].endswith(" cyc")
        assert record["change"] == pytest.approx(cycles.ratio - 1.0, rel=1e-5, abs=1e-9)
    assert in_cycles > 0
