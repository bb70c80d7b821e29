"""Atomic output files."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from cuda.bench._io import atomic_path, write_text


def test_written_files_get_umask_permissions(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        write_text(tmp_path / "report.md", "hello\n")
    finally:
        os.umask(previous)
    mode = stat.S_IMODE((tmp_path / "report.md").stat().st_mode)
    assert mode == 0o644


def test_failure_leaves_no_file_and_keeps_the_old_one(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_path(target) as temporary:
        temporary.write_text("half")
        raise RuntimeError("render failed")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_dash_writes_to_stdout(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    write_text("-", "to stdout\n")
    assert capsys.readouterr().out == "to stdout\n"
    assert list(tmp_path.iterdir()) == []


def test_overwriting_keeps_the_existing_mode(tmp_path: Path) -> None:
    target = tmp_path / "private.json"
    target.write_text("old")
    target.chmod(0o600)
    write_text(target, "new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
