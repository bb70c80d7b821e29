"""Every tool with its standard output or standard error closed (``>&-``, ``2>&-``), where
Python's ``sys.stdout`` or ``sys.stderr`` is ``None``: exit status 1 (which CI reads as a
regression found) never comes of it."""

from __future__ import annotations

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
