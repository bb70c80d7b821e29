"""The type stubs in ``stubs/`` describe the code: stubtest compares them with the runtime."""

from __future__ import annotations

import ast
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
            for every in result.benchmarks:  # as the user guide reads a result
                print(every.name, result.subbenches[every.name].position)
            gpu_name: str = result.devices[0].name
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


def _stub_class_names() -> dict[str, set[str]]:
    """Each class of the results stub and the names it declares (attributes, methods)."""
    tree = ast.parse((STUBS / "cuda" / "bench" / "results" / "__init__.pyi").read_text())
    declared: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names = declared.setdefault(node.name, set())
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    names.add(item.target.id)
                elif isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    names.add(item.name)
    return declared


def test_stubs_declare_the_public_instance_attributes(gpu_dir: Path) -> None:
    # stubtest compares what a class holds; attributes set on an instance (in __init__) are
    # invisible to it, so BenchmarkResult.benchmarks, the user guide's way to read a result,
    # was missing from the stubs and failed mypy --strict.
    from cuda.bench.results import BenchmarkResult, ResultBuilder

    result = BenchmarkResult(gpu_dir / "gpu_ref.json")
    bench = result.benchmarks[0]
    state = bench[0]
    _ = state.samples, state.frequencies  # cached on the instance
    builder = ResultBuilder()
    instances = [result, BenchmarkResult.empty(), bench, state, builder, builder.benchmark("b")]
    declared = _stub_class_names()
    for instance in instances:
        kind = type(instance).__name__
        public = {name for name in vars(instance) if not name.startswith("_")}
        assert public <= declared[kind], f"{kind}: {sorted(public - declared[kind])}"
