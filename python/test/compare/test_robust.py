"""Method ``robust``: every branch of upstream's decision tree, presets, CPU-only states,
real NVBench files with known changes, and agreement with NVIDIA's tool when it is installed
(``NVBENCH_UPSTREAM_BIN`` = directory holding ``nvbench-compare-robust``)."""

from __future__ import annotations

import dataclasses
import itertools
import math
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest
from conftest import upstream_tool
from cuda.bench.compare.bulk import SortedSamples
from cuda.bench.compare.errors import ConfigError
from cuda.bench.compare.evidence import (
    BulkData,
    MeasurementKind,
    SideEvidence,
    TimingSummaries,
    side_evidence,
)
from cuda.bench.compare.methods import (
    DEFAULT_METHOD,
    METHODS,
    Method,
    RowEvidence,
    get_method,
    robust,
    row_evidence,
)
from cuda.bench.compare.methods.robust import ROBUST, decide, upstream_status
from cuda.bench.compare.model import Reason, Status, Verdict
from cuda.bench.compare.thresholds import PRESETS, Thresholds
from cuda.bench.results import BenchmarkResult, StateAxisValue, SubBenchmarkState
from cuda.bench.results.synthetic import SyntheticConfig, write_pair

DEFAULT = PRESETS["default"]
CLOCK = 1.755e9


# ---------------------------------------------------------------------------------------------
# Evidence built from samples


def times(seed: int, n: int = 2000, base: float = 1e-5, sigma: float = 0.01) -> Any:
    return base * np.exp(np.random.default_rng(seed).normal(0.0, sigma, n))


def clocks(seed: int, n: int = 2000, mean: float = CLOCK) -> Any:
    return np.random.default_rng(seed + 1000).normal(mean, 2e6, n)


def gpu(
    seed: int = 1,
    *,
    scale: float = 1.0,
    clock_scale: float = 1.0,
    sigma: float = 0.01,
    n: int = 2000,
    bulk: str = "full",
    values: Any = None,
) -> SideEvidence:
    """A GPU state; ``bulk`` is "full" (times + clocks), "times" (no clock file) or "none"."""
    samples = (times(seed, n, sigma=sigma) if values is None else np.asarray(values)) * scale
    freqs = clocks(seed, samples.size) * clock_scale
    side = SideEvidence.from_samples(samples, freqs, bulk=bulk == "full")
    if bulk == "times":
        side = msgspec.structs.replace(side, bulk=BulkData.from_arrays(samples.astype(np.float32)))
    return side


def cpu(
    seed: int = 1, *, scale: float = 1.0, sigma: float = 0.01, bulk: bool = True
) -> SideEvidence:
    return SideEvidence.from_samples(
        times(seed, sigma=sigma) * scale, kind=MeasurementKind.CPU_ONLY, bulk=bulk
    )


def with_timing(side: SideEvidence, **changes: float | None) -> SideEvidence:
    return msgspec.structs.replace(side, timing=msgspec.structs.replace(side.timing, **changes))


def with_bulk(side: SideEvidence, samples: Any, freqs: Any = None) -> SideEvidence:
    return msgspec.structs.replace(side, bulk=BulkData.from_arrays(samples, freqs))


def bad_clock_file(seed: int, scale: float = 1.0) -> SideEvidence:
    side = gpu(seed, scale=scale)
    freqs = clocks(seed).astype(np.float32)
    freqs[5] = 0.0
    return with_bulk(side, (times(seed) * scale).astype(np.float32), freqs)


def constant(value: float, bulk: str = "none") -> SideEvidence:
    return gpu(values=np.full(100, value), bulk=bulk)


NO_QUARTILES: dict[str, float | None] = {"q1": None, "median": None, "q3": None}


def mean_only(side: SideEvidence, **changes: float | None) -> SideEvidence:
    return with_timing(msgspec.structs.replace(side, bulk=BulkData()), **NO_QUARTILES, **changes)


# ---------------------------------------------------------------------------------------------
# Every reason of the tree


CASES: list[tuple[str, SideEvidence, SideEvidence, Status, Reason]] = [
    # step 0: unusable input
    (
        "skipped",
        msgspec.structs.replace(gpu(1), is_skipped=True, skip_reason="why"),
        gpu(2),
        Status.UNKNOWN,
        Reason.STATE_SKIPPED,
    ),
    ("kind mismatch", gpu(1), cpu(2), Status.UNKNOWN, Reason.MEASUREMENT_KIND_MISMATCH),
    (
        "no summaries",
        gpu(1),
        SideEvidence(has_summaries=False),
        Status.UNKNOWN,
        Reason.GPU_TIMING_SUMMARIES_MISSING,
    ),
    (
        "center missing",
        mean_only(gpu(1), mean=None),
        gpu(2),
        Status.UNKNOWN,
        Reason.TIMING_CENTER_MISSING,
    ),
    (
        "center nan",
        mean_only(gpu(1), mean=math.nan),
        gpu(2),
        Status.UNKNOWN,
        Reason.TIMING_CENTER_NONFINITE,
    ),
    (
        "center negative",
        mean_only(gpu(1), mean=-1e-5),
        gpu(2),
        Status.UNKNOWN,
        Reason.TIMING_CENTER_NONPOSITIVE,
    ),
    (
        "median negative",
        with_timing(gpu(1, bulk="none"), q1=None, median=-1e-5, stdev_absolute=math.inf),
        gpu(2, bulk="none"),
        Status.UNKNOWN,
        Reason.TIMING_CENTER_NONPOSITIVE,
    ),
    # step 1 + 2: clear gap confirmed in cycle space
    (
        "slow bulk",
        gpu(1),
        gpu(2, scale=1.05),
        Status.SLOW,
        Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES,
    ),
    (
        "fast bulk",
        gpu(1),
        gpu(2, scale=0.95),
        Status.FAST,
        Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES,
    ),
    (
        "throttled",
        gpu(1),
        gpu(2, scale=1.05, clock_scale=1 / 1.05),
        Status.AMBG,
        Reason.BULK_CYCLE_GAP_NOT_CONFIRMED,
    ),
    (
        "gap, bad clock file",
        gpu(1),
        bad_clock_file(2, 1.05),
        Status.AMBG,
        Reason.BULK_CYCLE_DATA_UNUSABLE,
    ),
    (
        "slow clocks",
        gpu(1, bulk="none"),
        gpu(2, scale=1.05, bulk="none"),
        Status.SLOW,
        Reason.CLEAR_GAP_CONFIRMED_BY_SUMMARY_CYCLES,
    ),
    (
        "fast clocks, no clock file",
        gpu(1, bulk="times"),
        gpu(2, scale=0.95, bulk="times"),
        Status.FAST,
        Reason.CLEAR_GAP_CONFIRMED_BY_SUMMARY_CYCLES,
    ),
    (
        "throttled clocks",
        gpu(1, bulk="none"),
        gpu(2, scale=1.05, clock_scale=1 / 1.05, bulk="none"),
        Status.AMBG,
        Reason.SUMMARY_CYCLE_GAP_NOT_CONFIRMED,
    ),
    (
        "gap, no clocks",
        msgspec.structs.replace(gpu(1, bulk="none"), clock_rate=None),
        gpu(2, scale=1.05, bulk="none"),
        Status.AMBG,
        Reason.MISSING_CLOCK_RATE,
    ),
    (
        "gap, bad clock",
        msgspec.structs.replace(gpu(1, bulk="none"), clock_rate=math.nan),
        gpu(2, scale=1.05, bulk="none"),
        Status.AMBG,
        Reason.INVALID_CLOCK_RATE,
    ),
    # step 3: SAME path, summary gate
    (
        "no interval",
        mean_only(gpu(1), stdev_absolute=-1e-8),
        mean_only(gpu(2)),
        Status.AMBG,
        Reason.MISSING_INTERVAL,
    ),
    (
        "noise inf",
        gpu(1, bulk="none"),
        with_timing(gpu(2, bulk="none"), iqr_relative=math.inf),
        Status.AMBG,
        Reason.NOISE_UNAVAILABLE,
    ),
    (
        "noise negative",
        with_timing(gpu(1), iqr_relative=-0.01),
        gpu(2),
        Status.AMBG,
        Reason.NOISE_UNAVAILABLE,
    ),
    ("centers far", gpu(1), gpu(2, scale=1.008), Status.AMBG, Reason.CENTERS_NOT_CLOSE),
    ("points apart", constant(1e-5), constant(1.002e-5), Status.AMBG, Reason.WEAK_INTERVAL_OVERLAP),
    (
        "points apart, bulk",
        constant(1e-5, "full"),
        constant(1.002e-5, "full"),
        Status.AMBG,
        Reason.WEAK_INTERVAL_OVERLAP,
    ),
    # step 3: without per-sample times
    (
        "noisy",
        gpu(1, sigma=0.05, bulk="none"),
        gpu(2, sigma=0.05, bulk="none"),
        Status.AMBG,
        Reason.NOISE_TOO_HIGH,
    ),
    (
        "same, no clocks",
        msgspec.structs.replace(gpu(1, bulk="none"), clock_rate=None),
        gpu(2, bulk="none"),
        Status.SAME,
        Reason.SAME_WITHOUT_CLOCK_RATE,
    ),
    (
        "same, clocks",
        gpu(1, bulk="none"),
        gpu(2, bulk="none"),
        Status.SAME,
        Reason.SAME_CONFIRMED_BY_CYCLES,
    ),
    (
        "same, clocks differ",
        gpu(1, bulk="none"),
        gpu(2, clock_scale=1.05, bulk="none"),
        Status.AMBG,
        Reason.CYCLE_SAME_NOT_CONFIRMED,
    ),
    (
        "same, bad clock",
        msgspec.structs.replace(gpu(1, bulk="none"), clock_rate=0.0),
        gpu(2, bulk="none"),
        Status.AMBG,
        Reason.INVALID_CLOCK_RATE,
    ),
    # step 3: per-sample evidence decides
    ("bulk same", gpu(1), gpu(2), Status.SAME, Reason.BULK_SAME),
    (
        "bulk same beats noise",
        gpu(1, sigma=0.05),
        gpu(2, sigma=0.05),
        Status.SAME,
        Reason.BULK_SAME,
    ),
    (
        "bad time file",
        gpu(1),
        with_bulk(gpu(2), np.concatenate([times(2)[:-1], [-1.0]])),
        Status.AMBG,
        Reason.BULK_TIME_DATA_UNUSABLE,
    ),
    (
        "new mode",
        gpu(1, sigma=0.002),
        gpu(2, values=np.where(np.arange(2000) % 10 == 0, 1.02, 1.0) * times(2, sigma=0.002)),
        Status.AMBG,
        Reason.BULK_TIME_SUPPORT_MISMATCH,
    ),
    ("bad clock file", gpu(1), bad_clock_file(2), Status.AMBG, Reason.BULK_CYCLE_DATA_UNUSABLE),
    (
        "clock moved",
        gpu(1),
        gpu(2, clock_scale=1.05),
        Status.AMBG,
        Reason.BULK_CYCLE_SUPPORT_MISMATCH,
    ),
    (
        "times only, no clocks",
        msgspec.structs.replace(gpu(1, bulk="times"), clock_rate=None),
        gpu(2, bulk="times"),
        Status.SAME,
        Reason.BULK_TIME_SAME_WITHOUT_CYCLES,
    ),
    (
        "times only, clocks",
        gpu(1, bulk="times"),
        gpu(2, bulk="times"),
        Status.SAME,
        Reason.BULK_TIME_SAME_CONFIRMED_BY_SUMMARY_CYCLES,
    ),
    (
        "times only, clocks differ",
        gpu(1, bulk="times"),
        gpu(2, clock_scale=1.05, bulk="times"),
        Status.AMBG,
        Reason.CYCLE_SAME_NOT_CONFIRMED,
    ),
    (
        "times only, bad clock",
        msgspec.structs.replace(gpu(1, bulk="times"), clock_rate=-5.0),
        gpu(2, bulk="times"),
        Status.AMBG,
        Reason.INVALID_CLOCK_RATE,
    ),
    (
        "noisy, times only",
        gpu(1, sigma=0.05, bulk="times"),
        gpu(2, sigma=0.05, bulk="times"),
        Status.SAME,
        Reason.BULK_TIME_SAME_CONFIRMED_BY_SUMMARY_CYCLES,
    ),
    (
        "one sample per side (ours, compare.methods.minimum)",
        msgspec.structs.replace(gpu(1, bulk=False), sample_count=1),
        msgspec.structs.replace(gpu(2, scale=1.05, bulk=False), sample_count=1),
        Status.AMBG,
        Reason.TOO_FEW_SAMPLES,
    ),
    (
        "a sample count beyond int64 (ours, compare.methods.minimum)",
        gpu(1),
        msgspec.structs.replace(gpu(2, scale=1.05), sample_count=2**70),
        Status.UNKNOWN,
        Reason.INVALID_SAMPLE_COUNT,
    ),
    # CPU-only (ours)
    ("cpu slow", cpu(1), cpu(2, scale=1.05), Status.AMBG, Reason.CLEAR_GAP_CPU_ONLY),
    ("cpu fast", cpu(1), cpu(2, scale=0.9), Status.AMBG, Reason.CLEAR_GAP_CPU_ONLY),
    ("cpu same", cpu(1), cpu(2), Status.SAME, Reason.BULK_TIME_SAME_WITHOUT_CYCLES),
    (
        "cpu same, no samples",
        cpu(1, bulk=False),
        cpu(2, bulk=False),
        Status.SAME,
        Reason.SAME_WITHOUT_CLOCK_RATE,
    ),
    (
        "cpu noisy",
        cpu(1, sigma=0.05, bulk=False),
        cpu(2, sigma=0.05, bulk=False),
        Status.AMBG,
        Reason.NOISE_TOO_HIGH,
    ),
    ("cpu centers far", cpu(1), cpu(2, scale=1.008), Status.AMBG, Reason.CENTERS_NOT_CLOSE),
]


@pytest.mark.parametrize(
    ("ref", "cmp", "status", "reason"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_decision(ref: SideEvidence, cmp: SideEvidence, status: Status, reason: Reason) -> None:
    verdict = decide(ref, cmp, DEFAULT)
    assert (verdict.status, verdict.reason) == (status, reason), verdict.message
    assert verdict.message and not verdict.reason.internal
    assert ROBUST.decide(row_evidence(ref, cmp, DEFAULT)) == verdict


def test_every_final_reason_is_reachable() -> None:
    from cuda.bench.compare.methods.ci import CI_REASONS
    from cuda.bench.compare.methods.legacy import LEGACY_REASONS
    from cuda.bench.compare.methods.paired import PAIRED_REASONS

    matching_only = {Reason.STATE_ADDED, Reason.STATE_REMOVED}
    # Given by nvbench-history gate, not by a method (python/test/history/test_history_gate*.py).
    history_gate = {Reason.HISTORY_TOO_SHORT, Reason.GATE_RUNS_DISAGREE}
    final = (
        {reason for reason in Reason if not reason.internal}
        - matching_only
        - history_gate
        - CI_REASONS
        - PAIRED_REASONS  # reached in python/test/compare/test_paired.py
        - LEGACY_REASONS  # reached in python/test/compare/test_legacy_rule.py
    )
    assert final - {case[4] for case in CASES} == set()


def test_swapping_sides_swaps_fast_and_slow() -> None:
    slower = gpu(2, scale=1.05)
    assert decide(gpu(1), slower, DEFAULT).status is Status.SLOW
    assert decide(slower, gpu(1), DEFAULT).status is Status.FAST


def test_messages_explain_the_decision() -> None:
    skipped = msgspec.structs.replace(gpu(1), is_skipped=True, skip_reason="not on this GPU")
    both = decide(skipped, msgspec.structs.replace(skipped, skip_reason=None), DEFAULT).message
    assert both == "reference state skipped: not on this GPU; compare state skipped"
    missing = decide(gpu(1), SideEvidence(has_summaries=False), DEFAULT).message
    assert missing == "compare GPU timing summaries are missing"
    far = decide(gpu(1), gpu(2, scale=1.008), DEFAULT).message
    assert far.startswith("timing centers differ by 0.7") and far.endswith("at most 0.50%")
    slow = decide(gpu(1, bulk="none"), gpu(2, scale=1.05, bulk="none"), DEFAULT).message
    assert "slower" in slow and "1755" in slow


def test_bulk_mismatch_carries_coverage_message_and_severity() -> None:
    shifted = np.where(np.arange(2000) % 10 == 0, 1.02, 1.0) * times(2, sigma=0.002)
    verdict = decide(gpu(1, sigma=0.002), gpu(2, values=shifted), DEFAULT)
    assert verdict.reason is Reason.BULK_TIME_SUPPORT_MISMATCH
    assert (
        verdict.message.startswith("sample: min(ref=")
        and ">= 97.0%; support: min(" in verdict.message
    )
    assert verdict.severity > 0
    worse = np.where(np.arange(2000) % 4 == 0, 1.02, 1.0) * times(2, sigma=0.002)
    worse_verdict = decide(gpu(1, sigma=0.002), gpu(2, values=worse), DEFAULT)
    assert worse_verdict.reason is Reason.BULK_TIME_SUPPORT_MISMATCH
    assert worse_verdict.severity > verdict.severity


def point(value: float) -> SideEvidence:
    """A state whose every sample took ``value`` (zero-width interval), with a clock."""
    timing = TimingSummaries(min=value, q1=value, median=value, q3=value, iqr_relative=0.0)
    return SideEvidence(timing=timing, clock_rate=1e9)


def test_clear_gap_threshold_is_inclusive() -> None:
    ref, cmp = point(1.0), point(1.0 + 2**-7)  # exactly representable gap of 2^-7
    assert decide(ref, cmp, DEFAULT.replace(clear_gap_relative=2**-7)).status is Status.SLOW
    assert decide(cmp, ref, DEFAULT.replace(clear_gap_relative=2**-7)).status is Status.FAST
    wider = DEFAULT.replace(clear_gap_relative=2**-7 + 1e-12)
    assert decide(ref, cmp, wider).reason is Reason.CENTERS_NOT_CLOSE


def test_unconfirmed_gap_never_becomes_same() -> None:
    # A 5 % gap at a 5 % lower clock: confirmed neither way, but never SAME.
    for bulk in ("full", "none"):
        verdict = decide(
            gpu(1, bulk=bulk), gpu(2, scale=1.05, clock_scale=1 / 1.05, bulk=bulk), DEFAULT
        )
        assert verdict.status is Status.AMBG


def test_bulk_evidence_needs_both_sides() -> None:
    # One side without sample times: the summaries decide (as if neither had any).
    verdict = decide(gpu(1, bulk="none"), gpu(2), DEFAULT)
    assert verdict.reason is Reason.SAME_CONFIRMED_BY_CYCLES


def test_no_samples_are_read_for_a_clear_gap_without_frequency_files() -> None:
    class Never:
        path = None

        def available(self) -> bool:
            return True

        def load(self) -> Any:
            raise AssertionError("sample times were read")

    lazy = msgspec.structs.replace(gpu(1, bulk="none"), bulk=BulkData(Never()))
    verdict = decide(lazy, gpu(2, scale=1.05, bulk="none"), DEFAULT)
    assert verdict.reason is Reason.CLEAR_GAP_CONFIRMED_BY_SUMMARY_CYCLES


def test_decide_is_repeatable_and_reuses_sorted_samples() -> None:
    ref, cmp = gpu(1), gpu(2)
    first = decide(ref, cmp, DEFAULT)
    times_before = ref.bulk.times()
    assert decide(ref, cmp, DEFAULT) == first
    assert ref.bulk.times() is times_before and isinstance(times_before, SortedSamples)


# ---------------------------------------------------------------------------------------------
# Presets


def test_presets_move_the_same_tolerance() -> None:
    ref, cmp = gpu(1, bulk="none"), gpu(2, scale=1.004, bulk="none")
    assert decide(ref, cmp, PRESETS["default"]).status is Status.SAME
    assert decide(ref, cmp, PRESETS["strict"]).reason is Reason.CENTERS_NOT_CLOSE
    assert decide(ref, cmp, PRESETS["permissive"]).status is Status.SAME


def test_presets_move_the_clear_gap() -> None:
    ref, cmp = point(1.0), point(1.007)
    assert decide(ref, cmp, PRESETS["default"]).status is Status.SLOW  # 0.7 % >= 0.5 %
    assert decide(ref, cmp, PRESETS["permissive"]).status is Status.SLOW
    assert decide(ref, cmp, PRESETS["strict"]).status is Status.AMBG  # < 1 %, and not close


def test_presets_move_the_noise_ceiling_and_overlap() -> None:
    ref, cmp = gpu(1, sigma=0.025, bulk="none"), gpu(2, sigma=0.025, bulk="none")
    assert decide(ref, cmp, PRESETS["default"]).reason is Reason.NOISE_TOO_HIGH
    assert decide(ref, cmp, PRESETS["permissive"]).status is Status.SAME


def test_presets_move_the_bulk_coverage() -> None:
    shifted = np.where(np.arange(2000) % 20 == 0, 1.02, 1.0) * times(2, sigma=0.002)
    ref, cmp = gpu(1, sigma=0.002), gpu(2, values=shifted)  # 5 % of samples in a new mode
    assert decide(ref, cmp, PRESETS["default"]).reason is Reason.BULK_TIME_SUPPORT_MISMATCH
    assert decide(ref, cmp, PRESETS["permissive"]).status is Status.SAME


# ---------------------------------------------------------------------------------------------
# Registry


def test_registry() -> None:
    assert DEFAULT_METHOD == "ci"  # chosen by python/benchmarks/verdict_quality.py
    assert get_method("robust") is ROBUST and METHODS["robust"] is ROBUST
    assert isinstance(ROBUST, Method)
    assert ROBUST.name == "robust" and ROBUST.description
    with pytest.raises(ConfigError, match="unknown comparison method 'nope' \\(known: robust"):
        get_method("nope")
    with pytest.raises(TypeError):
        METHODS["x"] = ROBUST  # type: ignore[index]


class AlwaysSame:
    name = "always_same"
    description = "test method"

    def decide(self, row: RowEvidence) -> Verdict:
        return Verdict(Status.SAME, Reason.SAME_WITHOUT_CLOCK_RATE, "test")


def test_a_new_method_plugs_in_without_touching_the_engine(gpu_dir: Path) -> None:
    from cuda.bench.compare import compare

    result = compare(gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json", method=AlwaysSame())
    assert result.method == "always_same"
    decided = [row for row in result.rows if row.status is not Status.UNKNOWN]
    assert decided and all(row.reason is Reason.SAME_WITHOUT_CLOCK_RATE for row in decided)


class Recording:
    """A method of one's own that keeps the evidence it was handed."""

    name = "recording"
    description = "test method"

    def __init__(self) -> None:
        self.rows: list[RowEvidence] = []

    def decide(self, row: RowEvidence) -> Verdict:
        self.rows.append(row)
        return Verdict(Status.SAME, Reason.SAME_WITHOUT_CLOCK_RATE, "test")


def test_a_method_is_handed_the_estimates_the_row_shows(tmp_path: Path) -> None:
    from cuda.bench.compare import compare

    written = write_pair(tmp_path, SyntheticConfig(benchmarks=1, states=3, samples=50), seed=3)
    method = Recording()
    result = compare(written.ref[0], written.cmp[0], method=method)
    assert len(method.rows) == len(result.rows) == 3
    for row, seen in zip(result.rows, method.rows, strict=True):
        assert (seen.ref_estimate, seen.cmp_estimate) == (row.ref, row.cmp)
        assert seen.thresholds == result.thresholds


@pytest.mark.parametrize("name", ["robust", "ci"])
def test_a_row_s_estimates_are_made_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """The method decides on the estimates the row shows; nothing makes them a second time."""
    import cuda.bench.compare.estimates as estimates_module
    from cuda.bench.compare import compare

    get_method(name)  # imported before the count starts
    made: list[object] = []
    original = estimates_module.estimates

    def counted(ref: SideEvidence, cmp: SideEvidence) -> Any:
        made.append((ref, cmp))
        return original(ref, cmp)

    for module in list(sys.modules.values()):
        if module.__name__.startswith("cuda.bench.") and (
            getattr(module, "estimates", None) is original
        ):
            monkeypatch.setattr(module, "estimates", counted)
    written = write_pair(tmp_path, SyntheticConfig(benchmarks=1, states=4, samples=50), seed=4)
    result = compare(written.ref[0], written.cmp[0], method=name)
    assert len(result.rows) == 4
    assert len(made) == 4


def test_method_names_for_the_command_line_match_the_registry() -> None:
    from cuda.bench.compare.choices import DEFAULT_METHOD as CLI_DEFAULT
    from cuda.bench.compare.choices import METHOD_NAMES

    assert tuple(METHODS) == METHOD_NAMES
    assert CLI_DEFAULT in METHODS


# ---------------------------------------------------------------------------------------------
# Real files and synthetic runs


def pairs(ref_path: Path, cmp_path: Path) -> Iterator[tuple[SubBenchmarkState, SubBenchmarkState]]:
    """(ref, cmp) states with the same benchmark and full state name, in compare order."""
    ref = BenchmarkResult(ref_path)
    for bench in BenchmarkResult(cmp_path).benchmarks:
        by_name = {state.state_name: state for state in ref[bench.name]}
        for state in bench:
            yield by_name[state.state_name], state


def verdicts(
    ref_path: Path, cmp_path: Path, thresholds: Thresholds = DEFAULT
) -> dict[tuple[str, str], Verdict]:
    warnings: list[str] = []
    result = {
        (cmp.benchmark.name, cmp.state_name): decide(
            side_evidence(ref, warn=warnings.append),
            side_evidence(cmp, warn=warnings.append),
            thresholds,
        )
        for ref, cmp in pairs(ref_path, cmp_path)
    }
    assert warnings == []
    return result


KNOWN_CHANGES = {
    ("copy_bench", "Device=0 T=F32 Elements=2^20 Layout=contiguous"): Status.SLOW,  # +5 %
    ("copy_bench", "Device=0 T=F64 Elements=2^16 Layout=contiguous"): Status.FAST,  # -10 %
}


@pytest.mark.parametrize("ref_name", ["gpu_ref.json", "gpu_ref_nosidecar.json"])
def test_known_changes_of_the_gpu_runs(gpu_dir: Path, ref_name: str) -> None:
    results = verdicts(gpu_dir / ref_name, gpu_dir / "gpu_cmp.json")
    assert len(results) == 24
    for key, verdict in results.items():
        if key in KNOWN_CHANGES:
            assert verdict.status is KNOWN_CHANGES[key], (key, verdict)
        elif "F64" in key[1] and "strided" in key[1]:
            assert (verdict.status, verdict.reason) == (Status.SKIP, Reason.STATE_SKIPPED)
        else:
            assert verdict.status is Status.SAME, (key, verdict)
    confirmation = {verdict.reason for key, verdict in results.items() if key in KNOWN_CHANGES}
    expected = (
        Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES
        if ref_name == "gpu_ref.json"
        else Reason.CLEAR_GAP_CONFIRMED_BY_SUMMARY_CYCLES
    )
    assert confirmation == {expected}


def test_old_files_without_clocks_never_change(upstream_2021_dir: Path) -> None:
    results = verdicts(upstream_2021_dir / "ref.json", upstream_2021_dir / "cmp.json")
    counts = Counter(verdict.status for verdict in results.values())
    # 38 states skipped in both runs: their own status, not unusable input.
    assert len(results) == 126 and counts[Status.SKIP] == 38 and counts[Status.UNKNOWN] == 0
    assert counts[Status.FAST] == counts[Status.SLOW] == 0
    assert {v.reason for v in results.values() if v.status is Status.SAME} == {
        Reason.SAME_WITHOUT_CLOCK_RATE
    }


def test_cpu_only_runs_are_compared(cpu_dir: Path) -> None:
    results = verdicts(cpu_dir / "cpu_run1.json", cpu_dir / "cpu_run2.json")
    assert len(results) == 5
    statuses = {key[1] or key[0]: verdict for key, verdict in results.items()}
    assert statuses["Elements=2^16 Mode=sleep"].reason is Reason.STATE_SKIPPED
    decided = [v for v in results.values() if v.reason is not Reason.STATE_SKIPPED]
    assert all(v.status is not Status.UNKNOWN for v in decided)
    # The machine changed speed between the runs (an A/A pair): a clear gap is there, but
    # nothing can confirm it, so it is never reported as a change.
    assert not any(v.status.is_change for v in decided)
    assert any(v.reason is Reason.CLEAR_GAP_CPU_ONLY for v in decided)
    assert all(v.status is Status.AMBG for v in decided if v.reason is Reason.CLEAR_GAP_CPU_ONLY)


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("synthetic")
    config = SyntheticConfig(benchmarks=2, states=5, samples=1500)
    shifted = write_pair(root / "shifted", config, seed=11, random_shifts=3)
    throttled = write_pair(root / "throttled", config, seed=12, throttle=0.05)
    cpu_only = write_pair(
        root / "cpu", dataclasses.replace(config, cpu_only=True), seed=13, random_shifts=2
    )
    return {"shifted": shifted, "throttled": throttled, "cpu": cpu_only}


@pytest.mark.parametrize("name", ["shifted", "cpu"])
def test_synthetic_shifts_are_found(synthetic: dict[str, Any], name: str) -> None:
    pair = synthetic[name]
    results = verdicts(pair.ref[0], pair.cmp[0])
    for (bench, state), verdict in results.items():
        factor = pair.truth.time_factor(bench, state)
        if factor == 1.0:
            assert verdict.status is Status.SAME, (bench, state, verdict)
        elif name == "cpu":
            # Found, but no SM clock can confirm a CPU-only gap: ambiguous, never a change.
            assert verdict.reason is Reason.CLEAR_GAP_CPU_ONLY, (bench, state, verdict)
            assert verdict.status is Status.AMBG
        else:
            expected = Status.SLOW if factor > 1 else Status.FAST
            assert verdict.status is expected, (bench, state, factor, verdict)


def test_synthetic_throttling_is_never_a_regression(synthetic: dict[str, Any]) -> None:
    pair = synthetic["throttled"]
    results = verdicts(pair.ref[0], pair.cmp[0])
    assert all(verdict.status is Status.AMBG for verdict in results.values())


# ---------------------------------------------------------------------------------------------
# Agreement with NVIDIA's nvbench-compare-robust


def upstream_rows(ref: Path, cmp: Path, preset: str) -> list[tuple[list[str], str, str]]:
    """(axis cells, status, reason alias) of every table row of the explain display."""
    run = subprocess.run(
        [
            str(upstream_tool("nvbench-compare-robust")),
            "--display",
            "explain",
            "--no-color",
            "--preset",
            preset,
            str(ref),
            str(cmp),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    rows: list[tuple[list[str], str, str]] = []
    bounds: list[int] | None = None
    for line in run.stdout.splitlines():
        if line.startswith("|--"):
            # Cells may contain '|' (interval columns), so split at the header's column bounds.
            bounds = [i for i, char in enumerate(line) if char == "|"]
        elif line.startswith("|") and bounds is not None:
            cells = [line[a + 1 : b].strip() for a, b in itertools.pairwise(bounds)]
            rows.append((cells[:-7], cells[-1].split()[-1], cells[-3]))
        elif not line.startswith("|"):
            bounds = None
    return rows


def axis_text(value: StateAxisValue) -> str:
    typed = value.typed
    if value.is_pow2 and isinstance(typed, int):
        return f"2^{typed.bit_length() - 1}"
    if isinstance(typed, float):
        return f"{typed:.5g}"
    return str(value.value)


def check_agreement(ref: Path, cmp: Path, preset: str = "default") -> int:
    expected = upstream_rows(ref, cmp, preset)
    thresholds = PRESETS[preset]
    ours = []
    result = BenchmarkResult(ref)
    for bench in BenchmarkResult(cmp).benchmarks:
        # Upstream orders rows by device pair, then state order.
        devices: list[int | None] = [*bench.devices] or [None]
        for device in devices:
            ref_states = [s for s in result[bench.name] if s.device == device]
            for state in (s for s in bench if s.device == device):
                partner = next(r for r in ref_states if r.state_name == state.state_name)
                verdict = decide(
                    side_evidence(partner, warn=lambda _: None),
                    side_evidence(state, warn=lambda _: None),
                    thresholds,
                )
                ours.append(
                    (
                        [axis_text(v) for v in state.axis_values],
                        upstream_status(verdict.status),
                        verdict.reason.alias,
                    )
                )
    assert len(ours) == len(expected)
    for (my_axes, *my_verdict), (their_axes, *their_verdict) in zip(ours, expected, strict=True):
        assert my_verdict == their_verdict, (my_axes, my_verdict, their_verdict)
        assert [same_cell(a, b) for a, b in zip(my_axes, their_axes, strict=True)] == [True] * len(
            my_axes
        )
    return len(ours)


def same_cell(mine: str, theirs: str) -> bool:
    """Axis cells match; tabulate re-renders numbers, so ``1.2346e+05`` shows as ``123460``."""
    if mine == theirs:
        return True
    try:
        return math.isclose(float(mine), float(theirs), rel_tol=1e-4)
    except ValueError:
        return False


def test_agreement_on_the_gpu_runs(gpu_dir: Path) -> None:
    assert check_agreement(gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json") == 24
    assert check_agreement(gpu_dir / "gpu_ref_nosidecar.json", gpu_dir / "gpu_cmp.json") == 24


@pytest.mark.parametrize("preset", ["default", "strict", "permissive"])
def test_agreement_on_the_2021_files(upstream_2021_dir: Path, preset: str) -> None:
    rows = check_agreement(upstream_2021_dir / "ref.json", upstream_2021_dir / "cmp.json", preset)
    assert rows == 126


@pytest.mark.parametrize("preset", ["default", "strict", "permissive"])
@pytest.mark.parametrize("name", ["shifted", "throttled"])
def test_agreement_on_synthetic_runs(synthetic: dict[str, Any], name: str, preset: str) -> None:
    pair = synthetic[name]
    check_agreement(pair.ref[0], pair.cmp[0], preset)


def test_robust_module_documents_the_differences() -> None:
    doc = robust.__doc__ or ""
    for topic in ("CPU-only", "clear_gap_cpu_only", "measurement_kind_mismatch", "missing"):
        assert topic in doc


def test_a_robust_comparison_does_not_import_the_ci_method() -> None:
    # The registry imports a method's module on first lookup: robust users do not pay for
    # the ci method's statistics (and its imports).
    code = (
        "import sys\n"
        "from cuda.bench.compare.methods import METHODS, get_method\n"
        "assert get_method('robust').name == 'robust'\n"
        "assert 'cuda.bench.compare.methods.ci' not in sys.modules\n"
        "assert METHODS['ci'].name == 'ci' and len(METHODS) == 2\n"
        "assert 'cuda.bench.compare.methods.ci' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_same_rows_with_side_files_are_decided_without_sorting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Unchanged states decide SAME from their side files without sorting 2,000 values per
    # side (_coverage_fast.unsorted_coverage, _tally): sorting was most of such a comparison.
    from cuda.bench.compare import api
    from cuda.bench.compare import bulk as bulk_module
    from cuda.bench.compare import bulkdata as bulkdata_module
    from cuda.bench.results.synthetic import SyntheticConfig, write_pair

    pair = write_pair(tmp_path, SyntheticConfig(benchmarks=1, states=12, samples=2000), seed=5)
    expected = api.compare(pair.ref[0], pair.cmp[0], method="robust")
    assert [row.verdict.reason for row in expected.rows] == [Reason.BULK_SAME] * 12

    def no_sort(*args: object, **kwargs: object) -> None:
        raise AssertionError("sorted the samples of a SAME row")

    monkeypatch.setattr(bulkdata_module, "sort_samples", no_sort)
    monkeypatch.setattr(bulk_module, "sort_samples", no_sort)
    again = api.compare(pair.ref[0], pair.cmp[0], method="robust")
    assert [row.verdict for row in again.rows] == [row.verdict for row in expected.rows]
