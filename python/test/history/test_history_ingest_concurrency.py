"""Concurrent ``nvbench-history ingest`` processes: one archive, two runs, one ``--order``.

Each ingest checked the archive for a commit holding its ``--order`` and then wrote: two
started at once both found none and both wrote (exit 0 in 5 of 5 trials), two commits at
one place. Real processes, released together at a barrier after their imports, several
trials: into an archive that exists and into a directory that does not yet (the first
night, when both create the archive).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from cuda.bench.history._archive_lock import LOCK_FILE, archive_lock
from cuda.bench.history.archive import open_archive, query

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "data"
TRIALS = 4

# Imports first, then "ready", then wait for "go": the two ingests start within a
# millisecond of each other, not a process start apart.
_CHILD = """
import sys, time
from pathlib import Path
import cuda.bench.history.archive, duckdb, pyarrow.parquet
from cuda.bench.cli.history import main
here = Path(sys.argv[1])
(here / ("ready-" + sys.argv[2])).touch()
while not (here / "go").exists():
    time.sleep(0.001)
sys.exit(main(sys.argv[3:]))
"""


def _race(workdir: Path, archive: Path, runs: list[tuple[str, Path]]) -> list[tuple[int, str]]:
    """Each ``(commit, run)`` ingested with ``--order 5`` by its own process, released at
    once; each process's exit status and stderr."""
    workdir.mkdir()
    children = [
        subprocess.Popen(
            [
                *(sys.executable, "-c", _CHILD, str(workdir), str(k), "ingest", "--archive"),
                *(str(archive), "--commit", commit, "--order", "5", str(run)),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k, (commit, run) in enumerate(runs)
    ]
    deadline = time.monotonic() + 120
    while not all((workdir / f"ready-{k}").exists() for k in range(len(runs))):
        assert time.monotonic() < deadline and all(c.poll() is None for c in children)
        time.sleep(0.01)
    (workdir / "go").touch()
    return [(child.wait(timeout=120), child.communicate()[1]) for child in children]


@pytest.fixture
def two_runs(tmp_path: Path) -> list[tuple[str, Path]]:
    runs = tmp_path / "runs"
    shutil.copytree(EXAMPLES, runs)
    return [("y7", runs / "ref.json"), ("y8", runs / "cmp.json")]


def test_concurrent_ingests_never_give_one_order_to_two_commits(
    tmp_path: Path, two_runs: list[tuple[str, Path]]
) -> None:
    for trial in range(TRIALS):
        archive = tmp_path / f"archive-{trial}"
        if trial % 2:
            open_archive(archive, create=True)  # else the two ingests create it
        done = _race(tmp_path / f"trial-{trial}", archive, two_runs)
        statuses = sorted(status for status, _ in done)
        assert statuses == [0, 2], (trial, done)
        (refused,) = [err for status, err in done if status == 2]
        assert len(refused.splitlines()) == 1 and "Traceback" not in refused, refused
        assert "--order 5 already belongs to commit" in refused, refused
        commits = query(archive).execute('SELECT commit FROM runs WHERE "order" = 5').fetchall()
        assert len(commits) == 1, (trial, commits)


def test_the_lock_file_is_outside_every_table(
    tmp_path: Path, two_runs: list[tuple[str, Path]]
) -> None:
    import pyarrow.dataset as ds
    from cuda.bench.history.archive import ingest

    archive = tmp_path / "archive"
    ingest(archive, two_runs[0][1], commit="y7", order=5)
    assert (archive / LOCK_FILE).is_file()
    assert {path.name for path in archive.iterdir() if path.is_file()} == {
        "nvbench-archive.json",
        LOCK_FILE,
    }
    # Another engine reads each table's folder as before; DuckDB's views are unchanged.
    for table in ("runs", "states"):
        read = ds.dataset(archive / table, format="parquet", partitioning="hive").to_table()
        assert read.num_rows >= 1
    assert query(archive).execute("SELECT count(*) FROM runs").fetchone() == (1,)
    # The next ingest, and a reader, go on while the file stays; it is never removed.
    ingest(archive, two_runs[1][1], commit="y8", order=6)
    assert (archive / LOCK_FILE).is_file()


def test_an_ingest_waits_for_the_lock(tmp_path: Path, two_runs: list[tuple[str, Path]]) -> None:
    """A lock held elsewhere keeps an ingest from checking and writing until released."""
    archive = tmp_path / "archive"
    root = open_archive(archive, create=True)
    script = tmp_path / "ingest.py"
    script.write_text(
        "import sys\nfrom cuda.bench.cli.history import main\nsys.exit(main(sys.argv[1:]))\n"
    )
    argv = [sys.executable, str(script), "ingest", "--archive", str(archive)]
    with archive_lock(root) as held:
        assert held
        child = subprocess.Popen(
            [*argv, "--commit", "y7", "--order", "5", str(two_runs[0][1])],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=os.environ.copy(),
        )
        with pytest.raises(subprocess.TimeoutExpired):
            child.wait(timeout=3)
        assert not list(archive.glob("runs/*/*/*.parquet"))
    assert child.wait(timeout=120) == 0
    assert len(list(archive.glob("runs/*/*/*.parquet"))) == 1


def test_a_directory_another_ingest_is_creating_is_an_empty_one(
    tmp_path: Path, two_runs: list[tuple[str, Path]]
) -> None:
    """The first night: one ingest has made the directory and is writing the marker (a
    hidden temporary file of a live process) when the other looks; the other refused the
    directory as not an archive (exit 2) and the night lost a run."""
    from cuda.bench.cli.history import main
    from cuda.bench.history._temporary import temporary_path

    archive = tmp_path / "archive"
    archive.mkdir()
    temporary_path(archive, "nvbench-archive.json").write_text("{}")  # ours: a live pid
    argv = ["ingest", "--archive", str(archive), "--commit", "y7", str(two_runs[0][1])]
    assert main(argv) == 0
    assert len(list(archive.glob("runs/*/*/*.parquet"))) == 1
    # Anything else in the directory is still refused.
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    assert main([*argv[:2], str(other), *argv[3:]]) == 2


@pytest.mark.parametrize("kind", ["fifo", "link-to-nothing", "link-to-file"])
def test_a_lock_file_that_is_not_a_regular_file_is_refused(
    tmp_path: Path, two_runs: list[tuple[str, Path]], kind: str
) -> None:
    """A FIFO in the lock file's place made ingest wait forever in its open; a link made it
    create (or open) a file outside the archive."""
    archive = tmp_path / "archive"
    root = open_archive(archive, create=True)
    lock = root / LOCK_FILE
    outside = tmp_path / "outside"
    if kind == "fifo":
        os.mkfifo(lock)
    else:
        if kind == "link-to-file":
            outside.write_text("keep")
        lock.symlink_to(outside)
    script = tmp_path / "ingest.py"
    script.write_text(
        "import sys\nfrom cuda.bench.cli.history import main\nsys.exit(main(sys.argv[1:]))\n"
    )
    done = subprocess.run(
        [
            sys.executable,
            str(script),
            "ingest",
            "--archive",
            str(archive),
            "--commit",
            "y7",
            str(two_runs[0][1]),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ.copy(),
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and LOCK_FILE in lines[0] and "nothing written" in lines[0], lines
    assert not list(archive.glob("runs/*/*/*.parquet"))
    assert outside.exists() == (kind == "link-to-file")
    if kind == "link-to-file":
        assert outside.read_text() == "keep"


def test_an_archive_another_ingest_creates_meanwhile_is_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two first ingests at once: between this one's look for the marker (none yet) and its
    look at the directory, the other created the archive and its lock file. The directory is
    then an archive, not "not an empty directory" (a race the concurrent test above met
    about once in a dozen runs on a loaded machine)."""
    import cuda.bench.history.archive as archive_module

    archive = tmp_path / "archive"
    real = archive_module.only_temporaries

    def other_ingest_first(directory: Path, stem: str) -> bool:
        monkeypatch.setattr(archive_module, "only_temporaries", real)
        open_archive(archive, create=True)  # the other ingest, then its lock
        with archive_lock(archive):
            pass
        return real(directory, stem)

    archive.mkdir()
    monkeypatch.setattr(archive_module, "only_temporaries", other_ingest_first)
    assert open_archive(archive, create=True) == archive
    assert {path.name for path in archive.iterdir()} == {"nvbench-archive.json", LOCK_FILE}


def test_an_archive_another_ingest_marks_after_the_look_is_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same race a moment later: the other ingest commits its marker just after this
    one found the directory empty. The check for an archive inside another took the new
    archive itself for the outer one ("inside the archive X")."""
    import cuda.bench.history.archive as archive_module

    archive = tmp_path / "archive"
    real = archive_module.only_temporaries

    def other_marks_after(directory: Path, stem: str) -> bool:
        empty = real(directory, stem)
        monkeypatch.setattr(archive_module, "only_temporaries", real)
        other = tmp_path / "other"
        open_archive(other, create=True)  # a marker as the other ingest writes it
        (other / "nvbench-archive.json").replace(archive / "nvbench-archive.json")
        return empty

    archive.mkdir()
    monkeypatch.setattr(archive_module, "only_temporaries", other_marks_after)
    assert open_archive(archive, create=True) == archive


def test_a_run_checked_while_another_ingest_creates_the_archive_is_checked(
    tmp_path: Path, two_runs: list[tuple[str, Path]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same race for ``check_new_run`` (the check of several runs before any is
    ingested): it looked for the marker, found none, then found the directory not empty
    and refused it as "not an nvbench-tools history archive"."""
    import cuda.bench.history.archive as archive_module

    archive = tmp_path / "archive"
    real = archive_module.only_temporaries

    def other_ingest_first(directory: Path, stem: str) -> bool:
        monkeypatch.setattr(archive_module, "only_temporaries", real)
        open_archive(archive, create=True)
        with archive_lock(archive):
            pass
        return real(directory, stem)

    archive.mkdir()
    monkeypatch.setattr(archive_module, "only_temporaries", other_ingest_first)
    commit, run = two_runs[0]
    archive_module.check_new_run(archive, run, commit=commit)
    assert (archive / "nvbench-archive.json").is_file()
