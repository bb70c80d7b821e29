"""Wall-time report: totals against the raw files, skipped states, layout and time format."""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cuda.bench.report.walltime import (
    Measure,
    find_result_files,
    render_walltime,
    short_labels,
    walltime_report,
)
from cuda.bench.results import ResultFormatError

_TAGS = {
    Measure.ISOLATED: "nv/cold/walltime",
    Measure.BATCH: "nv/batch/walltime",
    Measure.CUPTI: "nv/cupti/walltime",
    Measure.CPU_ONLY: "nv/cpu_only/walltime",
}
_TIME = re.compile(r"(\d{2}:){0,2}\d+\.\d{3}")
_PERCENT = re.compile(r"\d+\.\d{2}%")


def _raw_totals(path: Path) -> dict[Measure, float]:
    """Walltime per measure, summed straight from the JSON text (independent of the reader)."""
    document = json.loads(path.read_text(encoding="utf-8"))
    totals = dict.fromkeys(Measure, 0.0)
    for bench in document["benchmarks"] or []:
        for state in bench["states"] or []:
            for summary in state["summaries"] or []:
                for measure, tag in _TAGS.items():
                    if summary["tag"] == tag:
                        totals[measure] += float(summary["data"][0]["value"])
    return totals


def _tables(markdown: str) -> Iterator[list[list[str]]]:
    """Every pipe table of ``markdown`` as rows of stripped cells (header first, no divider)."""
    for block in markdown.split("\n\n"):
        lines = [line for line in block.splitlines() if line.startswith("|")]
        if not lines:
            continue
        rows = [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines]
        yield [rows[0], *rows[2:]]


def _seconds(text: str) -> float:
    total = 0.0
    for part in text.split(":"):
        total = total * 60 + float(part)
    return total


@pytest.fixture(scope="session")
def real_files(gpu_dir: Path, cpu_dir: Path, upstream_2021_dir: Path) -> list[Path]:
    return [
        gpu_dir / "gpu_ref.json",
        cpu_dir / "cpu_run1.json",
        upstream_2021_dir / "ref.json",
        upstream_2021_dir / "cmp.json",
    ]


def test_totals_match_the_walltime_summaries(real_files: list[Path]) -> None:
    report = walltime_report(real_files)
    # Labelled relative to the directory the files share (the shared data directory).
    assert report.directory == str(real_files[0].parents[2])
    assert [str(Path(report.directory) / file.label) for file in report.files] == [
        str(path) for path in real_files
    ]
    for file, path in zip(report.files, real_files, strict=True):
        expected = _raw_totals(path)
        for measure in Measure:
            assert file.times[measure] == pytest.approx(expected[measure], abs=1e-9)
    assert report.times.total == pytest.approx(
        sum(sum(_raw_totals(path).values()) for path in real_files)
    )


def test_cpu_only_runs_count_their_own_walltime(cpu_dir: Path) -> None:
    report = walltime_report([cpu_dir / "cpu_run1.json"])
    assert report.measures == (Measure.CPU_ONLY,)
    assert report.times.total > 0
    header = next(_tables(render_walltime(report)))[0]
    assert header[-1] == "CPU-only" and "Isolated" not in header


def test_skipped_states_of_the_2021_files(upstream_2021_dir: Path) -> None:
    # Upstream's script crashed on these files (skipped states have "summaries": null).
    report = walltime_report([upstream_2021_dir])
    assert [Path(file.label).name for file in report.files] == ["cmp.json", "ref.json"]
    for file in report.files:
        states = [state for bench in file.benchmarks for state in bench.states]
        assert len(states) == 126
        assert sum(state.is_skipped for state in states) == 38
        assert all(not state.recorded for state in states if state.is_skipped)
    text = render_walltime(report)
    overview = next(_tables(text))
    assert overview[0][:4] == ["Files", "Benchmarks", "States", "Skipped"]
    assert overview[1][:4] == ["2", "10", "252", "76"]
    assert "states were skipped" in text
    assert report.measures == (Measure.ISOLATED, Measure.BATCH)


def test_every_table_is_consistent(real_files: list[Path]) -> None:
    text = render_walltime(walltime_report(real_files))
    tables = list(_tables(text))
    assert len(tables) > 20
    for header, *rows in tables[1:]:
        assert header[1:3] == ["%", "Walltime"]
        *body, total = rows
        assert total[0] == "Total"
        for row in rows:
            assert all(_TIME.fullmatch(cell) for cell in row[2:]), row
            assert _PERCENT.fullmatch(row[1]) or row[1] == "n/a", row
            # The walltime is the sum of the measure columns (each rounded to 1 ms).
            parts = [_seconds(cell) for cell in row[3:]]
            assert _seconds(row[2]) == pytest.approx(sum(parts), abs=0.0005 * (len(parts) + 1))
        assert sum(_seconds(row[2]) for row in body) == pytest.approx(
            _seconds(total[2]), abs=0.0005 * (len(body) + 1)
        )
        if total[1] != "n/a":
            assert total[1] == "100.00%"
            assert sum(float(row[1][:-1]) for row in body) == pytest.approx(
                100, abs=0.01 * len(body)
            )


def test_sections_and_axis_tables(gpu_dir: Path) -> None:
    path = gpu_dir / "gpu_ref.json"
    text = render_walltime(walltime_report([path]))
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings == [
        "# Walltime Overview",
        "# Files",
        "## File: gpu_ref.json",  # one file: its name; the directory is said once
        "### Benchmark: copy_bench",
        "### Benchmark: misc",
    ]
    labels = {table[0][0]: [row[0] for row in table[1:]] for table in _tables(text)}
    assert labels["Axis: Elements"] == ["2^16", "2^20", "Total"]
    assert labels["Axis: T"] == ["F32", "F64", "Total"]
    assert labels["Axis: Ratio"] == ["0.25", "1", "1.2346e+05", "1e-07", "Total"]
    assert labels["Device"] == [
        "[0] NVIDIA H100 80GB HBM3",
        "[1] NVIDIA A100-SXM4-80GB",
        "Total",
    ]
    # 12 of copy_bench's 16 states ran; the 4 skipped ones recorded nothing.
    assert "4 of 16 states were skipped" in text
    assert not text.endswith("\n\n") and text.endswith("|\n")


def test_times_keep_their_text_form(upstream_2021_dir: Path) -> None:
    # Upstream's table library reparsed "2.600" as 2.6; every time here keeps 3 decimals.
    text = render_walltime(walltime_report([upstream_2021_dir / "ref.json"]))
    overview = next(_tables(text))
    assert overview[1][4] == "03:08.374"
    cells = [cell for table in _tables(text) for row in table[1:] for cell in row[4:]]
    assert cells and all(_TIME.fullmatch(cell) for cell in cells)


# --------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------


def test_directories_give_sorted_non_empty_json_files(tmp_path: Path, gpu_dir: Path) -> None:
    (tmp_path / "b.json").symlink_to(gpu_dir / "gpu_ref.json")
    (tmp_path / "a.json").symlink_to(gpu_dir / "gpu_cmp.json")
    (tmp_path / "empty.json").write_text("")
    (tmp_path / "notes.txt").write_text("not a result")
    (tmp_path / "sub.json").mkdir()
    assert [path.name for path in find_result_files([tmp_path])] == ["a.json", "b.json"]
    explicit = tmp_path / "notes.txt"
    assert find_result_files([explicit, tmp_path]) == [explicit, *find_result_files([tmp_path])]


def test_missing_inputs_are_errors(tmp_path: Path) -> None:
    with pytest.raises(ResultFormatError, match="no such file"):
        find_result_files([tmp_path / "missing.json"])
    with pytest.raises(ResultFormatError, match=re.escape("no non-empty .json")):
        find_result_files([tmp_path])


def _state(name: str, summaries: list[dict[str, Any]] | None, skipped: bool) -> dict[str, Any]:
    state: dict[str, Any] = {"name": name, "device": 0, "summaries": summaries}
    state["is_skipped"] = skipped
    if skipped:
        state["skip_reason"] = "test"
    return state


def _walltime(tag: str, seconds: float) -> dict[str, Any]:
    return {"tag": tag, "hint": "duration", "hide": "",
            "data": [{"name": "value", "type": "float64", "value": repr(seconds)}]}  # fmt: skip


def test_skipped_state_with_a_partial_measurement_still_counts(tmp_path: Path) -> None:
    states = [
        _state("Device=0", [_walltime("nv/cold/walltime", 1.5)], skipped=True),
        _state("Device=0", None, skipped=True),
        _state("Device=0", [_walltime("nv/cupti/walltime", 0.25)], skipped=False),
    ]
    version = {"json": {"major": 1, "minor": 0, "patch": 0, "string": "1.0.0"}}
    document = {
        "meta": {"argv": ["./bench"], "version": version},
        "devices": [{"id": 0, "name": "GPU"}],
        "benchmarks": [{"name": "b", "devices": [0], "axes": None, "states": states}],
    }
    path = tmp_path / "partial.json"
    path.write_text(json.dumps(document))
    report = walltime_report([path])
    assert report.measures == (Measure.ISOLATED, Measure.CUPTI)
    assert report.times.total == pytest.approx(1.75)
    text = render_walltime(report)
    configurations = next(t for t in _tables(text) if t[0][0] == "Configuration")
    assert [row[0] for row in configurations[1:]] == ["Device=0", "Device=0", "Total"]
    assert "2 of 3 states were skipped" in text
    assert not math.isnan(report.times.total)


def test_file_names_are_shortened_to_the_directory_they_share(gpu_dir: Path) -> None:
    # Absolute paths made every table as wide as the path (issue #30).
    paths = [gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"]
    text = render_walltime(walltime_report(paths))
    assert f"In {gpu_dir}{os.sep}" in text
    assert str(gpu_dir) not in text.replace(f"In {gpu_dir}{os.sep}", "")
    files = text.split("# Files")[1].split("## File:")[0]
    assert max(len(line) for line in files.splitlines() if line.startswith("|")) < 60
    assert short_labels(["a/x.json", "b/y.json"]) == ("", ["a/x.json", "b/y.json"])
    assert short_labels(["/r/a/x.json", "/r/b/y.json"]) == ("/r", ["a/x.json", "b/y.json"])
    assert short_labels(["/abs/x.json", "rel/y.json"]) == ("", ["/abs/x.json", "rel/y.json"])


def _bad_walltime_file(tmp_path: Path, value: str) -> Path:
    good = _walltime("nv/cold/walltime", 1.5)
    bad = _walltime("nv/cold/walltime", 1.0)
    bad["data"][0]["value"] = value
    states = [_state("T=A", [good], skipped=False), _state("T=B", [bad], skipped=False)]
    version = {"json": {"major": 1, "minor": 0, "patch": 0, "string": "1.0.0"}}
    document = {
        "meta": {"argv": ["./bench"], "version": version},
        "devices": [{"id": 0, "name": "GPU"}],
        "benchmarks": [{"name": "b", "devices": [0], "axes": None, "states": states}],
    }
    path = tmp_path / "bad_walltime.json"
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize("value", ["1e308", "1e300", "1e17", "nan", "-5", "inf", "-inf"])
def test_unusable_walltime_is_a_problem_of_its_state(tmp_path: Path, value: str) -> None:
    # The trial: 1e308 crashed the formatting; NaN and -5 made the totals nan or negative
    # (the Isolated column vanished); 1e300 printed a 300-digit hours field.
    path = _bad_walltime_file(tmp_path, value)
    report = walltime_report([path])
    assert report.times.total == pytest.approx(1.5)
    assert report.measures == (Measure.ISOLATED,)
    assert len(report.problems) == 1
    problem = report.problems[0]
    assert str(path) in problem and "'T=B'" in problem and "nv/cold/walltime" in problem
    text = render_walltime(report)
    assert "| Isolated |" in text
    configurations = next(t for t in _tables(text) if t[0][0] == "Configuration")
    assert [row[0] for row in configurations[1:]] == ["T=A", "Total"]
    assert max(len(line) for line in text.splitlines()) < 120


def test_a_left_out_state_is_in_no_count(tmp_path: Path) -> None:
    # The trial: a state left out for an unusable walltime was in no table, yet the
    # warning said "left out of the totals" and the overview still counted it among
    # "States" (24 while 21 rows were shown).
    report = walltime_report([_bad_walltime_file(tmp_path, "nan")])
    assert "the state is left out of every table and count" in report.problems[0]
    overview = next(t for t in _tables(render_walltime(report)) if t[0][0] == "Files")
    row = dict(zip(overview[0], overview[1], strict=True))
    assert (row["Files"], row["Benchmarks"], row["States"], row["Skipped"]) == ("1", "1", "1", "0")
