"""``--fail-on`` conditions: parsing, which rows fail, exit status."""

from __future__ import annotations

from pathlib import Path

import pytest
from cuda.bench.compare import ConfigError, compare
from cuda.bench.compare.exit_policy import (
    EXIT_FAILED,
    EXIT_OK,
    FAIL_ON_NAMES,
    FailOn,
    evaluate,
    failing_rows,
    normalize_conditions,
    parse_fail_on,
    row_conditions,
)
from cuda.bench.compare.model import (
    Comparison,
    InputPair,
    Reason,
    Row,
    SideEstimate,
    Status,
    Verdict,
)
from cuda.bench.compare.skipped import skip_reasons
from cuda.bench.compare.thresholds import Thresholds

_REASONS = {
    Status.SAME: Reason.BULK_SAME,
    Status.FAST: Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES,
    Status.SLOW: Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES,
    Status.AMBG: Reason.NOISE_TOO_HIGH,
    Status.UNKNOWN: Reason.STATE_SKIPPED,
    Status.ADDED: Reason.STATE_ADDED,
    Status.REMOVED: Reason.STATE_REMOVED,
}


def row(status: Status, key: str) -> Row:
    return Row(
        benchmark="bench",
        key=key,
        occurrence=0,
        axis_values=(),
        verdict=Verdict(status, _REASONS[status]),
        ref=None if status is Status.ADDED else SideEstimate(center=1.0),
        cmp=None if status is Status.REMOVED else SideEstimate(center=1.0),
    )


def comparison(statuses: list[Status], unpaired: tuple[tuple[str, str], ...] = ()) -> Comparison:
    rows = tuple(row(status, f"N={index}") for index, status in enumerate(statuses))
    return Comparison(
        rows=rows,
        method="robust",
        preset="default",
        thresholds=Thresholds(),
        inputs=(InputPair(("a.json",), ("b.json",)),),
        unpaired_files=unpaired,
    )


ALL = [Status.SAME, Status.FAST, Status.SLOW, Status.AMBG, Status.UNKNOWN, Status.ADDED,
       Status.REMOVED]  # fmt: skip


def test_parse_comma_lists_repeats_and_case() -> None:
    assert FAIL_ON_NAMES == ("slow", "fast", "ambiguous", "unknown", "missing")
    assert parse_fail_on("slow") == (FailOn.SLOW,)
    assert parse_fail_on("slow,missing") == (FailOn.SLOW, FailOn.MISSING)
    assert parse_fail_on(["Slow", " AMBIGUOUS ,slow", "unknown"]) == (
        FailOn.SLOW,
        FailOn.AMBIGUOUS,
        FailOn.UNKNOWN,
    )
    assert parse_fail_on([]) == ()


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("slower", "unknown condition 'slower'"),
        ("none", "unknown condition 'none'"),
        # Not "unknown condition an empty condition".
        ("slow,", "an empty condition"),
        (",", "an empty condition"),
        ("", "an empty condition"),
        ("slow,,fast", "an empty condition"),
    ],
)
def test_parse_rejects_unknown_and_empty_names(text: str, said: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_fail_on(text)
    assert str(caught.value).startswith(f"--fail-on: {said} in {text!r}; "), caught.value
    assert "slow, fast, ambiguous, unknown, missing" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_no_condition_never_fails_even_with_regressions() -> None:
    outcome = evaluate(comparison(ALL), ())
    assert not outcome.failed
    assert outcome.failures == ()
    assert outcome.exit_status == EXIT_OK == 0


@pytest.mark.parametrize(
    ("condition", "statuses"),
    [
        ("slow", {Status.SLOW}),
        ("fast", {Status.FAST}),
        ("ambiguous", {Status.AMBG}),
        ("unknown", {Status.UNKNOWN}),
        ("missing", {Status.ADDED, Status.REMOVED}),
    ],
)
def test_each_condition_fails_on_its_rows_only(condition: str, statuses: set[Status]) -> None:
    result = comparison(ALL)
    outcome = evaluate(result, condition)
    assert outcome.failed and outcome.exit_status == EXIT_FAILED == 1
    (failure,) = outcome.failures
    assert failure.condition is FailOn(condition)
    assert {r.status for r in failure.rows} == statuses
    assert failure.count == len(statuses)
    # The condition does not hold without those rows.
    others = [status for status in ALL if status not in statuses]
    assert not evaluate(comparison(others), condition).failed


def test_missing_counts_unpaired_files() -> None:
    result = comparison([Status.SAME], unpaired=(("reference", "ref/x.json"),))
    (failure,) = evaluate(result, [FailOn.MISSING]).failures
    assert failure.rows == ()
    assert failure.unpaired_files == (("reference", "ref/x.json"),)
    assert failure.count == 1
    assert not evaluate(result, "slow,unknown").failed


def test_failures_keep_condition_order_and_rows_keep_comparison_order() -> None:
    result = comparison([Status.SLOW, Status.AMBG, Status.SLOW, Status.FAST])
    outcome = evaluate(result, ["fast", "slow", "ambiguous"])
    assert [f.condition for f in outcome.failures] == [FailOn.FAST, FailOn.SLOW, FailOn.AMBIGUOUS]
    assert [r.key for r in outcome.failures[1].rows] == ["N=0", "N=2"]
    assert [r.key for r in failing_rows(result, "ambiguous,slow")] == ["N=0", "N=1", "N=2"]


def test_row_conditions_and_normalize() -> None:
    result = comparison(ALL)
    slow = result.rows[2]
    assert row_conditions(slow, "slow,fast") == (FailOn.SLOW,)
    assert row_conditions(slow, ["fast"]) == ()
    assert normalize_conditions(["slow", FailOn.SLOW, "fast,slow"]) == (FailOn.SLOW, FailOn.FAST)
    with pytest.raises(ConfigError):
        normalize_conditions("sluggish")


def test_real_files_known_changes(gpu_dir: Path) -> None:
    result = compare(gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json", method="robust")
    slow = evaluate(result, "slow").failures[0].rows
    fast = evaluate(result, "fast").failures[0].rows
    assert [(r.ref_device, r.key) for r in slow] == [(0, "T=F32 Elements=2^20 Layout=contiguous")]
    assert [(r.ref_device, r.key) for r in fast] == [(0, "T=F64 Elements=2^16 Layout=contiguous")]
    # The 4 strided F64 states are skipped by the benchmark in both runs: SKIP, which no
    # condition fails on (before, --fail-on unknown always failed on them).
    assert not evaluate(result, "unknown").failed
    skipped = result.rows_with((Status.SKIP,))
    assert len(skipped) == 4 and all("strided" in r.key for r in skipped)
    assert not any(row_conditions(r, FAIL_ON_NAMES) for r in skipped)
    assert not evaluate(result, "ambiguous,missing").failed


def _skipped(key: str, ref_reason: str | None, cmp_reason: str | None) -> Row:
    def side(reason: str | None) -> SideEstimate:
        return SideEstimate(is_skipped=reason is not None, skip_reason=reason)

    both = ref_reason is not None and cmp_reason is not None
    parts = [f"{name} state skipped: {why}" for name, why in (("reference", ref_reason),
             ("compare", cmp_reason)) if why is not None]  # fmt: skip
    status = Status.SKIP if both else Status.UNKNOWN
    verdict = Verdict(status, Reason.STATE_SKIPPED, "; ".join(parts))
    return Row("b", key, 0, (), verdict, side(ref_reason), side(cmp_reason))


def test_skip_reasons_count_every_distinct_message() -> None:
    rows = (
        *(_skipped(f"N={i}", "Narrowing.", "Narrowing.") for i in range(3)),
        _skipped("N=3", "Not a conversion.", "Not a conversion."),
        _skipped("N=4", "Old reason.", "New reason."),
        _skipped("N=5", None, "Too big."),
        _skipped("N=6", "Too small.", None),
    )
    result = Comparison(rows, "robust", "default", Thresholds(), ())
    assert skip_reasons(result) == [
        ("Narrowing.", 3),
        ("Not a conversion.", 1),
        ("Old reason. (reference); New reason. (compare)", 1),
    ]
    # Skipped on one side only: ????, one reason entry per message, and --fail-on unknown.
    unknown = result.reason_counts(Status.UNKNOWN)
    assert [(reason, count) for reason, count, _ in unknown] == [
        (Reason.STATE_SKIPPED, 1),
        (Reason.STATE_SKIPPED, 1),
    ]
    assert {row.verdict.text for _, _, row in unknown} == {
        "compare state skipped: Too big.",
        "reference state skipped: Too small.",
    }
    assert len(evaluate(result, "unknown").failures[0].rows) == 2


@pytest.mark.parametrize("asked", [Status.SLOW, "SLOW", "slow", [Status.SLOW], ("SLOW",)])
def test_rows_with_takes_one_status_or_several(asked: object) -> None:
    # Status is a str enum: a set built from "SLOW" held its letters and matched no row,
    # so a gate written `if result.rows_with(Status.SLOW): fail()` never failed.
    result = comparison(ALL)
    assert [r.status for r in result.rows_with(asked)] == [Status.SLOW]  # type: ignore[arg-type]
    both = result.rows_with([Status.FAST, "SLOW"])
    assert {r.status for r in both} == {Status.FAST, Status.SLOW}
    assert (
        result.rows_with("????") == result.rows_with("unknown") == result.rows_with(Status.UNKNOWN)
    )


@pytest.mark.parametrize(
    ("asked", "error", "said"),
    [
        ("sluggish", ValueError, "unknown status 'sluggish'"),
        (3, TypeError, "got 3"),
        # Bytes are no text: iterated they are numbers, and "got 83" named the letter S.
        (b"SLOW", TypeError, "got b'SLOW'"),
        (bytearray(b"SLOW"), TypeError, r"got bytearray\(b'SLOW'\)"),
        (memoryview(b"SLOW"), TypeError, "got <memory"),
        ([b"SLOW"], TypeError, "got b'SLOW'"),
    ],
    ids=["unknown", "int", "bytes", "bytearray", "memoryview", "bytes-in-list"],
)
def test_rows_with_refuses_what_names_no_status(
    asked: object, error: type[Exception], said: str
) -> None:
    with pytest.raises(error, match=f"statuses.*{said}|{said}") as caught:
        comparison(ALL).rows_with(asked)  # type: ignore[arg-type]
    assert "statuses" in str(caught.value)


def test_reason_counts_take_a_status_as_text() -> None:
    # Rows were picked by identity with the status: "AMBG" counted none.
    result = comparison([Status.AMBG, Status.SAME, Status.AMBG])
    assert result.reason_counts("AMBG") == result.reason_counts(Status.AMBG) != []
    assert result.reason_summaries("ambg") == result.reason_summaries(Status.AMBG)
    with pytest.raises(ValueError, match="status"):
        result.reason_counts("AMBIGUOUS")
