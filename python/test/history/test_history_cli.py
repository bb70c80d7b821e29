"""``nvbench-history``: ingest, trend, detect (and its documented JSON schema), bad input."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import real_path

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from cuda.bench.cli.history import main
from cuda.bench.history.synthetic import HistoryNoise, commit_ids, generate, write_history
from cuda.bench.results.synthetic import SyntheticConfig

RUNS = 30
STEP_AT = 18
_SCHEMA_DOC = Path(__file__).resolve().parents[3] / "docs" / "history-schema.md"


def _files(root: Path) -> list[tuple[str, bytes]]:
    if not root.exists():
        return []
    return sorted(
        (str(path.relative_to(root)), path.read_bytes())
        for path in root.rglob("*")
        if path.is_file()
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ...]:
    """Two benchmarks of three states; series 0 and 2 (bench_00) get 10 % slower at run 18,
    series 3 (bench_01's first) 10 % faster (``both_directions``: odd series get faster)."""
    history = generate(
        HistoryNoise("iid", run_sigma=0.005),
        series=6,
        runs=RUNS,
        steps=(0.10, 0.0, 0.10, 0.10, 0.0, 0.0),
        step_at=STEP_AT,
        both_directions=True,
        seed=5,
    )
    config = SyntheticConfig(benchmarks=2, states=3, samples=64)
    return write_history(tmp_path_factory.mktemp("runs"), history, config, seed=3)


COMMITS = commit_ids(RUNS, seed=9)


def ingest_history(archive: Path, paths: tuple[Path, ...]) -> None:
    for order, path in enumerate(paths):
        status = main(
            [
                "ingest",
                "--archive",
                str(archive),
                "--commit",
                COMMITS[order],
                "--date",
                f"2026-03-{1 + order % 28:02d}T02:00:00Z",
                "--order",
                str(order),
                "--tag",
                "ci=nightly",
                str(path),
            ]
        )
        assert status == 0


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory, runs: tuple[Path, ...]) -> Path:
    root = tmp_path_factory.mktemp("archive") / "archive"
    ingest_history(root, runs)
    return root


def test_ingest_prints_what_it_added_and_tags_the_runs(
    tmp_path: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    archive = tmp_path / "a"
    assert main(["ingest", "--archive", str(archive), "--commit", "abc", *map(str, runs[:2])]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and all("6 states" in line for line in lines)
    import duckdb  # noqa: F401
    from cuda.bench.history.archive import query

    rows = query(archive).execute("SELECT commit, source FROM runs ORDER BY source").fetchall()
    assert rows == [("abc", runs[0].name), ("abc", runs[1].name)]


def test_detect_finds_the_steps_and_reports_them(
    archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "detect.json"
    assert main(["detect", "--archive", str(archive), "--json", str(report)]) == 0
    out = capsys.readouterr().out
    assert "6 series, 2 events, 3 changes (2 SLOW, 1 FAST)" in out
    document = json.loads(report.read_text())
    changes = {(c["benchmark"], c["state_name"]): c for c in document["changes"]}
    assert set(changes) == {
        ("bench_00", "Elements=1024"),
        ("bench_00", "Elements=3072"),
        ("bench_01", "Elements=1024"),
    }
    slow = changes[("bench_00", "Elements=1024")]
    assert slow["commit"] == COMMITS[STEP_AT] and slow["index"] == STEP_AT
    assert slow["status"] == "SLOW" and slow["ratio_lo"] < 1.10 < slow["ratio_hi"]
    assert changes[("bench_00", "Elements=3072")]["status"] == "SLOW"
    fast = changes[("bench_01", "Elements=1024")]
    assert fast["status"] == "FAST" and fast["ratio_hi"] < 0.99
    events = document["events"]
    assert [(e["status"], e["states"]) for e in events] == [("SLOW", 2), ("FAST", 1)]
    assert {c["event"] for c in document["changes"] if c["status"] == "SLOW"} == {0}
    assert len(document["series"]) == 6


def test_detect_and_the_site_count_one_event_in_the_singular(
    archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """bench_01 alone: one series stepped faster, so one event and one change ("1 events"
    and "1 changes" before)."""
    assert main(["detect", "--archive", str(archive), "-b", "bench_01"]) == 0
    out = capsys.readouterr().out
    assert "3 series, 1 event, 1 change (0 SLOW, 1 FAST);" in out, out
    assert f"(of up to {RUNS} runs)" in out
    site = tmp_path / "site"
    assert main(["report", "--archive", str(archive), "-b", "bench_01", "--html", str(site)]) == 0
    index = (site / "index.html").read_text()
    assert "3 series in 1 benchmark; 1 event, 1 confirmed change.</p>" in index


def test_since_reports_only_later_changes(
    archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "detect.json"
    later = COMMITS[STEP_AT + 1][:10]
    assert main(["detect", "--archive", str(archive), "--since", later, "--json", str(report)]) == 0
    document = json.loads(report.read_text())
    # The commit the prefix names, whole.
    assert document["since"] == COMMITS[STEP_AT + 1]
    assert document["changes"] == [] and document["events"] == []
    assert main(["detect", "--archive", str(archive), "--since", COMMITS[STEP_AT]]) == 0
    assert "3 changes" in capsys.readouterr().out


def test_since_reports_the_changes_of_series_without_a_run_of_that_commit(
    tmp_path: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    """bench_00's Elements=1024 is missing from the run of the --since commit and its
    Elements=3072 has no run before run 10: both still report their step at run 18 (they
    reported nothing: a series without a run of the commit started after its last run)."""
    edited = []
    for number, path in enumerate(runs):
        document = json.loads(path.read_text())
        dropped = {"Device=0 Elements=1024"} if number == STEP_AT else set()
        if number < 10:
            dropped.add("Device=0 Elements=3072")
        bench = document["benchmarks"][0]
        bench["states"] = [state for state in bench["states"] if state["name"] not in dropped]
        edited.append(tmp_path / path.name)
        edited[-1].write_text(json.dumps(document))
    archive = tmp_path / "a"
    ingest_history(archive, tuple(edited))
    report = tmp_path / "detect.json"

    def reported(since: str) -> list[tuple[str, str, str]]:
        argv = ["detect", "--archive", str(archive), "--since", since, "--json", str(report)]
        assert main(argv) == 0
        changes = json.loads(report.read_text())["changes"]
        return sorted((c["benchmark"], c["state_name"], c["commit"]) for c in changes)

    # Elements=1024's first run after the step is the next commit's.
    everything = [
        ("bench_00", "Elements=1024", COMMITS[STEP_AT + 1]),
        ("bench_00", "Elements=3072", COMMITS[STEP_AT]),
        ("bench_01", "Elements=1024", COMMITS[STEP_AT]),
    ]
    assert reported(COMMITS[STEP_AT][:10]) == everything
    assert reported(COMMITS[5]) == everything  # before Elements=3072's first run
    assert reported(COMMITS[STEP_AT + 1]) == everything[:1]
    capsys.readouterr()


def test_trend_shows_each_series_current_level_and_filters(
    archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plot = tmp_path / "trend.png"
    argv = ["trend", "--archive", str(archive), "-b", "bench_00", "--plot", str(plot)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    out = captured.out
    rows = [line for line in out.splitlines() if line.startswith("| bench_")]
    assert len(rows) == 3 and all(row.startswith("| bench_00") for row in rows)
    # Where the image went, as ``report`` says where its site went; on stderr, so that the
    # table on stdout stays the table (a plot note of its own goes there too).
    assert captured.err == f"nvbench-history: wrote {plot}\n" and "wrote" not in out
    # After the change the current level is the runs since it; without one, every run.
    assert f"({RUNS - STEP_AT} runs)" in rows[0] and f"({RUNS} runs)" in rows[1]
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["trend", "--archive", str(archive), "-a", "Elements=2048", "--device", "0"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| bench_")]
    assert len(rows) == 2 and all("Elements=2048" in row for row in rows)


# ---------------------------------------------------------------------------------------
# Bad input: one line, exit status 2, nothing written


def _fails(argv: list[str], capsys: pytest.CaptureFixture[str], pattern: str) -> None:
    try:
        status = main(argv)
    except SystemExit as stop:  # argparse's usage errors
        status = stop.code  # type: ignore[assignment]
    assert status == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert re.search(pattern, err), err


def test_a_run_already_ingested_fails_and_writes_nothing(
    tmp_path: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    archive = tmp_path / "a"
    assert main(["ingest", "--archive", str(archive), "--commit", "c0", str(runs[0])]) == 0
    before = _files(archive)
    _fails(
        ["ingest", "--archive", str(archive), "--commit", "c0", str(runs[1]), str(runs[0])],
        capsys,
        r"run_0000\.json: already in the archive",
    )
    assert _files(archive) == before  # run_0001 was not written either
    _fails(
        ["ingest", "--archive", str(archive), "--commit", "c0", str(runs[2]), str(runs[2])],
        capsys,
        r"run_0002\.json: the same run as",
    )
    assert _files(archive) == before


def test_one_run_is_read_and_checked_once(
    tmp_path: Path,
    runs: tuple[Path, ...],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The command checked every run (check_new_run) and then ingested it (ingest), which
    read the file and its side files and checked them again: twice for the nightly single
    run, which its own ingest checks before writing anything. Several runs are all checked
    before any is written, so each is read twice still."""
    from cuda.bench.history import archive as module

    opened: list[Path] = []
    real = module._checked_run

    def counting(path: Path, result: Any) -> tuple[str, str]:
        opened.append(path)
        return real(path, result)

    monkeypatch.setattr(module, "_checked_run", counting)
    root = tmp_path / "a"
    head = ["ingest", "--archive", str(root), "--commit", "c0"]
    assert main([*head, str(runs[0])]) == 0
    assert opened == [runs[0]]
    assert main([*head, str(runs[1]), str(runs[2])]) == 0
    assert opened[1:] == [runs[1], runs[2], runs[1], runs[2]]
    # The one reading refuses as the check did, in its words, and writes nothing.
    before = _files(root)
    opened.clear()
    _fails(
        [*head, str(runs[0])],
        capsys,
        r"run_0000\.json: already in the archive \(run \w{16}\); nothing written",
    )
    _fails([*head, "--order", str(2**63), str(runs[3])], capsys, r"--order \d+ is beyond")
    assert _files(root) == before and opened == [runs[0], runs[3]]


def test_a_place_in_the_order_taken_by_another_commit_is_refused(
    tmp_path: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    """Two commits at one ``--order`` of one branch were ordered by their dates, silently
    (a CI that passes a constant, or a count that restarted, scrambles every series)."""
    archive = tmp_path / "a"
    head = ["ingest", "--archive", str(archive)]
    assert main([*head, "--commit", "c0", "--order", "7", str(runs[0])]) == 0
    before = _files(archive)
    _fails(
        [*head, "--commit", "c1", "--order", "7", str(runs[1])],
        capsys,
        r"run_0001\.json: --order 7 already belongs to commit 'c0'",
    )
    assert _files(archive) == before
    # A second run of the same commit shares its place; another branch has its own order.
    assert main([*head, "--commit", "c0", "--order", "7", str(runs[1])]) == 0
    assert main([*head, "--commit", "c2", "--order", "7", "--branch", "wip", str(runs[2])]) == 0
    _fails(
        [*head, "--commit", "c3", "--order", "7", "--branch", "wip", str(runs[3])],
        capsys,
        r"--order 7 already belongs to commit 'c2' on branch 'wip'",
    )
    assert main([*head, "--commit", "c3", "--order", "8", str(runs[3])]) == 0


def test_a_commit_given_a_second_place_in_the_order_is_refused(
    tmp_path: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    """One commit at two ``--order`` values of one branch was archived silently: its runs
    sat at two places of every series (a rebuild of an old commit given tonight's count)."""
    archive = tmp_path / "a"
    head = ["ingest", "--archive", str(archive)]
    assert main([*head, "--commit", "c0", "--order", "7", str(runs[0])]) == 0
    before = _files(archive)
    _fails(
        [*head, "--commit", "c0", "--order", "8", str(runs[1])],
        capsys,
        r"run_0001\.json: commit 'c0' already has --order 7, not 8",
    )
    assert _files(archive) == before
    # Another branch has its own order; a run without --order is refused for that alone
    # (test_history_order_given.py), not for the commit's place.
    assert main([*head, "--commit", "c0", "--order", "3", "--branch", "wip", str(runs[1])]) == 0
    _fails(
        [*head, "--commit", "c0", "--order", "4", "--branch", "wip", str(runs[2])],
        capsys,
        r"commit 'c0' already has --order 3 on branch 'wip', not 4",
    )
    _fails([*head, "--commit", "c0", str(runs[2])], capsys, r"runs all carry --order .* none:")
    assert main([*head, "--commit", "c0", "--order", "7", str(runs[3])]) == 0


def test_a_non_nvbench_file_fails_and_writes_nothing(
    tmp_path: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    bogus = tmp_path / "notes.json"
    bogus.write_text('{"hello": 1}')
    archive = tmp_path / "a"
    _fails(
        ["ingest", "--archive", str(archive), "--commit", "c0", str(runs[0]), str(bogus)],
        capsys,
        "notes.json",
    )
    assert not archive.exists()


def test_a_directory_that_is_not_an_archive_fails(
    tmp_path: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "keep.txt").write_text("x")
    before = _files(other)
    _fails(
        ["ingest", "--archive", str(other), "--commit", "c0", str(runs[0])],
        capsys,
        "not an nvbench-tools",
    )
    _fails(["detect", "--archive", str(other)], capsys, "not an nvbench-tools")
    _fails(["trend", "--archive", str(tmp_path / "missing")], capsys, "missing: no such directory")
    assert _files(other) == before


def test_a_run_needs_the_commit_of_the_benchmarked_code(
    tmp_path: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    # NVBench's file records only NVBench's own git SHA (the same for every run built with
    # one NVBench): it labelled every run given no --commit alike.
    document = json.loads(runs[0].read_text())
    assert document["meta"]["version"]["nvbench"]["git_sha"]
    archive = tmp_path / "a"
    _fails(["ingest", "--archive", str(archive), str(runs[0])], capsys, r"--commit")
    _fails(
        ["ingest", "--archive", str(archive), "--commit", " ", str(runs[0])], capsys, r"--commit"
    )
    assert not archive.exists()
    del document["meta"]["version"]["nvbench"]["git_sha"]
    stripped = tmp_path / "nosha.json"
    stripped.write_text(json.dumps(document))
    assert main(["ingest", "--archive", str(archive), "--commit", "f00d", str(stripped)]) == 0
    import pyarrow.parquet as pq

    (stored,) = sorted((archive / "runs").rglob("*.parquet"))
    assert pq.read_table(stored).column("commit").to_pylist() == ["f00d"]


def test_bad_options_fail_in_one_line(
    archive: Path, tmp_path: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    _fails(["detect", "--archive", str(archive), "--since", "nope"], capsys, "--since nope")
    # The selection that matched nothing, named with what the archive holds.
    _fails(
        ["trend", "--archive", str(archive), "-b", "nope"],
        capsys,
        r"-b nope: no such benchmark in the archive \(benchmarks in the archive: bench_00, ",
    )
    _fails(
        ["trend", "--archive", str(archive), "--device", "7"],
        capsys,
        r"--device 7: no series on device 7 \(devices in the archive: 0\)",
    )
    _fails(["trend", "--archive", str(archive), "--device", "x"], capsys, "--device")
    _fails(
        ["trend", "--archive", str(archive), "--plot", str(tmp_path / "x.nope")], capsys, "--plot"
    )
    _fails(
        [
            "ingest",
            "--archive",
            str(tmp_path / "b"),
            "--commit",
            "c0",
            "--tag",
            "novalue",
            str(runs[0]),
        ],
        capsys,
        "KEY=VALUE",
    )
    _fails(
        [
            "ingest",
            "--archive",
            str(tmp_path / "b"),
            "--commit",
            "c0",
            "--date",
            "soon",
            str(runs[0]),
        ],
        capsys,
        "ISO 8601",
    )
    _fails(["detect", "--arch", str(archive)], capsys, "arch")  # no abbreviations
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize(
    "date", ["9999-12-31T23:59:59-12:00", "0001-01-01T00:00:00+14:00", "9999-12-31T06:00:00Z"]
)
def test_a_date_the_archive_cannot_read_back_is_refused(
    tmp_path: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str], date: str
) -> None:
    """In UTC the first two are years 10000 and 0, the third hours from the end of year
    9999, which a reader east of UTC gets back in year 10000: each broke every later
    command of the archive (a traceback, exit 1)."""
    archive = tmp_path / "a"
    _fails(
        ["ingest", "--archive", str(archive), "--commit", "c0", "--date", date, str(runs[0])],
        capsys,
        "--date",
    )
    assert not archive.exists()


def test_the_month_partition_is_the_stored_utc_dates(
    tmp_path: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    """Late on 31 January in New York is 1 February in UTC, which the archive stores; its
    month partition said 2026-01."""
    import datetime as dt

    from cuda.bench.history.archive import query

    archive = tmp_path / "a"
    argv = [
        "ingest",
        "--archive",
        str(archive),
        "--commit",
        "c0",
        "--date",
        "2026-01-31T23:00:00-05:00",
    ]
    assert main([*argv, str(runs[0])]) == 0
    assert capsys.readouterr().out.rstrip().endswith("month 2026-02")
    assert [path.name for path in (archive / "runs").glob("*/*")] == ["month=2026-02"]
    connection = query(archive)
    # As microseconds: DuckDB before 2.0 gives a time-zone value to Python only through pytz.
    micros, month = connection.execute("SELECT epoch_us(date), month FROM runs").fetchone()
    connection.close()
    stored = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(microseconds=micros)
    assert stored == dt.datetime(2026, 2, 1, 4, tzinfo=dt.timezone.utc) and month == "2026-02"


def test_legacy_runs_dated_out_of_range_are_left_out_with_a_warning(
    tmp_path: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    """An archive written before ingest checked dates holds a run of year 10000, which
    DuckDB gives back as text: every command failed with a traceback, exit 1."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    archive = tmp_path / "a"
    for number, path in enumerate(runs[:3]):
        argv = ["ingest", "--archive", str(archive), "--commit", COMMITS[number]]
        assert main([*argv, "--date", f"2026-01-0{number + 1}", str(path)]) == 0
    stored = sorted(archive.glob("runs/*/*/*.parquet"))
    table = pq.read_table(stored[0])
    year_10000 = 253402300800 * 10**6  # 10000-01-01T00:00Z in microseconds since 1970
    date = table.schema.field("date").type
    table = table.set_column(
        table.schema.get_field_index("date"), "date", pa.array([year_10000], date)
    )
    pq.write_table(table, stored[0])
    out = tmp_path / "out"
    out.mkdir()
    capsys.readouterr()
    for argv in (
        ["trend"],
        ["detect", "--json", str(out / "d.json")],
        ["report", "--html", str(out / "site")],
        ["gate", str(runs[3])],
    ):
        assert main([argv[0], "--archive", str(archive), *argv[1:]]) == 0, argv
        err = capsys.readouterr().err
        assert "warning:" in err and "left out 6 state row(s) whose run's date" in err, argv
        assert ": date after year 9999" in err, err
    series = json.loads((out / "d.json").read_text())["series"]
    assert [one["runs"] for one in series] == [2] * 6


def test_one_run_given_twice_is_refused_by_baseline_check_and_gate(
    archive: Path, tmp_path: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    """A run agrees with itself: the same file three times passed baseline check (exit 0),
    and a byte-identical copy under another name passed both commands."""
    copy = tmp_path / "copy.json"
    copy.write_bytes(runs[0].read_bytes())
    first, second = str(runs[0]), str(runs[1])
    _fails(["baseline", "check", first, first, first], capsys, "the same file as .*given twice")
    _fails(["baseline", "check", first, second, str(copy)], capsys, "a copy of")
    _fails(["gate", "--archive", str(archive), first, str(copy)], capsys, "a copy of")
    assert main(["baseline", "check", first, second, str(runs[2])]) == 0


def test_dash_is_no_file_name_for_a_plot_or_a_site(
    archive: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``-`` is not standard output for an image or a site: run in the archive, trend wrote
    a PNG named ``-`` and report a site ``-/`` into it (the archive check took ``-`` for
    standard output)."""
    before = _files(archive)
    monkeypatch.chdir(archive)
    _fails(["trend", "--archive", ".", "--plot", "-"], capsys, r"^\S+: error: --plot -: ")
    _fails(["report", "--archive", ".", "--html", "-"], capsys, "--html -: .*standard output")
    assert _files(archive) == before


def test_trend_checks_the_plot_path_before_printing(
    archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A plot into a directory that does not exist printed the whole table first."""
    plot = str(tmp_path / "missing" / "trend.png")
    capsys.readouterr()
    assert main(["trend", "--archive", str(archive), "--plot", plot]) == 2
    found = capsys.readouterr()
    assert found.out == "" and found.err.count("\n") == 1 and "does not exist" in found.err
    site = str(tmp_path / "missing" / "site")
    _fails(["report", "--archive", str(archive), "--html", site], capsys, "does not exist")


@pytest.mark.parametrize("missing", ["pyarrow", "duckdb"])
def test_a_missing_extra_gives_the_install_hint(
    archive: Path,
    runs: tuple[Path, ...],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    missing: str,
) -> None:
    monkeypatch.setitem(sys.modules, missing, None)
    if missing == "pyarrow":
        argv = ["ingest", "--archive", str(tmp_path / "a"), "--commit", "c0", str(runs[0])]
    else:
        argv = ["detect", "--archive", str(archive)]
    _fails(
        argv,
        capsys,
        r"pip install '\.\[history\]' \(from the nvbench-tools checkout's root\)",
    )
    assert not (tmp_path / "a").exists()


# ---------------------------------------------------------------------------------------
# docs/history-schema.md describes the JSON report

_ROW = re.compile(r"^\| `([^`]+)` \| ([^|]+?) \| ([^|]*?) \| (.*) \|$")


def _doc_table(heading: str) -> dict[str, str]:
    lines = _SCHEMA_DOC.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    fields: dict[str, str] = {}
    for line in lines[start + 1 :]:
        if line.startswith("#"):
            break
        match = _ROW.match(line)
        if match:
            fields[match.group(1)] = match.group(2).strip()
    assert fields, f"no table under {heading!r}"
    return fields


def _matches(value: Any, kind: str) -> bool:
    if kind.endswith(" or null"):
        return value is None or _matches(value, kind.removesuffix(" or null"))
    return {
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": (isinstance(value, (int, float)) and not isinstance(value, bool))
        or value in ("inf", "-inf", "nan"),
        "boolean": isinstance(value, bool),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
    }[kind]


def _flatten(record: dict[str, Any]) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in record.items():
        flat[key] = value
        if isinstance(value, dict):
            flat.update({f"{key}.{inner}": item for inner, item in value.items()})
    return flat


def test_the_schema_doc_describes_the_report(archive: Path, tmp_path: Path) -> None:
    report = tmp_path / "detect.json"
    assert main(["detect", "--archive", str(archive), "--json", str(report)]) == 0
    document = json.loads(report.read_text())
    from cuda.bench.report.history import SCHEMA, SCHEMA_VERSION

    text = _SCHEMA_DOC.read_text(encoding="utf-8")
    assert f'Schema name: `"{SCHEMA}"`, schema version: `{SCHEMA_VERSION}`' in text
    # The field's own row too: it said 3 after the version became 4 (2026-11-29).
    assert f"| `schema_version` | integer |  | `{SCHEMA_VERSION}` for the schema" in text
    tables = {
        "### Top-level fields": [document],
        "### Event fields": document["events"],
        "### Change fields": document["changes"],
        "### Series fields": document["series"],
    }
    for heading, records in tables.items():
        documented = _doc_table(heading)
        assert records, heading
        for record in records:
            flat = _flatten(record)
            assert set(flat) == set(documented), heading
            for name, kind in documented.items():
                assert _matches(flat[name], kind), (heading, name, flat[name], kind)


def test_the_report_levels_hold_the_medians(archive: Path, tmp_path: Path) -> None:
    report = tmp_path / "detect.json"
    assert main(["detect", "--archive", str(archive), "--json", str(report)]) == 0
    for one in json.loads(report.read_text())["series"]:
        assert one["level_lo"] <= one["level"] <= one["level_hi"]
        assert 0 < one["false_alarm_rate"] < 0.01 and np.isfinite(one["noise"])


@pytest.mark.parametrize("option", ["--order", "--samples"])
def test_ingest_refuses_a_negative_count(
    tmp_path: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str], option: str
) -> None:
    archive = tmp_path / "archive"
    with pytest.raises(SystemExit) as stop:
        main(["ingest", "--archive", str(archive), "--commit", "c0", option, "-5", str(runs[0])])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}: expected an integer >= 0, got '-5'" in err
    assert len(err.strip().splitlines()) <= 2 and "Traceback" not in err
    assert not archive.exists()


@pytest.mark.parametrize("with_samples", [True, False])
@pytest.mark.parametrize("side_files", ["present", "missing", "empty"])
def test_ingest_says_when_recorded_side_files_are_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], side_files: str, with_samples: bool
) -> None:
    """Without ``--samples`` too: the side files give each run's median its interval, so
    their states are archived from their summaries; that was said only with ``--samples``."""
    source = real_path("nvbench-format-examples/cpu/cpu_run1.json")
    run = tmp_path / source.name
    shutil.copy(source, run)
    with_side_files = side_files == "present"
    if side_files != "missing":
        shutil.copytree(source.parent / f"{source.name}-bin", tmp_path / f"{source.name}-bin")
    if side_files == "empty":
        # NVBench's "no data" (a 0-byte file) was said to be "not found", though it is there.
        for one in (tmp_path / f"{source.name}-bin").iterdir():
            one.write_bytes(b"")
    archive = tmp_path / "archive"
    samples = ["--samples", "50"] if with_samples else []
    assert main(["ingest", "--archive", str(archive), "--commit", "c0", *samples, str(run)]) == 0
    err = capsys.readouterr().err
    if with_side_files:
        assert "side files" not in err
    else:
        assert f"{run}: 4 of 5 states record side files that are missing or empty" in err
        assert "archived from their summaries, without a median interval" in err
        assert ("without a median interval or samples" in err) == with_samples


def test_series_follow_the_dates_without_order(tmp_path: Path, runs: tuple[Path, ...]) -> None:
    """Ingested newest first, without --order: the series still runs oldest first."""
    from cuda.bench.history.series import load_series

    archive = tmp_path / "a"
    for day, path in zip((5, 3, 1), runs[:3], strict=True):
        argv = ["ingest", "--archive", str(archive), "--commit", f"c{day}", "--date"]
        assert main([*argv, f"2026-01-0{day}", str(path)]) == 0
    series = load_series(archive)
    assert len(series) == 6
    assert all(one.commits == ("c1", "c3", "c5") for one in series)
    # The run ingested last (dated first) leads each series.
    assert all(one.dates == tuple(sorted(one.dates)) for one in series)


def test_a_run_ingested_without_order_among_ordered_ones_is_named(
    tmp_path: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    # Series follow --order only when every run has one: one run without it reorders every
    # series by date, and detections vanished without a word.
    archive = tmp_path / "a"
    ingest_history(archive, runs[:4])
    # Ingest refuses such a run since 2026-11-29 (test_history_order_given.py); an archive
    # ingested before may hold one: here a run of another archive's files copied in.
    other = tmp_path / "b"
    argv = ["ingest", "--archive", str(other), "--commit", COMMITS[4], str(runs[4])]
    assert main([*argv, "--date", "2026-03-05T02:00:00Z"]) == 0
    for path in other.glob("*/machine=*/month=*/*.parquet"):
        target = archive / path.relative_to(other)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    capsys.readouterr()
    assert main(["trend", "--archive", str(archive)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "1 of 5 runs have no --order" in err[0], err
    assert str(archive) in err[0] and "Traceback" not in err[0]


def test_error_lines_say_what_is_wrong(
    tmp_path: Path, archive: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing archive was "not an nvbench-tools history archive", a directory or a
    device given as tonight's run "no such file"."""
    _fails(["trend", "--archive", str(tmp_path / "nowhere")], capsys, r"nowhere: no such directory")
    folder = tmp_path / "folder"
    folder.mkdir()
    _fails(["gate", "--archive", str(archive), str(folder)], capsys, r"folder: not a file")
    _fails(
        ["gate", "--archive", str(archive), os.devnull],
        capsys,
        r"/dev/null: not a regular file but a character device; not read",
    )


def test_ingest_and_report_show_hostile_file_names_as_text(
    tmp_path: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    """The run's own line on stdout printed its file name raw: an escape sequence in the
    name cleared the terminal, a newline split the line (new-user trial, 2026-11-30)."""
    hostile = tmp_path / "cmp\x1b[2J\nx<u>.json"
    shutil.copy(runs[0], hostile)
    archive = tmp_path / "archive"
    assert main(["ingest", "--archive", str(archive), "--commit", "c0", str(hostile)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and out.count("\n") == 1, repr(out)
    assert "\\x1b[2J\\nx<u>.json: run " in out, repr(out)
    site = tmp_path / "site\x1b[31m"
    assert main(["report", "--archive", str(archive), "--html", str(site)]) == 0
    out, err = capsys.readouterr()
    assert "\x1b" not in out + err and "site\\x1b[31m" in out, repr(out)


def test_ingest_reads_nvbench_json_copy_beside_its_run_once(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--jsonbin X.json --json X_plain.json`` writes one run twice, byte for byte, so the
    nightly ``ingest out/*.json`` was refused every night ("the same run as"), where the
    other tools read such a folder once (new-user trial, 2026-11-30)."""
    out = tmp_path / "out"
    out.mkdir()
    shutil.copy(gpu_dir / "gpu_ref.json", out / "gpu_ref.json")
    shutil.copytree(gpu_dir / "gpu_ref.json-bin", out / "gpu_ref.json-bin")
    shutil.copy(gpu_dir / "gpu_ref.json", out / "gpu_ref_plain.json")
    archive = tmp_path / "a"
    named = sorted(str(path) for path in out.glob("*.json"))
    assert main(["ingest", "--archive", str(archive), "--commit", "c0", *named]) == 0
    out_text, err = capsys.readouterr()
    assert out_text.count(": run ") == 1 and "gpu_ref.json: run " in out_text, out_text
    assert "gpu_ref_plain.json: the same run as" in err and "read once" in err, err
    assert len(list(archive.glob("runs/*/*/*.parquet"))) == 1
    # A copy that is not byte for byte the run (another command line) is another run ...
    document = json.loads((out / "gpu_ref.json").read_text(encoding="utf-8"))
    document["meta"]["argv"].append("--again")
    (out / "gpu_ref_plain.json").write_text(json.dumps(document), encoding="utf-8")
    archive2 = tmp_path / "b"
    assert main(["ingest", "--archive", str(archive2), "--commit", "c0", *named]) == 0
    assert len(list(archive2.glob("runs/*/*/*.parquet"))) == 2
    capsys.readouterr()
    # ... and one file named twice is still refused.
    twice = [str(out / "gpu_ref.json")] * 2
    _fails(
        ["ingest", "--archive", str(tmp_path / "c"), "--commit", "c0", *twice],
        capsys,
        r"gpu_ref\.json: the same run as",
    )
