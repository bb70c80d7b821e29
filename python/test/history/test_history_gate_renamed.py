"""``nvbench-history gate`` on a run that shares no state with the archive.

A run whose benchmarks were all renamed has no history: every state of it is ADDED and
every state of the latest archived run is REMOVED, a normal gate report whose exit status
``--fail-on`` decides (it used to end with exit 2 and a line listing every reference run).
Only a run that measured no state at all is an error: one short line, exit 2.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from cuda.bench.cli.history import main
from cuda.bench.compare.model import Status
from cuda.bench.history.archive import ArchiveError, ingest
from cuda.bench.history.gate import gate
from cuda.bench.history.synthetic import HistoryNoise, generate, write_history
from cuda.bench.results.synthetic import SyntheticConfig

ARCHIVED = 5
STATES = tuple(f"Device=0 Elements={n}" for n in (1024, 2048, 3072))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ...]:
    history = generate(HistoryNoise("iid", run_sigma=0.003), series=6, runs=ARCHIVED + 1, seed=5)
    config = SyntheticConfig(benchmarks=2, states=3, samples=100)
    return write_history(tmp_path_factory.mktemp("runs"), history, config, seed=3)


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory, runs: tuple[Path, ...]) -> Path:
    root = tmp_path_factory.mktemp("archive") / "archive"
    for order, path in enumerate(runs[:ARCHIVED]):
        ingest(root, path, commit=f"c{order}", date=f"2026-04-{1 + order:02d}T03:00:00Z")
    return root


def _edited(path: Path, suffix: str, edit: str) -> Path:
    """A copy of run ``path`` (beside it: its side files stay found) with every benchmark
    renamed (``edit="rename"``), emptied of states (``"empty"``), skipped (``"skip"``) or
    dropped (``"none"``); ``"skip-known"`` skips every state and keeps the names (states
    with history)."""
    document = json.loads(path.read_text())
    for benchmark in document["benchmarks"]:
        if edit != "skip-known":
            benchmark["name"] = f"{benchmark['name']}_v2"
        if edit == "empty":
            benchmark["states"] = []
        for state in benchmark["states"] if edit in ("skip", "skip-known") else ():
            state.update(is_skipped=True, skip_reason="Unsupported device", summaries=None)
    if edit == "none":
        document["benchmarks"] = []
    out = path.with_name(f"{path.stem}-{suffix}.json")
    out.write_text(json.dumps(document))
    return out


def test_a_renamed_run_is_added_and_the_latest_archived_run_removed(
    archive: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    renamed = _edited(runs[ARCHIVED], "renamed", "rename")
    found = gate(archive, renamed)
    rows = found.comparison.rows
    added = {(row.benchmark, row.cmp_state_name) for row in rows if row.status is Status.ADDED}
    removed = {(row.benchmark, row.ref_state_name) for row in rows if row.status is Status.REMOVED}
    assert added == {(f"bench_0{b}_v2", state) for b in (0, 1) for state in STATES}
    assert removed == {(f"bench_0{b}", state) for b in (0, 1) for state in STATES}
    assert len(rows) == 12
    # Only the latest archived run stands behind REMOVED rows: no empty reference runs.
    assert found.reference_runs == 1
    assert main(["gate", "--archive", str(archive), str(renamed), "--color", "never"]) == 0
    out, err = capsys.readouterr()
    assert "error" not in err and "bench_00_v2" in out and "ADDED" in out and "REMOVED" in out
    # It passes --fail-on slow (nothing was compared), so it says so in one warning line.
    (warning,) = err.splitlines()
    assert "nothing was compared" in warning and "--fail-on missing" in warning
    argv = ["gate", "--archive", str(archive), str(renamed), "--fail-on", "missing"]
    assert main(argv) == 1
    assert "--fail-on missing: 12" in capsys.readouterr().err
    # Two renamed runs of one build are gated alike.
    again = _edited(runs[ARCHIVED - 1], "renamed", "rename")
    both = gate(archive, [renamed, again]).comparison
    assert sorted(row.status.name for row in both.rows) == ["ADDED"] * 6 + ["REMOVED"] * 6


def test_a_filter_that_selects_only_new_benchmarks_gives_added_rows(
    archive: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    """The archive has no series of the selected benchmark: its states are ADDED (the gate
    said "no state selected by -b/-a/--device has runs", exit 2)."""
    renamed = _edited(runs[ARCHIVED], "renamed", "rename")
    found = gate(archive, renamed, filters=_filters("-b", "bench_00_v2"))
    assert {(row.benchmark, row.status) for row in found.comparison.rows} == {
        ("bench_00_v2", Status.ADDED)
    }
    assert len(found.comparison.rows) == 3
    argv = ["gate", "--archive", str(archive), str(renamed), "-b", "bench_00_v2"]
    assert main([*argv, "--fail-on", "slow"]) == 0
    assert main([*argv, "--fail-on", "missing"]) == 1
    capsys.readouterr()


def _filters(*argv: str) -> object:
    import argparse

    from cuda.bench.compare.filters import FilterPlan, add_filter_arguments

    parser = argparse.ArgumentParser()
    add_filter_arguments(parser, verb="gate")
    parser.set_defaults(filters=[])
    return FilterPlan.from_args(parser.parse_args(list(argv)).filters)


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        ("none", "no benchmark state"),
        ("empty", "no benchmark state"),
        ("skip", "skipped"),
        # Skipped states with history were ???? state_skipped rows, which passed the gate.
        ("skip-known", "skipped"),
    ],
)
def test_a_run_that_measured_no_state_is_one_short_line(
    archive: Path,
    runs: tuple[Path, ...],
    capsys: pytest.CaptureFixture[str],
    edit: str,
    needle: str,
) -> None:
    """Nothing to gate is an error, never a pass (and never REMOVED rows that pass without
    --fail-on missing): one line naming the file and what to do, not the reference runs."""
    tonight = _edited(runs[ARCHIVED], edit, edit)
    for fail_on in ([], ["--fail-on", "missing"]):
        assert main(["gate", "--archive", str(archive), str(tonight), *fail_on]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert tonight.name in err and needle in err, err
        assert "current level" not in err and len(err) < 300, err
    with pytest.raises(ArchiveError, match=needle):
        gate(archive, tonight)
    # Gated with a run that measured its states, the empty run is still named.
    assert main(["gate", "--archive", str(archive), str(runs[ARCHIVED]), str(tonight)]) == 2
    assert tonight.name in capsys.readouterr().err


def test_a_device_the_run_lacks_is_one_line_about_the_run(
    archive: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    """Not the comparison's line about its --reference-devices and the gate's rebuilt
    reference file (what --device 0,5 gave), nor a line about the archive."""
    for ids in ("5", "0,5"):
        argv = ["gate", "--archive", str(archive), str(runs[ARCHIVED]), "--device", ids]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--device 5: not a device of this run (it has 0)" in err
        assert "--reference-devices" not in err and "level-1" not in err, err
