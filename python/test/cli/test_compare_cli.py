"""``nvbench_compare`` end to end: entry points, exit statuses, errors, reports, colour."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _cli_helpers import Result, assert_usage_error, run_command, run_main
from cuda.bench import __version__
from cuda.bench.cli import compare as cli
from cuda.bench.compare.config import loads_config
from cuda.bench.compare.exit_policy import FAIL_ON_NAMES
from cuda.bench.compare.thresholds import PRESETS
from cuda.bench.report.tables import DISPLAY_NAMES
from cuda.bench.results.synthetic import SyntheticConfig, write_pair, write_run

_REPO = Path(__file__).resolve().parents[3]
_SCRIPT = _REPO / "python" / "scripts" / "nvbench_compare.py"

SLOW_KEY = "T=F32 Elements=2^20 Layout=contiguous"
FAST_KEY = "T=F64 Elements=2^16 Layout=contiguous"


# ---------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------


def _installed(name: str) -> str | None:
    return shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Result:
    return run_main(cli.main, capsys, *args)


@pytest.fixture()
def gpu(gpu_dir: Path) -> tuple[Path, Path]:
    return gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"


@pytest.fixture(scope="module")
def shifted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A synthetic pair: one state 25 % slower, one 20 % faster, the rest unchanged."""
    root = tmp_path_factory.mktemp("shifted")
    pair = write_pair(
        root,
        SyntheticConfig(benchmarks=2, states=4, samples=300),
        seed=11,
        shifts={
            ("bench_00", "Device=0 Elements=2048"): 1.25,
            ("bench_01", "Device=0 Elements=4096"): 0.8,
        },
    )
    return pair.ref[0], pair.cmp[0]


@pytest.fixture(scope="module")
def grown(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Directories: a.json gains a state, only_ref.json has no counterpart."""
    root = tmp_path_factory.mktemp("grown")
    ref, cmp = root / "ref", root / "cmp"
    ref.mkdir()
    cmp.mkdir()
    write_run(ref / "a.json", SyntheticConfig(benchmarks=1, states=2, samples=200), seed=2)
    write_run(ref / "only_ref.json", SyntheticConfig(benchmarks=1, states=1), seed=2)
    write_run(
        cmp / "a.json", SyntheticConfig(benchmarks=1, states=3, samples=200), seed=2, side="cmp"
    )
    return ref, cmp


# ---------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["nvbench_compare", "nvbench-compare"])
def test_installed_entry_points(name: str, gpu: tuple[Path, Path]) -> None:
    found = _installed(name)
    if found is None:
        pytest.skip(f"{name} is not installed")
    process = run_command([found], *gpu, "--method", "robust")
    assert process.returncode == 0, process.stderr
    assert process.stderr == ""
    assert process.stdout.startswith("# copy_bench\n\n## [0] NVIDIA H100 80GB HBM3\n\n|")
    # The 4 states the benchmark skips in both runs are counted apart.
    assert "- Total Matches: 20" in process.stdout
    # Piped: no ANSI codes, emoji statuses.
    assert "\x1b" not in process.stdout and "🔴 SLOW" in process.stdout


def test_python_dash_m_and_script_match_the_entry_point(gpu: tuple[Path, Path]) -> None:
    module = run_command([sys.executable, "-m", "cuda.bench.compare"], *gpu, "--method", "robust")
    script = run_command([sys.executable, str(_SCRIPT)], *gpu, "--method", "robust")
    assert module.returncode == script.returncode == 0, (module.stderr, script.stderr)
    assert module.stdout == script.stdout
    assert "- Regression  (🔴 SLOW, compare is slower): 1" in module.stdout
    version = run_command([sys.executable, "-m", "cuda.bench.compare", "--version"])
    assert version.returncode == 0 and version.stdout.strip().endswith(__version__)


def _modules_loaded_by(*args: str) -> tuple[int, set[str]]:
    """The exit status of ``nvbench_compare ARGS`` in a fresh interpreter and the modules it
    loaded by then."""
    code = (
        "import io, sys, contextlib\n"
        "from cuda.bench.cli.compare import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    status = main({list(args)!r})\n"
        "print('STATUS', status, 'MODULES', *sorted(sys.modules))\n"
    )
    process = run_command([sys.executable, "-c", code])
    assert process.returncode == 0, process.stderr
    status, modules = process.stdout.split("MODULES", 1)
    return int(status.split()[1]), set(modules.split())


@pytest.mark.parametrize("method", ["ci", "robust"])
def test_a_comparison_of_summaries_loads_no_sample_machinery(tmp_path: Path, method: str) -> None:
    # A typical comparison (no side files) is mostly start-up: modules only rows with
    # samples need (numpy, the bootstrap's hashing) or that a quantile does not need
    # (statistics pulls in fractions, decimal and random) stay unloaded.
    pair = write_pair(tmp_path, SyntheticConfig(benchmarks=2, states=5), seed=1, jsonbin=False)
    status, modules = _modules_loaded_by("--method", method, str(pair.ref[0]), str(pair.cmp[0]))
    assert status == 0 and "cuda.bench.compare.api" in modules
    assert not modules & {"numpy", "statistics", "hashlib", "random"}


def test_help_loads_no_heavy_modules() -> None:
    code = (
        "import sys\n"
        "from cuda.bench.cli.compare import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit as stop:\n"
        "    assert stop.code == 0, stop.code\n"
        "print('MODULES', *sorted(sys.modules))\n"
    )
    process = run_command([sys.executable, "-c", code])
    assert process.returncode == 0, process.stderr
    assert "--fail-on CONDITIONS" in process.stdout
    modules = set(process.stdout.split("MODULES", 1)[1].split())
    heavy = {
        "numpy",
        "msgspec",
        "pandas",
        "tomllib",
        "cuda.bench.results",
        "cuda.bench.compare.api",
        "cuda.bench.compare.engine",
        "cuda.bench.compare.execution",
        "cuda.bench.compare.methods",
        "cuda.bench.compare.evidence",
        "cuda.bench.compare.estimates",
        "cuda.bench.compare.bulkdata",
        "cuda.bench.compare.model",
        "cuda.bench.report.format",
        "cuda.bench.report.intervals",
        "cuda.bench.report.table",
    }
    assert not modules & heavy, sorted(modules & heavy)
    # Text-only modules: the command, its parser (a module of its own, which `ab` reuses
    # without importing the command), its helpers (the N-way options' module among them),
    # the option names and presets, the untrusted-text module errors are written with, and
    # the run's plumbing (Ctrl-C's exit status: cli._interrupts, signal only).
    assert len([m for m in modules if m.startswith("cuda.bench")]) <= 16


def test_a_comparison_from_summaries_loads_no_modules_it_does_not_use(
    gpu: tuple[Path, Path],
) -> None:
    # Each of these costs a typical (small) comparison milliseconds of its ~0.1 s: the
    # terminal width without shutil (and its compression modules), no temporary files when
    # nothing is written, no ci statistics for --method robust. (pickle comes with numpy.)
    _, modules = _modules_loaded_by("--method", "robust", "--no-color", *map(str, gpu))
    unused = {"shutil", "tempfile", "statistics", "cuda.bench.compare.methods.ci"}
    assert not modules & unused, sorted(modules & unused)


def test_help_follows_the_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    from cuda.bench.cli._common import terminal_columns

    monkeypatch.setenv("COLUMNS", "60")
    assert terminal_columns() == 60
    narrow = cli.build_parser("nvbench_compare").format_help()
    monkeypatch.setenv("COLUMNS", "200")
    wide = cli.build_parser("nvbench_compare").format_help()
    assert len(wide.splitlines()) < len(narrow.splitlines())
    monkeypatch.setenv("COLUMNS", "not a number")
    assert terminal_columns() == shutil.get_terminal_size().columns


def test_choices_stay_in_step_with_the_library() -> None:
    from cuda.bench.cli import _compare_parser

    assert _compare_parser.DISPLAY_CHOICES == DISPLAY_NAMES
    assert _compare_parser.FAIL_ON_CHOICES == FAIL_ON_NAMES


# ---------------------------------------------------------------------------------------
# Real files
# ---------------------------------------------------------------------------------------


def test_gpu_pair_has_exactly_the_known_changes(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path]
) -> None:
    result = run(capsys, *gpu, "--method", "robust", "--json", "-")
    assert result.code == 0 and result.err == ""
    data = result.json()
    changed = {
        (row["status"], row["ref_device"], row["key"])
        for row in data["rows"]
        if row["status"] in ("SLOW", "FAST")
    }
    assert changed == {("SLOW", 0, SLOW_KEY), ("FAST", 0, FAST_KEY)}


def test_default_exit_status_is_zero_even_with_regressions(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path]
) -> None:
    result = run(capsys, *gpu, "--method", "robust")
    assert result.code == 0
    assert "- Regression  (🔴 SLOW, compare is slower): 1" in result.out
    assert "Failed" not in result.out and result.err == ""


def test_upstream_2021_files(capsys: pytest.CaptureFixture[str], upstream_2021_dir: Path) -> None:
    result = run(
        capsys,
        upstream_2021_dir / "ref.json",
        upstream_2021_dir / "cmp.json",
        "--method",
        "robust",
        "--display",
        "explain",
    )
    assert result.code == 0, result.err
    assert "- Total Matches: 88" in result.out
    assert "  - Ambiguous   (🤷 AMBG, not enough evidence either way): 6" in result.out
    assert "  - Unknown     (🟡 ????, unusable input data): 0" in result.out
    assert result.out.count("## [1] Quadro GP100") == 5


def test_cpu_runs(capsys: pytest.CaptureFixture[str], cpu_dir: Path) -> None:
    result = run(capsys, cpu_dir / "cpu_run1.json", cpu_dir / "cpu_run2.json", "--no-color")
    assert result.code == 0, result.err
    assert "\n## " not in result.out
    assert result.out.startswith("# host_sort\n\n| Elements | Mode")
    assert "# tiny\n\n|" in result.out


def test_synthetic_shifts_are_found(
    capsys: pytest.CaptureFixture[str], shifted: tuple[Path, Path]
) -> None:
    result = run(capsys, *shifted, "--method", "robust", "--json", "-")
    rows = {(row["benchmark"], row["key"]): row["status"] for row in result.json()["rows"]}
    assert rows.pop(("bench_00", "Elements=2048")) == "SLOW"
    assert rows.pop(("bench_01", "Elements=4096")) == "FAST"
    assert set(rows.values()) == {"SAME"}
    text = run(capsys, *shifted, "--method", "robust", "--fail-on", "slow")
    assert text.code == 1
    assert "- Failed: --fail-on slow: 1 row(s): bench_00 [0] Elements=2048\n" in text.out


# ---------------------------------------------------------------------------------------
# --fail-on and exit statuses
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("conditions", "expected"),
    [
        (["slow"], 1),
        (["fast"], 1),
        # The only ???? candidates are states skipped in both runs: SKIP, not unknown.
        (["unknown"], 0),
        (["ambiguous"], 0),
        (["missing"], 0),
        (["ambiguous,missing"], 0),
        (["ambiguous", "slow"], 1),
    ],
)
def test_fail_on_gpu_pair(
    capsys: pytest.CaptureFixture[str],
    gpu: tuple[Path, Path],
    conditions: list[str],
    expected: int,
) -> None:
    args = [arg for condition in conditions for arg in ("--fail-on", condition)]
    result = run(capsys, *gpu, "--method", "robust", *args)
    assert result.code == expected
    if expected:
        assert len(result.err.splitlines()) == 1
        assert "failed (--fail-on" in result.err
        assert "- Failed: --fail-on" in result.out
    else:
        assert result.err == ""
        assert "- Passed: --fail-on" in result.out


def test_fail_on_names_the_rows(capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path]) -> None:
    result = run(capsys, *gpu, "--method", "robust", "--fail-on", "slow,fast")
    assert result.code == 1
    assert f"- Failed: --fail-on slow: 1 row(s): copy_bench [0] {SLOW_KEY}\n" in result.out
    assert f"- Failed: --fail-on fast: 1 row(s): copy_bench [0] {FAST_KEY}\n" in result.out
    assert "--fail-on slow: 1; --fail-on fast: 1" in result.err


def test_fail_on_ambiguous_with_real_ambiguous_rows(
    capsys: pytest.CaptureFixture[str], upstream_2021_dir: Path
) -> None:
    files = (upstream_2021_dir / "ref.json", upstream_2021_dir / "cmp.json")
    result = run(capsys, *files, "--method", "robust", "--fail-on", "ambiguous")
    assert result.code == 1
    assert "- Failed: --fail-on ambiguous: 6 row(s): " in result.out


def test_fail_on_missing_rows_and_unpaired_files(
    capsys: pytest.CaptureFixture[str], grown: tuple[Path, Path]
) -> None:
    result = run(capsys, *grown, "--fail-on", "missing")
    assert result.code == 1
    assert "- Failed: --fail-on missing: 1 row(s), 1 unpaired file(s): " in result.out
    assert "bench_00 [0] Elements=3072" in result.out
    assert "only_ref.json (unpaired)" in result.out
    # Unpaired files are also a warning on stderr, one line each.
    warnings = [line for line in result.err.splitlines() if "warning:" in line]
    assert len(warnings) == 1 and "only_ref.json" in warnings[0]
    assert run(capsys, *grown).code == 0


# ---------------------------------------------------------------------------------------
# Usage and input errors
# ---------------------------------------------------------------------------------------


def test_missing_input_file(capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path]) -> None:
    assert_usage_error(run(capsys, gpu[0], "/nonexistent/cmp.json"), "/nonexistent/cmp.json")


def test_bad_json(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert_usage_error(run(capsys, bad, gpu[1]), "bad.json")


@pytest.mark.parametrize("selection", [(), ("-b", "bench_00")])
def test_non_utf8_json(
    capsys: pytest.CaptureFixture[str],
    gpu: tuple[Path, Path],
    tmp_path: Path,
    selection: tuple[str, ...],
) -> None:
    # Read slim, or benchmark by benchmark with -b: both word it as the usual reader does.
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"benchmarks": [{"name": "\xff", "states": null}]}')
    result = run(capsys, gpu[0], bad, *selection)
    assert_usage_error(result, "bad.json")
    assert "not valid UTF-8" in result.err


def test_unknown_option(capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path]) -> None:
    assert_usage_error(run(capsys, *gpu, "--frobnicate"), "--frobnicate")


@pytest.mark.parametrize("value", ["-1", "nan", "inf", "five"])
def test_bad_threshold_diff(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path], value: str
) -> None:
    assert_usage_error(run(capsys, *gpu, f"--threshold-diff={value}"), "--threshold-diff")


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("version = 2\n", "unsupported comparison config version 2"),
        ("version = 1\n[same]\nbogus = 1\n", "bogus"),
        ("version = 1\n[same\n", "failed to parse"),
    ],
)
def test_bad_config(
    capsys: pytest.CaptureFixture[str],
    gpu: tuple[Path, Path],
    tmp_path: Path,
    text: str,
    needle: str,
) -> None:
    config = tmp_path / "thresholds.toml"
    config.write_text(text, encoding="utf-8")
    assert_usage_error(run(capsys, *gpu, "--config", config), needle)


def test_missing_config_file(capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path]) -> None:
    assert_usage_error(run(capsys, *gpu, "--config", "/nonexistent.toml"), "nonexistent.toml")


@pytest.mark.parametrize(
    ("filters", "needle"),
    [
        (["-b", "nope"], "-b nope"),
        (["-a", "T=F128"], "T=F128"),
        (["-b", "copy_bench", "-a", "Ratio=0.25"], "Ratio"),
        (["-a", "bogus"], "bogus"),
    ],
)
def test_filter_matching_nothing(
    capsys: pytest.CaptureFixture[str],
    gpu: tuple[Path, Path],
    filters: list[str],
    needle: str,
) -> None:
    assert_usage_error(run(capsys, *gpu, *filters), needle)


def test_device_mismatch_without_ignore_devices(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path], upstream_2021_dir: Path
) -> None:
    result = run(capsys, upstream_2021_dir / "ref.json", gpu[1])
    assert_usage_error(result, "device sections", "--ignore-devices")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--fail-on", "slowish"], "--fail-on"),
        (["--method", "nope"], "--method"),
        (["--preset", "fast"], "--preset"),
        (["--display", "fancy"], "--display"),
        (["--color", "sometimes"], "--color"),
        (["--reference-devices", "x"], "--reference-devices"),
        (["--json", "-", "--markdown", "-"], "standard output"),
    ],
)
def test_bad_option_values(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path], args: list[str], needle: str
) -> None:
    assert_usage_error(run(capsys, *gpu, *args), needle)


def test_one_input_only(capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path]) -> None:
    assert_usage_error(run(capsys, gpu[0]), "two inputs")
    assert_usage_error(run(capsys), "two inputs")


def test_report_path_is_a_directory(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path], tmp_path: Path
) -> None:
    assert_usage_error(run(capsys, *gpu, "--csv", tmp_path), "is a directory")
    same = tmp_path / "x"
    assert_usage_error(run(capsys, *gpu, "--csv", same, "--json", same), "both write")


def test_usage_error_in_a_subprocess_has_no_traceback(gpu: tuple[Path, Path]) -> None:
    process = run_command([sys.executable, "-m", "cuda.bench.compare"], gpu[0], "/nonexistent")
    assert process.returncode == 2
    assert process.stdout == ""
    assert len(process.stderr.splitlines()) == 1 and "Traceback" not in process.stderr
    assert process.stderr.startswith("nvbench_compare: error: ")


# ---------------------------------------------------------------------------------------
# Outputs
# ---------------------------------------------------------------------------------------


def test_all_reports_in_one_run(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "new" / "dir"
    out.mkdir(parents=True)
    result = run(
        capsys,
        *gpu,
        "--method",
        "robust",
        "--json",
        out / "r.json",
        "--csv",
        out / "r.csv",
        "--markdown",
        out / "r.md",
        "--fail-on",
        "slow",
    )
    assert result.code == 1
    assert result.out.startswith("# copy_bench")  # the document still goes to stdout
    data = json.loads((out / "r.json").read_text(encoding="utf-8"))
    assert data["fail_on"]["failed"] is True and data["counts"]["SLOW"] == 1
    assert (out / "r.csv").read_text(encoding="utf-8").count("\n") == 25
    assert (out / "r.md").read_text(encoding="utf-8").startswith("### 🔴 nvbench_compare:")
    assert sorted(path.name for path in out.iterdir()) == ["r.csv", "r.json", "r.md"]


def test_report_on_stdout_replaces_the_document(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path]
) -> None:
    markdown = run(capsys, *gpu, "--markdown", "-")
    assert markdown.code == 0
    assert markdown.out.startswith("### ") and "# Summary" not in markdown.out
    csv_text = run(capsys, *gpu, "--csv", "-").out
    assert csv_text.startswith("schema,schema_version,method,preset,index,")


def test_nothing_is_written_when_rendering_fails(
    capsys: pytest.CaptureFixture[str],
    gpu: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import cuda.bench.report.csv_report as csv_report

    report = tmp_path / "r.json"
    report.write_text("previous", encoding="utf-8")

    def broken(*args: object, **kwargs: object) -> str:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(csv_report, "render_csv", broken)
    result = run(capsys, *gpu, "--json", report, "--csv", tmp_path / "r.csv")
    assert_usage_error(result, "No space left on device")
    assert report.read_text(encoding="utf-8") == "previous"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["r.json"]


def test_failed_write_leaves_no_temporary_file(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path], tmp_path: Path
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    result = run(capsys, *gpu, "--json", blocker / "sub" / "r.json")
    assert result.code == 2 and "Traceback" not in result.err
    assert [path.name for path in tmp_path.iterdir()] == ["file"]


def test_dump_config_needs_no_inputs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    result = run(capsys, "--dump-config")
    assert result.code == 0 and result.err == ""
    assert loads_config(result.out).preset == "default"
    strict = run(capsys, "--dump-config", "--preset", "strict")
    config = loads_config(strict.out)
    assert config.apply(PRESETS["default"]) == PRESETS["strict"]
    override = tmp_path / "t.toml"
    override.write_text("version = 1\n[same]\ncenter_relative = 0.004\n", encoding="utf-8")
    dumped = loads_config(run(capsys, "--dump-config", "--config", override).out)
    assert dict(dumped.overrides)["same_center_relative"] == 0.004


def test_dump_config_still_validates_the_config(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("version = 3\n", encoding="utf-8")
    assert_usage_error(run(capsys, "--dump-config", "--config", bad), "version 3")


# ---------------------------------------------------------------------------------------
# Display options, colour, warnings, encoding
# ---------------------------------------------------------------------------------------


def test_threshold_diff_hides_rows_not_counts(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path]
) -> None:
    full = run(capsys, *gpu, "--method", "robust")
    hidden = run(capsys, *gpu, "--method", "robust", "--threshold-diff", "3")
    tables = hidden.out.split("# Summary")[0]
    assert "🔵 SAME" not in tables
    assert "🔴 SLOW" in tables and "🟢 FAST" in tables and "SKIP" not in tables
    count_lines = [line for line in full.out.splitlines() if line.startswith("  - ")]
    assert all(line in hidden.out.splitlines() for line in count_lines)
    report = run(capsys, *gpu, "--method", "robust", "--threshold-diff", "3", "--json", "-")
    assert report.json()["total"] == 24


def test_filters_keep_command_line_order(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path]
) -> None:
    result = run(capsys, *gpu, "-b", "misc", "-b", "copy_bench", "-a", "T=F64", "--json", "-")
    data = result.json()
    assert data["filters"] == ["-b misc", "-b copy_bench", "-a T=F64"]
    benches = {(row["benchmark"], row["axes"][0]["value"]) for row in data["rows"]}
    assert ("copy_bench", "F32") not in benches
    assert ("copy_bench", "F64") in benches
    assert sum(row["benchmark"] == "misc" for row in data["rows"]) == 8


class _Terminal(io.TextIOWrapper):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("args", "no_color", "tty", "ansi"),
    [
        ([], False, True, True),
        ([], True, True, False),
        ([], False, False, False),
        (["--no-color"], False, True, False),
        (["--color", "never"], False, True, False),
        (["--color", "always"], True, False, True),
        (["--color", "always", "--no-color"], False, True, False),
    ],
)
def test_colour_rules(
    monkeypatch: pytest.MonkeyPatch,
    gpu: tuple[Path, Path],
    args: list[str],
    no_color: bool,
    tty: bool,
    ansi: bool,
) -> None:
    buffer = io.BytesIO()
    stream = (_Terminal if tty else io.TextIOWrapper)(buffer, encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", stream)
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    assert cli.main([*map(str, gpu), "--method", "robust", *args]) == 0
    stream.flush()
    text = buffer.getvalue().decode("utf-8")
    if ansi:
        assert "\x1b[31mSLOW\x1b[39m" in text and "🔴" not in text.split("# Summary")[0]
    else:
        assert "\x1b" not in text and "🔴 SLOW" in text


def test_warnings_go_to_stderr_and_the_summary(
    capsys: pytest.CaptureFixture[str], upstream_2021_dir: Path
) -> None:
    files = (upstream_2021_dir / "ref.json", upstream_2021_dir / "cmp.json")
    result = run(capsys, *files, "--compare-devices", "1,0")
    assert result.code == 0
    warnings = result.err.splitlines()
    assert len(warnings) == 1 and "warning: device sections" in warnings[0]
    assert "warning:" not in result.out
    assert "- Warnings:\n  - device sections" in result.out
    assert "## [0] Quadro GV100 vs. [1] Quadro GP100" in result.out
    ignored = run(capsys, *files, "--ignore-devices")
    assert ignored.code == 0 and ignored.err == ""


def test_reader_closing_the_pipe_early_is_not_an_error(tmp_path: Path) -> None:
    pair = write_pair(
        tmp_path, SyntheticConfig(benchmarks=4, states=300, samples=20), seed=1, jsonbin=False
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "cuda.bench.compare", str(pair.ref[0]), str(pair.cmp[0])],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.read(10) == b"# bench_00"
    process.stdout.close()
    errors = process.stderr.read()
    assert process.wait() == 0
    assert errors == b""


def test_utf8_output_on_an_ascii_console(gpu: tuple[Path, Path]) -> None:
    env = dict(os.environ, PYTHONIOENCODING="ascii")
    process = subprocess.run(
        [sys.executable, "-m", "cuda.bench.compare", *map(str, gpu)],
        capture_output=True,
        check=False,
        env=env,
    )
    assert process.returncode == 0, process.stderr
    assert "🔴 SLOW".encode() in process.stdout


@pytest.mark.parametrize("value", ["0", "-2", "many", "1.5"])
def test_bad_jobs(capsys: pytest.CaptureFixture[str], tmp_path: Path, value: str) -> None:
    pair = write_pair(tmp_path, SyntheticConfig(benchmarks=1, states=2, samples=20), seed=1)
    assert_usage_error(
        run(capsys, pair.ref[0], pair.cmp[0], f"--jobs={value}"),
        "--jobs",
        f"expected a positive integer or 'auto', got '{value}'",
    )


def test_jobs_do_not_change_the_output(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pair = write_pair(
        tmp_path, SyntheticConfig(benchmarks=1, states=160, samples=200), seed=6, random_shifts=8
    )
    outputs = {}
    for jobs in ("1", "2", "auto"):
        report = tmp_path / f"report-{jobs}.json"
        result = run(capsys, pair.ref[0], pair.cmp[0], "-j", jobs, "--json", report)
        assert result.code == 0 and result.err == ""
        document = json.loads(report.read_text(encoding="utf-8"))
        document.pop("suite", None)  # its bootstrap interval may differ in the last bits
        outputs[jobs] = (result.out.split("# Summary")[0], document["rows"])
    assert outputs["1"] == outputs["2"] == outputs["auto"]
    assert "SLOW" in outputs["1"][0] or "FAST" in outputs["1"][0]


def test_large_inputs_are_split_by_default_with_the_same_output(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    engine_forks: list[tuple[int, list[int]]],
) -> None:
    from cuda.bench.compare import execution

    assert cli.build_parser("nvbench_compare").parse_args(["a", "b"]).jobs is None  # auto
    pair = write_pair(
        tmp_path,
        SyntheticConfig(benchmarks=4, states=20, samples=50),
        seed=8,
        random_shifts=6,
        jsonbin=False,
    )
    serial = run(capsys, pair.ref[0], pair.cmp[0], "-j", "1", "--display", "explain")
    assert engine_forks == []
    monkeypatch.setattr(execution, "available_cpus", lambda: 2)
    split = run(capsys, pair.ref[0], pair.cmp[0], "--display", "explain")
    # The benchmarks, in two processes (the files' first passes are made here).
    assert [pieces for pieces, _ in engine_forks] == [2]
    assert (split.code, split.out, split.err) == (serial.code, serial.out, serial.err)
    assert serial.code == 0 and serial.err == ""
    assert "SLOW" in serial.out or "FAST" in serial.out
