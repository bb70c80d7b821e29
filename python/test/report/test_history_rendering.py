"""How ``nvbench-history trend`` shows its series: the text table's interval cells."""

from __future__ import annotations

import datetime as dt

import numpy as np
from cuda.bench.history.series import ArchiveSeries, examine
from cuda.bench.report.history import trend_text


def _series(
    benchmark: str, state_name: str, level: float, *, intervals: bool, runs: int = 30
) -> ArchiveSeries:
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    medians = level * np.exp(np.random.default_rng(3).normal(0.0, 0.01, runs))
    return ArchiveSeries(
        machine="m",
        benchmark=benchmark,
        device=0,
        state_name=state_name,
        axes=(),
        commits=tuple(f"c{i:04d}" for i in range(runs)),
        dates=tuple(start + dt.timedelta(days=i) for i in range(runs)),
        medians=medians,
        median_lo=medians * 0.998 if intervals else None,
        median_hi=medians * 1.003 if intervals else None,
        run_ids=tuple(f"r{i}" for i in range(runs)),
        device_name="NVIDIA H200",
    )


def _column(table: str, header: str) -> list[str]:
    lines = [line for line in table.splitlines() if line.startswith("|")]
    index = [cell.strip() for cell in lines[0].split("|")].index(header)
    return [line.split("|")[index] for line in lines[2:]]


def test_a_last_run_without_an_interval_leaves_no_blank_slot() -> None:
    # One series' last run has no interval (stored without samples): its cell read
    # " 2.564                  us", a gap where the brackets of the other rows are.
    view = examine(
        [
            _series("a", "Elements=1", 93.8e-6, intervals=True),
            _series("b", "Elements=2", 2.56e-6, intervals=False),
        ]
    )
    with_interval, without = _column(trend_text(view), "Last run")
    assert "[" in with_interval and "[" not in without
    assert "  us" not in without and without.split()[-1] == "us"
    # The centers still end in one column.
    assert with_interval.index(".") == without.index(".")
