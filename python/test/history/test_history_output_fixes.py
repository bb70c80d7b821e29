"""What ``nvbench-history`` tells a new user on the real NVBench example files: the gate's
reason list and geometric-mean line follow its rows' reasons; each run keeps its own
interval in the trend and the site; detect says which series were too short to test; ..."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _history_calls import ingest_days, ingest_on_day, run_history


@pytest.fixture(scope="module")
def two_runs(gpu_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An archive whose copy_bench level holds two runs (gpu_ref, then gpu_cmp): too few for
    the gate's verdicts, and their 5 % and 10 % steps are run-to-run drift to its
    calibration."""
    runs = [(gpu_dir / "gpu_ref.json", "a" * 40), (gpu_dir / "gpu_cmp.json", "b" * 40)]
    return ingest_days(tmp_path_factory.mktemp("two") / "archive", runs)


def test_gate_summary_names_the_reasons_its_rows_show(
    two_runs: Path, gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "gate.json"
    argv = ["gate", "--archive", two_runs, gpu_dir / "gpu_ref_nosidecar.json", "-b", "copy_bench"]
    code, out, err = run_history(capsys, *argv, "--json", report)
    assert code == 0, err
    lines = out.splitlines()
    reason = next(line for line in lines if "history_too_short: 12" in line)
    # The reason in words true of all 12 rows, not one row's figures.
    assert "%" not in reason and "the comparison said" not in reason, reason
    # The gate's band made the 12 SAME rows AMBG too_noisy_to_judge before its history
    # check made them history_too_short; the band was that wide for want of runs (one
    # degree of freedom), so the line names the cause the rows show, not that drift.
    mean = next(line for line in lines if "Geometric mean" in line)
    assert "too few runs" in mean and "(history_too_short: 12)" in mean, mean
    assert "because their runs drift" not in mean and "too_noisy" not in mean, mean
    data = json.loads(report.read_text())
    assert data["geomean"]["drift_reasons"] == {"history_too_short": 12}
    assert data["geomean"]["drift_rows"] == 12


@pytest.fixture(scope="module")
def one_without_interval(gpu_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """gpu_ref (side files: each run's median has an interval), gpu_ref_nosidecar (no side
    files: none) and gpu_cmp (side files) in one series each."""
    archive = tmp_path_factory.mktemp("gap") / "archive"
    ingest_on_day(archive, gpu_dir / "gpu_ref.json", "a" * 40, 1)
    ingest_on_day(archive, gpu_dir / "gpu_ref_nosidecar.json", "b" * 40, 2)
    ingest_on_day(archive, gpu_dir / "gpu_cmp.json", "c" * 40, 3)
    return archive


def test_each_run_keeps_its_own_interval(one_without_interval: Path) -> None:
    from cuda.bench.history.series import load_series

    for one in load_series(one_without_interval):
        assert one.median_lo is not None and one.median_hi is not None, one.key
        have = [bool(np.isfinite(value)) for value in one.median_lo]
        # Skipped states have no run with an interval; the others lack it in run 2 only.
        assert have in ([True, False, True], [False, False, False]), (one.key, have)
        assert have == [bool(np.isfinite(value)) for value in one.median_hi]
        # What the trend table and the site show: None for the run without one.
        lo, hi = one.median_bounds()
        assert lo is not None and hi is not None
        assert [value is not None for value in lo] == [value is not None for value in hi] == have
        # The detection input takes them as they are (a run without one: no within-run draws).
        one.run_series()


def test_a_run_without_an_interval_is_taken_alone_by_the_confirmation() -> None:
    from cuda.bench.history.confirm import run_levels
    from cuda.bench.history.model import RunSeries

    medians = np.array([1.0, 1.1, 1.2])
    lo, hi = np.array([0.9, np.nan, 1.1]), np.array([1.1, np.nan, 1.3])
    levels = run_levels(RunSeries("k", medians, median_lo=lo, median_hi=hi), [0, 1, 2],
                        np.random.default_rng(0), 200)  # fmt: skip
    spreads = [float(np.std(level.draws)) for level in levels]
    assert spreads[0] > 0.01 and spreads[2] > 0.01 and spreads[1] < 1e-12
    # Half an interval is no interval: refused.
    with pytest.raises(ValueError, match="NaN in both"):
        RunSeries("k", medians, median_lo=lo, median_hi=np.array([1.1, 1.3, 1.3]))


def test_trend_shows_the_last_runs_interval_when_an_earlier_run_has_none(
    one_without_interval: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_history(
        capsys, "trend", "--archive", one_without_interval, "-b", "copy_bench"
    )
    assert code == 0, err
    rows = [line for line in out.splitlines() if "Layout=" in line]
    assert rows
    last_run = [cell.strip() for line in rows for cell in line.split("|")[7:8]]
    assert all("[" in cell for cell in last_run), last_run


def test_site_draws_each_runs_interval_and_null_only_for_the_run_without(
    one_without_interval: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = tmp_path / "site"
    code, _, err = run_history(capsys, "report", "--archive", one_without_interval, "--html", site)
    assert code == 0, err
    text = (site / "bench" / "0000.js").read_text()
    data = json.loads(text[text.index("(") + 1 : text.rindex(")")])
    assert data["benchmark"] == "copy_bench"
    for series in data["series"]:
        for side in ("lo", "hi"):
            values = series[side]
            assert values is not None, series["state"]
            assert [value is None for value in values] == [False, True, False], values
    # The chart reads each run's own interval (a null is no bar and no bound).
    script = (site / "history.js").read_text()
    assert "series.lo[run] != null" in script


def test_the_scan_tests_a_series_from_its_fewest_runs_on() -> None:
    from cuda.bench.history.changepoint import ScanConfig, scan

    config = ScanConfig(null_resamples=16, permutations=400)
    fewest = config.fewest_runs
    noise = np.random.default_rng(1).normal(0.0, 0.01, size=(1, fewest))
    assert not scan(noise[:, : fewest - 1], config)[0].scanned
    assert scan(noise, config)[0].scanned
    assert ScanConfig().fewest_runs == 2 * ScanConfig().min_segment == 10


def test_detect_says_how_many_series_were_too_short_and_what_they_need(
    one_without_interval: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "detect.json"
    code, out, err = run_history(
        capsys, "detect", "--archive", one_without_interval, "--json", report
    )
    assert code == 0, err
    lines = out.splitlines()
    short = [line for line in lines if "too short to test" in line]
    assert short == [
        "20 of 20 series too short to test for changes: a series needs at least 10 runs; "
        "the longest of them has 3 runs"
    ], out
    # No series was tested: no false-alarm rate (0 % of up to 3 runs would claim one).
    summary = next(line for line in lines if line.startswith("20 series"))
    assert "false-alarm rate" not in summary and "no series long enough to test" in summary
    data = json.loads(report.read_text())
    assert data["fewest_runs"] == 10
    assert [one["scanned"] for one in data["series"]] == [False] * 20


@pytest.mark.parametrize("command", ["detect", "trend", "report"])
def test_a_selection_that_matches_nothing_is_named_with_what_the_archive_has(
    one_without_interval: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    extra = ["--html", str(tmp_path / "site")] if command == "report" else []
    argv = [command, "--archive", one_without_interval, "-b", "nosuch", *extra]
    code, out, err = run_history(capsys, *argv)
    assert code == 2 and out == "", (code, out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert "-b nosuch: no such benchmark in the archive" in lines[0], lines[0]
    assert "(benchmarks in the archive: copy_bench, misc)" in lines[0], lines[0]
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize(
    ("selection", "needle"),
    [
        (["-b", "copy_bench", "-a", "T=F99"], "-a T=F99 (after -b copy_bench): no state has T=F99"),
        (["--device", "7"], "--device 7: no series on device 7 (devices in the archive: 0, 1)"),
        (["-b", "misc", "-a", "T=F32"], "-a T=F32 (after -b misc): no state has an axis named 'T'"),
    ],
)
def test_the_filter_or_device_that_matched_nothing_is_named(
    one_without_interval: Path,
    capsys: pytest.CaptureFixture[str],
    selection: list[str],
    needle: str,
) -> None:
    code, out, err = run_history(capsys, "detect", "--archive", one_without_interval, *selection)
    assert code == 2 and out == "", (code, out, err)
    assert len(err.splitlines()) == 1 and needle in err, err


def test_the_benchmark_list_is_brief(tmp_path: Path) -> None:
    from cuda.bench.history._selection import brief_names

    names = [f"bench_{number:02d}" for number in range(13)]
    assert brief_names(names) == ", ".join(names[:10]) + " and 3 more"
    assert brief_names(["b", "a"]) == "a, b"


def test_the_gate_summary_names_the_options_given_to_the_gate(
    one_without_interval: Path,
    gpu_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    page = tmp_path / "gate.html"
    argv = ["gate", "--archive", one_without_interval, gpu_dir / "gpu_cmp.json"]
    markdown = tmp_path / "gate.md"
    options = ["-b", "copy_bench", "--device", "0", "--html", page, "--markdown", markdown]
    code, out, err = run_history(capsys, *argv, *options)
    assert code == 0, err
    filters = [line for line in out.splitlines() if line.startswith("- Filters:")]
    # Not nvbench_compare's --reference-devices/--compare-devices, which gate does not take.
    assert filters == ["- Filters: -b copy_bench --device 0"], filters
    html = page.read_text()
    assert "-b copy_bench --device 0" in html and "--reference-devices" not in html
    # The markdown footer says the same, not the -b filter alone.
    assert "filters `-b copy_bench --device 0`" in markdown.read_text()


def test_ingest_says_a_run_without_side_files_stored_no_samples(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--samples 64`` of a run written without ``--jsonbin`` stored no samples and said
    nothing: the gate then had summaries only, and the user believed otherwise."""
    archive = tmp_path / "archive"
    run = gpu_dir / "gpu_ref_nosidecar.json"
    argv = ["ingest", "--archive", archive, "--commit", "a" * 40, "--samples", "64", run]
    code, out, err = run_history(capsys, *argv)
    assert code == 0 and len(out.splitlines()) == 1, (out, err)
    assert err == (
        f"nvbench-history: warning: {run}: no samples stored: the run has no side files "
        "(NVBench's --jsonbin writes them); archived from its summaries\n"
    )
    # A run with side files stores them and says nothing of the kind; without --samples,
    # none were asked for.
    ref = gpu_dir / "gpu_ref.json"
    code, _, err = run_history(capsys, *argv[:-1], ref)
    assert code == 0 and "no samples stored" not in err, err
    other = tmp_path / "other"
    code, _, err = run_history(capsys, "ingest", "--archive", other, "--commit", "b", run)
    assert code == 0 and err == "", err


@pytest.mark.parametrize(("base", "sigma"), [(3.18e-6, 1e-5), (152.4, 1e-5)])
def test_trend_levels_write_their_interval_in_the_unit_of_their_value(
    base: float, sigma: float, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A level's interval much narrower than its value read ``3.181 us [-0.0, +0.3] ns``
    or ``152.425 s [-393, +0] ms``: two units in one cell, unlike the last-run column's
    ``3.182 [-0.002, +0.002] us``."""
    from cuda.bench.history.synthetic import HistoryNoise, generate, write_history
    from cuda.bench.results.synthetic import LogNormalNoise, SyntheticConfig

    history = generate(HistoryNoise("iid", run_sigma=sigma), series=1, runs=8, seed=4)
    shape = LogNormalNoise(sigma=sigma)
    config = SyntheticConfig(
        benchmarks=1, states=1, samples=16, shape=shape, time_range=(base, base), clock_jitter=0.0
    )
    runs = write_history(tmp_path / "runs", history, config, seed=1, jsonbin=False)
    archive = ingest_days(tmp_path / "archive", [(run, f"{k:040x}") for k, run in enumerate(runs)])
    code, out, err = run_history(capsys, "trend", "--archive", archive)
    assert code == 0, err
    row = next(line for line in out.splitlines() if line.startswith("| bench_"))
    level = row.split("|")[8].strip()
    unit = "us" if base < 1 else "s"
    # A bound that rounds to zero is written without a sign (report.format.signed_bound).
    bounds = r"\[(-\d+\.\d+|0\.0+), (\+\d+\.\d+|0\.0+)\]"
    assert re.fullmatch(rf"\d+\.\d{{3}} {bounds} {unit} \(8 runs\)", level), row


@pytest.mark.parametrize("sign", ["", "-"])
def test_a_huge_axis_value_is_shortened_in_the_error_line(
    sign: str, gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An int64 axis value of 400 digits was printed whole in the refusal, twice where the
    state's name carries it (a negative value of a pow2 axis keeps its digits there)."""
    digits = "9" * 400
    text = (gpu_dir / "gpu_ref_nosidecar.json").read_text()
    run = tmp_path / "huge.json"
    run.write_text(text.replace('"value": "65536"', f'"value": "{sign}{digits}"'))
    code, out, err = run_history(
        capsys, "ingest", "--archive", tmp_path / "archive", "--commit", "x", run
    )
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert "9" * 30 not in err and len(err) < 400, err
    assert f"value {sign}{'9' * 20}… (400 digits), beyond NVBench's int64" in err


def test_trend_counts_no_changes_for_a_series_too_short_to_test(
    one_without_interval: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Three runs: the scan tests nothing, so a "Changes" count of 0 claimed a clean series.
    code, out, err = run_history(capsys, "trend", "--archive", one_without_interval)
    assert code == 0, err
    lines = out.splitlines()
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    column = header.index("Changes")
    rows = [line.strip("|").split("|") for line in lines[2:] if line.startswith("|")]
    assert len(rows) == 20 and {row[column].strip() for row in rows} == {"-"}, out
    assert (
        "Changes: - for the 20 of 20 series too short to test for changes: a series needs at "
        "least 10 runs; the longest of them has 3 runs"
    ) in lines, out


def test_the_site_counts_no_changes_for_series_too_short_to_test(tmp_path: Path) -> None:
    # The index's "Series with changes" said 0 for a benchmark whose series were never
    # tested (fewer runs than the scan needs), where trend shows "-": a clean bill of health
    # for series of which nothing was tested.
    import datetime as dt
    import html

    from cuda.bench.history.series import ArchiveSeries, examine
    from cuda.bench.history.synthetic import commit_ids
    from cuda.bench.report.html.history_site import write_site

    commits = commit_ids(24, seed=4)

    def series(name: str, state: str, runs: int, step: float) -> ArchiveSeries:
        dates = tuple(dt.datetime(2026, 5, 1 + i, tzinfo=dt.timezone.utc) for i in range(runs))
        noise = np.exp(0.002 * np.random.default_rng(5).standard_normal(runs))
        medians = 1e-5 * noise * np.where(np.arange(runs) >= runs // 2, step, 1.0)
        return ArchiveSeries(
            machine="m", benchmark=name, axes=(), commits=commits[:runs], dates=dates,
            device=0, state_name=state, medians=medians, median_lo=None, median_hi=None,
        )  # fmt: skip

    chosen = [
        series("a_short", "Device=0 N=1", 3, 1.0),
        series("a_short", "Device=0 N=2", 9, 1.0),
        series("b_mixed", "Device=0 N=1", 24, 1.2),
        series("b_mixed", "Device=0 N=2", 4, 1.0),
        series("c_tested", "Device=0 N=1", 24, 1.0),
    ]
    view = examine(chosen)
    index = write_site(view, tmp_path / "site", tool_version="t").read_text(encoding="utf-8")
    table = index[index.index('<table class="benchmarks">') :]
    table = table[: table.index("</table>")]
    cells = {
        re.sub("<[^>]+>", "", row[0]): [html.unescape(cell) for cell in row[1:]]
        for row in re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td></tr>", table)
    }
    # The control: the tested series' step is found.
    assert [one.benchmark for p, one in enumerate(view.series) if view.changes_of(p)] == ["b_mixed"]
    assert cells == {
        "a_short": ["2", "-"],
        "b_mixed": ["2", "1 (1 too short to test)"],
        "c_tested": ["1", "0"],
    }, cells
    assert (
        "Series with changes counts the series tested: 3 of 5 series too short to test for "
        "changes: a series needs at least 10 runs; the longest of them has 9 runs."
    ) in html.unescape(index)
