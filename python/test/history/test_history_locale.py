"""``nvbench-history`` under a locale whose encoding is not UTF-8 (``en_US.ISO-8859-1``, or
``C`` without Python's UTF-8 mode): every command writes its emoji and names as
``nvbench_compare`` does, and an archive whose path is not ASCII is read and written where
its bytes are on disk."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _history_calls import ingest_days, run_history

NAMES = ("gpu_ref.json", "gpu_cmp.json", "gpu_ref_nosidecar.json")
#: Python's text of paths in ASCII, not in UTF-8: the C locale without coercion.
ASCII_LOCALE = {"LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}


@pytest.fixture(scope="module")
def latin1(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of ``en_US.ISO-8859-1``, built with ``localedef`` in a folder of the
    test's (``LOCPATH``); a skip where it cannot be built."""
    localedef = shutil.which("localedef")
    if localedef is None:
        pytest.skip("localedef is not installed: no ISO-8859-1 locale to run under")
    folder = tmp_path_factory.mktemp("locales")
    built = subprocess.run(
        [localedef, "-i", "en_US", "-f", "ISO-8859-1", str(folder / "en_US.ISO-8859-1")],
        capture_output=True,
        text=True,
        check=False,
    )
    environment = {"LOCPATH": str(folder), "LC_ALL": "en_US.ISO-8859-1"}
    found = _history_process(["-c", "import sys; print(sys.getfilesystemencoding())"], environment)
    if built.returncode > 1 or found.stdout.strip() != "iso8859-1":
        # localedef exits 1 for warnings alone (the locale is written all the same).
        pytest.skip(f"en_US.ISO-8859-1 could not be built: {built.stderr.strip()[:200]}")
    return environment


def _history_process(
    argv: list[str], environment: Mapping[str, str]
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *argv],
        capture_output=True,
        env={**os.environ, **environment},
        # The output in the encoding the commands write (UTF-8), whatever the locale.
        encoding="utf-8",
        errors="replace",
        timeout=300,
        check=False,
    )


def history(environment: Mapping[str, str], *args: str | Path) -> subprocess.CompletedProcess[str]:
    """``nvbench-history args`` in a process of ``environment``; paths passed as their
    bytes on disk, as a shell passes them."""
    code = "import sys; from cuda.bench.cli.history import main; sys.exit(main())"
    return _history_process(["-c", code, *map(os.fsdecode, map(os.fsencode, args))], environment)


@pytest.fixture(scope="module")
def archive(gpu_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three real runs, in an archive whose path is not ASCII (made under UTF-8)."""
    runs = [(gpu_dir / name, f"{day:x}" * 40) for day, name in enumerate(NAMES, start=1)]
    return ingest_days(tmp_path_factory.mktemp("locale") / "архив-ü€", runs, ordered=True)


def _commands(archive: Path, gpu_dir: Path, out: Path) -> list[list[str | Path]]:
    tonight = gpu_dir / "gpu_cmp_plain.json"
    return [
        ["trend", "--archive", archive],
        ["detect", "--archive", archive, "--json", out / "d.json"],
        ["gate", "--archive", archive, tonight, "--json", out / "g.json"],
        ["gate", "--archive", archive, tonight, "--display", "legacy"],
        ["report", "--archive", archive, "--html", out / "site"],
        ["baseline", "check", *(gpu_dir / name for name in NAMES)],
    ]


def _runs_well(done: subprocess.CompletedProcess[str], what: object) -> None:
    assert "Traceback" not in done.stderr, (what, done.stderr)
    # gate exits 0 without --fail-on; baseline check 1 where the three runs disagree.
    assert done.returncode in (0, 1), (what, done.stderr)
    assert "warning" not in done.stderr, (what, done.stderr)


@pytest.mark.parametrize("name", ["latin1", "ascii"])
def test_every_command_writes_under_a_locale_not_utf8(
    name: str, archive: Path, gpu_dir: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """``gate ... --json gj.json`` under ``LC_ALL=en_US.ISO-8859-1`` ended with
    ``UnicodeEncodeError: 'latin-1' codec can't encode character '\\U0001f535'`` and exit
    status 1, the gate all SAME; and every file of an archive whose path is not ASCII was
    "unreadable as Parquet (IO Error: No files found that match the pattern ...)"."""
    environment = request.getfixturevalue("latin1") if name == "latin1" else ASCII_LOCALE
    for argv in _commands(archive, gpu_dir, tmp_path):
        done = history(environment, *argv)
        _runs_well(done, argv)
        assert done.stdout.strip(), argv
    assert (tmp_path / "site" / "index.html").is_file()


def test_an_ingest_writes_where_the_archive_is_under_a_locale_not_utf8(
    gpu_dir: Path, tmp_path: Path
) -> None:
    """Under ``LC_ALL=C`` (Python's text of paths in ASCII) an ingest into ``новый`` said
    "cannot write to the archive (No such file or directory)": pyarrow took the path's text
    for UTF-8 and wrote elsewhere. The next ingest reads the first's files."""
    archive = tmp_path / "новый"
    for day, name in enumerate(NAMES[:2], start=1):
        done = history(
            ASCII_LOCALE,
            "ingest",
            "--archive",
            archive,
            "--commit",
            f"c{day}",
            "--date",
            f"2026-01-0{day}",
            gpu_dir / name,
        )
        assert done.returncode == 0, done.stderr
        assert done.stderr == ""
    assert len(list(archive.glob("runs/*/*/*.parquet"))) == 2


def test_an_archive_whose_path_is_not_utf8_is_refused_in_one_line(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """DuckDB opens UTF-8 paths only: an archive under a name of other bytes is named, with
    what to do, rather than each of its files left out."""
    folder = Path(os.fsdecode(os.fsencode(tmp_path) + b"/arch\xff"))
    archive = ingest_days(folder, [(gpu_dir / NAMES[0], "c1" * 20)])
    code, _, err = run_history(capsys, "trend", "--archive", archive)
    assert code == 2
    assert len(err.splitlines()) == 1, err
    assert err.endswith(
        ": the archive's path is not UTF-8, which DuckDB cannot open; rename it or give it "
        "by a path without those bytes\n"
    ), err


def test_a_file_whose_name_is_not_utf8_is_left_out(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file of the archive named with other bytes (copied in from elsewhere) is one
    warning, the other files read."""
    runs = [(gpu_dir / name, f"{day:x}" * 40) for day, name in enumerate(NAMES, start=1)]
    archive = ingest_days(tmp_path / "archive", runs)
    held = sorted(archive.glob("runs/*/*/*.parquet"))[0]
    odd = Path(os.fsdecode(os.fsencode(held.parent) + b"/copy\xff.parquet"))
    shutil.copyfile(held, odd)
    code, _, err = run_history(capsys, "trend", "--archive", archive)
    assert code == 0, err
    warned = [line for line in err.splitlines() if "warning:" in line]
    assert len(warned) == 1, err
    assert warned[0].endswith(
        ".parquet: a name that is not UTF-8, which DuckDB cannot open; left out"
    ), warned
