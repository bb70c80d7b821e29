"""``detect --since`` takes a commit as git does: an empty value and a prefix of more than
one commit are refused (exit 2, one line naming the prefix and the commits it matches),
not silently read as the earliest match; a commit given whole is never ambiguous, even
where it begins another one. ``--since`` is detect's alone among the history commands."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _history_calls import ingest_days, run_history

#: ``abc`` begins ``abc222``; ``ab`` begins all three.
COMMITS = ("abc", "abc222", "abd333")


@pytest.fixture(scope="module")
def archive(gpu_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    names = ("gpu_ref.json", "gpu_cmp.json", "gpu_ref_nosidecar.json")
    runs = [(gpu_dir / name, commit) for name, commit in zip(names, COMMITS, strict=True)]
    return ingest_days(tmp_path_factory.mktemp("since") / "archive", runs)


def _refused(capsys: pytest.CaptureFixture[str], archive: Path, since: str) -> str:
    code, out, err = run_history(capsys, "detect", "--archive", archive, "--since", since)
    assert code == 2 and not out, (code, out, err)
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_an_empty_since_is_refused(archive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _refused(capsys, archive, "")
    assert "--since" in err and "empty" in err, err


@pytest.mark.parametrize(("prefix", "matches"), [("ab", COMMITS), ("abc2", None)])
def test_a_prefix_of_several_commits_is_refused(
    archive: Path, capsys: pytest.CaptureFixture[str], prefix: str, matches: tuple[str, ...] | None
) -> None:
    if matches is None:  # one commit: taken
        code, _, err = run_history(capsys, "detect", "--archive", archive, "--since", prefix)
        assert code == 0, err
        return
    err = _refused(capsys, archive, prefix)
    assert f"--since {prefix}:" in err and "ambiguous" in err, err
    assert all(commit in err for commit in matches), err


@pytest.mark.parametrize("since", ["abc", "abd", "abc222"])
def test_a_whole_commit_or_a_unique_prefix_is_taken(
    archive: Path, capsys: pytest.CaptureFixture[str], since: str
) -> None:
    code, _, err = run_history(capsys, "detect", "--archive", archive, "--since", since)
    assert code == 0, err


def test_only_detect_takes_since() -> None:
    from cuda.bench.cli.history import build_parser

    parser = build_parser("nvbench-history")
    (commands,) = (
        action for action in parser._actions if isinstance(action, argparse._SubParsersAction)
    )
    taking = sorted(
        name
        for name, sub in commands.choices.items()
        if any("--since" in action.option_strings for action in sub._actions)
    )
    assert taking == ["detect"]


def test_the_counts_line_says_it_counts_from_since_on(
    archive: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # '--since X' printed '20 series, 0 events, 0 changes ...' as if the archive held none,
    # where it counts only the changes from X on.
    code, out, err = run_history(capsys, "detect", "--archive", archive, "--since", "abd")
    assert code == 0, err
    counts = out.strip().splitlines()[0]
    assert "0 changes from abd333 on (0 SLOW, 0 FAST)" in counts, counts  # the prefix resolved
    code, out, err = run_history(capsys, "detect", "--archive", archive)
    assert code == 0, err
    assert " on (" not in out, out


@pytest.mark.parametrize(
    ("since", "commit"), [("abd", "abd333"), ("abc", "abc"), ("abc2", "abc222")]
)
def test_the_report_names_the_commit_a_prefix_names(
    archive: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, since: str, commit: str
) -> None:
    # The JSON report's "since" was the prefix as typed: a reader could not tell which
    # commit it meant once the archive held another that it begins.
    import json

    report = tmp_path / "detect.json"
    argv = ["detect", "--archive", archive, "--since", since, "--json", report]
    code, _, err = run_history(capsys, *argv)
    assert code == 0, err
    assert json.loads(report.read_text())["since"] == commit


def test_a_whole_commit_that_begins_another_counts_from_its_own_runs() -> None:
    # 'v1' begins 'v10': once taken whole, the runs of 'v10' (earlier) were matched too, so
    # '--since v1' reported a change before v1 and said it counted "from v1 on".
    import datetime as dt

    import numpy as np
    from cuda.bench.history.series import ArchiveSeries, examine

    commits = ("v10", *(f"x{i}" for i in range(14)), "v1", *(f"y{i}" for i in range(14)))
    rng = np.random.default_rng(3)
    medians = np.where(np.arange(len(commits)) < 8, 1e-3, 1.2e-3)
    medians = medians * np.exp(0.002 * rng.standard_normal(len(commits)))
    day = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    one = ArchiveSeries(
        machine="m",
        benchmark="b",
        device=0,
        state_name="s",
        axes=(),
        commits=commits,
        dates=tuple(day + dt.timedelta(days=i) for i in range(len(commits))),
        medians=medians,
        median_lo=None,
        median_hi=None,
    )
    assert [change.index for change in examine([one]).detection.changes] == [8]
    view = examine([one], since="v1")
    assert view.since_commit == "v1" and view.since == (15,)
    assert view.reported_changes() == []
