"""``ingest`` keeps an archive's runs all with ``--order`` or all without: series follow the
order only when every run has one, and the archive is append-only, so one run without it
switched every series to date order for good (the readers then warned "1 of 16 runs have
no --order" on every command).

Real input: ``nvbench-format-examples/gpu`` and ``/cpu`` (the order is the archive's, over
every machine in it).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _history_calls import run_history
from _ingest_refusal import archive_files


def _ingest(archive: Path, run: Path, commit: str, *order: str) -> list[str]:
    return ["ingest", "--archive", str(archive), "--commit", commit, *order, str(run)]


def _refused(capsys: pytest.CaptureFixture[str], archive: Path, *argv: str) -> str:
    before = archive_files(archive)
    code, out, err = run_history(capsys, *argv)
    assert (code, out, len(err.splitlines())) == (2, "", 1), (code, out, err)
    assert "Traceback" not in err and archive_files(archive) == before
    return err.strip()


def test_a_run_without_order_into_an_ordered_archive_is_refused(
    tmp_path: Path, gpu_dir: Path, cpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = tmp_path / "archive"
    for order, run in enumerate((gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json")):
        assert (
            run_history(capsys, *_ingest(archive, run, f"c{order}", "--order", str(order)))[0] == 0
        )
    new = cpu_dir / "cpu_run1.json"
    line = _refused(capsys, archive, *_ingest(archive, new, "c2"))
    assert line == (
        f"nvbench-history: error: {new}: the archive's runs all carry --order (their commit's "
        "place in first-parent order) and this run has none: give it --order (git rev-list "
        "--count --first-parent HEAD); without it every series would follow the runs' dates "
        "from now on; nothing written"
    )
    # Several runs of one ingest: the first refused, none written.
    argv = _ingest(archive, new, "c2")
    assert _refused(capsys, archive, *argv, str(cpu_dir / "cpu_run2.json")) == line
    # With its order the run is taken.
    assert run_history(capsys, *_ingest(archive, new, "c2", "--order", "2"))[0] == 0


def test_a_run_with_order_into_an_archive_without_is_refused(
    tmp_path: Path, gpu_dir: Path, cpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = tmp_path / "archive"
    assert run_history(capsys, *_ingest(archive, gpu_dir / "gpu_ref.json", "c0"))[0] == 0
    new = cpu_dir / "cpu_run1.json"
    line = _refused(capsys, archive, *_ingest(archive, new, "c1", "--order", "1"))
    assert line == (
        f"nvbench-history: error: {new}: --order 1, but none of the archive's runs carries "
        "--order, so its series follow the runs' dates (--order orders them only when every "
        "run has one): ingest without --order, or start a new archive to order by commit; "
        "nothing written"
    )
    assert run_history(capsys, *_ingest(archive, new, "c1"))[0] == 0


def test_an_archive_already_mixed_takes_either(
    tmp_path: Path, gpu_dir: Path, cpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An archive ingested before the check may hold both: it follows the dates whatever
    comes next, so neither is refused, and the readers still say why."""
    archive, other = tmp_path / "archive", tmp_path / "other"
    assert (
        run_history(capsys, *_ingest(archive, gpu_dir / "gpu_ref.json", "c0", "--order", "0"))[0]
        == 0
    )
    assert run_history(capsys, *_ingest(other, gpu_dir / "gpu_cmp.json", "c1"))[0] == 0
    for path in other.glob("*/machine=*/month=*/*.parquet"):
        target = archive / path.relative_to(other)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    assert run_history(capsys, *_ingest(archive, cpu_dir / "cpu_run1.json", "c2"))[0] == 0
    argv = _ingest(archive, cpu_dir / "cpu_run2.json", "c3", "--order", "3")
    assert run_history(capsys, *argv)[0] == 0
    code, _, err = run_history(capsys, "trend", "--archive", archive)
    assert code == 0 and "2 of 4 runs have no --order" in err
