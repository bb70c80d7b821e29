"""The repr of a result, its benchmarks, states and outline stays short whatever the file
holds (it listed every benchmark name and printed names in full: a megabyte for a name of
100,000 characters), shows counts, and never reads the file to be made."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from cuda.bench.results import BenchmarkResult, FileOutline, ReadMode
from cuda.bench.results._stages import Stage

LONG = 100_000
COUNT = 1_000


@pytest.fixture(scope="module")
def crowded(gpu_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of a real file with a thousand benchmarks (of two states of three summaries
    each), the first named with 100,000 characters, its first state too."""
    document = json.loads((gpu_dir / "gpu_ref.json").read_text())
    first = document["benchmarks"][0]
    first["states"] = first["states"][:2]
    for state in first["states"]:
        state["summaries"] = state["summaries"][:3]
    benchmarks = []
    for number in range(COUNT):
        bench = copy.deepcopy(first)
        bench["name"] = "b" * LONG if number == 0 else f"bench_{number}"
        benchmarks.append(bench)
    benchmarks[0]["states"][0]["name"] = "Device=0 " + "s" * LONG
    document["benchmarks"] = benchmarks
    path = tmp_path_factory.mktemp("crowded") / "crowded.json"
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize("mode", list(ReadMode), ids=lambda mode: mode.value)
def test_reprs_are_bounded(crowded: Path, mode: ReadMode) -> None:
    result = BenchmarkResult(crowded, mode=mode)
    shown = repr(result)
    assert len(shown) < 600, len(shown)
    assert f"{COUNT} benchmarks" in shown and f"({LONG} characters)" in shown
    assert "'bench_1', 'bench_2', ..." in shown
    bench = result.benchmarks[0]
    state = bench[0]
    for view in (bench, state):
        assert len(repr(view)) < 400 and f"({LONG} characters)" in repr(view)
    assert f"{len(bench)} states" in repr(bench)
    outline = FileOutline.read(crowded)
    assert outline is not None and len(repr(outline)) < 400
    assert f"{COUNT} benchmarks" in repr(outline)


def test_a_repr_reads_nothing(gpu_dir: Path) -> None:
    # A benchmark read benchmark by benchmark decoded its states (reading its file) to
    # count them for its repr; a state handed out before them, to name itself.
    result = BenchmarkResult(gpu_dir / "gpu_ref.json", mode=ReadMode.BY_BENCHMARK)
    bench = result["misc"]
    state = bench.state_at(0)
    assert repr(bench) == "SubBenchmarkResult('misc', states not read yet)"
    assert repr(state) == "SubBenchmarkState('misc', position 0, not read yet)"
    assert bench._stages.stage is Stage.RAW
    assert repr(bench[0]) == f"SubBenchmarkState('misc', {bench[0].state_name!r})"
    assert repr(bench) == f"SubBenchmarkResult('misc', {len(bench)} states)"


def test_short_reprs_keep_every_name(gpu_dir: Path) -> None:
    path = gpu_dir / "gpu_ref.json"
    names = list(BenchmarkResult(path))
    assert repr(BenchmarkResult(path)) == (
        f"BenchmarkResult({str(path)!r}, {len(names)} benchmarks: [{', '.join(map(repr, names))}])"
    )
    assert repr(BenchmarkResult.empty()) == "BenchmarkResult(<memory>, 0 benchmarks)"
