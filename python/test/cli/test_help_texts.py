"""What every command's ``--help`` says: its exit statuses, and the limits of its options."""

from __future__ import annotations

import importlib
import re

import pytest


def _help(tool: str, argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    module = importlib.import_module(f"cuda.bench.cli.{tool}")
    try:
        code = module.main([*argv, "--help"])
    except SystemExit as done:
        code = done.code
    assert code == 0
    return " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize(
    ("tool", "argv"),
    [
        ("compare", []),
        ("compare", ["ab"]),
        ("compare", ["calibrate"]),
        ("histogram", []),
        ("plot_bwutil", []),
        ("json_summary", []),
        ("walltime", []),
        ("history", ["ingest"]),
        ("history", ["trend"]),
        ("history", ["detect"]),
        ("history", ["gate"]),
        ("history", ["report"]),
        ("history", ["baseline", "check"]),
    ],
)
def test_every_command_help_gives_its_exit_statuses(
    tool: str, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # json-summary, walltime and history ingest, trend and report said none.
    text = _help(tool, argv, capsys)
    assert "Exit status" in text, text
    statuses = text.split("Exit status", 1)[1]
    assert re.search(r"\b0\b", statuses) and "2 for" in statuses, statuses


def test_trend_plot_help_says_how_many_series_it_draws(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from cuda.bench.report.plots.history import MAX_TREND_PANELS

    text = _help("history", ["trend"], capsys)
    assert f"the first {MAX_TREND_PANELS} in the table's order" in text
