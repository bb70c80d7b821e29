"""Runs of one commit are one point to detection: the code did not change between them.

SAP HANA's labelled series (``python/benchmarks/history_sap.py``) hold several runs per
build; bursts of slow runs inside one build were read as two changes, a rise and a fall a
few runs apart, both between runs of the same code. An archive holds a commit's reruns and
a quiet weekend's nightly runs the same way (each run labelled with its commit)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import pytest
from cuda.bench.history import RunSeries, detect


def _burst_inside_one_commit(seed: int) -> tuple[np.ndarray, tuple[str, ...]]:
    """40 commits of one run, one commit of 10 runs of which the middle 6 are 40 % slower
    (a burst of load on the machine), 40 more commits of one run; 1 % noise."""
    rng = np.random.default_rng(seed)
    values = np.exp(rng.normal(0.0, 0.01, 90))
    values[42:48] *= 1.4
    labels = [f"c{i}" for i in range(40)] + ["c40"] * 10 + [f"c{i}" for i in range(41, 81)]
    return values, tuple(labels)


def test_consecutive_runs_of_one_label_are_one_point() -> None:
    medians = np.array([1.0, 1.2, np.nan, 1.1, 2.0, 3.0, 1.0])
    lo = np.array([0.9, 1.1, np.nan, 1.0, 1.9, np.nan, 0.9])
    hi = np.array([1.1, 1.3, np.nan, 1.2, 2.1, np.nan, 1.1])
    samples = tuple(np.full(2, value) if value == value else np.empty(0) for value in medians)
    series = RunSeries(
        "s", medians, samples=samples, median_lo=lo, median_hi=hi, labels=tuple("AAAABBA")
    )
    # A after A twice (the missing run between is no run), B after B once
    assert series.repeats == 3
    points, first_runs = series.points()
    assert first_runs.tolist() == [0, 4, 6]
    assert points.labels == ("A", "B", "A")  # A again later: a commit of its own place
    assert points.medians.tolist() == [1.1, 2.5, 1.0]
    assert points.median_lo is not None and points.median_hi is not None
    assert points.median_lo[0] == 0.9 and points.median_hi[0] == 1.3
    assert np.isnan(points.median_lo[1]) and np.isnan(points.median_hi[1])
    assert points.samples is not None
    assert sorted(points.samples[0].tolist()) == [1.0, 1.0, 1.1, 1.1, 1.2, 1.2]


def test_unlabelled_or_unrepeated_series_are_their_observed_runs() -> None:
    medians = np.array([1.0, np.nan, 1.0])
    for labels in (None, ("a", "b", "c")):
        series = RunSeries("s", medians, labels=labels)
        assert series.repeats == 0
        points, first_runs = series.points()
        assert points.medians.tolist() == [1.0, 1.0] and first_runs.tolist() == [0, 2]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_burst_inside_one_commit_is_no_change(seed: int) -> None:
    values, commits = _burst_inside_one_commit(seed)
    # Each run its own label: the burst reads as a rise and a fall (the control that shows
    # the series is one detection used to split).
    apart = detect([RunSeries("s", values, labels=tuple(f"r{i}" for i in range(90)))])
    assert [c.index for c in apart.changes] == [42, 48], apart.changes
    together = detect([RunSeries("s", values, labels=commits)])
    assert together.changes == () and together.candidates == ()


def test_a_step_is_placed_at_the_first_run_of_its_commit() -> None:
    """Three runs a commit; the code of commit 30 is 5 % slower."""
    rng = np.random.default_rng(7)
    values = np.exp(rng.normal(0.0, 0.01, 180))
    values[90:] *= 1.05
    commits = tuple(f"c{i // 3}" for i in range(180))
    found = detect([RunSeries("s", values, labels=commits)])
    assert [(c.index, c.commit) for c in found.changes] == [(90, "c30")]
    # runs_after counts points: the 30 commits after the change, not their 90 runs
    assert found.changes[0].runs_after <= 30


def _archive_series(commits: tuple[str, ...]) -> Any:
    from cuda.bench.history.series import ArchiveSeries

    rng = np.random.default_rng(3)
    return ArchiveSeries(
        machine="m",
        benchmark="b",
        device=0,
        state_name="Device=0",
        axes=(),
        commits=commits,
        dates=tuple(dt.datetime(2026, 11, 1, tzinfo=dt.UTC) for _ in commits),
        medians=np.exp(rng.normal(0.0, 0.01, len(commits))),
        median_lo=None,
        median_hi=None,
    )


def test_reports_count_a_commits_runs_once_where_detection_does() -> None:
    """Eight commits run three times each: 24 runs, 8 points. detect said "a series needs at
    least 10 runs; the longest of them has 8 runs" of a series of 24 runs."""
    from cuda.bench.history.series import examine
    from cuda.bench.report.history import too_short_text

    view = examine([_archive_series(tuple(f"c{i // 3}" for i in range(24)))])
    text = too_short_text(view)
    assert "the longest of them has 8 commits" in text, text
    assert "a commit's runs count once" in text, text
    alone = examine([_archive_series(tuple(f"c{i}" for i in range(8)))])
    assert too_short_text(alone).endswith("the longest of them has 8 runs")
