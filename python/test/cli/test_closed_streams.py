"""Every tool with its standard output or standard error closed (``>&-``, ``2>&-``), where
Python's ``sys.stdout`` or ``sys.stderr`` is ``None``: exit status 1 (which CI reads as a
regression found) never comes of it, and no line meant for stderr lands in the output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / "examples" / "data"
REF, CMP = DATA / "ref.json", DATA / "cmp.json"


def closed(redirect: str, module: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """``main()`` of ``module`` with ``args`` in a process whose standard output
    (``redirect`` ``>&-``) or error (``2>&-``) is closed, the other captured."""
    code = f"import sys; from {module} import main; sys.exit(main())"
    shell = f'exec "$0" "$@" {redirect}'
    argv = ["sh", "-c", shell, sys.executable, "-c", code, *map(str, args)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize(
    ("module", "args"),
    [
        ("cuda.bench.cli.compare", (REF, CMP)),
        ("cuda.bench.cli.compare", (REF, CMP, "--fail-on", "slow")),
        ("cuda.bench.cli.compare", (REF, CMP, "--json", "-")),
        ("cuda.bench.cli.json_summary", (REF,)),
        ("cuda.bench.cli.walltime", (REF,)),
        ("cuda.bench.cli.compare", ("--help",)),
    ],
)
def test_a_closed_stdout_is_an_output_error(module: str, args: tuple[str | Path, ...]) -> None:
    """``nvbench_compare ref.json cmp.json >&-`` ended with ``AttributeError: 'NoneType'
    object has no attribute 'write'`` and exit status 1: as ``> /dev/full``, the output
    that cannot be written is one line and exit status 2."""
    done = closed(">&-", module, *args)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert lines[-1].endswith("error: standard output: closed (Bad file descriptor)"), lines


def test_a_closed_stderr_keeps_warnings_out_of_stdout() -> None:
    """With stderr closed, ``print(..., file=sys.stderr)`` writes to stdout: the warning of
    a run compared with itself came first in ``--json -``, which was then no JSON."""
    done = closed("2>&-", "cuda.bench.cli.compare", REF, REF, "--json", "-")
    assert done.returncode == 0
    assert ": warning: " not in done.stdout
    assert json.loads(done.stdout)["warnings"]  # the warning is in the report, as ever


def test_a_closed_stderr_leaves_the_exit_status_as_it_is() -> None:
    """An error with nowhere to say it still exits 2, and says nothing on stdout."""
    done = closed("2>&-", "cuda.bench.cli.compare", DATA / "missing.json", CMP)
    assert done.returncode == 2
    assert done.stdout == ""


def test_ab_draws_no_progress_on_a_closed_stderr() -> None:
    """``nvbench_compare ab ... 2>&-`` asked ``None`` whether it is a terminal."""
    from cuda.bench.cli.ab import _progress_printer

    assert _progress_printer(None) is None
