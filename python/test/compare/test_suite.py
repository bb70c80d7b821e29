"""Suite statistics: geometric mean with an interval, expected false flags, reports."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import numpy as np
import pytest
from cuda.bench.compare.api import compare
from cuda.bench.compare.bootstrap import normal_quantile
from cuda.bench.compare.model import Effect, Reason, Status, Verdict
from cuda.bench.compare.suite import (
    SuiteAccumulator,
    SuiteSummary,
    null_flag_probability,
    suite_summary,
)
from cuda.bench.report.csv_report import render_csv
from cuda.bench.report.document import render_summary
from cuda.bench.report.json_report import render_json
from cuda.bench.results.synthetic import SyntheticConfig, write_pair


def verdict(ratio: float, draws: np.ndarray | None, *, tolerance: float | None = 0.01) -> Verdict:
    lo, hi = (ratio, ratio) if draws is None else tuple(np.exp(np.quantile(draws, [0.025, 0.975])))
    effect = Effect(ratio, lo, hi, 0.95, tolerance=tolerance, draws=draws)
    return Verdict(Status.SAME, Reason.CI_SAME, effect=effect, cycle_effect=effect)


def test_suite_draws_are_the_mean_of_the_row_draws() -> None:
    rng = np.random.default_rng(1)
    rows = [(1.02, 0.01), (0.97, 0.02), (1.10, 0.005)]
    draws = [math.log(r) + s * rng.standard_normal(4000) for r, s in rows]
    suite = SuiteAccumulator()
    stripped = [suite.absorb(verdict(r, d)) for (r, _), d in zip(rows, draws, strict=True)]
    assert all(v.effect is not None and v.effect.draws is None for v in stripped)
    assert all(v.cycle_effect is not None and v.cycle_effect.draws is None for v in stripped)
    summary = suite.summary()
    assert summary is not None and summary.basis == "bootstrap" and summary.rows == 3
    expected = math.exp(sum(math.log(r) for r, _ in rows) / 3)
    assert summary.ratio == pytest.approx(expected)
    combined = np.mean(draws, axis=0)
    lo, hi = np.exp(np.quantile(combined, [0.025, 0.975]))
    assert (summary.lo, summary.hi) == (pytest.approx(lo), pytest.approx(hi))
    # The standard error of a mean of independent rows: sqrt(sum s_i^2) / n.
    se = math.sqrt(sum(s * s for _, s in rows)) / 3
    assert math.log(summary.hi / summary.lo) == pytest.approx(2 * 1.96 * se, rel=0.05)
    assert summary.confidence == 0.95


def test_rows_without_effects_or_unusable_rows_do_not_count() -> None:
    suite = SuiteAccumulator()
    plain = Verdict(Status.AMBG, Reason.NOISE_TOO_HIGH)
    assert suite.absorb(plain) is plain
    unknown = Verdict(Status.UNKNOWN, Reason.STATE_SKIPPED)
    assert suite.absorb(unknown) is unknown
    assert suite.summary() is None


def test_null_flag_probability() -> None:
    z = normal_quantile(0.975)
    se = 0.004
    effect = Effect(1.0, math.exp(-z * se), math.exp(z * se), 0.95, tolerance=0.01)
    expected = 2 * (1 - 0.5 * math.erfc(-(math.log1p(0.01) / se + z) / math.sqrt(2)))
    assert null_flag_probability(effect) == pytest.approx(expected)
    assert null_flag_probability(Effect(1.0, 1.0, 1.0, 0.95, tolerance=0.01)) == 0.0
    assert null_flag_probability(Effect(1.0, 0.9, 1.1, 0.95)) is None
    # A wide interval against a narrow band: flags become likely.
    noisy = Effect(1.0, math.exp(-0.2), math.exp(0.2), 0.95, tolerance=0.001)
    value = null_flag_probability(noisy)
    assert value is not None and value < 0.05  # the interval's own width protects
    tight = Effect(1.0, math.exp(-0.001), math.exp(0.001), 0.95, tolerance=0.01)
    assert null_flag_probability(tight) == pytest.approx(0.0, abs=1e-12)


def test_expected_false_flags_sum_over_rows() -> None:
    suite = SuiteAccumulator()
    draws = np.zeros(100)
    for tolerance in (0.01, 0.02, None):
        suite.absorb(verdict(1.0, draws, tolerance=tolerance))
    summary = suite.summary()
    assert summary is not None and summary.flag_rows == 2
    assert summary.expected_false_flags == 0.0


@pytest.fixture(scope="module")
def shifted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("suite")
    pair = write_pair(
        root,
        SyntheticConfig(benchmarks=1, states=4, samples=500),
        seed=5,
        shifts={("bench_00", "Device=0 Elements=1024"): 1.2},
    )
    return pair.ref[0], pair.cmp[0]


def test_compare_carries_the_suite_and_the_reports_show_it(shifted: tuple[Path, Path]) -> None:
    result = compare(*shifted, method="ci")
    suite = result.suite
    assert suite is not None and suite.rows == 4 and suite.basis == "bootstrap"
    assert suite.lo is not None and suite.hi is not None
    assert suite.lo < suite.ratio < suite.hi
    assert suite.ratio == pytest.approx(1.2 ** (1 / 4), rel=0.01)
    assert all(row.verdict.effect is None or row.verdict.effect.draws is None for row in result)
    change = suite_summary(result)
    assert change is not None and (change.lo, change.hi) == (suite.lo, suite.hi)
    text = render_summary(result)
    assert "- Geometric mean compare/reference: 1.04" in text and "confidence over 4 rows" in text
    assert "- Expected false flags: 0.00 of 4 row(s)" in text
    data = json.loads(render_json(result))
    assert data["geomean"]["basis"] == "bootstrap" and data["geomean"]["lo"] == suite.lo
    assert data["expected_false_flags"] == suite.expected_false_flags
    assert data["rows"][0]["effect_tolerance"] == 0.01
    record = next(csv.DictReader(io.StringIO(render_csv(result))))
    assert float(record["suite.geomean_ratio"]) == suite.ratio
    assert float(record["suite.geomean_hi"]) == suite.hi
    assert record["suite.expected_false_flags"] != ""


def test_robust_keeps_the_plain_geometric_mean(shifted: tuple[Path, Path]) -> None:
    result = compare(*shifted, method="robust")
    assert result.suite is None
    summary = suite_summary(result)
    assert summary is not None and summary.basis == "centers" and summary.lo is None
    assert "Expected false flags" not in render_summary(result)
    assert json.loads(render_json(result))["expected_false_flags"] is None
    record = next(csv.DictReader(io.StringIO(render_csv(result))))
    assert record["suite.geomean_lo"] == "" and record["suite.expected_false_flags"] == ""


def test_suite_summary_value() -> None:
    summary = SuiteSummary(ratio=1.05, rows=3)
    assert summary.percent == pytest.approx(5.0)
    assert suite_summary([]) is None


def _normal_verdict(ratio: float, se: float) -> Verdict:
    """A row whose interval came in closed form: normal in log space, no draws."""
    half = normal_quantile(0.975) * se
    effect = Effect(ratio, ratio * math.exp(-half), ratio * math.exp(half), 0.95, tolerance=0.01)
    return Verdict(Status.SAME, Reason.CI_SAME, effect=effect)


def test_closed_form_rows_give_a_normal_suite_interval() -> None:
    rows = [(1.02, 0.01), (0.97, 0.02), (1.10, 0.005)]
    suite = SuiteAccumulator()
    for ratio, se in rows:
        suite.absorb(_normal_verdict(ratio, se))
    summary = suite.summary()
    assert summary is not None and summary.rows == 3
    mean = sum(math.log(r) for r, _ in rows) / 3
    se = math.sqrt(sum(s * s for _, s in rows)) / 3
    assert summary.ratio == pytest.approx(math.exp(mean))
    assert math.log(summary.lo) == pytest.approx(mean - normal_quantile(0.975) * se)
    assert math.log(summary.hi) == pytest.approx(mean + normal_quantile(0.975) * se)


def test_closed_form_rows_join_bootstrap_rows_as_one_normal_term() -> None:
    rng = np.random.default_rng(7)
    bootstrap = [(1.05, 0.01), (0.99, 0.015)]
    normal = [(1.01, 0.02), (1.00, 0.01)]
    suite = SuiteAccumulator()
    for ratio, se in bootstrap:
        suite.absorb(verdict(ratio, math.log(ratio) + se * rng.standard_normal(20_000)))
    for ratio, se in normal:
        suite.absorb(_normal_verdict(ratio, se))
    summary = suite.summary()
    assert summary is not None and summary.rows == 4 and summary.lo is not None
    every = bootstrap + normal
    mean = sum(math.log(r) for r, _ in every) / 4
    se = math.sqrt(sum(s * s for _, s in every)) / 4
    assert summary.ratio == pytest.approx(math.exp(mean))
    assert math.log(summary.hi / summary.lo) == pytest.approx(2 * 1.96 * se, rel=0.05)
    assert math.log(summary.lo) < mean < math.log(summary.hi)


def test_the_suite_counts_drifting_rows_and_says_what_its_interval_covers() -> None:
    rng = np.random.default_rng(3)

    def row(basis: str, reason: Reason = Reason.CI_SAME) -> Verdict:
        draws = 0.01 * rng.standard_normal(2000)
        effect = Effect(1.0, 0.98, 1.02, 0.95, basis=basis, tolerance=0.01, draws=draws)
        status = Status.SAME if reason is Reason.CI_SAME else Status.AMBG
        return Verdict(status, reason, effect=effect)

    several = SuiteAccumulator()
    several.absorb(row("hierarchical-bootstrap"))
    summary = several.summary()
    assert summary is not None and summary.interval_covers == "sampling+runs"
    assert summary.drift_rows == 0 and summary.claims_change

    single = SuiteAccumulator()
    single.absorb(row("bootstrap", Reason.RUN_NOT_STATIONARY))
    other = SuiteAccumulator()  # rows decided in another process
    other.absorb(row("hierarchical-bootstrap", Reason.TOO_NOISY_TO_JUDGE))
    other.absorb(row("hierarchical-bootstrap", Reason.CI_WIDER_THAN_TOLERANCE))
    single.merge(other)
    summary = single.summary()
    assert summary is not None and summary.interval_covers == "sampling"
    assert summary.drift_rows == 2 and not summary.claims_change
    # A single-run row left AMBG by the drift its spread allows counts too.
    unmeasured = SuiteAccumulator()
    unmeasured.absorb(row("bootstrap", Reason.RUN_DRIFT_UNMEASURED))
    summary = unmeasured.summary()
    assert summary is not None and summary.drift_rows == 1 and not summary.claims_change
