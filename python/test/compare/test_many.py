"""compare_many: one baseline against several candidates, lined up state by state."""

from __future__ import annotations

from pathlib import Path

import pytest
from cuda.bench.compare import (
    CompareError,
    Correction,
    Status,
    compare,
    compare_many,
)
from cuda.bench.compare.many import best_of, default_names
from cuda.bench.compare.model import Effect, Reason, Row, SideEstimate, Verdict
from cuda.bench.results import BenchmarkResult
from cuda.bench.results.synthetic import SyntheticConfig, write_run


def _verdicts(rows: tuple[Row, ...] | list[Row]) -> list[tuple[str, str, Status]]:
    return [(row.benchmark, row.key, row.status) for row in rows]


@pytest.mark.parametrize("correction", list(Correction))
def test_each_candidate_column_has_the_pairwise_verdicts(
    gpu_dir: Path, correction: Correction
) -> None:
    """Issue 18's acceptance: both columns give the pairwise statuses, reasons and
    intervals, with the default Bonferroni correction too (it holds change calls to 97.5 %,
    which this pair's two changes pass; SAME rows are not widened into AMBG)."""
    ref, cmp = gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"
    pairwise = compare(ref, cmp)
    many = compare_many(ref, {"a": cmp, "b": cmp}, correction=correction)
    assert many.names == ("a", "b")
    assert many.baseline == "gpu_ref"
    expected = [(row.status, row.reason, row.verdict.effect) for row in pairwise.rows]
    assert {status for status, _, _ in expected} >= {Status.SAME, Status.SLOW, Status.FAST}
    for name in many.names:
        assert _verdicts(many[name].rows) == _verdicts(pairwise.rows)
        found = [(row.status, row.reason, row.verdict.effect) for row in many[name].rows]
        assert found == expected
    matrix = many.matrix()
    assert many.matrix() is matrix  # lined up once
    assert len(matrix) == len(pairwise.rows)
    for line, row in zip(matrix, pairwise.rows, strict=True):
        assert [cell.status if cell else None for cell in line.cells] == [row.status] * 2
        assert line.baseline == row.ref


def test_the_baseline_file_is_read_once(gpu_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ref, cmp = gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"
    opened: list[str] = []
    original = BenchmarkResult.__init__

    def counting(self: BenchmarkResult, source: object, *args: object, **kwargs: object) -> None:
        opened.append(str(source))
        original(self, source, *args, **kwargs)

    monkeypatch.setattr(BenchmarkResult, "__init__", counting)
    compare_many(ref, {"a": cmp, "b": cmp, "c": cmp})
    assert opened.count(str(ref)) == 1


def test_bonferroni_raises_the_level_changes_must_hold_at(gpu_dir: Path) -> None:
    ref, cmp = gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"
    many = compare_many(ref, {"a": cmp, "b": cmp, "c": cmp, "d": cmp})
    assert many.correction is Correction.BONFERRONI
    assert many.family_size == 4
    assert many.pair_confidence == pytest.approx(1 - 0.05 / 4)
    thresholds = many["a"].thresholds
    assert thresholds.ci_change_confidence == pytest.approx(1 - 0.05 / 4)
    assert thresholds.ci_confidence == 0.95  # the intervals and SAME stay nominal
    effects = [row.verdict.effect for row in many["a"].rows if row.verdict.effect is not None]
    assert effects and all(effect.confidence == 0.95 for effect in effects)
    changed = [row for row in many["a"].rows if row.status.is_change]
    assert changed and all(
        "confirmed at the family-wise 98.75% level" in row.verdict.message for row in changed
    )
    nominal = compare_many(ref, {"a": cmp, "b": cmp}, correction=Correction.NONE)
    assert nominal.pair_confidence == nominal.confidence == pytest.approx(0.95)
    assert nominal["a"].thresholds.ci_change_confidence == 0.0
    # One candidate is a family of one: nothing to correct.
    assert compare_many(ref, {"a": cmp})["a"].thresholds.ci_change_confidence == 0.0


def test_the_correction_turns_only_changes_into_ambiguous_rows(gpu_dir: Path) -> None:
    ref, cmp = gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"
    plain = compare_many(ref, {"a": cmp}, correction="none")["a"]
    corrected = compare_many(ref, {"a": cmp, "b": cmp, "c": cmp})["a"]
    for before, after in zip(plain.rows, corrected.rows, strict=True):
        if before.status is not after.status:
            assert before.status.is_change and after.status is Status.AMBG
            assert after.reason is Reason.CI_CHANGE_NOT_FAMILY_WIDE
        else:
            assert after.reason is before.reason


def test_no_candidates_is_an_error(gpu_dir: Path) -> None:
    with pytest.raises(CompareError, match="at least one candidate"):
        compare_many(gpu_dir / "gpu_ref.json", {})


def test_states_only_some_candidates_have_get_empty_cells(tmp_path: Path) -> None:
    small = SyntheticConfig(benchmarks=1, states=2, samples=40)
    large = SyntheticConfig(benchmarks=1, states=3, samples=40)
    base, same, more = (tmp_path / f"{name}.json" for name in ("base", "same", "more"))
    write_run(base, small, seed=1, jsonbin=False)
    write_run(same, small, seed=2, side="cmp", jsonbin=False)
    write_run(more, large, seed=3, side="cmp", jsonbin=False)
    matrix = compare_many(base, {"same": same, "more": more}).matrix()
    assert len(matrix) == 3
    last = matrix[-1]
    assert last.cells[0] is None
    assert last.cells[1] is not None and last.cells[1].status is Status.ADDED
    assert last.state.input == "" and last.baseline is None


def _row(ratio: float, lo: float, hi: float, status: Status = Status.SAME) -> Row:
    side = SideEstimate(center=1.0)
    effect = Effect(ratio, lo, hi, 0.95)
    verdict = Verdict(status, Reason.CI_SAME, effect=effect)
    return Row("b", "s", 0, (), verdict, side, side)


def test_best_names_a_winner_only_when_its_interval_overlaps_no_other() -> None:
    fast, slow = _row(0.80, 0.78, 0.82), _row(1.00, 0.99, 1.01)
    assert best_of("base", ["a", "b"], [fast, slow]) == ("a",)
    close = _row(0.81, 0.79, 0.83)
    assert best_of("base", ["a", "b"], [fast, close]) == ("a", "b")
    # A candidate whose interval covers 1 ties with the baseline.
    assert best_of("base", ["a"], [slow]) == ("base", "a")
    assert best_of("base", ["a", "b"], [fast, None]) == ("a",)


def test_best_is_undecided_when_a_compared_candidate_has_no_interval() -> None:
    unknown = Row(
        "b", "s", 0, (), Verdict(Status.UNKNOWN, Reason.TIMING_CENTER_MISSING), None, None
    )
    unranked = Row(
        "b",
        "s",
        0,
        (),
        Verdict(Status.AMBG, Reason.TIMING_CENTER_MISSING),
        SideEstimate(1.0),
        SideEstimate(1.0),
    )
    fast = _row(0.80, 0.78, 0.82)
    assert best_of("base", ["a", "b"], [fast, unknown]) == ("a",)
    assert best_of("base", ["a", "b"], [fast, unranked]) == ()


def test_default_names_are_stems_made_unique() -> None:
    assert default_names(["x/ref.json", "y/cmp.json", "z/cmp.json", ["w/cmp.json"]]) == [
        "ref",
        "cmp",
        "cmp-2",
        "cmp-3",
    ]


def test_a_gate_given_as_text_names_candidates_not_letters(gpu_dir: Path) -> None:
    from cuda.bench.compare.many_gate import evaluate_many

    ref, cmp = gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"
    many = compare_many(ref, {"ab": cmp, "b": ref})
    # The text was split into its letters: "ab" named the unknown candidates 'a' and 'b'.
    outcome = evaluate_many(many, "slow", gate="ab")
    assert outcome.gate == ("ab",) and outcome.exit_status == 1
    assert evaluate_many(many, "slow", gate="b").exit_status == 0
    assert evaluate_many(many, "slow", gate="ab,b").gate == ("ab", "b")


@pytest.mark.parametrize(
    ("candidates", "base_name", "error", "said"),
    [
        ({"gpu_ref": "cmp", "x": "cmp"}, None, CompareError, "'gpu_ref' is the baseline's name"),
        ({"base": "cmp"}, "base", CompareError, "'base' is the baseline's name"),
        ({"": "cmp"}, None, CompareError, "a candidate's name is empty"),
        ({"  ": "cmp"}, None, CompareError, "a candidate's name is empty"),
        ({1: "cmp"}, None, TypeError, "each name must be text, got 1"),
        ({"a": "cmp"}, "", CompareError, "base_name is empty"),
        ({"a": "cmp"}, 5, TypeError, "base_name must be text or None"),
    ],
)
def test_candidate_names_tell_every_contender_apart(
    gpu_dir: Path,
    candidates: dict[object, str],
    base_name: object,
    error: type[Exception],
    said: str,
) -> None:
    # A candidate named like the baseline was accepted, and a row's `best` could not tell
    # the two apart; an empty or non-text name was accepted too.
    cmp = gpu_dir / "gpu_cmp.json"
    given = {name: cmp for name in candidates}
    with pytest.raises(error, match=said):
        compare_many(gpu_dir / "gpu_ref.json", given, base_name=base_name)  # type: ignore[arg-type]
