"""``nvbench_compare`` gate defects found in review of issue 15: outputs that name an
input, comparisons that matched nothing, ``calibrate --version``."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from pathlib import Path

import pytest
from _cli_helpers import Result, assert_usage_error, run_main
from cuda.bench.cli import compare as cli


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Result:
    return run_main(cli.main, capsys, *args)


@pytest.fixture()
def gpu_copy(gpu_dir: Path, tmp_path: Path) -> Path:
    """A private copy of the GPU example pair (never write into ../shared/data)."""
    copy = tmp_path / "gpu"
    copy.mkdir()
    for name in ("gpu_ref.json", "gpu_cmp.json", "gpu_ref.json-bin", "gpu_cmp.json-bin"):
        source = gpu_dir / name
        if source.is_dir():
            shutil.copytree(source, copy / name)
        else:
            shutil.copy2(source, copy / name)
    for name in ("gpu_ref.json-freqs-bin", "gpu_cmp.json-freqs-bin"):
        shutil.copytree(gpu_dir / name, copy / name)
    return copy


# ---------------------------------------------------------------------------------------
# An output path that names an input
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("option", ["--json", "--csv", "--markdown", "--html"])
def test_a_report_over_an_input_file_is_refused(
    capsys: pytest.CaptureFixture[str], gpu_copy: Path, option: str
) -> None:
    ref, cmp = gpu_copy / "gpu_ref.json", gpu_copy / "gpu_cmp.json"
    cmp.chmod(0o444)
    before = cmp.read_bytes()
    result = run(capsys, option, cmp, ref, cmp)
    assert_usage_error(result, option, "input file", "gpu_cmp.json")
    assert cmp.read_bytes() == before
    assert stat.S_IMODE(cmp.stat().st_mode) == 0o444


def test_a_report_over_a_side_file_or_run_directory_file_is_refused(
    capsys: pytest.CaptureFixture[str], gpu_copy: Path, tmp_path: Path
) -> None:
    ref, cmp = gpu_copy / "gpu_ref.json", gpu_copy / "gpu_cmp.json"
    side = gpu_copy / "gpu_ref.json-freqs-bin" / "3.bin"
    before = side.read_bytes()
    assert_usage_error(run(capsys, "--csv", side, ref, cmp), "--csv", "3.bin")
    assert side.read_bytes() == before
    # Run directories: any file in them, through a link too.
    link = tmp_path / "link.json"
    link.symlink_to(cmp)
    result = run(capsys, "--ref", gpu_copy, "--cmp", gpu_copy, "--json", link)
    assert_usage_error(result, "--json", "gpu_cmp.json")
    assert link.is_symlink() and cmp.read_bytes().startswith(b"{")


def test_a_report_over_the_calibration_file_is_refused(
    capsys: pytest.CaptureFixture[str], gpu_copy: Path
) -> None:
    ref, cmp = gpu_copy / "gpu_ref.json", gpu_copy / "gpu_cmp.json"
    calibration = gpu_copy / "calibration.json"
    calibration.write_text("{}", encoding="utf-8")
    result = run(capsys, ref, cmp, "--calibration", calibration, "--markdown", calibration)
    assert_usage_error(result, "--markdown", "calibration.json")
    assert calibration.read_text(encoding="utf-8") == "{}"


def test_plot_outputs_over_an_input_file_are_refused(
    capsys: pytest.CaptureFixture[str], gpu_copy: Path
) -> None:
    pytest.importorskip("matplotlib")
    image = gpu_copy / "gpu_cmp.json.png"
    image.write_bytes(b"x")
    # A JSON input named like an image would be refused by the extension check; an image
    # in a run directory is an input file there.
    result = run(capsys, "--ref", gpu_copy, "--cmp", gpu_copy, "--plot", "--plot-output", image)
    assert_usage_error(result, "--plot-output", "gpu_cmp.json.png")
    template = str(gpu_copy / "{benchmark}.json.png")
    result = run(
        capsys,
        "--ref",
        gpu_copy,
        "--cmp",
        gpu_copy,
        "--plot-along",
        "Elements",
        "--plot-along-output",
        template,
    )
    assert_usage_error(result, "--plot-along-output", "could write over")
    assert image.read_bytes() == b"x"


def test_calibrate_output_over_a_run_is_refused(
    capsys: pytest.CaptureFixture[str], gpu_copy: Path
) -> None:
    run1, run2 = gpu_copy / "gpu_ref.json", gpu_copy / "gpu_cmp.json"
    before = run2.read_bytes()
    result = run(capsys, "calibrate", "-o", run2, run1, run2)
    assert_usage_error(result, "--output", "gpu_cmp.json")
    assert run2.read_bytes() == before


@pytest.mark.parametrize("target", [".", "no-such-dir/cal.json"])
def test_calibrate_output_that_cannot_be_written_stops_before_calibrating(
    capsys: pytest.CaptureFixture[str],
    gpu_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    target: str,
) -> None:
    # Found only after every pair of runs was compared (minutes for many runs), after a
    # warning, and the error did not name --output.
    monkeypatch.chdir(tmp_path)
    runs = (gpu_dir / "gpu_ref_nosidecar.json", gpu_dir / "gpu_cmp_plain.json")
    result = run(capsys, "calibrate", "-o", target, *runs)
    assert_usage_error(result, "--output", target)


def test_a_new_report_next_to_the_inputs_is_written(
    capsys: pytest.CaptureFixture[str], gpu_copy: Path
) -> None:
    report = gpu_copy / "report.json"
    result = run(capsys, gpu_copy / "gpu_ref.json", gpu_copy / "gpu_cmp.json", "--json", report)
    assert result.code == 0, result.err
    assert json.loads(report.read_text(encoding="utf-8"))["rows"]
    assert os.path.getsize(gpu_copy / "gpu_cmp.json") > 1000


# ---------------------------------------------------------------------------------------
# A comparison that matched nothing
# ---------------------------------------------------------------------------------------


def _without_benchmarks(source: Path, target: Path) -> Path:
    data = json.loads(source.read_text(encoding="utf-8"))
    data["benchmarks"] = []
    target.write_text(json.dumps(data), encoding="utf-8")
    return target


def test_a_compare_file_without_benchmarks_is_an_error(
    capsys: pytest.CaptureFixture[str], gpu_dir: Path, tmp_path: Path
) -> None:
    ref = gpu_dir / "gpu_ref.json"
    empty = _without_benchmarks(gpu_dir / "gpu_cmp.json", tmp_path / "empty_cmp.json")
    result = run(capsys, ref, empty, "--fail-on", "slow,unknown,ambiguous")
    assert_usage_error(result, "nothing was compared", "'empty_cmp.json'", "no benchmarks")
    reverse = run(capsys, empty, ref)
    assert_usage_error(reverse, "nothing was compared", "'empty_cmp.json'", "no benchmarks")


def test_disjoint_benchmarks_are_an_error(
    capsys: pytest.CaptureFixture[str], gpu_dir: Path, tmp_path: Path
) -> None:
    data = json.loads((gpu_dir / "gpu_cmp.json").read_text(encoding="utf-8"))
    for benchmark in data["benchmarks"]:
        benchmark["name"] += "_renamed"
    renamed = tmp_path / "renamed.json"
    renamed.write_text(json.dumps(data), encoding="utf-8")
    result = run(capsys, gpu_dir / "gpu_ref.json", renamed)
    assert_usage_error(result, "nothing was compared", "no state")


def test_partly_added_and_removed_still_compares(
    capsys: pytest.CaptureFixture[str], gpu_dir: Path, tmp_path: Path
) -> None:
    data = json.loads((gpu_dir / "gpu_cmp.json").read_text(encoding="utf-8"))
    data["benchmarks"][1]["name"] += "_renamed"
    renamed = tmp_path / "renamed.json"
    renamed.write_text(json.dumps(data), encoding="utf-8")
    result = run(capsys, gpu_dir / "gpu_ref.json", renamed, "--fail-on", "slow")
    assert result.code in (0, 1), result.err
    assert "nothing was compared" not in result.err


# ---------------------------------------------------------------------------------------
# --version on the calibrate subcommand
# ---------------------------------------------------------------------------------------


def test_calibrate_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    result = run(capsys, "calibrate", "--version")
    assert result.code == 0, result.err
    assert version("nvbench-tools") in result.out


# ---------------------------------------------------------------------------------------
# The markdown report's "left out" count
# ---------------------------------------------------------------------------------------

_ROW = re.compile(r"^\|.*\| \S+ (SAME|FAST|SLOW|AMBG|\?\?\?\?|ADDED|REMOVED|SKIP) +\|$")


@pytest.fixture(scope="module")
def rows_5k(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    from cuda.bench.results.synthetic import SyntheticConfig, write_pair

    root = tmp_path_factory.mktemp("s5k")
    config = SyntheticConfig(benchmarks=10, states=500, samples=100)
    pair = write_pair(root, config, seed=3, random_shifts=300, jsonbin=False)
    return pair.ref[0], pair.cmp[0]


def _shown(text: str) -> tuple[int, int, int]:
    """Regression table rows, other rows shown in the benchmarks' tables, and the number
    the report says were left out."""
    regressions, rest = text.split("#### Regressions", 1)[1], ""
    if "#### All results" in regressions:
        regressions, rest = regressions.split("#### All results", 1)
    slow = sum(1 for line in regressions.splitlines() if _ROW.match(line))
    others = sum(
        1 for line in rest.splitlines() if (match := _ROW.match(line)) and match[1] != "SLOW"
    )
    found = re.search(r"\*\*(\d+) of (\d+) table rows left out\*\*", text)
    assert found is not None and found[2] == "5000"
    return slow, others, int(found[1])


@pytest.mark.parametrize("limit", ["20000", "60000"])
def test_markdown_left_out_counts_rows_shown_anywhere(
    capsys: pytest.CaptureFixture[str], rows_5k: tuple[Path, Path], tmp_path: Path, limit: str
) -> None:
    report = tmp_path / "m.md"
    result = run(capsys, *rows_5k, "--markdown", report, "--markdown-limit", limit)
    assert result.code == 0, result.err
    text = report.read_text(encoding="utf-8")
    assert len(text) <= int(limit)
    slow, others, left_out = _shown(text)
    assert slow > 100
    assert left_out == 5000 - slow - others
    if limit == "60000":
        assert others > 100
    else:
        # Nothing of the benchmarks fits: no empty "All results" heading.
        assert others == 0 and "#### All results" not in text
    # The "left out" line is a paragraph of its own, after the footer.
    lines = text.splitlines()
    assert "table rows left out" in lines[-1] and lines[-2] == ""


# ---------------------------------------------------------------------------------------
# "Noise" is NVBench's relative stdev only; IQR / median is the spread
# ---------------------------------------------------------------------------------------


def test_iqr_over_median_is_called_spread_in_every_report(
    capsys: pytest.CaptureFixture[str], gpu_dir: Path
) -> None:
    from cuda.bench.compare import compare
    from cuda.bench.report.html.data import page_data

    pair = gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"
    row = run(capsys, *pair, "--json", "-").json()["rows"][0]
    assert "ref_noise" not in row and "cmp_noise" not in row
    assert 0.0 < row["ref_spread"] < 1.0 and 0.0 < row["cmp_spread"] < 1.0
    assert row["ref_stdev_relative"] != row["ref_spread"]
    header = run(capsys, *pair, "--csv", "-").out.splitlines()[0].split(",")
    assert "ref_spread" in header and "ref_noise" not in header
    data = page_data(compare(str(pair[0]), str(pair[1])))
    assert all("ref_noise" not in record for record in data["rows"])
    assert any("ref_spread" in record for record in data["rows"])
    script = (Path(cli.__file__).parents[1] / "report/html/assets/report.js").read_text("utf-8")
    assert "_noise" not in script and '"_spread"' in script


# ---------------------------------------------------------------------------------------
# Options that would silently do nothing
# ---------------------------------------------------------------------------------------


def test_tolerance_options_ignored_or_overridden_are_warned_about(
    capsys: pytest.CaptureFixture[str], gpu_dir: Path
) -> None:
    pair = gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"
    robust = run(capsys, *pair, "--method", "robust", "--tolerance", "20")
    assert robust.code == 0
    assert "warning: --tolerance sets the ci method's tolerance; 'robust' ignores it" in robust.err
    capped = run(capsys, *pair, "--tolerance", "3", "--max-tolerance", "2")
    assert "max_tolerance ±2.00% is below the tolerance ±3.00%" in capped.err
    quiet = run(capsys, *pair, "--tolerance", "2", "--max-tolerance", "4")
    assert "warning" not in quiet.err


def test_a_missing_plot_along_directory_fails_before_comparing(
    capsys: pytest.CaptureFixture[str],
    gpu_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("matplotlib")
    from cuda.bench.compare import api

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("compared before checking the output directory")

    monkeypatch.setattr(api, "compare", never)
    template = str(tmp_path / "missing" / "{benchmark}.png")
    result = run(
        capsys,
        gpu_dir / "gpu_ref.json",
        gpu_dir / "gpu_cmp.json",
        "--plot-along",
        "Elements",
        "--plot-along-output",
        template,
    )
    assert_usage_error(result, "--plot-along-output", "missing", "does not exist")


def test_skipped_states_hidden_by_only_changed_are_not_said_to_be_listed(
    capsys: pytest.CaptureFixture[str], gpu_dir: Path
) -> None:
    pair = gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"
    both = run(capsys, *pair, "--show-skipped", "--only-changed", "--color", "never")
    assert "SKIP" not in both.out.split("# Summary")[0]
    assert "(not in the tables: --only-changed hides them)" in both.out
    assert "# misc" not in both.out  # every misc row is hidden: no empty heading
    listed = run(capsys, *pair, "--show-skipped", "--color", "never")
    assert "(listed in the tables)" in listed.out
    assert listed.out.split("# Summary")[0].count("SKIP") == 4


def test_json_summary_lists_the_benchmarks_once(
    capsys: pytest.CaptureFixture[str], gpu_dir: Path
) -> None:
    from cuda.bench.cli import json_summary

    result = run_main(json_summary.main, capsys, "-b", "nomatch", gpu_dir / "gpu_ref.json")
    assert_usage_error(result, "-b nomatch", "copy_bench, misc")
    assert result.err.count("copy_bench") == 1
