"""The A/A/A/A study of ``python/benchmarks/verdict_quality.py`` (N-way false alarms) runs
against the current engine and reports every figure; its numbers are the benchmark's job."""

from __future__ import annotations

import math
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from conftest import benchmark_module


@pytest.fixture
def verdict_quality(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    yield from benchmark_module(
        monkeypatch, "verdict_quality", "_many_study", "_speed_modes", "_simulate"
    )


def test_the_many_study_reports_every_figure(verdict_quality: Any) -> None:
    settings = verdict_quality.Settings(
        samples=60, aa_states=0, shift_states=0, drift=0.002, clock_drift=0.002, seed=5,
        resamples=200,
    )  # fmt: skip
    text, rows = verdict_quality.many_study(settings, ["log-normal"], [1], 8)
    assert [(row["runs"], row["correction"]) for row in rows] == [
        (1, "bonferroni"),
        (1, "none"),
    ]
    for row in rows:
        assert row["aa_cells"] == 8 * 3  # every state x candidate cell decided
        for key in (
            "aa_cell_false_change",
            "aa_cell_false_change_ub95",
            "aa_state_any_change",
            "detect_5",
            "unchanged_beside_shifts_false_change",
        ):
            assert not math.isnan(row[key]) and 0.0 <= row[key] <= 1.0, (key, row[key])
        assert row["aa_cell_false_change_ub95"] > row["aa_cell_false_change"]
    lines = text.splitlines()
    assert "A/A cells FAST/SLOW" in lines[0] and "±5 % detected" in lines[0]
    assert [line.split(" | ")[1] for line in lines[2:]] == ["bonferroni", "none"]
