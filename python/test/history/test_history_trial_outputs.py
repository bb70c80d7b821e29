"""Output paths a new user gave ``nvbench-history`` by mistake (trial of 2026-11-29): an
empty ``report --html`` or ``detect --json``, and a ``report --gate`` file the site would
write over. Each is one line on stderr and exit 2 before any work, and nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _history_calls import ingest_days, run_history


@pytest.fixture(scope="module")
def archive(gpu_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = [(gpu_dir / "gpu_ref.json", "a" * 40), (gpu_dir / "gpu_cmp.json", "b" * 40)]
    return ingest_days(tmp_path_factory.mktemp("trial") / "archive", runs)


def _files(directory: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(directory)): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


@pytest.mark.parametrize("command", ["report", "detect"])
def test_an_empty_output_path_is_refused(
    archive: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: str,
) -> None:
    # 'report --html ""' wrote the site into the working directory (inside the archive
    # when run from there); 'detect --json ""' ran the detection, then said of the working
    # directory "Is a directory".
    option = "--html" if command == "report" else "--json"
    work = archive / "states"  # the worst place: inside the archive
    monkeypatch.chdir(work)
    before = _files(archive)
    code, out, err = run_history(capsys, command, "--archive", archive, option, "")
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"{option} needs a" in lines[0], lines
    assert out == ""
    assert _files(archive) == before


def test_detect_refuses_a_json_path_in_a_missing_directory_before_detecting(
    archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "missing" / "changes.json"
    code, out, err = run_history(capsys, "detect", "--archive", archive, "--json", target)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("nvbench-history: error: --json"), lines
    assert "does not exist" in lines[0], lines
    assert out == ""  # refused before the detection, whose table it printed


@pytest.mark.parametrize("name", ["index.html", "history.js", "bench/0000.js"])
def test_report_refuses_a_gate_report_the_site_would_replace(
    archive: Path,
    gpu_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
) -> None:
    site = tmp_path / "site"
    gate = site / name
    gate.parent.mkdir(parents=True)
    code, _, err = run_history(
        capsys, "gate", "--archive", archive, gpu_dir / "gpu_ref_nosidecar.json", "--json", gate
    )
    assert code == 0, err
    before = gate.read_bytes()
    argv = ["report", "--archive", archive, "--html", site, "--gate", gate]
    code, out, err = run_history(capsys, *argv)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "--gate" in lines[0] and "--html" in lines[0], lines
    assert gate.read_bytes() == before
    assert sorted(p.name for p in site.rglob("*") if p.is_file()) == [gate.name]


def test_report_reads_a_gate_report_kept_in_the_site(
    archive: Path, gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Beside the pages, under a name the site does not write: read, and kept.
    site = tmp_path / "site"
    site.mkdir()
    gate = site / "gate.json"
    run = gpu_dir / "gpu_ref_nosidecar.json"
    assert run_history(capsys, "gate", "--archive", archive, run, "--json", gate)[0] == 0
    before = gate.read_bytes()
    argv = ["report", "--archive", archive, "--html", site, "--gate", gate]
    code, _, err = run_history(capsys, *argv)
    assert code == 0, err
    assert gate.read_bytes() == before
    assert "gate.json" in (site / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("inner", ["nested", "states/nested", "runs/machine=x/new"])
def test_ingest_refuses_to_start_an_archive_inside_another(
    archive: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str], inner: str
) -> None:
    # 'ingest --archive bench-archive/states/nested' made a second archive inside the first,
    # its Parquet files under the first one's tables, where engines reading those tables
    # (DuckDB's **, Spark's partition discovery) take them for the first archive's own.
    before = _files(archive)
    target = archive / inner
    argv = ["ingest", "--archive", target, "--commit", "c" * 40, gpu_dir / "gpu_cmp.json"]
    code, out, err = run_history(capsys, *argv)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"inside the archive {archive}" in lines[0], lines
    assert _files(archive) == before
    assert not target.exists()


@pytest.mark.parametrize("command", ["ingest", "trend", "detect", "gate", "report"])
def test_an_empty_archive_path_is_refused(
    gpu_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: str,
) -> None:
    # '--archive "$ARCHIVE"' with the variable unset: ingest made an archive of the working
    # directory (an empty one), the others read it as '.'.
    monkeypatch.chdir(tmp_path)
    extra = {
        "ingest": ["--commit", "c0", gpu_dir / "gpu_ref.json"],
        "gate": [gpu_dir / "gpu_ref.json"],
        "report": ["--html", tmp_path / "site"],
    }.get(command, [])
    code, out, err = run_history(capsys, command, "--archive", "", *extra)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "--archive" in lines[-1] and "empty" in lines[-1], lines
    assert list(tmp_path.iterdir()) == []
