"""The type stubs in ``stubs/`` describe the code: stubtest compares them with the runtime."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
STUBS = REPO / "stubs"


def _mypy_available() -> None:
    pytest.importorskip("mypy", reason="mypy comes with the test extra")


@pytest.mark.slow
def test_stubs_match_the_runtime(tmp_path: Path) -> None:
    _mypy_available()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy.stubtest",
            "cuda.bench.results",
            "--mypy-config-file",
            str(REPO / "pyproject.toml"),
            "--allowlist",
            str(STUBS / "stubtest-allowlist.txt"),
        ],
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(STUBS)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


@pytest.mark.slow
def test_stubs_type_check_a_typical_client(tmp_path: Path) -> None:
    _mypy_available()
    client = tmp_path / "client.py"
    client.write_text(
        textwrap.dedent(
            """
            import numpy as np
            from cuda.bench.results import BenchmarkResult, ResultBuilder, Pow2Axis

            result = BenchmarkResult.from_json("x.json")
            for name, bench in result.items():
                for state in bench:
                    mean = state.summaries["nv/cold/time/gpu/mean"].value
                    samples = state.samples
                    if samples is not None:
                        center: float = float(np.median(samples))
            medians = result.centers(np.median)
            builder = ResultBuilder()
            builder.benchmark("b", axes=[Pow2Axis("Elements", [10])]).state(
                {"Elements": 1024}, gpu_times=[1e-6, 2e-6]
            )
            wrong: int = result["b"].name
            """
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(client)],
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(STUBS)},
        capture_output=True,
        text=True,
    )
    # Exactly the planted error: the stubs know ``name`` is a str.
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1, done.stdout
    assert 'incompatible types in assignment (expression has type "str"' in errors[0].lower()
