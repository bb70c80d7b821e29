"""A/A calibration: noise floors, false-change rates, the file, and its use in compare()."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cuda.bench.compare.api import compare
from cuda.bench.compare.bootstrap import student_t_quantile
from cuda.bench.compare.calibrate import (
    CALIBRATION_SCHEMA,
    MAX_TOLERANCE,
    Calibration,
    MethodRate,
    StateFloor,
    calibrate,
    pooled_floors,
    state_floor,
    uncapped_tolerance,
)
from cuda.bench.compare.calibration_file import load_calibration, loads_calibration
from cuda.bench.compare.errors import CompareInputError, ConfigError
from cuda.bench.compare.evidence import SideEvidence
from cuda.bench.compare.model import Reason, Status
from cuda.bench.compare.runs import StateIdentity
from cuda.bench.compare.thresholds import PRESETS
from cuda.bench.report.calibration_text import describe_rates
from cuda.bench.results import ResultFormatError
from cuda.bench.results.synthetic import SyntheticConfig, SyntheticPair, write_pair

DEFAULT = PRESETS["default"]


def floor(key: str = "Elements=1024", tolerance: float = 0.05) -> StateFloor:
    return StateFloor(
        benchmark="bench_00",
        benchmark_occurrence=0,
        device=0,
        key=key,
        occurrence=0,
        runs=5,
        center=1e-5,
        spread=0.01,
        within=0.001,
        noise_floor=0.00995,
        degrees_of_freedom=4,
        tolerance=tolerance,
    )


def sample_run(seed: int, level: float, n: int = 2000) -> SideEvidence:
    rng = np.random.default_rng(seed)
    clocks = 1.7e9 * (1.0 + 0.001 * rng.standard_normal(n))
    times = 1e-5 * level * rng.lognormal(0.0, 0.01, n)
    return SideEvidence.from_samples(times, clocks)


# ---------------------------------------------------------------------------------------------
# The noise floor of one state


def test_noise_floor_is_the_between_run_spread_beyond_sampling() -> None:
    levels = [1.0, 1.02, 0.99, 1.01, 0.98]
    runs = [sample_run(seed, level) for seed, level in enumerate(levels)]
    found = state_floor(StateIdentity("b", 0, 0, "k", 0), runs, DEFAULT, 0.01)
    assert found is not None and found.runs == 5 and found.degrees_of_freedom == 4
    logs = np.log([run.timing.median for run in runs if run.timing.median])
    spread = float(np.std(logs, ddof=1))
    assert found.spread == pytest.approx(spread, rel=1e-5)  # float32 side files
    assert 0 < found.within < 0.001  # a 2000-sample median: ~0.03 %
    assert found.noise_floor == pytest.approx(math.sqrt(found.spread**2 - found.within**2))
    t = student_t_quantile(0.995, 4)
    assert found.tolerance == pytest.approx(math.expm1(t * math.sqrt(2) * found.noise_floor))
    assert found.center == pytest.approx(float(np.exp(np.mean(logs))), rel=1e-6)


def test_runs_that_agree_within_sampling_noise_keep_the_preset_tolerance() -> None:
    runs = [sample_run(seed, 1.0) for seed in range(4)]
    found = state_floor(StateIdentity("b", 0, 0, "k", 0), runs, DEFAULT, 0.01)
    assert found is not None
    assert found.tolerance < DEFAULT.ci_tolerance


def test_tolerance_is_capped_and_needs_two_runs() -> None:
    wild = [sample_run(1, 1.0), sample_run(2, 1.8)]
    found = state_floor(StateIdentity("b", 0, 0, "k", 0), wild, DEFAULT, 0.01)
    assert found is not None and found.tolerance == MAX_TOLERANCE
    assert state_floor(StateIdentity("b", 0, 0, "k", 0), wild[:1], DEFAULT, 0.01) is None


# ---------------------------------------------------------------------------------------------
# The file


def test_file_round_trip(tmp_path: Path) -> None:
    original = Calibration(
        runs=("a1.json", "a2.json"),
        target_rate=0.01,
        states=(floor(), floor("Elements=2048", 0.002)),
        rates=(MethodRate("ci", "default", pairs=1, same=3, slow=1),),
    )
    path = tmp_path / "cal.json"
    path.write_text(original.to_json(), encoding="utf-8")
    loaded = load_calibration(path)
    assert loaded.source == str(path)
    assert (loaded.runs, loaded.target_rate, loaded.states, loaded.rates) == (
        original.runs,
        original.target_rate,
        original.states,
        original.rates,
    )
    data = json.loads(path.read_text())
    assert data["schema"] == CALIBRATION_SCHEMA and data["schema_version"] == 1
    assert data["rates"][0]["false_change_rate"] == 0.25
    assert loaded.tolerance_for("bench_00", 0, 0, "Elements=1024", 0) == 0.05
    assert loaded.tolerance_for("bench_00", 0, 1, "Elements=1024", 0) is None
    assert loaded.machine_floor is None and data["machine_noise_floor"] is None
    pooled = Calibration(runs=(), target_rate=0.01, states=(floor(),), machine_floor=0.02)
    path.write_text(pooled.to_json(), encoding="utf-8")
    assert load_calibration(path).machine_floor == 0.02
    del data["machine_noise_floor"]  # files written before the field existed
    assert loads_calibration(json.dumps(data)).machine_floor is None


def _state(key: str, spread: float, runs: int) -> StateFloor:
    within = 0.001
    own = math.sqrt(max(0.0, spread * spread - within * within))
    return dataclasses.replace(
        floor(key),
        runs=runs,
        spread=spread,
        within=within,
        noise_floor=own,
        degrees_of_freedom=runs - 1,
        tolerance=min(1.0, uncapped_tolerance(own, runs - 1, 0.01)),
    )


def test_a_lucky_state_is_lifted_to_the_noise_its_machine_shares() -> None:
    """Four runs of a short state on a two-speed machine all land in one mode with
    probability 1/8: its own floor is then ~0, but 30 states that share a 1 % noise say
    otherwise, and its tolerance is computed from their moderated floor."""
    rng = np.random.default_rng(5)
    shared = 0.01 * np.sqrt(rng.chisquare(3, 30) / 3)
    states = [_state(f"n{i}", float(spread), 4) for i, spread in enumerate(shared)]
    lucky = dataclasses.replace(_state("lucky", 0.001, 4), tolerance=0.0)
    pooled, machine = pooled_floors([*states, lucky], 0.01)
    by_key = {state.key: state for state in pooled}
    assert by_key["lucky"].noise_floor == 0.0  # the state's own measurement stays
    own = [state.tolerance for state in pooled[:-1]]
    assert by_key["lucky"].tolerance > 0.6 * float(np.median(own))
    assert machine == pytest.approx(float(np.median([s.noise_floor for s in [*states, lucky]])))
    calibration = Calibration((), 0.01, pooled, machine_floor=machine)
    widened = calibration.widened(DEFAULT, by_key["lucky"])
    assert widened.ci_noise_floor > 0.004
    assert pooled_floors([], 0.01) == ((), 0.0)


def test_a_file_from_the_median_rule_reports_the_floor_its_tolerance_used() -> None:
    """A file written before the moderated floor holds tolerances from the median floor; the
    too-noisy message names the floor that tolerance came from, not a smaller one."""
    states = [_state(f"s{i}", s, 15) for i, s in enumerate([0.0003, 0.001, 0.02, 0.03, 0.04])]
    median = float(np.median([state.noise_floor for state in states]))
    t = student_t_quantile(0.995, 14)
    old = [
        dataclasses.replace(s, tolerance=math.expm1(t * math.sqrt(2) * median))
        if s.noise_floor < median
        else s
        for s in states
    ]
    calibration = Calibration((), 0.01, tuple(old), machine_floor=median)
    assert calibration.least_floor(old[0]) == pytest.approx(median)
    assert calibration.least_floor(old[4]) == pytest.approx(old[4].noise_floor)


def test_a_quiet_state_keeps_its_tolerance_beside_noisy_ones() -> None:
    """An H200's states over 15 runs (docs/history-quality.md, *A real GPU history*):
    memory-bound kernels 0.01-0.1 % from run to run, launch-bound ones 2 %, a reduction with
    two clock modes 20 %. The median floor (1.7 %) gave every quiet state ±7.4 %, so a 3 %
    regression could not be SLOW; each now keeps near its own."""
    spreads = [0.0001, 0.0003, 0.001, 0.0028, 0.0096, 0.018, 0.019, 0.026, 0.08, 0.2, 0.21]
    pooled, _ = pooled_floors([_state(f"s{i}", s, 15) for i, s in enumerate(spreads)], 0.01)
    tolerances = [state.tolerance for state in pooled]
    assert max(tolerances[:3]) < 0.02  # a 3 % regression can be SLOW
    assert tolerances == sorted(tolerances)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[]", "not a JSON object"),
        ('{"schema": "other"}', "not a calibration file"),
        (f'{{"schema": "{CALIBRATION_SCHEMA}", "schema_version": 2}}', "schema_version 2"),
        (
            f'{{"schema": "{CALIBRATION_SCHEMA}", "schema_version": 1, "runs": [], '
            '"target_false_change_rate": 0.01}',
            "missing field 'states'",
        ),
        (
            f'{{"schema": "{CALIBRATION_SCHEMA}", "schema_version": 1, "runs": [], '
            '"target_false_change_rate": 0.01, "states": [{"benchmark": 1}]}',
            "states[0]: field 'benchmark' has the wrong type",
        ),
        ("{not json", "not a calibration file"),
    ],
)
def test_bad_files_name_the_problem(text: str, problem: str) -> None:
    with pytest.raises(ConfigError, match="cal.json: .*" + problem.replace("[", r"\[")):
        loads_calibration(text, source="cal.json")


def test_negative_tolerances_are_rejected() -> None:
    data = json.loads(
        Calibration(runs=(), target_rate=0.01, states=(floor(tolerance=0.0),)).to_json()
    )
    data["states"][0]["tolerance"] = -0.1
    with pytest.raises(ConfigError, match="negative"):
        loads_calibration(json.dumps(data))


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("noise_floor", -0.01, "negative"),
        ("spread", -1.0, "negative"),
        ("paired_floor", -0.5, "negative"),
        ("center", 0.0, "negative"),
        ("runs", 1, "1 runs"),
        ("degrees_of_freedom", -3, "degrees of freedom"),
        ("tolerance", 1e308, "past the cap"),
    ],
)
def test_values_no_calibration_writes_are_rejected(field: str, value: float, problem: str) -> None:
    """A hand-edited file loaded, before: a negative floor or a tolerance of 1e308 passed."""
    data = json.loads(Calibration(runs=(), target_rate=0.01, states=(floor(),)).to_json())
    data["states"][0][field] = value
    with pytest.raises(ConfigError, match=f"cal.json: states\\[0\\]: .*{problem}"):
        loads_calibration(json.dumps(data), source="cal.json")


def test_a_state_listed_twice_or_a_rate_out_of_range_is_rejected() -> None:
    """Before, the second entry of a state silently replaced the first (a quiet state's
    SLOW became SAME), and a target rate of 7 loaded."""
    data = json.loads(Calibration(runs=(), target_rate=0.01, states=(floor(), floor())).to_json())
    with pytest.raises(ConfigError, match=r"states\[1\]: a second entry for bench_00"):
        loads_calibration(json.dumps(data))
    data["states"] = data["states"][:1]
    data["target_false_change_rate"] = 7.0
    with pytest.raises(ConfigError, match=r"target_false_change_rate 7\.0 is not between"):
        loads_calibration(json.dumps(data))


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="failed to read calibration"):
        load_calibration(tmp_path / "absent.json")


def test_widened_sets_only_the_calibrated_tolerance_and_floor() -> None:
    calibration = Calibration(runs=(), target_rate=0.01, states=())
    assert calibration.widened(DEFAULT, None) is DEFAULT
    # A calibrated state's drift is measured: single-run verdicts add no drift term.
    measured = DEFAULT.replace(ci_drift_measured=1.0)
    assert calibration.widened(DEFAULT, floor(tolerance=0.001)) == measured
    wider = calibration.widened(DEFAULT, floor(tolerance=0.03))
    assert wider == measured.replace(ci_calibrated_tolerance=0.03, ci_noise_floor=0.00995)


def test_beyond_lists_the_states_above_the_cap_noisiest_first() -> None:
    states = (floor("a", 0.04), floor("b", 0.5), floor("c", 0.08))
    calibration = Calibration(runs=(), target_rate=0.01, states=states)
    assert [state.key for state in calibration.beyond(0.05)] == ["b", "c"]
    assert calibration.beyond(1.0) == ()


# ---------------------------------------------------------------------------------------------
# Calibrating from runs, comparing with the result


@pytest.fixture(scope="module")
def aa_runs(tmp_path_factory: pytest.TempPathFactory) -> SyntheticPair:
    """Four runs of one build (written as 2 + 2 runs of an unchanged pair)."""
    root = tmp_path_factory.mktemp("aa")
    return write_pair(
        root, SyntheticConfig(benchmarks=1, states=3, samples=500), ref_runs=2, cmp_runs=2, seed=11
    )


def test_calibrate_compares_every_pair_with_every_method(aa_runs: SyntheticPair) -> None:
    runs = [*aa_runs.ref, *aa_runs.cmp]
    result = calibrate(runs, presets=("default", "strict"))
    assert result.runs == tuple(str(path) for path in runs)
    assert [(r.method, r.preset) for r in result.rates] == [
        ("robust", "default"),
        ("robust", "strict"),
        ("ci", "default"),
        ("ci", "strict"),
    ]
    for rate in result.rates:
        assert rate.pairs == 6 and rate.decided == 6 * 3 and rate.unknown == 0
    ci = next(rate for rate in result.rates if rate.method == "ci" and rate.preset == "default")
    assert ci.false_change_rate == 0.0  # synthetic runs have no drift
    assert len(result.states) == 3
    assert {state.runs for state in result.states} == {4}
    lines = describe_rates(result.rates)
    assert lines[2].startswith("ci/default: 0.00% false changes (0 of 18 row comparisons")


def test_calibrate_checks_its_inputs(aa_runs: SyntheticPair) -> None:
    with pytest.raises(CompareInputError, match="at least two runs"):
        calibrate(aa_runs.ref[:1])
    with pytest.raises(ConfigError, match="unknown comparison method"):
        calibrate(aa_runs.ref, methods=("nope",))
    with pytest.raises(ConfigError, match="target false-change rate"):
        calibrate(aa_runs.ref, target_rate=1.5)
    filtered = calibrate(aa_runs.ref, filters=[("axis", "Elements=1024")], methods=("ci",))
    assert [state.key for state in filtered.states] == ["Elements=1024"]


def test_copies_of_one_run_are_refused(aa_runs: SyntheticPair, tmp_path: Path) -> None:
    """Before, two copies of one run calibrated every floor to 0, and tolerances of 0 flag
    the next run's noise."""
    copy = tmp_path / "copy.json"
    copy.write_bytes(Path(aa_runs.ref[0]).read_bytes())
    with pytest.raises(CompareInputError, match=r"copy\.json: the same run as .*same measurements"):
        calibrate([aa_runs.ref[0], aa_runs.ref[1], copy], methods=("ci",))
    # A copy whose bytes differ (CRLF line ends, as git's autocrlf writes) is the same run.
    source = Path(aa_runs.ref[0])
    crlf = source.with_name("crlf.json")
    crlf.write_bytes(source.read_bytes().replace(b"\n", b"\r\n"))
    with pytest.raises(CompareInputError, match=r"crlf\.json: the same run as"):
        calibrate([aa_runs.ref[0], aa_runs.ref[1], crlf], methods=("ci",))


def test_compare_widens_the_tolerance_of_calibrated_states(
    aa_runs: SyntheticPair, tmp_path: Path
) -> None:
    wide = Calibration(
        runs=(),
        target_rate=0.01,
        states=(StateFloor("bench_00", 0, 0, "Elements=1024", 0, 4, 1e-5, 0.1, 0.0, 0.1, 3, 0.25),),
    )
    path = tmp_path / "cal.json"
    path.write_text(wide.to_json())
    result = compare(aa_runs.ref[0], aa_runs.cmp[0], method="ci", calibration=path)
    tolerances = {row.key: row.verdict.effect.tolerance for row in result if row.verdict.effect}
    # 25 % is above the cap (5 %): the state is held to the cap and cannot be SAME.
    assert tolerances == {"Elements=1024": 0.05, "Elements=2048": 0.01, "Elements=3072": 0.01}
    noisy = next(row for row in result if row.key == "Elements=1024")
    assert (noisy.status, noisy.reason) == (Status.AMBG, Reason.TOO_NOISY_TO_JUDGE)
    assert noisy.verdict.effect is not None and noisy.verdict.effect.calibrated_tolerance == 0.25
    loose = compare(
        aa_runs.ref[0],
        aa_runs.cmp[0],
        method="ci",
        calibration=path,
        thresholds=DEFAULT.replace(ci_max_tolerance=0.3),
    )
    row = next(row for row in loose if row.key == "Elements=1024")
    assert row.status is Status.SAME and row.verdict.effect is not None
    assert row.verdict.effect.tolerance == 0.25
    assert result.settings["calibration"] == str(path)
    assert any("no entry for 2 of 3 compared state(s)" in text for text in result.warnings)
    robust = compare(aa_runs.ref[0], aa_runs.cmp[0], method="robust", calibration=wide)
    assert any("robust' ignores it" in text for text in robust.warnings)


def test_the_real_noisy_pair_raises_no_false_alarm(cpu_dir: Path) -> None:
    """The real CPU A/A pair: a machine switching speed modes, between and within runs.

    Its runs drift within themselves, so one run per side cannot tell drift from a change
    (AMBG ``run_not_stationary``), even where the medians differ by 2x; a calibration
    from the two runs widens the bands to their drift instead."""
    runs = [cpu_dir / "cpu_run1.json", cpu_dir / "cpu_run2.json"]
    plain = compare(*runs, method="ci")
    assert plain.counts[Status.FAST] + plain.counts[Status.SLOW] == 0
    reasons = {row.reason for row in plain if row.status is Status.AMBG}
    assert Reason.RUN_NOT_STATIONARY in reasons
    calibrated = compare(*runs, method="ci", calibration=calibrate(runs, methods=("ci",)))
    assert calibrated.counts[Status.FAST] + calibrated.counts[Status.SLOW] == 0
    # Bands of ±100 % would make anything SAME; the cap makes them "cannot be judged".
    assert calibrated.counts[Status.SAME] == 0
    tolerances = [row.verdict.effect.tolerance for row in calibrated if row.verdict.effect]
    assert tolerances and min(tolerances) > 0.01


def test_negative_counts_or_machine_floor_are_rejected() -> None:
    data = json.loads(
        Calibration(
            runs=(), target_rate=0.01, states=(floor(),), rates=(MethodRate("ci", "default", 1),)
        ).to_json()
    )
    data["rates"][0]["slow"] = -1
    with pytest.raises(ConfigError, match=r"rates\[0\]: a count is negative"):
        loads_calibration(json.dumps(data))
    data["rates"][0]["slow"] = 0
    data["machine_noise_floor"] = -0.01
    with pytest.raises(ConfigError, match="machine_noise_floor is negative"):
        loads_calibration(json.dumps(data))


def _fed(target: str | Path, data: bytes) -> None:
    """Write ``data`` to ``target`` (a pipe) from a thread, as a shell's writer would."""

    def feed() -> None:
        with open(target, "wb") as pipe:
            pipe.write(data)

    threading.Thread(target=feed, daemon=True).start()


def test_calibrate_reads_runs_from_pipes(aa_runs: SyntheticPair) -> None:
    """The check for copies re-read each file: a pipe came back empty and two pipes were
    'the same run'. Pipes the shell hands over (``<(cat run.json)``, ``/dev/fd/N``)."""
    pipes = []
    for path in aa_runs.ref:
        read_end, write_end = os.pipe()
        writer = open(write_end, "wb")  # noqa: SIM115 - the thread closes it when written

        def feed(pipe: Any = writer, data: bytes = Path(path).read_bytes()) -> None:
            with pipe:
                pipe.write(data)

        threading.Thread(target=feed, daemon=True).start()
        pipes.append(f"/dev/fd/{read_end}")
    try:
        result = calibrate(pipes, methods=("ci",))
    finally:
        for pipe in pipes:
            os.close(int(pipe.rsplit("/", 1)[1]))
    assert len(result.states) == 3


def test_calibrate_refuses_a_named_pipe_rather_than_waiting_on_it(
    aa_runs: SyntheticPair, tmp_path: Path
) -> None:
    """A FIFO among the runs (a result file in an artifact, say) is refused unopened, as
    every reader refuses one (docs/security.md); fed here, so that a reader that opened it
    would read a run rather than wait for good."""
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    _fed(fifo, Path(aa_runs.ref[0]).read_bytes())
    with pytest.raises(ResultFormatError, match=r"fifo\.json: not a regular file but a named"):
        calibrate([fifo, *aa_runs.ref[1:]], methods=("ci",))
    with open(fifo, "rb") as drain:  # the feeding thread ends
        drain.read()


def test_a_run_sharing_no_state_with_the_first_is_refused(cpu_dir: Path, gpu_dir: Path) -> None:
    # A GPU run beside two CPU runs added nothing to any floor, yet the calibration counted
    # 3 runs and 3 pairs (and said 3 runs give 2 degrees of freedom where each floor had 1).
    from cuda.bench.compare.calibrate import calibrate
    from cuda.bench.compare.errors import CompareInputError

    runs = [cpu_dir / "cpu_run1.json", cpu_dir / "cpu_run2.json", gpu_dir / "gpu_ref.json"]
    with pytest.raises(CompareInputError, match=r"gpu_ref\.json: holds none of the compared"):
        calibrate(runs, methods=("ci",), presets=("default",))
    # The odd run first: the others share states, so it is the one named.
    with pytest.raises(CompareInputError, match=r"gpu_ref\.json: holds none .*share its states"):
        calibrate(runs[::-1], methods=("ci",), presets=("default",))
    # Two groups of two (each run shares states with one other): refused as well.
    pairs = [*runs[:2], gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"]
    with pytest.raises(CompareInputError, match=r"holds none of the compared states"):
        calibrate(pairs, methods=("ci",), presets=("default",))
    assert calibrate(runs[:2], methods=("ci",), presets=("default",)).runs == tuple(
        map(str, runs[:2])
    )
