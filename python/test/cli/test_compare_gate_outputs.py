"""``nvbench_compare`` as a gate (issue 15): skipped states, empty comparisons, report
outputs that never replace what the user pointed at, the markdown size limit, multi-run
warnings and the table options."""

from __future__ import annotations

import csv
import io
import json
import os
import select
import shutil
import sys
import threading
import time
from importlib.metadata import version
from pathlib import Path

import pytest
from _cli_helpers import Result, assert_usage_error, run_command, run_main
from cuda.bench.cli import compare as cli
from cuda.bench.cli._compare_outputs import METHOD_HELP
from cuda.bench.compare.choices import METHOD_NAMES
from cuda.bench.results.synthetic import SyntheticConfig, write_pair


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Result:
    return run_main(cli.main, capsys, *args)


@pytest.fixture()
def gpu(gpu_dir: Path) -> tuple[Path, Path]:
    return gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"


# ---------------------------------------------------------------------------------------
# Item 3: states skipped by the benchmark
# ---------------------------------------------------------------------------------------


def test_skipped_in_both_runs_is_its_own_status(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path]
) -> None:
    gate = run(capsys, *gpu, "--fail-on", "unknown")
    assert gate.code == 0, gate.err
    assert "SKIP" not in gate.out.split("# Summary")[0]
    assert "- Skipped: 4 states skipped by the benchmark in both runs" in gate.out
    assert "  - 4: Strided layout is not implemented for 8-byte types." in gate.out
    listed = run(capsys, *gpu, "--show-skipped")
    assert listed.out.split("# Summary")[0].count("⚪ SKIP") == 4
    report = run(capsys, *gpu, "--csv", "-")
    statuses = [record["status"] for record in csv.DictReader(io.StringIO(report.out))]
    assert statuses.count("SKIP") == 4 and "????" not in statuses


def test_skipped_on_one_side_only_stays_a_visible_difference(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path], tmp_path: Path
) -> None:
    data = json.loads(gpu[1].read_text(encoding="utf-8"))
    state = data["benchmarks"][1]["states"][0]  # misc: never skipped by the benchmark
    state.update(is_skipped=True, skip_reason="Needs 96 GB of memory.", summaries=None)
    cmp = tmp_path / "cmp.json"
    cmp.write_text(json.dumps(data), encoding="utf-8")
    result = run(capsys, gpu[0], cmp, "--json", "-")
    rows = [row for row in result.json()["rows"] if row["status"] == "????"]
    assert len(rows) == 1 and rows[0]["benchmark"] == "misc"
    assert rows[0]["reason_code"] == "state_skipped"
    assert "compare state skipped: Needs 96 GB of memory." in rows[0]["reason_message"]
    table = run(capsys, gpu[0], cmp, "--fail-on", "unknown")
    assert table.code == 1
    assert "🟡 ????" in table.out.split("# Summary")[0]


# ---------------------------------------------------------------------------------------
# Item 4: a comparison that compared nothing
# ---------------------------------------------------------------------------------------


def test_files_without_benchmarks_are_an_error(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path], tmp_path: Path
) -> None:
    empty = []
    for number, run_file in enumerate(gpu):
        data = json.loads(run_file.read_text(encoding="utf-8"))
        data["benchmarks"] = []
        empty.append(tmp_path / f"empty{number}.json")
        empty[-1].write_text(json.dumps(data), encoding="utf-8")
    result = run(capsys, *empty, "--fail-on", "slow,unknown")
    assert_usage_error(result, "nothing was compared", "contain no benchmarks")


def test_only_skipped_states_is_an_error(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path], tmp_path: Path
) -> None:
    report = tmp_path / "r.json"
    result = run(capsys, *gpu, "-a", "T=F64", "-a", "Layout=strided", "--json", report)
    assert_usage_error(result, "nothing was compared", "all 4 state(s) were skipped", "Strided")
    assert not report.exists()


# ---------------------------------------------------------------------------------------
# Item 5: outputs
# ---------------------------------------------------------------------------------------


def test_a_report_link_is_written_through(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path], tmp_path: Path
) -> None:
    (tmp_path / "reports").mkdir()
    target = tmp_path / "reports" / "latest.json"
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "report.json"
    link.symlink_to(target)
    assert run(capsys, *gpu, "--json", link).code == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert json.loads(target.read_text(encoding="utf-8"))["schema_version"] == 2


@pytest.mark.parametrize("through_link", [False, True])
def test_a_fifo_is_written_directly_not_replaced(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path], tmp_path: Path, through_link: bool
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    path = fifo
    if through_link:
        path = tmp_path / "stdout-like"
        path.symlink_to(fifo)
    # The reader holds the FIFO open without blocking, and the comparison runs in a worker
    # thread: a write that never comes fails the test instead of hanging the suite.
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    results: list[Result] = []
    writer = threading.Thread(
        target=lambda: results.append(run(capsys, *gpu, "--markdown", path)), daemon=True
    )
    writer.start()
    chunks: list[bytes] = []
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            # Whether the writer had finished is taken before the read: a writer that wrote
            # and finished between an empty read and the check would lose its output (a
            # race the suite hit under load, 2026-11-29).
            finished = not writer.is_alive()
            ready, _, _ = select.select([reader], [], [], 0.1)
            chunk = os.read(reader, 1 << 16) if ready else b""
            chunks.append(chunk)
            if not chunk:
                if finished:
                    break
                time.sleep(0.01)  # no writer yet (or between writes): the FIFO reads as empty
    finally:
        os.close(reader)
    assert not writer.is_alive(), "the comparison never finished writing into the FIFO"
    result = results[0]
    received = [b"".join(chunks).decode("utf-8")]
    assert result.code == 0, result.err
    assert received and received[0].startswith("### 🔴 nvbench_compare:")
    assert fifo.is_fifo() and (not through_link or path.is_symlink())
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({fifo.name, path.name})


@pytest.mark.parametrize("option", ["--json", "--csv", "--markdown", "--plot-output"])
def test_a_missing_directory_is_an_error_not_created(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path], tmp_path: Path, option: str
) -> None:
    target = tmp_path / "missing" / "out.png"
    extra = ["--plot"] if option == "--plot-output" else []
    if extra:
        pytest.importorskip("matplotlib")
    result = run(capsys, *gpu, *extra, option, target)
    assert_usage_error(result, option, "does not exist")
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------------
# Item 6: the markdown report fits a GitHub comment
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("many")
    config = SyntheticConfig(benchmarks=5, states=200, samples=50)
    pair = write_pair(root, config, seed=5, random_shifts=3, shift_factors=(1.3,), jsonbin=False)
    return pair.ref[0], pair.cmp[0]


def test_markdown_fits_a_github_comment_by_default(
    capsys: pytest.CaptureFixture[str], many: tuple[Path, Path], tmp_path: Path
) -> None:
    fitted, full = tmp_path / "fitted.md", tmp_path / "full.md"
    assert run(capsys, *many, "--method", "robust", "--markdown", full, "--markdown-limit", "none")
    full_text = full.read_text(encoding="utf-8")
    assert len(full_text) > 65_536  # the test needs a report that does not fit
    run(capsys, *many, "--method", "robust", "--markdown", fitted)
    text = fitted.read_text(encoding="utf-8")
    assert len(text) <= 65_536
    lines = text.splitlines()
    assert lines[0] == full_text.splitlines()[0]  # the headline
    regressions = text[text.index("#### Regressions") :]
    assert regressions.count("🔴 SLOW") >= 3
    assert "of 1000 table rows left out" in lines[-1] and "JSON and CSV" in lines[-1]
    small = tmp_path / "small.md"
    run(capsys, *many, "--method", "robust", "--markdown", small, "--markdown-limit", "5000")
    assert len(small.read_text(encoding="utf-8")) <= 5000
    bad = run(capsys, *many, "--markdown-limit", "lots")
    assert_usage_error(bad, "--markdown-limit")


# ---------------------------------------------------------------------------------------
# Item 8: several runs per side
# ---------------------------------------------------------------------------------------


def test_states_skipped_in_every_run_are_not_blamed_on_one_run(
    capsys: pytest.CaptureFixture[str], gpu_dir: Path, tmp_path: Path
) -> None:
    runs: list[str | Path] = []
    for side in ("ref", "cmp"):
        for number in (1, 2):
            # Another run of each side (another command line), not a copy, which is
            # refused as a run given twice.
            document = json.loads((gpu_dir / f"gpu_{side}_plain.json").read_text())
            document["meta"]["argv"].append(f"--run={number}")
            copy = tmp_path / f"{side}{number}.json"
            copy.write_text(json.dumps(document))
            runs += [f"--{side}", copy]
    result = run(capsys, *runs)
    assert result.code == 0, result.err
    # Every run skips the same 4 states: before, each second run was said to lack them.
    assert "lacks" not in result.err, result.err
    assert "- Skipped: 4 states skipped by the benchmark in both runs" in result.out


# ---------------------------------------------------------------------------------------
# Item 9: what users of other tools expect
# ---------------------------------------------------------------------------------------


def test_only_changed_and_sort(capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path]) -> None:
    changed = run(capsys, *gpu, "--only-changed", "--no-color")
    tables = changed.out.split("# Summary")[0]
    assert "🔵 SAME" not in tables and "🔴 SLOW" in tables and "🟢 FAST" in tables
    assert "- Hidden: 18 SAME or AMBG row(s) (--only-changed)" in changed.out
    assert "- Unchanged   (🔵 SAME, no change beyond the tolerance): 18" in changed.out
    ordered = run(capsys, *gpu, "--sort", "change", "--no-color", "-b", "copy_bench")
    first_table = ordered.out.split("\n\n")[2].splitlines()[2:]  # [0] H100: both changes
    statuses = [line.split("|")[-2].strip() for line in first_table]
    assert statuses[0] == "🔴 SLOW" and statuses[-1] == "🟢 FAST" and len(statuses) == 6
    named = run(capsys, *gpu, "--sort", "name", "--no-color", "-b", "copy_bench")
    first_table = named.out.split("\n\n")[2].splitlines()[2:]
    keys = [[cell.strip() for cell in line.split("|")[1:4]] for line in first_table]
    assert keys == [
        ["F32", "2^16", "contiguous"],
        ["F32", "2^16", "strided"],
        ["F32", "2^20", "contiguous"],
        ["F32", "2^20", "strided"],
        ["F64", "2^16", "contiguous"],
        ["F64", "2^20", "contiguous"],
    ]


def test_every_table_has_a_legend_line(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path]
) -> None:
    for display, needle in (
        ("intervals", "[-a, +b]"),
        ("simple", "Span:"),
        ("explain", "Spread: IQR / median"),
        ("legacy", "Noise: NVBench's relative standard deviation"),
    ):
        out = run(capsys, *gpu, "--display", display).out
        tables = sum(line.startswith("|--") for line in out.splitlines())
        legends = [line for line in out.splitlines() if line.startswith("Legend: ")]
        assert len(legends) == tables == 4 and all(needle in line for line in legends)
        if display != "legacy":
            assert all("95% confidence interval of the change" in line for line in legends)
    robust = run(capsys, *gpu, "--method", "robust").out
    assert "Change <= / >=: the least change the two timing intervals allow" in robust


def test_method_help_lists_every_method(capsys: pytest.CaptureFixture[str]) -> None:
    assert set(METHOD_HELP) == set(METHOD_NAMES)
    text = " ".join(run(capsys, "--help").out.split())
    for name in METHOD_NAMES:
        assert f"{name}: " in text or f"{name} (default): " in text


@pytest.mark.parametrize(
    "program", ["nvbench_compare", "nvbench-json-summary", "nvbench-walltime", "nvbench-histogram"]
)
def test_version_on_every_command(program: str) -> None:
    found = shutil.which(program, path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip(f"{program} is not installed")
    process = run_command([found, "--version"])
    assert process.returncode == 0, process.stderr
    assert process.stdout.strip() == f"{program} {version('nvbench-tools')}"


def test_options_are_not_abbreviated(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path]
) -> None:
    assert_usage_error(run(capsys, *gpu, "--threshold", "3"), "unrecognized arguments")


def test_unknown_benchmark_lists_the_names(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path]
) -> None:
    result = run(capsys, *gpu, "-b", "copy")
    assert_usage_error(result, "-b copy", "benchmarks in the inputs: copy_bench, misc")


def test_report_fields_name_what_they_hold(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path], tmp_path: Path
) -> None:
    row = next(r for r in run(capsys, *gpu, "--json", "-").json()["rows"] if r["status"] == "SLOW")
    assert row["effect_ci_lo"] < row["effect_ratio"] < row["effect_ci_hi"]
    assert row["interval_change_lo"] < row["interval_change_hi"]
    for old in ("change_lo", "change_hi", "effect_lo", "effect_hi", "cycle_effect_lo"):
        assert old not in row


def test_every_parser_spells_options_out() -> None:
    from cuda.bench.cli._common import ArgumentParser

    assert ArgumentParser().allow_abbrev is False
    root = Path(__file__).resolve().parents[2]
    lacking = [
        f"{path.relative_to(root)}:{number}"
        for folder in ("cuda_bench", "examples", "benchmarks", "scripts")
        for path in sorted((root / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "argparse.ArgumentParser(" in line and "allow_abbrev=False" not in line
    ]
    assert lacking == []


def test_an_output_that_cannot_be_made_stops_the_run_before_any_is_written(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path], tmp_path: Path
) -> None:
    # The JSON report was written, then the CSV could not be (/proc takes no new file):
    # exit 2 left a complete-looking report behind. Now found before the work.
    if not Path("/proc/self").is_dir():
        pytest.skip("no /proc")
    report = tmp_path / "r.json"
    result = run(capsys, *gpu, "--json", report, "--csv", "/proc/x.csv")
    assert_usage_error(result, "--csv: /proc/x.csv")
    assert not report.exists() and list(tmp_path.iterdir()) == []


def test_an_output_in_a_directory_without_write_permission_stops_the_run_first(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path], tmp_path: Path
) -> None:
    report = tmp_path / "r.json"
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    if os.access(locked, os.W_OK):
        pytest.skip("running as a user who may write anywhere (root)")
    result = run(capsys, *gpu, "--json", report, "--markdown", locked / "r.md")
    assert_usage_error(result, "--markdown", "Permission denied")
    assert not report.exists()


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--heatmap", "/proc/h.png"], "--heatmap: /proc/h.png: cannot be written"),
        (["--output-dir", "/proc/out"], "--output-dir: /proc/out: cannot be written"),
        (
            ["--plot-along", "Elements", "--plot-along-output", "/proc/p_{benchmark}.png"],
            "--plot-along-output: /proc: cannot be written",
        ),
    ],
)
def test_an_n_way_figure_or_folder_that_cannot_be_made_stops_the_run_first(
    extra: list[str],
    said: str,
    capsys: pytest.CaptureFixture[str],
    gpu: tuple[Path, Path],
    tmp_path: Path,
) -> None:
    # These were found only after the comparison, the JSON report written already.
    pytest.importorskip("matplotlib")
    if not Path("/proc/self").is_dir():
        pytest.skip("no /proc")
    report = tmp_path / "r.json"
    result = run(capsys, *gpu, gpu[0], "--json", report, *extra)
    assert_usage_error(result, said)
    assert not report.exists()


@pytest.mark.parametrize("target", ["/dev/fd/97", "/proc/self/fd/97"])
def test_a_descriptor_that_is_not_open_stops_the_run_first(
    target: str, capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path], tmp_path: Path
) -> None:
    if not Path("/proc/self/fd").is_dir():
        pytest.skip("no /proc/self/fd")
    report = tmp_path / "r.json"
    result = run(capsys, *gpu, "--json", report, "--csv", target)
    assert_usage_error(result, f"--csv: {target}: cannot be written")
    assert not report.exists()
