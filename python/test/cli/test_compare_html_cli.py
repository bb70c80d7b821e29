"""``nvbench_compare --html PATH [--html-plots N]``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from _cli_helpers import Result, assert_usage_error, run_main
from cuda.bench.cli import _compare_parser as compare_cli
from cuda.bench.cli.compare import main
from cuda.bench.report.html import DEFAULT_PLOT_LIMIT
from cuda.bench.results.synthetic import SyntheticConfig, write_pair


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Synthetic runs: 3 of 12 states shifted by 10 %."""
    root = tmp_path_factory.mktemp("html")
    made = write_pair(root, SyntheticConfig(benchmarks=2, states=6), seed=4, random_shifts=3)
    return made.ref[0], made.cmp[0]


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Result:
    return run_main(main, capsys, *args)


def _blob(page: str) -> Any:
    match = re.search(r'<script type="application/json" id="nvbench-data">(.*?)</script>', page)
    assert match
    return json.loads(match.group(1))


def test_html_report_beside_the_document(
    capsys: pytest.CaptureFixture[str], pair: tuple[Path, Path], tmp_path: Path
) -> None:
    target = tmp_path / "report.html"
    result = run(capsys, *pair, "--html", target, "--fail-on", "slow,fast")
    assert result.code == 1
    assert "# Summary" in result.out  # the document still goes to stdout
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    data = _blob(page)
    assert len(data["rows"]) == 12
    changed = [row for row in data["rows"] if row["status"] in ("SLOW", "FAST")]
    assert len(changed) == 3 and all("plot" in row for row in changed)
    for status in {row["status"] for row in changed}:
        # the failed conditions, at the top: a drawn cross (no emoji: the page needs no emoji font)
        failed = re.search(
            rf'<span class="failed"><svg[^>]*>.*?</svg> --fail-on {status.lower()}: ', page
        )
        assert failed, status
    assert "❌" not in page
    assert [path.name for path in target.parent.iterdir()] == ["report.html"]


def test_html_plots_limits_the_plots(
    capsys: pytest.CaptureFixture[str], pair: tuple[Path, Path], tmp_path: Path
) -> None:
    for count in ("0", "1"):
        target = tmp_path / f"{count}.html"
        assert run(capsys, *pair, "--html", target, "--html-plots", count).code == 0
        data = _blob(target.read_text(encoding="utf-8"))
        assert len(data["plots"]) == int(count) and len(data["rows"]) == 12


def test_html_on_stdout_replaces_the_document(
    capsys: pytest.CaptureFixture[str], pair: tuple[Path, Path]
) -> None:
    result = run(capsys, *pair, "--html", "-")
    assert result.code == 0
    assert result.out.startswith("<!DOCTYPE html>") and "# Summary" not in result.out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--html-plots", "-1"], "expected an integer >= 0, got '-1'"),
        (["--html-plots", "many"], "expected an integer >= 0, got 'many'"),
        (["--html", ""], "--html needs a file path"),
    ],
)
def test_bad_html_options(
    capsys: pytest.CaptureFixture[str], pair: tuple[Path, Path], args: list[str], needle: str
) -> None:
    assert_usage_error(run(capsys, *pair, *args), needle)


def test_html_path_conflicts(
    capsys: pytest.CaptureFixture[str], pair: tuple[Path, Path], tmp_path: Path
) -> None:
    assert_usage_error(run(capsys, *pair, "--html", tmp_path), "is a directory")
    same = tmp_path / "r"
    assert_usage_error(run(capsys, *pair, "--html", same, "--json", same), "both write")
    assert_usage_error(run(capsys, *pair, "--html", "-", "--csv", "-"), "standard output")
    assert not same.exists()


def test_help_default_is_the_renderers(capsys: pytest.CaptureFixture[str]) -> None:
    assert compare_cli.HTML_PLOTS == DEFAULT_PLOT_LIMIT
    result = run(capsys, "--help")
    assert result.code == 0
    assert "--html PATH" in result.out and f"(default: {DEFAULT_PLOT_LIMIT})" in result.out
