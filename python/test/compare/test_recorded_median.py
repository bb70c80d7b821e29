"""A state whose file records a median that is no time is ``????``, never decided on the
mean or the samples standing in (:mod:`cuda.bench.compare.methods._recorded_median`).

Real input: ``nvbench-format-examples/gpu``; the compare run's first state edited, once
with its side files beside it (the samples) and once without (the mean stood in)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from cuda.bench.compare import compare
from cuda.bench.compare.model import Status
from cuda.bench.compare.reasons import Reason

_MEDIAN = "nv/cold/time/gpu/median"


def _edited(tmp_path: Path, gpu_dir: Path, value: Any, side_files: bool) -> Path:
    name = "gpu_cmp.json"
    if side_files:
        for folder in (f"{name}-bin", f"{name}-freqs-bin"):
            shutil.copytree(gpu_dir / folder, tmp_path / folder)
    document = json.loads((gpu_dir / name).read_text())
    state = document["benchmarks"][0]["states"][0]
    if not side_files:
        state["summaries"] = [s for s in state["summaries"] if not s["tag"].startswith("nv/json")]
    (summary,) = [one for one in state["summaries"] if one["tag"] == _MEDIAN]
    summary["data"][0]["value"] = value
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize("side_files", [False, True])
@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("nan", Reason.TIMING_CENTER_NONFINITE),
        ("inf", Reason.TIMING_CENTER_NONFINITE),
        ("1e300", Reason.TIMING_CENTER_NONFINITE),
        ("0", Reason.TIMING_CENTER_NONPOSITIVE),
        ("-1e-06", Reason.TIMING_CENTER_NONPOSITIVE),
        (None, Reason.TIMING_CENTER_MISSING),
    ],
)
def test_a_median_that_is_no_time_makes_the_state_unknown(
    tmp_path: Path, gpu_dir: Path, value: Any, reason: Reason, side_files: bool
) -> None:
    # It was SAME, the mean (no side files) or the samples (with them) standing in, so a
    # gate with --fail-on unknown passed a damaged file that ingest refused.
    cmp = _edited(tmp_path, gpu_dir, value, side_files)
    comparison = compare(gpu_dir / "gpu_ref.json", cmp, jobs=1)
    first, *others = comparison.rows
    assert first.verdict.status is Status.UNKNOWN and first.verdict.reason is reason
    assert "compare records median" in first.verdict.message
    assert all(row.verdict.status is not Status.UNKNOWN for row in others if row.ref is not None)


def test_a_median_that_is_no_time_in_one_run_of_several_names_the_run(
    tmp_path: Path, gpu_dir: Path
) -> None:
    cmp = _edited(tmp_path, gpu_dir, "nan", side_files=False)
    refs = [gpu_dir / "gpu_ref.json", gpu_dir / "gpu_ref_nosidecar.json"]
    comparison = compare(refs, [gpu_dir / "gpu_cmp_plain.json", cmp], jobs=1)
    first = comparison.rows[0]
    assert first.verdict.status is Status.UNKNOWN
    assert "compare run 2 records median nan" in first.verdict.message
