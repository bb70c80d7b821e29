"""compare_many with a baseline measured in several runs, and states the baseline lacks."""

from __future__ import annotations

from pathlib import Path

import pytest
from cuda.bench.compare import compare_many
from cuda.bench.compare.many import best_of
from cuda.bench.results import BenchmarkResult
from cuda.bench.results.synthetic import SyntheticConfig, write_pair


def test_a_baseline_directory_of_runs_is_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pair = write_pair(
        tmp_path / "runs",
        SyntheticConfig(benchmarks=1, states=2, samples=200),
        seed=4,
        ref_runs=2,
        cmp_runs=2,
    )
    base = tmp_path / "base"
    base.mkdir()
    for path in pair.ref:
        path.rename(base / path.name)
        for suffix in ("-bin", "-freqs-bin"):
            (path.parent / f"{path.name}{suffix}").rename(base / f"{path.name}{suffix}")
    opened: list[str] = []
    original = BenchmarkResult.__init__

    def counting(self: BenchmarkResult, source: object, *args: object, **kwargs: object) -> None:
        opened.append(Path(str(source)).name)
        original(self, source, *args, **kwargs)

    monkeypatch.setattr(BenchmarkResult, "__init__", counting)
    many = compare_many([base], {"a": list(pair.cmp), "b": list(pair.cmp)})
    assert sorted(name for name in opened if name.startswith("ref")) == ["ref_0.json", "ref_1.json"]
    assert [len(many[name].inputs[0].ref) for name in many.names] == [2, 2]


def test_no_best_for_a_state_the_baseline_lacks(tmp_path: Path) -> None:
    pair = write_pair(tmp_path, SyntheticConfig(benchmarks=1, states=2, samples=200), seed=4)
    wide = write_pair(
        tmp_path / "wide", SyntheticConfig(benchmarks=1, states=3, samples=200), seed=4
    )
    many = compare_many(pair.ref[0], {"a": wide.cmp[0], "b": wide.cmp[0]})
    added = [line for line in many.matrix() if line.baseline is None]
    assert len(added) == 1 and added[0].best == ()
    assert best_of("base", ("a",), [None]) == ()
