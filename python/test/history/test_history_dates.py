"""Run dates come back from the archive as UTC datetimes made by us, not by DuckDB.

DuckDB before 2.0 hands a ``TIMESTAMP WITH TIME ZONE`` value to Python only through
``pytz``, which neither DuckDB nor this package installs: with DuckDB 1.0 to 1.4 (which the
``history`` extra allows) and no ``pytz``, every command that read the archive stopped at
"Required module 'pytz' failed to import". DuckDB also gives such a value in the reader's
own time zone, so the dashboard dated a run by the reader's calendar, not UTC's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _history_calls import ingest_days, run_history

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
duckdb = pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

COMMITS = ("a1" * 20, "b2" * 20, "c3" * 20)


@pytest.fixture(scope="module")
def archive(gpu_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    files = ("gpu_ref.json", "gpu_cmp.json", "gpu_ref_nosidecar.json")
    runs = [(gpu_dir / name, commit) for name, commit in zip(files, COMMITS, strict=True)]
    # Days 1-3 of January 2026 at 02:00 UTC: the evening before in America/New_York.
    return ingest_days(tmp_path_factory.mktemp("dates") / "archive", runs)


class _Watched:
    """A DuckDB connection (or the result of its ``execute``) that records the type of every
    column a query hands to Python."""

    def __init__(self, real: Any, seen: list[str]) -> None:
        self._real, self._seen = real, seen

    def execute(self, *args: Any) -> _Watched:
        return _Watched(self._real.execute(*args), self._seen)

    def _record(self) -> None:
        self._seen.extend(str(column[1]) for column in self._real.description or ())

    def fetchall(self) -> Any:
        self._record()
        return self._real.fetchall()

    def fetchone(self) -> Any:
        self._record()
        return self._real.fetchone()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def test_no_command_hands_python_a_time_zone_value(
    archive: Path,
    gpu_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[str] = []
    connect = duckdb.connect
    monkeypatch.setattr(duckdb, "connect", lambda *a, **k: _Watched(connect(*a, **k), seen))
    out = tmp_path / "out"
    out.mkdir()
    for argv in (
        ["trend", "--archive", archive],
        ["detect", "--archive", archive, "--json", out / "d.json"],
        ["report", "--archive", archive, "--html", out / "site"],
        ["gate", "--archive", archive, gpu_dir / "gpu_cmp.json", "--markdown", out / "g.md"],
    ):
        code, _, err = run_history(capsys, *argv)
        assert code in (0, 1), (argv, err)
    assert seen, "no query was watched"
    assert not [kind for kind in seen if "TIME ZONE" in kind.upper()], sorted(set(seen))
    # The gate's reference names carry the runs' UTC dates.
    assert "2026-01-03 02:00 UTC" in (out / "g.md").read_text()


def test_the_dashboard_dates_runs_in_utc_whatever_the_readers_time_zone(
    archive: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    command = "from cuda.bench.cli.history import main; raise SystemExit(main())"
    done = subprocess.run(
        [sys.executable, "-c", command, "report", "--archive", str(archive), "--html", str(site)],
        env={**os.environ, "TZ": "America/New_York"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    index = (site / "index.html").read_text()
    # The last run was at 02:00 UTC on 3 January, 21:00 on the 2nd in New York.
    assert "Last run: 2026-01-03" in index
    assert "Last run: 2026-01-02" not in index
