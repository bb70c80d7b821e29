"""NVIDIA's legacy rule (compare.methods.legacy) on values, where its script gives no
status or its inputs are not NVBench's strings."""

from __future__ import annotations

import math

import pytest
from cuda.bench.compare.methods import METHODS
from cuda.bench.compare.methods.legacy import (
    LEGACY,
    LEGACY_REASONS,
    legacy_noise,
    legacy_verdict,
)
from cuda.bench.compare.model import SideEstimate, Status
from cuda.bench.compare.reasons import Reason


def side(mean: float | None, noise: float | None, *, skipped: bool = False) -> SideEstimate:
    return SideEstimate(mean=mean, stdev_relative=noise, is_skipped=skipped)


VALUE_CASES = [
    ((1.0, 0.01), (1.02, 0.03), Status.SLOW, Reason.LEGACY_BEYOND_NOISE),
    ((1.0, 0.03), (0.98, 0.01), Status.FAST, Reason.LEGACY_BEYOND_NOISE),
    ((1.0, 0.03), (1.02, 0.05), Status.SAME, Reason.LEGACY_WITHIN_NOISE),
    ((1.0, math.inf), (1.02, 0.01), Status.SLOW, Reason.LEGACY_BEYOND_NOISE),
    ((1.0, math.inf), (1.0, math.inf), Status.UNKNOWN, Reason.LEGACY_NOISE_UNKNOWN),
    ((1.0, 0.0), (1.5, 0.5), Status.UNKNOWN, Reason.LEGACY_NOISE_UNKNOWN),
    ((1.0, None), (1.5, 0.5), Status.UNKNOWN, Reason.LEGACY_SUMMARIES_MISSING),
    ((None, 0.1), (1.5, 0.5), Status.UNKNOWN, Reason.LEGACY_SUMMARIES_MISSING),
    ((0.0, 0.1), (1.5, 0.5), Status.UNKNOWN, Reason.TIMING_CENTER_NONPOSITIVE),
    ((1.0, 0.1), (math.nan, 0.5), Status.UNKNOWN, Reason.TIMING_CENTER_NONFINITE),
]


@pytest.mark.parametrize(("ref", "cmp", "status", "reason"), VALUE_CASES)
def test_legacy_verdict(
    ref: tuple[float | None, float | None],
    cmp: tuple[float | None, float | None],
    status: Status,
    reason: Reason,
) -> None:
    verdict = legacy_verdict(side(*ref), side(*cmp))
    assert (verdict.status, verdict.reason) == (status, reason)


def test_skipped_states_are_skip_in_both_runs_and_unknown_in_one() -> None:
    both = legacy_verdict(side(None, None, skipped=True), side(None, None, skipped=True))
    one = legacy_verdict(side(1.0, 0.1), side(None, None, skipped=True))
    assert (both.status, one.status) == (Status.SKIP, Status.UNKNOWN)
    assert one.reason is Reason.STATE_SKIPPED


def test_noise_is_the_smaller_recorded_one() -> None:
    assert legacy_noise(0.02, 0.01) == 0.01
    assert legacy_noise(math.inf, 0.03) == 0.03
    assert legacy_noise(0.0, 0.03) == 0.0  # NVBench's "0" is recorded (a truthy string)
    assert legacy_noise(math.inf, None) is None


def test_legacy_is_no_method_choice() -> None:
    # It calls SAME without evidence of no change: not one of nvbench_compare's --method.
    assert LEGACY.name == "legacy" and "legacy" not in METHODS


def test_every_legacy_reason_is_reached() -> None:
    assert LEGACY_REASONS - {case[3] for case in VALUE_CASES} == set()
