"""The gate holds a run to the level before a candidate change, not to the candidate's runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from cuda.bench.cli.history import main
from cuda.bench.compare.model import Status
from cuda.bench.history.archive import ingest, query
from cuda.bench.history.gate import gate
from cuda.bench.history.series import examine, read_series
from cuda.bench.history.synthetic import HistoryNoise, commit_ids, generate, write_history
from cuda.bench.results.synthetic import SyntheticConfig

#: Runs at the old level; series 0, 2 and 4 are 5 % slower from this run on.
LEVEL = 20
#: Runs of the new level: 2 archived make a candidate; 6 archived confirm the change.
AFTER = 7
COMMITS = commit_ids(LEVEL + AFTER, seed=8)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ...]:
    history = generate(
        HistoryNoise("iid", run_sigma=0.003),
        series=6,
        runs=LEVEL + AFTER,
        steps=(0.05, 0.0) * 3,
        step_at=LEVEL,
        seed=5,
    )
    config = SyntheticConfig(benchmarks=2, states=3, samples=200)
    return write_history(tmp_path_factory.mktemp("runs"), history, config, seed=3)


def _archived(root: Path, paths: tuple[Path, ...]) -> Path:
    for order, path in enumerate(paths):
        ingest(root, path, commit=COMMITS[order], date=f"2026-05-{1 + order:02d}T03:00:00Z",
               order=order)  # fmt: skip
    return root


def test_a_regression_stays_slow_until_its_candidate_is_confirmed(
    tmp_path: Path, runs: tuple[Path, ...]
) -> None:
    # Two slow runs archived: too few to place the change, so each slow series has a
    # candidate at run LEVEL. Tonight's third slow run used to be held to the candidate's
    # two runs (AMBG history_too_short: a regression two nights old no longer failed the
    # gate; a creep, followed by one candidate after another, never did).
    archive = _archived(tmp_path / "archive", runs[: LEVEL + 2])
    connection = query(archive)
    try:
        view = examine(read_series(connection, archive))
    finally:
        connection.close()
    pending = {
        one.state_name
        for one, candidate in zip(view.series, view.candidates, strict=True)
        if candidate is not None and candidate.index == LEVEL
    }
    assert len(pending) == 3  # the premise: three candidates, at the slow series
    found = gate(archive, runs[LEVEL + 2])
    slow = found.comparison.rows_with([Status.SLOW])
    assert {row.cmp_state_name for row in slow} == {f"Device=0 {name}" for name in pending}
    for row in slow:
        assert (
            f"; judged against the runs {COMMITS[0]}..{COMMITS[LEVEL - 1]}, the level before a "
            f"candidate change at {COMMITS[LEVEL]} (2 archived run(s) since, not yet confirmed)"
        ) in row.verdict.message
    # The others are held to their whole level, and say nothing of candidates.
    others = [row for row in found.comparison.rows if row not in slow]
    assert others and all(row.status is Status.SAME for row in others)
    assert not any("candidate" in row.verdict.message for row in others)


def test_the_reports_say_which_states_were_held_before_a_candidate(
    tmp_path: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    # The note lived only in each row's message, which the terminal tables and the
    # markdown report do not show for a SLOW row.
    archive = _archived(tmp_path / "archive", runs[: LEVEL + 2])
    markdown, html, report = tmp_path / "gate.md", tmp_path / "gate.html", tmp_path / "g.json"
    argv = ["gate", "--archive", str(archive), str(runs[LEVEL + 2]), "--fail-on", "slow"]
    outputs = ["--markdown", str(markdown), "--html", str(html), "--json", str(report)]
    assert main([*argv, *outputs]) == 1
    note = "3 state(s) judged against the level before a candidate change"
    assert f"- Note: {note}" in capsys.readouterr().out
    assert f"**Note:** {note}" in markdown.read_text(encoding="utf-8")
    # The headlines name the gate (they said nvbench_compare).
    assert markdown.read_text(encoding="utf-8").startswith("### 🔴 nvbench-history gate: ")
    page = html.read_text(encoding="utf-8")
    assert '<section class="notes"><h2>Notes</h2>' in page and note in page
    assert "nvbench-history gate: " in page
    held = f"(runs {COMMITS[0]}..{COMMITS[LEVEL - 1]}; candidate at {COMMITS[LEVEL]}, 2 run(s)"
    assert page.count(held) == 3
    # One note on candidates (another says the reference has no interval: summaries only).
    notes = json.loads(report.read_text(encoding="utf-8"))["notes"]
    (noted,) = [one for one in notes if "candidate" in one]
    assert noted.startswith(note) and noted.count(held) == 3


def test_two_runs_gated_together_say_it_once(tmp_path: Path, runs: tuple[Path, ...]) -> None:
    archive = _archived(tmp_path / "archive", runs[: LEVEL + 2])
    found = gate(archive, [runs[LEVEL + 2], runs[LEVEL + 3]])
    slow = found.comparison.rows_with([Status.SLOW])
    assert len(slow) == 3
    for row in slow:
        assert row.verdict.message.count("the level before a candidate change") == 1


def test_once_confirmed_the_new_level_is_the_reference(
    tmp_path: Path, runs: tuple[Path, ...]
) -> None:
    archive = _archived(tmp_path / "archive", runs[: LEVEL + AFTER - 1])
    found = gate(archive, runs[LEVEL + AFTER - 1])
    assert not found.pending
    assert all(row.status is Status.SAME for row in found.comparison.rows)
    assert not any("candidate" in row.verdict.message for row in found.comparison.rows)
    assert not any("candidate" in one for one in found.comparison.settings.get("notes", ()))


def test_the_message_names_the_runs_the_reference_holds(
    tmp_path: Path, runs: tuple[Path, ...]
) -> None:
    # With --max-runs 5 the reference is the last 5 runs before the candidate; the message
    # named the whole level.
    archive = _archived(tmp_path / "archive", runs[: LEVEL + 2])
    found = gate(archive, runs[LEVEL + 2], max_runs=5)
    for row in found.comparison.rows_with([Status.SLOW]):
        assert f"the runs {COMMITS[LEVEL - 5]}..{COMMITS[LEVEL - 1]}, " in row.verdict.message
