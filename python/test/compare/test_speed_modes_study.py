"""The calibrated two-speed-machine study of ``python/benchmarks/verdict_quality.py`` runs
against the current engine (it calls calibration internals that tests elsewhere do not)."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import pytest
from conftest import benchmark_module


@pytest.fixture
def speed_modes(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    yield from benchmark_module(monkeypatch, "_speed_modes")


def test_the_calibrated_study_runs_and_counts_every_state(speed_modes: object) -> None:
    rows = speed_modes.study_rows(speed_modes.run_study(12, 60, 3))  # type: ignore[attr-defined]
    labels = [label for label, _, _ in speed_modes.VARIANTS]  # type: ignore[attr-defined]
    assert [row["variant"] for row in rows] == [*labels, speed_modes.NULL_VARIANT]  # type: ignore[attr-defined]
    for row in rows:
        for key, value in row.items():
            if key != "variant":
                assert 0.0 <= value <= 1.0, (row["variant"], key, value)
