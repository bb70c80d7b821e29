"""The gate's band for one new run and its screen of far-off level runs (``_gate_band``)."""

from __future__ import annotations

import math
from pathlib import Path

import msgspec
import numpy as np
import pytest
from cuda.bench.compare.calibrate import Calibration, StateFloor
from cuda.bench.compare.model import Effect, Reason, Row, Status, Verdict
from cuda.bench.compare.thresholds import PRESETS
from cuda.bench.history._gate_band import equivalent, one_new_run, typical_runs

#: Student t quantiles from the tables (Abramowitz & Stegun table 26.10), df 19.
T19_995 = 2.8609
T19_975 = 2.0930
Z975 = 1.95996


def _floor(noise_floor: float, within: float, runs: int = 20) -> StateFloor:
    return StateFloor(
        "b", 0, 0, "Elements=1", 0, runs, 1e-5, 0.0, within, noise_floor, runs - 1, 0.0
    )


def test_the_band_is_the_prediction_bound_less_the_interval_the_comparison_adds() -> None:
    floor = _floor(0.01, 0.002)
    calibration, bounds = one_new_run(
        Calibration(("a", "b"), 0.01, (floor,), machine_floor=0.005), PRESETS["default"]
    )
    spread = math.hypot(0.01, 0.002)
    bound = T19_995 * spread * math.sqrt(1.0 + 1.0 / 20)
    expected = math.hypot(T19_975 * spread / math.sqrt(20), Z975 * 0.002)
    (state,) = calibration.states
    assert bounds[("b", 0, "Elements=1", 0)] == pytest.approx(bound, rel=1e-3)
    assert state.tolerance == pytest.approx(math.expm1(bound - expected), rel=1e-3)
    assert calibration.floor_for(floor.identity) == state and calibration.machine_floor == 0.005


def _states(spreads: list[float], runs: int) -> tuple[StateFloor, ...]:
    return tuple(
        StateFloor("b", 0, 0, f"Elements={n}", 0, runs, 1e-5, 0.0, 0.0, spread, runs - 1, 0.0)
        for n, spread in enumerate(spreads)
    )


def _shared_spreads(count: int, runs: int, seed: int) -> list[float]:
    """Sample standard deviations of ``count`` states whose runs share a 1 % noise."""
    rng = np.random.default_rng(seed)
    return list(0.01 * np.sqrt(rng.chisquare(runs - 1, count) / (runs - 1)))


def test_a_lucky_state_takes_the_spread_its_machine_shares() -> None:
    # 4 runs of 30 states that share a 1 % run-to-run noise: one state whose runs happened
    # to agree within 0.1 % gets most of the band of the others (its own spread would give
    # it a tenth of it).
    spreads = [0.001, *_shared_spreads(29, 4, 5)]
    calibration, _ = one_new_run(
        Calibration(("a", "b"), 0.01, _states(spreads, 4), machine_floor=0.0),
        PRESETS["default"],
    )
    bands = [state.tolerance for state in calibration.states]
    assert bands[0] > 0.6 * float(np.median(bands[1:]))


def test_a_quiet_state_keeps_its_own_spread_among_noisy_ones() -> None:
    # Spreads of an H200's states over 15 runs (0.01 % for memory-bound copies of 134M
    # elements to 20 % for a reduction with two clock modes): the median of them made every
    # quiet state's band +-4.6 %, and a 3 % regression passed. Each now keeps near its own.
    spreads = [0.0001, 0.0004, 0.0008, 0.0025, 0.0055, 0.01, 0.015, 0.017, 0.019, 0.07, 0.2]
    # The calibration carries the median floor, as calibrate() writes it.
    median = float(np.median(spreads))
    calibration, _ = one_new_run(
        Calibration(("a", "b"), 0.01, _states(spreads, 15), machine_floor=median),
        PRESETS["default"],
    )
    bands = [state.tolerance for state in calibration.states]
    assert max(bands[:3]) < 0.01
    assert bands == sorted(bands)
    assert bands[-1] > 0.3


def test_a_far_off_run_is_left_out_of_the_level_and_ordinary_spread_is_kept() -> None:
    rng = np.random.default_rng(3)
    level = 0.01 * rng.standard_normal(20)
    assert typical_runs(level).all()
    level[7] += math.log(1.12)  # a run 12 % slow that reverted
    keep = typical_runs(level)
    assert not keep[7] and keep.sum() == 19
    # A run three standard deviations off is the level's own noise.
    level[7] = 0.03
    assert typical_runs(level).all()
    # Few runs say too little about their spread; identical runs have none to scale by.
    assert typical_runs(np.array([0.0, 0.0, 0.0, 0.5])).all()
    assert typical_runs(np.zeros(8)).all()


def _row(status: Status, ratio: float, cycles: float | None = None) -> Row:
    effect = Effect(ratio, ratio * 0.995, ratio * 1.005, 0.95)
    cycle = None if cycles is None else Effect(cycles, cycles * 0.995, cycles * 1.005, 0.95)
    verdict = Verdict(status, Reason.CI_SAME, "said so", effect=effect, cycle_effect=cycle)
    return Row(
        benchmark="b",
        key="Elements=1",
        occurrence=0,
        axis_values=(),
        verdict=verdict,
        ref=None,
        cmp=None,
        ref_device=0,
    )


def test_same_needs_the_prediction_interval_of_the_change_inside_the_cap() -> None:
    bounds = {("b", 0, "Elements=1", 0): math.log(1.03)}
    # 1 % change, predicted to ±3 %: inside ±5 %.
    kept = _row(Status.SAME, 1.01)
    assert equivalent(kept, bounds, 0.05, 0.01) is kept
    # 2.5 % change (or 2.5 % in cycles): ±3 % around it reaches beyond ±5 %.
    for row in (_row(Status.SAME, 1.025), _row(Status.SAME, 1.0, cycles=1 / 1.025)):
        found = equivalent(row, bounds, 0.05, 0.01)
        assert found.status is Status.AMBG and found.reason is Reason.TOO_NOISY_TO_JUDGE
        assert "said so" in found.verdict.message and found.verdict.effect == row.verdict.effect
    # Changes and rows of states without a bound are the comparison's.
    slow = _row(Status.SLOW, 1.2)
    assert equivalent(slow, bounds, 0.05, 0.01) is slow
    assert equivalent(_row(Status.SAME, 1.025), {}, 0.05, 0.01).status is Status.SAME


pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")


def _history(
    tmp_path: Path, shape: np.ndarray, new: list[float], samples: int = 0
) -> tuple[Path, list[Path]]:
    """An archive of runs whose log medians (one per run, the same for every series, plus
    0.3 % noise) follow ``shape``, and new runs with the relative changes ``new``."""
    from cuda.bench.history.archive import ingest
    from cuda.bench.history.synthetic import (
        HistoryNoise,
        SyntheticHistory,
        generate,
        write_history,
    )
    from cuda.bench.results.synthetic import SyntheticConfig

    runs = len(shape)
    made = generate(HistoryNoise("iid", run_sigma=0.003), series=2, runs=runs + len(new), seed=11)
    logs = np.append(shape, np.log1p(new))
    history = SyntheticHistory(
        made.medians * np.exp(logs)[None, :], made.step_at, made.factor, made.noise, made.seed
    )
    config = SyntheticConfig(benchmarks=1, states=2, samples=200)
    paths = write_history(tmp_path / "runs", history, config, seed=3)
    archive = tmp_path / "archive"
    for order, path in enumerate(paths[:runs]):
        ingest(archive, path, commit=f"c{order}", date=f"2026-03-{order + 1:02d}T03:00:00Z",
               order=order, samples=samples)  # fmt: skip
    return archive, list(paths[runs:])


def _gated(tmp_path: Path, shape: np.ndarray, step: float, samples: int) -> list[Row]:
    from cuda.bench.history.gate import gate

    archive, new = _history(tmp_path, shape, [step], samples)
    return list(gate(archive, new[0]).comparison)


@pytest.mark.parametrize("samples", [0, 64], ids=["summaries", "samples"])
def test_one_far_off_run_in_the_level_does_not_hide_a_five_percent_step(
    tmp_path: Path, samples: int
) -> None:
    """Before the screen, one run 15 % slow among 20 widened the band beyond the cap and the
    step came out AMBG ``too_noisy_to_judge``."""
    shape = np.zeros(20)
    shape[6] = math.log(1.15)
    rows = _gated(tmp_path, shape, 0.05, samples)
    assert rows and all(row.status is Status.SLOW for row in rows), [r.verdict.text for r in rows]


def test_a_run_between_two_clock_modes_of_the_level_is_never_same(tmp_path: Path) -> None:
    """A level whose runs alternate between two speeds 3.4 % apart: its band fits under the
    cap, but the prediction interval of one new run does not, so an unchanged-looking run
    is AMBG, never SAME (a 5 % step that lands in the fast mode would look like 1.6 %)."""
    shape = np.where(np.arange(20) % 2 == 1, math.log(1.034), 0.0)
    rows = _gated(tmp_path, shape, 0.0, 0)
    assert rows and all(row.status is Status.AMBG for row in rows), [r.verdict.text for r in rows]
    assert {row.reason for row in rows} == {Reason.TOO_NOISY_TO_JUDGE}


def test_several_new_runs_decide_only_where_every_run_agrees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One run 12 % slow of an unchanged build is SLOW alone; with a second, normal run of
    the build the gate cannot decide (AMBG ``gate_runs_disagree``), and two runs 5 % slower
    are SLOW."""
    from cuda.bench.cli.history import main
    from cuda.bench.history.gate import gate

    archive, (outlier, normal, slow_a, slow_b) = _history(
        tmp_path, np.zeros(20), [0.12, 0.0, 0.05, 0.05]
    )
    assert {row.status for row in gate(archive, outlier).comparison} == {Status.SLOW}
    together = gate(archive, [outlier, normal]).comparison
    assert {row.reason for row in together} == {Reason.GATE_RUNS_DISAGREE}
    assert all(str(outlier) in row.verdict.message for row in together)
    assert together.inputs[0].cmp == (str(outlier), str(normal))
    slowed = gate(archive, [slow_a, slow_b]).comparison
    assert {row.status for row in slowed} == {Status.SLOW}
    assert all("every run of 2 agrees" in row.verdict.message for row in slowed)
    # The command line takes several runs, and fails on the regression only.
    argv = ["gate", "--archive", str(archive), "--fail-on", "slow"]
    assert main([*argv, str(outlier), str(normal)]) == 0
    assert main([*argv, str(slow_a), str(slow_b)]) == 1
    capsys.readouterr()
    assert main([*argv, str(slow_a), str(slow_a)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "given twice" in err


def _one(status: Status, ratio: float, key: str = "Elements=1") -> Row:
    row = _row(status, ratio)
    return msgspec.structs.replace(row, key=key)


def test_combined_rows_keep_the_weakest_agreeing_run_and_name_disagreements() -> None:
    from cuda.bench.history._gate_runs import combine_rows

    both = combine_rows([[_one(Status.SLOW, 1.08)], [_one(Status.SLOW, 1.06)]], ["a", "b"])
    assert both[0].status is Status.SLOW and both[0].verdict.effect is not None
    assert both[0].verdict.effect.ratio == pytest.approx(1.06)
    assert "a: SLOW" in both[0].verdict.message
    split = combine_rows([[_one(Status.SLOW, 1.08)], [_one(Status.SAME, 1.0)]], ["a", "b"])
    assert split[0].status is Status.AMBG and split[0].reason is Reason.GATE_RUNS_DISAGREE
    assert "a: SLOW" in split[0].verdict.message and "b: SAME" in split[0].verdict.message
    lacking = combine_rows([[_one(Status.SAME, 1.0)], [_one(Status.SAME, 1.0, "other")]], "ab")
    assert lacking[0].reason is Reason.GATE_RUNS_DISAGREE
    assert "b: lacks this state" in lacking[0].verdict.message
    added = _one(Status.ADDED, 1.0)
    assert combine_rows([[added], [added]], ["a", "b"]) == (added,)
    # A run without the row is named, and a row only a later run has is kept.
    (alone,) = combine_rows([[], [added]], ["a", "b"])
    assert alone.status is Status.ADDED and "a: lacks this state" in alone.verdict.message
    # Whatever the order of the runs.
    assert combine_rows([[added], []], ["b", "a"]) == (alone,)


def test_combined_rows_do_not_depend_on_the_order_of_the_runs() -> None:
    """A disagreement shows the largest measured change, a run that lacks a state of the
    latest archived run makes it REMOVED with the others' measurements named, and unusable
    input in any run is ``????``, in either order."""
    from cuda.bench.history._gate_runs import combine_rows

    slow, same = _one(Status.SLOW, 1.3), _one(Status.SAME, 1.0)
    removed, unknown = _one(Status.REMOVED, 1.0), _one(Status.UNKNOWN, 1.0)
    for rows, status, ratio in (
        ((slow, same), Status.AMBG, 1.3),
        ((removed, slow), Status.REMOVED, 1.0),
        ((unknown, slow), Status.UNKNOWN, 1.0),
    ):
        forward = combine_rows([[rows[0]], [rows[1]]], ["a", "b"])
        backward = combine_rows([[rows[1]], [rows[0]]], ["b", "a"])
        assert forward == backward
        (row,) = forward
        assert row.status is status and row.verdict.effect is not None
        assert row.verdict.effect.ratio == pytest.approx(ratio)
        assert "b: " in row.verdict.message
    (lacking,) = combine_rows([[removed], [slow]], ["a", "b"])
    assert lacking.status is Status.REMOVED
    assert f"b: SLOW {slow.verdict.text}" in lacking.verdict.message


def test_the_cycle_spread_replaces_a_wider_time_spread_of_clock_modes() -> None:
    """Runs alternating between two SM clocks 3 % apart: their times spread, their cycles
    (median time times mean clock) do not, and the band follows the cycles."""
    from cuda.bench.history._gate_band import cycle_spreads

    state = ("b", 0, "Elements=1")
    stored = {}
    for run in range(10):
        clock = 1.5e9 if run % 2 else 1.5e9 / 1.03
        median = 1e-3 * 1.5e9 / clock * (1.0 + 0.001 * (run % 3))
        stored[(f"r{run}", *state)] = (median, None, None, None, None, 200, clock)
    runs = {state: [f"r{run}" for run in range(10)]}
    (spread,) = cycle_spreads(runs, stored).values()
    cycles = np.log([1e-3 * 1.5e9 * (1.0 + 0.001 * (run % 3)) for run in range(10)])
    assert spread == pytest.approx(float(np.std(cycles, ddof=1)))
    # A run without a clock leaves the state to its time spread.
    stored[("r3", *state)] = (1e-3, None, None, None, None, 200, None)
    assert cycle_spreads(runs, stored) == {}
    floor = _floor(0.015, 0.0005, runs=10)
    calibration = Calibration(("a", "b"), 0.01, (floor,), machine_floor=0.0)
    wide, _ = one_new_run(calibration, PRESETS["default"])
    narrow, _ = one_new_run(calibration, PRESETS["default"], {state: spread})
    assert narrow.states[0].tolerance < 0.01 < 0.04 < wide.states[0].tolerance
    # Never narrower than the within-run error.
    _, least = one_new_run(calibration, PRESETS["default"], {state: 0.0})
    assert least[("b", 0, "Elements=1", 0)] > 0.0


def test_a_lucky_state_gets_the_cycle_spread_its_machine_shares() -> None:
    spreads = _shared_spreads(30, 4, 6)
    cycles = {("b", 0, f"Elements={n}"): spread for n, spread in enumerate(spreads)}
    lucky = {**cycles, ("b", 0, "Elements=0"): 0.001}
    calibration = Calibration(("a", "b"), 0.01, _states([0.0] * 30, 4))
    _, usual = one_new_run(calibration, PRESETS["default"], cycles)
    _, bounds = one_new_run(calibration, PRESETS["default"], lucky)
    assert bounds[("b", 0, "Elements=0", 0)] > 0.6 * float(np.median(list(usual.values())))


def test_a_quiet_state_regression_is_slow_beside_noisy_states(tmp_path: Path) -> None:
    """An H200's states (docs/history-quality.md, *A real GPU history*): memory-bound
    kernels repeat within 0.01 to 0.1 % from run to run, launch-bound ones within about 2 %,
    a reduction with two clock modes within 20 %. The median of the states' floors was every
    state's least drift, and a 3 % regression of a quiet state came out AMBG
    ``too_noisy_to_judge``."""
    from cuda.bench.history.archive import ingest
    from cuda.bench.history.gate import gate
    from cuda.bench.history.synthetic import HistoryNoise, SyntheticHistory, write_history
    from cuda.bench.results.synthetic import SyntheticConfig

    rng = np.random.default_rng(8)
    sigmas = np.array([0.0005] * 4 + [0.03] * 4)
    logs = sigmas[:, None] * rng.standard_normal((8, 16))
    logs[:4, -1] += math.log(1.03)
    history = SyntheticHistory(
        np.exp(logs), np.zeros(8, dtype=int), np.ones(8), HistoryNoise("iid"), 8
    )
    paths = write_history(tmp_path / "runs", history, SyntheticConfig(benchmarks=1, states=8))
    archive = tmp_path / "archive"
    for order, path in enumerate(paths[:-1]):
        ingest(archive, path, commit=f"c{order}", date=f"2026-03-{order + 1:02d}T03:00:00Z",
               order=order)  # fmt: skip
    rows = sorted(gate(archive, paths[-1]).comparison, key=lambda row: int(row.key.split("=")[1]))
    statuses = [row.status for row in rows]
    assert statuses[:4] == [Status.SLOW] * 4, [row.verdict.text for row in rows[:4]]
    assert not {Status.SLOW, Status.FAST} & set(statuses[4:])
