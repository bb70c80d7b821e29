"""The history commands' one line for a selection that matches nothing: each warning of the
archive said once, and what a mixed archive (GPU and CPU-only series) holds."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _history_calls import ingest_on_day, run_history, three_runs


def test_a_corrupt_file_is_warned_of_once_when_the_selection_is_empty(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = tmp_path / "archive"
    ingest_on_day(archive, gpu_dir / "gpu_ref.json", "a" * 40, 1)
    ingest_on_day(archive, gpu_dir / "gpu_cmp.json", "b" * 40, 2)
    broken = sorted((archive / "states").rglob("*.parquet"))[0]
    broken.write_bytes(b"not parquet")
    capsys.readouterr()
    code, out, err = run_history(capsys, "detect", "--archive", archive, "-b", "nope")
    assert code == 2 and out == "", (code, out, err)
    lines = err.splitlines()
    assert len(lines) == 2, err
    assert "warning" in lines[0] and broken.name in lines[0], lines[0]
    assert "-b nope: no such benchmark in the archive" in lines[1], lines[1]


def test_a_device_no_series_is_on_names_the_cpu_only_series_too(
    gpu_dir: Path, cpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = tmp_path / "archive"
    ingest_on_day(archive, gpu_dir / "gpu_ref.json", "a" * 40, 1)
    ingest_on_day(archive, cpu_dir / "cpu_run1.json", "b" * 40, 2)
    capsys.readouterr()
    code, out, err = run_history(capsys, "detect", "--archive", archive, "--device", "7")
    assert code == 2 and out == "", (code, out, err)
    assert err.splitlines() == [
        f"nvbench-history: error: {archive}: --device 7: no series on device 7 "
        "(devices in the archive: 0, 1 and CPU-only series)"
    ], err


def test_the_library_reads_a_selection_in_the_forms_compare_takes(
    gpu_dir: Path, tmp_path: Path
) -> None:
    # load_series took only a FilterPlan ([("benchmark", ...)], which compare takes, failed
    # with an AttributeError) and a device text was split into its characters.
    from cuda.bench.compare.filters import FilterPlan
    from cuda.bench.history.gate import gate
    from cuda.bench.history.series import load_series

    archive = three_runs(gpu_dir, tmp_path)
    items = [("benchmark", "copy_bench"), ("axis", "T=F32")]
    plan = FilterPlan.from_args(items)

    def keys(**selection: object) -> list[str]:
        return [one.key for one in load_series(archive, **selection)]  # type: ignore[arg-type]

    chosen = keys(filters=plan)
    assert chosen and len(chosen) < len(keys())
    assert keys(filters=items) == keys(filters=tuple(items)) == chosen
    on_zero = keys(devices=[0])
    assert on_zero and len(on_zero) < len(keys())
    assert keys(devices="0") == keys(devices=(0,)) == on_zero
    assert keys(devices="all") == keys()
    for bad, said in [
        ({"filters": "copy_bench"}, "filters must be a FilterPlan"),
        ({"filters": {"benchmark": "copy_bench"}}, "filters must be a FilterPlan"),
        ({"devices": 0}, "devices must be 'all'"),
        ({"devices": ["0"]}, "devices: each device must be an int"),
    ]:
        with pytest.raises(TypeError, match=f"^{said}"):
            keys(**bad)
    run = gpu_dir / "gpu_cmp.json"
    listed = gate(archive, run, filters=items, devices="0")
    planned = gate(archive, run, filters=plan, devices=[0])
    assert [(row.key, row.status) for row in listed.comparison.rows] == [
        (row.key, row.status) for row in planned.comparison.rows
    ]
    assert listed.comparison.rows
