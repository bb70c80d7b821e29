"""Several runs per side: inputs, matching across runs, hierarchical intervals, display."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import msgspec
import numpy as np
import pytest
from cuda.bench.compare.api import compare
from cuda.bench.compare.errors import CompareInputError
from cuda.bench.compare.estimates import estimates
from cuda.bench.compare.evidence import SideEvidence
from cuda.bench.compare.methods.ci import decide, row_effects
from cuda.bench.compare.model import Reason, Status
from cuda.bench.compare.runs import (
    RunsEvidence,
    expand_runs,
    run_estimates,
    side_runs,
    with_runs,
)
from cuda.bench.compare.thresholds import PRESETS
from cuda.bench.results.synthetic import SyntheticConfig, SyntheticPair, write_pair

DEFAULT = PRESETS["default"]
CONFIG = SyntheticConfig(benchmarks=2, states=3, samples=400)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> SyntheticPair:
    """Three runs per side; one state 10 % slower in every compare run."""
    root = tmp_path_factory.mktemp("runs")
    return write_pair(
        root,
        CONFIG,
        seed=3,
        ref_runs=3,
        cmp_runs=3,
        shifts={("bench_00", "Device=0 Elements=2048"): 1.1},
    )


def run(seed: int, scale: float = 1.0, n: int = 2000) -> SideEvidence:
    rng = np.random.default_rng(seed)
    clocks = 1.7e9 * (1.0 + 0.001 * rng.standard_normal(n))
    times = 2e-5 * 1.7e9 * scale * rng.lognormal(0.0, 0.01, n) / clocks
    return SideEvidence.from_samples(times, clocks)


# ---------------------------------------------------------------------------------------------
# Evidence of several runs


def test_with_runs_keeps_the_primary_fields_and_lists_every_run() -> None:
    first, second = run(1), run(2)
    combined = with_runs(first, [second])
    assert isinstance(combined, RunsEvidence)
    assert combined.timing == first.timing and combined.clock_rate == first.clock_rate
    assert side_runs(combined) == (first, second)
    assert with_runs(first, []) is first
    assert side_runs(first) == (first,)
    # Adding runs to a multi-run evidence starts from its primary run.
    assert side_runs(with_runs(combined, [second]))[0] is first


def test_a_single_run_in_a_list_is_the_one_run_comparison(runs: SyntheticPair) -> None:
    single = compare(runs.ref[0], runs.cmp[0], method="ci")
    listed = compare([runs.ref[0]], [runs.cmp[0]], method="ci")
    assert [row.verdict for row in single] == [row.verdict for row in listed]
    assert listed.settings["runs"] == [1, 1]


def test_drift_between_runs_widens_the_interval() -> None:
    steady = [run(10 + i) for i in range(3)]
    drifting = [run(20 + i, scale=factor) for i, factor in enumerate((0.98, 1.0, 1.02))]
    reference = with_runs(run(1), [run(2), run(3)])
    calm = row_effects(reference, with_runs(steady[0], steady[1:]), DEFAULT)
    moving = row_effects(reference, with_runs(drifting[0], drifting[1:]), DEFAULT)
    assert not isinstance(calm, Reason) and not isinstance(moving, Reason)
    assert moving.time.hi - moving.time.lo > 5 * (calm.time.hi - calm.time.lo)
    assert moving.runs == (3, 3) and moving.time_basis == "hierarchical-bootstrap"
    # The drift that one run per side cannot see becomes an undecided row, not a change.
    single = decide(run(1), drifting[2], DEFAULT)
    several = decide(reference, with_runs(drifting[2], drifting[:2]), DEFAULT)
    assert single.status is Status.SLOW
    assert several.status is Status.AMBG


def test_center_of_several_runs_is_the_geometric_mean_of_their_medians() -> None:
    sides = [run(30 + i, scale=s) for i, s in enumerate((1.0, 1.02, 1.04))]
    found = row_effects(run(1), with_runs(sides[0], sides[1:]), DEFAULT)
    assert not isinstance(found, Reason)
    medians = [side.timing.median for side in sides]
    reference = run(1).timing.median
    assert medians[0] is not None and reference is not None
    geomean = math.exp(sum(math.log(m) for m in medians if m) / 3)
    assert found.time.ratio == pytest.approx(geomean / reference)
    ref_side, cmp_side = run(1), with_runs(sides[0], sides[1:])
    primary = estimates(ref_side, sides[0])
    ref_estimate, cmp_estimate = run_estimates(ref_side, cmp_side, primary)
    assert cmp_estimate.center == pytest.approx(geomean)
    assert cmp_estimate.sample_count == 6000
    assert ref_estimate.center == reference


@pytest.mark.parametrize(
    ("clocks", "shown"),
    [
        ((1e308, 1e308), 1e308),
        ((1.7e308, 1.7e308, 1.7e308), 1.7e308),
        ((math.inf, -math.inf), None),
        ((1.7e9, math.nan), None),
    ],
)
def test_the_mean_clock_of_several_runs_never_overflows(
    clocks: tuple[float, ...], shown: float | None
) -> None:
    """Two runs with a clock of 1e308 Hz stopped the comparison with an OverflowError in
    math.fsum (the partial sum passes the largest float). The display shows the runs' mean
    clock, for any finite clocks; with no such mean (NaN, or inf against -inf), NaN."""
    sides = [msgspec.structs.replace(run(40 + i), clock_rate=c) for i, c in enumerate(clocks)]
    cmp_side = with_runs(sides[0], sides[1:])
    primary = estimates(run(1), sides[0])
    _, cmp_estimate = run_estimates(run(1), cmp_side, primary)
    assert cmp_estimate.clock_rate is not None
    if shown is None:
        assert math.isnan(cmp_estimate.clock_rate)
    else:
        assert cmp_estimate.clock_rate == pytest.approx(shown)


# ---------------------------------------------------------------------------------------------
# compare() with lists of runs


def test_compare_lists_of_runs(runs: SyntheticPair) -> None:
    result = compare(list(runs.ref), list(runs.cmp), method="ci")
    assert result.settings["runs"] == [3, 3]
    assert result.inputs[0].ref == tuple(str(path) for path in runs.ref)
    slow = [row for row in result if row.status is Status.SLOW]
    assert [(row.benchmark, row.key) for row in slow] == [("bench_00", "Elements=2048")]
    effect = slow[0].verdict.effect
    assert effect is not None and effect.basis == "hierarchical-bootstrap"
    assert effect.lo < 1.1 < effect.hi
    assert "runs 3 vs. 3" in slow[0].verdict.message
    assert result.counts[Status.FAST] == 0


def test_a_directory_in_a_list_stands_for_its_runs(runs: SyntheticPair, tmp_path: Path) -> None:
    ref_dir = tmp_path / "ref"
    ref_dir.mkdir()
    for path in runs.ref:
        shutil.copy(path, ref_dir / path.name)
        shutil.copytree(
            path.parent / f"{path.name}-bin", ref_dir / f"{path.name}-bin", dirs_exist_ok=True
        )
        freqs = path.parent / f"{path.name}-freqs-bin"
        if freqs.exists():
            shutil.copytree(freqs, ref_dir / freqs.name, dirs_exist_ok=True)
    assert expand_runs([ref_dir], "reference") == tuple(sorted(ref_dir.glob("*.json")))
    result = compare([ref_dir], list(runs.cmp), method="ci")
    assert result.settings["runs"] == [3, 3]
    assert not result.warnings


def test_expand_runs_rejects_empty_inputs(tmp_path: Path) -> None:
    assert expand_runs("a.json", "reference") is None
    with pytest.raises(CompareInputError, match="no reference runs"):
        expand_runs([], "reference")
    with pytest.raises(CompareInputError, match=r"holds no \.json runs"):
        expand_runs([tmp_path], "compare")


def test_robust_refuses_several_runs_with_a_clear_message(runs: SyntheticPair) -> None:
    with pytest.raises(CompareInputError, match=r"method 'robust' compares one run per side"):
        compare(list(runs.ref), list(runs.cmp), method="robust")
    # One run per side in list form is fine for robust.
    result = compare([runs.ref[0]], [runs.cmp[0]], method="robust")
    assert len(result.rows) == 6


def test_states_missing_from_a_run_use_the_other_runs(runs: SyntheticPair, tmp_path: Path) -> None:
    # A third compare run with only bench_01: bench_00 rows use two compare runs.
    partial = tmp_path / "partial.json"
    data = json.loads(runs.cmp[2].read_text())
    data["benchmarks"] = [b for b in data["benchmarks"] if b["name"] == "bench_01"]
    partial.write_text(json.dumps(data))
    shutil.copytree(
        runs.cmp[2].parent / f"{runs.cmp[2].name}-bin",
        tmp_path / "cmp_2.json-bin",
        dirs_exist_ok=True,
    )
    shutil.copytree(
        runs.cmp[2].parent / f"{runs.cmp[2].name}-freqs-bin",
        tmp_path / "cmp_2.json-freqs-bin",
        dirs_exist_ok=True,
    )
    result = compare(list(runs.ref), [runs.cmp[0], runs.cmp[1], partial], method="ci")
    notes = [text for text in result.warnings if "lacks" in text]
    assert len(notes) == 1 and "for 3 compared state(s)" in notes[0]
    row = next(row for row in result if row.benchmark == "bench_00")
    assert "runs 3 vs. 2" in row.verdict.text
