"""``nvbench-history`` called in process by the tests of what it tells a user."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from cuda.bench.cli.history import main


def run_history(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    """``nvbench-history argv`` in process: exit status, stdout, stderr."""
    try:
        code = main([str(arg) for arg in argv])
    except SystemExit as stop:
        code = int(stop.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def ingest_on_day(
    archive: Path, path: Path, commit: str, day: int, order: int | None = None, samples: int = 0
) -> None:
    """Ingest ``path`` as ``commit``, run at 02:00 UTC on day ``day`` of January 2026 (with
    ``--order order`` and ``--samples samples`` where given)."""
    argv = ["ingest", "--archive", str(archive), "--commit", commit]
    if order is not None:
        argv += ["--order", str(order)]
    if samples:
        argv += ["--samples", str(samples)]
    assert main([*argv, "--date", f"2026-01-{day:02d}T02:00:00Z", str(path)]) == 0


def ingest_days(
    archive: Path, runs: Sequence[tuple[Path, str]], *, ordered: bool = False, samples: int = 0
) -> Path:
    """``archive`` with each ``(file, commit)`` of ``runs`` ingested on days 1, 2, ... of
    January 2026, in that order (``ordered``: with ``--order`` 1, 2, ... as well;
    ``samples``: with ``--samples samples``)."""
    for day, (path, commit) in enumerate(runs, start=1):
        ingest_on_day(archive, path, commit, day, day if ordered else None, samples)
    return archive


#: Three real runs (``gpu_dir``'s files) and their commits, which :func:`three_runs`
#: ingests with orders 1, 2, 3. The files of the last lie first in path order (its run's
#: hash is the smallest), those of the second last.
THREE_RUNS = (
    ("gpu_ref.json", "c1" * 20),
    ("gpu_cmp.json", "c2" * 20),
    ("gpu_ref_nosidecar.json", "c3" * 20),
)


def three_runs(gpu_dir: Path, folder: Path, samples: int = 0) -> Path:
    """``folder/archive`` holding :data:`THREE_RUNS` (:func:`ingest_days`, ordered)."""
    runs = [(gpu_dir / name, commit) for name, commit in THREE_RUNS]
    return ingest_days(folder / "archive", runs, ordered=True, samples=samples)


def _readers(archive: Path, tonight: Path, out: Path) -> list[list[str | Path]]:
    out.mkdir()
    return [
        ["trend", "--archive", archive],
        ["detect", "--archive", archive, "--json", out / "d.json"],
        ["report", "--archive", archive, "--html", out / "site"],
        ["gate", "--archive", archive, tonight],
    ]


def readers_warnings(
    archive: Path, tonight: Path, out: Path, capsys: pytest.CaptureFixture[str]
) -> list[list[str]]:
    """The warning lines of each command that reads ``archive`` (trend, detect with its
    report in ``out``, report, gate of ``tonight``); each must exit 0."""
    capsys.readouterr()
    found = []
    for argv in _readers(archive, tonight, out):
        code, _, err = run_history(capsys, *argv)
        assert code == 0, (argv, err)
        found.append([line for line in err.splitlines() if "warning:" in line])
    return found


def runs_per_series(out: Path) -> set[int]:
    """The run counts of the series of the detect report :func:`readers_warnings` wrote."""
    return {one["runs"] for one in json.loads((out / "d.json").read_text())["series"]}
