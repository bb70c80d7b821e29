"""A comparison split over processes by benchmark: each process decodes and compares a run
of benchmarks, and the answer is that of one process."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from cuda.bench.compare import execution
from cuda.bench.compare.api import compare
from cuda.bench.compare.errors import FilterError
from cuda.bench.compare.model import Comparison, Status
from cuda.bench.compare.workers import can_fork
from cuda.bench.results import BenchmarkResult, ResultFormatError
from cuda.bench.results.synthetic import SyntheticConfig, write_pair

needs_fork = pytest.mark.skipif(not can_fork(), reason="forked workers run on Linux only")


@pytest.fixture
def forks(engine_forks: list[tuple[int, list[int]]]) -> list[tuple[int, list[int]]]:
    return engine_forks


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Five benchmarks with side files, some states shifted; the compare run lacks one
    state of bench_01, has one broken side file in bench_04 and a benchmark of its own."""
    root = tmp_path_factory.mktemp("split")
    pair = write_pair(
        root, SyntheticConfig(benchmarks=5, states=12, samples=80), seed=11, random_shifts=8
    )
    ref, cmp = pair.ref[0], pair.cmp[0]
    doc = json.loads(cmp.read_text())
    del doc["benchmarks"][1]["states"][5]
    extra = json.loads(json.dumps(doc["benchmarks"][2]))
    extra["name"] = "only_in_cmp"
    doc["benchmarks"].append(extra)
    cmp.write_text(json.dumps(doc, indent=2))
    bins = sorted((root / "cmp.json-bin").iterdir())
    bins[-3].write_bytes(b"\0" * 7)  # a side file of the wrong size, in the last benchmark
    return ref, cmp


def _same(split: Comparison, serial: Comparison) -> None:
    assert split.rows == serial.rows
    assert split.warnings == serial.warnings
    assert split.benchmarks == serial.benchmarks
    if serial.suite is None:
        assert split.suite is None
    else:
        assert split.suite is not None
        assert (split.suite.ratio, split.suite.rows) == (serial.suite.ratio, serial.suite.rows)
        assert split.suite.lo == pytest.approx(serial.suite.lo, rel=1e-9)
        assert split.suite.hi == pytest.approx(serial.suite.hi, rel=1e-9)


@needs_fork
@pytest.mark.parametrize("method", ["ci", "robust"])
def test_a_split_comparison_gives_the_rows_of_one_process(
    runs: tuple[Path, Path], method: str, forks: list[tuple[int, list[int]]]
) -> None:
    serial = compare(*runs, method=method, jobs=1)
    assert forks == []
    split = compare(*runs, method=method, jobs=2)
    # The benchmarks, in two processes (the files' first passes, side by side before:
    # test_the_files_first_passes_are_made_side_by_side_each_once).
    assert [count for count, _ in forks] == [2]
    assert all(len(set(pids)) == 2 and os.getpid() in pids for _, pids in forks)
    _same(split, serial)
    statuses = {row.status for row in split.rows}
    assert {Status.REMOVED, Status.ADDED} <= statuses
    assert Status.SLOW in statuses or Status.FAST in statuses
    assert any("holds" in warning or "size" in warning for warning in split.warnings)


@needs_fork
def test_the_files_first_passes_are_made_side_by_side_each_once(
    runs: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    forks: list[tuple[int, list[int]]],
) -> None:
    from cuda.bench.compare import inputs

    log = tmp_path / "first-passes"
    real = inputs._first_passes

    def spy(files: list[tuple[str, bool]]) -> object:
        with log.open("a") as out:  # appended to by both processes
            out.writelines(f"{Path(path).name} {os.getpid()}\n" for path, _ in files)
        return real(files)

    monkeypatch.setattr(inputs, "_first_passes", spy)
    split = compare(*runs, method="robust", jobs=2)
    passes = [line.split() for line in log.read_text().splitlines()]
    # Each file once: the compare file's outline came back from the child, not made again.
    assert sorted(name for name, _ in passes) == ["cmp.json", "ref.json"]
    where = dict(passes)
    assert where["ref.json"] == str(os.getpid()) != where["cmp.json"]
    _same(split, compare(*runs, method="robust", jobs=1))


@needs_fork
def test_rows_computed_elsewhere_link_to_states_decoded_when_used(
    runs: tuple[Path, Path], forks: list[tuple[int, list[int]]]
) -> None:
    serial = compare(*runs, method="robust", jobs=1)
    split = compare(*runs, method="robust", jobs=2)
    # A child compared some benchmarks: this process has not decoded them.
    undecoded = [
        row.cmp_state
        for row in split.rows
        if row.cmp_state is not None and row.cmp_state.benchmark.raw_states_size is not None
    ]
    assert undecoded
    last = undecoded[-1]
    for row, expected in zip(split.rows, serial.rows, strict=True):
        for state, twin in (
            (row.ref_state, expected.ref_state),
            (row.cmp_state, expected.cmp_state),
        ):
            assert (state is None) == (twin is None)
            if state is not None and twin is not None:
                assert state.benchmark[state.position] is state
                assert state.state_name == twin.state_name
                assert state.summaries == twin.summaries
    assert last.benchmark.raw_states_size is None
    sources = {id(row.ref_state.benchmark.source) for row in split.rows if row.ref_state}
    assert len(sources) == 1  # every reference state comes from one loaded result


@needs_fork
def test_filters_see_the_states_each_process_decoded(
    runs: tuple[Path, Path], forks: list[tuple[int, list[int]]]
) -> None:
    filters = [
        ("axis", "Elements=[1024,4096]"),
        ("benchmark", "bench_04"),
        ("benchmark", "bench_00"),
    ]
    _same(compare(*runs, filters=filters, jobs=2), compare(*runs, filters=filters, jobs=1))
    assert [count for count, _ in forks] == [2]
    wrong = [("benchmark", "bench_03"), ("axis", "Elements=999")]
    with pytest.raises(FilterError) as serial:
        compare(*runs, filters=wrong, jobs=1)
    with pytest.raises(FilterError) as split:
        compare(*runs, filters=wrong, jobs=2)
    assert str(split.value) == str(serial.value)


@needs_fork
def test_a_bad_state_in_a_childs_benchmark_is_reported_as_in_one_process(
    runs: tuple[Path, Path], tmp_path: Path, forks: list[tuple[int, list[int]]]
) -> None:
    ref, cmp = runs
    doc = json.loads(cmp.read_text())
    doc["benchmarks"][4]["states"][1]["device"] = "zero"
    broken = tmp_path / "cmp.json"
    broken.write_text(json.dumps(doc))
    for side in ("cmp.json-bin", "cmp.json-freqs-bin"):
        shutil.copytree(cmp.parent / side, tmp_path / side)
    with pytest.raises(ResultFormatError) as serial:
        compare(ref, broken, jobs=1)
    with pytest.raises(ResultFormatError) as split:
        compare(ref, broken, jobs=2)
    assert str(split.value) == str(serial.value)
    assert "$.benchmarks[4].states[1].device" in str(split.value)
    assert forks[-1][0] == 2  # the rows were split: the child met the error


def test_no_split_below_the_threshold_for_loaded_results_or_one_job(
    runs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    real_map, real_dispatch = execution.fork_map, execution.fork_dispatch

    def map_spy(work, chunks):  # type: ignore[no-untyped-def]
        calls.append(len(chunks))
        return real_map(work, chunks)

    def dispatch_spy(work, items, processes):  # type: ignore[no-untyped-def]
        calls.append(processes)
        return real_dispatch(work, items, processes)

    monkeypatch.setattr(execution, "fork_map", map_spy)
    monkeypatch.setattr(execution, "fork_dispatch", dispatch_spy)
    compare(*runs, method="robust", jobs=4)  # a few hundred kilobytes: not worth it
    monkeypatch.setattr(execution, "_MIN_SPLIT_BYTES", 1)
    compare(*runs, method="robust", jobs=1)
    compare(*(BenchmarkResult(path) for path in runs), method="robust", jobs=4)
    assert calls == []


def test_one_process_reads_benchmark_by_benchmark_and_decodes_only_what_it_compares(
    runs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from cuda.bench.results import _stages

    decoded: list[tuple[str | None, int, bool]] = []
    real = _stages.decode_states

    def spy(raw, label, bench_index, *, slim=False):  # type: ignore[no-untyped-def]
        decoded.append((Path(label or "").name, bench_index, slim))
        return real(raw, label, bench_index, slim=slim)

    monkeypatch.setattr(_stages, "decode_states", spy)
    comparison = compare(*runs, filters=[("benchmark", "bench_03")], jobs=1)
    assert {row.benchmark for row in comparison.rows} == {"bench_03"}
    # Only the selected benchmark, slim (tags and values), in each file.
    assert decoded == [("ref.json", 3, True), ("cmp.json", 3, True)]
    whole = compare(*(BenchmarkResult(path, lazy=False) for path in runs), jobs=1)
    assert compare(*runs, jobs=1).rows == whole.rows


@needs_fork
def test_states_on_no_listed_device_are_told_alike_split_or_not(
    tmp_path: Path, forks: list[tuple[int, list[int]]]
) -> None:
    pair = write_pair(tmp_path, SyntheticConfig(benchmarks=3, states=6, samples=40), seed=5)
    ref, cmp = pair.ref[0], pair.cmp[0]
    for path, bench, state, device in ((ref, 2, 2, 7), (cmp, 0, 4, 3)):
        doc = json.loads(path.read_text())
        doc["benchmarks"][bench]["states"][state]["device"] = device
        path.write_text(json.dumps(doc))
    serial = compare(ref, cmp, jobs=1)
    split = compare(ref, cmp, jobs=2)
    assert forks and all(len(set(pids)) == 2 for _, pids in forks)
    _same(split, serial)
    told = [warning for warning in serial.warnings if "left out of the comparison" in warning]
    assert len(told) == 2, serial.warnings
    # In benchmark order, whichever process decoded the benchmark.
    assert "bench_00" in told[0] and "device 3" in told[0] and str(cmp) in told[0]
    assert "bench_02" in told[1] and "device 7" in told[1] and str(ref) in told[1]
