"""A run whose rows are in one of the archive's tables and not the other (its ``runs`` file
deleted and its ``states`` file kept, or the reverse) is named in one warning line by every
command that reads the archive, not silently used with fewer runs; and a file left out is
named once in its warning, by the gate as by the other commands."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _history_calls import ingest_days, run_history

NAMES = ("gpu_ref.json", "gpu_cmp.json", "gpu_ref_nosidecar.json")


@pytest.fixture(scope="module")
def whole(gpu_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = [(gpu_dir / name, f"{day:x}" * 40) for day, name in enumerate(NAMES, start=1)]
    return ingest_days(tmp_path_factory.mktemp("whole") / "archive", runs)


def _copy(whole: Path, tmp_path: Path) -> Path:
    archive = tmp_path / "archive"
    shutil.copytree(whole, archive)
    return archive


def _commands(archive: Path, gpu_dir: Path, tmp_path: Path) -> list[list[str | Path]]:
    return [
        ["detect", "--archive", archive],
        ["trend", "--archive", archive],
        ["gate", "--archive", archive, gpu_dir / "gpu_cmp_plain.json", "--json", tmp_path / "g"],
        ["report", "--archive", archive, "--html", tmp_path / "site"],
    ]


@pytest.mark.parametrize(("deleted", "kept"), [("runs", "states"), ("states", "runs")])
def test_a_run_in_one_table_only_is_named_once(
    whole: Path,
    gpu_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    deleted: str,
    kept: str,
) -> None:
    archive = _copy(whole, tmp_path)
    gone = sorted(archive.glob(f"{deleted}/*/*/*.parquet"))[0]
    gone.unlink()
    run = gone.stem
    for argv in _commands(archive, gpu_dir, tmp_path):
        code, _, err = run_history(capsys, *argv)
        assert code in (0, 1), (argv, err)
        lines = [line for line in err.splitlines() if run[:16] in line]
        assert len(lines) == 1, (argv, err)
        # The file that is there, by its path (once), and the table that lacks the run.
        (there,) = archive.glob(f"{kept}/*/*/{run}.parquet")
        assert lines[0].count(there.as_posix()) == 1, lines
        assert f"no {deleted}" in lines[0] and "Traceback" not in err, lines
    data = json.loads((tmp_path / "g").read_text())
    assert sum(run[:16] in warning for warning in data["warnings"]) == 1, data["warnings"]


def test_a_whole_archive_warns_of_nothing(
    whole: Path, gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in _commands(whole, gpu_dir, tmp_path):
        code, _, err = run_history(capsys, *argv)
        assert code == 0 and "warning" not in err, (argv, err)


def test_a_junk_file_is_named_once_and_alike_by_every_command(
    whole: Path, gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = _copy(whole, tmp_path)
    junk = next(archive.glob("states/*/*")) / "junk.parquet"
    junk.write_bytes(b"junk")
    said = set()
    for argv in _commands(archive, gpu_dir, tmp_path):
        code, _, err = run_history(capsys, *argv)
        assert code == 0, (argv, err)
        (line,) = [line for line in err.splitlines() if "junk.parquet" in line]
        assert line.count("junk.parquet") == 1 and "left out" in line, line
        said.add(line)
    assert len(said) == 1, said  # the gate's line is the others'
    (warning,) = [w for w in json.loads((tmp_path / "g").read_text())["warnings"] if "junk" in w]
    assert said == {f"nvbench-history: warning: {warning}"}
