"""The history tools on real NVBench files: what a new user hits (issue #26, items 3, 5, 6).

Real input: ``nvbench-format-examples/gpu`` (two devices, skipped states) and
``upstream-2021-two-gpus`` (NVBench 0.1.0: means only, no medians).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from cuda.bench.cli.history import main
from cuda.bench.history import RunSeries, detect

DEVICES = ("[0] NVIDIA H100 80GB HBM3", "[1] NVIDIA A100-SXM4-80GB")


def _ingest(archive: Path, path: Path, commit: str, order: int) -> None:
    argv = ["ingest", "--archive", str(archive), "--commit", commit, "--order", str(order)]
    assert main([*argv, "--date", f"2026-01-{order + 1:02d}", str(path)]) == 0


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def archive(tmp_path: Path, gpu_dir: Path) -> Path:
    root = tmp_path / "archive"
    _ingest(root, gpu_dir / "gpu_ref.json", "c1", 0)
    _ingest(root, gpu_dir / "gpu_cmp.json", "c2", 1)
    return root


def _nan_run(gpu_dir: Path, target: Path, value: str | None = "nan") -> Path:
    """gpu_ref_nosidecar.json with one state's median replaced by ``value`` (``None``:
    ``null``)."""
    document = json.loads((gpu_dir / "gpu_ref_nosidecar.json").read_text())
    for summary in document["benchmarks"][0]["states"][1]["summaries"]:
        if summary["tag"] == "nv/cold/time/gpu/median":
            summary["data"][0]["value"] = value
    target.write_text(json.dumps(document))
    return target


# --- item 3: real series in, clear errors out ------------------------------------------------


def _stepped(runs: int = 40, at: int = 20) -> np.ndarray:
    rng = np.random.default_rng(11)
    return (
        1e-5 * np.exp(0.003 * rng.standard_normal(runs)) * np.where(np.arange(runs) >= at, 1.2, 1)
    )


def test_run_series_takes_missing_runs_and_keeps_their_indices() -> None:
    medians = _stepped()
    medians[[5, 20, 31]] = np.nan  # run 20, the first of the new level, is missing
    labels = tuple(f"c{i}" for i in range(medians.size))
    series = RunSeries("s", medians, labels=labels)
    assert series.runs == 40 and series.missing == 3
    found = detect([series])
    assert [(c.index, c.commit, c.status.value) for c in found.changes] == [(21, "c21", "SLOW")]
    kept, positions = series.observed()
    assert kept.runs == 37 and positions.tolist()[:6] == [0, 1, 2, 3, 4, 6]


def test_a_candidate_after_missing_runs_keeps_its_index_in_the_series() -> None:
    # Before the fix, a candidate (and its scan's) kept its index among the observed runs.
    medians = _stepped(runs=60, at=57)
    medians[[10, 30]] = np.nan
    labels = tuple(f"c{i}" for i in range(medians.size))
    found = detect([RunSeries("s", medians, labels=labels)])
    assert [(c.index, c.commit) for c in found.candidates] == [(57, "c57")]
    scan_candidate = found.scans[0][1].candidate
    assert scan_candidate is not None and scan_candidate.index == 57


@pytest.mark.parametrize("value", [0.0, -1e-6, np.inf])
def test_run_series_names_a_run_that_is_not_a_time(value: float) -> None:
    medians = _stepped()
    medians[3] = value
    with pytest.raises(ValueError, match="run 3 has median"):
        RunSeries("s", medians)
    with pytest.raises(ValueError, match="every run is missing"):
        RunSeries("s", np.full(4, np.nan))


# Zero and negative medians were ingested, then left out with a warning by every command;
# medians beyond the float32 range (which the comparison holds unusable) were ingested, and
# a null median was archived with the mean in its place.
@pytest.mark.parametrize(
    ("stored", "value"),
    [
        ("nan", "nan"),
        ("inf", "inf"),
        ("0", "0.0"),
        ("-1e-06", "-1e-06"),
        ("1e300", "1e+300"),
        ("1e-320", "1e-320"),
        (None, "null"),
    ],
)
def test_ingest_refuses_a_median_that_is_not_a_positive_time_in_one_line(
    tmp_path: Path,
    archive: Path,
    gpu_dir: Path,
    stored: str | None,
    value: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bad = _nan_run(gpu_dir, tmp_path / "bad.json", stored)
    before = _files(archive)
    capsys.readouterr()
    assert main(["ingest", "--archive", str(archive), "--commit", "c3", str(bad)]) == 2
    fresh = tmp_path / "fresh"
    assert main(["ingest", "--archive", str(fresh), "--commit", "c3", str(bad)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all("bad.json" in line and f"median {value}" in line for line in err)
    assert "Elements=2^20" in err[0] and "Traceback" not in "".join(err)
    assert _files(archive) == before and not fresh.exists()


def _every_reader(
    archive: Path, gpu_dir: Path, out: Path, capsys: pytest.CaptureFixture[str]
) -> list[tuple[list[str], str]]:
    """Each command that reads the archive run once (each must exit 0), with its stderr;
    ``detect`` writes ``out/d.json``."""
    capsys.readouterr()
    out.mkdir()
    found = []
    for argv in (
        ["trend"],
        ["detect", "--json", str(out / "d.json")],
        ["report", "--html", str(out / "site")],
        ["gate", str(gpu_dir / "gpu_cmp.json")],
    ):
        assert main([argv[0], "--archive", str(archive), *argv[1:]]) == 0, argv
        found.append((argv, capsys.readouterr().err))
    return found


@pytest.mark.parametrize(
    ("stored", "value"), [("nan", "nan"), ("1e300", "1e+300"), ("1e-320", "1e-320")]
)
def test_legacy_rows_that_are_not_times_are_left_out_with_a_warning(
    tmp_path: Path,
    archive: Path,
    gpu_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    stored: str,
    value: str,
) -> None:
    """An archive written before ingest checked medians holds a NaN, or a time beyond the
    float32 range: every command goes on, with our warning and no other (1e300 leaked
    numpy's "invalid value encountered in subtract" from the detection)."""
    import cuda.bench.history.archive as archive_module

    monkeypatch.setattr(archive_module, "_check_medians", lambda *_: None, raising=False)
    _ingest(archive, _nan_run(gpu_dir, tmp_path / "legacy.json", stored), "c3", 2)
    monkeypatch.undo()
    out = tmp_path / "out"
    for argv, err in _every_reader(archive, gpu_dir, out, capsys):
        warned = [line for line in err.splitlines() if "left out" in line]
        assert len(warned) == 1 and "left out 1 state row(s)" in warned[0], (argv, err)
        assert "encountered" not in err and "RuntimeWarning" not in err, (argv, err)
        assert "Elements=2^20" in err and f"median {value}" in err
    series = json.loads((out / "d.json").read_text())["series"]
    runs = {(s["device"], s["state"]): s["runs"] for s in series}
    assert runs[(0, "T=F32 Elements=2^20 Layout=contiguous")] == 2
    assert runs[(0, "T=F32 Elements=2^16 Layout=contiguous")] == 3


# --- item 5: what the newcomer hit -------------------------------------------------------------


def test_trend_and_detect_show_devices_and_state_names_as_compare_does(
    tmp_path: Path, archive: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["trend", "--archive", str(archive)]) == 0
    table = capsys.readouterr().out
    assert "[pow2]" not in table and "T=F32 Elements=2^16 Layout=contiguous" in table
    rows = [line for line in table.splitlines() if "Elements=2^16 Layout=contiguous" in line]
    assert [any(device in row for device in DEVICES) for row in rows] == [True] * 4
    assert len(set(rows)) == len(rows)
    report = tmp_path / "d.json"
    assert main(["detect", "--archive", str(archive), "--json", str(report)]) == 0
    series = json.loads(report.read_text())["series"]
    names = {one["device_name"] for one in series}
    assert names == {"NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB"}
    shown = {(one["device"], one["state"]) for one in series}
    assert len(shown) == len(series) == 20
    assert all("[pow2]" not in one["state"] and "[pow2]" in one["state_name"] for one in series[:4])


def test_detect_table_shows_the_device(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cuda.bench.history.synthetic import HistoryNoise, generate, write_history
    from cuda.bench.results.synthetic import SyntheticConfig

    history = generate(
        HistoryNoise("iid", run_sigma=0.004), series=1, runs=24, steps=(0.1,), step_at=14, seed=2
    )
    paths = write_history(
        tmp_path / "runs", history, SyntheticConfig(benchmarks=1, states=1, samples=32), seed=1
    )
    for order, path in enumerate(paths):
        _ingest(tmp_path / "a", path, f"c{order:02d}", order)
    capsys.readouterr()
    assert main(["detect", "--archive", str(tmp_path / "a")]) == 0
    table = capsys.readouterr().out
    header = next(line for line in table.splitlines() if "| Benchmark " in line)
    assert "| Device " in header
    row = next(line for line in table.splitlines() if "SLOW" in line and "bench_00" in line)
    assert "[0] " in row and "c14" in row


def test_trend_plot_titles_name_the_device(archive: Path) -> None:
    pytest.importorskip("matplotlib", reason="--plot needs matplotlib")
    from cuda.bench.history.series import examine, load_series
    from cuda.bench.report.plots.history import trend_figure

    view = examine(load_series(archive))
    figure = trend_figure(view, range(4))
    titles = [axis.get_title(loc="left") for axis in figure.axes]
    assert titles[0] == "copy_bench [0] NVIDIA H100 80GB HBM3 T=F32 Elements=2^16 Layout=contiguous"
    assert len(set(titles)) == 4


def test_the_gate_reports_skipped_states_as_skip(
    tmp_path: Path, archive: Path, gpu_dir: Path
) -> None:
    report = tmp_path / "gate.json"
    argv = ["gate", "--archive", str(archive), str(gpu_dir / "gpu_cmp.json"), "--fail-on"]
    assert main([*argv, "missing", "--json", str(report)]) == 0
    counts = json.loads(report.read_text())["counts"]
    assert counts["SKIP"] == 4 and counts["ADDED"] == 0 and counts["REMOVED"] == 0


def test_old_nvbench_runs_without_medians_have_series(
    tmp_path: Path, upstream_2021_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """NVBench 0.1.0 (2021) wrote means only: the series use them, the gate too."""
    runs = upstream_2021_dir
    _ingest(tmp_path / "a", runs / "ref.json", "r1", 0)
    _ingest(tmp_path / "a", runs / "cmp.json", "r2", 1)
    capsys.readouterr()
    assert main(["trend", "--archive", str(tmp_path / "a")]) == 0
    table = capsys.readouterr().out
    assert "[0] Quadro GV100" in table and "[1] Quadro GP100" in table
    assert "BlockSize=2^10 NumBlocks=2^6" in table
    report = tmp_path / "gate.json"
    argv = ["gate", "--archive", str(tmp_path / "a"), str(runs / "cmp.json"), "--json"]
    assert main([*argv, str(report), "--fail-on", "missing"]) == 0
    counts = json.loads(report.read_text())["counts"]
    assert counts["SKIP"] == 38 and counts["ADDED"] == 0 and sum(counts.values()) == 126


def test_baseline_check_names_the_run_that_disagrees(
    gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # gpu_ref_plain.json is gpu_ref.json's run (NVBench's --json beside --jsonbin writes the
    # same bytes): one run twice, refused.
    same = [str(gpu_dir / name) for name in ("gpu_ref.json", "gpu_ref_plain.json", "gpu_cmp.json")]
    assert main(["baseline", "check", "--max-rsd", "1", *same]) == 2
    assert "gpu_ref_plain.json: a copy of" in capsys.readouterr().err
    names = ("gpu_ref.json", "gpu_ref_nosidecar.json", "gpu_cmp.json")
    runs = [str(gpu_dir / name) for name in names]
    assert main(["baseline", "check", "--max-rsd", "1", *runs]) == 1
    rows = [line for line in capsys.readouterr().out.splitlines() if "copy_bench" in line]
    assert len(rows) == 2
    assert "Elements=2^20" in rows[0] and "gpu_cmp.json +4.9" in rows[0]
    assert "Elements=2^16" in rows[1] and "gpu_cmp.json -10.0" in rows[1]
    assert all("gpu_ref" not in row.split("runs' median:")[1] for row in rows)


# --- item 6: the archive is not an output ------------------------------------------------------


def test_reports_inside_the_archive_are_refused(
    archive: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _files(archive)
    cmp = str(gpu_dir / "gpu_cmp.json")
    inside = archive / "runs"
    for argv in (
        ["gate", "--archive", str(archive), cmp, "--json", str(archive / "g.json")],
        ["gate", "--archive", str(archive), cmp, "--csv", str(inside / "g.csv")],
        ["gate", "--archive", str(archive), cmp, "--markdown", str(archive / "g.md")],
        ["gate", "--archive", str(archive), cmp, "--html", str(inside / "x" / "g.html")],
        ["report", "--archive", str(archive), "--html", str(archive)],
        ["report", "--archive", str(archive), "--html", str(archive / "site")],
        ["detect", "--archive", str(archive), "--json", str(archive / "d.json")],
    ):
        capsys.readouterr()
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "inside the archive" in err[0], (argv, err)
    assert _files(archive) == before


def test_reports_of_one_archive_inside_another_are_refused(
    archive: Path, gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each command refused outputs inside its own --archive only: ``detect --archive B
    --json A/nvbench-archive.json`` replaced A's marker and A was no archive any more."""
    other = tmp_path / "other"
    _ingest(other, gpu_dir / "gpu_ref.json", "c9", 0)
    before = _files(archive)
    cmp = str(gpu_dir / "gpu_cmp.json")
    for argv in (
        ["detect", "--archive", str(other), "--json", str(archive / "nvbench-archive.json")],
        ["trend", "--archive", str(other), "--plot", str(archive / "t.png")],
        ["report", "--archive", str(other), "--html", str(archive / "site")],
        ["gate", "--archive", str(other), cmp, "--json", str(archive / "runs" / "g.json")],
    ):
        capsys.readouterr()
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"inside the archive {archive}" in err[0], (argv, err)
    assert _files(archive) == before


def test_bad_files_in_the_archive_are_left_out_with_one_line_each(
    archive: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    capsys.readouterr()
    assert main(["trend", "--archive", str(archive)]) == 0
    clean = capsys.readouterr().out
    runs_dir = next(archive.glob("runs/*/*"))
    states_dir = next(archive.glob("states/*/*"))
    (runs_dir / ("0" * 64 + ".parquet")).write_bytes(b"PAR1 not really")
    pq.write_table(pa.table({"x": [1, 2]}), states_dir / "foreign.parquet")
    pq.write_table(pa.table({"run": ["x"]}), runs_dir / "other.parquet")
    assert main(["trend", "--archive", str(archive)]) == 0
    found = capsys.readouterr()
    assert found.out == clean
    warned = [line for line in found.err.splitlines() if "warning:" in line]
    assert len(warned) == 3 and all("left out" in line for line in warned)
    assert any("0" * 64 + ".parquet: unreadable as Parquet" in line for line in warned)
    assert any(
        "foreign.parquet: not a file of the archive's states table" in line for line in warned
    )
    assert any(
        "other.parquet: not a file of the archive's runs table (no commit, date" in line
        for line in warned
    )
    for good in archive.glob("runs/*/*/*.parquet"):
        if good.name != "other.parquet":
            good.write_bytes(b"broken")
    assert main(["trend", "--archive", str(archive)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1].endswith("no readable run file is left in the archive")
    assert "Traceback" not in "\n".join(err)


def test_the_gate_reports_name_a_file_of_the_archive_left_out(
    tmp_path: Path, archive: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A file left out is evidence missing from the gate; it was said on stderr only, and the
    # JSON report's warnings were empty.
    bad = next(archive.glob("states/*/*")) / ("f" * 64 + ".parquet")
    bad.write_bytes(b"PAR1 truncated")
    report, markdown = tmp_path / "g.json", tmp_path / "g.md"
    capsys.readouterr()
    argv = ["gate", "--archive", str(archive), str(gpu_dir / "gpu_cmp.json")]
    assert main([*argv, "--json", str(report), "--markdown", str(markdown)]) in (0, 1)
    err = [line for line in capsys.readouterr().err.splitlines() if bad.name in line]
    assert len(err) == 1 and "unreadable as Parquet" in err[0] and "left out" in err[0]
    (warning,) = [w for w in json.loads(report.read_text())["warnings"] if bad.name in w]
    # As every history command says it: the path once, no prefix of the gate's own.
    assert warning.startswith(bad.as_posix()) and warning.count(bad.name) == 1, warning
    assert "left out" in warning and err[0].endswith(f"warning: {warning}"), (err, warning)
    assert bad.name in markdown.read_text(encoding="utf-8")


def test_a_gate_that_fails_still_shows_the_files_it_left_out(
    archive: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The gate records the archive's warnings for its reports; when no readable run was
    # left it failed with the error line alone, without the lines that explain it.
    broken = sorted(archive.glob("runs/*/*/*.parquet"))
    for path in broken:
        path.write_bytes(b"broken")
    capsys.readouterr()
    assert main(["gate", "--archive", str(archive), str(gpu_dir / "gpu_cmp.json")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1].endswith("no readable run file is left in the archive")
    assert sum("unreadable as Parquet" in line for line in err[:-1]) == len(broken)


def test_a_second_copy_of_a_run_is_read_once(
    tmp_path: Path, archive: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for table in ("runs", "states"):
        first = next(archive.glob(f"{table}/*/*/*.parquet"))
        copy = first.parent.parent / "month=2026-02"
        copy.mkdir()
        shutil.copy(first, copy / first.name)
    report = tmp_path / "d.json"
    capsys.readouterr()
    assert main(["detect", "--archive", str(archive), "--json", str(report)]) == 0
    assert {one["runs"] for one in json.loads(report.read_text())["series"]} == {2}
    err = capsys.readouterr().err
    assert err.count("a second file of run") == 2


def test_a_copy_of_a_run_file_under_another_name_is_read_once(
    tmp_path: Path, archive: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A copy named as sync tools name one (``<run> (1).parquet``) or anything else, in the
    same folder or another month's: found by the run it holds, read once, the file named
    after its run read (a runs copy and a states copy had joined 2 x 2: 6 runs of 2)."""
    capsys.readouterr()
    assert main(["trend", "--archive", str(archive)]) == 0
    clean = capsys.readouterr().out
    runs_file = next(archive.glob("runs/*/*/*.parquet"))
    states_file = archive.glob(f"states/*/*/{runs_file.name}").__next__()
    shutil.copy(runs_file, runs_file.with_name(f"{runs_file.stem} (1).parquet"))
    shutil.copy(states_file, states_file.with_name(f"{states_file.stem} (1).parquet"))
    elsewhere = states_file.parent.parent / "month=2025-12"
    elsewhere.mkdir()
    shutil.copy(states_file, elsewhere / "backup.parquet")
    assert main(["trend", "--archive", str(archive)]) == 0
    found = capsys.readouterr()
    assert found.out == clean
    warned = [line for line in found.err.splitlines() if "warning:" in line]
    assert len(warned) == 3
    assert all(f"a second file of run {runs_file.stem[:16]} (read from " in w for w in warned)
    assert all(w.endswith(f"{runs_file.name}); left out") for w in warned)
    assert sum("backup.parquet: a second file" in w for w in warned) == 1
    report = tmp_path / "d.json"
    assert main(["detect", "--archive", str(archive), "--json", str(report)]) == 0
    assert {one["runs"] for one in json.loads(report.read_text())["series"]} == {2}


def test_a_run_file_with_a_column_of_its_own_named_filename_is_read(
    archive: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The duplicate check reads each file's name beside its runs; a file with an extra
    column ``filename`` made that query fail and the file was left out as unreadable."""
    import pyarrow.parquet as pq

    capsys.readouterr()
    assert main(["trend", "--archive", str(archive)]) == 0
    clean = capsys.readouterr().out
    states = next(archive.glob("states/*/*/*.parquet"))
    table = pq.read_table(states)
    pq.write_table(table.append_column("filename", table.column("run")), states)
    assert main(["trend", "--archive", str(archive)]) == 0
    found = capsys.readouterr()
    assert found.out == clean and "warning" not in found.err, found.err


def test_a_file_of_several_runs_left_out_says_what_goes_with_it(
    archive: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    first, second = sorted(archive.glob("states/*/*/*.parquet"))[:2]
    merged = pa.concat_tables([pq.read_table(first), pq.read_table(second)])
    pq.write_table(merged, first.with_name("merged.parquet"))
    first.unlink()
    second.rename(second.with_name("0" * 8 + second.name))  # not named after its run
    capsys.readouterr()
    assert main(["trend", "--archive", str(archive)]) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "warning:" in line]
    assert any("merged.parquet: a second file of run" in w for w in warned), warned
    assert any("with 1 other run(s) it holds; left out" in w for w in warned), warned


def test_an_archive_without_a_readable_states_file_is_one_line(
    archive: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Runs but no readable states file: DuckDB's 'Binder Error' reached the user."""
    for one in archive.glob("states/*/*/*.parquet"):
        one.write_bytes(b"broken")
    for command in ("trend", "detect", "gate"):
        capsys.readouterr()
        arguments = [command, "--archive", str(archive)]
        if command == "gate":
            arguments.append(str(gpu_dir / "gpu_cmp.json"))
        code = main(arguments)
        err = capsys.readouterr().err.splitlines()
        assert code == 2, (command, err)
        assert "Binder" not in "\n".join(err) and "Traceback" not in "\n".join(err)
        assert err[-1].endswith("no readable state file is left in the archive"), err


def test_files_of_an_older_ingest_with_fewer_columns_are_read(
    archive: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pyarrow.parquet as pq

    capsys.readouterr()
    assert main(["trend", "--archive", str(archive)]) == 0
    clean = capsys.readouterr().out
    older = next(archive.glob("states/*/*/*.parquet"))
    pq.write_table(pq.read_table(older).drop_columns(["cycles_median", "sm_clock"]), older)
    assert main(["trend", "--archive", str(archive)]) == 0
    found = capsys.readouterr()
    assert found.out == clean and found.err == ""


def test_ingest_refuses_a_mean_only_run_whose_time_is_zero(
    tmp_path: Path, upstream_2021_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # NVBench 0.1.0 wrote the mean only, which the history reads in place of the median:
    # a zero mean was ingested, then left out with a warning by every command.
    document = json.loads((upstream_2021_dir / "ref.json").read_text())
    first = next(
        summary
        for benchmark in document["benchmarks"]
        for state in benchmark["states"]
        for summary in state.get("summaries") or ()
        if summary["tag"] == "nv/cold/time/gpu/mean"
    )
    first["data"][0]["value"] = "0"
    bad = tmp_path / "zero-mean.json"
    bad.write_text(json.dumps(document))
    archive = tmp_path / "a"
    assert main(["ingest", "--archive", str(archive), "--commit", "c1", str(bad)]) == 2
    (err,) = capsys.readouterr().err.splitlines()
    assert "zero-mean.json" in err and "has mean 0.0, not a time" in err
    assert not archive.exists()


def _edited(gpu_dir: Path, target: Path, states: list[object] | None) -> Path:
    """gpu_ref_nosidecar.json with ``benchmarks`` emptied (``states`` ``None``), or with
    the last benchmark's ``states`` set to ``states[0]``."""
    document = json.loads((gpu_dir / "gpu_ref_nosidecar.json").read_text())
    if states is None:
        document["benchmarks"] = []
    else:
        document["benchmarks"][-1]["states"] = states[0]
    target.write_text(json.dumps(document))
    return target


def test_ingest_refuses_a_run_without_a_benchmark_state(
    tmp_path: Path, archive: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``"benchmarks": []`` was archived as a run of 0 states, exit 0 (gate refuses such a
    run: no benchmark state to gate); so was a run whose every benchmark has none."""
    before = _files(archive)
    empty = _edited(gpu_dir, tmp_path / "empty.json", None)
    document = json.loads((gpu_dir / "gpu_ref_nosidecar.json").read_text())
    for benchmark in document["benchmarks"]:
        benchmark["states"] = None
    stateless = tmp_path / "stateless.json"
    stateless.write_text(json.dumps(document))
    capsys.readouterr()
    for bad in (empty, stateless):
        assert main(["ingest", "--archive", str(archive), "--commit", "c3", str(bad)]) == 2
        fresh = tmp_path / "fresh"
        assert main(["ingest", "--archive", str(fresh), "--commit", "c3", str(bad)]) == 2
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 2 and all(bad.name in line for line in err)
        assert all("no benchmark state (the file holds none)" in line for line in err)
        assert _files(archive) == before and not fresh.exists()


@pytest.mark.parametrize("states", [None, []], ids=["null", "empty"])
def test_ingest_names_a_benchmark_without_states_and_archives_the_rest(
    tmp_path: Path,
    archive: Path,
    gpu_dir: Path,
    states: list[object] | None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    partial = _edited(gpu_dir, tmp_path / "partial.json", [states])
    capsys.readouterr()
    argv = ["ingest", "--archive", str(archive), "--commit", "c3", "--order", "2"]
    assert main([*argv, str(partial)]) == 0
    captured = capsys.readouterr()
    (line,) = captured.err.splitlines()
    assert "warning: " in line and "partial.json: benchmark 'misc' holds no state" in line
    assert "partial.json: run " in captured.out and ", 16 states," in captured.out


@pytest.mark.parametrize("column", ["state_name", "benchmark"])
def test_rows_without_a_name_are_left_out_with_a_warning(
    tmp_path: Path, archive: Path, gpu_dir: Path, column: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A states file whose names are null (a crafted or foreign writer) ended every command
    in a traceback (TypeError, exit 1, which CI reads as a regression)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    target = sorted(archive.glob("states/*/*/*.parquet"))[0]
    table = pq.read_table(target)
    names = table.column(column).to_pylist()
    names[0] = None
    position = table.schema.get_field_index(column)
    pq.write_table(table.set_column(position, column, pa.array(names, pa.string())), target)
    for argv, err in _every_reader(archive, gpu_dir, tmp_path / "out", capsys):
        assert "Traceback" not in err
        warned = [line for line in err.splitlines() if "left out" in line]
        assert len(warned) == 1 and "without a benchmark or state name" in warned[0], (argv, err)


def test_stored_samples_that_are_no_samples_are_not_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Samples rows with no times (a crafted or damaged file) made the gate raise "64
    frequencies for 0 samples" (a traceback, exit 1); the runs' stored summaries stand in."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from cuda.bench.history.synthetic import HistoryNoise, generate, write_history
    from cuda.bench.results.synthetic import SyntheticConfig

    history = generate(HistoryNoise("iid", run_sigma=0.003), series=2, runs=5, seed=3)
    config = SyntheticConfig(benchmarks=1, states=2, samples=200)
    runs = write_history(tmp_path / "runs", history, config, seed=4)
    root = tmp_path / "archive"
    for order, path in enumerate(runs[:4]):
        argv = ["ingest", "--archive", str(root), "--commit", f"c{order}", "--order", str(order)]
        assert main([*argv, "--samples", "64", str(path)]) == 0
    for target in root.glob("samples/*/*/*.parquet"):
        table = pq.read_table(target)
        position = table.schema.get_field_index("times")
        field = table.schema.field(position)
        emptied = pa.array([[] for _ in range(table.num_rows)], field.type)
        pq.write_table(table.set_column(position, field, emptied), target)
    capsys.readouterr()
    assert main(["gate", "--archive", str(root), str(runs[4])]) == 0
    assert "Traceback" not in capsys.readouterr().err


def test_a_copy_of_a_run_with_other_bytes_is_the_same_run(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run copied with CRLF line ends (git's autocrlf) or re-written by a JSON tool was a
    new run for ingest, a second agreeing run for gate and baseline check: three copies of
    one measurement passed the baseline rule and gave the gate SLOW and exit 1."""
    copies = tmp_path / "copies"
    shutil.copytree(gpu_dir, copies)
    original = copies / "gpu_ref.json"
    crlf = copies / "crlf.json"
    crlf.write_bytes(original.read_bytes().replace(b"\n", b"\r\n"))
    rewritten = copies / "rewritten.json"
    rewritten.write_text(json.dumps(json.loads(original.read_text())))
    root = tmp_path / "archive"
    argv = ["ingest", "--archive", str(root), "--commit", "c1"]
    assert main([*argv, str(original)]) == 0
    for copy in (crlf, rewritten):
        capsys.readouterr()
        assert main([*argv, str(copy)]) == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and "already in the archive" in err
    for command in (
        ["baseline", "check", str(gpu_dir / "gpu_cmp.json")],
        ["gate", "--archive", str(root)],
    ):
        assert main([*command, str(original), str(crlf)]) == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and "crlf.json: a copy of" in err, err


def test_the_gate_warns_once_about_tonights_file(
    tmp_path: Path, archive: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The gate's reference runs are built on tonight's file: a problem of that file was
    reported again for the reference side ("reference state ... does not begin with
    'Device=1'", which only tonight's file holds) and as "None: benchmark ... appears more
    than once" for a reference run that has no file name."""
    document = json.loads((gpu_dir / "gpu_cmp.json").read_text())
    state = document["benchmarks"][0]["states"][0]
    state["name"] = state["name"].replace("Device=0", "Device=1", 1)
    renamed = tmp_path / "renamed.json"
    shutil.copytree(gpu_dir, tmp_path / "copy")
    renamed = tmp_path / "copy" / "renamed.json"
    renamed.write_text(json.dumps(document))
    twice = json.loads((gpu_dir / "gpu_cmp.json").read_text())
    twice["benchmarks"].append(twice["benchmarks"][0])
    doubled = tmp_path / "copy" / "doubled.json"
    doubled.write_text(json.dumps(twice))
    capsys.readouterr()
    main(["gate", "--archive", str(archive), str(renamed)])
    err = capsys.readouterr().err
    named = [line for line in err.splitlines() if "does not begin with" in line]
    assert len(named) == 1 and "compare state" in named[0], err
    main(["gate", "--archive", str(archive), str(doubled)])
    err = capsys.readouterr().err
    twice_lines = [line for line in err.splitlines() if "appears more than once" in line]
    assert len(twice_lines) == 1 and "doubled.json" in twice_lines[0], err
    assert "None:" not in err


def test_the_gate_refuses_a_run_with_one_state_twice(
    tmp_path: Path, archive: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Tonight's file held one state twice (the second 30 % slower): the gate called the
    copy SLOW and exited 1, while ingest refuses the same file (one row per state and run)."""
    document = json.loads((gpu_dir / "gpu_ref_nosidecar.json").read_text())
    states = document["benchmarks"][0]["states"]
    states.append(json.loads(json.dumps(states[0])))
    twice = tmp_path / "twice.json"
    twice.write_text(json.dumps(document))
    capsys.readouterr()
    assert main(["gate", "--archive", str(archive), "--fail-on", "slow", str(twice)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "twice.json" in err and "appears twice" in err, err
