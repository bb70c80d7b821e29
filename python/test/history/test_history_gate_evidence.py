"""``nvbench-history gate`` on a run whose summaries are no evidence: the gate decides the run
with ``nvbench_compare``'s evidence and ``ci`` method, so a value ``ingest`` would refuse
(an SM clock no GPU runs at, a sample count beyond int64, a clock recorded as text) leaves
the state undecided with a reason, never SLOW, FAST or SAME.

The archive holds five runs of a small synthetic history; the gated run is its sixth run,
5 % slower in every state, copied without its side files (so that its summaries decide)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from cuda.bench.compare.model import Reason, Status
from cuda.bench.history.archive import ingest
from cuda.bench.history.gate import gate
from cuda.bench.history.synthetic import HistoryNoise, commit_ids, generate, write_history
from cuda.bench.results.synthetic import SyntheticConfig

ARCHIVED = 5
COMMITS = commit_ids(ARCHIVED + 1, seed=7)


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(archive, the gated run's JSON file without side files)."""
    noise = HistoryNoise("iid", run_sigma=0.002)
    found = generate(noise, series=2, runs=ARCHIVED + 1, steps=(0.05,), step_at=ARCHIVED, seed=2)
    config = SyntheticConfig(benchmarks=1, states=2, samples=200)
    runs = write_history(tmp_path_factory.mktemp("runs"), found, config, seed=9)
    archive = tmp_path_factory.mktemp("archive") / "archive"
    for order, path in enumerate(runs[:ARCHIVED]):
        ingest(archive, path, commit=COMMITS[order], date=f"2026-05-0{1 + order}T03:00:00Z")
    alone = tmp_path_factory.mktemp("tonight") / "tonight.json"
    shutil.copy(runs[ARCHIVED], alone)
    return archive, alone


def _edited(source: Path, target: Path, edit: Callable[[dict[str, Any]], None]) -> Path:
    document = json.loads(source.read_text(encoding="utf-8"))
    for benchmark in document["benchmarks"]:
        for state in benchmark["states"]:
            edit(state)
    target.write_text(json.dumps(document), encoding="utf-8")
    return target


def _setter(tag: str, value: str, kind: str | None = None) -> Callable[[dict[str, Any]], None]:
    def edit(state: dict[str, Any]) -> None:
        for summary in state["summaries"]:
            if summary["tag"] == tag:
                summary["data"][0]["value"] = value
                if kind is not None:
                    summary["data"][0]["type"] = kind

    return edit


def _rows(archive: Path, run: Path) -> list[tuple[Status, Reason]]:
    return [(row.status, row.reason) for row in gate(archive, run).comparison]


def test_the_unedited_run_is_slow(history: tuple[Path, Path]) -> None:
    """The control: every state of the gated run is 5 % slower."""
    archive, tonight = history
    assert {status for status, _ in _rows(archive, tonight)} == {Status.SLOW}


def test_a_clock_no_gpu_runs_at_leaves_the_state_undecided(
    history: tuple[Path, Path], tmp_path: Path
) -> None:
    """A clock of 1e308 Hz "confirmed" the change in cycles: SLOW; the control's runs are
    identical but for the clock."""
    archive, tonight = history
    run = _edited(tonight, tmp_path / "run.json", _setter("nv/cold/sm_clock_rate/mean", "1e308"))
    assert set(_rows(archive, run)) == {(Status.AMBG, Reason.INVALID_CLOCK_RATE)}


def test_a_clock_recorded_as_text_leaves_the_state_undecided(
    history: tuple[Path, Path], tmp_path: Path
) -> None:
    """A clock tagged ``"string"`` read as no clock: the change decided in time alone."""
    archive, tonight = history
    edit = _setter("nv/cold/sm_clock_rate/mean", "1.5e9", "string")
    run = _edited(tonight, tmp_path / "run.json", edit)
    assert set(_rows(archive, run)) == {(Status.AMBG, Reason.INVALID_CLOCK_RATE)}


def test_a_run_without_the_clock_its_history_records_is_still_decided(
    history: tuple[Path, Path], tmp_path: Path
) -> None:
    """The archived runs record a mean SM clock, tonight's none (an NVBench that records no
    clock): the regression is decided in time alone, SLOW, as for files without clocks. A
    rule that made it AMBG ``missing_clock_rate`` let ``--fail-on slow`` pass it (for as
    long as the reference window held a run of the other kind)."""
    archive, tonight = history

    def edit(state: dict[str, Any]) -> None:
        state["summaries"] = [
            one for one in state["summaries"] if one["tag"] != "nv/cold/sm_clock_rate/mean"
        ]

    run = _edited(tonight, tmp_path / "run.json", edit)
    assert set(_rows(archive, run)) == {(Status.SLOW, Reason.CI_CHANGE_WITHOUT_CYCLES)}


def test_a_sample_count_beyond_int64_leaves_the_state_unknown(
    history: tuple[Path, Path], tmp_path: Path
) -> None:
    """2^70 samples, which ingest refuses: the gate used the count (SLOW here)."""
    archive, tonight = history
    run = _edited(tonight, tmp_path / "run.json", _setter("nv/cold/sample_size", str(2**70)))
    assert set(_rows(archive, run)) == {(Status.UNKNOWN, Reason.INVALID_SAMPLE_COUNT)}
