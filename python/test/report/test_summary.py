"""NVBench-style result tables: conformance with NVBench's own markdown and CSV, and filters."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cuda.bench.compare.filters import FilterPlan
from cuda.bench.report.summary import (
    NO_DATA,
    csv_table,
    is_shown,
    render_csv,
    render_markdown,
    result_tables,
    select_views,
)
from cuda.bench.results import BenchmarkResult, BenchmarkResultSummary

RUNS = ["gpu/gpu_ref", "gpu/gpu_cmp", "cpu/cpu_run1", "cpu/cpu_run2"]


@pytest.fixture(scope="session")
def examples(gpu_dir: Path, cpu_dir: Path) -> Path:
    return gpu_dir.parent


def _results_section(markdown_file: Path) -> str:
    text = markdown_file.read_text(encoding="utf-8")
    return text[text.index("# Benchmark Results\n") :]


# --------------------------------------------------------------------------------------
# Conformance with the files NVBench wrote in the same run
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("run", RUNS)
def test_markdown_is_byte_identical_to_nvbench(examples: Path, run: str) -> None:
    result = BenchmarkResult(examples / f"{run}.json")
    assert render_markdown(result) == _results_section(examples / f"{run}.md")


@pytest.mark.parametrize("run", RUNS)
def test_csv_is_byte_identical_to_nvbench(examples: Path, run: str) -> None:
    result = BenchmarkResult(examples / f"{run}.json")
    assert render_csv(result) == (examples / f"{run}.csv").read_text(encoding="utf-8")


@pytest.mark.parametrize("run", ["gpu/gpu_ref", "gpu/gpu_cmp", "cpu/cpu_run1", "cpu/cpu_run2"])
def test_plain_json_of_the_same_run_gives_the_same_tables(examples: Path, run: str) -> None:
    plain = BenchmarkResult(examples / f"{run}_plain.json")
    assert render_markdown(plain) == _results_section(examples / f"{run}.md")


def test_run_without_side_files_gives_the_same_visible_tables(examples: Path) -> None:
    # Same samples as gpu_ref (README); only hidden walltimes and side-file summaries differ.
    result = BenchmarkResult(examples / "gpu" / "gpu_ref_nosidecar.json")
    assert render_markdown(result) == _results_section(examples / "gpu" / "gpu_ref.md")


def test_layout_quirks_of_nvbench(examples: Path) -> None:
    text = render_markdown(BenchmarkResult(examples / "gpu" / "gpu_ref.json"))
    # No blank line between a table and the next device heading ...
    assert re.search(r"\|\n### \[1\] NVIDIA A100-SXM4-80GB\n\n\|", text)
    # ... but one before the next benchmark, and the output ends with the last table row.
    assert "|\n\n## misc\n\n### [0] NVIDIA H100 80GB HBM3\n\n|" in text
    assert text.endswith("|\n") and not text.endswith("\n\n")
    cpu = render_markdown(BenchmarkResult(examples / "cpu" / "cpu_run1.json"))
    assert "###" not in cpu


def test_skipped_states_are_left_out_and_every_active_state_has_a_row(
    upstream_2021_dir: Path,
) -> None:
    result = BenchmarkResult(upstream_2021_dir / "ref.json")
    tables = result_tables(result)
    for table in tables:
        bench = next(b for b in result.benchmarks if b.name == table.benchmark)
        active = [s for s in bench if s.device == table.device and not s.is_skipped]
        assert len(table.rows) == len(active)
    assert sum(len(t.rows) for t in tables) == 126 - 38


def test_duplicate_headers_stay_separate_columns(examples: Path) -> None:
    tables = result_tables(BenchmarkResult(examples / "gpu" / "gpu_ref.json"))
    headers = tables[0].headers
    assert headers.count("Noise") == 2 and headers.count("Samples") == 2


# --------------------------------------------------------------------------------------
# Hidden summaries
# --------------------------------------------------------------------------------------


def _summary(hint: str | None, hide: str | None) -> BenchmarkResultSummary:
    return BenchmarkResultSummary(
        tag="t", name="n", hint=hint, hide=hide, description=None, data={"value": 1.0}
    )


def test_visibility_is_the_absence_of_hide() -> None:
    assert is_shown(_summary("duration", None))
    assert not is_shown(_summary("duration", ""))  # an empty reason still hides
    assert is_shown(_summary("duration", ""), show_hidden=True)
    assert not is_shown(_summary("file/sample_times", "Not needed in table."), show_hidden=True)
    assert not is_shown(_summary("file/sample_freqs", None), show_hidden=True)


def test_show_hidden_adds_hidden_columns_but_no_side_files(examples: Path) -> None:
    result = BenchmarkResult(examples / "gpu" / "gpu_ref.json")
    plain = result_tables(result)[0].headers
    hidden = result_tables(result, show_hidden=True)[0].headers
    assert set(plain) < set(hidden)
    assert {"Walltime", "Min GPU Time", "Q1 GPU Time", "Clock Rate"} <= set(hidden)
    assert not any("File" in header for header in hidden)
    csv_headers, _ = csv_table(result, show_hidden=True)
    assert "Walltime (sec)" in csv_headers
    assert not any("File" in header for header in csv_headers)


# --------------------------------------------------------------------------------------
# Synthetic files for the corner cases NVBench's examples do not show
# --------------------------------------------------------------------------------------

_META = {
    "argv": ["./bench"],
    "version": {
        "json": {"major": 1, "minor": 0, "patch": 0, "string": "1.0.0"},
        "nvbench": {
            "major": 0,
            "minor": 1,
            "patch": 0,
            "string": "0.1.0",
            "git_branch": "main",
            "git_sha": "0" * 40,
            "git_version": "test",
            "git_is_dirty": False,
        },
    },
}


def _value(
    tag: str, name: str, hint: str | None, value: str, kind: str = "float64"
) -> dict[str, Any]:
    summary: dict[str, Any] = {"tag": tag, "name": name}
    if hint is not None:
        summary["hint"] = hint
    summary["data"] = [{"name": "value", "type": kind, "value": value}]
    return summary


def _write(tmp_path: Path, benchmarks: list[dict[str, Any]], devices: list[int]) -> Path:
    document = {
        "meta": _META,
        "devices": [{"id": device, "name": f"GPU {device}"} for device in devices] or None,
        "benchmarks": benchmarks,
    }
    path = tmp_path / "synthetic.json"
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def test_no_data_line_for_a_table_without_columns(tmp_path: Path) -> None:
    skipped = {"name": "Device=0", "device": 0, "summaries": None, "is_skipped": True,
               "skip_reason": "not today"}  # fmt: skip
    hidden_only = {
        "name": "Device=1",
        "device": 1,
        "summaries": [{**_value("nv/cold/walltime", "Walltime", "duration", "1"), "hide": ""}],
        "is_skipped": False,
    }
    bench = {"name": "empty", "devices": [0, 1], "axes": None, "states": [skipped, hidden_only]}
    result = BenchmarkResult(_write(tmp_path, [bench], [0, 1]))
    assert render_markdown(result) == (
        "# Benchmark Results\n\n## empty\n\n"
        f"### [0] GPU 0\n\n{NO_DATA}\n### [1] GPU 1\n\n{NO_DATA}\n"
    )
    # The CSV still lists both states; the skipped one ends at "Skipped".
    assert render_csv(result) == (
        "Benchmark,Device,Device Name,Skipped\nempty,0,GPU 0,Yes\nempty,1,GPU 1,No\n"
    )


def test_undescribed_device_and_missing_summary_name(tmp_path: Path) -> None:
    state = {
        "name": "Device=3",
        "device": 3,
        "summaries": [
            {"tag": "my/tag", "data": [{"name": "value", "type": "int64", "value": "5"}]}
        ],
    }
    bench = {"name": "b", "devices": [3], "axes": None, "states": [state]}
    text = render_markdown(BenchmarkResult(_write(tmp_path, [bench], [])))
    assert "### [3] Device 3\n" in text
    assert "| my/tag |" in text  # the tag is the header when there is no name


def test_csv_quotes_only_fields_that_would_break_the_line(tmp_path: Path) -> None:
    state = {
        "name": "Label=a,b",
        "device": 0,
        "axis_values": [{"name": "Label", "type": "string", "value": "a,b"}],
        "summaries": [_value("my/s", 'Say "hi"', None, "x", "string")],
    }
    axes = [{"name": "Label", "type": "string", "flags": "",
             "values": [{"input_string": "a,b", "description": "", "value": "a,b"}]}]  # fmt: skip
    bench = {"name": "q", "devices": None, "axes": axes, "states": [state]}
    text = render_csv(BenchmarkResult(_write(tmp_path, [bench], [])))
    assert text == 'Benchmark,Device,Device Name,Label,Skipped,"Say ""hi"""\nq,,,"a,b",No,x\n'


def test_empty_result_renders_heading_only_and_empty_csv(tmp_path: Path) -> None:
    result = BenchmarkResult(_write(tmp_path, [], [0]))
    assert render_markdown(result) == "# Benchmark Results\n"
    assert render_csv(result) == ""


# --------------------------------------------------------------------------------------
# Selection
# --------------------------------------------------------------------------------------


def test_device_selection_keeps_cpu_only_benchmarks(examples: Path) -> None:
    gpu = BenchmarkResult(examples / "gpu" / "gpu_ref.json")
    views = select_views(gpu, devices=[1])
    assert [view.devices for view in views] == [(1,), (1,)]
    text = render_markdown(gpu, views)
    assert "### [0]" not in text and text.count("### [1] NVIDIA A100-SXM4-80GB") == 2
    cpu = BenchmarkResult(examples / "cpu" / "cpu_run1.json")
    assert render_markdown(cpu, select_views(cpu, devices=[1])) == render_markdown(cpu)


def test_state_selection_and_drop_empty(examples: Path) -> None:
    result = BenchmarkResult(examples / "gpu" / "gpu_ref.json")
    views = select_views(
        result,
        states=lambda bench, state: any(v.value == "F64" for v in state.axis_values),
        drop_empty=True,
    )
    assert [view.benchmark.name for view in views] == ["copy_bench"]
    tables = result_tables(result, views)
    assert all(row[0] == "F64" for table in tables for row in table.rows)
    assert sum(len(table.rows) for table in tables) == 4  # 8 F64 states, 4 of them skipped


# --------------------------------------------------------------------------------------
# With the comparison tool's filter plan (grammar and scoping are tested there)
# --------------------------------------------------------------------------------------


def test_filtered_markdown_from_real_file(examples: Path) -> None:
    result = BenchmarkResult(examples / "gpu" / "gpu_ref.json")
    plan = FilterPlan.from_args(
        [("benchmark", "copy_bench"), ("axis", "Elements[pow2]=16"), ("axis", "Layout=contiguous")]
    )
    views = select_views(
        result,
        benchmarks=lambda bench: plan.selects_benchmark(bench.name),
        states=lambda bench, state: plan.selects_state(bench.name, state.axis_values),
        drop_empty=True,
    )
    tables = result_tables(result, views)
    assert [table.device for table in tables] == [0, 1]
    for table in tables:
        assert [row[:3] for row in table.rows] == [
            ("F32", "2^16 = 65536", "contiguous"),
            ("F64", "2^16 = 65536", "contiguous"),
        ]
