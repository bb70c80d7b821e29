"""What every test of an input ``ingest`` refuses asserts: one line, exit 2, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest
from cuda.bench.cli.history import main


def archive_files(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes (none where ``root`` does not exist)."""
    if not root.exists():
        return {}
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def refused_line(
    tmp_path: Path, good: Path, bad: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> str:
    """``bad`` ingested (with ``extra`` options) into an archive holding ``good`` and into a
    fresh directory: exit 2 and one line each time, the same line; the archive unchanged and
    the fresh directory never made. The line."""
    archive = tmp_path / "archive"
    ok = ["ingest", "--archive", str(archive), "--commit", "c0", "--order", "0"]
    assert main([*ok, "--date", "2026-01-01", str(good)]) == 0
    before = archive_files(archive)
    capsys.readouterr()
    lines = []
    for target in (archive, tmp_path / "fresh"):
        argv = ["ingest", "--archive", str(target), "--commit", "c1", *extra, str(bad)]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and "Traceback" not in err, err
        lines.append(err.strip())
    assert archive_files(archive) == before and not (tmp_path / "fresh").exists()
    assert lines[0] == lines[1]
    return lines[0]
