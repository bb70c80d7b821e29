"""A gate against too short a history says so, in the summary as in the rows: the
geometric-mean line names ``history_too_short`` (not the drift its calibration of too few
runs suggested), no row advises a quieter machine, a note says how many runs the levels
hold and how many the gate needs, and a gated run the archive already holds is said to be
left out as its own reference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _history_calls import ingest_days, ingest_on_day, run_history


@pytest.fixture(scope="module")
def three_runs(gpu_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """gpu_ref, gpu_cmp and gpu_ref_nosidecar, one commit each: a new user's first archive.
    gpu_cmp_plain holds gpu_cmp's measurements (without side files): gated, it is the
    archive's second run, left out, so each level holds two runs."""
    names = ("gpu_ref.json", "gpu_cmp.json", "gpu_ref_nosidecar.json")
    runs = [(gpu_dir / name, letter * 40) for name, letter in zip(names, "abc", strict=True)]
    return ingest_days(tmp_path_factory.mktemp("three") / "archive", runs)


def test_too_short_a_history_is_named_as_the_cause(
    three_runs: Path, gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "gate.json"
    argv = ["gate", "--archive", three_runs, gpu_dir / "gpu_cmp_plain.json", "--json", report]
    code, out, err = run_history(capsys, *argv)
    assert code == 0, err
    lines = out.splitlines()
    assert any("history_too_short: 20" in line for line in lines), out
    mean = next(line for line in lines if "Geometric mean" in line)
    assert "not a suite-wide change: 20 of 20 row(s)" in mean, mean
    assert "(history_too_short: 20)" in mean and "too few runs" in mean, mean
    assert "too_noisy_to_judge" not in mean and "their runs drift" not in mean, mean
    data = json.loads(report.read_text())
    assert data["geomean"]["drift_reasons"] == {"history_too_short": 20}
    assert data["geomean"]["drift_rows"] == 20
    messages = [row["reason_message"] for row in data["rows"] if row["status"] == "AMBG"]
    assert len(messages) == 20
    for message in messages:
        assert message.startswith("2 run(s) of the current level in the archive"), message
        assert "the gate needs 3" in message, message
        assert "quieter machine" not in message and "on this machine" not in message, message
    notes = data["notes"]
    short = [note for note in notes if "history_too_short" in note]
    assert len(short) == 1 and "2 run(s)" in short[0] and "needs 3" in short[0], notes
    # gpu_cmp's run (c089907e7ae64925) is gpu_cmp_plain's measurements.
    own = [note for note in notes if "own reference" in note]
    assert len(own) == 1 and "c089907e7ae64925" in own[0], notes
    assert "own reference" in out
    # Every row too short: --fail-on slow "passed" a gate that judged nothing, unsaid.
    judged = "no state was judged: --fail-on slow passes this gate, --fail-on ambiguous fails it"
    assert short[0].endswith(judged) and judged in out
    code, out, _ = run_history(capsys, *argv, "--fail-on", "ambiguous")
    assert code == 1 and judged in out


def test_a_run_the_archive_lacks_is_not_said_to_be_left_out(gpu_dir: Path, tmp_path: Path) -> None:
    from cuda.bench.history.gate import gate

    archive = tmp_path / "archive"
    ingest_on_day(archive, gpu_dir / "gpu_ref.json", "a" * 40, 1)
    found = gate(archive, gpu_dir / "gpu_cmp.json")
    notes = found.comparison.settings.get("notes", ())
    assert not any("own reference" in note for note in notes), notes
    # One run of each level: the note says so.
    assert any("1 run(s)" in note and "history_too_short" in note for note in notes), notes
    assert all("left out" not in row.verdict.text for row in found.comparison.rows)
