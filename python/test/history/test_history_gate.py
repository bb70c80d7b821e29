"""``nvbench-history gate``: a new run against the current level of its series in the archive."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from cuda.bench.cli.history import main
from cuda.bench.compare.model import Reason, Status
from cuda.bench.history.archive import ingest
from cuda.bench.history.gate import gate
from cuda.bench.history.synthetic import HistoryNoise, commit_ids, generate, write_history
from cuda.bench.results.synthetic import SyntheticConfig

ARCHIVED = 16
#: Series 0, 2 and 4 get 5 % slower in the last run only; run ARCHIVED is unchanged.
STEPPED = {
    ("bench_00", "Elements=1024"),
    ("bench_00", "Elements=3072"),
    ("bench_01", "Elements=2048"),
}
COMMITS = commit_ids(ARCHIVED + 2, seed=4)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ...]:
    history = generate(
        HistoryNoise("iid", run_sigma=0.003),
        series=6,
        runs=ARCHIVED + 2,
        steps=(0.05, 0.0) * 3,
        step_at=ARCHIVED + 1,
        seed=5,
    )
    config = SyntheticConfig(benchmarks=2, states=3, samples=200)
    return write_history(tmp_path_factory.mktemp("runs"), history, config, seed=3)


def _archive(root: Path, paths: tuple[Path, ...], samples: int) -> Path:
    for order, path in enumerate(paths):
        ingest(
            root,
            path,
            commit=COMMITS[order],
            date=f"2026-04-{1 + order:02d}T03:00:00Z",
            order=order,
            samples=samples,
        )
    return root


@pytest.fixture(scope="module", params=[0, 64], ids=["summaries", "samples"])
def archive(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, runs: tuple[Path, ...]
) -> Path:
    root = tmp_path_factory.mktemp("archive") / "archive"
    return _archive(root, runs[:ARCHIVED], request.param)


def test_a_five_percent_regression_is_slow_and_fails_the_gate(
    archive: Path, runs: tuple[Path, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reports = {name: tmp_path / f"gate.{name}" for name in ("json", "csv", "md")}
    argv = [
        "gate",
        "--archive",
        str(archive),
        str(runs[ARCHIVED + 1]),
        "--fail-on",
        "slow",
        "--json",
        str(reports["json"]),
        "--csv",
        str(reports["csv"]),
        "--markdown",
        str(reports["md"]),
    ]
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert "--fail-on slow: 3" in captured.err
    document = json.loads(reports["json"].read_text())
    statuses = {(row["benchmark"], row["cmp_state_name"]): row for row in document["rows"]}
    for (benchmark, name), row in statuses.items():
        expected = "SLOW" if (benchmark, name.removeprefix("Device=0 ")) in STEPPED else "SAME"
        assert row["status"] == expected, (benchmark, name, row["reason"])
        if expected == "SLOW":
            assert 1.03 < row["effect_ratio"] < 1.07
    # The rebuilt reference runs' side files are the gate's own: reports name none.
    assert all(row["ref_sample_file"] is None for row in document["rows"])
    with reports["csv"].open(newline="") as handle:
        assert sum(1 for line in csv.DictReader(handle) if line["status"] == "SLOW") == 3
    assert "SLOW" in reports["md"].read_text()
    # The reference side is the archive's level, several runs of it.
    assert len(document["inputs"][0]["ref"]) == ARCHIVED  # every run of the level (< 20)
    # Each named after the archive and the run it is (test_history_gate_names.py).
    labels = document["inputs"][0]["ref"]
    assert all(label.startswith(f"{archive} (commit ") for label in labels), labels


def test_an_unchanged_run_is_same_and_passes(
    archive: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["gate", "--archive", str(archive), str(runs[ARCHIVED]), "--fail-on", "slow,fast"]
    assert main(argv) == 0
    assert "Unchanged   (🔵 SAME, no change beyond the tolerance): 6" in capsys.readouterr().out


def test_the_library_call_reports_how_much_history_stood_behind_it(
    archive: Path, runs: tuple[Path, ...]
) -> None:
    found = gate(archive, runs[ARCHIVED + 1], max_runs=4)
    assert found.reference_runs == 4 and found.too_short == 0
    assert found.comparison.method == "ci"
    assert found.comparison.settings["runs"] == [4, 1]
    assert found.with_samples == _has_samples(archive)
    if found.with_samples:
        # The rebuilt runs' side files went with the temporary directory.
        assert all(row.ref_state is None for row in found.comparison.rows)


def _has_samples(archive: Path) -> bool:
    return any(archive.glob("samples/*/*/*.parquet"))


def test_a_state_with_too_few_runs_is_never_same(tmp_path: Path, runs: tuple[Path, ...]) -> None:
    archive = _archive(tmp_path / "short", runs[:2], 0)
    found = gate(archive, runs[ARCHIVED])
    assert found.too_short == 6
    for row in found.comparison.rows:
        assert (row.status, row.reason) == (Status.AMBG, Reason.HISTORY_TOO_SHORT)
        assert "2 run(s) of the current level" in row.verdict.text
    assert gate(archive, runs[ARCHIVED], min_runs=2).too_short == 0
    # One run measures no drift: AMBG whatever --min-runs says (it used to end the gate
    # with "calibration needs at least two runs", exit 2).
    single = _archive(tmp_path / "single", runs[:1], 0)
    found = gate(single, runs[ARCHIVED], min_runs=1)
    assert {row.reason for row in found.comparison.rows} == {Reason.HISTORY_TOO_SHORT}
    assert main(["gate", "--archive", str(single), str(runs[ARCHIVED]), "--fail-on", "slow"]) == 0


def test_a_state_without_history_is_added(tmp_path: Path, runs: tuple[Path, ...]) -> None:
    history = generate(HistoryNoise("iid", run_sigma=0.003), series=8, runs=2, seed=5)
    wider = write_history(
        tmp_path / "wider", history, SyntheticConfig(benchmarks=2, states=4, samples=200), seed=3
    )
    archive = _archive(tmp_path / "a", runs[:4], 0)
    found = gate(archive, wider[0])
    added = {
        (row.benchmark, row.cmp_state_name) for row in found.comparison.rows_with([Status.ADDED])
    }
    assert added == {("bench_00", "Device=0 Elements=4096"), ("bench_01", "Device=0 Elements=4096")}


def test_unusable_input_is_one_line_and_exit_2(
    archive: Path, runs: tuple[Path, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    not_nvbench = tmp_path / "other.json"
    not_nvbench.write_text('{"results": []}')
    not_archive = tmp_path / "plain"
    not_archive.mkdir()
    (not_archive / "file.txt").write_text("x")
    report = tmp_path / "out.json"
    cases = [
        (["--archive", str(archive), str(not_nvbench)], "other.json"),
        (["--archive", str(not_archive), str(runs[0])], "not an nvbench-tools history archive"),
        (["--archive", str(archive), str(tmp_path / "missing.json")], "missing.json"),
    ]
    cases.append((["--archive", str(archive), str(runs[0]), "-b", "nothing"], "-b nothing"))
    for argv, needle in cases:
        assert main(["gate", *argv, "--json", str(report)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and needle in err and "Traceback" not in err
        assert not report.exists()


def test_an_archive_of_no_run_is_one_line_and_exit_2(
    tmp_path: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    """An archive with its marker and no runs/ or states/ folder (or empty ones) printed
    DuckDB's 'Binder Error: Referenced column "machine" not found'."""
    from cuda.bench.history.archive import ArchiveError, open_archive

    archive = open_archive(tmp_path / "a", create=True)
    report = tmp_path / "out.json"
    capsys.readouterr()
    for folders in ((), ("runs", "states")):
        for folder in folders:
            (archive / folder).mkdir()
        assert main(["gate", "--archive", str(archive), str(runs[0]), "--json", str(report)]) == 2
        err = capsys.readouterr().err
        expected = f"{archive}: the archive holds no runs yet; ingest runs first"
        assert err == f"nvbench-history: error: {expected}\n"
        assert not report.exists()
    with pytest.raises(ArchiveError, match="holds no runs yet"):
        gate(archive, runs[0])


def test_another_environment_has_no_history(
    tmp_path: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    from cuda.bench.results import DeviceSpec

    history = generate(HistoryNoise("iid"), series=2, runs=2, seed=1)
    other = write_history(
        tmp_path / "other",
        history,
        SyntheticConfig(benchmarks=1, states=2, devices=(DeviceSpec.a100(0),)),
    )
    archive = _archive(tmp_path / "a", runs[:3], 0)
    assert main(["gate", "--archive", str(archive), str(other[0])]) == 2
    assert "holds no run of this environment" in capsys.readouterr().err
    # Runs of two environments the archive both holds are not one build's runs.
    ingest(archive, other[0], commit="other", date="2026-04-20T03:00:00Z", order=50)
    assert main(["gate", "--archive", str(archive), str(runs[4]), str(other[1])]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "gate runs of one machine together" in err


# ---------------------------------------------------------------------------------------------
# baseline check


def test_baseline_check_accepts_agreeing_runs(
    runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["baseline", "check", *map(str, runs[:3])]) == 0
    out = capsys.readouterr().out
    assert out.startswith("PASS: 6 of 6 state(s) agree within 3.00% relative stdev")


def test_baseline_check_names_the_states_that_disagree(
    runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    chosen = [str(runs[ARCHIVED - 1]), str(runs[ARCHIVED]), str(runs[ARCHIVED + 1])]
    assert main(["baseline", "check", *chosen, "--max-rsd", "2%"]) == 1
    out = capsys.readouterr().out
    cells = [line.split("|") for line in out.splitlines() if "medians vary" in line]
    assert {(cell[1].strip(), cell[3].strip()) for cell in cells} == STEPPED
    assert {cell[2].strip() for cell in cells} == {"[0]"}
    assert "FAIL: 3 of 6 state(s)" in out
    # A looser rule accepts the same runs.
    assert main(["baseline", "check", *chosen, "--max-rsd", "5"]) == 0


def test_baseline_check_fails_a_state_a_run_lacks(
    tmp_path: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    history = generate(HistoryNoise("iid", run_sigma=0.003), series=4, runs=2, seed=5)
    fewer = write_history(
        tmp_path / "fewer", history, SyntheticConfig(benchmarks=2, states=2, samples=200), seed=3
    )
    assert main(["baseline", "check", str(runs[0]), str(runs[1]), str(fewer[0])]) == 1
    out = capsys.readouterr().out
    assert out.count("missing or without a median in") == 2 and "fewer" in out


@pytest.mark.parametrize("value", ["1e300", "1e-320", "nan", "0", "-1e-06"])
def test_baseline_check_refuses_a_median_that_is_no_time(
    runs: tuple[Path, ...], tmp_path: Path, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A median of 1e300 s overflowed the standard deviation's squares: numpy's "overflow
    encountered in square" on stderr and an rsd of inf%. It is no usable median, as a NaN,
    and a file holding one is broken input (one line, exit 2, as ``ingest`` refuses it),
    not a state that fails the rule (it was exit 1, "missing or without a median")."""
    document = json.loads(runs[2].read_text())
    for summary in document["benchmarks"][0]["states"][0]["summaries"]:
        if summary["tag"] == "nv/cold/time/gpu/median":
            summary["data"][0]["value"] = value
    for state in document["benchmarks"][0]["states"]:
        # The nearest-rank median of the samples would stand in for the summary.
        state["summaries"] = [
            one for one in state["summaries"] if not one["tag"].startswith("nv/json/bin")
        ]
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps(document))
    assert main(["baseline", "check", str(runs[0]), str(runs[1]), str(odd)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1
    assert "odd.json: benchmark 'bench_00'" in captured.err and "not a time" in captured.err


def test_baseline_check_bad_input(
    runs: tuple[Path, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["baseline", "check", str(runs[0]), str(runs[1])]) == 2
    assert "needs at least 3 runs of one build, got 2" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert main(["baseline", "check", str(runs[0]), str(runs[1]), str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.json" in err
    with pytest.raises(SystemExit) as exit_info:
        main(["baseline", "check", *map(str, runs[:3]), "--max-rsd", "lots"])
    assert exit_info.value.code == 2


def test_states_and_benchmarks_the_run_lacks_are_removed(
    tmp_path: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    history = generate(HistoryNoise("iid", run_sigma=0.003), series=2, runs=2, seed=5)
    fewer = write_history(
        tmp_path / "fewer", history, SyntheticConfig(benchmarks=1, states=2, samples=200), seed=3
    )
    archive = _archive(tmp_path / "a", runs[:5], 0)
    found = gate(archive, fewer[0])
    removed = {
        (row.benchmark, row.ref_state_name) for row in found.comparison.rows_with([Status.REMOVED])
    }
    assert removed == {
        ("bench_00", "Device=0 Elements=3072"),
        ("bench_01", "Device=0 Elements=1024"),
        ("bench_01", "Device=0 Elements=2048"),
        ("bench_01", "Device=0 Elements=3072"),
    }
    assert main(["gate", "--archive", str(archive), str(fewer[0]), "--fail-on", "missing"]) == 1
    assert "--fail-on missing: 4" in capsys.readouterr().err
    # Once the latest archived run lacks them too, they are discontinued, not removed.
    ingest(archive, fewer[1], commit="later", date="2026-05-01T03:00:00Z", order=99)
    assert not gate(archive, fewer[0]).comparison.rows_with([Status.REMOVED])


def test_the_latest_archived_run_is_the_last_in_series_order(tmp_path: Path) -> None:
    """The latest archived run (whose states a gated run must have) is the last one in the
    order of the series (--order, then date): runs of one date came out in the order of
    their hashes, so a state only an earlier run had could be REMOVED, or a state of the
    last run not."""
    config = SyntheticConfig(benchmarks=1, states=2, samples=100)
    history = generate(HistoryNoise("iid", run_sigma=0.003), series=2, runs=5, seed=5)
    both = write_history(tmp_path / "both", history, config, seed=3)
    fewer = SyntheticConfig(benchmarks=1, states=1, samples=100)
    lacking = generate(HistoryNoise("iid", run_sigma=0.003), series=1, runs=2, seed=6)
    one = write_history(tmp_path / "one", lacking, fewer, seed=3)  # no Elements=2048
    # The same two runs last, in either order: whichever hash is larger, one of the two
    # archives has it on the run that is not the latest.
    for name, last_two in (("state-last", (one[0], both[4])), ("lacks-last", (both[4], one[0]))):
        root = tmp_path / name
        for order, path in enumerate((*both[:4], *last_two)):
            ingest(root, path, commit=f"c{order}", date="2026-04-01T03:00:00Z", order=order)
        removed = gate(root, one[1]).comparison.rows_with([Status.REMOVED])
        expected = ["Device=0 Elements=2048"] if name == "state-last" else []
        assert [row.ref_state_name for row in removed] == expected, name


def test_a_run_already_ingested_is_not_its_own_reference(
    tmp_path: Path, runs: tuple[Path, ...]
) -> None:
    """A nightly job may ingest first and gate after: the regression must still show."""
    archive = _archive(tmp_path / "a", runs[:ARCHIVED], 0)
    tonight = runs[ARCHIVED + 1]
    ingest(archive, tonight, commit=COMMITS[-1], date="2026-04-30T03:00:00Z", order=ARCHIVED + 1)
    found = gate(archive, tonight)
    slow = {
        (row.benchmark, (row.cmp_state_name or "").removeprefix("Device=0 "))
        for row in found.comparison.rows_with([Status.SLOW])
    }
    assert slow == STEPPED


def test_cpu_only_benchmarks_have_series_and_a_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CPU-only states have no device: the archive stores null, which every command reads
    (a short history's JSON report included; trend and detect crashed on it before)."""
    history = generate(HistoryNoise("iid", run_sigma=0.003), series=2, runs=7, seed=5)
    config = SyntheticConfig(benchmarks=1, states=2, samples=100, cpu_only=True)
    paths = write_history(tmp_path / "runs", history, config, seed=3)
    archive = _archive(tmp_path / "a", paths[:6], 16)
    assert main(["trend", "--archive", str(archive)]) == 0
    report = tmp_path / "detect.json"
    assert main(["detect", "--archive", str(archive), "--json", str(report)]) == 0
    document = json.loads(report.read_text())
    assert [one["device"] for one in document["series"]] == [None, None]
    capsys.readouterr()
    found = gate(archive, paths[6])
    rows = found.comparison.rows
    assert len(rows) == 2 and all(row.status in (Status.SAME, Status.AMBG) for row in rows)
    assert Status.SAME in {row.status for row in rows}
    assert found.with_samples


def test_cpu_only_states_and_benchmarks_the_run_lacks_are_removed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A CPU-only series has no device: a run without its state is REMOVED all the same
    (the gate skipped every series without a device, and --fail-on missing passed)."""
    history = generate(HistoryNoise("iid", run_sigma=0.003), series=4, runs=6, seed=5)
    config = SyntheticConfig(benchmarks=2, states=2, samples=100, cpu_only=True)
    archive = _archive(tmp_path / "a", write_history(tmp_path / "runs", history, config), 0)
    lacking = generate(HistoryNoise("iid", run_sigma=0.003), series=1, runs=2, seed=6)
    fewer = SyntheticConfig(benchmarks=1, states=1, samples=100, cpu_only=True)
    tonight = write_history(tmp_path / "fewer", lacking, fewer, seed=3)[0]
    found = gate(archive, tonight)
    removed = {
        (row.benchmark, row.ref_state_name, row.ref_device)
        for row in found.comparison.rows_with([Status.REMOVED])
    }
    assert removed == {
        ("bench_00", "Elements=2048", None),
        ("bench_01", "Elements=1024", None),
        ("bench_01", "Elements=2048", None),
    }
    assert main(["gate", "--archive", str(archive), str(tonight), "--fail-on", "missing"]) == 1
    assert "--fail-on missing: 3" in capsys.readouterr().err


def _dropped(path: Path, *names: str) -> Path:
    """A copy of run ``path`` (beside it: its side files stay found) without states
    ``names``."""
    document = json.loads(path.read_text())
    for benchmark in document["benchmarks"]:
        benchmark["states"] = [one for one in benchmark["states"] if one["name"] not in names]
    out = path.with_name(f"{path.stem}-without-{len(names)}.json")
    out.write_text(json.dumps(document))
    return out


def _eight_runs(
    tmp_path: Path, steps: tuple[float, ...], config: SyntheticConfig
) -> tuple[Path, ...]:
    """Eight runs of four series, each series ``steps[i]`` slower in the last run."""
    history = generate(
        HistoryNoise("iid", run_sigma=0.003), series=4, runs=8, steps=steps, step_at=7, seed=5
    )
    return write_history(tmp_path / "runs", history, config)


def test_several_runs_are_gated_alike_in_any_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One run lacks a state the other measured 30 % slower, and only the other has a new
    state. The first run's rows used to decide: that order made the state REMOVED and
    lost the new one; the other order made it AMBG (so --fail-on missing passed). The
    missing state must be REMOVED in either order, the measurement named, the new state
    kept."""
    paths = _eight_runs(tmp_path, (0.0, 0.0, 0.3, 0.0), SyntheticConfig(benchmarks=1, states=4))
    stepped, new = "Device=0 Elements=3072", "Device=0 Elements=4096"
    archive = _archive(tmp_path / "a", tuple(_dropped(path, new) for path in paths[:6]), 0)
    lacking, slow = _dropped(paths[6], stepped, new), paths[7]
    seen = []
    for order in ((lacking, slow), (slow, lacking)):
        rows = gate(archive, list(order)).comparison.rows
        seen.append(sorted((row.key, row.status, row.reason) for row in rows))
        by_key = {row.key: row for row in rows}
        assert set(by_key) == {f"Elements={n}" for n in (1024, 2048, 3072, 4096)}
        both = by_key["Elements=3072"]
        assert both.status is Status.REMOVED
        assert f"{slow}: SLOW" in both.verdict.message
        assert by_key["Elements=4096"].status is Status.ADDED
        assert f"{lacking}: lacks this state" in by_key["Elements=4096"].verdict.message
    assert seen[0] == seen[1]
    # Without the new state, one run still lacks a state of the latest archived run: the
    # gate fails --fail-on missing in either order.
    measured = _dropped(slow, new)
    argv = ["gate", "--archive", str(archive), "--fail-on", "missing"]
    assert main([*argv, str(lacking), str(measured)]) == 1
    assert main([*argv, str(measured), str(lacking)]) == 1
    # Each row shows one run's figures: the summary says so and names the runs (it named
    # neither, and the table looked like one run's).
    out = capsys.readouterr().out
    assert (
        f"- Note: runs gated together: {min(lacking, measured)}, {max(lacking, measured)}. " in out
    )
    assert "its row shows the figures of the run whose change is closest to none" in out
    assert main(["gate", "--archive", str(archive), str(measured)]) in (0, 1)
    assert "runs gated together" not in capsys.readouterr().out


def _pow2(path: Path) -> Path:
    """Run ``path`` with its ``Elements`` axis a power-of-two axis, as NVBench writes one
    (the state ``Elements=2^10``, stored in the archive as ``Elements[pow2]=10``)."""
    document = json.loads(path.read_text())
    for benchmark in document["benchmarks"]:
        for axis in benchmark["axes"]:
            axis["flags"] = "pow2"
            for value in axis["values"]:
                exponent = int(value["value"]).bit_length() - 1
                value["input_string"] = str(exponent)
                value["description"] = f"2^{exponent} = {value['value']}"
        for state in benchmark["states"]:
            elements = int(state["axis_values"][0]["value"])
            state["name"] = f"Device=0 Elements=2^{elements.bit_length() - 1}"
    out = path.with_name(f"{path.stem}-pow2.json")
    out.write_text(json.dumps(document))
    return out


def test_a_removed_state_has_the_name_a_run_gives_it(tmp_path: Path) -> None:
    """A REMOVED state is named as NVBench names it in a run (``Elements=2^11``), not as
    the archive stores it (``Elements[pow2]=11``): with several runs, the row of the run
    that lacks it and the row of the run that measured it are one state's."""
    history = generate(HistoryNoise("iid", run_sigma=0.003), series=2, runs=6, seed=5)
    paths = write_history(tmp_path / "runs", history, SyntheticConfig(benchmarks=1, states=2))
    archive = _archive(tmp_path / "a", tuple(_pow2(path) for path in paths[:5]), 0)
    lacking = _dropped(_pow2(paths[5]), "Device=0 Elements=2^11")
    (removed,) = gate(archive, lacking).comparison.rows_with([Status.REMOVED])
    assert (removed.key, removed.ref_state_name) == ("Elements=2^11", "Device=0 Elements=2^11")
    rows = gate(archive, [lacking, _pow2(paths[4])]).comparison.rows
    assert sorted(row.key for row in rows) == ["Elements=2^10", "Elements=2^11"]
    assert {row.status for row in rows if row.key == "Elements=2^11"} == {Status.REMOVED}


def test_a_gate_opens_and_checks_the_archive_once_per_command(
    archive: Path,
    runs: tuple[Path, ...],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Opening an archive lists and checks every Parquet file: the gate does it once for
    all its runs, and gives the same answer as a gate per run did."""
    from cuda.bench.history import _archive_files

    checks: list[str] = []
    real = _archive_files.readable_files

    def counted(connection: object, root: Path, table: str) -> _archive_files.ReadableFiles:
        checks.append(table)
        return real(connection, root, table)

    monkeypatch.setattr(_archive_files, "readable_files", counted)
    from cuda.bench.history import archive as archive_module

    monkeypatch.setattr(archive_module, "readable_files", counted)
    chosen = [str(runs[ARCHIVED]), str(runs[ARCHIVED + 1])]
    report = tmp_path / "two.json"
    assert main(["gate", "--archive", str(archive), *chosen, "--json", str(report)]) == 0
    assert checks == ["runs", "states", "samples"]  # one opening, whatever the run count
    capsys.readouterr()
    rows = json.loads(report.read_text())["rows"]
    assert {row["status"] for row in rows} == {"SAME", "AMBG"}
    checks.clear()
    single = gate(archive, runs[ARCHIVED + 1])
    assert checks == ["runs", "states", "samples"]
    assert {row.status for row in single.comparison.rows} == {Status.SLOW, Status.SAME}


def test_a_benchmark_one_run_lacks_is_one_removed_row_per_state(tmp_path: Path) -> None:
    """A run without a whole benchmark gave REMOVED rows without a compare device, which
    never met the other run's rows of the same states: two rows per state, and the other
    run's SLOW turned AMBG (so --fail-on slow passed)."""
    paths = _eight_runs(tmp_path, (0.0, 0.0, 0.0, 0.3), SyntheticConfig(benchmarks=2, states=2))
    archive = _archive(tmp_path / "a", paths[:6], 0)
    document = json.loads(paths[6].read_text())
    document["benchmarks"] = document["benchmarks"][:1]
    half = paths[6].with_name("half.json")
    half.write_text(json.dumps(document))
    for order in ((half, paths[7]), (paths[7], half)):
        rows = gate(archive, list(order)).comparison.rows
        keys = [(row.benchmark, row.key) for row in rows]
        assert len(keys) == len(set(keys)) == 4, keys
        second = [row for row in rows if row.benchmark == "bench_01"]
        assert {row.status for row in second} == {Status.REMOVED}
        assert any(f"{paths[7]}: SLOW" in row.verdict.message for row in second)


def test_a_copy_of_each_run_file_under_another_name_is_read_once(
    archive: Path, runs: tuple[Path, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Sync tools keep a second copy of a file as ``<run> (1).parquet``: the gate read both
    (each run twice in its series, or four times where a runs copy and a states copy
    joined), so its reference level stood on runs that were never made."""
    copied = tmp_path / "archive"
    shutil.copytree(archive, copied)
    for path in sorted(copied.glob("*/*/*/*.parquet")):
        shutil.copy(path, path.with_name(f"{path.stem} (1).parquet"))
    argv = ["--archive", str(copied), str(runs[ARCHIVED]), "--fail-on", "slow,fast"]
    capsys.readouterr()
    assert main(["gate", *argv]) == 0
    captured = capsys.readouterr()
    assert "Unchanged   (🔵 SAME, no change beyond the tolerance): 6" in captured.out
    warned = [line for line in captured.err.splitlines() if "a second file of run" in line]
    tables = 3 if _has_samples(archive) else 2
    assert len(warned) == tables * ARCHIVED
    assert all(" (1).parquet: a second file of run" in line for line in warned)
    with pytest.warns(UserWarning, match="a second file of run"):
        found = gate(copied, runs[ARCHIVED + 1])
    assert found.reference_runs == ARCHIVED
    assert [row.status for row in found.comparison.rows].count(Status.SLOW) == 3


def test_fewer_reference_runs_than_min_runs_is_refused(
    tmp_path: Path, runs: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    """``--max-runs 1`` took one reference run while the level's size passed ``--min-runs``:
    less evidence gave firmer verdicts (SLOW and exit 1 on an unchanged build)."""
    archive = _archive(tmp_path / "a", runs[:8], 0)
    with pytest.raises(ValueError, match="max_runs"):
        gate(archive, runs[ARCHIVED], max_runs=2, min_runs=3)
    argv = ["gate", "--archive", str(archive), str(runs[ARCHIVED]), "--fail-on", "slow"]
    assert main([*argv, "--max-runs", "1"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "--max-runs 1 is below --min-runs 3" in err
    # Both one: a single reference run measures no drift, so nothing is decided.
    found = gate(archive, runs[ARCHIVED], max_runs=1, min_runs=1)
    assert {row.status for row in found.comparison.rows} == {Status.AMBG}
