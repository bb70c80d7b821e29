"""The gate names its reference runs by what the archive knows of them: a reference that is
one archived run by its commit (short) and date, one that takes each state's k-th run
from different archived runs (levels of different lengths) by its place and the runs it
holds. Before, every report named them only by their place, "ARCHIVE (current level, run
1)" to "run 15", in the JSON's inputs, the markdown footer and every CSV row."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _history_calls import ingest_days, run_history

C1, C2 = "c1" * 20, "c2" * 20
ONE = f"commit {C1[:12]}, 2026-01-01 02:00 UTC"
TWO = f"commit {C2[:12]}, 2026-01-02 02:00 UTC"


def _gate(
    archive: Path, gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[list[str], str, str]:
    """The gate of gpu_cmp.json: its JSON report's reference names, markdown, CSV."""
    out = {kind: tmp_path / f"g.{kind}" for kind in ("json", "md", "csv")}
    code, _, err = run_history(
        capsys,
        *("gate", "--archive", archive, gpu_dir / "gpu_cmp.json"),
        *("--json", out["json"], "--markdown", out["md"], "--csv", out["csv"]),
    )
    assert code == 0, err
    document = json.loads(out["json"].read_text())
    return document["inputs"][0]["ref"], out["md"].read_text(), out["csv"].read_text()


def test_a_reference_of_one_archived_run_is_named_by_its_commit_and_date(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = [(gpu_dir / "gpu_ref.json", C1), (gpu_dir / "gpu_ref_nosidecar.json", C2)]
    archive = ingest_days(tmp_path / "archive", runs)
    names, markdown, table = _gate(archive, gpu_dir, tmp_path, capsys)
    # The most recent run of every level first.
    assert names == [f"{archive} ({TWO})", f"{archive} ({ONE})"]
    assert f"`{archive} ({TWO}), {archive} ({ONE})` vs." in markdown
    rows = list(csv.DictReader(table.splitlines()))
    assert {row["ref_file"] for row in rows} == {", ".join(names)}


def test_a_reference_of_several_archived_runs_is_named_by_its_place_and_runs(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The second run lacks benchmark misc: its states' levels hold the first run alone, so
    # the first reference takes copy_bench's states from run 2 and misc's from run 1.
    document = json.loads((gpu_dir / "gpu_ref_nosidecar.json").read_text())
    document["benchmarks"] = [one for one in document["benchmarks"] if one["name"] != "misc"]
    fewer = tmp_path / "fewer.json"
    fewer.write_text(json.dumps(document))
    archive = ingest_days(tmp_path / "archive", [(gpu_dir / "gpu_ref.json", C1), (fewer, C2)])
    names, _, _ = _gate(archive, gpu_dir, tmp_path, capsys)
    assert names == [
        f"{archive} (run 1 of each state's level: 2 archived runs, {ONE} .. {TWO})",
        f"{archive} ({ONE})",
    ]
