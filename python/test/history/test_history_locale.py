"""``nvbench-history`` under a locale whose encoding is not UTF-8 (``en_US.ISO-8859-1``, or
``C`` without Python's UTF-8 mode): every command writes its emoji and names as
``nvbench_compare`` does."""

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

from _history_calls import ingest_days

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
    """Three real runs."""
    runs = [(gpu_dir / name, f"{day:x}" * 40) for day, name in enumerate(NAMES, start=1)]
    return ingest_days(tmp_path_factory.mktemp("locale") / "archive", runs, ordered=True)


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
    status 1, the gate all SAME."""
    environment = request.getfixturevalue("latin1") if name == "latin1" else ASCII_LOCALE
    for argv in _commands(archive, gpu_dir, tmp_path):
        done = history(environment, *argv)
        _runs_well(done, argv)
        assert done.stdout.strip(), argv
    assert (tmp_path / "site" / "index.html").is_file()
