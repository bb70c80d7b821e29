"""The archive's writes take back what a failed ingest wrote, and nothing once the run is in.

The run's files are linked into place in order, the runs file last: it makes the run
visible, so it is the commit point. A Ctrl-C while the runs file's temporary name was
removed (after its link) took back the states file and left the runs file: a run without
states, which a second ingest then called already archived (review of 2026-11-30)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cuda.bench.history import _archive_write


class _Parquet:
    """Stands in for pyarrow.parquet: writes a few bytes for each table."""

    @staticmethod
    def write_table(table: Any, handle: Any, compression: str) -> None:
        handle.write(b"table")


def _interrupt_when_unlinking(monkeypatch: pytest.MonkeyPatch, folder_name: str) -> None:
    """Ctrl-C as the temporary file in ``folder_name`` is removed (after its link); once."""
    unlink = Path.unlink
    pressed: list[Path] = []

    def interrupted(self: Path, missing_ok: bool = False) -> None:
        unlink(self, missing_ok=missing_ok)
        if self.parent.name == folder_name and self.name.startswith(".") and not pressed:
            pressed.append(self)
            raise KeyboardInterrupt

    monkeypatch.setattr(Path, "unlink", interrupted)


def test_an_interrupt_after_the_runs_file_is_linked_keeps_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tables = [(None, tmp_path / "states"), (None, tmp_path / "runs")]
    _interrupt_when_unlinking(monkeypatch, "runs")
    with pytest.raises(KeyboardInterrupt):
        _archive_write.write_tables(_Parquet, tables, "run1")
    monkeypatch.undo()
    assert sorted(p.name for p in (tmp_path / "states").iterdir()) == ["run1.parquet"]
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == ["run1.parquet"]


def test_an_interrupt_before_the_runs_file_takes_back_the_states(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control: interrupted after the states file's link, nothing of the run stays."""
    tables = [(None, tmp_path / "states"), (None, tmp_path / "runs")]
    _interrupt_when_unlinking(monkeypatch, "states")
    with pytest.raises(KeyboardInterrupt):
        _archive_write.write_tables(_Parquet, tables, "run1")
    monkeypatch.undo()
    assert not (tmp_path / "states").exists() and not (tmp_path / "runs").exists()
