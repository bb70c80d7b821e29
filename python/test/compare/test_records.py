"""``Comparison.to_dataframe()``: tidy rows with the CSV report's columns, typed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from cuda.bench._deps import MissingDependencyError
from cuda.bench.compare import compare
from cuda.bench.compare.model import Comparison
from cuda.bench.compare.records import (
    ROW_FIELDS,
    SCHEMA_NAME,
    SCHEMA_VERSION,
    comparison_frame,
    evidence_source,
    flat_columns,
    flat_records,
    threshold_items,
)
from cuda.bench.compare.thresholds import PRESETS

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def gpu(gpu_dir: Path) -> Comparison:
    return compare(gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json", method="robust")


def test_frame_has_one_row_per_row_and_the_csv_columns(gpu: Comparison) -> None:
    frame = gpu.to_dataframe()
    assert len(frame) == len(gpu.rows) == 24
    assert list(frame.columns) == flat_columns(gpu)
    assert set(spec.name for spec in ROW_FIELDS) <= set(frame.columns)
    assert {"axis.T", "axis.Elements", "axis.Layout", "axis.Ratio", "axis.Plain"} <= set(
        frame.columns
    )
    assert (frame["schema"] == SCHEMA_NAME).all()
    assert (frame["schema_version"] == SCHEMA_VERSION).all()
    assert (frame["threshold.clear_gap.relative"] == 0.005).all()


def test_frame_values_match_the_rows(gpu: Comparison) -> None:
    frame = gpu.to_dataframe()
    assert frame["status"].value_counts().to_dict() == {"SAME": 18, "SKIP": 4, "SLOW": 1, "FAST": 1}
    slow = frame[frame["status"] == "SLOW"].iloc[0]
    row = gpu.rows[int(slow["index"])]
    assert slow["key"] == row.key == "T=F32 Elements=2^20 Layout=contiguous"
    assert slow["axis.Elements"] == 2**20
    assert slow["axis.T"] == "F32"
    assert slow["frac_diff"] == pytest.approx(row.frac_diff)
    assert slow["ref_center"] == pytest.approx(row.ref_center)
    assert slow["interval_change_lo"] == pytest.approx(row.change_bounds[0])  # type: ignore[index]
    assert slow["reason_code"] == "clear_gap_confirmed_by_bulk_cycles"
    assert slow["evidence_source"] == "summary"
    # Float axes keep their full stored value.
    misc = frame[frame["benchmark"] == "misc"]
    assert sorted(misc["axis.Ratio"].unique()) == [1e-07, 0.25, 1.0, 123456.789]


def test_frame_dtypes(gpu: Comparison) -> None:
    frame = gpu.to_dataframe()
    assert str(frame["axis.Elements"].dtype) == "Int64"
    assert frame["axis.Elements"].isna().sum() == 8  # the misc rows
    assert str(frame["axis.Ratio"].dtype) == "float64"
    assert str(frame["ref_sample_count"].dtype) == "Int64"
    assert str(frame["ref_is_skipped"].dtype) == "boolean"
    # No effect estimates from the robust method: all missing, still numeric.
    assert str(frame["effect_ratio"].dtype) == "float64"
    assert frame["effect_ratio"].isna().all()
    assert str(frame["index"].dtype) == "int64"


def _beyond_int64(gpu_dir: Path, tmp_path: Path, big: int) -> tuple[Path, Path]:
    """The real GPU pair with ``Elements=2^16`` made ``big`` (in both files) and the compare
    run's sample count of that state ``big``: integers beyond int64."""
    paths = []
    for name in ("ref", "cmp"):
        document = json.loads((gpu_dir / "gpu_ref_nosidecar.json").read_text())
        for bench in document["benchmarks"]:
            for axis in bench["axes"] or ():
                for value in axis["values"]:
                    if axis["name"] == "Elements" and value["value"] == 2**16:
                        value["value"] = big
            for state in bench["states"] or ():
                for value in state["axis_values"] or ():
                    if value["name"] == "Elements" and value["value"] == "65536":
                        value["value"] = str(big)
                        if name == "cmp":
                            for summary in state["summaries"] or ():
                                if summary["tag"] == "nv/cold/sample_size":
                                    summary["data"][0]["value"] = str(big)
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(document))
        paths.append(path)
    return paths[0], paths[1]


@pytest.mark.parametrize("big", [2**63, 2**70, 2**1000])
def test_frame_of_integers_beyond_int64(gpu_dir: Path, tmp_path: Path, big: int) -> None:
    # An axis value or a sample count of 2^63 or more was pandas' OverflowError ("Python
    # int too large to convert to C long"); BenchmarkResult.to_dataframe() of the same
    # files keeps such a column as objects, and so does the comparison now.
    ref, cmp = _beyond_int64(gpu_dir, tmp_path, big)
    comparison = compare(ref, cmp, method="robust")
    frame = comparison.to_dataframe()
    assert len(frame) == len(comparison.rows)
    elements = [value for value in frame["axis.Elements"] if value is not None and value == value]
    assert big in elements and 2**20 in elements
    assert str(frame["axis.Elements"].dtype) == "object"
    # A sample count beyond int64 is no count (the row is undecided, invalid_sample_count):
    # missing in the frame, whose column keeps its nullable integer type.
    shown = frame[frame["axis.Elements"].map(lambda value: value == big)]
    assert len(shown) and shown["cmp_sample_count"].isna().all()
    assert set(shown["status"]) <= {"????", "SKIP"} and "????" in set(shown["status"])
    assert str(frame["cmp_sample_count"].dtype) == "Int64"
    assert str(frame["ref_sample_count"].dtype) == "Int64"


def test_failed_conditions_joined(gpu: Comparison) -> None:
    frame = comparison_frame(gpu, "slow,fast,unknown")
    counts = frame["failed_conditions"].value_counts().to_dict()
    assert counts == {"": 22, "slow": 1, "fast": 1}  # SKIP rows fail on nothing


def test_flat_records_text_axes_and_infinity(upstream_2021_dir: Path) -> None:
    result = compare(
        upstream_2021_dir / "ref.json", upstream_2021_dir / "cmp.json", method="robust"
    )
    records = flat_records(result)
    assert all(isinstance(r["axis.Duration"], str | None) for r in records)
    typed = flat_records(result, typed_axes=True)
    assert any(isinstance(r["axis.Duration"], float) for r in typed)
    items = threshold_items(result.thresholds)
    assert items[0] == ("clear_gap.relative", 0.005)
    assert len(items) == len(dict(items)) >= 8
    assert dict(threshold_items(PRESETS["strict"]))["same.overlap_fraction"] == 0.75


def test_evidence_source(gpu: Comparison) -> None:
    assert evidence_source(gpu.rows[0]) == "summary"
    skipped = next(row for row in gpu.rows if row.status.value == "SKIP")
    assert evidence_source(skipped) == "none"


def test_missing_pandas_is_a_friendly_error(
    gpu: Comparison, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(
        MissingDependencyError,
        match=r"pip install '\.\[pandas\]' \(from the nvbench-tools checkout's root\)",
    ):
        gpu.to_dataframe()
