"""Synthetic histories: noise shapes, known steps, samples and NVBench runs."""

from __future__ import annotations

import importlib.util
import math
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from conftest import benchmark_module
from cuda.bench.compare.bootstrap import MAD_TO_SD
from cuda.bench.history.synthetic import (
    NOISE_KINDS,
    HistoryNoise,
    commit_ids,
    generate,
    generate_multi,
    run_samples,
    write_history,
)
from cuda.bench.results import BenchmarkResult
from cuda.bench.results.synthetic import SyntheticConfig

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("kind", NOISE_KINDS)
def test_noise_has_its_stated_spread(kind: str) -> None:
    noise = HistoryNoise(kind)  # type: ignore[arg-type]
    logs = np.log(generate(noise, series=400, runs=200, seed=1).medians)
    deviations = logs - logs.mean(axis=1, keepdims=True)
    if kind == "outliers":  # the spread excludes the outliers: a robust estimate
        spread = MAD_TO_SD * float(np.median(np.abs(deviations - np.median(deviations))))
    else:
        spread = float(deviations.std())
    assert spread == pytest.approx(noise.spread, rel=0.08)


def test_shapes_differ_as_described() -> None:
    def deviations(kind: str) -> np.ndarray:
        logs = np.log(generate(HistoryNoise(kind), series=300, runs=200, seed=2).medians)  # type: ignore[arg-type]
        return logs - np.median(logs, axis=1, keepdims=True)

    ar = deviations("ar1")
    lag1 = np.mean(ar[:, 1:] * ar[:, :-1]) / np.mean(ar * ar)
    assert lag1 == pytest.approx(0.5, abs=0.05)
    skewed = deviations("lognormal").ravel()
    assert np.mean((skewed - skewed.mean()) ** 3) / skewed.std() ** 3 > 2.0
    outliers = deviations("outliers")
    assert np.mean(outliers > math.log(1.1)) == pytest.approx(0.02, abs=0.005)
    bimodal = deviations("bimodal")
    gap = math.log(1.03)
    assert np.mean(np.abs(bimodal - np.median(bimodal)) > gap / 2) > 0.2


def test_steps_land_where_the_truth_says() -> None:
    history = generate(
        HistoryNoise("iid", run_sigma=0.0), series=8, runs=50, steps=(0.02, 0.1), seed=3
    )
    logs = np.log(history.medians)
    for row, (at, factor) in enumerate(zip(history.step_at, history.factor, strict=True)):
        jumps = np.flatnonzero(np.abs(np.diff(logs[row])) > 1e-12) + 1
        assert jumps.tolist() == [at]
        assert logs[row, at] - logs[row, at - 1] == pytest.approx(math.log(factor))
    assert sorted(set(np.round(history.factor, 6))) == [1.02, 1.1]
    both = generate(
        HistoryNoise(), series=4, runs=50, steps=(0.1,), both_directions=True, step_at=10
    )
    assert both.factor.tolist() == pytest.approx([1.1, 1 / 1.1, 1.1, 1 / 1.1])
    assert (generate(HistoryNoise(), series=3, runs=20).step_at == -1).all()


def test_same_seed_same_history_and_bad_settings_refused() -> None:
    first = generate(HistoryNoise("ar1"), series=5, runs=30, steps=(0.05,), margin=5, seed=4)
    again = generate(HistoryNoise("ar1"), series=5, runs=30, steps=(0.05,), margin=5, seed=4)
    assert np.array_equal(first.medians, again.medians)
    with pytest.raises(ValueError):
        HistoryNoise("walk")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        generate(HistoryNoise(), series=2, runs=30, steps=(0.1,), step_at=30)
    ids = commit_ids(50)
    assert len(set(ids)) == 50 and all(len(i) == 40 for i in ids) and ids == commit_ids(50)


def test_samples_have_the_run_medians() -> None:
    history = generate(HistoryNoise("bimodal"), series=2, runs=10, seed=5)
    for count in (1, 100, 101):
        for run, samples in enumerate(run_samples(history, 1, count)):
            nearest_rank = np.sort(samples)[count // 2]
            assert nearest_rank == pytest.approx(history.medians[1, run], rel=1e-12)


def test_written_runs_follow_the_history(tmp_path: Path) -> None:
    history = generate(HistoryNoise("iid"), series=4, runs=12, steps=(0.1,), step_at=6, seed=2)
    config = SyntheticConfig(benchmarks=1, states=4, samples=200)
    paths = write_history(tmp_path, history, config, seed=3)
    assert [path.name for path in paths] == [f"run_{run:04d}.json" for run in range(12)]
    medians = np.array(
        [[float(np.median(state.samples)) for state in BenchmarkResult(p).states()] for p in paths]
    ).T
    expected = history.medians / history.medians[:, :1]
    assert medians / medians[:, :1] == pytest.approx(expected, rel=0.01)
    again = write_history(tmp_path / "again", history, config, seed=3)
    assert again[5].read_bytes() == paths[5].read_bytes()
    with pytest.raises(ValueError, match="states"):
        write_history(tmp_path, history, SyntheticConfig(benchmarks=1, states=3))


def test_quality_benchmark_scores_a_small_run() -> None:
    # The benchmark's scoring on a few series, without Otava: it must not rot.
    path = REPO / "python" / "benchmarks" / "history_quality.py"
    spec = importlib.util.spec_from_file_location("history_quality", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["history_quality"] = module
    try:
        spec.loader.exec_module(module)
        rows = module.measure("iid", 20, 5, 1, None, 1)
    finally:
        del sys.modules["history_quality"]
    assert [row.method for row in rows] == ["ours", "ours+BH"]
    for row in rows:
        assert row.false_alarm <= 0.05
        assert row.recall["10%"] == 1.0 and row.within_two == pytest.approx(1.0, abs=0.1)


@pytest.fixture
def draws(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    yield from benchmark_module(monkeypatch, "history_draws", "history_quality")


def test_step_hits_counts_a_step_found_in_its_direction_within_five_runs(
    draws: ModuleType,
) -> None:
    quality = sys.modules["history_quality"]
    stepped = generate_multi(
        HistoryNoise("iid"), series=2, steps=(0.03, 0.05, 0.10), per_series=3, trend=0.0, seed=4
    )
    truth = [list(zip(stepped.step_at[r], stepped.factor[r], strict=True)) for r in range(2)]
    # Row 0: every step 5 runs off in its direction; row 1: every step in the wrong direction,
    # and one change far from all of them.
    exact = tuple((int(at) + 5, 1 if f > 1 else -1) for at, f in truth[0])
    wrong = tuple((int(at), -1 if f > 1 else 1) for at, f in truth[1])
    far = min(set(range(200)) - {a + d for a, _ in truth[1] for d in range(-5, 6)})
    hits, extra = quality.step_hits(
        stepped, [quality.Found(exact), quality.Found((*wrong, (far, 1)))]
    )
    assert hits == {0.03: [1, 2], 0.05: [1, 2], 0.10: [1, 2]}
    assert extra == 1


def test_draws_benchmark_pools_its_draws(
    draws: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    assert draws.main(["--noise", "iid", "--draws", "2", "--series", "20", "--workers", "1"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| iid")]
    assert [line.split("|")[2].strip() for line in lines] == ["31", "32", "all 2"]
    # 10 % steps in 1 % independent noise: every one found, in both draws and pooled.
    assert all(line.split("|")[5].strip().startswith("100.0%") for line in lines)
    low, high = draws.wilson(95, 100)
    assert low < 0.95 < high and low >= 0.0 and high <= 1.0
