"""``nvbench-history`` with its standard output or error closed (``>&-``, ``2>&-``): a
command that has something to print and cannot exits 2 with one line, never 1 (which CI
reads as a regression found), and no warning lands in its output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _history_calls import ingest_days

NAMES = ("gpu_ref.json", "gpu_cmp.json", "gpu_ref_nosidecar.json")
CLOSED_STDOUT = "error: standard output: closed (Bad file descriptor)"


@pytest.fixture(scope="module")
def archive(gpu_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = [(gpu_dir / name, f"{day:x}" * 40) for day, name in enumerate(NAMES, start=1)]
    return ingest_days(tmp_path_factory.mktemp("closed") / "archive", runs)


def history(redirect: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """``nvbench-history args`` with standard output (``redirect`` ``>&-``) or error
    (``2>&-``) closed, the other captured."""
    code = "import sys; from cuda.bench.cli.history import main; sys.exit(main())"
    argv = ["sh", "-c", f'exec "$0" "$@" {redirect}', sys.executable, "-c", code]
    return subprocess.run(
        [*argv, *map(str, args)], capture_output=True, text=True, timeout=300, check=False
    )


@pytest.mark.parametrize(
    "command",
    [
        ["trend"],
        ["detect"],
        ["detect", "--json", "-"],
        ["gate", "--fail-on", "slow", "{tonight}"],
        ["gate", "--fail-on", "slow", "--markdown", "-", "{tonight}"],
    ],
)
def test_a_closed_stdout_is_an_output_error(
    archive: Path, gpu_dir: Path, command: list[str]
) -> None:
    """``gate ... --fail-on slow >&-`` ended with ``AttributeError: 'NoneType' object has no
    attribute 'write'`` and exit status 1 although the gate passed; trend and detect too."""
    tonight = str(gpu_dir / "gpu_cmp_plain.json")
    argv = [one.replace("{tonight}", tonight) for one in command]
    done = history(">&-", argv[0], "--archive", archive, *argv[1:])
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].endswith(CLOSED_STDOUT), done.stderr


def test_baseline_check_with_a_closed_stdout_is_an_output_error(gpu_dir: Path) -> None:
    runs = [gpu_dir / name for name in NAMES]
    done = history(">&-", "baseline", "check", *runs)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1].endswith(CLOSED_STDOUT), done.stderr


def test_ingest_with_a_closed_stdout_says_the_run_was_archived(
    gpu_dir: Path, tmp_path: Path
) -> None:
    done = history(
        ">&-", "ingest", "--archive", tmp_path / "a", "--commit", "c1", gpu_dir / "gpu_ref.json"
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "nvbench-history: error: standard output could not be written (closed (Bad file "
        "descriptor)); the run was archived all the same"
    ]


def test_a_closed_stderr_keeps_warnings_out_of_the_json_report(
    gpu_dir: Path, tmp_path: Path
) -> None:
    """``detect --archive X --json - 2>&- > d.json`` wrote its warnings into stdout (print
    to a ``None`` stderr goes to stdout): d.json was no JSON."""
    runs = [(gpu_dir / name, f"{day:x}" * 40) for day, name in enumerate(NAMES, start=1)]
    archive = ingest_days(tmp_path / "archive", runs)
    (next(archive.glob("states/*/*")) / "copied.parquet").mkdir()  # a warning to say
    done = history("2>&-", "detect", "--archive", archive, "--json", "-")
    assert done.returncode == 0
    assert json.loads(done.stdout)["series"]
