"""The paired analysis (``cuda.bench.compare.paired``, method ``paired``, its inputs)."""

from __future__ import annotations

import math
from pathlib import Path

import msgspec
import numpy as np
import pytest
from cuda.bench.compare import CompareInputError
from cuda.bench.compare.evidence import SideEvidence
from cuda.bench.compare.methods import row_evidence
from cuda.bench.compare.methods.paired import PairedMethod
from cuda.bench.compare.model import Reason, Status
from cuda.bench.compare.paired import (
    PairedDesign,
    floor_upper_bound,
    paired_interval,
    round_changes,
    round_expansion,
    slot_floor,
)
from cuda.bench.compare.paired_inputs import compare_paired, compare_paired_directory
from cuda.bench.compare.runs import with_runs
from cuda.bench.compare.thresholds import Thresholds
from cuda.bench.results.synthetic import SyntheticConfig, state_keys, write_run


def test_slot_floor_leaves_out_the_order_effect() -> None:
    # The second run of a round is 2 % slower: with alternation the round changes swing
    # ±2 % by slot, which is not jitter; within each slot they differ by 0.1 %.
    changes = [0.02, -0.02, 0.021, -0.021, 0.019, -0.019]
    first = ("ref", "cmp") * 3
    floor, df = slot_floor(changes, first)  # type: ignore[arg-type]
    assert df == 4
    assert floor == pytest.approx(math.sqrt((2e-6 + 2e-6) / 4), rel=1e-9)
    unknown, df_unknown = slot_floor(changes, None)
    assert df_unknown == 5 and unknown > 10 * floor
    assert slot_floor([0.1], None) == (0.0, 0)
    # One round per slot leaves no degree of freedom: all rounds form one slot.
    assert slot_floor([0.01, 0.03], ("ref", "cmp"))[1] == 1


def test_interval_widens_with_few_rounds_and_contains_the_estimate() -> None:
    rng = np.random.default_rng(1)
    changes = list(0.03 + 0.005 * rng.standard_normal(8))
    errors = [0.001] * 8
    found, _, _ = paired_interval(changes, errors, confidence=0.95, resamples=4000, seed=0)
    assert found.estimate == pytest.approx(float(np.mean(changes)))
    assert found.lo < found.estimate < found.hi
    se = float(np.std(changes, ddof=1)) / math.sqrt(8)
    # At least the t interval's half-width, not much more (the within noise adds a little).
    half = (found.hi - found.lo) / 2
    t_half = round_expansion(7, 0.95) * 1.959964 * se
    assert 0.9 * t_half < half < 1.4 * t_half
    again, _, _ = paired_interval(changes, errors, confidence=0.95, resamples=4000, seed=0)
    assert (again.lo, again.hi) == (found.lo, found.hi)
    assert round_expansion(1, 0.95) > round_expansion(7, 0.95) > 1.0


def test_interval_resampled_within_slots_cancels_an_order_effect() -> None:
    # A drift trend inside each round: +-1 % by slot, 0.05 % jitter besides.
    rng = np.random.default_rng(2)
    first = ("ref", "cmp") * 4
    changes = [0.03 + (0.01 if side == "ref" else -0.01) for side in first]
    changes = [c + 0.0005 * rng.standard_normal() for c in changes]
    errors = [0.0002] * 8
    options = {"confidence": 0.95, "resamples": 4000, "seed": 1}
    known, _, _ = paired_interval(changes, errors, first=first, **options)  # type: ignore[arg-type]
    unknown, _, _ = paired_interval(changes, errors, **options)  # type: ignore[arg-type]
    assert known.estimate == unknown.estimate == pytest.approx(float(np.mean(changes)))
    assert known.hi - known.lo < 0.2 * (unknown.hi - unknown.lo)
    assert known.lo < 0.03 < known.hi


def _side(center: float, clock: float | None = 1.5e9) -> SideEvidence:
    rng = np.random.default_rng(int(center * 1e9) % 2**32)
    times = center * np.exp(0.002 * rng.standard_normal(200))
    frequencies = None if clock is None else np.full(200, clock)
    return SideEvidence.from_samples(times, frequencies)


def _row(ref_centers: list[float], cmp_centers: list[float], **thresholds: float):  # type: ignore[no-untyped-def]
    ref = [_side(c) for c in ref_centers]
    cmp = [_side(c) for c in cmp_centers]
    return row_evidence(
        with_runs(ref[0], ref[1:]), with_runs(cmp[0], cmp[1:]), Thresholds(**thresholds)
    )


def test_round_changes_cancel_common_drift() -> None:
    drift = [1.0, 1.05, 0.95, 1.08]
    ref = [_side(1e-3 * d) for d in drift]
    cmp = [_side(1.03e-3 * d) for d in drift]
    changes = round_changes(ref, cmp, Thresholds())
    assert not isinstance(changes, Reason)
    assert all(abs(c - math.log(1.03)) < 0.002 for c in changes.time)
    assert changes.cycles is not None and changes.cycles == pytest.approx(changes.time, abs=1e-6)


def test_method_verdicts() -> None:
    drift = [1.0, 1.05, 0.95, 1.08, 1.02, 0.97]
    method = PairedMethod(PairedDesign(rounds=6, first=("ref", "cmp") * 3))
    slow = method.decide(_row([1e-3 * d for d in drift], [1.03e-3 * d for d in drift]))
    assert slow.status is Status.SLOW
    assert slow.effect is not None and slow.effect.basis == "paired-rounds"
    assert 1.02 < slow.effect.lo < 1.03 < slow.effect.hi < 1.04
    same = method.decide(_row([1e-3 * d for d in drift], [1e-3 * d for d in drift]))
    assert same.status is Status.SAME
    # A change inside a (calibrated) A/A floor of 5 % is not called.
    within = method.decide(
        _row([1e-3 * d for d in drift], [1.03e-3 * d for d in drift], ci_noise_floor=0.05)
    )
    assert (within.status, within.reason) == (Status.AMBG, Reason.PAIRED_CHANGE_WITHIN_FLOOR)
    # Too few rounds, and rounds without the state in one run.
    one = PairedMethod(PairedDesign(rounds=1)).decide(_row([1e-3], [1.1e-3]))
    assert one.reason is Reason.PAIRED_TOO_FEW_ROUNDS
    gaps = method.decide(_row([1e-3 * d for d in drift], [1.03e-3 * d for d in drift[:5]]))
    assert gaps.reason is Reason.PAIRED_ROUNDS_INCOMPLETE


def test_floor_upper_bound_is_the_chi_square_bound() -> None:
    # s sqrt(df / chi2_df(alpha)); chi2 quantiles from tables: chi2_6(0.025) = 1.2373,
    # chi2_2(0.025) = 0.05064, chi2_1(0.025) = 0.000982, chi2_20(0.05) = 10.851.
    assert floor_upper_bound(0.01, 6, 0.025) == pytest.approx(0.01 * math.sqrt(6 / 1.2373), 5e-3)
    assert floor_upper_bound(0.01, 2, 0.025) == pytest.approx(0.01 * math.sqrt(2 / 0.05064), 1e-3)
    assert floor_upper_bound(0.01, 1, 0.025) == pytest.approx(0.01 * math.sqrt(1 / 0.000982), 1e-2)
    assert floor_upper_bound(0.01, 20, 0.05) == pytest.approx(0.01 * math.sqrt(20 / 10.851), 5e-3)
    assert floor_upper_bound(0.01, 0, 0.025) == math.inf
    # More degrees of freedom, a tighter bound; never below the estimate.
    assert 0.01 < floor_upper_bound(0.01, 30, 0.025) < floor_upper_bound(0.01, 6, 0.025)


# Per-round levels of 8 alternated rounds whose changes jitter by about 1.2 % (A/A): the
# interval (about ±1.1 % wide) cannot fit ±1 %, but fits the floor's upper bound (~2.6 %).
_JITTER = [0.012, -0.011, -0.013, 0.010, 0.001, 0.014, -0.012, 0.003]


def _jittered(ref: list[float], change: float = 0.0) -> list[float]:
    """``ref``'s rounds changed by ``change`` (log) and each round's :data:`_JITTER`."""
    return [c * math.exp(change + j) for c, j in zip(ref, _JITTER, strict=True)]


def test_same_within_the_states_own_floor() -> None:
    method = PairedMethod(PairedDesign(rounds=8, first=("ref", "cmp") * 4))
    ref = [1e-3 * (1.0 + 0.03 * math.sin(r)) for r in range(8)]
    same = method.decide(_row(ref, _jittered(ref)))
    assert (same.status, same.reason) == (Status.SAME, Reason.PAIRED_SAME_WITHIN_FLOOR)
    assert same.effect is not None
    assert same.effect.lo < 1 / 1.01 or same.effect.hi > 1.01  # it does not fit ±1 %
    # The band used is recorded and named: wider than ±1 %, within the ±5 % cap.
    band = same.effect.tolerance
    assert 0.015 < band < 0.05
    assert f"within its ±{band:.2%} floor" in same.message and "97.5% upper bound" in same.message
    # Inside ±1 % with the default tolerance would need a quieter state; a wider preset
    # tolerance takes the plain SAME.
    wide = method.decide(_row(ref, _jittered(ref), ci_tolerance=0.05))
    assert (wide.status, wide.reason) == (Status.SAME, Reason.CI_SAME)
    # A change of 3x the jitter is still found, not absorbed by the floor band.
    slow = method.decide(_row(ref, _jittered(ref, 0.036)))
    assert slow.status is Status.SLOW and slow.effect is not None
    assert slow.effect.tolerance == pytest.approx(0.01)
    # An estimate that clears the floor (1.35 % against 1.15 %) is no SAME, although its
    # interval lies inside the floor band; a smaller one (0.86 %) is.
    clears = method.decide(_row(ref, _jittered(ref, 0.013)))
    assert clears.status is Status.AMBG
    assert "floor band, but the estimate +1.35% clears the floor" in clears.message
    inside = method.decide(_row(ref, _jittered(ref, 0.008)))
    assert (inside.status, inside.reason) == (Status.SAME, Reason.PAIRED_SAME_WITHIN_FLOOR)
    # A calibration's paired floor above the bound sets the band, and is named.
    calibrated = method.decide(_row(ref, _jittered(ref), ci_noise_floor=0.04))
    assert calibrated.reason is Reason.PAIRED_SAME_WITHIN_FLOOR
    assert calibrated.effect is not None
    assert calibrated.effect.tolerance == pytest.approx(math.expm1(0.04))
    assert "within its ±4.08% floor: the calibration's paired floor" in calibrated.message
    # A floor whose band would pass [ci] max_tolerance never gives SAME.
    capped = method.decide(_row(ref, _jittered(ref), ci_max_tolerance=0.02))
    assert capped.status is Status.AMBG


def test_clock_change_is_not_a_code_change() -> None:
    drift = [1.0, 1.05, 0.95, 1.08]
    method = PairedMethod(PairedDesign(rounds=4))
    ref = [_side(1e-3 * d, clock=1.5e9) for d in drift]
    # 3 % longer at a 3 % lower clock: the same cycles.
    cmp = [_side(1.03e-3 * d, clock=1.5e9 / 1.03) for d in drift]
    verdict = method.decide(
        row_evidence(with_runs(ref[0], ref[1:]), with_runs(cmp[0], cmp[1:]), Thresholds())
    )
    assert (verdict.status, verdict.reason) == (Status.AMBG, Reason.CLOCK_CHANGE_EXPLAINS_TIME)


def test_the_paired_call_is_public_api() -> None:
    import cuda.bench.compare as package
    from cuda.bench.compare import paired, paired_inputs

    for name, home in (
        ("compare_paired", paired_inputs),
        ("compare_paired_directory", paired_inputs),
        ("PairedDesign", paired),
    ):
        assert name in package.__all__ and name in dir(package)
        assert getattr(package, name) is getattr(home, name)


def test_compare_paired_records_the_design_and_checks_inputs(tmp_path: Path) -> None:
    config = SyntheticConfig(benchmarks=1, states=2, samples=100)
    keys = state_keys(config)
    ref, cmp = [], []
    for r in range(4):
        for side, paths in (("ref", ref), ("cmp", cmp)):
            path = tmp_path / f"{side}{r}.json"
            factor = 1.1 if side == "cmp" else 1.0
            write_run(path, config, seed=3, side=side, run=r, shifts={keys[0]: factor})  # type: ignore[arg-type]
            paths.append(path)
    design = PairedDesign(rounds=4, first=("ref", "cmp", "ref", "cmp"), order="alternate")
    comparison = compare_paired(ref, cmp, design=design)
    assert comparison.method == "paired"
    assert comparison.settings["design"]["first"] == ["ref", "cmp", "ref", "cmp"]
    assert [row.status for row in comparison.rows] == [Status.SLOW, Status.SAME]
    with pytest.raises(CompareInputError, match="as many reference as compare"):
        compare_paired(ref, cmp[:3])
    with pytest.raises(CompareInputError, match="design of 3 rounds"):
        compare_paired(ref, cmp, design=PairedDesign(rounds=3))


def test_too_few_samples_in_a_round_is_never_a_change() -> None:
    # #29's minimum holds for the paired method too: runs of one sample gave the
    # zero-width "+2.50% [+2.50%, +2.50%]" SLOW that every other method refuses.
    method = PairedMethod(PairedDesign(rounds=2))

    def runs(value: float, size: int) -> list[SideEvidence]:
        return [SideEvidence.from_samples(np.full(size, value)) for _ in range(2)]

    for size in (1, 3):
        ref, cmp = runs(1e-3, size), runs(1.025e-3, size)
        verdict = method.decide(
            row_evidence(with_runs(ref[0], ref[1:]), with_runs(cmp[0], cmp[1:]), Thresholds())
        )
        assert (verdict.status, verdict.reason) == (Status.AMBG, Reason.TOO_FEW_SAMPLES)
        assert f"reference {size}, compare {size}" in verdict.message


def test_lattice_medians_one_tick_apart_are_not_a_change() -> None:
    # #25's rule for every method: on a timer that ticks in 1.024 us steps a median is known
    # to within half a tick, so medians one tick apart (1.35 % at 75.8 us) are never a
    # confident change. Four stable rounds gave the paired method a zero-width +1.35 % SLOW.
    tick = 1.024e-6
    rng = np.random.default_rng(5)

    def run(ticks: int) -> SideEvidence:
        steps = rng.choice([-1, 0, 1], size=400, p=[0.2, 0.6, 0.2])
        return SideEvidence.from_samples((ticks + steps) * tick)

    rounds = 4
    ref = [run(74) for _ in range(rounds)]
    cmp = [run(75) for _ in range(rounds)]
    method = PairedMethod(PairedDesign(rounds=rounds))
    verdict = method.decide(
        row_evidence(with_runs(ref[0], ref[1:]), with_runs(cmp[0], cmp[1:]), Thresholds())
    )
    assert not verdict.status.is_change, verdict.message
    assert verdict.effect is not None and verdict.effect.lo < 1.01 < verdict.effect.hi
    # Three ticks apart (4 %) the change stands.
    far = [run(77) for _ in range(rounds)]
    verdict = method.decide(
        row_evidence(with_runs(ref[0], ref[1:]), with_runs(far[0], far[1:]), Thresholds())
    )
    assert verdict.status is Status.SLOW, verdict.message


def test_rounds_far_apart_give_a_verdict_not_an_overflow() -> None:
    """A round whose times are 1e-17 times the other's (tiny samples in a foreign or
    damaged file: the jitter of the rounds is some 40 in log) overflowed the floor's band
    (``math.expm1``: OverflowError, a traceback and exit 1); such a floor is wider than
    any band a SAME may be claimed within."""
    method = PairedMethod(PairedDesign(rounds=2))
    verdict = method.decide(_row([1e-20, 1e-3], [1e-3, 1e-3]))
    assert verdict.status in {Status.AMBG, Status.UNKNOWN}, verdict


@pytest.mark.parametrize("alone", ["text", "path"])
def test_compare_paired_refuses_one_run_given_alone(gpu_dir: Path, alone: str) -> None:
    # A path as text was read as a list of one-character runs: the error named run '/'.
    from cuda.bench.compare import compare_paired

    ref, cmp = gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"
    given = str(ref) if alone == "text" else ref
    with pytest.raises(TypeError, match=r"^ref must be a list of runs \(one per round"):
        compare_paired(given, [cmp, cmp])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^cmp must be a list of runs"):
        compare_paired([ref, ref], str(cmp))


@pytest.mark.parametrize("clock", [math.nan, 0.0, 1e308])
def test_a_clock_that_is_no_clock_leaves_the_rounds_undecided(clock: float) -> None:
    """Without side files the cycles come from the mean SM clocks. A clock that is no clock
    (NaN, zero, beyond any GPU's) read as no clock at all (NaN: the rounds decided on their
    times alone) or scaled the cycles past any change (1e308 Hz): SLOW either way."""
    drift = [1.0, 1.05, 0.95, 1.08, 1.02, 0.97]

    def side(center: float, rate: float) -> SideEvidence:
        return msgspec.structs.replace(
            SideEvidence.from_samples(_side(center).bulk.ordered_times(), bulk=False),
            clock_rate=rate,
        )

    ref = [side(1e-3 * d, 1.5e9) for d in drift]
    cmp = [side(1.03e-3 * d, clock) for d in drift]
    method = PairedMethod(PairedDesign(rounds=6, first=("ref", "cmp") * 3))
    verdict = method.decide(
        row_evidence(with_runs(ref[0], ref[1:]), with_runs(cmp[0], cmp[1:]), Thresholds())
    )
    assert (verdict.status, verdict.reason) == (Status.AMBG, Reason.INVALID_CLOCK_RATE)
    control = [side(1.03e-3 * d, 1.5e9) for d in drift]
    verdict = method.decide(
        row_evidence(with_runs(ref[0], ref[1:]), with_runs(control[0], control[1:]), Thresholds())
    )
    assert verdict.status is Status.SLOW


def test_a_change_with_clocks_on_some_runs_only_is_decided_in_time_alone() -> None:
    """Compare runs without a mean SM clock beside reference runs with one (an NVBench that
    records none against one that does): the rounds are decided on their times alone, as
    without clocks in any run; a rule that made such a change AMBG let a regression pass
    ``--fail-on slow``."""
    drift = [1.0, 1.05, 0.95, 1.08, 1.02, 0.97]

    def side(center: float, rate: float | None) -> SideEvidence:
        times = _side(center).bulk.ordered_times()
        return msgspec.structs.replace(
            SideEvidence.from_samples(times, bulk=False), clock_rate=rate
        )

    method = PairedMethod(PairedDesign(rounds=6, first=("ref", "cmp") * 3))

    def decide(ref_clock: float | None, cmp_clock: float | None) -> tuple[Status, Reason]:
        ref = [side(1e-3 * d, ref_clock) for d in drift]
        cmp = [side(1.03e-3 * d, cmp_clock) for d in drift]
        verdict = method.decide(
            row_evidence(with_runs(ref[0], ref[1:]), with_runs(cmp[0], cmp[1:]), Thresholds())
        )
        return verdict.status, verdict.reason

    for clocks in ((1.5e9, None), (None, 1.5e9), (None, None)):
        assert decide(*clocks) == (Status.SLOW, Reason.CI_CHANGE_WITHOUT_CYCLES), clocks


#: Designs no runner makes, each refused when made, naming the field: unchecked, they were
#: compared and reported as given (rounds=2.0 as "rounds": 2.0, order "bogus").
BAD_DESIGNS: list[tuple[dict[str, object], type[Exception], str]] = [
    ({"rounds": 2.0}, TypeError, "rounds must be an int, got 2.0"),
    ({"rounds": True}, TypeError, "rounds must be an int, got True"),
    ({"rounds": "2"}, TypeError, "rounds must be an int, got '2'"),
    ({"rounds": 0}, ValueError, "rounds must be at least 1, got 0"),
    ({"rounds": 2, "first": ("x", "y")}, ValueError, "first: each round's first side is"),
    ({"rounds": 3, "first": ("x", "y", "z")}, ValueError, "first: each round's first side is"),
    ({"rounds": 2, "first": "rc"}, TypeError, "first must be None or a tuple of 'ref' and"),
    ({"rounds": 3, "first": ("ref", "cmp")}, ValueError, "3 rounds but 2 first sides"),
    ({"rounds": 2, "order": "bogus"}, ValueError, "order must be 'alternate', 'random' or"),
    ({"rounds": 2, "order": 1}, TypeError, "order must be 'alternate', 'random' or None"),
    ({"rounds": 2, "seed": 1.5}, TypeError, "seed must be an int or None, got 1.5"),
    ({"rounds": 2, "seed": "7"}, TypeError, "seed must be an int or None, got '7'"),
]


@pytest.mark.parametrize(
    ("fields", "error", "said"), BAD_DESIGNS, ids=[repr(bad[0]) for bad in BAD_DESIGNS]
)
def test_a_design_no_runner_makes_is_refused(
    fields: dict[str, object], error: type[Exception], said: str
) -> None:
    with pytest.raises(error) as caught:
        PairedDesign(**fields)  # type: ignore[arg-type]
    assert str(caught.value).startswith(f"PairedDesign: {said}")
    # Decoded designs are held to the same rule.
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert(fields, PairedDesign)


def test_a_design_takes_what_the_runner_writes() -> None:
    design = PairedDesign(np.int64(4), ["ref", "cmp", "cmp", "ref"], "random", -7)  # type: ignore[arg-type]
    # Stored as the types it is typed with (a list would make the frozen value unhashable).
    assert design.rounds == 4 and type(design.rounds) is int
    assert design.first == ("ref", "cmp", "cmp", "ref")
    # The runner takes any int for --seed (Python's random does): the design records it.
    assert design.seed == -7 and hash(design) == hash(PairedDesign(4, design.first, "random", -7))
    assert PairedDesign(1).to_data()["first"] is None


def test_compare_paired_refuses_a_design_that_is_no_design(gpu_dir: Path) -> None:
    ref, cmp = gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"
    for wrong in ({}, {"rounds": 1}, 1):
        with pytest.raises(TypeError, match=r"^design must be a PairedDesign or None, got "):
            compare_paired([ref], [cmp], design=wrong)  # type: ignore[arg-type]


def test_a_manifest_of_an_order_no_runner_writes_is_refused(tmp_path: Path) -> None:
    config = SyntheticConfig(benchmarks=1, states=1, samples=50)
    rounds = []
    for r in range(2):
        runs = []
        for side in ("ref", "cmp"):
            write_run(tmp_path / f"{side}{r}.json", config, seed=3, side=side, run=r)
            runs.append({"side": side, "status": "ok", "json": f"{side}{r}.json"})
        rounds.append({"round": r + 1, "first": "ref", "runs": runs})
    manifest = {
        "schema": "nvbench-tools.ab-manifest",
        "schema_version": 1,
        "order": "bogus",
        "seed": None,
        "rounds": rounds,
    }
    (tmp_path / "manifest.json").write_bytes(msgspec.json.encode(manifest))
    with pytest.raises(CompareInputError, match=r"'order' is 'bogus'; expected 'alternate' or"):
        compare_paired_directory(tmp_path)
    manifest["order"] = "alternate"
    (tmp_path / "manifest.json").write_bytes(msgspec.json.encode(manifest))
    comparison, _ = compare_paired_directory(tmp_path)
    assert comparison.settings["design"]["order"] == "alternate"
