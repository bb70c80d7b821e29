"""A run archived while a side file was damaged (zeros, archived from its summaries) or
missing, then given again intact: the run is named by its JSON alone, so the intact copy
is the same run and is refused as already archived. The refusal said only "already in the
archive (run ...)", with no way to replace it; it now says how (there is no command that
removes a run), and doing what it says stores the intact run."""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _history_calls import run_history

COMMIT = "c1" * 20


def _copy(gpu_dir: Path, target: Path) -> Path:
    """gpu_ref.json with its side files, writable, under ``target``."""
    target.mkdir()
    shutil.copy(gpu_dir / "gpu_ref.json", target)
    for folder in ("gpu_ref.json-bin", "gpu_ref.json-freqs-bin"):
        shutil.copytree(gpu_dir / folder, target / folder)
    for path in target.rglob("*"):
        path.chmod(path.stat().st_mode | stat.S_IWUSR)
    return target / "gpu_ref.json"


def _stored_samples(archive: Path) -> int:
    from cuda.bench.history.archive import query

    connection = query(archive)
    try:
        found = connection.execute("SELECT count(*) FROM samples").fetchone()[0]
    finally:
        connection.close()
    assert isinstance(found, int)
    return found


def test_an_intact_copy_of_a_run_archived_damaged_is_refused_saying_how_to_replace_it(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    damaged = _copy(gpu_dir, tmp_path / "damaged")
    side = damaged.parent / "gpu_ref.json-bin" / "0.bin"
    side.write_bytes(bytes(side.stat().st_size))  # zeros: the state archived without samples
    archive = tmp_path / "archive"
    ingest = ("ingest", "--archive", archive, "--commit", COMMIT, "--samples", "16")
    code, _, err = run_history(capsys, *ingest, damaged)
    assert code == 0 and f"0.bin (recorded in {damaged}): holds non-positive" in err, err
    assert _stored_samples(archive) == 19
    intact = gpu_dir / "gpu_ref.json"
    code, _, err = run_history(capsys, *ingest, intact)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    (stored,) = archive.glob("runs/*/*/*.parquet")
    partition = stored.relative_to(archive / "runs")
    assert f"{intact}: already in the archive (run {stored.stem[:16]}" in lines[0], lines
    assert "named by its JSON, not its side files" in lines[0], lines
    assert f"delete runs/{partition} from {archive}, then the files of that name" in lines[0]
    assert "under states/ and samples/, and ingest it again" in lines[0], lines
    # What it says to do replaces the run with the intact one.
    for table in ("runs", "states", "samples"):
        (archive / table / partition).unlink()
    code, _, err = run_history(capsys, *ingest, intact)
    assert code == 0 and "warning" not in err, err
    assert _stored_samples(archive) == 20
