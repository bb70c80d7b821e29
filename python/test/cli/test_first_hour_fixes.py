"""Odd corners a new user met in the first hour (issue #30, items 3 to 5), on real files.

Each test failed before its fix: ``--col`` counted the states the benchmark skipped as
``????`` and dropped the baseline's interval beside them, said "1 candidates", headed the
Device comparison with device 0 only and did not mention itself when one input was given;
``calibrate`` showed the cap's ±100% as if computed; NVBench's ``.md``/``.csv`` output got
a bare JSON error; the Filters line left out the device choice; a filter that emptied a
benchmark left its heading; ``nvbench-history --help`` showed markup and its subcommands
no description. (The histogram and walltime fixes are tested with those tools.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _cli_helpers import Result, run_main
from cuda.bench.cli.compare import main


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Result:
    return run_main(main, capsys, *args)


@pytest.fixture
def gpu_ref(gpu_dir: Path) -> Path:
    return gpu_dir / "gpu_ref.json"


def _table_rows(text: str, first: str) -> list[list[str]]:
    return [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in text.splitlines()
        if line.startswith(f"| {first}") or line.startswith(f"|  {first}")
    ]


@pytest.mark.parametrize("axis", ["T", "Layout"])
def test_col_counts_variants_the_benchmark_skipped_as_skip_not_unknown(
    capsys: pytest.CaptureFixture[str], gpu_ref: Path, axis: str
) -> None:
    # copy_bench skips its 4 F64 strided states: T=F64 and Layout=strided miss them.
    result = run(capsys, gpu_ref, "--col", axis, "--fail-on", "unknown", "--json", "-")
    assert result.code == 0, result.err  # --fail-on unknown does not fail on them
    statuses = sorted(row["status"] for row in result.json()["rows"])
    assert statuses.count("SKIP") == 4 and "????" not in statuses


def test_col_keeps_the_baseline_interval_beside_a_skipped_variant(
    capsys: pytest.CaptureFixture[str], gpu_ref: Path
) -> None:
    result = run(capsys, gpu_ref, "--col", "T", "--show-skipped", "--color", "never")
    assert result.code == 0, result.err
    table = result.out.split("# Summary")[0]
    strided = [line for line in table.splitlines() if "strided" in line]
    assert len(strided) == 4 and all("SKIP" in line for line in strided)
    for line in strided:
        baseline = line.strip("|").split("|")[2]
        assert "[-" in baseline and ", +" in baseline, line  # 3.182 [-0.098, +0.022] us


def test_col_summary_counts_one_candidate_in_the_singular(
    capsys: pytest.CaptureFixture[str], gpu_ref: Path
) -> None:
    result = run(capsys, gpu_ref, "--col", "T", "--color", "never")
    assert "- Baseline: T=F32; 8 states; 1 candidate\n" in result.out
    several = run(capsys, gpu_ref, "--col", "Ratio", "--color", "never")
    assert "; 3 candidates\n" in several.out


def test_col_device_heads_its_sections_with_both_devices(
    capsys: pytest.CaptureFixture[str], gpu_ref: Path
) -> None:
    result = run(capsys, gpu_ref, "--col", "Device", "--color", "never")
    assert result.code == 0, result.err
    headings = [line for line in result.out.splitlines() if line.startswith("## ")]
    assert headings and set(headings) == {
        "## [0] NVIDIA H100 80GB HBM3 (baseline) vs. [1] NVIDIA A100-SXM4-80GB"
    }
    # Comparing the values of another axis keeps one device per section.
    other = run(capsys, gpu_ref, "--col", "T", "--color", "never")
    assert {line for line in other.out.splitlines() if line.startswith("## ")} == {
        "## [0] NVIDIA H100 80GB HBM3",
        "## [1] NVIDIA A100-SXM4-80GB",
    }


def test_one_input_without_col_points_to_col(
    capsys: pytest.CaptureFixture[str], gpu_ref: Path
) -> None:
    result = run(capsys, gpu_ref)
    assert result.code == 2
    assert "got 1" in result.err and "--col" in result.err
    assert len(result.err.strip().splitlines()) == 1


def test_calibrate_says_where_the_cap_set_a_tolerance(
    capsys: pytest.CaptureFixture[str], gpu_dir: Path, tmp_path: Path
) -> None:
    from cuda.bench.compare.calibrate import MAX_TOLERANCE, uncapped_tolerance
    from cuda.bench.compare.calibration_file import load_calibration

    output = tmp_path / "cal.json"
    runs = (gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json")
    result = run(capsys, "calibrate", *runs, "-o", output)
    assert result.code == 0, result.err
    calibration = load_calibration(output)
    capped = [state for state in calibration.states if state.tolerance == MAX_TOLERANCE]
    assert capped  # two runs, one degree of freedom: t = 63.7 widens a few % past 100 %
    for state in capped:
        floor = calibration.least_floor(state)
        wanted = uncapped_tolerance(floor, state.degrees_of_freedom, calibration.target_rate)
        assert wanted > MAX_TOLERANCE
        line = next(line for line in result.out.splitlines() if state.key in line and
                    f"[{state.device}]" in line)  # fmt: skip
        assert "tolerance ±100.00% (the ±100% cap: the formula gives" in line, line
        assert "from 2 runs, 1 degree(s) of freedom; more runs narrow it)" in line
    uncapped = [line for line in result.out.splitlines() if "tolerance ±19.23%" in line]
    assert uncapped and "cap" not in uncapped[0]


@pytest.mark.parametrize(
    ("name", "kind"), [("gpu_ref.md", "markdown output (--md)"), ("gpu_ref.csv", "CSV output")]
)
def test_nvbench_markdown_or_csv_output_gets_a_hint(
    capsys: pytest.CaptureFixture[str], gpu_dir: Path, name: str, kind: str
) -> None:
    result = run(capsys, gpu_dir / name, gpu_dir / "gpu_cmp.json")
    assert result.code == 2
    line = result.err.strip()
    assert len(line.splitlines()) == 1 and name in line
    assert kind in line and "--json" in line, line


def test_explain_summary_filters_line_names_the_device_choice(
    capsys: pytest.CaptureFixture[str], gpu_dir: Path
) -> None:
    args = [gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json", "--display", "explain"]
    result = run(
        capsys, *args, "-b", "copy_bench", "--reference-devices", "1", "--compare-devices", "1"
    )
    assert result.code == 0, result.err
    assert "- Filters: -b copy_bench --reference-devices 1 --compare-devices 1\n" in result.out
    ignored = run(capsys, *args, "--ignore-devices")
    assert "- Filters: --ignore-devices\n" in ignored.out
    plain = run(capsys, *args)
    assert "- Filters:" not in plain.out
    # The HTML summary says the same.
    from cuda.bench.compare import compare
    from cuda.bench.report.html import render_html

    page = render_html(compare(*args[:2], ref_devices=[1], cmp_devices=[1]))
    assert "filters <code>--reference-devices 1 --compare-devices 1</code>" in page


def test_a_filter_that_empties_a_benchmark_leaves_no_heading(
    capsys: pytest.CaptureFixture[str], gpu_dir: Path
) -> None:
    args = [gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json", "--color", "never"]
    result = run(capsys, *args, "-a", "T=F32")  # misc has no axis T: none of its states
    assert result.code == 0, result.err
    assert "# copy_bench\n" in result.out and "# misc" not in result.out
    markdown = run(capsys, *args, "-a", "Ratio=1", "--markdown", "-")
    assert "copy_bench" not in markdown.out and "<summary>misc" in markdown.out
    unfiltered = run(capsys, *args)
    assert "# copy_bench\n" in unfiltered.out and "# misc\n" in unfiltered.out


def test_nvbench_history_help_has_plain_text_and_subcommand_descriptions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from cuda.bench.cli.history import build_parser

    parser = build_parser()
    top = parser.format_help()
    assert "``" not in top and "An archive of NVBench runs" in top
    actions = [a for a in parser._actions if a.dest == "command"]
    subparsers = actions[0].choices
    assert isinstance(subparsers, dict)
    for name in ("ingest", "trend", "detect", "report"):
        text = subparsers[name].format_help()
        body = text.split("\n\n")[1]  # the paragraph after the usage lines
        assert not body.startswith(("positional arguments", "options")), (name, text)
        assert "``" not in text


@pytest.mark.parametrize(
    ("document", "kind"),
    [
        (
            {"schema": "nvbench-tools.compare", "schema_version": 2, "devices": {}, "rows": []},
            "a report of nvbench-tools",
        ),
        (
            {
                "context": {"num_cpus": 8, "library_build_type": "release"},
                "benchmarks": [{"name": "BM_x", "real_time": 1.0}],
            },
            "Google Benchmark",
        ),
    ],
    ids=["our-report", "google-benchmark"],
)
def test_json_of_another_tool_gets_a_hint(
    capsys: pytest.CaptureFixture[str],
    gpu_dir: Path,
    tmp_path: Path,
    document: dict[str, object],
    kind: str,
) -> None:
    # A JSON file of another tool was answered in the schema's words ("expected array |
    # null, got object at $.devices"), which tell a new user nothing about what to give.
    path = tmp_path / "other.json"
    path.write_text(json.dumps(document, indent=2))
    result = run(capsys, path, gpu_dir / "gpu_cmp.json")
    assert result.code == 2
    line = result.err.strip()
    assert len(line.splitlines()) == 1 and "other.json" in line
    assert kind in line and "--json" in line, line
