"""Reports list an unpaired file once: the warning the comparison told about it is known as
such from where it was told, never from its text, which quotes a file name (hostile input)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from cuda.bench.compare import compare
from cuda.bench.report.document import unpaired_warnings
from cuda.bench.results import DeviceSpec, Int64Axis, ResultBuilder


def _write(path: Path, bench_name: str, seed: int) -> None:
    """One benchmark, whose first state's name lacks its ``Device=0`` prefix (the engine
    warns about it)."""
    rng = np.random.default_rng(seed)
    builder = ResultBuilder(devices=[DeviceSpec.h100(0)])
    bench = builder.benchmark(bench_name, axes=[Int64Axis("N", [1, 2])])
    for n in (1, 2):
        bench.state(
            {"N": n},
            device=0,
            gpu_times=1e-5 * n * rng.lognormal(0.0, 0.004, 100),
            frequencies=np.full(100, 1.7e9),
        )
    builder.write(path)
    document = json.loads(path.read_text())
    first = document["benchmarks"][0]["states"][0]
    first["name"] = first["name"].replace("Device=0 ", "")
    path.write_text(json.dumps(document))


def test_a_benchmark_named_like_an_unpaired_file_keeps_its_warnings(tmp_path: Path) -> None:
    ref, cmp = tmp_path / "ref", tmp_path / "cmp"
    ref.mkdir()
    cmp.mkdir()
    lonely = ref / "lonely.json"
    # The benchmark's warnings begin as the unpaired file's warning does.
    hostile = f"reference file '{lonely}'"
    _write(ref / "a.json", hostile, 1)
    _write(cmp / "a.json", hostile, 2)
    _write(lonely, "other", 3)

    comparison = compare(ref, cmp)

    assert comparison.unpaired_files == (("reference", str(lonely)),)
    genuine = [line for line in comparison.warnings if "does not begin with" in line]
    assert len(genuine) == 2 and all(line.startswith(hostile + ":") for line in genuine)
    shown = unpaired_warnings(comparison)
    assert [line for line in shown if line in genuine] == genuine
    # The unpaired file's own warning is left out: the report lists the file apart.
    assert [line for line in comparison.warnings if line not in shown] == [
        line for line in comparison.warnings if line.startswith(f"{hostile} ")
    ]
