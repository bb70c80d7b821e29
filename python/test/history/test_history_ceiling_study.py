"""``python/benchmarks/history_calibration_ceiling.py`` runs against the current scan: it
replaces the scan's calibration step for its oracles, which no other test exercises."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from conftest import benchmark_module


@pytest.fixture
def ceiling(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    yield from benchmark_module(monkeypatch, "history_calibration_ceiling")


def test_the_study_runs_through_the_oracles_and_puts_the_scan_back(
    ceiling: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from cuda.bench.history import changepoint

    shipped = changepoint.calibrate
    rows_calibrated: list[int] = []

    def counting(scores: Any, *rest: Any) -> Any:
        rows_calibrated.append(int(scores.shape[0]))
        return shipped(scores, *rest)

    # The study wraps what it finds as the scan's calibration step: this, for its run.
    monkeypatch.setattr(changepoint, "calibrate", counting)
    assert ceiling.main(["--series", "3"]) == 0
    assert changepoint.calibrate is counting
    # Three settings scan every series; each one-row calibration goes through the step.
    assert len(rows_calibrated) >= 9
    rows = [line for line in capsys.readouterr().out.splitlines() if line.endswith("% |")]
    assert len(rows) == 5
