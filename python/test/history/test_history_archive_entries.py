"""What a reader of the archive says of an entry it leaves out (issue #26, item 6): one
line naming it and the problem in words a user can act on, whatever DuckDB's version."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _history_calls import ingest_days, readers_warnings, runs_per_series

NAMES = ("gpu_ref.json", "gpu_cmp.json", "gpu_ref_nosidecar.json")


@pytest.mark.parametrize("table", ["runs", "states"])
def test_a_directory_named_like_a_run_file_is_left_out_as_a_directory(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], table: str
) -> None:
    # It was "unreadable as Parquet (IO Error: No files found that match the pattern "" LINE
    # 1: ... FROM parquet_schema(?) ^^^)": DuckDB's words for an empty glob, and its query.
    runs = [(gpu_dir / name, f"{day:x}" * 40) for day, name in enumerate(NAMES, start=1)]
    archive = ingest_days(tmp_path / "archive", runs)
    folder = next(archive.glob(f"{table}/*/*")) / "copied.parquet"
    folder.mkdir()
    line = f"{folder.as_posix()}: a directory, not a file; left out"
    for warned in readers_warnings(archive, gpu_dir / "gpu_cmp_plain.json", tmp_path / "o", capsys):
        assert len(warned) == 1 and warned[0].endswith(line), warned
    assert runs_per_series(tmp_path / "o") == {3}
