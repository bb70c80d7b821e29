"""The gate moves a level's runs to tonight's place in a cycle (:mod:`.history._gate_phase`)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _history_calls import ingest_in_order
from cuda.bench.compare.model import Status
from cuda.bench.history._gate_phase import phase_offsets, phased
from cuda.bench.history._gate_states import GateLevel
from cuda.bench.history.gate import gate
from cuda.bench.history.synthetic import HistoryNoise, SyntheticHistory, commit_ids, write_history
from cuda.bench.results.synthetic import SyntheticConfig

#: Runs archived before the first gated one; every third run is 5 % slower (two runners
#: and a slower third taking turns) in states 0 and 1, state 1 3 % slower from run LEVEL.
LEVEL = 45
RUNS = LEVEL + 3
COMMITS = commit_ids(RUNS, seed=4)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ...]:
    rng = np.random.default_rng(7)
    cycle = np.resize(np.array([0.0, 0.0, 0.05]), RUNS)
    logs = np.stack([cycle, cycle, np.zeros(RUNS)]) + rng.normal(0.0, 0.003, (3, RUNS))
    logs[1, LEVEL:] += 0.03
    history = SyntheticHistory(
        medians=np.exp(logs) * 1e-3,
        step_at=np.array([-1, LEVEL, -1]),
        factor=np.array([1.0, 1.03, 1.0]),
        noise=HistoryNoise("iid"),
        seed=7,
    )
    config = SyntheticConfig(benchmarks=1, states=3, samples=64)
    return write_history(tmp_path_factory.mktemp("runs"), history, config, seed=3)


def _statuses(found: object) -> list[Status]:
    rows = found.comparison.rows  # type: ignore[attr-defined]
    return [row.status for row in sorted(rows, key=lambda row: row.key)]


def test_each_night_of_a_cycle_is_judged_at_its_phase(
    tmp_path: Path, runs: tuple[Path, ...]
) -> None:
    # The level's runs read the cycle as noise: a band of about ±6 %, above the ±5 % cap,
    # made every night AMBG too_noisy_to_judge, the slow third runs as well as the others,
    # and the 3 % regression of state 1 was never flagged.
    archive = ingest_in_order(tmp_path / "archive", runs[:LEVEL], COMMITS)
    seen = []
    for night in range(LEVEL, RUNS):
        found = gate(archive, runs[night])
        seen.append(_statuses(found))
        notes = found.comparison.settings.get("notes", ())
        assert any("2 state(s) follow a cycle (of 3 runs" in note for note in notes)
        ingest_in_order(archive, runs[night : night + 1], COMMITS, first=night)
    # Keys sort as the states: 0 (cycle), 1 (cycle, 3 % slower from LEVEL), 2 (flat).
    assert [statuses[0] for statuses in seen] == [Status.SAME] * 3
    assert [statuses[1] for statuses in seen] == [Status.SLOW] * 3
    assert [statuses[2] for statuses in seen] == [Status.SAME] * 3


def test_offsets_move_each_run_to_tonights_phase() -> None:
    pattern = (-0.01, -0.01, 0.02)
    # Tonight is run 9 (phase 0); runs 8, 7, 6 have phases 2, 1, 0.
    assert phase_offsets(pattern, [8, 7, 6], 9) == pytest.approx((-0.03, 0.0, 0.0))
    assert phase_offsets(pattern, [8, 7, 6], 11) == pytest.approx((0.0, 0.03, 0.03))
    assert phase_offsets((), [8, 7], 9) == ()


def test_the_stored_times_are_moved_and_the_rest_kept() -> None:
    level = GateLevel(("r1", "r2"), 2, offsets=(math.log(1.05), 0.0), period=3)
    key = ("bench", 0, "Elements=1")
    first, second = ("r1", *key), ("r2", *key)
    stored = {
        first: (1.0, 0.9, 1.1, 1.02, 0.01, 64, 1.5e9),
        second: (1.0, 0.9, 1.1, 1.02, 0.01, 64, 1.5e9),
    }
    samples = {first: (np.array([1.0, 2.0]), np.array([1.5e9, 1.5e9]))}
    moved, drawn = phased({key: level}, stored, samples)
    assert moved[first] == pytest.approx((1.05, 0.945, 1.155, 1.071, 0.01, 64, 1.5e9))
    assert moved[second] == stored[second]
    assert np.allclose(drawn[first][0], [1.05, 2.1])
    assert np.allclose(drawn[first][1], [1.5e9, 1.5e9])
    # Without offsets nothing moves.
    assert phased({key: GateLevel(("r1",), 1)}, stored, samples) == (stored, samples)
